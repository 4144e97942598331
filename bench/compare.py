"""Two interpreters on the pyperformance subset, counted by callgrind: the one entry
point of bench/ for the other tools (make dogfood compares the rewritten standard
library with the unrewritten one through it).

count_pyperformance() makes a venv of each interpreter with bench/requirements.txt,
runs bench.timed.run_pyperformance_callgrind (instructions per benchmark loop) and
counts, with bench.late_calls, the calls of functions with late defaults that one
loop of each benchmark makes on the first interpreter.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from bench.model import BENCH, State, bench_env
from bench.timed import PYPERFORMANCE_SUBSET, pyperformance_scripts, run_pyperformance_callgrind
from tools.common import ToolError, ensure_venv, run_logged, tail
from tools.paths import REPO

__all__ = ["PYPERFORMANCE_SUBSET", "count_pyperformance"]


def late_calls(venv_py: Path, script: Path, loops: int, work: Path) -> dict[str, int]:
    """The calls of functions with late defaults in one pyperf worker process of script
    (all its tasks, `loops` loops, one value), counted by bench.late_calls."""
    counts = work / f"{script.parent.name}-{loops}.calls.json"
    out = work / f"{script.parent.name}-{loops}.worker.json"
    out.unlink(missing_ok=True)
    log = work / f"{script.parent.name}-{loops}.log"
    rc = run_logged([str(venv_py), "-m", "bench.late_calls", "--out", str(counts), str(script),
                     "--worker", "--loops", str(loops), "--values", "1", "--warmups", "0",
                     "-o", str(out)], log, env=bench_env(), cwd=REPO)
    if rc != 0 or not counts.is_file():
        raise ToolError(f"bench.late_calls on {script.parent.name} failed (exit {rc}):\n"
                        f"{tail(log)}")
    found: dict[str, int] = json.loads(counts.read_text())
    return found


def calls_per_loop(venv_py: Path, names: Sequence[str], work: Path) -> dict[str, Any]:
    """For each benchmark: the late-default calls of a worker with 1 and with 2 loops;
    the difference is what one loop calls."""
    work.mkdir(parents=True, exist_ok=True)
    calls: dict[str, Any] = {}
    for name, script in pyperformance_scripts(venv_py, names).items():
        one, two = (late_calls(venv_py, script, n, work) for n in (1, 2))
        per_loop = {f: two.get(f, 0) - one.get(f, 0) for f in sorted(set(one) | set(two))
                    if two.get(f, 0) != one.get(f, 0)}
        calls[name] = {"one_loop": sum(one.values()), "two_loops": sum(two.values()),
                       "functions": sorted(set(one) | set(two)), "per_loop": per_loop}
    return calls


def count_pyperformance(pythons: dict[str, Path], venvs: Path, out: Path, *, jobs: int,
                        names: Sequence[str] = PYPERFORMANCE_SUBSET) -> dict[str, Any]:
    """pythons: two interpreters by tag, the measured one first; their venvs are
    venvs/venv-<tag>. Returns the callgrind results ("status", "why", "rows",
    "geomean", ...) and "late_calls" of the first interpreter."""
    st = State(out, out / "logs")
    st.logs.mkdir(parents=True, exist_ok=True)
    try:
        venv_pys = {tag: ensure_venv(python, venvs / f"venv-{tag}", [BENCH / "requirements.txt"],
                                     log=st.logs / f"venv-{tag}.log")
                    for tag, python in pythons.items()}
    except ToolError as exc:
        return {"status": "FAILED", "why": str(exc)}
    first, second = list(pythons)
    run_pyperformance_callgrind(st, venv_pys, max(1, jobs), names=names, tags=(first, second))
    part = st.part("pyperformance (callgrind)")
    result = {"status": part.status, "why": part.why,
              **st.data.get("pyperformance_callgrind", {})}
    try:
        result["late_calls"] = calls_per_loop(venv_pys[first], names, out / "late-calls")
    except (ToolError, RuntimeError) as exc:
        result["late_calls"] = {"error": str(exc)}
    return result
