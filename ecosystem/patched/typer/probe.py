"""Ecosystem probe for typer: run a command line whose options have late defaults.

``typer_cli.py`` (beside the shared corpus) is a Typer app with one argument, NAME,
and two options whose defaults are late-bound: ``greeting: str => f"Hello, {name}"``
and ``times: int => len(name)``.  The probe passes when, in the venv of the
interpreter under test:

- ``typer_cli.py ada`` prints ``Hello, ada (x3)``: both options are optional and,
  omitted, get the values the function computes itself;
- ``typer_cli.py ada --times 1`` prints ``Hello, ada (x1)``: a given value is used;
- ``typer_cli.py --help`` shows each default as ``=>`` and its expression
  (``[default: =>len(name)]``), not as a value or the object's repr.

Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import subprocess

import probekit

CLI_FILE = "typer_cli.py"
NAME = "ada"
# What greet() prints for NAME when both options are omitted, and with --times 1.
EXPECTED_OMITTED = f"Hello, {NAME} (x{len(NAME)})"
EXPECTED_GIVEN = f"Hello, {NAME} (x1)"
HELP_DEFAULT = "[default: =>len(name)]"


def _run(python: str, args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    # Plain, wide help text: no terminal codes, no wrapping inside the option table.
    env = probekit.clean_env("FORCE_COLOR", TERMINAL_WIDTH="200",
                             _TYPER_FORCE_DISABLE_TERMINAL="1")
    return probekit.run([python, *args], cwd, env=env)


def _first_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = [
        line.strip(" │╭╮╰╯─")
        for line in (result.stderr + result.stdout).splitlines()
        if line.strip(" │╭╮╰╯─") and not line.lstrip().startswith(("Usage:", "Try "))
    ]
    errors = [line for line in lines if "Error" in line or "Invalid" in line]
    if errors:
        return errors[-1]
    return lines[-1] if lines else "(no output)"


def _help_default(help_text: str, option: str) -> str:
    for line in help_text.splitlines():
        if option in line and "default:" in line:
            return "[default:" + line.split("[default:", 1)[1].split("]", 1)[0] + "]"
    return f"(no default shown for {option})"


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    cli = corpus.with_name(CLI_FILE)

    ok, version = probekit.module_version(python, "typer", workdir)
    if not ok:
        return False, version
    label = f"typer {version}"

    omitted = _run(python, [str(cli), NAME], workdir)
    given = _run(python, [str(cli), NAME, "--times", "1"], workdir)
    help_run = _run(python, [str(cli), "--help"], workdir)
    shown = _help_default(help_run.stdout, "--times")

    if omitted.returncode != 0:
        run_part = f"`{CLI_FILE} {NAME}` exit {omitted.returncode}: {_first_error(omitted)}"
    else:
        run_part = f"`{CLI_FILE} {NAME}` printed {omitted.stdout.strip()!r}"
    evidence = f"{label}: {run_part}; --help shows --times {shown}"

    passed = (
        omitted.returncode == 0
        and omitted.stdout.strip() == EXPECTED_OMITTED
        and given.returncode == 0
        and given.stdout.strip() == EXPECTED_GIVEN
        and help_run.returncode == 0
        and HELP_DEFAULT in help_run.stdout
        and "[default: =>f'Hello, {name}']" in help_run.stdout
        and "late default" not in help_run.stdout
    )
    if omitted.returncode == 0 and omitted.stdout.strip() != EXPECTED_OMITTED:
        evidence += f" (expected {EXPECTED_OMITTED!r})"
    if given.returncode != 0 or given.stdout.strip() != EXPECTED_GIVEN:
        evidence += (
            f"; with --times 1: exit {given.returncode}, "
            f"{(given.stdout.strip() or _first_error(given))!r} (expected {EXPECTED_GIVEN!r})"
        )
    return passed, evidence
