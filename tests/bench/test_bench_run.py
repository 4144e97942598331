"""bench/: the microbenchmark harness runs every micro once and produces numbers.

No valgrind, no pyperf: `python -m bench.run --smoke` runs each micro of both suites
with a tiny loop count on the interpreter under test (sys.executable, the patched
one under `make pytest`) and checks that the variants compute the expected values.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import REPO

BENCH = REPO / "bench"


def test_run_bench_smoke() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--smoke",
                           "--python", sys.executable],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "late: 36/36 micros ran" in proc.stdout
    assert "parity: 20/20 micros ran" in proc.stdout


def test_harness_produces_numbers_for_each_micro() -> None:
    for suite in ("late", "parity"):
        proc = subprocess.run([sys.executable, str(BENCH / "micro" / "harness.py"),
                               "--suite", suite, "--smoke", "--loops", "1"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        results = json.loads(proc.stdout)
        assert results
        for r in results:
            assert r["check_ok"], r
            assert isinstance(r["seconds"], float) and r["seconds"] >= 0, r


def test_harness_bench_mode_one_micro() -> None:
    proc = subprocess.run([sys.executable, str(BENCH / "micro" / "harness.py"),
                           "--suite", "late", "--bench", "five.late_omitted", "--loops", "2"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["bench"] == "five.late_omitted" and r["loops"] == 2 and r["check_ok"]
