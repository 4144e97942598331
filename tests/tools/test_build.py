"""tools.build without building CPython: the build tag's make variables, the ./python
wrapper, the clone of a tree, and when ./configure runs again."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tools import build
from tools.common import ToolError


def test_build_tag_goes_into_the_git_variables() -> None:
    assert build.build_info_make_vars("pep671-10-abc") == [
        "GITTAG=echo pep671-10-abc", "GITVERSION=", "GITBRANCH="]
    with pytest.raises(ToolError, match="letters, digits"):
        build.build_info_make_vars("x; rm -rf /")


def test_the_link_is_a_wrapper_that_runs_the_interpreter(tmp_path: Path) -> None:
    python = tmp_path / "build" / "cpython" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho \"ran with $*\"\n")
    python.chmod(0o755)
    link = tmp_path / "python"
    link.symlink_to(python)            # an old symlink is replaced by the wrapper
    build.write_link(python, link)
    assert not link.is_symlink() and os.access(link, os.X_OK)
    assert "build/cpython/python" in link.read_text()
    out = subprocess.run([str(link), "-c", "pass"], capture_output=True, text=True, check=True,
                         cwd="/")
    assert out.stdout == "ran with -c pass\n"


def git(tree: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=tree, check=True, capture_output=True, text=True).stdout.strip()


def test_clone_follows_the_head_of_its_source(tmp_path: Path) -> None:
    source, clone = tmp_path / "cpython", tmp_path / "debug"
    source.mkdir()
    git(source, "init", "-q")
    (source / "f").write_text("1\n")
    git(source, "add", "f")
    git(source, "commit", "-qm", "one")
    assert build.clone_tree(source, clone) is True
    assert build.clone_tree(source, clone) is False
    git(source, "commit", "-q", "--amend", "-m", "rewritten")   # pq rewrites history
    assert build.clone_tree(source, clone) is True
    assert git(clone, "rev-parse", "HEAD") == git(source, "rev-parse", "HEAD")
    with pytest.raises(ToolError, match="not a git tree"):
        build.clone_tree(tmp_path / "nothing", tmp_path / "other")


def test_configure_runs_again_only_when_the_flags_change(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    calls = tmp_path / "calls"
    (tree / "configure").write_text(
        "#!/bin/sh\n"
        f"echo \"configure $*\" | sed 's/PYTHON_FOR_REGEN=[^ ]*/REGEN/' >> {calls}\n"
        f"printf 'clean:\\n\\techo clean >> {calls}\\n' > Makefile\n")
    (tree / "configure").chmod(0o755)
    builder = build.Builder(tree, "test", tmp_path / "logs", verbose=False)
    build.configure(builder, "")
    build.configure(builder, "")
    build.configure(builder, "--with-pydebug")
    assert calls.read_text().splitlines() == [
        "configure REGEN", "clean", "configure REGEN --with-pydebug"]


def test_a_failing_step_names_its_log(tmp_path: Path) -> None:
    builder = build.Builder(tmp_path, "test", tmp_path / "logs", verbose=False)
    with pytest.raises(ToolError, match="test-fail.log"):
        builder.step("a step that fails", "fail", ["sh", "-c", "echo oops; exit 3"])
    assert "oops" in (tmp_path / "logs" / "test-fail.log").read_text()
