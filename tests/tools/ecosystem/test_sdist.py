"""tools.ecosystem.sdist: a patch applies with git apply exactly where its hunks say, or
not at all; sdist file names are compared as pip compares them; an sdist whose backend
cannot prepare metadata is downloaded through the stand-in backend."""

from __future__ import annotations

import difflib
import hashlib
import io
import sys
import tarfile
from pathlib import Path

import pytest

from tools.common import ToolError
from tools.ecosystem import sdist

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 21))


def make_patch(tmp_path: Path) -> Path:
    """A git-style diff that changes line 10 of pkg/mod.py and adds pkg/new.py."""
    changed = ORIGINAL.replace("line 10\n", "line ten\n")
    diff = "".join(difflib.unified_diff(ORIGINAL.splitlines(keepends=True),
                                        changed.splitlines(keepends=True),
                                        "a/pkg/mod.py", "b/pkg/mod.py"))
    diff += "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+created\n"
    patch = tmp_path / "late-defaults.patch"
    patch.write_text(diff)
    return patch


def unpacked(tmp_path: Path, text: str = ORIGINAL) -> Path:
    tree = tmp_path / "build" / "tool-1.0"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text(text)
    return tree


def test_the_patch_applies(tmp_path: Path) -> None:
    patch, tree = make_patch(tmp_path), unpacked(tmp_path)
    assert sorted(sdist.apply_patch(patch, tree)) == ["pkg/mod.py", "pkg/new.py"]
    assert (tree / "pkg" / "mod.py").read_text() == ORIGINAL.replace("line 10\n", "line ten\n")
    assert (tree / "pkg" / "new.py").read_text() == "created\n"


def test_the_files_a_release_does_not_ship_are_left_out(tmp_path: Path) -> None:
    # A patch written against the tool's repository changes its tests too, which the
    # registry's package of the release may not ship (a grammar's npm tarball).
    patch, tree = make_patch(tmp_path), unpacked(tmp_path)
    patch.write_text(patch.read_text() + "--- a/test/cases.txt\n+++ b/test/cases.txt\n"
                     "@@ -1,1 +1,2 @@\n first case\n+second case\n")
    with pytest.raises(ToolError, match="test/cases.txt"):
        sdist.apply_patch(patch, tree)
    assert sorted(sdist.apply_patch(patch, tree, ["test/*"])) == ["pkg/mod.py", "pkg/new.py"]
    assert (tree / "pkg" / "new.py").read_text() == "created\n"
    assert not (tree / "test").exists()


def test_a_hunk_that_does_not_apply_changes_nothing(tmp_path: Path) -> None:
    patch = make_patch(tmp_path)
    tree = unpacked(tmp_path, ORIGINAL.replace("line 9\n", "line nine\n"))
    with pytest.raises(ToolError, match="pkg/mod.py"):
        sdist.apply_patch(patch, tree)
    assert not (tree / "pkg" / "new.py").exists()
    assert "line 10\n" in (tree / "pkg" / "mod.py").read_text()


def test_a_hunk_that_applies_only_at_an_offset_is_refused(tmp_path: Path) -> None:
    patch = make_patch(tmp_path)
    tree = unpacked(tmp_path, "an added first line\n" + ORIGINAL)
    with pytest.raises(ToolError, match="offset"):
        sdist.apply_patch(patch, tree)
    assert "line 10\n" in (tree / "pkg" / "mod.py").read_text()


def test_sdist_names_compare_as_pip_compares_them() -> None:
    assert sdist.is_sdist_of(Path("Sphinx-9.2.0.tar.gz"), "sphinx", "9.2.0")
    assert sdist.is_sdist_of(Path("typing_extensions-4.12.2.tar.gz"), "typing-extensions",
                             "4.12.2")
    assert not sdist.is_sdist_of(Path("sphinx-9.2.1.tar.gz"), "sphinx", "9.2.0")
    assert not sdist.is_sdist_of(Path("sphinx-9.2.0.zip"), "sphinx", "9.2.0")
    assert not sdist.is_sdist_of(Path("notes.txt"), "sphinx", "9.2.0")


def test_a_form_feed_in_a_line_does_not_shift_the_hunks(tmp_path: Path) -> None:
    # A line that holds a form feed is one line for patch and git (autopep8's tests
    # have such a string); splitting lines as str.splitlines() does would move the hunk.
    root = tmp_path / "src"
    root.mkdir()
    (root / "t.py").write_bytes(b"a = 1\nb = '\x0c'\nc = 3\ne = 5\n")
    patch = tmp_path / "p.patch"
    patch.write_text("--- a/t.py\n+++ b/t.py\n@@ -3,2 +3,3 @@\n c = 3\n+d = 4\n e = 5\n")
    assert sdist.apply_patch(patch, root) == ["t.py"]
    assert (root / "t.py").read_bytes() == b"a = 1\nb = '\x0c'\nc = 3\nd = 4\ne = 5\n"


def local_sdist(index: Path, backend: str) -> Path:
    """index/unreachable-1.0.tar.gz: an sdist whose build backend, backend, is not
    installed anywhere, as pyrefly's maturin cannot run cargo metadata offline."""
    index.mkdir()
    archive = index / "unreachable-1.0.tar.gz"
    files = {"PKG-INFO": "Metadata-Version: 2.1\nName: unreachable\nVersion: 1.0\n",
             "pyproject.toml": f'[build-system]\nrequires = []\nbuild-backend = "{backend}"\n'}
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"unreachable-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return archive


def test_a_backend_that_cannot_prepare_metadata_is_stood_in_for(tmp_path: Path) -> None:
    archive = local_sdist(tmp_path / "index", "no_such_backend_here")
    sha256 = hashlib.sha256(archive.read_bytes()).hexdigest()
    env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(archive.parent)}
    python = Path(sys.executable)
    with pytest.raises(ToolError, match="no_such_backend_here"):
        sdist.download(python, "unreachable", "1.0", sha256, tmp_path / "first", env=env)
    dest = tmp_path / "second"
    dest.mkdir()
    got = sdist.download(python, "unreachable", "1.0", sha256, dest, env=env,
                         pkg_info_backend="no_such_backend_here")
    assert got == dest / archive.name and got.read_bytes() == archive.read_bytes()
    # the stand-in checks nothing itself: the sha256 still does
    with pytest.raises(ToolError, match="sha256"):
        sdist.download(python, "unreachable", "1.0", "00" * 32, tmp_path / "third", env=env,
                       pkg_info_backend="no_such_backend_here")


def test_a_logged_wheel_build_shows_the_backend_and_names_its_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "wheel-rusty-patched.log"

    def run_logged(cmd: list[str], to: Path, **kwargs: object) -> int:
        assert to == log and "-v" in cmd and "-q" not in cmd
        to.write_text("   Compiling rusty v1.0\nerror[E0425]: cannot find value `x`\n")
        return 1

    monkeypatch.setattr(sdist, "run_logged", run_logged)
    with pytest.raises(ToolError, match=r"(?s)wheel-rusty-patched.log.*cannot find value"):
        sdist.build_wheel(Path("python"), tmp_path / "tree", tmp_path / "out", log)
