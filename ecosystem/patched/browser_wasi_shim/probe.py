"""Ecosystem probe for @bjorn3/browser_wasi_shim: poll_oneoff's absolute deadlines.

The playground runs python.wasm with this shim, and CPython's time.sleep is an absolute
clock_nanosleep: wasi-libc asks poll_oneoff for a clock subscription with
SUBSCRIPTION_CLOCK_ABSTIME. The venv's ``share/browser_wasi_shim/`` holds the package's
dist/ (stock, or patched: derive.py) and ``poll.mjs``, which calls its poll_oneoff under
Node.js with a deadline 0.1 s ahead on CLOCK_REALTIME, as wasi-libc lays it out. A stock
release reads the flags at the wrong offset and waits for the deadline taken as a
duration (decades): it does not return within TIMEOUT. The corpus is not used: the shim
reads no Python. Standard library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

NAME = "browser_wasi_shim"
TIMEOUT = 10


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    share = pathlib.Path(python).parent.parent / "share" / NAME
    try:
        result = probekit.run(["node", share / "poll.mjs"], share, timeout=TIMEOUT)
    except probekit.RUN_ERRORS as exc:
        if "timed out" in str(exc):
            return False, (f"poll_oneoff, an absolute deadline 0.1 s ahead: still waiting "
                           f"after {TIMEOUT} s (the flags read at offset 36, not 40)")
        return False, f"node poll.mjs failed: {exc}"
    found = probekit.last_json(result.stdout)
    if result.returncode != 0 or not isinstance(found, dict):
        return False, f"node poll.mjs failed: {probekit.error_line(result)}"
    ok = found["errno"] == 0 and found["userdata"] == 7 and 0.09 <= found["seconds"] < 1
    return ok, (f"poll_oneoff, an absolute deadline 0.1 s ahead: returned after "
                f"{found['seconds']:.3f} s, errno {found['errno']}")
