"""Run tools.check.fuzz_late_defaults for a bounded number of cases with a fixed seed.

The fuzzer compares each generated function with late-bound defaults against
the same function written with the sentinel idiom (see its --help).  It runs
under the interpreter under test: pytest runs in a venv of the patched
./python, so sys.executable is that interpreter.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO

SEED = 671
CASES = 4000
TIME_LIMIT = 40  # seconds of fuzzing at most; the case count usually ends it first


def run_fuzzer(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tools.check.fuzz_late_defaults", *args],
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=REPO)


def test_fuzz_fixed_seed() -> None:
    proc = run_fuzzer("--seed", str(SEED), "--cases", str(CASES),
                      "--seconds", str(TIME_LIMIT), "--progress", "0")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("fuzz: ") and " 0 mismatches (seed 671)" in last, last
    done = int(last.split()[1])
    assert done >= 200, f"too few cases fuzzed: {last}"


def test_fuzz_is_deterministic() -> None:
    a = run_fuzzer("--seed", "5", "--cases", "30", "--show", "--progress", "0")
    b = run_fuzzer("--seed", "5", "--cases", "30", "--show", "--progress", "0")
    assert a.returncode == 0 and b.returncode == 0, a.stdout[-3000:] + a.stderr
    assert a.stdout == b.stdout
    replay = run_fuzzer("--seed", "5", "--case", "17", "--show", "--progress", "0")
    case17 = a.stdout.split("=== case 17\n")[1].split("=== case 18\n")[0]
    assert replay.stdout.startswith("=== case 17\n" + case17)


def test_fuzz_help() -> None:
    proc = run_fuzzer("--help")
    assert proc.returncode == 0
    assert "--seed" in proc.stdout and "--seconds" in proc.stdout
