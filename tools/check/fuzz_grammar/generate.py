"""Random expressions for late defaults."""

from __future__ import annotations

import ast
import copy
import random
from typing import Any, Callable, Sequence

from .cases import LateDefault

LOAD = ast.Load()
CONSTANTS: list[Any] = [0, 1, 2, 2.5, 1j, "s", "", b"b", None, True, False, ...]


def name(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Load())


class ExprGen:
    """Random expressions that read the given names (parameters and more)."""

    def __init__(self, rng: random.Random, names: Sequence[str], atoms: Sequence[ast.expr],
                 is_async: bool, max_depth: int = 3) -> None:
        self.rng = rng
        self.names = list(names) or ["len"]
        self.atoms = list(atoms)
        self.is_async = is_async
        self.max_depth = max_depth
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"_{prefix}{self.counter}"

    def atom(self, scope: Sequence[str]) -> ast.expr:
        r = self.rng.random()
        if r < 0.62:
            return name(self.rng.choice(scope))
        if r < 0.77 and self.atoms:
            return copy.deepcopy(self.rng.choice(self.atoms))
        if r < 0.83:
            return name(self.rng.choice(["__class__", "len", "print", "__name__", "self"]))
        return ast.Constant(value=self.rng.choice(CONSTANTS))

    def expr(self, depth: int = 0, scope: Sequence[str] | None = None) -> ast.expr:
        # A table of expression kinds, one short branch each (the longer ones are methods
        # below): over 60 lines by nature, and splitting it would hide the kinds' weights.
        scope = list(scope or self.names)
        rng = self.rng
        if depth >= self.max_depth or rng.random() < 0.3:
            return self.atom(scope)
        kinds = ["call", "binop", "boolop", "compare", "ifexp", "attr", "subscript", "display",
                 "dict", "lambda", "calllambda", "comp", "fstring", "unary", "starcall",
                 "await", "yield", "walrus", "super"]
        weights = [10, 8, 4, 6, 6, 5, 5, 6, 4, 8, 6, 10, 5, 3, 3,
                   4 if self.is_async else 0.3, 0.4, 1.5, 1]
        kind = rng.choices(kinds, weights)[0]

        def sub(names: list[str] | None = None) -> ast.expr:
            return self.expr(depth + 1, names or scope)

        if kind == "call":
            fn = name(rng.choice(["len", "tuple", "repr", "id", "sorted", "type"]))
            return ast.Call(func=fn, args=[sub()], keywords=[])
        if kind == "binop":
            op = rng.choice([ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.BitOr, ast.Pow,
                             ast.MatMult, ast.FloorDiv])()
            return ast.BinOp(left=sub(), op=op, right=sub())
        if kind == "boolop":
            return ast.BoolOp(op=rng.choice([ast.Or, ast.And])(), values=[sub(), sub()])
        if kind == "compare":
            cmp = rng.choice([ast.Is, ast.IsNot, ast.Eq, ast.In, ast.Lt])()
            return ast.Compare(left=sub(), ops=[cmp], comparators=[sub()])
        if kind == "ifexp":
            test = ast.Compare(left=self.atom(scope), ops=[ast.Is()],
                               comparators=[ast.Constant(value=None)])
            return ast.IfExp(test=test, body=sub(), orelse=sub())
        if kind == "attr":
            return ast.Attribute(value=sub(), attr=rng.choice(["real", "__class__", "x"]),
                                 ctx=ast.Load())
        if kind == "subscript":
            sl: ast.expr = (ast.Constant(value=0) if rng.random() < 0.5
                            else ast.Slice(lower=None, upper=sub(), step=None))
            return ast.Subscript(value=sub(), slice=sl, ctx=ast.Load())
        if kind == "display":
            return self.display(sub)
        if kind == "dict":
            return self.dict_(sub)
        if kind in ("lambda", "calllambda"):
            lam = self.lambda_(depth, scope)
            if kind == "lambda":
                return lam
            return ast.Call(func=lam, args=[], keywords=[])
        if kind == "comp":
            return self.comprehension(depth, scope)
        if kind == "fstring":
            return self.fstring(sub, scope)
        if kind == "unary":
            return ast.UnaryOp(op=rng.choice([ast.Not, ast.USub, ast.Invert])(), operand=sub())
        if kind == "starcall":
            return ast.Call(func=name(rng.choice(scope)),
                            args=[ast.Starred(value=sub(), ctx=ast.Load())],
                            keywords=[ast.keyword(arg=None, value=sub())])
        if kind == "await":
            return ast.Await(value=sub())
        if kind == "yield":
            return rng.choice([ast.Yield(value=sub()), ast.YieldFrom(value=sub())])
        if kind == "walrus":
            target = rng.choice(scope + [self.fresh("w")])
            return ast.NamedExpr(target=ast.Name(id=target, ctx=ast.Store()), value=sub())
        return ast.Call(func=ast.Attribute(value=ast.Call(func=name("super"), args=[], keywords=[]),
                                           attr="x", ctx=ast.Load()), args=[], keywords=[])

    # The kinds of expr() that take more than a line or two (the same draws, in the same
    # order, as when they were written inline: a seed gives the same programs).

    def display(self, sub: Callable[[], ast.expr]) -> ast.expr:
        rng = self.rng
        elts = [sub() for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.3:
            elts.append(ast.Starred(value=sub(), ctx=ast.Load()))
        cls = rng.choice(["tuple", "list", "set"])
        if cls == "tuple":
            return ast.Tuple(elts=elts, ctx=ast.Load())
        if cls == "list":
            return ast.List(elts=elts, ctx=ast.Load())
        return ast.Set(elts=elts)

    def dict_(self, sub: Callable[[], ast.expr]) -> ast.expr:
        keys: list[ast.expr | None] = [sub()]
        values = [sub()]
        if self.rng.random() < 0.4:
            keys.append(None)
            values.append(sub())
        return ast.Dict(keys=keys, values=values)

    def fstring(self, sub: Callable[[], ast.expr], scope: list[str]) -> ast.expr:
        spec = None
        if self.rng.random() < 0.4:
            spec = ast.JoinedStr(values=[ast.Constant(value=">"),
                                         ast.FormattedValue(value=self.atom(scope),
                                                            conversion=-1, format_spec=None)])
        fv = ast.FormattedValue(value=sub(), conversion=self.rng.choice([-1, 114, 115, 97]),
                                format_spec=spec)
        return ast.JoinedStr(values=[ast.Constant(value="<"), fv])

    def lambda_(self, depth: int, scope: list[str]) -> ast.Lambda:
        rng = self.rng
        params = [self.fresh("q") for _ in range(rng.randint(0, 2))]
        inner = scope + params
        defaults: list[ast.expr] = []
        for i in range(len(params)):
            if i >= len(params) - rng.randint(0, len(params)):
                defaults.append(LateDefault(value=self.expr(depth + 1, inner))
                                if rng.random() < 0.7 else self.expr(depth + 1, scope))
        kwonly: list[ast.arg] = []
        kw_defaults: list[ast.expr | None] = []
        if rng.random() < 0.3:
            k = self.fresh("k")
            kwonly.append(ast.arg(arg=k))
            kw_defaults.append(LateDefault(value=self.expr(depth + 1, inner + [k])))
            inner = inner + [k]
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                             kwonlyargs=kwonly, kw_defaults=kw_defaults, kwarg=None,
                             defaults=defaults)
        return ast.Lambda(args=args, body=self.expr(depth + 1, inner))

    def comprehension(self, depth: int, scope: list[str]) -> ast.expr:
        rng = self.rng
        v = self.fresh("v")
        inner = scope + [v]
        is_async = 1 if self.is_async and rng.random() < 0.25 else 0
        ifs = [self.expr(depth + 1, inner)] if rng.random() < 0.3 else []
        gen = ast.comprehension(target=ast.Name(id=v, ctx=ast.Store()),
                                iter=self.expr(depth + 1, scope), ifs=ifs, is_async=is_async)
        kind = rng.choice(["list", "set", "gen", "dict"])
        if kind == "list":
            return ast.ListComp(elt=self.expr(depth + 1, inner), generators=[gen])
        if kind == "set":
            return ast.SetComp(elt=self.expr(depth + 1, inner), generators=[gen])
        if kind == "gen":
            return ast.GeneratorExp(elt=self.expr(depth + 1, inner), generators=[gen])
        return ast.DictComp(key=self.expr(depth + 1, inner), value=self.expr(depth + 1, inner),
                            generators=[gen])
