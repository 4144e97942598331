"""Cases, outcomes, and the AST vocabulary every part of the fuzzer shares."""

from __future__ import annotations

import ast
import base64
import copy
import pickle
import tokenize
import traceback
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

LateDefault: Any = getattr(ast, "LateDefault", None)
FATARROW: int = getattr(tokenize, "FATARROW", -1)

TARGET_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
Target = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda



def dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=False)


def pack_tree(tree: ast.AST) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(tree), 6)).decode("ascii")


def unpack_tree(data: str) -> ast.Module:
    tree = pickle.loads(zlib.decompress(base64.b64decode(data)))
    assert isinstance(tree, ast.Module)
    return tree


def tree_from_dump(text: str) -> ast.Module:
    """An ast.dump() expression (as printed in reproducers) back to a tree."""
    namespace: dict[str, Any] = dict(vars(ast))
    namespace.update(inf=float("inf"), nan=float("nan"), infj=complex(0, float("inf")))
    tree = eval(text, namespace)  # our own reproducer format: AST constructors only
    if not isinstance(tree, ast.Module):
        raise ValueError("the dump is not an ast.Module")
    return ast.fix_missing_locations(tree)


@dataclass
class Case:
    """One program to check."""

    label: str
    kind: str  # 'plain' | 'ast' | 'source' | 'misplaced'
    src: str | None = None  # the text (for tree cases: filled with ast.unparse)
    tree: ast.Module | None = None  # an injected AST (compiled as such too)
    expect: str = "any"  # 'any' | 'valid' | 'syntax-error'
    expected: str | None = None  # dump() the source must parse to
    target: int | None = None  # ordinal of the def/lambda to create (None: all)
    notes: str = ""

    def to_json(self) -> dict[str, Any]:
        d = {"label": self.label, "kind": self.kind, "src": self.src, "expect": self.expect,
             "expected": self.expected, "target": self.target, "notes": self.notes}
        if self.tree is not None:
            d["tree"] = pack_tree(self.tree)
            d["dump"] = ast.dump(self.tree, include_attributes=True)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Case:
        tree = None
        if d.get("tree"):
            tree = unpack_tree(d["tree"])
        elif d.get("dump"):
            tree = tree_from_dump(d["dump"])
        return cls(label=d.get("label", "?"), kind=d.get("kind", "plain"), src=d.get("src"),
                   tree=tree, expect=d.get("expect", "any"), expected=d.get("expected"),
                   target=d.get("target"), notes=d.get("notes", ""))


@dataclass
class Failure:
    check: str
    detail: str


@dataclass
class Outcome:
    failures: list[Failure] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)

    def fail(self, check: str, detail: str) -> None:
        self.failures.append(Failure(check, detail))

    def stat(self, key: str, n: int = 1) -> None:
        self.stats[key] += n

    def guard(self, what: str, fn: Callable[..., Any], *args: Any,
              allowed: tuple[type[BaseException], ...] = (), **kwargs: Any) -> tuple[bool, Any]:
        """Call fn; an exception not in `allowed` is a failure."""
        try:
            return True, fn(*args, **kwargs)
        except allowed as exc:
            return False, exc
        except Exception as exc:  # noqa: BLE001 - anything unexpected is a finding
            tb = "".join(traceback.format_exception(exc)[-6:])
            self.fail(f"exception in {what}", f"{what} raised {type(exc).__name__}: {exc}\n{tb}")
            return False, exc


def compile_status(obj: Any, optimize: int = -1,
                   malformed: bool = False) -> tuple[str, Any]:
    """('ok', code) or ('SyntaxError'|'ValueError', exc); other exceptions propagate,
    except the TypeError upstream's validator raises for some malformed trees
    (e.g. "NamedExpr target must be a Name") when `malformed`."""
    try:
        return "ok", compile(obj, "<fuzz>", "exec", dont_inherit=True, optimize=optimize)
    except SyntaxError as exc:
        return "SyntaxError", exc
    except ValueError as exc:
        return "ValueError", exc
    except TypeError as exc:
        if malformed:
            return "TypeError", exc
        raise


def short(text: str, limit: int = 1500) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


def first_difference(a: str, b: str, context: int = 120) -> str:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    lo = max(0, i - context)
    return (f"first difference at char {i}:\n  A: ...{a[lo:i + context]!r}\n"
            f"  B: ...{b[lo:i + context]!r}")


def targets_of(tree: ast.AST) -> list[Target]:
    """Every def and lambda, in ast.walk (breadth-first) order: a stable ordinal."""
    return [n for n in ast.walk(tree) if isinstance(n, TARGET_TYPES)]


def late_count(tree: ast.AST) -> int:
    return sum(isinstance(n, LateDefault) for n in ast.walk(tree))


def has_future_annotations(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.ImportFrom) and s.module == "__future__"
               and any(a.name == "annotations" for a in s.names) for s in tree.body)


def strip_late(node: ast.AST) -> ast.AST:
    """A copy with every LateDefault replaced by its (early) value."""
    class Strip(ast.NodeTransformer):
        def visit_LateDefault(self, n: Any) -> Any:
            return self.visit(n.value)
    result: ast.AST = Strip().visit(copy.deepcopy(node))
    return result


def param_names(args: ast.arguments) -> list[str]:
    params = args.posonlyargs + args.args + args.kwonlyargs
    return [p.arg for p in params] + [p.arg for p in (args.vararg, args.kwarg) if p]


def parent_map(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def direct_late(a: ast.arguments) -> int:
    return sum(isinstance(d, LateDefault) for d in a.defaults + a.kw_defaults)


def split_lines(text: str) -> list[str]:
    """Lines as the tokenizer counts them (only \\n ends a line; \\f etc. do not)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
