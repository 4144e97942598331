"""Scanning one file: its candidates, and what it adds to the tree-wide index."""

from __future__ import annotations

import ast
from pathlib import Path

from .analysis import (NONE, REVIEW, SHAPE_OR, UNSAFE, ArgInfo, CallSite, Candidate, FileResult,
                       Import, Index, Loc, ModuleInfo, Positions, bound_names, callee_name,
                       decorator_name, expr_reads, is_bare_tuple, is_docstring, is_generator,
                       is_name, marker_of, match_check, params_of, reads_locals, split_lines,
                       walk_scope)
from .annotations import without_none


def module_is_private(relpath: str) -> bool:
    parts = Path(relpath).with_suffix("").parts
    return any(p.startswith("_") and p not in ("__init__", "__main__") for p in parts)


def dotted_name(relpath: str) -> str:
    """`pkg/_impl.py` -> `pkg._impl`; `pkg/__init__.py` -> `pkg`."""
    parts = list(Path(relpath).with_suffix("").parts)
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def module_info(path: str, relpath: str, tree: ast.Module, reported: bool) -> ModuleInfo:
    """The module-scope facts the exposure analysis needs (imports, __all__,
    top-level definitions, `name = other` aliases)."""
    dotted = dotted_name(relpath)
    is_package = Path(relpath).stem == "__init__"
    info = ModuleInfo(path, dotted, not module_is_private(relpath), reported)
    package = dotted if is_package else dotted.rpartition(".")[0]
    for node in walk_scope(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            info.toplevel.setdefault(node.name, node.lineno)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                info.imports.append(Import(alias.name, "", alias.asname or "", node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".") if package else []
                up = up[:len(up) - (node.level - 1)] if node.level > 1 else up
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                info.imports.append(Import(base, alias.name, alias.asname or "", node.lineno))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if any(is_name(t, "__all__") for t in targets) and value is not None:
                info.all_names = (info.all_names or set()) | {
                    n.value for n in ast.walk(value)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            elif isinstance(value, (ast.Name, ast.Attribute)):
                other = callee_name(value)
                for t in targets:
                    if isinstance(t, ast.Name) and other:
                        info.aliases.append((t.id, other, node.lineno))
    return info


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
        self.super_names = {"super"} | self._super_aliases(tree)
        self.public_sentinels = self._exported(tree)
        self.candidates: list[Candidate] = []
        self.scope: list[tuple[str, ast.AST]] = []   # ("class"|"def", node)
        self.module = module_info(path, relpath, tree, reported)
        index.modules.append(self.module)

    @staticmethod
    def _module_sentinels(tree: ast.Module) -> set[str]:
        found: set[str] = set()
        for stmt in tree.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.Call) and not stmt.value.args
                    and not stmt.value.keywords and is_name(stmt.value.func, "object")):
                found.add(stmt.targets[0].id)
        return found

    @staticmethod
    def _super_aliases(tree: ast.Module) -> set[str]:
        """Module-level names bound to the builtin super (unittest.mock's
        `_safe_super = super`)."""
        return {stmt.targets[0].id for stmt in tree.body
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name) and is_name(stmt.value, "super")}

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
            if any(is_name(t, "__all__") for t in targets):
                names.update(n.value for n in ast.walk(value)
                             if isinstance(n, ast.Constant) and isinstance(n.value, str))
        return names

    # -- traversal

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.index.bases.setdefault(node.name, set()).update(
            n for n in (callee_name(b) for b in node.bases) if n)
        self.index.class_defs.setdefault(node.name, []).append(f"{self.path}:{node.lineno}")
        methods = self.index.methods.setdefault(node.name, {})
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.setdefault(stmt.name, f"{self.path}:{stmt.lineno}")
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
                self.index.alias_of.setdefault(alias.asname, set()).add(alias.name)
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
        if isinstance(arg, ast.Name) and arg.id in self._none_locals():
            return ArgInfo("none-var", NONE, arg.id)
        func = self._enclosing_function()
        if isinstance(arg, ast.Name) and func is not None:
            params = [p.name for p in params_of(func.args)]
            if self._receiver_is_self(params[0] if params else ""):
                params = params[1:]     # self/cls is not an argument of the caller's
            if arg.id in params:
                # the caller's own argument: matters when an override passes it on
                return ArgInfo("param", "", arg.id)
        return None

    def _none_locals(self) -> set[str]:
        """Local names of the enclosing function that some statement of it sets to
        None (`lineno = None` in one branch, a value in another): passing one may
        pass None, wherever the assignment is."""
        func = self._enclosing_function()
        if func is None:
            return set()
        cached = getattr(func, "_lbd_none_locals", None)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        out: set[str] = set()
        for node in walk_scope(func.body):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            if isinstance(value, ast.Constant) and value.value is None:
                out.update(t.id for t in targets if isinstance(t, ast.Name))
        func._lbd_none_locals = out  # type: ignore[union-attr]
        return out

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
        for p in params_of(func.args):
            marker = marker_of(p.default, sentinels)
            if marker is not None:
                out[p.name] = (marker, 0)
        if out:
            markers = {k: v[0] for k, v in out.items()}
            params = {p.name: p for p in params_of(func.args)}
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
            obj, form, obj_class = "", "plain", ""
            func = self._enclosing_function()
            if isinstance(node.func, ast.Attribute):
                base = node.func.value
                form = "expr"
                if isinstance(base, ast.Name):
                    obj, form = base.id, "attr"
                    if self._receiver_is_self(base.id):
                        form = "self"
                    else:
                        obj_class = self._instance_class(base.id)
                elif (isinstance(base, ast.Call) and isinstance(base.func, ast.Name)
                      and base.func.id in self.super_names):
                    obj, form = "super", "super"
                elif isinstance(base, ast.Attribute):
                    obj = base.attr         # `mod.Class.m(...)`: form stays "expr"
            cls = next((n.name for k, n in reversed(self.scope)  # type: ignore[attr-defined]
                        if k == "class"), "")
            self.index.calls.setdefault(name, []).append(
                CallSite(self.path, node.lineno, tuple(positional), tuple(keywords), obj, cls,
                         star_at, double_star, form, obj_class,
                         func.name if func is not None else ""))

    def _receiver_is_self(self, name: str) -> bool:
        """`name` is the first parameter of a method (self, cls) of the class the
        call is in, and the method does not rebind it."""
        if len(self.scope) < 2 or self.scope[-1][0] != "def" or self.scope[-2][0] != "class":
            return False
        func = self.scope[-1][1]
        if isinstance(func, ast.Lambda):
            return False
        decorators = {decorator_name(d) for d in func.decorator_list}  # type: ignore[attr-defined]
        if "staticmethod" in decorators:
            return False
        positional = [*func.args.posonlyargs, *func.args.args]  # type: ignore[attr-defined]
        if not positional or positional[0].arg != name:
            return False
        bound, _ = bound_names(func.body)  # type: ignore[attr-defined]
        return name not in bound

    def _instance_class(self, name: str) -> str:
        """The class `name` holds when every binding of it in the enclosing
        function is `name = C(...)` with one and the same C (else "")."""
        func = self._enclosing_function()
        if func is None:
            return ""
        cached = getattr(func, "_lbd_instances", None)
        if cached is None:
            classes: dict[str, set[str]] = {}
            for sub in walk_scope(func.body):
                targets: list[ast.expr] = []
                if isinstance(sub, ast.Assign):
                    targets, value = sub.targets, sub.value
                elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
                    targets, value = [sub.target], sub.value  # type: ignore[assignment]
                elif isinstance(sub, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                                      ast.NamedExpr, ast.ExceptHandler, ast.Import,
                                      ast.ImportFrom)):
                    # any other binding: the class is not known (the whole
                    # statement is walked: a superset of what it binds)
                    for t in ast.walk(sub):
                        if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store):
                            classes.setdefault(t.id, set()).add("")
                    if isinstance(sub, ast.ExceptHandler) and sub.name:
                        classes.setdefault(sub.name, set()).add("")
                    continue
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            made = (value.func.id if isinstance(value, ast.Call)
                                    and isinstance(value.func, ast.Name)
                                    and len(targets) == 1 and t is n else "")
                            classes.setdefault(n.id, set()).add(made)
            for p in params_of(func.args):
                classes.setdefault(p.name, set()).add("")
            _, declared = bound_names(func.body)
            for name in declared:
                classes.setdefault(name, set()).add("")
            cached = {k: next(iter(v)) for k, v in classes.items() if len(v) == 1}
            func._lbd_instances = cached  # type: ignore[union-attr]
        return cached.get(name, "")  # type: ignore[no-any-return]

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
        params = params_of(func.args)
        by_name = {p.name: p for p in params}
        markers: dict[str, str] = {}
        for p in params:
            marker = marker_of(p.default, sentinels)
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
            self._annotation(cand, func, p.arg, stmt)
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
            if reads_locals(expr):
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

    def _annotation(self, cand: Candidate, func: ast.FunctionDef | ast.AsyncFunctionDef,
                    arg: ast.arg, check: ast.stmt) -> None:
        """Plan `T | None` -> `T` when None was only the marker: the default is
        None, EXPR is not None, and nothing else in the body compares the
        parameter with None or assigns None to it."""
        ann = arg.annotation
        if ann is None or cand.marker != NONE:
            return
        if isinstance(cand.expr_node, ast.Constant) and cand.expr_node.value is None:
            return
        for node in walk_scope(func.body):
            if node is check:
                continue
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if (any(is_name(x, cand.parameter) for x in sides)
                        and any(isinstance(x, ast.Constant) and x.value is None
                                for x in sides)
                        and not _inside(node, check)):
                    return
            if isinstance(node, ast.Assign) and not _inside(node, check):
                if (isinstance(node.value, ast.Constant) and node.value.value is None
                        and any(is_name(t, cand.parameter) for t in node.targets)):
                    return

        def segment(node: ast.expr) -> str:
            return self.pos.segment(self.pos.start(node), self.pos.end(node))

        new = without_none(ann, segment)
        if new is not None:
            cand.annotation_change = (segment(ann), new)
            cand.ann_start, cand.ann_end = self.pos.start(ann), self.pos.end(ann)

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


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(sub is node for sub in ast.walk(outer))


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
