"""Differential fuzzer for PEP 671 late-bound parameter defaults.

Run it from the repository root with the PATCHED interpreter:

    ./python -m tools.fuzz_late_defaults --seed 1 --cases 2000 --seconds 60

Each case generates a random signature (positional-only, ordinary and
keyword-only parameters, optionally *args and **kwargs; every parameter has
no default, an early default, or a late default `p3=>_rec('p3', p0, p5)`
that reads random other parameters, to its left or right, directly or
through a lambda, and records in a log that it ran), as a def, a lambda, a
generator or a coroutine, sometimes nested in a function whose local the
defaults read.

The same function is also written with the sentinel idiom that defines the
semantics: passed arguments and early defaults are bound first, then the
late defaults run left to right in parameter order (positional, then
keyword-only), each under `if p is _S or type(p) is LateDefaultType:` (passing
a late-default object is leaving the argument out); reading an omitted parameter whose
default has not run yet raises UnboundLocalError (NameError through a
lambda), emulated with a check around each read of a late parameter.

Both are called with the same random calls (positional, keywords in random
order, *args/**kwargs unpacking, None/Ellipsis values, a late-default object, missing,
unknown and
duplicated arguments), each call repeated so that the specializing
interpreter warms up.  The outcomes are compared: the returned tuple of all
parameters, the exception type and message, and the evaluation log.  The
late-bound function's __defaults_extra__/__kwdefaults_extra__ are checked
against the source texts too.

Deterministic for a seed: case N of seed S is the same on every run
(replay one with --seed S --case N).  On a mismatch the seed, the case
number, both sources, the call and both outcomes are printed and the exit
status is 1.  The last line is `fuzz: N cases, M calls, K mismatches (seed S)`.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import random
import sys
import time
import types
from dataclasses import dataclass, field
from typing import Any, Callable

LATE_PROBE = "def _probe(a=>1): return a"

UNBOUND_MSG = "cannot access parameter {!r}: its late-bound default has not been evaluated yet"
FREE_MSG = ("cannot access free variable {!r} where it is not associated with a value "
            "in enclosing scope")

# _L is a late-default object: passed to a late-bound parameter it means "evaluate the
# default"; to any other parameter it is an ordinary value.
VALUES = ["0", "1", "-7", "None", "...", "'s'", "()", "(1, None)", "True", "2.5", "'...'",
          "_L"]


# --------------------------------------------------------------------------
# Runtime helpers shared by the generated functions
# --------------------------------------------------------------------------

LOG: list[Any] = []


class Sentinel:
    def __repr__(self) -> str:
        return "_S"


_S = Sentinel()
# The type of the objects that __defaults__ holds for late-bound parameters (PEP 671);
# None on an interpreter without them, where this program cannot run anyway.
_LT = getattr(types, "LateDefaultType", None)
_L = _LT("fuzz") if _LT is not None else None


class Boom(Exception):
    """Raised by a late default chosen to fail."""


def _rec(name: str, *args: Any) -> tuple[Any, ...]:
    LOG.append((name, args))
    return (name,) + args


def _boom(name: str, *args: Any) -> Any:
    LOG.append(("boom", name, args))
    raise Boom(name)


def _chk(value: Any, name: str) -> Any:
    """Sentinel side: a direct read of a late parameter."""
    if value is _S or type(value) is _LT:
        raise UnboundLocalError(UNBOUND_MSG.format(name))
    return value


def _chkf(value: Any, name: str) -> Any:
    """Sentinel side: a read of a late parameter through a lambda."""
    if value is _S or type(value) is _LT:
        raise NameError(FREE_MSG.format(name))
    return value


async def _aid(value: Any) -> Any:
    LOG.append(("await",))
    return value


def helpers() -> dict[str, Any]:
    return {"_rec": _rec, "_boom": _boom, "_chk": _chk, "_chkf": _chkf, "_S": _S,
            "_L": _L, "_LT": _LT,
            "_aid": _aid, "__name__": "fuzzcase"}


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------

@dataclass
class Ref:
    target: str
    how: str  # 'direct' | 'lambda' | 'await'


@dataclass
class Param:
    name: str
    kind: str  # 'posonly' | 'pos' | 'kwonly'
    default: str  # 'none' | 'early' | 'late'
    early: str = ""
    refs: list[Ref] = field(default_factory=list)
    fails: bool = False
    annotation: str = ""


@dataclass
class Signature:
    params: list[Param]
    varargs: str | None
    varkw: str | None
    form: str  # 'def' | 'lambda' | 'gen' | 'async'
    outer: bool  # nested in a function with a local 'z' read by defaults

    @property
    def positional(self) -> list[Param]:
        return [p for p in self.params if p.kind != "kwonly"]

    @property
    def kwonly(self) -> list[Param]:
        return [p for p in self.params if p.kind == "kwonly"]

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def is_late(self, name: str) -> bool:
        p = self.param(name)
        return p is not None and p.default == "late"


def gen_signature(rng: random.Random) -> Signature:
    n_posonly = rng.choice([0, 0, 1, 2, 3])
    n_pos = rng.choice([0, 1, 2, 3, 4])
    n_kwonly = rng.choice([0, 0, 1, 2, 3])
    if n_posonly + n_pos + n_kwonly == 0:
        n_pos = 1
    r = rng.random()
    form = "def" if r < 0.6 else "lambda" if r < 0.75 else "gen" if r < 0.9 else "async"
    params: list[Param] = []
    i = 0
    seen_default = False
    for kind, n in (("posonly", n_posonly), ("pos", n_pos), ("kwonly", n_kwonly)):
        for _ in range(n):
            if kind != "kwonly" and seen_default:
                choices = ["early", "late", "late"]
            else:
                choices = ["none", "early", "late", "late"]
            d = rng.choice(choices)
            if kind != "kwonly" and d != "none":
                seen_default = True
            params.append(Param(f"p{i}", kind, d))
            i += 1
    varargs = "va" if rng.random() < 0.3 else None
    varkw = "vk" if rng.random() < 0.3 else None
    sig = Signature(params, varargs, varkw, form, outer=rng.random() < 0.2)
    names = [p.name for p in params]
    extra_names = [n for n in (varargs, varkw) if n] + (["z"] if sig.outer else [])
    for p in params:
        if form != "lambda" and rng.random() < 0.15:
            p.annotation = rng.choice(["int", "'x'", "None"])
        if p.default == "early":
            p.early = rng.choice(VALUES)
        elif p.default == "late":
            k = rng.choice([0, 1, 1, 2, 2, 3])
            for _ in range(k):
                if extra_names and rng.random() < 0.15:
                    target = rng.choice(extra_names)
                elif rng.random() < 0.05:
                    target = p.name  # reads itself: always UnboundLocalError
                else:
                    target = rng.choice(names)
                how = "direct"
                x = rng.random()
                if x < 0.15 and target not in ("va", "vk"):
                    how = "lambda"
                elif x < 0.35 and form == "async":
                    how = "await"
                p.refs.append(Ref(target, how))
            p.fails = rng.random() < 0.05
    return sig


def late_expr(p: Param, sig: Signature, sentinel: bool) -> str:
    parts = [repr(p.name)]
    for ref in p.refs:
        t = ref.target
        late = sig.is_late(t)
        if ref.how == "direct":
            parts.append(f"_chk({t}, {t!r})" if sentinel and late else t)
        elif ref.how == "lambda":
            parts.append(f"(lambda: _chkf({t}, {t!r}))()" if sentinel and late
                         else f"(lambda: {t})()")
        else:
            parts.append(f"(await _aid(_chk({t}, {t!r})))" if sentinel and late
                         else f"(await _aid({t}))")
    fn = "_boom" if p.fails else "_rec"
    return f"{fn}({', '.join(parts)})"


def param_list(sig: Signature, sentinel: bool) -> str:
    out: list[str] = []
    have_star = False
    for p in sig.params:
        if p.kind == "kwonly" and not have_star:
            out.append(f"*{sig.varargs}" if sig.varargs else "*")
            have_star = True
        s = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default == "early":
            s += (" = " if p.annotation else "=") + p.early
        elif p.default == "late":
            if sentinel:
                s += (" = " if p.annotation else "=") + "_S"
            else:
                s += (" => " if p.annotation else "=>") + late_expr(p, sig, False)
        out.append(s)
        if p.kind == "posonly" and (p is sig.params[-1] or sig.params[sig.params.index(p) + 1].kind != "posonly"):
            out.append("/")
    if not have_star and sig.varargs:
        out.append(f"*{sig.varargs}")
    if sig.varkw:
        out.append(f"**{sig.varkw}")
    return ", ".join(out)


def result_expr(sig: Signature) -> str:
    names = [p.name for p in sig.params] + [n for n in (sig.varargs, sig.varkw) if n]
    return "(" + "".join(f"{n}, " for n in names) + ")"


def render(sig: Signature, sentinel: bool) -> str:
    plist = param_list(sig, sentinel)
    lines: list[str] = []
    ind = ""
    if sig.outer:
        lines.append("def _outer():")
        lines.append("    z = 'zz'")
        ind = "    "
    if sig.form == "lambda" and not sentinel:
        lines.append(f"{ind}f = lambda {plist}: {result_expr(sig)}")
    else:
        kw = "async def" if sig.form == "async" else "def"
        lines.append(f"{ind}{kw} f({plist}):")
        if sentinel:
            for p in sig.params:  # already in order: positional, then keyword-only
                if p.default == "late":
                    lines.append(f"{ind}    if {p.name} is _S or type({p.name}) is _LT:")
                    lines.append(f"{ind}        {p.name} = {late_expr(p, sig, True)}")
        if sig.form == "gen":
            lines.append(f"{ind}    yield {result_expr(sig)}")
        else:
            lines.append(f"{ind}    return {result_expr(sig)}")
    if sig.outer:
        lines.append("    return f")
        lines.append("f = _outer()")
    return "\n".join(lines) + "\n"


@dataclass
class Call:
    source: str  # e.g. "f(1, *[2], p3=None, **{'p4': 5})"


def gen_call(rng: random.Random, sig: Signature) -> Call:
    pos = sig.positional
    kwo = sig.kwonly
    omit_required = rng.random() < 0.1
    n_pos = rng.randint(0, len(pos))
    # Required positional parameters beyond the positional prefix: keyword or omitted.
    positional: list[str] = [rng.choice(VALUES) for _ in range(n_pos)]
    if rng.random() < (0.5 if sig.varargs else 0.05):
        if n_pos == len(pos):
            positional += [rng.choice(VALUES) for _ in range(rng.randint(1, 3))]
    keywords: list[tuple[str, str]] = []
    for p in pos[n_pos:]:
        required = p.default == "none"
        if p.kind == "posonly":
            if rng.random() < 0.05:
                keywords.append((p.name, rng.choice(VALUES)))  # error, or into **vk
            continue
        if required and not omit_required:
            keywords.append((p.name, rng.choice(VALUES)))
        elif rng.random() < 0.4:
            keywords.append((p.name, rng.choice(VALUES)))
    for p in kwo:
        required = p.default == "none"
        if (required and not omit_required) or rng.random() < 0.4:
            keywords.append((p.name, rng.choice(VALUES)))
    if rng.random() < (0.3 if sig.varkw else 0.03):
        keywords.append((rng.choice(["zz", "va", "vk", "q"]), rng.choice(VALUES)))
    if rng.random() < 0.04 and n_pos:
        dup = pos[rng.randrange(n_pos)]
        keywords.append((dup.name, rng.choice(VALUES)))
    # Duplicate keyword names cannot both be literal; keep the first only.
    seen: set[str] = set()
    uniq: list[tuple[str, str]] = []
    for k, v in keywords:
        if k not in seen:
            seen.add(k)
            uniq.append((k, v))
    keywords = uniq
    rng.shuffle(keywords)
    args: list[str] = []
    cut = rng.randint(0, len(positional)) if rng.random() < 0.3 else len(positional)
    args += positional[:cut]
    if cut < len(positional) or rng.random() < 0.05:
        rest = positional[cut:]
        args.append("*[" + "".join(f"{v}, " for v in rest) + "]")
    kcut = rng.randint(0, len(keywords)) if rng.random() < 0.3 else len(keywords)
    args += [f"{k}={v}" for k, v in keywords[:kcut]]
    if kcut < len(keywords) or rng.random() < 0.05:
        rest_kw = keywords[kcut:]
        args.append("**{" + ", ".join(f"{k!r}: {v}" for k, v in rest_kw) + "}")
    return Call(f"f({', '.join(args)})")


# --------------------------------------------------------------------------
# Execution and comparison
# --------------------------------------------------------------------------

Outcome = tuple[Any, ...]


def drive(func: Callable[..., Any], call: Call, form: str, ns: dict[str, Any]) -> tuple[Outcome, list[Any]]:
    del LOG[:]
    try:
        ns["f"] = func
        obj = eval(call.source, ns)
        if form == "gen":
            LOG.append(("created",))
            try:
                value = next(obj)
            finally:
                obj.close()
        elif form == "async":
            LOG.append(("created",))
            try:
                obj.send(None)
            except StopIteration as stop:
                value = stop.value
            else:
                obj.close()
                raise AssertionError("coroutine did not finish")
        else:
            value = obj
        out: Outcome = ("ok", value)
    except (TypeError, UnboundLocalError, NameError, Boom, RuntimeError) as exc:
        msg = str(exc).replace(func.__qualname__ + "()", "<F>()")
        out = ("raise", type(exc).__name__, msg)
    return out, list(LOG)


@dataclass
class Mismatch:
    what: str
    call: str
    late: Any
    sentinel: Any


def expected_extras(sig: Signature) -> tuple[Any, Any]:
    pos_defaults = [p for p in sig.positional if p.default != "none"]
    pos_extra: Any = None
    if any(p.default == "late" for p in pos_defaults):
        pos_extra = tuple(ast.unparse(ast.parse(late_expr(p, sig, False), mode="eval"))
                          if p.default == "late" else None for p in pos_defaults)
    kw_defaults = [p for p in sig.kwonly if p.default != "none"]
    kw_extra: Any = None
    if any(p.default == "late" for p in kw_defaults):
        kw_extra = {p.name: (ast.unparse(ast.parse(late_expr(p, sig, False), mode="eval"))
                             if p.default == "late" else None) for p in kw_defaults}
    return pos_extra, kw_extra


def build(source: str, label: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    ns = helpers()
    del LOG[:]
    exec(compile(source, label, "exec"), ns)
    return ns["f"], ns


def run_case(seed: int, case: int) -> tuple[Signature, str, str, list[Call], list[Mismatch], int]:
    rng = random.Random(seed * 1_000_003 + case)
    sig = gen_signature(rng)
    late_src = render(sig, sentinel=False)
    sent_src = render(sig, sentinel=True)
    mismatches: list[Mismatch] = []
    late_f, late_ns = build(late_src, f"<case {case}: late>")
    sent_f, sent_ns = build(sent_src, f"<case {case}: sentinel>")
    extras = (getattr(late_f, "__defaults_extra__"), getattr(late_f, "__kwdefaults_extra__"))
    want = expected_extras(sig)
    if extras != want:
        mismatches.append(Mismatch("extras", "", extras, want))
    try:
        str(inspect.signature(late_f))
    except Exception as exc:  # noqa: BLE001 - any failure is a finding
        mismatches.append(Mismatch("inspect.signature", "", repr(exc), "a signature"))
    calls = [gen_call(rng, sig) for _ in range(rng.randint(1, 6))]
    repeats = rng.choice([1, 1, 2, 12])
    n_calls = 0
    for _ in range(repeats):
        for call in calls:
            n_calls += 1
            a = drive(late_f, call, sig.form, late_ns)
            b = drive(sent_f, call, sig.form, sent_ns)
            if a != b:
                mismatches.append(Mismatch("outcome/log", call.source, a, b))
                return sig, late_src, sent_src, calls, mismatches, n_calls
    return sig, late_src, sent_src, calls, mismatches, n_calls


def report(seed: int, case: int, late_src: str, sent_src: str, mm: Mismatch) -> None:
    print(f"MISMATCH seed={seed} case={case} ({mm.what})")
    print("--- late-bound source ---")
    print(late_src, end="")
    print("--- sentinel source ---")
    print(sent_src, end="")
    if mm.call:
        print(f"--- call ---\n{mm.call}")
    print(f"late-bound: {mm.late!r}")
    print(f"sentinel:   {mm.sentinel!r}")
    print(f"(replay: {sys.executable} -m tools.fuzz_late_defaults --seed {seed} --case {case})")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.fuzz_late_defaults",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--cases", type=int, default=1000,
                    help="number of cases, 0 for no limit (default 1000)")
    ap.add_argument("--seconds", type=float, default=0,
                    help="stop after this many seconds, 0 for no limit (default)")
    ap.add_argument("--case", type=int, help="run only this case number (replay)")
    ap.add_argument("--show", action="store_true", help="print the sources of each case")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first mismatch")
    ap.add_argument("--progress", type=float, default=5.0,
                    help="seconds between progress lines (default 5, 0: none)")
    args = ap.parse_args(argv)

    try:
        compile(LATE_PROBE, "<probe>", "exec")
    except SyntaxError:
        print(f"fuzz: {sys.executable} does not support late-bound defaults", file=sys.stderr)
        return 2
    if args.cases <= 0 and args.seconds <= 0 and args.case is None:
        ap.error("give --cases or --seconds")

    t0 = time.monotonic()
    last = t0
    done = calls = bad = 0
    numbers = [args.case] if args.case is not None else None
    case = 0
    while True:
        if numbers is not None:
            if not numbers:
                break
            case = numbers.pop()
        elif args.cases > 0 and done >= args.cases:
            break
        now = time.monotonic()
        if numbers is None and args.seconds > 0 and now - t0 >= args.seconds:
            break
        _, late_src, sent_src, _, mms, n = run_case(args.seed, case)
        if args.show:
            print(f"=== case {case}\n{late_src}{sent_src}", end="")
        done += 1
        calls += n
        for mm in mms:
            bad += 1
            report(args.seed, case, late_src, sent_src, mm)
        if bad and not args.keep_going:
            break
        case += 1
        if args.progress > 0 and now - last >= args.progress:
            last = now
            print(f"fuzz: {done} cases, {calls} calls, {bad} mismatches, "
                  f"{now - t0:.0f}s", flush=True)
    print(f"fuzz: {done} cases, {calls} calls, {bad} mismatches (seed {args.seed})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
