"""Tests of tools.lbdefaults (run with the patched interpreter: `=>` must parse).

The behaviour tests exec the original and the rewritten fixture sources and
compare what every rewritten function returns (or raises) for a set of calls
listed in each fixture's CALLS table.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tools.lbdefaults import analysis, rewrite
from tools.lbdefaults.cli import SelectionError, analyse, choose
from tools.paths import BASELINE_PYTHON, PYTHON

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "lbdefaults_fixtures"

pytestmark = pytest.mark.skipif(not hasattr(ast, "LateDefault"),
                                reason="needs the PEP 671 interpreter")

SAFE, REVIEW, UNSAFE = analysis.SAFE, analysis.REVIEW, analysis.UNSAFE

# (function, parameter) -> (verdict, a substring of the reason)
EXPECTED: dict[tuple[str, str], tuple[str, str]] = {
    # safe_cases.py
    ("_if_basic", "hi"): (SAFE, ""),
    ("_ifexp", "n"): (SAFE, ""),
    ("_ifexp_not", "n"): (SAFE, ""),
    ("_sentinel", "x"): (SAFE, ""),
    ("_multi", "b"): (SAFE, ""),
    ("_multi", "c"): (SAFE, ""),
    ("_annotated", "b"): (SAFE, ""),
    ("_kwonly", "key"): (SAFE, ""),
    ("_posonly", "b"): (SAFE, ""),
    ("_oneline", "x"): (SAFE, ""),
    ("_multiline", "x"): (SAFE, ""),
    ("_only_check", "x"): (SAFE, ""),
    ("_tuple_expr", "x"): (SAFE, ""),
    ("_unicode", "t"): (SAFE, ""),
    ("_Box._get", "key"): (SAFE, ""),
    ("_Box._static", "b"): (SAFE, ""),
    # a public class: users can subclass it and pass None to any of its methods
    ("Box._peek", "n"): (REVIEW, "public method"),
    ("_gen", "n"): (SAFE, ""),
    ("_coro", "x"): (SAFE, ""),
    ("_outer.<locals>.inner", "b"): (SAFE, ""),
    # _private_mod.py: public names in a private module
    ("helper", "items"): (SAFE, ""),
    ("helper", "count"): (SAFE, ""),
    # public_cases.py
    ("public_func", "x"): (REVIEW, "public function"),
    ("_uses_public_sentinel", "x"): (REVIEW, "sentinel MISSING is importable"),
    ("Public.__init__", "items"): (REVIEW, "public method"),
    ("Public.method", "n"): (REVIEW, "public method"),
    ("Public.__exit__", "exc_type"): (UNSAFE, "reads later parameter 'exc'"),
    # trap_cases.py
    ("_caller_none", "x"): (UNSAFE, "caller passes None at"),
    ("_caller_kw", "x"): (UNSAFE, "caller passes None at"),
    ("_conditional_none", "x"): (UNSAFE, "caller passes None at"),
    ("_forwarded", "x"): (UNSAFE, "forwards its parameter 'y'"),
    ("_later", "lo"): (UNSAFE, "reads later parameter 'hi'"),
    ("_reassigned", "x"): (UNSAFE, "parameter reassigned at line"),
    ("_or_form", "x"): (UNSAFE, "differs for falsy values"),
    ("_gen_two", "a"): (SAFE, ""),
    ("_gen_two", "b"): (UNSAFE, "timing"),
    ("_rebinds", "x"): (UNSAFE, "body rebinds 'helper2'"),
    ("_rebind_before", "x"): (UNSAFE, "body rebinds 'limit'"),
    ("_out_of_order", "b"): (SAFE, ""),
    ("_out_of_order", "a"): (UNSAFE, "after the check of later parameter 'b'"),
    ("_after_unsafe", "a"): (UNSAFE, "reads later parameter 'b'"),
    ("_after_unsafe", "b"): (UNSAFE, "which stays in the body"),
    ("_await_expr", "x"): (UNSAFE, "`await`"),
    ("_locals_expr", "x"): (UNSAFE, "locals()"),
    ("_shares_line", "x"): (REVIEW, "shares its line"),
    ("_escapes", "x"): (REVIEW, "used as a value"),
    ("_star_caller", "x"): (REVIEW, "unpacks *args"),
    ("_decorated", "x"): (REVIEW, "decorated with @deco"),
    # found by make dogfood (unittest.mock): a mixin forwards None through super's alias
    ("_Linked.__init__", "_link"): (UNSAFE, "forwards its parameter '_link'"),
    # found by make dogfood (bdb, pdb): a variable set to None in one branch
    ("_Stepper._set_until", "lineno"): (UNSAFE, "passes 'lineno', which it may set to None"),
    # exposed/: each way a private module or name reaches users (tools.lbdefaults.exposure)
    ("reexported", "x"): (REVIEW, "re-exported as `reexported` by "),
    ("not_reexported", "x"): (SAFE, ""),
    ("via_module", "x"): (REVIEW, "imports `_modimported` from `exposed`"),
    ("via_star", "x"): (REVIEW, "imports * from `exposed._starred`"),
    ("Translator.translate", "lang"): (REVIEW, "imports `_impl` from `exposed`"),
    ("Engine.start", "gear"): (REVIEW, "base of the exposed class `PublicEngine`"),
    ("Engine._tune", "rpm"): (REVIEW, "base of the exposed class `PublicEngine`"),
    ("_Base._hook", "n"): (REVIEW, "base of the exposed class `Api`"),
    ("_aliased", "x"): (REVIEW, "public alias `convenient = _aliased`"),
    ("_listed", "x"): (REVIEW, "`_listed` is listed in __all__"),
    # exposed/_overrides.py: overrides are callers; callers resolved by receiver
    ("_Renderer.render", "width"): (UNSAFE, "forwards its parameter 'width'"),
    ("_Formatter.format", "fill"): (UNSAFE, "override _Strict.format at "),
    ("_Cache.get", "key"): (SAFE, ""),
    ("_Store.lookup", "key"): (UNSAFE, "(receiver `obj` not resolved"),
}


def run_tool(*args: str, cwd: Path = REPO,
             python: str = sys.executable) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "tools.lbdefaults", *args], capture_output=True,
                          text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=120)


@pytest.fixture(scope="module")
def results() -> list[analysis.FileResult]:
    found, failed = analyse([FIXTURES])
    assert failed == 0
    return found


def by_key(results: list[analysis.FileResult]) -> dict[tuple[str, str], analysis.Candidate]:
    out = {}
    for r in results:
        for c in r.candidates:
            key = (c.function, c.parameter)
            assert key not in out, f"duplicate fixture name {key}"
            out[key] = c
    return out


# --------------------------------------------------------------------------
# verdicts


def test_every_candidate_found_with_its_verdict(results: list[analysis.FileResult]) -> None:
    cands = by_key(results)
    assert set(cands) == set(EXPECTED)
    wrong = []
    for key, (verdict, reason) in EXPECTED.items():
        c = cands[key]
        if c.verdict != verdict or reason not in c.reason:
            wrong.append(f"{key}: {c.verdict} — {c.reason}")
    assert not wrong, "\n".join(wrong)


def test_shapes(results: list[analysis.FileResult]) -> None:
    cands = by_key(results)
    assert cands[("_if_basic", "hi")].shape == analysis.SHAPE_IF_NONE
    assert cands[("_ifexp", "n")].shape == analysis.SHAPE_IFEXP_NONE
    assert cands[("_ifexp_not", "n")].shape == analysis.SHAPE_IFEXP_NONE
    assert cands[("_sentinel", "x")].shape == analysis.SHAPE_IF_SENTINEL
    assert cands[("_or_form", "x")].shape == analysis.SHAPE_OR
    assert cands[("_multiline", "x")].expr == "( a + 2 )"


def test_non_candidates_are_ignored(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "def _a(x):\n    if x is None:\n        x = 1\n    return x\n"          # no default
        "def _b(x=0):\n    if x is None:\n        x = 1\n    return x\n"        # default not None
        "def _c(x=None):\n    if x is None:\n        x = 1\n    else:\n        x = 2\n"
        "def _d(x=None):\n    if x == None:\n        x = 1\n"
        "def _e(x=None):\n    if x is None:\n        y = 1\n"
        "def _f(x=lambda: None):\n    return x\n", encoding="utf-8")
    found, _ = analyse([src])
    assert [c.function for r in found for c in r.candidates] == []


# --------------------------------------------------------------------------
# behaviour of the rewritten fixtures


def _call(obj: Any) -> Any:
    if inspect.isgenerator(obj):
        return list(obj)
    if inspect.iscoroutine(obj):
        try:
            obj.send(None)
        except StopIteration as stop:
            return stop.value
        raise AssertionError("coroutine did not finish")
    return obj


def _outcome(ns: dict[str, Any], qualname: str, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> tuple[str, Any]:
    head, *rest = qualname.split(".")
    obj = ns[head]
    if rest:
        target = obj() if isinstance(obj, type) else obj
        for part in rest:
            target = getattr(target, part)
        obj = target
    try:
        return "ok", _call(obj(*args, **kwargs))
    except Exception as exc:   # noqa: BLE001 - the type is what is compared
        return "raises", type(exc)


def _exec(source: str, name: str) -> dict[str, Any]:
    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module.__dict__


@pytest.mark.parametrize("name", ["safe_cases.py", "trap_cases.py", "_private_mod.py",
                                  "_overrides.py"])
def test_rewritten_fixture_behaves_identically(results: list[analysis.FileResult],
                                               name: str) -> None:
    result = next(r for r in results if r.path.endswith(name))
    assert result.text is not None
    new = rewrite.rewrite_text(result.text, result.candidates)
    rewrite.check_compiles(new, name, [c for c in result.candidates if c.verdict == SAFE])
    original, rewritten = _exec(result.text, "orig"), _exec(new, "new")
    calls: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = original["CALLS"]
    # every rewritten function is exercised (nested ones through their outer function)
    for c in result.candidates:
        if c.verdict == SAFE:
            assert c.function.split(".<locals>")[0] in calls, c.function
    checked = 0
    for qualname, combos in calls.items():
        for args, kwargs in combos:
            want = _outcome(original, qualname, args, kwargs)
            got = _outcome(rewritten, qualname, args, kwargs)
            assert got == want, f"{qualname}(*{args}, **{kwargs}): {got} != {want}"
            checked += 1
    assert checked >= len(calls)


def test_rewritten_functions_have_late_defaults(results: list[analysis.FileResult]) -> None:
    result = next(r for r in results if r.path.endswith("safe_cases.py"))
    ns = _exec(rewrite.rewrite_text(result.text or "", result.candidates), "new")
    assert ns["_if_basic"].__defaults_extra__ == ("len(a)",)
    assert ns["_kwonly"].__kwdefaults_extra__ == {"key": "str(a)"}
    assert ns["_posonly"].__defaults_extra__ == ("[a]",)
    assert ns["_tuple_expr"].__defaults_extra__ == ("(1, 2)",)


def test_forced_rewrite_of_traps_changes_behaviour(results: list[analysis.FileResult]) -> None:
    """The unsafe verdicts are not over-cautious: forcing these rewrites breaks callers."""
    result = next(r for r in results if r.path.endswith("trap_cases.py"))
    forced = [dataclasses.replace(c, verdict=SAFE) for c in result.candidates
              if c.function in ("_caller_none", "_or_form", "_Linked.__init__",
                                "_Stepper._set_until")]
    new = rewrite.rewrite_text(result.text or "", forced)
    ns_old, ns_new = _exec(result.text or "", "o"), _exec(new, "n")
    assert ns_old["_caller_none"](None) == [] and ns_new["_caller_none"](None) is None
    assert ns_old["_or_form"](0) == [] and ns_new["_or_form"](0) == 0
    assert ns_old["_LinkedChild"]("p").link == "p" and ns_new["_LinkedChild"]("p").link is None
    assert ns_old["_Stepper"]().do_until("") == 1 and ns_new["_Stepper"]().do_until("") is None


# --------------------------------------------------------------------------
# rewriting details


def test_rewrite_keeps_everything_else(results: list[analysis.FileResult]) -> None:
    result = next(r for r in results if r.path.endswith("safe_cases.py"))
    old = result.text or ""
    new = rewrite.rewrite_text(old, result.candidates)
    # None was only the marker: the annotation loses it (unless told to keep it)
    assert "def _annotated(a: int, b: list[int] => [a]) -> list[int]:" in new
    kept = rewrite.rewrite_text(old, result.candidates, annotations=False)
    assert "def _annotated(a: int, b: list[int] | None => [a]) -> list[int]:" in kept
    assert "def _posonly(a, b=>[a], /):" in new
    assert "def _kwonly(a, *, key=>str(a)):" in new
    assert "def _tuple_expr(x=>(1, 2)):" in new
    assert 'def _unicode(s="é", t=>s + "ü"):' in new
    assert "def _sentinel(x=>[]):" in new
    assert "def _only_check(x=>1):\n    pass\n" in new
    assert "if hi is None" not in new and "is not None" not in new
    # the lines not involved in a rewrite are untouched, in order
    touched = {c.def_line for c in result.candidates} | {
        line for c in result.candidates
        for line in range(c.stmt_start.line, c.stmt_end.line + 1)}
    kept = [line for n, line in enumerate(analysis.split_lines(old), 1) if n not in touched]
    it = iter(analysis.split_lines(new))
    assert all(any(line == other for other in it) for line in kept)


def test_rewrite_preserves_crlf_and_encoding(tmp_path: Path) -> None:
    src = tmp_path / "crlf.py"
    text = ("# -*- coding: latin-1 -*-\r\n"
            "def _f(s='\xe9', x=None):\r\n"
            "    if x is None:\r\n"
            "        x = s * 2\r\n"
            "    return x\r\n"
            "_f('a')\r\n")
    src.write_bytes(text.encode("latin-1"))
    found, _ = analyse([src])
    [result] = found
    assert [c.verdict for c in result.candidates] == [SAFE]
    n = rewrite.write_file(src, str(src), result.text or "", result.encoding,
                           result.candidates)
    assert n == 1
    assert src.read_bytes() == ("# -*- coding: latin-1 -*-\r\n"
                                "def _f(s='\xe9', x=>s * 2):\r\n"
                                "    return x\r\n"
                                "_f('a')\r\n").encode("latin-1")


# --------------------------------------------------------------------------
# command line


def test_help_mentions_why_not_in_patch_series() -> None:
    proc = run_tool("--help")
    assert proc.returncode == 0
    assert "clean upstream proposal" in proc.stdout
    assert "--census-rst" in proc.stdout


def test_text_report() -> None:
    proc = run_tool(str(FIXTURES.relative_to(REPO)))
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "_caller_none(x)" in x)
    assert line.startswith("tests/lbdefaults_fixtures/trap_cases.py:")
    assert ": unsafe — caller passes None at " in line and line.endswith("if-none: x=>[]")


def test_json() -> None:
    proc = run_tool("--json", str(FIXTURES))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert len(data) == len(EXPECTED)
    for item in data:
        assert {"path", "line", "function", "parameter", "shape", "verdict", "reason",
                "expr"} <= set(item)
        verdict, reason = EXPECTED[(item["function"], item["parameter"])]
        assert item["verdict"] == verdict and reason in item["reason"]


def test_diff() -> None:
    proc = run_tool("--diff", str(FIXTURES / "safe_cases.py"))
    assert proc.returncode == 0, proc.stderr
    assert "+def _if_basic(a, hi=>len(a)):" in proc.stdout
    assert "-    if hi is None:" in proc.stdout
    assert proc.stdout.startswith("--- a/")


def test_write_on_a_copy(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES, tree)
    before = {p.name: p.read_bytes() for p in tree.glob("*.py")}
    proc = run_tool("--write", str(tree))
    assert proc.returncode == 0, proc.stderr
    assert "rewrote" in proc.stderr
    assert (tree / "public_cases.py").read_bytes() == before["public_cases.py"]
    for name in ("safe_cases.py", "trap_cases.py", "_private_mod.py"):
        new = (tree / name).read_text(encoding="utf-8")
        assert new != before[name].decode()
        compile(new, name, "exec")
    # a second run finds only the generator check that has now become the
    # first statement of its body (the tool is conservative about generators)
    again = run_tool("--json", "--verdict", "safe", str(tree))
    assert [(d["function"], d["parameter"]) for d in json.loads(again.stdout)] == [
        ("_gen_two", "b")]


def test_write_refuses_a_rewrite_that_does_not_compile(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    text = "def _f(x=None):\n    if x is None:\n        x = []\n    return x\n"
    src.write_text(text, encoding="utf-8")
    found, _ = analyse([src])
    [result] = found

    def broken(text: str, cands: Any) -> str:
        return rewrite.rewrite_text(text, cands).replace("return x", "return x)")

    with pytest.raises(rewrite.RewriteError, match="does not compile"):
        rewrite.write_file(src, str(src), text, result.encoding, result.candidates,
                           rewriter=broken)
    assert src.read_text(encoding="utf-8") == text
    assert list(tmp_path.iterdir()) == [src]        # no temporary file left behind


def test_write_with_an_interpreter_without_late_defaults(tmp_path: Path) -> None:
    """A stock interpreter cannot compile `=>`: the file is left alone, exit 1."""
    stock = shutil.which("python3")
    if stock is None:
        pytest.skip("no python3 on PATH")
    probe = subprocess.run([stock, "-c", "import ast, sys; print(sys.version_info >= (3, 11) "
                            "and not hasattr(ast, 'LateDefault'))"],
                           capture_output=True, text=True)
    if probe.stdout.strip() != "True":
        pytest.skip("python3 on PATH is not a stock 3.11+")
    src = tmp_path / "m.py"
    text = "def _f(x=None):\n    if x is None:\n        x = []\n    return x\n"
    src.write_text(text, encoding="utf-8")
    proc = run_tool("--write", str(src), python=stock)
    assert proc.returncode == 1
    assert "not rewritten" in proc.stderr
    assert src.read_text(encoding="utf-8") == text


def test_unparsable_files_are_reported_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def f(:\n", encoding="utf-8")
    (tmp_path / "good.py").write_text(
        "def _g(x=None):\n    if x is None:\n        x = 1\n    return x\n", encoding="utf-8")
    proc = run_tool("--json", str(tmp_path))
    assert proc.returncode == 0
    assert "bad.py: skipped: SyntaxError" in proc.stderr
    assert [d["function"] for d in json.loads(proc.stdout)] == ["_g"]


def test_exclude_and_callers_from(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "test").mkdir()
    (tmp_path / "lib" / "m.py").write_text(
        "def _g(x=None):\n    if x is None:\n        x = 1\n    return x\n", encoding="utf-8")
    (tmp_path / "lib" / "test" / "t.py").write_text(
        "from m import _g\n_g(None)\n", encoding="utf-8")
    lib = str(tmp_path / "lib")
    plain = json.loads(run_tool("--json", "--exclude", "test", lib).stdout)
    assert [d["verdict"] for d in plain] == [SAFE]
    ctx = json.loads(run_tool("--json", "--exclude", "test", "--callers-from",
                              str(tmp_path / "lib" / "test"), lib).stdout)
    assert [d["verdict"] for d in ctx] == [UNSAFE]
    assert "t.py:2" in ctx[0]["reason"]


def test_census_and_rst(tmp_path: Path) -> None:
    rst = tmp_path / "census.rst"
    proc = run_tool("--census", "--census-rst", str(rst), str(FIXTURES))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"candidates: {len(EXPECTED)}" in out
    n_safe = sum(v == SAFE for v, _ in EXPECTED.values())
    assert f"  safe         {n_safe:>7}" in out
    assert "x = x or EXPR" in out and "len(<param>)" in out
    text = rst.read_text(encoding="utf-8")
    assert text.startswith("Produced with ``./python -m tools.lbdefaults --census")
    assert ".. list-table:: Candidates by verdict" in text
    assert "``<param>.<attr>``" in text


# --------------------------------------------------------------------------
# choosing other rewrites than the safe ones (--apply, --select; make dogfood)


def test_choose_by_verdict(results: list[analysis.FileResult]) -> None:
    def chosen(apply: set[str]) -> set[tuple[str, str]]:
        return {(c.function, c.parameter) for cs in choose(results, apply).values() for c in cs}

    assert chosen({SAFE}) == {k for k, (v, _) in EXPECTED.items() if v == SAFE}
    assert chosen({SAFE, REVIEW}) == {k for k, (v, _) in EXPECTED.items() if v != UNSAFE}
    assert chosen({REVIEW}) == {k for k, (v, _) in EXPECTED.items() if v == REVIEW}


def test_choose_a_selection(results: list[analysis.FileResult]) -> None:
    cands = by_key(results)
    pick = [cands[("_multi", "b")], cands[("_multi", "c")], cands[("public_func", "x")]]
    selection = [c.to_json() for c in pick]
    got = choose(results, {SAFE, REVIEW}, selection)
    assert sorted((c.function, c.parameter) for cs in got.values() for c in cs) == [
        ("_multi", "b"), ("_multi", "c"), ("public_func", "x")]
    # a listed candidate whose verdict is not applied is an error, not skipped
    with pytest.raises(SelectionError, match=r"public_func\(x\) is needs review, not one of"):
        choose(results, {SAFE}, selection)
    # a check without the check before it in the same body would run first
    with pytest.raises(SelectionError, match=r"_multi\(c\) follows the check of 'b'"):
        choose(results, {SAFE}, [cands[("_multi", "c")].to_json()])
    gone = dict(cands[("_if_basic", "hi")].to_json(), line=1)
    with pytest.raises(SelectionError, match=r"no candidate for parameter 'hi' there"):
        choose(results, {SAFE}, [gone])
    with pytest.raises(SelectionError, match="needs path, line, parameter"):
        choose(results, {SAFE}, [{"path": "x.py"}])


def test_write_with_apply_and_select(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES, tree)
    listed = json.loads(run_tool("--json", str(tree)).stdout)
    pick = [d for d in listed if d["function"] in ("public_func", "_if_basic")]
    select = tmp_path / "select.json"
    select.write_text(json.dumps(pick))
    refused = run_tool("--write", "--select", str(select), str(tree))
    assert refused.returncode == 2 and "is needs review, not one of --apply" in refused.stderr
    assert "rewrote" not in refused.stderr
    proc = run_tool("--write", "--apply", "safe,needs-review", "--select", str(select), str(tree))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("rewrote 1 default(s)") == 2
    public = (tree / "public_cases.py").read_text(encoding="utf-8")
    assert "def public_func(x=>[]):" in public
    safe = (tree / "safe_cases.py").read_text(encoding="utf-8")
    assert "def _if_basic(a, hi=>len(a)):" in safe and "def _ifexp(a, n=None):" in safe
    bad = run_tool("--diff", "--apply", "safe,risky", str(tree))
    assert bad.returncode == 2 and "unknown verdict(s) risky" in bad.stderr


# --------------------------------------------------------------------------
# exposure, overrides and evidence (issue: a safe verdict that is never wrong)


def test_forced_rewrite_through_a_subclass_changes_behaviour(
        results: list[analysis.FileResult]) -> None:
    """The subclass that forwards None to super(): rewriting the base would
    change what the subclass returns, and the verdict says unsafe."""
    result = next(r for r in results if r.path.endswith("_overrides.py"))
    forced = [dataclasses.replace(c, verdict=SAFE) for c in result.candidates
              if c.function in ("_Renderer.render", "_Formatter.format")]
    new = rewrite.rewrite_text(result.text or "", forced)
    old_ns, new_ns = _exec(result.text or "", "o"), _exec(new, "n")
    assert old_ns["_Wrapped"]().render("a") == "[" + "a".center(8) + "]"
    with pytest.raises(TypeError):
        new_ns["_Wrapped"]().render("a")
    assert old_ns["_Strict"]().format("a", None) == "*a*"
    with pytest.raises(TypeError):
        new_ns["_Strict"]().format("a", None)


def test_every_reason_carries_its_evidence() -> None:
    proc = run_tool("--json", str(FIXTURES))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for item in data:
        if item["verdict"] == SAFE:
            assert item["reasons"] == []
            continue
        assert item["reasons"], item
        for reason in item["reasons"]:
            assert reason["evidence"], reason
            for where in reason["evidence"]:
                path, _, line = where.rpartition(":")
                assert Path(path).is_file() and int(line) > 0, where
    by = {(d["function"], d["parameter"]): d for d in data}
    engine = by[("Engine.start", "gear")]["reasons"][0]
    assert engine["kind"] == "exposure"
    assert any(w.endswith("exposed/api.py:25") for w in engine["evidence"])  # class PublicEngine
    strict = by[("_Formatter.format", "fill")]["reasons"][0]
    assert strict["kind"] == "override" and strict["evidence"][0].endswith("_overrides.py:27")


def test_summary_counts_files_with_candidates() -> None:
    proc = run_tool(str(FIXTURES / "safe_cases.py"), str(FIXTURES / "public_cases.py"),
                    str(REPO / "tools" / "lbdefaults" / "__main__.py"))
    assert proc.returncode == 0, proc.stderr
    assert "in 2 files (3 scanned)" in proc.stderr


def test_exposure_needs_the_reported_tree(tmp_path: Path) -> None:
    """A test (--callers-from) that imports a private module does not make it public."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "_impl.py").write_text(
        "def helper(x=None):\n    if x is None:\n        x = 1\n    return x\n")
    (tmp_path / "tests" / "test_it.py").write_text("from lib._impl import helper\nhelper()\n")
    out = json.loads(run_tool("--json", "--callers-from", str(tmp_path / "tests"),
                              str(tmp_path / "lib")).stdout)
    assert [d["verdict"] for d in out] == [SAFE]
    # ... but a public module of the tree that imports it does
    (tmp_path / "lib" / "api.py").write_text("from ._impl import helper\n")
    out = json.loads(run_tool("--json", str(tmp_path / "lib")).stdout)
    assert [d["verdict"] for d in out] == [REVIEW]
    assert "re-exported as `helper` by " in out[0]["reason"]


# --------------------------------------------------------------------------
# annotations follow the rewrite


ANNOTATED = '''\
from typing import Optional, Union
import typing


def _pipe(s: str, width: int | None = None) -> str:
    if width is None:
        width = len(s)
    return s.ljust(width)


def _opt(s: str, width: Optional[int] = None) -> str:
    if width is None:
        width = len(s)
    return s.ljust(width)


def _union(s: str, fill: Union[str, bytes, None] = None) -> object:
    if fill is None:
        fill = s
    return fill


def _typing(s: str, width: "typing.Optional[int]" = None) -> str:
    if width is None:
        width = len(s)
    return s.ljust(width)


def _still_none(s: str, width: int | None = None) -> str:
    if width is None:
        width = len(s)
    return s.ljust(width) if width is not None else s


def _none_first(s: str, width: None | int = None) -> int:
    width = len(s) if width is None else width
    return width
'''


def _annotated(tmp_path: Path) -> tuple[Path, analysis.FileResult]:
    src = tmp_path / "_annotated_mod.py"
    src.write_text(ANNOTATED, encoding="utf-8")
    found, _ = analyse([src])
    return src, found[0]


def test_annotations_lose_the_marker_none(tmp_path: Path) -> None:
    _, result = _annotated(tmp_path)
    changes = {c.function: c.annotation_change for c in result.candidates}
    assert changes == {
        "_pipe": ("int | None", "int"),
        "_opt": ("Optional[int]", "int"),
        "_union": ("Union[str, bytes, None]", "Union[str, bytes]"),
        "_typing": None,            # a string annotation is left as it is
        "_still_none": None,        # the body still gives None a meaning
        "_none_first": ("None | int", "int"),
    }
    new = rewrite.rewrite_text(result.text or "", result.candidates)
    assert "def _pipe(s: str, width: int => len(s)) -> str:" in new
    assert "def _opt(s: str, width: int => len(s)) -> str:" in new
    assert "def _union(s: str, fill: Union[str, bytes] => s) -> object:" in new
    assert "def _still_none(s: str, width: int | None => len(s)) -> str:" in new
    rewrite.check_compiles(new, "m.py", [c for c in result.candidates if c.verdict == SAFE])


def test_write_reports_annotations_and_keep_annotations(tmp_path: Path) -> None:
    src, _ = _annotated(tmp_path)
    proc = run_tool("--write", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "_pipe(width): annotation `int | None` -> `int`" in proc.stderr
    assert "width: int => len(s)" in src.read_text(encoding="utf-8")
    src.write_text(ANNOTATED, encoding="utf-8")
    proc = run_tool("--write", "--keep-annotations", str(src))
    assert proc.returncode == 0, proc.stderr
    assert "annotation `" not in proc.stderr
    assert "width: int | None => len(s)" in src.read_text(encoding="utf-8")


PAD_LIB = '''\
def pad(s: str, width: int | None = None) -> str:
    if width is None:
        width = len(s) + 2
    return s.ljust(width)


def caller(s: str) -> str:
    return pad(s) + pad(s, 3)
'''

PAD_USER = '''\
from lib._text import pad

print(pad("a"), pad("a", 4))
print(pad("a", None))
'''


@pytest.fixture(scope="session")
def patched_mypy() -> Path:
    """A venv of ./python with our patched mypy alone (from ecosystem/patched/mypy, as
    tools.ecosystem builds it; the wheel is cached per user, so this is quick
    once `make ecosystem` or tests/test_third_party.py has built it)."""
    from tools import ecosystem, paths
    from tools.common import ToolError

    mypy = ecosystem.load_tool(ecosystem.THIRD_PARTY / "mypy")
    layout = ecosystem.Layout(root=paths.BUILD / "lbdefaults-mypy")
    try:
        python, _ = ecosystem.prepare_venv(paths.PYTHON, "patched", [mypy], [], layout)
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    return python


def test_mypy_reports_a_caller_that_passes_none_after_the_rewrite(
        tmp_path: Path, patched_mypy: Path) -> None:
    """The annotation change is the migration's safety net: the rewritten file
    type-checks, and mypy flags a caller outside the scanned tree that still
    passes None (with --keep-annotations it would not)."""
    from tools.common import scrubbed_env

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "_text.py").write_text(PAD_LIB)
    (tmp_path / "user.py").write_text(PAD_USER)

    def mypy(*files: str) -> subprocess.CompletedProcess[str]:
        # as ecosystem/patched/mypy/probe.py runs it: the parser that uses the
        # interpreter's ast, and the experimental feature switched on
        return subprocess.run([str(patched_mypy), "-m", "mypy", "--no-native-parser",
                               "--enable-incomplete-feature=LateBoundDefaults",
                               "--config-file=", "--no-incremental", "--strict",
                               "--no-error-summary", *files],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=scrubbed_env(), timeout=300)

    proc = run_tool("--write", "--exclude", "user.py", str(lib))
    assert proc.returncode == 0 and "annotation `int | None` -> `int`" in proc.stderr
    assert "def pad(s: str, width: int => len(s) + 2) -> str:" in (lib / "_text.py").read_text()
    checked = mypy("lib/_text.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    user = mypy("user.py")
    assert user.returncode == 1
    assert user.stdout.strip().splitlines() == [
        'user.py:4: error: Argument 2 to "pad" has incompatible type "None"; expected "int"'
        "  [arg-type]"]
    # the same rewrite keeping `int | None`: the caller passing None goes unreported,
    # and the body, no longer narrowed by the check, does not type-check
    (lib / "_text.py").write_text(PAD_LIB)
    assert run_tool("--write", "--keep-annotations", str(lib)).returncode == 0
    kept = mypy("lib/_text.py", "user.py")
    assert kept.returncode == 1
    assert "user.py" not in kept.stdout
    assert 'lib/_text.py:2: error: Argument 1 to "ljust" of "str" has incompatible type ' \
        '"int | None"' in kept.stdout


# --------------------------------------------------------------------------
# make migrate-check: its pinned corpus and its report (the run itself needs
# PyPI and minutes: `make migrate-check`)


def test_migrate_corpus_is_pinned_and_probed() -> None:
    from tools.lbdefaults import migrate_check

    runner, libs = migrate_check.load_corpus(migrate_check.CORPUS)
    assert all("==" in r for r in runner)
    assert len(libs) >= 5 and len({lib.name for lib in libs}) == len(libs)
    for lib in libs:
        assert len(lib.sha256) == 64 and int(lib.sha256, 16) >= 0, lib.name
        assert lib.tests and lib.package
        for key, probe in [*lib.probes.items(), *lib.guards.items()]:
            assert key.endswith(")") and "(" in key, key
            assert ("code" in probe) != ("none" in probe), key
            if "code" in probe:
                compile(probe["code"], key, "exec")
    assert any(lib.guards for lib in libs)


def test_migrate_report_flags_new_failures_and_changed_probes(tmp_path: Path) -> None:
    from tools.lbdefaults import migrate_check as mc

    good = mc.Result("lib", "1.0", files=3, files_with=1, verdicts={SAFE: 1},
                     before=mc.Suite(passed=5), after=mc.Suite(passed=5),
                     rewrites=[{"where": "lib/m.py:3", "key": "_f(x)", "expr": "[]",
                                "annotation": "int | None -> int"}],
                     probes=[{"key": "_f(x)", "status": "same", "detail": "exit 0\n"}])
    bad = dataclasses.replace(good, name="other", after=mc.Suite(passed=4, failed=["t::a"]),
                              new_failures=["t::a"],
                              probes=[{"key": "_f(x)", "status": "changed", "detail": "d"}])
    assert good.ok and not bad.ok
    text = mc.render([good, bad], 1.0)
    assert "| lib 1.0 | 3 | 1 | 1 | 0 | 0 | 5/0/0 | 5/0/0 | 0 | same |" in text
    assert "NEW FAILURE after the rewrite: t::a" in text
    assert "annotation `int | None -> int`" in text
    missing = dataclasses.replace(good, probes=[{"key": "_f(x)", "status": "missing",
                                                 "detail": ""}])
    assert not missing.ok
    with pytest.raises(mc.ToolError, match="not a valid corpus file"):
        (tmp_path / "c.toml").write_text("[runner]\n")
        mc.load_corpus(tmp_path / "c.toml")


# --------------------------------------------------------------------------
# the other direction: `=>` written as the None idiom (the playground's Compare)

LATE = '''\
import asyncio


def bisect_right(a, x, lo=0, hi=>len(a), *, key=None):
    """The index after the last item <= x."""
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


class Stack:
    def push(self, item, items: list => [], /):
        items.append(item)
        return items


def one_line(a, n=>len(a)): return n


def only_doc(a, n=>(size := len(a))):
    "Nothing but this."


async def fetch(url, timeout=>await asyncio.sleep(0, 5),
                tries=>len(url)):
    global TRIES
    TRIES = tries
    return url, timeout, tries
'''

IDIOM = '''\
import asyncio


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    """The index after the last item <= x."""
    if hi is None:
        hi = len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


class Stack:
    def push(self, item, items: list = None, /):
        if items is None:
            items = []
        items.append(item)
        return items


def one_line(a, n=None):
    if n is None:
        n = len(a)
    return n


def only_doc(a, n=None):
    "Nothing but this."
    if n is None:
        n = (size := len(a))


async def fetch(url, timeout=None,
                tries=None):
    global TRIES
    if timeout is None:
        timeout = await asyncio.sleep(0, 5)
    if tries is None:
        tries = len(url)
    TRIES = tries
    return url, timeout, tries
'''


def test_to_sentinel_idiom_writes_each_late_default_as_the_idiom() -> None:
    stock = rewrite.to_sentinel_idiom(LATE)
    assert stock.text == IDIOM
    assert stock.rewritten == 6
    assert rewrite.count_late_defaults(stock.text) == 0
    # CRLF stays CRLF, and code without `=>` is left as it is
    crlf = rewrite.to_sentinel_idiom(LATE.replace("\n", "\r\n")).text
    assert crlf == IDIOM.replace("\n", "\r\n")
    assert rewrite.to_sentinel_idiom(IDIOM) == rewrite.SentinelVersion(IDIOM, 0)


def test_the_idiom_behaves_as_the_late_defaults_but_for_an_explicit_none() -> None:
    late, stock = _exec(LATE, "late"), _exec(IDIOM, "stock")
    for ns in (late, stock):
        assert ns["bisect_right"]([1, 2, 2, 3], 2) == 3
        assert ns["bisect_right"]([1, 2, 2, 3], 2, 0, 2) == 2
        first, second = ns["Stack"]().push(1), ns["Stack"]().push(2)
        assert (first, second) == ([1], [2]) and first is not second
        assert ns["one_line"]("abc") == 3
        assert ns["only_doc"]("abc") is None
        assert asyncio_run(ns["fetch"]("ab")) == ("ab", 5, 2)
        assert ns["TRIES"] == 2
    assert late["one_line"]("abc", None) is None     # `=>`: None is a value
    assert stock["one_line"]("abc", None) == 3       # the idiom: None is "left out"


def asyncio_run(coroutine: Any) -> Any:
    import asyncio
    return asyncio.run(coroutine)


def test_the_migration_rewrite_takes_the_idiom_back(tmp_path: Path) -> None:
    source = tmp_path / "_roundtrip.py"
    source.write_text(IDIOM)
    found, failed = analyse([source])
    assert failed == 0
    (result,) = found
    assert len(result.candidates) == 6
    back = rewrite.rewrite_all(IDIOM, result.candidates, annotations=False)
    # the one-line body comes back on a line of its own
    assert back == LATE.replace("def one_line(a, n=>len(a)): return n",
                                "def one_line(a, n=>len(a)):\n    return n")


@pytest.mark.parametrize("code, message", [
    ("def f(a=>b, b=>1):\n    return a\n", "line 1: the default of 'a' reads 'b' before"),
    ("def f(a, n=>n + 1):\n    return n\n", "the default of 'n' reads 'n' before"),
    ("double = lambda x, y=>x * 2: y\n", "line 1: a lambda's late-bound default"),
    ("def f(a=>1):\n    return a +\n", "the code does not compile: line 2: SyntaxError"),
    ("def f(a=>1):\n    global a\n", "the code does not compile: line 2: SyntaxError: "
     "name 'a' is parameter and global"),
    # the check would read `total` above the body's `global total`
    ("def f(a=>total):\n    if a:\n        global total\n",
     "the idiom's version would not compile: SyntaxError: name 'total' is used prior to "
     "global declaration"),
])
def test_to_sentinel_idiom_refuses_what_the_idiom_cannot_express(code: str,
                                                                 message: str) -> None:
    with pytest.raises(rewrite.RewriteError, match=re.escape(message)):
        rewrite.to_sentinel_idiom(code)


def test_the_idiom_compiles_on_the_fork_as_on_upstream(tmp_path: Path) -> None:
    """What the playground's Compare says: the stock version, run by the patched
    interpreter, is upstream 3.13's program. Its code objects are byte for byte those the
    unpatched baseline compiles, and it prints the same there."""
    if not BASELINE_PYTHON.exists():
        pytest.fail(f"{BASELINE_PYTHON} is missing: run `make baseline` (make test builds it)")
    program = tmp_path / "stock.py"
    program.write_text(IDIOM + "print(bisect_right([1, 2, 2, 3], 2), one_line('abc', None),"
                       " Stack().push(1), only_doc('ab'))\n")
    dump = ("import hashlib, marshal, runpy, sys\n"
            "source = open(sys.argv[1]).read()\n"
            "code = compile(source, 'stock.py', 'exec')\n"
            "print(hashlib.sha256(marshal.dumps(code)).hexdigest())\n"
            "runpy.run_path(sys.argv[1])\n")
    outputs = [subprocess.run([str(python), "-c", dump, str(program)], capture_output=True,
                              text=True, check=True, timeout=60).stdout
               for python in (PYTHON, BASELINE_PYTHON)]
    assert outputs[0] == outputs[1]
    assert outputs[0].splitlines()[1] == "3 3 [1] None"
