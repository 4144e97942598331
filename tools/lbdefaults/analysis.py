"""Finding candidates and deciding their verdicts.

The work is done in two phases:

1. every file is read and parsed once (:func:`.scanner.scan_file`); this
   collects the candidates of the file (with everything the verdict and the
   rewrite need, as plain data) and feeds a tree-wide :class:`Index` of call
   sites, value references, import aliases and class bases;
2. :func:`.verdicts.decide` gives each candidate its verdict using the index.

This module holds what both phases share: the verdicts and shapes, the data
they exchange, reading sources, and recognizing the idiom in a function body.
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
RANK = {SAFE: 0, REVIEW: 1, UNSAFE: 2}

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
TRANSPARENT_DECORATORS = frozenset({
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
    problems: list[Problem] = field(default_factory=list)    # all, worst first
    # --- annotation rewrite: (old text, new text) when `T | None` loses None
    annotation_change: tuple[str, str] | None = None
    ann_start: Loc = Loc(0, 0)
    ann_end: Loc = Loc(0, 0)
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
            "reasons": [p.to_json() for p in self.problems],
            "annotation": (None if self.annotation_change is None else
                           {"old": self.annotation_change[0],
                            "new": self.annotation_change[1]}),
        }


@dataclass(frozen=True)
class Problem:
    """One reason a candidate is not safe, with its evidence: `path:line` of the
    call site, override, import, subclass or check it is about."""

    verdict: str
    text: str
    kind: str                       # call, override, exposure, unresolved, local
    evidence: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"verdict": self.verdict, "kind": self.kind, "text": self.text,
                "evidence": list(self.evidence)}


@dataclass(frozen=True)
class Import:
    """A module-scope import: `import X` (name ""), `from X import *` (name "*")
    or `from X import name as asname`; X is resolved for relative imports."""

    module: str
    name: str
    asname: str
    line: int


@dataclass
class ModuleInfo:
    """What the exposure analysis needs of one module."""

    path: str
    dotted: str
    public_path: bool           # no component of its path starts with `_`
    reported: bool              # in the scanned tree (not only --callers-from)
    imports: list[Import] = field(default_factory=list)
    all_names: set[str] | None = None
    toplevel: dict[str, int] = field(default_factory=dict)   # def/class name -> line
    # module-level `name = other` (other a Name): (name, other, line)
    aliases: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return self.dotted.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class ArgInfo:
    """What a call passes in one argument slot, when it may be the marker."""

    kind: str       # "none", "name" (a Name/Attribute, value = its name), "fwd",
    #                 "none-var" (a local variable the caller sets to None somewhere)
    value: str      # for "fwd": the marker of the forwarded parameter
    fwd_name: str = ""   # for "fwd" and "none-var": the name passed


@dataclass(frozen=True)
class CallSite:
    path: str
    line: int
    positional: tuple[tuple[int, bool, ArgInfo], ...]   # (index, after a *arg, info)
    keywords: tuple[tuple[str, ArgInfo], ...]
    obj: str = ""       # for `obj.name(...)`: the Name obj, or "super" for super()
    #                     (or a module-level alias of super, `_safe_super = super`)
    cls: str = ""       # the innermost class the call is in
    star_at: int = -1   # position of the first *arg, or -1
    double_star: bool = False   # has a **kwargs argument
    # how the callee was named: "plain" (`f(...)`), "self" (`self.m`/`cls.m`,
    # the first parameter of a method), "super", "attr" (`obj.m`, obj another
    # Name), "expr" (`a.b.m`, `f().m`...)
    form: str = "plain"
    obj_class: str = ""     # for "attr": the class `obj` was made from (`obj = C(...)`)
    in_func: str = ""       # the name of the function the call is in


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
    modules: list[ModuleInfo] = field(default_factory=list)
    # class name -> where it is defined ("path:line"), all definitions
    class_defs: dict[str, list[str]] = field(default_factory=dict)
    # class name -> {method name: "path:line"} (overrides are looked up here)
    methods: dict[str, dict[str, str]] = field(default_factory=dict)
    # the names `from m import name as alias` binds: alias -> {name}
    alias_of: dict[str, set[str]] = field(default_factory=dict)
    _exposure: object = None    # cache of .exposure.compute

    def base_names(self, name: str) -> set[str]:
        """The bases of class `name`, with the names their import aliases stand for."""
        out: set[str] = set()
        for base in self.bases.get(name, ()):
            out.add(base)
            out |= self.alias_of.get(base, set())
        return out

    def ancestors(self, name: str) -> set[str]:
        """`name` and the names of all its base classes, transitively (by name)."""
        found = {name}
        todo = [name]
        while todo:
            for base in self.base_names(todo.pop()):
                if base not in found:
                    found.add(base)
                    todo.append(base)
        return found

    def cooperating(self, name: str) -> set[str]:
        """The classes whose `super()` calls may reach a method of `name`: the classes
        in the MRO of any subclass of it, its mixins included (by name, a superset)."""
        found: set[str] = set()
        for sub in self.subclasses(name):
            found |= self.ancestors(sub)
        return found

    def subclasses(self, name: str) -> set[str]:
        """`name` and the names of all classes deriving from it (by name)."""
        found = {name}
        changed = True
        while changed:
            changed = False
            for cls in self.bases:
                if cls not in found and self.base_names(cls) & found:
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
        elif type(node).__name__ == "TypeAlias":     # 3.12+; the tool runs on 3.11
            name = getattr(node, "name", None)
            if isinstance(name, ast.Name):
                bind(name.id, name.lineno)
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


def reads_locals(expr: ast.expr) -> bool:
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


def params_of(args: ast.arguments) -> list[_Param]:
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


def marker_of(node: ast.expr | None, sentinels: set[str]) -> str | None:
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


def is_name(node: ast.expr, name: str) -> bool:
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
                    and len(body.targets) == 1 and is_name(body.targets[0], name)):
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
        if _is_test(value.test, name, marker, ast.Is) and is_name(value.orelse, name):
            return name, sentinel_shape[marker == NONE][1], value.body
        if _is_test(value.test, name, marker, ast.IsNot) and is_name(value.body, name):
            return name, sentinel_shape[marker == NONE][1], value.orelse
        return None
    if (marker == NONE and isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or)
            and is_name(value.values[0], name)):
        rest = value.values[1:]
        expr = rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.Or(), values=rest)
        if len(rest) > 1:
            ast.copy_location(expr, rest[0])
            expr.end_lineno, expr.end_col_offset = rest[-1].end_lineno, rest[-1].end_col_offset
        return name, SHAPE_OR, expr
    return None
