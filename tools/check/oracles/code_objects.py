"""The code-object oracle: code of functions with late defaults, rewritten the ways
tools rewrite code (keeping upstream CPython's invariants) and rebuilt, must behave
as the code it was made from: called in the same ways, the mutant gives the same
values and the same exceptions, and the process lives. The mutations and the calls
happen in the interpreter under test (tools.check.oracles.code_mutation, which decodes
its bytecode with its own dis); this side runs them in batches, reports the cases
whose mutant disagrees with its original, and pins a crash to its case."""

from __future__ import annotations

from pathlib import Path

from tools.check.oracles.harness import (BatchResult, Failure, RUNNER, first_unfinished,
                                   run_script)
from tools.paths import REPO


def script(seed: int, numbers: list[int]) -> str:
    cases = ", ".join(f"({n}, lambda: run_case({seed}, {n}))" for n in numbers)
    return (f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
            "from tools.check.oracles.code_mutation import run_case\n"
            + RUNNER + f"\n_run_cases([{cases}])\n")


def describe(python: Path, seed: int, number: int) -> str:
    run = run_script(python, f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
                             "from tools.check.oracles.code_mutation import describe\n"
                             f"print(describe({seed}, {number}))\n", timeout=60)
    return run.stdout or run.stderr


# How each outcome of code_mutation.run_case is counted in the last line.
COUNTED = {"same": "mutants agreed", "unsafe": "mutants not run (unbalanced: the "
           "mutator's fault)", "differ": "mutants disagreed", "escaped": "cases that raised"}


def check_batch(python: Path, seed: int, numbers: list[int]) -> BatchResult:
    result = BatchResult()
    pending = list(numbers)
    while pending:
        run = run_script(python, script(seed, pending), timeout=300)
        outcomes = run.outcomes()
        for number in pending:
            outcome = outcomes.get(number)
            if not isinstance(outcome, list) or not outcome:
                continue
            result.done += 1
            key = COUNTED.get(str(outcome[0]), str(outcome[0]))
            result.counts[key] = result.counts.get(key, 0) + 1
            if outcome[0] in ("differ", "escaped"):
                detail = "\n  ".join(map(str, outcome[1:]))
                kind = "mismatch" if outcome[0] == "differ" else "error"
                result.failures.append(Failure(number, kind, f"  {detail}",
                                               describe(python, seed, number)))
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
