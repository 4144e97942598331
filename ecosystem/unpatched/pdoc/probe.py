"""Probe for pdoc: the HTML page of the corpus shows each late default as written.

pdoc renders signatures from ``inspect.signature()``, so it needs no patch. Runs
``python -m pdoc`` of the venv on a copy of the corpus into workdir, and reads the
text of the page (tags dropped, entities decoded). Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import re

import probekit
from unpatched import signatures


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    expected, src = signatures.prepare(python, corpus, workdir)
    out = workdir / "html"
    result = signatures.run([python, "-m", "pdoc", "late_defaults", "-o", str(out)],
                            workdir, PYTHONPATH=str(src))
    page = out / "late_defaults.html"
    if result.returncode != 0 or not page.is_file():
        return signatures.failure("pdoc", result)
    # The signature of each function, up to its "View Source" button (the source
    # shown after it has the late defaults as written in any case).
    shown = [probekit.html_text(block)
             for block in re.findall(r'<div class="attr function">(.*?)'
                                     r'<label class="view-source-button"',
                                     page.read_text(encoding="utf-8"), re.S)]
    if not shown:
        return False, "pdoc HTML: no function signatures found in the page"
    return signatures.check("pdoc HTML", "\n".join(shown), expected,
                            next((s for s in shown if "bisect_right(" in s), shown[0]))
