"""Build @lezer/python (stock or patched) for the ecosystem probes and tests.

pin.toml's [package] build runs this at the top of the unpacked npm tarball of the
release (the patched one after late-defaults.patch):

    python3 build.py TOOLCHAIN PARSE OUT CACHE

1. the toolchain of TOOLCHAIN/package-lock.json (@lezer/generator, rollup and its
   node-resolve plugin, mocha, and the package's own dependencies, each at one exact
   version of the range the release's package.json asks for), installed by `npm ci`
   once into CACHE/npm/lezer-python-<digest of package.json and package-lock.json>/;
2. the package's own build script (`npm run build`: `lezer-generator
   src/python.grammar -o src/parser && rollup -c`), in a scratch copy of the tree with
   that node_modules: the tarball's dist/ is what upstream built at the release, from
   the stock grammar, so the patched grammar needs this to take effect;
3. OUT: the built dist/, the tree's package.json (its "type": "module" makes Node.js
   load dist/index.js as a module), the runtime dependencies (@lezer/common, @lezer/lr,
   @lezer/highlight) in OUT/node_modules, and PARSE (parse.mjs) beside them.

Standard library only. `npm_install(TOOLCHAIN, CACHE)` and `build_tree(TREE, MODULES)`
are what the tests (run_tests.py) use.
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# what dist/ imports at run time (rollup leaves bare imports external)
RUNTIME = ("@lezer/common", "@lezer/lr", "@lezer/highlight")
DIST = ("dist/index.js", "dist/index.cjs")
LOCK = ("package.json", "package-lock.json")


def run(cmd: list[str], cwd: Path | None = None) -> str:
    print("$", " ".join(cmd), flush=True)
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false",
           "npm_config_audit": "false", "NO_COLOR": "1"}
    proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(proc.stdout, end="", flush=True)
    if proc.returncode != 0:
        raise SystemExit(f"exit {proc.returncode}: {' '.join(cmd)}")
    return proc.stdout


def npm_install(toolchain: Path, cache: Path) -> Path:
    """node_modules of toolchain/package-lock.json, installed once per digest of it."""
    key = hashlib.sha256(b"\0".join((toolchain / name).read_bytes() for name in LOCK))
    root = cache / "npm" / f"lezer-python-{key.hexdigest()[:16]}"
    if (root / "node_modules").is_dir():
        return root / "node_modules"
    scratch = root.with_name(root.name + ".tmp")
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for name in LOCK:
        shutil.copy2(toolchain / name, scratch / name)
    run(["nice", "-n", "10", "npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=scratch)
    scratch.rename(root)
    return root / "node_modules"


def build_tree(tree: Path, modules: Path) -> None:
    """The package's build script in tree, with modules as its node_modules."""
    link = tree / "node_modules"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(modules, target_is_directory=True)
    run(["nice", "-n", "10", "npm", "run", "build"], cwd=tree)


def same_dist(built: Path, release: Path) -> bool:
    """Whether the dist/ files of built are the release's, byte for byte."""
    return all((release / name).is_file() and
               filecmp.cmp(built / name, release / name, shallow=False) for name in DIST)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    toolchain, parse = Path(argv[0]).absolute(), Path(argv[1]).absolute()
    out, cache = Path(argv[2]).absolute(), Path(argv[3]).absolute()
    tree = Path.cwd()
    if not (tree / "src" / "python.grammar").is_file():
        print(f"{tree} is not the top of the @lezer/python package", file=sys.stderr)
        return 2
    modules = npm_install(toolchain, cache)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "package"
        shutil.copytree(tree, work, ignore=shutil.ignore_patterns("node_modules"))
        build_tree(work, modules)
        print(f"{', '.join(DIST)}: "
              + ("as the release ships them" if same_dist(work, tree)
                 else "not the release's (built from a changed grammar)"), flush=True)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copytree(work / "dist", out / "dist", dirs_exist_ok=True)
        shutil.copy2(work / "package.json", out / "package.json")
    for name in RUNTIME:
        shutil.copytree(modules / name, out / "node_modules" / name, dirs_exist_ok=True)
    shutil.copy2(parse, out / "parse.mjs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
