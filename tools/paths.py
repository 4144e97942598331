"""Where things are: the one home of the repository's and the build's paths.

Every tool and test takes its paths from here (the Makefile has the same ones as
variables at its top); a tool's --help shows them relative to the repository.
Also the upstream pin, since the tarball's name is part of a path.
"""

from __future__ import annotations

from pathlib import Path

# The upstream pin.
CPYTHON_VERSION = "3.13.5"
TARBALL_NAME = f"Python-{CPYTHON_VERSION}.tar.xz"
TARBALL_SHA256 = "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"
TARBALL_TOPDIR = f"Python-{CPYTHON_VERSION}"

# What we write (in git).
REPO = Path(__file__).resolve().parent.parent
PATCHES = REPO / "patches"              # the CPython patch series
ECOSYSTEM = REPO / "ecosystem"          # inputs of make ecosystem (ecosystem/README.md)
TESTS = REPO / "tests"
TEST_REQUIREMENTS = TESTS / "requirements.txt"
BENCH = REPO / "bench"                  # make bench (bench/README.md)
BENCH_REQUIREMENTS = BENCH / "requirements.txt"  # the pins of the bench venvs
BENCH_MICRO = BENCH / "micro"           # the microbenchmarks
BENCH_HARNESS = BENCH_MICRO / "harness.py"

# What the build makes (not in git; `make clean` removes it).
BUILD = REPO / "build"
PYTHON = REPO / "python"                # the wrapper that runs TREE's interpreter
TARBALL = BUILD / TARBALL_NAME          # the verified upstream tarball
APT_DIR = BUILD / "apt"                 # tools.build.fetch_cpython's private apt state
TREE = BUILD / "cpython"                # upstream + patches/, a git repository (tools.build.pq)
BASELINE = BUILD / "baseline"           # upstream without patches, same configure flags
BASELINE_PYTHON = BASELINE / "python"
BASELINE_SERIES = BUILD / "baseline-series"  # the empty patch series BASELINE is made with
VENV = BUILD / "venv"                   # PYTHON's venv for tests/ (tools.check.run_pytest)
LOGS = BUILD / "logs"                   # build and regrtest logs
ECOSYSTEM_OUT = BUILD / "ecosystem"     # make ecosystem: venvs, wheels, report.md
DOCS_OUT = BUILD / "docs"               # make docs, make docs-check
DOCS_VENV = BUILD / "docs-venv"
BENCH_OUT = BUILD / "bench"             # make bench: results.json, report.md
BENCH_VENV = BUILD / "bench-venv"
DOGFOOD_OUT = BUILD / "dogfood"         # make dogfood: its tree, logs, report.md
INSTALL_STAGE = BUILD / "install"       # make install / make dist: the relocatable stage
DIST = BUILD / "dist"                   # make dist: the archives
FUZZ_GRAMMAR_OUT = BUILD / "fuzz-grammar"
SERIES_CHECK = BUILD / "series-check"  # make series-check: the series applied patch by patch
NOPERF = BUILD / "noperf"               # make noperf: the series without its performance patches
MIGRATE_OUT = BUILD / "migrate"        # make migrate-check: trees, logs, report.md
WASM_OUT = BUILD / "wasm"               # make wasm: python.wasm, lib/python313.zip, work/
WASM_PYTHON = WASM_OUT / "python.wasm"
WASM_LIB = WASM_OUT / "lib"
PLAYGROUND = REPO / "playground"        # the playground's page, scripts and npm pins (in git)
PLAYGROUND_OUT = BUILD / "playground"   # make playground: the static site


def shown(path: Path) -> str:
    """path relative to the repository when it is inside it: for --help and reports."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
