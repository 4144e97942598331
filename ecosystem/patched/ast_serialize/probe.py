"""Ecosystem probe for ast_serialize: mypy's native parser on the shared corpus.

ast_serialize (a Rust extension built on Ruff's parser crates) parses a file and
writes its tree in mypy's binary format; mypy asks for a format version
(``cache_version``). In the venv of the interpreter under test, the probe:

1. parses the shared corpus ``late_defaults.py`` in the newest format of the patch
   (cache version 8): there must be no syntax error;
2. parses ``def f(a, b=>a): pass`` and ``def f(a, b= a): pass`` (same length, so the
   same locations) in that format: the two trees must differ in exactly one byte,
   the flag after the default of ``b``, true for the late default, false for the
   early one;
3. parses the late default in the format before (cache version 7), which has no such
   flag: a reader of that format (mypy 2.4.1 as released) must get a blocking error
   rather than an early default.

mypy's own probe (ecosystem/patched/mypy) reads the flag through mypy. Standard
library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

# The format (cache version) that has the late-bound flag, and the one before it.
LATE_BOUND_FORMAT = 8
OLDER_FORMAT = 7
LATE = "def f(a, b=>a): pass\n"
EARLY = "def f(a, b= a): pass\n"
OLDER_ERROR = "PEP 671 is not supported yet"
TAG_TRUE, TAG_FALSE = 1, 0  # how mypy's binary format writes a bool

# Run by the interpreter under test: argv[1] is the corpus; prints one line of JSON.
_SCRIPT = f"""
import json, sys
import ast_serialize

def parse(name, source, version):
    tree, errors = ast_serialize.parse(name, source, cache_version=version)[:2]
    return list(tree), [(e["line"], e["column"], e["message"], e["blocker"]) for e in errors]

corpus = parse(sys.argv[1], None, {LATE_BOUND_FORMAT})[1]
late, late_errors = parse("pair.py", {LATE!r}, {LATE_BOUND_FORMAT})
early, early_errors = parse("pair.py", {EARLY!r}, {LATE_BOUND_FORMAT})
older_errors = parse("pair.py", {LATE!r}, {OLDER_FORMAT})[1]
print(json.dumps({{"corpus": corpus, "late": late, "early": early,
                  "pair_errors": late_errors + early_errors, "older": older_errors}}))
"""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    try:
        proc = probekit.run([python, "-c", _SCRIPT, corpus], workdir)
    except probekit.RUN_ERRORS as exc:
        return False, f"ast_serialize could not be run: {exc}"
    found = probekit.last_json(proc.stdout)
    if not isinstance(found, dict):
        return False, f"ast_serialize failed: {probekit.error_line(proc)[:300]}"

    label = f"ast_serialize, cache version {LATE_BOUND_FORMAT}"
    if found["corpus"]:
        line, _, message, _ = min(found["corpus"])
        return False, (f"{label}: {len(found['corpus'])} syntax error(s) on {corpus.name}, "
                       f"the first: line {line}: {message}")
    if found["pair_errors"]:
        return False, f"{label}: syntax errors on `{LATE.strip()}`: {found['pair_errors']}"
    late, early = found["late"], found["early"]
    differ = [i for i, (a, b) in enumerate(zip(late, early)) if a != b]
    flagged = len(late) == len(early) and len(differ) == 1 \
        and (late[differ[0]], early[differ[0]]) == (TAG_TRUE, TAG_FALSE)
    if not flagged:
        return False, (f"{label}: {corpus.name} parses, but the trees of `{LATE.strip()}` "
                       f"and `{EARLY.strip()}` ({len(late)} and {len(early)} bytes) differ "
                       f"in {len(differ)} byte(s), not just in a late-bound flag")
    older = [e for e in found["older"] if e[2] == OLDER_ERROR and e[3]]
    if not older:
        return False, (f"{label}: {corpus.name} parses and the flag is written, but in "
                       f"cache version {OLDER_FORMAT} a late default gives "
                       f"{found['older'] or 'no error'}, not the blocking {OLDER_ERROR!r}")
    return True, (f"{label}: {corpus.name} parses with no syntax error; `{LATE.strip()}` "
                  f"and `{EARLY.strip()}` differ only in the late-bound flag; in cache "
                  f"version {OLDER_FORMAT}, a blocking {OLDER_ERROR!r} at line {older[0][0]}")
