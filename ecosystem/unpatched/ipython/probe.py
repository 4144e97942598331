"""Probe for IPython: ``obj?`` shows each late default of the corpus as written.

IPython's inspector prints ``inspect.signature()`` ("Signature:", "Init signature:"),
so it needs no patch. Runs ``python -m IPython`` of the venv on a copy of the corpus
(no profile or history kept). Standard library only; no network.
"""

from __future__ import annotations

import pathlib

from unpatched import signatures


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    expected, src = signatures.prepare(python, corpus, workdir)
    lines = ["import late_defaults"] + [f"late_defaults.{name}?" for name in expected]
    result = signatures.run(
        [python, "-m", "IPython", "--quick", "--no-banner", "--colors=nocolor",
         "--HistoryManager.enabled=False", "-c", "\n".join(lines)],
        workdir, PYTHONPATH=str(src), IPYTHONDIR=str(workdir / "ipython"))
    if result.returncode != 0:
        return signatures.failure("IPython", result)
    return signatures.check("IPython `obj?`", result.stdout, expected,
                            signatures.first_line_with(result.stdout, "bisect_right("))
