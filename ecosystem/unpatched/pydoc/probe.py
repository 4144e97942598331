"""Probe for pydoc: ``python -m pydoc`` shows each late default of the corpus as written.

pydoc (the standard library's, of the interpreter under test) writes signatures
with ``inspect.signature()``; the series documents and tests it (test_pydoc), and
this probe keeps the text a reader gets for a whole module right. Standard library
only; no network.
"""

from __future__ import annotations

import pathlib

from unpatched import signatures


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    expected, src = signatures.prepare(python, corpus, workdir)
    result = signatures.run([python, "-m", "pydoc", "late_defaults"], workdir,
                            PYTHONPATH=str(src), PAGER="cat", TERM="dumb")
    if result.returncode != 0 or "NAME" not in result.stdout:
        return signatures.failure("pydoc", result)
    return signatures.check("pydoc", result.stdout, expected,
                            signatures.first_line_with(result.stdout, "bisect_right("))
