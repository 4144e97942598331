"""Shared helpers for the pep671 tools (stdlib only, Python 3.11+)."""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Mapping, NoReturn, Sequence

# The upstream pin.
CPYTHON_VERSION = "3.13.5"
TARBALL_NAME = f"Python-{CPYTHON_VERSION}.tar.xz"
TARBALL_SHA256 = "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"
TARBALL_TOPDIR = f"Python-{CPYTHON_VERSION}"
PYTHON_ORG_URL = f"https://www.python.org/ftp/python/{CPYTHON_VERSION}/{TARBALL_NAME}"
DEBIAN_SOURCE_PACKAGE = "python3.13"
DEBIAN_SOURCE_VERSION = "3.13.5-2+deb13u5"
DEBIAN_SUITE = "trixie"
DEBIAN_ORIG_NAME = f"{DEBIAN_SOURCE_PACKAGE}_{CPYTHON_VERSION}.orig.tar.xz"

REPO_ROOT = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """Per-user cache (~/.cache/pep671, or $XDG_CACHE_HOME/pep671)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pep671"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def say(msg: str) -> None:
    """A progress line, visible in make and CI logs."""
    print(f"==> {msg}", file=sys.stderr, flush=True)


def die(msg: str, code: int = 1) -> NoReturn:
    print(f"error: {msg}", file=sys.stderr, flush=True)
    raise SystemExit(code)


def run(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    capture: bool = False,
    stdin_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    args = [str(c) for c in cmd]
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        text=True,
        input=stdin_text,
        stdin=None if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
    )
    if check and proc.returncode != 0:
        detail = ""
        if capture:
            detail = "\n" + (proc.stdout or "") + (proc.stderr or "")
        die(f"command failed (exit {proc.returncode}): {shlex.join(args)}"
            f"{' in ' + str(cwd) if cwd else ''}{detail}")
    return proc
