"""Run CPython's regression suite on the patched interpreter in parity mode.

1. Run `PYTHON -m test -j<jobs> --timeout <timeout> [TESTS...]` once.
   The suite gets the environment without any PYTHON* variable (e.g.
   PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED break test_cmd_line and
   test_compileall), and with SIGINT at its default even when this driver
   was started with it ignored (as background jobs of scripts are).
   Output is streamed and kept in build/logs/regrtest.log.
2. The test files regrtest lists as "failed" -- which covers failures,
   errors, crashes (worker exited non-zero), timeouts, uncaught exceptions
   and refleaks -- are rerun one by one on PYTHON (`-j1 -W`: the log shows
   the output of a failing test; same timeout).
   A file that passes on the rerun is reported as flaky and not counted.
   Files listed as "env changed" are reported only (as regrtest does by
   default); skipped files and resource-denied files are not failures.
3. A file that fails twice is run on the unpatched baseline interpreter
   (build/baseline, built on demand through
   tools.build.cpython.build_baseline). Baseline verdicts are cached per
   machine and configure flags in ~/.cache/pep671/. A file that is absent
   from the baseline (a test our patches add) counts as passing there.
4. Exit 1 only for files that failed twice on PYTHON and pass on the
   baseline; failures shared with the baseline are printed, not counted.
   Exit 1 also when regrtest did not finish (no result line) or ran no tests.
   --summary-json writes these lists for a driver (tools.dogfood).

The baseline need not be the unpatched upstream build: `make dogfood` compares
a tree whose Lib/ is rewritten with the patched tree (--baseline-python
./python --baseline-label ... --no-cache).

The verdicts come from regrtest's closing summary, not from its --junit-xml
file: in 3.13 that file holds one <testsuite> per test file that ran to the
end, without the file's name, and nothing for a file that crashed, timed out,
failed to import or leaked references (nor the "env changed" list), which are
exactly the verdicts this driver needs (Lib/test/libregrtest/single.py adds a
suite only after unittest ran; results.py writes only those).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.build.cpython import build_baseline
from tools.common import (ToolError, base_executable, built_python, cache_dir, exits_on_tool_error,
                          restore_sigint, run_logged, say, scrubbed_env)
from tools.paths import BASELINE, BASELINE_PYTHON, LOGS, PYTHON, TARBALL_SHA256, shown

HEADER = re.compile(r"^(\d+) (test|tests|re-run test|re-run tests) (.+):$")


def run_suite(cmd: list[str], log: Path, echo: bool) -> tuple[int, str]:
    """Run regrtest in the scrubbed environment; its exit status and output."""
    rc = run_logged(cmd, log, env=scrubbed_env(), echo=echo)
    return rc, log.read_text(errors="replace")


def parse_summary(output: str) -> dict[str, list[str]] | None:
    """regrtest's closing lists, by title: {"failed": [...], ...}; None if absent."""
    lines = output.splitlines()
    if not any(line.startswith("== Tests result:") or line.startswith("Result:")
               for line in lines):
        return None
    sections: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i].rstrip())
        if m:
            title = m.group(3)
            names: list[str] = []
            i += 1
            while i < len(lines) and lines[i].startswith("    "):
                names += lines[i].split()
                i += 1
            sections[title] = names   # the last occurrence wins
            continue
        i += 1
    return sections


def machine_id() -> str:
    for p in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            text = Path(p).read_text().strip()
        except OSError:
            continue
        if text:
            return hashlib.sha256(text.encode()).hexdigest()[:12]
    return socket.gethostname()


def test_exists(python: Path, name: str) -> bool:
    """Does the tree of python (an in-tree build, or a wrapper that runs one) have
    the test file or package `name`?"""
    libtest = base_executable(python).parent / "Lib" / "test"
    rel = name.removeprefix("test.").replace(".", "/")
    return (libtest / f"{rel}.py").is_file() or (libtest / rel).is_dir()


@dataclass
class Parity:
    """The verdicts of a parity run, by test file."""
    failed: list[str]             # failed on the first run
    env_changed: list[str]        # reported only
    flaky: list[str] = field(default_factory=list)        # passed when rerun
    shared: list[str] = field(default_factory=list)       # also fail on the baseline
    regressions: list[str] = field(default_factory=list)  # fail twice, pass on the baseline
    minutes: float = 0.0
    logs: dict[str, str] = field(default_factory=dict)    # rerun log of each failing file

    def to_json(self) -> str:
        return json.dumps({"failed": self.failed, "flaky": self.flaky,
                           "env_changed": self.env_changed, "shared": self.shared,
                           "regressions": self.regressions, "minutes": self.minutes,
                           "logs": self.logs}, indent=1) + "\n"


def first_run(python: Path, tests: list[str], jobs: int, timeout: int, logdir: Path) -> Parity:
    """Step 1: the suite once; what failed on it."""
    log = logdir / "regrtest.log"
    say(f"regrtest on {os.path.relpath(python)}: {' '.join(tests) or 'full suite'}"
        f" (-j{jobs}, --timeout {timeout}; log: {os.path.relpath(log)})")
    rc, out = run_suite([str(python), "-m", "test", "--timeout", str(timeout), f"-j{jobs}",
                         *tests], log, echo=True)
    summary = parse_summary(out)
    if summary is None:
        raise ToolError(f"regrtest did not finish (exit {rc}, no result line); see {log}")
    failed = summary.get("failed", [])
    if rc not in (0, 2, 3) or (rc == 2 and not failed):
        raise ToolError(f"regrtest exited {rc} and named no failed test (no tests ran?); "
                        f"see {log}")
    return Parity(failed, summary.get("altered the execution environment (env changed)", []))


def rerun_failed(python: Path, parity: Parity, timeout: int, logdir: Path) -> list[str]:
    """Step 2: each failed file again, alone; the flaky ones go to parity.flaky. Returns
    the files that failed twice."""
    twice: list[str] = []
    for name in parity.failed:
        say(f"rerunning {name} on {os.path.relpath(python)}")
        log = logdir / f"regrtest-rerun-{name}.log"
        rc, _ = run_suite([str(python), "-m", "test", "--timeout", str(timeout), "-j1", "-W",
                           name], log, echo=False)
        (twice if rc != 0 else parity.flaky).append(name)
        if rc != 0:
            parity.logs[name] = str(log)
        say(f"  {name}: {'failed again' if rc != 0 else 'passed (flaky)'}")
    return twice


def verdict_cache(configure_flags: str) -> Path:
    """Where the baseline's verdicts are kept: per machine, tarball and configure flags."""
    key = hashlib.sha256(f"{TARBALL_SHA256} {configure_flags}".encode()).hexdigest()[:12]
    return cache_dir() / f"baseline-verdicts-{machine_id()}-{key}.json"


def load_verdicts(cache: Path | None) -> dict[str, str]:
    if cache is None or not cache.is_file():
        return {}
    try:
        return dict(json.loads(cache.read_text()))
    except ValueError:
        return {}


def save_verdicts(cache: Path | None, verdicts: dict[str, str]) -> None:
    if cache is None:
        return
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({k: v for k, v in sorted(verdicts.items())
                                 if v in ("pass", "fail")}, indent=1) + "\n")


def ensure_baseline(baseline: Path, label: str, configure_flags: str, jobs: int) -> None:
    """Build the unpatched baseline when it is the default one and missing."""
    if baseline.exists():
        return
    if baseline != BASELINE_PYTHON.absolute():
        raise ToolError(f"{label} ({baseline}) does not exist; build it first")
    say(f"building {label} ({shown(BASELINE)})")
    build_baseline(configure_flags=configure_flags, jobs=jobs)


def judge_on_baseline(twice: list[str], baseline: Path, label: str, *, timeout: int,
                      logdir: Path, cache: Path | None, configure_flags: str,
                      jobs: int) -> dict[str, str]:
    """Step 3: the verdict of the baseline on each file that failed twice: "pass",
    "fail" or "absent" (cached in `cache` unless it is None)."""
    verdicts = load_verdicts(cache)
    for name in twice:
        if verdicts.get(name) in ("pass", "fail"):
            say(f"verdict of {label} for {name}: {verdicts[name]} (cached in {cache})")
            continue
        ensure_baseline(baseline, label, configure_flags, jobs)
        if not test_exists(baseline, name):
            verdicts[name] = "absent"
            say(f"{label}: {name} does not exist there (a test we add); counts as passing")
            continue
        say(f"running {name} on {label}")
        rc, _ = run_suite([str(baseline), "-m", "test", "--timeout", str(timeout), "-j1", "-W",
                           name], logdir / f"regrtest-baseline-{name}.log", echo=False)
        verdicts[name] = "pass" if rc == 0 else "fail"
        say(f"  {name} on {label}: {verdicts[name]}")
        save_verdicts(cache, verdicts)
    return verdicts


def run_parity(python: Path, baseline: Path, *, tests: list[str], jobs: int,
               timeout: int = 1200, logdir: Path = LOGS, configure_flags: str = "",
               label: str = "the baseline", use_cache: bool = True) -> Parity:
    """Steps 1 to 3 of the module's docstring; raises ToolError when regrtest did not
    finish or ran no tests."""
    t0 = time.monotonic()
    parity = first_run(python, tests, jobs, timeout, logdir)
    twice = rerun_failed(python, parity, timeout, logdir)
    verdicts = judge_on_baseline(
        twice, baseline.absolute(), label, timeout=timeout, logdir=logdir,
        cache=verdict_cache(configure_flags) if use_cache else None,
        configure_flags=configure_flags, jobs=jobs)
    parity.shared = [n for n in twice if verdicts.get(n) == "fail"]
    parity.regressions = [n for n in twice if verdicts.get(n) in ("pass", "absent")]
    parity.minutes = round((time.monotonic() - t0) / 60, 1)
    return parity


def print_summary(parity: Parity, python: Path, label: str) -> None:
    print()
    print(f"== regrtest parity summary ({parity.minutes:.1f} min) ==")
    print(f"failed on the first run: {' '.join(parity.failed) or 'none'}")
    print(f"flaky (passed when rerun): {' '.join(parity.flaky) or 'none'}")
    print(f"env changed (reported only): {' '.join(parity.env_changed) or 'none'}")
    print(f"failures shared with {label} (not counted): {' '.join(parity.shared) or 'none'}")
    print(f"regressions (fail twice on {os.path.relpath(python)}, pass on {label}): "
          f"{' '.join(parity.regressions) or 'none'}")
    if parity.regressions:
        print("regrtest parity: FAILED; logs: " + ", ".join(
            os.path.relpath(parity.logs[n]) for n in parity.regressions))
    else:
        print("regrtest parity: OK")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.regrtest_parity", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, default=PYTHON)
    ap.add_argument("--baseline-python", type=Path, default=BASELINE_PYTHON,
                    help=f"(default: {shown(BASELINE_PYTHON)}, built by tools.build.cpython when "
                    "missing)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=1200, help="per-test timeout, seconds")
    ap.add_argument("--tests", default="", help="test names to run (default: the full suite)")
    ap.add_argument("--configure-flags", default="",
                    help="the baseline's configure flags; part of the cache key")
    ap.add_argument("--baseline-label", default="the baseline",
                    help="what the baseline is, in messages (default: %(default)r)")
    ap.add_argument("--no-cache", action="store_true",
                    help="neither read nor write the cached baseline verdicts (whose key "
                         "assumes the baseline is the unpatched upstream build)")
    ap.add_argument("--summary-json", type=Path,
                    help="also write the verdict lists to this JSON file")
    ap.add_argument("--logdir", type=Path, default=LOGS)
    args = ap.parse_args(argv)
    restore_sigint()
    python = built_python(args.python)
    parity = run_parity(python, args.baseline_python, tests=args.tests.split(), jobs=args.jobs,
                        timeout=args.timeout, logdir=args.logdir,
                        configure_flags=args.configure_flags, label=args.baseline_label,
                        use_cache=not args.no_cache)
    print_summary(parity, python, args.baseline_label)
    if args.summary_json:
        args.summary_json.parent.mkdir(parents=True, exist_ok=True)
        args.summary_json.write_text(parity.to_json())
    return 1 if parity.regressions else 0


if __name__ == "__main__":
    sys.exit(main())
