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
   (built on demand with --build-baseline). Baseline verdicts are cached per
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
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tools.paths import BASELINE_PYTHON, LOGS, PYTHON, REPO, TARBALL_SHA256
from tools.common import (ToolError, base_executable, built_python,
                          cache_dir, die, run_logged, say, scrubbed_env)

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
    try:
        libtest = base_executable(python).parent / "Lib" / "test"
    except ToolError as exc:
        die(str(exc))
    rel = name.removeprefix("test.").replace(".", "/")
    return (libtest / f"{rel}.py").is_file() or (libtest / rel).is_dir()


def main(argv: list[str] | None = None) -> int:
    # A background job of a non-interactive shell starts with SIGINT ignored,
    # and an ignored signal stays ignored across exec: the tests that
    # interrupt themselves (test_asyncio.test_runners, ...) would then hang.
    # With a handler installed here, the children start with SIG_DFL.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    ap = argparse.ArgumentParser(prog="python3 -m tools.regrtest_parity", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", type=Path, default=PYTHON)
    ap.add_argument("--baseline-python", type=Path,
                    default=BASELINE_PYTHON)
    ap.add_argument("--build-baseline", default="make baseline",
                    help="command that builds the baseline (default: %(default)r)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=1200, help="per-test timeout, seconds")
    ap.add_argument("--tests", default="", help="test names to run (default: the full suite)")
    ap.add_argument("--configure-flags", default="", help="part of the baseline cache key")
    ap.add_argument("--baseline-label", default="the baseline",
                    help="what the baseline is, in messages (default: %(default)r)")
    ap.add_argument("--no-cache", action="store_true",
                    help="neither read nor write the cached baseline verdicts (whose key "
                         "assumes the baseline is the unpatched upstream build)")
    ap.add_argument("--summary-json", type=Path,
                    help="also write the verdict lists to this JSON file")
    ap.add_argument("--logdir", type=Path, default=LOGS)
    args = ap.parse_args(argv)

    python = built_python(args.python)
    tests = args.tests.split()
    base = [str(python), "-m", "test", "--timeout", str(args.timeout)]
    t0 = time.monotonic()
    say(f"regrtest on {os.path.relpath(python)}: {'full suite' if not tests else ' '.join(tests)}"
        f" (-j{args.jobs}, --timeout {args.timeout}; log: {os.path.relpath(args.logdir / 'regrtest.log')})")
    rc, out = run_suite([*base, f"-j{args.jobs}", *tests], args.logdir / "regrtest.log", echo=True)
    summary = parse_summary(out)
    if summary is None:
        die(f"regrtest did not finish (exit {rc}, no result line); see {args.logdir / 'regrtest.log'}")
    failed = summary.get("failed", [])
    env_changed = summary.get("altered the execution environment (env changed)", [])
    if rc not in (0, 2, 3) or (rc == 2 and not failed):
        die(f"regrtest exited {rc} and named no failed test (no tests ran?); "
            f"see {args.logdir / 'regrtest.log'}")

    flaky: list[str] = []
    twice: list[str] = []
    for name in failed:
        say(f"rerunning {name} on {os.path.relpath(python)}")
        rrc, _ = run_suite([*base, "-j1", "-W", name], args.logdir / f"regrtest-rerun-{name}.log",
                            echo=False)
        (twice if rrc != 0 else flaky).append(name)
        say(f"  {name}: {'failed again' if rrc != 0 else 'passed (flaky)'}")

    cache_file = cache_dir() / (
        f"baseline-verdicts-{machine_id()}-"
        f"{hashlib.sha256((TARBALL_SHA256 + ' ' + args.configure_flags).encode()).hexdigest()[:12]}.json")
    verdicts: dict[str, str] = {}
    if cache_file.is_file() and not args.no_cache:
        try:
            verdicts = json.loads(cache_file.read_text())
        except ValueError:
            verdicts = {}
    baseline = args.baseline_python.absolute()
    label = args.baseline_label
    built = False
    for name in twice:
        if name in verdicts and verdicts[name] in ("pass", "fail"):
            say(f"verdict of {label} for {name}: {verdicts[name]} (cached in {cache_file})")
            continue
        if not built and not baseline.exists():
            say(f"building {label}: {args.build_baseline}")
            if subprocess.run(args.build_baseline, shell=True, cwd=REPO).returncode != 0:
                die(f"building {label} failed")
        built = True
        if not test_exists(baseline, name):
            verdicts[name] = "absent"
            say(f"{label}: {name} does not exist there (a test we add); counts as passing")
            continue
        say(f"running {name} on {label}")
        brc, _ = run_suite([str(baseline), "-m", "test", "--timeout", str(args.timeout),
                             "-j1", "-W", name], args.logdir / f"regrtest-baseline-{name}.log",
                            echo=False)
        verdicts[name] = "pass" if brc == 0 else "fail"
        say(f"  {name} on {label}: {verdicts[name]}")
        if not args.no_cache:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(
                {k: v for k, v in sorted(verdicts.items()) if v in ("pass", "fail")},
                indent=1) + "\n")

    shared = [n for n in twice if verdicts.get(n) == "fail"]
    regressions = [n for n in twice if verdicts.get(n) in ("pass", "absent")]
    minutes = (time.monotonic() - t0) / 60
    print()
    print(f"== regrtest parity summary ({minutes:.1f} min) ==")
    print(f"failed on the first run: {' '.join(failed) or 'none'}")
    print(f"flaky (passed when rerun): {' '.join(flaky) or 'none'}")
    print(f"env changed (reported only): {' '.join(env_changed) or 'none'}")
    print(f"failures shared with {label} (not counted): {' '.join(shared) or 'none'}")
    print(f"regressions (fail twice on {os.path.relpath(python)}, pass on {label}): "
          f"{' '.join(regressions) or 'none'}")
    if args.summary_json:
        args.summary_json.parent.mkdir(parents=True, exist_ok=True)
        args.summary_json.write_text(json.dumps(
            {"failed": failed, "flaky": flaky, "env_changed": env_changed, "shared": shared,
             "regressions": regressions, "minutes": round(minutes, 1),
             "logs": {n: str(args.logdir / f"regrtest-rerun-{n}.log") for n in twice}},
            indent=1) + "\n")
    if regressions:
        print("regrtest parity: FAILED; logs: " + ", ".join(
            os.path.relpath(args.logdir / f"regrtest-rerun-{n}.log") for n in regressions))
        return 1
    print("regrtest parity: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
