"""Install the patched interpreter like CPython's `make altinstall`, or pack it as a
relocatable archive.

  python3 -m tools.build.install install [--prefix DIR]   (make install PREFIX=DIR)
  python3 -m tools.build.install dist [--out-dir DIR]     (make dist)
  python3 -m tools.build.install stage                    only step 1 below

Both install the interpreter `make` built in build/cpython: one build serves every
prefix. CPython on Linux finds its prefix at run time from where bin/python3.13 is
(Modules/getpath.py looks for lib/python3.13/os.py above it), so an install does not
depend on the prefix the tree was configured with; only a few generated text files
name that prefix. Rather than configure and build a tree per prefix (10-25 minutes
on 2 cores each, and the dist would need its own), this

1. stages: `make altinstall DESTDIR=build/install/destdir ENSUREPIP=no` in the tree,
   with its build tag (tools.build.cpython --build-tag), then moves the configured prefix to
   build/install/stage and makes it relocatable:
   - lib/python3.13/_sysconfigdata_*.py: each path below the configured prefix is
     computed from the module's own location, so sysconfig's INCLUDEPY, LIBDIR,
     LIBPL, BINDIR... name the installation wherever it is (sysconfig.get_paths()
     does that by itself);
   - lib/pkgconfig/python-3.13*.pc: prefix=${pcfiledir}/../..;
   - lib/python3.13/config-3.13-*/Makefile: prefix from the Makefile's location;
   - scripts that start with #!<configured prefix>/bin/python3.13 (pydoc3.13,
     idle3.13, python-config.py; pip3.13 in a dist): a sh/Python header that runs
     the python3.13 found relative to the script.
   The stage is made again only when the build changed (or the tree has work
   that is not in patches/).
2. install: refuses a system prefix (/, /usr, /usr/local) and a prefix that holds
   another Python 3.13; copies the stage into the prefix (site-packages and
   anything else already there are kept) and runs `bin/python3.13 -m ensurepip
   --altinstall --upgrade` there, as altinstall does: python3.13, pydoc3.13,
   idle3.13, python3.13-config, pip3.13, and no unversioned python3 or pip3.
3. dist: copies the stage to a work directory, runs ensurepip there, strips debug
   information (strip --strip-debug: symbols stay) from the interpreter, the
   extension modules and libpython3.13.a (whose two copies become one hard link),
   and writes build/dist/pep671-<3.13.5-N-DIGEST>-<platform>.tar.xz (xz -2, see
   XZ), whose one top directory is pep671-<3.13.5-N-DIGEST>, and SHA256SUMS for the
   archives in build/dist. It runs from any path it is unpacked at.

The version is the tree's build tag (`python3 -m tools.build.pq version`): the number of
patches and a digest of the series, -dirty for a tree with work not in patches/; it is
in sys.version, `python3.13 -VV` and sys._git (quote it in bug reports).

Using the archive: `sha256sum -c SHA256SUMS` next to it, then unpack it anywhere, e.g.
`tar -xf pep671-3.13.5-*-linux-x86_64.tar.xz -C ~/opt` and run
~/opt/pep671-3.13.5-*/bin/python3.13 (`-m venv DIR` makes a venv with pip). As a pyenv
version, unpack it into "$(pyenv root)/versions" and `pyenv rehash`: the directory name
is the version name. It links the system's shared libraries (OpenSSL 3, libffi 8,
SQLite, ncurses, readline, Tk, gdbm), so it runs on Debian 12 or later and
distributions of the same age.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from tools.paths import CPYTHON_VERSION, DIST, INSTALL_STAGE, LOGS, PATCHES, TREE, shown
from tools.build.cpython import Builder, build_info_make_vars
from tools.common import (ToolError, exits_on_tool_error, interpreter_info, rel, say, scrubbed_env,
                          sha256_file)
from tools.build.pq import build_tag

PY = "python" + ".".join(CPYTHON_VERSION.split(".")[:2])     # python3.13
SYSTEM_PREFIXES = [Path("/"), Path("/usr"), Path("/usr/local")]
# xz preset of the archive. Measured on it (232 MB unpacked): -2 gives 32.5 MB for 29 s
# of CPU, xz's default -6 28.4 MB for 94 s; make test makes the archive every run.
XZ = "xz -T0 -2"
DEFAULT_PREFIX = Path.home() / ".local" / "pep671"

# A script's first lines, valid as sh and as Python: sh runs the python3.13 at
# REL from the script's real location (with the script and its arguments);
# Python reads a string statement and goes on with the script.
RELOCATABLE_HEADER = """#!/bin/sh
'''exec' "$(dirname -- "$(realpath -- "$0")")/{rel}" "$0" "$@"
' '''
"""


class Install:
    """The tree, its logs and its staging area."""

    def __init__(self, tree: Path, work: Path, verbose: bool) -> None:
        self.tree = tree.absolute()
        self.work = work.absolute()
        self.stage = self.work / "stage"
        self.builder = Builder(self.tree, "install", LOGS, verbose)

    def python_info(self, python: Path) -> dict[str, Any]:
        return interpreter_info(python)

    def configured_prefix(self) -> Path:
        makefile = self.tree / "Makefile"
        if not makefile.is_file():
            raise ToolError(f"{self.tree} is not configured (run `make`)")
        text = makefile.read_text(errors="replace")
        prefix = re.search(r"^prefix=\s*(\S+)\s*$", text, re.M)
        exec_prefix = re.search(r"^exec_prefix=\s*(\S+)\s*$", text, re.M)
        if not prefix or not exec_prefix:
            raise ToolError(f"{makefile} has no prefix= or exec_prefix= line")
        if re.search(r"^PY_ENABLE_SHARED=\s*1\s*$", text, re.M):
            raise ToolError(f"{self.tree} is configured with --enable-shared: its bin/{PY} would look "
                            f"for lib{PY}.so in {prefix.group(1)}/lib, not next to itself. Install the "
                            "default build (drop --enable-shared from CONFIGURE_FLAGS)")
        if exec_prefix.group(1) not in ("${prefix}", "$(prefix)", prefix.group(1)):
            raise ToolError(f"{self.tree} is configured with --exec-prefix={exec_prefix.group(1)}, "
                            f"apart from --prefix={prefix.group(1)}: an install needs them to be one "
                            "directory (drop --exec-prefix from CONFIGURE_FLAGS)")
        return Path(prefix.group(1))

    # ------------------------------------------------------------------ stage
    def ensure_stage(self) -> tuple[str, dict[str, str]]:
        """Make (or reuse) the relocatable stage; return its tag and python_info()."""
        tag = build_tag(self.tree, PATCHES)
        built = self.tree / "python"
        if not built.is_file():
            raise ToolError(f"{built} is missing (run `make`)")
        info = self.python_info(built)
        if info["tag"] != tag:
            raise ToolError(f"{rel(built)} was built as {info['tag']!r}, but the tree is {tag!r} now: "
                            "run `make` first")
        configured = self.configured_prefix()
        key = {"tag": tag, "python_sha256": sha256_file(built),
               "configure": (self.tree / ".pep671-configure").read_text()
               if (self.tree / ".pep671-configure").is_file() else "",
               "prefix": str(configured)}
        stamp = self.work / "stage.json"
        staged_python = self.stage / "bin" / PY
        if not tag.endswith("-dirty") and staged_python.is_file() and stamp.is_file() \
                and json.loads(stamp.read_text()) == key:
            say(f"[install] {rel(self.stage)}: up to date ({tag})")
            return tag, info
        stamp.unlink(missing_ok=True)
        t0 = time.monotonic()
        destdir = self.work / "destdir"
        for path in (destdir, self.stage):
            if path.exists():
                shutil.rmtree(path)
        self.builder.step(f"make altinstall into {rel(destdir)}", "altinstall",
                          ["make", "altinstall", f"DESTDIR={destdir}", "ENSUREPIP=no",
                           *build_info_make_vars(tag)])
        installed = destdir / configured.relative_to(configured.anchor)
        if not (installed / "bin" / PY).is_file():
            raise ToolError(f"make altinstall left no {installed / 'bin' / PY}")
        os.rename(installed, self.stage)
        strays = [str(p.relative_to(destdir)) for p in destdir.rglob("*") if not p.is_dir()]
        if strays:
            raise ToolError(f"make altinstall wrote outside the prefix {configured}: {', '.join(strays[:5])}")
        shutil.rmtree(destdir)
        self.relocate(configured)
        got = self.python_info(staged_python)
        if got["tag"] != tag or Path(got["prefix"]) != self.stage:
            raise ToolError(f"the staged {PY} says it is {got['tag']!r} in {got['prefix']}, "
                            f"not {tag!r} in {self.stage}")
        stamp.write_text(json.dumps(key, indent=1) + "\n")
        say(f"[install] {rel(self.stage)}: staged in {time.monotonic() - t0:.0f}s")
        return tag, info

    def relocate(self, configured: Path) -> None:
        """Rewrite the files that name the configured prefix (see the docstring)."""
        stage, old = self.stage, str(configured)
        datas = list((stage / "lib" / PY).glob("_sysconfigdata_*.py"))
        if len(datas) != 1:
            raise ToolError(f"expected one _sysconfigdata_*.py in {stage / 'lib' / PY}, found {len(datas)}")
        relocate_sysconfigdata(datas[0], old)
        self.builder.step(f"byte-compile {datas[0].name}", "compile-sysconfigdata",
                          [str(stage / "bin" / PY), "-E", "-m", "compileall", "-q", "-f",
                           "-o", "0", "-o", "1", "-o", "2", str(datas[0])],
                          env=scrubbed_env(), cwd=stage)
        pcs = list((stage / "lib" / "pkgconfig").glob("*.pc"))
        for pc in pcs:
            replace_line(pc, "prefix=" + old, "prefix=${pcfiledir}/../..")
        for makefile in (stage / "lib" / PY).glob("config-*/Makefile"):
            replace_line(makefile, re.compile(r"prefix=\s*" + re.escape(old)),
                         "prefix:=\t$(abspath $(dir $(lastword $(MAKEFILE_LIST)))../../..)")
        scripts = [p for p in [*(stage / "bin").iterdir(),
                               *(stage / "lib" / PY).glob("config-*/python-config.py")]
                   if p.is_file() and not p.is_symlink()]
        for script in scripts:
            relocate_shebang(script, stage / "bin" / PY)

    # ---------------------------------------------------------------- install
    def install(self, prefix: Path) -> None:
        prefix = check_prefix(prefix)
        tag, _ = self.ensure_stage()
        say(f"[install] copying {rel(self.stage)} into {prefix}")
        prefix.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.stage, prefix, symlinks=True, dirs_exist_ok=True)
        python = prefix / "bin" / PY
        self.builder.step(f"{PY} -m ensurepip --altinstall --upgrade", "ensurepip",
                          [str(python), "-m", "ensurepip", "--altinstall", "--upgrade"],
                          env=scrubbed_env(), cwd=prefix)
        info = self.python_info(python)
        if info["tag"] != tag or Path(info["prefix"]) != prefix:
            raise ToolError(f"{python} says it is {info['tag']!r} in {info['prefix']}, "
                            f"not {tag!r} in {prefix}")
        say(f"installed {python}: Python {info['version']}")
        say(f"to run it as {PY}, put {prefix / 'bin'} on PATH: "
            f'export PATH="{prefix / "bin"}:$PATH"')

    # ------------------------------------------------------------------- dist
    def dist(self, out_dir: Path) -> Path:
        tag, info = self.ensure_stage()
        version = f"{CPYTHON_VERSION}-{tag.removeprefix('pep671-')}"
        top = f"pep671-{version}"
        archive = out_dir.absolute() / f"{top}-{info['platform']}.tar.xz"
        t0 = time.monotonic()
        scratch = out_dir.absolute() / ".work"
        if scratch.exists():
            shutil.rmtree(scratch)
        root = scratch / top
        shutil.copytree(self.stage, root, symlinks=True)
        python = root / "bin" / PY
        self.builder.step(f"{PY} -m ensurepip --altinstall (in {rel(root)})", "dist-ensurepip",
                          [str(python), "-m", "ensurepip", "--altinstall"],
                          env=scrubbed_env(), cwd=root)
        relocate_shebang(root / "bin" / f"pip{PY.removeprefix('python')}", python)
        libs = [root / "lib" / f"lib{PY}.a", *root.glob(f"lib/{PY}/config-*/lib{PY}.a")]
        self.builder.step("strip --strip-debug", "dist-strip",
                          ["strip", "--strip-debug", str(python),
                           *map(str, sorted(root.glob(f"lib/{PY}/lib-dynload/*.so"))),
                           *map(str, libs)], cwd=root)
        for copy in libs[1:]:
            copy.unlink()
            os.link(libs[0], copy)
        partial = archive.with_name(archive.name + ".part")
        self.builder.step(f"tar | {XZ} -> {rel(archive)}", "dist-tar",
                          ["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner",
                           "-I", XZ, "-cf", str(partial), "-C", str(scratch), top],
                          cwd=scratch)
        os.replace(partial, archive)
        shutil.rmtree(scratch)
        sums = write_sha256sums(out_dir)
        say(f"{rel(archive)}: {archive.stat().st_size / 1e6:.1f} MB, "
            f"made in {time.monotonic() - t0:.0f}s; checksums in {rel(sums)}")
        return archive


def write_sha256sums(out_dir: Path) -> Path:
    """out_dir/SHA256SUMS for every archive there (pep671-*.tar.xz: the interpreter's
    and the playground's, tools.docs.playground dist)."""
    sums = out_dir / "SHA256SUMS"
    sums.write_text("".join(f"{sha256_file(a)}  {a.name}\n"
                            for a in sorted(out_dir.glob("pep671-*.tar.xz"))))
    return sums


def relocate_sysconfigdata(path: Path, prefix: str) -> None:
    """Rewrite build_time_vars so that the paths below prefix follow the module."""
    module = ast.parse(path.read_text())
    values = next((node.value for node in module.body if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == ["build_time_vars"]),
                  None)
    if values is None:
        raise ToolError(f"{path} has no build_time_vars assignment")
    config = ast.literal_eval(values)
    # the prefix as a whole path: at the start of a value or after a space, =, quote or
    # colon, and followed by / or the end of that path
    at = re.compile(r"(?<![^\s='\":])" + re.escape(prefix) + r"(?=[/\s'\":]|$)")
    lines = []
    for key, value in config.items():
        if isinstance(value, str) and at.search(value):
            parts = at.split(value)
            pieces = []
            for i, part in enumerate(parts):
                if i:
                    pieces.append("_prefix")
                if part:
                    pieces.append(repr(part))
            lines.append(f" {key!r}: {' + '.join(pieces)},\n")
        else:
            lines.append(f" {key!r}: {value!r},\n")
    path.write_text(
        "# system configuration generated and used by the sysconfig module\n"
        "# Made relocatable by pep671's tools/build/install.py: the paths below the prefix this\n"
        f"# Python was configured with ({prefix}) follow this file, <prefix>/lib/{PY}/.\n"
        "import os as _os\n"
        "_prefix = _os.path.normpath(_os.path.join(_os.path.abspath(__file__), '../../..'))\n"
        "build_time_vars = {\n" + "".join(lines) + "}\n"
        "del _os, _prefix\n")


def replace_line(path: Path, old: str | re.Pattern[str], new: str) -> None:
    """Replace the one line of path that is old (or matches it in full)."""
    lines = path.read_text().splitlines(keepends=True)
    pattern = re.compile(re.escape(old)) if isinstance(old, str) else old
    hits = [i for i, line in enumerate(lines) if pattern.fullmatch(line.rstrip("\n"))]
    if len(hits) != 1:
        raise ToolError(f"{path}: expected one line {pattern.pattern!r}, found {len(hits)}")
    lines[hits[0]] = new + "\n"
    path.write_text("".join(lines))


def relocate_shebang(script: Path, python: Path) -> None:
    """Give script the RELOCATABLE_HEADER when it runs an absolute .../python3.13: from
    a #! line, or from the sh header pip writes when that path has a space in it."""
    data = script.read_bytes()
    py = re.escape(PY.encode())
    header = (re.match(rb"#![ \t]*/\S*/" + py + rb"[ \t]*\n", data)
              or re.match(rb"#!/bin/sh\n'''exec' \"/[^\"\n]*/" + py + rb"\" \"\$0\" \"\$@\"\n"
                          rb"' '''\n", data))
    if header is None:
        return
    new = RELOCATABLE_HEADER.format(rel=os.path.relpath(python, script.parent))
    script.write_bytes(new.encode() + data[header.end():])


def check_prefix(prefix: Path) -> Path:
    """The absolute prefix; stops when installing there could hurt another Python."""
    prefix = Path(os.path.abspath(prefix.expanduser()))
    if prefix.resolve() in SYSTEM_PREFIXES:
        raise ToolError(f"refusing to install into {prefix}: system Pythons live there. "
                        f"Choose a PREFIX of your own (the default is {DEFAULT_PREFIX})")
    python, lib = prefix / "bin" / PY, prefix / "lib" / PY
    if python.exists() or lib.exists():
        try:
            info = interpreter_info(python) if python.exists() else None
        except ToolError:
            info = None
        if info is None or not info["tag"].startswith("pep671-"):
            what = f"Python {info['version']}" if info else f"{lib} is not from a pep671 build"
            raise ToolError(f"refusing to install into {prefix}: it holds another Python "
                            f"{PY.removeprefix('python')} ({what}). Choose another PREFIX "
                            f"(the default is {DEFAULT_PREFIX})")
    existing = next(p for p in (prefix, *prefix.parents) if p.exists())
    if not os.access(existing, os.W_OK):
        raise ToolError(f"cannot write {existing} (for PREFIX={prefix}): choose a PREFIX you can write, "
                        f"the default is {DEFAULT_PREFIX}; no root is needed")
    return prefix


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.install", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=TREE,
                    help=f"the built tree (default: {shown(TREE)})")
    ap.add_argument("--work", type=Path, default=INSTALL_STAGE,
                    help=f"where the stage is kept (default: {shown(INSTALL_STAGE)})")
    ap.add_argument("-v", "--verbose", action="store_true", help="stream the steps' output")
    sub = ap.add_subparsers(dest="cmd", required=True)
    inst = sub.add_parser("install", help="install into PREFIX like make altinstall")
    inst.add_argument("--prefix", type=Path, default=DEFAULT_PREFIX,
                      help="where to install (default: %(default)s)")
    dist = sub.add_parser("dist", help="write the relocatable archive and SHA256SUMS")
    dist.add_argument("--out-dir", type=Path, default=DIST,
                      help=f"where (default: {shown(DIST)})")
    sub.add_parser("stage", help="make (or reuse) the relocatable stage only")
    args = ap.parse_args(argv)

    inst_ = Install(args.tree, args.work, args.verbose)
    if args.cmd == "install":
        inst_.install(args.prefix)
    elif args.cmd == "dist":
        args.out_dir.mkdir(parents=True, exist_ok=True)
        print(inst_.dist(args.out_dir))
    else:
        inst_.ensure_stage()
    return 0


if __name__ == "__main__":
    sys.exit(main())
