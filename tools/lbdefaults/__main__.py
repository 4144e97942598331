"""Entry point: ``./python -m tools.lbdefaults [options] PATH...`` (from the repo root).

A project tool for users adopting PEP 671, not part of the language change, so
it stays out of the patch series (which must remain a clean upstream
proposal); it needs the patched interpreter only to verify that rewritten
files compile.
"""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
