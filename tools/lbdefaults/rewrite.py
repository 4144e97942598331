"""Rewriting candidates (the safe ones unless told otherwise): `x=None` + check  ->  `x=>EXPR`;
and the other way (`to_sentinel_idiom`), for the playground's comparison with stock Python.

Edits are made by source position on the original text, so everything else in
the file stays byte-identical (encoding, newlines, comments, formatting).
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

from .analysis import SAFE, Candidate, Loc, Positions, split_lines


class RewriteError(Exception):
    """A rewrite that cannot be made or that does not compile."""


@dataclass(frozen=True)
class Edit:
    start: int      # absolute character offsets in the original text
    end: int
    text: str


def _offsets(lines: Sequence[str]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def _find_equals(gap: str) -> int:
    """Index of the `=` of a default in the text between the parameter (with
    its annotation) and the default value; comments are skipped."""
    pos = 0
    for line in re.split(r"(?<=\n)|(?<=\r)(?!\n)", gap):
        code = line.split("#", 1)[0]
        k = code.find("=")
        if k >= 0:
            return pos + k
        pos += len(line)
    raise RewriteError("cannot find the '=' of the default")


def plan_edits(text: str, candidates: Sequence[Candidate],
               annotations: bool = True) -> list[Edit]:
    """Edits that rewrite all the given candidates of one file; with
    `annotations`, `T | None` loses its None too (see .annotations)."""
    lines = split_lines(text)
    starts = _offsets(lines)

    def off(loc: Loc) -> int:
        return starts[loc.line - 1] + loc.col

    edits: list[Edit] = []
    by_function: dict[int, list[Candidate]] = {}
    for c in candidates:
        by_function.setdefault(c.def_line, []).append(c)
        expr = text[off(c.expr_start):off(c.expr_end)]
        if c.expr_is_bare_tuple:
            expr = f"({expr})"
        gap = text[off(c.arg_end):off(c.default_start)]
        k = _find_equals(gap)
        edits.append(Edit(off(c.arg_end), off(c.default_end),
                          gap[:k] + "=>" + gap[k + 1:] + expr))
        if annotations and c.annotation_change is not None:
            edits.append(Edit(off(c.ann_start), off(c.ann_end), c.annotation_change[1]))
    for cands in by_function.values():
        removed = sorted(cands, key=lambda c: c.line)
        first_c = removed[0]
        needs_pass = not first_c.has_docstring and first_c.body_len == len(removed)
        for n, c in enumerate(removed):
            first = starts[c.stmt_start.line - 1]
            last = starts[c.stmt_end.line]          # end of the statement's last line
            if needs_pass and n == 0:
                indent = lines[c.stmt_start.line - 1][:c.stmt_start.col]
                newline = re.search(r"(\r\n|\r|\n)$", lines[c.stmt_end.line - 1])
                eol = newline.group(1) if newline else ""
                edits.append(Edit(first, last, f"{indent}pass{eol}"))
            else:
                edits.append(Edit(first, last, ""))
        # without a docstring, a blank line that separated the checks from the
        # rest of the body would now follow the `def` line: drop it too
        last_c = removed[-1]
        contiguous = [c.stmt_start.line for c in removed] == sorted(
            c.stmt_start.line for c in removed)
        if (not needs_pass and not first_c.has_docstring and contiguous
                and first_c.stmt_start == first_c.body_first
                and last_c.stmt_end.line < len(lines)
                and not lines[last_c.stmt_end.line].strip()):
            start = starts[last_c.stmt_end.line]
            edits.append(Edit(start, starts[last_c.stmt_end.line + 1], ""))
    edits.sort(key=lambda e: e.start)
    for a, b in zip(edits, edits[1:]):
        if a.end > b.start:
            raise RewriteError("overlapping edits")
    return edits


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    out: list[str] = []
    pos = 0
    for e in edits:
        out.append(text[pos:e.start])
        out.append(e.text)
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


def rewrite_text(text: str, candidates: Sequence[Candidate],
                 apply: Collection[str] = (SAFE,), annotations: bool = True) -> str:
    """text with the candidates whose verdict is in `apply` rewritten."""
    return rewrite_all(text, [c for c in candidates if c.verdict in apply], annotations)


def rewrite_all(text: str, chosen: Sequence[Candidate], annotations: bool = True) -> str:
    """text with every candidate of `chosen` rewritten, whatever its verdict."""
    return apply_edits(text, plan_edits(text, chosen, annotations)) if chosen else text


def check_compiles(new_text: str, path: str, candidates: Sequence[Candidate],
                   old_late: int | None = None) -> None:
    """Raise RewriteError unless `new_text` compiles with the running
    interpreter and has a late-bound default for every candidate given (the
    rewritten ones)."""
    try:
        tree = ast.parse(new_text, filename=path)
        compile(tree, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise RewriteError(f"rewritten file does not compile: {exc}") from None
    late_default = getattr(ast, "LateDefault", None)
    if late_default is None:
        raise RewriteError("the running interpreter has no late-bound defaults "
                           "(ast.LateDefault); run the tool with the patched python")
    late: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            positional = [*a.posonlyargs, *a.args]
            pairs: list[tuple[ast.arg, ast.expr | None]] = list(
                zip(positional[len(positional) - len(a.defaults):], a.defaults))
            pairs += list(zip(a.kwonlyargs, a.kw_defaults))
            late += [(node.name, p.arg) for p, d in pairs if isinstance(d, late_default)]
    for c in candidates:
        if (c.func_name, c.parameter) not in late:
            raise RewriteError(f"rewritten file lacks the late default of "
                               f"{c.function}({c.parameter})")
    if old_late is not None and len(late) != old_late + len(candidates):
        raise RewriteError(f"expected {old_late + len(candidates)} late defaults in the "
                           f"rewritten file, found {len(late)}")


def count_late_defaults(text: str) -> int:
    late_default = getattr(ast, "LateDefault", None)
    if late_default is None:
        return 0
    return sum(isinstance(n, late_default) for n in ast.walk(ast.parse(text)))


def unified_diff(path: str, old: str, new: str) -> str:
    name = path.lstrip("/")
    return "".join(difflib.unified_diff(
        split_lines(old), split_lines(new), f"a/{name}", f"b/{name}"))


def write_file(path: Path, display: str, text: str, encoding: str,
               candidates: Sequence[Candidate],
               rewriter: Callable[[str, Sequence[Candidate]], str] = rewrite_all,
               apply: Collection[str] = (SAFE,)) -> int:
    """Rewrite the candidates whose verdict is in `apply` of one file in place;
    return the number of defaults rewritten.

    The new text is verified (compiles with the running interpreter, has the
    late defaults) before the file is replaced atomically; on any problem the
    file is left untouched and RewriteError is raised.
    """
    chosen = [c for c in candidates if c.verdict in apply]
    if not chosen:
        return 0
    new = rewriter(text, chosen)
    check_compiles(new, display, chosen, count_late_defaults(text))
    if path.read_bytes() != text.encode(encoding):
        raise RewriteError("file changed while it was being analysed")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".lbdefaults", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(new.encode(encoding))
        shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(chosen)


# --------------------------------------------------------------------------
# the other direction: `x=>EXPR`  ->  `x=None` + check (what stock Python runs)


@dataclass(frozen=True)
class SentinelVersion:
    """A program with its late-bound defaults written as the `None`-sentinel idiom."""

    text: str
    rewritten: int      # the late-bound defaults rewritten


def to_sentinel_idiom(text: str, filename: str = "<string>") -> SentinelVersion:
    """text with each late-bound default `x=>EXPR` of a `def` written as stock Python
    writes it: `x=None`, and `if x is None: x = EXPR` at the top of the body (after its
    docstring and its leading `global` and `nonlocal` statements), in the order of the
    parameters, which is the order the late defaults are evaluated in. Everything else is
    kept as it is, as by the rewrite above.

    The two behave alike but when a caller passes None (the idiom takes it as "left
    out") and for introspection (`inspect.signature` shows `x=None`). Raises RewriteError
    for what the idiom cannot express: a lambda's late default (a lambda has no
    statements), and a default that reads its own parameter or a later late-bound one
    (when that is left out too, `=>` raises UnboundLocalError where the idiom would read
    None); and when text does not compile, or its rewrite would not."""
    late_default = getattr(ast, "LateDefault", None)
    if late_default is None:
        raise RewriteError("the running interpreter has no late-bound defaults "
                           "(ast.LateDefault); run the tool with the patched python")
    try:
        tree = ast.parse(text, filename=filename)
        compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise RewriteError(f"the code does not compile: line {exc.lineno}: "
                           f"{type(exc).__name__}: {exc.msg}") from None
    lines = split_lines(text)
    starts = _offsets(lines)
    where = Positions(lines)
    newline = re.search(r"\r\n|\r|\n", text)
    eol = newline.group(0) if newline else "\n"

    def off(loc: Loc) -> int:
        return starts[loc.line - 1] + loc.col

    edits: list[Edit] = []
    rewritten = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and _late_pairs(node.args, late_default):
            raise RewriteError(f"line {node.lineno}: a lambda's late-bound default: the "
                               "idiom needs statements, which a lambda does not have")
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        pairs = _late_pairs(node.args, late_default)
        if not pairs:
            continue
        unfilled = {p.arg for p, _ in pairs}
        fills: list[tuple[str, str]] = []
        for parameter, default in pairs:
            read = sorted({n.id for n in ast.walk(default.value)
                           if isinstance(n, ast.Name) and n.id in unfilled})
            if read:
                raise RewriteError(
                    f"line {default.lineno}: the default of {parameter.arg!r} reads "
                    f"{', '.join(map(repr, read))} before it is filled: when that is "
                    "left out too, `=>` raises UnboundLocalError, the idiom would read "
                    "None")
            unfilled.discard(parameter.arg)
            arrow = where.segment(where.start(default), where.end(default))
            expr = re.sub(r"^(\s|\\\r?\n|#[^\r\n]*)*", "", arrow[2:])
            start = off(where.start(default))
            spaced = text[start - 1:start].isspace()      # `x: int => ...`, PEP 8's style
            edits.append(Edit(start, off(where.end(default)), "= None" if spaced else "=None"))
            fills.append((parameter.arg, expr))
        edits.append(_fill_edit(node, fills, lines, starts, where, eol))
        rewritten += len(fills)
    edits.sort(key=lambda e: e.start)
    new = apply_edits(text, edits)
    try:
        compile(new, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise RewriteError(f"the idiom's version would not compile: "
                           f"{type(exc).__name__}: {exc.msg}") from None
    return SentinelVersion(new, rewritten)


def _late_pairs(args: ast.arguments, late_default: type) -> list[tuple[ast.arg, Any]]:
    """(parameter, its LateDefault node) of each late-bound default, in parameter order."""
    positional = [*args.posonlyargs, *args.args]
    pairs: list[tuple[ast.arg, ast.expr | None]] = list(
        zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults))
    return [(p, d) for p, d in pairs if isinstance(d, late_default)]


def _fill_edit(node: ast.FunctionDef | ast.AsyncFunctionDef, fills: Sequence[tuple[str, str]],
               lines: Sequence[str], starts: Sequence[int], where: Positions,
               eol: str) -> Edit:
    """The insertion of the checks `if x is None: x = EXPR` into node's body, before its
    first statement that is not its docstring or a leading global/nonlocal."""
    body = node.body
    k = 1 if body and isinstance(body[0], ast.Expr) and \
        isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str) else 0
    while k < len(body) and isinstance(body[k], (ast.Global, ast.Nonlocal)):
        k += 1
    header = lines[node.lineno - 1]
    def_indent = header[:len(header) - len(header.lstrip())]
    if k < len(body):
        first = where.start(body[k])
        line = lines[first.line - 1]
        if not line[:first.col].strip():          # the statement begins its line
            indent = line[:first.col]
            return Edit(starts[first.line - 1], starts[first.line - 1],
                        _checks(fills, indent, eol) + eol)
        # on the line of the `def` (or after a `;`): the checks go on lines of their own
        before = line[:first.col].rstrip()
        indent = def_indent + ("\t" if "\t" in def_indent else "    ")
        return Edit(starts[first.line - 1] + len(before), starts[first.line - 1] + first.col,
                    eol + _checks(fills, indent, eol) + eol + indent)
    last = where.end(body[-1])
    line = lines[body[-1].lineno - 1]
    indent = line[:len(line) - len(line.lstrip())] if body[-1].lineno != node.lineno \
        else def_indent + "    "
    return Edit(starts[last.line - 1] + last.col, starts[last.line - 1] + last.col,
                eol + _checks(fills, indent, eol))


def _checks(fills: Sequence[tuple[str, str]], indent: str, eol: str) -> str:
    step = "\t" if "\t" in indent else "    "
    return eol.join(f"{indent}if {name} is None:{eol}{indent}{step}{name} = {expr}"
                    for name, expr in fills)
