"""tools.check.regrtest_parity: regrtest's closing summary, and the verdicts of a parity run
(regrtest itself replaced by canned outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.check import regrtest_parity as rp
from tools.common import ToolError

# The end of a regrtest run as 3.13 prints it.
SUMMARY = """\
0:12:01 load avg: 1.2 [480/482] test_zz passed
== Tests result: FAILURE ==

10 tests skipped:
    test_devpoll test_ioctl test_kqueue test_launcher test_msvcrt
    test_startfile test_winconsoleio test_winreg test_winsound test_wmi

2 tests altered the execution environment (env changed):
    test_threading test_os

3 tests failed:
    test_a test_b
    test_c

467 tests OK.

Total duration: 12 min 1 sec
Total tests: run=40,000 failures=3 skipped=1,500
Total test files: run=482/482 failed=3 env_changed=2 skipped=10
Result: FAILURE
"""


def test_parse_summary_reads_every_list() -> None:
    summary = rp.parse_summary(SUMMARY)
    assert summary is not None
    assert summary["failed"] == ["test_a", "test_b", "test_c"]
    assert summary["altered the execution environment (env changed)"] == ["test_threading",
                                                                         "test_os"]
    assert len(summary["skipped"]) == 10


def test_parse_summary_of_an_unfinished_run_is_none() -> None:
    assert rp.parse_summary(SUMMARY.split("== Tests result")[0]) is None


def test_parse_summary_keeps_the_last_list_of_a_title() -> None:
    rerun = SUMMARY.replace("Result: FAILURE", "") + "\n1 test failed:\n    test_b\n\nResult: FAILURE\n"
    summary = rp.parse_summary(rerun)
    assert summary is not None and summary["failed"] == ["test_b"]


def fake_regrtest(monkeypatch: pytest.MonkeyPatch, first: str, fails_alone: set[str],
                  fails_on_baseline: set[str], baseline: Path) -> list[list[str]]:
    """run_suite replaced: the first run prints `first`; a file run alone fails when it is
    in fails_alone (on the interpreter under test) or fails_on_baseline (on baseline)."""
    calls: list[list[str]] = []

    def run_suite(cmd: list[str], log: Path, echo: bool) -> tuple[int, str]:
        calls.append(cmd)
        if "-W" not in cmd:
            return 2, first
        failing = fails_on_baseline if cmd[0] == str(baseline) else fails_alone
        return (2 if cmd[-1] in failing else 0), ""

    monkeypatch.setattr(rp, "run_suite", run_suite)
    monkeypatch.setattr(rp, "test_exists", lambda python, name: name != "test_new")
    return calls


def test_a_regression_fails_twice_and_passes_on_the_baseline(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline"
    baseline.write_text("")
    first = SUMMARY.replace("test_a test_b\n    test_c", "test_a test_b test_c test_new")
    calls = fake_regrtest(monkeypatch, first, {"test_b", "test_c", "test_new"}, {"test_c"},
                          baseline)
    parity = rp.run_parity(tmp_path / "python", baseline, tests=[], jobs=2, logdir=tmp_path,
                           use_cache=False)
    assert parity.flaky == ["test_a"]
    assert parity.shared == ["test_c"]
    assert parity.regressions == ["test_b", "test_new"]   # test_new is not on the baseline
    assert parity.env_changed == ["test_threading", "test_os"]
    # the files that failed once each ran alone; the baseline ran only those that failed twice
    assert [c[-1] for c in calls if c[0] == str(baseline)] == ["test_b", "test_c"]
    assert set(parity.logs) == {"test_b", "test_c", "test_new"}
    assert json.loads(parity.to_json())["regressions"] == ["test_b", "test_new"]


def test_baseline_verdicts_are_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline"
    baseline.write_text("")
    cache = tmp_path / "verdicts.json"
    monkeypatch.setattr(rp, "verdict_cache", lambda flags: cache)
    calls = fake_regrtest(monkeypatch, SUMMARY, {"test_a"}, set(), baseline)
    rp.run_parity(tmp_path / "python", baseline, tests=[], jobs=1, logdir=tmp_path)
    assert json.loads(cache.read_text()) == {"test_a": "pass"}
    calls.clear()
    parity = rp.run_parity(tmp_path / "python", baseline, tests=[], jobs=1, logdir=tmp_path)
    assert parity.regressions == ["test_a"]
    assert not [c for c in calls if c[0] == str(baseline)]


def test_a_run_without_a_summary_is_an_error(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    fake_regrtest(monkeypatch, "Fatal Python error: Segmentation fault\n", set(), set(),
                  tmp_path / "baseline")
    with pytest.raises(ToolError, match="regrtest did not finish"):
        rp.run_parity(tmp_path / "python", tmp_path / "baseline", tests=[], jobs=1,
                      logdir=tmp_path, use_cache=False)


def test_a_missing_baseline_other_than_the_default_is_not_built(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(rp, "build_baseline", lambda **kw: pytest.fail("built"))
    fake_regrtest(monkeypatch, SUMMARY, {"test_a"}, set(), tmp_path / "missing")
    with pytest.raises(ToolError, match="does not exist"):
        rp.run_parity(tmp_path / "python", tmp_path / "missing", tests=[], jobs=1,
                      logdir=tmp_path, use_cache=False)
