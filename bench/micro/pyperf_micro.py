"""pyperf front end of the microbenchmarks (needs pyperf; run from bench-venv).

    python pyperf_micro.py --suite late -o late.json [pyperf options]
    python pyperf_micro.py --suite parity --only '^pos\\.call$' --append parity.json

Every micro of the suite (or those whose name matches --only) becomes one pyperf
benchmark named GROUP.ROLE, timed with the same loop code as harness.py.
"""

from __future__ import annotations

import re
import time
from typing import Any, List

import pyperf

# this script's directory is sys.path[0]
from harness import build, check, default_stdlib
from suites import SUITES


def add_cmdline_args(cmd: List[str], args: Any) -> None:
    cmd.extend(["--suite", args.suite])
    if args.only:
        cmd.extend(["--only", args.only])
    if args.stdlib:
        cmd.extend(["--stdlib", args.stdlib])


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--suite", required=True, choices=sorted(SUITES))
    runner.argparser.add_argument("--only", default=None, help="regex on micro names")
    runner.argparser.add_argument("--stdlib", default=None)
    args = runner.parse_args()
    stdlib = args.stdlib or default_stdlib()
    for m in SUITES[args.suite]:
        if args.only and not re.search(args.only, m.name):
            continue
        ns, loop = build(m, stdlib)
        if not check(m, ns):
            raise SystemExit(f"{m.name}: check {m.check!r} != {m.expect!r}")
        runner.bench_time_func(m.name, loop, time.perf_counter)


if __name__ == "__main__":
    main()
