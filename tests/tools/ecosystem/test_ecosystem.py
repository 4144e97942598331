"""tools.ecosystem without a venv: the manifest (pin.toml, the order of needs), the
verdict of an upstream run, the report, the key of a venv. The venvs and probes
themselves are tests/test_third_party.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from tools import ecosystem
from tools.ecosystem import probes, sdist, venvs
from tools.common import ToolError

TOOLS = ecosystem.load_tools()
UNPATCHED = ecosystem.load_unpatched()


PIN = """\
[package]
name = "{name}"
version = "1.0"
sdist_sha256 = "{sha}"
patch = "late-defaults.patch"
needs = {needs}

[test]
pytest_args = ["tests"]
requirements = {requirements}
"""


def make_tool(root: Path, name: str, needs: str = "[]", requirements: str = '["pytest==8.3.5"]',
              extra: str = "") -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "pin.toml").write_text(PIN.format(name=name, sha="ab" * 32, needs=needs,
                                                   requirements=requirements) + extra)
    (directory / "late-defaults.patch").write_text("")
    (directory / "probe.py").write_text("")
    return directory


def test_tools_come_after_what_they_need(tmp_path: Path) -> None:
    make_tool(tmp_path, "alpha", needs='["gamma"]')
    make_tool(tmp_path, "beta")
    make_tool(tmp_path, "gamma", needs='["beta"]')
    assert [t.name for t in ecosystem.load_tools(tmp_path)] == ["beta", "gamma", "alpha"]
    # and so in the repository: the patched parso before jedi, astroid before pylint
    names = [t.name for t in TOOLS]
    assert names.index("parso") < names.index("jedi")
    assert names.index("astroid") < names.index("pylint")


@pytest.mark.parametrize("needs, requirements, extra, message", [
    ('["nowhere"]', '["pytest==8.3.5"]', "", "needs 'nowhere', which is not a directory"),
    ('["loop"]', '["pytest==8.3.5"]', "", "the needs form a cycle: loop -> loop"),
    ("[]", '["pytest>=8"]', "", "'pytest>=8' is not an exact pin"),
    ("[]", '["pytest==8.3.5"]', 'timeout = 3\n', "unknown key(s) timeout in [test]"),
    ("[]", '["pytest==8.3.5"]', 'cargo = [["-p", "x"]]\n', "and not more than one"),
    ("[]", '["pytest==8.3.5"]', 'jest = [["x.test"]]\n', "and not more than one"),
    ("[]", '["pytest==8.3.5"]', 'jest_dir = "packages/x"\n', "only with jest"),
])
def test_pin_toml_breaking_the_contract_is_refused(tmp_path: Path, needs: str,
                                                   requirements: str, extra: str,
                                                   message: str) -> None:
    make_tool(tmp_path, "loop", needs=needs, requirements=requirements, extra=extra)
    with pytest.raises(ToolError) as error:
        ecosystem.load_tools(tmp_path)
    assert message in str(error.value)


def test_upstream_run_must_pass_the_patchs_own_tests(tmp_path: Path) -> None:
    junit = tmp_path / "run.xml"
    junit.write_text('''<testsuites><testsuite>
        <testcase classname="tests.test_x" name="test_old"/>
        <testcase classname="tests.test_x" name="test_late_default_lambda">
            <skipped message="needs ast.LateDefault"/></testcase>
        <testcase classname="tests.test_x" name="test_other"><skipped/></testcase>
        </testsuite></testsuites>''')
    run = ecosystem.UpstreamRun(0, tmp_path / "log", ecosystem.parse_junit(junit))
    assert run.problems() == ["1 of the patch's tests skipped: "
                              "tests.test_x::test_late_default_lambda"]
    assert run.summary().startswith("1 passed, 2 skipped (1 of them the patch's)")
    run.cases["tests.test_x::test_late_default_lambda"] = "passed"
    assert run.problems() == []
    del run.cases["tests.test_x::test_late_default_lambda"]
    assert "no test with 'late_default', 'late_bound' or 'pep671' in its name ran" \
        in run.problems()[0]


def test_cargo_runs_rust_tests(tmp_path: Path) -> None:
    directory = make_tool(tmp_path, "rusty", requirements="[]")
    pin = directory / "pin.toml"
    pin.write_text(pin.read_text().replace(
        'pytest_args = ["tests"]',
        'cargo = [["-p", "rusty_parser"], ["-p", "rusty_linter", "--", "late_bound"]]'))
    tool = ecosystem.load_tool(directory)
    assert (tool.pytest_args, tool.cargo) == (
        (), (("-p", "rusty_parser"), ("-p", "rusty_linter", "--", "late_bound")))
    assert (tool.runner, ecosystem.load_tool(make_tool(tmp_path, "plain")).runner) == (
        "cargo", "pytest")
    pin.write_text(pin.read_text().replace("requirements = []", 'requirements = ["a==1"]'))
    with pytest.raises(ToolError, match="cargo test needs none"):
        ecosystem.load_tool(directory)


def test_jest_runs_typescript_tests(tmp_path: Path) -> None:
    directory = make_tool(tmp_path, "typed", requirements="[]")
    pin = directory / "pin.toml"
    pin.write_text(pin.read_text().replace(
        'pytest_args = ["tests"]',
        'jest_dir = "packages/core"\njest = [["parser.test", "-t", "late"]]'))
    tool = ecosystem.load_tool(directory)
    assert (tool.pytest_args, tool.jest, tool.jest_dir) == (
        (), (("parser.test", "-t", "late"),), "packages/core")
    assert tool.runner == "jest"
    pin.write_text(pin.read_text().replace("requirements = []", 'requirements = ["a==1"]'))
    with pytest.raises(ToolError, match="jest needs none"):
        ecosystem.load_tool(directory)


def test_jest_json_gives_the_cases(tmp_path: Path) -> None:
    report = tmp_path / "jest.json"
    report.write_text(json.dumps({"numPendingTests": 2, "testResults": [
        {"name": "/t/src/tests/parser.test.ts", "status": "passed", "assertionResults": [
            {"fullName": "LateBoundDefaults - lambda", "status": "passed"},
            {"fullName": "Empty", "status": "pending"}]},
        {"name": "/t/src/tests/checker.test.ts", "status": "failed", "assertionResults": [
            {"fullName": "LateBoundDefaults1", "status": "failed"},
            {"fullName": "Old", "status": "pending"}]},
        {"name": "/t/src/tests/broken.test.ts", "status": "failed",
         "assertionResults": []}]}))
    cases = ecosystem.parse_jest_json(report)
    assert cases == {"parser.test.ts::LateBoundDefaults - lambda": "passed",
                     "parser.test.ts::Empty": "skipped",
                     "checker.test.ts::LateBoundDefaults1": "failed",
                     "checker.test.ts::Old": "skipped",
                     "broken.test.ts::(the file did not run)": "error"}
    # with -t, the pending tests are the ones the name pattern left out
    filtered = ecosystem.parse_jest_json(report, filtered=True)
    assert sorted(filtered) == ["broken.test.ts::(the file did not run)",
                                "checker.test.ts::LateBoundDefaults1",
                                "parser.test.ts::LateBoundDefaults - lambda"]
    run = ecosystem.UpstreamRun(1, tmp_path / "log", filtered)
    assert run.problems()[1].startswith("2 failed: checker.test.ts::LateBoundDefaults1")


def test_prepare_adapts_the_patched_build_only(tmp_path: Path) -> None:
    directory = make_tool(tmp_path, "bundled")
    pin = directory / "pin.toml"
    plain = ecosystem.load_tool(directory)
    script = directory / "offline.py"
    script.write_text("print('prepared')\n")
    pin.write_text(pin.read_text().replace(
        "needs = []", 'needs = []\nprepare = [["{python}", "{tool}/offline.py", "--x"]]'))
    with pytest.raises(ToolError, match="stock_wheels"):
        ecosystem.load_tool(directory)
    wheel = "bundled-1.0-py3-none-any.whl"
    pin.write_text(pin.read_text().replace(
        "needs = []", f'needs = []\nstock_wheels = {{"{wheel}" = "{"cd" * 32}"}}'))
    tool = ecosystem.load_tool(directory)
    assert tool.prepare_commands("/py") == [["/py", f"{directory}/offline.py", "--x"]]
    # the commands and the files of the tool's directory they name are inputs of the
    # patched build; a tool without prepare keeps its key
    assert tool.key("patched") != plain.key("patched")
    before = tool.key("patched")
    script.write_text("print('prepared again')\n")
    assert tool.key("patched") != before


def test_stock_wheels_make_the_stock_variant_a_download(tmp_path: Path) -> None:
    directory = make_tool(tmp_path, "rusty")
    pin = directory / "pin.toml"
    plain = ecosystem.load_tool(directory)
    wheel = "rusty-1.0-py3-none-manylinux_2_17_x86_64.whl"
    pin.write_text(pin.read_text().replace(
        "needs = []", f'needs = []\nstock_wheels = {{"{wheel}" = "{"cd" * 32}"}}'))
    tool = ecosystem.load_tool(directory)
    assert tool.stock_wheels == {wheel: "cd" * 32}
    # another stock build, and one the patch does not change; the patched key is as before
    assert tool.key("stock") != plain.key("stock")
    assert tool.key("patched") == plain.key("patched")
    (directory / "late-defaults.patch").write_text("changed")
    assert tool.key("stock") == ecosystem.load_tool(directory).key("stock")
    pin.write_text(pin.read_text().replace(wheel, "other-1.0-py3-none-any.whl"))
    with pytest.raises(ToolError, match="stock_wheels maps the file names"):
        ecosystem.load_tool(directory)


def test_pkg_info_backend_names_the_backend_the_download_stands_in_for(
        tmp_path: Path) -> None:
    directory = make_tool(tmp_path, "rusty")
    pin = directory / "pin.toml"
    assert ecosystem.load_tool(directory).pkg_info_backend == ""
    text = pin.read_text()
    pin.write_text(text.replace("needs = []", 'needs = []\npkg_info_backend = "maturin"'))
    assert ecosystem.load_tool(directory).pkg_info_backend == "maturin"
    # a dotted path would need a package of packages: only a top-level module
    pin.write_text(text.replace("needs = []", 'needs = []\npkg_info_backend = "a.b"'))
    with pytest.raises(ToolError, match="top-level module name"):
        ecosystem.load_tool(directory)


def test_a_stock_wheel_without_a_pinned_sha256_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def pip(cmd: list[str], what: str, env: object = None) -> None:
        assert "--only-binary" in cmd and "rusty==1.0" in cmd
        (Path(cmd[cmd.index("-d") + 1]) / "rusty-1.0-py3-none-win_amd64.whl").write_bytes(b"w")

    monkeypatch.setattr(sdist, "pip", pip)
    pinned = {"rusty-1.0-py3-none-manylinux_2_17_x86_64.whl": "cd" * 32}
    with pytest.raises(ToolError, match="no sha256 for it"):
        sdist.download_wheel(Path("python"), "rusty", "1.0", pinned, tmp_path)
    (tmp_path / "rusty-1.0-py3-none-win_amd64.whl").unlink()
    pinned["rusty-1.0-py3-none-win_amd64.whl"] = "cd" * 32
    with pytest.raises(ToolError, match="sha256"):
        sdist.download_wheel(Path("python"), "rusty", "1.0", pinned, tmp_path)


def test_cargo_test_output_gives_the_cases(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text(
        "   Compiling rusty_parser v0.1.0\n"
        "     Running unittests src/lib.rs (target/debug/deps/rusty_parser-0123456789abcdef)\n"
        "test lexer::tests::fat_arrow ... ok\n"
        "test lexer::tests::old ... ignored, slow\n"
        "test scratch::tests::unbalanced - should panic ... ok\n"
        "     Running tests/fixtures.rs (target/debug/deps/fixtures-fedcba9876543210)\n"
        "test inline_ok::param_with_late_bound_default.py            ... ok\n"
        "test inline_err::other.py                                   ... FAILED\n"
        "test result: FAILED. 1 passed; 1 failed; 0 ignored\n"
        "   Doc-tests rusty_parser\n"
        "test src/lib.rs - parse (line 12) ... ok\n")
    run = ecosystem.UpstreamRun(101, log, ecosystem.parse_cargo_test(log))
    assert run.cases == {"rusty_parser::lexer::tests::fat_arrow": "passed",
                         "rusty_parser::lexer::tests::old": "skipped",
                         "rusty_parser::scratch::tests::unbalanced - should panic": "passed",
                         "fixtures::inline_ok::param_with_late_bound_default.py": "passed",
                         "fixtures::inline_err::other.py": "failed",
                         "rusty_parser (doc)::src/lib.rs - parse (line 12)": "passed"}
    assert list(run.late) == ["fixtures::inline_ok::param_with_late_bound_default.py"]
    assert run.problems()[0].startswith("the tests exited 101")


def test_report_table(tmp_path: Path) -> None:
    probe = {"passed": True, "evidence": "all late defaults shown", "seconds": 1.0}
    text = ecosystem.render_report({
        "date": "2026-01-01", "interpreter": "`./python`", "notes": ["built"],
        "patched_tools": [{"display": "Sphinx", "version": "9.2.0", "patched": probe,
                           "stock": {**probe, "passed": False, "evidence": "hi=len(a)"}}],
        "unpatched_tools": [{"display": "pydoc", "version": "standard library",
                             "result": probe}],
        "upstream_tests": {}})
    assert ("| Sphinx | 9.2.0 | **fails** | passes | stock: hi=len(a); "
            "patched: all late defaults shown |") in text.splitlines()
    assert "| pydoc | standard library | passes | all late defaults shown |" in text


def test_venv_key_follows_where_the_wheels_are(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    # a venv installed from wheels in another place fails check_venv: it must not be
    # called current after the wheel cache moves (XDG_CACHE_HOME, or an older layout)
    layout = ecosystem.Layout()
    before = ecosystem.venv_key("patched", TOOLS, UNPATCHED, layout)
    assert before == ecosystem.venv_key("patched", TOOLS, UNPATCHED, layout)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert ecosystem.venv_key("patched", TOOLS, UNPATCHED, layout) != before


@pytest.mark.parametrize("name, text, own", [
    ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-s'\n", True),
    ("tox.ini", "[pytest]\n", True),
    ("pyproject.toml", "[project]\nname = 'x'\n", False),
    ("setup.cfg", "[metadata]\nname = x\n", False),
])
def test_a_tree_without_pytest_configuration_is_its_own_root(tmp_path: Path, name: str,
                                                              text: str, own: bool) -> None:
    from tools.ecosystem.probes import pytest_config_args

    tree = tmp_path / "tool-1.0"
    tree.mkdir()
    (tree / name).write_text(text)
    layout = ecosystem.Layout(tmp_path / "out")
    args = pytest_config_args(tree, layout)
    if own:
        assert args == []
    else:
        assert args == ["-c", str(layout.root / "pytest-empty.ini"), f"--rootdir={tree}"]
        assert (layout.root / "pytest-empty.ini").read_text().endswith("[pytest]\n")


PROBE_USING_PROBEKIT = '''
import sys

import probekit
from unpatched import signatures


def probe(python, corpus, workdir):
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    result = probekit.run([python, "-c", "import sys; sys.exit('no ' + sys.argv[1])",
                           corpus.name], workdir)
    return result.returncode == 1, probekit.error_line(result)
'''


def test_a_probe_imports_the_shared_helpers(tmp_path: Path) -> None:
    # the runner puts ecosystem/ on sys.path: probekit, and unpatched/signatures.py
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE_USING_PROBEKIT)
    result = ecosystem.run_probe(probe, Path(sys.executable), tmp_path / "work",
                                 tmp_path / "probe.log")
    assert (result.passed, result.evidence) == (True, "no late_defaults.py")


NPM_PIN = """\
[package]
name = "grammar"
registry = "npm"
npm = "@scope/grammar"
version = "2.0.0"
tarball_sha256 = "{sha}"
patch = "late-defaults.patch"
build = [["{{python}}", "{{tool}}/build.py", "{{tool}}/locked", "{{out}}", "{{cache}}"]]
requirements = ["tree-sitter==0.26.1"]

[test]
commands = [["{{python}}", "{{tool}}/run_tests.py", "{{junit}}"]]
"""


def make_npm_tool(root: Path) -> Path:
    directory = root / "grammar"
    (directory / "locked").mkdir(parents=True)
    (directory / "pin.toml").write_text(NPM_PIN.format(sha="ef" * 32))
    for name in ("late-defaults.patch", "probe.py", "build.py", "run_tests.py", "README.md",
                 "locked/package-lock.json"):
        (directory / name).write_text(name)
    return directory


def test_a_tool_from_the_npm_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = make_npm_tool(tmp_path)
    tool = ecosystem.load_tool(directory)
    assert (tool.on_pypi, tool.package, tool.version, tool.sdist_sha256, tool.runner) == (
        False, "@scope/grammar", "2.0.0", "ef" * 32, "command")
    assert tool.requirements == ("tree-sitter==0.26.1",)
    assert tool.build_commands("/py", Path("/o")) == [
        ["/py", f"{directory}/build.py", f"{directory}/locked", "/o",
         str(tmp_path / "cache" / "pep671")]]
    assert tool.test_commands("/venv/python", Path("/j.xml")) == [
        ["/venv/python", f"{directory}/run_tests.py", "/j.xml"]]
    # the patch is an input of the patched build only; the files the build commands
    # name (a directory: each of its files) are inputs of both; the README is not
    stock, patched = tool.key("stock"), tool.key("patched")
    (directory / "late-defaults.patch").write_text("changed")
    assert (tool.key("stock"), tool.key("patched") != patched) == (stock, True)
    patched = tool.key("patched")
    (directory / "locked" / "package-lock.json").write_text("changed")
    assert tool.key("stock") != stock and tool.key("patched") != patched
    stock = tool.key("stock")
    (directory / "README.md").write_text("changed")
    assert tool.key("stock") == stock
    # it is not a PyPI pin: neither constraints nor the wheel cache hold it
    layout = ecosystem.Layout(tmp_path / "out")
    assert "grammar==2.0.0" not in venvs.constraints_text([tool], [])
    assert "tree-sitter==0.26.1" in venvs.constraints_text([tool], [])
    assert layout.made_dir(tool, "stock").parent.parent.name == "ecosystem-builds"
    # registry = "pypi" is the default, and may be said
    plain = make_tool(tmp_path, "plain", extra="")
    (plain / "pin.toml").write_text((plain / "pin.toml").read_text().replace(
        "[package]\n", '[package]\nregistry = "pypi"\n'))
    assert ecosystem.load_tool(plain).on_pypi


def test_an_npm_patch_written_for_the_repository(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # not_in_release: the paths of the patch that the registry's package does not ship
    # (a grammar's tests); prepare: commands that make the package's copy take the patch
    # (MagicPython's JSON, derived from its YAML). Both are inputs of the patched build
    # only, and a tool with neither keeps its key.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = make_npm_tool(tmp_path)
    plain = ecosystem.load_tool(directory)
    assert (plain.not_in_release, plain.prepare) == ((), ())
    pin = directory / "pin.toml"
    (directory / "derive.py").write_text("derive")
    pin.write_text(pin.read_text().replace("build = [", 'not_in_release = ["test/*"]\n'
                   'prepare = [["{python}", "{tool}/derive.py", "{cache}"]]\nbuild = ['))
    tool = ecosystem.load_tool(directory)
    assert tool.not_in_release == ("test/*",)
    assert tool.prepare_commands("/py") == [
        ["/py", f"{directory}/derive.py", str(tmp_path / "cache" / "pep671")]]
    assert (tool.key("stock"), tool.key("patched") != plain.key("patched")) == (
        plain.key("stock"), True)
    patched = tool.key("patched")
    (directory / "derive.py").write_text("derive again")
    assert (tool.key("stock"), tool.key("patched") != patched) == (plain.key("stock"), True)
    pin.write_text(pin.read_text().replace('["test/*"]', '["test/*", "misc/*"]'))
    assert ecosystem.load_tool(directory).key("patched") != tool.key("patched")


@pytest.mark.parametrize("old, new, message", [
    ('registry = "npm"', 'registry = "conda"', "known: pypi, npm"),
    ('build = [', 'sdist_sha256 = "x"\nbuild = [', "unknown key(s) sdist_sha256"),
    ('build = [[', '# build = [[', "needs [package] build"),
    ('tarball_sha256 = "', 'tarball_sha256 = "z', "tarball_sha256 is not a sha256"),
    ('"tree-sitter==0.26.1"', '"tree-sitter>=0.26"', "is not an exact pin"),
    ("[test]\n", '[test]\npytest_args = ["t"]\n', "and not more than one"),
    ('build = [', 'not_in_release = "test/*"\nbuild = [', "must be a list of strings"),
])
def test_an_npm_pin_breaking_the_contract_is_refused(tmp_path: Path, old: str, new: str,
                                                     message: str) -> None:
    directory = make_npm_tool(tmp_path)
    pin = directory / "pin.toml"
    pin.write_text(pin.read_text().replace(old, new, 1))
    with pytest.raises(ToolError, match=re.escape(message)):
        ecosystem.load_tool(directory)


def test_test_commands_report_in_junit(tmp_path: Path) -> None:
    directory = make_npm_tool(tmp_path)
    (directory / "run_tests.py").write_text(
        "import sys, pathlib\n"
        "pathlib.Path(sys.argv[1]).write_text('<testsuite>"
        "<testcase classname=\"corpus\" name=\"late_defaults::lambda\"/>"
        "<testcase classname=\"corpus\" name=\"old\"><failure/></testcase>"
        "</testsuite>')\n"
        "sys.exit(1)\n")
    tool = ecosystem.load_tool(directory)
    tree = tmp_path / "tree"
    tree.mkdir()
    run = probes.run_command_tests(Path(sys.executable), tool, tree,
                                   ecosystem.Layout(tmp_path / "out"))
    assert run.cases == {"corpus::late_defaults::lambda": "passed", "corpus::old": "failed"}
    assert run.problems()[:2] == [f"the tests exited 1 (log: {run.log})",
                                  "1 failed: corpus::old"]


# A stand-in for Nuitka's bin/compare_with_cpython: it passes (exits 0) where Nuitka's
# runner finds what it needs, an empty working directory, the venv's python first on
# PATH (Nuitka's --run starts the module it built as "python") and the per-user cache,
# and, told "syntax_errors" (the syntax test), fails with Nuitka's message.
_COMPARE_WITH_CPYTHON = """\
import os, shutil, sys
print("Comparing output of", sys.argv[1])
ok = (os.listdir() == [] and shutil.which("python") == sys.executable
      and os.environ["NUITKA_CACHE_DIR"] == sys.argv[-1] and "PYTHONPATH" not in os.environ)
if not ok or "syntax_errors" in sys.argv:
    sys.exit("Error, results differed (stdout,stderr,exit_code).")
"""


def test_nuitkas_test_commands_give_each_runner_test_its_exit_status(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A PyPI tool whose tests run by a runner of its own: [test] commands run its
    # run_tests.py, which runs the runner on each test the patch adds and reports in JUnit.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    tool = ecosystem.load_tool(ecosystem.THIRD_PARTY / "nuitka")
    assert (tool.on_pypi, tool.runner, tool.test_requirements) == (True, "command", ())
    tree = tmp_path / "nuitka-4.3.5"
    (tree / "bin").mkdir(parents=True)
    (tree / "bin" / "compare_with_cpython").write_text(
        _COMPARE_WITH_CPYTHON.replace("sys.argv[-1]",
                                      repr(str(tmp_path / "cache" / "pep671" / "nuitka"))))
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    run = probes.run_command_tests(python, tool, tree, ecosystem.Layout(tmp_path / "out"))
    assert run.cases == {"tests/basics::LateBoundDefaultsTest.py": "passed",
                         "tests/syntax::LateBoundDefaultYieldTest.py": "failed"}
    assert run.problems()[:2] == [f"the tests exited 1 (log: {run.log})",
                                  "1 failed: tests/syntax::LateBoundDefaultYieldTest.py"]
    log = run.log.read_text()
    assert f"Comparing output of {tree}/tests/basics/LateBoundDefaultsTest.py" in log
    assert re.search(r"FAIL tests/syntax/LateBoundDefaultYieldTest\.py: exit 1 \(\d+s\): "
                     r"Error, results differed \(stdout,stderr,exit_code\)\.\n", log)


def test_the_venv_check_wants_the_variants_build(tmp_path: Path) -> None:
    tool = ecosystem.load_tool(make_npm_tool(tmp_path))
    vpy = tmp_path / "venv" / "bin" / "python"
    dists = {"tree-sitter": {"version": "0.26.1"}}
    build = tmp_path / "build"
    build.mkdir()
    (build / venvs.BUILD_STAMP).write_text(tool.key("stock") + "\n")
    venvs.install_build(build, vpy, tool)
    assert venvs.check_build(vpy, "stock", tool, dists) == []
    assert "is not its patched build" in venvs.check_build(vpy, "patched", tool, dists)[0]
    assert venvs.check_build(vpy, "stock", tool, {}) == [
        "grammar needs tree-sitter==0.26.1, the venv has None"]


def test_an_npm_tarball_is_checked_against_its_sha256(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    # a stand-in for npm pack: writes the tarball where --pack-destination says
    npm.write_text('#!/bin/sh\necho "$@" > args\nprintf tarball > "$4/scope-grammar-2.0.0.tgz"\n')
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    dest = tmp_path / "dest"
    dest.mkdir()
    sha = hashlib.sha256(b"tarball").hexdigest()
    got = sdist.download_npm("@scope/grammar", "2.0.0", sha, dest)
    assert got == dest / "scope-grammar-2.0.0.tgz"
    assert (dest / "args").read_text().split() == [
        "pack", "--silent", "--pack-destination", str(dest), "@scope/grammar@2.0.0"]
    got.unlink()
    with pytest.raises(ToolError, match="checksum mismatch"):
        sdist.download_npm("@scope/grammar", "2.0.0", "00" * 32, dest)


def test_tool_picks_among_the_opted_in_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from tools.ecosystem import cli
    assert cli.main(["--cargo-tests", "--tool", "black"]) != 0
    err = capsys.readouterr().err
    cargo_tools = [t.name for t in TOOLS if t.runner == "cargo"]
    assert "--tool black" in err and ", ".join(cargo_tools) in err
    assert {"ruff", "ty", "pyrefly"} <= set(cargo_tools)


def test_wheel_builds_share_a_cargo_target_only_while_the_venv_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    layout = venvs.Layout(tmp_path / "out")
    targets: dict[str, str | None] = {}

    def build_wheel(python: Path, target: Path, dest: Path, log: Path,
                    env: dict[str, str]) -> Path:
        targets[target.name] = env.get("CARGO_TARGET_DIR")
        assert not (layout.cargo_target() / "stale").exists()
        if target.name == "plain":
            (layout.cargo_target() / "release").mkdir(parents=True)  # as cargo would
        wheel = dest / f"{target.name}-1.0-py3-none-any.whl"
        wheel.write_bytes(b"w")
        return wheel

    def install(*args: object, **kwargs: object) -> None:
        raise ToolError("stopped after the wheels")

    monkeypatch.setattr(sdist, "build_wheel", build_wheel)
    monkeypatch.setattr(sdist, "install", install)
    monkeypatch.setattr(venvs, "patched_tree", lambda pip_python, tool, layout: tmp_path / tool.name)
    monkeypatch.setattr(venvs, "create_venv", lambda python, venv, log=None: venv / "bin/python")
    plain = ecosystem.load_tool(make_tool(tmp_path / "pins", "plain"))
    own_pin = make_tool(tmp_path / "pins", "own") / "pin.toml"
    own_pin.write_text(own_pin.read_text().replace(
        "needs = []", 'needs = []\ninstall_env = {CARGO_TARGET_DIR = "elsewhere"}'))
    own = ecosystem.load_tool(own_pin.parent)
    layout.cargo_target().mkdir(parents=True)
    (layout.cargo_target() / "stale").write_text("left by an earlier run")
    with pytest.raises(ToolError, match="stopped after the wheels"):
        venvs.prepare_venv(Path("python"), "patched", [plain, own], layout=layout)
    # one target for the builds of this venv, emptied first and removed after, even on
    # failure; a pin.toml that names its own keeps it
    assert targets == {"plain": str(layout.cargo_target()), "own": "elsewhere"}
    assert not layout.cargo_target().exists()
