"""The parts that need the bench venvs: pyperf micros, pyperformance timed and counted."""

from __future__ import annotations

import concurrent.futures
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Sequence

from bench.callgrind import micros_for
from bench.model import MICRO, Interp, State, bench_env, geomean, ratio_spread
from tools.paths import REPO
from tools.common import run_logged, say, scrubbed_env, tail

PYPERFORMANCE_SUBSET = ("richards", "deltablue", "raytrace", "chaos", "go", "hexiom",
                        "nqueens", "float", "generators", "coroutines", "deepcopy", "logging",
                        "unpack_sequence")

PYPERF_QUICK = ["--processes", "2", "--values", "3", "--warmups", "1", "--min-time", "0.02"]
PYPERF_FULL = ["--processes", "10", "--values", "3", "--warmups", "1"]


def pyperf_read(venv_py: Path, *files: Path) -> list[list[dict[str, Any]]]:
    """bench.pyperf_data's description of each file, read by the venv's pyperf."""
    proc = subprocess.run([str(venv_py), "-m", "bench.pyperf_data", *map(str, files)],
                          capture_output=True, text=True, cwd=REPO, env=scrubbed_env())
    if proc.returncode != 0:
        raise RuntimeError(f"bench.pyperf_data could not read {', '.join(map(str, files))}:\n"
                           f"{proc.stderr[-2000:]}")
    found: list[list[dict[str, Any]]] = json.loads(proc.stdout)
    return found


def pyperf_values(venv_py: Path, path: Path) -> dict[str, list[float]]:
    """benchmark name -> all values (seconds per loop) of a pyperf JSON file."""
    out: dict[str, list[float]] = {}
    for bench in pyperf_read(venv_py, path)[0]:
        out.setdefault(bench["name"], []).extend(bench["values"])
    return out


def run_pyperf(st: State, venvs: dict[str, Path], quick: bool, stdlib: Path,
               only: str | None) -> None:
    part = st.part("pyperf")
    opts = PYPERF_QUICK if quick else PYPERF_FULL
    script = str(MICRO / "pyperf_micro.py")
    pdir = st.out / "pyperf"
    pdir.mkdir(parents=True, exist_ok=True)
    env = scrubbed_env()
    t0 = time.perf_counter()
    problems = []
    if "patched" in venvs:
        late = pdir / "late.json"
        late.unlink(missing_ok=True)
        names = [m.name for m in micros_for("late", quick, only)]
        say(f"pyperf: suite late, {len(names)} micros in one invocation")
        cmd = [str(venvs["patched"]), script, "--suite", "late", "-o", str(late), *opts,
               "--only", "^(" + "|".join(re.escape(n) for n in names) + ")$"]
        if run_logged(cmd, st.logs / "pyperf-late.log", env=env):
            problems.append(f"late suite failed:\n{tail(st.logs / 'pyperf-late.log')}")
        else:
            st.data["pyperf_late"] = pyperf_values(venvs["patched"], late)
    if "patched" in venvs and "baseline" in venvs:
        files = {t: pdir / f"parity-{t}.json" for t in ("patched", "baseline")}
        for f in files.values():
            f.unlink(missing_ok=True)
        ms = micros_for("parity", quick, only)
        say(f"pyperf: suite parity, {len(ms)} micros, interleaved patched/baseline")
        for i, m in enumerate(ms):
            order = ("patched", "baseline") if i % 2 == 0 else ("baseline", "patched")
            for tag in order:
                cmd = [str(venvs[tag]), script, "--suite", "parity", "--stdlib", str(stdlib),
                       "--only", f"^{re.escape(m.name)}$", "--append", str(files[tag]), *opts]
                if run_logged(cmd, st.logs / f"pyperf-parity-{tag}.log", env=env):
                    problems.append(f"parity {m.name} on {tag} failed:\n"
                                    f"{tail(st.logs / f'pyperf-parity-{tag}.log')}")
        if all(f.exists() for f in files.values()):
            st.data["pyperf_parity"] = {t: pyperf_values(venvs["patched"], f)
                                        for t, f in files.items()}
            cmp = subprocess.run([str(venvs["patched"]), "-m", "pyperf", "compare_to",
                                  str(files["baseline"]), str(files["patched"]), "--table"],
                                 capture_output=True, text=True)
            st.data["pyperf_parity_compare_to"] = cmp.stdout + cmp.stderr
    say(f"pyperf: done in {time.perf_counter() - t0:.0f}s")
    if problems:
        part.status, part.why = "FAILED", "\n".join(problems)
    else:
        part.status = "ok"


def run_pyperformance(st: State, venv_py: Path, interps: list[Interp], which: str,
                      quick_fast: bool) -> None:
    part = st.part("pyperformance")
    pdir = st.out / "pyperformance"
    pdir.mkdir(parents=True, exist_ok=True)
    files = {}
    for interp in sorted(interps, key=lambda i: i.tag != "baseline"):  # baseline first
        out = pdir / f"{interp.tag}.json"
        out.unlink(missing_ok=True)
        cmd = [str(venv_py), "-m", "pyperformance", "run", "--python", str(interp.exe),
               "-o", str(out)]
        if which == "subset":
            cmd += ["-b", ",".join(PYPERFORMANCE_SUBSET)]
        if quick_fast:
            cmd += ["--fast"]
        log = st.logs / f"pyperformance-{interp.tag}.log"
        say(f"pyperformance ({which}) on {interp.tag}: log {log}")
        rc = run_logged(cmd, log, env=scrubbed_env(), cwd=pdir)
        if rc != 0 or not out.exists():
            part.status = "FAILED"
            part.why = f"pyperformance run on {interp.tag} exited {rc}:\n{tail(log, 25)}"
            return
        files[interp.tag] = out
    cmp = subprocess.run([str(venv_py), "-m", "pyperf", "compare_to", str(files["baseline"]),
                          str(files["patched"]), "--table"], capture_output=True, text=True)
    vals = {t: pyperf_values(venv_py, f) for t, f in files.items()}
    ratios = {}
    for name in sorted(set(vals["baseline"]) & set(vals["patched"])):
        if vals["baseline"][name] and vals["patched"][name]:
            ratios[name] = ratio_spread(vals["patched"][name], vals["baseline"][name])
    st.data["pyperformance"] = {"which": which, "ratios": ratios,
                                "geomean": geomean(r for r, _ in ratios.values()),
                                "compare_to": cmp.stdout + cmp.stderr}
    part.status = "ok"


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


