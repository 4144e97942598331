"""Ecosystem probe for pycodestyle: E251/E252 for the '=>' of late-bound defaults.

pycodestyle runs, in the venv of the interpreter under test, on
``pep8_spacing.py`` beside the shared corpus.  Each line of that module that
spaces '=>' against PEP 8 ends in a comment naming the codes pycodestyle must
report on it (``# E251 E251``); the probe passes when pycodestyle reports exactly
those codes on exactly those lines, nothing else, and no E251/E252 on the shared
corpus ``late_defaults.py``, whose defaults are spaced as PEP 8 asks.
Standard library only; no network.
"""

from __future__ import annotations

import collections
import pathlib
import re

import probekit

SPACING_FILE = "pep8_spacing.py"
_EXPECTED = re.compile(r"#((?: E25[12])+)\s*$")
_REPORT = re.compile(r"^.*?:(\d+):(\d+): ([EWC]\d{3}) ")


def _pycodestyle(python: str, args: list[str], cwd: pathlib.Path) -> tuple[list[tuple[int, str]], str]:
    """(line, code) of each report, and the raw output."""
    result = probekit.run([python, "-m", "pycodestyle", *args], cwd)
    reports = []
    for line in result.stdout.splitlines():
        match = _REPORT.match(line)
        if match:
            reports.append((int(match[1]), match[3]))
    if result.returncode not in (0, 1) or (result.returncode == 1 and not reports):
        detail = probekit.last_line(result.stderr)
        raise RuntimeError(f"pycodestyle exited {result.returncode}: {detail}")
    return reports, result.stdout


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    spacing = corpus.parent / SPACING_FILE

    lines = spacing.read_text(encoding="utf-8").splitlines()
    expected: collections.Counter[tuple[int, str]] = collections.Counter()
    for number, match in probekit.marked_lines(spacing, _EXPECTED).items():
        for code in match[1].split():
            expected[(number, code)] += 1
    if not expected:
        return False, f"{SPACING_FILE} names no expected E251/E252: the probe has nothing to check"

    try:
        # Every E and W check, so that a false report of any kind shows.
        reports, _ = _pycodestyle(python, ["--select=E,W", str(spacing)], workdir)
        corpus_reports, _ = _pycodestyle(python, ["--select=E251,E252", str(corpus)], workdir)
    except (RuntimeError, *probekit.RUN_ERRORS) as exc:
        return False, str(exc)

    got = collections.Counter(reports)
    missing = expected - got
    unexpected = got - expected
    total = sum(expected.values())
    if not missing and not unexpected and not corpus_reports:
        return True, (
            f"{SPACING_FILE}: exactly the {total} expected E251/E252 on "
            f"{len({line for line, _ in expected})} lines, nothing else; "
            f"{corpus.name}: no E251/E252"
        )
    problems = []
    if missing:
        found = total - sum(missing.values())
        line, code = sorted(missing)[0]
        problems.append(
            f"{SPACING_FILE}: {found} of {total} expected E251/E252 reported "
            f"(line {line} `{lines[line - 1].split('#')[0].strip()}` gave no {code})"
        )
    if unexpected:
        shown = ", ".join(f"{code} at line {line}" for line, code in sorted(unexpected)[:3])
        problems.append(f"{SPACING_FILE}: unexpected {shown}")
    if corpus_reports:
        line, code = corpus_reports[0]
        problems.append(f"{corpus.name}: {code} at line {line}")
    return False, "; ".join(problems)
