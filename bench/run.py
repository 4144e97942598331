"""pep671 benchmark driver: late-bound defaults vs the sentinel idiom, and patched vs baseline.

    python3 -m bench.run [--quick | --smoke] [options]      (from the repository root)

Measuring writes build/bench/results.json (and logs/); then bench.report, run
by the bench venv's python, renders report.md and report.png from that file
alone (`make bench-report` renders them again). Parts:

  callgrind   instruction counts (primary evidence: repeatable on a noisy machine) of
              every microbenchmark of bench/micro/suites.py: suite "late" on the patched
              interpreter (late default omitted / sentinel idiom / floor, passed / sentinel
              passed, for each call shape) and suite "parity" (no `=>`) on both
              interpreters.  Counted: the timing loop only (see bench/micro/harness.py,
              --callgrind-batch); full mode also cross-checks with whole-process counts,
              N iterations minus 0 iterations.
  pyperf      the same micros timed with pyperf (secondary: wall clock, with spread);
              "late" in one invocation, "parity" interleaved micro by micro between the
              two interpreters.
  sizeof      sys.getsizeof of a function without late defaults, on both interpreters.
  pyperformance  (full mode) a call-heavy subset on both interpreters, compared with
              `pyperf compare_to`; --pyperformance all runs the whole suite.  The subset
              is also counted by callgrind (instructions per benchmark loop, each task
              run with L and 2L loops as a pyperf worker), the evidence for the 1%
              target on a machine whose wall clock varies by more than that.

Modes: --quick (callgrind + a short pyperf run, no pyperformance; a few minutes),
default full, --smoke (each micro once with a tiny loop count, patched interpreter only,
no valgrind, no venv; what tests/test_bench_smoke.py runs).

pyperf (and pyperformance) are installed, pinned by bench/requirements.txt, into
build/bench-venv (made by ./python -m venv) and build/bench-venv-baseline (made by
build/baseline/python -m venv); matplotlib, pinned by bench/requirements-plot.txt, into
build/bench-venv, where the report is rendered.  Parts that cannot run are reported as
SKIPPED with the reason.  Exit status: 0 unless a core part (the micro harness or
callgrind) failed or the report could not be rendered; targets that MISS do not change
it (they are measurements, not tests).
"""


from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.callgrind import QUICK_CALLGRIND_LOOPS, run_callgrind
from bench.micro.suites import LATE_ROLES, SUITES
from bench.timed import run_pyperf, run_pyperformance
from tools.measure.model import Interp, State, bench_env
from tools.measure.pyperformance import run_pyperformance_callgrind
from tools.paths import BENCH, BENCH_HARNESS, BENCH_REQUIREMENTS
from tools.paths import BASELINE, BASELINE_PYTHON, BENCH_OUT, BENCH_VENV, PYTHON, REPO, shown
from tools.common import (ToolError, base_executable, ensure_venv, exits_on_tool_error, say,
                          scrubbed_env)


def smoke(python: Path) -> int:
    """Each micro of both suites once, tiny loops, on the patched interpreter."""
    ok = True
    for suite, loops in (("late", 3), ("parity", 1)):
        t0 = time.perf_counter()
        proc = subprocess.run([str(python), str(BENCH_HARNESS), "--suite", suite, "--smoke",
                               "--loops", str(loops)], capture_output=True, text=True,
                              env=bench_env())
        try:
            results = json.loads(proc.stdout)
        except ValueError:
            print(f"{suite}: harness failed (exit {proc.returncode}):\n{proc.stderr}")
            ok = False
            continue
        bad = [r for r in results if not r.get("check_ok")
               or not isinstance(r.get("seconds"), float)]
        for r in bad:
            print(f"{suite}: {r['bench']}: FAILED {r.get('error', 'check or timing failed')}")
        print(f"{suite}: {len(results) - len(bad)}/{len(results)} micros ran and produced "
              f"numbers ({time.perf_counter() - t0:.2f}s)")
        ok = ok and not bad and proc.returncode == 0 and len(results) == len(SUITES[suite])
    return 0 if ok else 1


SIZEOF_SRC = """import struct, sys
def f(a, b=1, *, c=2):
    return a
print(sys.getsizeof(f), sys.getsizeof(lambda: 0), struct.calcsize('P'))
"""


def run_sizeof(st: State, interps: list[Interp]) -> None:
    part = st.part("sizeof")
    res = {}
    for interp in interps:
        proc = subprocess.run([*interp.argv(), "-S", "-c", SIZEOF_SRC], capture_output=True,
                              text=True, env=bench_env())
        if proc.returncode:
            part.status, part.why = "FAILED", proc.stderr
            return
        f, lam, ptr = map(int, proc.stdout.split())
        res[interp.tag] = {"function": f, "lambda": lam, "pointer": ptr}
    st.data["sizeof"] = res
    part.status = "ok"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python3 -m bench.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true",
                      help="callgrind micro pairs + a short pyperf run; no pyperformance")
    mode.add_argument("--smoke", action="store_true",
                      help="run each micro once (tiny loops) on --python; no valgrind/pyperf")
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="patched interpreter (default: ./python)")
    ap.add_argument("--baseline-python", type=Path,
                    default=BASELINE_PYTHON,
                    help=f"unpatched interpreter (default: {shown(BASELINE_PYTHON)}; "
                         "`make baseline` builds it)")
    ap.add_argument("--out", type=Path, default=BENCH_OUT,
                    help=f"output directory (default: {shown(BENCH_OUT)})")
    ap.add_argument("--venv", type=Path, default=BENCH_VENV,
                    help="venv of the patched interpreter (the baseline one gets the "
                         "suffix -baseline)")
    ap.add_argument("--loops", type=int, default=None,
                    help=f"callgrind iterations of the call/make micros (default: 200000; "
                         f"--quick: {QUICK_CALLGRIND_LOOPS}); the compile, import and unmarshal "
                         "micros keep their own few iterations")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                    help="parallel valgrind processes; the micros of one process run "
                         "one after another, and a few counts (function creation, the cell "
                         "call) depend a little on what ran before: compare runs made with "
                         "the same --jobs")
    ap.add_argument("--only", default=None, help="regex: only micros whose name matches")
    ap.add_argument("--pyperformance", choices=("none", "subset", "all"), default=None,
                    help="pyperformance: none, the call-heavy subset, or the whole suite "
                         "(default: subset; --quick: none)")
    ap.add_argument("--pyperformance-fast", action="store_true",
                    help="pass --fast to pyperformance")
    ap.add_argument("--no-pyperf", action="store_true", help="skip the pyperf micro runs")
    ap.add_argument("--no-callgrind", action="store_true", help="skip callgrind")
    ap.add_argument("--cross-check", choices=("yes", "no"), default=None,
                    help="also count whole processes, N minus 0 iterations (default: yes "
                         "in full mode, no in --quick)")
    args = ap.parse_args(argv)
    # Path("./python") is "python", which subprocess would look up on PATH
    args.python = args.python.absolute()
    args.baseline_python = args.baseline_python.absolute()
    return args


def interpreters(st: State, args: argparse.Namespace) -> list[Interp]:
    """The patched interpreter, and the baseline when it runs (else a SKIPPED part)."""
    interps = [Interp("patched", args.python, base_executable(args.python),
                      st.out / "pycache-patched")]
    try:
        bexe = base_executable(args.baseline_python)
    except ToolError:
        part = st.part("baseline")
        part.status = "SKIPPED"
        part.why = (f"{args.baseline_python} missing or broken (`make baseline` builds it): "
                    "every patched-vs-baseline part is skipped")
        say(part.why)
    else:
        interps.append(Interp("baseline", args.baseline_python, bexe,
                              st.out / "pycache-baseline"))
    return interps


def check_harness(st: State, interps: list[Interp], stdlib: Path) -> bool:
    """Warm the private pycaches (so no measured run compiles harness/suites) and
    smoke-check the harness on each interpreter."""
    part = st.part("micro harness", core=True)
    part.status = "ok"
    for interp in interps:
        proc = subprocess.run([*interp.argv(), str(BENCH_HARNESS), "--suite", "parity", "--smoke",
                               "--loops", "1", "--stdlib", str(stdlib)],
                              capture_output=True, text=True, env=bench_env())
        bad = proc.returncode != 0
        if interp.tag == "patched":
            p2 = subprocess.run([*interp.argv(), str(BENCH_HARNESS), "--suite", "late", "--smoke"],
                                capture_output=True, text=True, env=bench_env())
            bad = bad or p2.returncode != 0
            proc.stdout += p2.stdout
            proc.stderr += p2.stderr
        if bad:
            part.status = "FAILED"
            part.why = f"smoke run on {interp.tag} failed:\n{proc.stdout}\n{proc.stderr}"
    return part.status == "ok"


def make_venvs(st: State, args: argparse.Namespace, interps: list[Interp],
               timed: bool) -> dict[str, Path]:
    """tag -> venv python: always the patched one (pyperf and matplotlib: the report is
    rendered there), the baseline one (pyperf) when a timed part runs."""
    vpart = st.part("venvs")
    venvs: dict[str, Path] = {}
    try:
        for interp in interps if timed else interps[:1]:
            reqs = [BENCH_REQUIREMENTS]
            venv = args.venv
            if interp.tag == "patched":
                reqs.append(BENCH / "requirements-plot.txt")
            else:
                venv = args.venv.with_name(args.venv.name + "-baseline")
            venvs[interp.tag] = ensure_venv(interp.exe, venv.absolute(), reqs,
                                            log=st.logs / f"venv-{interp.tag}.log")
        vpart.status = "ok"
    except ToolError as exc:
        vpart.status, vpart.why = "FAILED", f"{exc} (pyperf/pyperformance skipped)"
        say(vpart.why)
    return venvs


def run_timed(st: State, args: argparse.Namespace, interps: list[Interp],
              venvs: dict[str, Path], harness_ok: bool, which: str, stdlib: Path) -> None:
    quick = args.quick
    if args.no_pyperf:
        st.part("pyperf").status, st.part("pyperf").why = "SKIPPED", "--no-pyperf"
    elif harness_ok and "patched" in venvs:
        run_pyperf(st, venvs, quick, stdlib, args.only)
    else:
        st.part("pyperf").status = "SKIPPED"
        st.part("pyperf").why = "no venv with pyperf" if harness_ok else "micro harness failed"
    if which == "none":
        st.part("pyperformance").status = "SKIPPED"
        st.part("pyperformance").why = ("not part of --quick" if quick else
                                        "--pyperformance none")
    elif "patched" not in venvs or len(interps) < 2:
        st.part("pyperformance").status = "SKIPPED"
        st.part("pyperformance").why = "needs the bench venv and build/baseline/python"
    else:
        run_pyperformance(st, venvs["patched"], interps, which, args.pyperformance_fast)
        if which == "subset":
            run_pyperformance_callgrind(st, venvs, max(1, args.jobs))


def write_results(st: State, args: argparse.Namespace, interps: list[Interp],
                  elapsed: float) -> Path:
    """results.json: everything bench.report needs, and nothing it has to re-measure."""
    try:
        load: list[float] = list(os.getloadavg())
    except OSError:
        load = []
    run = {"mode": "quick" if args.quick else "full",
           "finished": datetime.datetime.now().isoformat(timespec="seconds"),
           "node": platform.node(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "loadavg": load, "elapsed": elapsed,
           "interpreters": {i.tag: str(i.exe) for i in interps}}
    suites = {name: [{"name": m.name, "group": m.group, "role": m.role} for m in micros]
              for name, micros in SUITES.items()}
    suites["late_roles"] = list(LATE_ROLES)
    path = st.out / "results.json"
    path.write_text(json.dumps({"run": run, "suites": suites,
                                "parts": {k: vars(v) for k, v in st.parts.items()},
                                **st.data}, indent=1, default=str))
    return path


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.smoke:
        return smoke(args.python)

    t_start = time.perf_counter()
    out = args.out.absolute()
    logs = out / "logs"
    if logs.exists():
        shutil.rmtree(logs)
    logs.mkdir(parents=True)
    st = State(out, logs)
    quick = args.quick
    loops = args.loops if args.loops is not None else (QUICK_CALLGRIND_LOOPS if quick else None)
    which = args.pyperformance or ("none" if quick else "subset")
    cross = (args.cross_check or ("no" if quick else "yes")) == "yes"

    try:
        interps = interpreters(st, args)
    except ToolError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # the compile micros read the pristine stdlib sources when there are some
    pristine = BASELINE / "Lib"
    stdlib = pristine if (pristine / "typing.py").exists() else interps[0].exe.parent / "Lib"

    harness_ok = check_harness(st, interps, stdlib)
    if harness_ok and not args.no_callgrind:
        run_callgrind(st, interps, quick, loops, max(1, args.jobs), stdlib, args.only, cross)
    elif args.no_callgrind:
        st.part("callgrind").status, st.part("callgrind").why = "SKIPPED", "--no-callgrind"
    run_sizeof(st, interps)
    venvs = make_venvs(st, args, interps, timed=not args.no_pyperf or which != "none")
    run_timed(st, args, interps, venvs, harness_ok, which, stdlib)

    results = write_results(st, args, interps, time.perf_counter() - t_start)
    status = 0
    if "patched" in venvs:
        status = subprocess.run([str(venvs["patched"]), "-m", "bench.report", str(results)],
                                cwd=REPO, env=scrubbed_env()).returncode
    else:
        print(f"error: the report cannot be rendered without the bench venv (matplotlib); "
              f"once `{args.venv}` installs, run `make bench-report` ({results} is kept)",
              file=sys.stderr)
        status = 1
    core_failed = [p.name for p in st.parts.values() if p.core and p.status == "FAILED"]
    if core_failed:
        print(f"core part(s) failed: {', '.join(core_failed)}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
