"""Run a Python script, counting the calls of functions that have late-bound defaults.

    PYTHON -m tools.measure.late_calls --out COUNTS.json SCRIPT [ARG]...   (a PEP 671 interpreter)

SCRIPT runs as __main__ with sys.argv = [SCRIPT, ARG...] and its directory first on
sys.path, as `PYTHON SCRIPT ARG...` would run it. Every start of a function
whose code has a late-default prologue (a QUERY_FAST or QUERY_DEREF instruction) is
counted with sys.monitoring (PY_START; other functions disable the event for their
code, so they cost nothing after their first call); at exit COUNTS.json gets
{"QUALNAME FILE:LINE": calls}. make dogfood runs the pyperformance workers this way with
1 and 2 loops: the difference is what one benchmark loop calls of the rewritten
standard library.
"""

from __future__ import annotations

import argparse
import atexit
import dis
import json
import os
import runpy
import sys
from collections import Counter
from types import CodeType

PROLOGUE_OPS = frozenset({"QUERY_FAST", "QUERY_DEREF"})


def has_late_defaults(code: CodeType) -> bool:
    return any(ins.opname in PROLOGUE_OPS for ins in dis.get_instructions(code))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m tools.measure.late_calls", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="where to write the counts (JSON)")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    if not PROLOGUE_OPS & set(dis.opmap):
        ap.error("this interpreter has no late-bound defaults (no QUERY_FAST instruction)")

    mon = sys.monitoring
    tool = mon.PROFILER_ID
    mon.use_tool_id(tool, "late_calls")
    counts: Counter[CodeType] = Counter()

    def on_start(code: CodeType, offset: int) -> object:
        if code in counts or has_late_defaults(code):
            counts[code] += 1
            return None
        return mon.DISABLE

    def write() -> None:
        mon.set_events(tool, 0)
        result = {f"{c.co_qualname} {c.co_filename}:{c.co_firstlineno}": n
                  for c, n in counts.most_common()}
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)

    atexit.register(write)
    mon.register_callback(tool, mon.events.PY_START, on_start)
    mon.set_events(tool, mon.events.PY_START)
    sys.argv = [args.script, *args.args]
    sys.path[0] = os.path.dirname(os.path.abspath(args.script))   # as for `python SCRIPT`
    runpy.run_path(args.script, run_name="__main__")


if __name__ == "__main__":
    main()
