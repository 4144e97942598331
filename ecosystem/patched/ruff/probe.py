"""Ecosystem probe for ruff: lint and format the shared corpus.

ruff (a Rust binary; ``python -m ruff`` of the venv runs it) must, with no
configuration (``--isolated``, no cache):

1. ``ruff check --target-version py315`` the shared corpus ``late_defaults.py``
   with the pyflakes rules, B006/B008 and PLE0118/PLW0602, and report exactly one syntax error per
   late default (the corpus's ``ast.LateDefault`` nodes, counted by the interpreter
   under test), each saying that late-bound defaults need Python 3.16: ruff gates
   new syntax on the target version, and no released Python has ``=>``;
2. ``ruff check --target-version py316`` the same and report nothing: no syntax
   error, no F821 for a late default that reads a parameter, ``self`` or
   ``__class__``, no B006/B008 for ``=>[]`` or ``=>time.time()``, no PLE0118 or
   PLW0602 for a default that reads a name the body declares ``global`` (the
   declaration applies to it); nor on the two files where ``=> ...`` is a placeholder
   (``probekit.PLACEHOLDER_FILES``);
3. ``ruff check`` ``late_defaults_lint.py``: F821 exactly on the lines whose comment
   names undefined-variable or used-before-assignment (a late default runs in the
   function's scope before the body, and a class body is not visible from it), and
   B006 exactly on the line that names dangerous-default-value (an early ``=[]``);
4. two cases of the review of the patch, tried as a user would: B023 on a late
   default that reads a loop variable (``for i in ...: def k(x=>i)``), and a syntax
   error for a ``yield`` in the first iterable of a comprehension in a late default,
   which CPython rejects;
5. ``ruff format`` a copy of the corpus: the output must parse on the interpreter
   under test to the same AST (``ast.dump``) as the corpus, and ``ruff format
   --check`` must leave it as it is (idempotence).

Standard library only; no network.
"""

from __future__ import annotations

import difflib
import json
import pathlib
import re
import shutil
import subprocess

import probekit

# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment|dangerous-default-value)")
# PLE0118 and PLW0602 judge `global`, whose declaration in a body applies to the late
# defaults (the corpus's count_call): neither may report it.
_SELECT = "F,B006,B008,PLE0118,PLW0602"
# The first version that could have `=>`; ruff's gate reports it on older targets.
_TARGET = "py316"
_GATE = "Cannot use late-bound parameter defaults on Python 3.15"
# Run by the interpreter under test: how many late defaults has the file?
_COUNT_LATE = (
    "import ast, sys\n"
    "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())\n"
    "print(sum(isinstance(node, ast.LateDefault) for node in ast.walk(tree)))\n"
)
# Two cases of the review of the patch: (code, line, source) where ruff must report code
# on that line and nothing else.
_REVIEW_CASES = [
    ("B023", 2, "for i in range(3):\n    def k(x=>i):\n        return x\n"),
    ("invalid-syntax", 1, "def n(a, b=>[x for x in (yield)]):\n    return b\n"),
]


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, env=probekit.clean_env("RUFF_"), timeout=600)


def _check(python: str, path: pathlib.Path, cwd: pathlib.Path, select: str = _SELECT,
           target: str = _TARGET) -> list[dict] | str:
    """ruff check's diagnostics for path, or a line saying why there are none."""
    proc = _run([python, "-m", "ruff", "check", "--isolated", "--no-cache", "--select",
                 select, "--target-version", target, "--output-format", "json",
                 "--exit-zero", str(path)], cwd)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return f"ruff check failed: {probekit.error_line(proc)[:300]}"


def _shown(diagnostic: dict) -> str:
    """'12:32 invalid-syntax: Expected ...' for a diagnostic of ruff's JSON output."""
    where = diagnostic.get("location") or {}
    code = diagnostic.get("code") or "invalid-syntax"
    return f"{where.get('row')}:{where.get('column')} {code}: {diagnostic.get('message')}"


def _expected(lint_file: pathlib.Path) -> set[tuple[int, str]]:
    return {(number, "B006" if match[1] == "dangerous-default-value" else "F821")
            for number, match in probekit.marked_lines(lint_file, _MARK).items()
            if match.string.lstrip().startswith("def ")}


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    lint_file = corpus.with_name("late_defaults_lint.py")
    version = _run([python, "-m", "ruff", "--version"], workdir).stdout.strip() or "ruff"

    late = int(_run([python, "-c", _COUNT_LATE, str(corpus)], workdir).stdout or 0)
    found = _check(python, corpus, workdir, target="py315")
    if isinstance(found, str):
        return False, found
    gated = [d for d in found if (d.get("message") or "").startswith(_GATE)]
    if len(gated) != len(found) or len(found) != late:
        first = next((d for d in found if d not in gated), found[0] if found else None)
        return False, (f"{version}: ruff check --target-version py315 {corpus.name}: "
                       f"{len(found)} diagnostic(s) for {late} late defaults"
                       + (f", first {_shown(first)}" if first else ""))

    for path in (corpus, *map(corpus.with_name, probekit.PLACEHOLDER_FILES)):
        found = _check(python, path, workdir)
        if isinstance(found, str):
            return False, found
        if found:
            return False, (f"{version}: ruff check --select {_SELECT} {path.name}: "
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

    for number, (code, line, source) in enumerate(_REVIEW_CASES, 1):
        case = workdir / f"review_{number}.py"
        case.write_text(source, encoding="utf-8")
        found = _check(python, case, workdir, select="B023")
        if isinstance(found, str):
            return False, found
        got = sorted({((d.get("location") or {}).get("row"), d.get("code") or "invalid-syntax")
                      for d in found}, key=str)
        if got != [(line, code)]:
            shown = source.splitlines()[line - 1].strip()
            return False, (f"{version}: ruff check --select B023 on `{shown}`: got {got}, "
                           f"expected {code} on line {line}")

    formatted = workdir / corpus.name
    shutil.copyfile(corpus, formatted)
    proc = _run([python, "-m", "ruff", "format", "--isolated", "--no-cache", str(formatted)],
                workdir)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"]
        return False, f"{version}: ruff format {corpus.name}: {err[0][:300]}"
    # ruff's style is black's but not always to the line (it puts a blank line after a
    # nested function): the lines it changes are counted, not judged
    changed = len(probekit.changed_lines("\n".join(difflib.unified_diff(
        corpus.read_text(encoding="utf-8").splitlines(),
        formatted.read_text(encoding="utf-8").splitlines(), n=0, lineterm=""))))
    different = probekit.same_ast(python, corpus, formatted, workdir)
    if different:
        return False, f"{version}: ruff format: {different}"
    again = _run([python, "-m", "ruff", "format", "--isolated", "--no-cache", "--check",
                  str(formatted)], workdir)
    if again.returncode != 0:
        return False, f"{version}: ruff format is not idempotent on {corpus.name}"
    return True, (f"{version}: ruff check --select {_SELECT}: {corpus.name} and "
                  f"{' and '.join(probekit.PLACEHOLDER_FILES)} clean on "
                  f"py316, one gate error per late default ({late}) on py315; "
                  f"{lint_file.name} F821/B006 on exactly the {len(want)} marked lines; "
                  "B023 on a late default reading a loop variable, a syntax error for "
                  "yield in a comprehension's first iterable; "
                  f"ruff format: {changed} line(s) of the corpus changed, same AST, "
                  "idempotent")
