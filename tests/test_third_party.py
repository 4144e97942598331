"""Third-party tools, pip-installed into the patched interpreter's venv, on code using `=>`.

pytest is the runner of this suite itself; coverage.py and numpy (a binary wheel
built for stock CPython 3.13) are pinned in tests/requirements.txt. pyflakes 4.1.0 is
not: its tests download the sdist, apply third_party/pyflakes/late-defaults.patch and
install the result into a venv of their own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO

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


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def test_pytest_rewrites_asserts_in_a_module_using_late_defaults(tmp_path: Path) -> None:
    (tmp_path / "test_lb.py").write_text(MODULE + textwrap.dedent('''\

        def test_passes():
            assert bisect_right([1, 2, 3], 2) == 2

        def test_fails():
            assert bisect_right([1, 2, 3], 2) == 5
        '''))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path / "test_lb.py")], capture_output=True, text=True,
                            cwd=tmp_path, env=clean_env())
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    # The rewritten assert reports the value the late default produced.
    assert "assert 2 == 5" in result.stdout


def test_coverage_measures_late_default_lines(tmp_path: Path) -> None:
    (tmp_path / "lbmod.py").write_text(MODULE)
    (tmp_path / "run.py").write_text("import lbmod\nlbmod.bisect_right([1, 2, 3], 2)\n")
    env = clean_env()
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
                         check=True, env=clean_env()).stdout
    assert out.strip() == "[3.0, 6.0, 9.0] [2, 3]"


# pyflakes 4.1.0 checks every default in the scope enclosing the function, so a late
# default reading a parameter is an "undefined name"; the patch checks late defaults in
# the function's own scope (third_party/pyflakes/README.md).
PYFLAKES_VERSION = "4.1.0"
PYFLAKES_SDIST_SHA256 = "592beb57058eb82eb190fb7514f2081c555c51000b029ff71286a681e6cf2f83"
PYFLAKES_PATCH = REPO / "third_party" / "pyflakes" / "late-defaults.patch"
# Without a network, fail in seconds rather than after pip's configured timeout.
PIP_NETWORK = ["--timeout", "30", "--retries", "2"]

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


def apply_patch(patch: str, root: Path) -> list[str]:
    """Apply a unified diff (`diff -ruN` or git style) under root like `patch -p1`.

    Each hunk must match exactly at the line its header gives (no fuzz, no offset):
    the patch is made for one release. Returns the paths it wrote.
    """
    lines = patch.splitlines(keepends=True)
    written = []
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        rel = lines[i + 1][4:].split("\t")[0].strip().split("/", 1)[1]
        target = root / rel
        i += 2
        old = target.read_bytes().decode().splitlines(keepends=True) if target.exists() else []
        new: list[str] = []
        pos = 0
        while i < len(lines) and lines[i].startswith("@@ "):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[i])
            assert m, f"bad hunk header: {lines[i]!r}"
            old_len, new_len = int(m[2] or 1), int(m[3] or 1)
            start = int(m[1]) - 1 if old_len else int(m[1])
            if start == 0 and not old_len and old:
                raise ValueError(f"{rel}: the patch creates it, but it exists")
            new += old[pos:start]
            pos = start
            i += 1
            while old_len or new_len:
                tag, text = lines[i][:1], lines[i][1:]
                if tag in (" ", "-"):
                    if old[pos:pos + 1] != [text]:
                        raise ValueError(f"{rel}: hunk does not apply at line {pos + 1}")
                    pos += 1
                    old_len -= 1
                if tag in (" ", "+"):
                    new.append(text)
                    new_len -= 1
                if tag not in (" ", "-", "+"):
                    raise ValueError(f"{rel}: unexpected line in hunk: {lines[i]!r}")
                i += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes("".join(new + old[pos:]).encode())
        written.append(rel)
    return written


@dataclass
class Pyflakes:
    pristine: Path  # the unpacked 4.1.0 sdist
    patched: Path   # the same with the patch applied
    python: Path    # a venv's python with the patched tree pip-installed


def run_or_fail(cmd: list[str], what: str, **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            **kwargs)
    if result.returncode != 0:
        pytest.fail(f"{what} failed (exit {result.returncode}); these tests need pip to "
                    f"reach PyPI.\n$ {' '.join(map(str, cmd))}\n{result.stdout[-2000:]}"
                    f"{result.stderr[-3000:]}", pytrace=False)
    return result


@pytest.fixture(scope="session")
def pyflakes(tmp_path_factory: pytest.TempPathFactory) -> Pyflakes:
    root = tmp_path_factory.mktemp("pyflakes")
    env = clean_env()
    run_or_fail([sys.executable, "-m", "pip", "download", *PIP_NETWORK, "--no-deps",
                 "--no-binary", ":all:", "-d", str(root / "dl"),
                 f"pyflakes=={PYFLAKES_VERSION}"],
                f"downloading the pyflakes {PYFLAKES_VERSION} sdist", env=env)
    sdist = root / "dl" / f"pyflakes-{PYFLAKES_VERSION}.tar.gz"
    assert hashlib.sha256(sdist.read_bytes()).hexdigest() == PYFLAKES_SDIST_SHA256, sdist
    trees = {}
    for name in ("pristine", "patched"):
        with tarfile.open(sdist) as tf:
            tf.extractall(root / name, filter="data")
        trees[name] = root / name / f"pyflakes-{PYFLAKES_VERSION}"
    assert apply_patch(PYFLAKES_PATCH.read_text(), trees["patched"]) == [
        "pyflakes/checker.py", "pyflakes/test/test_late_defaults.py"]
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   env=env)
    python = venv / "bin" / "python"
    # Building the sdist's wheel takes setuptools from PyPI too (build isolation).
    run_or_fail([sys.executable, "-m", "pip", "--python", str(python), "install",
                 *PIP_NETWORK, "-q", "--no-deps", str(trees["patched"])],
                "pip-installing the patched pyflakes tree", env=env)
    return Pyflakes(trees["pristine"], trees["patched"], python)


def run_pyflakes(python: Path, where: Path, source: Path | None = None) -> list[str]:
    env = clean_env()
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
    env = clean_env() | {"PYFLAKES_ERROR_UNKNOWN": "1"}
    result = subprocess.run([str(pyflakes.python), "-m", "unittest", "discover", "-v",
                             "-s", "pyflakes/test", "-t", "."], capture_output=True,
                            text=True, cwd=pyflakes.patched, env=env)
    assert result.returncode == 0, result.stderr[-5000:]
    late = [line for line in result.stderr.splitlines() if ".test_late_defaults." in line]
    assert len(late) >= 10 and all(line.endswith(" ... ok") for line in late), late
