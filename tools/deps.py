"""Check (or, as root, install) the Debian packages needed to build CPython.

  python3 -m tools.deps check     one clear message naming the missing packages; exit 1
  python3 -m tools.deps install   apt-get update && apt-get install -y the missing ones (root)
  python3 -m tools.deps list      print the package list
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

from tools.common import die, run, say

PACKAGES = [
    "build-essential", "pkg-config", "git", "xz-utils", "ca-certificates",
    "libffi-dev", "libssl-dev", "zlib1g-dev", "libbz2-dev", "liblzma-dev",
    "libsqlite3-dev", "libreadline-dev", "libncurses-dev", "uuid-dev", "tk-dev",
    "libgdbm-dev", "libgdbm-compat-dev",
]


def missing() -> list[str]:
    if not shutil.which("dpkg-query"):
        die("dpkg-query not found: this build expects a Debian (12+) system")
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", *PACKAGES],
                         capture_output=True, text=True).stdout
    installed = {line.split()[0] for line in out.splitlines()
                 if line.split()[-1:] == ["installed"]}
    return [p for p in PACKAGES if p not in installed]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.deps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=["check", "install", "list"])
    args = ap.parse_args(argv)
    if args.action == "list":
        print(" ".join(PACKAGES))
        return 0
    todo = missing()
    if args.action == "check":
        if todo:
            die("missing build dependencies (Debian packages): " + " ".join(todo) +
                "\n  install them with `make deps` as root"
                f" (or: apt-get install {' '.join(todo)})")
        return 0
    if not todo:
        say("build dependencies: all installed")
        return 0
    if os.geteuid() != 0:
        die("`make deps` must run as root; missing: " + " ".join(todo))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    say("installing " + " ".join(todo))
    run(["apt-get", "update", "-q"], env=env)
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *todo], env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
