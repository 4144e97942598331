"""The three oracles of tools.check.oracles, each for a short budget with a fixed seed (the
long runs are `make oracles`): no crash, and no disagreement with the oracle (for the
code-object oracle: no mutant, rewritten as tools rewrite code, that behaves otherwise
than the code it was made from).

They run under this interpreter, the patched one in build/venv (which has cloudpickle,
pinned in tests/requirements.txt, for the introspection oracle's pickling by value);
the specialization oracle compares programs without `=>` with the unpatched baseline
(build/baseline/python, built by `make test` for the parity run)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tools.paths import BASELINE_PYTHON, REPO

SECONDS = 40
SEED = 671


@pytest.mark.parametrize("oracle", ["specialization", "code-objects", "introspection"])
def test_oracle_finds_nothing(oracle: str) -> None:
    if oracle == "specialization" and not BASELINE_PYTHON.exists():
        pytest.fail(f"{BASELINE_PYTHON} is missing: run `make baseline` (make test builds it)")
    proc = subprocess.run(
        [sys.executable, "-m", "tools.check.oracles", oracle, "--python", sys.executable,
         "--baseline-python", str(BASELINE_PYTHON), "--seed", str(SEED),
         "--seconds", str(SECONDS), "--keep-going", "--progress", "0"],
        capture_output=True, text=True, cwd=REPO, stdin=subprocess.DEVNULL, timeout=900)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    found = re.match(rf"oracle {oracle}: (\d+) cases, 0 failures", last)
    assert found, last
    assert int(found.group(1)) >= 50, f"too few cases ran in {SECONDS} s: {last}"
