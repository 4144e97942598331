"""A synthetic results.json for bench.report: every part present, ratios chosen so that
each target's verdict is known (tests/bench/test_bench_report.py)."""

from __future__ import annotations

from typing import Any

from bench.micro.suites import LATE_ROLES, SUITES

# instructions per iteration of each late role, per shape: late omitted beats the
# sentinel everywhere; "kwonly" misses the 5% floor target by default
LATE = {"late_omitted": 110.0, "sentinel_omitted": 130.0, "floor": 108.0,
        "late_passed": 100.0, "sentinel_passed": 101.0}


def results(*, pyperformance_geomean: float = 1.004, call_ratio: float = 1.002,
            kw_late: float = 140.0, sentinel_omitted: float = LATE["sentinel_omitted"],
            micro_ratio: dict[str, float] | None = None) -> dict[str, Any]:
    """micro_ratio: patched/baseline of single parity micros by name (default 1.0; the
    call micros: call_ratio)."""
    suites: dict[str, Any] = {name: [{"name": m.name, "group": m.group, "role": m.role}
                                     for m in micros] for name, micros in SUITES.items()}
    suites["late_roles"] = list(LATE_ROLES)
    late: dict[str, Any] = {"loop.overhead": {"per_iter": 8.0, "loops": 100000}}
    for m in suites["late"]:
        if m["group"] != "loop":
            value = LATE[m["role"]]
            if m["role"] == "sentinel_omitted":
                value = sentinel_omitted
            if m["group"] == "kwonly" and m["role"] == "late_omitted":
                value = kw_late
            late[m["name"]] = {"per_iter": value, "loops": 100000}
    base = {m["name"]: {"per_iter": 1000.0} for m in suites["parity"]}
    ratio = {name: call_ratio if name.endswith(".call") else 1.0 for name in base}
    ratio.update(micro_ratio or {})
    patched = {name: {"per_iter": 1000.0 * ratio[name]} for name in base}
    first = suites["late"][0]["group"]
    return {
        "run": {"mode": "quick", "finished": "2026-01-01T00:00:00", "node": "n",
                "machine": "x86_64", "cpus": 2, "loadavg": [1.0, 1.0, 1.0],
                "elapsed": 600.0, "interpreters": {"patched": "/p", "baseline": "/b"}},
        "suites": suites,
        "parts": {"callgrind": {"name": "callgrind", "status": "ok", "why": ""},
                  "pyperformance": {"name": "pyperformance", "status": "SKIPPED",
                                    "why": "not in quick mode\nsecond line"}},
        "callgrind": {"late/patched": late, "parity/patched": patched,
                      "parity/baseline": base},
        "pyperf_late": {f"{first}.late_omitted": [1.0, 1.1], f"{first}.sentinel_omitted":
                        [1.2, 1.3]},
        "pyperformance_callgrind": {"geomean": pyperformance_geomean, "rows": {
            "chaos": {"loops": 4, "baseline": 1e6, "patched": 1e6 * pyperformance_geomean,
                      "ratio": pyperformance_geomean}}},
        "sizeof": {"patched": {"function": 160, "lambda": 160, "pointer": 8},
                   "baseline": {"function": 152, "lambda": 152, "pointer": 8}},
    }
