"""Ecosystem probe for yapf: format the shared corpus and space '=>' as PEP 8 does.

yapf runs (pep8 style), in the venv of the interpreter under test, in three steps:

1. ``yapf --diff`` on the shared corpus ``late_defaults.py``: yapf must parse it, and no
   line it would change may hold a '=>' (the corpus spaces its late defaults as PEP 8
   asks, as black does);
2. a round trip: yapf formats a copy of the corpus, the result must parse on the
   interpreter under test to the same AST as the corpus and be left unchanged by a
   second run;
3. yapf formats a snippet whose '=>' is spaced wrongly and must give exactly what the
   black patch gives (``hi=>len(a)``, ``key: list[int] => []``, in a lambda
   ``scale=>2``).

yapf caches its compiled grammar per user; a stock 0.43.0 names it after its version
and the interpreter's only (the patch adds the grammar's digest), so each run gets a
cache (XDG_CACHE_HOME) of its own under workdir, and a stock run cannot meet a pickle
left by another build. Standard library only; no network.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile

__all__ = ["probe"]

MISSPACED = (
    "def window(a, lo  =>  0, hi => len( a ), *, key : list[int]=>[]):\n"
    "    return a[lo:hi], key\n"
    "print(sorted([2, 1], key=lambda item, scale =>2: item*scale))\n"
)
FORMATTED = (
    "def window(a, lo=>0, hi=>len(a), *, key: list[int] => []):\n"
    "    return a[lo:hi], key\n"
    "\n"
    "\n"
    "print(sorted([2, 1], key=lambda item, scale=>2: item * scale))\n"
)
SAME_AST = (
    "import ast, sys\n"
    "a, b = (ast.dump(ast.parse(open(p, encoding='utf-8').read())) for p in sys.argv[1:])\n"
    "sys.exit(0 if a == b else 'the formatted corpus has a different AST')\n"
)


def _run(cmd: list[str], cwd: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=env,
                          stdin=subprocess.DEVNULL)


def _error(result: subprocess.CompletedProcess[str], path: pathlib.Path) -> str:
    """yapf's error on one line: its `yapf: FILE:LINE:COL: message`, or the last line
    of a traceback (stock 0.43.0 fails in its own error formatter)."""
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("yapf:"):
            return line.replace(str(path), path.name)[:300]
    parse = next((line for line in lines if ".ParseError: " in line), None)
    last = lines[-1] if lines else f"exit {result.returncode}, no output"
    text = (f"ParseError: {parse.split('.ParseError: ', 1)[1]}, then {last}"
            if parse and parse != last else last)
    return text.replace(str(path), path.name)[:300]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    if os.sep in python:
        python = os.path.abspath(python)
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / "late_defaults.py"
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="yapf-cache-", dir=workdir)
    yapf = [python, "-m", "yapf", "--style", "pep8", "--no-local-style"]
    try:
        return _probe(yapf, python, corpus, workdir, env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"yapf did not run: {exc}"


def _probe(yapf: list[str], python: str, corpus: pathlib.Path, workdir: pathlib.Path,
           env: dict[str, str]) -> tuple[bool, str]:
    # 1. diff mode on the corpus itself (exit 1: it would change something)
    diff = _run([*yapf, "--diff", str(corpus)], workdir, env)
    if diff.returncode not in (0, 1) or diff.stderr.strip():
        return False, f"yapf --diff {corpus.name}: {_error(diff, corpus)}"
    changed = [line[1:].strip() for line in diff.stdout.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    touched = [line for line in changed if "=>" in line]
    if touched:
        return False, f"yapf --diff {corpus.name} would respace a late default: {touched[0]!r}"
    note = ("yapf --diff: unchanged" if not changed else
            f"yapf --diff: would change {len(changed)} line(s), none with '=>'"
            + (" (blank lines only)" if not any(changed) else ""))

    # 2. round trip
    copy = workdir / corpus.name
    shutil.copyfile(corpus, copy)
    fmt = _run([*yapf, "-i", str(copy)], workdir, env)
    if fmt.returncode != 0:
        return False, f"yapf -i {corpus.name}: {_error(fmt, copy)}"
    again = _run([*yapf, "--diff", str(copy)], workdir, env)
    if again.returncode != 0:
        return False, f"yapf's output for {corpus.name} is not stable"
    same = _run([python, "-c", SAME_AST, str(corpus), str(copy)], workdir, env)
    if same.returncode != 0:
        return False, f"formatted {corpus.name}: {same.stderr.strip()[-200:]}"

    # 3. PEP 8 spacing of '=>'
    snippet = workdir / "misspaced.py"
    snippet.write_text(MISSPACED, encoding="utf-8")
    fmt = _run([*yapf, "-i", str(snippet)], workdir, env)
    if fmt.returncode != 0:
        return False, f"yapf on mis-spaced '=>': {_error(fmt, snippet)}"
    got = snippet.read_text(encoding="utf-8")
    if got != FORMATTED:
        first = next((g for g, w in zip(got.splitlines(), FORMATTED.splitlines()) if g != w),
                     got.splitlines()[0] if got else "(empty)")
        return False, f"yapf spaced '=>' as {first.strip()!r}"
    return True, (f"{note}; round trip: same AST, stable; 'hi => len( a )' -> 'hi=>len(a)', "
                  "'key : list[int]=>[]' -> 'key: list[int] => []', 'scale =>2' -> 'scale=>2'")
