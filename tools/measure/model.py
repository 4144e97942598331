"""What the parts of a measurement share: interpreters, parts, state, ratios."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tools.common import scrubbed_env


def bench_env() -> dict[str, str]:
    """The environment of every measured process: scrubbed, with a fixed hash seed."""
    return scrubbed_env({"PYTHONHASHSEED": "0"})


@dataclass
class Interp:
    tag: str  # "patched" / "baseline"
    python: Path  # as given
    exe: Path  # the real binary
    pycache: Path  # private -X pycache_prefix (the two builds share cache_tag cpython-313
    #               but not the magic number, so they must not share __pycache__)

    def argv(self) -> list[str]:
        return [str(self.exe), "-X", f"pycache_prefix={self.pycache}"]


@dataclass
class Part:
    name: str
    status: str = "not run"  # ok / SKIPPED / FAILED
    why: str = ""
    core: bool = False


@dataclass
class State:
    out: Path
    logs: Path
    parts: dict[str, Part] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    def part(self, name: str, core: bool = False) -> Part:
        return self.parts.setdefault(name, Part(name, core=core))


def geomean(xs: Iterable[float]) -> float:
    """The geometric mean; nan for no values (a table cell shows it as missing)."""
    xs = list(xs)
    return statistics.geometric_mean(xs) if xs else float("nan")


def ratio_spread(a: list[float], b: list[float]) -> tuple[float, float]:
    """mean(a)/mean(b) and its 1-sigma spread (relative stdevs added in quadrature)."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    sa = statistics.stdev(a) if len(a) > 1 else 0.0
    sb = statistics.stdev(b) if len(b) > 1 else 0.0
    r = ma / mb
    return r, r * math.hypot(sa / ma, sb / mb)
