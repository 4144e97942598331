"""Patch queue: the fork is a `git format-patch` series in patches/.

build/cpython is a git repository whose first commit is the pristine
upstream tree (tagged `upstream`); the series is applied on top with
`git am`. Edit and commit there, then `python3 -m tools.pq export`.

Commands:
  prepare  make sure the tree reflects patches/ (rebuild it from the
           pristine tarball + series only when patches/ changed); used by make
  apply    rebuild the tree from the pristine tarball + series (always)
  export   write upstream..HEAD of the tree to patches/ (deterministic)
  status   exit 1 and say what, when the tree has work not in patches/
  version  print the build tag of the tree: pep671-<patches>-<digest>[-dirty]

A tree is never rebuilt while it has unexported work (uncommitted changes,
untracked files, or commits that are not in patches/) unless --force.
Files that the build regenerates (Parser/parser.c, ...) are marked
skip-worktree in the tree and must not appear in a patch.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tools import fetch_cpython
from tools.common import ToolError, exits_on_tool_error, run, say, verify_sha256
from tools.paths import PATCHES, TARBALL, TARBALL_SHA256, TARBALL_TOPDIR, TREE, shown
from tools.tree_files import EXCLUDE, is_generated

SNAPSHOT = "pep671-synced"          # under .git: patches/ as last applied/exported
UPSTREAM_DATE = "2025-06-11T12:00:00+00:00"   # release date of 3.13.5
IDENTITY = {"name": "pep671", "email": "pep671@localhost"}

def git_env() -> dict[str, str]:
    """Environment for git: no user/system config, fixed identity."""
    env = dict(os.environ)
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": IDENTITY["name"],
        "GIT_AUTHOR_EMAIL": IDENTITY["email"],
        "GIT_COMMITTER_NAME": IDENTITY["name"],
        "GIT_COMMITTER_EMAIL": IDENTITY["email"],
        "LC_ALL": "C",
    })
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)
    return env


def git(tree: Path, *args: str, check: bool = True, capture: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], cwd=tree, env=env or git_env(), check=check, capture=capture)


# ---------------------------------------------------------------- series

def read_series(patches: Path) -> list[str]:
    series = patches / "series"
    if not series.is_file():
        return []
    names = []
    for line in series.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line)
    return names


def series_digest(patches: Path) -> str:
    """Hash of everything a tree built from `patches` depends on."""
    h = hashlib.sha256()
    series = patches / "series"
    h.update(series.read_bytes() if series.is_file() else b"")
    for name in read_series(patches):
        p = patches / name
        h.update(b"\0" + name.encode() + b"\0")
        h.update(p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


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
        shutil.copyfile(patches / name, snap / name)
    (tree / ".git" / "pep671-series-sha256").write_text(series_digest(patches) + "\n")


def same_patches(a: Path, b: Path) -> bool:
    """Do two patch directories hold the same series (by content)?"""
    return series_digest(a) == series_digest(b)


# ---------------------------------------------------------------- export

def format_patches(tree: Path, outdir: Path) -> list[str]:
    """Write upstream..HEAD as a deterministic series into outdir."""
    outdir.mkdir(parents=True, exist_ok=True)
    count = git(tree, "rev-list", "--count", "upstream..HEAD").stdout.strip()
    names: list[str] = []
    if count != "0":
        out = git(tree, "-c", "core.abbrev=12", "-c", "diff.algorithm=myers",
                  "format-patch", "--zero-commit", "--no-signature", "--full-index",
                  "--no-cover-letter", "--no-thread", "--no-numbered",
                  "--no-renames", "--binary",
                  "--output-directory", str(outdir), "upstream..HEAD").stdout
        names = [Path(line.strip()).name for line in out.splitlines() if line.strip()]
    (outdir / "series").write_text("".join(n + "\n" for n in names))
    return names


def touched_generated(tree: Path) -> list[str]:
    files = git(tree, "diff", "--name-only", "upstream", "HEAD").stdout.split()
    return sorted(f for f in files if is_generated(f))


def cmd_export(args: argparse.Namespace) -> int:
    tree, patches = args.tree, args.patches
    require_tree(tree)
    bad = touched_generated(tree)
    if bad:
        raise ToolError("commits in upstream..HEAD change files that the build regenerates;\n"
                        "drop them from the commits (git checkout upstream -- FILE; git commit --amend):\n  "
                        + "\n  ".join(bad))
    if uncommitted(tree):
        say("note: uncommitted changes in the tree are not exported (commit them first)")
    with tempfile.TemporaryDirectory(prefix="pep671-export-") as tmp:
        new = Path(tmp)
        names = format_patches(tree, new)
        patches.mkdir(parents=True, exist_ok=True)
        changed = 0
        for name in names:
            dest = patches / name
            if not dest.is_file() or not filecmp.cmp(new / name, dest, shallow=False):
                shutil.copyfile(new / name, dest)
                changed += 1
        for old in patches.glob("*.patch"):
            if old.name not in names:
                old.unlink()
                changed += 1
        series = (new / "series").read_text()
        if not (patches / "series").is_file() or (patches / "series").read_text() != series:
            (patches / "series").write_text(series)
            changed += 1
    save_snapshot(tree, patches)
    print(f"exported {len(names)} patch(es) to {patches} ({changed} file(s) changed)")
    return 0


# ---------------------------------------------------------------- status

@dataclass
class Status:
    exists: bool
    uncommitted: list[str] = field(default_factory=list)
    unexported: bool = False
    behind: bool = False          # patches/ changed since the tree was made
    matches: bool = False         # the tree's commits export to exactly patches/
    detail: list[str] = field(default_factory=list)
    count: int = 0                # commits upstream..HEAD
    digest: str = ""              # series_digest() of what they export to

    @property
    def dirty(self) -> bool:
        return bool(self.uncommitted) or self.unexported

    @property
    def version(self) -> str:
        """<count>-<12 hex digits of digest>, with -dirty when the tree is not what
        patches/ (or its last export) says: what an interpreter built from it is."""
        return f"{self.count}-{self.digest[:12]}{'-dirty' if self.dirty else ''}"


def require_tree(tree: Path) -> None:
    if not (tree / ".git").is_dir():
        raise ToolError(f"{tree} is not a patch-queue tree (run `make` or `python3 -m tools.pq apply`)")


def uncommitted(tree: Path) -> list[str]:
    out = git(tree, "status", "--porcelain", "--untracked-files=normal").stdout
    return [line for line in out.splitlines() if line.strip()]


def get_status(tree: Path, patches: Path) -> Status:
    if not (tree / ".git").is_dir():
        return Status(exists=False)
    st = Status(exists=True, uncommitted=uncommitted(tree))
    snap = snapshot_dir(tree)
    with tempfile.TemporaryDirectory(prefix="pep671-status-") as tmp:
        would = Path(tmp)
        names = format_patches(tree, would)
        st.count, st.digest = len(names), series_digest(would)
        in_patches = same_patches(would, patches)
        in_snapshot = snap.is_dir() and same_patches(would, snap)
        st.matches = in_patches
        if not in_patches and not in_snapshot:
            st.unexported = True
            known = set(read_series(patches))
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
        print(f"{tree} has uncommitted changes (commit them, then `python3 -m tools.pq export`):")
        for line in st.uncommitted:
            print(f"  {line}")
    if st.unexported:
        print(f"{tree} has commits not exported to {patches} (run `python3 -m tools.pq export`):")
        for line in st.detail:
            print(f"  {line}")
    if st.dirty:
        return 1
    n = len(read_series(patches))
    if st.behind:
        print(f"clean, but {patches} changed since {tree} was made: "
              "`make` (or `python3 -m tools.pq apply`) will rebuild the tree")
    else:
        print(f"clean: {tree} matches {patches} ({n} patch{'es' if n != 1 else ''})")
    return 0


def build_tag(tree: Path, patches: Path) -> str:
    """What an interpreter built from tree names itself in sys.version (tools.build
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


def build_tree(tarball: Path, sha256: str, topdir: str, tree: Path, patches: Path) -> None:
    verify_sha256(tarball, sha256)
    missing = [n for n in read_series(patches) if not (patches / n).is_file()]
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
        names = read_series(patches)
        if names:
            say(f"applying {len(names)} patch(es) from {patches}/series")
            proc = git(new, "am", "-q", "--keep-cr", "--committer-date-is-author-date",
                       *[str((patches / n).resolve()) for n in names], check=False)
            if proc.returncode != 0:
                git(new, "am", "--abort", check=False)
                raise ToolError(f"`git am` of the series failed:\n{proc.stdout}{proc.stderr}")
        # Regenerated files: changes made by the build are not work to export.
        present = git(new, "ls-files").stdout.splitlines()
        gen = [p for p in present if is_generated(p)]
        if gen:
            run(["git", "update-index", "--skip-worktree", "--stdin"], cwd=new,
                env=env, stdin_text="\n".join(gen) + "\n", capture=True)
        save_snapshot(new, patches)
        if tree.exists():
            shutil.rmtree(tree)
        os.rename(new, tree)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"{tree} = upstream + {len(read_series(patches))} patch(es)")


def refuse_if_dirty(tree: Path, patches: Path, force: bool, why: str) -> None:
    st = get_status(tree, patches)
    if st.exists and st.dirty and not force:
        lines = [f"  {line}" for line in st.uncommitted] + [f"  {d}" for d in st.detail]
        raise ToolError(f"{why}, but {tree} has work that is not in {patches}/:\n"
                        + "\n".join(lines) +
                        "\nrefusing to rebuild it. Commit and `python3 -m tools.pq export` it (then commit"
                        " patches/), or discard it with `python3 -m tools.pq apply --force`.")


def prepare(tree: Path = TREE, patches: Path = PATCHES, *, tarball: Path = TARBALL,
            sha256: str = TARBALL_SHA256, topdir: str = TARBALL_TOPDIR,
            force: bool = False) -> None:
    """Make tree reflect patches: rebuilt from the pristine tarball (fetched when
    missing) and the series only when patches changed since it was made."""
    stamp = tree / ".git" / "pep671-series-sha256"
    if stamp.is_file() and stamp.read_text().strip() == series_digest(patches):
        say(f"tree {tree} is up to date with {patches}/")
        return
    if (tree / ".git").is_dir():
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
    ap = argparse.ArgumentParser(prog="python3 -m tools.pq", description=__doc__,
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
                   help="rebuild the tree: pristine tarball + git am of the series")
    sub.add_parser("prepare", parents=[common, build],
                   help="(make) rebuild the tree only if patches/ changed since it was made")
    sub.add_parser("export", parents=[common],
                   help="write upstream..HEAD of the tree to patches/")
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
