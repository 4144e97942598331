"""The checks of a case: parse, unparse, compile, tokenize, marshal, dis (run in a worker)."""

from __future__ import annotations

import ast
import dis
import io
import marshal
import symtable
import tokenize
import warnings
from typing import Any, Iterator

from .cases import (FATARROW, Case, Outcome, compile_status, dump, first_difference, late_count,
                    short, strip_late)
from .functions import define


def check_case(case: Case, discount: bool = True) -> Outcome:
    """Run every check on a case.  With `discount`, a failure that the same case
    without `=>` (its late defaults made early) has too is counted in the stats
    ("also without =>: CHECK"), not as a failure: it is not about `=>`."""
    out = Outcome()
    out.stat(f"kind:{case.kind}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case.tree is not None:
            text = check_tree(case, out)
            if case.kind == "misplaced" or text is None:
                return discounted(case, out) if discount else out
            if case.src is None:
                case.src = text
        if case.src is not None:
            check_source(case, out)
    return discounted(case, out) if discount else out


def early_variant(case: Case) -> Case | None:
    """The case with every late default made early (None: no such variant)."""
    if case.kind == "misplaced" or case.expect == "syntax-error":
        return None
    if case.tree is not None:
        tree = strip_late(case.tree)
        assert isinstance(tree, ast.Module)
        return Case(case.label, "ast", tree=ast.fix_missing_locations(tree), target=case.target)
    if case.src is not None and "=>" in case.src:
        # Same length, same positions; `= ` also stands in inside strings.
        return Case(case.label, "plain", src=case.src.replace("=>", "= "), target=case.target)
    return None


def discounted(case: Case, out: Outcome) -> Outcome:
    if not out.failures:
        return out
    variant = early_variant(case)
    if variant is None:
        return out
    try:
        also = {f.check for f in check_case(variant, discount=False).failures}
    except Exception:  # noqa: BLE001 - keep the failures as they are
        return out
    kept = []
    for f in out.failures:
        if f.check in also:
            out.stat(f"also without =>: {f.check}")
        else:
            kept.append(f)
    out.failures = kept
    return out


def check_tree(case: Case, out: Outcome) -> str | None:
    """Checks of an injected AST; returns its ast.unparse() text."""
    tree = case.tree
    assert tree is not None
    ok, res = out.guard("compile(tree)", compile_status, tree,
                        malformed=case.kind == "misplaced")
    status = res[0] if ok else "error"
    if case.kind == "misplaced":
        if status == "ok":
            out.fail("misplaced LateDefault accepted",
                     "compile() of an AST with a LateDefault outside arguments.defaults/"
                     f"kw_defaults succeeded ({case.notes})")
        else:
            out.stat(f"misplaced rejected ({status})")
        out.guard("unparse(misplaced tree)", ast.unparse, tree, allowed=(Exception,))
        return None
    if status != "ok":
        out.stat(f"tree rejected ({status})")
    ok, result = out.guard("ast.unparse(tree)", ast.unparse, tree)
    if not ok:
        return None
    text: str = result
    if status == "ok":
        try:
            back = ast.parse(text)
        except SyntaxError as exc:
            out.fail("unparse of a compilable tree does not parse",
                     f"{exc}\n--- ast.unparse(tree) ---\n{short(text)}")
            return text
        if dump(back) != dump(tree):
            out.fail("tree != parse(unparse(tree))", first_difference(dump(tree), dump(back)))
        if compile_status(text)[0] != "ok":
            out.fail("compile(tree) succeeds but compile(unparse(tree)) does not",
                     repr(compile_status(text)[1]))
    return text


def check_round_trip(t1: ast.Module, out: Outcome) -> None:
    """parse -> unparse -> parse is stable, unparse is idempotent."""
    ok, u1 = out.guard("ast.unparse(parse(src))", ast.unparse, t1)
    if not ok:
        return
    try:
        t2 = ast.parse(u1)
    except SyntaxError as exc:
        out.fail("unparse output does not parse", f"{exc}\n--- unparse ---\n{short(u1)}")
        return
    if dump(t1) != dump(t2):
        out.fail("parse(src) != parse(unparse(parse(src)))",
                 first_difference(dump(t1), dump(t2)))
    ok2, u2 = out.guard("ast.unparse (second)", ast.unparse, t2)
    if ok2 and u1 != u2:
        out.fail("ast.unparse is not idempotent", first_difference(u1, u2))


def check_source(case: Case, out: Outcome) -> None:
    src = case.src
    assert src is not None
    ok, toks = out.guard("tokenize",
                         lambda: list(tokenize.generate_tokens(io.StringIO(src).readline)),
                         allowed=(SyntaxError, tokenize.TokenError))
    try:
        t1 = ast.parse(src)
    except SyntaxError as exc:
        parse_error(case, out, exc)
        return
    if case.expect == "syntax-error":
        out.fail("wrong spelling of => accepted",
                 f"{case.notes}\nparsed as:\n{short(ast.unparse(t1))}")
    if case.expected is not None and dump(t1) != case.expected:
        out.fail("source rewrite parses to the wrong tree",
                 f"{case.notes}\n{first_difference(case.expected, dump(t1))}")
    if ok:
        arrows = sum(t.exact_type == FATARROW for t in toks)
        if arrows != late_count(t1):
            out.fail("FATARROW tokens != LateDefault nodes",
                     f"tokenize: {arrows} FATARROW, ast.parse: {late_count(t1)} LateDefault")
    out.stat("late defaults in source", late_count(t1))
    check_round_trip(t1, out)
    # compile: the source and its AST agree, errors are only SyntaxError/ValueError.
    ok_s, res_s = out.guard("compile(src)", compile_status, src)
    ok_t, res_t = out.guard("compile(parse(src))", compile_status, t1)
    if not (ok_s and ok_t):
        return
    status = res_s[0]
    out.stat(f"compile {status}")
    if status != "ok":
        out.stat(f"{status}: {res_s[1].msg if isinstance(res_s[1], SyntaxError) else res_s[1]}")
    if (status == "ok") != (res_t[0] == "ok"):
        out.fail("compile(src) and compile(ast.parse(src)) disagree",
                 f"source: {status} {res_s[1]!r}\nast: {res_t[0]} {res_t[1]!r}")
    out.guard("compile(src, optimize=2)", compile_status, src, 2)
    out.guard("symtable", symtable.symtable, src, "<fuzz>", "exec", allowed=(SyntaxError,))
    ok_o, opt = out.guard("ast.parse(optimize=2)", ast.parse, src, optimize=2)
    if ok_o:
        out.guard("compile(optimized ast)", compile_status, opt)
        ok_u, text = out.guard("ast.unparse(optimized ast)", ast.unparse, opt)
        if ok_u and status == "ok":
            try:
                ast.parse(text)
            except SyntaxError as exc:
                out.fail("unparse of the optimized AST does not parse",
                         f"{exc}\n{short(text)}")
    if status == "ok":
        check_code(res_s[1], out)
        define(t1, case.target, out)


def parse_error(case: Case, out: Outcome, exc: SyntaxError) -> None:
    if case.expect == "valid" or case.expected is not None:
        out.fail("valid => spelling rejected", f"{case.notes}\n{exc!r}")
    elif case.expect == "syntax-error":
        out.stat("wrong spelling rejected")
    else:
        out.stat("parse SyntaxError")
    # compile() and symtable must reject it the same way.
    ok, res = out.guard("compile(unparsable src)", compile_status, case.src or "")
    if ok and res[0] == "ok":
        out.fail("ast.parse rejects what compile accepts", repr(exc))
    out.guard("symtable(unparsable src)", symtable.symtable, case.src or "", "<fuzz>", "exec",
              allowed=(SyntaxError,))


def walk_code(code: Any) -> Iterator[Any]:
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield from walk_code(const)


CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals",
               "co_stacksize", "co_flags", "co_firstlineno", "co_code", "co_names",
               "co_varnames", "co_freevars", "co_cellvars", "co_name", "co_qualname",
               "co_linetable", "co_exceptiontable")


def code_key(value: Any) -> Any:
    """What a code object is, comparable (nan == nan, unlike code == code)."""
    if hasattr(value, "co_code"):
        return tuple(getattr(value, f) for f in CODE_FIELDS) + (code_key(value.co_consts),)
    if isinstance(value, (float, complex)):
        return (type(value).__name__, repr(value))
    if isinstance(value, tuple):
        return tuple(code_key(v) for v in value)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(code_key(v)) for v in value)))
    if type(value).__name__ == "LateDefaultType":
        # They compare by text: keyed by it, and apart from a str of the same text.
        return ("LateDefaultType", value.text)
    return (type(value).__name__, value)


def check_code(code: Any, out: Outcome) -> None:
    ok, back = out.guard("marshal", lambda: marshal.loads(marshal.dumps(code)))
    if ok and code_key(back) != code_key(code):
        out.fail("marshal round trip changes the code object", repr(code))
    for co in walk_code(code):
        out.guard("dis", lambda c=co: (list(dis.get_instructions(c)), list(c.co_positions()),
                                       list(c.co_lines())))
