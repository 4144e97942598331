"""The patch queue on a tiny synthetic upstream (same code path as CPython's): a series in
two parts, the semantics (patches/semantics/) and the performance follow-up
(patches/performance/), split in the tree by the tag `semantics`."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

from conftest import Upstream, git


def setup(upstream: Upstream, tmp_path: Path) -> tuple[Path, Path]:
    tree, patches = tmp_path / "tree", tmp_path / "patches"
    patches.mkdir()
    (patches / "series").write_text("")
    r = upstream.pq("apply", tree, patches)
    assert r.returncode == 0, r.stderr
    return tree, patches


def commit(tree: Path, path: str, text: str, msg: str) -> None:
    (tree / path).write_text(text)
    git(tree, "add", path)
    git(tree, "commit", "-q", "-m", msg)


def tag_semantics(tree: Path, rev: str) -> None:
    git(tree, "tag", "-f", "semantics", rev)


def rev(tree: Path, name: str) -> str:
    return git(tree, "rev-parse", name).strip()


def series_lines(patches: Path) -> list[str]:
    return (patches / "series").read_text().splitlines()


def test_fresh_tree_is_pristine_upstream_and_clean(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    assert git(tree, "rev-parse", "upstream") == git(tree, "rev-parse", "HEAD")
    # no semantics patch: the split is at upstream
    assert git(tree, "rev-parse", "semantics") == git(tree, "rev-parse", "upstream")
    assert (tree / "README").read_text() == "a tiny upstream\n"
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 0 and "clean" in r.stdout


def test_export_writes_two_parts_and_apply_reproduces_the_tree(upstream: Upstream,
                                                               tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "Grammar/python.gram", "start: statements\ndefault: '=>' expr\n",
           "Grammar: late-bound defaults")
    (tree / "windows.bat").write_bytes(b"@echo off\r\nrem changed\r\n")
    git(tree, "commit", "-q", "-am", "windows: a CRLF file")
    tag_semantics(tree, "HEAD")
    commit(tree, "NEWS", "new file\n", "Make it fast")
    head_tree = git(tree, "rev-parse", "HEAD^{tree}")
    semantics_tree = git(tree, "rev-parse", "semantics^{tree}")

    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0, r.stderr
    assert "2 semantics and 1 performance patch(es)" in r.stdout
    # each part numbered from 0001, after its comment line, semantics first
    lines = series_lines(patches)
    assert lines[0].startswith("# The semantics") and lines[3].startswith("# The performance")
    series = [line for line in lines if not line.startswith("#")]
    assert series == ["semantics/0001-Grammar-late-bound-defaults.patch",
                      "semantics/0002-windows-a-CRLF-file.patch",
                      "performance/0001-Make-it-fast.patch"]
    assert sorted(str(p.relative_to(patches)) for p in patches.rglob("*.patch")) == sorted(series)
    assert list(patches.glob("*.patch")) == []
    text = (patches / series[0]).read_text()
    assert text.startswith("From 0000000000000000000000000000000000000000 ")
    assert "\n-- \n" not in text  # no signature

    # Deterministic: exporting again changes no file.
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in patches.rglob("*")
              if p.is_file()}
    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0 and "0 file(s) changed" in r.stdout
    assert before == {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in patches.rglob("*")
                      if p.is_file()}

    # Apply from scratch: same content, the same commits (reproducible hashes), and the
    # tag `semantics` after the semantics part.
    head, split = rev(tree, "HEAD"), rev(tree, "semantics")
    shutil.rmtree(tree)
    r = upstream.pq("apply", tree, patches)
    assert r.returncode == 0, r.stderr
    assert git(tree, "rev-parse", "HEAD^{tree}") == head_tree
    assert rev(tree, "HEAD") == head and rev(tree, "semantics") == split
    assert (tree / "windows.bat").read_bytes() == b"@echo off\r\nrem changed\r\n"
    assert upstream.pq("status", tree, patches).returncode == 0

    # Each part applies with plain `git am` onto a pristine tree: the semantics alone,
    # then the follow-up on top of it.
    plain = tmp_path / "plain"
    plain.mkdir()
    with tarfile.open(upstream.tarball) as tf:
        tf.extractall(plain, filter="data")
    p = plain / upstream.topdir
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "up"]):
        git(p, *args)
    for part, expected in (("semantics", semantics_tree), ("performance", head_tree)):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "am", "-q",
                        "--keep-cr", *sorted(map(str, (patches / part).glob("*.patch")))],
                       cwd=p, check=True)
        assert git(p, "rev-parse", "HEAD^{tree}") == expected


def test_export_refuses_a_tree_without_the_semantics_tag(upstream: Upstream,
                                                          tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    git(tree, "tag", "-d", "semantics")
    r = upstream.pq("export", tree, patches)
    assert r.returncode != 0
    assert "no tag `semantics`" in r.stderr
    assert f"git -C {tree} tag -f semantics <commit>" in r.stderr
    assert (patches / "series").read_text() == "" and list(patches.rglob("*.patch")) == []
    # status says so too, while the commit itself is work to keep
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1
    assert "no tag `semantics`" in r.stdout and "0001-First.patch" in r.stdout
    assert upstream.pq("version", tree, patches).stdout.strip().endswith("-dirty")
    tag_semantics(tree, "HEAD")
    assert upstream.pq("export", tree, patches).returncode == 0
    assert series_lines(patches)[1] == "semantics/0001-First.patch"


def test_export_refuses_a_tag_that_a_rebase_left_behind(upstream: Upstream,
                                                        tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "Semantics")
    tag_semantics(tree, "HEAD")
    commit(tree, "b.txt", "b\n", "Speed")
    assert upstream.pq("export", tree, patches).returncode == 0
    # a rebase that rewrites the semantics commit: the tag stays on the old one
    git(tree, "reset", "-q", "--hard", "upstream")
    commit(tree, "a.txt", "a, reworded\n", "Semantics")
    new_semantics = rev(tree, "HEAD")
    commit(tree, "b.txt", "b\n", "Speed")
    r = upstream.pq("export", tree, patches)
    assert r.returncode != 0 and "not a commit of upstream..HEAD" in r.stderr
    # it names the commit of HEAD with the subject of the tagged one
    assert f"git -C {tree} tag -f semantics {new_semantics[:12]}" in r.stderr
    assert "a\n" in (patches / "semantics" / "0001-Semantics.patch").read_text()
    tag_semantics(tree, new_semantics)
    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0 and "1 semantics and 1 performance" in r.stdout
    assert "a, reworded" in (patches / "semantics" / "0001-Semantics.patch").read_text()


def test_a_tag_on_a_commit_outside_the_series_is_refused(upstream: Upstream,
                                                          tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    git(tree, "checkout", "-q", "-b", "side", "upstream")
    commit(tree, "b.txt", "b\n", "Elsewhere")
    tag_semantics(tree, "HEAD")
    git(tree, "checkout", "-q", "main")
    r = upstream.pq("export", tree, patches)
    assert r.returncode != 0 and "not a commit of upstream..HEAD" in r.stderr


def test_export_removes_stale_patches(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    tag_semantics(tree, "HEAD")
    commit(tree, "b.txt", "b\n", "Second")
    (patches / "0001-Before-the-parts.patch").write_text("a patch of the old layout\n")
    assert upstream.pq("export", tree, patches).returncode == 0
    assert not (patches / "0001-Before-the-parts.patch").exists()
    # the last commit goes: so does its part
    git(tree, "reset", "-q", "--hard", "HEAD~1")
    assert upstream.pq("status", tree, patches).returncode == 1
    assert upstream.pq("export", tree, patches).returncode == 0
    assert [n for n in series_lines(patches) if not n.startswith("#")] == [
        "semantics/0001-First.patch"]
    assert [str(p.relative_to(patches)) for p in patches.rglob("*.patch")] == [
        "semantics/0001-First.patch"]
    assert not (patches / "performance").exists()


def exported_in_two_parts(upstream: Upstream, tmp_path: Path) -> tuple[Path, Path]:
    """A tree of two commits, the first the semantics part, exported."""
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    commit(tree, "b.txt", "b\n", "Second")
    tag_semantics(tree, "HEAD~1")
    assert upstream.pq("export", tree, patches).returncode == 0
    return tree, patches


def test_moving_the_tag_moves_a_patch_to_the_other_part(upstream: Upstream,
                                                        tmp_path: Path) -> None:
    tree, patches = exported_in_two_parts(upstream, tmp_path)
    tag_semantics(tree, "HEAD")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1
    assert "semantics part (upstream..semantics) has 2 commit(s)" in r.stdout
    assert "semantics/0002-Second.patch" in r.stdout
    assert upstream.pq("export", tree, patches).returncode == 0
    assert sorted(str(p.relative_to(patches)) for p in patches.rglob("*.patch")) == [
        "semantics/0001-First.patch", "semantics/0002-Second.patch"]
    assert upstream.pq("status", tree, patches).returncode == 0


def test_status_reports_uncommitted_change(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    (tree / "README").write_text("edited\n")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1
    assert "uncommitted" in r.stdout and "README" in r.stdout


def test_status_reports_untracked_file(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    (tree / "new_test.py").write_text("pass\n")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1 and "new_test.py" in r.stdout


def test_status_reports_unexported_commit(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "README", "changed\n", "Change README")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1
    assert "not exported" in r.stdout and "0001-Change-README.patch" in r.stdout
    assert upstream.pq("export", tree, patches).returncode == 0
    assert upstream.pq("status", tree, patches).returncode == 0


def test_build_products_are_not_work(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    (tree / "Parser" / "parser.o").write_bytes(b"\0")
    (tree / "Makefile").write_text("all:\n")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 0, r.stdout


def test_status_reports_a_regenerated_file_as_unexported_work(upstream: Upstream,
                                                               tmp_path: Path) -> None:
    # a build after an edit of the grammar regenerated the parser: to be committed with it
    tree, patches = setup(upstream, tmp_path)
    assert git(tree, "ls-files", "-v", "Parser/parser.c") == "H Parser/parser.c\n"
    (tree / "Parser" / "parser.c").write_text("/* regenerated by the build */\n")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 1
    assert "uncommitted" in r.stdout and " M Parser/parser.c" in r.stdout
    assert "1 of them regenerated by the build" in r.stdout
    assert upstream.pq("version", tree, patches).stdout.strip().endswith("-dirty")
    r = upstream.pq("apply", tree, patches)
    assert r.returncode != 0 and "Parser/parser.c" in r.stderr and "refusing" in r.stderr


def test_export_includes_generated_files(upstream: Upstream, tmp_path: Path) -> None:
    # as upstream's commits do: the grammar and the parser regenerated from it, together
    tree, patches = setup(upstream, tmp_path)
    (tree / "Grammar" / "python.gram").write_text("start: statements\ndefault: '=>' expr\n")
    (tree / "Parser" / "parser.c").write_text("/* generated, with '=>' */\n")
    git(tree, "commit", "-q", "-am", "Grammar: late-bound defaults")
    tag_semantics(tree, "HEAD")
    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0, r.stderr
    text = (patches / "semantics" / "0001-Grammar-late-bound-defaults.patch").read_text()
    assert "diff --git a/Parser/parser.c b/Parser/parser.c" in text
    assert "+/* generated, with '=>' */" in text
    assert upstream.pq("status", tree, patches).returncode == 0
    shutil.rmtree(tree)
    assert upstream.pq("apply", tree, patches).returncode == 0
    assert (tree / "Parser" / "parser.c").read_text() == "/* generated, with '=>' */\n"
    assert "S " not in git(tree, "ls-files", "-v")      # nothing marked skip-worktree
    assert upstream.pq("status", tree, patches).returncode == 0


def test_prepare_remakes_a_tree_an_older_pq_marked_skip_worktree(upstream: Upstream,
                                                                 tmp_path: Path) -> None:
    # an older tools.build.pq marked the regenerated files skip-worktree, and the build
    # changed them: when patches/ changes, the tree is remade as any other
    tree, patches = setup(upstream, tmp_path)
    git(tree, "update-index", "--skip-worktree", "Parser/parser.c")
    (tree / "Parser" / "parser.c").write_text("/* regenerated by an old build */\n")
    other_tree, other = tmp_path / "other", tmp_path / "other-patches"
    other.mkdir()
    (other / "series").write_text("")
    assert upstream.pq("apply", other_tree, other).returncode == 0
    commit(other_tree, "Parser/parser.c", "/* generated, with '=>' */\n", "The parser")
    assert upstream.pq("export", other_tree, other).returncode == 0
    shutil.rmtree(patches)
    shutil.copytree(other, patches)
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0, r.stderr
    assert (tree / "Parser" / "parser.c").read_text() == "/* generated, with '=>' */\n"
    assert "S " not in git(tree, "ls-files", "-v")
    assert upstream.pq("status", tree, patches).returncode == 0


def test_prepare_rebuilds_when_patches_change_but_never_loses_work(upstream: Upstream,
                                                                  tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0 and "up to date" in r.stderr

    # Someone else's series (e.g. from `git pull`) arrives in patches/.
    other_tree, other = tmp_path / "other", tmp_path / "other-patches"
    other.mkdir()
    (other / "series").write_text("")
    assert upstream.pq("apply", other_tree, other).returncode == 0
    commit(other_tree, "README", "from upstream of us\n", "Pulled change")
    assert upstream.pq("export", other_tree, other).returncode == 0

    # Unexported local work: prepare refuses and keeps the tree as it is.
    commit(tree, "local.txt", "mine\n", "Local work")
    shutil.rmtree(patches)
    shutil.copytree(other, patches)
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode != 0 and "refusing" in r.stderr
    assert (tree / "local.txt").read_text() == "mine\n"

    # Without local work, prepare rebuilds the tree from the new series.
    git(tree, "reset", "-q", "--hard", "upstream")
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0, r.stderr
    assert (tree / "README").read_text() == "from upstream of us\n"
    assert not (tree / "local.txt").exists()
    assert upstream.pq("status", tree, patches).returncode == 0


def test_prepare_keeps_a_tree_that_already_matches(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    commit(tree, "a.txt", "a\n", "Experiment")
    assert upstream.pq("export", tree, elsewhere).returncode == 0
    git(tree, "reset", "-q", "--hard", "upstream")
    (tree / "Makefile").write_text("all:\n")  # a build product: gone if the tree were remade
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0 and "already matches" in r.stderr, r.stderr
    assert (tree / "Makefile").is_file()
    assert "up to date" in upstream.pq("prepare", tree, patches).stderr


def test_version_names_the_series_and_marks_unexported_work(upstream: Upstream,
                                                            tmp_path: Path) -> None:
    from tools.build.pq import series_digest
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "README", "changed\n", "Change README")
    r = upstream.pq("version", tree, patches)
    assert r.returncode == 0, r.stderr
    # the commit is not in patches/ yet: the tree is not what the series says
    assert r.stdout.strip().endswith("-dirty") and r.stdout.startswith("pep671-1-")
    assert upstream.pq("export", tree, patches).returncode == 0
    clean = upstream.pq("version", tree, patches).stdout.strip()
    assert clean == f"pep671-1-{series_digest(patches)[:12]}"
    (tree / "README").write_text("edited, not committed\n")
    assert upstream.pq("version", tree, patches).stdout.strip() == clean + "-dirty"


def test_prepare_tags_a_tree_whose_commits_are_the_series(upstream: Upstream,
                                                          tmp_path: Path) -> None:
    # A tree made before the parts (no tag), whose commits are those of patches/.
    tree, patches = exported_in_two_parts(upstream, tmp_path)
    split = rev(tree, "semantics")
    git(tree, "tag", "-d", "semantics")
    (tree / ".git" / "pep671-series-sha256").write_text("made by an older pq\n")
    (tree / "Makefile").write_text("all:\n")  # a build product: gone if the tree were remade
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 0 and "nothing is lost" in r.stdout, r.stdout
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0 and "already matches" in r.stderr, r.stderr
    assert "commit 1 of upstream..HEAD" in r.stderr
    assert rev(tree, "semantics") == split and (tree / "Makefile").is_file()
    assert upstream.pq("status", tree, patches).returncode == 0


def test_prepare_keeps_building_a_tree_in_the_middle_of_a_rebase(upstream: Upstream,
                                                                  tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    tag_semantics(tree, "HEAD")
    assert upstream.pq("export", tree, patches).returncode == 0
    git(tree, "reset", "-q", "--hard", "upstream")
    commit(tree, "a.txt", "a, rewritten\n", "First")     # the tag is left behind
    r = upstream.pq("prepare", tree, patches)
    assert r.returncode == 0 and "up to date" in r.stderr
    assert "note: the tag `semantics`" in r.stderr and "tag -f semantics" in r.stderr
    assert (tree / "a.txt").read_text() == "a, rewritten\n"


def test_apply_takes_only_a_series_in_its_two_parts(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    tag_semantics(tree, "HEAD")
    assert upstream.pq("export", tree, patches).returncode == 0
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(patches / "semantics" / "0001-First.patch", flat)
    (flat / "series").write_text("0001-First.patch\n")
    r = upstream.pq("apply", tmp_path / "other", flat)
    assert r.returncode != 0 and "semantics/NAME.patch or performance/NAME.patch" in r.stderr
    assert not (tmp_path / "other").exists()
