"""Ecosystem probe for mkdocstrings-python: `mkdocs build --strict` renders `=>`.

Builds, in the venv of the interpreter under test, a one-page MkDocs site whose page
is ``::: late_defaults``, the shared corpus, documented by mkdocstrings-python (griffe's
static analysis, separate signatures with annotations, ``__init__`` merged into its
class) with ``mkdocs build --strict``. Then every rendered signature of a function,
method or class is read back from the HTML and parsed as ``def SIGNATURE: pass`` by
the venv's interpreter: each late-bound default of the corpus must be there, late-bound,
with the same expression (compared by AST). A stock release renders
``bisect_right(a, x, lo=0, hi, *, key=None)``, which does not even parse.

Standard library only; no network.
"""

from __future__ import annotations

import json
import os
import pathlib
import re

import probekit

__all__ = ["probe"]

_TIMEOUT = 600

_CONFIG = """\
site_name: late defaults
docs_dir: docs
plugins:
  - mkdocstrings:
      handlers:
        python:
          paths: [{paths}]
          options:
            separate_signature: true
            show_signature_annotations: true
            merge_init_into_class: true
            show_root_heading: true
            show_if_no_docstring: true
"""

# Run by the venv's python: argv[1] the corpus, argv[2] a JSON list of the rendered
# signatures. Prints JSON: {"expected": N, "problems": [...], "example": str}.
_COMPARE = r"""
import ast, json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    tree = ast.parse(f.read())
rendered = {}
for text in json.loads(sys.argv[2]):
    rendered.setdefault(text.split("(", 1)[0].strip(), text)

def late(args):
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg: d for a, d in pairs if d is not None}

expected = []   # (name as rendered, parameter, ast dump of its late default)
def add(name, args):
    expected.extend((name, p, ast.dump(d.value)) for p, d in late(args).items()
                    if isinstance(d, ast.LateDefault))
for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        add(node.name, node.args)
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                add(node.name if item.name == "__init__" else item.name, item.args)

problems, example = [], rendered.get("bisect_right", "")
for name, parameter, dump in expected:
    text = rendered.get(name)
    if text is None:
        problems.append(f"no signature rendered for {name}")
        continue
    try:
        args = ast.parse(f"def {text}: pass").body[0].args
    except SyntaxError as exc:
        problems.append(f"{text!r} does not parse: {exc.msg}")
        continue
    default = late(args).get(parameter)
    if default is None:
        problems.append(f"{text!r}: {parameter} has no default")
    elif not isinstance(default, ast.LateDefault):
        problems.append(f"{text!r}: {parameter} has an early default")
    elif ast.dump(default.value) != dump:
        problems.append(f"{text!r}: {parameter}=>{ast.unparse(default.value)} is not the source's")
print(json.dumps({"expected": len(expected), "problems": problems, "example": example}))
"""

_SIGNATURE = re.compile(r'<div class="doc-signature[^"]*">(.*?)</div>', re.S)


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    (workdir / "docs").mkdir(parents=True, exist_ok=True)
    (workdir / "mkdocs.yml").write_text(_CONFIG.format(paths=json.dumps(str(corpus.parent))),
                                        encoding="utf-8")
    (workdir / "docs" / "index.md").write_text(f"# Late defaults\n\n::: {corpus.stem}\n",
                                               encoding="utf-8")
    try:
        build = probekit.run([python, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                              "mkdocs.yml", "-d", "site"], workdir, timeout=_TIMEOUT)
    except probekit.RUN_ERRORS as exc:
        return False, f"mkdocs did not run: {exc}"
    if build.returncode != 0:
        lines = [line.strip() for line in build.stderr.splitlines() if line.strip()]
        first = next((line for line in lines if "WARNING" in line or "Error" in line),
                     lines[-1] if lines else f"exit {build.returncode}")
        return False, f"mkdocs build --strict: {first.replace(str(corpus.parent) + os.sep, '')}"[:300]
    page = (workdir / "site" / "index.html").read_text(encoding="utf-8")
    signatures = [probekit.html_text(m) for m in _SIGNATURE.findall(page)]
    compare = probekit.run([python, "-c", _COMPARE, corpus, json.dumps(signatures)],
                           timeout=_TIMEOUT)
    if compare.returncode != 0:
        return False, f"reading the signatures failed: {compare.stderr.strip()[-300:]}"
    result = json.loads(compare.stdout)
    if not result["expected"]:
        return False, f"no late default found in {corpus.name}"
    if result["problems"]:
        return False, (f"mkdocs build --strict passed, but {len(result['problems'])} of "
                       f"{result['expected']} late defaults are rendered wrong, e.g. "
                       f"{result['problems'][0]}")[:400]
    return True, (f"mkdocs build --strict: all {result['expected']} late defaults rendered "
                  f"as written, e.g. {result['example']}")
