"""The parts that need the bench venvs: pyperf micros and pyperformance timed (counted by
callgrind: tools.measure.pyperformance)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from bench.callgrind import micros_for
from tools.common import run_logged, say, tail
from tools.measure.model import Interp, State, geomean, ratio_spread
from tools.measure.pyperformance import pyperf_read
from tools.paths import BENCH_MICRO

PYPERF_QUICK = ["--processes", "2", "--values", "3", "--warmups", "1", "--min-time", "0.02"]
PYPERF_FULL = ["--processes", "10", "--values", "3", "--warmups", "1"]


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
    script = str(BENCH_MICRO / "pyperf_micro.py")
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
