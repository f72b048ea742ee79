"""SMaRTT: the figures (FCT CDFs, Case 2 windows, incast relative performance,
all-to-all completion; window and queue traces of the incasts and of E6, load balancers,
oversubscription and adjustment bars)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim.repro.figures import cdf, grouped_bars, png
from dcnsim.repro.papers.smartt.checks import _incast_size
from dcnsim.repro.papers.smartt.runs import Fabric, Grid, ideal_cwnd_bytes, size_label
from dcnsim.repro.stats import mean_sem


def pooled_fcts(g: Grid, variant: str) -> list[float]:
    vals: list[float] = []
    for r in g.results:
        f = r.record.get("flows")
        if r.cell.variant != variant or not f:
            continue
        vals += [float(x) for x, done in zip(f["fct_us"], f["finished"]) if done and x is not None]
    return vals


def fct_cdf_plot(out: Path, written: list[Path], key: str, g: Grid, ideal_label: str, title_size: int) -> None:
    """One experiment's FCT CDF per variant, pooled over seeds, with its mean ideal FCT."""
    with png(out / f"{key.lower()}_fct_cdf.png", written, (6.4, 4.2)) as (fig, ax):
        for v in g.variants:
            cdf(ax, pooled_fcts(g, v), v)
        ideal = mean_sem([r.cell.ideal_us for r in g.results])[0]
        ax.axvline(ideal, color="grey", linestyle=":", label=ideal_label)
        ax.set_xlabel("FCT [µs]")
        ax.set_ylabel("CDF of flows")
        ax.set_title(f"{key}: {g.exp.title}", fontsize=title_size)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key in ("E1", "E14"):
        g = grids.get(key)
        if g:
            fct_cdf_plot(out, written, key, g, "ideal" if key == "E1" else "ideal (64 MiB)", 9)
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
    written += write_new_plots(out, grids)
    return written


def _first_run(g: Grid, variant: str, point: Optional[str] = None) -> Optional[Any]:
    """The lowest seed's run of a variant (at ``point``, default the first) that has a record."""
    runs = [r for r in g.runs(point or g.points[0], variant) if not r.error]
    return min(runs, key=lambda r: r.cell.seed) if runs else None


def _bars(out: Path, written: list[Path], g: Grid, metrics: Sequence[tuple[str, str]], ylabel: str,
          name: str) -> None:
    """Grouped bars of ``metrics`` per variant, at the experiment's first point."""
    with png(out / name, written, (6.4, 4.0)) as (fig, ax):
        p = g.points[0]
        grouped_bars(ax, [(label, [g.mean(p, v, m) for v in g.variants]) for m, label in metrics])
        ax.set_xticks(list(range(len(g.variants))))
        ax.set_xticklabels(g.variants, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{g.exp.key}: {g.exp.title}", fontsize=8)
        ax.legend(fontsize=8)


def _traces(out: Path, written: list[Path], g: Grid, name: str, ideal: Optional[float],
            ylabel: str = "cwnd [KB]") -> None:
    """One panel per variant: the kept window traces (flow 0 and the last to finish; seed
    1, first point), with the ideal window dotted."""
    n = len(g.variants)
    with png(out / name, written, (3.4 * n + 0.6, 3.2), ncols=n, squeeze=False, sharey=True) as (fig, axes):
        for ax, v in zip(axes[0], g.variants):
            r = _first_run(g, v)
            for k, i in enumerate(r.extra.get("trace_flows", []) if r is not None else []):
                ax.plot(r.extra[f"trace_t{k}"], [w / 1e3 for w in r.extra[f"trace_w{k}"]], lw=0.8, label=f"flow {i}")
            if ideal is not None:
                ax.axhline(ideal / 1e3, color="grey", linestyle=":", label="ideal")
            ax.set_title(v, fontsize=9)
            ax.set_xlabel("time [µs]")
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel(ylabel)
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"{g.exp.key}: {g.exp.title}", fontsize=8)


def write_new_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    """The figures of E3, E5, E6, E8, E9, E10, E11b, E13, E16 and E17."""
    written: list[Path] = []
    g = grids.get("E3")
    if g:
        _bars(out, written, g, (("max_fct_us", "max FCT"), ("mean_fct_us", "mean FCT")), "FCT [µs]", "e3_lb.png")
    for key, name in (("E5", "e5_cwnd.png"), ("E9", "e9_cwnd.png"), ("E6", "e6_cwnd.png"), ("E10", "e10_cwnd.png")):
        g = grids.get(key)
        if not g:
            continue
        ideal = None
        if key in ("E5", "E9"):
            spec = g.results[0].cell.spec
            ideal = ideal_cwnd_bytes(int(spec["workload"][0]["senders"]), Fabric.of(spec))
        _traces(out, written, g, name, ideal)
    g = grids.get("E8")
    if g:
        with png(out / "e8_queue.png", written, (6.4, 4.0)) as (fig, ax):
            for v in g.variants:
                r = _first_run(g, v)
                if r is not None and "trace_tq" in r.extra:
                    ax.plot(r.extra["trace_tq"], [q / 1e3 for q in r.extra["trace_q"]], lw=0.8, label=v)
            ax.set_xlabel("time [µs]")
            ax.set_ylabel("receiver downlink queue [KB]")
            ax.set_title(f"E8: {g.exp.title} ({g.points[0]})", fontsize=8)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    g = grids.get("E11b")
    if g:
        _bars(out, written, g, (("max_fct_us", "max FCT"), ("mean_fct_us", "mean FCT")), "FCT [µs]",
              "e11b_case2.png")
    g = grids.get("E13")
    if g:
        with png(out / "e13_oversubscription.png", written, (max(6.4, 1.2 * len(g.points) + 2), 4.0)) as (fig, ax):
            grouped_bars(ax, [(v, [g.mean(p, v, "max_fct_us") / g.mean(p, v, "ideal_us") for p in g.points])
                              for v in g.variants])
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(g.points)))
            ax.set_xticklabels(g.points, fontsize=8)
            ax.set_ylabel("max FCT / ideal")
            ax.set_title(f"E13: {g.exp.title}", fontsize=9)
            ax.legend(fontsize=8)
    g = grids.get("E16")
    if g:
        fct_cdf_plot(out, written, "E16", g, "ideal (64 MiB)", 8)
    g = grids.get("E17")
    if g:
        with png(out / "e17_adjustment.png", written, (6.4, 4.0)) as (fig, ax):
            base = {p: g.mean(p, "per-packet", "max_fct_us") for p in g.points}
            grouped_bars(ax, [(v, [g.mean(p, v, "max_fct_us") / base[p] for p in g.points]) for v in g.variants])
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(g.points)))
            ax.set_xticklabels(g.points)
            ax.set_ylabel("max FCT / per-packet's")
            ax.set_title(f"E17: {g.exp.title}", fontsize=8)
            ax.legend(fontsize=8)
    return written
