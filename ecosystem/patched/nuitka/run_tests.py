"""The tests the Nuitka patch adds, each run by Nuitka's own comparison runner, as a
JUnit XML report.

pin.toml's [test] commands run this at the top of the patched tree:

    python3 run_tests.py PYTHON JUNIT CACHE

Each test is the tree's bin/compare_with_cpython on one of the test files the patch adds,
with the flags that tests/basics/run_all.py and tests/syntax/run_all.py give it: it
compiles the file with Nuitka, runs it, and compares what it prints with what PYTHON
prints interpreting it. The test passes when the runner exits 0. Each runs:

- in an empty directory of its own: Nuitka writes the module it builds into the current
  directory and imports it from there;
- with PYTHON's bin/ first on PATH, as in the activated venv: Nuitka's --run starts the
  module it built with its own interpreter under the name "python", and an interpreter
  finds its prefix (the venv, its standard library) from that name on PATH;
- with NUITKA_CACHE_DIR=CACHE/nuitka, as for the probe: ccache's objects of the C Nuitka
  compiles (its runtime library above all, the same for every module) are kept per user.

The basics test is compiled as an extension module (--mode=module) rather than a
program: a program links libpython statically and looks for the standard library where
the interpreter was configured to be installed, which an interpreter run from its build
tree (./python) is not. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

# test file (in the tree) -> the flags of its suite's run_all.py for it
TESTS = {
    "tests/basics/LateBoundDefaultsTest.py": [
        "silent", "expect_success", "remove_output", "--mode=module"],
    "tests/syntax/LateBoundDefaultYieldTest.py": [
        "silent", "expect_failure", "remove_output", "syntax_errors", "--nofollow-imports"],
}
TIMEOUT = 1800


def run_test(python: str, tree: Path, test: str, flags: list[str],
             env: dict[str, str]) -> tuple[bool, str]:
    """(passed, what happened) of compare_with_cpython on test, in an empty directory."""
    command = [python, str(tree / "bin" / "compare_with_cpython"), str(tree / test), *flags]
    print(f"$ {' '.join(command)}", flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nuitka-test-") as empty:
        try:
            proc = subprocess.run(command, cwd=empty, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return False, f"no result in {TIMEOUT}s"
    print(proc.stdout, end="", flush=True)
    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        return False, f"exit {proc.returncode} ({seconds:.0f}s): {lines[-1] if lines else ''}"
    return True, f"compiled and compared ({seconds:.0f}s)"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    python, junit, cache = argv[0], Path(argv[1]), Path(argv[2])
    tree = Path.cwd()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PATH"] = os.pathsep.join([str(Path(os.path.abspath(python)).parent),
                                   env.get("PATH", os.defpath)])
    env["NUITKA_CACHE_DIR"] = str(cache / "nuitka")
    suite = ET.Element("testsuite", name="nuitka", tests=str(len(TESTS)))
    failed = 0
    for test, flags in TESTS.items():
        passed, message = run_test(python, tree, test, flags, env)
        directory, _, name = test.rpartition("/")
        case = ET.SubElement(suite, "testcase", classname=directory, name=name)
        if not passed:
            failed += 1
            ET.SubElement(case, "failure", message=message)
        print(f"{'PASS' if passed else 'FAIL'} {test}: {message}", flush=True)
    suite.set("failures", str(failed))
    junit.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(junit, encoding="utf-8", xml_declaration=True)
    print(f"{len(TESTS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
