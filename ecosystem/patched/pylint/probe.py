"""Ecosystem probe for pylint: lint the shared corpus and late_defaults_lint.py
beside it, and compare the messages with the exact expected set.

Stdlib only; runs pylint in the venv whose interpreter is `python`, with an
empty configuration and the convention and refactoring categories off (they
judge style, not late defaults), so the result does not depend on where it runs.
"""

from __future__ import annotations

import json
import pathlib
import re

import probekit

# late_defaults_lint.py marks each line where a checker that understands late
# defaults reports something with a comment naming pylint's message first,
# e.g. "# undefined-variable 'missing_name'"; a comment starting "nothing"
# marks a line that must stay clean.
_MARK = re.compile(r"#\s*([a-z][a-z-]+[a-z])\b")


def _expected(corpus: pathlib.Path, lint_file: pathlib.Path) -> set[tuple[str, int, str]]:
    expected = set()
    # The shared corpus is clean code; the one warning pylint rightly gives
    # is keyword-arg-before-vararg for spread(), whose parameters with
    # defaults (late ones included) come before *rest.
    expected.add((corpus.name, probekit.line_with(corpus, "def spread("),
                  "keyword-arg-before-vararg"))
    # global-statement (W0603), pylint's advice against `global`, on each declaration of
    # the two files (the body's declaration applies to the late defaults: nothing else).
    for path in (corpus, lint_file):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("global "):
                expected.add((path.name, number, "global-statement"))
    for number, line in enumerate(lint_file.read_text(encoding="utf-8").splitlines(), 1):
        code, _, comment = line.partition("  # ")
        match = _MARK.match("# " + comment) if comment else None
        if code.lstrip().startswith("def ") and match and match[1] != "nothing":
            expected.add((lint_file.name, number, match[1]))
    return expected


def _summary(found: set[tuple[str, int, str]], shown: int = 3) -> str:
    items = [f"{f}:{n} {s}" for f, n, s in sorted(found)]
    more = f", +{len(items) - shown} more" if len(items) > shown else ""
    return f"{len(items)} ({', '.join(items[:shown])}{more})" if items else "0"


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    lint_file = corpus.parent / "late_defaults_lint.py"
    rcfile = workdir / "empty-pylintrc"
    rcfile.write_text("", encoding="utf-8")
    proc = probekit.run(
        [
            python, "-m", "pylint",
            f"--rcfile={rcfile}", "--disable=C,R", "--persistent=n",
            "--score=n", "--output-format=json",
            corpus, lint_file,
        ],
        workdir,
        env=probekit.clean_env(PYLINTHOME=str(workdir / "pylinthome")),
        timeout=600,
    )
    try:
        messages = json.loads(proc.stdout)
    except json.JSONDecodeError:
        tail = (probekit.exception_line(proc.stdout + proc.stderr)
                or probekit.last_line(proc.stderr, "no output"))
        return False, f"pylint did not run (exit {proc.returncode}): {tail}"
    got = {
        (pathlib.Path(m["path"]).name, m["line"], m["symbol"]) for m in messages
    }
    expected = _expected(corpus, lint_file)
    fatal = sorted({m["symbol"] for m in messages if m["type"] == "fatal"})
    if fatal:
        crash = probekit.exception_line(proc.stdout + proc.stderr)
        return False, f"pylint: {', '.join(fatal)} ({crash or 'see pylint crash report'})"
    if got != expected:
        return False, (
            f"pylint: {_summary(got - expected)} unexpected; "
            f"{_summary(expected - got)} missing"
        )
    return True, "pylint: exactly the expected messages, " + ", ".join(
        f"{f}:{n} {s}" for f, n, s in sorted(got)
    )
