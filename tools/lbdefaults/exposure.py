"""Exposure: which functions and classes a user of the scanned tree can reach.

A name is *exposed* when code outside the tree can call it (or, for a class,
subclass it and override or call its methods) through public names. It is
computed from the modules of the reported tree, not guessed from the name
of the function's own module:

* a public module (no path component starting with `_`) exposes its public
  top-level names and everything listed in its `__all__`;
* a module imported by an exposed module (`import m`, `from pkg import _m`,
  `from _m import *`) is exposed in turn, and so are its public names: the
  `_`-module that `pkg/__init__.py` imports is reachable as `pkg._m`, and what
  it defines reaches users through it;
* `from m import name [as alias]` in an exposed module exposes `name` when the
  alias is public or listed in `__all__` (a re-export);
* `alias = name` at the top level of an exposed module exposes `name`;
* a class is exposed when it is an exposed name, or a base (transitively) of
  an exposed class: the methods of a private base are methods of the public
  subclass, which users call and override;
* the methods of an exposed class are exposed, `_`-methods included (a
  subclass can override them and pass None to `super()`).

Names are matched by name, not by binding (a superset: two classes of the
same name are both exposed when one is), and modules by their last component,
so the analysis errs on the side of exposure. Only the reported tree defines
what is public (a test that imports a private name does not make it public).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .analysis import Candidate, Index, ModuleInfo


@dataclass
class Exposure:
    """name -> the evidence of how it is reached (`path:line` and how)."""

    modules: dict[str, str] = field(default_factory=dict)     # module path -> why
    # (module path, name) -> why, for a top-level name of a known module;
    # ("", name) for a name imported from a module outside the tree (any
    # definition of that name counts)
    names: dict[tuple[str, str], str] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)     # class name -> why
    # (module path, class name) -> why, for a class exposed as a name of that module
    own: dict[tuple[str, str], str] = field(default_factory=dict)


def _public(name: str, module: ModuleInfo) -> bool:
    return not name.startswith("_") or name in (module.all_names or ())


def compute(index: Index) -> Exposure:
    """The exposure of every module, name and class of the index (cached)."""
    if isinstance(index._exposure, Exposure):
        return index._exposure
    exp = Exposure()
    by_stem: dict[str, list[ModuleInfo]] = {}
    for m in index.modules:
        by_stem.setdefault(m.stem, []).append(m)
    todo = [m for m in index.modules if m.reported and m.public_path]
    for m in todo:
        exp.modules[m.path] = f"public module {m.path}"

    def expose_name(module: str, name: str, why: str) -> None:
        """`name` imported from `module` (dotted): the definitions it may be."""
        defining = [t for t in by_stem.get(module.rsplit(".", 1)[-1], ())
                    if name in t.toplevel]
        for t in defining:
            exp.names.setdefault((t.path, name), why)
        if not defining:
            exp.names.setdefault(("", name), why)

    def expose_module(stem: str, why: str) -> None:
        for target in by_stem.get(stem, ()):
            if target.reported and target.path not in exp.modules:
                exp.modules[target.path] = why
                todo.append(target)

    while todo:
        m = todo.pop()
        why_m = exp.modules[m.path]
        for name, line in m.toplevel.items():
            if _public(name, m):
                how = "is listed in __all__ of" if name.startswith("_") else "is a public name of"
                where = (f"{m.path}:{line}" if m.public_path else
                         f"{m.path}:{line} ({why_m})")
                exp.names.setdefault((m.path, name), f"`{name}` {how} {where}")
        for imp in m.imports:
            where = f"{m.path}:{imp.line}"
            if imp.name in ("", "*"):
                stem = imp.module.rsplit(".", 1)[-1]
                verb = "imports" if imp.name == "" else "imports * from"
                expose_module(stem, f"{where} {verb} `{imp.module}` ({why_m})")
                continue
            expose_module(imp.name, f"{where} imports `{imp.name}` from `{imp.module}` "
                                    f"({why_m})")
            bound = imp.asname or imp.name
            if _public(bound, m):
                chain = "" if m.public_path else f" ({why_m})"
                expose_name(imp.module, imp.name,
                            f"re-exported as `{bound}` by {where}{chain}")
        imported = {imp.asname or imp.name: imp for imp in m.imports if imp.name not in ("", "*")}
        for alias, target, line in m.aliases:
            if _public(alias, m) and alias != target:
                why = f"public alias `{alias} = {target}` at {m.path}:{line}"
                if target in m.toplevel:
                    exp.names.setdefault((m.path, target), why)
                elif target in imported:
                    expose_name(imported[target].module, imported[target].name, why)
                else:
                    exp.names.setdefault(("", target), why)
    # classes: the exposed ones, then their bases (the methods of a base are
    # methods of the public subclass)
    for (path, name), why in exp.names.items():
        if name in index.class_defs:
            exp.classes.setdefault(name, why)
            if path:
                exp.own[(path, name)] = why
    for name in list(exp.classes):
        for base in sorted(index.ancestors(name) - {name}):
            where = index.class_defs.get(name, ["?"])[0]
            exp.classes.setdefault(base, f"base of the exposed class `{name}` ({where}; "
                                         f"{exp.classes[name]})")
    index._exposure = exp
    return exp


def exposure_of(c: Candidate, index: Index) -> str | None:
    """How users reach the candidate's function, or None if they cannot."""
    if c.nested:
        return None
    exp = compute(index)
    for cls in c.class_chain:
        if cls in exp.classes:
            # the evidence from the class's own module first (names match a superset)
            return exp.own.get((c.path, cls), exp.classes[cls])
    if c.class_chain:
        return None
    return exp.names.get((c.path, c.func_name)) or exp.names.get(("", c.func_name))
