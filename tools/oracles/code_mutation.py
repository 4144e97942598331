"""The code-object oracle's worker side: runs INSIDE the interpreter under test (it
decodes that interpreter's bytecode with its own dis), imported by the batch scripts
of tools.oracles.code_objects.

A case: a random function with late defaults (positional, keyword-only, in cells,
read by inner lambdas, comprehensions in defaults, generators), one mutation of its
code, the code rebuilt through one route (``replace()``, the ``types.CodeType``
constructor, ``marshal``), and, unless the interpreter refuses it, calls of a
function made from it. The outcome is a short summary; the oracle is that the process
lives: a refused code object is a Python exception, and an accepted one runs to a
result or a Python exception.

The mutations keep what upstream CPython needs of its own instructions, which it
does not check (it runs whatever bytecode it is given): stack effects balanced at
every instruction and across jumps and handlers (checked by stack_depths() before a
mutant runs; one that fails is counted, not run), arguments in range, jump targets
on instructions, the values on the stack of the right kind. What they change freely
is the fork's own surface: where QUERY_FAST and QUERY_DEREF stand, what they test
and what follows them, whether a late-bound parameter's default stores it, which
loads of it are checked, which parameters are in cells, the texts constant, the
exception table's ranges.
"""

from __future__ import annotations

import dis
import marshal
import opcode
import random
import types
from dataclasses import dataclass, replace
from typing import Any, Callable

CACHES: dict[str, int] = dict(opcode._inline_cache_entries)  # type: ignore[attr-defined]
BACKWARD = {"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
JUMPS = {opcode.opname[op] for op in dis.hasjump}
EXITS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD",
         "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
TESTS = {"QUERY_FAST", "QUERY_DEREF"}


@dataclass
class Instr:
    name: str
    arg: int
    target: int | None = None    # a jump's target: an index into the instruction list


@dataclass
class Handler:
    start: int      # instruction indices, end exclusive
    end: int
    target: int
    depth: int
    lasti: bool
    grown: bool = False   # a mutation widened it: see stack_depths()


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
        instrs.append(Instr(name, arg if op >= opcode.HAVE_ARGUMENT else 0))
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
    instruction needs, are found together (sizes only grow, so this ends)."""
    instrs = program.instrs
    prefixes = [0] * len(instrs)
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
        start, end = starts[h.start] + prefixes[h.start], starts[h.end]
        table += _varint(start, True) + _varint(end - start) + _varint(starts[h.target])
        table += _varint(h.depth << 1 | int(h.lasti))
    return bytes(code), bytes(table)


def stack_depths(program: Program) -> int | None:
    """The largest stack depth, or None if some path underflows the stack, or meets
    another at a different depth: code that upstream CPython cannot run safely."""
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
                # A widened handler may only take instructions at its own depth: the
                # values below that depth are then what its code expects there.
                if h.depth > d or (h.grown and h.depth != d):
                    return None
                if not reach(h.target, h.depth + int(h.lasti) + 1):
                    return None
    return largest


# ---- the functions whose code is mutated ---------------------------------------------

def source(rng: random.Random) -> tuple[str, str]:
    """A function with late defaults, and how its calls are written (a call of F)."""
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
            expr = rng.choice([f"({p!r}, {read})", f"[{read}]", f"[x for x in ({read},)]",
                               f"(lambda: {read})()", f"len(({read}, {p!r}))", "0",
                               f"{read} if {read} else 1"])
            parts.append(f"{p}=>{expr}")
            late.append(p)
        else:
            parts.append(f"{p}={rng.choice(['0', 'None', '()'])}")
    if not late:
        parts[-1] = parts[-1].split("=")[0] + "=>1"
    body = rng.choice(["return ({names},)", "yield ({names},)",
                       "g = lambda: ({names},)\n    return g()",
                       "try:\n        return ({names},)\n    except Exception:\n        return 1"])
    text = f"def F({', '.join(parts)}):\n    " + body.format(names=", ".join(params))
    return text, ", ".join(params)


# ---- mutations -------------------------------------------------------------------------

def _late_params(code: types.CodeType, program: Program) -> list[int]:
    return [ins.arg for ins in program.instrs if ins.name in TESTS]


def mutate(rng: random.Random, code: types.CodeType
           ) -> tuple[str, Program, dict[str, Any]]:
    """One mutation: its name, the new program, and other fields for replace()."""
    program = decode(code)
    instrs = program.instrs
    late = _late_params(code, program)
    tests = [k for k, ins in enumerate(instrs) if ins.name in TESTS]
    changes: dict[str, Any] = {}
    kind = rng.choice(["insert", "insert", "delete_test", "swap_test", "test_arg",
                       "unstore", "unchecked_load", "jump_kind", "add_test", "no_resume",
                       "handlers", "cells", "texts", "store_arg"])
    nlocals = len(code.co_varnames) + len(code.co_cellvars) + len(code.co_freevars)

    def insert(k: int, new: list[Instr]) -> None:
        for ins in instrs:
            if ins.target is not None and ins.target >= k:
                ins.target += len(new)
        for h in program.handlers:
            h.start += len(new) if h.start >= k else 0
            h.end += len(new) if h.end >= k else 0
            h.target += len(new) if h.target >= k else 0
        instrs[k:k] = new

    def delete(k: int, count: int) -> None:
        for ins in instrs:
            if ins.target is not None and ins.target > k:
                ins.target = max(k, ins.target - count)
        for h in program.handlers:
            h.start = h.start - count if h.start > k else h.start
            h.end = h.end - count if h.end > k else h.end
            h.target = h.target - count if h.target > k else h.target
        del instrs[k:k + count]

    if kind == "insert":
        where = rng.choice([next(k for k, i in enumerate(instrs) if i.name == "RESUME") + 1,
                            rng.randrange(len(instrs)),
                            *(t + rng.choice([0, 1, 2]) for t in tests)])
        if 0 < where < len(instrs) and instrs[where - 1].name == "END_FOR":
            where -= 1   # FOR_ITER's exit skips END_FOR and the POP_TOP after it
        insert(where, rng.choice([[Instr("NOP", 0)],
                                  [Instr("LOAD_CONST", 0), Instr("POP_TOP", 0)],
                                  [Instr("EXTENDED_ARG", 0), Instr("NOP", 0)]]))
    elif kind == "delete_test" and tests:
        # The test and its jump go: the default runs whatever the call passed.
        k = rng.choice(tests)
        delete(k, 2)
        if rng.random() < 0.5:
            texts = list(code.co_consts[-1])
            del texts[tests.index(k)]
            changes["co_consts"] = code.co_consts[:-1] + (tuple(texts),)
    elif kind == "swap_test" and tests:
        ins = instrs[rng.choice(tests)]
        ins.name = "QUERY_DEREF" if ins.name == "QUERY_FAST" else "QUERY_FAST"
    elif kind == "test_arg" and tests:
        instrs[rng.choice(tests)].arg = rng.choice([0, 1, 2, nlocals - 1, nlocals, 255, 256,
                                                    rng.randrange(nlocals + 3)])
    elif kind == "unstore" and tests:
        # The default's last store goes: the parameter may stay unbound.
        k = rng.choice(tests)
        end = instrs[k + 1].target or len(instrs)
        stores = [j for j in range(k, end) if instrs[j].name in ("STORE_FAST", "STORE_DEREF")
                  and instrs[j].arg == instrs[k].arg]
        if stores:
            instrs[stores[-1]] = Instr("POP_TOP", 0)
    elif kind == "unchecked_load":
        loads = [k for k, i in enumerate(instrs) if i.name == "LOAD_FAST_CHECK" and i.arg in late]
        if loads:
            instrs[rng.choice(loads)].name = "LOAD_FAST"
        else:
            # A load of a late parameter right after RESUME, before its test.
            resume = next(k for k, i in enumerate(instrs) if i.name == "RESUME")
            insert(resume + 1, [Instr(rng.choice(["LOAD_FAST", "LOAD_FAST_CHECK"]),
                                      rng.choice(late) if late else 0), Instr("POP_TOP", 0)])
    elif kind == "jump_kind" and tests:
        instrs[rng.choice(tests) + 1].name = rng.choice(["POP_JUMP_IF_FALSE",
                                                         "POP_JUMP_IF_NONE",
                                                         "POP_JUMP_IF_NOT_NONE"])
    elif kind == "add_test":
        # A test elsewhere, with a jump to the next instruction (stack-neutral).
        k = rng.randrange(1, len(instrs))
        test = Instr(rng.choice(["QUERY_FAST", "QUERY_DEREF"]),
                     rng.choice(late) if late and rng.random() < 0.8 else rng.randrange(nlocals))
        insert(k, [test, Instr("POP_JUMP_IF_TRUE", 0, target=k + 2)])
        if instrs[k + 1].target is not None:
            instrs[k + 1].target = k + 2
    elif kind == "no_resume":
        k = next(k for k, i in enumerate(instrs) if i.name == "RESUME")
        delete(k, 1)
    elif kind == "handlers" and program.handlers:
        # Grow or shrink a handler's range over instructions of the same depth.
        h = rng.choice(program.handlers)
        if rng.random() < 0.5:
            h.start = max(0, h.start - rng.randint(1, 8))
            h.grown = True
        else:
            step = rng.randint(-4, 8)
            h.end = min(len(instrs), h.end + step)
            h.grown = step > 0
    elif kind == "cells" and late:
        # A late-bound parameter moved into a cell, or out of one, with or without
        # the instructions that go with it.
        name = code.co_varnames[rng.choice(late)]
        if name in code.co_cellvars:
            changes["co_cellvars"] = tuple(c for c in code.co_cellvars if c != name)
        else:
            changes["co_cellvars"] = code.co_cellvars + (name,)
            index = code.co_varnames.index(name)
            packed = {"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST"}
            if rng.random() < 0.5 and not any(
                    i.name in packed and index in (i.arg >> 4, i.arg & 15) for i in instrs):
                # With the instructions of a cell (not when a superinstruction
                # would still store into the cell's local: upstream's hazard).
                for ins in instrs:
                    if ins.arg == index and ins.name in ("QUERY_FAST", "STORE_FAST",
                                                         "LOAD_FAST", "LOAD_FAST_CHECK"):
                        ins.name = {"QUERY_FAST": "QUERY_DEREF", "STORE_FAST": "STORE_DEREF",
                                    "LOAD_FAST": "LOAD_DEREF",
                                    "LOAD_FAST_CHECK": "LOAD_DEREF"}[ins.name]
                # With its MAKE_CELL: CPython's LOAD_DEREF and STORE_DEREF
                # read the local as a cell without checking (a QUERY_DEREF
                # without its cell is test_code's case).
                insert(0, [Instr("MAKE_CELL", index)])
    elif kind == "texts":
        texts = code.co_consts[-1]
        changes["co_consts"] = code.co_consts[:-1] + (rng.choice([
            texts[:-1], texts + ("x",), tuple(str(t).encode() for t in texts),
            types.LateDefaultType("t"), list(texts), ()]),)
    elif kind == "store_arg" and tests:
        k = rng.choice(tests)
        end = instrs[k + 1].target or len(instrs)
        # The store of the parameter itself (the value of its default): another
        # store may restore a comprehension's variable, which can hold NULL.
        stores = [j for j in range(k, end) if instrs[j].name == "STORE_FAST"
                  and instrs[j].arg == instrs[k].arg]
        plain = [i for i, n in enumerate(code.co_varnames) if n not in code.co_cellvars]
        if stores and plain:
            instrs[stores[-1]].arg = rng.choice(plain)
    else:
        kind = "none"
    return kind, program, changes


def rebuild(rng: random.Random, code: types.CodeType, program: Program,
            changes: dict[str, Any]) -> tuple[str, types.CodeType]:
    """The mutant, made through one of the routes: replace(), the constructor, or
    marshal (with a byte of the parameters' kinds flipped, sometimes)."""
    co_code, table = encode(program)
    depth = stack_depths(program)
    if depth is None:
        raise Unsafe("stack effects do not balance")
    fields = dict(co_code=co_code, co_exceptiontable=table, co_linetable=b"",
                  co_stacksize=depth + 2, **changes)
    route = rng.choice(["replace", "constructor", "marshal"])
    if route == "replace":
        return route, code.replace(**fields)
    if route == "constructor":
        new = code.replace(**fields)
        return route, types.CodeType(
            new.co_argcount, new.co_posonlyargcount, new.co_kwonlyargcount, new.co_nlocals,
            new.co_stacksize, new.co_flags, new.co_code, new.co_consts, new.co_names,
            new.co_varnames, new.co_filename, new.co_name, new.co_qualname,
            new.co_firstlineno, new.co_linetable, new.co_exceptiontable, new.co_freevars,
            new.co_cellvars)
    plain = code.replace(**fields)
    data = bytearray(marshal.dumps(plain))
    if rng.random() < 0.5:
        # A flag of a parameter's kind, CO_FAST_LATE (0x01) or CO_FAST_CELL (0x40):
        # marshal data is the one route that gives the kinds as they are.
        kinds = _kinds_offset(data, plain)
        if kinds is not None:
            param = rng.randrange(code.co_argcount + code.co_kwonlyargcount)
            data[kinds + param] ^= rng.choice([0x01, 0x40, 0x41])
    try:
        mutant = marshal.loads(bytes(data))
    except (ValueError, TypeError, EOFError):
        raise
    if mutant.co_code != plain.co_code:
        raise Unsafe("the flipped byte was not a kind")
    return "marshal", mutant


def _kinds_offset(data: bytearray, code: types.CodeType) -> int | None:
    # co_localspluskinds is a bytes object of one byte per local: the parameters'
    # bytes are known (CO_FAST_LOCAL 0x20, CO_FAST_CELL 0x40, CO_FAST_LATE 0x01).
    n = len(code.co_varnames) + len(code.co_cellvars) + len(code.co_freevars)
    nparams = code.co_argcount + code.co_kwonlyargcount
    late = {ins.arg for ins in decode(code).instrs if ins.name in TESTS}
    expected = bytes(0x20 | (0x40 if name in code.co_cellvars else 0)
                     | (0x01 if i in late else 0)
                     for i, name in enumerate(code.co_varnames[:nparams]))
    for marker in (b"s", b"\xf3"):   # TYPE_STRING, with or without FLAG_REF
        head = marker + n.to_bytes(4, "little") + expected
        at = data.find(head)
        if at >= 0 and data.find(head, at + 1) < 0:
            return at + 5
    return None


class Unsafe(Exception):
    """A mutant that upstream CPython could not run safely either: not run."""


# ---- a case ---------------------------------------------------------------------------

def _call_all(func: Callable[..., Any], nparams: list[str], late_obj: Any) -> list[str]:
    outcomes = []
    for args in ([], [1], [1, 2], [late_obj], [1, late_obj, late_obj]):
        try:
            value = func(*args[:len(nparams)])
            if isinstance(value, types.GeneratorType):
                value = list(value)
            outcomes.append(type(value).__name__)
        except Exception as exc:
            outcomes.append(type(exc).__name__)
    return outcomes


def run_case(seed: int, number: int) -> list[Any]:
    rng = random.Random(f"code-objects:{seed}:{number}")
    text, names = source(rng)
    namespace: dict[str, Any] = {}
    exec(text, namespace)
    func = namespace["F"]
    code = func.__code__
    kind, program, changes = mutate(rng, code)
    try:
        route, mutant = rebuild(rng, code, program, changes)
    except Unsafe as exc:
        return ["unsafe", kind, str(exc)]
    except (ValueError, TypeError, SystemError) as exc:
        return ["refused", kind, type(exc).__name__, str(exc)[:120]]
    try:
        closure = func.__closure__ if len(mutant.co_freevars) == len(code.co_freevars) else None
        new = types.FunctionType(mutant, namespace, "F", func.__defaults__, closure)
        new.__kwdefaults__ = func.__kwdefaults__
    except (ValueError, TypeError) as exc:
        return ["refused", kind, route, type(exc).__name__]
    late_obj = func.__defaults__[-1] if func.__defaults__ else types.LateDefaultType("x")
    return ["ran", kind, route, _call_all(new, names.split(", "), late_obj)]


def describe(seed: int, number: int) -> str:
    """What case `number` does, without running it: for a report."""
    rng = random.Random(f"code-objects:{seed}:{number}")
    text, _ = source(rng)
    namespace: dict[str, Any] = {}
    exec(text, namespace)
    kind, program, changes = mutate(rng, namespace["F"].__code__)
    listing = "\n".join(f"  {k:3} {i.name} {i.arg}" + (f" -> {i.target}" if i.target is not None
                                                      else "")
                        for k, i in enumerate(program.instrs))
    return (f"{text}\nmutation: {kind} {sorted(changes)}\n{listing}\n"
            f"handlers: {program.handlers}")
