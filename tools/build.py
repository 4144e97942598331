"""Configure, regenerate and build a CPython tree in place.

Steps (each announced with a line starting with ==>; output goes to
build/logs/<name>-<step>.log, whose tail is shown on failure; -v streams it):

  1. ./configure PYTHON_FOR_REGEN=<python3> <flags>  -- only when the tree
     is not configured yet or the flags changed (then `make clean` too)
  2. (--regen) make regen-token regen-pegen regen-ast regen-cases
     regen-keyword regen-sre regen-typeslots regen-global-objects
     (these write a file only when its content changes)
  3. make -j<jobs>
  4. (--regen) make regen-test-frozenmain, then make -j<jobs> again
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
import subprocess
import sys
import time
from pathlib import Path

from tools.paths import LOGS, TREE, shown
from tools.common import die, run_logged, say, tail

REGEN_TARGETS = ["regen-token", "regen-pegen", "regen-ast", "regen-cases",
                 "regen-keyword", "regen-sre", "regen-typeslots", "regen-global-objects"]


def build_info_make_vars(tag: str) -> list[str]:
    """make arguments that compile tag into Modules/getbuildinfo.o (see the docstring)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", tag):
        die(f"build tag {tag!r}: use letters, digits and . _ + - only "
            "(it is compiled into sys.version)")
    return [f"GITTAG=echo {tag}", "GITVERSION=", "GITBRANCH="]


class Builder:
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
            die(f"[{self.name}] {label} failed (exit {rc}); full log: {log}")
        say(f"[{self.name}] {label}: done in {time.monotonic() - t0:.0f}s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=TREE)
    ap.add_argument("--name", default="cpython", help="label for progress lines and logs")
    ap.add_argument("--configure-flags", default="", help="extra ./configure options")
    ap.add_argument("--regen", action="store_true", help="regenerate generated files")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--link", type=Path, help="wrapper script to write that runs <tree>/python")
    ap.add_argument("--build-tag", help="what sys.version names the build, e.g. the output of "
                    "`python3 -m tools.pq version` (default: what configure found, git describe)")
    ap.add_argument("--logdir", type=Path, default=LOGS)
    ap.add_argument("-v", "--verbose", action="store_true", help="stream build output")
    args = ap.parse_args(argv)

    tree: Path = args.tree.absolute()
    if not (tree / "configure").is_file():
        die(f"{tree} is not a CPython source tree")
    regen_python = shutil.which("python3")
    if regen_python is None:
        die("python3 not found (needed as PYTHON_FOR_REGEN)")
    b = Builder(tree, args.name, args.logdir.absolute(), args.verbose)
    make = ["make", f"-j{args.jobs}"]
    if args.build_tag is not None:
        make += build_info_make_vars(args.build_tag)

    flags = shlex.split(args.configure_flags)
    stamp = tree / ".pep671-configure"
    wanted = shlex.join([f"PYTHON_FOR_REGEN={regen_python}", *flags]) + "\n"
    if not (tree / "Makefile").is_file() or not stamp.is_file() or stamp.read_text() != wanted:
        if (tree / "Makefile").is_file():
            b.step("make clean (configure flags changed)", "clean", ["make", "clean"])
        stamp.unlink(missing_ok=True)
        b.step(f"configure {args.configure_flags}".rstrip(), "configure",
               ["./configure", f"PYTHON_FOR_REGEN={regen_python}", *flags])
        stamp.write_text(wanted)
    else:
        say(f"[{args.name}] configure: up to date ({args.configure_flags or 'default options'})")

    tag_stamp = tree / ".pep671-build-tag"
    wanted_tag = "" if args.build_tag is None else args.build_tag + "\n"
    if (tag_stamp.read_text() if tag_stamp.is_file() else "") != wanted_tag:
        (tree / "Modules" / "getbuildinfo.o").unlink(missing_ok=True)
        tag_stamp.write_text(wanted_tag)

    if args.regen:
        b.step("regenerate generated files", "regen", ["make", *REGEN_TARGETS])
    b.step(f"build with {args.jobs} job(s)", "make", make)
    if args.regen:
        b.step("regenerate Programs/test_frozenmain.h", "regen-frozenmain",
               ["make", "regen-test-frozenmain"])
        b.step("build (after regen-test-frozenmain)", "make2", make)

    python = tree / "python"
    if not python.is_file():
        die(f"build finished but {python} is missing")
    if args.link:
        # A small wrapper rather than a symlink: through a symlink,
        # sys._base_executable would be the link, and `-m venv` would write
        # `home = <repo root>`, where the venv's python finds no stdlib.
        link: Path = args.link.absolute()
        target = os.path.relpath(python, link.parent)
        script = (
            "#!/bin/sh\n"
            f"# written by tools.build: runs the interpreter built in {os.path.dirname(target)}\n"
            'here=$(cd "$(dirname "$0")" && pwd -P)\n'
            f'exec "$here/{target}" "$@"\n'
        )
        if link.is_symlink() or (link.exists() and link.read_text(errors="replace") != script):
            link.unlink()
        if not link.exists():
            link.write_text(script)
            link.chmod(0o755)
        say(f"{os.path.relpath(link)}: runs {target}")
    version = subprocess.run([str(python), "-c", "import sys; print(sys.version)"],
                             capture_output=True, text=True, cwd=tree)
    say(f"[{args.name}] {shown(python)}: "
        f"Python {version.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
