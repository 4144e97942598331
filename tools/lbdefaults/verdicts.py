"""Verdicts: each candidate judged against the tree-wide index of callers and uses.

A candidate is *safe* only when nothing the tool can see, and nothing a user
could write against the public API, passes the marker: its function is not
exposed (see .exposure), no call that can reach it passes the marker, no
override forwards its argument to it, and it is not used as a value. Every
other reason makes it *needs review* or *unsafe*, with the evidence (the
call site, the exposure path, the override) as `path:line`.

Callers are resolved as far as the syntax allows (.analysis.CallSite.form):
a bare `f(...)` reaches functions, `self.m(...)` and `super().m(...)` reach
the methods of the classes that can share an MRO with the calling class,
`C.m(...)` and `obj.m(...)` with `obj = C(...)` reach the methods C inherits;
any other receiver is not resolved, and the call counts as one that may reach
the function (the reason says so).
"""

from __future__ import annotations

from .analysis import (NONE, RANK, REVIEW, SAFE, TRANSPARENT_DECORATORS, UNSAFE, VERDICTS, ArgInfo,
                       CallSite, Candidate, Index, Problem)
from .exposure import exposure_of


def _describe(info: ArgInfo, site: CallSite, note: str) -> str:
    where = f"{site.path}:{site.line}"
    if info.kind == "none":
        text = f"caller passes None at {where}"
    elif info.kind == "none-var":
        text = f"caller at {where} passes '{info.fwd_name}', which it may set to None"
    elif info.kind == "name":
        text = f"caller passes the sentinel {info.value} at {where}"
    elif info.kind == "param":
        via = "super()" if site.form == "super" else site.obj
        text = (f"override {site.cls}.{site.in_func} at {where} passes its own argument "
                f"'{info.fwd_name}' on to {via}.{site.in_func}: a None its callers pass "
                f"reaches the default")
    else:
        text = (f"caller at {where} forwards its parameter '{info.fwd_name}' "
                f"(default {info.value}), which may be the marker")
    return text + note


def _reach(c: Candidate, site: CallSite, index: Index) -> tuple[bool, set[int], str]:
    """Can `site` call the candidate's function? (reaches, positional shifts
    for the implicit first argument, a note when the receiver is not resolved)."""
    unresolved = (f" (receiver `{site.obj or '...'}` not resolved: the call may "
                  f"reach any `{c.func_name}`)")
    known = set(index.bases)
    if not c.is_method:
        if site.form == "plain":
            return True, {0}, ""
        if site.form in ("self", "super"):
            return False, set(), ""
        if site.form in ("attr", "expr") and (site.obj in known or site.obj_class in known):
            return False, set(), ""             # a method of a class, not this function
        return True, {0}, (unresolved if site.form == "expr" else "")
    cls = c.class_chain[-1]
    shifts_bound = {0} if c.is_static else {1}
    if site.form == "plain":
        return False, set(), ""
    if site.form in ("self", "super"):
        if not site.cls:
            return True, shifts_bound, unresolved
        return site.cls in index.cooperating(cls), shifts_bound, ""
    if site.form in ("attr", "expr") and site.obj in known:
        # `C.m(self, ...)`, `mod.C.m(self, ...)`
        return cls in index.ancestors(site.obj), {0, 1}, ""
    if site.form == "attr" and site.obj_class in known:
        return cls in index.ancestors(site.obj_class), shifts_bound, ""
    return True, {0, 1}, unresolved


def _interesting(info: ArgInfo, marker: str, site: CallSite, c: Candidate,
                 index: Index) -> bool:
    if info.kind in ("none", "none-var"):
        return marker == NONE
    if info.kind == "name":
        return marker != NONE and info.value == marker
    if info.kind == "param":
        return _is_override(site, c, index)
    return info.value == marker   # fwd


def _is_override(site: CallSite, c: Candidate, index: Index) -> bool:
    """`site` is in an override of the candidate's method, in a subclass of its
    class, and calls the overridden method (`super().m(...)`, `Base.m(self, ...)`
    with Base a class the subclass derives from): its own arguments reach the
    candidate."""
    if not (c.is_method and c.class_chain and site.in_func == c.func_name and site.cls):
        return False
    cls = c.class_chain[-1]
    if site.cls == cls or site.cls not in index.subclasses(cls):
        return False
    return site.form == "super" or (site.form in ("attr", "expr")
                                    and site.obj in index.ancestors(site.cls))


def _hit(c: Candidate, site: CallSite, shifts: set[int], index: Index) -> ArgInfo | None:
    if c.param_kind != "kwonly":
        targets = {c.pos_index - s for s in shifts}
        for i, after_star, info in site.positional:
            if not _interesting(info, c.marker, site, c, index):
                continue
            if (after_star and i <= c.pos_index) or (not after_star and i in targets):
                return info
    if c.param_kind != "posonly":
        for kw, info in site.keywords:
            if kw == c.parameter and _interesting(info, c.marker, site, c, index):
                return info
    return None


def _constructor_reach(c: Candidate, site: CallSite, name: str, index: Index,
                       names: set[str], ctor_names: set[str],
                       cooperating: set[str]) -> set[int]:
    """Shifts with which a call reaches this __init__/__new__ (empty: it does not)."""
    if name not in names:
        return {1}                      # Class(...): self/cls is implicit
    # only Class.__init__(self, ...), and super().__init__(...) in a class that
    # can precede this one in an MRO (a subclass, or a mixin combined with it)
    if site.obj in ctor_names:
        return {0}
    if site.form == "super" and site.cls in ctor_names | cooperating:
        return {1}
    return set()


def _caller_problems(c: Candidate, index: Index) -> list[Problem]:
    names = {c.func_name} | index.aliases.get(c.func_name, set())
    ctor_names: set[str] = set()
    cooperating: set[str] = set()
    constructor = bool(c.is_method and c.func_name in ("__init__", "__new__") and c.class_chain)
    if constructor:
        for cls in index.subclasses(c.class_chain[-1]):
            ctor_names.add(cls)
            ctor_names |= index.aliases.get(cls, set())
        cooperating = index.cooperating(c.class_chain[-1])
    found: list[Problem] = []
    unpacked: list[str] = []
    for name in sorted(names | ctor_names):
        for site in index.calls.get(name, ()):
            note = ""
            if constructor:
                shifts = _constructor_reach(c, site, name, index, names, ctor_names,
                                            cooperating)
                if not shifts:
                    continue
            else:
                reaches, shifts, note = _reach(c, site, index)
                if not reaches:
                    continue
            hit = _hit(c, site, shifts, index)
            where = f"{site.path}:{site.line}"
            if hit is not None:
                kind = "override" if hit.kind == "param" else "call"
                found.append(Problem(UNSAFE, _describe(hit, site, note), kind, (where,)))
            elif ((c.param_kind != "kwonly" and 0 <= site.star_at <= c.pos_index)
                  or (c.param_kind != "posonly" and site.double_star)):
                unpacked.append(where + (" (receiver not resolved)" if note else ""))
    if unpacked:
        more = f" (and {len(unpacked) - 1} more)" if len(unpacked) > 1 else ""
        found.append(Problem(REVIEW, f"a caller unpacks *args/**kwargs that may reach "
                                     f"'{c.parameter}' at {unpacked[0]}{more}", "call",
                             tuple(u.split(" ")[0] for u in unpacked)))
    return found


def _escapes(c: Candidate, index: Index) -> list[Problem]:
    """The function (or, for a constructor, the class) is used as a value."""
    if c.is_method and c.func_name in ("__init__", "__new__") and c.class_chain:
        for cls in sorted(index.subclasses(c.class_chain[-1])):
            if cls in index.value_refs:
                path, line = index.value_refs[cls]
                return [Problem(REVIEW, f"class '{cls}' is used as a value at {path}:{line}; "
                                        f"instances created through that reference are not "
                                        f"visible", "exposure", (f"{path}:{line}",))]
        return []
    if c.nested and c.class_chain and c.class_chain[-1] in index.value_refs:
        path, line = index.value_refs[c.class_chain[-1]]
        return [Problem(REVIEW, f"class '{c.class_chain[-1]}' (defined in a function) is used "
                                f"as a value at {path}:{line}: code that gets it may subclass "
                                f"it or call the method", "exposure", (f"{path}:{line}",))]
    if c.func_name in index.value_refs:
        path, line = index.value_refs[c.func_name]
        return [Problem(REVIEW, f"'{c.func_name}' is used as a value at {path}:{line}; calls "
                                f"through that reference are not visible", "exposure",
                        (f"{path}:{line}",))]
    return []


def _exposure_problem(c: Candidate, index: Index) -> Problem | None:
    why = exposure_of(c, index)
    if why is None:
        return None
    here = f"{c.path}:{c.def_line}"
    if c.is_method:
        text = (f"public method: users can call it, or subclass its class and pass "
                f"{c.marker} to it (`{c.class_chain[0]}`: {why})")
    else:
        text = (f"public function: callers outside the scanned tree may pass {c.marker} "
                f"explicitly ({why})")
    evidence = tuple(dict.fromkeys([here, *_locations(why)]))
    return Problem(REVIEW, text, "exposure", evidence)


def _locations(text: str) -> list[str]:
    """The `path:line` items of an exposure path."""
    out = []
    for word in text.replace("(", " ").replace(")", " ").replace(";", " ").split():
        path, _, line = word.rpartition(":")
        if path and line.isdigit():
            out.append(word)
    return out


def decide(candidates: list[Candidate], index: Index) -> None:
    """Fill in verdict and reasons of the candidates of one file (in order)."""
    for c in candidates:
        here = f"{c.path}:{c.line}"
        problems = [Problem(v, r, "local", (here,)) for v, r in c.local_problems]
        problems += _caller_problems(c, index)
        exposed = _exposure_problem(c, index)
        if exposed is not None:
            problems.append(exposed)
        if c.sentinel_public:
            problems.append(Problem(REVIEW, f"the sentinel {c.marker} is importable (public "
                                            f"name)", "exposure", (here,)))
        if (c.is_method and c.func_name.startswith("__") and c.func_name.endswith("__")
                and c.func_name not in ("__init__", "__new__")):
            problems.append(Problem(REVIEW, f"special method {c.func_name} may be called "
                                            f"implicitly with the marker", "exposure",
                                    (f"{c.path}:{c.def_line}",)))
        for dec in c.decorators:
            if dec not in TRANSPARENT_DECORATORS:
                problems.append(Problem(REVIEW, f"decorated with @{dec}: calls through the "
                                                f"decorator are not visible", "unresolved",
                                        (f"{c.path}:{c.def_line}",)))
        problems += _escapes(c, index)
        # a check that follows a check staying in the body cannot move before it
        for j in c.run_before:
            other = candidates[j]
            if other.verdict == UNSAFE:
                problems.append(Problem(UNSAFE, f"follows the check of '{other.parameter}' "
                                                f"(line {other.line}), which stays in the "
                                                f"body; moving it would change the "
                                                f"evaluation order", "local", (here,)))
                break
            if other.verdict == REVIEW:
                problems.append(Problem(REVIEW, f"follows the check of '{other.parameter}' "
                                                f"(line {other.line}), which needs review",
                                        "local", (here,)))
                break
        _set_verdict(c, problems)


def _set_verdict(c: Candidate, problems: list[Problem]) -> None:
    if not problems:
        c.verdict, c.reasons, c.problems = SAFE, [], []
        return
    worst = max(RANK[p.verdict] for p in problems)
    c.verdict = VERDICTS[worst]
    # the reasons of the worst kind first, then the others
    kept: dict[str, Problem] = {}
    for p in sorted(problems, key=lambda p: -RANK[p.verdict]):
        kept.setdefault(p.text, p)
    c.problems = list(kept.values())
    c.reasons = list(kept)
