"""Run tests/ with pytest from a venv made by the patched interpreter.

The venv (build/venv) is made with `./python -m venv`; the pinned
requirements (tests/requirements.txt) are installed only when that file
changed since the last install (or the venv was remade). Then
`build/venv/bin/python -m pytest tests/ ...` runs in the environment without
PYTHON* variables; extra arguments are passed to pytest.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tools.paths import PYTHON, REPO, TEST_REQUIREMENTS, TESTS, VENV
from tools.common import (built_python, ensure_venv, exits_on_tool_error, rel, say,
                          scrubbed_env)


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.run_pytest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, default=PYTHON)
    ap.add_argument("--venv", type=Path, default=VENV)
    ap.add_argument("--requirements", type=Path,
                    default=TEST_REQUIREMENTS)
    ap.add_argument("pytest_args", nargs="*", help="arguments for pytest")
    args = ap.parse_args(argv)

    vpy = ensure_venv(built_python(args.python), args.venv.absolute(), [args.requirements.absolute()])
    pytest_args = args.pytest_args or [str(TESTS), "-v"]
    say(f"pytest ({rel(vpy)} -m pytest {' '.join(pytest_args)})")
    return subprocess.run([str(vpy), "-m", "pytest", *pytest_args], cwd=REPO,
                          env=scrubbed_env()).returncode


if __name__ == "__main__":
    sys.exit(main())
