"""Finding candidates and deciding their verdicts.

The work is done in two phases:

1. every file is read and parsed once (:func:`scan_file`); this collects the
   candidates of the file (with everything the verdict and the rewrite need,
   as plain data) and feeds a tree-wide :class:`Index` of call sites, value
   references, import aliases and class bases;
2. :func:`decide` gives each candidate its verdict using the index.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

SAFE = "safe"
REVIEW = "needs review"
UNSAFE = "unsafe"
VERDICTS = (SAFE, REVIEW, UNSAFE)
_RANK = {SAFE: 0, REVIEW: 1, UNSAFE: 2}

SHAPE_IF_NONE = "if-none"
SHAPE_IF_SENTINEL = "if-sentinel"
SHAPE_IFEXP_NONE = "ifexp-none"
SHAPE_IFEXP_SENTINEL = "ifexp-sentinel"
SHAPE_OR = "or-none"
SHAPES = (SHAPE_IF_NONE, SHAPE_IF_SENTINEL, SHAPE_IFEXP_NONE, SHAPE_IFEXP_SENTINEL, SHAPE_OR)
SHAPE_DOC = {
    SHAPE_IF_NONE: "if x is None: x = EXPR",
    SHAPE_IF_SENTINEL: "if x is _sentinel: x = EXPR",
    SHAPE_IFEXP_NONE: "x = EXPR if x is None else x",
    SHAPE_IFEXP_SENTINEL: "x = EXPR if x is _sentinel else x",
    SHAPE_OR: "x = x or EXPR",
}

NONE = "None"   # the marker value of a parameter whose default is None

# Decorators that pass calls straight through (callers still call the
# function by its own name) or that do not take arguments.
_TRANSPARENT_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "setter", "getter", "deleter",
    "abstractmethod", "wraps", "contextmanager", "asynccontextmanager",
    "cache", "lru_cache", "cached_property", "overload", "override", "final",
    "coroutine", "total_ordering",
})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SENTINEL_RE = re.compile(r"^([A-Za-z_]\w*)\s*=\s*object\(\s*\)", re.MULTILINE)
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


# --------------------------------------------------------------------------
# data


@dataclass(frozen=True)
class Loc:
    """A source position: 1-based line, 0-based column in characters."""

    line: int
    col: int


@dataclass
class Candidate:
    """One parameter whose default is normalized by a check in the body."""

    path: str
    line: int                   # line of the check statement
    function: str               # qualified name, e.g. C.m or f.<locals>.g
    parameter: str
    shape: str
    expr: str                   # source text of EXPR
    verdict: str = SAFE
    reasons: list[str] = field(default_factory=list)
    # --- analysis data
    marker: str = NONE          # "None" or the sentinel name
    def_line: int = 0
    func_name: str = ""
    param_kind: str = "pos"     # posonly, pos, kwonly
    pos_index: int = -1         # index among positional parameters
    is_method: bool = False
    is_static: bool = False
    class_chain: tuple[str, ...] = ()
    nested: bool = False
    public_module: bool = True
    module_stem: str = ""
    sentinel_public: bool = False
    decorators: tuple[str, ...] = ()
    expr_node: ast.expr | None = None
    expr_names: frozenset[str] = frozenset()
    later_params: frozenset[str] = frozenset()
    # problems found while scanning the file: (verdict, reason)
    local_problems: list[tuple[str, str]] = field(default_factory=list)
    # the check statements before this one in the same leading run
    run_before: list[int] = field(default_factory=list)   # candidate indexes in file
    in_run: bool = False
    # --- rewrite data (character positions in the original text)
    arg_end: Loc = Loc(0, 0)
    default_start: Loc = Loc(0, 0)
    default_end: Loc = Loc(0, 0)
    stmt_start: Loc = Loc(0, 0)
    stmt_end: Loc = Loc(0, 0)
    expr_start: Loc = Loc(0, 0)
    expr_end: Loc = Loc(0, 0)
    expr_is_bare_tuple: bool = False
    body_len: int = 0           # statements in the body, docstring excluded
    body_first: Loc = Loc(0, 0)  # start of the first non-docstring statement
    has_docstring: bool = False
    param_names: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons) if self.reasons else "no problem found"

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path, "line": self.line, "function": self.function,
            "parameter": self.parameter, "shape": self.shape, "verdict": self.verdict,
            "reason": self.reason, "expr": self.expr, "def_line": self.def_line,
            "default": self.marker,
        }


@dataclass(frozen=True)
class ArgInfo:
    """What a call passes in one argument slot, when it may be the marker."""

    kind: str       # "none", "name" (a Name/Attribute, value = its name), "fwd"
    value: str      # for "fwd": the marker of the forwarded parameter
    fwd_name: str = ""


@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    positional: tuple[tuple[int, bool, ArgInfo], ...]   # (index, after a *arg, info)
    keywords: tuple[tuple[str, ArgInfo], ...]
    obj: str = ""       # for `obj.name(...)`: the Name obj, or "super" for super()
    cls: str = ""       # the innermost class the call is in
    star_at: int = -1   # position of the first *arg, or -1
    double_star: bool = False   # has a **kwargs argument


@dataclass
class Index:
    """Tree-wide facts used to judge candidates."""

    calls: dict[str, list[CallSite]] = field(default_factory=dict)
    value_refs: dict[str, tuple[str, int]] = field(default_factory=dict)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    bases: dict[str, set[str]] = field(default_factory=dict)
    sentinel_names: set[str] = field(default_factory=set)
    # names imported (`from m import name`) and modules imported (`import m`,
    # `from m import *`) by public modules: name -> "path:line"
    reexported_names: dict[str, str] = field(default_factory=dict)
    reexported_modules: dict[str, str] = field(default_factory=dict)

    def subclasses(self, name: str) -> set[str]:
        """`name` and the names of all classes deriving from it (by name)."""
        found = {name}
        changed = True
        while changed:
            changed = False
            for cls, bases in self.bases.items():
                if cls not in found and bases & found:
                    found.add(cls)
                    changed = True
        return found


@dataclass
class FileResult:
    path: str
    text: str | None = None
    encoding: str = "utf-8"
    candidates: list[Candidate] = field(default_factory=list)
    error: str | None = None


# --------------------------------------------------------------------------
# reading sources


def read_source(path: Path) -> tuple[str, str]:
    """Return (text, encoding); newlines are kept as they are in the file."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def split_lines(text: str) -> list[str]:
    """Split like the tokenizer does (only \\r\\n, \\r and \\n end a line)."""
    return _LINE_RE.findall(text)


def prescan_sentinels(text: str) -> set[str]:
    """Cheap superset of the module-level sentinel names in a source."""
    return set(_SENTINEL_RE.findall(text))


class Positions:
    """Convert ast positions (UTF-8 byte columns) to character columns."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def loc(self, line: int, byte_col: int) -> Loc:
        text = self.lines[line - 1]
        if text.isascii():
            return Loc(line, byte_col)
        return Loc(line, len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace")))

    def start(self, node: ast.AST) -> Loc:
        return self.loc(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> Loc:
        return self.loc(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, start: Loc, end: Loc) -> str:
        if start.line == end.line:
            return self.lines[start.line - 1][start.col:end.col]
        parts = [self.lines[start.line - 1][start.col:]]
        parts.extend(self.lines[start.line:end.line - 1])
        parts.append(self.lines[end.line - 1][:end.col])
        return "".join(parts)


# --------------------------------------------------------------------------
# small AST helpers


def callee_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    name = callee_name(node)
    return name if name is not None else ast.unparse(node)


def walk_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Walk nodes without entering nested function, lambda or class scopes.

    The nested scope node itself is yielded (its name binds in this scope);
    comprehensions are entered (their walrus targets bind here).
    """
    stack = list(nodes)[::-1]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def bound_names(stmts: Iterable[ast.AST]) -> tuple[dict[str, int], set[str]]:
    """Names bound by statements in this scope (name -> first line), and the
    names declared global/nonlocal."""
    bound: dict[str, int] = {}
    declared: set[str] = set()

    def bind(name: str, line: int) -> None:
        bound.setdefault(name, line)

    comp_targets: set[int] = set()
    for node in walk_scope(stmts):
        if isinstance(node, _COMPREHENSIONS):
            for gen in node.generators:
                for sub in ast.walk(gen.target):
                    comp_targets.add(id(sub))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name, node.lineno)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if id(node) not in comp_targets:
                bind(node.id, node.lineno)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    bind(alias.asname or alias.name.split(".")[0], node.lineno)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name, node.lineno)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bind(node.name, node.lineno)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bind(node.rest, node.lineno)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif type(node).__name__ == "TypeAlias":
            name = getattr(node, "name", None)
            if isinstance(name, ast.Name):
                bind(name.id, node.lineno)
    return bound, declared


def expr_reads(expr: ast.expr) -> set[str]:
    """Names an expression reads, minus names bound inside it by lambdas or
    comprehensions."""
    loads: set[str] = set()
    inner: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.add(node.id)
        elif isinstance(node, ast.comprehension):
            inner.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Lambda):
            a = node.args
            inner.update(p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs))
            if a.vararg:
                inner.add(a.vararg.arg)
            if a.kwarg:
                inner.add(a.kwarg.arg)
    return loads - inner


def _reads_locals(expr: ast.expr) -> bool:
    """locals()/vars()/dir() without arguments, or any f_locals access."""
    for sub in ast.walk(expr):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                and sub.func.id in ("locals", "vars", "dir") and not sub.args):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "f_locals":
            return True
    return False


def is_generator(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk_scope(func.body))


def is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def is_bare_tuple(expr: ast.expr, text: str) -> bool:
    """True for a tuple display without its own parentheses (`1, 2`)."""
    if not isinstance(expr, ast.Tuple):
        return False
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                  tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)]
    except (tokenize.TokenError, SyntaxError):
        return True
    if not toks or toks[0].string != "(":
        return True
    depth = 0
    for i, tok in enumerate(toks):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
            if depth == 0:
                return i != len(toks) - 1
    return True


# --------------------------------------------------------------------------
# recognizing the idiom


@dataclass
class _Param:
    name: str
    order: int
    kind: str               # posonly, pos, vararg, kwonly, varkw
    pos_index: int
    arg: ast.arg
    default: ast.expr | None


def _params(args: ast.arguments) -> list[_Param]:
    out: list[_Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults.extend(args.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        kind = "posonly" if i < len(args.posonlyargs) else "pos"
        out.append(_Param(a.arg, len(out), kind, i, a, d))
    if args.vararg:
        out.append(_Param(args.vararg.arg, len(out), "vararg", -1, args.vararg, None))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(_Param(a.arg, len(out), "kwonly", -1, a, d))
    if args.kwarg:
        out.append(_Param(args.kwarg.arg, len(out), "varkw", -1, args.kwarg, None))
    return out


def _marker_of(node: ast.expr | None, sentinels: set[str]) -> str | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return NONE
    if isinstance(node, ast.Name) and node.id in sentinels:
        return node.id
    return None


def _is_test(test: ast.expr, name: str, marker: str, op: type) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], op)):
        return False
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.Name) and left.id == name):
        return False
    if marker == NONE:
        return isinstance(right, ast.Constant) and right.value is None
    return isinstance(right, ast.Name) and right.id == marker


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def match_check(stmt: ast.stmt, params: dict[str, _Param],
                markers: dict[str, str]) -> tuple[str, str, ast.expr] | None:
    """Return (parameter, shape, EXPR) if `stmt` is one of the idioms."""
    sentinel_shape = {True: (SHAPE_IF_NONE, SHAPE_IFEXP_NONE),
                      False: (SHAPE_IF_SENTINEL, SHAPE_IFEXP_SENTINEL)}
    if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
        test, body = stmt.test, stmt.body[0]
        if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                and test.left.id in markers):
            name = test.left.id
            marker = markers[name]
            if (_is_test(test, name, marker, ast.Is) and isinstance(body, ast.Assign)
                    and len(body.targets) == 1 and _is_name(body.targets[0], name)):
                return name, sentinel_shape[marker == NONE][0], body.value
        return None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return None
    name = stmt.targets[0].id
    if name not in markers:
        return None
    marker, value = markers[name], stmt.value
    if isinstance(value, ast.IfExp):
        if _is_test(value.test, name, marker, ast.Is) and _is_name(value.orelse, name):
            return name, sentinel_shape[marker == NONE][1], value.body
        if _is_test(value.test, name, marker, ast.IsNot) and _is_name(value.body, name):
            return name, sentinel_shape[marker == NONE][1], value.orelse
        return None
    if (marker == NONE and isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or)
            and _is_name(value.values[0], name)):
        rest = value.values[1:]
        expr = rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.Or(), values=rest)
        if len(rest) > 1:
            ast.copy_location(expr, rest[0])
            expr.end_lineno, expr.end_col_offset = rest[-1].end_lineno, rest[-1].end_col_offset
        return name, SHAPE_OR, expr
    return None


# --------------------------------------------------------------------------
# scanning one file


def module_is_private(relpath: str) -> bool:
    parts = Path(relpath).with_suffix("").parts
    return any(p.startswith("_") and p not in ("__init__", "__main__") for p in parts)


class _FileScanner(ast.NodeVisitor):
    def __init__(self, path: str, relpath: str, text: str, tree: ast.Module,
                 index: Index, reported: bool = True) -> None:
        self.path = path
        self.lines = split_lines(text)
        self.pos = Positions(self.lines)
        self.tree = tree
        self.index = index
        self.public_module = not module_is_private(relpath)
        # only the reported tree defines what is public (a test that imports a
        # private name does not make it public API)
        self.exporter = reported and self.public_module
        stem = Path(relpath).with_suffix("")
        self.module_stem = stem.parent.name if stem.name == "__init__" else stem.name
        self.sentinels = self._module_sentinels(tree)
        self.public_sentinels = self._exported(tree)
        self.candidates: list[Candidate] = []
        self.scope: list[tuple[str, ast.AST]] = []   # ("class"|"def", node)

    @staticmethod
    def _module_sentinels(tree: ast.Module) -> set[str]:
        found: set[str] = set()
        for stmt in tree.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Call) and not stmt.value.args
                    and not stmt.value.keywords and _is_name(stmt.value.func, "object")):
                found.add(stmt.targets[0].id)
        return found

    @staticmethod
    def _exported(tree: ast.Module) -> set[str]:
        """The string items of a module-level __all__."""
        names: set[str] = set()
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            if any(_is_name(t, "__all__") for t in targets):
                names.update(n.value for n in ast.walk(value)
                             if isinstance(n, ast.Constant) and isinstance(n.value, str))
        return names

    # -- traversal

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.index.bases.setdefault(node.name, set()).update(
            n for n in (callee_name(b) for b in node.bases) if n)
        # bases, keywords and decorators: a base class is not a value reference
        for sub in (*node.bases, *node.keywords, *node.decorator_list):
            if not isinstance(sub, ast.Name):
                self.visit(sub)
        self.scope.append(("class", node))
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.scope.append(("def", node))
        self.generic_visit(node)
        self.scope.pop()

    def visit_Import(self, node: ast.Import) -> None:
        if self.exporter:
            for alias in node.names:
                self.index.reexported_modules.setdefault(
                    alias.name.rsplit(".", 1)[-1], f"{self.path}:{node.lineno}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        where = f"{self.path}:{node.lineno}"
        for alias in node.names:
            if alias.asname and alias.asname != alias.name:
                self.index.aliases.setdefault(alias.name, set()).add(alias.asname)
            if not self.exporter:
                continue
            if alias.name == "*" and node.module:
                self.index.reexported_modules.setdefault(node.module.rsplit(".", 1)[-1], where)
            elif not alias.name.startswith("_"):
                self.index.reexported_names.setdefault(alias.name, where)

    def visit_Call(self, node: ast.Call) -> None:
        name = callee_name(node.func)
        if name is not None:
            self._record_call(name, node)
        # the callee itself is not a value reference
        if isinstance(node.func, ast.Attribute):
            self.visit(node.func.value)
        elif not isinstance(node.func, ast.Name):
            self.visit(node.func)
        for n, arg in enumerate(node.args):
            # isinstance(x, C) does not let C escape
            if not (n == 1 and name in ("isinstance", "issubclass")
                    and isinstance(arg, (ast.Name, ast.Tuple))):
                self.visit(arg)
        for kw in node.keywords:
            self.visit(kw.value)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.index.value_refs.setdefault(node.id, (self.path, node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Load):
            self.index.value_refs.setdefault(node.attr, (self.path, node.lineno))
        self.generic_visit(node)

    # -- calls

    def _enclosing_function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for kind, node in reversed(self.scope):
            if kind == "def":
                if isinstance(node, ast.Lambda):
                    return None
                return node  # type: ignore[return-value]
            return None
        return None

    def _arg_info(self, arg: ast.expr, fwd: dict[str, tuple[str, int]]) -> ArgInfo | None:
        # a conditional or boolean expression may evaluate to any of its branches
        if isinstance(arg, ast.IfExp):
            return self._arg_info(arg.body, fwd) or self._arg_info(arg.orelse, fwd)
        if isinstance(arg, ast.BoolOp):
            values = arg.values if isinstance(arg.op, ast.And) else arg.values[-1:]
            for value in values:
                info = self._arg_info(value, fwd)
                if info is not None:
                    return info
            return None
        if isinstance(arg, ast.NamedExpr):
            return self._arg_info(arg.value, fwd)
        if isinstance(arg, ast.Constant) and arg.value is None:
            return ArgInfo("none", NONE)
        name = callee_name(arg) if isinstance(arg, (ast.Name, ast.Attribute)) else None
        if isinstance(arg, ast.Name) and arg.id in fwd:
            marker, normalized_at = fwd[arg.id]
            if not (normalized_at and normalized_at < arg.lineno):
                return ArgInfo("fwd", marker, arg.id)
        if name is not None and name in self.index.sentinel_names:
            return ArgInfo("name", name)
        return None

    def _forwardable(self) -> dict[str, tuple[str, int]]:
        """Parameters of the enclosing function whose default is a marker:
        name -> (marker, line of a normalizing check or 0)."""
        func = self._enclosing_function()
        if func is None:
            return {}
        cached = getattr(func, "_lbd_fwd", None)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        sentinels = self.sentinels | self.index.sentinel_names
        out: dict[str, tuple[str, int]] = {}
        for p in _params(func.args):
            marker = _marker_of(p.default, sentinels)
            if marker is not None:
                out[p.name] = (marker, 0)
        if out:
            markers = {k: v[0] for k, v in out.items()}
            params = {p.name: p for p in _params(func.args)}
            for stmt in func.body:
                m = match_check(stmt, params, markers)
                if m and out[m[0]][1] == 0:
                    out[m[0]] = (out[m[0]][0], stmt.lineno)
        func._lbd_fwd = out  # type: ignore[union-attr]
        return out

    def _record_call(self, name: str, node: ast.Call) -> None:
        fwd = self._forwardable()
        positional: list[tuple[int, bool, ArgInfo]] = []
        after_star = False
        star_at = -1
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                if not after_star:
                    star_at = i
                after_star = True
                continue
            info = self._arg_info(arg, fwd)
            if info is not None:
                positional.append((i, after_star, info))
        keywords: list[tuple[str, ArgInfo]] = []
        double_star = False
        for kw in node.keywords:
            if kw.arg is None:
                double_star = True
                continue
            info = self._arg_info(kw.value, fwd)
            if info is not None:
                keywords.append((kw.arg, info))
        if positional or keywords or star_at >= 0 or double_star:
            obj = ""
            if isinstance(node.func, ast.Attribute):
                base = node.func.value
                if isinstance(base, ast.Name):
                    obj = base.id
                elif isinstance(base, ast.Call) and _is_name(base.func, "super"):
                    obj = "super"
            cls = next((n.name for k, n in reversed(self.scope)  # type: ignore[attr-defined]
                        if k == "class"), "")
            self.index.calls.setdefault(name, []).append(
                CallSite(self.path, node.lineno, tuple(positional), tuple(keywords), obj, cls,
                         star_at, double_star))

    # -- functions

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for dec in node.decorator_list:
            self.visit(dec)
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        self._candidates(node)
        self.scope.append(("def", node))
        for stmt in node.body:
            self.visit(stmt)
        self.scope.pop()

    def _qualname(self, node: ast.AST) -> str:
        parts: list[str] = []
        for kind, outer in self.scope:
            parts.append(getattr(outer, "name", "<lambda>"))
            if kind == "def":
                parts.append("<locals>")
        parts.append(node.name)  # type: ignore[attr-defined]
        return ".".join(parts)

    def _candidates(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        sentinels = self.sentinels
        params = _params(func.args)
        by_name = {p.name: p for p in params}
        markers: dict[str, str] = {}
        for p in params:
            marker = _marker_of(p.default, sentinels)
            if marker is not None:
                markers[p.name] = marker
        if not markers:
            return
        body = func.body
        start = 1 if body and is_docstring(body[0]) else 0
        found: list[tuple[int, str, str, ast.expr]] = []   # (stmt index, param, shape, expr)
        seen: set[str] = set()
        for i in range(start, len(body)):
            m = match_check(body[i], by_name, markers)
            if m is not None and m[0] not in seen:
                seen.add(m[0])
                found.append((i, *m))
        if not found:
            return

        enclosing_kind = self.scope[-1][0] if self.scope else "module"
        is_method = enclosing_kind == "class"
        decorators = tuple(decorator_name(d) for d in func.decorator_list)
        is_static = is_method and "staticmethod" in decorators
        class_chain = tuple(getattr(n, "name", "") for k, n in self.scope if k == "class")
        nested = any(k == "def" for k, _ in self.scope)
        generator = is_generator(func)
        coroutine = isinstance(func, ast.AsyncFunctionDef)
        local_bound, declared = bound_names(body)
        param_names = {p.name for p in params}
        qualname = self._qualname(func)

        # the leading run: consecutive checks right after the docstring
        run_len = 0
        for k, (i, *_rest) in enumerate(found):
            if i == start + k:
                run_len = k + 1
            else:
                break

        first_index = len(self.candidates)
        for k, (i, pname, shape, expr) in enumerate(found):
            stmt = body[i]
            p = by_name[pname]
            expr_start, expr_end = self._parenthesized(self.pos.start(expr), self.pos.end(expr))
            expr_text = self.pos.segment(expr_start, expr_end)
            reads = expr_reads(expr)
            cand = Candidate(
                path=self.path, line=stmt.lineno, function=qualname, parameter=pname,
                shape=shape, expr=" ".join(expr_text.split()) if "\n" in expr_text else expr_text,
                marker=markers[pname], def_line=func.lineno, func_name=func.name,
                param_kind=p.kind, pos_index=p.pos_index, is_method=is_method,
                is_static=is_static, class_chain=class_chain, nested=nested,
                public_module=self.public_module, module_stem=self.module_stem,
                sentinel_public=(markers[pname] != NONE and (
                    not markers[pname].startswith("_")
                    or markers[pname] in self.public_sentinels)),
                decorators=decorators, expr_node=expr, expr_names=frozenset(reads),
                later_params=frozenset(q.name for q in params if q.order > p.order
                                       and q.kind not in ("vararg", "varkw")),
                in_run=k < run_len,
                run_before=[first_index + j for j in range(k)] if k < run_len else [],
                arg_end=self.pos.end(p.arg),
                default_start=self.pos.start(p.default),  # type: ignore[arg-type]
                default_end=self.pos.end(p.default),  # type: ignore[arg-type]
                stmt_start=self.pos.start(stmt), stmt_end=self.pos.end(stmt),
                expr_start=expr_start, expr_end=expr_end,
                expr_is_bare_tuple=is_bare_tuple(expr, expr_text),
                body_len=len(body) - start,
                body_first=self.pos.start(body[start]),
                has_docstring=start == 1,
                param_names=tuple(q.name for q in params),
            )
            probs = cand.local_problems
            if shape == SHAPE_OR:
                probs.append((UNSAFE, f"`{pname} or EXPR` differs for falsy values "
                                      f"(0, '', [] ... are replaced today)"))
            for sub in ast.walk(expr):
                if isinstance(sub, (ast.Await, ast.Yield, ast.YieldFrom)):
                    probs.append((UNSAFE, f"EXPR contains `{type(sub).__name__.lower()}`"))
                    break
            if any(isinstance(sub, ast.NamedExpr) for sub in ast.walk(expr)):
                probs.append((UNSAFE, "EXPR contains an assignment expression"))
            if _reads_locals(expr):
                probs.append((UNSAFE, "EXPR reads the local variables (locals(), vars(), "
                                      "dir() or f_locals), where the parameter is unbound "
                                      "instead of None"))
            if pname in reads:
                probs.append((UNSAFE, f"EXPR reads the parameter '{pname}' itself"))
            for later in sorted(reads & cand.later_params):
                probs.append((UNSAFE, f"EXPR reads later parameter '{later}'"))
            for name in sorted(reads - param_names - declared):
                if name in local_bound:
                    probs.append((UNSAFE, f"body rebinds '{name}' (line {local_bound[name]}), "
                                          f"which EXPR reads"))
            if k >= run_len:
                between = body[start:i]
                before_bound, _ = bound_names(between)
                lines = [s.lineno for s in between if match_check(s, by_name, markers) is None]
                if pname in before_bound:
                    probs.append((UNSAFE, f"parameter reassigned at line {before_bound[pname]}"))
                reported = {n for n in reads - param_names - declared if n in local_bound}
                for name in sorted((reads & set(before_bound)) - reported - {pname}):
                    probs.append((UNSAFE, f"body rebinds '{name}' (used in EXPR) at line "
                                          f"{before_bound[name]} before the check"))
                first = lines[0] if lines else between[0].lineno
                probs.append((UNSAFE, f"check is not at the top of the body "
                                      f"(line {first} runs first)"))
            if (generator or coroutine) and i != start:
                what = "coroutine" if coroutine and not generator else "generator"
                probs.append((UNSAFE, f"timing: {what} whose check is not its first "
                                      f"statement"))
            if not self._whole_lines(cand):
                probs.append((REVIEW, "the check shares its line with other code; "
                                      "rewrite by hand"))
            self.candidates.append(cand)

        # order inside the leading run: must follow the parameter order
        for k in range(1, run_len):
            cand = self.candidates[first_index + k]
            prev = [self.candidates[first_index + j] for j in range(k)]
            order = by_name[cand.parameter].order
            for other in prev:
                if by_name[other.parameter].order > order:
                    cand.local_problems.append(
                        (UNSAFE, f"check comes after the check of later parameter "
                                 f"'{other.parameter}' (line {other.line}); moving it "
                                 f"would change the evaluation order"))
                    break

    def _parenthesized(self, start: Loc, end: Loc) -> tuple[Loc, Loc]:
        """Widen (start, end) to the parentheses that enclose exactly it."""
        while True:
            before = self._skip_back(start)
            after = self._skip_forward(end)
            if before is None or after is None:
                return start, end
            if (self.lines[before.line - 1][before.col] != "("
                    or self.lines[after.line - 1][after.col] != ")"):
                return start, end
            start, end = before, Loc(after.line, after.col + 1)

    def _skip_back(self, loc: Loc) -> Loc | None:
        line, col = loc.line, loc.col
        while line >= 1:
            text = self.lines[line - 1][:col]
            stripped = text.rstrip(" \t\f\r\n\\")
            if stripped:
                return Loc(line, len(stripped) - 1)
            line -= 1
            col = len(self.lines[line - 1]) if line >= 1 else 0
        return None

    def _skip_forward(self, loc: Loc) -> Loc | None:
        line, col = loc.line, loc.col
        while line <= len(self.lines):
            text = self.lines[line - 1]
            rest = text[col:]
            code = rest.split("#", 1)[0]
            stripped = code.lstrip(" \t\f\r\n\\")
            if stripped:
                return Loc(line, col + len(code) - len(stripped))
            line, col = line + 1, 0
        return None

    def _whole_lines(self, cand: Candidate) -> bool:
        before = self.lines[cand.stmt_start.line - 1][:cand.stmt_start.col]
        after = self.lines[cand.stmt_end.line - 1][cand.stmt_end.col:]
        after = after.rstrip("\r\n").strip()
        return not before.strip() and (not after or after.startswith("#"))


def scan_file(path: Path, display: str, relpath: str, text: str,
              index: Index, reported: bool = True) -> FileResult:
    """Parse one file, collect its candidates and feed the index."""
    result = FileResult(display, text)
    try:
        tree = ast.parse(text, filename=display)
    except (SyntaxError, ValueError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
        result.text = None
        return result
    scanner = _FileScanner(display, relpath, text, tree, index, reported)
    scanner.visit(tree)
    result.candidates = scanner.candidates
    return result


# --------------------------------------------------------------------------
# verdicts


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
    if info.kind == "none":
        return marker == NONE
    if info.kind == "name":
        return marker != NONE and info.value == marker
    return info.value == marker   # fwd


def _describe(info: ArgInfo, site: CallSite) -> str:
    where = f"{site.path}:{site.line}"
    if info.kind == "none":
        return f"caller passes None at {where}"
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
    constructor = c.is_method and c.func_name in ("__init__", "__new__") and c.class_chain
    if constructor:
        for cls in index.subclasses(c.class_chain[-1]):
            ctor_names.add(cls)
            ctor_names |= index.aliases.get(cls, set())
    found: list[tuple[str, str]] = []
    unpacked: list[str] = []
    for name in sorted(names | ctor_names):
        for site in index.calls.get(name, ()):
            if name not in names:
                shifts = {1}                    # Class(...): self/cls is implicit
            elif constructor:
                # only Class.__init__(self, ...) and super().__init__(...) in a
                # subclass reach this __init__ by that name
                if site.obj in ctor_names:
                    shifts = {0}
                elif site.obj == "super" and site.cls in ctor_names:
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
            if dec not in _TRANSPARENT_DECORATORS:
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
    worst = max((_RANK[v] for v, _ in problems))
    c.verdict = VERDICTS[worst]
    # the reasons of the worst kind first, then the others
    seen: list[str] = []
    for v, r in sorted(problems, key=lambda vr: -_RANK[vr[0]]):
        if r not in seen:
            seen.append(r)
    c.reasons = seen
