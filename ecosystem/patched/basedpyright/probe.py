"""Ecosystem probe for basedpyright (pyright's engine): type check late defaults.

The venv's ``basedpyright`` (the CLI; its wheel depends on a Node.js wheel), with the
default configuration (a ``pyrightconfig.json`` of ``{}`` in the work directory, the
venv's interpreter for the Python version), must:

1. report no error on the shared corpus ``late_defaults.py``: ``=>`` parses in every
   position, and a late default that reads a parameter, ``self``, ``cls``,
   ``__class__`` or a name the body declares global or nonlocal is checked in the
   function's scope; nor on the two files where ``=> ...`` is a placeholder
   (``probekit.PLACEHOLDER_FILES``: a stub; overloads, a protocol, an abstract method);
2. report exactly one error on ``late_defaults_type_error.py``: the ``int`` default of
   the parameter declared ``str``, at that default (after the ``=>``), and nothing for
   the other late defaults (a ``list[int] => []`` needs no ``None`` in its annotation);
3. report on ``late_defaults_lint.py`` an error exactly on each line whose comment names
   undefined-variable or used-before-assignment: a name that exists nowhere, a local
   the body assigns after the default runs (unbound), a name of the class body.

A stock release gives syntax errors. Standard library only; no network.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil

import probekit

_TYPE_ERROR_MODULE = "late_defaults_type_error.py"
_LINT_MODULE = "late_defaults_lint.py"
# late_defaults_lint.py: "def ...:  # undefined-variable 'missing_name'"
_MARK = re.compile(r"#\s*(undefined-variable|used-before-assignment)")
# the late default of late_defaults_type_error.py that must be the one error
_BAD_DEFAULT = "fill: str => width"


def _errors(command: str, python: str, path: pathlib.Path,
            cwd: pathlib.Path) -> list[dict] | str:
    """The errors basedpyright reports on path, or a line saying why there are none."""
    proc = probekit.run([command, "--outputjson", "--pythonpath", python, path.name], cwd,
                        timeout=600)
    try:
        found = json.loads(proc.stdout)["generalDiagnostics"]
    except (ValueError, KeyError, TypeError):
        err = probekit.last_line(proc.stderr, probekit.last_line(
            proc.stdout, f"exit {proc.returncode}, no output"))
        return f"basedpyright failed on {path.name}: {err[:300]}"
    return [d for d in found if d.get("severity") == "error"]


def _shown(diagnostic: dict) -> str:
    """'11:38 reportArgumentType: Type "int" is not ...' for a diagnostic."""
    start = (diagnostic.get("range") or {}).get("start") or {}
    message = " ".join(str(diagnostic.get("message", "")).split())
    return (f"{start.get('line', -1) + 1}:{start.get('character', -1) + 1} "
            f"{diagnostic.get('rule') or 'syntax'}: {message[:140]}")


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    command = str(pathlib.Path(python).parent / "basedpyright")
    if not os.path.isfile(command):
        return False, f"no basedpyright script beside {python}"
    # the work directory is the project: its own (empty) configuration, nothing above it
    (workdir / "pyrightconfig.json").write_text("{}\n")
    for name in (corpus.name, _TYPE_ERROR_MODULE, _LINT_MODULE, *probekit.PLACEHOLDER_FILES):
        shutil.copyfile(corpus.with_name(name), workdir / name)
    lines = probekit.run([command, "--version"], workdir, timeout=600).stdout.strip().splitlines()
    version = " ".join(lines[:2]) or "basedpyright"

    for name in (corpus.name, *probekit.PLACEHOLDER_FILES):
        found = _errors(command, python, workdir / name, workdir)
        if isinstance(found, str):
            return False, found
        if found:
            return False, f"{version}: {name}: {len(found)} error(s), first {_shown(found[0])}"

    found = _errors(command, python, workdir / _TYPE_ERROR_MODULE, workdir)
    if isinstance(found, str):
        return False, found
    row = probekit.line_with(workdir / _TYPE_ERROR_MODULE, _BAD_DEFAULT) - 1
    source = (workdir / _TYPE_ERROR_MODULE).read_text(encoding="utf-8").splitlines()
    column = source[row].index(_BAD_DEFAULT) + len(_BAD_DEFAULT) - len("width")
    at = [((d.get("range") or {}).get("start") or {}) for d in found]
    if len(found) != 1 or (at[0].get("line"), at[0].get("character")) != (row, column):
        shown = "; ".join(_shown(d) for d in found[:3]) or "none"
        return False, (f"{version}: {_TYPE_ERROR_MODULE}: {len(found)} error(s) where "
                       f"one was expected at {row + 1}:{column + 1} (the late default of "
                       f"'fill'): {shown}")
    type_error = _shown(found[0])

    found = _errors(command, python, workdir / _LINT_MODULE, workdir)
    if isinstance(found, str):
        return False, found
    want = {number - 1 for number in probekit.marked_lines(workdir / _LINT_MODULE, _MARK)}
    got = {((d.get("range") or {}).get("start") or {}).get("line") for d in found}
    if got != want or len(found) != len(want):
        return False, (f"{version}: {_LINT_MODULE}: errors on lines "
                       f"{sorted(n + 1 for n in got if n is not None)}, expected one on each "
                       f"of {sorted(n + 1 for n in want)}")
    return True, (f"{version}: {corpus.name} and {' and '.join(probekit.PLACEHOLDER_FILES)}: "
                  f"no error; {_TYPE_ERROR_MODULE}: exactly the "
                  f"error in the late default, {type_error}; {_LINT_MODULE}: an undefined "
                  f"or unbound name on exactly the {len(want)} marked lines")
