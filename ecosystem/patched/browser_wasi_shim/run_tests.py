"""The test of the browser_wasi_shim patch, as a JUnit XML report.

pin.toml's [test] commands run this at the top of the patched tree:

    python3 run_tests.py PYTHON JUNIT

The patch adds a test to the package's test suite: test/c/testsuite/poll_oneoff-clock.c,
a C program in wasi-testsuite's form (test/run-testsuite.sh runs it with the others,
after test/c/build.sh has compiled it). The tarball ships no test/, so the test is taken
from the patch, compiled by the clang-19 and wasi-libc that the wasm build pins
(tools/build/wasm.py, installed by `make wasm`; installed here first when they are
missing), and run under Node.js with the patched dist/ (PYTHON's venv holds the build in
share/browser_wasi_shim/) by run-wasi.mjs, as the package's node adapter runs a test: it
passes when it exits 0 within TIMEOUT. Standard library only.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent.parent))   # ecosystem/: probekit (its JUnit report)
import probekit  # noqa: E402

NAME = "browser_wasi_shim"
PATCH = HERE / "poll-oneoff.patch"
TESTS = "test/c/testsuite/"
CC = ["clang-19", "--target=wasm32-wasi"]
TIMEOUT = 20
# the classname of the cases: the tests this work adds (pep671's playground sleeps with it)
SUITE = "WASI C tests (pep671 playground)"


def added_files(patch: Path, prefix: str) -> dict[str, str]:
    """The files under prefix that patch adds: path -> text."""
    files: dict[str, str] = {}
    current = None
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith("diff --git "):
            current = None
        elif m := re.match(r"\+\+\+ b/(.+)", line):
            current = m.group(1) if m.group(1).startswith(prefix) else None
            if current:
                files[current] = ""
        elif current and line.startswith("+"):
            files[current] += line[1:] + "\n"
    return files


def ensure_compiler() -> None:
    """The wasm build's pinned toolchain (tools.build.wasm.ensure_toolchain)."""
    subprocess.run(["python3", "-c", "from tools.build.wasm import ensure_toolchain; "
                    "ensure_toolchain()"], cwd=REPO, check=True, stdin=subprocess.DEVNULL)


def run_test(source: Path, share: Path) -> tuple[str, str]:
    wasm = source.with_suffix(".wasm")
    built = subprocess.run([*CC, str(source), "-o", str(wasm)], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL)
    if built.returncode != 0:
        return "error", f"{' '.join(CC)}: {probekit.error_line(built)}"
    try:
        result = probekit.run(["node", share / "run-wasi.mjs", wasm], share, timeout=TIMEOUT)
    except probekit.RUN_ERRORS as exc:
        return "failed", f"did not end in {TIMEOUT} s: {exc}"
    if result.returncode != 0:
        return "failed", f"exit {result.returncode}: {probekit.error_line(result)}"
    return "passed", ""


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    python, junit = argv[0], Path(argv[1])
    share = Path(python).absolute().parent.parent / "share" / NAME
    tests = added_files(PATCH, TESTS)
    ensure_compiler()
    cases = {}
    with tempfile.TemporaryDirectory() as scratch:
        for path, text in tests.items():
            if not path.endswith(".c"):
                continue
            source = Path(scratch) / Path(path).name
            source.write_text(text, encoding="utf-8")
            cases[f"{SUITE}::{source.stem}"] = run_test(source, share)
    return 1 if probekit.write_junit(NAME, cases, junit) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
