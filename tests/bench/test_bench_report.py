"""bench.report renders results.json alone: its targets judge the ratios they are given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.report import build_report
from conftest import REPO
from results_fixture import LATE, results


def target_lines(markdown: str) -> dict[str, str]:
    """Each target's row, by the start of its name."""
    table = markdown.split("## Targets\n", 1)[1].split("\n## ", 1)[0]
    return {row.split(" | ")[0].lstrip("| "): row for row in table.splitlines()
            if row.startswith("| ") and "**" in row}


def test_targets_follow_the_ratios() -> None:
    good = target_lines(build_report(results(kw_late=LATE["late_omitted"],
                                             sentinel_omitted=400.0,
                                             micro_ratio={"kwonly_omitted.call": 0.7}))[0])
    assert all("**PASS**" in row or "**SKIP**" in row for row in good.values()), good
    bad = target_lines(build_report(results(pyperformance_geomean=1.02, call_ratio=1.01))[0])
    assert "**MISS**" in bad["pyperformance subset geomean patched/baseline within 1% "
                             "(callgrind, instructions per loop)"]
    assert "**MISS**" in bad["callgrind, calls without late defaults, patched/baseline "
                             "within 0.5%"]
    # kwonly's late default omitted is 1.32x the floor net of the loop: (140-8)/(108-8)
    floor = bad["late default omitted within 5% of the floor (callgrind, net of the loop, "
                "every shape)"]
    assert "kwonly 1.320" in floor and "**MISS**" in floor
    # and it costs more than the sentinel idiom there (140 vs 130): every shape must win
    sentinel = bad["late default omitted <= sentinel idiom (callgrind, every shape)"]
    assert "kwonly 1.077" in sentinel and "**MISS**" in sentinel


def test_difference_targets_per_call() -> None:
    # late omitted 110, floor 108, idiom 400: within every shape's targets
    rows = target_lines(build_report(results(sentinel_omitted=400.0))[0])
    five = rows["five: late omitted − floor ≤ +100, − idiom ≤ -200 (instructions per call)"]
    assert "+2, -290" in five and "**PASS**" in five
    # an idiom of 130 is only 20 over: the late default is not clearly cheaper
    rows = target_lines(build_report(results())[0])
    pos = rows["pos: late omitted − floor ≤ +17, − idiom ≤ -45 (instructions per call)"]
    assert "+2, -20" in pos and "**MISS**" in pos
    md = build_report(results())[0]
    assert "| pos | +2 | ≤ +17 | -20 | ≤ -45 | -1 |" in md


def test_sizeof_target_allows_one_pointer() -> None:
    rows = target_lines(build_report(results())[0])
    assert "baseline 152, patched 160 (+8 bytes) | **PASS**" in rows[
        "sys.getsizeof(function without late defaults): unchanged or +1 pointer"]


def test_missing_parts_are_skipped_with_their_reason() -> None:
    res = results()
    del res["pyperformance_callgrind"], res["callgrind"]
    res["parts"]["pyperformance (callgrind)"] = {"name": "pyperformance (callgrind)",
                                                 "status": "SKIPPED", "why": "valgrind not found"}
    md, term, bars = build_report(res)
    rows = target_lines(md)
    assert rows["pyperformance subset geomean patched/baseline within 1% (callgrind)"].endswith(
        "**SKIP** | valgrind not found |")
    assert "**SKIP** | no callgrind data for suite late |" in rows[
        "late default omitted <= sentinel idiom"]
    assert bars == [] and "## Targets" in term


def test_bars_hold_every_ratio_the_chart_shows() -> None:
    _, _, bars = build_report(results())
    labels = {label for label, *_ in bars}
    assert {"pos late/sentinel", "pos late/floor", "chaos (pyperformance)"} <= labels
    ratio = {label: r for label, r, _, _ in bars}
    assert abs(ratio["pos late/sentinel"] - 110 / 130) < 1e-12


def test_report_of_a_missing_file_says_what_to_run(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.report", str(tmp_path / "none.json")],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and "make bench-quick" in proc.stderr


def test_parity_rows_have_the_review_target_of_0_2_percent() -> None:
    md = build_report(results(micro_ratio={"stdlib.import": 1.0015,
                                           "stdlib.unmarshal": 1.003})
                      )[0]
    assert "| stdlib.import | 1,000.0 | 1,001.5 | 1.0015 | ≤ 1.002 **PASS** | – |" in md
    assert "| stdlib.unmarshal | 1,000.0 | 1,003.0 | 1.0030 | ≤ 1.002 **MISS** | – |" in md
    assert "| pos.call | 1,000.0 | 1,002.0 | 1.0020 | ≤ 1.002 **PASS** | – |" in md
    assert "| typing.compile | 1,000.0 | 1,000.0 | 1.0000 | ≤ 1.002 **PASS** | – |" in md
    rows = target_lines(md)
    imp = rows["callgrind, import of stdlib modules from their .pyc files, every row "
               "patched/baseline within 0.2%"]
    assert "stdlib.import 1.0015" in imp and "**PASS**" in imp
    unm = rows["callgrind, marshal.loads of stdlib .pyc data, every row patched/baseline "
               "within 0.2%"]
    assert "stdlib.unmarshal 1.0030" in unm and "**MISS**" in unm
    # one function creation row 0.3% over: the row target misses, the 1% geomean passes
    rows = target_lines(build_report(results(micro_ratio={"closure.make": 1.003}))[0])
    assert "**MISS**" in rows["callgrind, function creation (MAKE_FUNCTION), every row "
                              "patched/baseline within 0.2%"]
    assert "worst closure.make 1.0030" in rows[
        "callgrind, function creation (MAKE_FUNCTION), every row patched/baseline within 0.2%"]
    assert "**PASS**" in rows["callgrind, function creation (MAKE_FUNCTION) within 1%"]


def test_calls_are_judged_row_by_row_and_kwonly_calls_against_0_90() -> None:
    # issue 44: every call row within 0.2% on each part of the series, and a plain call
    # to a function with keyword-only defaults at most 0.90 of the baseline
    rows = target_lines(build_report(results(micro_ratio={"fib.call": 1.003,
                                                          "kwonly_omitted.call": 0.85}))[0])
    calls = rows["callgrind, calls without late defaults, every row patched/baseline "
                 "within 0.2%"]
    assert "worst fib.call 1.0030" in calls and "**MISS**" in calls
    kwonly = rows["callgrind, f(a) to def f(a, *, b=1, c=2) at most 0.9 of the baseline "
                  "(with the performance part)"]
    assert "0.8500" in kwonly and "**PASS**" in kwonly
    rows = target_lines(build_report(results(micro_ratio={"kwonly_omitted.call": 0.95}))[0])
    assert "**MISS**" in rows["callgrind, f(a) to def f(a, *, b=1, c=2) at most 0.9 of the "
                              "baseline (with the performance part)"]
