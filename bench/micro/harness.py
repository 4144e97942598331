"""Run one microbenchmark of bench/micro/suites.py (stdlib only, any 3.13 interpreter).

    python harness.py --suite late --bench pos.late_omitted --loops 200000
    python harness.py --suite parity --smoke [--loops 3]
    python harness.py --suite late --list

``--bench`` prints one JSON object: suite, bench, loops, seconds (wall time of the
timing loop), check_ok.  bench.run runs it under callgrind twice, with
``--loops N`` and ``--loops 0``, and subtracts: everything except the timing loop
(startup, setup, the check) is identical in both runs.

``--callgrind-batch`` is the fast callgrind mode: for each micro (all of the suite,
or those named by ``--benches A,B``) it builds and checks it, then calls the timing
loop through ``sys.call_tracing`` twice, with 0 and with N iterations.  Run it as

    valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=_PyEval_CallTracing --dump-after=_PyEval_CallTracing \\
        --callgrind-out-file=OUT python harness.py --suite S --callgrind-batch

and callgrind counts only what runs inside those calls (sys.call_tracing is used by
nothing else), writing one dump per call: OUT.1, OUT.2, ... in call order.  The
count of a micro is dump(N) - dump(0): the timing loop alone, without startup,
setup or the call of the loop function.  The JSON list printed gives the order.

``--smoke`` runs every micro of the suite with a tiny loop count and prints a JSON
list; it exits 1 if any check fails.
"""

from __future__ import annotations

# Deliberately light imports (no argparse/json/textwrap/typing): under callgrind
# every module imported here is startup cost, paid twice per measurement.
import os
import sys
import time

from suites import SUITES, Micro  # this script's directory is sys.path[0]

USAGE = ("usage: harness.py --suite {late,parity}"
         " (--bench GROUP.ROLE | --callgrind-batch [--benches A,B] | --smoke | --list)"
         " [--loops N] [--stdlib DIR]")


def default_stdlib() -> str:
    return os.path.dirname(os.__file__)


def build(m: Micro, stdlib: str) -> tuple[dict, object]:
    """Run the setup, then define the timing loop with m.names as fast locals.

    The loop is ``def __loop(__loops, __timer, f=f, a=a)``: the names become fast
    locals bound through (early) defaults, so every variant pays the same loop."""
    ns: dict = {"__name__": "__bench__", "STDLIB": stdlib}
    exec(compile(m.setup, f"<{m.name} setup>", "exec"), ns)
    params = "".join(f", {n}={n}" for n in m.names)
    body = "\n".join("        " + line for line in m.stmt.splitlines())
    src = (f"def __loop(__loops, __timer{params}):\n"
           f"    __t0 = __timer()\n"
           f"    for __i in range(__loops):\n"
           f"{body}\n"
           f"    return __timer() - __t0\n")
    exec(compile(src, f"<{m.name} loop>", "exec"), ns)
    return ns, ns["__loop"]


def check(m: Micro, ns: dict) -> bool:
    return bool(eval(m.check, ns) == m.expect)


def _json(d: dict) -> str:
    """JSON of a flat dict of str/int/float/bool/None (json itself is not imported)."""
    def val(v: object) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        text = str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return '"' + text + '"'
    return "{" + ", ".join(f'"{k}": {val(v)}' for k, v in d.items()) + "}"


def run_one(m: Micro, loops: int, stdlib: str) -> dict:
    ns, loop = build(m, stdlib)
    ok = check(m, ns)
    seconds = loop(loops, time.perf_counter)  # type: ignore[operator]
    return {"suite": m.suite, "bench": m.name, "loops": loops, "seconds": seconds,
            "check_ok": ok}


def _parse(argv: list[str]) -> dict:
    opts: dict = {"suite": None, "bench": None, "smoke": False, "list": False,
                  "callgrind-batch": False, "benches": None, "loops": None, "stdlib": None}
    it = iter(argv)
    for arg in it:
        if arg in ("-h", "--help"):
            print(USAGE)
            print(__doc__)
            raise SystemExit(0)
        if arg in ("--smoke", "--list", "--callgrind-batch"):
            opts[arg[2:]] = True
        elif arg in ("--suite", "--bench", "--benches", "--loops", "--stdlib"):
            value = next(it, None)
            if value is None:
                raise SystemExit(f"{USAGE}\nharness.py: {arg} needs a value")
            opts[arg[2:]] = int(value) if arg == "--loops" else value
        else:
            raise SystemExit(f"{USAGE}\nharness.py: unknown argument {arg!r}")
    if opts["suite"] not in SUITES:
        raise SystemExit(f"{USAGE}\nharness.py: --suite must be one of {sorted(SUITES)}")
    if sum((opts["bench"] is not None, opts["smoke"], opts["list"],
            opts["callgrind-batch"])) != 1:
        raise SystemExit(f"{USAGE}\nharness.py: give exactly one of "
                         "--bench/--callgrind-batch/--smoke/--list")
    return opts


def main(argv: list[str] | None = None) -> int:
    opts = _parse(sys.argv[1:] if argv is None else argv)
    stdlib = opts["stdlib"] or default_stdlib()
    micros = SUITES[opts["suite"]]
    if opts["list"]:
        print("[" + ", ".join(_json({"name": m.name, "group": m.group, "role": m.role,
                                     "loops": m.loops}) for m in micros) + "]")
        return 0
    if opts["smoke"]:
        loops = 3 if opts["loops"] is None else opts["loops"]
        results = []
        for m in micros:
            try:
                results.append(run_one(m, loops, stdlib))
            except Exception as exc:  # report every failing micro, not just the first
                results.append({"suite": m.suite, "bench": m.name, "loops": loops,
                                "seconds": None, "check_ok": False,
                                "error": f"{type(exc).__name__}: {exc}"})
        print("[" + ", ".join(_json(r) for r in results) + "]")
        return 0 if all(r["check_ok"] for r in results) else 1
    if opts["callgrind-batch"]:
        names = opts["benches"].split(",") if opts["benches"] else [m.name for m in micros]
        by_name = {m.name: m for m in micros}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise SystemExit(f"harness.py: no micro(s) {unknown} in suite {opts['suite']!r}")
        results = []
        dump = 0
        for name in names:
            m = by_name[name]
            loops = m.loops if opts["loops"] is None else opts["loops"]
            ns, loop = build(m, stdlib)
            ok = check(m, ns)
            sys.call_tracing(loop, (0, time.perf_counter))  # dump: the 0-iteration call
            seconds = sys.call_tracing(loop, (loops, time.perf_counter))  # dump: N iterations
            results.append({"suite": m.suite, "bench": m.name, "loops": loops,
                            "seconds": seconds, "check_ok": ok,
                            "dump_zero": dump + 1, "dump_loops": dump + 2})
            dump += 2
        print("[" + ", ".join(_json(r) for r in results) + "]")
        return 0 if all(r["check_ok"] for r in results) else 1
    m = next((x for x in micros if x.name == opts["bench"]), None)
    if m is None:
        raise SystemExit(f"harness.py: no micro {opts['bench']!r} in suite {opts['suite']!r}")
    result = run_one(m, m.loops if opts["loops"] is None else opts["loops"], stdlib)
    print(_json(result))
    return 0 if result["check_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
