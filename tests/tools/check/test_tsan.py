"""tools.check.tsan: its workload catches a wrong result and an exception in a caller,
and the driver reads ThreadSanitizer's summary lines."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from tools.check import tsan
from tools.common import ToolError
from tools.check import tsan_workload
from tools.check.tsan_workload import Workload


def run_callers(work: Workload, seconds: float = 0.5) -> None:
    threading.Timer(seconds, work.stop.set).start()
    work.caller(0)


def test_a_thread_that_does_not_stop_is_a_wrong_result_with_the_stacks(
        monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    release = threading.Event()

    class Stuck(tsan_workload.Workload):
        def mutate(self, rng: Any) -> None:
            release.wait()  # an assignment that does not return

    monkeypatch.setattr(tsan_workload, "Workload", Stuck)
    monkeypatch.setattr(tsan_workload, "JOIN_SECONDS", 0.5)
    monkeypatch.setattr(tsan_workload.faulthandler, "enable", lambda: None)
    try:
        status = tsan_workload.main(["--seconds", "0.2", "--threads", "2"])
    finally:
        release.set()
    out, err = capfd.readouterr()
    assert status == 1
    assert f"WRONG {tsan_workload.HUNG} (x1)" in out
    assert "in mutate" in err  # the hung thread's stack
    assert "tsan workload: " in out  # and the run still reports


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


# A thread leak as ThreadSanitizer (LLVM 14) writes it: no accesses, one stack,
# and a summary that names a path and a line of the tree.
THREAD_LEAK = """\
==================
WARNING: ThreadSanitizer: thread leak (pid={pid})
  Thread T3 (tid={tid}, finished) created by main thread at:
    #0 pthread_create /build/llvm-toolchain-14-lA4QDj/llvm-toolchain-14-14.0.6/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1022:3 (python+0xd3b8d) (BuildId: 2f729bc7)
    #1 do_start_joinable_thread {tree}/Python/thread_pthread.h:{line}:14 (python+0x4cc4f2) (BuildId: 2f729bc7)
    #2 PyThread_start_joinable_thread {tree}/Python/thread_pthread.h:{line2}:9 (python+0x4cc2d8) (BuildId: 2f729bc7)
    #3 ThreadHandle_start {tree}/./Modules/_threadmodule.c:431:9 (python+0x575b61) (BuildId: 2f729bc7)
    #4 do_start_new_thread {tree}/./Modules/_threadmodule.c:1846:9 (python+0x575b61)

SUMMARY: ThreadSanitizer: thread leak {tree}/Python/thread_pthread.h:{line}:14 in do_start_joinable_thread
==================
"""

LOCK_ORDER = """\
==================
WARNING: ThreadSanitizer: lock-order-inversion (potential deadlock) (pid=77)
  Cycle in lock order graph: M0 (0x7b0c00000010) => M1 (0x7b0c00000040) => M0

  Mutex M1 acquired here while holding mutex M0 in thread T1:
    #0 pthread_mutex_lock /build/llvm-toolchain-14-lA4QDj/llvm-toolchain-14-14.0.6/compiler-rt/lib/sanitizer_common/sanitizer_common_interceptors.inc:4324:3 (python+0x9a2f6)
    #1 PyThread_acquire_lock_timed {tree}/Python/thread_pthread.h:{line}:14 (python+0x4cc9a1)

  Mutex M0 acquired here while holding mutex M1 in main thread:
    #0 pthread_mutex_lock /build/llvm-toolchain-14-lA4QDj/llvm-toolchain-14-14.0.6/compiler-rt/lib/sanitizer_common/sanitizer_common_interceptors.inc:4324:3 (python+0x9a2f6)
    #1 other_function {tree}/Python/other.c:9:3 (python+0x4cc9a1)

SUMMARY: ThreadSanitizer: lock-order-inversion (potential deadlock) {tree}/Python/thread_pthread.h:{line}:14 in PyThread_acquire_lock_timed
==================
"""


def write_tree(tree: Path, line: int, statement: str) -> None:
    """tree/Python/thread_pthread.h with statement at line (the rest filler)."""
    (tree / "Python").mkdir(parents=True)
    lines = [f"/* line {i} */" for i in range(1, 400)]
    lines[line - 1] = f"    {statement}"
    (tree / "Python" / "thread_pthread.h").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("template", [THREAD_LEAK, LOCK_ORDER], ids=["leak", "lock-order"])
def test_a_report_without_accesses_is_named_by_its_first_stack(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(tsan, "TSAN_OUT", out)
    statement = "status = pthread_create(&th,"
    ours, theirs = tmp_path / "tsan", tmp_path / "tsan-baseline"
    write_tree(ours, 290, statement)    # the series moved the statement
    write_tree(theirs, 279, statement)
    (out / "workload.11").write_text(template.format(pid=11, tid=12, tree=ours, line=290,
                                                     line2=330))
    (out / "baseline-workload.21").write_text(template.format(pid=21, tid=22, tree=theirs,
                                                              line=279, line2=319))
    [mine] = tsan.reports("workload")
    [upstream] = tsan.reports("baseline-workload")
    assert mine == upstream
    func = "do_start_joinable_thread" if template is THREAD_LEAK else "PyThread_acquire_lock_timed"
    kind = "thread leak" if template is THREAD_LEAK else "lock-order-inversion (potential deadlock)"
    assert mine == f"{kind}: {func} `{statement}`"
    # another statement: another name
    write_tree(tmp_path / "moved", 290, "status = pthread_create(&th, NULL,")
    (out / "workload.11").write_text(template.format(pid=11, tid=12, tree=tmp_path / "moved",
                                                     line=290, line2=330))
    assert tsan.reports("workload") != [upstream]


def test_a_report_without_a_stack_is_named_by_its_summary_without_the_place() -> None:
    def key(tree: str, line: int) -> str:
        summary = (f"signal-unsafe call inside of a signal {tree}/Modules/signalmodule.c:"
                   f"{line}:5 in signal_handler")
        return tsan.report_key("signal-unsafe call inside of a signal", "\n", summary)
    assert key("/work/main/build/tsan", 350) == key("/work/main/build/tsan-baseline", 331) == (
        "signal-unsafe call inside of a signal: signal-unsafe call inside of a signal in "
        "signal_handler")
    assert tsan.report_key("data race", "\n", "data race (python+0x4cc9a1) in f") == (
        "data race: data race in f")


FAILING_CLANG = """\
#!/bin/sh
# links nothing: writes to its -o file a program that fails as a ThreadSanitizer
# runtime does at start on a kernel with more address-space randomization
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; fi
  shift
done
printf '#!/bin/sh\\necho "FATAL: ThreadSanitizer: unexpected memory mapping 0x5581bd9c1000-0x5581bd9c5000" >&2\\nexit 66\\n' > "$out"
chmod +x "$out"
"""


def test_a_sanitizer_runtime_that_fails_at_start_is_an_error(
        fake_clang: Callable[[str], Path]) -> None:
    fake_clang(FAILING_CLANG)
    with pytest.raises(ToolError) as error:
        tsan.check_clang()
    message = str(error.value)
    assert "-fsanitize=thread does not run here: the probe (probe) exited 66" in message
    assert "vm.mmap_rnd_bits=28" in message
    assert message.endswith("FATAL: ThreadSanitizer: unexpected memory mapping "
                            "0x5581bd9c1000-0x5581bd9c5000")
    assert tsan.main(["--no-build"]) == 1   # main() says it and exits 1


# main(), with the builds and the runs faked: what the steps give decides.
FINISHED_OUTPUT = {
    "baseline-workload": "tsan workload: 1000 calls, 0 wrong\n",
    "test_late_bound_defaults": "== Tests result: SUCCESS ==\nResult: SUCCESS\n",
    "workload": "tsan workload: 1000 calls, 0 wrong\n",
}
UPSTREAM = "data race: func_set_defaults `Py_XSETREF(op->func_defaults, v);`"
# a race in the series' own code: the test of a late-bound parameter in a cell
# (QUERY_DEREF) against another thread that holds the cell
OURS = ("data race: cell_set_contents `Py_XSETREF(op->ob_ref, Py_XNewRef(obj));` / "
        "take_late_default_from_cell `PyObject *value = cell->ob_ref;`")


def fake_main(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              steps: dict[str, tsan.Step]) -> list[tuple[Any, ...]]:
    """Fake trees in tmp_path, and check_clang, clone_tree, build and run_step
    that record their calls (returned); run_step gives steps[step]."""
    calls: list[tuple[Any, ...]] = []
    for name in ("tsan", "tsan-baseline"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "python").write_text("")
    monkeypatch.setattr(tsan, "TSAN_TREE", tmp_path / "tsan")
    monkeypatch.setattr(tsan, "BASELINE_TREE", tmp_path / "tsan-baseline")
    monkeypatch.setattr(tsan, "TSAN_OUT", tmp_path / "tsan-out")
    monkeypatch.setattr(tsan, "check_clang", lambda: calls.append(("check_clang",)))
    monkeypatch.setattr(tsan, "clone_tree", lambda src, dst: calls.append(("clone", dst)))
    monkeypatch.setattr(tsan, "build", lambda tree, **kw: calls.append(("build", tree, kw)))

    def run_step(step: str, cmd: list[Any], tree: Path, seconds: float) -> tsan.Step:
        calls.append(("run", step, tree, seconds))
        return steps[step]
    monkeypatch.setattr(tsan, "run_step", run_step)
    return calls


def steps_giving(**reports: list[str]) -> dict[str, tsan.Step]:
    return {step: tsan.Step(tsan.TSAN_EXIT if reports.get(step.replace("-", "_")) else 0,
                            output, reports.get(step.replace("-", "_"), []))
            for step, output in FINISHED_OUTPUT.items()}


def test_main_passes_a_report_the_baseline_gives_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls = fake_main(tmp_path, monkeypatch,
                      steps_giving(baseline_workload=[UPSTREAM], workload=[UPSTREAM, UPSTREAM]))
    assert tsan.main(["--no-build", "--seconds", "5"]) == 0
    out = capsys.readouterr().out
    assert f"  report: {UPSTREAM} (x2): upstream (the baseline gives it)" in out
    assert "workload: ok: exit 66, 2 ThreadSanitizer reports outside the suppressions, " \
           "0 of them not given by the baseline" in out
    assert "FAILED" not in out and "OURS" not in out
    assert calls[0] == ("check_clang",)
    assert {call[1:] for call in calls if call[0] == "run"} == {
        ("baseline-workload", tmp_path / "tsan-baseline", 5),
        ("test_late_bound_defaults", tmp_path / "tsan", 0),
        ("workload", tmp_path / "tsan", 5)}
    assert not [call for call in calls if call[0] in ("clone", "build")]


def test_main_fails_on_a_report_only_the_patched_tree_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake_main(tmp_path, monkeypatch,
              steps_giving(baseline_workload=[UPSTREAM], workload=[UPSTREAM, OURS]))
    assert tsan.main(["--no-build"]) == 1
    out = capsys.readouterr().out
    assert f"  report: {OURS} (x1): OURS" in out
    assert f"  report: {UPSTREAM} (x1): upstream (the baseline gives it)" in out
    assert "workload: FAILED: exit 66, 2 ThreadSanitizer reports outside the suppressions, " \
           "1 of them not given by the baseline" in out
    assert "test_late_bound_defaults: ok" in out


def test_main_fails_when_a_step_does_not_finish(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    steps = steps_giving()
    steps["workload"] = tsan.Step(-11, "Fatal Python error: Segmentation fault\n", [])
    fake_main(tmp_path, monkeypatch, steps)
    assert tsan.main(["--no-build"]) == 1
    out = capsys.readouterr().out
    assert "workload: FAILED: exit -11, 0 ThreadSanitizer reports" in out
    assert "  Fatal Python error: Segmentation fault" in out
    assert "baseline-workload: ok" in out and "test_late_bound_defaults: ok" in out
    # a run that ends well but without its last line has not finished either
    steps["workload"] = tsan.Step(0, "", [])
    assert tsan.main(["--no-build"]) == 1


def test_main_lists_a_crash_of_the_baseline_as_upstreams(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    steps = steps_giving(workload=[UPSTREAM])
    steps["baseline-workload"] = tsan.Step(-11, "", [UPSTREAM])
    fake_main(tmp_path, monkeypatch, steps)
    assert tsan.main(["--no-build"]) == 0
    out = capsys.readouterr().out
    assert "baseline-workload: CRASHED (upstream): exit -11" in out
    assert "workload: ok" in out
    # what the baseline did not live to report is taken as ours
    steps["workload"] = tsan.Step(tsan.TSAN_EXIT, FINISHED_OUTPUT["workload"], [OURS])
    assert tsan.main(["--no-build"]) == 1
    # and a baseline that fails otherwise fails the run
    steps["workload"] = steps_giving()["workload"]
    steps["baseline-workload"] = tsan.Step(1, "Traceback (most recent call last):\n", [])
    assert tsan.main(["--no-build"]) == 1


def test_main_builds_both_trees_unless_told_not_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    calls = fake_main(tmp_path, monkeypatch, steps_giving())
    assert tsan.main(["--jobs", "3"]) == 0
    built = [(call[1], call[2]["configure_flags"], call[2]["jobs"])
             for call in calls if call[0] == "build"]
    assert built == [(tmp_path / "tsan", tsan.CONFIGURE_FLAGS, 3),
                     (tmp_path / "tsan-baseline", tsan.CONFIGURE_FLAGS, 3)]
    assert [call[1] for call in calls if call[0] == "clone"] == [
        (tmp_path / "tsan").absolute(), (tmp_path / "tsan-baseline").absolute()]


def test_main_without_the_trees_and_no_build_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fake_main(tmp_path, monkeypatch, steps_giving())
    (tmp_path / "tsan-baseline" / "python").unlink()
    assert tsan.main(["--no-build"]) == 1
    assert "tsan-baseline is not built: run without --no-build" in capsys.readouterr().err


def test_a_step_keeps_the_reports_of_the_run_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tsan, "TSAN_OUT", tmp_path)
    previous = tmp_path / "previous"
    previous.mkdir()
    (previous / "workload.1").write_text("two runs ago")
    (tmp_path / "workload.2").write_text("the crash of the last run")
    (tmp_path / "workload.log").write_text("Fatal Python error")
    (tmp_path / "baseline-workload.3").write_text("another step's")
    tsan.keep_previous_run("workload")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["baseline-workload.3", "previous"]
    assert sorted(p.name for p in previous.iterdir()) == ["workload.2", "workload.log"]
    assert (previous / "workload.2").read_text() == "the crash of the last run"
