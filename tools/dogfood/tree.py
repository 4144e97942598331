"""The dogfood tree: a clone of the patched tree whose Lib/ the rewrites change."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from tools.build.cpython import build, clone_tree
from tools.build.pq import git
from tools.build.tree_files import is_generated


def prepare_tree(source: Path, tree: Path) -> bool:
    """Make `tree` a clone of `source` at its HEAD, with Lib/ as committed. Returns
    True when the clone was made or moved to another commit (then it must be
    regenerated and built from scratch)."""
    moved = clone_tree(source, tree)
    restore_lib(tree)
    return moved


def restore_lib(tree: Path) -> list[str]:
    """Undo every change to Lib/ outside Lib/test/ but the regenerated files (the
    rewrites of a run); their bytecode caches go too. Returns the files restored."""
    changed = [p for p in git(tree, "diff", "--name-only", "HEAD", "--", "Lib",
                              ":(exclude)Lib/test").stdout.splitlines()
               if p and not is_generated(p)]
    if changed:
        git(tree, "checkout", "HEAD", "--", *changed)
        drop_bytecode(tree, changed)
    return changed


def drop_bytecode(tree: Path, files: Iterable[str]) -> None:
    """Remove the .pyc files of these sources: a rewrite and its undoing can fall in
    the same second with the same size, which the mtime check of a .pyc misses."""
    for rel in files:
        src = tree / rel
        for pyc in (src.parent / "__pycache__").glob(f"{src.stem}.*.pyc"):
            pyc.unlink(missing_ok=True)


def build_tree(tree: Path, logs: Path, jobs: int, regen: bool) -> None:
    """tools.build.cpython of the tree (the frozen modules follow Lib/)."""
    build(tree, name="dogfood", jobs=jobs, regen=regen, logdir=logs)
