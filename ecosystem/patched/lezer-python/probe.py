"""Ecosystem probe for @lezer/python (lezer-python): parse late defaults without errors.

The venv's ``share/lezer-python/`` holds the package built from the npm tarball of the
release (stock, or with the patch: build.py), with its run-time dependencies and
``parse.mjs``, which loads it under Node.js as CodeMirror loads it. The probe:

1. parses every file of the shared corpus (``ecosystem/corpus/``): no error node; each
   late default's ``=>`` (as the interpreter's ``ast`` places them) one
   ``LateAssignOp`` token of a ``ParamList``, which the package's ``styleTags`` style
   ``definitionOperator``, as they style the ``=`` of an early default;
2. parses the standard library of the venv's interpreter as it is and with every early
   default's ``=`` written ``=>`` (a late default; thousands of them, in every form the
   standard library holds): the trees must be the same but for those tokens, so the
   rewritten library gets no error node the original does not have.

A stock release gives an error node for each ``=>``. Standard library only; no network.
"""

from __future__ import annotations

import json
import os
import pathlib

import probekit

NAME = "lezer-python"

# Run by the venv's python: where the defaults of a tree of Python files are (its ast's)
DEFAULTS = pathlib.Path(__file__).resolve().with_name("defaults.py")


def manifest(python: str, root: str, out: pathlib.Path) -> dict | str:
    """The manifest of the .py files under root ("stdlib": the venv's standard library),
    as defaults.py writes it, or why it could not."""
    try:
        result = probekit.run([python, DEFAULTS, out, root], timeout=600)
    except probekit.RUN_ERRORS as exc:
        return f"listing the defaults failed: {exc}"
    if result.returncode != 0 or not out.is_file():
        return f"listing the defaults failed: {probekit.error_line(result)}"
    return json.loads(out.read_text(encoding="utf-8"))


def parse(share: pathlib.Path, *args: str | os.PathLike[str]) -> dict | str:
    """What share/parse.mjs prints for args, or why it failed."""
    try:
        result = probekit.run(["node", share / "parse.mjs", *args], share, timeout=900)
    except probekit.RUN_ERRORS as exc:
        return f"node parse.mjs failed: {exc}"
    found = probekit.last_json(result.stdout)
    if result.returncode != 0 or found is None:
        return f"node parse.mjs {args[0]} failed: {probekit.error_line(result)}"
    return found


def check_corpus(share: pathlib.Path, python: str, corpus: pathlib.Path,
                 workdir: pathlib.Path) -> tuple[bool, str]:
    listed = manifest(python, str(corpus.parent), workdir / "corpus.json")
    if isinstance(listed, str):
        return False, listed
    found = parse(share, "corpus", share / "dist", workdir / "corpus.json")
    if isinstance(found, str):
        return False, found
    files = found["files"]
    late = sum(len(f["late"]) for f in files.values())
    errors = [(name, *at) for name, f in files.items() for at in f["errors"]]
    said = f"corpus ({len(files)} files, {late} '=>')"
    if errors:
        shown = ", ".join(f"{name}:{line}:{col}" for name, line, col in errors[:2])
        return False, f"{said}: {len(errors)} error node(s) ({shown}, ...)"
    wrong = [(name, at) for name, f in files.items() for at in f["late"]
             if [at, 2, "ParamList"] not in f["arrows"]]
    extra = sum(len(f["arrows"]) for f in files.values()) - late
    if wrong or extra:
        return False, (f"{said}: no error node, but {len(wrong)} '=>' not a LateAssignOp "
                       f"token of a ParamList ({wrong[:2]}), {extra} LateAssignOp elsewhere")
    styles = {s for f in files.values() for s in f["lateStyles"]}
    early = {s for f in files.values() for s in f["earlyStyles"]}
    if styles != {"definitionOperator@0"}:
        return False, (f"{said}: parsed, but '=>' styled {sorted(styles)} where '=' is "
                       f"{sorted(early)}")
    return True, (f"{said}: no error node; each '=>' one LateAssignOp token of a "
                  f"ParamList, styled {styles.pop().split('@')[0]} as '=' is")


def check_stdlib(share: pathlib.Path, python: str,
                 workdir: pathlib.Path) -> tuple[bool, str]:
    listed = manifest(python, "stdlib", workdir / "stdlib.json")
    if isinstance(listed, str):
        return False, listed
    found = parse(share, "rewritten", share / "dist", workdir / "stdlib.json")
    if isinstance(found, str):
        return False, found
    said = (f"the standard library with its {found['rewritten']} early defaults written "
            f"'=>' ({found['files']} files)")
    if found["errorsAfter"] != found["errorsBefore"]:
        return False, (f"{said}: {found['errorsAfter']} error nodes in "
                       f"{found['errorFilesAfter']} files (as written: {found['errorsBefore']})")
    if found["differ"]:
        return False, (f"{said}: no new error node, but {len(found['differ'])} trees changed "
                       f"(first {found['differ'][0]})")
    return True, (f"{said}: the trees as written but for those {found['rewritten']} tokens, "
                  f"LateAssignOp for AssignOp; {found['errorsBefore']} error nodes as "
                  "written and rewritten (the grammar's own gaps)")


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    share = pathlib.Path(python).parent.parent / "share" / NAME
    if not (share / "parse.mjs").is_file() or not (share / "dist" / "index.js").is_file():
        return False, f"no build of {NAME} in {share}"
    corpus_ok, corpus_said = check_corpus(share, python, corpus, workdir)
    stdlib_ok, stdlib_said = check_stdlib(share, python, workdir)
    return corpus_ok and stdlib_ok, f"{corpus_said}; {stdlib_said}"
