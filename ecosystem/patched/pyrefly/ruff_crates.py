"""Prepare an unpacked pyrefly 1.4.1 sdist to build with Ruff's parser crates taught `=>`.

pyrefly parses with Ruff's crates from Rust's package registry (`ruff_python_ast`,
`ruff_python_parser`, `ruff_python_trivia` 0.0.14, which its Cargo.lock pins). Until a
release of those crates parses late-bound defaults, the patched build uses the released
crates with our ruff patch ported to them (ruff-crates-0.0.14.patch: the AST, parser and
trivia hunks of ecosystem/patched/ruff/late-defaults.patch, made for crates 0.0.10). What
pin.toml's [package] prepare runs at the top of the patched tree (a build environment
adaptation, as overriding a rust-toolchain.toml is; pyrefly's own patch does not change):

1. `cargo vendor` unpacks the three crates, and backtrace 0.3.76, into ruff-crates/;
2. ruff-crates-0.0.14.patch is applied there with `git apply`;
3. .cargo/config.toml gets a [patch.crates-io] table naming those four directories.
   Cargo reads it from the directory maturin builds in, and a [patch] of a configuration
   file takes precedence over the manifest's. backtrace is there because pyrefly's
   Cargo.toml patches it with a git revision of its repository (0.3.76), which this
   machine cannot fetch; the registry's 0.3.76 takes its place.

Standard library only. Usage: python3 ruff_crates.py CRATES_PATCH (from the top of the tree).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

VENDOR = Path("ruff-crates")
CRATES = {
    "backtrace": "0.3.76",
    "ruff_python_ast": "0.0.14",
    "ruff_python_parser": "0.0.14",
    "ruff_python_trivia": "0.0.14",
}
CONFIG = Path(".cargo") / "config.toml"


def config_text() -> str:
    lines = ["# Written by ecosystem/patched/pyrefly/ruff_crates.py: the crates of ruff-crates/",
             "# (paths are relative to the directory that holds .cargo/).",
             "[patch.crates-io]"]
    lines += [f'{name} = {{ path = "{VENDOR}/{name}-{version}" }}'
              for name, version in CRATES.items()]
    return "\n".join(lines) + "\n"


def vendor(dest: Path) -> None:
    """The crates of CRATES (and their dependencies, unused), unpacked by cargo into dest."""
    with tempfile.TemporaryDirectory(prefix="pyrefly-crates-") as scratch:
        manifest = Path(scratch) / "Cargo.toml"
        deps = "".join(f'{name} = "={version}"\n' for name, version in CRATES.items())
        manifest.write_text('[package]\nname = "fetch-crates"\nversion = "0.0.0"\n'
                            f'edition = "2021"\n\n[lib]\npath = "lib.rs"\n\n[dependencies]\n{deps}',
                            encoding="utf-8")
        (Path(scratch) / "lib.rs").write_text("", encoding="utf-8")
        print(f"cargo vendor: {', '.join(f'{n} {v}' for n, v in CRATES.items())}", flush=True)
        subprocess.run(["cargo", "vendor", "--quiet", "--versioned-dirs", "--manifest-path",
                        str(manifest), str(dest.absolute())], check=True,
                       stdin=subprocess.DEVNULL)
    missing = [f"{n}-{v}" for n, v in CRATES.items() if not (dest / f"{n}-{v}").is_dir()]
    if missing:
        raise SystemExit(f"cargo vendor left no {', '.join(missing)} in {dest}")


def apply(patch: Path, root: Path) -> None:
    # root is inside no repository of its own: stop git at its parent
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.absolute().parent)}
    print(f"git apply {patch.name} in {root}", flush=True)
    subprocess.run(["git", "apply", "--verbose", str(patch.absolute())], cwd=root, env=env,
                   check=True, stdin=subprocess.DEVNULL)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    patch = Path(argv[0])
    if not Path("pyrefly", "Cargo.toml").is_file() or not Path("Cargo.lock").is_file():
        raise SystemExit("run this at the top of the unpacked pyrefly sdist")
    lock = Path("Cargo.lock").read_text(encoding="utf-8")
    for name in ("ruff_python_ast", "ruff_python_parser", "ruff_python_trivia"):
        if f'name = "{name}"\nversion = "{CRATES[name]}"' not in lock:
            raise SystemExit(f"Cargo.lock does not pin {name} {CRATES[name]}: is this the "
                             "pyrefly 1.4.1 sdist? The crates patch is made for that version.")
    if VENDOR.exists() or CONFIG.exists():
        raise SystemExit(f"{VENDOR} or {CONFIG} exists already: prepare a fresh tree")
    vendor(VENDOR)
    apply(patch, VENDOR)
    CONFIG.parent.mkdir(exist_ok=True)
    CONFIG.write_text(config_text(), encoding="utf-8")
    print(f"wrote {CONFIG}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
