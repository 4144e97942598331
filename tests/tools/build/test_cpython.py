"""tools.build.cpython without building CPython: the build tag's make variables, the ./python
wrapper, the clone of a tree, when ./configure runs again, and the series prefixes (make
noperf: the semantics part alone)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.build import cpython
from tools.common import ToolError
from tools.paths import REPO
from tools.build.series import read_series, series_text, split_series


def test_build_tag_goes_into_the_git_variables() -> None:
    assert cpython.build_info_make_vars("pep671-10-abc") == [
        "GITTAG=echo pep671-10-abc", "GITVERSION=", "GITBRANCH="]
    with pytest.raises(ToolError, match="letters, digits"):
        cpython.build_info_make_vars("x; rm -rf /")



def test_the_baseline_is_built_under_the_upstream_tag(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(cpython, "BASELINE_SERIES", tmp_path / "baseline-series")
    monkeypatch.setattr(cpython.pq, "prepare", lambda tree, patches: None)
    monkeypatch.setattr(cpython, "build", lambda tree, **kw: seen.update(kw) or tree)
    cpython.build_baseline()
    assert seen["build_tag"] == cpython.UPSTREAM_TAG == "tags/upstream"
    # only the tag is given: the revision is still what configure's git command finds
    assert cpython.build_info_make_vars(cpython.UPSTREAM_TAG) == ["GITTAG=echo tags/upstream"]


def test_the_upstream_tag_replaces_what_git_describe_finds(tmp_path: Path) -> None:
    # the baseline's tree: upstream's commit carries our `semantics` tag too (an empty
    # series), and `git describe --all`, configure's GITTAG, picks that one
    tree = tmp_path / "baseline"
    tree.mkdir()
    (tree / "Makefile").write_text(
        "GITTAG=git describe --all --always --dirty\n"
        "GITVERSION=git rev-parse --short HEAD\n"
        "info:\n\t@echo \"`$(GITTAG)`:`$(GITVERSION)`\"\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "Makefile"], ["commit", "-qm", "upstream"],
                 ["tag", "upstream"], ["tag", "semantics"]):
        subprocess.run(["git", *args], cwd=tree, check=True, env=env)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, check=True,
                         capture_output=True, text=True).stdout.strip()

    def info(*make_vars: str) -> str:
        return subprocess.run(["make", "-s", "info", *make_vars], cwd=tree, check=True,
                              capture_output=True, text=True, env=env).stdout.strip()
    assert info() == f"tags/semantics:{rev}"
    assert info(*cpython.build_info_make_vars(cpython.UPSTREAM_TAG)) == f"tags/upstream:{rev}"

def test_the_link_is_a_wrapper_that_runs_the_interpreter(tmp_path: Path) -> None:
    python = tmp_path / "build" / "cpython" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\necho \"ran with $*\"\n")
    python.chmod(0o755)
    link = tmp_path / "python"
    link.symlink_to(python)            # an old symlink is replaced by the wrapper
    cpython.write_link(python, link)
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
    assert cpython.clone_tree(source, clone) is True
    assert cpython.clone_tree(source, clone) is False
    git(source, "commit", "-q", "--amend", "-m", "rewritten")   # pq rewrites history
    assert cpython.clone_tree(source, clone) is True
    assert git(clone, "rev-parse", "HEAD") == git(source, "rev-parse", "HEAD")
    with pytest.raises(ToolError, match="not a git tree"):
        cpython.clone_tree(tmp_path / "nothing", tmp_path / "other")


def test_configure_runs_again_only_when_the_flags_change(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    calls = tmp_path / "calls"
    (tree / "configure").write_text(
        "#!/bin/sh\n"
        f"echo \"configure $*\" | sed 's/PYTHON_FOR_REGEN=[^ ]*/REGEN/' >> {calls}\n"
        f"printf 'clean:\\n\\techo clean >> {calls}\\n' > Makefile\n")
    (tree / "configure").chmod(0o755)
    builder = cpython.Builder(tree, "test", tmp_path / "logs", verbose=False)
    cpython.configure(builder, "")
    cpython.configure(builder, "")
    cpython.configure(builder, "--with-pydebug")
    assert calls.read_text().splitlines() == [
        "configure REGEN", "clean", "configure REGEN --with-pydebug"]


def test_regeneration_runs_again_only_when_a_file_changed(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    calls = tmp_path / "calls"
    (tree / "configure").write_text("#!/bin/sh\n")
    (tree / "configure").chmod(0o755)
    regen = "\n".join(f"{target}:\n\techo {target} >> {calls}" for target in cpython.REGEN_TARGETS)
    (tree / "Makefile").write_text(
        f"all:\n\tln -sf {sys.executable} python\nclean:\n{regen}\n"
        f"regen-test-frozenmain:\n\techo frozen > frozenmain.h\n")
    (tree / "grammar").write_text("a\n")
    (tree / "parser.c").write_text("generated\n")
    (tree / "frozenmain.h").write_text("")
    git(tree, "init", "-q")
    (tree / ".git" / "info" / "exclude").write_text("/python\n/.pep671-*\n")
    git(tree, "add", "-A")
    git(tree, "commit", "-qm", "pristine")     # the regenerated files tracked as any other

    def regenerated() -> bool:
        calls.unlink(missing_ok=True)
        cpython.build(tree, name="test", regen=True, jobs=1, logdir=tmp_path / "logs")
        return calls.is_file() and calls.read_text().split() == cpython.REGEN_TARGETS

    assert regenerated()
    assert not regenerated()                   # frozenmain.h, written after, is recorded
    (tree / "grammar").write_text("b\n")      # a source changed
    assert regenerated()
    assert not regenerated()
    (tree / "parser.c").write_text("edited by hand\n")   # a regenerated file changed
    assert regenerated()
    assert not regenerated()
    git(tree, "commit", "-qam", "parser.c as edited")       # committed: the same content
    assert not regenerated()
    git(tree, "rm", "-q", "--cached", "parser.c")             # untracked: still counted
    assert not regenerated()
    (tree / "parser.c").write_text("edited again\n")
    assert regenerated()
    git(tree, "reset", "-q", "--hard", "HEAD")
    assert regenerated()                                     # a checkout changed it
    (tree / "new.c").write_text("")            # a file added
    assert regenerated()
    git(tree, "add", "new.c")                  # the tree's own index: untouched by the digest
    assert git(tree, "diff", "--cached", "--name-only") == "new.c"
    assert not regenerated()


def test_the_build_runs_the_target_of_every_file_it_regenerates() -> None:
    from tools.build.tree_files import GENERATED, regen_target
    assert set(GENERATED.values()) == {*cpython.REGEN_TARGETS, "regen-test-frozenmain"}
    assert regen_target("Parser/parser.c") == "regen-pegen"
    assert regen_target("Objects/clinic/longobject.c.h") == "clinic"
    assert regen_target("Parser/parser.h") is None


def test_a_failing_step_names_its_log(tmp_path: Path) -> None:
    builder = cpython.Builder(tmp_path, "test", tmp_path / "logs", verbose=False)
    with pytest.raises(ToolError, match="test-fail.log"):
        builder.step("a step that fails", "fail", ["sh", "-c", "echo oops; exit 3"])
    assert "oops" in (tmp_path / "logs" / "test-fail.log").read_text()


def write_series(patches: Path, semantics: int, performance: int) -> list[str]:
    """A series of that many patches in each part; returns its names."""
    names = ([f"semantics/000{i}-s.patch" for i in range(1, semantics + 1)]
             + [f"performance/000{i}-p.patch" for i in range(1, performance + 1)])
    for name in names:
        (patches / name).parent.mkdir(parents=True, exist_ok=True)
        (patches / name).write_text(f"patch {name}\n")
    (patches / "series").write_text(series_text(*split_series(names)))
    return names


def test_noperf_is_the_semantics_part_alone(tmp_path: Path) -> None:
    patches, dest = tmp_path / "patches", tmp_path / "noperf-series"
    names = write_series(patches, 3, 2)
    assert cpython.series_prefix(patches, "semantics", dest) == names[:3]
    assert read_series(dest) == names[:3]
    assert (dest / "series").read_text() == series_text(names[:3], [])
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*.patch")) == names[:3]
    assert (dest / names[1]).read_text() == f"patch {names[1]}\n"
    # the Makefile's noperf builds exactly that
    makefile = (REPO / "Makefile").read_text()
    recipe = makefile.split("\nnoperf:", 1)[1].split("\n\n", 1)[0]
    assert "--series-prefix semantics" in recipe and "--tree $(BUILD)/noperf" in recipe


def test_a_series_prefix_keeps_the_first_patches_across_the_parts(tmp_path: Path) -> None:
    patches, dest = tmp_path / "patches", tmp_path / "prefix-series"
    names = write_series(patches, 2, 2)
    assert cpython.series_prefix(patches, -1, dest) == names[:3]
    assert (dest / "series").read_text() == series_text(names[:2], names[2:3])
    # an unchanged prefix leaves the files alone; a shorter one removes the others
    before = (dest / names[0]).stat().st_mtime_ns
    assert cpython.series_prefix(patches, 3, dest) == names[:3]
    assert (dest / names[0]).stat().st_mtime_ns == before
    assert cpython.series_prefix(patches, 1, dest) == names[:1]
    assert sorted(str(p.relative_to(dest)) for p in dest.rglob("*.patch")) == names[:1]
    assert not (dest / "performance").exists()
    assert cpython.series_prefix(patches, 0, dest) == []
    assert read_series(dest) == []
    # a series with no performance part: noperf is all of it
    short = tmp_path / "short"
    write_series(short, 2, 0)
    assert cpython.series_prefix(short, "semantics", dest) == read_series(short)


def test_a_series_prefix_must_exist(tmp_path: Path) -> None:
    patches = tmp_path / "patches"
    names = write_series(patches, 1, 1)
    for count in (3, -3):
        with pytest.raises(ToolError, match="has 2 patches"):
            cpython.series_prefix(patches, count, tmp_path / "dest")
    (patches / names[1]).unlink()
    with pytest.raises(ToolError, match="missing file.*performance/0001-p.patch"):
        cpython.series_prefix(patches, 2, tmp_path / "dest")


def test_a_series_prefix_is_never_built_in_the_main_tree() -> None:
    with pytest.raises(ToolError, match="tree of its own"):
        cpython.build_series_prefix("semantics", cpython.TREE)
    with pytest.raises(SystemExit):
        cpython.main(["--series-prefix", "semantics", "--baseline"])


def test_the_series_prefix_option_is_semantics_or_a_number() -> None:
    assert cpython.prefix_arg("semantics") == "semantics"
    assert cpython.prefix_arg("-3") == -3
    with pytest.raises(argparse.ArgumentTypeError, match="'semantics' or a number"):
        cpython.prefix_arg("performance")
