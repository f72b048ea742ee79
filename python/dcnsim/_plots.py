"""The plots of a result directory.

Figures are drawn with ``matplotlib.figure.Figure`` directly rather than through pyplot,
so writing results never changes the user's pyplot backend or open figures (it works
headless, and inside a notebook that uses another backend). A plot that has no data is
skipped with a note on stderr; empty data never raises.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dcnsim._buckets import size_buckets

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from dcnsim._result import Result

_DPI = 120
_MAX_SERIES = 8  # lines per time-series plot: the ports/flows with the largest mean


def write_plots(result: Result, out: Path) -> None:
    """Write every plot that the result has data for into ``out``."""
    finished = result.flows[result.flows["finished"].astype(bool)]
    if finished.empty:
        _skip("fct_cdf.png", "no flow finished")
        _skip("slowdown_by_size.png", "no flow finished")
    else:
        _fct_cdf(finished, out / "fct_cdf.png")
        _slowdown_by_size(finished, out / "slowdown_by_size.png")
    for kind in ("port", "flow"):
        if (result.timeseries["kind"] == kind).any():
            _timeseries(kind, result.timeseries, out / f"timeseries_{kind}.png")


def _skip(file: str, why: str) -> None:
    print(f"note: {file} not written: {why}", file=sys.stderr)


def _save(fig: Figure, path: Path) -> None:
    fig.savefig(path, dpi=_DPI)


def _fct_cdf(finished: pd.DataFrame, path: Path) -> None:
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
    _save(fig, path)


def _slowdown_by_size(finished: pd.DataFrame, path: Path) -> None:
    flows = finished[(finished["size"] > 0) & np.isfinite(finished["slowdown"].to_numpy(dtype=float))]
    flows = flows[flows["slowdown"] > 0]
    if flows.empty:
        _skip(path.name, "no finished flow of finite size")
        return
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
    _save(fig, path)


def _timeseries(kind: str, ts: pd.DataFrame, path: Path) -> None:
    """Plot the long-form series of one kind (``"port"`` or ``"flow"``): a panel per
    metric, in the order the core wrote them, each with the ``_MAX_SERIES`` ports or
    flows of the largest mean."""
    rows = ts[ts["kind"] == kind]
    metrics = list(pd.unique(rows["metric"].astype(str)))
    fig = Figure(figsize=(7.5, 1.0 + 2.6 * len(metrics)), layout="constrained")
    axes: list[Axes] = list(fig.subplots(len(metrics), 1, sharex=True, squeeze=False)[:, 0])
    shown = 0
    for ax, metric in zip(axes, metrics):
        series = rows[rows["metric"] == metric]
        top = series.groupby("id")["value"].mean().nlargest(_MAX_SERIES).index
        shown = max(shown, len(top))
        for key in top:
            one = series[series["id"] == key]
            ax.plot(one["time_us"], one["value"], linewidth=1, label=f"{kind} {key}")
        ax.legend(fontsize="x-small", ncol=2)
        ax.set_ylabel(metric)
        ax.grid(True, alpha=0.3)
    axes[0].set_title(f"{kind}s: the {shown} with the largest mean of each metric")
    axes[-1].set_xlabel("time (us)")
    _save(fig, path)
