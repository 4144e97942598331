"""bench/: the microbenchmark harness runs every micro once and produces numbers.

No valgrind, no pyperf: `python -m bench.run --smoke` runs each micro of both suites
with a tiny loop count on the interpreter under test (sys.executable, the patched
one under `make pytest`) and checks that the variants compute the expected values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.callgrind import QUICK_CALLGRIND_LOOPS, loops_of, micros_for
from bench.micro.suites import IMPORT_MODULES, get
from conftest import REPO

BENCH = REPO / "bench"


def test_run_bench_smoke() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--smoke",
                           "--python", sys.executable],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "late: 36/36 micros ran" in proc.stdout
    assert "parity: 22/22 micros ran" in proc.stdout


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


def test_import_and_unmarshal_micros_run_in_quick_mode_at_their_own_loops() -> None:
    quick = {m.name: m for m in micros_for("parity", True, None)}
    for name in ("stdlib.import", "stdlib.unmarshal"):
        assert name in quick, name
        m = quick[name]
        assert loops_of(m, QUICK_CALLGRIND_LOOPS) == m.loops < 100
    assert loops_of(get("parity", "pos.call"), QUICK_CALLGRIND_LOOPS) == QUICK_CALLGRIND_LOOPS


def test_import_micro_imports_from_pyc_written_by_its_warm_up(tmp_path: Path) -> None:
    """A fresh pycache prefix and PYTHONDONTWRITEBYTECODE: the setup writes the .pyc files,
    and the check (every re-imported module unmarshalled from its .pyc, none compiled,
    sys.modules as it was) holds."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-X", f"pycache_prefix={tmp_path}", "-S",
                           str(BENCH / "micro" / "harness.py"), "--suite", "parity",
                           "--bench", "stdlib.import", "--loops", "1"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["check_ok"]
    written = {p.as_posix() for p in tmp_path.rglob("*.pyc")}
    tag = sys.implementation.cache_tag
    for m in IMPORT_MODULES:  # a module or a package: its .pyc under the prefix
        rel = m.replace(".", "/")
        assert any(w.endswith((f"/{rel}.{tag}.pyc", f"/{rel}/__init__.{tag}.pyc"))
                   for w in written), m
    assert any(w.endswith(f"/json/decoder.{tag}.pyc") for w in written)  # a submodule
