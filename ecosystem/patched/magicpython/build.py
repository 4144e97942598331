"""Build MagicPython's grammar (stock or patched) with shiki for the probe and tests.

pin.toml's [package] build runs this at the top of the unpacked npm tarball of
tm-grammars (the patched one after late-defaults.patch):

    python3 build.py SHIKI TOKENIZE OUT CACHE

1. shiki's core, its Oniguruma engine and its bundled grammars (@shikijs/langs, whose
   python grammar is the stock one, as shiki ships it), as SHIKI/package-lock.json
   pins them, installed by `npm ci` once into CACHE/npm/<digest of package.json and
   package-lock.json>/ and copied to OUT/node_modules;
2. the tree's grammars/python.json (MagicPython, as VS Code and shiki ship it) to
   OUT/python.json, and TOKENIZE (tokenize.mjs) beside it.

Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path


def npm_install(shiki: Path, cache: Path) -> Path:
    """node_modules of shiki/package-lock.json, installed once per digest of it."""
    inputs = [(shiki / name).read_bytes() for name in ("package.json", "package-lock.json")]
    key = hashlib.sha256(b"\0".join(inputs)).hexdigest()[:16]
    root = cache / "npm" / f"magicpython-shiki-{key}"
    if (root / "node_modules").is_dir():
        return root / "node_modules"
    scratch = root.with_name(root.name + ".tmp")
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(shiki / name, scratch / name)
    cmd = ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
    print("$", " ".join(cmd), flush=True)
    status = subprocess.run(cmd, cwd=scratch, stdin=subprocess.DEVNULL,
                            env={**os.environ, "NODE_ENV": "production"}).returncode
    if status != 0:
        raise SystemExit(f"exit {status}: {' '.join(cmd)}")
    scratch.rename(root)
    return root / "node_modules"


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    shiki, tokenize, out, cache = Path(argv[0]), Path(argv[1]), Path(argv[2]).absolute(), \
        Path(argv[3])
    grammar = Path.cwd() / "grammars" / "python.json"
    if not grammar.is_file():
        print(f"{Path.cwd()} is not the top of the tm-grammars package", file=sys.stderr)
        return 2
    modules = npm_install(shiki, cache)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(modules, out / "node_modules", symlinks=True, dirs_exist_ok=True)
    shutil.copy2(grammar, out / "python.json")
    shutil.copy2(tokenize, out / "tokenize.mjs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
