"""build/dogfood/report.md from the results.json of every set run so far."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tools.common import ToolError, say
from tools.dogfood.bisect import load_notes


def _fmt_count(n: float) -> str:
    return f"{n:,.0f}"


def render_set(res: dict[str, Any], notes: dict[str, dict[str, str]] | None = None
               ) -> list[str]:
    """A set's section of the report. A note of `notes` (tools/dogfood/notes.toml as it
    is now) explains a failure before the note the run recorded, so that notes written
    after a run reach the report with --report-only."""
    out = render_header(res) + render_rewrites(res)
    if res.get("bisect", {}).get("culprits"):
        out += render_culprits(res["bisect"], notes or {})
    if res.get("bench") is not None:
        out += render_bench(res["bench"])
    timings = res.get("timings", {})
    if timings:
        out.append("Timings: " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                   + ".")
        out.append("")
    return out


def render_header(res: dict[str, Any]) -> list[str]:
    """The set, the commits and times of its run, what was kept from earlier runs."""
    out = [f"## Set: {res['set'].replace('+', ' + ')}", ""]
    out.append(f"Tree: build/cpython at `{res['tree_commit'][:12]}`; lbdefaults and this "
               f"driver at `{res.get('repo_commit', '?')}`; run "
               f"{res.get('started', '?')} to {res.get('finished', 'unfinished')}; "
               f"tests: {res.get('tests')}.")
    for part, started in res.get("kept", {}).items():
        out.append(f"The {part} results are those of the run started {started} (same tree, "
                   f"same rewrites).")
    out.append("")
    cands = res.get("candidates", {})
    out.append("Candidates found by lbdefaults in Lib/ (outside Lib/test/): "
               + ", ".join(f"{n} {v}" for v, n in cands.items()) + ".")
    out.append("")
    return out


def render_rewrites(res: dict[str, Any]) -> list[str]:
    """The rewrites by verdict with the tests they break, and the parity summary."""
    culprits = res.get("bisect", {}).get("culprits", [])
    parity = res.get("parity")
    out = ["| verdict | rewrites applied | files | test files failing because of them |",
           "| --- | ---: | ---: | --- |"]
    for v, n in res.get("rewrites", {}).items():
        files = len({c["file"] for c in res.get("rewritten", []) if c["verdict"] == v})
        tests = sorted({t["test"] for c in culprits if v in c["verdicts"] for t in c["tests"]})
        failing = ("not run" if parity is None else ", ".join(tests) or "none")
        out.append(f"| {v} | {n} | {files} | {failing} |")
    out.append("")
    if parity is not None:
        out.append(f"Regression suite in parity mode ({parity.get('minutes')} min): "
                   f"failed on the first run: {', '.join(parity['failed']) or 'none'}; "
                   f"flaky: {', '.join(parity['flaky']) or 'none'}; failing on the "
                   f"unrewritten tree too (not counted): {', '.join(parity['shared']) or 'none'}; "
                   f"**regressions: {', '.join(parity['regressions']) or 'none'}**.")
        out.append("")
    return out


def render_culprits(bisection: dict[str, Any], notes: dict[str, dict[str, str]]) -> list[str]:
    """Each failure with the rewritten function that causes it, its errors and note."""
    out = [f"### Failures and the rewrites that cause them ({bisection['steps']} bisection "
           f"steps, {bisection['minutes']} min)", ""]
    for c in bisection["culprits"]:
        out.append(f"- `{c['unit']}` ({'/'.join(c['verdicts'])}; line {c['def_line']}): "
                   + "; ".join(f"`{x['parameter']}=>{x['expr']}`" for x in c["candidates"]))
        for t in c["tests"]:
            why = (notes.get(c["unit"], {}).get(t["test"]) or t["note"]
                   or f"unexplained (guess: {t['kind']}; see {c['log']})")
            out.append(f"  - **{t['test']}**: {why}")
            for line in t["errors"]:
                out.append(f"    - `{line.replace('`', chr(39))}`")
    for test, units in bisection.get("together", {}).items():
        out.append(f"- **{test}** fails only with several of these together: "
                   + ", ".join(f"`{u}`" for u in units))
    out.append("")
    return out


def render_bench(bench: dict[str, Any]) -> list[str]:
    """The callgrind counts, rewritten vs unrewritten, and the late-default calls."""
    out = ["### pyperformance subset, instructions per benchmark loop (callgrind)", ""]
    if bench.get("status") != "ok":
        out.append(f"{bench.get('status')}: {bench.get('why')}")
    else:
        out += ["| benchmark | unrewritten | rewritten | ratio |",
                "| --- | ---: | ---: | ---: |"]
        for name, row in sorted(bench["rows"].items()):
            out.append(f"| {name} | {_fmt_count(row['unrewritten'])} | "
                       f"{_fmt_count(row['rewritten'])} | {row['ratio']:.4f} |")
        out.append(f"| **geometric mean** | | | **{bench['geomean']:.4f}** |")
    out.append("")
    calls = bench.get("late_calls")
    if calls and "error" in calls:
        out += [f"Calls of rewritten functions: not counted ({calls['error']}).", ""]
    elif calls:
        out += ["Calls of functions with late defaults (the rewritten ones) in one worker "
                "process of each benchmark, with 1 and with 2 loops (tools.measure.late_calls); "
                "the difference is what one loop calls:", "",
                "| benchmark | 1 loop | 2 loops | per loop | functions |",
                "| --- | ---: | ---: | --- | --- |"]
        for name, c in sorted(calls.items()):
            # keys are "QUALNAME FILE:LINE"
            per = ", ".join(f"{f.split(' ', 1)[0]} {n:+d}" for f, n in c["per_loop"].items())
            funcs = ", ".join(f.split(" ", 1)[0] for f in c["functions"])
            out.append(f"| {name} | {c['one_loop']} | {c['two_loops']} | {per or '0'} | "
                       f"{funcs or 'none'} |")
        out.append("")
    return out


def write_report(out: Path) -> int:
    sets = [json.loads(p.read_text()) for p in sorted(out.glob("*/results.json"))]
    if not sets:
        raise ToolError(f"no results under {out} (run `make dogfood` first)")
    sets.sort(key=lambda s: len(s.get("verdicts", [])))
    lines = ["# Dogfood: the standard library rewritten with `=>`", "",
             "Every candidate of the chosen verdicts that tools/lbdefaults finds in Lib/ "
             "(not Lib/test/) rewritten, the tree built and run through CPython's "
             "regression suite in parity mode against the unrewritten patched tree, and "
             "the pyperformance subset of `make bench` counted by callgrind. "
             "Written by `python3 -m tools.dogfood` (`make dogfood DOGFOOD=...`).", ""]
    notes = load_notes()
    for res in sets:
        lines += render_set(res, notes)
    (out / "report.md").write_text("\n".join(lines).rstrip() + "\n")
    say(f"report: {os.path.relpath(out / 'report.md')}")
    return 0
