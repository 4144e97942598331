"""What the ecosystem probes share: running a tool, reading its output, the corpus.

Every ``probe.py`` of ``ecosystem/patched/`` and ``ecosystem/unpatched/`` imports this
module as ``probekit``: ``tools/ecosystem/probes.py`` puts ``ecosystem/`` at the front
of ``sys.path`` before it loads a probe (see the contract in ``ecosystem/README.md``).
Like the probes, it is standard library only, and it runs on the interpreter that runs
``tools.ecosystem``, not on the one under test. The test runners of the tools whose tests
are ``commands`` (``run_tests.py``) import it too, for their JUnit report; they run on
the venv's interpreter, which is why nothing here may need more than the standard
library.
"""

from __future__ import annotations

import html
import json
import os
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "CHECKER_FILES", "CORPUS_NAME", "MISSPACED", "PEP8_SPACED", "PLACEHOLDER_FILES",
    "RUN_ERRORS", "changed_lines",
    "checker_project", "clean_env", "diagnostics_differ", "error_line", "exact_errors", "exception_line", "format_misspaced", "html_text", "last_json",
    "last_line", "line_with", "marked_lines", "module_version", "paths", "placed_errors", "run", "same_ast",
    "write_junit",
]

# What running a tool may raise besides its own failure: no such program, a timeout.
RUN_ERRORS = (OSError, subprocess.TimeoutExpired)

# The name of the shared corpus, in ecosystem/corpus/ with the other inputs of the probes.
CORPUS_NAME = "late_defaults.py"

_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*)?(?:Error|Exception): ")
# What Python prints between the exceptions of a chain, before the later one.
_CHAINED = ("The above exception was the direct cause of the following exception",
            "During handling of the above exception, another exception occurred")

# Run by the interpreter under test: do the two files parse to the same AST?
_SAME_AST = (
    "import ast, sys\n"
    "a, b = (ast.dump(ast.parse(open(p, encoding='utf-8').read())) for p in sys.argv[1:])\n"
    "sys.exit(0 if a == b else 'the formatted corpus has a different AST')\n"
)

# For the probes of formatters: late defaults spaced against PEP 8, and as PEP 8 (and
# black) spaces them: no spaces around '=>' but for an annotated parameter's.
MISSPACED = (
    "def window(a, lo  =>  0, hi => len( a ), *, key : list[int]=>[]):\n"
    "    return a[lo:hi], key\n"
    "print(sorted([2, 1], key=lambda item, scale =>2: item*scale))\n"
)
PEP8_SPACED = (
    "def window(a, lo=>0, hi=>len(a), *, key: list[int] => []):\n"
    "    return a[lo:hi], key\n"
    "\n"
    "\n"
    "print(sorted([2, 1], key=lambda item, scale=>2: item * scale))\n"
)


def paths(python: str, corpus: pathlib.Path | str,
          workdir: pathlib.Path | str) -> tuple[str, pathlib.Path, pathlib.Path]:
    """A probe's arguments made absolute: python (when it is a path), the corpus file
    (late_defaults.py when given its directory) and workdir, which is created."""
    if os.sep in python:
        python = os.path.abspath(python)
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / CORPUS_NAME
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    return python, corpus, workdir


def clean_env(*drop: str, **extra: str) -> dict[str, str]:
    """This process's environment without PYTHON* variables, nor those whose name starts
    with one of drop, plus extra: what a tool under test runs in."""
    prefixes = ("PYTHON", *drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(extra)
    return env


def run(cmd: Sequence[str | os.PathLike[str]], cwd: str | os.PathLike[str] | None = None, *,
        env: Mapping[str, str] | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run cmd with no stdin, its output captured as text, in env (clean_env() if None).
    Raises what subprocess.run raises (RUN_ERRORS) when it cannot run or times out."""
    return subprocess.run([os.fspath(part) for part in cmd], cwd=cwd,
                          env=clean_env() if env is None else dict(env),
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def last_line(text: str, default: str = "(no output)") -> str:
    """The last non-blank line of text, stripped; default if there is none."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else default


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    """Why a run failed, on one line: the last line of its stderr, else its exit status."""
    return last_line(result.stderr, f"exit {result.returncode}, no output")


def exception_line(text: str) -> str | None:
    """The exception line ('ValueError: ...', 'module.ParseError: ...') of the last
    traceback in text, or None. Of a chain of exceptions ("The above exception was the
    direct cause of the following exception"), the first: what went wrong, not the
    exception that a tool raised on catching it."""
    found, caused = None, False
    for line in text.splitlines():
        if line.startswith(_CHAINED):
            caused = True
        elif _EXCEPTION.match(line):
            if not caused:
                found = line.strip()
            caused = False
    return found


def last_json(text: str) -> Any:
    """The JSON value printed on the last non-blank line of text; None if that line is
    not JSON (or there is none)."""
    try:
        return json.loads(last_line(text, ""))
    except ValueError:
        return None


def module_version(python: str, module: str, cwd: str | os.PathLike[str] | None = None, *,
                   attribute: str = "__version__") -> tuple[bool, str]:
    """(True, module.attribute) as the venv of python has it, or (False, evidence that
    the module is not importable there)."""
    result = run([python, "-c", f"import {module}; print({module}.{attribute})"], cwd,
                 timeout=120)
    if result.returncode != 0:
        root = module.split(".")[0]
        return False, f"{root} is not importable in the venv: {last_line(result.stderr)}"
    return True, result.stdout.strip()


def line_with(path: pathlib.Path, needle: str) -> int:
    """The number (from 1) of the first line of path that holds needle.
    Raises ValueError if none does."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise ValueError(f"{path.name} has no line with {needle!r}")


def marked_lines(path: pathlib.Path, mark: re.Pattern[str]) -> dict[int, re.Match[str]]:
    """line number (from 1) -> the match of mark (re.search), for each line of path that
    has it: the lines a corpus file marks, with a comment, as where a tool must report.
    The match's string is the whole line."""
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = mark.search(line)
        if match:
            found[number] = match
    return found


# What a type checker's probe checks: the corpus, a file with one type error, one whose
# comments mark the lines a linter must report, one with errors placed in and after
# late defaults (corpus/placed_errors.py), and the two where `=> ...` is a placeholder,
# as `= ...` is (PLACEHOLDER_FILES), which must check clean
PLACEHOLDER_FILES = ("late_defaults_stub.pyi", "late_defaults_placeholders.py")
CHECKER_FILES = ("late_defaults.py", "late_defaults_type_error.py", "late_defaults_lint.py",
                 "placed_errors.py", *PLACEHOLDER_FILES)
_PLACED = re.compile(r"#\s*error:\s*([\w-]+)\s*$")


def placed_errors(path: pathlib.Path, kinds: Mapping[str, str]) -> set[tuple[int, str]]:
    """(line, the tool's rule) for each error that path (the corpus's placed_errors.py)
    places with a "# error: KIND" comment, kinds mapping each KIND to the tool's name.
    Raises KeyError for a kind the tool's mapping lacks."""
    return {(number, kinds[match[1]]) for number, match in marked_lines(path, _PLACED).items()}


def checker_project(corpus: pathlib.Path, workdir: pathlib.Path, name: str,
                    config: str, text: str) -> pathlib.Path:
    """workdir/name, made afresh: the CHECKER_FILES of the corpus, and the type checker's
    configuration file config holding text, so that no configuration above it applies."""
    project = workdir / name
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    (project / config).write_text(text, encoding="utf-8")
    for file in CHECKER_FILES:
        shutil.copyfile(corpus.with_name(file), project / file)
    return project


def exact_errors(check: Callable[[str], Sequence[tuple[int, str, str]] | str],
                 expected: Mapping[str, set[tuple[int, str]]], command: str) -> str | None:
    """None when check(file), a type checker's errors as (line, rule, the line it
    printed), are exactly expected[file] for each file; else the first difference, as
    "COMMAND FILE: what differs", with how many of placed_errors.py's errors it reported.
    A str from check says why the checker gave no errors, and is returned as it is."""
    failure = None
    for name, want in expected.items():
        found = check(name)
        if isinstance(found, str):
            return found
        differs = diagnostics_differ(found, want)
        if differs and not failure:
            failure = f"{command} {name}: {differs}"
        if failure and name == "placed_errors.py":
            got = {(line, rule) for line, rule, _ in found} & want
            failure += f"; {name}: {len(got)} of its {len(want)} placed errors reported"
    return failure


def diagnostics_differ(found: Sequence[tuple[int, str, str]],
                       want: set[tuple[int, str]]) -> str | None:
    """None when a type checker's diagnostics, found as (line, rule, the line it
    printed), are exactly want, each (line, rule) once; else what differs, in a line:
    how many, the first expected ones missing, the first unexpected one."""
    got = {(line, rule) for line, rule, _ in found}
    if got == want and len(found) == len(want):
        return None
    extra = [shown for line, rule, shown in found if (line, rule) not in want]
    missing = [f"{line}:{rule}" for line, rule in sorted(want - got)]
    said = [f"{len(found)} diagnostic(s) where {len(want)} expected"]
    if missing:
        said.append(f"missing {', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''}")
    if extra:
        said.append(f"{len(extra)} unexpected, the first {extra[0][:200]}")
    return "; ".join(said)


def html_text(fragment: str) -> str:
    """The text a reader sees of a fragment of HTML: tags dropped, entities decoded,
    whitespace folded."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def same_ast(python: str, original: pathlib.Path, formatted: pathlib.Path,
             cwd: str | os.PathLike[str] | None = None) -> str | None:
    """None if formatted parses to the same AST as original on the interpreter under
    test, else why not (one line)."""
    result = run([python, "-c", _SAME_AST, original, formatted], cwd)
    return None if result.returncode == 0 else error_line(result)


def changed_lines(diff: str) -> list[str]:
    """The lines a unified diff removes or adds, without their '-' or '+', stripped
    (a changed blank line is '')."""
    return [line[1:].strip() for line in diff.splitlines()
            if line[:1] in ("+", "-") and not line.startswith(("+++", "---"))]


def _first_difference(got: str, wanted: str) -> str:
    """The first line of got that differs from wanted's, stripped (its first line if
    they differ in length only, '(empty)' if got is empty)."""
    return next((g for g, w in zip(got.splitlines(), wanted.splitlines()) if g != w),
                got.splitlines()[0] if got else "(empty)").strip()


def format_misspaced(command: Sequence[str | os.PathLike[str]], workdir: pathlib.Path,
                     env: Mapping[str, str] | None = None
                     ) -> tuple[subprocess.CompletedProcess[str], pathlib.Path, str | None]:
    """Run a formatter, command + [FILE], on FILE = workdir/misspaced.py holding
    MISSPACED: (the run, FILE, None if FILE is then PEP8_SPACED, else its first line
    that is not)."""
    snippet = workdir / "misspaced.py"
    snippet.write_text(MISSPACED, encoding="utf-8")
    result = run([*command, snippet], workdir, env=env, timeout=600)
    got = snippet.read_text(encoding="utf-8")
    return result, snippet, None if got == PEP8_SPACED else _first_difference(got, PEP8_SPACED)


def write_junit(suite_name: str, cases: Mapping[str, tuple[str, str]],
                path: pathlib.Path) -> int:
    """Write a JUnit XML report of cases (``"classname::name"`` -> (outcome, message),
    an outcome being passed, failed, skipped or error) to path, print the counts, and
    return how many failed (errors included)."""
    suite = ET.Element("testsuite", name=suite_name, tests=str(len(cases)))
    for name, (outcome, message) in cases.items():
        classname, _, case_name = name.rpartition("::")
        case = ET.SubElement(suite, "testcase", classname=classname, name=case_name)
        if outcome == "failed":
            ET.SubElement(case, "failure", message=message)
        elif outcome in ("skipped", "error"):
            ET.SubElement(case, outcome, message=message)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
    failed = sum(1 for outcome, _ in cases.values() if outcome in ("failed", "error"))
    print(f"{len(cases) - failed} passed, {failed} failed")
    return failed
