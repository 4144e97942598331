"""What the oracles share: batches of cases run as scripts in subprocesses of the
interpreter under test, crash detection, the loop over cases, the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from tools.common import scrubbed_env

# The line a batch script prints when a case is done: the marker, the case number
# and its outcome as JSON.
MARK = "@@case"

# Printed by the interpreter, or by a sanitizer, when a run dies of a bug rather than
# of a Python exception.
CRASH_SIGNS = ("Fatal Python error", "AddressSanitizer", "UndefinedBehaviorSanitizer",
               "runtime error:", "Segmentation fault", "Assertion `", "ThreadSanitizer")

# The end of every batch script: run the cases in order and print each outcome.
RUNNER = f'''
def _run_cases(cases):
    import json, sys
    for number, case in cases:
        try:
            outcome = case()
        except BaseException as exc:  # the case's own code decides what it records
            outcome = ["escaped", type(exc).__name__, str(exc)]
        sys.stdout.write("{MARK} %d %s\\n" % (number, json.dumps(outcome)))
        sys.stdout.flush()
'''


@dataclass
class Run:
    """One subprocess: its exit status, output, and whether it ran out of time."""
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def crashed(self) -> bool:
        """Died of a signal or of a bug report, not of a Python exception."""
        if self.timed_out:
            return False
        return self.returncode < 0 or any(sign in self.stderr for sign in CRASH_SIGNS)

    def outcomes(self) -> dict[int, object]:
        """The outcome of each case that finished, by case number."""
        done: dict[int, object] = {}
        for line in self.stdout.splitlines():
            if line.startswith(MARK + " "):
                _, number, payload = line.split(" ", 2)
                done[int(number)] = json.loads(payload)
        return done

    def why(self) -> str:
        """One or two lines on how the run ended, for a report."""
        if self.timed_out:
            return "timed out"
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        signs = [line for line in lines if any(sign in line for sign in CRASH_SIGNS)]
        status = (f"killed by signal {-self.returncode}" if self.returncode < 0
                  else f"exit status {self.returncode}")
        detail = (signs or lines[-1:] or ["no output"])[0].strip()
        return f"{status}: {detail[:300]}"


def run_script(python: Path, script: str, *, flags: Sequence[str] = (),
               timeout: float = 120.0, env: dict[str, str] | None = None) -> Run:
    """Run script (a whole module's text) with python, in the scrubbed environment
    CPython's own tests get (no PYTHON* variables; tools.common.scrubbed_env)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="oracle-",
                                     delete=False) as handle:
        handle.write(script)
        path = handle.name
    try:
        proc = subprocess.run([str(python), *flags, path], capture_output=True, text=True,
                              timeout=timeout, env=env or scrubbed_env(),
                              stdin=subprocess.DEVNULL, errors="replace")
        return Run(proc.returncode, proc.stdout, proc.stderr)
    except subprocess.TimeoutExpired as exc:
        def text(data: bytes | str | None) -> str:
            if isinstance(data, bytes):
                return data.decode(errors="replace")
            return data or ""
        return Run(-9, text(exc.stdout), text(exc.stderr), timed_out=True)
    finally:
        os.unlink(path)


@dataclass
class Failure:
    """A case that crashed, hung or disagreed with its oracle."""
    case: int
    kind: str          # 'crash', 'hang', 'mismatch', 'error'
    detail: str
    source: str = ""   # the case's program, or what it did, for the report


@dataclass
class BatchResult:
    done: int = 0                  # cases run to the end, in every interpreter
    failures: list[Failure] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # oracle-specific tallies

    def add(self, other: "BatchResult") -> None:
        self.done += other.done
        self.failures += other.failures
        for key, value in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + value


def first_unfinished(run: Run, cases: Sequence[int]) -> int | None:
    """The case a batch died in: the first one with no outcome."""
    finished = run.outcomes()
    return next((case for case in cases if case not in finished), None)


@dataclass
class Loop:
    """The loop over cases: batches of consecutive case numbers from 0 (or one case,
    to replay it) until the case count or the time runs out, with progress lines."""
    name: str
    seed: int
    cases: int = 0            # 0: no limit
    seconds: float = 0.0      # 0: no limit
    batch: int = 20
    only: int | None = None   # replay this case
    progress: float = 10.0
    keep_going: bool = False

    def run(self, check: Callable[[int, list[int]], BatchResult]) -> BatchResult:
        total = BatchResult()
        started = time.monotonic()
        last = started
        start = 0
        while True:
            if self.only is not None:
                numbers = [self.only]
            else:
                left = self.cases - start if self.cases else self.batch
                if left <= 0 or (self.seconds and time.monotonic() - started >= self.seconds):
                    break
                numbers = list(range(start, start + min(self.batch, left)))
            result = check(self.seed, numbers)
            total.add(result)
            for failure in result.failures:
                self.report(failure)
            start = numbers[-1] + 1
            now = time.monotonic()
            if self.progress and now - last >= self.progress:
                last = now
                print(f"oracle {self.name}: {total.done} cases, {len(total.failures)} failures, "
                      f"{now - started:.0f}s", flush=True)
            if self.only is not None or (total.failures and not self.keep_going):
                break
        extra = "".join(f", {value} {key}" for key, value in sorted(total.counts.items()))
        print(f"oracle {self.name}: {total.done} cases, {len(total.failures)} failures"
              f"{extra} (seed {self.seed}, {time.monotonic() - started:.0f}s)", flush=True)
        return total

    def report(self, failure: Failure) -> None:
        print(f"\n=== oracle {self.name}: {failure.kind} in case {failure.case} "
              f"(seed {self.seed})", flush=True)
        print(failure.detail)
        if failure.source:
            print("--- the case:")
            print(failure.source.rstrip())
        print(f"--- replay: python3 -m tools.check.oracles {self.name} --seed {self.seed} "
              f"--case {failure.case}", flush=True)


def interpreter_label(python: Path) -> str:
    """The first line of `python -VV`: which build a report speaks of."""
    try:
        out = subprocess.run([str(python), "-VV"], capture_output=True, text=True,
                             timeout=30, env=scrubbed_env()).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} ({exc})"
    return out.splitlines()[0] if out else str(python)


def this_python() -> Path:
    return Path(sys.executable)
