"""python3 -m tools.check.oracles ORACLE: the arguments, and the loop over cases."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from tools.check import oracles
from tools.common import exits_on_tool_error
from tools.check.oracles import code_objects, introspection, specialization
from tools.check.oracles.harness import Loop, interpreter_label
from tools.paths import BASELINE_PYTHON, PYTHON

NAMES = ("specialization", "code-objects", "introspection")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.oracles",
                                 description=oracles.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("oracle", choices=NAMES)
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="the interpreter under test (default: ./python)")
    ap.add_argument("--baseline-python", type=Path, default=BASELINE_PYTHON,
                    help="the unpatched interpreter, the specialization oracle for "
                         "programs without => (default: build/baseline/python; "
                         "'none' to skip those programs)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--cases", type=int, default=0,
                    help="number of cases, 0 for no limit (give --seconds then)")
    ap.add_argument("--seconds", type=float, default=0,
                    help="stop starting batches after this many seconds (0: no limit)")
    ap.add_argument("--case", type=int, help="run only this case (replay)")
    ap.add_argument("--batch", type=int, default=0,
                    help="cases per subprocess (default: the oracle's own)")
    ap.add_argument("--keep-going", action="store_true",
                    help="do not stop at the first failure")
    ap.add_argument("--progress", type=float, default=15.0,
                    help="seconds between progress lines (0: none)")
    args = ap.parse_args(argv)
    if not args.cases and not args.seconds and args.case is None:
        ap.error("give --cases, --seconds or --case")
    if not args.python.exists():
        ap.error(f"{args.python} does not exist (run `make`)")

    baseline: Path | None = args.baseline_python
    if str(baseline) == "none":
        baseline = None
    elif args.oracle == "specialization" and not baseline.exists():
        ap.error(f"{baseline} does not exist (run `make baseline`, or give "
                 "--baseline-python none)")
    print(f"oracle {args.oracle}: {interpreter_label(args.python)}", flush=True)
    if args.oracle == "specialization":
        config = specialization.Config(args.python, baseline)
        check = functools.partial(specialization.check_batch, config)
        batch = 24
    elif args.oracle == "code-objects":
        check = functools.partial(code_objects.check_batch, args.python)
        batch = 40
    else:
        check = functools.partial(introspection.check_batch, args.python)
        batch = 40
    loop = Loop(args.oracle, args.seed, cases=args.cases, seconds=args.seconds,
                batch=args.batch or batch, only=args.case, progress=args.progress,
                keep_going=args.keep_going)
    total = loop.run(check)
    return 1 if total.failures else 0
