"""LAPS: the figures (FCT against load per fabric, workload and load definition; small- and
large-flow FCT against load on the rail; the incast table; the reordering bars and the
OOO-buffer CDF and histogram)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from dcnsim.repro.checks import finite
from dcnsim.repro.figures import grouped_bars, png
from dcnsim.repro.papers.laps.checks import e5_point
from dcnsim.repro.papers.laps.runs import (
    A2A,
    E5_ABLATIONS,
    E5_SCHEMES,
    EXPERIMENTS,
    LOSS,
    Grid,
    RunResult,
    avg_fct_ms,
    p99_fct_ms,
    ooo_cdf,
    ooo_histogram,
)

FIG_NAMES = {"E1": "fig5_rail_dm.png", "E1H": "fig5h_rail100g_dm.png", "E2": "fig6_rail_str.png",
             "E2H": "fig6h_rail100g_str.png", "E3": "fig7_dragonfly_rpc.png", "E4": "fig8_dragonfly_hdp.png",
             "E2A": "fig6a_rail_str_artefact_load.png", "E3A": "fig7a_dragonfly_rpc_artefact_load.png",
             "E4A": "fig8a_dragonfly_hdp_artefact_load.png"}
# Small- and large-flow avg FCT against load (dcnsim's buckets: < 100 KB, >= 10 MB).
SIZE_FIGS = {"E1": "fig5_rail_dm_by_size.png", "E1H": "fig5h_rail100g_dm_by_size.png",
             "E2": "fig6_rail_str_by_size.png", "E2H": "fig6h_rail100g_str_by_size.png"}


def _against_load(path: Path, written: list[Path], g: Grid,
                  panels: list[tuple[Callable[[RunResult], float], str]]) -> None:
    """One panel per (metric, title): each scheme's median against load, log y."""
    with png(path, written, (10, 3.6), ncols=len(panels)) as (fig, axes):
        for ax, (metric, title) in zip(axes, panels):
            for s in g.schemes:
                pts = [(x, v) for x, v in g.by_load(s, metric).items() if finite(v)]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=s)
            ax.set_title(title, fontsize=8)
            ax.set_xlabel("load")
            ax.set_ylabel("ms")
            ax.set_yscale("log")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=7)


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key in A2A:
        g = grids.get(key)
        if g is None or not g.loads():
            continue
        panels = ((avg_fct_ms, "avg FCT"), (p99_fct_ms, "P99 FCT"))
        _against_load(out / FIG_NAMES[key], written, g,
                      [(m, f"{key} ({EXPERIMENTS[key].paper}): {EXPERIMENTS[key].title}\n{name}") for m, name in panels])
    for key, name in SIZE_FIGS.items():
        g = grids.get(key)
        if g is None or not g.loads():
            continue
        buckets = (("small", "small flows (< 100 KB)"), ("large", "large flows (>= 10 MB)"))
        _against_load(out / name, written, g,
                      [(lambda r, b=bucket: r.bucket_avg_ms(b), f"{key} ({EXPERIMENTS[key].paper}): avg FCT of {what}")
                       for bucket, what in buckets])
    g = grids.get("E5")
    if g is not None:
        schemes = [s for s in (*E5_SCHEMES, *E5_ABLATIONS) if s in g.schemes]
        with png(out / "table1_allreduce.png", written, (8, 3.6)) as (fig, ax):
            series = [(f"{m} drop {x:g}", [g.med(e5_point(x), s, f) for s in schemes])
                      for x in (0.0, LOSS) for m, f in (("avg", avg_fct_ms), ("P99", p99_fct_ms))]
            grouped_bars(ax, series)
            ax.set_xticks(range(len(schemes)))
            ax.set_xticklabels(schemes, fontsize=6, rotation=20)
            ax.set_ylabel("FCT [ms]")
            ax.set_title("E5 (Table 1): AllReduce 63 -> 1", fontsize=9)
            ax.legend(fontsize=7)
    g = grids.get("E6")
    if g is not None:
        with png(out / "fig9_reordering.png", written, (10, 3.6), ncols=2) as (fig, axes):
            for ax, (metric, name) in zip(axes, ((lambda r: r.reordered_ratio() * 100, "reordered packets [%]"),
                                                 (lambda r: r.stat("ooo_buffer_mean_kb"), "mean OOO buffer [KB]"))):
                series = [(p, [g.med(p, s, metric) for s in g.schemes]) for p in g.points]
                grouped_bars(ax, series)
                ax.set_xticks(range(len(g.schemes)))
                ax.set_xticklabels(g.schemes, fontsize=6, rotation=20)
                ax.set_ylabel(name)
                ax.set_yscale("symlog", linthresh=0.01)
                ax.legend(fontsize=7)
            axes[0].set_title("E6 (Fig. 9): LAPS reordering", fontsize=8)
        curves = [(p, s, ooo_cdf(g.runs(p, s))) for p in g.points for s in g.schemes]
        curves = [(p, s, c) for p, s, c in curves if c[0]]
        if curves:
            with png(out / "fig9_ooo_cdf.png", written, (6, 3.6)) as (fig, ax):
                for p, s, (xs, ys) in curves:
                    ax.step(xs, ys, where="post", label=f"{p}: {s}")
                ax.axvline(30, color="grey", linestyle=":", linewidth=1)
                ax.set_xscale("symlog", linthresh=1)
                ax.set_xlabel("receiver out-of-order buffer [KB] (samples at data arrivals, seeds pooled)")
                ax.set_ylabel("CDF")
                ax.set_title("E6 (Fig. 9): LAPS reorder buffer; paper: P(> 30 KB) < 4 % in AllReduce", fontsize=8)
                ax.grid(alpha=0.3)
                ax.legend(fontsize=6)
            with png(out / "fig9_ooo_histogram.png", written, (10, 3.6), ncols=2) as (fig, axes):
                for ax, pattern in zip(axes, ("allscatter", "allreduce")):
                    for s in g.schemes:
                        xs, ys = ooo_histogram(g.runs(pattern, s))
                        if xs:
                            ax.bar(xs, ys, width=1.0, alpha=0.5, label=s, align="edge")
                    ax.axvline(30, color="grey", linestyle=":", linewidth=1)
                    ax.set_yscale("log")
                    ax.set_xlabel("receiver out-of-order buffer [KB bucket]")
                    ax.set_ylabel("fraction of samples")
                    ax.set_title(f"E6 (Fig. 9): {'AllScatter' if pattern == 'allscatter' else 'AllReduce'}",
                                 fontsize=8)
                    ax.grid(alpha=0.3)
                    ax.legend(fontsize=6)
    return written
