"""Where the defaults of Python files are, for the probe and tests of lezer-python.

Run by the venv's python (the patched interpreter, whose ast knows late defaults):

    python defaults.py OUT ROOT

writes OUT, the manifest that parse.mjs reads: the .py files under ROOT (a directory,
or "stdlib": this interpreter's standard library without site-packages) and, for each
that this interpreter parses, the offsets (in UTF-16 code units, as Node.js counts) of
its early defaults' "=" and of its late defaults' "=>". So the grammar under test is not
what finds them. Standard library only.
"""

from __future__ import annotations

import ast
import bisect
import json
import os
import pathlib
import re
import sys

LATE = getattr(ast, "LateDefault", ())
LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def sign(text: str, at: int) -> int:
    """The offset of the "=" of a default whose parameter (its annotation included)
    ends at at: past blanks, line continuations, comments and an annotation's ")"."""
    while text[at] != "=":
        if text[at] == "#":
            at = text.index("\n", at)
        elif text[at] in " \t\f\r\n\\)":
            at += 1
        else:
            raise ValueError(f"no '=' after the parameter ending at {at}")
    return at


def defaults(text: str) -> list[list[int]]:
    """[[offset of each early default's "="], [of each late default's "=>"]] in text,
    in UTF-16 code units. Raises SyntaxError if text is not Python."""
    lines = LINE.findall(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:  # ast counts columns in bytes of UTF-8
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))

    early: list[int] = []
    late: list[int] = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults)
                  if default is not None]
        for arg, default in pairs:
            assert arg.end_lineno is not None and arg.end_col_offset is not None
            at = sign(text, offset(arg.end_lineno, arg.end_col_offset))
            is_late = bool(LATE) and isinstance(default, LATE)
            if text.startswith("=>", at) != is_late or text.startswith("==", at):
                raise ValueError(f"the default's sign at {at} is not {'=>' if is_late else '='}")
            (late if is_late else early).append(at)
    # UTF-16: a character beyond the Basic Multilingual Plane is two code units
    astral = [] if text.isascii() else [i for i, c in enumerate(text) if ord(c) > 0xFFFF]
    return [[at + bisect.bisect_left(astral, at) for at in sorted(found)]
            for found in (early, late)]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = pathlib.Path(argv[0])
    # where os.py is: sysconfig names the install prefix, which a build not installed lacks
    root = pathlib.Path(os.__file__).parent if argv[1] == "stdlib" else pathlib.Path(argv[1])
    files, found, unread = [], {}, []
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        name = path.relative_to(root).as_posix()
        files.append(name)
        try:
            early, late = defaults(path.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, SyntaxError, ValueError):
            unread.append(name)  # not UTF-8, or not Python (test data): parsed, not rewritten
            continue
        if early or late:
            found[name] = [early, late]
    out.write_text(json.dumps({"root": str(root), "files": files, "defaults": found,
                               "unread": unread}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
