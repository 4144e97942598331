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

import pathlib
import shutil
import subprocess
import tempfile

import probekit

__all__ = ["probe"]


def _run(cmd: list[str], cwd: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, env=env, timeout=600)


def _error(result: subprocess.CompletedProcess[str], path: pathlib.Path) -> str:
    """yapf's error on one line: its `yapf: FILE:LINE:COL: message`, or the last line
    of a traceback (stock 0.43.0 fails in its own error formatter)."""
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("yapf:"):
            return line.replace(str(path), path.name)[:300]
    parse = next((line for line in lines if ".ParseError: " in line), None)
    last = probekit.error_line(result)
    text = (f"ParseError: {parse.split('.ParseError: ', 1)[1]}, then {last}"
            if parse and parse != last else last)
    return text.replace(str(path), path.name)[:300]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    cache = tempfile.mkdtemp(prefix="yapf-cache-", dir=workdir)
    env = probekit.clean_env(XDG_CACHE_HOME=cache)
    yapf = [python, "-m", "yapf", "--style", "pep8", "--no-local-style"]
    try:
        return _probe(yapf, python, corpus, workdir, env)
    except probekit.RUN_ERRORS as exc:
        return False, f"yapf did not run: {exc}"


def _probe(yapf: list[str], python: str, corpus: pathlib.Path, workdir: pathlib.Path,
           env: dict[str, str]) -> tuple[bool, str]:
    # 1. diff mode on the corpus itself (exit 1: it would change something)
    diff = _run([*yapf, "--diff", str(corpus)], workdir, env)
    if diff.returncode not in (0, 1) or diff.stderr.strip():
        return False, f"yapf --diff {corpus.name}: {_error(diff, corpus)}"
    changed = probekit.changed_lines(diff.stdout)
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
    different = probekit.same_ast(python, corpus, copy, workdir)
    if different:
        return False, f"formatted {corpus.name}: {different}"

    # 3. PEP 8 spacing of '=>'
    fmt, snippet, wrong = probekit.format_misspaced([*yapf, "-i"], workdir, env)
    if fmt.returncode != 0:
        return False, f"yapf on mis-spaced '=>': {_error(fmt, snippet)}"
    if wrong is not None:
        return False, f"yapf spaced '=>' as {wrong!r}"
    return True, (f"{note}; round trip: same AST, stable; 'hi => len( a )' -> 'hi=>len(a)', "
                  "'key : list[int]=>[]' -> 'key: list[int] => []', 'scale =>2' -> 'scale=>2'")
