"""Entry point: ``python -m tools.check.fuzz_grammar MODE ...`` (see --help)."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
