"""Ecosystem probe for griffe (griffelib): late-bound defaults, statically and dynamically.

griffe, in the venv of the interpreter under test, loads the shared corpus
``late_defaults.py`` twice: by static analysis of its source (griffe's default, the
one mkdocstrings uses) and by inspection of the imported module
(``force_inspection=True``). For every late-bound default of a module-level
function or a method of a module-level class, the parameter must

- not be required (a stock griffe leaves its default empty in static mode, so the
  parameter reads as required, and logs ``Failed to get expression from LateDefault``);
- carry the expression as its default: the same expression as the source's, compared
  by AST (a stock griffe gives ``<late default: len(a)>``, the ``repr``, in dynamic
  mode);
- be marked late-bound, so that ``Function.signature()`` shows ``hi=>len(a)``.

What to expect is read from the corpus with ``ast`` by the venv's interpreter.
Standard library only; no network.
"""

from __future__ import annotations

import os
import pathlib

import probekit

__all__ = ["probe"]

_TIMEOUT = 600

# Run by the venv's python: argv[1] is the directory of the corpus, argv[2] its
# module name. Prints JSON: {"expected": [...], "static": {...}, "dynamic": {...}}.
_CHECK = r"""
import ast, io, json, logging, sys
directory, name = sys.argv[1], sys.argv[2]
import griffe

with open(f"{directory}/{name}.py", encoding="utf-8") as f:
    tree = ast.parse(f.read())

def late(args):
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return [(a.arg, d.value) for a, d in pairs if isinstance(d, ast.LateDefault)]

expected = []   # [path, parameter, ast dump of the default]
for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        expected += [[node.name, p, ast.dump(v)] for p, v in late(node.args)]
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                expected += [[f"{node.name}.{item.name}", p, ast.dump(v)]
                             for p, v in late(item.args)]

def same_expression(text, dump):
    try:
        return ast.dump(ast.parse(text, mode="eval").body) == dump
    except SyntaxError:
        return False

result = {"expected": len(expected)}
for mode, force in (("static", False), ("dynamic", True)):
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logging.getLogger("griffe").addHandler(handler)
    try:
        module = griffe.load(name, search_paths=[directory], force_inspection=force,
                             resolve_aliases=False)
    finally:
        logging.getLogger("griffe").removeHandler(handler)
    problems = []
    shown = []
    for path, parameter, dump in expected:
        function = module[path]
        p = function.parameters[parameter]
        text = None if p.default is None else str(p.default)
        late_bound = getattr(p, "late_bound", None)
        if p.required:
            problems.append(f"{path}({parameter}): required (default {text!r})")
        elif not same_expression(text, dump):
            problems.append(f"{path}({parameter}): default {text!r}")
        elif late_bound is not True:
            problems.append(f"{path}({parameter}): default {text!r}, not marked late-bound"
                            + (" (griffe has no Parameter.late_bound)" if late_bound is None else ""))
        else:
            signature = function.signature()
            wanted = (f"{parameter}: {p.annotation} => {text}" if p.annotation is not None
                      else f"{parameter}=>{text}")
            if wanted not in signature:
                problems.append(f"{path}: signature {signature!r} lacks {wanted!r}")
            elif path == "bisect_right":
                shown.append(signature)
    logged = [line for line in log.getvalue().splitlines() if "LateDefault" in line]
    result[mode] = {"problems": problems, "shown": shown, "logged": logged[:1]}
print(json.dumps(result))
"""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    # no __pycache__ beside the corpus (dynamic mode)
    env = probekit.clean_env(PYTHONDONTWRITEBYTECODE="1")
    try:
        proc = probekit.run([python, "-c", _CHECK, corpus.parent, corpus.stem], workdir,
                            env=env, timeout=_TIMEOUT)
    except probekit.RUN_ERRORS as exc:
        return False, f"griffe did not run: {exc}"
    result = probekit.last_json(proc.stdout)
    if proc.returncode != 0 or not isinstance(result, dict):
        return False, f"griffe failed: {probekit.error_line(proc)}"[:300]
    count = result["expected"]
    if not count:
        return False, f"no late default found in {corpus.name}"
    notes = []
    for mode in ("static", "dynamic"):
        found = result[mode]
        if found["problems"]:
            note = (f"{mode}: {len(found['problems'])} of {count} late defaults wrong, "
                    f"e.g. {found['problems'][0]}")
            if found["logged"]:
                logged = found["logged"][0].strip().replace(f"{corpus.parent}{os.sep}", "")
                note += f"; logged {logged!r}"
            notes.append(note)
    if notes:
        return False, "; ".join(notes)[:600]
    shown = result["static"]["shown"]
    return True, (f"static and dynamic: all {count} late defaults of {corpus.name} have their "
                  f"expression, are not required and marked late-bound; "
                  f"signature {shown[0] if shown else '?'}")
