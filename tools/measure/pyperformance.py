"""pyperformance benchmarks counted by callgrind, and the calls of late defaults they make:
what make bench (bench.run) and make dogfood (tools.dogfood) both measure.

run_pyperformance_callgrind() counts the instructions per benchmark loop of two
interpreters; count_pyperformance() makes a venv of each interpreter with bench's pinned
requirements, runs it and counts, with tools.measure.late_calls, the calls of functions
with late defaults that one loop of each benchmark makes on the first interpreter.
pyperf's files are read by tools.measure.pyperf_data, in the venv.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Sequence

from tools.common import ToolError, ensure_venv, run_logged, say, scrubbed_env, tail
from tools.measure.model import State, bench_env, geomean
from tools.paths import BENCH_REQUIREMENTS, REPO

PYPERFORMANCE_SUBSET = ("richards", "deltablue", "raytrace", "chaos", "go", "hexiom",
                        "nqueens", "float", "generators", "coroutines", "deepcopy", "logging",
                        "unpack_sequence")


def pyperf_read(venv_py: Path, *files: Path) -> list[list[dict[str, Any]]]:
    """tools.measure.pyperf_data's description of each file, read by the venv's pyperf."""
    proc = subprocess.run([str(venv_py), "-m", "tools.measure.pyperf_data", *map(str, files)],
                          capture_output=True, text=True, cwd=REPO, env=scrubbed_env())
    if proc.returncode != 0:
        raise RuntimeError(f"tools.measure.pyperf_data could not read "
                           f"{', '.join(map(str, files))}:\n{proc.stderr[-2000:]}")
    found: list[list[dict[str, Any]]] = json.loads(proc.stdout)
    return found


PPCG_NATIVE_SECONDS = 0.2  # native time of the L loops of a task (x ~50 under valgrind)


def pyperformance_scripts(venv_py: Path, names: Sequence[str]) -> dict[str, Path]:
    """name -> run_benchmark.py of the pyperformance installed in venv_py's venv."""
    proc = subprocess.run([str(venv_py), "-c", "import pyperformance, os; "
                           "print(os.path.dirname(pyperformance.__file__))"],
                          capture_output=True, text=True, env=bench_env())
    if proc.returncode != 0:
        raise RuntimeError(f"pyperformance is not importable in {venv_py}:\n{proc.stderr}")
    root = Path(proc.stdout.strip()) / "data-files" / "benchmarks"
    scripts = {n: root / f"bm_{n}" / "run_benchmark.py" for n in names}
    missing = [n for n, sc in scripts.items() if not sc.is_file()]
    if missing:
        raise RuntimeError(f"no run_benchmark.py for {', '.join(missing)} under {root}")
    return scripts


def pyperf_worker(venv_py: Path, script: Path, loops: int, task: int | None,
                  out: Path, *, valgrind: bool) -> int | float:
    """Run one pyperf worker of script: loops loops, one value, no warmup, no calibration.

    With valgrind, return the instructions of the whole process (callgrind); else write
    the worker's JSON to out and return its wall-clock seconds."""
    cmd = [str(venv_py), str(script), "--worker", "--loops", str(loops),
           "--values", "1", "--warmups", "0", "-o", str(out)]
    if task is not None:
        cmd += ["--worker-task", str(task)]
    if valgrind:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd]
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=bench_env(),
                          cwd=out.parent)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    if not valgrind:
        return time.perf_counter() - t0
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if not found:
        raise RuntimeError(f"no callgrind total in the output of {' '.join(cmd)}")
    return int(found.group(1))


def run_pyperformance_callgrind(st: State, venvs: dict[str, Path], jobs: int,
                                names: Sequence[str] = PYPERFORMANCE_SUBSET,
                                tags: tuple[str, str] = ("patched", "baseline")) -> None:
    """The pyperformance subset counted by callgrind, tags[0] vs tags[1] (venvs holds the
    venv python of each; default: patched vs baseline).

    Wall-clock pyperformance on a shared machine varies by more than the 1% target; the
    instructions each benchmark executes per loop do not.  For each benchmark task
    (pyperf's --worker-task) the same loop counts L and 2L run on both interpreters, and
    (count(2L) - count(L)) / L is its instructions per loop: startup, imports and the
    first loop's warm-up cancel out.  L is chosen natively so that L loops take about
    PPCG_NATIVE_SECONDS on the interpreter of tags[0]; the ratio is tags[0] / tags[1]."""
    part = st.part("pyperformance (callgrind)")
    if shutil.which("valgrind") is None:
        part.status, part.why = "SKIPPED", "valgrind not found"
        return
    t0 = time.perf_counter()
    wdir = st.out / "pyperformance-callgrind"
    wdir.mkdir(parents=True, exist_ok=True)
    try:
        tasks = callgrind_tasks(venvs, pyperformance_scripts(venvs[tags[0]], names), tags,
                                wdir)
        say(f"pyperformance (callgrind): {len(tasks)} benchmark tasks x 2 interpreters x "
            f"2 loop counts, {jobs} valgrind processes at a time")
        counts = count_tasks(venvs, tasks, tags, jobs, wdir)
    except Exception as exc:
        part.status, part.why = "FAILED", str(exc)
        return
    rows: dict[str, dict[str, Any]] = {}
    for name, _script, _task, loops in tasks:
        per = {tag: (counts[(name, tag, 2 * loops)] - counts[(name, tag, loops)]) / loops
               for tag in tags}
        rows[name] = {"loops": loops, **per, "ratio": per[tags[0]] / per[tags[1]]}
    st.data["pyperformance_callgrind"] = {
        "rows": rows, "geomean": geomean(r["ratio"] for r in rows.values())}
    say(f"pyperformance (callgrind): done in {time.perf_counter() - t0:.0f}s")
    part.status = "ok"


Task = tuple[str, Path, int, int]  # (benchmark name, script, pyperf task, loops L)


def callgrind_tasks(venvs: dict[str, Path], scripts: dict[str, Path], tags: tuple[str, str],
                    wdir: Path) -> list[Task]:
    """The tasks of each script and the loop count L of each, from a native run on
    tags[0]'s python."""
    first = venvs[tags[0]]
    tasks: list[Task] = []
    for bench, script in scripts.items():
        probe = wdir / f"{bench}-probe.json"
        pyperf_worker(first, script, 1, None, probe, valgrind=False)
        (found,) = pyperf_read(first, probe)
        # one native run on each other interpreter too: a counted run that finds no
        # .pyc compiles what it imports, and the two counted runs of a task, which
        # go in parallel, may each find the other's .pyc or not, so the compile
        # work would not cancel out (it did not for a fresh venv)
        for tag in tags[1:]:
            pyperf_worker(venvs[tag], script, 1, None, wdir / f"{bench}-warm-{tag}.json",
                          valgrind=False)
        for task, b in enumerate(found):
            # pyperf's values are per inner loop; --loops counts outer loops
            per_loop = b["last_value"] * b["inner_loops"]
            loops = max(1, min(10_000, round(PPCG_NATIVE_SECONDS / max(per_loop, 1e-9))))
            tasks.append((b["name"], script, task, loops))
    return tasks


def count_tasks(venvs: dict[str, Path], tasks: list[Task], tags: tuple[str, str], jobs: int,
                wdir: Path) -> dict[tuple[str, str, int], int]:
    """Each task under callgrind with L and 2L loops on each interpreter, `jobs` at a
    time: (name, tag, loops) -> instructions."""
    counts: dict[tuple[str, str, int], int] = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futs = {}
        for name, script, task, loops in tasks:
            for tag in tags:
                for n in (loops, 2 * loops):
                    out = wdir / f"{name}-{tag}-{n}.json"
                    futs[pool.submit(pyperf_worker, venvs[tag], script, n, task, out,
                                     valgrind=True)] = (name, tag, n)
        for fut in concurrent.futures.as_completed(futs):
            counts[futs[fut]] = int(fut.result())
    return counts


def late_calls(venv_py: Path, script: Path, loops: int, work: Path) -> dict[str, int]:
    """The calls of functions with late defaults in one pyperf worker process of script
    (all its tasks, `loops` loops, one value), counted by tools.measure.late_calls."""
    counts = work / f"{script.parent.name}-{loops}.calls.json"
    out = work / f"{script.parent.name}-{loops}.worker.json"
    out.unlink(missing_ok=True)
    log = work / f"{script.parent.name}-{loops}.log"
    rc = run_logged([str(venv_py), "-m", "tools.measure.late_calls", "--out", str(counts),
                     str(script), "--worker", "--loops", str(loops), "--values", "1",
                     "--warmups", "0", "-o", str(out)], log, env=bench_env(), cwd=REPO)
    if rc != 0 or not counts.is_file():
        raise ToolError(f"tools.measure.late_calls on {script.parent.name} failed (exit {rc}):\n"
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
        venv_pys = {tag: ensure_venv(python, venvs / f"venv-{tag}", [BENCH_REQUIREMENTS],
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
