"""The minimizer (runs in its own subprocess: parsing a crasher may crash it).

A failure is reduced as text (line chunks) while it reproduces from source, then
as an AST (statements, decorators, annotations, parameters, late defaults made
early, sub-expressions); a misplaced-LateDefault case exists only as an AST.
Maintained minimizers were checked and do not fit: pysource-minimize 0.10.1
(AST-level, Python-specific) fails on the new node (its expression dispatch
reaches ast.Interpolation, which 3.13 does not have, for an ast.LateDefault);
shrinkray 26.9.13.0 does its Python passes with libcst, whose parser rejects
`=>`, and requires llama-cpp-python and huggingface-hub (no wheel: a C++
build); picire 21.8 (last release 2021) reduces text only.  Hypothesis
already shrinks the hypothesmith programs (worker.worker_hypothesmith).
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import json
import os
import tempfile
import time
from typing import Any, Callable, Iterator

from .cases import Case, LateDefault, split_lines
from .worker import WorkerResult, command, run_worker


def signature_of(result: WorkerResult) -> set[str]:
    if result.crashed:
        return {result.crash_name}
    return {f["check"] for ev in result.events if ev.get("ev") == "end"
            for f in ev.get("failures", [])}


def check_in_subprocess(case: Case, timeout: float = 60,
                        all_failures: bool = False) -> WorkerResult:
    with tempfile.TemporaryDirectory(prefix="fuzz-grammar-") as tmp:
        inp = os.path.join(tmp, "cases.json")
        with open(inp, "w", encoding="utf-8") as f:
            json.dump([case.to_json()], f)
        out = os.path.join(tmp, "events.jsonl")
        argv = command("_worker", "--mode", "sources", "--input", inp, "--out", out)
        if all_failures:
            argv.append("--all-failures")
        return run_worker(argv, out, idle_timeout=timeout)


def statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for fname in ("body", "orelse", "finalbody", "handlers", "cases"):
            value = getattr(node, fname, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.AST):
                yield value


def _pop(lst: list[Any], i: int) -> None:
    del lst[i]


def _set(lst: list[Any], i: int, value: Any) -> None:
    lst[i] = value


def _unwrap(lst: list[Any], i: int) -> None:
    lst[i] = lst[i].value


def _drop_positional(node: ast.arguments, i: int) -> None:
    first = len(node.posonlyargs) + len(node.args) - len(node.defaults)
    lst = node.posonlyargs if i < len(node.posonlyargs) else node.args
    lst.remove((node.posonlyargs + node.args)[i])
    if i >= first:
        del node.defaults[i - first]


def _drop_kwonly(node: ast.arguments, i: int) -> None:
    del node.kwonlyargs[i]
    del node.kw_defaults[i]


def ast_reductions(tree: ast.Module) -> Iterator[Callable[[], None]]:
    """Candidate edits of the tree, biggest first; each is applied in place."""
    for lst in statement_lists(tree):
        for i in range(len(lst)):
            if len(lst) > 1:
                yield functools.partial(_pop, lst, i)
            elif isinstance(lst[i], ast.stmt) and not isinstance(lst[i], ast.Pass):
                yield functools.partial(_set, lst, i, ast.Pass())
    for node in ast.walk(tree):
        if getattr(node, "decorator_list", None):
            yield functools.partial(setattr, node, "decorator_list", [])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            yield functools.partial(setattr, node, "returns", None)
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield functools.partial(setattr, node, "annotation", None)
        if isinstance(node, ast.arguments):
            for i in range(len(node.posonlyargs) + len(node.args)):
                yield functools.partial(_drop_positional, node, i)
            for i in range(len(node.kwonlyargs)):
                yield functools.partial(_drop_kwonly, node, i)
            for lst2 in (node.defaults, node.kw_defaults):
                for i, d in enumerate(lst2):
                    if isinstance(d, LateDefault):
                        yield functools.partial(_unwrap, lst2, i)
    for node in ast.walk(tree):
        for fname, value in ast.iter_fields(node):
            if isinstance(value, ast.expr) and not isinstance(value, ast.Constant):
                if isinstance(getattr(value, "ctx", ast.Load()), ast.Load):
                    yield functools.partial(setattr, node, fname, ast.Constant(value=0))
                for sub in ast.iter_child_nodes(value):
                    load = isinstance(getattr(sub, "ctx", ast.Load()), ast.Load)
                    if isinstance(sub, ast.expr) and load:
                        yield functools.partial(setattr, node, fname, sub)


def minimize_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="fuzz_grammar _minimize")
    ap.add_argument("--input", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args(argv)
    with open(args.input, encoding="utf-8") as f:
        spec = json.load(f)
    want = set(spec["signature"])
    all_failures = bool(spec.get("all_failures"))
    case = Case.from_json(spec["case"])
    t_end = time.monotonic() + args.seconds
    attempts = 0

    def save(best: Case, form: str) -> None:
        result = {"form": form, "attempts": attempts, "src": best.src,
                  "dump": ast.dump(best.tree, include_attributes=True) if best.tree else None}
        tmp = args.out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, args.out)

    def holds(candidate: Case) -> bool:
        nonlocal attempts
        attempts += 1
        return bool(signature_of(check_in_subprocess(candidate, all_failures=all_failures))
                    & want)

    # 1. As plain source (no expectations): does the failure reproduce from text alone?
    best: Case | None = None
    text = source_of(case)
    if text is not None and holds(Case("min", "plain", src=text)):
        best = Case("min", "plain", src=text)
        save(best, "source")
        best = reduce_lines(split_lines(text), holds, save, t_end) or best
        # AST-level, as long as the failure survives unparse.
        try:
            tree = ast.parse(best.src or "")
            form_ok = holds(Case("min", "plain", src=ast.unparse(tree)))
        except Exception:  # noqa: BLE001
            form_ok = False
        if form_ok:
            best = Case("min", "plain", src=ast.unparse(tree))
            save(best, "source")
            reduce_tree(tree, lambda t: holds(Case("min", "plain", src=ast.unparse(t))),
                        lambda t: save(Case("min", "plain", src=ast.unparse(t)), "source"), t_end)
        return 0
    # 2. As an AST.
    if case.tree is not None:
        kind = "misplaced" if case.kind == "misplaced" else "ast"
        if holds(Case("min", kind, tree=copy.deepcopy(case.tree))):
            tree = copy.deepcopy(case.tree)
            save(Case("min", kind, tree=tree), "tree")
            reduce_tree(tree, lambda t: holds(Case("min", kind, tree=ast.fix_missing_locations(t))),
                        lambda t: save(Case("min", kind, tree=t), "tree"), t_end)
    return 0


def source_of(case: Case) -> str | None:
    """The case as source text, when it can be written as one."""
    if case.src is not None or case.tree is None or case.kind == "misplaced":
        return case.src
    try:
        return ast.unparse(case.tree)
    except Exception:  # noqa: BLE001
        return None


def reduce_lines(lines: list[str], holds: Callable[[Case], bool],
                 save: Callable[[Case, str], None], t_end: float) -> Case | None:
    """Drop chunks of lines (halved when none can go) while the failure holds; the
    smallest source case found, or None when no line could go."""
    best = None
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.monotonic() < t_end:
        i = 0
        changed = False
        while i < len(lines) and time.monotonic() < t_end:
            trial = lines[:i] + lines[i + chunk:]
            if trial and holds(Case("min", "plain", src="".join(trial))):
                lines = trial
                best = Case("min", "plain", src="".join(lines))
                save(best, "source")
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return best


def reduce_tree(tree: ast.Module, holds: Callable[[ast.Module], bool],
                save: Callable[[ast.Module], None], t_end: float) -> None:
    progress = True
    while progress and time.monotonic() < t_end:
        progress = False
        for k, _ in enumerate(ast_reductions(tree)):
            if time.monotonic() >= t_end:
                return
            trial = copy.deepcopy(tree)
            edits = list(ast_reductions(trial))
            if k >= len(edits):
                break
            try:
                edits[k]()
                ast.fix_missing_locations(trial)
                ast.unparse(trial)
            except Exception:  # noqa: BLE001 - an edit that breaks the tree is skipped
                continue
            if holds(trial):
                tree.body = trial.body
                save(tree)
                progress = True
                break
