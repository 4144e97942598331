"""Ecosystem probe for tree-sitter-python: parse late defaults without errors.

The venv's ``share/tree-sitter-python/`` holds the grammar built from the npm tarball
of the release (stock, or with the patch: build.py), loaded through the venv's
``tree-sitter`` binding (PyPI) as editors load it. On the shared corpus
``late_defaults.py`` it must:

1. give a tree with no ERROR and no MISSING node;
2. have each ``=>`` of the corpus be one token, a ``late_default_operator`` node, the
   ``operator`` field of a ``default_parameter`` or ``typed_default_parameter`` (in a
   def or a lambda);
3. have the grammar's own ``queries/highlights.scm`` capture each ``=>`` as
   ``@operator``.

A stock release gives one ERROR node per ``=>``. Standard library only; no network.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import tokenize

_NOT_CODE = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)}

# Run by the venv's python: the tree's findings on the corpus, as JSON.
_PARSE = r"""
import ctypes, json, pathlib, sys
import tree_sitter as ts

share, source = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).read_bytes()
lib = ctypes.CDLL(str(share / "python.so"))
lib.tree_sitter_python.restype = ctypes.c_void_p
capsule = ctypes.pythonapi.PyCapsule_New
capsule.restype = ctypes.py_object
capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
language = ts.Language(capsule(lib.tree_sitter_python(), b"tree_sitter.Language", None))
tree = ts.Parser(language).parse(source)

errors, arrows = [], []
cursor = tree.walk()
visited = False
while True:
    node = cursor.node
    if not visited:
        if node.is_error or node.is_missing:
            errors.append([node.start_point[0] + 1, node.start_point[1] + 1,
                           "MISSING " + node.type if node.is_missing else "ERROR"])
        if node.text == b"=>":
            arrows.append([node.start_byte, node.parent.type if node.parent else None,
                           cursor.field_name, node.type])
    if not visited and cursor.goto_first_child():
        continue
    if cursor.goto_next_sibling():
        visited = False
        continue
    if not cursor.goto_parent():
        break
    visited = True

highlights = (share / "queries" / "highlights.scm").read_text()
query = ts.Query(language, highlights)
captures = ts.QueryCursor(query).captures(tree.root_node)
operators = sorted(n.start_byte for n in captures.get("operator", []) if n.text == b"=>")
print(json.dumps({"errors": errors, "arrows": arrows, "operators": operators,
                  "version": ts.__version__ if hasattr(ts, "__version__") else "?"}))
"""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / "late_defaults.py"
    share = pathlib.Path(os.path.abspath(python)).parent.parent / "share" / \
        "tree-sitter-python"
    if not (share / "python.so").is_file():
        return False, f"no build of tree-sitter-python in {share}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run([python, "-c", _PARSE, str(share), str(corpus)], cwd=workdir,
                          capture_output=True, text=True, timeout=300, env=env,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        return False, f"loading the grammar failed: {proc.stderr.strip()[-300:]}"
    found = json.loads(proc.stdout)
    source = corpus.read_bytes()
    wanted = code_arrows(source)
    errors, arrows = found["errors"], found["arrows"]
    if errors:
        missing = sum(1 for e in errors if e[2] != "ERROR")
        shown = ", ".join(f"{e[2]} at {e[0]}:{e[1]}" for e in errors[:3])
        return False, (f"{corpus.name}: {len(errors) - missing} ERROR and {missing} MISSING "
                       f"node(s) for its {len(wanted)} '=>' ({shown}"
                       f"{', ...' if len(errors) > 3 else ''})")
    fielded = sorted(a[0] for a in arrows if a[2] == "operator" and a[1] in
                     ("default_parameter", "typed_default_parameter")
                     and a[3] == "late_default_operator")
    if fielded != wanted:
        return False, (f"{corpus.name}: no ERROR, but {len(fielded)} of the {len(wanted)} "
                       "'=>' are a late_default_operator, the operator field of a "
                       "default_parameter or typed_default_parameter (found: "
                       f"{arrows[:3]})")
    if found["operators"] != wanted:
        return False, (f"{corpus.name}: highlights.scm captures {len(found['operators'])} of "
                       f"the {len(wanted)} '=>' as @operator")
    kinds = sorted({a[1] for a in arrows})
    return True, (f"{corpus.name}: no ERROR or MISSING node; each of the {len(wanted)} '=>' "
                  "is one token, a late_default_operator, the operator field of a "
                  f"{' or '.join(kinds)}, and highlights.scm captures it as @operator")


def code_arrows(source: bytes) -> list[int]:
    """The byte offsets of the '=>' of source outside its strings and comments (the
    corpus's docstrings quote '=>'), told by the standard library's tokenizer, not by the
    grammar under test."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(row: int, column: int) -> int:
        # tokenize counts columns in characters of the decoded line
        return starts[row - 1] + len(lines[row - 1].decode("utf-8")[:column].encode("utf-8"))

    skipped = [(offset(*t.start), offset(*t.end))
               for t in tokenize.tokenize(io.BytesIO(source).readline)
               if t.type in _NOT_CODE]
    return [i for i in range(len(source)) if source.startswith(b"=>", i)
            and not any(start <= i < end for start, end in skipped)]
