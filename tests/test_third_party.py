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


# A tool whose tests are Rust's (ruff) has them run by `make ecosystem-cargo-test`: a
# cold build of its tests takes about 25 minutes on 2 cores, which make test cannot
# afford on a fresh machine. Likewise a tool whose tests are jest's (basedpyright), by
# `make ecosystem-jest-test` (minutes). Their probes, on the patched builds, run here.
# The tests of a tool with a runner of its own ([test] commands: the editors' grammars,
# Nuitka's compiles) take seconds once their builds are cached, and run here.
@pytest.mark.parametrize("patched", [t for t in TOOLS if t.runner in ("pytest", "command")],
                         ids=lambda t: t.name)
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
            ([bin_dir / "basedpyright", "--version"], f"basedpyright {pins['basedpyright']}"),
            ([ecosystem_venv, "-c", "import jedi; print(jedi.__version__)"], pins["jedi"])):
        out = subprocess.run(command, capture_output=True, text=True, env=scrubbed_env())
        assert out.returncode == 0 and expected in out.stdout, (command, out.stderr)


def test_autodoc_page_shows_late_defaults(ecosystem_venv: Path) -> None:
    # make docs' autodoc page (tools/docs/build_docs.py autodoc), on the venv made above.
    result = tool("docs.build_docs", "autodoc", env=scrubbed_env())
    assert result.returncode == 0, result.stderr
    page = (DOCS_OUT / "autodoc" / "index.html").read_text()
    assert ('<span class="n"><span class="pre">hi</span></span><span class="o">'
            '<span class="pre">=&gt;</span></span><span class="default_value '
            'late_default_value"><span class="pre">len(a)</span></span>') in page
    assert '<span class="pre">target</span>' in page and "hi=len(a)" not in page
