"""Where the programs come from: the stdlib's functions and hypothesmith."""

from __future__ import annotations

import ast
import copy
import os
import random
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cases import (TARGET_TYPES, Case, LateDefault, Target, direct_late, dump, late_count,
                    parent_map, split_lines, targets_of)
from .generate import ExprGen, name
from .inject import early_default_slots, inject_target, misplace, rewrite_source

GROUP = 8  # consecutive stdlib cases share a file (parsed once per worker)


# ==========================================================================
# The stdlib corpus
# ==========================================================================

def lib_dir() -> Path:
    return Path(os.path.dirname(os.__file__))


@dataclass
class Module:
    rel: str
    text: str
    lines: list[str]
    tree: ast.Module
    targets: list[tuple[Target, list[ast.AST]]]  # (node, ancestors from the Module down)


def collect_targets(tree: ast.Module) -> list[tuple[Target, list[ast.AST]]]:
    found: list[tuple[Target, list[ast.AST]]] = []
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, chain = stack.pop()
        if isinstance(node, TARGET_TYPES):
            found.append((node, chain))
        children = list(ast.iter_child_nodes(node))
        stack.extend((c, chain + [node]) for c in reversed(children))
    return found


class Corpus:
    def __init__(self, lib: Path) -> None:
        self.lib = lib
        self.files = sorted(p for p in lib.rglob("*.py")
                            if "site-packages" not in p.relative_to(lib).parts)
        self.cache: dict[int, Module | None] = {}

    def load(self, i: int) -> Module | None:
        if i in self.cache:
            return self.cache[i]
        if len(self.cache) > 8:
            self.cache.pop(next(iter(self.cache)))
        path = self.files[i]
        mod = None
        try:
            if path.stat().st_size < 600_000:
                with tokenize.open(path) as f:
                    text = f.read()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(text)
                targets = collect_targets(tree)
                if targets:
                    rel = os.path.relpath(path, self.lib.parent)
                    mod = Module(rel, text, split_lines(text), tree, targets)
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError):
            mod = None
        self.cache[i] = mod
        return mod


def stmt_start(node: ast.AST) -> int:
    decos = getattr(node, "decorator_list", [])
    lineno: int = getattr(node, "lineno")
    return min([lineno] + [int(d.lineno) for d in decos])


def unit_lines(node: ast.stmt, rest: list[ast.AST], keep: list[int]) -> None:
    """Line numbers of `node`, keeping only the path member of a big class."""
    end = node.end_lineno or node.lineno
    if (isinstance(node, ast.ClassDef) and rest and rest[0] in node.body
            and end - node.lineno > 60 and stmt_start(node.body[0]) > node.lineno):
        header = list(range(stmt_start(node), stmt_start(node.body[0])))
        child = rest[0]
        assert isinstance(child, ast.stmt)
        keep.extend(header)
        unit_lines(child, rest[1:], keep)
        return
    keep.extend(range(stmt_start(node), end + 1))


def qualname(target: Target, chain: list[ast.AST]) -> str:
    parts = [n.name for n in chain if isinstance(n, (ast.ClassDef, ast.FunctionDef,
                                                     ast.AsyncFunctionDef))]
    if isinstance(target, ast.Lambda):
        return ".".join(parts + ["<lambda>"])
    kw = "async def" if isinstance(target, ast.AsyncFunctionDef) else "def"
    return f"{kw} " + ".".join(parts + [target.name])


def make_unit(mod: Module, target: Target, chain: list[ast.AST],
              future_annotations: bool) -> tuple[str, ast.Module, int] | None:
    top = chain[1] if len(chain) > 1 else target
    assert isinstance(top, ast.stmt)
    keep: list[int] = []
    unit_lines(top, chain[2:] + [target], keep)
    futures = sorted({a.name for s in mod.tree.body if isinstance(s, ast.ImportFrom)
                      and s.module == "__future__" for a in s.names})
    if future_annotations and "annotations" not in futures:
        futures.append("annotations")
    head = f"from __future__ import {', '.join(futures)}\n" if futures else ""
    text = head + "".join(mod.lines[i - 1] for i in keep)
    if not text.endswith("\n"):
        text += "\n"
    new_row = {row: n + 1 + (1 if head else 0) for n, row in enumerate(keep)}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except SyntaxError:
        return None
    want = (new_row.get(target.lineno), target.col_offset, type(target))
    for k, node in enumerate(targets_of(tree)):
        if (node.lineno, node.col_offset, type(node)) == want:
            return text, tree, k
    return None


KINDS = ["ast", "source", "misplaced", "plain"]
KIND_WEIGHTS = [50, 38, 8, 4]


def stdlib_case(seed: int, n: int, corpus: Corpus) -> Case:
    rng = random.Random(f"stdlib/{seed}/{n}")
    file_rng = random.Random(f"stdlib-file/{seed}/{n // GROUP}")
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    for attempt in range(200):
        src_rng = file_rng if attempt < 50 else rng
        mod = corpus.load(src_rng.randrange(len(corpus.files)))
        if mod is None:
            continue
        targets = mod.targets
        if kind == "source":
            targets = [t for t in targets if early_default_slots(t[0])]
            if not targets:
                continue  # another file (most test modules have no defaults)
        node, chain = rng.choice(targets)
        unit = make_unit(mod, node, chain, future_annotations=rng.random() < 0.15)
        if unit is None:
            continue
        text, tree, ordinal = unit
        label = f"{mod.rel}:{node.lineno} {qualname(node, chain)}"
        if kind == "plain":
            return Case(label, "plain", src=text, target=ordinal)
        if kind == "source":
            rewritten = rewrite_source(text, tree, ordinal, rng)
            if rewritten is None:
                kind = "ast"
            else:
                new_text, expect, expected, notes = rewritten
                return Case(label, "source", src=new_text, expect=expect, expected=expected,
                            target=ordinal, notes=notes)
        if kind == "misplaced":
            notes = misplace(tree, rng)
            return Case(label, "misplaced", tree=ast.fix_missing_locations(tree), notes=notes)
        target = targets_of(tree)[ordinal]
        k = inject_target(tree, target, rng)
        return Case(label, "ast", tree=ast.fix_missing_locations(tree), target=ordinal,
                    notes=f"{k} late defaults injected")
    raise RuntimeError(f"no usable function found for case {n}")


# ==========================================================================
# hypothesmith programs
# ==========================================================================

def transplant_exprs(tree: ast.Module) -> list[ast.expr]:
    parents = parent_map(tree)
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        skip = (ast.Starred, ast.Slice, ast.FormattedValue, LateDefault)
        if not isinstance(node, ast.expr) or isinstance(node, skip):
            continue
        if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
            continue
        if isinstance(parents.get(node), (ast.JoinedStr, ast.FormattedValue)):
            continue
        out.append(node)
    return out


def synthetic_def(tree: ast.Module, rng: random.Random, exprs: list[ast.expr],
                  names: list[str]) -> ast.stmt:
    """A def/lambda whose late defaults are expressions of the program."""
    n_pos = rng.randint(0, 3)
    n_kw = rng.randint(0 if n_pos else 1, 2)
    params = [f"_p{i}" for i in range(n_pos)]
    kwonly = [f"_k{i}" for i in range(n_kw)]
    form = rng.choice(["def", "def", "async", "lambda", "method"])
    gen = ExprGen(rng, params + kwonly + names[:10], exprs, form == "async")

    def default() -> ast.expr:
        value = (copy.deepcopy(rng.choice(exprs)) if exprs and rng.random() < 0.7
                 else gen.expr())
        return LateDefault(value=value) if rng.random() < 0.85 else value

    n_def = rng.randint(0, n_pos)
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                         vararg=ast.arg(arg="_va") if rng.random() < 0.2 else None,
                         kwonlyargs=[ast.arg(arg=k) for k in kwonly],
                         kw_defaults=[default() if rng.random() < 0.8 else None for _ in kwonly],
                         kwarg=ast.arg(arg="_vk") if rng.random() < 0.2 else None,
                         defaults=[default() for _ in range(n_def)])
    if direct_late(args) == 0:
        if kwonly:
            args.kw_defaults[0] = LateDefault(value=gen.expr())
        else:
            args.defaults = [LateDefault(value=gen.expr())] + args.defaults[1:] \
                if args.defaults else [LateDefault(value=gen.expr())]
    result = ast.Tuple(elts=[name(p) for p in params + kwonly], ctx=ast.Load())
    if form == "lambda":
        return ast.Assign(targets=[ast.Name(id="_late_lambda", ctx=ast.Store())],
                          value=ast.Lambda(args=args, body=result))
    cls = ast.AsyncFunctionDef if form == "async" else ast.FunctionDef
    if form == "method":
        args.args.insert(0, ast.arg(arg="self"))
    fn = cls(name="_late_def", args=args, body=[ast.Return(value=result)], decorator_list=[],
             returns=None, type_params=[])
    if form == "method":
        return ast.ClassDef(name="_LateClass", bases=[], keywords=[], body=[fn],
                            decorator_list=[], type_params=[])
    return fn


def hypothesmith_case(src: str, rng: Any, label: str) -> Case:
    tree = ast.parse(src)
    targets = targets_of(tree)
    r = rng.random()
    if r < 0.1:
        where = misplace(tree, rng)
        return Case(label, "misplaced", tree=ast.fix_missing_locations(tree), notes=where)
    if r < 0.25:
        slots = [k for k, t in enumerate(targets) if early_default_slots(t)]
        if slots:
            chosen = rng.choice(slots)
            rewritten = rewrite_source(src, tree, chosen, rng)
            if rewritten is not None:
                new_text, expect, want, edits = rewritten
                return Case(label, "source", src=new_text, expect=expect, expected=want,
                            target=chosen, notes=edits)
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    if r < 0.5:
        # Keep the generated text verbatim (its comments, blank lines, form feeds,
        # CRLF, odd unicode) and append a def with late defaults taken from it.
        stmt = synthetic_def(tree, rng, transplant_exprs(tree), names)
        addition = ast.unparse(ast.fix_missing_locations(
            ast.Module(body=[stmt], type_ignores=[]))) + "\n"
        text = src if src.endswith(("\n", "\r")) or not src else src + "\n"
        whole = ast.Module(body=tree.body + [stmt], type_ignores=[])
        late = [k for k, t in enumerate(targets_of(whole)) if direct_late(t.args)]
        return Case(label, "source", src=text + addition, expect="valid",
                    expected=dump(whole), target=late[-1] if late else None,
                    notes="a def with late defaults appended to the generated text")
    parents = parent_map(tree)
    notes: list[str] = []
    for t in targets:
        if rng.random() < 0.85:
            inject_target(tree, t, rng, parents)
    notes.append(f"injected into {len(targets)} def/lambda")
    if rng.random() < 0.2 and tree.body:
        gen = ExprGen(rng, ["_w0", "_w1"] + names[:10], transplant_exprs(tree), False)
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg="_w0")], vararg=None,
                             kwonlyargs=[ast.arg(arg="_w1")],
                             kw_defaults=[LateDefault(value=gen.expr())], kwarg=None,
                             defaults=[LateDefault(value=gen.expr())])
        wrapper = ast.FunctionDef(name="_wrap", args=args, body=tree.body, decorator_list=[],
                                  returns=None, type_params=[])
        tree.body = [wrapper]
        notes.append("program wrapped in a def with late defaults")
    if rng.random() < 0.6 or late_count(tree) == 0:
        tree.body.append(synthetic_def(tree, rng, transplant_exprs(tree), names))
        notes.append("def with transplanted late defaults added")
    ast.fix_missing_locations(tree)
    late_targets = [k for k, t in enumerate(targets_of(tree)) if direct_late(t.args)]
    ordinal = rng.choice(late_targets) if late_targets else None
    return Case(label, "ast", tree=tree, target=ordinal, notes="; ".join(notes))
