"""Ecosystem probe for coverage.py: branch coverage of late-bound defaults.

Runs ``coverage run --branch`` of the venv whose interpreter is ``python`` on
``coverage_late_default.py`` (beside the shared corpus), then ``coverage json``
and ``coverage report -m`` on it, once for each core: ``ctrace`` (the C tracer,
the default on 3.13), ``pytrace``, and ``sysmon`` (which coverage.py cannot use
for branches before 3.14: it warns and measures with its default core). It
passes when, for every core, the ``def`` line of ``window``, whose late default
no call evaluates, has a missed branch into its body, and the ``def`` line of
``bisect_right``, whose late default one call evaluates and the other passes,
is a fully covered branch, with no other branch missed.

A stock coverage.py reports the module 100% covered. Standard library only; no
network.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import probekit

MODULE = "coverage_late_default.py"
CORES = ("ctrace", "pytrace", "sysmon")


def _run(python: str, args: list[str], workdir: pathlib.Path,
         env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return probekit.run([python, "-m", "coverage", *args], workdir, env=env)


def _measure(python: str, workdir: pathlib.Path, core: str,
             window: int, bisect: int) -> tuple[bool, str]:
    """Measure with one core: (as asked, the report's line for the module)."""
    data = workdir / f".coverage.{core}"
    env = probekit.clean_env("COVERAGE_", COVERAGE_CORE=core, COVERAGE_FILE=str(data))
    data.unlink(missing_ok=True)
    run = _run(python, ["run", "--branch", MODULE], workdir, env)
    if run.returncode != 0:
        return False, (f"coverage run failed (exit {run.returncode}): "
                       f"{probekit.last_line(run.stderr)}")
    out = workdir / f"{core}.json"
    only = f"--include={MODULE}"
    report = _run(python, ["report", "-m", only], workdir, env)
    as_json = _run(python, ["json", "-q", "-o", out.name, only], workdir, env)
    if report.returncode != 0 or as_json.returncode != 0:
        failed = report if report.returncode != 0 else as_json
        why = probekit.last_line(failed.stderr + failed.stdout)
        return False, f"coverage report failed: {why}"
    lines = report.stdout.splitlines()
    header = " ".join(lines[0].split()) if lines else ""
    row = next((" ".join(line.split()) for line in lines if line.startswith(MODULE)),
               "(no line for the module)")
    row = f"{header} / {row}"
    if "no-sysmon" in run.stderr:
        row += "; no-sysmon"
    measured = json.loads(out.read_text(encoding="utf-8"))["files"][MODULE]
    missing = {tuple(arc) for arc in measured["missing_branches"]}
    executed = {tuple(arc) for arc in measured["executed_branches"]}
    ok = (missing == {(window, window + 1)}
          and (bisect, bisect + 1) in executed
          and not any(arc[0] == bisect for arc in missing))
    return ok, row


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    source_file = corpus.with_name(MODULE)
    shutil.copyfile(source_file, workdir / MODULE)
    window = probekit.line_with(source_file, "def window(")
    bisect = probekit.line_with(source_file, "def bisect_right(")

    ok, version = probekit.module_version(python, "coverage", workdir)
    if not ok:
        return False, version
    label = f"coverage {version}"

    results = {core: _measure(python, workdir, core, window, bisect) for core in CORES}
    failed = [core for core, (ok, _) in results.items() if not ok]
    # The report's line, as `coverage report -m` prints it, for each core.
    rows: dict[str, list[str]] = {}
    for core, (_, row) in results.items():
        rows.setdefault(row.split("; ")[0], []).append(core)
    shown = " | ".join(f"{row} ({', '.join(cores)})" for row, cores in rows.items())
    if any("no-sysmon" in row for _, row in results.values()):
        shown += "; sysmon: coverage warned no-sysmon and measured with its default core"
    if failed:
        return False, (
            f"{label} --branch, core {', '.join(failed)}: window's late default, never "
            f"evaluated, is not the missed branch {window}->{window + 1}; "
            f"`coverage report -m`: {shown}"
        )
    return True, (
        f"{label} --branch: window's def line is the partial branch "
        f"{window}->{window + 1}, bisect_right's is covered; `coverage report -m`: {shown}"
    )
