"""Draw build/bench/report.png with matplotlib (run by bench/run_bench with the venv).

    python plot_report.py CHART.json OUT.png

CHART.json: {"title": str, "ref": float, "note": str,
             "bars": [[label, value, spread_or_null, group], ...]}
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"late": "#3465a4", "parity": "#73aa3c", "pyperf": "#ed9628", "other": "#787878"}


def main() -> int:
    data = json.load(open(sys.argv[1], encoding="utf-8"))
    bars = data["bars"]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(bars) + 1.6))
    ys = list(range(len(bars)))[::-1]
    ax.barh(ys, [b[1] for b in bars],
            xerr=[b[2] or 0 for b in bars], color=[COLORS.get(b[3], "#787878") for b in bars],
            error_kw={"elinewidth": 0.8, "capsize": 2})
    ax.set_yticks(ys, [b[0] for b in bars], fontsize=7)
    ax.axvline(data.get("ref", 1.0), color="#c81e1e", linewidth=1.2)
    for y, b in zip(ys, bars):
        ax.text(b[1] + (b[2] or 0) + 0.01, y, f"{b[1]:.3f}", va="center", fontsize=6)
    ax.set_xlabel("ratio (red line: 1.0)")
    ax.set_title(data["title"], fontsize=10)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=COLORS["late"], label="callgrind, late defaults (patched)"),
                       Patch(color=COLORS["parity"], label="callgrind, patched / baseline"),
                       Patch(color=COLORS["pyperf"], label="pyperf (bar: mean ratio, line: spread)")],
              fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=3)
    lo = min(b[1] - (b[2] or 0) for b in bars)
    ax.set_xlim(left=max(0.0, min(0.8, lo - 0.1)))
    if data.get("note"):
        fig.text(0.01, 0.005, data["note"], fontsize=6, color="#555555")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
