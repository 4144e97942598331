"""Bisection: which rewritten function breaks which test file, and why."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tools.common import ToolError, run_logged, scrubbed_env
from tools.dogfood.rewrite import Unit
from tools.check.regrtest_parity import parse_summary

NOTES = Path(__file__).resolve().parent / "notes.toml"


def bisect(units: Sequence[Unit], tests: set[str],
           fails: Callable[[Sequence[Unit], set[str]], set[str]]
           ) -> tuple[dict[Unit, set[str]], dict[str, list[Unit]]]:
    """Which units break which tests, by adaptive group testing.

    `tests` fail with all `units` applied; fails(subset, tests) applies only the
    subset and returns the tests of `tests` that fail. Halves that fail are halved
    again down to single units: culprits maps a unit to the tests it breaks on its
    own. A test that fails with a set but with neither half of it needs rewrites
    from both halves together: `together` maps it to the smallest such set found."""
    culprits: dict[Unit, set[str]] = {}
    together: dict[str, list[Unit]] = {}

    def search(group: Sequence[Unit], failing: set[str]) -> None:
        if len(group) == 1:
            culprits.setdefault(group[0], set()).update(failing)
            return
        mid = len(group) // 2
        explained: set[str] = set()
        for half in (group[:mid], group[mid:]):
            broken = fails(half, failing)
            if broken:
                explained |= broken
                search(half, broken)
        for test in sorted(failing - explained):
            together[test] = list(group)

    if units and tests:
        search(list(units), set(tests))
    return culprits, together


def run_tests(python: Path, tests: Iterable[str], log: Path, timeout: int, jobs: int
              ) -> tuple[set[str], str]:
    """Run these test files with regrtest; the ones it reports as failed, and its output."""
    names = sorted(tests)
    cmd = [str(python), "-m", "test", "--timeout", str(timeout), f"-j{max(1, min(jobs, len(names)))}",
           "-W", *names]
    rc = run_logged(cmd, log, env=scrubbed_env())
    out = log.read_text(errors="replace")
    summary = parse_summary(out)
    if summary is None:
        raise ToolError(f"regrtest did not finish (exit {rc}) on {' '.join(names)}; see {log}")
    return set(summary.get("failed", [])) & set(names), out


FAILURE_HEADER = re.compile(r"^(FAIL|ERROR): (\S+) \((\S+)\)")


def failure_lines(output: str, test: str, limit: int = 6) -> list[str]:
    """From a regrtest -W output: `FAIL: test.test_x.Class.test_y -- the last line of
    its traceback` for each failing test case of the test file `test`; without any,
    the last exception lines of the output (an import error, a crash)."""
    lines = output.splitlines()
    found: list[str] = []
    for i, line in enumerate(lines):
        m = FAILURE_HEADER.match(line)
        if not m or not re.search(rf"(^|\.){re.escape(test)}(\.|$)", m.group(3)):
            continue
        last = ""
        for nxt in lines[i + 1:]:
            if nxt.startswith("-" * 20) and last:
                break
            if (nxt.startswith(("=" * 20, "== ", "Ran ")) or FAILURE_HEADER.match(nxt)
                    or re.match(r"^\d+:\d+:\d+ ", nxt)):
                break
            if nxt.strip() and not nxt.startswith("-" * 20):
                last = nxt.strip()
        entry = f"{m.group(1)}: {m.group(3)} -- {last}"
        if entry not in found:
            found.append(entry)
    if not found:
        tb = [ln.strip() for ln in lines if re.match(r"^\w*(Error|Exception)\b.*:", ln.strip())]
        found = tb[-limit:] or [ln.strip() for ln in lines if "Fatal Python error" in ln][:1]
    return found[:limit]


KINDS = [   # the first that matches
    ("signature pinned by a test",
     re.compile(r"signature|__defaults__|__kwdefaults__|=>|=None|argspec|Parameter")),
    ("caller passes None", re.compile(r"NoneType|\bNone\b")),
]


def guess_kind(lines: Sequence[str]) -> str:
    """A first guess at the kind of failure, from its error lines."""
    text = "\n".join(lines)
    for kind, pattern in KINDS:
        if pattern.search(text):
            return kind
    return "other"


def load_notes(path: Path = NOTES) -> dict[str, dict[str, str]]:
    """tools/dogfood/notes.toml: [["Lib/x.py:f(p)"]] tables with the reason a rewrite
    breaks a test file: key "FILE:FUNCTION(PARAMETER)", entries test = reason."""
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {k: {t: str(r) for t, r in v.items()} for k, v in data.items()}


def unit_label(cands: Sequence[dict[str, Any]]) -> str:
    c = cands[0]
    return f"{c['file']}:{c['function']}({', '.join(x['parameter'] for x in cands)})"
