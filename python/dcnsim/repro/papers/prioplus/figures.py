"""PrioPlus: the figures (FCT against N, normalised FCTs, FCT gaps, utilisation, the
motivation runs' throughput, training and coflow speedups)."""

from __future__ import annotations

import math
from pathlib import Path

from dcnsim.repro.figures import grouped_bars, png
from dcnsim.repro.papers.prioplus.checks import (
    F13_PAPER,
    flow_groups,
    f10d_table,
    f11_stats,
    f12ab_speedups,
    f12c_speedups,
    f13_gaps,
    f14_cells,
    level_of,
    t1_transitions,
    T1_LINE_B_PER_US,
)
from dcnsim.repro.papers.prioplus.metrics import (
    BUCKETS_F14,
    GROUPS_F14,
    level_rates,
    value_at,
)
from dcnsim.repro.papers.prioplus.runs import (
    F12AB_PAPER_DIFF,
    F12C_A,
    F12C_P,
    F12C_PAPER,
    PHYS,
    PHYS_STAR,
    PP,
    T1_SWIFT,
    Grid,
)


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    g = grids.get("F11")
    if g:
        st = f11_stats(g)
        with png(out / "fig11_fct_vs_n.png", written, (12, 3.4), ncols=4) as (fig, axes):
            for ax, b in zip(axes, ("all", "small", "middle", "large")):
                for v in g.variants:
                    pts = [(int(p.split("=")[1]), st[(p, v)][b][1]) for p in g.points if (p, v) in st]
                    if len(pts) > 1:
                        ax.plot(*zip(*pts), marker="o", label=v)
                    elif pts:
                        ax.plot(*zip(*pts), marker="x", linestyle="", label=v)
                ax.set_title(f"{b}: avg FCT", fontsize=9)
                ax.set_xlabel("priorities N")
                ax.grid(alpha=0.3)
            axes[0].set_ylabel("FCT [µs]")
            axes[0].legend(fontsize=7)
    g = grids.get("F14")
    if g and PHYS_STAR in g.variants:
        c = f14_cells(g)
        cols = [(b, gname) for gname, _ in GROUPS_F14 for b, _, _ in BUCKETS_F14]
        with png(out / "fig14_normalised_fct.png", written, (10, 3.6)) as (fig, ax):
            grouped_bars(ax, [(v, [c[v][k][1] / c[PHYS_STAR][k][1] if c[PHYS_STAR][k][1] else math.nan for k in cols])
                              for v in g.variants if v != PHYS_STAR])
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(cols)))
            ax.set_xticklabels([f"{b}\n{gname}" for b, gname in cols], fontsize=7)
            ax.set_ylabel("avg FCT / Physical*+Swift")
            ax.set_yscale("log")
            ax.legend(fontsize=8)
    g = grids.get("F13")
    if g:
        gaps = f13_gaps(g)
        with png(out / "fig13_fct_gap.png", written, (6.4, 4.0)) as (fig, ax):
            for b, pts in sorted(gaps.items()):
                ax.plot([x for x, _ in pts], [min(y, 10.0) for _, y in pts], marker="o", label=f"B = {b} µs")
                if b in F13_PAPER:
                    ax.axvline(F13_PAPER[b], linestyle=":", color="grey")
            ax.axhline(0.5, color="red", linestyle="--", linewidth=0.8)
            ax.set_xlabel("non-congestive delay range R [µs]")
            ax.set_ylabel("normalised FCT gap (capped at 10)")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
    g = grids.get("F10D")
    if g:
        tab = f10d_table(g)
        with png(out / "fig10d_utilisation.png", written, (6.4, 4.0)) as (fig, ax):
            for s, util in sorted(tab.items()):
                ax.plot([x for x, _, _ in util], [u * 100 for _, u, _ in util], marker="o", label=f"noise x{s}")
            ax.axhline(98, color="red", linestyle="--", linewidth=0.8)
            ax.set_xlabel("channel spacing [µs] (limit gap = spacing − 1.6 µs)")
            ax.set_ylabel("utilisation [%]")
            ax.set_ylim(50, 101)
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
    sp = f12c_speedups(grids.get("F12C"))
    if sp:
        kinds = ("ResNet", "VGG", "total")
        with png(out / "fig12c_training_speedup.png", written, (6.4, 3.6)) as (fig, ax):
            series = [(f"{v} (paper)", list(F12C_PAPER[v])) for v in (PP, PHYS)]
            series += [(f"{v} (ours, {F12C_A})", [sp[v][k]["primary"] for k in kinds]) for v in (PP, PHYS) if v in sp]
            sp_p = f12c_speedups(grids.get("F12C"), F12C_P)
            series += [(f"{v} (ours, {F12C_P})", [sp_p[v][k]["primary"] for k in kinds]) for v in (PP, PHYS)
                       if v in sp_p]
            grouped_bars(ax, series)
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(kinds)))
            ax.set_xticklabels(kinds)
            ax.set_ylabel("iterations / Swift (no priorities)")
            ax.set_ylim(0, 1.75)  # the legend above the bars
            ax.legend(fontsize=7, loc="upper center", ncol=2)
    g = grids.get("F12AB")
    if g and f12ab_speedups(g, g.points[0]):
        with png(out / "fig12ab_coflow_speedup.png", written, (4.2 * len(g.points), 3.6), ncols=len(g.points),
                 squeeze=False) as (fig, axes):
            for ax, point in zip(axes[0], g.points):
                sp = f12ab_speedups(g, point)
                kinds = ("high", "low", "overall")  # overall: every coflow pooled, the paper's "all"
                series = [(f"{v} (ours)", [sp[v]["means"][k] for k in kinds]) for v in (PP, PHYS) if v in sp]
                grouped_bars(ax, series)
                ax.axhline(1.0, color="grey", linestyle=":")
                ax.set_xticks(range(len(kinds)))
                ax.set_xticklabels(["high 4", "low 4", "overall"])
                ax.set_title(f"{point} load (paper: PrioPlus − Physical overall "
                             f"{F12AB_PAPER_DIFF.get(point, F12AB_PAPER_DIFF['70%'])[2]:+.2f})", fontsize=8)
                ax.set_ylabel("CCT speedup vs Swift (no priorities)")
                ax.legend(fontsize=7)
    g = grids.get("T1")
    t1 = [(v, g.one(g.points[0], v)) for v in (PP, T1_SWIFT) if g and g.points and v in g.variants]
    t1 = [(v, r) for v, r in t1 if r is not None and not r.error]
    if t1:
        # Fig. 8: throughput per priority over time, PrioPlus above Swift, 100 µs bins.
        with png(out / "fig8_staircase_throughput.png", written, (7.0, 2.6 * len(t1)), nrows=len(t1),
                 squeeze=False) as (fig, axes):
            for ax, (v, r) in zip(axes[:, 0], t1):
                f = r.flows
                levels = [level_of(str(t)) for t in f.get("tag", [])]
                end = max(float(x) for x in f.get("finish_us", [0.0]) if x is not None and math.isfinite(float(x)))
                centres, rates = level_rates(r.delivered(), levels, 0.0, end, 100.0)
                for p, rs in rates.items():
                    ax.plot([c / 1000 for c in centres], [x * 8 / 1000 for x in rs], label=f"priority {p}",
                            linewidth=0.9)
                for kind, _, t, x in t1_transitions(r):
                    if math.isfinite(x):
                        ax.axvspan(t / 1000, (t + x) / 1000, color="red" if kind == "yield" else "green", alpha=0.12)
                ax.axhline(T1_LINE_B_PER_US * 8 / 1000, color="grey", linestyle=":", linewidth=0.8)
                ax.set_title(f"{v} (shaded: time to yield red, to refill green)", fontsize=8)
                ax.set_ylabel("goodput [Gbps]")
                ax.grid(alpha=0.3)
                ax.legend(fontsize=6, ncol=4, loc="lower center")
            axes[-1, 0].set_xlabel("time [ms]")
    micro = [k for k in ("M1", "M2", "M4") if k in grids]
    if micro:
        with png(out / "motivation_throughput.png", written, (4.2 * len(micro), 3.4), ncols=len(micro),
                 squeeze=False) as (fig, axes):
            for ax, k in zip(axes[0], micro):
                gk = grids[k]
                for v in gk.variants:
                    r = gk.one(gk.points[0], v)
                    if r is None:
                        continue
                    d = r.delivered()
                    for tag, idx in flow_groups(r).items():
                        times = sorted({t for i in idx for t, _ in d.get(i, [])})
                        if len(times) < 3:
                            continue
                        tot = [sum(value_at(d.get(i, []), t) for i in idx) for t in times]
                        rate = [(tot[j] - tot[j - 1]) * 8 / ((times[j] - times[j - 1]) * 1e3)
                                for j in range(1, len(times))]
                        ax.plot([t / 1000 for t in times[1:]], rate, label=f"{v}: {tag}", linewidth=0.9)
                ax.set_title(gk.exp.title, fontsize=8)
                ax.set_xlabel("time [ms]")
                ax.set_ylabel("goodput [Gbps]")
                ax.legend(fontsize=6)
                ax.grid(alpha=0.3)
    return written
