"""Ecosystem probe for pytokens: tokenize the corpus as the interpreter does.

pytokens is the tokenizer black parses with.  Its own command line,
``python -m pytokens --validate FILE``, tokenizes FILE with pytokens and with
the ``tokenize`` module of the interpreter it runs on, and compares the two
token by token (type, start, end).  On a PEP 671 interpreter ``tokenize`` gives
'=>' as one OP token; the probe passes when pytokens agrees on every token of
the shared corpus ``late_defaults.py`` and of ``pep8_spacing.py`` beside it
(where '=>' is also spaced wrongly).  Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import re

import probekit

OTHER_FILE = "pep8_spacing.py"
_TOKEN = re.compile(r"TokenTuple\(type='(\w+)', start=\((\d+), (\d+)\), end=\((\d+), (\d+)\)\)")


def _token(line: str) -> str:
    match = _TOKEN.search(line)
    if not match:
        return line.strip()
    kind, row, col, end_row, end_col = match.groups()
    return f"{kind} {row}:{col}-{end_row}:{end_col}"


def _validate(python: str, path: pathlib.Path, cwd: pathlib.Path) -> str | None:
    """None if pytokens agrees with tokenize on path, else what differs."""
    result = probekit.run([python, "-m", "pytokens", "--validate", "--strict", path], cwd)
    if result.returncode == 0:
        return None
    lines = result.stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Filepath:") and i >= 2:
            return (
                f"{path.name}: tokenize gives {_token(lines[i - 2])}, "
                f"pytokens {_token(lines[i - 1])}"
            )
    detail = probekit.last_line(result.stderr or result.stdout, "no output")
    return f"{path.name}: exit {result.returncode}: {detail}"


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    files = [corpus, corpus.parent / OTHER_FILE]
    try:
        failures = [f for f in (_validate(python, path, workdir) for path in files) if f]
    except probekit.RUN_ERRORS as exc:
        return False, f"pytokens did not run: {exc}"
    if failures:
        return False, "; ".join(failures)
    return True, (
        f"{' and '.join(p.name for p in files)}: every token as the interpreter's "
        "tokenize gives it ('=>' one OP token)"
    )
