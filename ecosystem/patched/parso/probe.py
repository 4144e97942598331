"""Ecosystem probe for parso: parse the shared corpus with parso's newest grammar.

In the venv of the interpreter under test, parso parses ``late_defaults.py``
with the newest grammar it ships (the highest ``parso/python/grammar3NN.txt``)
and the probe passes when:

- the tree gives back the source exactly (``module.get_code() == source``);
- parso's error finder (``grammar.iter_errors``) reports nothing;
- every function of the corpus is a ``funcdef`` in the tree, in order, every
  lambda a ``lambdef``, and each late default a parameter whose operator is
  ``=>``, as many as ``ast.LateDefault`` nodes in the corpus.

What the corpus holds is taken from ``ast`` of the interpreter under test, so
that interpreter must accept ``=>``.  Standard library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

# Run by the interpreter under test, with parso from its venv.
_SCRIPT = r'''
import ast, json, pathlib, re, sys

import parso

source = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")
try:
    expected = ast.parse(source)
except SyntaxError as e:
    print(json.dumps({"fatal": "the interpreter rejects the corpus: %s" % e}))
    sys.exit()
expected_functions = [
    node.name for node in sorted(
        (n for n in ast.walk(expected)
         if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
        key=lambda n: (n.lineno, n.col_offset))
]
expected_lambdas = sum(isinstance(n, ast.Lambda) for n in ast.walk(expected))
expected_late = sum(
    isinstance(d, ast.LateDefault)
    for n in ast.walk(expected) if isinstance(n, ast.arguments)
    for d in n.defaults + n.kw_defaults)

grammar_dir = pathlib.Path(parso.__file__).parent / "python"
versions = sorted(
    (int(m.group(1)), int(m.group(2)))
    for m in (re.fullmatch(r"grammar(\d)(\d+)\.txt", p.name) for p in grammar_dir.iterdir())
    if m)
version = "%d.%d" % versions[-1]
grammar = parso.load_grammar(version=version)
module = grammar.parse(source)
errors = [
    "%s at %d:%d" % (e.message, e.start_pos[0], e.start_pos[1])
    for e in grammar.iter_errors(module)]

functions, lambdas, late, error_nodes = [], 0, 0, 0
def walk(node):
    global lambdas, late, error_nodes
    if node.type == "funcdef":
        functions.append(node.name.value)
    elif node.type == "lambdef":
        lambdas += 1
    elif node.type == "param":
        late += any(child.type == "operator" and child.value == "=>"
                    for child in node.children)
    elif node.type == "error_node":
        error_nodes += 1
    for child in getattr(node, "children", ()):
        walk(child)
walk(module)

print(json.dumps({
    "version": version,
    "round_trip": module.get_code() == source,
    "errors": errors,
    "error_nodes": error_nodes,
    "functions": functions,
    "expected_functions": expected_functions,
    "lambdas": lambdas,
    "expected_lambdas": expected_lambdas,
    "late": late,
    "expected_late": expected_late,
}))
'''


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    result = probekit.run([python, "-c", _SCRIPT, corpus], workdir)
    r = probekit.last_json(result.stdout)
    if result.returncode != 0 or not isinstance(r, dict):
        return False, "parso did not run: %s" % probekit.error_line(result)
    if "fatal" in r:
        return False, r["fatal"]

    found = "%d of %d functions, %d of %d lambdas, %d of %d late defaults" % (
        sum(name in r["functions"] for name in r["expected_functions"]),
        len(r["expected_functions"]), r["lambdas"], r["expected_lambdas"],
        r["late"], r["expected_late"])
    passed = (r["round_trip"] and not r["errors"] and not r["error_nodes"]
              and r["functions"] == r["expected_functions"]
              and r["lambdas"] == r["expected_lambdas"]
              and r["late"] == r["expected_late"])
    if passed:
        return True, "grammar %s: %s found, no errors, get_code() round-trips" % (
            r["version"], found)
    problems = []
    if r["errors"]:
        more = len(r["errors"]) - 1
        problems.append("'%s'%s" % (r["errors"][0], " (+%d more)" % more if more else ""))
    if r["error_nodes"]:
        problems.append("%d error nodes" % r["error_nodes"])
    if not r["round_trip"]:
        problems.append("get_code() differs from the source")
    return False, "grammar %s: %s; %s found" % (r["version"], "; ".join(problems), found)
