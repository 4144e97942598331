"""Late-bound defaults across processes: .pyc files, venvs and the tour.

The language itself is tested by Lib/test/test_late_bound_defaults.py inside the
patch series; these tests cover what only shows up between processes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from tools.paths import BASELINE_PYTHON, PYTHON, TREE
from tools.common import scrubbed_env

MODULE = '''\
def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo

def puzzle(*, a=>b + 1, b=>a + 1):
    return a, b
'''
CHECK = '''\
import importlib.util, sys
spec = importlib.util.spec_from_file_location("lbmod", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
print(type(spec.loader).__name__)
print(mod.bisect_right([1, 2, 2, 3], 2), mod.bisect_right([1, 2, 2, 3], 2, hi=2))
print(mod.bisect_right.__defaults__, mod.bisect_right.__defaults_extra__)
print(mod.puzzle.__kwdefaults_extra__)
try:
    mod.puzzle()
except UnboundLocalError as exc:
    print(exc)
'''
EXPECTED = [
    "3 2",
    "(0, <late default: len(a)>) (None, 'len(a)')",
    "{'a': 'b + 1', 'b': 'a + 1'}",
    "cannot access parameter 'b': its late-bound default has not been evaluated yet",
]


def run(python: Path | str, *args: str) -> list[str]:
    out = subprocess.run([str(python), *args], capture_output=True, text=True,
                         check=True, env=scrubbed_env(), stdin=subprocess.DEVNULL).stdout
    return out.splitlines()


def test_pyc_round_trip(tmp_path: Path) -> None:
    # Compile to a .pyc in one process, run it sourceless in another: the
    # prologue, the late-default objects and the texts of the defaults survive.
    source = tmp_path / "lbmod.py"
    source.write_text(MODULE)
    pyc = tmp_path / "lbmod.pyc"
    run(PYTHON, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], "
                      "doraise=True)", str(source), str(pyc))
    source.unlink()
    check = tmp_path / "check.py"
    check.write_text(CHECK)
    out = run(PYTHON, str(check), str(pyc))
    assert out[0] == "SourcelessFileLoader"
    assert out[1:] == EXPECTED


def test_pyc_magic_differs_from_stock_3_13(tmp_path: Path) -> None:
    # The new bytecode has its own magic number, so a .pyc of this fork and
    # one of CPython 3.13 are never loaded by the other interpreter.
    (magic,) = run(PYTHON, "-c", "import importlib.util as u; "
                                 "print(int.from_bytes(u.MAGIC_NUMBER[:2], 'little'))")
    assert magic == "3583"
    source = tmp_path / "lbmod.py"
    source.write_text(MODULE)
    run(PYTHON, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import lbmod",
        str(tmp_path))
    (cached,) = (tmp_path / "__pycache__").glob("lbmod.cpython-313.pyc")
    assert int.from_bytes(cached.read_bytes()[:2], "little") == 3583


def test_pyc_data_is_3_13_marshal_format(tmp_path: Path) -> None:
    # Only the magic number and two instructions are new: readers that know
    # 3.13's marshal format, the unpatched interpreter and upstream's
    # pure-Python reader (Tools/build/umarshal.py), load the code of a module
    # with late defaults as the fork does (co_code aside: each interpreter
    # shows it through its own table of instructions).
    if not BASELINE_PYTHON.exists():
        pytest.fail(f"{BASELINE_PYTHON} is missing: run `make baseline` (make test builds it)")
    source = tmp_path / "lbmod.py"
    source.write_text(MODULE)
    run(PYTHON, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import lbmod",
        str(tmp_path))
    (cached,) = (tmp_path / "__pycache__").glob("lbmod.cpython-313.pyc")
    data = tmp_path / "lbmod.marshal"
    data.write_bytes(cached.read_bytes()[16:])
    dump = ("import marshal, sys\n"
            "def walk(code):\n"
            "    yield (code.co_name, code.co_varnames, code.co_names,\n"
            "           len(code.co_code), code.co_linetable,\n"
            "           [c for c in code.co_consts if not hasattr(c, 'co_code')])\n"
            "    for c in code.co_consts:\n"
            "        if hasattr(c, 'co_code'):\n"
            "            yield from walk(c)\n"
            "print(list(walk(marshal.loads(open(sys.argv[1], 'rb').read()))))\n")
    ours = run(PYTHON, "-c", dump, str(data))
    assert "'len(a)'" in ours[0] and "'b + 1'" in ours[0]
    assert run(BASELINE_PYTHON, "-c", dump, str(data)) == ours
    umarshal = TREE / "Tools" / "build"
    (names,) = run(BASELINE_PYTHON, "-c",
                   "import sys; sys.path.insert(0, sys.argv[1]); import umarshal\n"
                   "code = umarshal.loads(open(sys.argv[2], 'rb').read())\n"
                   "print(sorted(c.co_name for c in code.co_consts if hasattr(c, 'co_name')))",
                   str(umarshal), str(data))
    assert names == "['bisect_right', 'puzzle']"


def test_venv_python_runs_late_defaults(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    run(PYTHON, "-m", "venv", "--without-pip", str(venv))
    source = tmp_path / "lbmod.py"
    source.write_text(MODULE)
    check = tmp_path / "check.py"
    check.write_text(CHECK)
    out = run(venv / "bin" / "python", str(check), str(source))
    assert out[1:] == EXPECTED


def test_tour_shows_the_feature() -> None:
    out = "\n".join(run(PYTHON, str(REPO / "examples" / "tour.py")))
    assert "inspect.signature(bisect_right) -> (a, x, lo=0, hi=>len(a), *, key=None)" in out
    assert "bisect_right(a, x, lo=0, hi=>len(a), *, key=None)" in out
    assert ("puzzle()    -> UnboundLocalError: cannot access parameter 'b': its "
            "late-bound default has not been evaluated yet") in out
    assert "passing <late default: len(a)> is leaving hi out: 3" in out
    assert "QUERY_FAST           hi" in out

