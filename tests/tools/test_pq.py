"""The patch queue on a tiny synthetic upstream (same code path as CPython's)."""

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


def test_fresh_tree_is_pristine_upstream_and_clean(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    assert git(tree, "rev-parse", "upstream") == git(tree, "rev-parse", "HEAD")
    assert (tree / "README").read_text() == "a tiny upstream\n"
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 0 and "clean" in r.stdout


def test_export_then_apply_reproduces_the_tree(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "Grammar/python.gram", "start: statements\ndefault: '=>' expr\n",
           "Grammar: late-bound defaults")
    (tree / "windows.bat").write_bytes(b"@echo off\r\nrem changed\r\n")
    git(tree, "commit", "-q", "-am", "windows: a CRLF file")
    commit(tree, "NEWS", "new file\n", "Add NEWS")
    head_tree = git(tree, "rev-parse", "HEAD^{tree}")

    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0, r.stderr
    series = (patches / "series").read_text().splitlines()
    assert len(series) == 3 and all(n.endswith(".patch") for n in series)
    assert sorted(p.name for p in patches.glob("*.patch")) == sorted(series)
    text = (patches / series[0]).read_text()
    assert text.startswith("From 0000000000000000000000000000000000000000 ")
    assert "\n-- \n" not in text  # no signature

    # Deterministic: exporting again changes no file.
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in patches.iterdir()}
    r = upstream.pq("export", tree, patches)
    assert r.returncode == 0 and "0 file(s) changed" in r.stdout
    assert before == {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in patches.iterdir()}

    # Apply from scratch: same content, and the same commits (reproducible hashes).
    head = git(tree, "rev-parse", "HEAD")
    shutil.rmtree(tree)
    r = upstream.pq("apply", tree, patches)
    assert r.returncode == 0, r.stderr
    assert git(tree, "rev-parse", "HEAD^{tree}") == head_tree
    assert git(tree, "rev-parse", "HEAD") == head
    assert (tree / "windows.bat").read_bytes() == b"@echo off\r\nrem changed\r\n"
    assert upstream.pq("status", tree, patches).returncode == 0

    # The series also applies with plain `git am` onto a pristine tree.
    plain = tmp_path / "plain"
    plain.mkdir()
    with tarfile.open(upstream.tarball) as tf:
        tf.extractall(plain, filter="data")
    p = plain / upstream.topdir
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "up"]):
        git(p, *args)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "am", "-q", "--keep-cr",
                    *[str(patches / n) for n in series]], cwd=p, check=True)
    assert git(p, "rev-parse", "HEAD^{tree}") == head_tree


def test_export_removes_stale_patches(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    commit(tree, "a.txt", "a\n", "First")
    commit(tree, "b.txt", "b\n", "Second")
    assert upstream.pq("export", tree, patches).returncode == 0
    git(tree, "reset", "-q", "--hard", "HEAD~1")
    assert upstream.pq("status", tree, patches).returncode == 1
    assert upstream.pq("export", tree, patches).returncode == 0
    assert (patches / "series").read_text() == "0001-First.patch\n"
    assert [p.name for p in patches.glob("*.patch")] == ["0001-First.patch"]


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


def test_build_products_and_regenerated_files_are_not_work(upstream: Upstream,
                                                           tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    (tree / "Parser" / "parser.c").write_text("/* regenerated by the build */\n")
    (tree / "Parser" / "parser.o").write_bytes(b"\0")
    (tree / "Makefile").write_text("all:\n")
    r = upstream.pq("status", tree, patches)
    assert r.returncode == 0, r.stdout


def test_export_refuses_generated_files(upstream: Upstream, tmp_path: Path) -> None:
    tree, patches = setup(upstream, tmp_path)
    (tree / "Parser" / "parser.c").write_text("/* hand edit */\n")
    git(tree, "update-index", "--no-skip-worktree", "Parser/parser.c")
    git(tree, "commit", "-q", "-am", "Touch a generated file")
    r = upstream.pq("export", tree, patches)
    assert r.returncode != 0 and "Parser/parser.c" in r.stderr
    assert (patches / "series").read_text() == ""


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
    from tools.pq import series_digest
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
