"""Ecosystem probe for pyrefly: type-check the shared corpus and errors placed around late defaults.

pyrefly (a Rust binary; ``python -m pyrefly`` of the venv runs it) checks, in a directory
of its own (an empty ``pyrefly.toml`` there, so that no configuration above it applies),
each file with ``pyrefly check --preset default --python-version 3.16 --output-format
min-text``, and must report:

1. on the shared corpus ``late_defaults.py``: nothing (no parse error, no unknown name
   for a default that reads a parameter, ``self``, ``cls`` or ``__class__``, no missing
   argument where a call omits a late-bound parameter);
2. on ``late_defaults_type_error.py``: exactly its one error, ``bad-function-definition``
   on the line of ``pad``, whose ``fill: str => width`` defaults a ``str`` to an ``int``;
3. on ``late_defaults_lint.py``: exactly one error on each line whose comment says
   undefined-variable (``unknown-name``: a class body is not visible from a late
   default) or used-before-assignment (``unbound-name``: a body local read before the
   body runs);
4. on the corpus's ``placed_errors.py``: exactly the errors its comments place, each
   kind as pyrefly names it (``PLACED_KINDS``): inside late defaults and after
   functions, a method and a lambda with late defaults, down to the module's last line.
5. on ``late_defaults_stub.pyi`` and ``late_defaults_placeholders.py``
   (``probekit.PLACEHOLDER_FILES``): nothing, as ``=> ...`` is a placeholder where
   ``= ...`` is: in a stub, an ``@overload``, a protocol method, an abstract method.

The corpus's ``global`` and ``nonlocal`` declarations in bodies apply to the late
defaults, as the interpreter runs them: 1 and 3 check that pyrefly agrees.

``--python-version 3.16``: the patched parser accepts ``=>`` from Python 3.16 on, as the
ruff patch gates it (pyrefly passes its target version to Ruff's parser). ``--preset
default``: pyrefly's ``basic`` preset, which it takes when it finds no configuration,
reports none of these kinds of error. Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

import probekit

# placed_errors.py of the corpus marks each error it places with a kind; pyrefly's name for it
PLACED_KINDS = {
    "default-type": "bad-function-definition",
    "undefined-name": "unknown-name",
    "unbound-name": "unbound-name",
    "assignment-type": "bad-assignment",
    "return-type": "bad-return",
    "argument-type": "bad-argument-type",
    "missing-argument": "missing-argument",
}
# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_LINT_KINDS = {"undefined-variable": "unknown-name", "used-before-assignment": "unbound-name"}
_LINT_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment)")
# min-text: "ERROR late_defaults.py:11:58-63: Default `int` is not ... [bad-function-definition]"
_DIAGNOSTIC = re.compile(r"^(?P<severity>[A-Z]+) (?P<file>[^:\s]+):(?P<line>\d+):\S+ "
                         r"(?P<message>.*) \[(?P<kind>[\w-]+)\]$")
_PYREFLY_TOML = "# the pyrefly probe's project: no configuration but the defaults\n"
_OPTIONS = ["--preset", "default", "--python-version", "3.16", "--output-format", "min-text"]


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, env=probekit.clean_env("PYREFLY"), timeout=600)


def _check(python: str, name: str, cwd: pathlib.Path) -> list[tuple[int, str, str]] | str:
    """pyrefly's errors for cwd/name as (line, kind, shown), or why there are none."""
    try:
        proc = _run([python, "-m", "pyrefly", "check", *_OPTIONS, name], cwd)
    except probekit.RUN_ERRORS as exc:
        return f"pyrefly check {name} could not run: {exc}"
    found = [(int(m["line"]), m["kind"], line) for line in proc.stdout.splitlines()
             if (m := _DIAGNOSTIC.match(line)) and m["severity"] == "ERROR"]
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
        return f"pyrefly check {name} failed: {probekit.error_line(proc)[:300]}"
    return found


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    project = probekit.checker_project(corpus, workdir, "pyrefly-project", "pyrefly.toml", _PYREFLY_TOML)
    try:
        version = _run([python, "-m", "pyrefly", "--version"], project).stdout.strip()
    except probekit.RUN_ERRORS as exc:
        return False, f"python -m pyrefly could not run: {exc}"
    version = version or "pyrefly"

    pad_line = probekit.line_with(project / "late_defaults_type_error.py", "def pad(")
    lint = probekit.marked_lines(project / "late_defaults_lint.py", _LINT_MARK)
    expected = {
        "late_defaults.py": set(),
        "late_defaults_type_error.py": {(pad_line, "bad-function-definition")},
        "late_defaults_lint.py": {(line, _LINT_KINDS[m[1]]) for line, m in lint.items()},
        "placed_errors.py": probekit.placed_errors(project / "placed_errors.py", PLACED_KINDS),
        **{name: set() for name in probekit.PLACEHOLDER_FILES},
    }
    placed = len(expected["placed_errors.py"])
    failure = probekit.exact_errors(lambda name: _check(python, name, project), expected,
                                    "pyrefly check")
    if failure:
        return False, f"{version}: {failure}"
    return True, (f"{version}: pyrefly check: {corpus.name} clean; "
                  f"late_defaults_type_error.py: bad-function-definition on line {pad_line} "
                  f"only; late_defaults_lint.py: exactly the {len(lint)} marked lines; "
                  f"placed_errors.py: exactly its {placed} placed errors, in late defaults "
                  "and after them (last line included); "
                  f"{' and '.join(probekit.PLACEHOLDER_FILES)}: clean")
