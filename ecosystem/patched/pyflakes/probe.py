"""Ecosystem probe for pyflakes: lint the shared corpus and late_defaults_lint.py.

Runs ``python -m pyflakes`` of the venv whose interpreter is ``python`` on both
files. The probe passes when pyflakes reports exactly what a checker that
understands late defaults must: nothing for the corpus (clean code whose late
defaults read parameters, ``self`` and ``__class__``), and, in
late_defaults_lint.py, each line whose comment names undefined-variable or
used-before-assignment (pylint's names) with pyflakes' message for that name,
and no other line. Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import re

import probekit

# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment)\s+'(\w+)'")
# pyflakes' messages for them: a name read before the body assigns it is an
# undefined name unless an enclosing scope defines it too (as in a body).
_MESSAGES = {
    "undefined-variable": [r"undefined name '{}'"],
    "used-before-assignment": [r"undefined name '{}'",
                               r"local variable '{}' defined .* referenced before assignment"],
}
_REPORT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?:\d+:)? (?P<message>.*)$")


def _expected(lint_file: pathlib.Path) -> dict[tuple[str, int], str]:
    return {(lint_file.name, number): match[1] + " " + match[2]
            for number, match in probekit.marked_lines(lint_file, _MARK).items()
            if match.string.lstrip().startswith("def ")}


def _matches(mark: str, message: str) -> bool:
    kind, name = mark.split()
    return any(re.fullmatch(pattern.format(re.escape(name)), message)
               for pattern in _MESSAGES[kind])


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    lint_file = corpus.parent / "late_defaults_lint.py"
    result = probekit.run([python, "-m", "pyflakes", corpus, lint_file], workdir)
    if result.returncode not in (0, 1) or result.stderr.strip():
        last = probekit.last_line(result.stderr, "no output")
        return False, f"pyflakes did not run (exit {result.returncode}): {last}"
    got = {}
    for line in result.stdout.splitlines():
        match = _REPORT.match(line)
        if match:
            key = (pathlib.Path(match["path"]).name, int(match["line"]))
            got.setdefault(key, []).append(match["message"])
    expected = _expected(lint_file)
    wrong = [f"{f}:{n}: {'; '.join(m)}" for (f, n), m in sorted(got.items())
             if (f, n) not in expected or not any(_matches(expected[f, n], x) for x in m)]
    missing = [f"{f}:{n} ({mark})" for (f, n), mark in sorted(expected.items())
               if (f, n) not in got]
    if wrong or missing:
        problems = []
        if wrong:
            problems.append(f"{len(wrong)} wrong report(s), e.g. {wrong[0]}")
        if missing:
            problems.append(f"{len(missing)} missing, e.g. {missing[0]}")
        return False, "pyflakes: " + "; ".join(problems)
    return True, (f"pyflakes: corpus clean; in {lint_file.name} exactly the "
                  f"{len(expected)} expected reports, e.g. "
                  + "; ".join(m[0] for m in list(got.values())[:2]))
