"""Annotations that follow the rewrite: `T | None` -> `T` once None is no longer the default.

After `x: T | None = None` + `if x is None: x = EXPR` becomes `x: T => EXPR`,
None is no longer a value the function gives a meaning to, and an annotation
that still admits it hides from type checkers the callers that pass None
(they now get None itself instead of the default). So the annotation loses
its None: `T | None`, `None | T`, `Optional[T]`, `Union[T, None]` (with or
without the `typing.` prefix). String annotations are left as they are.
"""

from __future__ import annotations

import ast
from typing import Callable

Segment = Callable[[ast.expr], str]


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _named(node: ast.expr, name: str) -> bool:
    return ((isinstance(node, ast.Name) and node.id == name)
            or (isinstance(node, ast.Attribute) and node.attr == name))


def _flatten_or(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_flatten_or(node.left), *_flatten_or(node.right)]
    return [node]


def without_none(annotation: ast.expr, segment: Segment) -> str | None:
    """The text of `annotation` without its None member, or None when it has
    none to drop (or nothing would be left)."""
    if isinstance(annotation, ast.BinOp):
        members = _flatten_or(annotation)
        kept = [m for m in members if not _is_none(m)]
        if len(kept) == len(members) or not kept:
            return None
        return " | ".join(segment(m) for m in kept)
    if isinstance(annotation, ast.Subscript):
        if _named(annotation.value, "Optional"):
            if isinstance(annotation.slice, ast.Tuple):
                return None
            return segment(annotation.slice)
        if _named(annotation.value, "Union") and isinstance(annotation.slice, ast.Tuple):
            members = annotation.slice.elts
            kept = [m for m in members if not _is_none(m)]
            if len(kept) == len(members) or not kept:
                return None
            if len(kept) == 1:
                return segment(kept[0])
            return f"{segment(annotation.value)}[{', '.join(segment(m) for m in kept)}]"
    return None
