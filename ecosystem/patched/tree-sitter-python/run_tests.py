"""The tests of the tree-sitter-python patch, as a JUnit XML report.

pin.toml's [test] commands run this at the top of the patched tree:

    python3 run_tests.py PYTHON JUNIT CACHE PATCH

1. `tree-sitter test` (the CLI of build.py, from CACHE): the corpus cases of
   test/corpus/ and the highlight assertions of test/highlight/ that the tree holds
   (the patch adds late_defaults.txt and late_defaults.py; the npm tarball ships no
   other test, see README.md);
2. the standard library of PYTHON (a venv of the patched interpreter, whose tests use
   '=>') parsed by the patched grammar, against the stock one (this tree with PATCH
   reversed, built here) on the same files with each '=>' token of the patched tree
   written '= ' (an early default, at the same offsets): every tree (S-expression) must
   be the same, so late defaults parse as early ones do and nothing else changes.

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
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import cli_path, run  # noqa: E402  (build.py of this directory)

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_GROUP = re.compile(r"^(\s*)(\S.*):$")
_CORPUS_CASE = re.compile(r"^\s*\d+\. ([✓✗⌀]) (.+?)\s*$")
_HIGHLIGHT_CASE = re.compile(r"^\s*([✓✗]) (\S+)(?: \(\d+ assertions\))?\s*$")
_OUTCOMES = {"✓": "passed", "✗": "failed", "⌀": "skipped"}

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
arrow = ts.QueryCursor(ts.Query(language(sys.argv[2]), '"=>" @arrow'))
# where os.py is: sysconfig names the install prefix, which a build not installed lacks
root = pathlib.Path(os.__file__).parent
files, late, differ = 0, {}, []
for path in sorted(root.rglob("*.py")):
    if "site-packages" in path.parts:
        continue
    source = path.read_bytes()
    files += 1
    tree = patched.parse(source).root_node
    # each '=>' token of the patched tree written '= ' (same offsets): an early default
    # where it has a late one; any other '=>' (in a string, a format spec) stays
    early = bytearray(source)
    for node in arrow.captures(tree).get("arrow", []):
        early[node.start_byte:node.end_byte] = b"= "
        late[str(path.relative_to(root))] = late.get(str(path.relative_to(root)), 0) + 1
    if str(tree) != str(stock.parse(bytes(early)).root_node):
        differ.append(str(path.relative_to(root)))
print(json.dumps({"root": str(root), "files": files, "late": late, "differ": differ}))
"""


def tree_sitter_test(cli: Path, tree: Path, cache: Path) -> dict[str, tuple[str, str]]:
    """test id -> (outcome, message) of `tree-sitter test` in tree."""
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
            cases[f"tree-sitter test::{where}::{match[2]}"] = (_OUTCOMES[match[1]], "")
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
                               str(work / "patched.so")], capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return "error", proc.stderr.strip()[-2000:]
    found = json.loads(proc.stdout)
    message = (f"{found['files']} files of {found['root']}: the patched grammar's tree of "
               "each is the stock grammar's of the file with each of its "
               f"{sum(found['late'].values())} '=>' tokens (in {len(found['late'])} files) "
               f"written '= ' ({time.monotonic() - started:.0f}s)")
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
    cases = tree_sitter_test(cli, tree, cache)
    cases["stdlib::trees of code without late defaults unchanged, and late defaults "
          "parsed"] = stdlib_trees(cli, python, tree, patch)
    suite = ET.Element("testsuite", name="tree-sitter-python", tests=str(len(cases)))
    for name, (outcome, message) in cases.items():
        classname, _, case_name = name.rpartition("::")
        case = ET.SubElement(suite, "testcase", classname=classname, name=case_name)
        if outcome == "failed":
            ET.SubElement(case, "failure", message=message)
        elif outcome in ("skipped", "error"):
            ET.SubElement(case, outcome, message=message)
    junit.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(junit, encoding="utf-8", xml_declaration=True)
    failed = sum(1 for outcome, _ in cases.values() if outcome in ("failed", "error"))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
