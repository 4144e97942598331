"""./python is the patched 3.13.5, and `./python -m venv` gives a working venv of it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tools.paths import PYTHON, TREE
from tools.common import scrubbed_env

BUILD = TREE.resolve()


def test_python_reports_3_13_5() -> None:
    out = subprocess.run([str(PYTHON), "-c", "import sys; print(sys.version_info[:3])"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(3, 13, 5)"


def test_venv_of_the_patched_interpreter(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([str(PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True)
    code = ("import os, sys; print(sys.version_info[:3]); print(sys.prefix != sys.base_prefix);"
            "print(os.path.realpath(sys._base_executable)); print(os.path.realpath(sys.executable))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True,
                         text=True, check=True, env=scrubbed_env()).stdout
    version, in_venv, base, real = out.splitlines()
    assert version == "(3, 13, 5)"
    assert in_venv == "True"
    assert Path(base) == BUILD / "python"
    assert Path(real) == BUILD / "python"
