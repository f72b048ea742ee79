"""What the report page and the PNG plots share so that they read alike: one colour
scale and one label for queue depth, the names of ports, and the mark of a partial run.

Standard library only: the report's figures (Plotly) and the PNG plots (matplotlib) both
import it.
"""

from __future__ import annotations

from typing import Any, Optional

# Queue depth, everywhere: ColorBrewer's Yellow-Orange-Red, light (an empty queue) to dark
# red (the fullest), so that more queue reads as darker and hotter. matplotlib calls the
# same nine colours "YlOrRd"; the report hands Plotly the colours themselves rather than a
# name, since Plotly's own "YlOrRd" runs the other way round.
QUEUE_COLORMAP = "YlOrRd"
QUEUE_COLOURS = ("#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c",
                 "#fc4e2a", "#e31a1c", "#bd0026", "#800026")
QUEUE_LABEL = "queue depth (bytes)"
# The colour of the "partial run" mark on the page and the plots.
PARTIAL_COLOUR = "#b00020"
# A link or port that never queued, where the scale's lightest colour would vanish on white.
IDLE_COLOUR = "#c8c8c8"


def queue_colorscale() -> list[list[Any]]:
    """The queue scale as a Plotly ``colorscale``: ``[fraction, colour]`` from 0 (empty) to 1."""
    last = len(QUEUE_COLOURS) - 1
    return [[i / last, c] for i, c in enumerate(QUEUE_COLOURS)]


def queue_colour(fraction: float) -> str:
    """The colour of the queue scale at ``fraction`` (0 = empty, 1 = the largest shown),
    linearly between its nine colours, as Plotly and matplotlib interpolate them."""
    f = min(1.0, max(0.0, fraction)) * (len(QUEUE_COLOURS) - 1)
    i = min(int(f), len(QUEUE_COLOURS) - 2)
    a, b = (tuple(int(c[k:k + 2], 16) for k in (1, 3, 5)) for c in QUEUE_COLOURS[i:i + 2])
    t = f - i
    return "#" + "".join(f"{round(x + t * (y - x)):02x}" for x, y in zip(a, b))


def partial_mark(summary: dict[str, Any]) -> Optional[str]:
    """``"partial run: stopped at T us"`` for a run that stopped before its end
    (``complete`` false in summary.json), else None."""
    if summary.get("complete", True):
        return None
    return f"partial run: stopped at {float(summary.get('sim_time_us') or 0.0):,.1f} us"


def partial_sweep_mark(complete: Any) -> Optional[str]:
    """``"partial sweep: N of M points did not finish"`` for a sweep whose ``complete``
    column (summary.parquet) is not true for every point, else None."""
    def finished(c: Any) -> bool:
        try:
            return bool(c) and c == c  # NaN or a missing value (a point not run): not finished
        except TypeError:
            return False

    flags = [finished(c) for c in complete]
    unfinished = flags.count(False)
    return f"partial sweep: {unfinished} of {len(flags)} points did not finish" if unfinished else None


def port_labels(ports: Any, ids: Any) -> list[str]:
    """A label per port id: its name from ports.parquet (``h3->s1``), ``port N`` where the
    table has no name for it; a name that two ports share gets the id appended so that
    every label is unique."""
    named: dict[int, str] = {}
    if ports is not None and "name" in getattr(ports, "columns", ()):
        named = {int(p): str(n) for p, n in zip(ports["port"], ports["name"])}
    labels = [named.get(int(p), f"port {int(p)}") for p in ids]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [f"{label} (port {int(p)})" if seen[label] > 1 else label for label, p in zip(labels, ids)]
