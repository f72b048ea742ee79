"""The plots of a result directory.

Figures are drawn with ``matplotlib.figure.Figure`` directly rather than through pyplot,
so writing results never changes the user's pyplot backend or open figures (it works
headless, and inside a notebook that uses another backend). A plot that has no data is
skipped with a note on stderr, and so is a panel whose values are all zero; empty data
never raises. Ports are named as in ports.parquet; the plots of a run that stopped before
its end say so in their title.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dcnsim._buckets import size_buckets
from dcnsim._scales import PARTIAL_COLOUR, QUEUE_LABEL, partial_mark, port_labels

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from dcnsim._result import Result

_DPI = 120
_MAX_SERIES = 8  # lines per time-series plot: the ports/flows with the largest mean
# A panel's y label where a shared one exists (the report's colour bars use the same).
_LABELS = {"queue_bytes": QUEUE_LABEL}


def write_plots(result: Result, out: Path) -> None:
    """Write every plot that the result has data for into ``out``."""
    for name, fig in figures(result).items():
        _save(fig, out / name)


def figures(result: Result) -> dict[str, Figure]:
    """The plots the result has data for, by file name; a note on stderr for each plot
    or panel left out."""
    made: dict[str, Figure] = {}
    finished = result.flows[result.flows["finished"].astype(bool)]
    if finished.empty:
        _skip("fct_cdf.png", "no flow finished")
        _skip("slowdown_by_size.png", "no flow finished")
    else:
        made["fct_cdf.png"] = _fct_cdf(finished)
        slowdown = _slowdown_by_size(finished)
        if slowdown is not None:
            made["slowdown_by_size.png"] = slowdown
    for kind in ("port", "flow"):
        if (result.timeseries["kind"] == kind).any():
            series = _timeseries(kind, result.timeseries, result.ports)
            if series is not None:
                made[f"timeseries_{kind}.png"] = series
    mark = partial_mark(result.summary)
    if mark is not None:
        for fig in made.values():
            fig.suptitle(mark, color=PARTIAL_COLOUR, fontsize="medium", fontweight="bold")
    return made


def _skip(file: str, why: str) -> None:
    print(f"note: {file} not written: {why}", file=sys.stderr)


def _save(fig: Figure, path: Path) -> None:
    fig.savefig(path, dpi=_DPI)


def _fct_cdf(finished: pd.DataFrame) -> Figure:
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    for tag, group in finished.groupby("tag", sort=False):
        fct = np.sort(group["fct_us"].to_numpy(dtype=float))
        fct = fct[fct > 0]
        if fct.size:
            ax.step(fct, np.arange(1, fct.size + 1) / fct.size, where="post", label=f"{tag} ({fct.size} flows)")
    ax.set_xscale("log")
    ax.set_xlabel("flow completion time (us)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _slowdown_by_size(finished: pd.DataFrame) -> Optional[Figure]:
    flows = finished[(finished["size"] > 0) & np.isfinite(finished["slowdown"].to_numpy(dtype=float))]
    flows = flows[flows["slowdown"] > 0]
    if flows.empty:
        _skip("slowdown_by_size.png", "no finished flow of finite size")
        return None
    centres, _, _, which = size_buckets(flows["size"].to_numpy(dtype=float))

    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    slowdown = flows["slowdown"].to_numpy(dtype=float)
    tags = flows["tag"].to_numpy()
    for tag in pd.unique(tags):
        mine = tags == tag
        used = [b for b in range(centres.size) if np.any(mine & (which == b))]
        x = centres[used]
        per_bin = [slowdown[mine & (which == b)] for b in used]
        (line,) = ax.plot(x, [np.median(s) for s in per_bin], marker="o", label=f"{tag} median")
        ax.plot(x, [np.percentile(s, 99) for s in per_bin], marker="^", linestyle="--",
                color=line.get_color(), label=f"{tag} p99")
    ax.set_xscale("log")
    if slowdown.max() > 20 * slowdown.min():
        ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes)")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _timeseries(kind: str, ts: pd.DataFrame, ports: Optional[pd.DataFrame]) -> Optional[Figure]:
    """Plot the long-form series of one kind (``"port"`` or ``"flow"``): a panel per
    metric, in the order the core wrote them, each with the ``_MAX_SERIES`` ports or
    flows of the largest mean. A port is labelled with its name from ports.parquet. A
    metric whose values are all zero gets no panel, and a port or flow whose values are
    all zero no line; stderr and the figure's foot name the metrics left out."""
    rows = ts[ts["kind"] == kind]
    file = f"timeseries_{kind}.png"
    drawn, empty = [], []
    for metric in pd.unique(rows["metric"].astype(str)):
        series = rows[rows["metric"] == metric]
        values = series["value"].to_numpy(dtype=float)
        (drawn if np.any(np.isfinite(values) & (values != 0)) else empty).append((metric, series))
    left_out = ", ".join(m for m, _ in empty)
    if not drawn:
        _skip(file, f"every {kind} metric is zero throughout ({left_out})")
        return None
    if empty:
        print(f"note: {file}: panels left out, all zero: {left_out}", file=sys.stderr)

    fig = Figure(figsize=(7.5, 1.0 + 2.6 * len(drawn)), layout="constrained")
    axes: list[Axes] = list(fig.subplots(len(drawn), 1, sharex=True, squeeze=False)[:, 0])
    for ax, (metric, series) in zip(axes, drawn):
        nonzero = series[series["value"].fillna(0) != 0]["id"].unique()
        means = series[series["id"].isin(nonzero)].groupby("id")["value"].mean()
        top = list(means.nlargest(_MAX_SERIES).index)
        labels = port_labels(ports, top) if kind == "port" else [f"flow {int(key)}" for key in top]
        for key, label in zip(top, labels):
            one = series[series["id"] == key]
            ax.plot(one["time_us"], one["value"], linewidth=1, label=label)
        ax.legend(fontsize="x-small", ncol=2)
        ax.set_ylabel(_LABELS.get(metric, metric))
        ax.grid(True, alpha=0.3)
    axes[0].set_title(f"{kind}s: up to {_MAX_SERIES} per metric, those of the largest mean (none all zero)")
    axes[-1].set_xlabel("time (us)")
    if empty:
        fig.supxlabel(f"not drawn, zero throughout: {left_out}", fontsize="small", color="#555")
    return fig
