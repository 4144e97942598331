"""Check (or, as root, install) the Debian packages needed to build and test pep671.

  python3 -m tools.build.deps install  install the missing ones (apt-get update &&
                                       apt-get install -y); run as another user, stop
                                       with the one command to run: `sudo make deps`
  python3 -m tools.build.deps check    one clear message naming the missing packages;
                                       exit 1
  python3 -m tools.build.deps list     print the package list

`make` runs `install` first (through `make deps`), so that on a fresh machine
`make demo` and `make test`, run as root, install what they need themselves and say
so; run as another user, they stop at once with that one command.

--dry-run prints the apt-get commands instead of running them; --package NAME
(repeatable) checks NAME instead of the list (with a package that is not installed,
this shows what a fresh machine gets without changing this one).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys

from tools.common import ToolError, exits_on_tool_error, run, say

PACKAGES = [
    "build-essential", "pkg-config", "git", "xz-utils", "ca-certificates",
    "libffi-dev", "libssl-dev", "zlib1g-dev", "libbz2-dev", "liblzma-dev",
    "libsqlite3-dev", "libreadline-dev", "libncurses-dev", "uuid-dev", "tk-dev",
    "libgdbm-dev", "libgdbm-compat-dev",
    # not for the build, for make test: `python3 -m venv` of the system python3 (Sphinx for
    # make docs-check), valgrind (tests/tools/measure/test_pyperformance.py, and make bench),
    # packaging (tools.ecosystem compares distribution names and sdist files as pip does),
    # ccache (Nuitka, ecosystem/patched/nuitka, caches the C it compiles with it, in
    # ~/.cache/pep671/nuitka: its runtime library, the same for every module it builds)
    "python3-venv", "valgrind", "python3-packaging", "ccache",
]

FIX = "run `sudo make deps` (or `make deps` as root)"


def missing(packages: list[str]) -> list[str]:
    if not shutil.which("dpkg-query"):
        raise ToolError("dpkg-query not found: this build expects a Debian (12+) system")
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", *packages],
                         capture_output=True, text=True).stdout
    installed = {line.split()[0] for line in out.splitlines()
                 if line.split()[-1:] == ["installed"]}
    return [p for p in packages if p not in installed]


def install(todo: list[str], dry_run: bool) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    commands = [["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", *todo]]
    say("installing the missing build dependencies (Debian packages): " + " ".join(todo))
    for cmd in commands:
        if dry_run:
            print(f"would run: {shlex.join(cmd)}")
        else:
            run(cmd, env=env)
    # a package may be given as NAME=VERSION (tools.build.wasm pins its toolchain so)
    if not dry_run and (still := missing([t.split("=", 1)[0] for t in todo])):
        raise ToolError("apt-get finished but these are still not installed: " + " ".join(still))


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.deps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["install", "check", "list"])
    ap.add_argument("--dry-run", action="store_true",
                    help="install: print the apt-get commands instead of running them")
    ap.add_argument("--package", action="append", metavar="NAME",
                    help="check NAME instead of the build dependencies (repeatable)")
    args = ap.parse_args(argv)
    packages = args.package or PACKAGES
    if args.action == "list":
        print(" ".join(packages))
        return 0
    todo = missing(packages)
    if not todo:
        if args.action == "install":
            say("build dependencies: all installed")
        return 0
    what = "missing build dependencies (Debian packages): " + " ".join(todo)
    if args.action == "check" or os.geteuid() != 0:
        raise ToolError(f"{what}\n  {FIX}")
    install(todo, args.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
