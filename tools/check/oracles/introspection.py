"""The introspection oracle: what inspect says of a function follows the late-default
objects it holds, and calls follow its code (tools.check.oracles.signature_checks runs the
cases in the interpreter under test; this side runs them in batches and reports
disagreements and crashes)."""

from __future__ import annotations

from pathlib import Path

from tools.check.oracles.harness import (BatchResult, Failure, RUNNER, first_unfinished,
                                   run_script)
from tools.paths import REPO


def script(seed: int, numbers: list[int], worker: str) -> str:
    cases = ", ".join(f"({n}, lambda: run_case({seed}, {n}))" for n in numbers)
    return (f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
            f"from tools.check.oracles.{worker} import run_case\n"
            + RUNNER + f"\n_run_cases([{cases}])\n")


def check_batch(python: Path, seed: int, numbers: list[int]) -> BatchResult:
    result = BatchResult()
    pending = list(numbers)
    while pending:
        run = run_script(python, script(seed, pending, "signature_checks"), timeout=300)
        outcomes = run.outcomes()
        for number in pending:
            outcome = outcomes.get(number)
            if not isinstance(outcome, list) or not outcome:
                continue
            result.done += 1
            if outcome[0] == "ok":
                continue
            detail = f"after {outcome[1]}:\n  " + "\n  ".join(map(str, outcome[2:]))
            describe = run_script(
                python, f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
                        "from tools.check.oracles.signature_checks import describe\n"
                        f"print(describe({seed}, {number}))\n", timeout=60)
            result.failures.append(Failure(number, "mismatch", detail, describe.stdout))
        if not (run.crashed or run.timed_out or run.returncode != 0):
            break
        culprit = first_unfinished(run, pending) or pending[-1]
        kind = "crash" if run.crashed else "hang" if run.timed_out else "error"
        result.failures.append(Failure(culprit, kind, f"{run.why()}\n{run.stderr[-3000:]}"))
        pending = pending[pending.index(culprit) + 1:]
    return result
