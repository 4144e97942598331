"""The micros counted by callgrind: the timing loop alone, and the whole-process cross-check."""

from __future__ import annotations

import concurrent.futures
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.micro.suites import FIXED_LOOP_ROLES, Micro, SUITES
from tools.measure.model import Interp, State, bench_env
from tools.paths import BENCH_HARNESS
from tools.common import say

QUICK_CALLGRIND_LOOPS = 50_000
# quick leaves out two of the four compile() micros (typing and inspect stay); the import
# and unmarshal micros (stdlib.import, stdlib.unmarshal) stay, at their own loop counts
QUICK_SKIP = {"parity": {"_pydecimal.compile", "argparse.compile"}}

CG_TOGGLE = ["--collect-atstart=no", "--toggle-collect=_PyEval_CallTracing",
             "--dump-after=_PyEval_CallTracing"]


def micros_for(suite: str, quick: bool, only: str | None) -> list[Micro]:
    skip = QUICK_SKIP.get(suite, set()) if quick else set()
    return [m for m in SUITES[suite] if m.name not in skip
            and (only is None or re.search(only, m.name) or m.group == "loop")]


def suite_runs(interps: list[Interp]) -> list[tuple[Interp, str]]:
    """(interpreter, suite) pairs to count: "late" on the patched one, "parity" on both."""
    return [(interp, suite) for interp in interps for suite in ("late", "parity")
            if suite == "parity" or interp.tag == "patched"]


def loops_of(m: Micro, loops: int | None) -> int:
    """--loops (and --quick's count) applies to the call/make micros; a compile, import
    or unmarshal micro keeps its own few iterations."""
    return m.loops if (loops is None or m.role in FIXED_LOOP_ROLES) else loops


def _totals(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no totals/summary line in {path}")


def callgrind_batch(interp: Interp, suite: str, micros: list[Micro], loops: int | None,
                    stdlib: Path, logs: Path) -> dict[str, dict[str, Any]]:
    """One valgrind process for a list of micros; returns name -> result."""
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp:
        out = Path(tmp) / "cg.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *CG_TOGGLE,
               *interp.argv(), "-S", str(BENCH_HARNESS), "--suite", suite, "--callgrind-batch",
               "--benches", ",".join(m.name for m in micros), "--stdlib", str(stdlib)]
        results: dict[str, dict[str, Any]] = {}
        # compile/import/unmarshal micros keep their own loop count, so split by loop count
        by_loops: dict[int, list[Micro]] = {}
        for m in micros:
            by_loops.setdefault(loops_of(m, loops), []).append(m)
        for n, group in by_loops.items():
            for f in Path(tmp).glob("cg.out*"):
                f.unlink()
            c = cmd[:]
            c[c.index("--benches") + 1] = ",".join(m.name for m in group)
            c += ["--loops", str(n)]
            proc = subprocess.run(c, capture_output=True, text=True, env=bench_env())
            with open(logs / f"callgrind-{interp.tag}-{suite}.log", "a") as fh:
                fh.write(f"$ {' '.join(c)}\n{proc.stdout}\n{proc.stderr[-3000:]}\n")
            if proc.returncode != 0:
                raise RuntimeError(f"{' '.join(c)} exited {proc.returncode}:\n"
                                   f"{proc.stderr[-2000:]}")
            for r in json.loads(proc.stdout):
                zero = _totals(Path(f"{out}.{r['dump_zero']}"))
                full = _totals(Path(f"{out}.{r['dump_loops']}"))
                results[r["bench"]] = {"instructions": full - zero, "loops": r["loops"],
                                       "per_iter": (full - zero) / r["loops"],
                                       "zero_call": zero}
        return results


def callgrind_subtract(interp: Interp, suite: str, m: Micro, loops: int | None,
                       stdlib: Path) -> dict[str, Any]:
    """The whole-process method: count(N iterations) - count(0 iterations)."""
    counts = []
    n = loops_of(m, loops)
    for k in (n, 0):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               *interp.argv(), "-S", str(BENCH_HARNESS), "--suite", suite, "--bench", m.name,
               "--loops", str(k), "--stdlib", str(stdlib)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=bench_env())
        found = re.search(r"Collected : (\d+)", proc.stderr)
        if proc.returncode != 0 or not found:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                               f"{proc.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return {"instructions": counts[0] - counts[1], "loops": n,
            "per_iter": (counts[0] - counts[1]) / n, "startup": counts[1]}


def run_callgrind(st: State, interps: list[Interp], quick: bool, loops: int | None,
                  jobs: int, stdlib: Path, only: str | None, subtract: bool) -> None:
    part = st.part("callgrind", core=True)
    if shutil.which("valgrind") is None:
        part.status, part.why = "FAILED", "valgrind not found (apt-get install valgrind)"
        return
    tasks = []  # (interp, suite, chunk)
    for interp, suite in suite_runs(interps):
        ms = micros_for(suite, quick, only)
        for i in range(jobs):  # round-robin chunks: one valgrind process per job
            chunk = ms[i::jobs]
            if chunk:
                tasks.append((interp, suite, chunk))
    say(f"callgrind: {sum(len(t[2]) for t in tasks)} micro runs in {len(tasks)} valgrind "
        f"processes, {jobs} at a time (loops: {loops or 'per micro'})")
    t0 = time.perf_counter()
    res: dict[str, dict[str, dict[str, Any]]] = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futs = {pool.submit(callgrind_batch, i, s, c, loops, stdlib, st.logs): (i, s)
                    for i, s, c in tasks}
            for fut in concurrent.futures.as_completed(futs):
                interp, suite = futs[fut]
                res.setdefault(f"{suite}/{interp.tag}", {}).update(fut.result())
    except Exception as exc:
        part.status, part.why = "FAILED", str(exc)
        return
    st.data["callgrind"] = res
    say(f"callgrind: done in {time.perf_counter() - t0:.0f}s")
    part.status = "ok"
    if subtract:
        xpart = st.part("callgrind cross-check")
        say("callgrind cross-check (whole process, N minus 0 iterations)")
        sub: dict[str, dict[str, dict[str, Any]]] = {}
        try:
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                futs2 = {}
                for interp, suite in suite_runs(interps):
                    for m in micros_for(suite, quick, only):
                        futs2[pool.submit(callgrind_subtract, interp, suite, m, loops,
                                          stdlib)] = (interp, suite, m)
                for fut in concurrent.futures.as_completed(futs2):
                    interp, suite, m = futs2[fut]
                    sub.setdefault(f"{suite}/{interp.tag}", {})[m.name] = fut.result()
        except Exception as exc:
            xpart.status, xpart.why = "FAILED", str(exc)
            return
        st.data["callgrind_subtract"] = sub
        xpart.status = "ok"


