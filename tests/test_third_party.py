"""Third-party tools, pip-installed into the patched interpreter's venv, on code using `=>`.

pytest is the runner of this suite itself; coverage.py and numpy (a binary wheel
built for stock CPython 3.13) are pinned in tests/requirements.txt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

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
    # (PyFunctionObject only grew at its end).
    code = textwrap.dedent('''\
        import numpy as np
        def scale(a, factor=>np.float64(len(a))):
            return np.asarray(a) * factor
        print(scale([1, 2, 3]).tolist(), np.vectorize(lambda x, y=>x + 1: y)([1, 2]).tolist())
        ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=clean_env()).stdout
    assert out.strip() == "[3.0, 6.0, 9.0] [2, 3]"
