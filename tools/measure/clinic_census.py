"""Count the Argument Clinic declarations of a CPython tree: the PEP's census of the C functions.

    python3 -m tools.measure.clinic_census [--tree TREE] [--json]

Reads every `[clinic input]` block of TREE's Modules/, Objects/, Python/ and PC/ (*.c,
without the test modules: _testcapi, _testclinic, _testinternalcapi, _testlimitedcapi,
_testmultiphase, xxlimited) with Clinic's own parser, imported from TREE/Tools/clinic and
run by this interpreter (the host python3; Clinic needs no PEP 671 interpreter), and prints:

  - the functions declared and their optional parameters (not *args);
  - those defaulting to None, -1, sys.maxsize or a value the signature cannot show (NULL in
    C), by default; a late default (`=>`, a patched tree) counts among them;
  - the 51 of those that stand for a value computed at call time, in the groups of the
    PEP's table (PEP/pep-0671.rst, "Census of the C functions").  That grouping was made by
    reading the declarations; it is data here (COMPUTED), and each listed parameter is
    checked to exist in TREE with such a default.

Read-only: Clinic writes the files of its 'file' destinations when it parses a file; here
that write (and the directory it would make) is skipped, no bytecode is written to
TREE/Tools/clinic, and an audit hook refuses any other write under TREE while Clinic runs.
The default TREE is the unpatched upstream tree of `make baseline`, the one the PEP counts.
Exit status 1 when a file does not parse or a listed parameter is missing or has another
default.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from tools.common import ToolError, exits_on_tool_error
from tools.paths import BASELINE, TREE, shown

ROOTS = ("Modules", "Objects", "Python", "PC")
# A path (relative to the tree) containing one of these is not counted: the test modules,
# and Clinic's generated files.
EXCLUDED = ("_testclinic", "_testcapi", "_testlimited", "_testinternal", "_testmulti",
            "xxlimited", "/clinic/")
# The defaults counted as "absent, no limit or computed": Clinic's py_default text.
SENTINELS = {"None": "None", "-1": "-1", "sys.maxsize": "sys.maxsize",
             "<unrepresentable>": "NULL"}
LATE = "late (=>)"


@dataclass(frozen=True)
class Group:
    """One row of the PEP's table: the parameters (Clinic's function full name, parameter
    name) whose None/-1/sys.maxsize/NULL default stands for one computed value."""
    default: str
    stands_for: str
    members: tuple[tuple[str, str], ...]


def _each(functions: str, parameter: str) -> tuple[tuple[str, str], ...]:
    return tuple((f, parameter) for f in functions.split())


_FIND = "find rfind index rindex count startswith endswith"

COMPUTED: tuple[Group, ...] = (
    Group("bisect.bisect_left/right, insort_left/right: hi", "len(a)",
          _each("_bisect.bisect_left _bisect.bisect_right _bisect.insort_left "
                "_bisect.insort_right", "hi")),
    Group("str, bytes, bytearray: find, rfind, index, rindex, count, startswith, endswith: "
          "end=None", "len(self)",
          _each(" ".join(f"{t}.{m}" for t in ("str", "bytes", "bytearray")
                         for m in _FIND.split()), "end")),
    Group("list, tuple, array.array, collections.deque: index: stop", "len(self)",
          _each("list.index tuple.index array.array.index _collections.deque.index", "stop")),
    Group("re.Pattern: match, fullmatch, search, findall, finditer, scanner: endpos",
          "len(string)",
          _each(" ".join(f"_sre.SRE_Pattern.{m}" for m in
                         "match fullmatch search findall finditer scanner".split()), "endpos")),
    Group("itertools.permutations: r=None", "the length of iterable",
          (("itertools.permutations.__new__", "r"),)),
    Group("math.perm: k=None", "n", (("math.perm", "k"),)),
    Group("warnings.warn: category=None", "the class of message, or UserWarning",
          (("warn", "category"),)),
    Group("io: the truncate methods' pos or size=None", "the stream's position",
          (("_io._IOBase.truncate", "size"), ("_io.FileIO.truncate", "size"),
           ("_io.BytesIO.truncate", "size"), ("_io.StringIO.truncate", "pos"),
           ("_io._Buffered.truncate", "pos"), ("_io.TextIOWrapper.truncate", "pos"))),
    Group("print: file=None", "sys.stdout", (("print", "file"),)),
    Group("eval, exec: globals=None, locals=None", "the caller's namespaces",
          (("eval", "globals"), ("eval", "locals"), ("exec", "globals"), ("exec", "locals"))),
    Group("open, io.TextIOWrapper: encoding=None", "the locale's encoding",
          (("_io.open", "encoding"), ("_io.TextIOWrapper.__init__", "encoding"))),
)


@dataclass
class OptionalParam:
    """An optional parameter of a Clinic function."""
    file: str           # relative to the tree
    function: str       # Clinic's full name, e.g. _sre.SRE_Pattern.match
    parameter: str
    default: str        # as the signature shows it; '<unrepresentable>' for NULL
    c_default: str
    late: bool          # declared 'name: converter => expression' (PEP 671)

    @property
    def kind(self) -> str | None:
        """Which sentinel the default is (None, -1, sys.maxsize, NULL, or late), or None."""
        return LATE if self.late else SENTINELS.get(self.default)


@dataclass
class Census:
    tree: str
    files: int = 0
    functions: int = 0
    optional: list[OptionalParam] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)   # Clinic's skipped writes


def clinic_files(tree: Path) -> list[Path]:
    found = set()
    for root in ROOTS:
        found.update(p for p in (tree / root).glob("**/*.c")
                     if not any(x in p.relative_to(tree).as_posix() for x in EXCLUDED))
    return sorted(found)


# --- the read-only guard ------------------------------------------------------------------

_GUARDED: list[Path] = []     # the tree under which the audit hook refuses writes
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_WRITE_EVENTS = frozenset({"os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.truncate",
                           "os.chmod", "os.utime", "os.symlink", "os.link", "shutil.rmtree"})


def _under_guard(path: object) -> bool:
    if not _GUARDED or not isinstance(path, (str, bytes, os.PathLike)):
        return False
    p = Path(os.fsdecode(path)).absolute()
    return any(p.is_relative_to(tree) for tree in _GUARDED)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _GUARDED:
        return
    if event == "open":
        path, mode, flags = args
        writes = any(c in mode for c in "wax+") if isinstance(mode, str) \
            else bool(flags & _WRITE_FLAGS)
        paths = [path] if writes else []
    elif event in _WRITE_EVENTS:
        paths = [a for a in args[:2] if isinstance(a, (str, bytes, os.PathLike))]
    else:
        return
    for p in paths:
        if _under_guard(p):
            raise PermissionError(f"clinic_census is read-only: {event} {os.fsdecode(p)}")


_hook_installed = False


@contextlib.contextmanager
def read_only_clinic(tree: Path, census: Census) -> Iterator[Any]:
    """Import libclinic from tree/Tools/clinic with its writes disabled; yields the module.
    Another tree's libclinic imported earlier in this process is dropped first."""
    global _hook_installed
    clinic_dir = tree / "Tools" / "clinic"
    if not (clinic_dir / "libclinic" / "__init__.py").is_file():
        raise ToolError(f"{tree} has no Tools/clinic/libclinic (run `make baseline`, or give "
                        "--tree a CPython 3.13 source tree)")
    for name in [m for m in sys.modules if m == "libclinic" or m.startswith("libclinic.")]:
        del sys.modules[name]
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True

    def not_written(filename: str, *args: object, **kwargs: object) -> None:
        path = Path(filename).absolute()
        census.not_written.append(path.relative_to(tree).as_posix()
                                  if path.is_relative_to(tree) else str(path))

    def no_makedirs(name: str, *args: object, **kwargs: object) -> None:
        return None

    saved = sys.path[:], sys.dont_write_bytecode, os.makedirs
    sys.path.insert(0, str(clinic_dir))
    sys.dont_write_bytecode = True           # no __pycache__ in the tree's Tools/clinic
    _GUARDED.append(tree)
    try:
        libclinic = importlib.import_module("libclinic")
        importlib.import_module("libclinic.cli")      # registers the converters
        # The guard: Clinic writes its 'file' destinations through libclinic.write_file
        # (after os.makedirs of their directory) while it parses a file.
        libclinic.write_file = not_written
        sys.modules["libclinic.utils"].write_file = not_written
        os.makedirs = no_makedirs  # type: ignore[assignment]
        yield libclinic
    finally:
        _GUARDED.remove(tree)
        sys.path[:], sys.dont_write_bytecode, os.makedirs = saved


# --- the census ---------------------------------------------------------------------------

def _functions(owner: Any) -> Iterator[Any]:
    yield from owner.functions
    for sub in [*getattr(owner, "modules", {}).values(), *owner.classes.values()]:
        yield from _functions(sub)


def take_census(tree: Path) -> Census:
    tree = tree.absolute()
    census = Census(shown(tree))
    with read_only_clinic(tree, census):
        from libclinic.app import Clinic
        from libclinic.clanguage import CLanguage
        from libclinic.cli import LIMITED_CAPI_REGEX
        from libclinic.function import Function
        failed = []
        seen: set[tuple[str, str]] = set()
        for path in clinic_files(tree):
            raw = path.read_text(encoding="utf-8")
            if "[clinic input]" not in raw:
                continue
            rel = path.relative_to(tree).as_posix()
            clinic = Clinic(CLanguage(str(path)), verify=False, filename=str(path),
                            limited_capi=bool(LIMITED_CAPI_REGEX.search(raw)))
            try:
                with contextlib.redirect_stdout(sys.stderr):   # Clinic's warnings
                    clinic.parse(raw)
            except (Exception, SystemExit) as exc:
                failed.append(f"{rel}: {type(exc).__name__}: {exc}")
                continue
            census.files += 1
            for f in _functions(clinic):
                if not isinstance(f, Function) or (rel, f.full_name) in seen:
                    continue
                seen.add((rel, f.full_name))
                census.functions += 1
                for p in f.parameters.values():
                    c = p.converter
                    if p.is_vararg() or not c.is_optional():
                        continue
                    census.optional.append(OptionalParam(
                        rel, f.full_name, p.name, c.py_default or repr(c.default),
                        str(c.c_default), bool(getattr(p, "late_default", False))))
    if failed:
        raise ToolError("Clinic did not parse these files, the census would be incomplete:\n  "
                        + "\n  ".join(failed))
    return census


def computed(census: Census) -> tuple[list[dict[str, Any]], list[str]]:
    """The groups of COMPUTED as found in the census, and what does not match it."""
    by_name: dict[tuple[str, str], list[OptionalParam]] = {}
    for o in census.optional:
        by_name.setdefault((o.function, o.parameter), []).append(o)
    declared = {o.function for o in census.optional}
    groups, problems = [], []
    for g in COMPUTED:
        members = []
        for function, parameter in g.members:
            found = by_name.get((function, parameter), [])
            if len(found) != 1:
                where = "is declared in several files" if found else (
                    "has no such optional parameter" if function in declared
                    else "is not declared (or has no optional parameter)")
                problems.append(f"{function}({parameter}): {where}")
                continue
            o = found[0]
            if o.kind is None:
                problems.append(f"{function}({parameter}): default {o.default} is not None, "
                                "-1, sys.maxsize, NULL or late")
                continue
            members.append(asdict(o))
        groups.append({"default": g.default, "stands_for": g.stands_for,
                       "n": len(members), "parameters": members})
    return groups, problems


def report(census: Census) -> tuple[dict[str, Any], list[str]]:
    sentinel = [o for o in census.optional if o.kind is not None]
    kinds = Counter(o.kind for o in sentinel)
    groups, problems = computed(census)
    return {
        "tree": census.tree,
        "files": census.files,
        "functions": census.functions,
        "optional": len(census.optional),
        "sentinel": {"n": len(sentinel),
                     "by_default": {k: kinds[k] for k in [*SENTINELS.values(), LATE]}},
        "computed": {"n": sum(g["n"] for g in groups), "groups": groups},
        "not_written": census.not_written,
    }, problems


def print_text(data: dict[str, Any]) -> None:
    s, c = data["sentinel"], data["computed"]
    print(f"Argument Clinic in {data['tree']} ({data['files']} files of "
          f"{', '.join(ROOTS)}, without the test modules)")
    print(f"  {data['functions']:5,} functions")
    print(f"  {data['optional']:5,} optional parameters")
    print(f"  {s['n']:5,} of them default to None, -1, sys.maxsize or NULL ("
          + ", ".join(f"{k} {n}" for k, n in s["by_default"].items() if n) + ")")
    print(f"  {c['n']:5,} of those stand for a value computed at call time:")
    width = max(len(g["stands_for"]) for g in c["groups"])
    for g in c["groups"]:
        late = sum(p["late"] for p in g["parameters"])
        print(f"    {g['n']:3}  {g['stands_for']:<{width}}  {g['default']}"
              + (f" ({late} declared with =>)" if late else ""))
    if data["not_written"]:
        print(f"  (Clinic's output not written: {len(data['not_written'])} file destinations)")


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.measure.clinic_census",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=BASELINE,
                    help=f"a CPython source tree (default: {shown(BASELINE)}, pristine "
                         f"upstream; {shown(TREE)} is the patched one)")
    ap.add_argument("--json", action="store_true",
                    help="print the census as JSON (every listed parameter with its file "
                         "and defaults)")
    args = ap.parse_args(argv)
    data, problems = report(take_census(args.tree))
    if args.json:
        print(json.dumps(data, indent=1))
    else:
        print_text(data)
    if problems:
        raise ToolError("the PEP's table does not match this tree:\n  "
                        + "\n  ".join(problems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
