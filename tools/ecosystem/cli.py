"""python3 -m tools.ecosystem: the run (venvs, probes, tests, report) and its arguments."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from tools import ecosystem
from tools.common import (ToolError, built_python, exits_on_tool_error, interpreter_info, rel,
                          say)
from tools.ecosystem.manifest import (FRAMEWORK_TESTS, FRAMEWORKS, VARIANTS, Tool, Unpatched,
                                      load_tools, load_unpatched, norm, requirement_versions)
from tools.ecosystem.probes import (ProbeResult, one_line, run_frameworks, run_probe,
                                    run_upstream_tests)
from tools.ecosystem.report import render_report
from tools.ecosystem.venvs import Layout, prepare_venv, unpinned
from tools.paths import ECOSYSTEM_OUT, PYTHON, TEST_REQUIREMENTS, shown


def patched_interpreter(python: Path) -> str:
    """python's version, after checking that it is the patched interpreter."""
    info = interpreter_info(python)
    if not info["late_defaults"]:
        raise ToolError(f"{python} has no types.LateDefaultType: it is not the patched "
                        "interpreter of this repository (run `make`)")
    return str(info["version"].split()[0])


def shown_path(path: Path) -> str:
    """path as a command line would give it: ./python, not python."""
    shown = rel(path)
    return shown if "/" in shown else f"./{shown}"


def say_result(what: str, result: ProbeResult) -> None:
    say(f"probe {what}: {'passes' if result.passed else 'FAILS'} in {result.seconds:.0f}s: "
        f"{result.evidence}")


# The runners whose tests are run only when asked for, and the option that asks
OPT_IN_RUNNERS = {"cargo": ("--cargo-tests", "make ecosystem-cargo-test"),
                  "jest": ("--jest-tests", "make ecosystem-jest-test")}


def probe_tool(tool: Tool, venvs: dict[str, Path], layout: Layout, display: str,
               tests: bool, opted_in: frozenset[str],
               failed: list[str]) -> tuple[dict[str, Any], str | None]:
    """The report's row of a patched tool (its probe against each venv) and, with tests,
    the summary of its upstream tests (those of an opt-in runner only when opted_in
    names it); what fails is added to failed."""
    row: dict[str, Any] = {"tool": tool.name, "display": display, "version": tool.version}
    for variant in VARIANTS:
        row[variant] = None
        if variant in venvs:
            result = run_probe(tool.probe, venvs[variant],
                               layout.root / "probes" / tool.name / variant,
                               layout.log(f"probe-{tool.name}-{variant}"))
            say_result(f"{tool.name} ({variant})", result)
            row[variant] = dataclasses.asdict(result)
    if not row["patched"]["passed"]:
        failed.append(f"{tool.name} (patched probe)")
    if not tests:
        return row, None
    if tool.runner in OPT_IN_RUNNERS and tool.runner not in opted_in:
        option, target = OPT_IN_RUNNERS[tool.runner]
        summary = (f"not run here: its tests are {tool.runner} runs, which {option} "
                   f"({target}) runs")
        say(f"{tool.name}: upstream tests {summary}")
        return row, summary
    upstream = run_upstream_tests(venvs["patched"], tool, layout)
    problems = upstream.problems()
    summary = "; ".join([upstream.summary(), *problems])
    say(f"{tool.name}: upstream tests: {summary}")
    if problems:
        failed.append(f"{tool.name} (upstream tests)")
    return row, summary


def probe_unpatched(extra: Unpatched, vpy: Path, layout: Layout, display: str, version: str,
                    failed: list[str]) -> dict[str, Any]:
    result = run_probe(extra.probe, vpy, layout.root / "probes" / extra.name / "unpatched",
                       layout.log(f"probe-{extra.name}"))
    say_result(f"{extra.name} (no patch)", result)
    if not result.passed:
        failed.append(extra.name)
    return {"tool": extra.name, "display": display, "version": version,
            "result": dataclasses.asdict(result)}


def framework_rows(python: Path, layout: Layout, chosen: set[str],
                   failed: list[str]) -> list[dict[str, Any]]:
    versions = requirement_versions(TEST_REQUIREMENTS)
    rows = []
    for library, (passed, evidence) in run_frameworks(python, layout).items():
        if library in chosen:
            if not passed:
                failed.append(library)
            rows.append({"tool": library, "display": library,
                         "version": versions.get(library, "?"),
                         "result": {"passed": passed, "evidence": one_line(evidence),
                                    "seconds": 0.0}})
    return rows


def build_notes(inventories: dict[str, dict[str, dict[str, Any]]], tools: list[Tool],
                extras: list[Unpatched]) -> str:
    """What the report says of the patched venv: who depends on which patched build."""
    dists = inventories["patched"]
    users = {norm(t.name): sorted(d["name"] for d in dists.values()
                                  if norm(t.name) in d["requires"]) for t in tools if t.on_pypi}
    loose = sorted({x for inv in inventories.values() for x in unpinned(inv, tools, extras)})
    return (f"`build/ecosystem/venv`: {len(dists)} distributions, checked to have the "
            "patched build of every tool installed, also where other distributions depend "
            "on it (" + "; ".join(f"{dists[name]['name']} for {', '.join(by)}"
                                  for name, by in sorted(users.items()) if by)
            + "); everything else is pinned by `ecosystem/constraints.txt`"
            + (f", except {', '.join(loose)} (not pinned there yet)" if loose else "") + ".")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.ecosystem",
                                 description=ecosystem.__doc__.split("\n\n")[0],
                                 epilog=ecosystem.__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, default=PYTHON,
                    help="the patched interpreter that makes the venvs (default: ./python)")
    ap.add_argument("--out", type=Path, default=ECOSYSTEM_OUT,
                    help="where the venvs, builds, logs and report go (default: "
                    f"{shown(ECOSYSTEM_OUT)})")
    ap.add_argument("--tool", action="append", default=[], metavar="NAME",
                    help="probe only these tools (repeatable; the venvs hold every tool); "
                    "with --cargo-tests or --jest-tests, run only these tools' tests")
    ap.add_argument("--no-stock", action="store_true",
                    help="skip the stock venv and the stock probes")
    ap.add_argument("--tests", action="store_true",
                    help="also run the upstream tests of each patch (as make test does), "
                    "but for the cargo test runs of a tool whose tests are Rust's and the "
                    "jest runs of one whose tests are jest's")
    ap.add_argument("--cargo-tests", action="store_true",
                    help="only the tools whose tests are cargo test runs (ruff, ty, ...): their "
                    "probes and those runs (a cold build of the tests takes about 25 "
                    "minutes on 2 cores; the target directory is kept)")
    ap.add_argument("--jest-tests", action="store_true",
                    help="only the tools whose tests are jest runs (basedpyright): their "
                    "probes and those runs (minutes: ts-jest compiles each test file)")
    ap.add_argument("--venv-only", action="store_true",
                    help="make build/ecosystem/venv current and stop")
    ap.add_argument("--list", action="store_true", help="list the tools and stop")
    args = ap.parse_args(argv)

    tools, extras = load_tools(), load_unpatched()
    if args.list:
        list_tools(tools, extras)
        return 0
    known = {t.name for t in tools} | {u.name for u in extras} | set(FRAMEWORKS)
    opted_in = frozenset(runner for runner, flag in (("cargo", args.cargo_tests),
                                                      ("jest", args.jest_tests)) if flag)
    if opted_in:
        runs = [t.name for t in tools if t.runner in opted_in]
        if set(args.tool) - set(runs):
            raise ToolError(f"--tool {', '.join(sorted(set(args.tool) - set(runs)))}: with "
                            "--cargo-tests or --jest-tests, --tool picks among the tools "
                            f"whose tests those runs are: {', '.join(runs)}")
        args.tool = args.tool or runs
        args.tests = True
    if set(args.tool) - known:
        raise ToolError(f"unknown tool(s) {', '.join(sorted(set(args.tool) - known))}; "
                        "--list shows them")
    python = built_python(args.python)
    version = patched_interpreter(python)
    layout = Layout(args.out.absolute())
    started = time.monotonic()
    variants = ("patched",) if args.no_stock or args.venv_only else VARIANTS
    venvs, inventories = prepare_venvs(python, variants, tools, extras, layout)
    if args.venv_only:
        return 0
    failed = run_and_report(python, version, venvs, inventories, tools, extras, layout,
                            chosen=set(args.tool) or known, tests=args.tests,
                            opted_in=opted_in,
                            started=started)
    if failed:
        print(f"error: failed: {', '.join(failed)} (see {rel(layout.root / 'report.md')})",
              file=sys.stderr)
        return 1
    return 0


def list_tools(tools: list[Tool], extras: list[Unpatched]) -> None:
    for tool in tools:
        needs = f" (needs {', '.join(tool.needs)})" if tool.needs else ""
        origin = "" if tool.on_pypi else f" ({tool.registry}: {tool.package})"
        print(f"{tool.name} {tool.version}{origin}: patched{needs}")
    for extra in extras:
        print(f"{extra.name} {extra.version or '(standard library)'}: no patch")
    print(", ".join(FRAMEWORKS) + f": no patch ({rel(FRAMEWORK_TESTS)})")


Inventory = dict[str, dict[str, Any]]


def prepare_venvs(python: Path, variants: tuple[str, ...], tools: list[Tool],
                  extras: list[Unpatched], layout: Layout
                  ) -> tuple[dict[str, Path], dict[str, Inventory]]:
    """Step 1: the venv of each variant, current; their pythons and distributions."""
    venvs: dict[str, Path] = {}
    inventories: dict[str, Inventory] = {}
    for variant in variants:
        venvs[variant], inventories[variant] = prepare_venv(python, variant, tools, extras,
                                                            layout)
    return venvs, inventories


def run_and_report(python: Path, version: str, venvs: dict[str, Path],
                   inventories: dict[str, Inventory], tools: list[Tool],
                   extras: list[Unpatched], layout: Layout, *, chosen: set[str], tests: bool,
                   opted_in: frozenset[str] = frozenset(),
                   started: float) -> list[str]:
    """Steps 2 and 3: the probes (and with tests, the upstream tests) of the chosen
    tools, then report.md and report.json. Returns what failed."""
    built = time.monotonic() - started
    failed: list[str] = []
    rows, extra_rows, upstream = [], [], {}
    dists = inventories["patched"]
    for tool in tools:
        if tool.name in chosen:
            display = dists[norm(tool.name)]["name"] if tool.on_pypi else \
                f"{tool.name} ({tool.registry}" + \
                (f": {tool.package})" if tool.package != tool.name else ")")
            row, summary = probe_tool(tool, venvs, layout, display, tests, opted_in, failed)
            rows.append(row)
            if summary is not None:
                upstream[tool.name] = summary
    for extra in extras:
        if extra.name in chosen:
            dist = dists.get(norm(extra.name))
            extra_rows.append(probe_unpatched(
                extra, venvs["patched"], layout, dist["name"] if dist else extra.name,
                extra.version or f"standard library ({version})", failed))
    if chosen & set(FRAMEWORKS):
        extra_rows += framework_rows(python, layout, chosen, failed)
    notes = [
        build_notes(inventories, tools, extras),
        f"Venvs ready in {built:.0f}s, whole run {time.monotonic() - started:.0f}s, on "
        f"{platform.machine()} with {len(os.sched_getaffinity(0))} CPU(s).",
        "Logs: `build/ecosystem/logs/`; each probe's work: `build/ecosystem/probes/`.",
    ]
    data = {"date": time.strftime("%Y-%m-%d"),
            "interpreter": f"`{shown_path(python)}` (Python {version} with the PEP 671 "
                           "series of `patches/`)",
            "patched_tools": rows, "unpatched_tools": extra_rows,
            "upstream_tests": upstream, "notes": notes, "failed": failed}
    report = layout.root / "report.md"
    report.write_text(render_report(data))
    (layout.root / "report.json").write_text(json.dumps(data, indent=1) + "\n")
    say(f"report: {rel(report)}")
    return failed
