"""make install and make dist: the interpreter runs from where it is installed or unpacked.

Once per session, tools.build.install installs into a temporary prefix and writes the archive
(both from the stage in build/install, made once while build/cpython is unchanged); the
archive is unpacked in another temporary directory, whose path has a space in it. Each
check runs on both: it says what it is, it is laid out like `make altinstall`, its paths
are its own, venvs and wheels (pure Python and cp313) work, help() shows `=>`, and
test_late_bound_defaults passes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import tool
from tools import paths
from tools.common import CPYTHON_VERSION, scrubbed_env, sha256_file
from tools.build.install import check_prefix

PY = "python3.13"
BUILD = paths.BUILD.resolve()


def pin(name: str) -> str:
    """name==version as tests/requirements.txt pins it."""
    text = paths.TEST_REQUIREMENTS.read_text()
    found = re.search(rf"^{re.escape(name)}==\S+", text, re.M)
    assert found, f"{name} is not pinned in tests/requirements.txt"
    return found.group(0)


PURE, BINARY = pin("iniconfig"), pin("coverage")   # coverage has a C tracer


def run(*cmd: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
        ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          env=scrubbed_env() if env is None else env,
                          stdin=subprocess.DEVNULL)
    if ok:
        assert proc.returncode == 0, f"{cmd}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="session")
def build_tag() -> str:
    proc = tool("build.pq", "version")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """make install PREFIX=<tmp>/prefix, with HOME=<tmp>/home and only the system's
    directories on PATH (pip runs `rustc --version` for its user agent, and a rustup
    proxy found on PATH would write ~/.rustup)."""
    base = tmp_path_factory.mktemp("install")
    (base / "home").mkdir()
    proc = tool("build.install", "install", "--prefix", str(base / "prefix"),
                env=scrubbed_env({"HOME": str(base / "home"), "PATH": "/usr/bin:/bin"}))
    assert proc.returncode == 0, proc.stderr
    return base / "prefix"


@pytest.fixture(scope="session")
def archive() -> Path:
    proc = tool("build.install", "dist")
    assert proc.returncode == 0, proc.stderr
    return Path(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def unpacked(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive unpacked with tar under <tmp>/unpacked here/."""
    dest = tmp_path_factory.mktemp("dist") / "unpacked here"
    dest.mkdir()
    run("tar", "-xf", archive, "-C", dest)
    (top,) = dest.iterdir()
    return top


@pytest.fixture(params=["installed", "unpacked"])
def prefix(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue(request.param)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pure-Python wheel and a cp313 wheel, from PyPI with this venv's pip."""
    dest = tmp_path_factory.mktemp("wheels")
    run(sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
        "--only-binary=:all:", "--no-deps", "-d", dest, PURE, BINARY)
    return dest


def test_python_names_the_pep671_build_and_series(prefix: Path, build_tag: str) -> None:
    assert re.fullmatch(r"pep671-\d+-[0-9a-f]{12}(-dirty)?", build_tag)
    vv = run(prefix / "bin" / PY, "-VV").stdout
    assert vv.startswith(f"Python {CPYTHON_VERSION} ({build_tag}, ")
    code = "import sys; print(sys.version); print(sys._git[1])"
    version, git = run(prefix / "bin" / PY, "-c", code).stdout.splitlines()
    assert version == vv.removeprefix("Python ").strip() and git == build_tag
    # ./python is the same build
    assert run(paths.PYTHON, "-c", code).stdout.splitlines()[1] == build_tag


def test_laid_out_like_altinstall(prefix: Path) -> None:
    assert sorted(p.name for p in (prefix / "bin").iterdir()) == [
        "idle3.13", "pip3.13", "pydoc3.13", PY, "python3.13-config"]
    assert sorted(p.name for p in prefix.iterdir()) == ["bin", "include", "lib", "share"]


def test_paths_are_the_prefix_and_not_the_build_directory(prefix: Path) -> None:
    code = """if True:
        import json, sys, sysconfig
        keys = ["prefix", "exec_prefix", "BINDIR", "LIBDIR", "LIBDEST", "BINLIBDEST",
                "INCLUDEPY", "CONFINCLUDEPY", "LIBPL", "DESTSHARED", "LIBPC", "MANDIR"]
        print(json.dumps({"prefix": sys.prefix, "base_prefix": sys.base_prefix,
                          "executable": sys.executable, "path": sys.path[1:],
                          "paths": sysconfig.get_paths(),
                          "vars": {k: sysconfig.get_config_var(k) for k in keys}}))
    """
    out = run(prefix / "bin" / PY, "-s", "-c", code, cwd=prefix).stdout
    info = json.loads(out)
    assert str(BUILD) not in out
    prefix = prefix.resolve()
    assert info["prefix"] == info["base_prefix"] == str(prefix)
    assert info["executable"] == str(prefix / "bin" / PY)
    where = [*info["path"], *info["paths"].values(), *info["vars"].values()]
    assert len(where) > 20
    for path in where:
        assert Path(path).is_relative_to(prefix), path
    assert Path(info["vars"]["INCLUDEPY"], "Python.h").is_file()
    assert Path(info["vars"]["LIBPL"], "Makefile").is_file()


def test_scripts_run_the_python_next_to_them(prefix: Path) -> None:
    pip = run(prefix / "bin" / "pip3.13", "--version").stdout
    assert f"from {prefix / 'lib' / PY / 'site-packages' / 'pip'} (python 3.13)" in pip
    assert "join(split_command)" in run(prefix / "bin" / "pydoc3.13", "shlex").stdout


def test_help_shows_late_bound_defaults(prefix: Path) -> None:
    code = "def bisect_right(a, x, lo=0, hi=>len(a)):\n    'Find the spot.'\nhelp(bisect_right)"
    out = run(prefix / "bin" / PY, "-c", code).stdout
    assert "bisect_right(a, x, lo=0, hi=>len(a))" in out


def test_late_bound_defaults_suite_passes(prefix: Path, tmp_path: Path) -> None:
    proc = run(prefix / "bin" / PY, "-m", "test", "test_late_bound_defaults", cwd=tmp_path)
    assert "Result: SUCCESS" in proc.stdout
    assert re.search(r"Total tests: run=[1-9]", proc.stdout)


def test_venv_installs_pure_and_binary_wheels(prefix: Path, wheels: Path,
                                              tmp_path: Path) -> None:
    names = sorted(p.name for p in wheels.iterdir())
    assert [n for n in names if "-py3-none-any." in n] and \
        [n for n in names if "-cp313-cp313-" in n], names
    venv = tmp_path / "a venv"
    run(prefix / "bin" / PY, "-m", "venv", venv)
    vpy = venv / "bin" / "python"
    run(vpy, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
        "--find-links", wheels, PURE, BINARY)
    code = ("import sys, coverage.tracer, iniconfig; print(sys.prefix, sys.base_prefix, "
            "coverage.tracer.__file__, iniconfig.__file__, sep='\\n')")
    vprefix, base, tracer, pure = run(vpy, "-c", code).stdout.splitlines()
    assert (vprefix, base) == (str(venv), str(prefix.resolve()))
    assert tracer.endswith(sysconfig.get_config_var("EXT_SUFFIX"))
    assert Path(tracer).is_relative_to(venv) and Path(pure).is_relative_to(venv)


def test_install_writes_nothing_outside_the_prefix(installed: Path) -> None:
    base = installed.parent
    assert sorted(p.name for p in base.iterdir()) == ["home", "prefix"]
    assert list((base / "home").iterdir()) == []


def test_install_over_its_own_install_is_allowed(installed: Path) -> None:
    assert check_prefix(installed) == installed


def test_install_refuses_system_prefixes_and_other_pythons(tmp_path: Path) -> None:
    for system in ("/usr", "/usr/local"):
        proc = tool("build.install", "install", "--prefix", system)
        assert proc.returncode == 1 and "system Pythons live there" in proc.stderr
    other = tmp_path / "other"
    (other / "bin").mkdir(parents=True)
    (other / "bin" / PY).write_text(  # a Python 3.13 that is not ours, as it describes itself
        "#!/bin/sh\necho '{\"version\": \"3.13.5 (main, Jun 11 2025) [GCC]\", \"tag\": \"\", "
        "\"prefix\": \"/x\", \"platform\": \"linux-x86_64\", \"late_defaults\": false}'\n")
    (other / "bin" / PY).chmod(0o755)
    proc = tool("build.install", "install", "--prefix", str(other))
    assert proc.returncode == 1
    assert "holds another Python 3.13 (Python 3.13.5 (main, Jun 11 2025) [GCC])" in proc.stderr
    assert sorted(p.name for p in other.rglob("*")) == ["bin", PY]


def test_archive_name_checksum_and_top_directory(archive: Path, unpacked: Path,
                                                 build_tag: str) -> None:
    version = f"{CPYTHON_VERSION}-{build_tag.removeprefix('pep671-')}"
    assert archive.name == f"pep671-{version}-{sysconfig.get_platform()}.tar.xz"
    assert unpacked.name == f"pep671-{version}"
    sums = (archive.parent / "SHA256SUMS").read_text().splitlines()
    assert f"{sha256_file(archive)}  {archive.name}" in sums
