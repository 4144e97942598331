"""Shared fixtures: a tiny synthetic "upstream" tarball for the patch queue."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from tools.paths import REPO

# The tests of the wasm build and of the playground page need `make wasm`, the page and
# chromium: `make playground-test` builds those, then runs them (tools.docs.playground sets
# PEP671_PLAYGROUND_TEST=1). `make pytest` does not collect them.
if os.environ.get("PEP671_PLAYGROUND_TEST") != "1":
    collect_ignore = ["test_wasm.py", "test_playground.py", "playground"]

def tool(name: str, *args: str, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m tools.NAME ARGS` from the repository root (or cwd); NAME is dotted
    below tools, e.g. "build.pq"."""
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *args], capture_output=True,
                          text=True, env=env, cwd=cwd or REPO, stdin=subprocess.DEVNULL)


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=tree, check=True, capture_output=True,
                          text=True).stdout


@dataclass
class Upstream:
    tarball: Path
    sha256: str
    topdir: str

    def pq(self, cmd: str, tree: Path, patches: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        args = ["--tree", str(tree), "--patches", str(patches)]
        if cmd in ("apply", "prepare"):
            args += ["--tarball", str(self.tarball), "--sha256", self.sha256,
                     "--topdir", self.topdir]
        return tool("build.pq", cmd, *args, *extra)


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    src = tmp_path / "src" / "Fake-1.0"
    (src / "Grammar").mkdir(parents=True)
    (src / "Parser").mkdir()
    (src / "configure").write_text("#!/bin/sh\necho configured\n")
    os.chmod(src / "configure", 0o755)
    (src / "Grammar" / "python.gram").write_text("start: statements\n")
    (src / "Parser" / "parser.c").write_text("/* generated */\n")
    (src / "README").write_text("a tiny upstream\n")
    (src / "windows.bat").write_bytes(b"@echo off\r\nrem crlf\r\n")
    tarball = tmp_path / "Fake-1.0.tar.xz"
    with tarfile.open(tarball, "w:xz") as tf:
        tf.add(src, arcname="Fake-1.0")
    sha = hashlib.sha256(tarball.read_bytes()).hexdigest()
    return Upstream(tarball, sha, "Fake-1.0")


@pytest.fixture
def fake_clang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Path]:
    """Install `clang` and `clang++` running a given sh script first on PATH; the
    fixture's value installs them and returns their folder."""
    def install(script: str) -> Path:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        for name in ("clang", "clang++"):
            (bin_dir / name).write_text(script)
            (bin_dir / name).chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
        return bin_dir
    return install
