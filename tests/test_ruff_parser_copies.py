"""The copies of the ruff patch's parser change, in other tools' patches, stay in step with it.

ty, mypy's native parser (ast_serialize) and pyrefly parse with Ruff's crates, so their
patches carry the ruff patch's change to ruff_python_ast, ruff_python_parser and
ruff_python_trivia, each ported to the crates that tool pins. Nothing builds the copies
from one source: a change to the ruff patch's parser has to be ported to each by hand.

This test compares, file by file, the lines each copy adds to the hand-written files of
those crates (sources and inline tests, not insta's snapshots, which each tree's cargo
tests regenerate and check) with the lines the ruff patch adds. Any difference must be
one of the known ports below, counted in lines each way (added only by the copy, added
only by the ruff patch), with the reason. A new difference, or a known one that went
away, fails the test: port the change, or update the table with its reason.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest
import unidiff

from tools.paths import ECOSYSTEM

PATCHED = ECOSYSTEM / "patched"
RUFF_PATCH = PATCHED / "ruff" / "late-defaults.patch"
CRATES = ("ruff_python_ast/", "ruff_python_parser/", "ruff_python_trivia/")

# ast_serialize takes no target-version gate (its README says why: mypy gates the
# feature itself): the gate's version, error, check and inline tests are left out, and
# the two inline tests that name the version drop the `_py316` suffix and the
# `parse_options` line. It keeps ruff_python_ast's generic visitor as it was (late
# defaults visited with the early ones).
WITHOUT_GATE = {
    "ruff_python_ast/src/python_version.rs": (0, 6),
    "ruff_python_ast/src/visitor.rs": (0, 9),
    "ruff_python_parser/src/error.rs": (0, 30),
    "ruff_python_parser/src/parser/statement.rs": (2, 21),
    "ruff_python_parser/src/semantic_errors.rs": (1, 2),
    "ruff_python_parser/resources/inline/err/late_bound_default_py315.py": (0, 3),
    "ruff_python_parser/resources/inline/ok/late_bound_default_py316.py": (0, 3),
    "ruff_python_parser/resources/inline/err/param_with_invalid_late_bound_default_py316.py":
        (0, 1),
    "ruff_python_parser/resources/inline/err/yield_in_late_bound_default_py316.py": (0, 1),
}
RENAMED_WITHOUT_GATE = {
    "param_with_invalid_late_bound_default.py": "param_with_invalid_late_bound_default_py316.py",
    "yield_in_late_bound_default.py": "yield_in_late_bound_default_py316.py",
}

COPIES = {
    # ty targets 3.16 and gates the syntax as ruff does: the same change, line for line.
    "ty/late-defaults.patch": ({}, {}),
    "ast_serialize/late-defaults.patch": (WITHOUT_GATE, RENAMED_WITHOUT_GATE),
    # Ruff's crates 0.0.14, older than the ruff release we patch: its lexer's context
    # carries a debug assertion into the hunk, its comparison node has one `operands`
    # list instead of `left` and `comparators`, and its dict comprehension is a separate
    # expression kind, so the yield check visits first iterables through a helper.
    "pyrefly/ruff-crates-0.0.14.patch": ({
        "ruff_python_parser/src/lexer.rs": (4, 0),
        "ruff_python_parser/src/parser/statement.rs": (1, 2),
        "ruff_python_parser/src/semantic_errors.rs": (13, 4),
    }, {}),
}


def crate_path(target: str) -> str:
    """`ruff_python_parser/src/lexer.rs` from a patch's target path, in any of the trees:
    `b/crates/...` (ruff, ast_serialize), `b/ruff/crates/...` (ty) or
    `b/ruff_python_parser-0.0.14/...` (pyrefly's unpacked crates)."""
    path = target.removeprefix("b/").removeprefix("ruff/").removeprefix("crates/")
    return re.sub(r"^(ruff_python_\w+)-[0-9.]+/", r"\1/", path)


def added_lines(patch: Path, renamed: dict[str, str]) -> dict[str, list[str]]:
    """The lines the patch adds to each hand-written file of the parser crates."""
    added: dict[str, list[str]] = collections.defaultdict(list)
    for patched_file in unidiff.PatchSet.from_filename(str(patch), encoding="utf-8"):
        path = crate_path(patched_file.target_file)
        if not path.startswith(CRATES) or path.endswith(".snap"):
            continue
        directory, _, name = path.rpartition("/")
        path = f"{directory}/{renamed.get(name, name)}"
        for hunk in patched_file:
            added[path].extend(line.value.rstrip("\n") for line in hunk if line.is_added)
    return added


def departures(copy: dict[str, list[str]], ruff: dict[str, list[str]]) -> dict[str, tuple[int, int]]:
    """Per file: how many lines only the copy adds, and how many only the ruff patch adds."""
    result = {}
    for path in sorted(copy.keys() | ruff.keys()):
        ours = collections.Counter(copy.get(path, []))
        theirs = collections.Counter(ruff.get(path, []))
        counts = (sum((ours - theirs).values()), sum((theirs - ours).values()))
        if counts != (0, 0):
            result[path] = counts
    return result


def test_ruff_patch_changes_the_parser_crates() -> None:
    # The comparison means something only if the ruff patch's parser change is found.
    ruff = added_lines(RUFF_PATCH, {})
    assert {
        "ruff_python_ast/src/nodes.rs",
        "ruff_python_parser/src/lexer.rs",
        "ruff_python_parser/src/parser/expression.rs",
        "ruff_python_parser/src/parser/statement.rs",
        "ruff_python_parser/src/semantic_errors.rs",
        "ruff_python_trivia/src/tokenizer.rs",
    } <= ruff.keys()


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_copy_of_the_parser_change_is_in_step(copy: str) -> None:
    known, renamed = COPIES[copy]
    found = departures(added_lines(PATCHED / copy, renamed), added_lines(RUFF_PATCH, {}))
    assert found == known, (
        f"{copy} no longer differs from {RUFF_PATCH.relative_to(ECOSYSTEM)} only by its "
        f"known ports (lines only it adds, lines only the ruff patch adds): port the "
        f"change, or record it in COPIES with its reason")


def test_departures_see_a_line_the_copy_lacks() -> None:
    ruff = {"ruff_python_parser/src/lexer.rs": ["a", "b"]}
    copy = {"ruff_python_parser/src/lexer.rs": ["a", "c"]}
    assert departures(copy, ruff) == {"ruff_python_parser/src/lexer.rs": (1, 1)}
    assert departures(ruff, ruff) == {}
