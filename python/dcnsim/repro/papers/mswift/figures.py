"""MSwift: the figures, ``fig<N>.png`` (bars with SEM error bars) and
``fig5_fct_cdf.png``."""

from __future__ import annotations

from pathlib import Path

from dcnsim.repro.figures import cdf, grouped_bars, png
from dcnsim.repro.papers.mswift.runs import (
    LBS,
    LB_LABEL,
    Grid,
    pooled_fcts,
)


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key, g in grids.items():
        fig = g.fig
        avail = g.available_rows()
        if key == "5":
            with png(out / "fig5_fct_cdf.png", written, (13, 3.8), tight=True, ncols=3, sharey=True) as (f, axes):
                for ax, lb in zip(axes, LBS):
                    for row in avail:
                        cdf(ax, pooled_fcts(g, row, lb), row)
                    ax.set_title(f"({'abc'[LBS.index(lb)]}) {LB_LABEL[lb]}")
                    ax.set_xlabel("FCT [µs]")
                    ax.grid(alpha=0.3)
                axes[0].set_ylabel("CDF of sprayed flows")
                axes[0].legend()
                f.suptitle("Fig. 5 — FCT CDFs of the sprayed flows, E1 baseline", fontsize=10)
            continue
        if not avail:
            continue
        with png(out / f"fig{key}.png", written, (7, 3.8), tight=True) as (f, ax):
            stats = [[g.stat(row, lb) for lb in LBS] for row in avail]
            grouped_bars(ax, [(row, [s.mean for s in st]) for row, st in zip(avail, stats)],
                         [[s.sem for s in st] for st in stats])
            ax.set_xticks(range(len(LBS)))
            ax.set_xticklabels([LB_LABEL[lb] for lb in LBS])
            ax.set_ylabel("CCT increase over LB [%]")
            missing = [r.label for r in fig.rows if r.cc is None]
            note = f" ({', '.join(missing)}: not implemented)" if missing else ""
            ax.set_title(f"Fig. {key} — {fig.exp} {fig.title}{note}", fontsize=9)
            ax.legend(fontsize=8)
            ax.grid(axis="y", alpha=0.3)
    return written
