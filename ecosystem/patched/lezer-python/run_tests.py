"""The tests of the @lezer/python patch, as a JUnit XML report.

pin.toml's [test] commands run this at the top of the patched tree:

    python3 run_tests.py PYTHON JUNIT CACHE

1. the package's own tests (`npm test`: `mocha test/test-*.js`, which runs the cases of
   test/*.txt through @lezer/generator's fileTests, and the incremental parsing test),
   on the patched tree built by its own build script (build.py, with the toolchain of
   toolchain/package-lock.json from CACHE): the release's 47 tests and the 8 cases the
   patch adds;
2. the stock tree (this one with late-defaults.patch reversed) built the same way: its
   dist/ must be the release's, byte for byte (the toolchain is the one the release was
   built with);
3. the standard library of PYTHON (a venv of the patched interpreter, whose tests use
   '=>') parsed by the patched parser, against the stock parser on the same files with
   each late default's '=>' written '= ' (an early default, at the same offsets; the
   interpreter's ast places them): every tree must be the same but for those tokens,
   so late defaults parse as early ones do and nothing else changes.

Standard library only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# ecosystem/: probekit, the probes' shared helpers (its JUnit report)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from build import DIST, build_tree, npm_install, same_dist  # noqa: E402  (build.py here)
import probekit  # noqa: E402  (ecosystem/probekit.py)

Cases = dict[str, tuple[str, str]]


def mocha(tree: Path, report: Path) -> Cases:
    """test id -> (outcome, message) of the package's mocha tests in tree."""
    cmd = ["node_modules/.bin/mocha", "--reporter", "xunit", "--reporter-option",
           f"output={report}", "test/test-*.js"]
    print("$", " ".join(cmd), flush=True)
    # the package's test script, `mocha test/test-*.js`: mocha expands the glob
    proc = subprocess.run(cmd, cwd=tree, text=True, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(proc.stdout, end="", flush=True)
    cases: Cases = {}
    if report.is_file():
        for case in ET.parse(report).getroot().iter("testcase"):
            outcome, message = "passed", ""
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    outcome = {"failure": "failed"}.get(child.tag, child.tag)
                    message = (child.get("message") or child.text or "")[:2000]
            cases[f"mocha::{case.get('classname')}::{case.get('name')}"] = (outcome, message)
    counts = {o: sum(1 for c, _ in cases.values() if c == o)
              for o in ("passed", "failed", "skipped", "error")}
    print(f"mocha: {', '.join(f'{n} {o}' for o, n in counts.items() if n)}", flush=True)
    if proc.returncode != 0 and not counts["failed"] + counts["error"]:
        cases["mocha::(the run)"] = ("failed", f"exit {proc.returncode}")
    return cases


def stdlib_trees(python: str, work: Path) -> tuple[str, str]:
    """(outcome, message) of the stock/patched comparison on PYTHON's standard library."""
    manifest = work / "stdlib.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([python, str(HERE / "defaults.py"), str(manifest), "stdlib"], env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return "error", proc.stderr.strip()[-2000:]
    started = time.monotonic()
    cmd = ["node", str(work / "parse.mjs"), "compare", str(work / "stock" / "dist"),
           str(work / "patched" / "dist"), str(manifest)]
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return "error", proc.stderr.strip()[-2000:]
    found = json.loads(proc.stdout)
    root = json.loads(manifest.read_text())["root"]
    message = (f"{found['files']} files of {root}: the patched parser's tree of each is "
               "the stock parser's of the file with each of its "
               f"{found['late']} late defaults written '= ' ({found['errorsPatched']} and "
               f"{found['errorsStock']} error nodes; {time.monotonic() - started:.0f}s)")
    print(message, flush=True)
    if found["differ"] or not found["late"]:
        return "failed", f"{message}; not in: {found['differ'][:5]}"
    return "passed", message


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    python, junit, cache = argv[0], Path(argv[1]), Path(argv[2])
    tree = Path.cwd()
    modules = npm_install(HERE / "toolchain", cache)
    cases: Cases = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        # built in copies: the tree stays as the tarball and the patch left it
        patched, stock = work / "patched", work / "stock"
        ignore = shutil.ignore_patterns("node_modules")
        shutil.copytree(tree, patched, ignore=ignore)
        shutil.copytree(tree, stock, ignore=ignore)
        env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(work)}
        subprocess.run(["git", "apply", "-R", str(HERE / "late-defaults.patch")],
                       cwd=stock, env=env, check=True, stdin=subprocess.DEVNULL)
        build_tree(patched, modules)
        cases.update(mocha(patched, work / "mocha.xml"))
        build_tree(stock, modules)
        name = f"release::the stock tree builds the release's {' and '.join(DIST)}"
        cases[name] = ("passed", "") if same_dist(stock, tree) else \
            ("failed", "the pinned toolchain does not rebuild the release's dist/")
        (work / "node_modules").symlink_to(modules, target_is_directory=True)
        shutil.copy2(HERE / "parse.mjs", work / "parse.mjs")
        cases["stdlib::trees of code without late defaults unchanged, and late defaults "
              "parsed"] = stdlib_trees(python, work)
    return 1 if probekit.write_junit("lezer-python", cases, junit) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
