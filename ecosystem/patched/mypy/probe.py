"""Ecosystem probe for mypy: type check the shared corpus with both of mypy's parsers.

mypy runs, in the venv of the interpreter under test, on the shared corpus
``late_defaults.py``, on ``late_defaults_type_error.py`` beside it, which has
exactly one type error, in a late-bound default, and on the two files where ``=> ...``
is a placeholder (``probekit.PLACEHOLDER_FILES``: a stub; overloads, a protocol and an
abstract method). It does so twice: with its default
parser, the native one (the ast_serialize extension, built on Ruff's parser), as
people run it, and with ``--no-native-parser`` (the interpreter's ``ast``). Each run
must report that error, at its line, and nothing else: so the corpus type checks
cleanly (defaults that read other parameters, self, cls, or a name the body declares
global or nonlocal; no None needed in annotations), ``=> ...`` is a placeholder
where ``= ...`` is, and a late default is checked against the declared type of its
parameter.

Late-bound defaults are an experimental mypy feature (PEP 671 is a draft), enabled
with --enable-incomplete-feature=LateBoundDefaults.  A mypy without the patch does
not know that feature name; the probe then runs it again on the corpus without the
option, with each parser, to record how it fails.  Standard library only; no network.
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
# The parsers: the label shown in the evidence, and the options that choose it.
PARSERS = (("native parser", []), ("--no-native-parser", ["--no-native-parser"]))


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, timeout=900)


def _exception(text: str) -> str:
    """The exception line of a traceback in text (its last line if none)."""
    return probekit.exception_line(text) or probekit.last_line(text)


def _failure(result: subprocess.CompletedProcess[str]) -> str:
    """How a run of mypy on the corpus failed, in a few words."""
    output = result.stdout + result.stderr
    if "INTERNAL ERROR" in output:
        return f"INTERNAL ERROR, {_exception(output)}"
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    if errors:
        return f"{len(errors)} error(s), the first: {errors[0]}"
    return f"exit {result.returncode}: {probekit.last_line(output)}"


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    corpus_dir = corpus.parent
    error_file = corpus_dir / ERROR_FILE

    ok, version = probekit.module_version(python, "mypy.version", workdir)
    if not ok:
        return False, version
    label = f"mypy {version}"

    try:
        lineno = probekit.line_with(error_file, ERROR_SOURCE)
    except ValueError:
        return False, f"{error_file} has no line with {ERROR_SOURCE!r}: the probe is out of date"
    expected = f"{ERROR_FILE}:{lineno}: {EXPECTED_MESSAGE}"

    def base(parser: str, options: list[str]) -> list[str]:
        # Relative file names (cwd = the corpus directory) keep the report stable; no
        # config file is read, and each parser has its own cache in the work directory.
        cache = workdir / f"mypy-cache-{parser.strip('-').replace(' ', '-')}"
        return [python, "-m", "mypy", *options, "--config-file=", "--show-traceback",
                "--cache-dir", str(cache)]  # fmt: skip

    files = [corpus.name, ERROR_FILE, *probekit.PLACEHOLDER_FILES]
    failures = []
    for parser, options in PARSERS:
        result = _run(base(parser, options) + [f"--enable-incomplete-feature={FEATURE}"] + files,
                      corpus_dir)  # fmt: skip
        output = result.stdout + result.stderr
        if f"Unknown incomplete feature: {FEATURE}" in output:
            # A mypy without the patch: show what each parser does with the corpus.
            shown = [f"{name}: {_failure(_run(base(name, opts) + [corpus.name], corpus_dir))}"
                     for name, opts in PARSERS]  # fmt: skip
            return False, f"{label}: no {FEATURE} feature; on {corpus.name}, " + "; ".join(shown)
        reported = [line for line in result.stdout.splitlines() if ": error:" in line]
        if "INTERNAL ERROR" in output:
            failures.append(f"{parser}: INTERNAL ERROR, {_exception(output)}")
        elif not (result.returncode == 1 and reported == [expected]):
            got = " | ".join(reported[:3]) if reported else probekit.last_line(output)
            failures.append(f"{parser} (exit {result.returncode}): expected only `{expected}`, "
                            f"got {len(reported)} error(s): {got}")  # fmt: skip

    label += f" --enable-incomplete-feature={FEATURE}"
    if failures:
        return False, f"{label}: " + "; ".join(failures)
    return True, (
        f"{label}, native parser and --no-native-parser alike: {corpus.name} and "
        f"{' and '.join(probekit.PLACEHOLDER_FILES)} clean; "
        f"{ERROR_FILE} gives exactly the expected error: {expected}"
    )
