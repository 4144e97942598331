"""Ecosystem probe for ruff: lint and format the shared corpus.

ruff (a Rust binary; ``python -m ruff`` of the venv runs it) must, with no
configuration (``--isolated``, no cache):

1. ``ruff check`` the shared corpus ``late_defaults.py`` with the pyflakes rules
   and B006/B008 (mutable default, call in a default) and report nothing: no syntax
   error, no F821 for a late default that reads a parameter, ``self`` or
   ``__class__``, no B006/B008 for ``=>[]`` or ``=>time.time()``;
2. ``ruff check`` ``late_defaults_lint.py``: F821 exactly on the lines whose comment
   names undefined-variable or used-before-assignment (a late default runs in the
   function's scope before the body, and a class body is not visible from it), and
   B006 exactly on the line that names dangerous-default-value (an early ``=[]``);
3. ``ruff format`` a copy of the corpus: the output must parse on the interpreter
   under test to the same AST (``ast.dump``) as the corpus, and ``ruff format
   --check`` must leave it as it is (idempotence).

Standard library only; no network.
"""

from __future__ import annotations

import difflib
import json
import os
import pathlib
import re
import shutil
import subprocess

# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment|dangerous-default-value)")
_SELECT = "F,B006,B008"
# Run by the interpreter under test: do the two files parse to the same AST?
_SAME_AST = (
    "import ast, sys\n"
    "a, b = (ast.dump(ast.parse(open(p, encoding='utf-8').read())) for p in sys.argv[1:])\n"
    "sys.exit(0 if a == b else 'the formatted corpus has a different AST')\n"
)


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "RUFF_"))}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env=env, stdin=subprocess.DEVNULL)


def _check(python: str, path: pathlib.Path, cwd: pathlib.Path) -> list[dict] | str:
    """ruff check's diagnostics for path, or a line saying why there are none."""
    proc = _run([python, "-m", "ruff", "check", "--isolated", "--no-cache", "--select",
                 _SELECT, "--output-format", "json", "--exit-zero", str(path)], cwd)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        err = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}, no output"])
        return f"ruff check failed: {err[-1][:300]}"


def _shown(diagnostic: dict) -> str:
    """'12:32 invalid-syntax: Expected ...' for a diagnostic of ruff's JSON output."""
    where = diagnostic.get("location") or {}
    code = diagnostic.get("code") or "invalid-syntax"
    return f"{where.get('row')}:{where.get('column')} {code}: {diagnostic.get('message')}"


def _expected(lint_file: pathlib.Path) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(lint_file.read_text(encoding="utf-8").splitlines(), 1):
        match = _MARK.search(line)
        if match and line.lstrip().startswith("def "):
            found.add((number, "B006" if match[1] == "dangerous-default-value" else "F821"))
    return found


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    if os.sep in python:
        python = os.path.abspath(python)
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / "late_defaults.py"
    lint_file = corpus.with_name("late_defaults_lint.py")
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    version = _run([python, "-m", "ruff", "--version"], workdir).stdout.strip() or "ruff"

    found = _check(python, corpus, workdir)
    if isinstance(found, str):
        return False, found
    if found:
        return False, (f"{version}: ruff check --select {_SELECT} {corpus.name}: "
                       f"{len(found)} diagnostic(s), first {_shown(found[0])}")

    found = _check(python, lint_file, workdir)
    if isinstance(found, str):
        return False, found
    got = {((d.get("location") or {}).get("row"), d.get("code") or "invalid-syntax")
           for d in found}
    want = _expected(lint_file)
    if got != want:
        extra = sorted(got - want, key=str)
        missing = sorted(want - got, key=str)
        return False, (f"{version}: ruff check {lint_file.name}: unexpected {extra}, "
                       f"missing {missing}")

    formatted = workdir / corpus.name
    shutil.copyfile(corpus, formatted)
    proc = _run([python, "-m", "ruff", "format", "--isolated", "--no-cache", str(formatted)],
                workdir)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"]
        return False, f"{version}: ruff format {corpus.name}: {err[0][:300]}"
    # ruff's style is black's but not always to the line (it puts a blank line after a
    # nested function): the lines it changes are counted, not judged
    changed = sum(1 for line in difflib.unified_diff(
        corpus.read_text(encoding="utf-8").splitlines(),
        formatted.read_text(encoding="utf-8").splitlines(), n=0)
        if line[:1] in "+-" and line[:3] not in ("+++", "---"))
    same = _run([python, "-c", _SAME_AST, str(corpus), str(formatted)], workdir)
    if same.returncode != 0:
        return False, f"{version}: ruff format: {same.stderr.strip()[-300:]}"
    again = _run([python, "-m", "ruff", "format", "--isolated", "--no-cache", "--check",
                  str(formatted)], workdir)
    if again.returncode != 0:
        return False, f"{version}: ruff format is not idempotent on {corpus.name}"
    return True, (f"{version}: ruff check --select {_SELECT}: {corpus.name} clean, "
                  f"{lint_file.name} F821/B006 on exactly the {len(want)} marked lines; "
                  f"ruff format: {changed} line(s) of the corpus changed, same AST, "
                  "idempotent")
