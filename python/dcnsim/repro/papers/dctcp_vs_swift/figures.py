"""DCTCP vs Swift: the figures, ``e<N>.png``: throughput, delay and loss per point, ours
beside the study's."""

from __future__ import annotations

from pathlib import Path

from dcnsim.repro.figures import png
from dcnsim.repro.papers.dctcp_vs_swift.runs import STUDY_EXACT, VARIANT, Grid, study_value
from dcnsim.repro.papers.dctcp_vs_swift.tables import METRIC_TITLE


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key, g in grids.items():
        with png(out / f"{key.lower()}.png", written, (15, 4.2), tight=True, ncols=3) as (fig, axes):
            numeric = all(p.isdigit() for p in g.points)
            xs = [float(p) if numeric else i for i, p in enumerate(g.points)]
            for ax, metric in zip(axes, ("thr_kbps", "delay_ms", "loss_pct")):
                for v in g.variants:
                    ax.plot(xs, [g.mean(p, v, metric) for p in g.points], marker="o", label=f"{v} (ours)")
                    study = VARIANT[v].study if v in VARIANT else ("study" if key in STUDY_EXACT else None)
                    if study:
                        ax.plot(xs, [study_value(key, p, study, metric) for p in g.points], linestyle="--",
                                marker="x", alpha=0.6, label=f"study {study}")
                ax.set_title(METRIC_TITLE[metric])
                ax.set_xlabel(g.exp.x_name)
                if not numeric:
                    ax.set_xticks(xs)
                    ax.set_xticklabels(g.points)
                if metric == "thr_kbps" and numeric:
                    ax.set_yscale("log")
            axes[0].legend(fontsize=7)
            fig.suptitle(f"{key}: {g.exp.title}")
    return written
