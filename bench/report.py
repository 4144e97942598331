"""The report of a benchmark run, rendered from build/bench/results.json alone.

    build/bench-venv/bin/python -m bench.report [RESULTS.json]      (make bench-report)

writes report.md (targets with PASS/MISS, tables of ratios) and report.png (a
chart drawn by matplotlib, pinned in bench/requirements-plot.txt and installed
in the bench venv) beside the results file, and prints the targets and tables.
bench.run writes the results and then runs this; running it again re-renders
the same report without measuring anything.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.paths import BENCH_OUT, shown
from bench.model import geomean, ratio_spread

Bar = tuple[str, float, float | None, str]  # label, ratio, spread or None, group
COLORS = {"late": "#3465a4", "parity": "#73aa3c", "pyperf": "#ed9628", "other": "#787878"}


@dataclass
class Target:
    what: str
    measured: str
    verdict: str  # PASS / MISS / SKIP / INFO (reported, not judged)
    note: str = ""


def fmt_ratio(r: float | None, s: float | None = None) -> str:
    if r is None or (isinstance(r, float) and math.isnan(r)):
        return "–"
    return f"{r:.4f} ± {s:.4f}" if s is not None else f"{r:.4f}"


def verdict(ok: bool | None) -> str:
    return "SKIP" if ok is None else "PASS" if ok else "MISS"


def why_of(parts: dict[str, dict[str, Any]], name: str) -> str:
    """The first line of why a part did not run (or a default)."""
    why = parts.get(name, {}).get("why") or "not run in this mode"
    return why.splitlines()[0]


def build_report(res: dict[str, Any]) -> tuple[str, str, list[Bar]]:
    """(full markdown, the part printed to the terminal, chart bars) of a results.json."""
    run, parts, suites = res["run"], res["parts"], res["suites"]
    cg = res.get("callgrind", {})
    late = cg.get("late/patched", {})
    par_p, par_b = cg.get("parity/patched", {}), cg.get("parity/baseline", {})
    pl = res.get("pyperf_late", {})
    pp = res.get("pyperf_parity", {})
    bars: list[Bar] = []
    md: list[str] = []
    loop = late.get("loop.overhead", {}).get("per_iter")

    def pr(a: str, b: str) -> tuple[float, float] | None:
        if pl.get(a) and pl.get(b):
            return ratio_spread(pl[a], pl[b])
        return None

    # ---- late vs sentinel vs floor
    shapes = [g for g in dict.fromkeys(m["group"] for m in suites["late"]) if g != "loop"]
    t1 = ["| shape | late omitted | sentinel omitted | floor | late/sentinel | late/floor "
          "(net of loop) | late passed | sentinel passed | passed: late/sentinel | "
          "pyperf late/sentinel | pyperf late/floor | pyperf passed late/sentinel |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    late_ratios: dict[str, dict[str, float]] = {}
    for g in shapes:
        v = {r: late.get(f"{g}.{r}", {}).get("per_iter") for r in suites["late_roles"]}
        if any(x is None for x in v.values()):
            continue
        r_ls = v["late_omitted"] / v["sentinel_omitted"]
        r_lf = v["late_omitted"] / v["floor"]
        r_lf_net = ((v["late_omitted"] - loop) / (v["floor"] - loop)) if loop else float("nan")
        r_pp = v["late_passed"] / v["sentinel_passed"]
        late_ratios[g] = {"ls": r_ls, "lf": r_lf, "lf_net": r_lf_net, "pp": r_pp,
                          "ls_net": ((v["late_omitted"] - loop) / (v["sentinel_omitted"] - loop))
                          if loop else float("nan")}
        p1, p2, p3 = (pr(f"{g}.late_omitted", f"{g}.sentinel_omitted"),
                      pr(f"{g}.late_omitted", f"{g}.floor"),
                      pr(f"{g}.late_passed", f"{g}.sentinel_passed"))
        t1.append(f"| {g} | {v['late_omitted']:.1f} | {v['sentinel_omitted']:.1f} | "
                  f"{v['floor']:.1f} | {r_ls:.4f} | {r_lf:.4f} ({r_lf_net:.4f}) | "
                  f"{v['late_passed']:.1f} | {v['sentinel_passed']:.1f} | {r_pp:.4f} | "
                  f"{fmt_ratio(*p1) if p1 else '–'} | {fmt_ratio(*p2) if p2 else '–'} | "
                  f"{fmt_ratio(*p3) if p3 else '–'} |")
        bars.append((f"{g} late/sentinel", r_ls, None, "late"))
        bars.append((f"{g} late/floor", r_lf, None, "late"))
        bars.append((f"{g} passed late/sent.", r_pp, None, "late"))
        if p1:
            bars.append((f"{g} late/sentinel pyperf", p1[0], p1[1], "pyperf"))

    # ---- parity
    t2 = ["| micro | baseline | patched | patched/baseline | pyperf patched/baseline |",
          "|---|---:|---:|---:|---:|"]
    par_ratio: dict[str, float] = {}
    for m in suites["parity"]:
        name = m["name"]
        b, p = par_b.get(name, {}).get("per_iter"), par_p.get(name, {}).get("per_iter")
        if b is None or p is None:
            continue
        par_ratio[name] = p / b
        pyr = None
        if pp.get("patched", {}).get(name) and pp.get("baseline", {}).get(name):
            pyr = ratio_spread(pp["patched"][name], pp["baseline"][name])
        t2.append(f"| {name} | {b:,.1f} | {p:,.1f} | {p / b:.4f} | "
                  f"{fmt_ratio(*pyr) if pyr else '–'} |")
        if m["group"] != "loop":
            bars.append((f"{name} patched/base", p / b, None, "parity"))
            if pyr:
                bars.append((f"{name} pyperf", pyr[0], pyr[1], "pyperf"))

    # ---- targets
    tg: list[Target] = []
    ppcg = res.get("pyperformance_callgrind")
    if ppcg:
        rows = ppcg["rows"]
        worst = max(rows, key=lambda n: rows[n]["ratio"])
        tg.append(Target("pyperformance subset geomean patched/baseline within 1% "
                         "(callgrind, instructions per loop)",
                         f"geomean {ppcg['geomean']:.4f} (worst {worst} "
                         f"{rows[worst]['ratio']:.4f})", verdict(ppcg["geomean"] <= 1.01)))
    else:
        tg.append(Target("pyperformance subset geomean patched/baseline within 1% "
                         "(callgrind)", "–", "SKIP", why_of(parts, "pyperformance (callgrind)")))
    ppf = res.get("pyperformance")
    if ppf:
        tg.append(Target(f"pyperformance ({ppf['which']}) geomean patched/baseline "
                         "(wall clock)", f"{ppf['geomean']:.4f}", "INFO",
                         "not judged: on a shared machine two runs of one binary differ by "
                         "more than 1%; see compare_to below"))
    else:
        tg.append(Target("pyperformance geomean patched/baseline within 1% (wall clock)", "–",
                         "SKIP", why_of(parts, "pyperformance")))

    def group_target(what: str, names: list[str], limit: float) -> None:
        rs = {n: par_ratio[n] for n in names if n in par_ratio}
        if not rs:
            tg.append(Target(what, "–", "SKIP", "no parity callgrind data"))
            return
        gm = geomean(rs.values())
        worst = max(rs, key=rs.__getitem__)
        tg.append(Target(what, f"geomean {gm:.4f} (worst {worst} {rs[worst]:.4f})",
                         verdict(gm <= limit)))

    calls = [m["name"] for m in suites["parity"] if m["role"] == "call"]
    group_target("callgrind, calls without late defaults, patched/baseline within 0.5%",
                 calls, 1.005)
    group_target("callgrind, compile() of large stdlib modules within 1%",
                 [m["name"] for m in suites["parity"] if m["role"] == "compile"], 1.01)
    group_target("callgrind, function creation (MAKE_FUNCTION) within 1%",
                 [m["name"] for m in suites["parity"] if m["role"] == "make"], 1.01)
    if late_ratios:
        def lr(key: str) -> str:
            return ", ".join(f"{g} {r[key]:.3f}" for g, r in late_ratios.items())
        ls = [r["ls"] for r in late_ratios.values()]
        tg.append(Target("late default omitted <= sentinel idiom (callgrind, every shape)",
                         f"geomean {geomean(ls):.4f}; {lr('ls')}", verdict(max(ls) <= 1.0),
                         "aim: clearly cheaper"))
        pp_ = [r["pp"] for r in late_ratios.values()]
        tg.append(Target("late default passed <= sentinel passed (callgrind, every shape)",
                         f"geomean {geomean(pp_):.4f}; {lr('pp')}", verdict(max(pp_) <= 1.0)))
        lf = [r["lf_net"] for r in late_ratios.values()]
        tg.append(Target("late default omitted within 5% of the floor (callgrind, net of the "
                         "loop, every shape)",
                         f"geomean {geomean(lf):.4f}; {lr('lf_net')} (gross geomean "
                         f"{geomean(r['lf'] for r in late_ratios.values()):.4f})",
                         verdict(max(lf) <= 1.05),
                         "see the PEP's performance section: the prologue's test and jump"))
    else:
        for what in ("late default omitted <= sentinel idiom", "late default passed <= "
                     "sentinel passed", "late default omitted within 5% of the floor"):
            tg.append(Target(what, "–", "SKIP", "no callgrind data for suite late"))
    so = res.get("sizeof", {})
    if "patched" in so and "baseline" in so:
        d = so["patched"]["function"] - so["baseline"]["function"]
        tg.append(Target("sys.getsizeof(function without late defaults): unchanged or +1 "
                         "pointer", f"baseline {so['baseline']['function']}, patched "
                         f"{so['patched']['function']} ({d:+d} bytes)",
                         verdict(d in (0, so["patched"]["pointer"]))))
    else:
        tg.append(Target("sys.getsizeof(function without late defaults)",
                         str(so.get("patched", "–")), "SKIP", "baseline missing"))
    t3 = ["| target | measured | verdict | note |", "|---|---|---|---|"]
    t3 += [f"| {t.what} | {t.measured} | **{t.verdict}** | {t.note} |" for t in tg]

    # ---- assemble
    load = " / ".join(f"{x:.2f}" for x in run["loadavg"]) if run["loadavg"] else "?"
    md += [f"# pep671 benchmarks ({run['mode']} mode)", "",
           f"{run['finished']}, {run['node']}, {run['machine']}, {run['cpus']} CPUs, load "
           f"average {load} at the end, run took {run['elapsed'] / 60:.1f} min.",
           "Interpreters: " + ", ".join(f"{tag} `{exe}`"
                                        for tag, exe in run["interpreters"].items()) + ".", "",
           "Primary evidence: callgrind instruction counts (Ir) of the timing loop alone, per "
           "iteration (one call per iteration), PYTHONHASHSEED=0; repeatable to a few "
           "instructions per 10^5 iterations. Secondary: pyperf wall-clock ratios, mean ± "
           "1 sigma (relative stdevs in quadrature); this machine is shared and noisy.", "",
           "## Targets", "", *t3, "",
           "## Late-bound defaults vs the sentinel idiom vs the floor (patched interpreter)", "",
           f"Instructions per iteration (callgrind, {late.get('pos.floor', {}).get('loops', '?')}"
           f" iterations; the empty timing loop costs {loop:.1f} of them)." if loop else "",
           "'floor' computes the value unconditionally in the body; net of loop = the loop "
           "overhead subtracted from both.", "", *t1, "",
           "## Patched vs baseline, identical source without `=>`", "",
           "Instructions per iteration (callgrind); compile micros: per compile() call.", "",
           *t2, ""]
    if res.get("callgrind_subtract"):
        md += ["## Cross-check: whole-process callgrind, N minus 0 iterations", "",
               "| suite/interp | micro | per iteration (toggle) | per iteration (subtract) | "
               "difference |", "|---|---|---:|---:|---:|"]
        for key, d in sorted(res["callgrind_subtract"].items()):
            for name, r in sorted(d.items()):
                t = cg.get(key, {}).get(name, {}).get("per_iter")
                if t:
                    md.append(f"| {key} | {name} | {t:.2f} | {r['per_iter']:.2f} | "
                              f"{(r['per_iter'] - t) / t:+.4%} |")
        md.append("")
    if res.get("pyperf_parity_compare_to"):
        md += ["## pyperf compare_to (micro parity suite, baseline -> patched)", "", "```",
               res["pyperf_parity_compare_to"].rstrip(), "```", ""]
    if ppcg:
        md += ["## pyperformance subset, instructions per loop (callgrind)", "",
               "Each benchmark task run as a pyperf worker with L and 2L loops on both "
               "interpreters; instructions per loop = (count(2L) - count(L)) / L, so startup, "
               "imports and warm-up cancel out.", "",
               "| benchmark | loops L | baseline | patched | patched/baseline |",
               "|---|---:|---:|---:|---:|"]
        for name, r in sorted(ppcg["rows"].items()):
            bars.append((f"{name} (pyperformance)", r["ratio"], None, "parity"))
            md.append(f"| {name} | {r['loops']} | {r['baseline']:,.0f} | {r['patched']:,.0f} | "
                      f"{r['ratio']:.4f} |")
        md += ["", f"Geometric mean: {ppcg['geomean']:.4f}", ""]
    if ppf:
        md += [f"## pyperformance ({ppf['which']}), baseline -> patched", "", "```",
               ppf["compare_to"].rstrip(), "```", "",
               f"Geometric mean of patched/baseline mean ratios: {ppf['geomean']:.4f}", ""]
    if so:
        md += ["## sys.getsizeof", "", "| interpreter | def f(a, b=1, *, c=2) | lambda: 0 | "
               "pointer |", "|---|---:|---:|---:|"]
        md += [f"| {t} | {v['function']} | {v['lambda']} | {v['pointer']} |"
               for t, v in so.items()]
        md.append("")
    md += ["## Parts", "", "| part | status | why |", "|---|---|---|"]
    for p in parts.values():
        why = p["why"].splitlines()[0] if p["why"] else ""
        md.append(f"| {p['name']} | {p['status']} | {why} |")
    md += ["", "Details of failed or skipped parts:", ""]
    for p in parts.values():
        if p["status"] != "ok" and p["why"]:
            md += [f"### {p['name']}: {p['status']}", "", "```", p["why"].rstrip(), "```", ""]
    md += ["Raw data: `results.json`; logs: `logs/`; chart: `report.png`.", ""]
    term = "\n".join(["## Targets", *t3, "", "## Late-bound vs sentinel vs floor "
                      "(callgrind Ir per iteration)", *t1, "", "## Patched vs baseline", *t2])
    return "\n".join(md), term, bars


def draw_chart(bars: list[Bar], png: Path, mode: str) -> None:
    """A horizontal bar per ratio, a red line at 1.0, pyperf bars with their spread."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if not bars:
        bars = [("no data", 0.0, None, "other")]
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(bars) + 1.6))
    ys = list(range(len(bars)))[::-1]
    ax.barh(ys, [b[1] for b in bars], xerr=[b[2] or 0 for b in bars],
            color=[COLORS.get(b[3], COLORS["other"]) for b in bars],
            error_kw={"elinewidth": 0.8, "capsize": 2})
    ax.set_yticks(ys, [b[0] for b in bars], fontsize=7)
    ax.axvline(1.0, color="#c81e1e", linewidth=1.2)
    for y, b in zip(ys, bars):
        ax.text(b[1] + (b[2] or 0) + 0.01, y, f"{b[1]:.3f}", va="center", fontsize=6)
    ax.set_xlabel("ratio (red line: 1.0)")
    ax.set_title(f"pep671 {mode} benchmarks: ratios (1.0 = equal)", fontsize=10)
    ax.legend(handles=[Patch(color=COLORS["late"], label="callgrind, late defaults (patched)"),
                       Patch(color=COLORS["parity"], label="callgrind, patched / baseline"),
                       Patch(color=COLORS["pyperf"],
                             label="pyperf (bar: mean ratio, line: spread)")],
              fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=3)
    ax.set_xlim(left=max(0.0, min(0.8, min(b[1] - (b[2] or 0) for b in bars) - 0.1)))
    fig.text(0.01, 0.005, "callgrind Ir ratios per iteration; pyperf bars with 1-sigma spread",
             fontsize=6, color="#555555")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", type=Path, nargs="?",
                    default=BENCH_OUT / "results.json",
                    help=f"the results of a run (default: {shown(BENCH_OUT / 'results.json')})")
    args = ap.parse_args(argv)
    if not args.results.is_file():
        print(f"error: {args.results} does not exist: measure first (`make bench-quick` or "
              "`make bench`)", file=sys.stderr)
        return 2
    res = json.loads(args.results.read_text())
    md, term, bars = build_report(res)
    out = args.results.parent
    (out / "report.md").write_text(md)
    draw_chart(bars, out / "report.png", res["run"]["mode"])
    print(term)
    print()
    for p in res["parts"].values():
        if p["status"] != "ok":
            print(f"{p['status']}: {p['name']}: {p['why'].splitlines()[0] if p['why'] else ''}")
    print(f"report: {out / 'report.md'}; chart: {out / 'report.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
