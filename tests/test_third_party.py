"""Third-party tools, pip-installed into the patched interpreter's venvs, on code using `=>`.

pytest is the runner of this suite itself; coverage.py and numpy (a binary wheel
built for stock CPython 3.13) are pinned in tests/requirements.txt.

The tools we patch, one directory of ecosystem/patched/ each (ecosystem/README.md is the
contract), come from tools.ecosystem: build/ecosystem/venv holds the patched build of
every one of them and the pinned tools that need no patch (ecosystem/unpatched/);
it is made once (a few minutes; it needs PyPI) and reused while it is current. For each
patched tool, the upstream tests its pin.toml names run from its patched sdist tree
and must pass, the patch's own tests among them (not skipped); every probe.py must pass
on the shared corpus. `make ecosystem` runs the same probes on the stock releases too,
for build/ecosystem/report.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import tool
from tools.paths import DOCS_OUT, PYTHON
from tools import ecosystem
from tools.common import ToolError, scrubbed_env, tail

MODULE = textwrap.dedent('''\
    def bisect_right(a, x, lo=0,
                     hi=>len(a), *, key=None):
        while lo < hi:
            mid = (lo + hi) // 2
            if x < a[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo
    ''')


def test_pytest_rewrites_asserts_in_a_module_using_late_defaults(tmp_path: Path) -> None:
    (tmp_path / "test_lb.py").write_text(MODULE + textwrap.dedent('''\

        def test_passes():
            assert bisect_right([1, 2, 3], 2) == 2

        def test_fails():
            assert bisect_right([1, 2, 3], 2) == 5
        '''))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(tmp_path / "test_lb.py")], capture_output=True, text=True,
                            cwd=tmp_path, env=scrubbed_env())
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed" in result.stdout
    # The rewritten assert reports the value the late default produced.
    assert "assert 2 == 5" in result.stdout


def test_coverage_measures_late_default_lines(tmp_path: Path) -> None:
    (tmp_path / "lbmod.py").write_text(MODULE)
    (tmp_path / "run.py").write_text("import lbmod\nlbmod.bisect_right([1, 2, 3], 2)\n")
    env = scrubbed_env()
    subprocess.run([sys.executable, "-m", "coverage", "run", "--branch", "run.py"],
                   check=True, cwd=tmp_path, env=env, capture_output=True)
    subprocess.run([sys.executable, "-m", "coverage", "json", "-o", "cov.json",
                    "--include=lbmod.py"], check=True, cwd=tmp_path, env=env,
                   capture_output=True)
    data = json.loads((tmp_path / "cov.json").read_text())["files"]["lbmod.py"]
    # coverage.py counts the two-line 'def' (with hi=>len(a)) as one statement,
    # on its first line; line and branch measurement run through the prologue.
    assert data["executed_lines"] == [1, 3, 4, 5, 6, 8, 9]
    assert data["missing_lines"] == []
    assert data["summary"]["percent_covered"] == 100.0


def test_numpy_wheel_for_stock_3_13() -> None:
    # A binary extension built for stock CPython 3.13: the ABI is intact
    # (PyFunctionObject and the code object keep 3.13's layout).
    code = textwrap.dedent('''\
        import numpy as np
        def scale(a, factor=>np.float64(len(a))):
            return np.asarray(a) * factor
        print(scale([1, 2, 3]).tolist(), np.vectorize(lambda x, y=>x + 1: y)([1, 2]).tolist())
        ''')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=scrubbed_env()).stdout
    assert out.strip() == "[3.0, 6.0, 9.0] [2, 3]"


TOOLS = ecosystem.load_tools()
UNPATCHED = ecosystem.load_unpatched()


@pytest.fixture(scope="session")
def ecosystem_venv() -> Path:
    """build/ecosystem/venv's python, made current (as make ecosystem makes it)."""
    try:
        python, _ = ecosystem.prepare_venv(PYTHON, "patched", TOOLS, UNPATCHED)
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    return python


@pytest.mark.parametrize("patched", TOOLS, ids=lambda t: t.name)
def test_upstream_tests_of_the_patch(patched: ecosystem.Tool, ecosystem_venv: Path) -> None:
    try:
        run = ecosystem.run_upstream_tests(ecosystem_venv, patched, ecosystem.Layout())
    except ToolError as exc:
        pytest.fail(str(exc), pytrace=False)
    assert not run.problems(), f"{run.summary()}: {run.problems()}\n{tail(run.log, 30)}"


@pytest.mark.parametrize("probed", TOOLS + UNPATCHED, ids=lambda t: t.name)
def test_probe_passes(probed: ecosystem.Tool | ecosystem.Unpatched, ecosystem_venv: Path,
                      tmp_path: Path) -> None:
    result = ecosystem.run_probe(probed.probe, ecosystem_venv, tmp_path / "work",
                                 tmp_path / "probe.log")
    assert result.passed, f"{result.evidence}\n{tail(tmp_path / 'probe.log', 30)}"


def test_ecosystem_venv_scripts(ecosystem_venv: Path) -> None:
    # What issue 14 promises a user of build/ecosystem/venv.
    bin_dir = ecosystem_venv.parent
    pins = {t.name: t.version for t in TOOLS}
    for command, expected in (
            ([bin_dir / "sphinx-build", "--version"], f"sphinx-build {pins['sphinx']}"),
            ([bin_dir / "pygmentize", "-V"], f"Pygments version {pins['pygments']}"),
            ([ecosystem_venv, "-c", "import jedi; print(jedi.__version__)"], pins["jedi"])):
        out = subprocess.run(command, capture_output=True, text=True, env=scrubbed_env())
        assert out.returncode == 0 and expected in out.stdout, (command, out.stderr)


def test_autodoc_page_shows_late_defaults(ecosystem_venv: Path) -> None:
    # make docs' autodoc page (tools/build_docs.py autodoc), on the venv made above.
    result = tool("build_docs", "autodoc", env=scrubbed_env())
    assert result.returncode == 0, result.stderr
    page = (DOCS_OUT / "autodoc" / "index.html").read_text()
    assert ('<span class="n"><span class="pre">hi</span></span><span class="o">'
            '<span class="pre">=&gt;</span></span><span class="default_value '
            'late_default_value"><span class="pre">len(a)</span></span>') in page
    assert '<span class="pre">target</span>' in page and "hi=len(a)" not in page


# -- the driver itself (no venv) --------------------------------------------------------

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
