"""Derive the patched tm-grammars copy of MagicPython from the YAML change of the patch.

pin.toml's [package] prepare runs this at the top of the unpacked npm tarball of
tm-grammars, in the patched variant only (the patch itself, MagicPython's repository
form, applies to none of the tarball's files: pin.toml's not_in_release):

    python3 derive.py PATCH SHIKI DERIVE CACHE

DERIVE (derive.mjs) rewrites grammars/python.json with the rules that PATCH
(magicpython-upstream.patch) changes in MagicPython's YAML, converted as VS Code's and
tm-grammars' copies are made from it, after checking that the rules before the patch
give the copy's rules as they are. Its JavaScript dependencies (js-yaml, the YAML library
of MagicPython's build, and oniguruma-parser, tm-grammars' regular expression optimizer)
are those of SHIKI/package-lock.json, installed once under CACHE as build.py installs them.

Standard library only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import npm_install  # noqa: E402  (build.py of this directory)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    patch, shiki, derive, cache = (Path(a).absolute() for a in argv)
    grammar = Path.cwd() / "grammars" / "python.json"
    if not grammar.is_file():
        print(f"{Path.cwd()} is not the top of the tm-grammars package", file=sys.stderr)
        return 2
    modules = npm_install(shiki, cache)
    with tempfile.TemporaryDirectory() as scratch:
        # node finds the packages of an ES module in the node_modules beside it
        (Path(scratch) / "node_modules").symlink_to(modules, target_is_directory=True)
        script = Path(scratch) / derive.name
        shutil.copy2(derive, script)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        cmd = ["node", str(script), str(patch), str(grammar)]
        print("$", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True)
    print(proc.stdout + proc.stderr, end="", flush=True)
    if proc.returncode != 0:
        return proc.returncode
    print(f"{grammar.relative_to(Path.cwd())}: the rules {proc.stdout.strip()} derived "
          f"from {patch.name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
