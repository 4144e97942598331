"""The semantic tests of Lib/test/test_late_bound_defaults.py, compiled (issues 25, 35).

A module is made of the test classes of CPython's test_late_bound_defaults.py
with only the tests chosen below (everything else in the file, its imports and
helpers, is kept as it is), compiled to C with the patched Cython (`cythonize`
and `build_ext`, as a user builds a pure-Python module), with the patched
mypyc and with the patched Nuitka (`python -m nuitka --module`), built against
the patched interpreter's headers, imported, and run with unittest: every
chosen test must run and pass on the compiled functions. The same module, not
compiled, runs first as the control.

The compilers come from build/ecosystem/venv (ecosystem/patched/cython,
ecosystem/patched/mypy and ecosystem/patched/nuitka, made by tools.ecosystem as for
test_third_party.py); Cython and mypyc build with setuptools, which that venv does not
have: it is installed, at the version ecosystem/constraints.txt pins, into a directory
of its own on PYTHONPATH. Nuitka builds with the SCons it ships.

Tests left out, and why:

- For all three compilers (but for what Nuitka's paragraph below takes back):
  the syntax and ast tests (SyntaxTests, ASTTests: the
  parser of the interpreter), ScopeTests.test_global_statement_applies_to_defaults
  (its function is made by exec, so it is never compiled), tracing and tracebacks
  (TracebackAndTracingTests: line events and pdb of bytecode), the late-default
  object itself (LateDefaultObjectTests) and the function attributes and code
  objects of the interpreter (BytecodeTests, CodeObjectTests, MismatchedCodeTests,
  ExtrasTests, ExtrasOddValuesTests, IntrospectionTests, and in BindingRuleTests
  the tests that build a function from its code object, replace its code or read
  its frame: test_function_from_code_alone, test_code_replace_keeps_late_defaults,
  test_omitted_parameter_holds_its_default_when_the_code_starts), LocalsTests
  (locals() and f_locals of a frame, as
  BindingRuleTests.test_later_late_default_objects_are_unbound_first reads
  locals() while the defaults run), and three tests
  of a behaviour that is not the late default's: a body local read before the
  body binds it and a deleted parameter
  (ScopeTests.test_body_local_is_unbound_when_defaults_run,
  UnboundTests.test_deleted_parameter_keeps_ordinary_message: Cython and mypyc
  reject or word the plain unbound local their own way), and the
  wording of a missing keyword-only argument
  (PassingSuppressesTests.test_missing_required_keyword_only_argument: each
  compiler's own argument parser).
- Cython: BindingRuleTests that assign __defaults__ or __kwdefaults__ to change
  the defaults (test_plain_value_assigned_is_an_early_default,
  test_ellipsis_is_an_ordinary_default,
  test_late_default_object_without_a_prologue_is_a_value,
  test_missing_default_is_a_missing_argument): a Cython function reads its
  defaults from C, not from those attributes (it warns that changing them has no
  effect), for early defaults as well.
- mypyc: a compiled function has no __defaults__ or __kwdefaults__ and shows no
  late-default object (ecosystem/patched/mypy/README.md), so every test that takes the
  late-default objects from them (BindingRuleTests,
  UnboundTests.test_mutual_references) is out; generators and coroutines with late
  defaults, and a lambda in a late default, are refused by mypyc with a clear error
  (GeneratorTests, StdlibInteropTests.test_contextmanager,
  NestedScopeTests.test_cell_parameters and
  test_lambda_comprehension_and_genexp_see_parameters); mypyc compiles no class
  statement inside a function ("Nested class definitions not supported"), which
  leaves out NestedScopeTests.test_method_self_super_and_class, the dataclass,
  abstract method and enum tests of StdlibInteropTests and
  SeedExampleTests.test_spaminate and test_calendar (methods with late defaults
  that read self, super() and __class__ are in mypy's run tests instead); and
  typing.get_type_hints() does not accept mypyc's nested functions, whatever
  their defaults (StdlibInteropTests.test_get_type_hints).
- Nuitka runs Cython's tests and more: a Nuitka function reads its defaults
  from __defaults__ and __kwdefaults__, and words a plain unbound local and a
  missing keyword-only argument as the interpreter does, so the tests of those
  that Cython leaves out run; so do the tests of SyntaxTests that define
  functions (rather than compile() source), of the late-default objects
  compiled code makes, and of __defaults_extra__ and __kwdefaults_extra__.
  A compiled function has no prologue in a code object: it tells which defaults
  are late by their type alone, which is the interpreter's rule for
  introspection too (inspect.signature() and the extras follow the late-default
  objects that the defaults hold, whatever the code), so the tests of
  IntrospectionTests and ExtrasTests.test_follow_the_defaults, which move
  objects between parameters and functions, run. Left out for Nuitka: the
  late-default object is made when the 'def' runs, not once per code object as
  a constant of the code (LateDefaultObjectTests.test_made_once_per_code_object);
  IntrospectionTests.test_bind_and_apply_defaults_agree_with_the_call builds a
  function from the compiled function's code object, which is not what runs
  (ecosystem/patched/nuitka/README.md).
"""

from __future__ import annotations

import ast
import json
import subprocess
import textwrap
from pathlib import Path

import pytest

from tools import ecosystem, paths
from tools.ecosystem.manifest import requirement_versions
from tools.common import ToolError, cache_dir, scrubbed_env

SOURCE = paths.TREE / "Lib" / "test" / "test_late_bound_defaults.py"

# The tests that both compilers run, by class.
COMMON: dict[str, tuple[str, ...]] = {
    "ScopeTests": (
        "test_evaluated_in_every_call_that_omits_it",
        "test_names_resolve_as_in_the_body",
        "test_nonlocal_statement_applies_to_defaults",
    ),
    "BindingOrderTests": (
        "test_left_to_right_whatever_the_keyword_order",
        "test_keyword_only_after_positional",
        "test_early_defaults_and_passed_arguments_come_first",
        "test_later_late_default_that_was_passed",
    ),
    "WalrusTests": ("test_default_may_bind_a_later_parameter",),
    "UnboundTests": (
        "test_self_reference",
        "test_side_effects_to_the_left_have_happened",
        "test_cell_parameter",
        "test_comprehension_in_default",
    ),
    "PassingSuppressesTests": (
        "test_positional_and_keyword",
        "test_none_and_ellipsis_are_values",
        "test_star_args_and_partial",
        "test_early_ellipsis_default_unchanged",
    ),
    "NestedScopeTests": (
        "test_late_parameter_captured_by_inner_function",
        "test_walrus_binds_function_local",
    ),
    "SeedExampleTests": (
        "test_bisect",
        "test_early_and_late_defaults_read_different_x",
        "test_search_listdir",
        "test_manipulate",
        "test_side_effect_order",
    ),
}

# What Cython and Nuitka run besides (see the docstring for what is left out).
BEYOND_MYPYC: dict[str, tuple[str, ...]] = {
    "UnboundTests": ("test_mutual_references",),
    "NestedScopeTests": (
        "test_method_self_super_and_class",
        "test_lambda_comprehension_and_genexp_see_parameters",
        "test_cell_parameters",
    ),
    "GeneratorTests": (
        "test_generator_evaluates_when_body_starts",
        "test_coroutine_with_await_in_default",
        "test_async_generator",
        "test_stop_iteration_in_generator_default",
    ),
    "BindingRuleTests": (
        "test_passing_the_default_is_leaving_it_out",
        "test_any_late_default_object_means_the_parameter_s_own",
        "test_reassigning_the_defaults_keeps_them_late",
        "test_late_default_object_to_star_parameters_is_a_value",
    ),
    "StdlibInteropTests": (
        "test_get_type_hints",
        "test_dataclass_method",
        "test_abstract_method_and_property_setter",
        "test_enum_method",
        "test_contextmanager",
    ),
    "SeedExampleTests": ("test_spaminate", "test_calendar"),
}


# What Nuitka runs besides.
NUITKA_ONLY: dict[str, tuple[str, ...]] = {
    "SyntaxTests": ("test_forms", "test_fstring_fills_keep_their_meaning"),
    "ScopeTests": ("test_body_local_is_unbound_when_defaults_run",),
    "UnboundTests": ("test_deleted_parameter_keeps_ordinary_message",),
    "PassingSuppressesTests": ("test_missing_required_keyword_only_argument",),
    "LateDefaultObjectTests": (
        "test_type_text_and_repr",
        "test_compares_and_hashes_by_text",
        "test_pickle",
        "test_copy_returns_the_object",
    ),
    "BindingRuleTests": (
        "test_plain_value_assigned_is_an_early_default",
        "test_ellipsis_is_an_ordinary_default",
        "test_late_default_object_without_a_prologue_is_a_value",
        "test_missing_default_is_a_missing_argument",
    ),
    "ExtrasTests": (
        "test_texts",
        "test_none_without_late_defaults",
        "test_source_text_is_unparsed_expression",
        "test_read_only",
        "test_follow_the_defaults",
        "test_kwdefaults_extra_is_a_new_dict",
    ),
    # Not test_object_on_a_parameter_without_a_late_default: a compiled
    # function has no interpreter code whose prologue inspect could ask, so
    # its signature takes late-default objects at their word (the PEP's
    # Introspection), where the compiled call binds one on a parameter
    # written without '=>' as a value.
    "IntrospectionTests": (
        "test_object_moved_to_another_function",
        "test_parameter_default_is_the_bound_object",
        "test_pickled_parameters_and_signatures_are_equal",
    ),
}

COMPILERS = ("cython", "mypyc", "nuitka")


def selection(compiler: str) -> dict[str, set[str]]:
    chosen = {name: set(tests) for name, tests in COMMON.items()}
    extras = {"cython": [BEYOND_MYPYC], "mypyc": [], "nuitka": [BEYOND_MYPYC, NUITKA_ONLY]}
    for table in extras[compiler]:
        for name, tests in table.items():
            chosen.setdefault(name, set()).update(tests)
    return chosen


def chosen_module(chosen: dict[str, set[str]]) -> str:
    """test_late_bound_defaults.py with only the chosen test classes and tests."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    body: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.name not in chosen:
                continue
            present = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
            missing = chosen[node.name] - present
            assert not missing, f"{SOURCE.name}: {node.name} has no {sorted(missing)}"
            node.body = [item for item in node.body
                         if not (isinstance(item, ast.FunctionDef)
                                 and item.name.startswith("test_")
                                 and item.name not in chosen[node.name])]
            body.append(node)
        elif isinstance(node, ast.If):  # if __name__ == "__main__"
            continue
        else:
            body.append(node)
    classes = {node.name for node in body if isinstance(node, ast.ClassDef)}
    assert classes == set(chosen), f"{SOURCE.name} has no {sorted(set(chosen) - classes)}"
    tree.body = body
    return ast.unparse(tree) + "\n"


# Runs in the compiled module's directory: imports it, says whether it is an
# extension module, runs the tests with unittest and writes each test's outcome.
RUNNER = textwrap.dedent("""\
    import importlib.machinery, json, sys, unittest
    sys.path.insert(0, '.')
    module = __import__(sys.argv[1])
    # (a module Nuitka built keeps the source's __file__, and has __compiled__)
    compiled = (module.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
                or hasattr(module, '__compiled__'))
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    outcomes = {}
    class Result(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            outcomes[test.id()] = 'passed'
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                     resultclass=Result).run(suite)
    for test, trace in result.failures + result.errors:
        outcomes[test.id()] = trace
    for test, reason in result.skipped:
        outcomes[test.id()] = 'skipped: ' + reason
    print(json.dumps({'compiled': compiled, 'file': module.__file__, 'outcomes': outcomes}))
""")

SETUP_PY = textwrap.dedent("""\
    from setuptools import setup
    from Cython.Build import cythonize
    setup(ext_modules=cythonize([{source!r}], language_level=3))
""")


@pytest.fixture(scope="session")
def compiler_python(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """build/ecosystem/venv's python, and an environment with setuptools on PYTHONPATH."""
    try:
        python, _ = ecosystem.prepare_venv(paths.PYTHON, "patched", ecosystem.load_tools(),
                                           ecosystem.load_unpatched())
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    version = requirement_versions(ecosystem.CONSTRAINTS)["setuptools"]
    overlay = paths.BUILD / "compiled-late-defaults" / f"setuptools-{version}"
    if not (overlay / "setuptools").is_dir():
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps",
                        "--target", overlay, f"setuptools=={version}"],
                       check=True, env=scrubbed_env(), stdin=subprocess.DEVNULL)
    env = scrubbed_env()
    env["PYTHONPATH"] = str(overlay)
    return python, env


def run_chosen(python: Path, directory: Path, module: str,
               env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run([python, "-c", RUNNER, module], cwd=directory, capture_output=True,
                          text=True, env=env, stdin=subprocess.DEVNULL, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def check_outcomes(report: dict[str, object], module: str,
                   chosen: dict[str, set[str]]) -> None:
    expected = {f"{module}.{cls}.{test}" for cls, tests in chosen.items() for test in tests}
    outcomes = report["outcomes"]
    assert isinstance(outcomes, dict)
    assert set(outcomes) == expected
    failed = {test: outcome for test, outcome in outcomes.items() if outcome != "passed"}
    assert not failed, "\n".join(f"{test}:\n{outcome}" for test, outcome in failed.items())


def compile_with(compiler: str, python: Path, env: dict[str, str], workdir: Path,
                 module: str) -> None:
    if compiler == "cython":
        (workdir / "setup.py").write_text(SETUP_PY.format(source=f"{module}.py"))
        cmd = [str(python), "setup.py", "build_ext", "--inplace"]
    elif compiler == "nuitka":
        # the extension module next to the source, which it takes precedence over
        cmd = [str(python), "-m", "nuitka", "--module", "--lto=no", "--no-progressbar",
               "--no-pyi-file", "--remove-output", f"{module}.py"]
    else:
        # mypy's default parser, the native one (ecosystem/patched/ast_serialize)
        cmd = [str(python), "-m", "mypyc", "--enable-incomplete-feature=LateBoundDefaults",
               # notes about the annotated functions nested in unannotated tests
               "--disable-error-code", "annotation-unchecked",
               # CPython's test.support, which the module imports, has no stubs
               "--ignore-missing-imports", f"{module}.py"]
    # Nuitka's cache (ccache's objects of its runtime library) as the probe keeps it
    build_env = dict(env, MYPYC_OPT_LEVEL="0", NUITKA_CACHE_DIR=str(cache_dir() / "nuitka"))
    proc = subprocess.run(["nice", "-n", "10", *cmd], cwd=workdir, capture_output=True,
                          text=True, env=build_env, stdin=subprocess.DEVNULL, timeout=1800)
    assert proc.returncode == 0, f"{compiler} failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"


@pytest.mark.parametrize("compiler", COMPILERS)
def test_semantic_tests_pass_compiled(compiler: str, compiler_python: tuple[Path, dict[str, str]],
                                      tmp_path: Path) -> None:
    python, env = compiler_python
    chosen = selection(compiler)
    module = f"late_bound_{compiler}"
    (tmp_path / f"{module}.py").write_text(chosen_module(chosen), encoding="utf-8")

    # The control: the same tests, not compiled, pass on the interpreter.
    control = run_chosen(python, tmp_path, module, env)
    assert control["compiled"] is False
    check_outcomes(control, module, chosen)

    compile_with(compiler, python, env, tmp_path, module)
    compiled = run_chosen(python, tmp_path, module, env)
    assert compiled["compiled"] is True, f"{module} was imported from {compiled['file']}"
    check_outcomes(compiled, module, chosen)


def test_selection_names_real_tests() -> None:
    # chosen_module() fails on a test that the file does not have; no test is chosen
    # twice, and the module holds exactly the chosen tests.
    for name, tests in [*BEYOND_MYPYC.items(), *NUITKA_ONLY.items()]:
        assert not set(tests) & set(COMMON.get(name, ())), name
    for name, tests in NUITKA_ONLY.items():
        assert not set(tests) & set(BEYOND_MYPYC.get(name, ())), name
    for compiler in COMPILERS:
        chosen = selection(compiler)
        tree = ast.parse(chosen_module(chosen))
        found = {(cls.name, item.name) for cls in tree.body if isinstance(cls, ast.ClassDef)
                 for item in cls.body
                 if isinstance(item, ast.FunctionDef) and item.name.startswith("test_")}
        assert found == {(cls, test) for cls, tests in chosen.items() for test in tests}
