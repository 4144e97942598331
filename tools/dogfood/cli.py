"""python3 -m tools.dogfood: the arguments; the run is tools.dogfood.driver."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from tools.measure.pyperformance import PYPERFORMANCE_SUBSET
from tools import dogfood
from tools.common import built_python, exits_on_tool_error
from tools.dogfood.driver import run_set
from tools.dogfood.report import write_report
from tools.lbdefaults.cli import VERDICT_WORDS, verdict_set
from tools.paths import DOGFOOD_OUT, PYTHON, TREE, shown


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.dogfood", description=dogfood.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verdicts", type=verdict_set, default=verdict_set("safe"),
                    metavar="VERDICTS",
                    help=f"the verdicts to rewrite, comma-separated, of "
                         f"{', '.join(VERDICT_WORDS)} (make: DOGFOOD; default: safe)")
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="the unrewritten patched interpreter (default: ./python); it also "
                         "runs lbdefaults")
    ap.add_argument("--source-tree", type=Path, default=TREE,
                    help=f"the patched tree to clone (default: {shown(TREE)})")
    ap.add_argument("--out", type=Path, default=DOGFOOD_OUT,
                    help=f"output directory; the clone is OUT/cpython (default: {shown(DOGFOOD_OUT)})")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=1200, help="per-test timeout, seconds")
    ap.add_argument("--tests", default="",
                    help="test names for the parity run (default: the full suite)")
    ap.add_argument("--no-regrtest", action="store_true",
                    help="skip the parity run (and so the bisection)")
    ap.add_argument("--no-bench", action="store_true", help="skip the pyperformance counts")
    ap.add_argument("--benchmarks", type=lambda s: [b for b in s.split(",") if b],
                    default=list(PYPERFORMANCE_SUBSET), metavar="NAMES",
                    help="the pyperformance benchmarks to count, comma-separated (default: "
                         "the subset of make bench)")
    ap.add_argument("--report-only", action="store_true",
                    help="only render OUT/report.md again from the results of earlier runs")
    args = ap.parse_args(argv)
    out = args.out.absolute()
    if args.report_only:
        return write_report(out)

    return run_set(args, built_python(args.python), args.source_tree.absolute(), out)
