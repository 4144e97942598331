"""The layout of patches/: one series in two parts, each a series of its own.

    patches/semantics/NNNN-*.patch    late-bound defaults themselves (grammar to
                                      documentation): what a reviewer can judge
                                      and merge without the part below
    patches/performance/NNNN-*.patch  the performance follow-up, specializations
                                      that apply on top of the semantics
    patches/series                    both parts in order, as paths relative to
                                      patches/, each part after a comment line

Each directory is numbered from 0001 (`git format-patch` of its own range), so
`git am patches/semantics/*.patch` applies the semantics alone.

In a tree that tools.build.pq makes (build/cpython), the tag `semantics` is on the
last commit of the semantics part: upstream..semantics is patches/semantics/,
semantics..HEAD patches/performance/. semantics_split() finds it, or says what
to run when a rebase left it behind.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from tools.common import ToolError, rel
from tools.build.git import git
from tools.paths import shown

SEMANTICS, PERFORMANCE = "semantics", "performance"
PARTS = (SEMANTICS, PERFORMANCE)
SPLIT_TAG = SEMANTICS       # in a tree: the tag on the last commit of the semantics part
# The comment line before each part in the series file: what the part is.
PART_COMMENTS = {
    SEMANTICS: "# The semantics: PEP 671's late-bound defaults, a series that can be "
               "merged on its own (semantics/).",
    PERFORMANCE: "# The performance follow-up: specializations that apply on top of "
                 "the semantics (performance/).",
}


def read_series(patches: Path) -> list[str]:
    """The patches that patches/series names, in order (paths relative to patches/;
    comment lines and blank lines skipped). No series file: no patches."""
    series = patches / "series"
    if not series.is_file():
        return []
    names = []
    for line in series.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            names.append(line)
    return names


def part_of(name: str) -> str:
    """The part (SEMANTICS or PERFORMANCE) of a series entry, PART/NNNN-NAME.patch."""
    part, slash, rest = name.partition("/")
    if not slash or part not in PARTS or not rest.endswith(".patch") or "/" in rest:
        raise ToolError(f"series entry {name!r}: a patch of the series is "
                        f"{SEMANTICS}/NAME.patch or {PERFORMANCE}/NAME.patch")
    return part


def split_series(names: list[str]) -> tuple[list[str], list[str]]:
    """names (series entries, in order) as the semantics part and the performance part;
    ToolError when an entry is in neither or a semantics patch follows a performance one."""
    semantics: list[str] = []
    performance: list[str] = []
    for name in names:
        if part_of(name) == SEMANTICS:
            if performance:
                raise ToolError(f"series entry {name}: it follows {performance[-1]}, but "
                                "the semantics part comes first, whole")
            semantics.append(name)
        else:
            performance.append(name)
    return semantics, performance


def series_text(semantics: list[str], performance: list[str]) -> str:
    """The series file of these two parts: each after its comment line."""
    lines = [PART_COMMENTS[SEMANTICS], *semantics, PART_COMMENTS[PERFORMANCE], *performance]
    return "".join(line + "\n" for line in lines)


def write_series(patches: Path, names: list[str]) -> bool:
    """Write patches/series for names (in order) unless it already says that; True when
    the file changed."""
    text = series_text(*split_series(names))
    series = patches / "series"
    if series.is_file() and series.read_text() == text:
        return False
    series.write_text(text)
    return True


def series_digest(patches: Path) -> str:
    """Hash of everything a tree built from `patches` depends on: the patches its series
    names, in order, by path (so by part) and content. The comments are not part of it."""
    h = hashlib.sha256()
    for name in read_series(patches):
        p = patches / name
        h.update(b"\0" + name.encode() + b"\0")
        h.update(p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def series_contents(patches: Path) -> list[bytes]:
    """The content of each patch of the series, in order, whatever its name or part (a
    patch that `git format-patch --no-numbered` writes depends on its commit alone)."""
    return [(patches / n).read_bytes() if (patches / n).is_file() else b"<missing>"
            for n in read_series(patches)]


def patch_files(patches: Path) -> dict[str, Path]:
    """The patch files in patches/ by series name: those of the two parts, and any left
    directly in patches/ (the layout before the parts)."""
    found = {p.name: p for p in patches.glob("*.patch")}
    for part in PARTS:
        found.update({f"{part}/{p.name}": p for p in (patches / part).glob("*.patch")})
    return found


def sync_patches(source: Path, names: list[str], dest: Path) -> int:
    """Make dest hold exactly the patches names of source (series names), and a series file
    naming them. Files already right are left alone, so that their times and the digest stay;
    patch files of dest that names leaves out are removed, and so are part directories left
    empty. Returns the number of files written or removed."""
    semantics, performance = split_series(names)
    missing = [name for name in names if not (source / name).is_file()]
    if missing:
        raise ToolError(f"{rel(source)}/series names missing file(s): {', '.join(missing)}")
    dest.mkdir(parents=True, exist_ok=True)
    changed = 0
    for name, stale in patch_files(dest).items():
        if name not in names:
            stale.unlink()
            changed += 1
    for name in names:
        src, copy = source / name, dest / name
        if not copy.is_file() or copy.read_bytes() != src.read_bytes():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, copy)
            changed += 1
    for part in PARTS:
        if (dest / part).is_dir() and not any((dest / part).iterdir()):
            (dest / part).rmdir()
    changed += write_series(dest, semantics + performance)
    return changed


# ---------------------------------------------------------------- in a tree

class SplitError(ToolError):
    """The tree does not say where its semantics part ends (see semantics_split)."""


def commit_of(tree: Path, rev: str) -> str | None:
    proc = git(tree, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def is_ancestor(tree: Path, older: str, newer: str) -> bool:
    return git(tree, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def subjects(tree: Path, rev_range: str) -> list[tuple[str, str]]:
    """(commit, subject) of each commit of rev_range, oldest first."""
    out = git(tree, "log", "--reverse", "--format=%H %s", rev_range).stdout
    return [(commit, subject) for commit, _, subject in
            (line.partition(" ") for line in out.splitlines() if line)]


def split_hint(tree: Path, stale: str | None, patches: Path | None) -> str:
    """What to run to mark the last semantics commit, naming the commit when it can tell:
    the one with the subject of the stale tag's commit (after a rebase), or else commit N
    of upstream..HEAD when patches/series has N semantics patches."""
    where = shown(tree)
    commits = subjects(tree, "upstream..HEAD")
    guess, why = None, ""
    if stale is not None:
        subject = git(tree, "log", "-1", "--format=%s", stale).stdout.strip()
        same = [c for c, s in commits if s == subject]
        if len(same) == 1:
            guess = same[0]
            why = f"the commit of HEAD with the tagged commit's subject, {subject!r}"
    if guess is None and patches is not None and (patches / "series").is_file():
        try:
            count = len(split_series(read_series(patches))[0])
        except ToolError:
            count = 0
        if 0 < count <= len(commits):
            guess = commits[count - 1][0]
            why = (f"commit {count} of upstream..HEAD, as {shown(patches)}/series has "
                   f"{count} semantics patches")
    lines = ["mark the last commit of the semantics part (later commits are the performance "
             "follow-up), then export:",
             f"  git -C {where} tag -f {SPLIT_TAG} <commit>",
             f"(`git -C {where} log --oneline upstream..HEAD` lists the commits)"]
    if guess is not None:
        lines.append(f"probably {guess[:12]}, {why}:\n"
                     f"  git -C {where} tag -f {SPLIT_TAG} {guess[:12]}")
    return "\n".join(lines)


def semantics_split(tree: Path, patches: Path | None = None) -> str:
    """The last commit of the tree's semantics part: the tag `semantics`, which must be a
    commit of upstream..HEAD or upstream itself (no semantics; only when the tree has no
    commits is the tag not needed). SplitError says what to run, with patches/ (when given)
    as a guide."""
    upstream = git(tree, "rev-parse", "upstream^{commit}").stdout.strip()
    head = git(tree, "rev-parse", "HEAD").stdout.strip()
    tagged = commit_of(tree, f"refs/tags/{SPLIT_TAG}")
    if head == upstream:
        return upstream
    if tagged is None:
        problem = (f"{shown(tree)} has no tag `{SPLIT_TAG}`, which marks where the semantics "
                   "part of the series ends")
    elif is_ancestor(tree, tagged, head) and is_ancestor(tree, upstream, tagged):
        return tagged
    else:
        problem = (f"the tag `{SPLIT_TAG}` of {shown(tree)} ({tagged[:12]}) is not a commit of "
                   "upstream..HEAD (a rebase rewrote the commits and left the tag on the old one?)")
    raise SplitError(problem + ";\n" + split_hint(tree, tagged, patches))
