"""Ecosystem probe for Sphinx: late-bound defaults render as written.

Builds the tiny Sphinx project in ``ecosystem/corpus/sphinx/`` (autodoc
of the shared corpus module, plus one signature written by hand with ``=>``)
to HTML with warnings as errors, and checks the signature of every documented
callable: each late-bound default must read ``name=>text`` (``name: T => text``
when annotated), and none may read ``name=text``, the early-default rendering
that hides what ``=>`` means.

What to expect is read from the sources, not written down here: the
interpreter of the venv parses the corpus module and the hand-written
signatures with ``ast`` and lists their late-bound defaults.
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil

import probekit

__all__ = ["probe"]

_TIMEOUT = 600

# Run by the venv's interpreter (it must have ast.LateDefault): argv[1] is the
# corpus module, argv[2] the index.rst of the project.  Prints a JSON list of
# [where, parameter, annotation or null, text] for every late-bound default of
# a callable that autodoc documents (module-level functions and lambdas, the
# methods of module-level classes, a class's __init__ as the class itself) and
# of every ".. py:function::" written in index.rst.
_LIST_LATE_DEFAULTS = r"""
import ast, json, re, sys

def late_defaults(where, args):
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):],
                     args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)
              if d is not None]
    return [[where, arg.arg,
             ast.unparse(arg.annotation) if arg.annotation else None,
             ast.unparse(default.value)]
            for arg, default in pairs if isinstance(default, ast.LateDefault)]

found = []
with open(sys.argv[1], encoding="utf-8") as f:
    module = ast.parse(f.read())
for node in module.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found += late_defaults(node.name, node.args)
    elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda)
          and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        found += late_defaults(node.targets[0].id, node.value.args)
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = node.name
                if item.name != "__init__":
                    where += "." + item.name
                found += late_defaults(where, item.args)
with open(sys.argv[2], encoding="utf-8") as f:
    for sig in re.findall(r"^\.\. py:function:: (.+)$", f.read(), re.M):
        func = ast.parse("def " + sig + ": pass").body[0]
        found += late_defaults(func.name, func.args)
print(json.dumps(found))
"""

_SIGNATURE = re.compile(
    r'<dt class="sig sig-object py" id="(?P<id>[^"]+)">(?P<body>.*?)</dt>', re.S
)


def _warnings(output: str) -> list[str]:
    """The warning lines of sphinx-build, those about late defaults first."""
    found = [line.strip() for line in output.splitlines()
             if "WARNING" in line or "ERROR" in line]
    return sorted(found, key=lambda line: "LateDefault" not in line)


def probe(
    python: str, corpus: pathlib.Path, workdir: pathlib.Path
) -> tuple[bool, str]:
    """Build the corpus project with Sphinx from the venv of *python*.

    *corpus* is the shared corpus module ``late_defaults.py`` or the directory
    holding it; the Sphinx project is the ``sphinx`` directory beside it.
    Returns (passed, evidence).
    """
    python, module, workdir = probekit.paths(python, corpus, workdir)
    project = module.with_name("sphinx")
    for needed in (module, project / "conf.py", project / "index.rst"):
        if not needed.is_file():
            return False, f"missing corpus file {needed}"

    # Build from a copy, so that nothing (bytecode, build output) is written
    # into the corpus; conf.py finds the module in the directory above it.
    src = workdir / "src"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(project, src / "sphinx")
    shutil.copy2(module, src / "late_defaults.py")
    out = workdir / "html"
    if out.exists():
        shutil.rmtree(out)

    env = probekit.clean_env(PYTHONDONTWRITEBYTECODE="1")

    listed = probekit.run(
        [python, "-c", _LIST_LATE_DEFAULTS, src / "late_defaults.py",
         src / "sphinx" / "index.rst"],
        env=env, timeout=_TIMEOUT,
    )
    if listed.returncode != 0:
        return False, (
            "the venv's interpreter cannot list the corpus's late defaults "
            f"(is it the patched one?): {probekit.last_line(listed.stderr)}"
        )
    expected = json.loads(listed.stdout)
    if not expected:
        return False, "no late-bound defaults found in the corpus"

    build = probekit.run(
        [python, "-m", "sphinx", "-W", "-q", "-b", "html",
         "-d", workdir / "doctrees", src / "sphinx", out],
        env=env, timeout=_TIMEOUT,
    )
    warnings = _warnings((build.stderr + build.stdout).replace(f"{src}/", ""))
    if not (out / "index.html").is_file():
        return False, (
            "sphinx-build -W failed, no HTML: "
            f"{warnings[0] if warnings else probekit.last_line(build.stderr)}"
        )

    signatures: dict[str, str] = {}
    for match in _SIGNATURE.finditer((out / "index.html").read_text("utf-8")):
        signatures[match["id"]] = probekit.html_text(match["body"]).rstrip("¶").strip()

    def signature_of(where: str) -> str | None:
        # autodoc and the hand-written signature are both in the module's scope
        return signatures.get(f"{module.stem}.{where}", signatures.get(where))

    wrong = []
    shown = ""
    for where, name, annotation, text in expected:
        rendered = signature_of(where)
        if rendered is None:
            wrong.append(f"{where}: no signature in the HTML")
            continue
        if annotation is None:
            late, early = f"{name}=>{text}", f"{name}={text}"
        else:
            late = f"{name}: {annotation} => {text}"
            early = f"{name}: {annotation} = {text}"
        if late not in rendered or early in rendered:
            wrong.append(f"{rendered} (wanted {late!r})")
        elif where == "bisect_right":
            shown = rendered

    evidence = []
    if build.returncode != 0 or warnings:
        first = f", first: {warnings[0]}" if warnings else ""
        evidence.append(
            f"sphinx-build -W exited {build.returncode} "
            f"with {len(warnings)} warnings{first}"
        )
    if wrong:
        evidence.append(
            f"{len(wrong)} of {len(expected)} late defaults not shown as "
            f"written, e.g. {wrong[0]}"
        )
    if evidence:
        return False, "; ".join(evidence)
    places = len({where for where, *_ in expected})
    return True, (
        f"sphinx-build -W ok; all {len(expected)} late defaults in {places} "
        f"signatures read 'name=>text', e.g. {shown or expected[0][0]}"
    )
