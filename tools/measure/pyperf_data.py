"""What bench and tools.measure need from pyperf's JSON files, read with pyperf's own API.

    python -m tools.measure.pyperf_data FILE...      (with the bench venv's python)

prints, for each file, the list of its benchmarks in file order as JSON objects:
name, values (every value of every run, seconds per loop), inner_loops, and
last_value (the first value of the last run).  The driver (tools-style, stdlib
only) calls it; tests/requirements.txt does not need pyperf.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pyperf


def describe(path: str) -> list[dict[str, Any]]:
    found = []
    for bench in pyperf.BenchmarkSuite.load(path).get_benchmarks():
        runs = [run for run in bench.get_runs() if run.values]
        found.append({"name": bench.get_name(), "values": list(bench.get_values()),
                      "inner_loops": bench.get_metadata().get("inner_loops", 1),
                      "last_value": runs[-1].values[0] if runs else None})
    return found


def main(argv: list[str]) -> int:
    print(json.dumps([describe(path) for path in argv]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
