"""The code-object oracle's worker side: runs INSIDE the interpreter under test (it
decodes that interpreter's bytecode with its own dis), imported by the batch scripts
of tools.check.oracles.code_objects.

A case: a random function with late defaults (positional, keyword-only, in cells,
read by inner lambdas, comprehensions in defaults, generators), its code rewritten
the ways real tools rewrite code (instrumenters, coverage probes, bytecode
rewriters, assemblers), rebuilt through one route (``replace()``, the
``types.CodeType`` constructor, ``marshal``, the ``bytecode`` package when it is
installed), and a function made from the mutant with the original's globals,
defaults, keyword defaults and closure. The oracle is differential: call sites
call the mutant and the unmutated function in the same ways (arguments left out,
passed, passed a late-default object of their own or a foreign one, by position
and by keyword), each site a few times so that the call and the prologue's tests
specialize, and the two must give the same results: the same value (its repr,
addresses aside; a generator's values), or the same exception type and message.
And the process lives.

A late-bound function's code is ordinary code: nothing checks a code object made
by hand, and, as upstream CPython does not verify bytecode (hand-made code can
crash it), a mutant is only as safe as the invariants it keeps. So every mutation
keeps what upstream relies on (stack effects balanced at every instruction and
across jumps and handlers, which stack_depths() checks before a mutant runs;
arguments in range; jump targets on instructions; a local read by LOAD_FAST bound
there), and what it changes is what tools change:

- stack-neutral instructions inserted: NOP, EXTENDED_ARG 1 + NOP, LOAD_CONST +
  POP_TOP, a probe call (LOAD_GLOBAL of a function of the globals, CALL 0,
  POP_TOP), LOAD_FAST of a parameter + POP_TOP;
  - right after RESUME, where every parameter holds a value (an omitted late-bound
    one its late-default object);
  - at a random instruction boundary, jumps and exception handlers keeping their
    targets (the new code goes before a label there): not between a YIELD_VALUE
    and the RESUME after it, nor between the END_FOR that FOR_ITER jumps to and
    the POP_TOP after it (upstream reads those pairs together); a LOAD_FAST only
    of a parameter bound there on every path (maybe_unbound(): a test of the
    prologue may unbind its parameter and the later late-bound ones until each
    is stored, as ``del`` unbinds a local, and a generator's own handler, which
    covers the prologue, is reached with them unbound; upstream's compiler reads
    such a local with LOAD_FAST_CHECK, and LOAD_FAST trusts it to be bound);
  - at the start of a block, after the label of a jump target (the jumps go to
    the new code, which falls through to their old target), as a block-coverage
    instrumenter does: not at a handler's target nor at FOR_ITER's (LOAD_FAST as
    above);
- (not an EXTENDED_ARG 0 prefix, as an assembler with fixed widths might write:
  the compiler never emits one, and debug builds assert that EXTENDED_ARG has a
  non-zero argument);
- constants appended, reordered (LOAD_CONST and RETURN_CONST follow them) or the
  ones no instruction loads dropped; names appended;
- NOP padding after the last instruction;
- the code rebuilt by replace(), types.CodeType(), marshal (dumps and loads) or
  the bytecode package (Bytecode.from_code().to_code()).

Gone with the old model: the mutations that broke upstream's invariants and the
fork's own surface so that the validation of late-default prologues would refuse
what could crash (tests deleted, swapped, retargeted or added, a default's store
removed, LOAD_FAST_CHECK made LOAD_FAST, RESUME removed, handlers widened,
parameters moved into cells without their MAKE_CELL, flipped local kinds in
marshal data, the texts constant, a late-default object as a constant, which
marshal no longer writes). Nothing refuses such code any more, and
upstream's policy for code that breaks its invariants is that it may crash.
"""

from __future__ import annotations

import dis
import marshal
import opcode
import random
import re
import types
from dataclasses import dataclass
from typing import Any, Callable

CACHES: dict[str, int] = dict(opcode._inline_cache_entries)  # type: ignore[attr-defined]
BACKWARD = {"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
JUMPS = {opcode.opname[op] for op in dis.hasjump}
EXITS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
         "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
TESTS = {"QUERY_FAST", "QUERY_DEREF"}
CONST_LOADS = {"LOAD_CONST", "RETURN_CONST"}
PROBE = "_probe"


@dataclass
class Instr:
    name: str
    arg: int
    target: int | None = None    # a jump's target: an index into the instruction list
    prefix: int = 0              # EXTENDED_ARG prefixes at least (more if the arg needs)


@dataclass
class Handler:
    start: int      # instruction indices, end exclusive
    end: int
    target: int
    depth: int
    lasti: bool


@dataclass
class Program:
    instrs: list[Instr]
    handlers: list[Handler]


def decode(code: types.CodeType) -> Program:
    raw = code.co_code
    units = [(raw[i], raw[i + 1]) for i in range(0, len(raw), 2)]
    instrs: list[Instr] = []
    unit_of: list[int] = []        # the first code unit (its prefix) of each instruction
    index_of: dict[int, int] = {}  # code unit -> instruction index
    i = 0
    while i < len(units):
        start, arg = i, 0
        while units[i][0] == opcode.opmap["EXTENDED_ARG"]:
            arg = (arg << 8) | units[i][1]
            i += 1
        op, low = units[i]
        arg = (arg << 8) | low
        name = opcode.opname[op]
        for unit in range(start, i + 1):
            index_of[unit] = len(instrs)
        unit_of.append(start)
        instrs.append(Instr(name, arg if op >= opcode.HAVE_ARGUMENT else 0,
                            prefix=i - start))
        i += 1 + CACHES.get(name, 0)
    for k, ins in enumerate(instrs):
        if ins.name in JUMPS:
            # A jump counts from the end of its caches.
            after = _end_unit(units, unit_of[k], ins.name)
            unit = after - ins.arg if ins.name in BACKWARD else after + ins.arg
            ins.target = index_of.get(unit, len(instrs))
    handlers = []
    for entry in dis._parse_exception_table(code):  # type: ignore[attr-defined]
        handlers.append(Handler(index_of[entry.start // 2],
                                index_of.get(entry.end // 2, len(instrs)),
                                index_of[entry.target // 2], entry.depth, entry.lasti))
    return Program(instrs, handlers)


def _end_unit(units: list[tuple[int, int]], start: int, name: str) -> int:
    i = start
    while units[i][0] == opcode.opmap["EXTENDED_ARG"]:
        i += 1
    return i + 1 + CACHES.get(name, 0)


def _varint(value: int, first: bool = False) -> bytes:
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(value & 63)
        value >>= 6
    chunks.reverse()
    out = [c | 64 for c in chunks[:-1]] + [chunks[-1]]
    if first:
        out[0] |= 128
    return bytes(out)


def encode(program: Program) -> tuple[bytes, bytes]:
    """co_code and co_exceptiontable; jump arguments, and how many EXTENDED_ARG each
    instruction needs, are found together (sizes only grow, so this ends). A
    handler's range starts at its first instruction's prefix, as CPython's
    assembler writes it."""
    instrs = program.instrs
    prefixes = [ins.prefix for ins in instrs]
    while True:
        starts = []
        position = 0
        for k, ins in enumerate(instrs):
            starts.append(position)
            position += prefixes[k] + 1 + CACHES.get(ins.name, 0)
        starts.append(position)
        changed = False
        args = []
        for k, ins in enumerate(instrs):
            arg = ins.arg
            if ins.target is not None:
                after = starts[k + 1]
                target = starts[ins.target]
                arg = after - target if ins.name in BACKWARD else target - after
                if arg < 0:
                    raise ValueError("jump in the wrong direction")
            need = 0 if arg <= 0xFF else 1 if arg <= 0xFFFF else 2 if arg <= 0xFFFFFF else 3
            if need > prefixes[k]:
                prefixes[k] = need
                changed = True
            args.append(arg)
        if not changed:
            break
    code = bytearray()
    for k, ins in enumerate(instrs):
        arg = args[k]
        for shift in range(prefixes[k], 0, -1):
            code += bytes([opcode.opmap["EXTENDED_ARG"], (arg >> (8 * shift)) & 0xFF])
        code += bytes([opcode.opmap[ins.name], arg & 0xFF])
        code += bytes(2 * CACHES.get(ins.name, 0))
    table = bytearray()
    for h in program.handlers:
        if h.end <= h.start:
            continue
        start, end = starts[h.start], starts[h.end]
        table += _varint(start, True) + _varint(end - start) + _varint(starts[h.target])
        table += _varint(h.depth << 1 | int(h.lasti))
    return bytes(code), bytes(table)


def stack_depths(program: Program) -> int | None:
    """The largest stack depth, or None if some path underflows the stack, or meets
    another at a different depth, or a handler covers an instruction below its
    depth: code that upstream CPython cannot run safely."""
    instrs = program.instrs
    depth: dict[int, int] = {0: 0}
    todo = [0]
    largest = 0

    def reach(k: int, d: int) -> bool:
        if k >= len(instrs) or d < 0:
            return d >= 0
        if k in depth:
            return depth[k] == d
        depth[k] = d
        todo.append(k)
        return True

    while todo:
        k = todo.pop()
        ins = instrs[k]
        d = depth[k]
        op = opcode.opmap[ins.name]
        arg = ins.arg if op >= opcode.HAVE_ARGUMENT else None
        try:
            after = d + dis.stack_effect(op, arg, jump=False)
            taken = d + dis.stack_effect(op, arg, jump=True)
        except ValueError:
            return None
        largest = max(largest, after, taken)
        if ins.name == "FOR_ITER" and not (
                ins.target is not None and ins.target + 1 < len(instrs)
                and instrs[ins.target].name == "END_FOR"
                and instrs[ins.target + 1].name == "POP_TOP"):
            return None   # its exit jumps past an END_FOR and a POP_TOP
        if ins.name not in EXITS and not reach(k + 1, after):
            return None
        if ins.target is not None and not reach(ins.target, taken):
            return None
        for h in program.handlers:
            if h.start <= k < h.end:
                if h.depth > d or not reach(h.target, h.depth + int(h.lasti) + 1):
                    return None
    return largest


# ---- the functions whose code is mutated ---------------------------------------------

@dataclass
class Source:
    text: str          # the module that defines F (and the probe)
    positional: list[str]
    keyword_only: list[str]


def source(rng: random.Random) -> Source:
    """A function F with late defaults."""
    names = ["a", "b", "c", "d", "e"]
    npos = rng.randint(1, 4)
    nkw = rng.choice([0, 0, 1, 2])
    params = names[:npos + nkw]
    parts: list[str] = []
    late: list[str] = []
    for k, p in enumerate(params):
        if k == npos:
            parts.append("*")
        kind = rng.random()
        if k == 0 and kind < 0.5:
            parts.append(p)
            continue
        if kind < 0.7 or (k < npos and late and k > 0 and kind < 0.9):
            others = [q for q in params if q != p]
            read = rng.choice(others) if others else p
            pair = rng.choice(others or [p])
            expr = rng.choice([f"({p!r}, {read})", f"[{read}]", f"[x for x in ({read},)]",
                               f"(lambda: {read})()", f"len(({read}, {p!r}))", "0",
                               f"{read} if {read} else 1", f"({read}, {pair})"])
            parts.append(f"{p}=>{expr}")
            late.append(p)
        else:
            parts.append(f"{p}={rng.choice(['0', 'None', '()'])}")
    if not late:
        parts[-1] = parts[-1].split("=")[0] + "=>1"
    body = rng.choice(["return ({names},)", "yield ({names},)",
                       "g = lambda: ({names},)\n    return g()",
                       "try:\n        return ({names},)\n    except Exception:\n        return 1",
                       "for x in ({names},):\n        pass\n    return ({names},)"])
    text = (f"def {PROBE}():\n    pass\n"
            f"def F({', '.join(parts)}):\n    " + body.format(names=", ".join(params)) + "\n")
    return Source(text, params[:npos], params[npos:])


# ---- mutations -------------------------------------------------------------------------

class Unsafe(Exception):
    """A mutant that upstream CPython could not run safely either: not run."""


def resume_index(program: Program) -> int:
    return next(k for k, i in enumerate(program.instrs) if i.name == "RESUME")


def maybe_unbound(program: Program, code: types.CodeType) -> list[set[int]]:
    """For each instruction, the parameters (not in cells) that may be unbound when
    it starts, along every path, exception edges included: where a LOAD_FAST of a
    parameter is not one, upstream's invariant that LOAD_FAST reads a bound local
    does not hold. A test of the prologue (QUERY_FAST, QUERY_DEREF) may unbind its
    parameter and every later late-bound one, until each is stored; a generator's
    own handler, which covers the prologue, is reached with them unbound too."""
    instrs = program.instrs
    nparams = code.co_argcount + code.co_kwonlyargcount
    cells = set(code.co_cellvars)
    plain = {i for i in range(nparams) if code.co_varnames[i] not in cells}
    late = {ins.arg for ins in instrs if ins.name in TESTS} & plain
    state: dict[int, frozenset[int]] = {0: frozenset()}
    todo = [0]

    def reach(k: int, unbound: frozenset[int]) -> None:
        if k >= len(instrs):
            return
        if k in state:
            if unbound <= state[k]:
                return
            unbound = unbound | state[k]
        state[k] = unbound
        todo.append(k)

    def stored(ins: Instr) -> set[int]:
        if ins.name in ("STORE_FAST", "STORE_FAST_MAYBE_NULL"):
            return {ins.arg}
        if ins.name == "STORE_FAST_STORE_FAST":
            return {ins.arg >> 4, ins.arg & 15}
        if ins.name == "STORE_FAST_LOAD_FAST":
            return {ins.arg >> 4}
        return set()

    while todo:
        k = todo.pop()
        ins = instrs[k]
        before = state[k]
        after = set(before)
        if ins.name in TESTS:
            after |= late
        if ins.name in ("DELETE_FAST", "LOAD_FAST_AND_CLEAR"):
            after |= {ins.arg} & plain
        after -= stored(ins)
        out = frozenset(after)
        if ins.name not in EXITS:
            reach(k + 1, out)
        if ins.target is not None:
            reach(ins.target, out)
        for h in program.handlers:
            if h.start <= k < h.end:
                reach(h.target, before | out)
    return [set(state.get(k, frozenset())) for k in range(len(instrs))] + [set()]


def insert(program: Program, k: int, new: list[Instr], *, after_label: bool = False) -> None:
    """Insert new before instruction k. Jumps to k and a handler's range or target
    at k keep k (the new code goes before the label), unless after_label: then the
    jumps to k go to the new code, which falls through to k."""
    n = len(new)
    for ins in program.instrs:
        if ins.target is not None and (ins.target > k or (ins.target == k and not after_label)):
            ins.target += n
    for h in program.handlers:
        h.start += n if h.start >= k else 0
        h.end += n if h.end > k else 0
        h.target += n if h.target >= k else 0
    program.instrs[k:k] = new


def boundaries(program: Program) -> list[int]:
    """Where stack-neutral code may go: after RESUME, not between a YIELD_VALUE and
    its RESUME, nor between FOR_ITER's END_FOR and its POP_TOP."""
    instrs = program.instrs
    out = []
    for k in range(resume_index(program) + 1, len(instrs) + 1):
        before = instrs[k - 1].name
        if before == "YIELD_VALUE" or before == "END_FOR":
            continue
        out.append(k)
    return out


def block_starts(program: Program) -> list[int]:
    """Jump targets that a probe may go after the label of: not FOR_ITER's (its exit
    skips what is there), not a handler's target, not the RESUME after a
    YIELD_VALUE."""
    instrs = program.instrs
    handlers = {h.target for h in program.handlers}
    fors = {i.target for i in instrs if i.name == "FOR_ITER"}
    first = resume_index(program) + 1
    return sorted({i.target for i in instrs if i.target is not None
                   and first <= i.target < len(instrs)
                   and i.target not in handlers and i.target not in fors
                   and instrs[i.target - 1].name != "YIELD_VALUE"})


@dataclass
class Mutant:
    program: Program
    consts: tuple[Any, ...]
    names: tuple[str, ...]
    kinds: list[str]


def snippet(rng: random.Random, code: types.CodeType, mutant: Mutant, what: str) -> list[Instr]:
    if what == "nop":
        return [Instr("NOP", 0)]
    if what == "extended_nop":
        # One instruction: the encoder writes its EXTENDED_ARG 1 prefix.
        return [Instr("NOP", 0x100)]
    if what == "const":
        if not mutant.consts:
            mutant.consts = (None,)
        return [Instr("LOAD_CONST", rng.randrange(len(mutant.consts))), Instr("POP_TOP", 0)]
    if what == "probe":
        if PROBE not in mutant.names:
            mutant.names += (PROBE,)
        return [Instr("LOAD_GLOBAL", mutant.names.index(PROBE) << 1 | 1),
                Instr("CALL", 0), Instr("POP_TOP", 0)]
    assert what.startswith("load_param ")
    return [Instr("LOAD_FAST", int(what.split()[1])), Instr("POP_TOP", 0)]


def mutate_once(rng: random.Random, code: types.CodeType, mutant: Mutant) -> str:
    program = mutant.program
    instrs = program.instrs
    kind = rng.choice(["resume", "resume", "boundary", "boundary", "boundary", "block",
                       "consts", "names", "padding"])
    if kind in ("resume", "boundary", "block"):
        what = rng.choice(["nop", "extended_nop", "const", "probe", "load_param"])
        if kind == "resume":
            places = [resume_index(program) + 1]
        elif kind == "boundary":
            places = boundaries(program)
        else:
            places = block_starts(program)
            if not places:
                return "none"
        where = rng.choice(places)
        if what == "load_param":
            # A parameter bound there on every path: after RESUME every one is.
            unbound = maybe_unbound(program, code)
            here = unbound[where] | (unbound[where - 1] if where else set())
            bound = [p for p in range(code.co_argcount + code.co_kwonlyargcount)
                     if p not in here]
            what = f"load_param {rng.choice(bound)}" if bound else "nop"
        insert(program, where, snippet(rng, code, mutant, what), after_label=kind == "block")
        return f"{what} at {kind} {where}"
    if kind == "consts":
        old = mutant.consts
        how = rng.choice(["append", "reorder", "drop"])
        if how == "append":
            # Only what marshal writes: a late-default object is never a constant (the
            # code that defines a function makes it from its text when it runs).
            extra = tuple(rng.sample(["probe", 1.5, None, (1, "t"), b"x", "len(a)",
                                      frozenset({2})],
                                     k=rng.randint(1, 3)))
            mutant.consts = old + extra
            return f"consts: {len(extra)} appended"
        loaded = {ins.arg for ins in instrs if ins.name in CONST_LOADS}
        if how == "reorder":
            order = list(range(len(old)))
            rng.shuffle(order)
        else:
            order = [i for i in range(len(old)) if i in loaded]
        new_index = {old_i: new_i for new_i, old_i in enumerate(order)}
        for ins in instrs:
            if ins.name in CONST_LOADS:
                ins.arg = new_index[ins.arg]
        mutant.consts = tuple(old[i] for i in order)
        return f"consts: {how} {order}"
    if kind == "names":
        mutant.names += tuple(rng.sample(["probe_name", "_x", "__tool__"], k=rng.randint(1, 2)))
        return "names appended"
    count = rng.randint(1, 4)
    instrs.extend(Instr("NOP", 0) for _ in range(count))
    return f"padding of {count}"


def mutate(rng: random.Random, code: types.CodeType) -> Mutant:
    mutant = Mutant(decode(code), code.co_consts, code.co_names, [])
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        mutant.kinds.append(mutate_once(rng, code, mutant))
    return mutant


ROUTES = ("replace", "constructor", "marshal", "bytecode")


def rebuild(rng: random.Random, code: types.CodeType, mutant: Mutant) -> tuple[str, types.CodeType]:
    """The mutant's code object, made through one of the routes."""
    depth = stack_depths(mutant.program)
    if depth is None:
        raise Unsafe("stack effects do not balance")
    co_code, table = encode(mutant.program)
    fields: dict[str, Any] = dict(co_code=co_code, co_exceptiontable=table,
                                  co_stacksize=depth, co_consts=mutant.consts,
                                  co_names=mutant.names)
    if co_code != code.co_code:
        fields["co_linetable"] = b""   # the positions of the old instructions
    route = rng.choice(ROUTES)
    new = code.replace(**fields)
    if route == "replace":
        return route, new
    if route == "constructor":
        return route, types.CodeType(
            new.co_argcount, new.co_posonlyargcount, new.co_kwonlyargcount, new.co_nlocals,
            new.co_stacksize, new.co_flags, new.co_code, new.co_consts, new.co_names,
            new.co_varnames, new.co_filename, new.co_name, new.co_qualname,
            new.co_firstlineno, new.co_linetable, new.co_exceptiontable, new.co_freevars,
            new.co_cellvars)
    if route == "marshal":
        return route, marshal.loads(marshal.dumps(new))
    try:
        import bytecode  # type: ignore[import-not-found]
    except ImportError:
        return "replace (no bytecode package)", new
    return route, bytecode.Bytecode.from_code(new).to_code()


# ---- the calls ---------------------------------------------------------------------------

ADDRESS = re.compile(r" at 0x[0-9a-f]+")
VALUES = ["1", "2", "'s'", "None", "[]", "L", "L", "X"]


def call_sources(rng: random.Random, src: Source) -> list[str]:
    """Calls of F, written as sites `F(...)` with L (a late-default object of F's own)
    and X (a foreign one)."""
    calls = ["F()", f"F({', '.join(['1'] * len(src.positional))})"]
    for _ in range(rng.randint(4, 8)):
        n = rng.randint(0, len(src.positional))
        args = [rng.choice(VALUES) for _ in range(n)]
        for p in src.positional[n:] + src.keyword_only:
            if rng.random() < 0.35:
                args.append(f"{p}={rng.choice(VALUES)}")
        calls.append(f"F({', '.join(args)})")
    return list(dict.fromkeys(calls))


def outcome(thunk: Callable[[], Any]) -> list[str]:
    try:
        value = thunk()
        if isinstance(value, types.GeneratorType):
            value = ("generator", list(value))
        return ["value", ADDRESS.sub(" at 0x?", repr(value))]
    except Exception as exc:
        return ["raise", type(exc).__name__, ADDRESS.sub(" at 0x?", str(exc))]


REPEAT = 4   # calls per site: the call and the prologue's tests specialize on the way


def transcript(func: Callable[..., Any], calls: list[str], late: Any) -> list[list[str]]:
    """Each call's outcome, each made from a site of its own REPEAT times."""
    out = []
    for call in calls:
        site = eval(f"lambda F, L, X: {call}")
        for _ in range(REPEAT):
            out.append([call, *outcome(lambda: site(func, late, FOREIGN))])
    return out


FOREIGN = types.LateDefaultType("foreign") if hasattr(types, "LateDefaultType") else None


def make_function(mutant_code: types.CodeType, func: types.FunctionType) -> types.FunctionType:
    new = types.FunctionType(mutant_code, func.__globals__, func.__name__, func.__defaults__,
                             func.__closure__)
    new.__kwdefaults__ = func.__kwdefaults__
    return new


def case(seed: int, number: int) -> tuple[Source, types.FunctionType, Mutant, random.Random]:
    rng = random.Random(f"code-objects:{seed}:{number}")
    src = source(rng)
    namespace: dict[str, Any] = {}
    exec(src.text, namespace)
    func = namespace["F"]
    return src, func, mutate(rng, func.__code__), rng


def late_object(func: types.FunctionType) -> Any:
    held = list(func.__defaults__ or ()) + list((func.__kwdefaults__ or {}).values())
    return next(v for v in held if isinstance(v, types.LateDefaultType))


def run_case(seed: int, number: int) -> list[Any]:
    src, func, mutant, rng = case(seed, number)
    try:
        route, code = rebuild(rng, func.__code__, mutant)
    except Unsafe as exc:
        return ["unsafe", mutant.kinds, str(exc)]
    except Exception as exc:
        return ["differ", mutant.kinds, "rebuild",
                f"the mutant was not made: {type(exc).__name__}: {exc}"]
    calls = call_sources(rng, src)
    late = late_object(func)
    try:
        mutated = make_function(code, func)
    except Exception as exc:
        return ["differ", mutant.kinds, route,
                f"no function from the mutant: {type(exc).__name__}: {exc}"]
    want = transcript(func, calls, late)
    got = transcript(mutated, calls, late)
    for a, b in zip(want, got):
        if a != b:
            return ["differ", mutant.kinds, route, f"{a[0]}: unmutated {a[1:]}, mutant {b[1:]}"]
    return ["same", mutant.kinds, route, len(got)]


def describe(seed: int, number: int) -> str:
    """What case `number` does, for a report: the function, the mutations and the
    mutant's instructions."""
    src, func, mutant, rng = case(seed, number)
    listing = "\n".join(
        f"  {k:3} {'EXTENDED_ARG* ' * i.prefix}{i.name} {i.arg}"
        + (f" -> {i.target}" if i.target is not None else "")
        for k, i in enumerate(mutant.program.instrs))
    route = rng.choice(ROUTES)
    return (f"{src.text}mutations: {'; '.join(mutant.kinds)}; rebuilt by {route}\n"
            f"calls: {', '.join(call_sources(rng, src))}\n{listing}\n"
            f"handlers: {mutant.program.handlers}")
