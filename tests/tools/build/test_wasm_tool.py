"""tools.build.wasm without a cross build: the cache key, the cache, the stdlib zip."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tools.build import wasm
from tools.common import ToolError
from tools.paths import REPO


def test_digest_is_stable_and_follows_the_build_tag() -> None:
    assert wasm.inputs_digest("pep671-1-a") == wasm.inputs_digest("pep671-1-a")
    assert wasm.inputs_digest("pep671-1-a") != wasm.inputs_digest("pep671-1-b")
    assert len(wasm.inputs_digest(None)) == 64


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    out = tmp_path / "wasm"
    monkeypatch.setattr(wasm, "WASM_OUT", out)
    monkeypatch.setattr(wasm, "WASM_LIB", out / "lib")
    monkeypatch.setattr(wasm, "WASM_PYTHON", out / "python.wasm")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return out


def fill(out: Path, text: str) -> None:
    (out / "lib").mkdir(parents=True, exist_ok=True)
    for name in wasm.CACHE_FILES:
        (out / name).write_text(f"{text} {name}")


def test_cache_round_trip_and_pruning(out: Path) -> None:
    entry = wasm.cache_entry("a" * 64)
    assert not wasm.restore(entry)            # a cold cache restores nothing
    fill(out, "first")
    wasm.store(entry)
    fill(out, "changed")
    assert wasm.restore(entry)
    assert (out / "python.wasm").read_text() == "first python.wasm"
    assert (out / "lib" / wasm.ZIP_NAME).read_text() == f"first lib/{wasm.ZIP_NAME}"
    for n in range(wasm.KEEP_CACHED + 2):
        wasm.store(wasm.cache_entry(f"{n:x}" * 64))
    assert len(list(entry.parent.iterdir())) == wasm.KEEP_CACHED


def test_incomplete_entry_is_not_restored(out: Path) -> None:
    entry = wasm.cache_entry("b" * 64)
    fill(out, "x")
    wasm.store(entry)
    (entry / "python.wasm").unlink()
    assert not wasm.restore(entry)


def test_stdlib_zip_is_sourceless_and_importable(tmp_path: Path) -> None:
    lib = tmp_path / "Lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "pkg" / "__init__.py").write_text("from pkg.mod import f\n")
    (lib / "pkg" / "mod.py").write_text("def f(a, n=>len(a)):\n    return n\n")
    (lib / "test").mkdir()
    (lib / "test" / "__init__.py").write_text("")
    (lib / "idlelib.py").write_text("")
    extra = tmp_path / "_sysconfigdata_x.py"
    extra.write_text("build_time_vars = {}\n")
    zpath = tmp_path / "lib" / wasm.ZIP_NAME
    count, size = wasm.build_stdlib_zip(lib, [extra], zpath)
    names = sorted(zipfile.ZipFile(zpath).namelist())
    assert names == ["_sysconfigdata_x.pyc", "idlelib.pyc", "pkg/__init__.pyc", "pkg/mod.pyc"]
    assert count == 4 and size == zpath.stat().st_size
    assert all(i.compress_type == zipfile.ZIP_STORED for i in zipfile.ZipFile(zpath).infolist())
    # the .pyc files are this interpreter's bytecode (the patched one: `=>` compiles)
    proc = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(zpath)!r})"
                           "\nimport pkg; print(pkg.f([1, 2]), pkg.__file__)"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"2 {zpath}/pkg/__init__.pyc\n"


def test_node_command_needs_the_build(out: Path) -> None:
    with pytest.raises(ToolError, match="make wasm"):
        wasm.node_command(["-c", "pass"])


def test_help() -> None:
    for tool in ("build.wasm", "docs.playground"):
        proc = subprocess.run([sys.executable, "-m", f"tools.{tool}", "--help"],
                              capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 0 and "usage:" in proc.stdout


def test_missing_toolchain_as_another_user_names_the_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wasm.os, "geteuid", lambda: 1000)
    have = {"clang-19": "1:18.0-1", "wasi-libc": wasm.TOOLCHAIN["wasi-libc"]}
    monkeypatch.setattr(wasm, "installed_versions", lambda packages: have)
    with pytest.raises(ToolError) as info:
        wasm.ensure_toolchain()
    message = str(info.value)
    assert "clang-19 1:18.0-1 (pinned: 1:19.1.7-3~deb12u1)" in message
    assert "apt-get install clang-19=1:19.1.7-3~deb12u1 lld-19=" in message
    assert "wasi-libc=" not in message          # installed at its pin


def test_missing_chromium_as_another_user_names_the_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.docs import playground
    monkeypatch.setattr(playground.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(playground.deps, "missing", lambda packages: list(packages))
    with pytest.raises(ToolError, match="apt-get install chromium"):
        playground.ensure_chromium()
