"""Verdicts: each candidate judged against the tree-wide index of callers and uses."""

from __future__ import annotations

from .analysis import (NONE, RANK, REVIEW, SAFE, TRANSPARENT_DECORATORS, UNSAFE, VERDICTS, ArgInfo,
                       CallSite, Candidate, Index)


def _public_name(c: Candidate) -> bool:
    """The name is public inside its module (function, class chain)."""
    if c.nested or any(cls.startswith("_") for cls in c.class_chain):
        return False
    dunder = c.func_name.startswith("__") and c.func_name.endswith("__")
    return dunder or not c.func_name.startswith("_")


def _reexport(c: Candidate, index: Index) -> str | None:
    """Where a public module imports the private module or the name."""
    top = c.class_chain[0] if c.class_chain else c.func_name
    return index.reexported_modules.get(c.module_stem) or index.reexported_names.get(top)


def _is_public(c: Candidate, index: Index) -> bool:
    if not _public_name(c):
        return False
    return c.public_module or _reexport(c, index) is not None


def _interesting(info: ArgInfo, marker: str) -> bool:
    if info.kind in ("none", "none-var"):
        return marker == NONE
    if info.kind == "name":
        return marker != NONE and info.value == marker
    return info.value == marker   # fwd


def _describe(info: ArgInfo, site: CallSite) -> str:
    where = f"{site.path}:{site.line}"
    if info.kind == "none":
        return f"caller passes None at {where}"
    if info.kind == "none-var":
        return f"caller at {where} passes '{info.fwd_name}', which it may set to None"
    if info.kind == "name":
        return f"caller passes the sentinel {info.value} at {where}"
    return (f"caller at {where} forwards its parameter '{info.fwd_name}' "
            f"(default {info.value}), which may be the marker")


def _escapes(c: Candidate, index: Index) -> list[tuple[str, str]]:
    """The function (or, for a constructor, the class) is used as a value."""
    if c.is_method and c.func_name in ("__init__", "__new__") and c.class_chain:
        for cls in sorted(index.subclasses(c.class_chain[-1])):
            if cls in index.value_refs:
                path, line = index.value_refs[cls]
                return [(REVIEW, f"class '{cls}' is used as a value at {path}:{line}; "
                                 f"instances created through that reference are not "
                                 f"visible")]
        return []
    if c.func_name in index.value_refs:
        path, line = index.value_refs[c.func_name]
        return [(REVIEW, f"'{c.func_name}' is used as a value at {path}:{line}; calls "
                         f"through that reference are not visible")]
    return []


def _caller_problems(c: Candidate, index: Index) -> list[tuple[str, str]]:
    names = {c.func_name} | index.aliases.get(c.func_name, set())
    ctor_names: set[str] = set()
    cooperating: set[str] = set()
    constructor = c.is_method and c.func_name in ("__init__", "__new__") and c.class_chain
    if constructor:
        for cls in index.subclasses(c.class_chain[-1]):
            ctor_names.add(cls)
            ctor_names |= index.aliases.get(cls, set())
        cooperating = index.cooperating(c.class_chain[-1])
    found: list[tuple[str, str]] = []
    unpacked: list[str] = []
    for name in sorted(names | ctor_names):
        for site in index.calls.get(name, ()):
            if name not in names:
                shifts = {1}                    # Class(...): self/cls is implicit
            elif constructor:
                # only Class.__init__(self, ...), and super().__init__(...) in a
                # class that can precede this one in an MRO (a subclass, or a
                # mixin combined with it), reach this __init__ by that name
                if site.obj in ctor_names:
                    shifts = {0}
                elif site.obj == "super" and site.cls in ctor_names | cooperating:
                    shifts = {1}
                else:
                    continue
            else:
                shifts = {0, 1} if c.is_method and not c.is_static else {0}
            hit: ArgInfo | None = None
            if c.param_kind != "kwonly":
                targets = {c.pos_index - s for s in shifts}
                for i, after_star, info in site.positional:
                    if not _interesting(info, c.marker):
                        continue
                    if (after_star and i <= c.pos_index) or (not after_star and i in targets):
                        hit = info
                        break
            if hit is None and c.param_kind != "posonly":
                for kw, info in site.keywords:
                    if kw == c.parameter and _interesting(info, c.marker):
                        hit = info
                        break
            if hit is not None:
                found.append((UNSAFE, _describe(hit, site)))
            elif ((c.param_kind != "kwonly" and 0 <= site.star_at <= c.pos_index)
                  or (c.param_kind != "posonly" and site.double_star)):
                unpacked.append(f"{site.path}:{site.line}")
    if unpacked:
        more = f" (and {len(unpacked) - 1} more)" if len(unpacked) > 1 else ""
        found.append((REVIEW, f"a caller unpacks *args/**kwargs that may reach "
                              f"'{c.parameter}' at {unpacked[0]}{more}"))
    return found


def decide(candidates: list[Candidate], index: Index) -> None:
    """Fill in verdict and reasons of the candidates of one file (in order)."""
    for c in candidates:
        problems = list(c.local_problems)
        problems += _caller_problems(c, index)
        public = _is_public(c, index)
        if public:
            where = "method" if c.is_method else "function"
            via = "" if c.public_module else (
                f" (its private module or name is imported by the public module at "
                f"{_reexport(c, index)})")
            problems.append((REVIEW, f"public {where}{via}: callers outside the scanned "
                                     f"tree may pass {c.marker} explicitly"))
        if c.sentinel_public:
            problems.append((REVIEW, f"the sentinel {c.marker} is importable (public name)"))
        if (c.is_method and c.func_name.startswith("__") and c.func_name.endswith("__")
                and c.func_name not in ("__init__", "__new__")):
            problems.append((REVIEW, f"special method {c.func_name} may be called "
                                     f"implicitly with the marker"))
        for dec in c.decorators:
            if dec not in TRANSPARENT_DECORATORS:
                problems.append((REVIEW, f"decorated with @{dec}: calls through the "
                                         f"decorator are not visible"))
        if not public:
            problems += _escapes(c, index)
        # a check that follows a check staying in the body cannot move before it
        for j in c.run_before:
            other = candidates[j]
            if other.verdict == UNSAFE:
                problems.append((UNSAFE, f"follows the check of '{other.parameter}' (line "
                                         f"{other.line}), which stays in the body; moving "
                                         f"it would change the evaluation order"))
                break
            if other.verdict == REVIEW:
                problems.append((REVIEW, f"follows the check of '{other.parameter}' (line "
                                         f"{other.line}), which needs review"))
                break
        _set_verdict(c, problems)


def _set_verdict(c: Candidate, problems: list[tuple[str, str]]) -> None:
    if not problems:
        c.verdict, c.reasons = SAFE, []
        return
    worst = max((RANK[v] for v, _ in problems))
    c.verdict = VERDICTS[worst]
    # the reasons of the worst kind first, then the others
    seen: list[str] = []
    for v, r in sorted(problems, key=lambda vr: -RANK[vr[0]]):
        if r not in seen:
            seen.append(r)
    c.reasons = seen
