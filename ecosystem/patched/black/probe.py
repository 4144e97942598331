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
# Run by the interpreter under test: the two files parse to the same AST.
SAME_AST = (
    "import ast, sys\n"
    "a, b = (ast.dump(ast.parse(open(p, encoding='utf-8').read())) for p in sys.argv[1:])\n"
    "sys.exit(0 if a == b else 'the formatted corpus has a different AST')\n"
)


def _env(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["BLACK_CACHE_DIR"] = cache
    return env


def _run(cmd: list[str], cwd: pathlib.Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=600, env=env,
        stdin=subprocess.DEVNULL,
    )


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
    return (lines[-1] if lines else f"exit {result.returncode}, no output")[:300]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    if os.sep in python:
        python = os.path.abspath(python)
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / "late_defaults.py"
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    env = _env(tempfile.mkdtemp(prefix="black-cache-", dir=workdir))
    black = [python, "-m", "black", "--config", os.devnull]
    try:
        return _probe(black, python, corpus, workdir, env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"black did not run: {exc}"


def _probe(black: list[str], python: str, corpus: pathlib.Path, workdir: pathlib.Path,
           env: dict[str, str]) -> tuple[bool, str]:
    # 1. check mode on the corpus itself
    check = _run([*black, "--check", "--diff", str(corpus)], workdir, env)
    if check.returncode not in (0, 1) or (
        check.returncode == 1 and "would reformat" not in check.stderr
    ):
        return False, f"black --check {corpus.name}: {_error(check, corpus)}"
    changed = [
        line[1:].strip() for line in check.stdout.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
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
    same = _run([python, "-c", SAME_AST, str(corpus), str(copy)], workdir, env)
    if same.returncode != 0:
        return False, f"formatted {corpus.name}: {_error(same, copy)}"

    # 3. PEP 8 spacing of '=>'
    snippet = workdir / "misspaced.py"
    snippet.write_text(MISSPACED, encoding="utf-8")
    fmt = _run([*black, str(snippet)], workdir, env)
    if fmt.returncode != 0:
        return False, f"black on mis-spaced '=>': {_error(fmt, snippet)}"
    got = snippet.read_text(encoding="utf-8")
    if got != FORMATTED:
        first = next(
            (g for g, w in zip(got.splitlines(), FORMATTED.splitlines()) if g != w),
            got.splitlines()[0] if got else "(empty)",
        )
        return False, f"black spaced '=>' as {first.strip()!r}"
    return True, (
        f"{check_note}; round trip: same AST, stable; "
        "'hi => len( a )' -> 'hi=>len(a)', 'key : list[int]=>[]' -> 'key: list[int] => []'"
    )
