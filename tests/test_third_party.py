"""Third-party tools, pip-installed into the patched interpreter's venv, on code using `=>`.

pytest is the runner of this suite itself; coverage.py and numpy (a binary wheel
built for stock CPython 3.13) are pinned in tests/requirements.txt. pyflakes 4.1.0 is
not: its tests download the sdist, apply third_party/pyflakes/late-defaults.patch and
install the result into a venv of their own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO
from tools import sdist
from tools.common import ToolError, scrubbed_env

MODULE = textwrap.dedent('''\
    def bisect_right(a, x, lo=0,
                     hi=>len(a), *, key=None):
        while lo < hi:
            mid = (lo + hi) // 2
            if x < a[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo
    ''')


def test_pytest_rewrites_asserts_in_a_module_using_late_defaults(tmp_path: Path) -> None:
    (tmp_path / "test_lb.py").write_text(MODULE + textwrap.dedent('''\

        def test_passes():
            assert bisect_right([1, 2, 3], 2) == 2

        def test_fails():
            assert bisect_right([1, 2, 3], 2) == 5
        '''))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path / "test_lb.py")], capture_output=True, text=True,
                            cwd=tmp_path, env=scrubbed_env())
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    # The rewritten assert reports the value the late default produced.
    assert "assert 2 == 5" in result.stdout


def test_coverage_measures_late_default_lines(tmp_path: Path) -> None:
    (tmp_path / "lbmod.py").write_text(MODULE)
    (tmp_path / "run.py").write_text("import lbmod\nlbmod.bisect_right([1, 2, 3], 2)\n")
    env = scrubbed_env()
    subprocess.run([sys.executable, "-m", "coverage", "run", "--branch", "run.py"],
                   check=True, cwd=tmp_path, env=env, capture_output=True)
    subprocess.run([sys.executable, "-m", "coverage", "json", "-o", "cov.json",
                    "--include=lbmod.py"], check=True, cwd=tmp_path, env=env,
                   capture_output=True)
    data = json.loads((tmp_path / "cov.json").read_text())["files"]["lbmod.py"]
    # coverage.py counts the two-line 'def' (with hi=>len(a)) as one statement,
    # on its first line; line and branch measurement run through the prologue.
    assert data["executed_lines"] == [1, 3, 4, 5, 6, 8, 9]
    assert data["missing_lines"] == []
    assert data["summary"]["percent_covered"] == 100.0


def test_numpy_wheel_for_stock_3_13() -> None:
    # A binary extension built for stock CPython 3.13: the ABI is intact
    # (PyFunctionObject and the code object keep 3.13's layout).
    code = textwrap.dedent('''\
        import numpy as np
        def scale(a, factor=>np.float64(len(a))):
            return np.asarray(a) * factor
        print(scale([1, 2, 3]).tolist(), np.vectorize(lambda x, y=>x + 1: y)([1, 2]).tolist())
        ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=scrubbed_env()).stdout
    assert out.strip() == "[3.0, 6.0, 9.0] [2, 3]"


# pyflakes 4.1.0 checks every default in the scope enclosing the function, so a late
# default reading a parameter is an "undefined name"; the patch checks late defaults in
# the function's own scope (third_party/pyflakes/README.md).
PYFLAKES_VERSION = "4.1.0"
PYFLAKES_SDIST_SHA256 = "592beb57058eb82eb190fb7514f2081c555c51000b029ff71286a681e6cf2f83"
PYFLAKES_PATCH = REPO / "third_party" / "pyflakes" / "late-defaults.patch"

LINT_MODULE = textwrap.dedent('''\
    import os
    import sys


    def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
        return a, x, lo, hi, key


    def window(a, start=>stop - 1, stop=>len(a)):
        return a[start:stop]


    def joined(parts, *, sep=>os.sep):
        return sep.join(parts)


    def broken(a, n=>len(b)):
        return n


    def early(a, n=a):
        return n


    last = lambda a, b=>a[-1]: b
    bad = lambda a, b=>c: b


    def quoted(words, cmd=>shlex.join(words)):
        return cmd


    import shlex
    ''')

# What both versions rightly report: the unused import, the undefined names in the late
# defaults of broken() and of bad, and the early default of early(), which is evaluated
# at def time in the module's scope. pyflakes sorts its reports by line.
LINT_TRUE_REPORTS = [
    "lb.py:2:1: 'sys' imported but unused",
    "lb.py:17:22: undefined name 'b'",
    "lb.py:21:16: undefined name 'a'",
    "lb.py:26:20: undefined name 'c'",
]


@dataclass
class Pyflakes:
    pristine: Path  # the unpacked 4.1.0 sdist
    patched: Path   # the same with the patch applied
    python: Path    # a venv's python with the patched tree pip-installed


@pytest.fixture(scope="session")
def pyflakes(tmp_path_factory: pytest.TempPathFactory) -> Pyflakes:
    root = tmp_path_factory.mktemp("pyflakes")
    python = root / "venv" / "bin" / "python"
    try:
        got = sdist.download(Path(sys.executable), "pyflakes", PYFLAKES_VERSION,
                             PYFLAKES_SDIST_SHA256, root / "dl")
        trees = {name: sdist.unpack(got, root / name) for name in ("pristine", "patched")}
        assert sdist.apply_patch(PYFLAKES_PATCH.read_text(), trees["patched"]) == [
            "pyflakes/checker.py", "pyflakes/test/test_late_defaults.py"]
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")],
                       check=True, env=scrubbed_env())
        # Building the sdist's wheel takes setuptools from PyPI too (build isolation).
        sdist.install(python, trees["patched"])
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    return Pyflakes(trees["pristine"], trees["patched"], python)


def run_pyflakes(python: Path, where: Path, source: Path | None = None) -> list[str]:
    env = scrubbed_env()
    if source is not None:
        env["PYTHONPATH"] = str(source)
    (where / "lb.py").write_text(LINT_MODULE)
    result = subprocess.run([str(python), "-m", "pyflakes", "lb.py"], capture_output=True,
                            text=True, cwd=where, env=env)
    assert result.returncode in (0, 1) and not result.stderr, result.stderr
    return result.stdout.splitlines()


def test_pyflakes_4_1_0_misreports_late_defaults(pyflakes: Pyflakes, tmp_path: Path) -> None:
    # The unpatched release, for the record: each parameter a late default reads
    # (including stop, to the right of start) is an undefined name, and so is shlex,
    # imported after quoted() (which is fine for a late default), hence "unused".
    assert run_pyflakes(pyflakes.python, tmp_path, source=pyflakes.pristine) == [
        "lb.py:2:1: 'sys' imported but unused",
        "lb.py:5:38: undefined name 'a'",
        "lb.py:9:22: undefined name 'stop'",
        "lb.py:9:42: undefined name 'a'",
        "lb.py:17:22: undefined name 'b'",
        "lb.py:21:16: undefined name 'a'",
        "lb.py:25:21: undefined name 'a'",
        "lb.py:26:20: undefined name 'c'",
        "lb.py:29:24: undefined name 'shlex'",
        "lb.py:29:35: undefined name 'words'",
        "lb.py:33:1: 'shlex' imported but unused",
    ]


def test_patched_pyflakes_checks_late_defaults_in_the_function_scope(
        pyflakes: Pyflakes, tmp_path: Path) -> None:
    # Parameters read by late defaults (a later one too, and in a lambda) are defined;
    # os and shlex, used only in late defaults (shlex imported after the def, as the
    # body could), are used; b and c are still undefined, and so is the early default's a.
    assert run_pyflakes(pyflakes.python, tmp_path) == LINT_TRUE_REPORTS


def test_patched_pyflakes_own_test_suite(pyflakes: Pyflakes) -> None:
    # The whole suite of the patched tree, with the tests the patch adds, which must run
    # (not be skipped: this interpreter's ast has LateDefault); unknown AST nodes are errors.
    env = scrubbed_env() | {"PYFLAKES_ERROR_UNKNOWN": "1"}
    result = subprocess.run([str(pyflakes.python), "-m", "unittest", "discover", "-v",
                             "-s", "pyflakes/test", "-t", "."], capture_output=True,
                            text=True, cwd=pyflakes.patched, env=env)
    assert result.returncode == 0, result.stderr[-5000:]
    late = [line for line in result.stderr.splitlines() if ".test_late_defaults." in line]
    assert len(late) >= 10 and all(line.endswith(" ... ok") for line in late), late
