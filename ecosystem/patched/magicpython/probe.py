"""Ecosystem probe for MagicPython, VS Code's Python grammar: scope late defaults.

The venv's ``share/magicpython/`` holds ``grammars/python.json`` of tm-grammars (the
grammar that @shikijs/langs bundles, converted from VS Code's MagicPython.tmLanguage.json,
stock or with the patch) and shiki (build.py). Tokenized by shiki under Node.js, the
shared corpus ``late_defaults.py`` must give:

1. one token for each ``=>`` outside strings and comments, with one scope,
   ``keyword.operator.late-default.parameter.python``, in a def (with or without an
   annotation) and in a lambda;
2. everything else as shiki's own python grammar (stock, @shikijs/langs) tokenizes the
   corpus with each of those ``=>`` written ``=``: the default expressions keep their
   scopes, and nothing after them changes.

A stock grammar splits ``=>`` into an ``=`` and a comparison ``>``. Standard library
only; no network.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import subprocess
import tokenize

LATE = "keyword.operator.late-default.parameter.python"
_NOT_CODE = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)}


def code_arrows(text: str) -> set[tuple[int, int]]:
    """(line index, column) of each '=>' of text outside its strings and comments (the
    corpus's docstrings quote '=>'), told by the standard library's tokenizer."""
    lines = text.split("\n")
    skipped = [(t.start, t.end) for t in tokenize.generate_tokens(io.StringIO(text).readline)
               if t.type in _NOT_CODE]
    return {(row, col) for row, line in enumerate(lines) for col in range(len(line))
            if line.startswith("=>", col)
            and not any(start <= (row + 1, col) < end for start, end in skipped)}


def tokenize_with_shiki(share: pathlib.Path, grammar: str,
                        path: pathlib.Path) -> list[list[list[str]]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(["node", str(share / "tokenize.mjs"), grammar, str(path)],
                          cwd=share, capture_output=True, text=True, timeout=300, env=env,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"node tokenize.mjs {grammar}: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout)[str(path)]


def positioned(tokens: list[list[str]]) -> list[tuple[int, list[str]]]:
    """Each token of a line with its column."""
    found, col = [], 0
    for token in tokens:
        found.append((col, token))
        col += len(token[0])
    return found


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    corpus = pathlib.Path(corpus).absolute()
    if corpus.is_dir():
        corpus = corpus / "late_defaults.py"
    workdir = pathlib.Path(workdir).absolute()
    share = pathlib.Path(os.path.abspath(python)).parent.parent / "share" / "magicpython"
    if not (share / "tokenize.mjs").is_file():
        return False, f"no build of MagicPython in {share}"
    text = corpus.read_text(encoding="utf-8")
    arrows = code_arrows(text)
    # the corpus with early defaults: each of those '=>' written '=', at the column
    # where the arrow's columns are shifted by the arrows before it on its line
    lines, equals = text.split("\n"), set()
    for row, col in sorted(arrows, reverse=True):
        lines[row] = lines[row][:col] + "=" + lines[row][col + 2:]
    for row, col in arrows:
        equals.add((row, col - sum(1 for r, c in arrows if r == row and c < col)))
    early = workdir / f"early_{corpus.name}"
    early.write_text("\n".join(lines), encoding="utf-8")
    try:
        ours = tokenize_with_shiki(share, str(share / "python.json"), corpus)
        shiki = tokenize_with_shiki(share, "shiki", early)
    except RuntimeError as exc:
        return False, str(exc)

    split, scopes, changed = [], set(), []
    for row, (mine, theirs) in enumerate(zip(ours, shiki)):
        mine_rest = []
        for col, (text_, *stack) in positioned(mine):
            if (row, col) in arrows:
                if text_ != "=>":
                    split.append(f"{row + 1}:{col + 1} {text_!r} {stack[-1]}")
                scopes.add(stack[-1])
            elif text_.strip():
                mine_rest.append([text_, *stack])
        theirs_rest = [token for col, token in positioned(theirs)
                       if (row, col) not in equals and token[0].strip()]
        if mine_rest != theirs_rest:
            changed.append(row + 1)
    if split:
        return False, (f"{corpus.name}: {len(split)} of the {len(arrows)} '=>' are not one "
                       f"token: {'; '.join(split[:2])} (then '>' a comparison)")
    if scopes != {LATE}:
        return False, f"{corpus.name}: '=>' is scoped {sorted(scopes)}, not {LATE} alone"
    if changed:
        return False, (f"{corpus.name}: the tokens around '=>' differ from shiki's for '=' on "
                       f"line(s) {changed[:8]}")
    return True, (f"{corpus.name}: each of the {len(arrows)} '=>' is one token scoped {LATE}; "
                  "every other token as shiki's stock grammar gives it for '='")
