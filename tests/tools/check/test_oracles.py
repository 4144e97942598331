"""tools.check.oracles: the harness catches a crash and pins it to its case; the mutator
decodes and encodes code faithfully, keeps upstream's invariants and its oracle
compares a mutant with its original; each oracle's checks can fail."""

from __future__ import annotations

import functools
import inspect
import random
import sys
import types
from pathlib import Path

import pytest

from tools.check.oracles import code_mutation, signature_checks, specialization
from tools.check.oracles.harness import Loop, RUNNER, first_unfinished, run_script

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
    from tools.check.oracles.harness import BatchResult
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


def test_insertions_keep_or_take_the_label() -> None:
    # Before the label, a jump keeps its target; after it (a block's probe), the
    # jump goes to the new code, which falls through to the old target.
    program = code_mutation.decode(functions_with_late_defaults()[0].__code__)
    jump = next(i for i in program.instrs if i.name == "POP_JUMP_IF_TRUE")
    target = program.instrs[jump.target]
    assert target.name == "QUERY_FAST"
    code_mutation.insert(program, jump.target, [code_mutation.Instr("NOP", 0)])
    assert program.instrs[jump.target] is target
    code_mutation.insert(program, jump.target, [code_mutation.Instr("NOP", 0)],
                         after_label=True)
    assert program.instrs[jump.target].name == "NOP"
    assert program.instrs[jump.target + 1] is target
    assert code_mutation.stack_depths(program) is not None


def test_a_generator_s_handler_sees_late_parameters_unbound() -> None:
    # A generator's own handler covers the prologue: a LOAD_FAST of a late-bound
    # parameter there may read NULL (an upstream invariant the mutator keeps).
    gen = functions_with_late_defaults()[1]
    program = code_mutation.decode(gen.__code__)
    unbound = code_mutation.maybe_unbound(program, gen.__code__)
    resume = code_mutation.resume_index(program)
    assert unbound[resume + 1] == set()
    handler = max(h.target for h in program.handlers)
    assert unbound[handler] == {1}     # b; a is in a cell (its LOAD_FAST reads the cell)


def test_mutants_keep_upstream_invariants_and_are_deterministic() -> None:
    kinds = set()
    for number in range(150):
        outcome = code_mutation.run_case(3, number)
        assert outcome[0] in ("same", "differ"), outcome
        kinds.update(kind.split(" at ")[-1].split()[0] for kind in outcome[1])
        if number < 10:
            assert code_mutation.run_case(3, number) == outcome
            assert "mutations:" in code_mutation.describe(3, number)
    assert {"resume", "boundary", "block"} <= kinds


def test_the_mutant_is_compared_with_its_original(monkeypatch: pytest.MonkeyPatch) -> None:
    # A mutation that changes what the code does (its loads of numbers, strings and
    # None load another constant) disagrees with the unmutated function.
    def wrong(rng: random.Random, code: types.CodeType) -> code_mutation.Mutant:
        consts = code.co_consts + ("wrong",)
        program = code_mutation.decode(code)
        for ins in program.instrs:
            if (ins.name in code_mutation.CONST_LOADS
                    and isinstance(consts[ins.arg], (int, str, type(None)))):
                ins.arg = len(consts) - 1
        return code_mutation.Mutant(program, consts, code.co_names, ["wrong loads"])
    monkeypatch.setattr(code_mutation, "mutate", wrong)
    outcomes = [code_mutation.run_case(5, number) for number in range(10)]
    assert any(outcome[0] == "differ" for outcome in outcomes), outcomes


def ran_twice(tag: str) -> dict[str, object]:
    ns = {"_ran": signature_checks._ran}
    exec(f"def f(a, b=>(_ran('{tag}.b'), a), *, c=0):\n    return a, b, c\n", ns)
    return ns


def test_signature_checks_agree_with_a_late_bound_function() -> None:
    f = ran_twice("f1_0")["f"]
    assert signature_checks.check(f, random.Random(1), [types.LateDefaultType("x")]) == []
    # Objects moved between functions and parameters: late with their own texts where
    # the code tests the parameter (the call runs the code's default), values where
    # it does not.
    g = ran_twice("f1_1")["f"]
    f.__defaults__, f.__kwdefaults__ = g.__defaults__, {"c": g.__defaults__[0]}
    assert signature_checks.check(f, random.Random(1), [types.LateDefaultType("x")]) == []
    assert str(inspect.signature(f)) == (
        "(a, b=>(_ran('f1_1.b'), a), *, c=<late default: (_ran('f1_1.b'), a)>)")
    # A partial that gives b a foreign late-default object: shown with its text.
    p = functools.partial(f, b=types.LateDefaultType("x"))
    assert signature_checks.check(p, random.Random(1), [types.LateDefaultType("x")]) == []
    assert str(inspect.signature(p)) == "(a, *, b=>x, c=<late default: (_ran('f1_1.b'), a)>)"
    # __defaults__ longer than the parameters: aligned as the call aligns them.
    f.__defaults__ = (1, 2) + g.__defaults__
    assert signature_checks.check(f, random.Random(1), [types.LateDefaultType("x")]) == []
    assert str(inspect.signature(f)).startswith("(a=2, b=>(_ran('f1_1.b'), a), *")


def test_signature_checks_catch_a_signature_that_follows_the_objects(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A late-default object on a parameter that the code does not test is a value
    # for the call: a signature that shows it as late does not say what the call does.
    ns = {"_ran": signature_checks._ran}
    exec("def k(a, b=0):\n    return a, b\n", ns)
    k = ns["k"]
    k.__defaults__ = (types.LateDefaultType("5"),)
    lates = [types.LateDefaultType("x")]
    assert signature_checks.check(k, random.Random(1), lates) == []
    monkeypatch.setattr(inspect.Parameter, "_is_late",
                        lambda self: isinstance(self.default, types.LateDefaultType))
    problems = signature_checks.check(k, random.Random(1), lates)
    assert any("is shown for the default" in p for p in problems), problems


def test_builtin_checks_agree_with_clinic_functions() -> None:
    import bisect
    lates = [types.LateDefaultType("len(a)"), types.LateDefaultType("fresh")]
    for func in signature_checks.builtins_with_late_defaults():
        declared = set(signature_checks.DECLARED[func.__name__].split())
        assert signature_checks.check_builtin(func, random.Random(3), lates, declared) == []
    # A late-default object fixed for a parameter without a late default is a value.
    p = functools.partial(bisect.insort_right, x=lates[1])
    assert signature_checks.check_builtin(p, random.Random(3), lates, {"hi"}) == []
    assert str(inspect.signature(p)) == (
        "(a, *, x=<late default: fresh>, lo=0, hi=>len(a), key=None)")
    outcomes = [signature_checks.run_case(5, number) for number in range(60)]
    assert all(outcome[0] == "ok" for outcome in outcomes), outcomes


def test_builtin_checks_catch_a_parser_that_takes_the_object_as_a_value() -> None:
    import bisect

    def insort(a: list[int], x: int, lo: int = 0, hi: object = None, *,
               key: object = None) -> None:
        # Like bisect.insort_right, but a late-default object for hi is a value.
        if hi is None:
            hi = len(a)
        a.insert(min(len(a), hi) if isinstance(hi, int) else len(a), x)
        a.append(hi)
    insort.__signature__ = inspect.signature(bisect.insort_right)  # type: ignore[attr-defined]
    lates = [types.LateDefaultType("len(a)"), types.LateDefaultType("fresh")]
    problems = []
    for seed in range(5):
        problems += signature_checks.check_builtin(insort, random.Random(seed), lates, {"hi"})
    assert any("passing a late-default object for hi" in p for p in problems), problems


def test_signature_checks_catch_a_signature_that_lies(monkeypatch: pytest.MonkeyPatch) -> None:
    f = ran_twice("f2_0")["f"]
    lates = [types.LateDefaultType("x")]
    # A signature that shows late defaults as early ones.
    monkeypatch.setattr(inspect.Parameter, "__str__",
                        lambda self: f"{self.name}={self.default!r}")
    problems = signature_checks.check(f, random.Random(1), lates)
    assert any("is shown for the default" in p for p in problems), problems
    monkeypatch.undo()
    # One whose defaults are equal to the objects the function holds (they compare
    # by text) but are not them.
    real = inspect.Parameter.default
    monkeypatch.setattr(inspect.Parameter, "default", property(
        lambda self: (types.LateDefaultType(real.fget(self).text)
                      if isinstance(real.fget(self), types.LateDefaultType)
                      else real.fget(self))))
    problems = signature_checks.check(f, random.Random(1), lates)
    assert any("but the function holds" in p for p in problems), problems


def test_signature_checks_catch_a_call_that_runs_the_wrong_default() -> None:
    lates = [types.LateDefaultType("x")]
    # The code names a late default for a (the id it would record) but has none:
    # a late-default object bound to a must have run it.
    ns = {"_ran": signature_checks._ran}
    exec("def k(a=0):\n    return ('f3_0.a', a)\n", ns)
    k = ns["k"]
    k.__defaults__ = (types.LateDefaultType("5"),)
    problems = signature_checks.check(k, random.Random(1), lates)
    assert any("not the code's default 'f3_0.a'" in p for p in problems), problems
    # A code without a late default for b that records one as if it ran.
    ns["_late"] = lates[0]
    exec("def h(a, b=0):\n"
         "    if type(b) is type(_late):\n"
         "        _ran('.'.join(['f3_1', 'b']))\n"
         "    return a, b\n", ns)
    h = ns["h"]
    h.__defaults__ = (types.LateDefaultType("5"),)
    problems = signature_checks.check(h, random.Random(1), lates)
    assert any("but the code has no late default for it" in p for p in problems), problems
