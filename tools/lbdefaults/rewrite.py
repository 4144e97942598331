"""Rewriting candidates (the safe ones unless told otherwise): `x=None` + check  ->  `x=>EXPR`.

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
from typing import Callable, Collection, Sequence

from .analysis import SAFE, Candidate, Loc, split_lines


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
