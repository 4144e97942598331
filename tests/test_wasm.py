"""build/wasm/python.wasm (make wasm) under Node.js's WASI: it is the patched interpreter.

Collected only by `make playground-test` (tests/conftest.py), which builds python.wasm
first; a missing build is a failure.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.paths import REPO, TREE, WASM_LIB, WASM_PYTHON
from tools.build.wasm import node_command

if not (WASM_PYTHON.is_file() and (WASM_LIB / "python313.zip").is_file()):
    pytest.fail(f"{WASM_PYTHON} is missing (run `make wasm`)", pytrace=False)


def run_wasm(*args: str, mounts: dict[str, Path] | None = None,
             timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(node_command(list(args), mounts=mounts), capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def without_executable(out: str) -> list[str]:
    """The tour's lines, its first one (which names sys.executable) cut at the path."""
    lines = out.splitlines()
    lines[0] = re.sub(r": .*$", ":", lines[0])
    return lines


def test_it_is_a_wasi_build_of_the_patched_interpreter() -> None:
    proc = run_wasm("-c", "import sys, types; print(sys.platform, sys.version_info[:3], "
                    "hasattr(types, 'LateDefaultType'))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "wasi (3, 13, 5) True\n"


def test_a_late_bound_default_is_evaluated_per_call() -> None:
    code = ("def f(a, hi=>len(a)):\n    return hi\n"
            "print(f([1, 2, 3]), f('ab'), f([], 7))\n")
    proc = run_wasm("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "3 2 7\n"


def test_a_syntax_error_is_the_interpreters() -> None:
    proc = run_wasm("-c", "def f(a=>):\n    pass\n")
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr
    native = subprocess.run([sys.executable, "-c", "def f(a=>):\n    pass\n"],
                            capture_output=True, text=True)
    assert proc.stderr.splitlines()[-1] == native.stderr.splitlines()[-1]


def test_tour_prints_what_it_prints_natively() -> None:
    native = subprocess.run([sys.executable, str(REPO / "examples" / "tour.py")],
                            capture_output=True, text=True, check=True)
    wasm = run_wasm("/examples/tour.py", mounts={"/examples": REPO / "examples"})
    assert wasm.returncode == 0, wasm.stderr
    assert wasm.stderr == ""
    assert without_executable(wasm.stdout) == without_executable(native.stdout)


# The tests of Lib/test/test_late_bound_defaults.py that run a coroutine with
# asyncio.run(): asyncio's event loop needs socket.socketpair(), which WASI does not have
# (test_asyncio_needs_a_socketpair shows it); and the one that nests 300 parentheses in a
# default, past the parser's stack limit of the WASI build (MemoryError "Parser stack
# overflowed", as for any source that deep there). Everything else runs (the tests that
# need threads or subprocesses skip themselves).
WASI_SKIPS = {
    "SyntaxTests.test_forms",
    "GeneratorTests.test_async_generator",
    "GeneratorTests.test_coroutine_with_await_in_default",
    "NestingTests.test_nested_parentheses",
}
RUNNER = """
import sys, unittest
# Lib/test (the test package, which the stdlib zip leaves out, for test.support),
# and the module itself as a top-level one, so that the ids are Class.method
sys.path += ["/cpython-lib", "/cpython-lib/test"]
import test_late_bound_defaults as module
skips = set(sys.argv[1:])

def keep(suite):
    kept = unittest.TestSuite()
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            kept.addTest(keep(test))
        elif test.id().split(".", 1)[1] not in skips:
            kept.addTest(test)
    return kept

suite = keep(unittest.defaultTestLoader.loadTestsFromModule(module))
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(not result.wasSuccessful())
"""


def test_late_bound_defaults_regression_test_passes() -> None:
    # the patched tree's Lib/test/test_late_bound_defaults.py, less WASI_SKIPS
    proc = run_wasm("-c", RUNNER, *sorted(WASI_SKIPS),
                    mounts={"/cpython-lib": TREE / "Lib"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = proc.stderr.strip().splitlines()
    # (tests that need threads or subprocesses skip themselves under WASI)
    assert lines[-1] == "OK" or lines[-1].startswith("OK (skipped="), lines[-20:]
    ran = int(next(line for line in lines if line.startswith("Ran ")).split()[1])
    native_count = subprocess.run(
        [sys.executable, "-c", "import unittest, test.test_late_bound_defaults as m; "
         "print(unittest.defaultTestLoader.loadTestsFromModule(m).countTestCases())"],
        capture_output=True, text=True, check=True).stdout
    assert ran == int(native_count) - len(WASI_SKIPS)
    assert ran >= 100


def test_asyncio_needs_a_socketpair() -> None:
    # why WASI_SKIPS are skipped: the event loop's self-pipe is a socketpair
    proc = run_wasm("-c", "import asyncio\ntry:\n    asyncio.new_event_loop()\n"
                    "except OSError as exc:\n    print('OSError', exc.errno)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OSError ")
