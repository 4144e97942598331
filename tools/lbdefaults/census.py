"""Aggregate counts of the candidates, as text or as a reStructuredText table."""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from .analysis import REVIEW, SAFE, SHAPE_DOC, SHAPES, UNSAFE, VERDICTS, Candidate

_BUILTINS = frozenset(dir(builtins))


class _Normalizer(ast.NodeTransformer):
    """Replace the specifics of an expression by placeholders."""

    def __init__(self, params: frozenset[str]) -> None:
        self.params = params

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.params:
            return ast.Name("<param>", node.ctx)
        if node.id in _BUILTINS:
            return node
        return ast.Name("<name>", node.ctx)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = "<attr>"
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if value is None or isinstance(value, bool) or value is Ellipsis:
            return node
        if isinstance(value, (str, bytes)):
            return ast.Name("<str>" if value else repr(value), ast.Load())
        return ast.Name("<num>", ast.Load())

    def visit_Call(self, node: ast.Call) -> ast.AST:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILTINS:
            self.generic_visit(node)
            return node
        has_args = bool(node.args or node.keywords)
        return ast.Call(ast.Name("<call>", ast.Load()),
                        [ast.Name("...", ast.Load())] if has_args else [], [])

    def _display(self, node: ast.AST, empty: str, full: str) -> ast.AST:
        elts = getattr(node, "elts", None) or getattr(node, "keys", None)
        return ast.Name(empty if not elts else full, ast.Load())

    def visit_List(self, node: ast.List) -> ast.AST:
        return self._display(node, "[]", "[...]")

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        return self._display(node, "()", "(...)")

    def visit_Set(self, node: ast.Set) -> ast.AST:
        return ast.Name("{...}", ast.Load())

    def visit_Dict(self, node: ast.Dict) -> ast.AST:
        return self._display(node, "{}", "{...: ...}")

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        return ast.Name("[<comprehension>]", ast.Load())

    def visit_DictComp(self, node: ast.DictComp) -> ast.AST:
        return ast.Name("{<comprehension>}", ast.Load())

    def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
        return ast.Name("{<comprehension>}", ast.Load())

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.AST:
        return ast.Name("(<genexp>)", ast.Load())

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return ast.Name("lambda: ...", ast.Load())

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Name("f<str>", ast.Load())


def normalize(c: Candidate) -> str:
    """The shape of EXPR: `[]`, `len(<param>)`, `<param>.<attr>`, `<call>()`..."""
    if c.expr_node is None:
        return c.expr
    import copy
    node = _Normalizer(frozenset(c.param_names)).visit(copy.deepcopy(c.expr_node))
    try:
        return ast.unparse(node)
    except Exception:   # noqa: BLE001 - placeholders are not always unparsable
        return c.expr


@dataclass
class Census:
    files: int = 0
    failed: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    shapes: dict[str, Counter[str]] = field(default_factory=dict)
    exprs: Counter[str] = field(default_factory=Counter)
    exprs_safe: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    functions: int = 0
    files_with: int = 0         # files that have at least one candidate
    annotations: int = 0        # safe candidates whose annotation loses None

    @property
    def total(self) -> int:
        return sum(self.verdicts.values())


def _reason_kind(reason: str) -> str:
    """Reduce a reason to its kind (drop names, paths and line numbers)."""
    table = [
        ("caller passes None", "a caller passes None"),
        ("passes its own argument", "an override passes its argument on to the method"),
        ("unpacks *args", "a caller unpacks *args/**kwargs"),
        ("caller passes the sentinel", "a caller passes the sentinel"),
        ("forwards its parameter", "a caller forwards a parameter that may be the marker"),
        ("which it may set to None", "a caller passes a variable it may set to None"),
        ("differs for falsy values", "`x or EXPR` differs for falsy values"),
        ("reads later parameter", "EXPR reads a later parameter"),
        ("reads the parameter", "EXPR reads the parameter itself"),
        ("which EXPR reads", "body rebinds a name EXPR reads"),
        ("used in EXPR", "body rebinds a name EXPR reads"),
        ("parameter reassigned", "parameter reassigned before the check"),
        ("not at the top", "check is not at the top of the body"),
        ("timing", "generator/coroutine: check is not the first statement"),
        ("after the check of later", "checks out of parameter order"),
        ("which stays in the body", "follows a check that stays in the body"),
        ("which needs review", "follows a check that needs review"),
        ("contains `", "EXPR contains await/yield"),
        ("assignment expression", "EXPR contains an assignment expression"),
        ("local variables", "EXPR reads locals()"),
        ("public function", "public function"),
        ("public method", "public method"),
        ("importable", "importable sentinel"),
        ("special method", "special method"),
        ("decorated with", "decorated function"),
        ("(defined in a function) is used", "class defined in a function escapes"),
        ("used as a value", "function used as a value"),
        ("shares its line", "check shares its line"),
    ]
    for needle, kind in table:
        if needle in reason:
            return kind
    return reason


def build(candidates: Sequence[Candidate], files: int, failed: int) -> Census:
    census = Census(files=files, failed=failed)
    census.functions = len({(c.path, c.def_line) for c in candidates})
    census.files_with = len({c.path for c in candidates})
    census.annotations = sum(c.verdict == SAFE and c.annotation_change is not None
                             for c in candidates)
    for c in candidates:
        census.verdicts[c.verdict] += 1
        census.shapes.setdefault(c.shape, Counter())[c.verdict] += 1
        shape = normalize(c)
        census.exprs[shape] += 1
        if c.verdict == SAFE:
            census.exprs_safe[shape] += 1
        if c.verdict != SAFE:
            # the deciding reason: the first one (reasons are sorted worst first)
            census.reasons[f"{c.verdict}: {_reason_kind(c.reasons[0])}"] += 1
    return census


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.1f}%" if total else "-"


def as_text(census: Census) -> str:
    t = census.total
    out = [
        f"files scanned: {census.files} (failed to parse: {census.failed})",
        f"candidates: {t} in {census.functions} functions in {census.files_with} files",
    ]
    for v in VERDICTS:
        out.append(f"  {v:<13}{census.verdicts[v]:>7}  {_pct(census.verdicts[v], t):>6}")
    out.append(f"safe rewrites whose annotation loses None: {census.annotations}")
    out.append("per shape (safe / needs review / unsafe):")
    for shape in SHAPES:
        counts = census.shapes.get(shape, Counter())
        out.append(f"  {SHAPE_DOC[shape]:<36}{sum(counts.values()):>6}   "
                   f"{counts[SAFE]} / {counts[REVIEW]} / {counts[UNSAFE]}")
    out.append("most common EXPR shapes (all candidates; safe ones):")
    for expr, n in census.exprs.most_common(10):
        out.append(f"  {n:>6}  {census.exprs_safe[expr]:>6}  {expr}")
    out.append("deciding reasons of the candidates that are not safe:")
    for reason, n in census.reasons.most_common():
        out.append(f"  {n:>6}  {reason}")
    return "\n".join(out) + "\n"


def _rst_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]],
               widths: str | None = None) -> list[str]:
    out = [f".. list-table:: {title}", "   :header-rows: 1"]
    if widths:
        out.append(f"   :widths: {widths}")
    out.append("")
    for row in [header, *rows]:
        for i, cell in enumerate(row):
            out.append(f"   {'* -' if i == 0 else '  -'} {cell}")
    out.append("")
    return out


def _lit(text: str) -> str:
    return f"``{text}``" if text else ""


def _rst_text(text: str) -> str:
    """Plain text for a table cell: `code` becomes a literal, * is escaped."""
    parts = text.split("`")
    out = []
    for i, part in enumerate(parts):
        out.append(_lit(part) if i % 2 else part.replace("*", "\\*"))
    return "".join(out)


def as_rst(census: Census, intro: str) -> str:
    t = census.total
    out = [intro.rstrip(), ""]
    out += _rst_table(
        "Candidates by verdict", ["Verdict", "Candidates", "Share"],
        [*([v, str(census.verdicts[v]), _pct(census.verdicts[v], t)] for v in VERDICTS),
         ["**total**", f"**{t}**", "100%"]], "30 20 20")
    rows = []
    for shape in SHAPES:
        counts = census.shapes.get(shape, Counter())
        rows.append([_lit(SHAPE_DOC[shape]), str(sum(counts.values())), str(counts[SAFE]),
                     str(counts[REVIEW]), str(counts[UNSAFE])])
    out += _rst_table("Candidates by shape of the idiom",
                      ["Idiom", "Total", "Safe", "Needs review", "Unsafe"], rows,
                      "40 15 15 15 15")
    out += _rst_table(
        "The ten most common default expressions (normalized)",
        ["EXPR", "Candidates", "Of which safe"],
        [[_lit(e), str(n), str(census.exprs_safe[e])] for e, n in census.exprs.most_common(10)],
        "50 25 25")
    out += _rst_table(
        "Why the other candidates are not safe (first reason of each)",
        ["Verdict: reason", "Candidates"],
        [[_rst_text(r), str(n)] for r, n in census.reasons.most_common()], "70 30")
    return "\n".join(out).rstrip() + "\n"
