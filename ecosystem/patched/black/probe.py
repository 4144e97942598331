"""Ecosystem probe for black: format the shared corpus and PEP 8-space '=>'.

black runs, in the venv of the interpreter under test, with its safety checks on
(it compares the AST of its output with the input's and formats its output a
second time), in three steps:

1. ``black --check --diff`` on the shared corpus ``late_defaults.py``: black must
   parse it, and no line it would change may hold a '=>' (the corpus spaces its
   late defaults as PEP 8 asks, so black must leave them as written);
2. a round trip: black formats a copy of the corpus, the result must parse on the
   interpreter under test to the same AST as the corpus (checked here too, not
   only by black) and be left unchanged by ``black --check``;
3. black formats a snippet whose '=>' is spaced wrongly and must give exactly the
   PEP 8 spacing: ``hi=>len(a)``, ``key: list[int] => []``.

black writes a grammar cache keyed by its version and the interpreter's, so a
stock and a patched black of one version would share it: each run gets its own
cache directory (BLACK_CACHE_DIR) under workdir.  Standard library only; no
network.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile

import probekit


def _run(cmd: list[str], cwd: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, env=env, timeout=600)


def _error(result: subprocess.CompletedProcess[str], path: pathlib.Path) -> str:
    """black's error on one line, e.g. 'cannot parse: F:12:32: ... ParseError: bad input'."""
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith("error:"):
            text = line.replace(str(path), path.name)
            if "cannot parse" in line:
                reason = [l for l in lines[i + 1:i + 4] if l.startswith("ParseError")]
                text = " ".join([text, lines[i + 1], *reason[:1]])
            return text[:300]
    return probekit.error_line(result)[:300]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    cache = tempfile.mkdtemp(prefix="black-cache-", dir=workdir)
    env = probekit.clean_env(BLACK_CACHE_DIR=cache)
    black = [python, "-m", "black", "--config", os.devnull]
    try:
        return _probe(black, python, corpus, workdir, env)
    except probekit.RUN_ERRORS as exc:
        return False, f"black did not run: {exc}"


def _probe(black: list[str], python: str, corpus: pathlib.Path, workdir: pathlib.Path,
           env: dict[str, str]) -> tuple[bool, str]:
    # 1. check mode on the corpus itself
    check = _run([*black, "--check", "--diff", str(corpus)], workdir, env)
    if check.returncode not in (0, 1) or (
        check.returncode == 1 and "would reformat" not in check.stderr
    ):
        return False, f"black --check {corpus.name}: {_error(check, corpus)}"
    changed = probekit.changed_lines(check.stdout)
    touched = [line for line in changed if "=>" in line]
    if touched:
        return False, f"black --check {corpus.name} would respace a late default: {touched[0]!r}"
    count = f"{len(changed)} line{'s' if len(changed) != 1 else ''}"
    if check.returncode == 0:
        check_note = "black --check: unchanged"
    elif not any(changed):
        check_note = f"black --check: would only add or remove {count.replace(' ', ' blank ')}"
    else:
        check_note = f"black --check: would change {count}, none with '=>'"

    # 2. round trip
    copy = workdir / corpus.name
    shutil.copyfile(corpus, copy)
    fmt = _run([*black, str(copy)], workdir, env)
    if fmt.returncode != 0:
        return False, f"black {corpus.name}: {_error(fmt, copy)}"
    again = _run([*black, "--check", str(copy)], workdir, env)
    if again.returncode != 0:
        return False, f"black's output for {corpus.name} is not stable: {_error(again, copy)}"
    different = probekit.same_ast(python, corpus, copy, workdir)
    if different:
        return False, f"formatted {corpus.name}: {different}"

    # 3. PEP 8 spacing of '=>'
    fmt, snippet, wrong = probekit.format_misspaced(black, workdir, env)
    if fmt.returncode != 0:
        return False, f"black on mis-spaced '=>': {_error(fmt, snippet)}"
    if wrong is not None:
        return False, f"black spaced '=>' as {wrong!r}"
    return True, (
        f"{check_note}; round trip: same AST, stable; "
        "'hi => len( a )' -> 'hi=>len(a)', 'key : list[int]=>[]' -> 'key: list[int] => []'"
    )
