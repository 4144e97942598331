"""Prepare an unpacked basedpyright sdist for `pip wheel` on a machine that reaches the
package registries but not the hosts basedpyright's build downloads its tools from.

pin.toml's [package] prepare runs this at the top of the patched tree (a build
environment adaptation, like overriding a rust-toolchain.toml; the patch does not change):

1. the JavaScript dependencies are installed from pnpm-lock.yaml by the pnpm that the
   release pins (gg.toml, package.json), taken from the npm registry by npx. Three
   settings make that possible here, written into pnpm-workspace.yaml's `overrides`:
   `pnpm: '-'` (the lockfile's own pnpm dependency, whose native binaries the registry
   does not serve for every platform; nothing in the build runs it), and the two
   packages of the @core-js scope that the registry does not serve at all (404):
   `@core-js/pure` becomes core-js-pure 3, the same polyfills under the same module
   paths, and `@core-js/types` the stand-in declarations of ./core-js-types. The
   lockfile is otherwise kept (pnpm install without --frozen-lockfile re-resolves only
   what the overrides change). `pmOnFail=ignore` lets this pnpm run in a project whose
   `packageManager` names pnpm 11, which needs Node.js 22.
2. gg.cmd, the bootstrapper that pdm_build.py calls (`./gg.cmd pnpm run build:cli:dev`)
   and that downloads pnpm from elsewhere, is replaced by a script that runs the same
   pnpm through npx.

Standard library only. Usage: python3 offline_build.py (from the top of the tree).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

PNPM = "pnpm@12.9.1"
CORE_JS_PURE = "npm:core-js-pure@3.51.0"
HERE = Path(__file__).resolve().parent
STAND_IN = Path(".offline") / "core-js-types"
PNPM_ENV = {"pnpm_config_pm_on_fail": "ignore", "pnpm_config_minimum_release_age": "0"}
OVERRIDES = "overrides:\n  tar: '7.5.11'\n"

GG_CMD = f"""#!/bin/sh
# Written by ecosystem/patched/basedpyright/offline_build.py in place of the release's
# bootstrapper: runs {PNPM} from the npm registry (npx), the pnpm that gg.toml pins.
if [ "$1" != pnpm ]; then
    echo "gg.cmd: only pnpm is provided on this machine, not '$1'" >&2
    exit 2
fi
shift
export pnpm_config_pm_on_fail=ignore pnpm_config_minimum_release_age=0
exec npx --yes {PNPM} "$@"
"""


def override_unreachable_packages(tree: Path) -> None:
    workspace = tree / "pnpm-workspace.yaml"
    text = workspace.read_text(encoding="utf-8")
    if OVERRIDES not in text:
        raise SystemExit(f"{workspace}: no {OVERRIDES!r}: is this the basedpyright 1.40.2 sdist?")
    shutil.copytree(HERE / "core-js-types", tree / STAND_IN, dirs_exist_ok=True)
    added = (f"  pnpm: '-'\n  '@core-js/pure': {CORE_JS_PURE}\n"
             f"  '@core-js/types': link:./{STAND_IN.as_posix()}\n")
    workspace.write_text(text.replace(OVERRIDES, OVERRIDES + added, 1), encoding="utf-8")


def main() -> int:
    tree = Path.cwd()
    if not (tree / "gg.cmd").is_file() or not (tree / "pnpm-lock.yaml").is_file():
        print(f"{tree} is not the top of a basedpyright sdist", file=sys.stderr)
        return 2
    override_unreachable_packages(tree)
    env = {**os.environ, **PNPM_ENV}
    install = ["npx", "--yes", PNPM, "install", "--no-frozen-lockfile"]
    print("$", " ".join(install), flush=True)
    status = subprocess.run(install, cwd=tree, env=env, stdin=subprocess.DEVNULL).returncode
    if status != 0:
        return status
    gg = tree / "gg.cmd"
    gg.write_text(GG_CMD, encoding="utf-8")
    gg.chmod(gg.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
