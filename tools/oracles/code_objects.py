"""The code-object oracle: mutated code of functions with late defaults must be
refused with a Python exception or run to a result or a Python exception, never
crash the interpreter. The mutations and the runs happen in the interpreter under
test (tools.oracles.code_mutation, which decodes its bytecode with its own dis);
this side runs them in batches and pins a crash to its case."""

from __future__ import annotations

from pathlib import Path

from tools.oracles.harness import (BatchResult, Failure, RUNNER, first_unfinished,
                                   run_script)
from tools.paths import REPO


def script(seed: int, numbers: list[int]) -> str:
    cases = ", ".join(f"({n}, lambda: run_case({seed}, {n}))" for n in numbers)
    return (f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
            "from tools.oracles.code_mutation import run_case\n"
            + RUNNER + f"\n_run_cases([{cases}])\n")


def describe(python: Path, seed: int, number: int) -> str:
    run = run_script(python, f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
                             "from tools.oracles.code_mutation import describe\n"
                             f"print(describe({seed}, {number}))\n", timeout=60)
    return run.stdout or run.stderr


def check_batch(python: Path, seed: int, numbers: list[int]) -> BatchResult:
    result = BatchResult()
    pending = list(numbers)
    while pending:
        run = run_script(python, script(seed, pending), timeout=300)
        outcomes = run.outcomes()
        for number in pending:
            outcome = outcomes.get(number)
            if isinstance(outcome, list) and outcome:
                result.done += 1
                key = str(outcome[0])
                result.counts[key] = result.counts.get(key, 0) + 1
        if not (run.crashed or run.timed_out or run.returncode != 0):
            break
        culprit = first_unfinished(run, pending)
        if culprit is None:
            culprit = pending[-1]
        # Again, alone: a crash that needs the cases before it is still reported.
        alone = run_script(python, script(seed, [culprit]), timeout=120)
        note = "" if (alone.crashed or alone.timed_out) else \
            " (not alone: it needs the cases before it in its batch)"
        kind = "crash" if run.crashed else "hang" if run.timed_out else "error"
        result.failures.append(Failure(culprit, kind, f"{run.why()}{note}\n{run.stderr[-3000:]}",
                                       describe(python, seed, culprit)))
        pending = pending[pending.index(culprit) + 1:]
    return result
