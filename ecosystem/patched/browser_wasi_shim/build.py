"""Build @bjorn3/browser_wasi_shim (stock or patched) for the probe and the tests.

pin.toml's [package] build runs this at the top of the unpacked npm tarball (the patched
one after derive.py):

    python3 build.py TOOL OUT

The tarball's dist/ is the build (upstream compiles it from src/ for a release): it goes
to OUT with package.json, the licenses, and TOOL's run-wasi.mjs (runs a .wasm with it, for
the tests) and poll.mjs (the probe's check). Standard library only.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    tool, out = (Path(a).absolute() for a in argv)
    top = Path.cwd()
    if not (top / "dist" / "wasi.js").is_file():
        print(f"{top} is not the top of the @bjorn3/browser_wasi_shim package", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(top / "dist", out / "dist", dirs_exist_ok=True)
    for path in [top / "package.json", *top.glob("LICENSE-*"), tool / "run-wasi.mjs",
                 tool / "poll.mjs"]:
        shutil.copy2(path, out / path.name)
    print(f"{out}: dist/, run-wasi.mjs and poll.mjs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
