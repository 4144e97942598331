"""Ecosystem probe for mypy: type check the shared corpus with --no-native-parser.

mypy runs, in the venv of the interpreter under test, on the shared corpus
``late_defaults.py`` and on ``late_defaults_type_error.py`` beside it, which has
exactly one type error, in a late-bound default.  It passes when mypy reports that
error, at its line, and nothing else: so the corpus type checks cleanly (defaults
that read other parameters, self, cls; no None needed in annotations) and a late
default is checked against the declared type of its parameter.

Late-bound defaults are an experimental mypy feature (PEP 671 is a draft), enabled
with --enable-incomplete-feature=LateBoundDefaults.  A mypy without the patch does
not know that feature name; the probe then runs it again without the option to
record how it fails on the corpus.  Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import subprocess

import probekit

FEATURE = "LateBoundDefaults"
ERROR_FILE = "late_defaults_type_error.py"
# The one line of ERROR_FILE that must be reported, and the error mypy gives for it.
ERROR_SOURCE = "fill: str => width"
EXPECTED_MESSAGE = (
    'error: Incompatible default for parameter "fill" '
    '(default has type "int", parameter has type "str")  [assignment]'
)


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, timeout=900)


def _exception(text: str) -> str:
    """The exception line of a traceback in text (its last line if none)."""
    return probekit.exception_line(text) or probekit.last_line(text)


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    corpus_dir = corpus.parent
    error_file = corpus_dir / ERROR_FILE

    ok, version = probekit.module_version(python, "mypy.version", workdir)
    if not ok:
        return False, version
    label = f"mypy {version} --no-native-parser"

    try:
        lineno = probekit.line_with(error_file, ERROR_SOURCE)
    except ValueError:
        return False, f"{error_file} has no line with {ERROR_SOURCE!r}: the probe is out of date"
    expected = f"{ERROR_FILE}:{lineno}: {EXPECTED_MESSAGE}"

    # Relative file names (cwd = the corpus directory) keep the report stable; no
    # config file is read, and the cache stays in the work directory.
    base = [
        python, "-m", "mypy", "--no-native-parser", "--config-file=", "--show-traceback",
        "--cache-dir", str(workdir / "mypy-cache"),
    ]  # fmt: skip
    files = [corpus.name, ERROR_FILE]
    result = _run(base + [f"--enable-incomplete-feature={FEATURE}"] + files, corpus_dir)
    output = result.stdout + result.stderr

    if f"Unknown incomplete feature: {FEATURE}" in output:
        # A mypy without the patch: show what it does with the corpus.
        plain = _run(base + [corpus.name], corpus_dir)
        plain_output = plain.stdout + plain.stderr
        if "INTERNAL ERROR" in plain_output:
            return False, (
                f"{label}: no {FEATURE} feature; on {corpus.name}: INTERNAL ERROR, "
                f"{_exception(plain_output)}"
            )
        return False, (
            f"{label}: no {FEATURE} feature; on {corpus.name} (exit {plain.returncode}): "
            f"{probekit.last_line(plain_output)}"
        )

    label += f" --enable-incomplete-feature={FEATURE}"
    if "INTERNAL ERROR" in output:
        return False, f"{label}: INTERNAL ERROR, {_exception(output)}"
    reported = [line for line in result.stdout.splitlines() if ": error:" in line]
    if result.returncode == 1 and reported == [expected]:
        return True, (
            f"{label}: {corpus.name} clean; {ERROR_FILE} gives exactly the expected error: "
            f"{expected}"
        )
    if not reported:
        return False, (
            f"{label} (exit {result.returncode}): expected `{expected}`, got: "
            f"{probekit.last_line(output)}"
        )
    return False, (
        f"{label} (exit {result.returncode}): expected only `{expected}`, got "
        f"{len(reported)} error(s): " + " | ".join(reported[:3])
    )
