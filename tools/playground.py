"""The playground: a static page that runs build/wasm/python.wasm in the browser.

  python3 -m tools.playground build          (make playground) -> build/playground/
  python3 -m tools.playground test           (make playground-test)
  python3 -m tools.playground dist [--only-if-built]
                          -> build/dist/pep671-playground-VERSION.tar.xz (make dist)

build copies playground/index.html, playground.js and worker.js, examples/tour.py (the
code the editor starts with), python.wasm and lib/python313.zip (make wasm) gzipped,
and the WASI shim, @bjorn3/browser_wasi_shim at the exact version of
playground/package-lock.json (`npm ci` in build/playground-npm, only when the
lock changed). No server code: `python3 -m http.server -d build/playground`
serves it.

test runs tests/test_wasm.py (python.wasm under Node.js's WASI) and
tests/test_playground.py (the page in Debian's headless chromium, driven by
Playwright from build/venv) with PEP671_PLAYGROUND_TEST=1, so that a missing
piece fails instead of skipping. chromium is installed first when missing (as
root, through tools.deps; otherwise the command to run is shown).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools import deps, pq, wasm
from tools.install import write_sha256sums
from tools.common import (ToolError, built_python, ensure_venv, exits_on_tool_error, rel, run,
                          say, scrubbed_env, sha256_file)
from tools.paths import (BUILD, CPYTHON_VERSION, DIST, PATCHES, PLAYGROUND, PLAYGROUND_OUT,
                         PYTHON, REPO, TEST_REQUIREMENTS, TESTS, TREE, VENV, WASM_LIB, WASM_OUT,
                         WASM_PYTHON, shown)

NPM_DIR = BUILD / "playground-npm"
SHIM = Path("node_modules/@bjorn3/browser_wasi_shim")
PAGE_FILES = ("index.html", "playground.js", "worker.js")
TOUR = REPO / "examples" / "tour.py"
BROWSER_PACKAGES = ["chromium"]
TEST_FILES = [TESTS / "test_wasm.py", TESTS / "test_playground.py"]


def npm_install() -> Path:
    """The shim's directory in build/playground-npm/node_modules, from `npm ci`."""
    npm = shutil.which("npm")
    if npm is None:
        raise ToolError("npm (Node.js 20) is not on PATH: it installs the page's WASI shim")
    lock = PLAYGROUND / "package-lock.json"
    stamp = NPM_DIR / ".lock-sha256"
    want = sha256_file(lock)
    if not (stamp.is_file() and stamp.read_text().strip() == want and (NPM_DIR / SHIM).is_dir()):
        shutil.rmtree(NPM_DIR, ignore_errors=True)
        NPM_DIR.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(PLAYGROUND / name, NPM_DIR / name)
        say(f"[playground] npm ci in {rel(NPM_DIR)} (the pinned WASI shim)")
        run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=NPM_DIR,
            capture=True)
        stamp.write_text(want + "\n")
    return NPM_DIR / SHIM


def gzip_to(source: Path, target: Path) -> None:
    with open(source, "rb") as src, open(target, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0,
                          filename="") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def build() -> Path:
    for need in (WASM_PYTHON, WASM_LIB / "python313.zip"):
        if not need.is_file():
            raise ToolError(f"{shown(need)} is missing (run `make wasm`)")
    shim = npm_install()
    t0 = time.monotonic()
    out = PLAYGROUND_OUT
    if out.exists():
        shutil.rmtree(out)
    (out / "lib").mkdir(parents=True)
    (out / "vendor" / "browser_wasi_shim").mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copy2(PLAYGROUND / name, out / name)
    shutil.copy2(TOUR, out / "tour.py")
    # gzipped (16.4 MB -> 5.7 MB to download); the page unpacks them itself, since a
    # plain static server sends them as they are
    gzip_to(WASM_PYTHON, out / "python.wasm.gz")
    gzip_to(WASM_LIB / "python313.zip", out / "lib" / "python313.zip.gz")
    for path in [*(shim / "dist").glob("*.js"), *shim.glob("LICENSE-*")]:
        shutil.copy2(path, out / "vendor" / "browser_wasi_shim" / path.name)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    say(f"[playground] {shown(out)}: {size / 1e6:.1f} MB in {time.monotonic() - t0:.1f}s; "
        f"serve it with `python3 -m http.server -d {shown(out)}`")
    return out


def ensure_chromium() -> None:
    todo = deps.missing(BROWSER_PACKAGES)
    if not todo:
        return
    if os.geteuid() != 0:
        raise ToolError("the browser test needs Debian's chromium\n"
                        "  as root: apt-get update && apt-get install chromium "
                        "(or run `make playground-test` as root)")
    deps.install(todo, dry_run=False)


def test(python: Path, pytest_args: list[str]) -> int:
    if not (PLAYGROUND_OUT / "index.html").is_file():
        raise ToolError(f"{shown(PLAYGROUND_OUT)} is missing (run `make playground`)")
    ensure_chromium()
    vpy = ensure_venv(built_python(python), VENV.absolute(), [TEST_REQUIREMENTS])
    args = [*map(str, TEST_FILES), "-v", "-s", *pytest_args]  # -s: the page's timings
    say(f"[playground] {rel(vpy)} -m pytest {' '.join(args)}")
    env = scrubbed_env({"PEP671_PLAYGROUND_TEST": "1"})
    return subprocess.run([str(vpy), "-m", "pytest", *args], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL).returncode


def dist(only_if_built: bool) -> Path | None:
    """build/dist/pep671-playground-VERSION.tar.xz: the site under one directory, VERSION
    from the wasm build's tag; SHA256SUMS written again. With only_if_built, nothing is
    built when neither build/wasm nor its cache entry is there (a cold wasm build takes
    minutes): a line says so and None is returned."""
    if not WASM_PYTHON.is_file():
        tag = pq.build_tag(TREE, PATCHES) if (TREE / ".git").is_dir() else None
        if not (tag and wasm.restore(wasm.cache_entry(wasm.inputs_digest(tag)))):
            if only_if_built:
                say("[playground] no wasm build (build/wasm, or its cache entry): the "
                    "playground archive is not written; `make wasm` first, then `make dist`")
                return None
            raise ToolError(f"{shown(WASM_PYTHON)} is missing (run `make wasm`)")
        say("[playground] build/wasm restored from its cache entry")
    build()
    tag = json.loads((WASM_OUT / "build-info.json").read_text())["build_tag"] or "untagged"
    top = f"pep671-playground-{CPYTHON_VERSION}-{tag.removeprefix('pep671-')}"
    DIST.mkdir(parents=True, exist_ok=True)
    archive = DIST.absolute() / f"{top}.tar.xz"
    partial = archive.with_name(archive.name + ".part")
    run(["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner",
         "--mtime=2025-06-11 12:00Z", f"--transform=s,^{PLAYGROUND_OUT.name},{top},",
         "-I", "xz -T0 -6", "-cf", str(partial), "-C", str(PLAYGROUND_OUT.parent),
         PLAYGROUND_OUT.name])
    os.replace(partial, archive)
    sums = write_sha256sums(DIST)
    say(f"[playground] {rel(archive)}: {archive.stat().st_size / 1e6:.1f} MB; "
        f"checksums in {rel(sums)}")
    return archive


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.playground", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help=f"write {shown(PLAYGROUND_OUT)}")
    t = sub.add_parser("test", help="the wasm and browser tests (pytest, from build/venv)")
    t.add_argument("--python", type=Path, default=PYTHON,
                   help="the interpreter whose venv runs pytest (default: ./python)")
    t.add_argument("pytest_args", nargs="*", help="more arguments for pytest")
    d = sub.add_parser("dist", help="write build/dist/pep671-playground-VERSION.tar.xz")
    d.add_argument("--only-if-built", action="store_true",
                   help="write nothing (and say so) when there is no wasm build to use")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        build()
    elif args.cmd == "test":
        return test(args.python, args.pytest_args)
    elif (archive := dist(args.only_if_built)) is not None:
        print(archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
