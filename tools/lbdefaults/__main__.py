"""Entry point: ``./python tools/lbdefaults [options] PATH...`` (or ``-m lbdefaults``).

A project tool for users adopting PEP 671, not part of the language change, so
it stays out of the patch series (which must remain a clean upstream
proposal); it needs the patched interpreter only to verify that rewritten
files compile.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    # run as a directory (`python tools/lbdefaults`): make the package importable
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    from lbdefaults.cli import main
else:
    from .cli import main

if __name__ == "__main__":
    sys.exit(main())
