"""What a real bytecode tool, the `bytecode` package (pinned in
tests/requirements.txt), makes of functions with late-bound defaults.

Late-bound code is ordinary code: the prologue of a function is, per late-bound
parameter, ``QUERY_FAST p`` (``QUERY_DEREF`` for a cell) ; ``POP_JUMP_IF_TRUE
end`` ; <default> ; ``STORE_FAST p``, and a call that omits ``p`` binds its
late-default object (``types.LateDefaultType``) like any default.  So the
package, which knows nothing of PEP 671 but reads ``opcode.haslocal`` and
``opcode.hasfree``, must round-trip such code (abstract and concrete), let an
instrumenter insert code right after RESUME (a probe, a constant, a call
logging the arguments, which sees the late-default object of an omitted
parameter), and rebuild the constants.

Every test runs on a function written with the ``None`` idiom too (case
``none_idiom``): if only the late-bound cases fail, the late defaults are the
cause, not the package.
"""

from __future__ import annotations

import dis
import inspect
import types
from typing import Any, Callable

import pytest
from bytecode import Bytecode, CellVar, ConcreteBytecode, ConcreteInstr, Instr


# --- The functions ---------------------------------------------------------------------

def positional(a, lo=0, hi=>len(a)):
    """A default reading an earlier parameter."""
    return a[lo:hi]


def keyword_only(a, *, key=>str(a), seen=>[]):
    seen.append(key)
    return key, seen


def chained(a, b=>[a, 'x', 42], /, c=>(b, 'y'), *, d=>{'c': c}):
    """Positional-only, positional and keyword-only late defaults, each one
    reading the previous parameter."""
    return a, b, c, d


def captured(a, n=>len(a)):
    """n lives in a cell: its test is QUERY_DEREF."""
    def inner():
        return n * 2
    return inner()


def _make_scaled():
    scale = 10

    def scaled(a, k=>a * scale):
        """A default reading a free variable."""
        return a + k
    return scaled


scaled = _make_scaled()

late_lambda = lambda a, b=>a + 1: (a, b)  # noqa: E731


def generator(a, stop=>len(a)):
    for i in range(stop):
        yield a[i]


class _Suspend:
    def __await__(self):
        yield


async def coroutine(a, b=>a * 2, *, trail=>[b]):
    await _Suspend()
    return a + b, trail


def none_idiom(a, lo=0, hi=None):
    """For context: the None idiom, no late default."""
    if hi is None:
        hi = len(a)
    return a[lo:hi]


def reads_a_later_parameter(a, b=>c, c=>1):
    return a, b, c


Call = tuple[tuple[Any, ...], dict[str, Any], Any]

# (function, [(args, kwargs, expected result)]): each function is called omitting
# and passing its defaults, and passing its late-default object explicitly (which
# counts as omitted).
CASES: list[tuple[Callable[..., Any], list[Call]]] = [
    (positional, [(([1, 2, 3],), {}, [1, 2, 3]),
                  (([1, 2, 3], 1), {}, [2, 3]),
                  (([1, 2, 3], 0, 2), {}, [1, 2]),
                  (([1, 2, 3], 1, positional.__defaults__[1]), {}, [2, 3])]),
    (keyword_only, [((7,), {}, ('7', ['7'])),
                    ((7,), {}, ('7', ['7'])),
                    ((7,), {'key': 'k'}, ('k', ['k'])),
                    ((7,), {'key': 'k', 'seen': keyword_only.__kwdefaults__['seen']},
                     ('k', ['k'])),
                    ((7,), {'key': keyword_only.__kwdefaults__['key']}, ('7', ['7']))]),
    (chained, [((1,), {}, (1, [1, 'x', 42], ([1, 'x', 42], 'y'),
                           {'c': ([1, 'x', 42], 'y')})),
               ((1, 2), {}, (1, 2, (2, 'y'), {'c': (2, 'y')})),
               ((1, 2, 3), {'d': 4}, (1, 2, 3, 4)),
               ((1, chained.__defaults__[0]), {'c': 3}, (1, [1, 'x', 42], 3, {'c': 3}))]),
    (captured, [(([1, 2, 3],), {}, 6), (([1],), {'n': 5}, 10),
                (([1, 2],), {'n': captured.__defaults__[0]}, 4)]),
    (scaled, [((1,), {}, 11), ((1, 5), {}, 6)]),
    (late_lambda, [((1,), {}, (1, 2)), ((1, 5), {}, (1, 5))]),
    (generator, [(('abc',), {}, ['a', 'b', 'c']), (('abc', 2), {}, ['a', 'b'])]),
    (coroutine, [((3,), {}, (9, [6])), ((3, 1), {}, (4, [1])),
                 ((3,), {'trail': []}, (9, []))]),
    (none_idiom, [(([1, 2, 3],), {}, [1, 2, 3]), (([1, 2, 3], 1, 2), {}, [2])]),
]

IDS = [fn.__name__ if fn is not late_lambda else "lambda" for fn, _ in CASES]

LATE_MESSAGE = "cannot access parameter 'c': its late-bound default has not been evaluated yet"


# --- Helpers ---------------------------------------------------------------------------

def run(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The result of a call: a generator's items, a coroutine's return value."""
    result = fn(*args, **kwargs)
    if inspect.isgenerator(result):
        return list(result)
    if inspect.iscoroutine(result):
        try:
            while True:
                result.send(None)
        except StopIteration as stop:
            return stop.value
    return result


def rebuild(fn: Callable[..., Any], code: types.CodeType) -> types.FunctionType:
    """A function with the new code and the original's defaults and closure."""
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__,
                             fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


def check_behaviour(fn: Callable[..., Any], new: Callable[..., Any],
                    calls: list[Call]) -> None:
    """new gives the expected results, as fn does, several times (the calls
    specialize on the way), and has fn's signature."""
    for _ in range(3):
        for args, kwargs, expected in calls:
            assert run(fn, args, kwargs) == expected, (fn, args, kwargs)
            assert run(new, args, kwargs) == expected, (new, args, kwargs)
    assert inspect.signature(new) == inspect.signature(fn)
    assert str(inspect.signature(new)) == str(inspect.signature(fn))


def check_same_code(code: types.CodeType, original: types.CodeType) -> None:
    for attr in ("co_code", "co_consts", "co_names", "co_varnames", "co_cellvars",
                 "co_freevars", "co_argcount", "co_posonlyargcount",
                 "co_kwonlyargcount", "co_flags", "co_stacksize", "co_exceptiontable"):
        assert getattr(code, attr) == getattr(original, attr), attr
    # The line table may be encoded otherwise (the package writes one entry per
    # instruction without a location, the compiler one for a run of them), but
    # the positions are the same.
    assert list(code.co_positions()) == list(original.co_positions())


def after_resume(bytecode: Bytecode) -> int:
    """The index just after the first RESUME (after MAKE_CELL, COPY_FREE_VARS,
    and RETURN_GENERATOR/POP_TOP in a generator or coroutine)."""
    for i, instr in enumerate(bytecode):
        if isinstance(instr, Instr) and instr.name == "RESUME":
            return i + 1
    raise AssertionError("no RESUME")


def parameters(code: types.CodeType) -> tuple[str, ...]:
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def late_parameters(fn: Callable[..., Any]) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if isinstance(p.default, types.LateDefaultType)]


# --- Round trips -----------------------------------------------------------------------

def test_the_functions_are_what_the_tests_say() -> None:
    """Context: every case but none_idiom has late defaults, and the package
    reads a late test's argument as a variable (QUERY_FAST as LOAD_FAST,
    QUERY_DEREF as LOAD_DEREF), not as a bare number."""
    for fn, _ in CASES:
        assert bool(late_parameters(fn)) == (fn is not none_idiom), fn
    tests = [(instr.name, instr.arg) for instr in Bytecode.from_code(positional.__code__)
             if isinstance(instr, Instr) and instr.name.startswith("QUERY_")]
    assert tests == [("QUERY_FAST", "hi")]
    tests = [(instr.name, instr.arg) for instr in Bytecode.from_code(captured.__code__)
             if isinstance(instr, Instr) and instr.name.startswith("QUERY_")]
    assert tests == [("QUERY_DEREF", CellVar("n"))]


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_bytecode_round_trip(fn: Callable[..., Any], calls: list[Call]) -> None:
    code = Bytecode.from_code(fn.__code__).to_code()
    check_same_code(code, fn.__code__)
    check_behaviour(fn, rebuild(fn, code), calls)


def concrete_to_code(concrete: ConcreteBytecode, original: types.CodeType) -> types.CodeType:
    """ConcreteBytecode.to_code() without the package's detour: by default, on
    3.11+, it computes the stack size and the exception table's depths on a
    control flow graph of the abstract Bytecode, and assembles that one again
    (so its own consts list is rebuilt).  Given them, it assembles its own
    instructions and consts."""
    return concrete.to_code(stacksize=original.co_stacksize,
                            compute_exception_stack_depths=False)


@pytest.mark.parametrize("assemble", ["default", "as_is"])
@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_concrete_bytecode_round_trip(fn: Callable[..., Any], calls: list[Call],
                                      assemble: str) -> None:
    concrete = ConcreteBytecode.from_code(fn.__code__)
    if fn is not none_idiom:
        assert any(instr.name in ("QUERY_FAST", "QUERY_DEREF") for instr in concrete)
    if assemble == "default":
        code = concrete.to_code()
    else:
        code = concrete_to_code(concrete, fn.__code__)
    check_same_code(code, fn.__code__)
    check_behaviour(fn, rebuild(fn, code), calls)


# --- Instrumenters ---------------------------------------------------------------------

@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_probe_call_inserted_after_resume(fn: Callable[..., Any], calls: list[Call]) -> None:
    probes: list[str] = []

    def probe() -> None:
        probes.append("ran")

    bytecode = Bytecode.from_code(fn.__code__)
    at = after_resume(bytecode)
    bytecode[at:at] = [Instr("LOAD_CONST", probe), Instr("PUSH_NULL"), Instr("CALL", 0),
                       Instr("POP_TOP")]
    new = rebuild(fn, bytecode.to_code())
    check_behaviour(fn, new, calls)
    assert len(probes) == 3 * len(calls)


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_constant_loaded_and_popped_after_resume(fn: Callable[..., Any],
                                                 calls: list[Call]) -> None:
    marker = ("inserted", "constant")
    bytecode = Bytecode.from_code(fn.__code__)
    at = after_resume(bytecode)
    bytecode[at:at] = [Instr("LOAD_CONST", marker), Instr("POP_TOP")]
    code = bytecode.to_code()
    assert marker in code.co_consts and marker not in fn.__code__.co_consts
    check_behaviour(fn, rebuild(fn, code), calls)


def add_argument_logger(fn: Callable[..., Any],
                        logger: Callable[..., None]) -> types.FunctionType:
    """fn with a call logger(param, ...) right after RESUME: LOAD_FAST of each
    parameter (LOAD_DEREF of one in a cell, which holds the cell there)."""
    bytecode = Bytecode.from_code(fn.__code__)
    loads = [Instr("LOAD_DEREF", CellVar(p)) if p in bytecode.cellvars
             else Instr("LOAD_FAST", p) for p in parameters(fn.__code__)]
    at = after_resume(bytecode)
    bytecode[at:at] = [Instr("LOAD_CONST", logger), Instr("PUSH_NULL"), *loads,
                       Instr("CALL", len(loads)), Instr("POP_TOP")]
    return rebuild(fn, bytecode.to_code())


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_argument_logger_sees_late_default_objects(fn: Callable[..., Any],
                                                   calls: list[Call]) -> None:
    """An omitted late-bound parameter holds its late-default object at the start
    of the body: the logger receives that very object (the one in __defaults__ /
    __kwdefaults__, as inspect's apply_defaults fills it in), and the function
    still returns what its evaluated default gives."""
    logged: list[tuple[Any, ...]] = []
    new = add_argument_logger(fn, lambda *args: logged.append(args))
    signature = inspect.signature(fn)
    seen_late = set()
    for _ in range(3):
        for args, kwargs, expected in calls:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            logged.clear()
            assert run(new, args, kwargs) == expected, (args, kwargs)
            assert len(logged) == 1
            assert len(logged[0]) == len(bound.arguments)
            for value, (name, want) in zip(logged[0], bound.arguments.items()):
                assert value is want, (name, value, want)
                if isinstance(value, types.LateDefaultType):
                    seen_late.add(name)
    # Every late-bound parameter was omitted at least once.
    assert seen_late == set(late_parameters(fn))


def test_argument_logger_receives_the_defaults_own_objects() -> None:
    """The same, spelled out on one function."""
    logged: list[tuple[Any, ...]] = []
    new = add_argument_logger(chained, lambda *args: logged.append(args))
    assert new(1) == (1, [1, 'x', 42], ([1, 'x', 42], 'y'), {'c': ([1, 'x', 42], 'y')})
    (a, b, c, d), = logged
    assert a == 1
    assert type(b) is types.LateDefaultType and b is chained.__defaults__[0]
    assert b == chained.__defaults__[0] and b.text == "[a, 'x', 42]"
    assert c is chained.__defaults__[1] and c.text == "(b, 'y')"
    assert d is chained.__kwdefaults__['d'] and d.text == "{'c': c}"
    logged.clear()
    assert new(1, 2, d=4) == (1, 2, (2, 'y'), 4)
    assert logged == [(1, 2, chained.__defaults__[1], 4)]
    # Context: the None idiom logs its None.
    logged.clear()
    assert add_argument_logger(none_idiom, lambda *args: logged.append(args))([5]) == [5]
    assert logged == [([5], 0, None)]


@pytest.mark.parametrize("transform", ["bytecode", "concrete", "probe"])
def test_default_reading_a_later_parameter_keeps_its_message(transform: str) -> None:
    """A default that reads a later late-bound parameter raises the PEP's
    UnboundLocalError; the message comes from reading the prologue, which the
    round trips and an insertion after RESUME leave in place."""
    fn = reads_a_later_parameter
    probes: list[str] = []
    if transform == "concrete":
        code = ConcreteBytecode.from_code(fn.__code__).to_code()
    else:
        bytecode = Bytecode.from_code(fn.__code__)
        if transform == "probe":
            at = after_resume(bytecode)
            bytecode[at:at] = [Instr("LOAD_CONST", lambda: probes.append("ran")),
                               Instr("PUSH_NULL"),
                               Instr("CALL", 0), Instr("POP_TOP")]
        code = bytecode.to_code()
    new = rebuild(fn, code)
    for f in (fn, new):
        with pytest.raises(UnboundLocalError) as info:
            f(0)
        assert str(info.value) == LATE_MESSAGE
        assert f(0, 2) == (0, 2, 1)
        assert f(0, c=3) == (0, 3, 3)
    assert probes == (["ran"] * 3 if transform == "probe" else [])


def probe_before_every_instruction(fn: Callable[..., Any],
                                   probes: list[int]) -> types.CodeType:
    """fn's code with a probe call (LOAD_CONST, PUSH_NULL, CALL 0, POP_TOP)
    before each instruction of its prologue, as an instruction-counting tracer
    inserts one.  A jump's label stays where it was, so a jump to an
    instruction now lands on its probe: between two blocks of the prologue,
    and between each test and its jump.  (The prologue ends at the label that
    the jump after its last test goes to.)"""
    bytecode = Bytecode.from_code(fn.__code__)
    probe = [Instr("LOAD_CONST", lambda: probes.append(1)), Instr("PUSH_NULL"),
             Instr("CALL", 0), Instr("POP_TOP")]
    start = after_resume(bytecode)
    tests = [i for i, instr in enumerate(bytecode) if isinstance(instr, Instr)
             and instr.name in ("QUERY_FAST", "QUERY_DEREF")]
    end = len(bytecode)
    if tests:
        jump = next(instr for instr in bytecode[tests[-1] + 1:]
                    if isinstance(instr, Instr) and instr.name == "POP_JUMP_IF_TRUE")
        end = bytecode.index(jump.arg)
    out = list(bytecode[:start])
    for instr in bytecode[start:end]:
        if isinstance(instr, Instr):
            out.extend(Instr(p.name, p.arg) for p in probe)
        out.append(instr)
    bytecode[:] = out + list(bytecode[end:])
    return bytecode.to_code()


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_probe_before_every_instruction(fn: Callable[..., Any],
                                        calls: list[Call]) -> None:
    """Each test finds the later ones in the code, wherever tools put them:
    results, the signature and the message for a parameter read before its
    default has run are unchanged."""
    probes: list[int] = []
    check_behaviour(fn, rebuild(fn, probe_before_every_instruction(fn, probes)),
                    calls)
    assert probes
    fn = reads_a_later_parameter
    new = rebuild(fn, probe_before_every_instruction(fn, probes))
    with pytest.raises(UnboundLocalError) as info:
        new(0)
    assert str(info.value) == LATE_MESSAGE
    assert new(0, 2) == (0, 2, 1)


# --- Constants -------------------------------------------------------------------------

@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_unused_constants_appended(fn: Callable[..., Any], calls: list[Call]) -> None:
    """Unused constants at the end of co_consts, one of them another function's
    late-default object."""
    concrete = ConcreteBytecode.from_code(fn.__code__)
    extra = [object(), "unused", keyword_only.__kwdefaults__["key"]]
    concrete.consts.extend(extra)
    code = concrete_to_code(concrete, fn.__code__)
    assert code.co_consts == fn.__code__.co_consts + tuple(extra)
    check_behaviour(fn, rebuild(fn, code), calls)


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_constants_reordered(fn: Callable[..., Any], calls: list[Call]) -> None:
    """co_consts reversed, each LOAD_CONST/RETURN_CONST renumbered."""
    concrete = ConcreteBytecode.from_code(fn.__code__)
    count = len(concrete.consts)
    concrete.consts.reverse()
    renumbered = 0
    for i, instr in enumerate(concrete):
        if isinstance(instr, ConcreteInstr) and instr.opcode in dis.hasconst:
            concrete[i] = ConcreteInstr(instr.name, count - 1 - instr.arg,
                                        location=instr.location)
            renumbered += 1
    code = concrete_to_code(concrete, fn.__code__)
    assert code.co_consts == fn.__code__.co_consts[::-1]
    if count > 1 and renumbered:
        assert code.co_code != fn.__code__.co_code
    check_behaviour(fn, rebuild(fn, code), calls)


@pytest.mark.parametrize("fn, calls", CASES, ids=IDS)
def test_abstract_bytecode_rebuilds_the_constants(fn: Callable[..., Any],
                                                  calls: list[Call]) -> None:
    """Bytecode (abstract) drops a constant no instruction uses when it makes
    co_consts again."""
    padded = fn.__code__.replace(co_consts=fn.__code__.co_consts + ("unused", 12345))
    code = Bytecode.from_code(padded).to_code()
    assert code.co_consts == fn.__code__.co_consts
    check_behaviour(fn, rebuild(fn, code), calls)
