"""What the probes of ecosystem/unpatched/ share: the late defaults of the corpus,
and a check that a tool's output shows each of them as written. The probes import it
as ``unpatched.signatures`` (ecosystem/ is on sys.path, as for probekit).

These tools print ``inspect.signature()``, which writes ``hi=>len(a)`` (annotated:
``target: list[int] => []``), so they need no patch; the probes keep it so. What to
expect is read from the corpus by the interpreter under test (with ``ast``), not
written down here. Standard library only.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import probekit

# Run by the interpreter under test: for each callable of the corpus that a
# documentation tool shows (module-level functions and lambdas, classes, their
# methods), its dotted name and how each late default must read, and how it
# must not (the early-default form, '=' for '=>').
_LIST = r"""
import ast, json, sys

module = ast.parse(open(sys.argv[1], encoding="utf-8").read())

def forms(args):
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    late = [(a, d) for a, d in pairs if isinstance(d, ast.LateDefault)]
    text = lambda d: ast.unparse(d.value)
    if_annotated = lambda a, sep: f"{a.arg}: {ast.unparse(a.annotation)} {sep} " \
        if a.annotation else f"{a.arg}{sep}"
    return ([if_annotated(a, "=>") + text(d) for a, d in late],
            [if_annotated(a, "=") + text(d) for a, d in late])

found = {}
for node in module.body:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found[node.name] = forms(node.args)
    elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        found[node.targets[0].id] = forms(node.value.args)
    elif isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = node.name if item.name == "__init__" else f"{node.name}.{item.name}"
                found[name] = forms(item.args)
print(json.dumps({name: f for name, f in found.items() if f[0]}))
"""


def late_defaults(python: str, corpus: pathlib.Path) -> dict[str, tuple[list[str], list[str]]]:
    """callable -> (its late defaults as they must read, as they must not)."""
    result = probekit.run([python, "-c", _LIST, corpus], timeout=120)
    if result.returncode != 0:
        raise RuntimeError("the interpreter cannot parse the corpus (is it the patched "
                           "one?): %s" % probekit.last_line(result.stderr, "?"))
    return {name: (late, early) for name, (late, early) in json.loads(result.stdout).items()}


def prepare(python: str, corpus: pathlib.Path, workdir: pathlib.Path
            ) -> tuple[dict[str, tuple[list[str], list[str]]], pathlib.Path]:
    """The corpus's late defaults (late_defaults()), and a directory in workdir holding a
    copy of the corpus to import as late_defaults (so that nothing is written beside
    the corpus itself)."""
    expected = late_defaults(python, corpus)
    src = workdir / "src"
    src.mkdir(parents=True, exist_ok=True)
    shutil.copy2(corpus, src / "late_defaults.py")
    return expected, src


def failure(tool: str, result: subprocess.CompletedProcess[str]) -> tuple[bool, str]:
    last = probekit.last_line(result.stderr, "no output")
    return False, f"{tool} failed (exit {result.returncode}): {last}"


def check(tool: str, shown: str, expected: dict[str, tuple[list[str], list[str]]],
          example: str) -> tuple[bool, str]:
    """Does the text the tool showed (whitespace folded) have every late default as
    written, and none as an early default? example: a line to quote on success."""
    shown = " ".join(shown.split())
    wanted = sum(len(late) for late, _ in expected.values())
    missing = [f"{name}: {form}" for name, (late, _) in expected.items()
               for form in late if form not in shown]
    early = [f"{name}: {form}" for name, (_, forms) in expected.items()
             for form in forms if form in shown]
    if missing or early:
        problems = []
        if missing:
            problems.append(f"{len(missing)} of {wanted} late defaults not shown as "
                            f"written, e.g. {missing[0]}")
        if early:
            problems.append(f"shown as early defaults: {', '.join(early[:3])}")
        return False, f"{tool}: " + "; ".join(problems)
    return True, (f"{tool}: all {wanted} late defaults of {len(expected)} callables "
                  f"shown as written, e.g. {example}")


def first_line_with(text: str, needle: str) -> str:
    return next((" ".join(line.split()) for line in text.splitlines() if needle in line),
                needle)


def run(cmd: list[str], workdir: pathlib.Path, **env: str) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, workdir, env=probekit.clean_env(**env))
