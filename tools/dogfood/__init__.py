"""make dogfood: the standard library rewritten with `=>`, run through CPython's
regression suite and the pyperformance subset.

    python3 -m tools.dogfood --verdicts safe[,needs-review] [options]   (from the repo root)

1. tree     build/dogfood/cpython: a clone of build/cpython (never that tree itself),
            at the same commit; the rewrites of an earlier run are undone first.
2. scan     `./python -m tools.lbdefaults --json --exclude test` over its Lib/: every
            candidate with its verdict (Lib/test/ is neither scanned nor rewritten).
3. rewrite  `./python -m tools.lbdefaults --write --apply VERDICTS` rewrites every
            candidate of the chosen verdicts in Lib/; the count written must be the
            count chosen.
4. build    tools.build.cpython of the clone (the frozen modules follow Lib/).
5. parity   tools.check.regrtest_parity: the full suite (or --tests) on the rewritten tree,
            each failing file rerun there, and a file that fails twice run on the
            unrewritten patched tree (--python, ./python): a regression is a file that
            fails twice rewritten and passes unrewritten.
6. bench    the pyperformance subset of `make bench` counted by callgrind
            (tools.measure.pyperformance.count_pyperformance), rewritten vs unrewritten:
            instructions per benchmark loop, each in a venv of its interpreter.
7. bisect   for the regressions: which rewrite breaks which test file. The unit is a
            function (all its rewritten parameters: a check cannot move without the
            checks before it); the tree is rewritten with a subset of units
            (`lbdefaults --write --select`), rebuilt, and the failing files run on it;
            a subset that fails is halved until single functions are left. A file
            that fails only with several units together is reported as such.
8. report   build/dogfood/<set>/results.json, then build/dogfood/report.md from the
            results of every set run so far (safe; safe+needs-review).

Each failure is explained in the report by the culprit, the failing tests and their
error lines (from the log of the bisection step that applied that function alone), a
guess at its kind, and the note kept for it in tools/dogfood/notes.toml when there is
one (a culprit without a note is marked as unexplained). The tree is left rewritten
with the whole set.

Modules: tree (the clone), rewrite (scan and rewrites through lbdefaults), bisect
(group testing, failure lines, notes), driver (the steps of a run), report, cli.
"""

from tools.dogfood.bisect import (NOTES, bisect, failure_lines, guess_kind, load_notes,
                                  run_tests, unit_label)
from tools.dogfood.driver import set_slug
from tools.dogfood.report import render_set, write_report
from tools.dogfood.rewrite import Unit, apply_rewrites, chosen, scan, units_of
from tools.dogfood.tree import prepare_tree, restore_lib

__all__ = ["NOTES", "Unit", "apply_rewrites", "bisect", "chosen", "failure_lines",
           "guess_kind", "load_notes", "prepare_tree", "render_set", "restore_lib",
           "run_tests", "scan", "set_slug", "unit_label", "units_of", "write_report"]
