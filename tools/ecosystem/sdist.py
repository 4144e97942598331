"""A pinned sdist from PyPI (or a tarball from the npm registry): download it, check its
sha256, unpack it, apply our patch (with git apply), build its wheel, install.

Used by tools.ecosystem.venvs, which builds every ecosystem/patched/<tool>/ from its pin.toml
(and so by tests/test_third_party.py): the steps are separate so that a caller can
build a stock and a patched wheel from one download.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import Version

from tools.common import (PIP_QUIET, ToolError, run_logged, scrubbed_env, tail, unpack_sdist,
                          verify_sha256)

# Without a network, fail in seconds rather than after pip's configured timeout.
PIP_NETWORK = ["--timeout", "30", "--retries", "2"]


def download(python: Path, name: str, version: str, sha256: str, dest: Path,
             env: Mapping[str, str] | None = None, pkg_info_backend: str = "") -> Path:
    """The sdist name==version, fetched by python's pip into dest and verified. pip
    prepares its metadata, so its build backend is installed (as wheels: `--no-binary`
    names the package alone; pytokens' backend needs mypy, which would not build from
    source in an isolated environment); env adds variables, e.g. PIP_CONSTRAINT.

    With pkg_info_backend (the sdist's build-backend, which cannot prepare metadata
    here), pip imports pkg_info_backend.py under that name instead, without build
    isolation, and the metadata comes from the sdist's PKG-INFO."""
    cmd = [str(python), "-m", "pip", "download", *PIP_QUIET, *PIP_NETWORK, "--no-deps",
           "--no-binary", name, "-d", str(dest), f"{name}=={version}"]
    with tempfile.TemporaryDirectory(prefix="pkg-info-backend-") as stand_in:
        if pkg_info_backend:
            package = Path(stand_in, pkg_info_backend)
            package.mkdir()
            source = Path(__file__).with_name("pkg_info_backend.py").read_text(encoding="utf-8")
            (package / "__init__.py").write_text(source, encoding="utf-8")
            cmd.insert(cmd.index("--no-deps"), "--no-build-isolation")
            env = {**(env or {}), "PYTHONPATH": stand_in}
        pip(cmd, f"downloading the {name} {version} sdist", env)
    found = [p for p in dest.iterdir() if is_sdist_of(p, name, version)]
    if len(found) != 1:
        raise ToolError(f"pip download of {name}=={version} left {sorted(p.name for p in found)}"
                        f" in {dest}; expected one sdist")
    verify_sha256(found[0], sha256)
    return found[0]


def download_npm(package: str, version: str, sha256: str, dest: Path) -> Path:
    """The tarball of the npm package package@version, fetched by npm (`npm pack`) into
    dest, which must hold no other tarball, and verified."""
    cmd = ["npm", "pack", "--silent", "--pack-destination", str(dest), f"{package}@{version}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=scrubbed_env(),
                          stdin=subprocess.DEVNULL, cwd=dest)
    found = sorted(dest.glob("*.tgz"))
    if proc.returncode != 0 or len(found) != 1:
        raise ToolError(f"downloading the {package} {version} tarball failed (exit "
                        f"{proc.returncode}, {[p.name for p in found]} in {dest}); it needs "
                        f"npm to reach its registry.\n$ {' '.join(cmd)}\n"
                        f"{proc.stdout[-2000:]}{proc.stderr[-3000:]}")
    verify_sha256(found[0], sha256)
    return found[0]


def download_wheel(python: Path, name: str, version: str, wheels: Mapping[str, str],
                   dest: Path, env: Mapping[str, str] | None = None) -> Path:
    """The binary wheel of name==version for this platform, fetched by python's pip into
    dest and checked against wheels (file name -> sha256, a pin.toml's stock_wheels)."""
    pip([str(python), "-m", "pip", "download", *PIP_QUIET, *PIP_NETWORK, "--no-deps",
         "--only-binary", ":all:", "-d", str(dest), f"{name}=={version}"],
        f"downloading the {name} {version} wheel", env)
    found = sorted(dest.glob("*.whl"))
    if len(found) != 1:
        raise ToolError(f"pip download of the {name}=={version} wheel left "
                        f"{[p.name for p in found]} in {dest}; expected one wheel")
    wheel = found[0]
    if wheel.name not in wheels:
        raise ToolError(f"pip chose {wheel.name} for this platform, and the pin.toml of "
                        f"{name} has no sha256 for it ([package] stock_wheels: "
                        f"{', '.join(sorted(wheels))}); add that file with the sha256 "
                        "that PyPI publishes for it")
    verify_sha256(wheel, wheels[wheel.name])
    return wheel


def install(venv_python: Path, *targets: str | Path, deps: bool = False,
            env: Mapping[str, str] | None = None, pip_python: Path | None = None) -> None:
    """pip-install targets (trees, sdists, requirement specifiers) into the venv of
    venv_python, with the pip of pip_python (default: this interpreter's), so that the
    venv needs no pip of its own. env adds variables (a pin.toml's install_env)."""
    pip([str(pip_python or sys.executable), "-m", "pip", "--python", str(venv_python),
         "install", *PIP_QUIET, *PIP_NETWORK, *([] if deps else ["--no-deps"]),
         *map(str, targets)], f"pip-installing {', '.join(map(str, targets))}", env)


def build_wheel(python: Path, target: Path, dest: Path, log: Path,
                env: Mapping[str, str] | None = None) -> Path:
    """The wheel of target (an sdist or an unpacked source tree), built by python's pip
    (with build isolation: the build backend comes from PyPI) into dest, which must not
    hold another wheel. env adds variables (a pin.toml's install_env). pip writes what
    the build prints to log as it goes (a Rust build runs for minutes): -v, so that it
    shows the backend's output (cargo's progress) instead of holding it."""
    cmd = [str(python), "-m", "pip", "wheel", "-v", "--disable-pip-version-check",
           *PIP_NETWORK, "--no-deps", "-w", str(dest), str(target)]
    status = run_logged(cmd, log, env=scrubbed_env(env))
    if status != 0:
        raise ToolError(f"building the wheel of {target} failed (exit {status}); "
                        f"pip's and the build's output: {log}, which ends\n"
                        f"{tail(log, 30)}")
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise ToolError(f"building the wheel of {target} left {[w.name for w in wheels]} "
                        f"in {dest}; expected one wheel")
    return wheels[0]


def pip(cmd: list[str], what: str, env: Mapping[str, str] | None = None) -> None:
    """Run a pip command in the scrubbed environment; ToolError with its output if it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=scrubbed_env(env),
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise ToolError(f"{what} failed (exit {proc.returncode}); it needs pip to reach "
                        f"PyPI.\n$ {' '.join(cmd)}\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")


def is_sdist_of(path: Path, name: str, version: str) -> bool:
    """Is path the sdist of name==version (names and versions compared as pip does)?"""
    if not path.name.endswith(".tar.gz"):
        return False
    try:
        found_name, found_version = parse_sdist_filename(path.name)
    except InvalidSdistFilename:
        return False
    return found_name == canonicalize_name(name) and found_version == Version(version)


def unpack(sdist: Path, dest: Path) -> Path:
    """Unpack an sdist .tar.gz into dest; returns its top directory."""
    return unpack_sdist(sdist, dest)


def apply_patch(patch: Path, root: Path, exclude: Sequence[str] = ()) -> list[str]:
    """Apply a unified diff (git style, a/ and b/ prefixes) at root with `git apply`,
    but for the files that match a pattern of exclude (`git apply --exclude`).

    Each hunk must apply where its header says: the patch is made for one release, so
    a hunk git applies only at an offset is refused too. Returns the paths it changes;
    raises ToolError with git's report of what does not apply."""
    # root is not a repository; without a ceiling, git would find the one around build/
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.absolute().parent)}
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(var, None)

    excluded = [f"--exclude={pattern}" for pattern in exclude]

    def git_apply(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "apply", *args, *excluded, str(patch.absolute())],
                              cwd=root, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)

    check = git_apply("--check", "--verbose")
    if check.returncode != 0:
        raise ToolError(f"git apply --check: {check.stderr.strip()}")
    offsets = [line for line in check.stderr.splitlines() if "(offset " in line]
    if offsets:
        raise ToolError("hunks apply only at an offset (refresh the patch for this "
                        "release): " + "; ".join(offsets))
    paths = [line.split("\t")[-1] for line in git_apply("--numstat").stdout.splitlines()]
    done = git_apply()
    if done.returncode != 0:
        raise ToolError(f"git apply: {done.stderr.strip()}")
    return paths
