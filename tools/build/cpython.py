"""Configure, regenerate and build a CPython tree in place.

Steps (each announced with a line starting with ==>; output goes to
build/logs/<name>-<step>.log, whose tail is shown on failure; -v streams it):

  1. ./configure PYTHON_FOR_REGEN=<python3> <flags>  -- only when the tree
     is not configured yet or the flags changed (then `make clean` too)
  2. (--regen) make regen-token regen-pegen regen-ast regen-cases
     regen-keyword regen-sre regen-typeslots regen-global-objects
     (these write a file only when its content changes); skipped when the tree's
     files are as the last build with --regen left them (tree_digest()). The
     patches carry the files these write, as upstream's commits do, so in a tree
     as committed they write nothing; after an edit of their sources (say
     Python/bytecodes.c) what they write is to be committed with it
  3. make -j<jobs>
  4. (--regen) make regen-test-frozenmain, then make -j<jobs> again
  0. (--clone-of SOURCE) make the tree a clone of SOURCE at its HEAD first;
     (--baseline) build build/baseline, unpatched upstream, made from the tarball,
     which sys.version names tags/upstream:<rev> (UPSTREAM_TAG), not by our tag;
     (--series-prefix semantics) build a tree of the semantics part of the series
     alone (patches/semantics/, without the performance follow-up), made from the
     tarball like build/cpython, with its patch directory beside it
     (<tree>-series/); `make noperf` is --series-prefix semantics --tree
     build/noperf, for the figures the PEP gives with and without the performance
     patches; (--series-prefix N) the first N patches of patches/series across
     both parts (N < 0: all but the last -N), the same way
  5. (--link) write LINK, a tiny sh wrapper that execs <tree>/python
     (a symlink would break `LINK -m venv`)

--build-tag TAG puts TAG into the interpreter's build information, so that
sys.version and `python -VV` read "3.13.5 (TAG, <date>, <time>) [...]" and
sys._git[1] is TAG. It uses the hook CPython's Makefile already has for
Modules/getbuildinfo.c (the GITTAG/GITVERSION/GITBRANCH variables, commands
whose output is compiled in; given on make's command line they replace the git
commands configure found), so no patch is needed. Modules/getbuildinfo.o is
recompiled when the tag changes. `make altinstall` in the tree must be given
the same variables (build_info_make_vars()), or a relink would lose the tag.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tools.build import pq
from tools.common import (ToolError, exits_on_tool_error, interpreter_info, rel, run, run_logged,
                          say, tail)
from tools.build.git import git, git_env
from tools.paths import BASELINE, BASELINE_SERIES, LOGS, NOPERF, PATCHES, TREE, shown
from tools.build.series import SEMANTICS, read_series, split_series, sync_patches

REGEN_TARGETS = ["regen-token", "regen-pegen", "regen-ast", "regen-cases",
                 "regen-keyword", "regen-sre", "regen-typeslots", "regen-global-objects"]


# The build tag of the baseline: the pristine tree names itself by its git tag, as
# configure's `git describe --all` would were our tag `semantics` not on the same commit
# (an empty series puts it there): sys.version reads "3.13.5 (tags/upstream:<rev>, ...)".
UPSTREAM_TAG = "tags/upstream"


def build_info_make_vars(tag: str) -> list[str]:
    """make arguments that compile tag into Modules/getbuildinfo.o (see the docstring);
    for UPSTREAM_TAG, the revision stays the one configure's git command finds."""
    if tag == UPSTREAM_TAG:
        return [f"GITTAG=echo {UPSTREAM_TAG}"]
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", tag):
        raise ToolError(f"build tag {tag!r}: use letters, digits and . _ + - only "
                        "(it is compiled into sys.version)")
    return [f"GITTAG=echo {tag}", "GITVERSION=", "GITBRANCH="]


class Builder:
    """Runs the steps of building one tree, each logged to <logdir>/<name>-<step>.log."""

    def __init__(self, tree: Path, name: str, logdir: Path, verbose: bool) -> None:
        self.tree, self.name, self.logdir, self.verbose = tree, name, logdir, verbose
        logdir.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}

    def step(self, label: str, slug: str, cmd: list[str], *,
             env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        """Run cmd (in the tree, with self.env unless given) logging to
        <logdir>/<name>-<slug>.log; on failure show the log's tail and stop."""
        log = self.logdir / f"{self.name}-{slug}.log"
        say(f"[{self.name}] {label} (log: {os.path.relpath(log)})")
        t0 = time.monotonic()
        rc = run_logged(cmd, log, env=self.env if env is None else env,
                        cwd=self.tree if cwd is None else cwd, echo=self.verbose)
        if rc != 0:
            print(tail(log, 80), file=sys.stderr)
            raise ToolError(f"[{self.name}] {label} failed (exit {rc}); full log: {log}")
        say(f"[{self.name}] {label}: done in {time.monotonic() - t0:.0f}s")


def clone_tree(source: Path, tree: Path) -> bool:
    """Make tree a clone of the git tree source at its HEAD (tools.build.pq may rewrite the
    history of source, hence fetch + reset). True when the clone was made or moved to
    another commit."""
    if not (source / ".git").is_dir():
        raise ToolError(f"{source} is not a git tree (run `make tree`)")
    head = git(source, "rev-parse", "HEAD").stdout.strip()
    moved = False
    if not (tree / ".git").is_dir():
        say(f"cloning {rel(source)} -> {rel(tree)}")
        tree.parent.mkdir(parents=True, exist_ok=True)
        run(["git", "clone", "-q", str(source), str(tree)], capture=True)
        moved = True
    if git(tree, "rev-parse", "HEAD").stdout.strip() != head:
        say(f"{rel(tree)}: moving to {head[:12]} (the HEAD of {rel(source)})")
        git(tree, "fetch", "-q", "origin")
        git(tree, "reset", "-q", "--hard", head)
        moved = True
    return moved


def tree_digest(tree: Path) -> str | None:
    """A digest of the content of every file of the git tree, tracked (the regenerated
    files too) or not, the build's products left out (.git/info/exclude): the id of the
    git tree object that `git add -A` would commit. When it is what the last
    regeneration recorded, regenerating again would write nothing. git add -A runs on a
    copy of the index, so the tree's own is untouched. None when tree is not a git tree."""
    if not (tree / ".git" / "index").is_file():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        env = {**git_env(), "GIT_INDEX_FILE": str(Path(scratch) / "index")}
        # copy2: git trusts an entry's file times only if they are older than the
        # index's own, so a fresh copy's time would hide a change made in the same second
        shutil.copy2(tree / ".git" / "index", env["GIT_INDEX_FILE"])
        git(tree, "add", "-A", env=env)
        return git(tree, "write-tree", env=env).stdout.strip()


def regen_stamp(tree: Path) -> Path:
    """Where a build with regen records tree_digest(): in .git, outside the tree's files."""
    return tree / ".git" / "pep671-regenerated"


def regenerate(b: Builder) -> None:
    """make REGEN_TARGETS, unless the tree is as the last build with regen left it (a
    file changed since, by hand, by tools.build.pq or by a checkout, makes it run)."""
    stamp = regen_stamp(b.tree)
    if stamp.is_file() and stamp.read_text().strip() == tree_digest(b.tree):
        say(f"[{b.name}] regenerate generated files: up to date (no file changed since the "
            "last regeneration)")
        return
    stamp.unlink(missing_ok=True)
    b.step("regenerate generated files", "regen", ["make", *REGEN_TARGETS])


def record_regenerated(b: Builder) -> None:
    """After a build with regen: the tree's digest, for regenerate() to compare with."""
    digest = tree_digest(b.tree)
    if digest is not None:
        regen_stamp(b.tree).write_text(digest + "\n")


def configure(b: Builder, configure_flags: str) -> None:
    """./configure the tree when it is not configured yet or with other flags (then
    `make clean` first)."""
    regen_python = shutil.which("python3")
    if regen_python is None:
        raise ToolError("python3 not found (needed as PYTHON_FOR_REGEN)")
    flags = shlex.split(configure_flags)
    stamp = b.tree / ".pep671-configure"
    wanted = shlex.join([f"PYTHON_FOR_REGEN={regen_python}", *flags]) + "\n"
    if (b.tree / "Makefile").is_file() and stamp.is_file() and stamp.read_text() == wanted:
        say(f"[{b.name}] configure: up to date ({configure_flags or 'default options'})")
        return
    if (b.tree / "Makefile").is_file():
        b.step("make clean (configure flags changed)", "clean", ["make", "clean"])
    stamp.unlink(missing_ok=True)
    b.step(f"configure {configure_flags}".rstrip(), "configure",
           ["./configure", f"PYTHON_FOR_REGEN={regen_python}", *flags])
    stamp.write_text(wanted)


def write_link(python: Path, link: Path) -> None:
    """link: a small sh wrapper that runs python. Not a symlink: through a symlink,
    sys._base_executable would be the link, and `-m venv` would write
    `home = <repo root>`, where the venv's python finds no stdlib."""
    target = os.path.relpath(python, link.parent)
    script = (
        "#!/bin/sh\n"
        f"# written by tools.build.cpython: runs the interpreter built in {os.path.dirname(target)}\n"
        'here=$(cd "$(dirname "$0")" && pwd -P)\n'
        f'exec "$here/{target}" "$@"\n'
    )
    if link.is_symlink() or (link.exists() and link.read_text(errors="replace") != script):
        link.unlink()
    if not link.exists():
        link.write_text(script)
        link.chmod(0o755)
    say(f"{os.path.relpath(link)}: runs {target}")


def build(tree: Path = TREE, *, name: str = "cpython", configure_flags: str = "",
          regen: bool = False, jobs: int = os.cpu_count() or 1, link: Path | None = None,
          build_tag: str | None = None, logdir: Path = LOGS, verbose: bool = False) -> Path:
    """Configure (when needed), regenerate (with regen) and build tree: the steps of the
    module's docstring. Returns the interpreter built; raises ToolError."""
    tree = tree.absolute()
    if not (tree / "configure").is_file():
        raise ToolError(f"{tree} is not a CPython source tree")
    b = Builder(tree, name, logdir.absolute(), verbose)
    make = ["make", f"-j{jobs}"]
    if build_tag is not None:
        make += build_info_make_vars(build_tag)
    configure(b, configure_flags)
    tag_stamp = tree / ".pep671-build-tag"
    wanted_tag = "" if build_tag is None else build_tag + "\n"
    if (tag_stamp.read_text() if tag_stamp.is_file() else "") != wanted_tag:
        (tree / "Modules" / "getbuildinfo.o").unlink(missing_ok=True)
        tag_stamp.write_text(wanted_tag)
    if regen:
        regenerate(b)
    b.step(f"build with {jobs} job(s)", "make", make)
    if regen:
        b.step("regenerate Programs/test_frozenmain.h", "regen-frozenmain",
               ["make", "regen-test-frozenmain"])
        b.step("build (after regen-test-frozenmain)", "make2", make)
        record_regenerated(b)
    python = tree / "python"
    if not python.is_file():
        raise ToolError(f"build finished but {python} is missing")
    if link is not None:
        write_link(python, link.absolute())
    say(f"[{name}] {shown(python)}: Python {interpreter_info(python)['version']}")
    return python


def build_baseline(*, configure_flags: str = "", jobs: int = os.cpu_count() or 1,
                   logdir: Path = LOGS, verbose: bool = False) -> Path:
    """The unpatched upstream tree (BASELINE, from the tarball with an empty series),
    built with the same configure flags as ./python and named UPSTREAM_TAG in
    sys.version. Returns its interpreter."""
    BASELINE_SERIES.mkdir(parents=True, exist_ok=True)
    (BASELINE_SERIES / "series").touch()
    pq.prepare(BASELINE, BASELINE_SERIES)
    return build(BASELINE, name="baseline", configure_flags=configure_flags, jobs=jobs,
                 build_tag=UPSTREAM_TAG, logdir=logdir, verbose=verbose)


def prefix_count(names: list[str], prefix: int | str) -> int:
    """How many patches of the series names a prefix keeps: SEMANTICS, the semantics
    part; N >= 0, the first N; N < 0, all but the last -N."""
    if prefix == SEMANTICS:
        return len(split_series(names)[0])
    if not isinstance(prefix, int):
        raise ToolError(f"series prefix {prefix!r}: a number of patches, or {SEMANTICS!r}")
    keep = prefix if prefix >= 0 else len(names) + prefix
    if not 0 <= keep <= len(names):
        raise ToolError(f"series prefix {prefix}: the series has {len(names)} patches")
    return keep


def series_prefix(patches: Path, prefix: int | str, dest: Path) -> list[str]:
    """Make dest a patch directory holding a prefix of the series of patches (see
    prefix_count): copies of its files, in their parts, and a series file that names
    them. Files of dest that are already right are left alone (so tools.build.pq sees the
    same digest), patches no longer kept are removed. Returns the names kept."""
    names = read_series(patches)
    kept = names[:prefix_count(names, prefix)]
    sync_patches(patches, kept, dest)
    return kept


def build_series_prefix(prefix: int | str, tree: Path = NOPERF, *, name: str = "noperf",
                        configure_flags: str = "", jobs: int = os.cpu_count() or 1,
                        build_tag: str | None = None, logdir: Path = LOGS,
                        verbose: bool = False) -> Path:
    """A prefix of patches/series (see prefix_count; SEMANTICS for the semantics part
    alone) on the pristine tarball in tree (remade by tools.build.pq when the prefix changed),
    its patch directory <tree>-series beside it; regenerated and built with
    configure_flags. sys.version names it as `tools.build.pq version` names that tree,
    pep671-<count>-<digest>, unless build_tag is given. Returns its interpreter."""
    tree = tree.absolute()
    if tree == TREE.absolute():
        raise ToolError(f"a series prefix is built in a tree of its own, not {shown(TREE)}")
    patches = tree.with_name(tree.name + "-series")
    kept = series_prefix(PATCHES, prefix, patches)
    semantics, performance = split_series(kept)
    say(f"[{name}] {len(kept)} of the {len(read_series(PATCHES))} patches of "
        f"{shown(PATCHES)}/series: {len(semantics)} semantics, {len(performance)} "
        f"performance, the last {kept[-1] if kept else '(none)'}")
    pq.prepare(tree, patches)
    tag = build_tag if build_tag is not None else pq.build_tag(tree, patches)
    return build(tree, name=name, configure_flags=configure_flags, regen=True, jobs=jobs,
                 build_tag=tag, logdir=logdir, verbose=verbose)


def prefix_arg(text: str) -> int | str:
    """--series-prefix: `semantics` or a number."""
    if text == SEMANTICS:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {SEMANTICS!r} or a number") from None


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.cpython", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=None,
                    help=f"the tree to build (default: {shown(TREE)}; with "
                    f"--series-prefix, {shown(NOPERF)})")
    ap.add_argument("--name", default=None, help="label for progress lines and logs "
                    "(default: cpython; with --series-prefix, noperf)")
    ap.add_argument("--clone-of", type=Path,
                    help="first make --tree a clone of this git tree at its HEAD")
    ap.add_argument("--baseline", action="store_true",
                    help=f"build the unpatched upstream tree {shown(BASELINE)} instead "
                    "(made from the tarball when missing)")
    ap.add_argument("--series-prefix", type=prefix_arg, metavar="semantics|N",
                    help="build a prefix of patches/series instead: `semantics`, the "
                    "semantics part alone (without the performance follow-up), or the first "
                    "N patches across both parts (N < 0: all but the last -N); in --tree, "
                    "made from the tarball when missing or when the prefix changed; implies "
                    "--regen")
    ap.add_argument("--configure-flags", default="", help="extra ./configure options")
    ap.add_argument("--regen", action="store_true", help="regenerate generated files")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--link", type=Path, help="wrapper script to write that runs <tree>/python")
    ap.add_argument("--build-tag", help="what sys.version names the build, e.g. the output of "
                    "`python3 -m tools.build.pq version` (default: what configure found, git describe)")
    ap.add_argument("--logdir", type=Path, default=LOGS)
    ap.add_argument("-v", "--verbose", action="store_true", help="stream build output")
    args = ap.parse_args(argv)
    if args.series_prefix is not None:
        if args.baseline or args.clone_of is not None or args.link is not None:
            ap.error("--series-prefix makes its own tree: not with --baseline, --clone-of "
                     "or --link")
        build_series_prefix(args.series_prefix, args.tree or NOPERF,
                            name=args.name or "noperf",
                            configure_flags=args.configure_flags, jobs=args.jobs,
                            build_tag=args.build_tag, logdir=args.logdir,
                            verbose=args.verbose)
        return 0
    args.tree = args.tree or TREE
    args.name = args.name or "cpython"
    if args.baseline:
        build_baseline(configure_flags=args.configure_flags, jobs=args.jobs,
                       logdir=args.logdir, verbose=args.verbose)
        return 0
    if args.clone_of is not None:
        clone_tree(args.clone_of.absolute(), args.tree.absolute())
    build(args.tree, name=args.name, configure_flags=args.configure_flags, regen=args.regen,
          jobs=args.jobs, link=args.link, build_tag=args.build_tag, logdir=args.logdir,
          verbose=args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
