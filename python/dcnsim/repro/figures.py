"""Pieces of the reproductions' figures: a PNG written from a matplotlib figure, CDF lines
and grouped bars."""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence


@contextmanager
def png(path: Path, written: list[Path], size: tuple[float, float], tight: bool = False,
        **subplots: Any) -> Iterator[tuple[Any, Any]]:
    """A figure and its axes (``Figure.subplots(**subplots)``), written to ``path`` and
    listed in ``written`` when the block ends (not when it raises).

    ``matplotlib.figure.Figure`` directly rather than pyplot, as in ``dcnsim._plots``:
    writing figures neither switches the user's backend nor leaves figures open. The
    layout is matplotlib's constrained one, or with ``tight`` a ``tight_layout`` just
    before saving (the MSwift and DCTCP-vs-Swift figures were drawn so: this keeps them
    the same to the pixel)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout=None if tight else "constrained")
    yield fig, fig.subplots(**subplots)
    if tight:
        fig.tight_layout()
    fig.savefig(path, dpi=110)
    written.append(path)


def cdf(ax: Any, values: Sequence[float], label: str) -> None:
    """The empirical CDF of ``values`` as a step line (none for no values)."""
    xs = sorted(values)
    if xs:
        ax.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post", label=label)


def grouped_bars(ax: Any, series: Sequence[tuple[str, Sequence[float]]],
                 errors: Optional[Sequence[Sequence[float]]] = None) -> None:
    """Side-by-side bars: at x = 0, 1, ... one bar per series, together 0.8 wide; a value
    (or error) that is not finite is drawn as 0."""
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(values))]
        heights = [v if math.isfinite(v) else 0 for v in values]
        if errors is None:
            ax.bar(xs, heights, width, label=label)
        else:
            ax.bar(xs, heights, width, yerr=[e if math.isfinite(e) else 0 for e in errors[i]], capsize=3,
                   label=label)
