"""tools.check.series_check: which regression tests belong to a patch, where each patch is in
the series' two parts, the summary, and the check that each patch carries its generated
files as regeneration writes them (on a tiny tree whose Makefile stands in for CPython's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.build.cpython import REGEN_TARGETS
from tools.build.pq import format_patches
from tools.check.series_check import (PatchResult, check_series, position, regrtest_names,
                                stale_detail, summary)


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


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=tree, check=True, capture_output=True, text=True).stdout


def commit(tree: Path, files: dict[str, str], message: str) -> None:
    for path, text in files.items():
        (tree / path).write_text(text)
    git(tree, "add", *files)
    git(tree, "commit", "-qm", message)


def fake_cpython(tree: Path) -> None:
    """A tree tagged `upstream` whose configure writes a Makefile in which regen-pegen
    writes Parser/parser.c, Grammar/python.gram in capitals, the other regen targets
    write nothing, and the build links python to this interpreter."""
    (tree / "Grammar").mkdir(parents=True)
    (tree / "Parser").mkdir()
    others = "".join(f"{target}:\n\t@:\n" for target in
                     [*REGEN_TARGETS, "regen-test-frozenmain"] if target != "regen-pegen")
    (tree / "Makefile.pre.in").write_text(
        f"all:\n\tln -sf {sys.executable} python\nclean:\n\trm -f python\n"
        "regen-pegen:\n\ttr a-z A-Z < Grammar/python.gram > Parser/parser.c\n" + others)
    (tree / "configure").write_text("#!/bin/sh\ncp Makefile.pre.in Makefile\n")
    (tree / "configure").chmod(0o755)
    git(tree, "init", "-q")
    git(tree, "add", "configure", "Makefile.pre.in")
    commit(tree, {"Grammar/python.gram": "start: statements\n",
                  "Parser/parser.c": "START: STATEMENTS\n"}, "upstream")
    git(tree, "tag", "upstream")


def test_a_patch_whose_generated_files_are_not_what_regeneration_writes_fails(
        tmp_path: Path) -> None:
    source, patches = tmp_path / "cpython", tmp_path / "patches"
    fake_cpython(source)
    commit(source, {"Grammar/python.gram": "start: statements\ndefault: '=>' expr\n",
                    "Parser/parser.c": "START: STATEMENTS\nDEFAULT: '=>' EXPR\n"},
           "Grammar and its parser")
    # the grammar changes, Parser/parser.c is left as it was
    commit(source, {"Grammar/python.gram": "start: statements\ndefault: '=>' expr\nlate\n"},
           "Grammar alone")
    git(source, "tag", "semantics")
    commit(source, {"Parser/parser.c": "START: STATEMENTS\nDEFAULT: '=>' EXPR\nLATE\n",
                    "NEWS": "regenerated\n"}, "The parser regenerated")
    names = format_patches(source, patches)

    tree = tmp_path / "series-check"
    results = check_series(jobs=1, tree=tree, patches=patches, source=source,
                           logdir=tmp_path / "logs")
    assert [r.name for r in results] == names
    assert [r.ok for r in results] == [True, False, True]
    assert [r.stale for r in results] == [[], ["Parser/parser.c"], []]
    assert results[1].detail.startswith("generated files differ from what regeneration "
                                        "writes: Parser/parser.c")
    assert "`make regen-pegen`" in results[1].detail
    # the file is back as committed, so that the next patch applied on it
    assert git(tree, "status", "--porcelain", "--untracked-files=no") == ""
    assert git(tree, "rev-list", "--count", "upstream..HEAD").strip() == "3"
    lines = summary(results).splitlines()
    assert lines[1].startswith("FAIL") and "semantics/0002-Grammar-alone.patch" in lines[1]
    assert lines[2].split() == ["generated", "files", "differ", "from", "what", "regeneration",
                                "writes:", "Parser/parser.c", "(at", "this", "patch's",
                                "commit", "in", "build/cpython,", "run", "`make",
                                "regen-pegen`,", "amend", "the", "commit,", "then",
                                "`python3", "-m", "tools.build.pq", "export`)"]
    assert lines[3].startswith("ok") and lines[4:6] == ["semantics: 1 passed, 1 failed",
                                                        "performance: 1 passed, 0 failed"]


def test_a_stale_file_names_the_target_that_writes_it() -> None:
    text = stale_detail(["Programs/test_frozenmain.h", "Parser/parser.c", "Lib/token.py",
                         "Modules/clinic/posixmodule.c.h", "Include/opcode_ids.h", "README"])
    assert "`make regen-token regen-pegen regen-cases regen-test-frozenmain clinic`" in text
    assert text.endswith("; the build changed files that no regen target writes: README")
    assert "README" not in text.split(";")[0]
