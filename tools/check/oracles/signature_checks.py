"""The introspection oracle's worker side: runs INSIDE the interpreter under test,
imported by the batch scripts of tools.check.oracles.introspection.

A case: a random function with late, early and no defaults, put through one to three
transformations (functools.partial with ordinary values and late-default objects of
its own, of another function or of none; __defaults__ and __kwdefaults__ reassigned,
shorter, longer, mixed; __code__ of another function; a types.FunctionType rebuild;
copy.copy and copy.deepcopy; pickling by value with cloudpickle when it is
installed). Every late default records its id (`_ran('f3_1.b')`, the function's tag
and the parameter) when it runs, so the code's own late defaults are known from its
constants, whatever the interpreter thinks of them. For the callable that results,
and for random sets of arguments, the rule is that the signature says what the call
does, and calls follow the code:

- inspect.signature() shows a default as late, ``name=>text`` with the object's own
  text, exactly when it is a late-default object and the code of the function under
  the callable has a late default for that parameter (known from the code's
  constants), and ``name=repr`` for any other value, a late-default object that the
  call binds as a value included; for a function, each Parameter.default is the
  object that __defaults__ / __kwdefaults__ holds, aligned with the parameters as a
  call aligns them (a __defaults__ longer than the parameters gives its last items),
  and __defaults_extra__ / __kwdefaults_extra__ are the texts of the late-default
  objects held there (None for other values, None when none is one);
- a call through ``inspect.signature(g).bind(...)`` + ``apply_defaults()`` does what
  the direct call does (the same result or exception, the same defaults run);
- leaving a parameter out runs a late default for it exactly when the value bound to
  it is a late-default object and the function's code has a late default for that
  parameter, and the default that runs is the code's (whatever the object's text);
  otherwise the parameter gets the value itself and nothing runs for it.

One case in five is a C function instead, declared through Argument Clinic with a
late default (bisect's four, and _testclinic's when it is built), bare or under a
functools.partial that fixes random values and late-default objects: its signature
shows a late-default object as ``name=>text`` exactly on the parameters that the
declaration makes late (on another, the parser binds it as a value), bind() +
apply_defaults() predict the call, and passing any late-default object for a
late-bound parameter, by position or by keyword, does what leaving it out does.

The outcome is a list of the disagreements found (empty when all agree).
"""

from __future__ import annotations

import copy
import functools
import inspect
import random
import re
import types
from typing import Any, Callable

LOG: list[str] = []


def _ran(ident: str) -> str:
    LOG.append(ident)
    return ident


def make_function(rng: random.Random, tag: str) -> Callable[..., Any]:
    names = ["a", "b", "c", "d", "e"]
    npos = rng.randint(1, 4)
    nkw = rng.choice([0, 0, 1, 2])
    params = names[:npos + nkw]
    parts: list[str] = []
    defaulted = False
    for k, p in enumerate(params):
        if k == npos:
            parts.append("*")
        pick = rng.random()
        if k < npos and not defaulted and pick < 0.3:
            parts.append(p)
            continue
        if pick < 0.65:
            # It records that it runs before it reads anything, which may fail.
            reads = rng.sample([q for q in params if q != p],
                               k=min(len(params) - 1, rng.choice([0, 1])))
            parts.append(f"{p}=>(_ran({tag + '.' + p!r}){''.join(', ' + r for r in reads)})")
        elif pick < 0.9 or k < npos:
            parts.append(f"{p}={rng.choice(['0', 'None', '...', repr(tag)])}")
        else:
            parts.append(p)
        if k < npos:
            defaulted = True
    form = rng.choice(["def", "def", "lambda", "closure"])
    names_tuple = "(" + "".join(p + ", " for p in params) + ")"
    namespace: dict[str, Any] = {"_ran": _ran}
    if form == "lambda":
        exec(f"F = lambda {', '.join(parts)}: {names_tuple}", namespace)
    elif form == "closure":
        exec(f"def make(z):\n    def F({', '.join(parts)}):\n        z\n"
             f"        return {names_tuple}\n    return F\nF = make(1)", namespace)
    else:
        exec(f"def F({', '.join(parts)}):\n    return {names_tuple}", namespace)
    func = namespace["F"]
    func.__name__ = func.__qualname__ = tag
    return func


def late_objects(rng: random.Random, funcs: list[Callable[..., Any]]) -> list[Any]:
    found = [v for f in funcs for v in (f.__defaults__ or ())
             if isinstance(v, types.LateDefaultType)]
    found += [v for f in funcs for v in (f.__kwdefaults__ or {}).values()
              if isinstance(v, types.LateDefaultType)]
    return found + [types.LateDefaultType("fresh")]


def value(rng: random.Random, lates: list[Any]) -> Any:
    return rng.choice([0, 1, None, ..., "v", rng.choice(lates), rng.choice(lates)])


def transform(rng: random.Random, g: Any, funcs: list[Any]) -> tuple[str, Any]:
    lates = late_objects(rng, funcs)
    other = rng.choice(funcs)
    pick = rng.choice(["partial", "partial", "defaults", "kwdefaults", "code", "rebuild",
                       "copy", "pickle"])
    if pick == "partial":
        try:
            sig = inspect.signature(g)
        except (ValueError, TypeError):
            return "partial skipped", g
        params = list(sig.parameters.values())
        args = []
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for _ in range(rng.randint(0, min(2, len(positional)))):
            args.append(value(rng, lates))
        kwargs = {}
        for p in params[len(args):]:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and rng.random() < 0.4:
                kwargs[p.name] = value(rng, lates)
        return f"partial({len(args)} args, {sorted(kwargs)})", functools.partial(g, *args,
                                                                                 **kwargs)
    if not isinstance(g, types.FunctionType):
        return "not a function", g
    if pick == "defaults":
        n = rng.randint(0, 6)
        g.__defaults__ = tuple(value(rng, lates) for _ in range(n)) if n else None
        return f"__defaults__ of {n}", g
    if pick == "kwdefaults":
        keys = rng.sample(["a", "b", "c", "d", "e", "zz"], k=rng.randint(0, 3))  # 6 >= 3
        g.__kwdefaults__ = {k: value(rng, lates) for k in keys} or None
        return f"__kwdefaults__ {keys}", g
    if pick == "code":
        try:
            g.__code__ = other.__code__
        except ValueError:
            return "__code__ not taken (other free variables)", g
        return f"__code__ of {other.__name__}", g
    if pick == "rebuild":
        defaults = rng.choice([g.__defaults__, None, tuple(value(rng, lates) for _ in range(3))])
        new = types.FunctionType(g.__code__, g.__globals__, "rebuilt", defaults, g.__closure__)
        new.__kwdefaults__ = rng.choice([g.__kwdefaults__, None])
        return "FunctionType", new
    if pick == "copy":
        return "copy", rng.choice([copy.copy, copy.deepcopy])(g)
    try:
        import cloudpickle  # type: ignore[import-not-found]
    except ImportError:
        return "pickle skipped", g
    import pickle
    copy_ = pickle.loads(cloudpickle.dumps(g))
    # The copy's globals hold the names its code reads; a __code__ assigned
    # later may read _ran too.
    copy_.__globals__.setdefault("_ran", _ran)
    return "pickle by value", copy_


def call(g: Any, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, list[str]]:
    del LOG[:]
    try:
        result: Any = ("ok", repr(g(*args, **kwargs)))
    except Exception as exc:
        result = ("raise", type(exc).__name__, str(exc))
    return result, list(LOG)


# What a late default of this oracle records: the tag of the function whose code it
# is, and the parameter.
IDENT = re.compile(r"f\d+_\d+\.[a-e]")


def underlying(g: Any) -> Any:
    """The function a partial (of a partial...) calls."""
    while isinstance(g, functools.partial):
        g = g.func
    return g


def code_defaults(func: Any) -> dict[str, str]:
    """The late defaults of func's code, by parameter: the ids they record, constants
    of the code."""
    code = getattr(func, "__code__", None)
    consts = code.co_consts if code is not None else ()
    return {c.split(".", 1)[1]: c for c in consts if isinstance(c, str) and IDENT.fullmatch(c)}


def texts(values: Any) -> Any:
    """What __defaults_extra__ / __kwdefaults_extra__ should be for these defaults."""
    if values is None:
        return None
    def text(v: Any) -> Any:
        return v.text if isinstance(v, types.LateDefaultType) else None
    if isinstance(values, dict):
        out: Any = {k: text(v) for k, v in values.items()}
        found = out.values()
    else:
        out = tuple(text(v) for v in values)
        found = out
    return out if any(t is not None for t in found) else None


def shown(p: inspect.Parameter, own: dict[str, str] | None) -> str:
    """How the parameter (without an annotation) must be shown: late for a late-default
    object that the code evaluates (own: the code's late defaults by parameter, None
    for a callable without code), as the value the call binds otherwise."""
    d = p.default
    late = isinstance(d, types.LateDefaultType) and (own is None or p.name in own)
    return f"{p.name}=>{d.text}" if late else f"{p.name}={d!r}"


def check_function(g: types.FunctionType, params: list[inspect.Parameter]) -> list[str]:
    """A function's signature and extras follow the objects it holds."""
    problems = []
    defaults, kwdefaults = g.__defaults__, g.__kwdefaults__
    if g.__defaults_extra__ != texts(defaults):
        problems.append(f"__defaults_extra__ is {g.__defaults_extra__!r} for __defaults__ "
                        f"{defaults!r}")
    if g.__kwdefaults_extra__ != texts(kwdefaults):
        problems.append(f"__kwdefaults_extra__ is {g.__kwdefaults_extra__!r} for "
                        f"__kwdefaults__ {kwdefaults!r}")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    held: dict[str, Any] = {}
    if defaults and positional:
        # As a call aligns them: the last defaults go with the last parameters.
        names = [p.name for p in positional]
        aligned = defaults[-len(names):]
        held.update(zip(names[len(names) - len(aligned):], aligned))
    for p in params:
        if p.kind is p.KEYWORD_ONLY and kwdefaults and p.name in kwdefaults:
            held[p.name] = kwdefaults[p.name]
    for p in params:
        if p.name in held and p.default is not held[p.name]:
            problems.append(f"{p.name}'s default in the signature is {p.default!r}, but the "
                            f"function holds {held[p.name]!r}")
    return problems


def check(g: Any, rng: random.Random, lates: list[Any]) -> list[str]:
    problems: list[str] = []
    try:
        sig = inspect.signature(g)
    except (ValueError, TypeError) as exc:
        return [] if "incorrect arguments" in str(exc) else [f"signature() raised {exc!r}"]
    params = list(sig.parameters.values())
    func = underlying(g)
    own = code_defaults(func)
    has_code = isinstance(func, types.FunctionType)
    # Shown as what the call does with each default.
    for p in params:
        want = shown(p, own if has_code else None)
        if p.default is not p.empty and str(p) != want:
            problems.append(f"{str(p)!r} is shown for the default {p.default!r}, "
                            f"not {want!r}")
    if isinstance(g, types.FunctionType):
        problems += check_function(g, params)
    # bind() + apply_defaults() predict the call.
    for _ in range(4):
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in params:
            give = p.default is p.empty or rng.random() < 0.4
            if not give:
                continue
            v = value(rng, lates) if rng.random() < 0.8 else p.default
            if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD
                                               and not kwargs and rng.random() < 0.6):
                args.append(v)
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                kwargs[p.name] = v
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            continue
        direct = call(g, args, kwargs)
        bound.apply_defaults()
        via_signature = call(g, list(bound.args), dict(bound.kwargs))
        if direct != via_signature:
            problems.append(f"bind+apply_defaults {bound} -> {via_signature}, "
                            f"the call -> {direct}")
    # Leaving a parameter out runs the code's late default for it exactly when the
    # value bound is a late-default object and the code has one: every other
    # parameter is given an ordinary value (but positional-only ones after it, which
    # cannot be given without it), so that no other default runs first.
    for p in params:
        if p.default is p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        for q in params:
            if q is p:
                if q.kind is q.POSITIONAL_ONLY:
                    break
                continue
            if q.kind is q.POSITIONAL_ONLY:
                positional.append(0)
            elif q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY):
                keywords[q.name] = 0
        keywords.update({q.name: 0 for q in params
                         if q.kind is q.KEYWORD_ONLY and q is not p})
        outcome, log = call(g, positional, keywords)
        ran = [ident for ident in log if ident.endswith("." + p.name)]
        late = isinstance(p.default, types.LateDefaultType)
        expected = own.get(p.name) if late else None
        # A late-default object that a partial passes to a parameter to the left
        # runs that parameter's default first, which may fail before this one.
        stopped_before = outcome[0] == "raise" and log and not ran
        if expected is None and ran:
            problems.append(f"leaving out {p.name} (bound to {p.default!r}) ran {ran}, but "
                            f"the code has {'no late default for it' if late else 'a value'}")
        elif expected is not None and ran != [expected] and not stopped_before:
            problems.append(f"leaving out {p.name} (bound to {p.default!r}) ran {ran or 'none'}"
                            f", not the code's default {expected!r} ({outcome})")
    return problems


def builtins_with_late_defaults() -> list[Any]:
    """C functions whose Clinic declaration has a late default."""
    import bisect
    found: list[Any] = [bisect.bisect_left, bisect.bisect_right, bisect.insort_left,
                        bisect.insort_right]
    try:
        import _testclinic  # type: ignore[import-not-found]
    except ImportError:
        return found
    return found + [getattr(_testclinic, name) for name in
                    ("late_default_keywords", "late_default_posonly")
                    if hasattr(_testclinic, name)]


# The parameters that each C function above declares with a late default.
DECLARED = {"bisect_left": "hi", "bisect_right": "hi", "insort_left": "hi",
            "insort_right": "hi", "late_default_keywords": "b c",
            "late_default_posonly": "hi"}


def call_builtin(g: Any, data: list[int], args: list[Any],
                 kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Call g on a copy of data (its first argument), with what it did to the copy."""
    copy_ = list(data)
    try:
        return ("ok", repr(g(copy_, *args, **kwargs)), copy_)
    except Exception as exc:
        return ("raise", type(exc).__name__, str(exc), copy_)


def check_builtin(g: Any, rng: random.Random, lates: list[Any],
                  declared: set[str]) -> list[str]:
    """A C function's late defaults, through its signature and through calls: its
    parser evaluates a late default for the parameters that its Clinic declaration
    declares with one (declared), and binds a late-default object given to any
    other as a value."""
    problems: list[str] = []
    sig = inspect.signature(g)
    params = list(sig.parameters.values())[1:]  # the first is the list, given first
    data = sorted(rng.choices(range(6), k=rng.randint(0, 6)))
    own = {name: name for name in declared}
    for p in params:
        if p.default is not p.empty and str(p) != shown(p, own):
            problems.append(f"{str(p)!r} is shown for the default {p.default!r}, "
                            f"not {shown(p, own)!r}")
    for _ in range(6):
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        omitted: list[inspect.Parameter] = []
        for p in params:
            late = isinstance(p.default, types.LateDefaultType)
            after_gap = p.kind is p.POSITIONAL_ONLY and any(
                q.kind is q.POSITIONAL_ONLY for q in omitted)
            if p.default is not p.empty and (after_gap or rng.random() < 0.5):
                omitted.append(p)
                continue
            choices: list[Any] = [rng.randint(0, 6), None]
            if p.name == "key":
                choices = [None, abs]
            v = rng.choice(choices + ([rng.choice(lates), p.default] if late else []))
            if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD
                                               and not kwargs and not omitted
                                               and rng.random() < 0.6):
                args.append(v)
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                kwargs[p.name] = v
            else:
                omitted.append(p)
        direct = call_builtin(g, data, args, kwargs)
        try:
            bound = sig.bind(data, *args, **kwargs)
        except TypeError:
            continue
        bound.apply_defaults()
        via = call_builtin(g, data, list(bound.args)[1:], dict(bound.kwargs))
        if via != direct:
            problems.append(f"bind+apply_defaults {bound} -> {via}, the call -> {direct}")
        # Passing any late-default object for a late-bound parameter left out, by
        # keyword when it can be, is leaving it out.
        for p in omitted:
            if (p.name not in declared
                    or not isinstance(p.default, types.LateDefaultType)):
                continue
            if p.kind is p.POSITIONAL_ONLY:
                if len(args) != params.index(p):
                    continue
                passed = call_builtin(g, data, args + [rng.choice(lates)], kwargs)
            else:
                passed = call_builtin(g, data, args,
                                      {**kwargs, p.name: rng.choice(lates)})
            if passed != direct:
                problems.append(f"passing a late-default object for {p.name} -> {passed},"
                                f" leaving it out -> {direct}")
    return problems


def builtin_case(rng: random.Random) -> list[Any]:
    func = rng.choice(builtins_with_late_defaults())
    lates = [types.LateDefaultType("len(a)"), types.LateDefaultType("fresh")]
    g: Any = func
    steps = [func.__name__]
    if rng.random() < 0.5:
        # A partial that fixes a late-bound or early parameter by keyword.
        after_first = list(inspect.signature(func).parameters.values())[1:]
        name = rng.choice([p.name for p in after_first
                           if p.kind is not p.POSITIONAL_ONLY] or ["-"])
        if name != "-":
            fixed = rng.choice([rng.choice(lates), 0, None])
            g = functools.partial(func, **{name: fixed})
            steps.append(f"partial({name}={fixed!r})")
    declared = set(DECLARED[func.__name__].split())
    problems = check_builtin(g, rng, lates, declared)
    params = inspect.signature(func).parameters
    for name in sorted(declared):
        if not isinstance(params[name].default, types.LateDefaultType):
            problems.append(f"{func.__name__}'s {name} is not shown late: "
                            f"{params[name]}")
    return ["ok" if not problems else "disagree", steps, problems]


def run_case(seed: int, number: int) -> list[Any]:
    rng = random.Random(f"introspection:{seed}:{number}")
    if rng.random() < 0.2:
        return builtin_case(rng)
    funcs = [make_function(rng, f"f{number}_{k}") for k in range(rng.randint(1, 3))]
    g: Any = funcs[0]
    steps = []
    for _ in range(rng.randint(1, 3)):
        what, g = transform(rng, g, funcs)
        steps.append(what)
    problems = check(g, rng, late_objects(rng, funcs))
    return ["ok" if not problems else "disagree", steps, problems]


def describe(seed: int, number: int) -> str:
    rng = random.Random(f"introspection:{seed}:{number}")
    if rng.random() < 0.2:
        func = rng.choice(builtins_with_late_defaults())
        return f"{func.__name__}{inspect.signature(func)} (a C function)"
    funcs = [make_function(rng, f"f{number}_{k}") for k in range(rng.randint(1, 3))]
    lines = [f"{f.__name__}{inspect.signature(f)}" for f in funcs]
    return "\n".join(lines)
