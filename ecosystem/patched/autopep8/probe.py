"""Ecosystem probe for autopep8: E731 turns a lambda with a late default into a def.

``autopep8 --select=E731`` (in the venv of the interpreter under test) runs on two
assignments of a lambda, ``early = lambda a, n=len: n(a)`` and
``late = lambda a, n=>len(a): n``: both must become a ``def``, the late one
``def late(a, n=>len(a)): return n``, and the output must parse on that interpreter. A
stock 2.3.2 rewrites the early one and leaves the late one: its LAMBDA_REGEX stops at
the '>' of '=>'. (The lambda of the shared corpus, ``lambda x, y=>x * x: y``, is left
alone by both: the regex has never matched a '*' in a default, early or late.)
Standard library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

__all__ = ["probe"]

SNIPPET = "early = lambda a, n=len: n(a)\nlate = lambda a, n=>len(a): n\n"
WANTED = ["def early(a, n=len): return n(a)", "def late(a, n=>len(a)): return n"]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    snippet = workdir / "lambdas.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    try:
        fixed = probekit.run([python, "-m", "autopep8", "--select=E731", snippet], workdir)
        if fixed.returncode != 0:
            return False, f"autopep8 failed: {probekit.error_line(fixed)}"[:300]
        out = workdir / "fixed.py"
        out.write_text(fixed.stdout, encoding="utf-8")
        parse = probekit.run(
            [python, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", out])
    except probekit.RUN_ERRORS as exc:
        return False, f"autopep8 did not run: {exc}"
    got = [line.strip() for line in fixed.stdout.splitlines() if line.strip()]
    if got != WANTED:
        wrong = next((g for g, w in zip(got, WANTED) if g != w), got)
        return False, f"autopep8 --select=E731 gave {wrong!r}"
    if parse.returncode != 0:
        return False, f"autopep8's output does not parse: {parse.stderr.strip()[-200:]}"
    return True, f"autopep8 --select=E731: {got[1]!r}, as for the early default; it parses"
