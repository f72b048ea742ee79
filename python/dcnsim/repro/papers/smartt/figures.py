"""SMaRTT: the figures (FCT CDFs, Case 2 windows, incast relative performance,
all-to-all completion)."""

from __future__ import annotations

import math
from pathlib import Path

from dcnsim.repro.figures import cdf, grouped_bars, png
from dcnsim.repro.papers.smartt.checks import _incast_size
from dcnsim.repro.papers.smartt.runs import Grid, size_label
from dcnsim.repro.stats import mean_sem


def pooled_fcts(g: Grid, variant: str) -> list[float]:
    vals: list[float] = []
    for r in g.results:
        f = r.record.get("flows")
        if r.cell.variant != variant or not f:
            continue
        vals += [float(x) for x, done in zip(f["fct_us"], f["finished"]) if done and x is not None]
    return vals


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key in ("E1", "E14"):
        g = grids.get(key)
        if not g:
            continue
        with png(out / f"{key.lower()}_fct_cdf.png", written, (6.4, 4.2)) as (fig, ax):
            for v in g.variants:
                cdf(ax, pooled_fcts(g, v), v)
            ideal = mean_sem([r.cell.ideal_us for r in g.results])[0]
            ax.axvline(ideal, color="grey", linestyle=":", label="ideal" if key == "E1" else "ideal (64 MiB)")
            ax.set_xlabel("FCT [µs]")
            ax.set_ylabel("CDF of flows")
            ax.set_title(f"{key}: {g.exp.title}", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    g = grids.get("E11")
    if g:
        with png(out / "e11_case2.png", written, (6.4, 4.0)) as (fig, ax):
            p = g.points[0]
            grouped_bars(ax, [(label, [g.mean(p, v, m) for v in g.variants])
                              for m, label in (("max_fct_us", "max FCT"), ("mean_fct_us", "mean FCT"))])
            ax.set_xticks(list(range(len(g.variants))))
            ax.set_xticklabels(g.variants)
            ax.set_ylabel("FCT [µs]")
            ax.set_title(f"E11: {g.exp.title}", fontsize=9)
            ax.legend(fontsize=8)
    g = grids.get("E12")
    if g:
        senders = sorted({int(p.split("x")[0]) for p in g.points})
        sizes = sorted({_incast_size(p) for p in g.points})
        with png(out / "e12_relperf.png", written, (3.2 * len(g.variants) + 1, 3.4), ncols=len(g.variants),
                 squeeze=False) as (fig, axes):
            axes = axes[0]
            image = None
            for ax, v in zip(axes, g.variants):
                grid = [[g.mean(f"{n}x{size_label(s)}", v, "rel_perf") for s in sizes] for n in senders]
                grid = [[x if math.isfinite(x) else float("nan") for x in row] for row in grid]
                image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
                for i, row in enumerate(grid):
                    for j, x in enumerate(row):
                        ax.text(j, i, "-" if math.isnan(x) else f"{x:.2f}", ha="center", va="center", fontsize=7,
                                color="white" if not math.isnan(x) and x < 0.6 else "black")
                ax.set_xticks(range(len(sizes)))
                ax.set_xticklabels([size_label(s) for s in sizes], rotation=45, fontsize=7)
                ax.set_yticks(range(len(senders)))
                ax.set_yticklabels([str(n) for n in senders])
                ax.set_title(v, fontsize=9)
            axes[0].set_ylabel("senders N")
            if image is not None:
                fig.colorbar(image, ax=list(axes), label="ideal / actual")
    g = grids.get("E15")
    if g:
        with png(out / "e15_alltoall.png", written, (max(6.4, 1.0 * len(g.points) + 2), 4.0)) as (fig, ax):
            grouped_bars(ax, [(v, [g.mean(p, v, "completion_us") / g.mean(p, v, "ideal_us") for p in g.points])
                              for v in g.variants])
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(g.points)))
            ax.set_xticklabels(g.points, rotation=30, fontsize=8)
            ax.set_ylabel("completion / ideal")
            ax.set_title(f"E15: {g.exp.title}", fontsize=9)
            ax.legend(fontsize=8)
    return written
