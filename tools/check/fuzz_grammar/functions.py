"""Create the rewritten function and check its late defaults' source texts (run in a worker)."""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
from typing import Any, Callable, Iterator

from .cases import (LateDefault, Outcome, Target, compile_status, dump, first_difference,
                    has_future_annotations, late_count, strip_late, targets_of)

DEFINE_LIMIT = 20  # functions created per case when no single target is given


class Stub:
    """Stands for every global a def statement reads (annotations, early defaults)."""

    def __getattr__(self, name: str) -> Stub:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Stub:
        return self

    def __getitem__(self, key: Any) -> Stub:
        return self

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __repr__(self) -> str:
        return "<stub>"

    def _op(self, *args: Any) -> Stub:
        return self

    __or__ = __ror__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __floordiv__ = __mod__ = __pow__ = __lshift__ = __rshift__ = _op
    __and__ = __rand__ = __xor__ = __neg__ = __pos__ = __invert__ = __matmul__ = _op


STUB = Stub()


def extract(tree: ast.Module, node: Target) -> tuple[ast.Module, str]:
    """A module holding only this def (no decorators) or `_fuzz_f = lambda ...`."""
    node = copy.deepcopy(node)
    body: list[ast.stmt] = [copy.deepcopy(s) for s in tree.body
                            if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
    if isinstance(node, ast.Lambda):
        name = "_fuzz_f"
        body.append(ast.Assign(targets=[ast.Name(name, ast.Store())], value=node))
    else:
        name = node.name
        node.decorator_list = []
        body.append(node)
    mod = ast.Module(body=body, type_ignores=[])
    return ast.fix_missing_locations(mod), name


def define(tree: ast.Module, target: int | None, out: Outcome) -> None:
    targets = targets_of(tree)
    if target is not None:
        chosen = targets[target:target + 1]
    else:
        chosen = [t for t in targets if any(isinstance(d, LateDefault)
                                            for d in t.args.defaults + t.args.kw_defaults)]
        chosen = chosen[:DEFINE_LIMIT]
    future_ann = has_future_annotations(tree)
    for node in chosen:
        mod, name = extract(tree, node)
        status, code = compile_status(mod)
        if status != "ok":
            out.stat("function not created (does not compile alone)")
            continue
        ns: dict[str, Any] = {"__name__": "_fuzz_def", "__builtins__": builtins}
        for n in ast.walk(mod):
            if isinstance(n, ast.Name) and not hasattr(builtins, n.id):
                ns[n.id] = STUB
        try:
            exec(code, ns)
        except SystemError as exc:
            out.fail("SystemError creating the function", repr(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - the stubs do not fit every def
            out.stat(f"function not created ({type(exc).__name__})")
            continue
        fn = ns.get(name)
        if not callable(fn):
            out.stat("function not created (name rebound)")
            continue
        out.stat("functions created")
        check_function(fn, node, future_ann, out)


def same_expr(text: Any, node: ast.expr) -> str | None:
    """None if `text` parses to `node`; else why not."""
    if not isinstance(text, str):
        return f"{text!r} is not a str"
    try:
        back = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        return f"{text!r} does not parse: {exc}"
    if dump(back) != dump(node):
        diff = first_difference(dump(node), dump(back))
        return f"{text!r} parses to a different expression: {diff}"
    return None


FOLDED = "extras text is constant-folded"


def folded(node: ast.expr) -> ast.expr | None:
    """The expression as the AST optimizer leaves it (constant folding, level 0)."""
    try:
        tree = compile(f"(\n{ast.unparse(node)}\n)", "<fold>", "eval",
                       ast.PyCF_OPTIMIZED_AST, dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return None
    body: ast.expr = tree.body
    return body


def annotation_text(node: ast.expr) -> str | None:
    """The text `from __future__ import annotations` makes of this expression,
    which the PEP says a late default's source text is; None if the expression
    cannot be an annotation (await, yield, walrus...)."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg="_x", annotation=copy.deepcopy(node))],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    mod = ast.Module(body=[
        ast.ImportFrom(module="__future__", names=[ast.alias(name="annotations")], level=0),
        ast.FunctionDef(name="_f", args=args, body=[ast.Pass()], decorator_list=[],
                        returns=None, type_params=[])], type_ignores=[])
    try:
        code = compile(ast.fix_missing_locations(mod), "<annotation>", "exec",
                       dont_inherit=True)
        ns: dict[str, Any] = {}
        exec(code, ns)
    except Exception:  # noqa: BLE001 - not an annotation: the caller falls back
        return None
    text = ns["_f"].__annotations__.get("_x")
    return text if isinstance(text, str) else None


def extra_text_problem(text: Any, node: ast.expr, what: str,
                       out: Outcome) -> tuple[str, str] | None:
    """(check, why) if `text` is not the source text of the late default `node`.

    It must be the text `from __future__ import annotations` makes of the
    expression (the PEP's definition); when the expression cannot be an
    annotation, text that parses back to it."""
    ref = annotation_text(node)
    if ref is not None and text == ref:
        if same_expr(ref, node) is not None:
            out.stat("upstream: C unparser text does not parse back")
        return None
    if ref is None and same_expr(text, node) is None:
        return None
    if ref is None:
        # Not an annotation (walrus, await, yield): does the C unparser fail the
        # same way on the expression without them?  Then it is upstream's bug.
        plain = annotation_safe(node)
        plain_ref = annotation_text(plain)
        if plain_ref is not None and same_expr(plain_ref, plain) is not None:
            out.stat("upstream: C unparser text does not parse back")
            return None
    opt = folded(node)
    if opt is not None and dump(opt) != dump(node) and (
            text in (ast.unparse(opt), annotation_text(opt)) or same_expr(text, opt) is None):
        return FOLDED, f"{what}: {text!r} for `{ast.unparse(node)}`"
    if ref is not None:
        return ("extras text is not the future-annotations text",
                f"{what}: {text!r}, but `from __future__ import annotations` gives {ref!r}")
    return "extras text does not parse back", f"{what}: {same_expr(text, node)}"


def annotation_safe(node: ast.expr) -> ast.expr:
    """A copy without what an annotation may not hold (walrus, await, yield)."""
    class Safe(ast.NodeTransformer):
        def visit_NamedExpr(self, n: ast.NamedExpr) -> Any:
            return self.visit(n.value)

        def visit_Await(self, n: ast.Await) -> Any:
            return self.visit(n.value)

        def visit_Yield(self, n: ast.Yield) -> Any:
            return self.visit(n.value) if n.value else ast.Constant(value=None)

        def visit_YieldFrom(self, n: ast.YieldFrom) -> Any:
            return self.visit(n.value)

        def visit_comprehension(self, n: ast.comprehension) -> Any:
            n.is_async = 0
            return self.generic_visit(n)
    result: ast.expr = Safe().visit(copy.deepcopy(node))
    return result


def check_annotations(fn: Any, node: Target, out: Outcome,
                      problem: Callable[[str, str], None]) -> None:
    """Under `from __future__ import annotations`: each annotation's text parses back to
    the annotation (a failure is ours only when the same annotation without `=>` is fine)."""
    assert not isinstance(node, ast.Lambda)
    a = node.args
    anns = getattr(fn, "__annotations__", {})
    params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
    pairs = [(p.arg, p.annotation) for p in params if p.annotation is not None]
    if node.returns is not None:
        pairs.append(("return", node.returns))
    for key, ann in pairs:
        if key not in anns:
            continue
        why = same_expr(anns[key], ann)
        if not why:
            continue
        early = strip_late(ann)
        assert isinstance(early, ast.expr)
        ref = annotation_text(early)
        if late_count(ann) and ref is not None and not same_expr(ref, early):
            problem("future annotation with => does not parse back",
                    f"__annotations__[{key!r}]: {why}")
        else:
            out.stat("upstream: C unparser text does not parse back")


def check_function(fn: Any, node: Target, future_ann: bool, out: Outcome) -> None:
    a = node.args
    problems: dict[str, list[str]] = {}

    def problem(check: str, why: str) -> None:
        problems.setdefault(check, []).append(why)

    def text_of(got: Any, want: ast.expr, what: str) -> None:
        found = extra_text_problem(got, want, what, out)
        if found:
            problem(*found)
        elif got != ast.unparse(want):
            out.stat("extras text differs from ast.unparse")

    shape = "extras shape"
    want_pos = [d.value if isinstance(d, LateDefault) else None for d in a.defaults]
    got_pos = getattr(fn, "__defaults_extra__", "<missing>")
    if all(w is None for w in want_pos):
        if got_pos is not None:
            problem(shape, f"__defaults_extra__ is {got_pos!r}, want None")
    elif not isinstance(got_pos, tuple) or len(got_pos) != len(want_pos):
        problem(shape, f"__defaults_extra__ is {got_pos!r}, want {len(want_pos)} items")
    else:
        for want, got in zip(want_pos, got_pos):
            if want is None:
                if got is not None:
                    problem(shape, f"__defaults_extra__ has {got!r} for an early default")
            else:
                text_of(got, want, "__defaults_extra__")
    want_kw = {arg.arg: (d.value if isinstance(d, LateDefault) else None)
               for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
    got_kw = getattr(fn, "__kwdefaults_extra__", "<missing>")
    if all(w is None for w in want_kw.values()):
        if got_kw is not None:
            problem(shape, f"__kwdefaults_extra__ is {got_kw!r}, want None")
    elif not isinstance(got_kw, dict) or sorted(got_kw) != sorted(want_kw):
        problem(shape, f"__kwdefaults_extra__ is {got_kw!r}, want keys {sorted(want_kw)}")
    else:
        for key, want in want_kw.items():
            got = got_kw[key]
            if want is None:
                if got is not None:
                    problem(shape, f"__kwdefaults_extra__[{key!r}] is {got!r} for an early "
                            "default")
            else:
                text_of(got, want, f"__kwdefaults_extra__[{key!r}]")
    if future_ann and not isinstance(node, ast.Lambda):
        check_annotations(fn, node, out, problem)
    for check, whys in problems.items():
        if check == FOLDED:
            whys.insert(0, "the late default's source text is rendered from the constant-folded "
                        "AST, not as written (the future-annotations text):")
        out.fail(check, "\n".join(whys))
    ok, sig = out.guard("inspect.signature", inspect.signature, fn)
    if ok:
        out.guard("str(signature)", str, sig)
