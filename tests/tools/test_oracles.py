"""tools.oracles: the harness catches a crash and pins it to its case; the mutator
decodes and encodes code faithfully; each oracle's checks can fail."""

from __future__ import annotations

import functools
import inspect
import random
import sys
import types
from pathlib import Path

import pytest

from tools.oracles import code_mutation, signature_checks, specialization
from tools.oracles.harness import Loop, RUNNER, first_unfinished, run_script

PY = Path(sys.executable)


def test_a_crash_is_pinned_to_its_case() -> None:
    script = RUNNER + (
        "\nimport ctypes\n"
        "_run_cases([(0, lambda: ['fine']), (1, lambda: ctypes.string_at(0)),"
        " (2, lambda: ['never'])])\n")
    run = run_script(PY, script, timeout=60)
    assert run.crashed
    assert run.outcomes() == {0: ["fine"]}
    assert first_unfinished(run, [0, 1, 2]) == 1
    assert "signal" in run.why()


def test_an_exception_is_an_outcome_not_a_crash() -> None:
    run = run_script(PY, RUNNER + "\n_run_cases([(5, lambda: 1 / 0)])\n", timeout=60)
    assert not run.crashed and run.returncode == 0
    assert run.outcomes() == {5: ["escaped", "ZeroDivisionError", "division by zero"]}


def test_the_loop_replays_one_case_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    from tools.oracles.harness import BatchResult
    seen: list[list[int]] = []

    def check(seed: int, numbers: list[int]) -> BatchResult:
        seen.append(numbers)
        return BatchResult(done=len(numbers))
    Loop("demo", 3, only=17, progress=0).run(check)
    assert seen == [[17]]
    Loop("demo", 3, cases=45, batch=20, progress=0).run(check)
    assert seen[1:] == [list(range(20)), list(range(20, 40)), list(range(40, 45))]
    assert capsys.readouterr().out.splitlines()[-1].startswith("oracle demo: 45 cases, 0 failures")


def functions_with_late_defaults() -> list[types.FunctionType]:
    ns: dict[str, object] = {}
    exec("def f(a, b=>[x for x in (a,)], *, c=>len(b)):\n"
         "    try:\n        return a, b, c\n    except Exception:\n        return 1\n"
         "def g(a=>0, b=>(lambda: a)()):\n    yield a, b\n", ns)
    return [ns["f"], ns["g"]]  # type: ignore[list-item]


@pytest.mark.parametrize("func", functions_with_late_defaults(), ids=["f", "g"])
def test_decode_and_encode_give_back_the_code(func: types.FunctionType) -> None:
    code = func.__code__
    program = code_mutation.decode(code)
    co_code, table = code_mutation.encode(program)
    assert co_code == code.co_code
    assert table == code.co_exceptiontable
    assert code_mutation.stack_depths(program) == code.co_stacksize


def test_stack_depths_refuses_unbalanced_code() -> None:
    program = code_mutation.decode(functions_with_late_defaults()[0].__code__)
    program.instrs.insert(1, code_mutation.Instr("POP_TOP", 0))
    assert code_mutation.stack_depths(program) is None


def test_stack_depths_keeps_for_iter_s_exit() -> None:
    # FOR_ITER's exit jumps past the END_FOR and POP_TOP at its target: an
    # instruction between them would be popped into (upstream's invariant).
    program = code_mutation.decode(functions_with_late_defaults()[0].__code__)
    end_for = next(k for k, i in enumerate(program.instrs) if i.name == "END_FOR")
    assert code_mutation.stack_depths(program) is not None
    program.instrs.insert(end_for + 1, code_mutation.Instr("NOP", 0))
    assert code_mutation.stack_depths(program) is None


def test_specialization_cases_compile_and_alternate() -> None:
    kinds = set()
    for number in range(120):
        source, late = specialization.case_source(9, number)
        compile(source, f"<case {number}>", "exec")
        kinds.add(late)
        assert specialization.case_source(9, number) == (source, late)  # by the seed
    assert kinds == {True, False}


def test_signature_checks_catch_a_signature_that_lies(monkeypatch: pytest.MonkeyPatch) -> None:
    # The defaults record that they run, as the oracle's functions do.
    ns = {"_ran": signature_checks._ran}
    exec("def f(a, b=>(_ran('t.b'), a), *, c=0):\n    return a, b, c\n", ns)
    f = ns["f"]
    rng = random.Random(1)
    assert signature_checks.check(f, rng, [types.LateDefaultType("x")]) == []
    # A signature that shows late defaults as early ones no longer agrees.
    monkeypatch.setattr(inspect.Parameter, "_late_text", lambda self: None)
    problems = signature_checks.check(f, random.Random(1), [types.LateDefaultType("x")])
    assert any("is not shown late" in p for p in problems)
    # And one that shows an early default as late.
    monkeypatch.setattr(inspect.Parameter, "_late_text", lambda self: "(_ran('t.b'), a)")
    problems = signature_checks.check(functools.partial(f, 1), random.Random(1),
                                      [types.LateDefaultType("x")])
    assert any("is shown late" in p for p in problems)
