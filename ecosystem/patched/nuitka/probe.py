"""Ecosystem probe for Nuitka: compile the shared corpus into an extension module,
run it, and compare what it does with what the interpreter does.

Nuitka, in the venv of the interpreter under test, compiles the shared corpus
``late_defaults.py`` with ``--module`` (C, then gcc). The same driver then imports the
module twice, in processes of their own: the source, interpreted, and the extension
module Nuitka built. Each run executes the corpus's own ``if __name__ == "__main__":``
checks in the module's namespace and then prints what a long list of calls does: the
values late defaults give (a fresh list per call, a later parameter that was passed,
``self``, ``__class__``, keyword-only and positional-only parameters, a generator's
defaults when it starts, a coroutine's), the ``UnboundLocalError`` of a default that
reads a parameter not evaluated yet, passing a late-default object, and
``__defaults__``, ``__kwdefaults__`` and ``inspect.signature`` of every function.

It passes when the module is compiled and its output is the interpreter's, line for
line. A stock Nuitka stops building the module with an ``AssertionError`` on the node
it does not know (``ast.LateDefault``). Standard library only; no network.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import time

import probekit

MODULE = "late_defaults"

# Run by the venv's python in a directory that holds either the corpus or the module
# Nuitka built: import it, run the corpus's own checks (the body of the `if __name__ ==
# "__main__":` block of argv[1], the corpus) in its namespace, then print what each call
# gives; the last line says whether the module is compiled.
_DRIVER = r"""
import ast, asyncio, inspect, itertools, json, sys, types
sys.path.insert(0, ".")
import late_defaults as m

def observe(label, thunk):
    try:
        value = thunk()
    except Exception as exc:
        print(f"{label}: {type(exc).__name__}: {exc}")
    else:
        print(f"{label}: {value!r}")

with open(sys.argv[1], encoding="utf-8") as corpus:
    tree = ast.parse(corpus.read())
main = [node for node in tree.body if isinstance(node, ast.If)
        and ast.unparse(node.test) in ("__name__ == '__main__'", '__name__ == "__main__"')]
exec(compile(ast.Module(main[0].body, []), sys.argv[1], "exec"), vars(m))
observe("fresh list per call", lambda: m.append_to(1) is not m.append_to(1))
observe("append_to(1, [0])", lambda: m.append_to(1, [0]))
observe("window() reads stop, not evaluated yet", lambda: m.window([1, 2, 3, 4]))
observe("window(stop=3)", lambda: m.window([1, 2, 3, 4], stop=3))
observe("window(1)", lambda: m.window([1, 2, 3, 4], 1))
observe("stamp('m')", lambda: [type(v).__name__ for v in m.stamp("m")] + m.stamp("m")[1])
observe("stamp('m', when=1.0, tags=None)", lambda: m.stamp("m", when=1.0, tags=None))
observe("spread(1)", lambda: m.spread(1))
observe("spread(1, 5, fourth=0)", lambda: m.spread(1, 5, fourth=0))
observe("spread(1, 2, 3, 4, k=5)", lambda: m.spread(1, 2, 3, 4, k=5))
observe("square_or(3), square_or(3, 1)", lambda: (m.square_or(3), m.square_or(3, 1)))
observe("Greeter('ada')", lambda: (m.Greeter("ada").title, m.Greeter("ada", "Dr").title))
observe("greet", lambda: m.Greeter("ada").greet("bob"))
observe("make", lambda: m.Greeter.make("x").title)
observe("describe", lambda: m.Greeter("a").describe())
observe("counter(-5)", lambda: list(itertools.islice(m.counter(-5), 3)))
observe("counter(2, 5)", lambda: list(itertools.islice(m.counter(2, 5), 3)))
observe("fetch('u')", lambda: asyncio.run(m.fetch("u")))
observe("fetch('u', 2.5)", lambda: asyncio.run(m.fetch("u", 2.5)))
observe("outer", lambda: (m.outer([1, 2, 3])(), m.outer([1, 2, 3])(0)))
hi = m.bisect_right.__defaults__[1]
observe("passing hi's own object", lambda: m.bisect_right([1, 2, 3], 9, 0, hi))
other = types.LateDefaultType("0")
observe("passing another object", lambda: m.bisect_right([1, 2, 3], 9, hi=other))
observe("text of hi's object", lambda: (type(hi).__name__, hi.text))
functions = [m.bisect_right, m.append_to, m.window, m.stamp, m.spread, m.square_or,
             m.Greeter.__init__, m.Greeter.greet, m.Greeter.make, m.Greeter.describe,
             m.counter, m.fetch]
for function in functions:
    name = function.__qualname__
    observe(f"signature {name}", lambda: str(inspect.signature(function)))
    observe(f"defaults {name}", lambda: (function.__defaults__, function.__kwdefaults__))
print(json.dumps({"compiled": "__compiled__" in vars(m), "file": m.__file__}))
"""


def _nuitka_env() -> dict[str, str]:
    """Nuitka's cache (ccache's objects of the C it compiles, its runtime library above
    all, the same for every module) per user, in the project's cache directory."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return probekit.clean_env(NUITKA_CACHE_DIR=os.path.join(base, "pep671", "nuitka"))


def _nuitka_error(text: str) -> str:
    """Why Nuitka stopped: the exception of its traceback, else its own error line,
    else its last line."""
    found = probekit.exception_line(text) or next(
        (line.strip() for line in reversed(text.splitlines())
         if line.startswith(("FATAL", "Nuitka:ERROR"))), probekit.last_line(text))
    return found if len(found) < 200 else found[:197] + "..."


def _drive(python: str, directory: pathlib.Path,
           corpus: pathlib.Path) -> tuple[list[str], str]:
    """The driver's output lines in directory (the last one is JSON), or the reason it
    failed."""
    result = probekit.run([python, "-c", _DRIVER, corpus], directory)
    if result.returncode != 0:
        return [], f"the driver failed (exit {result.returncode}): {probekit.error_line(result)}"
    return result.stdout.splitlines(), ""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    source_dir, built_dir = workdir / "source", workdir / "built"
    for directory in (source_dir, built_dir):
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
    source = source_dir / f"{MODULE}.py"
    shutil.copyfile(corpus, source)

    ok, version = probekit.module_version(python, "nuitka.Version", workdir,
                                          attribute="getNuitkaVersion()")
    if not ok:
        return False, version
    label = f"Nuitka {version}"

    started = time.monotonic()
    # --lto=no: a faster link, and the same code for what is compared here
    build = probekit.run(["nice", "-n", "19", python, "-m", "nuitka", "--module", "--lto=no",
                          "--no-progressbar", "--no-pyi-file", "--remove-output",
                          f"--output-dir={built_dir}", source], workdir, env=_nuitka_env(),
                         timeout=900)
    seconds = time.monotonic() - started
    modules = list(built_dir.glob(f"{MODULE}.*.so"))
    if build.returncode != 0 or not modules:
        return False, (f"{label} on {corpus.name} (exit {build.returncode}): "
                       f"{_nuitka_error(build.stdout + build.stderr)}")

    interpreted, failure = _drive(python, source_dir, source)
    if failure:
        return False, f"the corpus itself, interpreted: {failure}"
    compiled, failure = _drive(python, built_dir, source)
    if failure:
        return False, f"{label} built {modules[0].name}, but it fails: {failure}"
    if not compiled or not interpreted:
        return False, f"{label}: the driver printed nothing"
    runs = [probekit.last_json(lines[-1]) for lines in (compiled, interpreted)]
    if [run.get("compiled") if isinstance(run, dict) else None
            for run in runs] != [True, False]:
        return False, (f"{label}: the module imported was not the one expected "
                       f"(compiled run: {runs[0]}; interpreted run: {runs[1]})")
    for number, (mine, theirs) in enumerate(zip(compiled[:-1], interpreted[:-1]), 1):
        if mine != theirs:
            return False, (f"{label} built {modules[0].name}, but its output differs from "
                           f"the interpreter's at line {number}: compiled {mine!r}, "
                           f"interpreted {theirs!r}")
    if len(compiled) != len(interpreted):
        return False, (f"{label}: {len(compiled)} lines of output compiled, "
                       f"{len(interpreted)} interpreted")
    signature = next(line for line in compiled if line.startswith("signature bisect_right"))
    return True, (
        f"{label} compiled {corpus.name} into {modules[0].name} ({seconds:.0f}s); its "
        f"{len(compiled) - 1} lines of output (the corpus's checks, calls, "
        f"UnboundLocalError, passed late-default objects, __defaults__, signatures) are "
        f"the interpreter's, e.g. {signature}"
    )
