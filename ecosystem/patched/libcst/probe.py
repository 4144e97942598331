"""Ecosystem probe for libcst: parse the shared corpus into a concrete syntax tree.

In the venv of the interpreter under test, libcst (its native parser, the only
one 1.9 uses) parses ``late_defaults.py`` and the probe passes when:

- the tree gives back the source byte for byte (``parse_module(src).code == src``);
- every late default of the corpus is a ``Param`` whose ``equal`` is an
  ``AssignArrow``, in the order ``ast`` gives them (as many, with the same names),
  and no other parameter has one;
- a codemod works on them: a ``CSTTransformer`` that renames every late-bound
  parameter leaves the other parameters as they were, and its output parses;
- libcst.matchers finds the late defaults (``m.Param(equal=m.AssignArrow())``).

What the corpus holds is taken from ``ast`` of the interpreter under test, so
that interpreter must accept ``=>``.  Standard library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

# Run by the interpreter under test, with libcst from its venv.
_SCRIPT = r'''
import ast, json, pathlib, sys

source = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")
try:
    tree = ast.parse(source)
except SyntaxError as e:
    print(json.dumps({"fatal": "the interpreter rejects the corpus: %s" % e}))
    sys.exit()


def late_names(node):
    args = node.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return [(a.lineno, a.col_offset, a.arg) for a, d in pairs
            if isinstance(d, ast.LateDefault)]


expected = sorted(
    item for node in ast.walk(tree)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    for item in late_names(node))
expected = [name for _, _, name in expected]

import libcst as cst
import libcst.matchers as m

try:
    module = cst.parse_module(source)
except cst.ParserSyntaxError as e:
    print(json.dumps({"fatal": "libcst.parse_module: ParserSyntaxError: %s" % e.message}))
    sys.exit()


class Params(cst.CSTVisitor):
    def __init__(self):
        self.late, self.other = [], 0

    def visit_Param(self, node):
        if type(node.equal).__name__ == "AssignArrow":
            self.late.append(node.name.value)
        else:
            self.other += 1


class Rename(cst.CSTTransformer):
    def leave_Param(self, original, updated):
        if type(updated.equal).__name__ == "AssignArrow":
            return updated.with_changes(name=cst.Name("late_" + updated.name.value))
        return updated


params = Params()
module.visit(params)
renamed = module.visit(Rename()).code
again = Params()
cst.parse_module(renamed).visit(again)
matched = []
if hasattr(m, "AssignArrow"):
    matched = [p.name.value for p in m.findall(module, m.Param(equal=m.AssignArrow()))]
print(json.dumps({
    "version": cst.__version__ if hasattr(cst, "__version__") else "?",
    "round_trip": module.code == source,
    "expected": expected,
    "late": params.late,
    "other": params.other,
    "renamed": again.late,
    "renamed_other": again.other,
    "matched": matched,
}))
'''


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    try:
        proc = probekit.run([python, "-c", _SCRIPT, corpus], workdir)
    except probekit.RUN_ERRORS as exc:
        return False, f"libcst did not run: {exc}"
    data = probekit.last_json(proc.stdout)
    if proc.returncode != 0 or not isinstance(data, dict):
        err = probekit.last_line(proc.stderr, "no output")
        return False, f"libcst failed (exit {proc.returncode}): {err}"
    if "fatal" in data:
        return False, data["fatal"]
    expected, late = data["expected"], data["late"]
    problems = []
    if not data["round_trip"]:
        problems.append("parse_module(src).code != src")
    if late != expected:
        problems.append(f"late-bound Params {late}, ast has {expected}")
    if data["renamed"] != [f"late_{name}" for name in expected] \
            or data["renamed_other"] != data["other"]:
        problems.append(f"a transformer renaming them gave {data['renamed']}")
    if data["matched"] != expected:
        problems.append(f"m.Param(equal=m.AssignArrow()) found {data['matched']}")
    if problems:
        return False, "; ".join(problems)
    return True, (f"parse_module(src).code == src; {len(late)} Params with AssignArrow "
                  f"({', '.join(late[:4])}, ...) = ast.LateDefault's, {data['other']} others; "
                  "a transformer renamed them; matchers find them")
