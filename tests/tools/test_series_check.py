"""tools.series_check: which regression tests belong to a patch, where each patch is in
the series' two parts, and the summary."""

from __future__ import annotations

from tools.series_check import PatchResult, position, summary, regrtest_names


def test_regrtest_names_a_patch() -> None:
    paths = ["Python/compile.c", "Lib/test/test_grammar.py", "Lib/test/test_inspect/test_inspect.py",
             "Lib/test/test_grammar.py", "Lib/idlelib/idle_test/test_calltip.py",
             "Lib/test/support/__init__.py", "Lib/inspect.py", "Doc/library/dis.rst"]
    assert regrtest_names(paths) == ["test_grammar", "test_inspect", "test_idle"]


def test_a_patch_without_tests() -> None:
    assert regrtest_names(["Grammar/Tokens", "Misc/NEWS.d/next/Library/x.rst"]) == []


def test_each_patch_is_placed_in_its_part() -> None:
    series = ["semantics/0001-a.patch", "semantics/0002-b.patch", "performance/0001-c.patch"]
    assert [position(series, n) for n in series] == ["semantics 1/2", "semantics 2/2",
                                                     "performance 1/1"]


def test_summary_counts_and_names_each_patch_and_part() -> None:
    text = summary([
        PatchResult("semantics/0001-a.patch", ["test_tokenize"], 120.0, True, "tests passed"),
        PatchResult("semantics/0002-b.patch", [], 60.0, False, "tests failed (exit 2)"),
        PatchResult("performance/0001-c.patch", ["test_opcache"], 60.0, True, "tests passed")])
    lines = text.splitlines()
    assert lines[0].startswith("ok") and "semantics/0001-a.patch" in lines[0]
    assert "test_tokenize" in lines[0]
    assert lines[1].startswith("FAIL") and "no tests" in lines[1]
    assert lines[2].startswith("ok") and "performance/0001-c.patch" in lines[2]
    assert lines[3:] == ["semantics: 1 passed, 1 failed", "performance: 1 passed, 0 failed",
                         "2 passed, 1 failed, in 4.0 min"]
