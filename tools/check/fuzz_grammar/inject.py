"""Getting `=>` into a program: at the AST level, misplaced, and in the source text."""

from __future__ import annotations

import ast
import copy
import io
import random
import tokenize
from typing import Any

from .cases import (TARGET_TYPES, LateDefault, Target, direct_late, dump, param_names, parent_map,
                    split_lines, targets_of)
from .generate import ExprGen


def scope_names(tree: ast.AST, target: Target, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """Names a late default of `target` may read: its parameters first, then
    enclosing parameters, body locals and some globals the body reads."""
    own = param_names(target.args)
    enclosing: list[str] = []
    node: ast.AST | None = parents.get(target)
    while node is not None:
        if isinstance(node, TARGET_TYPES):
            enclosing += param_names(node.args)
        node = parents.get(node)
    body = target.body if isinstance(target.body, list) else [target.body]
    stored: list[str] = []
    loaded: list[str] = []
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name):
                (stored if isinstance(n.ctx, ast.Store) else loaded).append(n.id)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                stored += n.names
    extra = sorted(dict.fromkeys(enclosing + stored))[:12] + sorted(dict.fromkeys(loaded))[:8]
    # Parameters are the point: weight them up by repetition.
    return own * 3 + extra if own else extra


def inject_defaults(target: Target, gen: ExprGen, rng: random.Random) -> int:
    """Make some defaults late and add late defaults; returns the number of late defaults."""
    a = target.args
    pos = a.posonlyargs + a.args
    for i, d in enumerate(a.defaults):
        if isinstance(d, LateDefault):
            if rng.random() < 0.2:
                a.defaults[i] = d.value
        elif rng.random() < 0.5:
            a.defaults[i] = LateDefault(value=d)
    room = len(pos) - len(a.defaults)
    if room > 0 and rng.random() < 0.6:
        k = rng.randint(1, room)
        a.defaults[:0] = [LateDefault(value=gen.expr()) for _ in range(k)]
    for i, kw in enumerate(a.kw_defaults):
        if kw is None:
            if rng.random() < 0.5:
                a.kw_defaults[i] = LateDefault(value=gen.expr())
        elif not isinstance(kw, LateDefault) and rng.random() < 0.5:
            a.kw_defaults[i] = LateDefault(value=kw)
    if rng.random() < 0.1 or direct_late(a) == 0:
        room = len(pos) - len(a.defaults)
        if room > 0 and rng.random() < 0.5:
            a.defaults.insert(0, LateDefault(value=gen.expr()))
        elif a.kwonlyargs and rng.random() < 0.5:
            a.kw_defaults[rng.randrange(len(a.kw_defaults))] = LateDefault(value=gen.expr())
        else:
            taken = set(param_names(a))
            new = next(f"_late{i}" for i in range(100) if f"_late{i}" not in taken)
            a.kwonlyargs.append(ast.arg(arg=new))
            a.kw_defaults.append(LateDefault(value=gen.expr()))
    return direct_late(a)


def inject_target(tree: ast.Module, target: Target, rng: random.Random,
                  parents: dict[ast.AST, ast.AST] | None = None) -> int:
    parents = parents if parents is not None else parent_map(tree)
    names = scope_names(tree, target, parents)
    a = target.args
    atoms = [copy.deepcopy(d.value if isinstance(d, LateDefault) else d)
             for d in a.defaults + a.kw_defaults if d is not None]
    gen = ExprGen(rng, names, atoms, isinstance(target, ast.AsyncFunctionDef))
    return inject_defaults(target, gen, rng)


EXPR_FIELDS_SKIP = {(ast.arguments, "defaults"), (ast.arguments, "kw_defaults")}


def misplace(tree: ast.Module, rng: random.Random) -> str:
    """Put a LateDefault where the AST does not allow one; returns a description."""
    arguments = [n for n in ast.walk(tree) if isinstance(n, ast.arguments)
                 and (n.defaults or any(n.kw_defaults))]
    r = rng.random()
    if arguments and r < 0.15:
        a = rng.choice(arguments)
        slots: list[tuple[list[Any], int]] = [(a.defaults, i) for i in range(len(a.defaults))]
        slots += [(a.kw_defaults, i) for i, d in enumerate(a.kw_defaults) if d is not None]
        lst, i = rng.choice(slots)
        d = lst[i]
        lst[i] = LateDefault(value=d if isinstance(d, LateDefault) else LateDefault(value=d))
        return "a LateDefault inside a LateDefault"
    if arguments and r < 0.25:
        a = rng.choice(arguments)
        extra = len(a.posonlyargs) + len(a.args) - len(a.defaults) + 1
        a.defaults[:0] = [LateDefault(value=ast.Constant(value=1)) for _ in range(extra)]
        return "more positional defaults than parameters"
    slots2: list[tuple[ast.AST, str, int | None]] = []
    for node in ast.walk(tree):
        for fname, value in ast.iter_fields(node):
            if (type(node), fname) in EXPR_FIELDS_SKIP:
                continue
            if isinstance(value, ast.expr) and not isinstance(value, LateDefault):
                slots2.append((node, fname, None))
            elif isinstance(value, list):
                slots2 += [(node, fname, i) for i, v in enumerate(value)
                           if isinstance(v, ast.expr) and not isinstance(v, LateDefault)]
    if not slots2:
        tree.body.append(ast.Expr(value=LateDefault(value=ast.Constant(value=1))))
        return "a LateDefault as an expression statement"
    node, fname, idx = rng.choice(slots2)
    if idx is None:
        child = getattr(node, fname)
        setattr(node, fname, ast.copy_location(LateDefault(value=child), child))
    else:
        lst2 = getattr(node, fname)
        lst2[idx] = ast.copy_location(LateDefault(value=lst2[idx]), lst2[idx])
    where = f"{type(node).__name__}.{fname}" + (f"[{idx}]" if idx is not None else "")
    return f"a LateDefault in {where} (line {getattr(node, 'lineno', '?')})"


# ==========================================================================
# Source-level rewriting with tokenize
# ==========================================================================

# How the `=` of a default is rewritten: name -> replacement of the `=` token
# ("tight"/"spaced" also replace the blanks around it on its line).  The
# newline and comment spellings need the parentheses of a def.
VALID_SPELLINGS = {"=>": "=>", "tight": "=>", "spaced": " => ",
                   "continuation": "=> \\\n{indent}", "newline": "=>\n{indent}",
                   "comment": "=>  # late\n{indent}"}
INVALID_SPELLINGS = {"split": "= >", "split-continuation": "=\\\n>", "split-newline": "=\n>",
                     "arrow-equal": "=>="}


def char_col(line: str, byte_col: int) -> int:
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def in_fstring(target: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    node = parents.get(target)
    while node is not None:
        if isinstance(node, ast.JoinedStr):
            return True
        node = parents.get(node)
    return False


def early_default_slots(target: Target) -> list[tuple[str, int, ast.expr]]:
    a = target.args
    slots = [("defaults", i, d) for i, d in enumerate(a.defaults)
             if not isinstance(d, LateDefault)]
    slots += [("kw_defaults", i, d) for i, d in enumerate(a.kw_defaults)
              if d is not None and not isinstance(d, LateDefault)]
    return slots


def equal_signs(target: Target, lines: list[str], toks: list[tokenize.TokenInfo]
                ) -> list[tuple[str, int, int]]:
    """The `=` of each early default of target: (field, index, its token's index)."""
    index = {t.start: i for i, t in reversed(list(enumerate(toks)))}
    found: list[tuple[str, int, int]] = []
    for fname, i, d in early_default_slots(target):
        row = d.lineno
        start = (row, char_col(lines[row - 1], d.col_offset))
        j = index.get(start)
        if j is None:
            continue
        j -= 1
        while j > 0 and (toks[j].type in (tokenize.NL, tokenize.COMMENT)
                         or toks[j].string == "("):
            j -= 1
        if toks[j].exact_type == tokenize.EQUAL:
            found.append((fname, i, j))
    return found


def rewrite_source(text: str, tree: ast.Module, ordinal: int,
                   rng: random.Random) -> tuple[str, str, str | None, str] | None:
    """Rewrite the `=` of some early defaults of the ordinal-th def/lambda in the
    text.  Returns (new text, expect, expected dump or None, notes)."""
    target = targets_of(tree)[ordinal]
    parents = parent_map(tree)
    lines = split_lines(text)
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.INDENT, tokenize.DEDENT)]
    except (SyntaxError, tokenize.TokenError):
        return None
    found = equal_signs(target, lines, toks)
    if not found:
        return None
    chosen = rng.sample(found, rng.randint(1, len(found)))
    fstring = in_fstring(target, parents)
    is_def = not isinstance(target, ast.Lambda)
    valid = ["=>", "=>", "tight", "spaced"]  # "=>" twice: the usual rewrite
    if not fstring:
        valid += ["continuation"] + (["newline", "comment"] if is_def else [])
    invalid = ["split", "arrow-equal"] if fstring else list(INVALID_SPELLINGS)
    bad = rng.randrange(len(chosen)) if rng.random() < 0.25 else -1
    edits: list[tuple[int, int, int, str]] = []  # row, col0, col1, replacement
    notes: list[str] = []
    for k, (fname, i, j) in enumerate(chosen):
        eq, prev, nxt = toks[j], toks[j - 1], toks[j + 1]
        row, col = eq.start
        spelling = rng.choice(invalid if k == bad else valid)
        table = INVALID_SPELLINGS if k == bad else VALID_SPELLINGS
        rep = table[spelling].format(indent=" " * rng.randint(0, 9))
        c0, c1 = col, col + 1
        if spelling in ("tight", "spaced"):
            c0 = prev.end[1] if prev.end[0] == row else col
            c1 = nxt.start[1] if nxt.start[0] == row else col + 1
        edits.append((row, c0, c1, rep))
        notes.append(f"line {row}: {eq.line[c0:c1]!r} -> {rep!r} "
                     f"({'WRONG: ' if k == bad else ''}{spelling}, {fname}[{i}])")
    for row, c0, c1, rep in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:c0] + rep + line[c1:]
    new_text = "".join(lines)
    if bad >= 0:
        return new_text, "syntax-error", None, "\n".join(notes)
    expected = copy.deepcopy(tree)
    t = targets_of(expected)[ordinal]
    for fname, i, _ in chosen:
        lst = getattr(t.args, fname)
        lst[i] = LateDefault(value=lst[i])
    return new_text, "valid", dump(expected), "\n".join(notes)
