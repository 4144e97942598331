"""The patched interpreter cross-compiled to WebAssembly (wasm32-wasi).

  python3 -m tools.build.wasm build [--jobs N] [--build-tag TAG]    (make wasm)
  python3 -m tools.build.wasm run [PYTHON ARGS...]   run build/wasm/python.wasm under Node.js
  python3 -m tools.build.wasm digest                 print the digest of the build's inputs

build writes build/wasm/python.wasm and build/wasm/lib/python313.zip, the
stdlib it needs as compiled .pyc files (without test/, idlelib, tkinter,
ensurepip and the other packages a playground has no use for: STDLIB_EXCLUDE).
The guest sees the zip at /lib/python313.zip and runs with PYTHONHOME=/.

Steps (each announced with ==> [wasm]; logs in build/logs/wasm-*.log):
  1. the toolchain: Debian 12's clang/lld/llvm 19, compiler-rt's wasm32
     builtins and wasi-libc, at the exact versions of TOOLCHAIN (installed
     when missing, as root, through tools.build.deps; otherwise the command to run)
  2. the cache: ~/.cache/pep671/wasm/<digest>/, keyed by the digest of the
     inputs (patches/, the tarball's sha256, TOOLCHAIN, this file, the build
     tag). When it is there, it is copied to build/wasm/ and nothing is built.
     A tree with unexported work (a -dirty tag) is built without the cache.
  3. build/wasm/work/src: a clone of build/cpython at its HEAD, with the files the
     native build regenerated (tools.build.tree_files) copied over; build/cpython's
     in-tree build is not touched
  4. configure in build/wasm/work/host with Tools/wasm/config.site-wasm32-wasi
     (and CONFIG_SITE_EXTRA),
     --host=wasm32-unknown-wasi and --with-build-python=build/cpython/python
     (the build Python must be this very patched 3.13.5: it freezes modules)
  5. make -j<jobs>, llvm-strip, then the stdlib zip, compiled by the build Python
     (stored, not deflated: the WASI build has no zlib)
  6. the result is stored in the cache
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from tools.build import deps
from tools.build.cpython import Builder, build_info_make_vars
from tools.common import (ToolError, cache_dir, exits_on_tool_error, rel, run, say,
                          sha256_file)
from tools.paths import (LOGS, PATCHES, REPO, TARBALL_SHA256, TREE, WASM_LIB, WASM_OUT,
                         WASM_PYTHON, shown)
from tools.build.tree_files import GENERATED

# Debian 12 (bookworm) packages and the exact versions the build is made and tested with.
TOOLCHAIN = {
    "clang-19": "1:19.1.7-3~deb12u1",
    "lld-19": "1:19.1.7-3~deb12u1",
    "llvm-19": "1:19.1.7-3~deb12u1",
    "libclang-rt-19-dev-wasm32": "1:19.1.7-3~deb12u1",
    "wasi-libc": "0.0~git20220510.9886d3d-2",
}
HOST_TRIPLE = "wasm32-unknown-wasi"
TARGET_FLAG = "--target=wasm32-wasi"     # Debian's clang finds wasi-libc in /usr by this
CROSS_ENV = {
    "CC": f"clang-19 {TARGET_FLAG}",
    "CPP": f"clang-cpp-19 {TARGET_FLAG}",
    "CXX": f"clang++-19 {TARGET_FLAG}",
    "AR": "llvm-ar-19",
    "RANLIB": "llvm-ranlib-19",
    "PKG_CONFIG_PATH": "",
    "PKG_CONFIG_LIBDIR": "/nonexistent",  # no library of the build machine
}
# Stdlib packages and modules left out of the zip: tests, GUIs, installers, and what
# needs an extension module the WASI build does not have (_ctypes, _curses, _sqlite3,
# _multiprocessing) or a subprocess.
STDLIB_EXCLUDE = {
    "test", "idlelib", "tkinter", "turtledemo", "turtle.py", "ensurepip", "venv",
    "lib2to3", "pydoc_data", "ctypes", "curses", "sqlite3", "multiprocessing",
    "__phello__", "site-packages", "dbm", "msilib", "wsgiref", "xmlrpc",
    "antigravity.py", "this.py",
}
# Added to Tools/wasm/config.site-wasm32-wasi: Debian 12's wasi-libc (2022) has no
# pthread.h, so configure finds no pthread_t; CPython's own stubs for WASI
# (Include/cpython/pthread_stubs.h) define pthread_t and pthread_key_t as unsigned.
CONFIG_SITE_EXTRA = """\
ac_cv_have_pthread_t=yes
ac_cv_sizeof_pthread_t=4
ac_cv_sizeof_pthread_key_t=4
ac_cv_pthread_key_t_is_arithmetic_type=yes
"""
ZIP_NAME = "python313.zip"
BUILD_PYTHON = TREE / "python"
WORK = WASM_OUT / "work"
SRC = WORK / "src"
HOST = WORK / "host"
NODE_RUNNER = REPO / "playground" / "wasi-node.mjs"
KEEP_CACHED = 4      # cache entries kept (other branches of the patches have theirs)
CACHE_FILES = ("python.wasm", f"lib/{ZIP_NAME}", "build-info.json")


def installed_versions(packages: list[str]) -> dict[str, str]:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version} ${db:Status-Status}\n",
                          *packages], capture_output=True, text=True).stdout
    return {p: v for p, v, status in (line.split() for line in out.splitlines()
                                      if len(line.split()) == 3) if status == "installed"}


def ensure_toolchain() -> None:
    """TOOLCHAIN installed at its versions: installed as root, else ToolError."""
    have = installed_versions(list(TOOLCHAIN))
    todo = [f"{p}={v}" for p, v in TOOLCHAIN.items() if have.get(p) != v]
    if not todo:
        say("[wasm] toolchain: " + ", ".join(f"{p} {v}" for p, v in TOOLCHAIN.items()))
        return
    wrong = [f"{p} {have[p]} (pinned: {v})" for p, v in TOOLCHAIN.items()
             if p in have and have[p] != v]
    if os.geteuid() != 0:
        raise ToolError("the wasm toolchain (Debian 12 packages) is missing or not at its "
                        "pinned versions" + (": " + ", ".join(wrong) if wrong else "") +
                        f"\n  as root: apt-get update && apt-get install {' '.join(todo)}"
                        "\n  (or run `make wasm` as root)")
    deps.install(todo, dry_run=False)


def inputs_digest(build_tag: str | None = None) -> str:
    """sha256 of what the wasm build is made from (see the module docstring), and of the
    build tag that sys.version will show."""
    h = hashlib.sha256()
    for part in (TARBALL_SHA256, json.dumps(TOOLCHAIN, sort_keys=True),
                 json.dumps(sorted(STDLIB_EXCLUDE)), build_tag or ""):
        h.update(part.encode() + b"\0")
    h.update(Path(__file__).read_bytes() + b"\0")
    for patch in sorted(p for p in PATCHES.rglob("*") if p.is_file()):   # both parts
        name = patch.relative_to(PATCHES).as_posix()
        h.update(name.encode() + b"\0" + patch.read_bytes() + b"\0")
    return h.hexdigest()


def cache_entry(digest: str) -> Path:
    return cache_dir() / "wasm" / digest[:24]


def restore(entry: Path) -> bool:
    """Copy a complete cache entry into build/wasm; False when it is not complete."""
    if not all((entry / f).is_file() for f in CACHE_FILES):
        return False
    WASM_LIB.mkdir(parents=True, exist_ok=True)
    for name in CACHE_FILES:
        shutil.copy2(entry / name, WASM_OUT / name)
    return True


def store(entry: Path) -> None:
    """Copy build/wasm's outputs into the cache entry (written aside, then renamed);
    only the KEEP_CACHED newest entries are kept."""
    part = entry.with_name(entry.name + f".part-{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    (part / "lib").mkdir(parents=True)
    for name in CACHE_FILES:
        shutil.copy2(WASM_OUT / name, part / name)
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(part, entry)
    entries = sorted((p for p in entry.parent.iterdir() if p.is_dir() and ".part-" not in p.name),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP_CACHED:]:
        shutil.rmtree(old, ignore_errors=True)


def prepare_source() -> None:
    """build/wasm/work/src = build/cpython's HEAD plus the files its build regenerated."""
    if not (BUILD_PYTHON.is_file() and (TREE / ".git").is_dir()):
        raise ToolError(f"{shown(BUILD_PYTHON)} is missing: the wasm build needs the native "
                        "build as its build Python (run `make` first)")
    if SRC.exists():
        shutil.rmtree(SRC)
    SRC.parent.mkdir(parents=True, exist_ok=True)
    say(f"[wasm] cloning {rel(TREE)} -> {rel(SRC)}")
    run(["git", "clone", "-q", "--no-hardlinks", str(TREE), str(SRC)], capture=True)
    generated = [*GENERATED, *(str(p.relative_to(TREE)) for p in TREE.glob("**/clinic/*.c.h"))]
    for name in generated:
        if (TREE / name).is_file():
            shutil.copy2(TREE / name, SRC / name)
    say(f"[wasm] copied {len(generated)} regenerated files from {rel(TREE)}")


def build_stdlib_zip(lib: Path, sysconfigdata: list[Path], out: Path) -> tuple[int, int]:
    """Write out: the .py files of lib (less STDLIB_EXCLUDE) and sysconfigdata, compiled
    by the running interpreter to sourceless .pyc files. Returns (modules, bytes). Run it
    with the build Python (`tools.build.wasm stdlib-zip`): the bytecode must be its own."""
    import importlib.util
    import marshal

    def pyc(source: Path, arcname: str) -> bytes:
        code = compile(source.read_bytes(), f"/lib/{ZIP_NAME}/{arcname}", "exec",
                       dont_inherit=True)
        return importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code)

    files: list[tuple[Path, str]] = []
    for path in sorted(lib.rglob("*.py")):
        parts = path.relative_to(lib).parts
        if parts[0] in STDLIB_EXCLUDE or "__pycache__" in parts:
            continue
        files.append((path, "/".join(parts)))
    files += [(p, p.name) for p in sysconfigdata]
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".part")
    # stored, not deflated: the WASI build has no zlib (no wasm32 zlib in the toolchain),
    # and zipimport needs zlib for deflated members
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED) as zf:
        for path, arcname in files:
            info = zipfile.ZipInfo(arcname.removesuffix(".py") + ".pyc",
                                   date_time=(2025, 6, 11, 12, 0, 0))
            zf.writestr(info, pyc(path, arcname))
    os.replace(partial, out)
    return len(files), out.stat().st_size


def build(jobs: int, build_tag: str | None, verbose: bool) -> Path:
    t0 = time.monotonic()
    ensure_toolchain()
    digest = inputs_digest(build_tag)
    entry = cache_entry(digest)
    # a tree with work that is not in patches/ is not what the digest says: no cache
    cacheable = not (build_tag or "").endswith("-dirty")
    if not cacheable:
        say("[wasm] build/cpython has work that is not in patches/ (tag "
            f"{build_tag}): building without the cache")
    elif restore(entry):
        say(f"[wasm] cache hit ({rel(entry)}): {shown(WASM_PYTHON)} and "
            f"{shown(WASM_LIB / ZIP_NAME)} restored, nothing built")
        report()
        return WASM_PYTHON
    else:
        say(f"[wasm] cache miss (digest {digest[:24]}): building (3-6 minutes on 2 cores)")
    prepare_source()
    if HOST.exists():
        shutil.rmtree(HOST)
    HOST.mkdir(parents=True)
    b = Builder(HOST, "wasm", LOGS.absolute(), verbose)
    config_site = WORK / "config.site"
    config_site.write_text(f". {SRC / 'Tools' / 'wasm' / 'config.site-wasm32-wasi'}\n"
                           + CONFIG_SITE_EXTRA)
    env = dict(b.env, **CROSS_ENV, CONFIG_SITE=str(config_site))
    b.step(f"configure --host={HOST_TRIPLE}", "configure",
           [os.path.relpath(SRC / "configure", HOST), f"--host={HOST_TRIPLE}",
            f"--build={build_triple()}", f"--with-build-python={BUILD_PYTHON}"], env=env)
    make = ["make", f"-j{jobs}"]
    if build_tag:
        make += build_info_make_vars(build_tag)
    b.step(f"make -j{jobs} (python.wasm)", "make", make, env=env)
    WASM_OUT.mkdir(parents=True, exist_ok=True)
    b.step("llvm-strip-19 (drop the debug sections)", "strip",
           ["llvm-strip-19", str(HOST / "python.wasm"), "-o", str(WASM_PYTHON)])
    sysconfigdata = sorted(HOST.glob("build/lib.*/_sysconfigdata_*.py"))
    if not sysconfigdata:
        raise ToolError(f"no _sysconfigdata_*.py under {HOST}/build/lib.*")
    b.step(f"the stdlib zip {shown(WASM_LIB / ZIP_NAME)} (compiled by {shown(BUILD_PYTHON)})",
           "stdlib", [str(BUILD_PYTHON), "-m", "tools.build.wasm", "stdlib-zip",
                      "--lib", str(SRC / "Lib"), "--out", str(WASM_LIB / ZIP_NAME),
                      *(f"--extra={p}" for p in sysconfigdata)], cwd=REPO)
    info = {"digest": digest, "toolchain": TOOLCHAIN, "build_tag": build_tag,
            "build_seconds": round(time.monotonic() - t0),
            "python.wasm sha256": sha256_file(WASM_PYTHON)}
    (WASM_OUT / "build-info.json").write_text(json.dumps(info, indent=2) + "\n")
    if cacheable:
        store(entry)
    say(f"[wasm] built in {time.monotonic() - t0:.0f}s" +
        (f"; cached in {rel(entry)}" if cacheable else ""))
    report()
    return WASM_PYTHON


def build_triple() -> str:
    guess = SRC / "config.guess"
    return run([str(guess)], capture=True).stdout.strip()


def report() -> None:
    wasm = WASM_PYTHON.stat().st_size
    zipped = (WASM_LIB / ZIP_NAME).stat().st_size
    say(f"[wasm] {shown(WASM_PYTHON)}: {wasm / 1e6:.1f} MB; {shown(WASM_LIB / ZIP_NAME)}: "
        f"{zipped / 1e6:.1f} MB; together {(wasm + zipped) / 1e6:.1f} MB")


def node_command(args: list[str], *, mounts: dict[str, Path] | None = None,
                 env: dict[str, str] | None = None) -> list[str]:
    """The command that runs python.wasm with args under Node.js's WASI (preview1):
    the stdlib at /lib, plus mounts (guest directory -> host directory)."""
    if not WASM_PYTHON.is_file():
        raise ToolError(f"{shown(WASM_PYTHON)} is missing (run `make wasm`)")
    node = shutil.which("node")
    if node is None:
        raise ToolError("node (Node.js 20 or later, for node:wasi) is not on PATH")
    preopens = {"/lib": str(WASM_LIB.absolute())}
    preopens.update({guest: str(host.absolute()) for guest, host in (mounts or {}).items()})
    config = {"wasm": str(WASM_PYTHON.absolute()), "args": ["python", *args],
              "env": {"PYTHONHOME": "/", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
              "preopens": preopens}
    return [node, "--no-warnings", "--stack-size=8000", str(NODE_RUNNER), json.dumps(config)]


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.wasm", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build (or restore from the cache) build/wasm")
    b.add_argument("--jobs", type=int, default=2)
    b.add_argument("--build-tag", help="what sys.version names the build (tools.build.pq version)")
    b.add_argument("-v", "--verbose", action="store_true", help="stream build output")
    r = sub.add_parser("run", help="run python.wasm under Node.js with these arguments; "
                       "the current directory is mounted at /work (give guest paths: /work/FILE)")
    r.add_argument("python_args", nargs=argparse.REMAINDER)
    d = sub.add_parser("digest", help="print the digest of the inputs (the cache key)")
    d.add_argument("--build-tag", help="as for build")
    z = sub.add_parser("stdlib-zip", help="(internal: run by the build Python) write the zip")
    z.add_argument("--lib", type=Path, required=True)
    z.add_argument("--out", type=Path, required=True)
    z.add_argument("--extra", type=Path, action="append", default=[])
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:  # everything after `run` is Python's, -c and all
        args = argparse.Namespace(cmd="run", python_args=argv[1:])
    else:
        args = ap.parse_args(argv)
    if args.cmd == "build":
        build(args.jobs, args.build_tag, args.verbose)
    elif args.cmd == "digest":
        print(inputs_digest(args.build_tag))
    elif args.cmd == "stdlib-zip":
        count, size = build_stdlib_zip(args.lib, args.extra, args.out)
        say(f"[wasm] {rel(args.out)}: {count} modules, {size / 1e6:.1f} MB")
    else:
        cmd = node_command(args.python_args, mounts={"/work": Path.cwd()})
        return subprocess.run(cmd).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
