"""build/ecosystem/report.md from the results of a run."""

from __future__ import annotations

from typing import Any


def render_report(data: dict[str, Any]) -> str:
    lines = [
        "# Third-party tools on late-bound defaults",
        "",
        f"Written by `make ecosystem` (`python3 -m tools.ecosystem`) on {data['date']}, "
        f"with {data['interpreter']}. Each tool of `ecosystem/patched/` is installed twice into "
        "venvs of that interpreter, as the pinned release (stock, "
        "`build/ecosystem/venv-stock`) and with the patch of `ecosystem/patched/<tool>/` "
        "(patched, `build/ecosystem/venv`), and its `probe.py` runs on "
        "`ecosystem/corpus/late_defaults.py` in both. The releases are PyPI's, but for "
        "the editors' grammars, which are npm packages built into each venv's "
        "`share/<tool>/`. Stock results are recorded, not judged.",
        "",
        "| tool | version | stock | patched | evidence |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in sorted(data["patched_tools"], key=lambda row: row["display"].lower()):
        stock, patched = row["stock"], row["patched"]
        evidence = "; ".join(f"{label}: {r['evidence']}" for label, r in
                             (("stock", stock), ("patched", patched)) if r)
        lines.append(f"| {row['display']} | {row['version']} | {verdict_of(stock)} | "
                     f"{verdict_of(patched)} | {evidence} |")
    lines += [
        "",
        "Tools that need no patch: the interpreter's late-default objects "
        "(`types.LateDefaultType` in `__defaults__`, `inspect.signature()` writing `=>`) "
        "are enough. The tools of `ecosystem/unpatched/` are installed, pinned, "
        "into `build/ecosystem/venv` next to the patched tools and probed there; the "
        "libraries that copy or wrap functions are the tests of "
        "`tests/test_late_bound_frameworks.py`, run from `build/venv`.",
        "",
        "| tool | version | result | evidence |",
        "| --- | --- | --- | --- |",
    ]
    for row in data["unpatched_tools"]:
        lines.append(f"| {row['display']} | {row['version']} | {verdict_of(row['result'])} | "
                     f"{row['result']['evidence'] if row['result'] else ''} |")
    if data.get("upstream_tests"):
        lines += ["", "Upstream tests of each patch (`pin.toml` [test], patched venv):", "",
                  "| tool | result |", "| --- | --- |"]
        lines += [f"| {name} | {text} |" for name, text in data["upstream_tests"].items()]
    lines += ["", "## How it was built", ""] + [f"- {note}" for note in data["notes"]]
    return "\n".join(lines) + "\n"


def verdict_of(result: dict[str, Any] | None) -> str:
    return "not run" if not result else ("passes" if result["passed"] else "**fails**")
