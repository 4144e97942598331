"""The microbenchmarks of pep671, as source strings.

Two suites:

* ``late`` -- runs on the patched interpreter only.  For each call shape
  (``pos``, ``kwonly``, ``posonly``, ``five``, ``method``, ``generator``,
  ``cell``) it times five roles side by side:

  - ``late_omitted``      ``def f(a, hi=>len(a))`` called as ``f(a)``
  - ``sentinel_omitted``  ``def f(a, hi=None): if hi is None: hi = len(a)``, ``f(a)``
  - ``floor``             ``def f(a): hi = len(a)`` (the value computed unconditionally)
  - ``late_passed``       the late-default function called with the argument
  - ``sentinel_passed``   the sentinel function called with the argument

  plus ``loop.overhead`` (the empty timing loop), so that per-call figures
  net of the loop can be derived.

* ``parity`` -- identical source without ``=>``, run on the patched and the
  baseline interpreter: calls of functions without late defaults, function
  creation (MAKE_FUNCTION in a loop), compile() of large stdlib modules, import
  of stdlib modules from their .pyc files and marshal.loads of .pyc data.

The ``=>`` only ever appears inside string literals, so this module (and the
harness importing it) is valid Python for the baseline interpreter and for the
host python3 that runs ``bench.run``.  Every micro has a ``check``
expression evaluated once before timing; its value must equal ``expect``, so
the variants of one shape provably compute the same thing.
"""

from __future__ import annotations

CALL_LOOPS = 200_000  # callgrind iterations for call micros


class Micro:
    """One microbenchmark.  (No dataclasses/typing: this module is imported by the
    harness under callgrind, where every imported module is startup cost.)"""

    __slots__ = ("suite", "group", "role", "setup", "stmt", "names", "check", "expect",
                 "loops")

    def __init__(self, suite: str, group: str, role: str, setup: str, stmt: str,
                 names: tuple[str, ...], check: str, expect: object,
                 loops: int = CALL_LOOPS) -> None:
        self.suite = suite
        self.group = group  # the call shape / comparison group, e.g. "pos"
        self.role = role  # "late_omitted", ...; parity: "call", "make", "compile",
        #                   "import", "unmarshal"
        self.setup = setup  # module-level source run once
        self.stmt = stmt  # one (possibly compound, single-line) statement timed in the loop
        self.names = names  # setup globals made fast locals of the timing loop
        self.check = check  # expression evaluated once; must equal expect
        self.expect = expect
        self.loops = loops  # callgrind iteration count

    @property
    def name(self) -> str:
        return f"{self.group}.{self.role}"


A = "a = [1, 2, 3]\n"

# shape -> (late source, sentinel source, floor source, omitted stmt, passed stmt,
#           floor stmt, names, omitted value, passed value)
_SHAPES: dict[str, tuple[str, str, str, str, str, str, tuple[str, ...], object, object]] = {
    "pos": (
        A + "def f(a, hi=>len(a)):\n    return hi\n",
        A + "def f(a, hi=None):\n    if hi is None:\n        hi = len(a)\n    return hi\n",
        A + "def f(a):\n    hi = len(a)\n    return hi\n",
        "f(a)", "f(a, 7)", "f(a)", ("f", "a"), 3, 7,
    ),
    "kwonly": (
        A + "def f(a, *, hi=>len(a)):\n    return hi\n",
        A + "def f(a, *, hi=None):\n    if hi is None:\n        hi = len(a)\n    return hi\n",
        A + "def f(a):\n    hi = len(a)\n    return hi\n",
        "f(a)", "f(a, hi=7)", "f(a)", ("f", "a"), 3, 7,
    ),
    "posonly": (
        A + "def f(a, hi=>len(a), /):\n    return hi\n",
        A + "def f(a, hi=None, /):\n    if hi is None:\n        hi = len(a)\n    return hi\n",
        A + "def f(a, /):\n    hi = len(a)\n    return hi\n",
        "f(a)", "f(a, 7)", "f(a)", ("f", "a"), 3, 7,
    ),
    "five": (
        A + "def f(a, b=>len(a), c=>b + 1, d=>c + 1, e=>d + 1, g=>e + 1):\n    return g\n",
        A + "def f(a, b=None, c=None, d=None, e=None, g=None):\n"
            "    if b is None:\n        b = len(a)\n"
            "    if c is None:\n        c = b + 1\n"
            "    if d is None:\n        d = c + 1\n"
            "    if e is None:\n        e = d + 1\n"
            "    if g is None:\n        g = e + 1\n"
            "    return g\n",
        A + "def f(a):\n    b = len(a)\n    c = b + 1\n    d = c + 1\n    e = d + 1\n"
            "    g = e + 1\n    return g\n",
        "f(a)", "f(a, 1, 2, 3, 4, 5)", "f(a)", ("f", "a"), 7, 5,
    ),
    "method": (
        "class C:\n    def __init__(self):\n        self.x = [1, 2, 3]\n"
        "    def m(self, hi=>len(self.x)):\n        return hi\no = C()\n",
        "class C:\n    def __init__(self):\n        self.x = [1, 2, 3]\n"
        "    def m(self, hi=None):\n        if hi is None:\n            hi = len(self.x)\n"
        "        return hi\no = C()\n",
        "class C:\n    def __init__(self):\n        self.x = [1, 2, 3]\n"
        "    def m(self):\n        hi = len(self.x)\n        return hi\no = C()\n",
        "o.m()", "o.m(7)", "o.m()", ("o",), 3, 7,
    ),
    "generator": (
        A + "def f(a, hi=>len(a)):\n    yield hi\n",
        A + "def f(a, hi=None):\n    if hi is None:\n        hi = len(a)\n    yield hi\n",
        A + "def f(a):\n    hi = len(a)\n    yield hi\n",
        "for _x in f(a): pass", "for _x in f(a, 7): pass", "for _x in f(a): pass",
        ("f", "a"), [3], [7],
    ),
    # hi is a cell variable (captured by a lambda that the timed path never creates)
    "cell": (
        A + "def f(a, hi=>len(a)):\n    if a is None:\n        return lambda: hi\n    return hi\n",
        A + "def f(a, hi=None):\n    if hi is None:\n        hi = len(a)\n"
            "    if a is None:\n        return lambda: hi\n    return hi\n",
        A + "def f(a):\n    hi = len(a)\n    if a is None:\n        return lambda: hi\n    return hi\n",
        "f(a)", "f(a, 7)", "f(a)", ("f", "a"), 3, 7,
    ),
}

LATE_ROLES = ("late_omitted", "sentinel_omitted", "floor", "late_passed", "sentinel_passed")


def _check_of(stmt: str) -> str:
    """The expression whose value a statement produces (generators: list them)."""
    if stmt.startswith("for _x in "):
        return "list(" + stmt[len("for _x in "):-len(": pass")] + ")"
    return stmt


def _late_suite() -> list[Micro]:
    out: list[Micro] = []
    for group, (late, sent, floor, omit, passed, fstmt, names, v_om, v_pa) in _SHAPES.items():
        for role, setup, stmt, val in (
            ("late_omitted", late, omit, v_om),
            ("sentinel_omitted", sent, omit, v_om),
            ("floor", floor, fstmt, v_om),
            ("late_passed", late, passed, v_pa),
            ("sentinel_passed", sent, passed, v_pa),
        ):
            out.append(Micro("late", group, role, setup, stmt, names, _check_of(stmt), val))
    out.append(Micro("late", "loop", "overhead", A + "def f(a):\n    return a\n", "pass",
                     ("f", "a"), "f(a)", [1, 2, 3]))
    return out


# Largest stdlib modules (by size of their source; pydoc_data/topics.py, mostly one
# string literal, left out) plus argparse.  Read from the --stdlib directory, which the
# driver points at the pristine build/baseline/Lib so both interpreters compile the
# very same text.
COMPILE_MODULES = ("_pydecimal", "typing", "inspect", "argparse")

# Roles whose micros keep their own (small) iteration count: one iteration is a whole
# compile(), import round or unmarshal round, so --loops (and --quick) leave them alone.
FIXED_LOOP_ROLES = ("compile", "import", "unmarshal")

# Imported from their .pyc files, each iteration, by the micro stdlib.import: none of
# them is imported by the harness (which imports os, sys and time), all of them are in
# both interpreters' Lib.
IMPORT_MODULES = ("json", "typing", "dataclasses", "argparse", "asyncio", "email.message",
                  "http.client", "unittest", "decimal", "pathlib", "logging", "tomllib",
                  "zipfile", "xml.etree.ElementTree", "configparser")
IMPORT_LOOPS = 3

# The setup of stdlib.import, run once (not counted).  R, the modules re-imported by
# each iteration, is what importing IMPORT_MODULES adds to sys.modules in a fresh
# `python -S` of the same interpreter, keeping those loaded from a .pyc (the targets
# and the pure-Python modules they import; builtin, frozen and extension modules stay
# loaded: they have no .pyc).  Computed in a child process so that it does not depend
# on what the measuring process imported before (another micro, pyperf).  Each
# iteration takes R out of sys.modules, imports IMPORT_MODULES (one `import`
# statement, as code does), and puts every entry of sys.modules back as it was: after
# any number of iterations sys.modules holds the very objects it held before, so the
# micros that run later in the process see the same sys.modules.
IMPORT_SETUP = """\
import sys
import subprocess
IMPORTS = {imports!r}


def _reimported():
    code = ("import sys\\nbefore = set(sys.modules)\\nimport " + ", ".join(IMPORTS)
            + "\\nprint(' '.join(sorted(n for n in set(sys.modules) - before if "
            "getattr(getattr(sys.modules[n], '__spec__', None), 'cached', None))))\\n")
    argv = [sys.executable, "-S"]
    if sys.pycache_prefix:
        argv += ["-X", "pycache_prefix=" + sys.pycache_prefix]
    proc = subprocess.run(argv + ["-c", code], capture_output=True, text=True, check=True)
    return tuple(proc.stdout.split())


R = _reimported()

# Warm-up: import all of R once for real (those already loaded too, then put back),
# writing the .pyc files that are missing or stale (under the interpreter's
# -X pycache_prefix; PYTHONDONTWRITEBYTECODE or not).
_dont_write = sys.dont_write_bytecode
sys.dont_write_bytecode = False
try:
    _saved = sys.modules.copy()
    for _n in R:
        sys.modules.pop(_n, None)
    import {import_stmt}
    sys.modules.update(_saved)
finally:
    sys.dont_write_bytecode = _dont_write
# A second round keeps in R what an import really executes again: not what only an
# extension or frozen module imports when it is first loaded (numbers by _decimal...).
_saved = sys.modules.copy()
for _n in R:
    del sys.modules[_n]
import {import_stmt}
R = tuple(_n for _n in R if _n in sys.modules)
sys.modules.update(_saved)


def reimport(_modules=sys.modules, _names=R):
    # put back every entry as it was, also one that a module re-binds on import
    _saved = _modules.copy()
    for _n in _names:
        del _modules[_n]
    import {import_stmt}
    _modules.update(_saved)


def check_import():
    \"\"\"One iteration, watched: every module of R is executed from its .pyc (the
    loader's _compile_bytecode, i.e. marshal.loads of the .pyc data) and none is
    compiled from source; sys.modules is left as it was.\"\"\"
    ext = sys.modules["_frozen_importlib_external"]
    loaded, compiled = [], []
    unmarshal, to_code = ext._compile_bytecode, ext.SourceLoader.source_to_code

    def _unmarshal(data, name=None, *args, **kwargs):
        loaded.append(name)
        return unmarshal(data, name, *args, **kwargs)

    def _to_code(self, data, path, **kwargs):
        compiled.append(path)
        return to_code(self, data, path, **kwargs)

    before = dict(sys.modules)
    ext._compile_bytecode, ext.SourceLoader.source_to_code = _unmarshal, _to_code
    try:
        reimport()
    finally:
        ext._compile_bytecode, ext.SourceLoader.source_to_code = unmarshal, to_code
    return (not compiled and sorted(loaded) == sorted(R) and set(IMPORTS) <= set(R)
            and sys.modules == before)
"""

# marshal.loads of the code-object part of a .pyc (the 16-byte header left out): the
# data each interpreter writes for these stdlib sources, read from the pristine
# --stdlib (build/baseline/Lib) and compiled in the setup by the interpreter itself, as
# its import system does (compile(source bytes, path, "exec", dont_inherit=True), then
# marshal.dumps); the two interpreters' .pyc data differ (magic number, and whatever
# the compilers emit).
UNMARSHAL_MODULES = ("_pydecimal", "typing", "inspect", "argparse", "dataclasses", "enum",
                     "functools", "collections/__init__", "pathlib/_local",
                     "asyncio/base_events", "email/message", "http/client", "unittest/case",
                     "json/decoder", "logging/__init__")
UNMARSHAL_LOOPS = 20
UNMARSHAL_SETUP = """\
import marshal
import sys
loads = marshal.loads
codes = []
for _rel in {modules!r}:
    _path = STDLIB + "/" + _rel + ".py"
    with open(_path, "rb") as _fh:
        codes.append(compile(_fh.read(), _path, "exec", dont_inherit=True))
datas = tuple(marshal.dumps(_c) for _c in codes)
# what the import system writes to a .pyc after its 16-byte header: the same bytes
_pyc = sys.modules["_frozen_importlib_external"]._code_to_timestamp_pyc
pyc_ok = all(bytes(_pyc(_c)[16:]) == _d for _c, _d in zip(codes, datas))
"""


def _parity_suite() -> list[Micro]:
    out: list[Micro] = []

    def call(group: str, setup: str, stmt: str, names: tuple[str, ...], expect: object,
             loops: int = CALL_LOOPS) -> None:
        out.append(Micro("parity", group, "call", setup, stmt, names, _check_of(stmt), expect,
                         loops))

    call("pos", A + "def f(a, b):\n    return b\n", "f(a, 2)", ("f", "a"), 2)
    call("defaults_omitted", A + "def f(a, b=1, c=2, d=3):\n    return d\n", "f(a)",
         ("f", "a"), 3)
    call("defaults_passed", A + "def f(a, b=1, c=2, d=3):\n    return d\n", "f(a, 4, 5, 6)",
         ("f", "a"), 6)
    call("kwonly_omitted", A + "def f(a, *, b=1, c=2):\n    return c\n", "f(a)", ("f", "a"), 2)
    call("keywords", A + "def f(a, b=1, c=2):\n    return c\n", "f(a, c=3)", ("f", "a"), 3)
    call("sentinel_idiom", _SHAPES["pos"][1], "f(a)", ("f", "a"), 3)
    call("method", "class C:\n    def m(self, x=1):\n        return x\no = C()\n", "o.m()",
         ("o",), 1)
    call("generator", A + "def f(a, b=2):\n    yield b\n", "for _x in f(a): pass",
         ("f", "a"), [2])
    call("cell", A + "def f(a, b=2):\n    if a is None:\n        return lambda: b\n    return b\n",
         "f(a)", ("f", "a"), 2)
    call("varargs", A + "def f(*args, **kwargs):\n    return len(args)\n", "f(a, 2, k=3)",
         ("f", "a"), 2)
    call("fib", "def fib(n, one=1):\n    return n if n < 2 else fib(n - one) + fib(n - 2)\n",
         "fib(10)", ("fib",), 55, loops=1_000)

    def make(group: str, stmt: str, names: tuple[str, ...], check: str, expect: object) -> None:
        out.append(Micro("parity", group, "make", A, stmt, names, check, expect))

    make("defaults", "def g(x, y=1, *, z=2): return x", (), "1", 1)
    make("plain", "def g(x): return x", (), "1", 1)
    make("lambda_defaults", "g = lambda x, y=a: y", ("a",), "(lambda x, y=a: y)(0)", [1, 2, 3])
    make("closure", "g = lambda: a", ("a",), "1", 1)

    for mod in COMPILE_MODULES:
        out.append(Micro(
            "parity", mod, "compile",
            f"with open(STDLIB + '/{mod}.py', encoding='utf-8') as _fh:\n    src = _fh.read()\n",
            f"compile(src, '{mod}.py', 'exec', dont_inherit=True)", ("src",),
            "len(src) > 10_000", True, loops=1))
    out.append(Micro(
        "parity", "stdlib", "import",
        IMPORT_SETUP.format(imports=IMPORT_MODULES, import_stmt=", ".join(IMPORT_MODULES)),
        "reimport()", ("reimport",), "check_import()", True, loops=IMPORT_LOOPS))
    out.append(Micro(
        "parity", "stdlib", "unmarshal", UNMARSHAL_SETUP.format(modules=UNMARSHAL_MODULES),
        "for __d in datas: loads(__d)", ("datas", "loads"),
        "pyc_ok and [loads(d) for d in datas] == codes", True, loops=UNMARSHAL_LOOPS))
    out.append(Micro("parity", "loop", "overhead", A + "def f(a):\n    return a\n", "pass",
                     ("f", "a"), "f(a)", [1, 2, 3]))
    return out


SUITES: dict[str, list[Micro]] = {"late": _late_suite(), "parity": _parity_suite()}


def get(suite: str, name: str) -> Micro:
    for m in SUITES[suite]:
        if m.name == name:
            return m
    raise KeyError(f"no micro {name!r} in suite {suite!r}")
