"""tools/paths.py is the one home of the build's paths: the Makefile's variables name the
same ones, and no other module spells a path under build/."""

from __future__ import annotations

import re
import subprocess

from tools import paths
from tools.paths import REPO


def make_variable(name: str) -> str:
    """A variable's value as make expands it."""
    out = subprocess.run(["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "-",
                          "print-var"], input=f"print-var:\n\t@echo $({name})\n", cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    return out.strip()


def test_the_makefile_names_the_paths_of_tools_paths() -> None:
    for variable, path in [("PYTHON", paths.PYTHON), ("BUILD", paths.BUILD),
                           ("TREE", paths.TREE), ("BASELINE_PYTHON", paths.BASELINE_PYTHON),
                           ("VENV_PYTHON", paths.VENV / "bin" / "python"),
                           ("BENCH_PYTHON", paths.BENCH_VENV / "bin" / "python")]:
        assert (REPO / make_variable(variable)).resolve() == path.resolve(), variable


def test_build_paths_are_below_build() -> None:
    for name in ("TARBALL", "TREE", "BASELINE", "VENV", "LOGS", "ECOSYSTEM_OUT", "DOCS_OUT",
                 "BENCH_OUT", "DOGFOOD_OUT", "DIST", "INSTALL_STAGE", "APT_DIR"):
        assert getattr(paths, name).is_relative_to(paths.BUILD), name
    assert paths.TARBALL.name == f"Python-{paths.CPYTHON_VERSION}.tar.xz"


def test_no_other_module_spells_a_build_path() -> None:
    # `"build" /` or "build/..." in code (not in docstrings or help text) belongs in paths.py
    spelled = re.compile(r'/ "build"|"build" /|Path\("build')
    found = []
    for module in [*(REPO / "tools").rglob("*.py"), *(REPO / "bench").rglob("*.py")]:
        if module != REPO / "tools" / "paths.py":
            found += [f"{module.relative_to(REPO)}:{n}" for n, line in
                      enumerate(module.read_text().splitlines(), 1) if spelled.search(line)]
    assert found == []


def test_shown_is_relative_to_the_repository() -> None:
    assert paths.shown(paths.TREE) == "build/cpython"
    assert paths.shown(REPO.parent) == str(REPO.parent)
