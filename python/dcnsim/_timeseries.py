"""The time series of a run (``[observe]``): the long table the core returns, as a pandas
DataFrame, and the views of it that the plots, the report and the reproductions use.

The long form has one row per (sample time, port or flow, metric): columns ``time_us,
kind, id, metric, value``, ``kind`` being ``"port"`` or ``"flow"``; ``kind`` and ``metric``
are categorical. ``ports.parquet`` (``Result.ports``) names the port ids. A wide view is
one pivot away::

    queues = ts[ts.metric == "queue_bytes"].pivot(index="time_us", columns="id", values="value")

``select`` reads the core's columns without pandas, for the reproductions' worker
processes, which keep only a few numbers of each run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("time_us", "kind", "id", "metric", "value")


def frame(columns: Optional[dict[str, Any]]) -> pd.DataFrame:
    """A table from the core (a dict of columns; a categorical column comes as a
    ``(codes, levels)`` pair) as a DataFrame; None gives an empty time-series table."""
    import pandas as pd

    if columns is None:
        return pd.DataFrame({name: pd.Series(dtype="category" if name in ("kind", "metric") else float)
                             for name in COLUMNS})
    data = {}
    for name, values in columns.items():
        if isinstance(values, tuple):
            codes, levels = values
            data[name] = pd.Categorical.from_codes(codes, categories=levels)
        else:
            data[name] = values
    return pd.DataFrame(data)


def port_series(ts: Optional[pd.DataFrame], ports: Optional[pd.DataFrame], metric: str,
                name: str = "value") -> Optional[pd.DataFrame]:
    """One port metric: columns ``time_us, port, node, peer, tier`` and the values as
    ``name``, in sample order; None when the run has no such series."""
    if ts is None or ports is None or ts.empty:
        return None
    rows = ts[(ts["kind"] == "port") & (ts["metric"] == metric)]
    if rows.empty:
        return None
    table = rows[["time_us", "id", "value"]].rename(columns={"id": "port", "value": name})
    info = ports.set_index("port")
    for column in ("node", "peer", "tier"):
        table[column] = table["port"].map(info[column]).to_numpy()
    return table[["time_us", "port", "node", "peer", "tier", name]].reset_index(drop=True)


def flow_series(ts: Optional[pd.DataFrame], metric: str, name: Optional[str] = None) -> Optional[pd.DataFrame]:
    """One flow metric: columns ``time_us, flow`` and the values as ``name`` (default:
    the metric's own name); None when the run has no such series."""
    if ts is None or ts.empty:
        return None
    rows = ts[(ts["kind"] == "flow") & (ts["metric"] == metric)]
    if rows.empty:
        return None
    table = rows[["time_us", "id", "value"]].rename(columns={"id": "flow", "value": name or metric})
    return table.reset_index(drop=True)


def select(columns: Optional[dict[str, Any]], kind: str, metric: str) -> tuple[list[float], list[int], list[float]]:
    """``(times, ids, values)`` of one series, straight from the core's columns."""
    if not columns:
        return [], [], []
    kind_codes, kinds = columns["kind"]
    metric_codes, metrics = columns["metric"]
    if kind not in kinds or metric not in metrics:
        return [], [], []
    k, m = kinds.index(kind), metrics.index(metric)
    rows = [i for i, (kc, mc) in enumerate(zip(kind_codes, metric_codes)) if kc == k and mc == m]
    times, ids, values = columns["time_us"], columns["id"], columns["value"]
    return [times[i] for i in rows], [ids[i] for i in rows], [values[i] for i in rows]
