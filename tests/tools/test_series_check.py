"""tools.series_check: which regression tests belong to a patch, and the summary."""

from __future__ import annotations

from tools.series_check import PatchResult, summary, regrtest_names


def test_regrtest_names_a_patch() -> None:
    paths = ["Python/compile.c", "Lib/test/test_grammar.py", "Lib/test/test_inspect/test_inspect.py",
             "Lib/test/test_grammar.py", "Lib/idlelib/idle_test/test_calltip.py",
             "Lib/test/support/__init__.py", "Lib/inspect.py", "Doc/library/dis.rst"]
    assert regrtest_names(paths) == ["test_grammar", "test_inspect", "test_idle"]


def test_a_patch_without_tests() -> None:
    assert regrtest_names(["Grammar/Tokens", "Misc/NEWS.d/next/Library/x.rst"]) == []


def test_summary_counts_and_names_each_patch() -> None:
    text = summary([PatchResult("0001-a.patch", ["test_tokenize"], 120.0, True, "tests passed"),
                    PatchResult("0002-b.patch", [], 60.0, False, "tests failed (exit 2)")])
    lines = text.splitlines()
    assert lines[0].startswith("ok") and "0001-a.patch" in lines[0] and "test_tokenize" in lines[0]
    assert lines[1].startswith("FAIL") and "no tests" in lines[1]
    assert lines[-1] == "1 passed, 1 failed, in 3.0 min"
