"""Build each prefix of the patch series and run that patch's own tests.

A reviewer reads the series one patch at a time, and must be able to build and
test any prefix of it: within the semantics part (patches/semantics/), which is
meant to be merged on its own, and on through the performance follow-up
(patches/performance/) applied on top of it. This checks that, in
build/series-check/ (a clone of build/cpython reset to its pristine upstream
commit): for each patch of patches/series in order, across both parts, it
applies the patch (git am), regenerates and builds incrementally, checks that
the regeneration reproduced the generated files the commit carries, and runs
the regression tests whose files the patch adds or changes (Lib/test/test_X.py
or a file of the package Lib/test/test_X/ runs test_X; IDLE's tests run
test_idle), in the environment CPython's tests need (no PYTHON* variables). A
patch that changes no test is only built and checked. Each line names the part
the patch is in; the last semantics patch is the semantics part as it would be
merged.

Each patch carries the files the build regenerates (tools.build.tree_files), as
upstream's commits do, so that `git am` of any prefix onto the pristine tree
builds with upstream's own `./configure && make`. The check is upstream's
"generated files are up to date" job, per patch: after the patch's build (the
regen targets of tools.build.cpython, then regen-test-frozenmain, which needs the built
interpreter), every tracked file must be byte for byte as the commit has it.
One that is not fails the patch, whose line names the files and the `make
regen-*` that writes them; the fix is to run those at the patch's commit in
build/cpython, amend it, and `python3 -m tools.build.pq export`. The patch's tests
still run (on what regeneration wrote); then the files are put back as
committed, so that the next patch applies.

A patch that changes the instruction set (Python/bytecodes.c or the cases
generator) is followed by `make clean`, since CPython's Makefile does not rebuild
every object that depends on the regenerated opcode numbers.

It is not part of `make test`: one incremental build per patch and their tests
take about 30 to 40 minutes on 2 cores (the first build is a full one). --from K
keeps the tree as a previous run left it with patches 1..K-1 (counted across
both parts, as patches/series lists them) and goes on from patch K.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.build.cpython import REGEN_TARGETS, build, clone_tree, regen_stamp
from tools.common import (ToolError, exits_on_tool_error, restore_sigint, run, say,
                          scrubbed_env)
from tools.build.git import git, git_env
from tools.paths import LOGS, PATCHES, SERIES_CHECK, TREE, shown
from tools.build.series import PARTS, part_of, read_series, split_series
from tools.build.tree_files import CLINIC, regen_target

# Files whose change renumbers instructions: the build starts from `make clean`.
INSTRUCTION_SET = ("Python/bytecodes.c", "Tools/cases_generator/")


@dataclass
class PatchResult:
    name: str                     # as patches/series names it: PART/NNNN-NAME.patch
    tests: list[str]
    seconds: float
    ok: bool
    detail: str = ""
    # tracked files that the build left otherwise than the commit has them (regenerated)
    stale: list[str] = field(default_factory=list)


def regrtest_names(paths: list[str]) -> list[str]:
    """The regrtest names of the test files among paths, in order, once each."""
    names: list[str] = []
    for path in paths:
        parts = Path(path).parts
        name = None
        if parts[:2] == ("Lib", "test") and len(parts) >= 3:
            first = parts[2]
            if first.startswith("test_"):
                name = first.removesuffix(".py")
        elif parts[:3] == ("Lib", "idlelib", "idle_test"):
            name = "test_idle"
        if name is not None and name not in names:
            names.append(name)
    return names


def touched_files(tree: Path) -> list[str]:
    """The files that the commit at HEAD of tree adds or changes (not deletes)."""
    out = git(tree, "show", "--name-only", "--diff-filter=AM", "--format=", "HEAD").stdout
    return [line for line in out.splitlines() if line]


def reset_to_upstream(tree: Path, source: Path = TREE) -> None:
    """tree = a clone of source at its pristine upstream commit, with nothing built."""
    clone_tree(source, tree)
    git(tree, "reset", "-q", "--hard", "upstream")
    git(tree, "clean", "-q", "-fdx")


def changed_files(tree: Path) -> list[str]:
    """The tracked files of tree that differ from its HEAD commit (changed or deleted)."""
    out = git(tree, "diff", "--name-only", "--no-renames", "-z", "HEAD").stdout
    return [path for path in out.split("\0") if path]


def stale_detail(stale: list[str]) -> str:
    """What a patch's line says when its build left tracked files otherwise than its
    commit has them: the files, and the `make` targets that write them."""
    generated = [f for f in stale if regen_target(f) is not None]
    others = [f for f in stale if regen_target(f) is None]
    order = [*REGEN_TARGETS, "regen-test-frozenmain", CLINIC]
    targets = sorted({t for f in generated if (t := regen_target(f)) is not None},
                     key=lambda t: order.index(t) if t in order else len(order))
    said = []
    if generated:
        said.append(f"generated files differ from what regeneration writes: "
                    f"{', '.join(generated)} (at this patch's commit in build/cpython, run "
                    f"`make {' '.join(targets)}`, amend the commit, then "
                    "`python3 -m tools.build.pq export`)")
    if others:
        said.append(f"the build changed files that no regen target writes: {', '.join(others)}")
    return "; ".join(said)


def check_patch(tree: Path, patches: Path, name: str, *, jobs: int,
                verbose: bool, logdir: Path = LOGS) -> PatchResult:
    """Apply the patch name of the series of patches on tree, build (regenerating), check
    that the tracked files are still as the commit has them, run the tests it touches,
    and put back the files the regeneration changed."""
    start = time.monotonic()
    patch = patches / name
    run(["git", "am", "-q", "--3way", str(patch)], cwd=tree, env=git_env(), capture=True)
    files = touched_files(tree)
    if any(f.startswith(INSTRUCTION_SET) for f in files) and (tree / "Makefile").is_file():
        say(f"{patch.name}: changes the instruction set: make clean first")
        run(["make", "clean"], cwd=tree, capture=True)
    regen_stamp(tree).unlink(missing_ok=True)    # regenerate, whatever the tree's digest
    python = build(tree, name="series-check", regen=True, jobs=jobs, verbose=verbose,
                   logdir=logdir)
    stale = changed_files(tree)
    if stale:
        say(f"{patch.name}: regeneration changed committed files: {', '.join(stale)}")
    tests = regrtest_names(files)
    ok, detail = True, "built; no test changed"
    if tests:
        say(f"{patch.name}: running {' '.join(tests)}")
        proc = run([python, "-m", "test", f"-j{jobs}", *tests], cwd=tree,
                   env=scrubbed_env(), check=False)
        ok = proc.returncode == 0
        detail = "tests passed" if ok else f"tests failed (exit {proc.returncode})"
    if stale:
        ok, detail = False, f"{stale_detail(stale)}; {detail}"
        git(tree, "checkout", "-q", "HEAD", "--", *stale)   # as committed: the next applies
    return PatchResult(name, tests, time.monotonic() - start, ok, detail, stale)


def check_series(*, first: int = 1, jobs: int = os.cpu_count() or 1,
                 verbose: bool = False, tree: Path = SERIES_CHECK,
                 patches: Path = PATCHES, source: Path = TREE,
                 logdir: Path = LOGS) -> list[PatchResult]:
    """Check patches first..N of the series of patches (1-based) in tree, a clone of
    source; returns one result per patch. Stops at a patch whose build fails
    (ToolError), since the later ones need it."""
    series = read_series(patches)
    split_series(series)      # each patch in a part, the semantics first
    if not 1 <= first <= len(series):
        raise ToolError(f"--from {first}: the series has patches 1 to {len(series)}")
    if first == 1:
        reset_to_upstream(tree, source)
    elif not (tree / ".git").is_dir():
        raise ToolError(f"--from {first} needs the tree of a previous run in {shown(tree)}")
    else:
        applied = int(git(tree, "rev-list", "--count", "upstream..HEAD").stdout)
        if applied != first - 1:
            raise ToolError(f"{shown(tree)} has {applied} patches applied, "
                            f"not {first - 1}: start from an earlier --from")
    results = []
    for index, name in enumerate(series[first - 1:], start=first):
        step = f"[{index}/{len(series)}] {position(series, name)}"
        say(f"{step}: {name}")
        result = check_patch(tree, patches, name, jobs=jobs, verbose=verbose,
                             logdir=logdir)
        say(f"{step}: {name}: {result.detail} in {result.seconds:.0f} s")
        results.append(result)
    return results


def position(series: list[str], name: str) -> str:
    """Where name is in its part: `semantics 3/8`."""
    part = part_of(name)
    in_part = [n for n in series if part_of(n) == part]
    return f"{part} {in_part.index(name) + 1}/{len(in_part)}"


def summary(results: list[PatchResult]) -> str:
    """One line per patch (its part first), under it the generated files it does not
    carry as regeneration writes them; a line per part, and the totals."""
    lines = []
    for r in results:
        lines.append(f"{'ok' if r.ok else 'FAIL':4}  {r.seconds:6.0f} s  {r.name}"
                     f"  ({' '.join(r.tests) or 'no tests'})")
        if r.stale:
            lines.append(f"{'':16}{stale_detail(r.stale)}")
    for part in PARTS:
        mine = [r for r in results if part_of(r.name) == part]
        if mine:
            lines.append(f"{part}: {sum(r.ok for r in mine)} passed, "
                         f"{sum(not r.ok for r in mine)} failed")
    total = sum(r.seconds for r in results)
    lines.append(f"{sum(r.ok for r in results)} passed, {sum(not r.ok for r in results)} "
                 f"failed, in {total / 60:.1f} min")
    return "\n".join(lines)


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tools.check.series_check", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="first", type=int, default=1, metavar="K",
                        help="start at patch K (1-based), reusing the tree of a previous run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--verbose", action="store_true", help="stream the build logs")
    args = parser.parse_args(argv)
    restore_sigint()
    results = check_series(first=args.first, jobs=args.jobs, verbose=args.verbose)
    print(summary(results))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
