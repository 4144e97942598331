"""Ecosystem probe for ty: type-check the shared corpus and errors placed around late defaults.

ty (a Rust binary; ``python -m ty`` of the venv runs it) checks, in a directory of its own
(a ``ty.toml`` there, so that no configuration above it applies), each file with
``ty check --python-version 3.16 --python VENV --output-format concise`` (the patch accepts
``=>`` from Python 3.16, the first version that could have it, as ruff's does; a target this
interpreter's users set), and must report:

1. on the shared corpus ``late_defaults.py``: nothing (no syntax error, no unresolved
   name for a default that reads a parameter, ``self``, ``cls`` or ``__class__``);
2. on ``late_defaults_type_error.py``: exactly its one error, ``invalid-parameter-default``
   on the line of ``pad``, whose ``fill: str => width`` defaults a ``str`` to an ``int``;
3. on ``late_defaults_lint.py``: ``unresolved-reference`` exactly on the lines whose comment
   says undefined-variable or used-before-assignment (a late default is evaluated in the
   function's scope before the body runs, and a class body is not visible from it);
4. on the corpus's ``placed_errors.py``: exactly the errors its comments place, each
   kind as ty names it (``PLACED_KINDS``): inside late defaults (a type error, an
   undefined name, the parameter's own name) and after functions, a method and a lambda
   with late defaults, down to the module's last line. Code after a late default must be
   checked: a parser that loses its way at ``=>`` silently leaves the rest of the module
   unchecked;
5. on the shared corpus's ``late_defaults.py`` and ``late_defaults_lint.py``, the body's
   ``global`` and ``nonlocal`` apply to the late defaults, as the interpreter runs them (PEP
   671, "global and nonlocal in the body"), while a default that reads a local the body
   assigns later is still reported; on ``late_defaults_stub.pyi`` and
   ``late_defaults_placeholders.py`` (``probekit.PLACEHOLDER_FILES``): nothing, as ``=> ...``
   is a placeholder where ``= ...`` is: in a stub, an ``@overload``, a protocol method, an
   abstract method.

Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

import probekit

# placed_errors.py of the corpus marks each error it places with a kind; ty's name for it
PLACED_KINDS = {
    "default-type": "invalid-parameter-default",
    "undefined-name": "unresolved-reference",
    "unbound-name": "unresolved-reference",
    "assignment-type": "invalid-assignment",
    "return-type": "invalid-return-type",
    "argument-type": "invalid-argument-type",
    "missing-argument": "missing-argument",
}
# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_LINT_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment)")
# ty's concise output: "late_defaults.py:12:28: error[invalid-syntax] Expected ..."
_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): "
                         r"(?P<severity>\w+)\[(?P<rule>[\w-]+)\] (?P<message>.*)$")
_TY_TOML = "# the ty probe's project: no configuration but the defaults\n"
# the target version: late-bound defaults are syntax of Python 3.16 to the patched ty
_PYTHON_VERSION = "3.16"


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, env=probekit.clean_env("TY_"), timeout=600)


def _check(python: str, name: str, cwd: pathlib.Path) -> list[tuple[int, str, str]] | str:
    """ty's diagnostics for cwd/name as (line, rule, shown), or why there are none."""
    try:
        proc = _run([python, "-m", "ty", "check", "--no-progress", "--output-format",
                     "concise", "--python-version", _PYTHON_VERSION, "--python", python, name],
                    cwd)
    except probekit.RUN_ERRORS as exc:
        return f"ty check {name} could not run: {exc}"
    found = [(int(m["line"]), m["rule"], line) for line in proc.stdout.splitlines()
             if (m := _DIAGNOSTIC.match(line))]
    if f"invalid value '{_PYTHON_VERSION}'" in proc.stderr:
        # a ty without the patch: its command line has no 3.16 target
        return (f"ty check {name} failed: its command line refuses --python-version "
                f"{_PYTHON_VERSION}")
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
        return f"ty check {name} failed: {probekit.error_line(proc)[:300]}"
    return found


def _marked(path: pathlib.Path, mark: re.Pattern[str],
            rule: str | None = None) -> set[tuple[int, str]]:
    return {(number, rule or match[1])
            for number, match in probekit.marked_lines(path, mark).items()}


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    project = probekit.checker_project(corpus, workdir, "ty-project", "ty.toml", _TY_TOML)
    try:
        version = _run([python, "-m", "ty", "--version"], project).stdout.strip() or "ty"
    except probekit.RUN_ERRORS as exc:
        return False, f"python -m ty could not run: {exc}"

    pad_line = probekit.line_with(project / "late_defaults_type_error.py", "def pad(")
    expected = {
        "late_defaults.py": set(),
        "late_defaults_type_error.py": {(pad_line, "invalid-parameter-default")},
        "late_defaults_lint.py": _marked(project / "late_defaults_lint.py", _LINT_MARK,
                                         "unresolved-reference"),
        "placed_errors.py": probekit.placed_errors(project / "placed_errors.py", PLACED_KINDS),
        **{name: set() for name in probekit.PLACEHOLDER_FILES},
    }
    placed = len(expected["placed_errors.py"])
    failure = probekit.exact_errors(lambda name: _check(python, name, project), expected,
                                    "ty check")
    if failure:
        return False, f"{version}: {failure}"
    return True, (f"{version}: ty check: {corpus.name} clean; late_defaults_type_error.py: "
                  f"invalid-parameter-default on line {pad_line} only; "
                  f"late_defaults_lint.py: unresolved-reference on exactly the "
                  f"{len(expected['late_defaults_lint.py'])} marked lines; placed_errors.py: "
                  f"exactly its {placed} placed errors, in late defaults and after them "
                  f"(last line included); {' and '.join(probekit.PLACEHOLDER_FILES)}: clean, "
                  "=> ... a placeholder in a stub, overloads, protocols and abstract methods")
