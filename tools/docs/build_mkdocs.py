"""Build the mkdocs page of `make docs`: examples/mkdocs/ into build/docs/mkdocs/.

The page documents examples/autodoc/sequences.py (the module of the Sphinx autodoc
page) with mkdocstrings-python and griffe's static analysis, patched
(ecosystem/patched/mkdocstrings-python/, ecosystem/patched/griffelib/), from build/ecosystem/venv
(made by ./python, see tools.ecosystem; it needs PyPI the first time), with
`mkdocs build --strict`. Then every signature on the page is read back from the HTML
and parsed as `def SIGNATURE: pass` by the venv's interpreter: each late-bound default
of the module must be there, late-bound, with its expression as written (compared by
AST), so a parameter such as `hi` in `bisect_right(a, x, lo=0, hi=>len(a), ...)` is
never shown without its default, as if it were required.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import sys
from pathlib import Path

from tools import ecosystem
from tools.paths import DOCS_OUT, PYTHON, REPO
from tools.common import (ToolError, built_python, exits_on_tool_error, rel, run, say,
                          scrubbed_env)

SITE = REPO / "examples" / "mkdocs"
MODULE = REPO / "examples" / "autodoc" / "sequences.py"
OUT = DOCS_OUT / "mkdocs"

_SIGNATURE = re.compile(r'<div class="doc-signature[^"]*">(.*?)</div>', re.S)

# Run by the venv's python: argv[1] the module, argv[2] a JSON list of the page's
# signatures. Prints JSON: {"late": N, "problems": [...]}.
_COMPARE = r"""
import ast, json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    tree = ast.parse(f.read())
rendered = {}
for text in json.loads(sys.argv[2]):
    rendered.setdefault(text.split("(", 1)[0].strip(), text)

def defaults(args):
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg: d for a, d in pairs}

late = []   # (name as rendered, parameter, ast dump of the default's expression)
def add(name, args):
    late.extend((name, p, ast.dump(d.value)) for p, d in defaults(args).items()
                if isinstance(d, ast.LateDefault))
for node in tree.body:
    if isinstance(node, ast.FunctionDef):
        add(node.name, node.args)
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                add(node.name if item.name == "__init__" else item.name, item.args)

problems = []
for name, parameter, dump in late:
    text = rendered.get(name)
    if text is None:
        problems.append(f"no signature for {name} on the page")
        continue
    try:
        args = ast.parse(f"def {text}: pass").body[0].args
    except SyntaxError as exc:
        problems.append(f"{text!r} does not parse: {exc.msg}")
        continue
    default = defaults(args).get(parameter)
    if default is None:
        problems.append(f"{text!r}: {parameter} is shown without its default, as required")
    elif not isinstance(default, ast.LateDefault):
        problems.append(f"{text!r}: {parameter} is shown with an early default")
    elif ast.dump(default.value) != dump:
        problems.append(f"{text!r}: {parameter}'s default is not the one of the source")
print(json.dumps({"late": len(late), "problems": problems}))
"""


def page_signatures(page: Path) -> list[str]:
    """The text of every rendered signature of the page, on one line each."""
    text = page.read_text(encoding="utf-8")
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", "", m)).split())
            for m in _SIGNATURE.findall(text)]


def check_signatures(vpy: Path, signatures: list[str]) -> tuple[int, list[str]]:
    """How many late defaults MODULE has, and what the signatures show wrong of them
    (read by vpy, an interpreter that parses `=>`)."""
    compare = run([vpy, "-c", _COMPARE, str(MODULE), json.dumps(signatures)],
                  capture=True, check=False, env=scrubbed_env())
    if compare.returncode != 0:
        raise ToolError(f"reading the signatures with {rel(vpy)} failed:\n{compare.stderr}")
    found = json.loads(compare.stdout)
    return found["late"], found["problems"]


def build_mkdocs(python: Path, out: Path = OUT) -> None:
    """The mkdocs page of examples/mkdocs/ with the patched tools, checked for `=>`;
    raises ToolError."""
    vpy, _ = ecosystem.prepare_venv(built_python(python), "patched",
                                    ecosystem.load_tools(), ecosystem.load_unpatched())
    say(f"mkdocs: mkdocs build --strict -f {rel(SITE)}/mkdocs.yml -d {rel(out)}")
    if out.exists():
        shutil.rmtree(out)
    result = run([vpy, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                  str(SITE / "mkdocs.yml"), "-d", str(out)],
                 check=False, env=scrubbed_env({"PYTHONDONTWRITEBYTECODE": "1"}))
    if result.returncode != 0:
        raise ToolError(f"mkdocs build --strict of {rel(SITE)} failed (its messages are above)")
    late, problems = check_signatures(vpy, page_signatures(out / "index.html"))
    if not late or problems:
        raise ToolError(f"{rel(out)}/index.html does not show the {late} late defaults "
                        f"of {rel(MODULE)} as written: is mkdocstrings-python/griffe in "
                        f"{rel(vpy)} the patched one?"
                        + "".join(f"\n  {problem}" for problem in problems))
    say(f"mkdocs: {rel(out)}/index.html, {late} late defaults shown as `=>`")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tools.docs.build_mkdocs",
                                     description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", type=Path, default=PYTHON,
                        help="the patched interpreter (default: ./python)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help=f"where the site goes (default: {rel(OUT)})")
    args = parser.parse_args(argv)
    build_mkdocs(args.python, args.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
