"""./python -m tools.check.fuzz_late_defaults: the arguments and the loop over cases."""

from __future__ import annotations

import argparse
import sys
import time

from tools.check import fuzz_late_defaults
from tools.check.fuzz_late_defaults.runtime import LATE_PROBE
from tools.check.fuzz_late_defaults.compare import report, run_case


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.check.fuzz_late_defaults",
                                 description=fuzz_late_defaults.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--cases", type=int, default=1000,
                    help="number of cases, 0 for no limit (default 1000)")
    ap.add_argument("--seconds", type=float, default=0,
                    help="stop after this many seconds, 0 for no limit (default)")
    ap.add_argument("--case", type=int, help="run only this case number (replay)")
    ap.add_argument("--show", action="store_true", help="print the sources of each case")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first mismatch")
    ap.add_argument("--progress", type=float, default=5.0,
                    help="seconds between progress lines (default 5, 0: none)")
    args = ap.parse_args(argv)

    try:
        compile(LATE_PROBE, "<probe>", "exec")
    except SyntaxError:
        print(f"fuzz: {sys.executable} does not support late-bound defaults", file=sys.stderr)
        return 2
    if args.cases <= 0 and args.seconds <= 0 and args.case is None:
        ap.error("give --cases or --seconds")

    t0 = time.monotonic()
    last = t0
    done = calls = bad = 0
    numbers = [args.case] if args.case is not None else None
    case = 0
    while True:
        if numbers is not None:
            if not numbers:
                break
            case = numbers.pop()
        elif args.cases > 0 and done >= args.cases:
            break
        now = time.monotonic()
        if numbers is None and args.seconds > 0 and now - t0 >= args.seconds:
            break
        _, late_src, sent_src, _, mms, n = run_case(args.seed, case)
        if args.show:
            print(f"=== case {case}\n{late_src}{sent_src}", end="")
        done += 1
        calls += n
        for mm in mms:
            bad += 1
            report(args.seed, case, late_src, sent_src, mm)
        if bad and not args.keep_going:
            break
        case += 1
        if args.progress > 0 and now - last >= args.progress:
            last = now
            print(f"fuzz: {done} cases, {calls} calls, {bad} mismatches, "
                  f"{now - t0:.0f}s", flush=True)
    print(f"fuzz: {done} cases, {calls} calls, {bad} mismatches (seed {args.seed})")
    return 1 if bad else 0
