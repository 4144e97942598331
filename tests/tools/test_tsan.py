"""tools.tsan: its workload catches a wrong result and an exception in a caller,
and the driver reads ThreadSanitizer's summary lines."""

from __future__ import annotations

import threading

import pytest

from tools import tsan
from tools.tsan_workload import Workload


def run_callers(work: Workload, seconds: float = 0.5) -> None:
    threading.Timer(seconds, work.stop.set).start()
    work.caller(0)


def test_the_workload_is_right_on_this_interpreter() -> None:
    work = Workload(seed=3)
    run_callers(work)
    assert work.calls > 0
    assert not work.wrong


def test_a_wrong_default_is_reported() -> None:
    work = Workload(seed=3)
    work.cell_param = lambda a, b=None: a * 4   # the default computed wrongly
    run_callers(work)
    assert any(line.startswith("cell_param(n)") for line in work.wrong)


def test_an_exception_in_a_caller_is_reported() -> None:
    work = Workload(seed=3)

    def broken(*args):
        raise UnboundLocalError("b")
    work.pos_a = broken
    run_callers(work)
    assert any("raised UnboundLocalError" in what for what in work.wrong)


REPORT = """\
==================
WARNING: ThreadSanitizer: data race (pid=123)
  Write of size 8 at 0x7f00 by main thread:
    #0 memcpy <null> (python+0x1)
    #1 func_set_defaults {src}/funcobject.c:2:5 (python+0x2)
    #2 getset_set {src}/descrobject.c:249:16 (python+0x3)

  Previous read of size 8 at 0x7f00 by thread T14:
    #0 initialize_locals {src}/ceval.c:{line}:37 (python+0x4)
    #1 _PyEvalFramePushAndInit {src}/ceval.c:1:9 (python+0x5)

  Location is heap block of size 64 at 0x7f00 allocated by thread T1:
    #0 malloc <null> (python+0x6)

SUMMARY: ThreadSanitizer: data race in memcpy
==================
"""


def test_a_report_is_named_by_its_accesses(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "funcobject.c").write_text("int x;\n    Py_XSETREF(op->func_defaults, v);\n")
    (src / "ceval.c").write_text("int y;\nint z;\n    n = func->func_defaults;\n"
                                 "    m = func->func_defaults + 1;\n")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(tsan, "TSAN_OUT", out)
    first = REPORT.format(src=src, line=3)
    # the accesses the other way round: the same name
    head, rest = first.split("  Write of size", 1)
    write, rest = rest.split("  Previous read of size", 1)
    read, tail = rest.split("  Location", 1)
    swapped = (head + "  Read of size" + read + "  Previous write of size" + write
               + "  Location" + tail)
    (out / "workload.1").write_text(first)
    (out / "workload.2").write_text(swapped)
    # another statement of the same function: another name
    (out / "workload.3").write_text(REPORT.format(src=src, line=4))
    (out / "other.9").write_text(first)
    names = tsan.reports("workload")
    assert names[0] == names[1] == (
        "data race: func_set_defaults `Py_XSETREF(op->func_defaults, v);` / "
        "initialize_locals `n = func->func_defaults;`")
    assert names[2].endswith("initialize_locals `m = func->func_defaults + 1;`")
    assert len(names) == 3
