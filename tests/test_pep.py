"""The examples in the PEP run as shown on the patched interpreter."""

from __future__ import annotations

import subprocess

from conftest import REPO
from tools.paths import PYTHON
from tools.common import scrubbed_env

PEP = REPO / "PEP" / "pep-0671.rst"


def test_pep_examples_run_as_shown() -> None:
    code = ("import doctest, sys; "
            "r = doctest.testfile(sys.argv[1], module_relative=False, "
            "optionflags=doctest.ELLIPSIS); "
            "print(r.attempted, r.failed)")
    result = subprocess.run([str(PYTHON), "-c", code, str(PEP)], capture_output=True,
                            text=True, env=scrubbed_env(), stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    attempted, failed = map(int, result.stdout.split()[-2:])
    assert failed == 0, result.stdout
    assert attempted > 100
