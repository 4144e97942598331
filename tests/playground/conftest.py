"""The playground page's tests beside tests/test_playground.py: collected only by `make
playground-test` (PEP671_PLAYGROUND_TEST=1, as tests/conftest.py does for that file),
with its fixtures: one chromium, the page served by a local http.server."""

from __future__ import annotations

import os

if os.environ.get("PEP671_PLAYGROUND_TEST") != "1":
    collect_ignore_glob = ["test_*.py"]
else:
    from tests.test_playground import browser, page, site  # noqa: F401  (fixtures)
