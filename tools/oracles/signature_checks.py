"""The introspection oracle's worker side: runs INSIDE the interpreter under test,
imported by the batch scripts of tools.oracles.introspection.

A case: a random function with late, early and no defaults, put through one to three
transformations (functools.partial with ordinary values and late-default objects of
its own, of another function or of none; __defaults__ and __kwdefaults__ reassigned,
shorter, longer, mixed; __code__ of another function; a types.FunctionType rebuild;
copy.copy and copy.deepcopy; pickling by value with cloudpickle when it is
installed). Every late default records its id when it runs. For the callable that
results, and for random sets of arguments:

- a call through ``inspect.signature(g).bind(...)`` + ``apply_defaults()`` does what
  the direct call does (the same result or exception, the same defaults run);
- a parameter is shown with ``=>`` exactly when leaving it out runs a late default
  for it, and the text shown is the text of the default that runs.

The outcome is a list of the disagreements found (empty when all agree).
"""

from __future__ import annotations

import copy
import functools
import inspect
import random
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
            return "__code__ refused", g
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


def check(g: Any, rng: random.Random, lates: list[Any]) -> list[str]:
    problems: list[str] = []
    try:
        sig = inspect.signature(g)
    except (ValueError, TypeError) as exc:
        return [] if "incorrect arguments" in str(exc) else [f"signature() raised {exc!r}"]
    params = list(sig.parameters.values())
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
    # Shown late exactly when leaving the parameter out runs a late default for it:
    # every other parameter is given an ordinary value (but positional-only ones after
    # it, which cannot be given without it), so that no other default runs first.
    for p in params:
        if p.default is p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        shown = str(p)
        late_text = shown.split("=>", 1)[1].strip() if "=>" in shown else None
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
        # A late-default object that a partial passes to a parameter to the left
        # runs that parameter's default first, which may fail before this one.
        stopped_before = outcome[0] == "raise" and log and not ran
        if late_text is None and ran:
            problems.append(f"{shown!r} is not shown late, but leaving it out ran {ran}")
        elif (late_text is not None and not stopped_before
              and not any(repr(ident) in late_text for ident in ran)):
            problems.append(f"{shown!r} is shown late, but leaving it out ran {ran or 'none'}"
                            f" ({outcome})")
    return problems


def run_case(seed: int, number: int) -> list[Any]:
    rng = random.Random(f"introspection:{seed}:{number}")
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
    funcs = [make_function(rng, f"f{number}_{k}") for k in range(rng.randint(1, 3))]
    lines = [f"{f.__name__}{inspect.signature(f)}" for f in funcs]
    return "\n".join(lines)
