"""Probe for rich: ``rich.inspect()`` shows each late default of the corpus as written.

rich writes a callable's signature from ``inspect.signature()``, so it needs no
patch. Runs in the venv of the interpreter under test, on a copy of the corpus,
printing without colour to a wide console. Standard library only; no network.
"""

from __future__ import annotations

import json
import pathlib

from unpatched import signatures

_SCRIPT = r"""
import functools, json, sys
import late_defaults, rich
from rich.console import Console
console = Console(color_system=None, width=400, file=sys.stdout)
for name in json.loads(sys.argv[1]):
    obj = functools.reduce(getattr, name.split("."), late_defaults)
    rich.inspect(obj, console=console, docs=False)
"""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    expected, src = signatures.prepare(python, corpus, workdir)
    result = signatures.run([python, "-c", _SCRIPT, json.dumps(list(expected))], workdir,
                            PYTHONPATH=str(src))
    if result.returncode != 0:
        return signatures.failure("rich", result)
    example = signatures.first_line_with(result.stdout, "def bisect_right(").strip("│ ")
    return signatures.check("rich.inspect()", result.stdout, expected, example)
