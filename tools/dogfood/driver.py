"""The driver of a dogfood run: its steps, each recorded in the set's results.json."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from tools.measure.pyperformance import count_pyperformance
from tools.common import ToolError, say
from tools.dogfood.bisect import (NOTES, bisect, failure_lines, guess_kind, load_notes,
                                  run_tests, unit_label)
from tools.dogfood.report import write_report
from tools.dogfood.rewrite import Unit, apply_rewrites, chosen, scan, units_of
from tools.dogfood.tree import build_tree, prepare_tree
from tools.lbdefaults.analysis import VERDICTS
from tools.paths import REPO
from tools.build.pq import git
from tools.check.regrtest_parity import print_summary, run_parity


@dataclass
class Run:
    args: argparse.Namespace
    python: Path
    tree: Path
    out: Path
    verdicts: frozenset[str]
    results: dict[str, Any] = field(default_factory=dict)
    steps: int = 0

    def timed(self, name: str, t0: float) -> None:
        self.results.setdefault("timings", {})[name] = round(time.monotonic() - t0)
        self.save()

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "results.json").write_text(json.dumps(self.results, indent=1) + "\n")


def set_slug(verdicts: Iterable[str]) -> str:
    """safe -> "safe"; safe and needs review -> "safe+needs-review" (in VERDICTS order)."""
    return "+".join(v.replace(" ", "-") for v in VERDICTS if v in set(verdicts))


def step_parity(r: Run, cands: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """tools.check.regrtest_parity of the rewritten tree against the unrewritten one."""
    a = r.args
    say(f"regrtest parity: {len(cands)} rewrites vs the unrewritten tree")
    label = f"the unrewritten tree ({shown(r.python)})"
    parity = run_parity(r.tree / "python", r.python, tests=a.tests.split(), jobs=a.jobs,
                        timeout=a.timeout, logdir=r.out / "logs", label=label,
                        use_cache=False)
    print_summary(parity, r.tree / "python", label)
    (r.out / "parity.json").write_text(parity.to_json())
    result: dict[str, Any] = json.loads(parity.to_json())
    return result


def shown(path: Path) -> str:
    """A path for messages: relative to the current directory, ./python for ./python."""
    relpath = os.path.relpath(path)
    return relpath if "/" in relpath else f"./{relpath}"


def step_bench(r: Run) -> dict[str, Any]:
    """The pyperformance subset counted by callgrind, rewritten vs unrewritten."""
    return count_pyperformance({"rewritten": r.tree / "python", "unrewritten": r.python},
                               r.out.parent, r.out / "bench", jobs=r.args.jobs,
                               names=r.args.benchmarks)


def step_bisect(r: Run, cands: Sequence[dict[str, Any]], regressions: Sequence[str]
                ) -> dict[str, Any]:
    """Which rewritten function breaks which of the regressions (bisection.bisect, each
    step a rebuild of the tree with a subset of the rewrites)."""
    units = units_of(cands)
    bdir = r.out / "bisect"
    logs: dict[tuple[Unit, ...], Path] = {}

    def fails(subset: Sequence[Unit], tests: set[str]) -> set[str]:
        r.steps += 1
        n = r.steps
        sel = [c for u in subset for c in units[u]]
        say(f"bisect step {n}: {len(subset)} function(s), {len(sel)} rewrite(s); "
            f"tests {' '.join(sorted(tests))}")
        apply_rewrites(r.python, r.tree, sel, r.verdicts, bdir / f"step{n:03d}-rewrite.log")
        build_tree(r.tree, bdir / "build-logs", r.args.jobs, regen=False)
        broken, _ = run_tests(r.tree / "python", tests, bdir / f"step{n:03d}-tests.log",
                              r.args.timeout, r.args.jobs)
        logs[tuple(subset)] = bdir / f"step{n:03d}-tests.log"
        say(f"bisect step {n}: failing: {' '.join(sorted(broken)) or 'none'}")
        return broken

    t0 = time.monotonic()
    culprits, together = bisect(list(units), set(regressions), fails)
    notes = load_notes()
    found = [culprit(units[unit], unit, tests, logs.get((unit,)) or Path(
                 r.results["parity"]["logs"].get(sorted(tests)[0], "")), notes)
             for unit, tests in sorted(culprits.items())]
    return {"steps": r.steps, "minutes": round((time.monotonic() - t0) / 60, 1),
            "culprits": found,
            "together": {t: [unit_label(units[u]) for u in us] for t, us in together.items()}}


def culprit(ucands: Sequence[dict[str, Any]], unit: Unit, tests: set[str], log: Path,
            notes: dict[str, dict[str, str]]) -> dict[str, Any]:
    """What the report says of one function whose rewrites break `tests`: the error
    lines of each test in log, a guess at their kind, the note kept for it."""
    label = unit_label(ucands)
    text = log.read_text(errors="replace") if log.is_file() else ""
    per_test = []
    for test in sorted(tests):
        lines = failure_lines(text, test)
        per_test.append({"test": test, "errors": lines, "kind": guess_kind(lines),
                         "note": notes.get(label, {}).get(test)})
    return {"unit": label, "file": unit[0], "def_line": unit[1],
            "verdicts": sorted({c["verdict"] for c in ucands}),
            "candidates": [{k: c[k] for k in ("line", "function", "parameter", "expr",
                                              "verdict", "reason")} for c in ucands],
            "log": str(log), "tests": per_test}


def start(args: argparse.Namespace, python: Path, source: Path, out: Path) -> Run:
    """The Run of a set, its results begun: what is rewritten, on which commits."""
    tree = out / "cpython"
    if tree.resolve() == source.resolve():
        raise ToolError(f"the dogfood tree must not be {source} itself")
    r = Run(args, python, tree, out / set_slug(args.verdicts), args.verdicts)
    r.results = {"set": set_slug(args.verdicts), "verdicts": sorted(args.verdicts),
                 "started": datetime.datetime.now().isoformat(timespec="seconds"),
                 "tree_commit": git(source, "rev-parse", "HEAD").stdout.strip(),
                 "repo_commit": git(REPO, "describe", "--always", "--dirty").stdout.strip(),
                 "tests": args.tests or "full suite", "timings": {}}
    return r


def scan_and_rewrite(r: Run, source: Path) -> tuple[list[dict[str, Any]], bool]:
    """Steps 1 to 3: the tree, the scan, the rewrites. Returns the rewrites and whether
    the tree was cloned or moved (then it is regenerated)."""
    t0 = time.monotonic()
    moved = prepare_tree(source, r.tree)
    cands = scan(r.python, r.tree)
    picked = chosen(cands, r.verdicts)
    r.results["candidates"] = {v: sum(c["verdict"] == v for c in cands) for v in VERDICTS}
    say(f"lbdefaults: {len(cands)} candidates; rewriting {len(picked)} "
        f"({', '.join(sorted(r.verdicts))})")
    written = apply_rewrites(r.python, r.tree, picked, r.verdicts, r.out / "rewrite.log")
    r.results["rewrites"] = {v: sum(c["verdict"] == v for c in picked) for v in VERDICTS
                             if v in r.verdicts}
    r.results["rewritten_files"] = written
    r.results["rewritten"] = [{k: c[k] for k in ("file", "line", "def_line", "function",
                                                 "parameter", "expr", "verdict", "reason")}
                              for c in picked]
    (r.out / "rewrites.diff").write_text(git(r.tree, "diff", "HEAD", "--", "Lib").stdout)
    r.timed("scan and rewrite", t0)
    return picked, moved


def keep_earlier(r: Run, earlier: dict[str, Any]) -> None:
    """The parts skipped this time are kept from an earlier run of the same rewrites."""
    if (earlier.get("tree_commit") != r.results["tree_commit"]
            or earlier.get("rewritten") != r.results["rewritten"]):
        return
    kept = [("parity", "regrtest parity", r.args.no_regrtest),
            ("bisect", "bisection", r.args.no_regrtest),
            ("bench", "pyperformance (callgrind)", r.args.no_bench)]
    for key, timing, skipped in kept:
        if skipped and key in earlier:
            r.results[key] = earlier[key]
            if timing in earlier.get("timings", {}):
                r.results["timings"][timing] = earlier["timings"][timing]
            r.results.setdefault("kept", {})[key] = earlier.get("kept", {}).get(
                key, earlier["started"])
            say(f"keeping the {key} results of the run started {earlier['started']}")


def run_steps(r: Run, picked: list[dict[str, Any]], moved: bool) -> None:
    """Steps 4 to 7: build, parity, bench, bisection (the tree is left rewritten with
    the whole set)."""
    t0 = time.monotonic()
    build_tree(r.tree, r.out.parent / "logs", r.args.jobs,
               regen=moved or not (r.tree / "python").exists())
    r.timed("build", t0)
    if not r.args.no_regrtest:
        t0 = time.monotonic()
        r.results["parity"] = step_parity(r, picked)
        r.timed("regrtest parity", t0)
    if not r.args.no_bench:
        t0 = time.monotonic()
        r.results["bench"] = step_bench(r)
        r.timed("pyperformance (callgrind)", t0)
    regressions = r.results.get("parity", {}).get("regressions", [])
    if regressions and not r.args.no_regrtest:
        t0 = time.monotonic()
        r.results["bisect"] = step_bisect(r, picked, regressions)
        r.timed("bisection", t0)
        # leave the tree as the parity run saw it
        apply_rewrites(r.python, r.tree, picked, r.verdicts, r.out / "rewrite.log")
        build_tree(r.tree, r.out.parent / "logs", r.args.jobs, regen=False)


def run_set(args: argparse.Namespace, python: Path, source: Path, out: Path) -> int:
    """A whole run of one set of verdicts, then the report; exit status 1 when a
    rewrite lbdefaults calls safe breaks a test."""
    r = start(args, python, source, out)
    t_all = time.monotonic()
    earlier_file = r.out / "results.json"
    earlier = json.loads(earlier_file.read_text()) if earlier_file.is_file() else {}
    picked, moved = scan_and_rewrite(r, source)
    keep_earlier(r, earlier)
    run_steps(r, picked, moved)
    r.results["finished"] = datetime.datetime.now().isoformat(timespec="seconds")
    r.timed("total", t_all)
    status = write_report(out)
    culprits = r.results.get("bisect", {}).get("culprits", [])
    unexplained = [t for c in culprits for t in c["tests"] if not t["note"]]
    safe_broken = [c["unit"] for c in culprits if "safe" in c["verdicts"]]
    if safe_broken:
        print(f"dogfood: rewrites the tool calls safe break tests: {', '.join(safe_broken)} "
              f"(a bug in the analysis of tools/lbdefaults)", file=sys.stderr)
        status = 1
    if unexplained:
        say(f"{len(unexplained)} failure(s) without a note in {os.path.relpath(NOTES)}")
    return status
