"""Patch queue: the fork is a `git format-patch` series in patches/, in two parts.

patches/semantics/ is late-bound defaults themselves, a series that can be reviewed
and merged on its own; patches/performance/ is the performance follow-up that
applies on top of it; patches/series lists both (tools/build/series.py has the layout).

build/cpython is a git repository whose first commit is the pristine
upstream tree (tagged `upstream`); the series is applied on top with
`git am`, and the tag `semantics` marks the last commit of the semantics part:
upstream..semantics is patches/semantics/, semantics..HEAD patches/performance/.
Edit and commit there, then `python3 -m tools.build.pq export`. A commit added at the
end is a performance patch; one added to the semantics needs the tag moved onto
the new last semantics commit, and so does every rebase that rewrites the semantics
(the tag stays on the old commit): `git -C build/cpython tag -f semantics COMMIT`.
Export refuses while the tag is missing or not a commit of upstream..HEAD;
`prepare` sets it itself on a tree whose commits are those of patches/ (a tree
made before the parts, or rebased without a change).

Commands:
  prepare  make sure the tree reflects patches/ (rebuild it from the
           pristine tarball + series only when patches/ changed); used by make
  apply    rebuild the tree from the pristine tarball + series (always); tags
           `semantics` after the semantics part
  export   write upstream..semantics of the tree to patches/semantics/ and
           semantics..HEAD to patches/performance/, and patches/series
           (deterministic; patch files no longer in the tree are removed)
  status   exit 1 and say what, when the tree has work not in patches/
  version  print the build tag of the tree: pep671-<patches>-<digest>[-dirty]

A tree is never rebuilt while it has unexported work (uncommitted changes,
untracked files, or commits that are not in patches/) unless --force.
The files that the build regenerates (Parser/parser.c, ...; tools.build.tree_files) are
tracked like any other, and a patch carries them, as upstream's commits do: after a
change to their sources (Python/bytecodes.c, Grammar/python.gram, ...) and a build,
commit what it regenerated with the change; until then `status` lists them as
uncommitted work. (Trees made by an older tools.build.pq marked them skip-worktree; such
a tree is remade like any other when patches/ changes.)
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tools.build import fetch_cpython
from tools.common import ToolError, exits_on_tool_error, run, say, verify_sha256
from tools.paths import PATCHES, TARBALL, TARBALL_SHA256, TARBALL_TOPDIR, TREE, shown
from tools.build.git import IDENTITY, git, git_env
from tools.build.series import (PERFORMANCE, SEMANTICS, SPLIT_TAG, SplitError, read_series,
                          semantics_split, series_contents, series_digest, split_series,
                          sync_patches, write_series)
from tools.build.tree_files import EXCLUDE, is_generated

SNAPSHOT = "pep671-synced"          # under .git: patches/ as last applied/exported
UPSTREAM_DATE = "2025-06-11T12:00:00+00:00"   # release date of 3.13.5


# ---------------------------------------------------------------- snapshot

def snapshot_dir(tree: Path) -> Path:
    return tree / ".git" / SNAPSHOT


def save_snapshot(tree: Path, patches: Path) -> None:
    snap = snapshot_dir(tree)
    if snap.exists():
        shutil.rmtree(snap)
    snap.mkdir(parents=True)
    if (patches / "series").is_file():
        shutil.copyfile(patches / "series", snap / "series")
    for name in read_series(patches):
        (snap / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(patches / name, snap / name)
    (tree / ".git" / "pep671-series-sha256").write_text(series_digest(patches) + "\n")


def same_patches(a: Path, b: Path) -> bool:
    """Do two patch directories hold the same series (by content)?"""
    return series_digest(a) == series_digest(b)


# ---------------------------------------------------------------- export

def format_range(tree: Path, rev_range: str, outdir: Path) -> list[str]:
    """Write the commits of rev_range as deterministic patches into outdir, numbered from
    0001; returns their file names."""
    if git(tree, "rev-list", "--count", rev_range).stdout.strip() == "0":
        return []
    out = git(tree, "-c", "core.abbrev=12", "-c", "diff.algorithm=myers",
              "format-patch", "--zero-commit", "--no-signature", "--full-index",
              "--no-cover-letter", "--no-thread", "--no-numbered",
              "--no-renames", "--binary",
              "--output-directory", str(outdir), rev_range).stdout
    return [Path(line.strip()).name for line in out.splitlines() if line.strip()]


def format_patches(tree: Path, outdir: Path, patches: Path | None = None) -> list[str]:
    """Write the tree as a deterministic series into outdir: upstream..semantics into
    semantics/, semantics..HEAD into performance/, and the series file naming both (as
    series names, returned). SplitError when the tree's `semantics` tag is missing or
    off HEAD (patches/, when given, helps it say which commit to tag)."""
    split = semantics_split(tree, patches)
    outdir.mkdir(parents=True, exist_ok=True)
    names = [f"{SEMANTICS}/{n}" for n in
             format_range(tree, f"upstream..{split}", outdir / SEMANTICS)]
    names += [f"{PERFORMANCE}/{n}" for n in
              format_range(tree, f"{split}..HEAD", outdir / PERFORMANCE)]
    write_series(outdir, names)
    return names


def cmd_export(args: argparse.Namespace) -> int:
    tree, patches = args.tree, args.patches
    require_tree(tree)
    if uncommitted(tree):
        say("note: uncommitted changes in the tree are not exported (commit them first)")
    with tempfile.TemporaryDirectory(prefix="pep671-export-") as tmp:
        new = Path(tmp)
        names = format_patches(tree, new, patches)
        changed = sync_patches(new, names, patches)
    save_snapshot(tree, patches)
    semantics, performance = split_series(names)
    print(f"exported {len(semantics)} semantics and {len(performance)} performance patch(es) "
          f"to {patches} ({changed} file(s) changed)")
    return 0


# ---------------------------------------------------------------- status

@dataclass
class Status:
    exists: bool
    uncommitted: list[str] = field(default_factory=list)
    unexported: bool = False      # commits whose patches are neither in patches/ nor its snapshot
    untagged: str = ""            # why the tree cannot say where its semantics end (SplitError)
    same_content: bool = False    # (untagged) its commits' patches are those of patches/, in order
    behind: bool = False          # patches/ changed since the tree was made
    matches: bool = False         # the tree's commits export to exactly patches/
    detail: list[str] = field(default_factory=list)
    count: int = 0                # commits upstream..HEAD
    digest: str = ""              # series_digest() of what they export to

    @property
    def loses_work(self) -> bool:
        """Would remaking the tree lose work that is not in patches/ (or its last export)?"""
        return bool(self.uncommitted) or self.unexported

    @property
    def dirty(self) -> bool:
        return self.loses_work or bool(self.untagged)

    @property
    def version(self) -> str:
        """<count>-<12 hex digits of digest>, with -dirty when the tree is not what
        patches/ (or its last export) says: what an interpreter built from it is."""
        return f"{self.count}-{self.digest[:12]}{'-dirty' if self.dirty else ''}"


def require_tree(tree: Path) -> None:
    if not (tree / ".git").is_dir():
        raise ToolError(f"{tree} is not a patch-queue tree (run `make` or `python3 -m tools.build.pq apply`)")


def uncommitted(tree: Path) -> list[str]:
    out = git(tree, "status", "--porcelain", "--untracked-files=normal").stdout
    return [line for line in out.splitlines() if line.strip()]


def regenerated(lines: list[str]) -> list[str]:
    """The files the build regenerates among uncommitted() lines (`XY PATH`, or
    `XY OLD -> PATH`)."""
    paths = [line[3:].split(" -> ")[-1] for line in lines]
    return [p for p in paths if is_generated(p)]


def compare_untagged(st: Status, tree: Path, patches: Path, tmp: Path) -> None:
    """Status of a tree without a usable `semantics` tag: its commits are compared with
    patches/ and the snapshot by the content of their patches alone, in order (which does
    not depend on the part a patch is in), so a tree that is what was last applied (made
    before the parts, say) is not work to keep, while it cannot be exported as it is."""
    names = format_range(tree, "upstream..HEAD", tmp)
    mine = [(tmp / n).read_bytes() for n in names]
    st.count = len(names)
    st.digest = hashlib.sha256(b"\0".join(mine)).hexdigest()
    snap = snapshot_dir(tree)
    st.same_content = mine == series_contents(patches)
    if st.same_content or (snap.is_dir() and mine == series_contents(snap)):
        return
    st.unexported = True
    known = set(series_contents(patches))
    st.detail += [f"commit not exported (or changed since export): {n}"
                  for n, text in zip(names, mine) if text not in known]


def get_status(tree: Path, patches: Path) -> Status:
    if not (tree / ".git").is_dir():
        return Status(exists=False)
    st = Status(exists=True, uncommitted=uncommitted(tree))
    snap = snapshot_dir(tree)
    with tempfile.TemporaryDirectory(prefix="pep671-status-") as tmp:
        would = Path(tmp)
        try:
            names = format_patches(tree, would, patches)
        except SplitError as exc:
            st.untagged = str(exc)
            compare_untagged(st, tree, patches, would / "untagged")
            return st
        st.count, st.digest = len(names), series_digest(would)
        in_patches = same_patches(would, patches)
        in_snapshot = snap.is_dir() and same_patches(would, snap)
        st.matches = in_patches
        if not in_patches and not in_snapshot:
            st.unexported = True
            known = set(read_series(patches))
            mine = len(split_series(names)[0])
            theirs = len([n for n in known if n.startswith(f"{SEMANTICS}/")])
            if mine != theirs:
                st.detail.append(f"the tree's semantics part (upstream..{SPLIT_TAG}) has {mine} "
                                 f"commit(s), {shown(patches)}/{SEMANTICS}/ {theirs} patch(es)")
            for n in names:
                p = patches / n
                if n not in known or not p.is_file() or not filecmp.cmp(would / n, p, shallow=False):
                    st.detail.append(f"commit not exported (or changed since export): {n}")
            for n in sorted(known - set(names)):
                st.detail.append(f"patches/ has {n}, the tree does not")
        elif not in_patches:
            st.behind = True
    return st


def cmd_status(args: argparse.Namespace) -> int:
    tree, patches = args.tree, args.patches
    st = get_status(tree, patches)
    if not st.exists:
        print(f"no tree at {tree} (run `make`); nothing to lose")
        return 0
    if st.uncommitted:
        print(f"{tree} has uncommitted changes (commit them, then `python3 -m tools.build.pq export`):")
        for line in st.uncommitted:
            print(f"  {line}")
        if gen := regenerated(st.uncommitted):
            print(f"  ({len(gen)} of them regenerated by the build: commit them with the change "
                  "to their sources, as upstream's commits do)")
    if st.untagged:
        print(f"not exportable as it is: {st.untagged}")
    if st.unexported:
        print(f"{tree} has commits not exported to {patches} (run `python3 -m tools.build.pq export`):")
        for line in st.detail:
            print(f"  {line}")
    if st.loses_work:
        return 1
    if st.untagged:
        print(f"its commits are those of {patches} or of its last export: nothing is lost "
              "when `make` (or `python3 -m tools.build.pq apply`) remakes it")
        return 0
    if st.behind:
        print(f"clean, but {patches} changed since {tree} was made: "
              "`make` (or `python3 -m tools.build.pq apply`) will rebuild the tree")
    else:
        semantics, performance = split_series(read_series(patches))
        print(f"clean: {tree} matches {patches} ({len(semantics)} semantics + "
              f"{len(performance)} performance patches)")
    return 0


def build_tag(tree: Path, patches: Path) -> str:
    """What an interpreter built from tree names itself in sys.version (tools.build.cpython
    --build-tag): pep671-<number of patches>-<first 12 hex digits of the series digest>,
    -dirty appended when the tree has work that is not in patches/."""
    st = get_status(tree, patches)
    if not st.exists:
        raise ToolError(f"no tree at {tree} (run `make tree`)")
    return f"pep671-{st.version}"


def cmd_version(args: argparse.Namespace) -> int:
    print(build_tag(args.tree, args.patches))
    return 0


# ---------------------------------------------------------------- apply

def ensure_tarball(tarball: Path) -> None:
    if not tarball.is_file():
        fetch_cpython.fetch(tarball)


def git_am(tree: Path, patches: Path, names: list[str], what: str) -> None:
    if not names:
        return
    say(f"applying {what}: {len(names)} patch(es) from {patches}/series")
    proc = git(tree, "am", "-q", "--keep-cr", "--committer-date-is-author-date",
               *[str((patches / n).resolve()) for n in names], check=False)
    if proc.returncode != 0:
        git(tree, "am", "--abort", check=False)
        raise ToolError(f"`git am` of {what} failed:\n{proc.stdout}{proc.stderr}")


def build_tree(tarball: Path, sha256: str, topdir: str, tree: Path, patches: Path) -> None:
    """tree = the pristine tarball in a new git repository (tagged `upstream`), the
    semantics part of patches/ applied (tagged `semantics`), then the performance part."""
    verify_sha256(tarball, sha256)
    semantics, performance = split_series(read_series(patches))
    missing = [n for n in semantics + performance if not (patches / n).is_file()]
    if missing:
        raise ToolError(f"{patches}/series names missing file(s): {', '.join(missing)}")
    tree.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{tree.name}-new-", dir=tree.parent))
    try:
        say(f"unpacking {tarball.name} (pristine upstream)")
        run(["tar", "-xf", str(tarball), "-C", str(staging)])
        new = staging / topdir
        if not new.is_dir():
            raise ToolError(f"{tarball} does not contain {topdir}/")
        env = git_env()
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = UPSTREAM_DATE
        git(new, "init", "-q", "-b", "main")
        git(new, "config", "core.autocrlf", "false")
        git(new, "config", "user.name", IDENTITY["name"])
        git(new, "config", "user.email", IDENTITY["email"])
        git(new, "add", "-A", "-f")
        git(new, "commit", "-q", "--no-verify", "-m", f"upstream: pristine {topdir}", env=env)
        git(new, "tag", "upstream")
        (new / ".git" / "info").mkdir(exist_ok=True)
        (new / ".git" / "info" / "exclude").write_text(EXCLUDE)
        git_am(new, patches, semantics, "the semantics part")
        git(new, "tag", SPLIT_TAG)
        git_am(new, patches, performance, "the performance follow-up")
        save_snapshot(new, patches)
        if tree.exists():
            shutil.rmtree(tree)
        os.rename(new, tree)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"{tree} = upstream + {len(semantics)} semantics patch(es) (tag `{SPLIT_TAG}`) + "
        f"{len(performance)} performance patch(es)")


def refuse_if_dirty(tree: Path, patches: Path, force: bool, why: str) -> None:
    st = get_status(tree, patches)
    if st.exists and st.loses_work and not force:
        lines = [f"  {line}" for line in st.uncommitted] + [f"  {d}" for d in st.detail]
        if st.untagged:
            lines.append(f"  and it cannot be exported as it is: {st.untagged}")
        raise ToolError(f"{why}, but {tree} has work that is not in {patches}/:\n"
                        + "\n".join(lines) +
                        "\nrefusing to rebuild it. Commit and `python3 -m tools.build.pq export` it (then commit"
                        " patches/), or discard it with `python3 -m tools.build.pq apply --force`.")


def tag_as_patches(tree: Path, patches: Path) -> None:
    """Tag `semantics` where patches/ ends its semantics part, in a tree whose commits
    are those of patches/ but whose tag is missing or stale (made before the parts, or
    rebased without a change)."""
    count = len(split_series(read_series(patches))[0])
    commits = git(tree, "rev-list", "--reverse", "upstream..HEAD").stdout.split()
    commit = commits[count - 1] if count else git(tree, "rev-parse", "upstream").stdout.strip()
    git(tree, "tag", "-f", SPLIT_TAG, commit)
    say(f"{shown(tree)}: tagged `{SPLIT_TAG}` at {commit[:12]}, commit {count} of "
        f"upstream..HEAD, as {shown(patches)}/series has {count} semantics patch(es)")


def prepare(tree: Path = TREE, patches: Path = PATCHES, *, tarball: Path = TARBALL,
            sha256: str = TARBALL_SHA256, topdir: str = TARBALL_TOPDIR,
            force: bool = False) -> None:
    """Make tree reflect patches: rebuilt from the pristine tarball (fetched when
    missing) and the series only when patches changed since it was made. A tree whose
    commits already are those of patches is kept, its tag `semantics` set where the
    series ends its semantics part when the tag is missing or was left behind."""
    stamp = tree / ".git" / "pep671-series-sha256"
    if stamp.is_file() and stamp.read_text().strip() == series_digest(patches):
        try:
            semantics_split(tree, patches)
        except SplitError as exc:
            if get_status(tree, patches).same_content:
                tag_as_patches(tree, patches)
            else:     # work in progress (a rebase): the build goes on, export will ask
                say(f"note: {exc}")
        say(f"tree {tree} is up to date with {patches}/")
        return
    if (tree / ".git").is_dir():
        st = get_status(tree, patches)
        if st.untagged and st.same_content:
            tag_as_patches(tree, patches)
            st = get_status(tree, patches)
        if st.matches and not st.uncommitted:
            # The commits already are patches/ (e.g. after an export elsewhere).
            save_snapshot(tree, patches)
            say(f"tree {tree} already matches {patches}/")
            return
        refuse_if_dirty(tree, patches, force, f"{patches}/ changed since {tree} was made")
    elif tree.exists():
        if any(tree.iterdir()) and not force:
            raise ToolError(f"{tree} exists but is not a patch-queue tree; remove it "
                            "(or use --force)")
    ensure_tarball(tarball)
    build_tree(tarball, sha256, topdir, tree, patches)


def cmd_prepare(args: argparse.Namespace) -> int:
    prepare(args.tree, args.patches, tarball=args.tarball, sha256=args.sha256,
            topdir=args.topdir, force=args.force)
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    tree, patches = args.tree, args.patches
    if (tree / ".git").is_dir():
        refuse_if_dirty(tree, patches, args.force, "`apply` rebuilds the tree")
    ensure_tarball(args.tarball)
    build_tree(args.tarball, args.sha256, args.topdir, tree, patches)
    return 0


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.pq", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--tree", type=Path, default=TREE,
                        help=f"the patch-queue tree (default: {shown(TREE)})")
    common.add_argument("--patches", type=Path, default=PATCHES,
                        help="the patch series directory (default: patches/)")
    build = argparse.ArgumentParser(add_help=False)
    build.add_argument("--tarball", type=Path, default=TARBALL,
                       help="pristine upstream tarball (fetched if missing)")
    build.add_argument("--sha256", default=TARBALL_SHA256, help="its expected sha256")
    build.add_argument("--topdir", default=TARBALL_TOPDIR,
                       help="top directory inside the tarball (default: %(default)s)")
    build.add_argument("--force", action="store_true",
                       help="discard unexported work in the tree")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("apply", parents=[common, build],
                   help="rebuild the tree: pristine tarball + git am of the semantics part, "
                   "tag `semantics`, git am of the performance follow-up")
    sub.add_parser("prepare", parents=[common, build],
                   help="(make) rebuild the tree only if patches/ changed since it was made")
    sub.add_parser("export", parents=[common],
                   help="write upstream..semantics of the tree to patches/semantics/, "
                   "semantics..HEAD to patches/performance/")
    sub.add_parser("status", parents=[common],
                   help="exit 1 if the tree has work that is not in patches/")
    sub.add_parser("version", parents=[common],
                   help="print the tree's build tag, pep671-<patches>-<digest>[-dirty]")
    args = ap.parse_args(argv)
    args.tree = args.tree.absolute()
    args.patches = args.patches.absolute()
    return {"apply": cmd_apply, "prepare": cmd_prepare, "export": cmd_export,
            "status": cmd_status, "version": cmd_version}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
