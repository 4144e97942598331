"""Ecosystem probe for Pygments: lex the shared corpus with pygmentize.

``pygmentize -l python -f raw late_defaults.py`` (the venv's pygmentize, next to
the interpreter under test) gives the token stream; the probe passes when every
late default of the corpus is one ``Operator`` token ``=>`` at the place where the
interpreter's own ``tokenize`` finds its ``=>``, there are no other ``=>`` tokens,
and there is no ``Error`` token.  The interpreter under test must accept ``=>``.
Standard library only; no network.
"""

from __future__ import annotations

import ast
import json
import pathlib

import probekit

# Run by the interpreter under test: where its tokenizer finds '=>'.
_FAT_ARROWS = r'''
import json, sys, tokenize
with open(sys.argv[1], "rb") as f:
    print(json.dumps([list(t.start) for t in tokenize.tokenize(f.readline)
                      if t.type == tokenize.OP and t.string == "=>"]))
'''


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    pygmentize = pathlib.Path(python).parent / "pygmentize"
    if not pygmentize.exists():
        return False, "no pygmentize next to %s: install Pygments in that venv" % python

    result = probekit.run([python, "-c", _FAT_ARROWS, corpus], workdir)
    if result.returncode != 0:
        return False, ("the interpreter does not tokenize the corpus: %s"
                       % probekit.error_line(result))
    expected = [tuple(pos) for pos in json.loads(result.stdout)]

    result = probekit.run([pygmentize, "-l", "python", "-f", "raw", corpus], workdir)
    if result.returncode != 0:
        return False, "pygmentize failed: %s" % probekit.error_line(result)

    line, column = 1, 0
    arrows, split_arrows, errors = [], 0, []
    previous = None
    for raw in result.stdout.splitlines():
        token_type, _, text = raw.partition("\t")
        value = ast.literal_eval(text)
        if token_type == "Token.Operator" and value == "=>":
            arrows.append((line, column))
        if previous == ("Token.Operator", "=") and (token_type, value) == ("Token.Operator", ">"):
            split_arrows += 1
        if token_type.startswith("Token.Error"):
            errors.append("%r at %d:%d" % (value, line, column))
        previous = (token_type, value)
        newlines = value.count("\n")
        if newlines:
            line, column = line + newlines, len(value) - value.rfind("\n") - 1
        else:
            column += len(value)

    if arrows == expected and not errors:
        return True, "%d late defaults, each one Operator token '=>'; no Error token" % (
            len(expected))
    problems = []
    if arrows != expected:
        problems.append("%d of %d late defaults are one Operator token '=>'" % (
            len(set(arrows) & set(expected)), len(expected)))
    if split_arrows:
        problems.append("%d lexed as Operator '=' then Operator '>'" % split_arrows)
    if errors:
        problems.append("Error tokens: %s" % ", ".join(errors[:3]))
    return False, "; ".join(problems)
