"""Ecosystem probe for Cython: compile the shared corpus to C, build it, run it.

Cython, in the venv of the interpreter under test, translates the shared corpus
``late_defaults.py`` (a pure-Python module, as ``cythonize`` would) to C; the C file
is compiled into an extension module with the C compiler and the headers of that
interpreter; the extension is imported and the checks of the corpus's own
``if __name__ == "__main__":`` block run against the compiled functions, with a few
more that only a compiled module can fail: a late default is evaluated at each call
that omits it, in the function's scope (a later parameter that was passed, ``self``,
``__class__``, keyword-only and positional-only parameters), a generator's when it
starts, and ``inspect.signature`` shows it as written.

It passes when all of that holds.  A stock Cython stops at the first ``=>``
(``Expected an identifier or literal``).  Standard library only; no network.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import shutil
import subprocess
import textwrap

import probekit

MODULE = "late_defaults"

# Run by the venv's python in the work directory: where the headers are, and the
# suffix of an extension module.
# (An interpreter run from its build tree has its headers there, as for setuptools.)
_CONFIG = r"""
import json, os, sysconfig
include = [sysconfig.get_paths()["include"], os.path.dirname(sysconfig.get_config_h_filename())]
if sysconfig.is_python_build():
    include.insert(0, os.path.join(sysconfig.get_config_var("srcdir"), "Include"))
print(json.dumps({
    "include": list(dict.fromkeys(include)),
    "suffix": sysconfig.get_config_var("EXT_SUFFIX"),
    "cc": (sysconfig.get_config_var("CC") or "cc").split()[0],
}))
"""

# Run by the venv's python: import the compiled module, check it is compiled, run
# the corpus's own checks (argv[1], the source of its __main__ block) in its
# namespace, then the checks that follow.
_CHECK = r"""
import asyncio, inspect, sys
sys.path.insert(0, ".")
import late_defaults as m
assert m.__file__.endswith(sys.argv[2]), m.__file__
assert type(m.bisect_right).__name__ == "cython_function_or_method", type(m.bisect_right)
exec(sys.argv[1], vars(m))
first, second = m.append_to(1), m.append_to(1)
assert first == second == [1] and first is not second
assert m.window([1, 2, 3, 4], stop=3) == [3]
assert m.window([1, 2, 3, 4], 1) == [2, 3, 4]
assert m.spread(1, 5, fourth=0) == (1, 5, 6, (), 0, {})
assert m.stamp("m", when=1.0, tags=None) == (1.0, None)
assert asyncio.run(m.fetch("u")) == ("u", 10.0, 10)
assert str(inspect.signature(m.bisect_right)) == "(a, x, lo=0, hi=>len(a), *, key=None)"
hi = m.bisect_right.__defaults__[1]
assert m.bisect_right([1, 2, 3], 9, 0, hi) == 3
print(f"compiled: {m.__file__.rsplit('/', 1)[-1]}; signature: {inspect.signature(m.bisect_right)}")
"""


def _run(cmd: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return probekit.run(cmd, cwd, timeout=900)


def _cython_error(text: str) -> str:
    """The first error Cython reports (file:line:col: message), else the last line."""
    for line in text.splitlines():
        if f"{MODULE}.py:" in line and ": " in line.split(f"{MODULE}.py:", 1)[1]:
            return line.strip().rsplit("/", 1)[-1]
    return probekit.last_line(text)


def _main_block(source: str) -> str:
    """The statements of the module's `if __name__ == "__main__":` block (read as
    text: the interpreter running the probe need not parse `=>`)."""
    lines = source.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("if __name__ == ") and "__main__" in line:
            body = itertools.takewhile(lambda text: not text or text[0].isspace(),
                                       lines[number + 1:])
            return textwrap.dedent("\n".join(body))
    raise ValueError("the corpus has no `if __name__ == '__main__':` block")


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    source = workdir / f"{MODULE}.py"
    shutil.copyfile(corpus, source)

    ok, version = probekit.module_version(python, "Cython", workdir)
    if not ok:
        return False, version
    label = f"Cython {version}"

    c_file = workdir / f"{MODULE}.c"
    c_file.unlink(missing_ok=True)
    cython = _run([python, "-m", "cython", "-3", source.name, "-o", c_file.name], workdir)
    if cython.returncode != 0 or not c_file.is_file():
        return False, (
            f"{label} on {corpus.name} (exit {cython.returncode}): "
            f"{_cython_error(cython.stdout + cython.stderr)}"
        )

    config = _run([python, "-c", _CONFIG], workdir)
    if config.returncode != 0:
        return False, f"cannot read the venv's sysconfig: {probekit.last_line(config.stderr)}"
    cfg = json.loads(config.stdout)
    extension = workdir / f"{MODULE}{cfg['suffix']}"
    extension.unlink(missing_ok=True)
    includes = [f"-I{path}" for path in cfg["include"]]
    cc = _run(
        [cfg["cc"], "-shared", "-fPIC", "-O0", *includes, c_file.name, "-o", extension.name],
        workdir,
    )
    if cc.returncode != 0:
        return False, (
            f"{label} translated {corpus.name}, but the C compiler failed: "
            f"{probekit.last_line(cc.stderr)}"
        )

    check = _run(
        [python, "-c", _CHECK, _main_block(corpus.read_text(encoding="utf-8")), cfg["suffix"]],
        workdir,
    )
    if check.returncode != 0:
        return False, (
            f"{label}: {corpus.name} compiled, but the compiled module fails: "
            f"{probekit.last_line(check.stderr)}"
        )
    return True, (
        f"{label}: {corpus.name} compiled to C and built; the corpus's checks and "
        f"call-time evaluation pass on the compiled module ({probekit.last_line(check.stdout)})"
    )
