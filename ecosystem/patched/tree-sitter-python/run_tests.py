"""The tests of the tree-sitter-python patch, as a JUnit XML report.

pin.toml's [test] commands run this at the top of the patched tree:

    python3 run_tests.py PYTHON JUNIT CACHE PATCH

1. `tree-sitter test` (the CLI of build.py, from CACHE): the corpus cases of
   test/corpus/ and the highlight assertions of test/highlight/. The patch adds its
   cases to upstream's test/corpus/statements.txt and expressions.txt and
   test/highlight/parameters.py, which the npm tarball does not ship (pin.toml's
   not_in_release leaves those hunks out): where the tree has no such file, it is
   written here with what the patch adds to it, the corpus cases whose name the patch
   adds and the lines it adds to the highlight file (README.md);
2. the standard library of PYTHON (a venv of the patched interpreter, whose tests use
   '=>') parsed by the patched grammar, against the stock one (this tree with PATCH
   reversed, built here) on the same files with each late default's '=>' written '= '
   (an early default, at the same offsets): every tree (S-expression) must be the same
   but for the late defaults' `operator: (late_default_operator)`, so late defaults
   parse as early ones do and nothing else changes.

Standard library only; the parsing runs in PYTHON, which has the `tree-sitter` binding.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# ecosystem/: probekit, the probes' shared helpers (its JUnit report)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from build import cli_path, run  # noqa: E402  (build.py of this directory)
import probekit  # noqa: E402  (ecosystem/probekit.py)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GROUP = re.compile(r"^(\s*)(\S.*):$")
_CORPUS_CASE = re.compile(r"^\s*\d+\. ([✓✗⌀]) (.+?)\s*$")
_HIGHLIGHT_CASE = re.compile(r"^\s*([✓✗]) (\S+)(?: \(\d+ assertions\))?\s*$")
_OUTCOMES = {"✓": "passed", "✗": "failed", "⌀": "skipped"}
# A corpus case's header line (and its divider): tree-sitter allows a suffix after them
_HEADER = re.compile(r"^={3,}\S*$")
_DIVIDER = re.compile(r"^-{3,}\S*$")
_ASSERTION = re.compile(r"^\s*#\s*[\^<]")
# In the tree: the test files written from the patch (a repository's own are left alone)
TESTS_FROM_PATCH = "test/.from-late-defaults-patch"
# The late default's operator in a tree of the patched grammar, which the stock grammar's
# tree of the same file with '= ' for '=>' does not have
_LATE_OPERATOR = " operator: (late_default_operator)"

# Run by PYTHON: parse the standard library with two builds of the grammar.
_COMPARE = r"""
import ctypes, json, os, pathlib, sys
import tree_sitter as ts

def language(path):
    lib = ctypes.CDLL(path)
    lib.tree_sitter_python.restype = ctypes.c_void_p
    capsule = ctypes.pythonapi.PyCapsule_New
    capsule.restype = ctypes.py_object
    capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return ts.Language(capsule(lib.tree_sitter_python(), b"tree_sitter.Language", None))

stock, patched = (ts.Parser(language(p)) for p in sys.argv[1:3])
arrow = ts.QueryCursor(ts.Query(language(sys.argv[2]), '(late_default_operator) @arrow'))
# where os.py is: sysconfig names the install prefix, which a build not installed lacks
root = pathlib.Path(os.__file__).parent
files, late, differ = 0, {}, []
for path in sorted(root.rglob("*.py")):
    if "site-packages" in path.parts:
        continue
    source = path.read_bytes()
    files += 1
    tree = patched.parse(source).root_node
    # each late default's '=>' written '= ' (same offsets): an early default where it has
    # a late one; any other '=>' (in a string, a format spec) stays
    early = bytearray(source)
    for node in arrow.captures(tree).get("arrow", []):
        early[node.start_byte:node.end_byte] = b"= "
        late[str(path.relative_to(root))] = late.get(str(path.relative_to(root)), 0) + 1
    if str(tree).replace(sys.argv[3], "") != str(stock.parse(bytes(early)).root_node):
        differ.append(str(path.relative_to(root)))
print(json.dumps({"root": str(root), "files": files, "late": late, "differ": differ}))
"""


def patch_hunks(patch: Path) -> dict[str, list[list[tuple[str, str]]]]:
    """path -> the hunks of patch for that file, each the lines of its new side as
    (sign, text): ' ' for a line of context, '+' for an added one."""
    files: dict[str, list[list[tuple[str, str]]]] = {}
    hunks: list[list[tuple[str, str]]] | None = None
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith("diff --git "):
            hunks = files.setdefault(line.rsplit(" b/", 1)[1], [])
        elif line.startswith("@@ ") and hunks is not None:
            hunks.append([])
        elif hunks and line[:1] in (" ", "+") and not line.startswith("+++ "):
            hunks[-1].append((line[0], line[1:]))
    return files


def corpus_cases(path: str, hunks: list[list[tuple[str, str]]]) -> str:
    """The corpus cases whose name the hunks add, whole (from their header to the next
    case or the end of the hunk), as a corpus file of their own."""
    cases = []
    for hunk in hunks:
        starts = [i for i in range(len(hunk) - 2) if _HEADER.match(hunk[i][1])
                  and _HEADER.match(hunk[i + 2][1])]
        for start, end in zip(starts, starts[1:] + [len(hunk)]):
            if hunk[start + 1][0] != "+":
                continue
            lines = [text for _, text in hunk[start:end]]
            expected = "\n".join(lines[next((i for i, t in enumerate(lines)
                                              if _DIVIDER.match(t)), len(lines)):])
            if not expected or expected.count("(") != expected.count(")") or \
                    "(" not in expected:
                raise SystemExit(f"{path}: the case {lines[1]!r} the patch adds is not "
                                 "whole in its hunk (a header, the code, a divider, the "
                                 "tree)")
            cases.append("\n".join(lines).strip("\n") + "\n")
    if not cases:
        raise SystemExit(f"{path}: the patch adds no case to it")
    return "\n".join(cases)


def highlight_lines(path: str, hunks: list[list[tuple[str, str]]]) -> str:
    """The lines the hunks add to a highlight test file, which must stand alone (no
    assertion before the code it is about)."""
    added = [text for hunk in hunks for sign, text in hunk if sign == "+"]
    code = [text for text in added if text.strip()]
    if not code or _ASSERTION.match(code[0]):
        raise SystemExit(f"{path}: the lines the patch adds do not stand alone")
    return "\n".join(added).strip("\n") + "\n"


def tests_from_patch(patch: Path, tree: Path) -> dict[str, str]:
    """Write the test files of patch that tree lacks (the npm tarball ships no test/)
    with what the patch adds to them (and again at each run: TESTS_FROM_PATCH lists
    them); returns the name of each highlight file written -> what its test id says."""
    written: dict[str, str] = {}
    record = tree / TESTS_FROM_PATCH
    ours = set(record.read_text().split()) if record.is_file() else set()
    for path, hunks in patch_hunks(patch).items():
        target = tree / path
        if not path.startswith("test/") or (target.exists() and path not in ours):
            continue
        if path.startswith("test/corpus/"):
            text = corpus_cases(path, hunks)
        elif path.startswith("test/highlight/"):
            text = highlight_lines(path, hunks)
            written[target.name] = f"{target.name} (the late-default lines the patch adds)"
        else:
            raise SystemExit(f"{path}: run_tests.py knows no such test file")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        ours.add(path)
        print(f"{path}: what the patch adds to it (the npm tarball ships no test/)",
              flush=True)
    if ours:
        record.write_text("".join(f"{path}\n" for path in sorted(ours)))
    return written


def tree_sitter_test(cli: Path, tree: Path, cache: Path,
                     renamed: dict[str, str]) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, message) of `tree-sitter test` in tree (a highlight file
    named in renamed has the id it gives)."""
    env = {**os.environ, "TREE_SITTER_LIBDIR": str(cache / "tree-sitter-lib")}
    print(f"$ {cli} test", flush=True)
    proc = subprocess.run([str(cli), "test"], cwd=tree, env=env, text=True,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    output = _ANSI.sub("", proc.stdout)
    print(output, end="", flush=True)
    cases: dict[str, tuple[str, str]] = {}
    groups: list[tuple[int, str]] = []
    for line in output.splitlines():
        if match := _GROUP.match(line):
            depth = len(match[1])
            groups = [g for g in groups if g[0] < depth] + [(depth, match[2])]
        elif match := _CORPUS_CASE.match(line):
            where = "/".join(g[1] for g in groups) or "corpus"
            cases[f"tree-sitter test::{where}::{match[2]}"] = (_OUTCOMES[match[1]], "")
        elif match := _HIGHLIGHT_CASE.match(line):
            where = "/".join(g[1] for g in groups) or "highlight"
            name = renamed.get(match[2], match[2])
            cases[f"tree-sitter test::{where}::{name}"] = (_OUTCOMES[match[1]], "")
    if proc.returncode != 0 and not any(o == "failed" for o, _ in cases.values()):
        cases["tree-sitter test::(the run)"] = ("failed", f"exit {proc.returncode}")
    return cases


def stdlib_trees(cli: Path, python: str, tree: Path, patch: Path) -> tuple[str, str]:
    """(outcome, message) of the stock/patched comparison on PYTHON's standard library."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        stock = work / "stock"
        shutil.copytree(tree, stock, ignore=shutil.ignore_patterns("test", "prebuilds"))
        env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(work)}
        subprocess.run(["git", "apply", "-R", "--exclude=test/*", str(patch)], cwd=stock,
                       env=env, check=True, stdin=subprocess.DEVNULL)
        for name, source in (("stock", stock), ("patched", tree)):
            run([str(cli), "build", "--output", str(work / f"{name}.so"), "."], cwd=source)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        started = time.monotonic()
        proc = subprocess.run([python, "-c", _COMPARE, str(work / "stock.so"),
                               str(work / "patched.so"), _LATE_OPERATOR],
                              capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return "error", proc.stderr.strip()[-2000:]
    found = json.loads(proc.stdout)
    message = (f"{found['files']} files of {found['root']}: the patched grammar's tree of "
               "each is the stock grammar's of the file with each of its "
               f"{sum(found['late'].values())} late defaults' '=>' (in "
               f"{len(found['late'])} files) written '= ' "
               f"({time.monotonic() - started:.0f}s)")
    print(message, flush=True)
    if found["differ"] or not found["late"]:
        return "failed", f"{message}; not in: {found['differ'][:10]}"
    return "passed", message


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    python, junit, cache, patch = argv[0], Path(argv[1]), Path(argv[2]), Path(argv[3])
    tree = Path.cwd()
    cli = cli_path(cache)
    cases = tree_sitter_test(cli, tree, cache, tests_from_patch(patch, tree))
    cases["stdlib::trees of code without late defaults unchanged, and late defaults "
          "parsed"] = stdlib_trees(cli, python, tree, patch)
    return 1 if probekit.write_junit("tree-sitter-python", cases, junit) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
