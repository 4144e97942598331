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
import os
import pathlib
import shutil
import subprocess

MODULE = "coverage_late_default.py"
CORES = ("ctrace", "pytrace", "sysmon")


def _def_line(source: str, name: str) -> int:
    for number, line in enumerate(source.splitlines(), 1):
        if line.startswith(f"def {name}("):
            return number
    raise ValueError(f"{MODULE} has no function {name}")


def _run(python: str, args: list[str], workdir: pathlib.Path,
         env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "coverage", *args], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def _measure(python: str, workdir: pathlib.Path, core: str,
             window: int, bisect: int) -> tuple[bool, str]:
    """Measure with one core: (as asked, the report's line for the module)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "COVERAGE_"))}
    env["COVERAGE_CORE"] = core
    data = workdir / f".coverage.{core}"
    env["COVERAGE_FILE"] = str(data)
    data.unlink(missing_ok=True)
    run = _run(python, ["run", "--branch", MODULE], workdir, env)
    if run.returncode != 0:
        return False, f"coverage run failed (exit {run.returncode}): {_last_line(run.stderr)}"
    out = workdir / f"{core}.json"
    only = f"--include={MODULE}"
    report = _run(python, ["report", "-m", only], workdir, env)
    as_json = _run(python, ["json", "-q", "-o", out.name, only], workdir, env)
    if report.returncode != 0 or as_json.returncode != 0:
        failed = report if report.returncode != 0 else as_json
        return False, f"coverage report failed: {_last_line(failed.stderr + failed.stdout)}"
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
    corpus = pathlib.Path(corpus)
    source_file = (corpus if corpus.is_dir() else corpus.parent) / MODULE
    workdir = pathlib.Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source_file, workdir / MODULE)
    source = source_file.read_text(encoding="utf-8")
    window, bisect = _def_line(source, "window"), _def_line(source, "bisect_right")

    version = subprocess.run([python, "-c", "import coverage; print(coverage.__version__)"],
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    if version.returncode != 0:
        return False, f"coverage is not importable in the venv: {_last_line(version.stderr)}"
    label = f"coverage {version.stdout.strip()}"

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
