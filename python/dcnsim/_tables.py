"""The core's tables, written and summarised without pandas.

The core hands back each table as ``{column: values}``: a list per column, or
``(codes, levels)`` for a categorical one. Importing pandas takes about half a second,
and numpy with pyarrow about 0.2 s, more than a small simulation; so a plain
``dcnsim run`` does without them. This module writes those columns to Parquet (the flow
table of a run up to 50,000 flows with the pure-Python writer of :mod:`dcnsim._parquet`;
larger tables and those with categorical columns with pyarrow), to CSV with the ``csv``
module, and computes the summary's numbers in plain Python. :class:`dcnsim.Result`
builds its pandas DataFrames only when they are read.

The files are those pandas writes for the same table, read back by
``pandas.read_parquet`` into the same DataFrame (pyarrow's keep its Arrow types: strings
as ``large_string``, categoricals as dictionaries; NaN is stored as null by both); the
CSV has pandas' layout (``True`` and ``False``, NaN as an empty field, floats written in
full).
"""

from __future__ import annotations

import copy
import csv
import math
from pathlib import Path
from typing import Any, Optional

from dcnsim import _parquet

Columns = dict[str, Any]

PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9}


def plain(values: Any) -> list[Any]:
    """One column as a list of values: a categorical's ``(codes, levels)`` expanded."""
    if isinstance(values, tuple):
        codes, levels = values
        return [levels[c] for c in codes]
    return list(values)


def rows(columns: Columns) -> int:
    """How many rows the table has."""
    for values in columns.values():
        return len(values[0]) if isinstance(values, tuple) else len(values)
    return 0


# Up to this many rows a table of plain columns is written by the pure-Python writer
# (no pyarrow or numpy to import); beyond, pyarrow's speed and compression matter more.
PURE_PARQUET_ROWS = 50_000


def write_parquet(columns: Columns, path: Path) -> None:
    if _parquet.supports(columns) and rows(columns) <= PURE_PARQUET_ROWS:
        _parquet.write(columns, path)
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([_arrow(values) for values in columns.values()], names=list(columns))
    pq.write_table(table, path)


def _arrow(values: Any) -> Any:
    """One column as an Arrow array, built from its buffers: ``pyarrow.array()`` and
    ``pyarrow.table()`` would import pandas to ask whether the input is one of its types.
    The type is that of the first value (the core's columns hold one type each)."""
    import numpy as np
    import pyarrow as pa

    def array(kind: Any, length: int, *buffers: Any, null_count: int = 0) -> Any:
        return pa.Array.from_buffers(kind, length, [None if b is None else pa.py_buffer(b) for b in buffers],
                                     null_count=null_count)

    if isinstance(values, tuple):
        codes, levels = values
        return pa.DictionaryArray.from_arrays(array(pa.int32(), len(codes), None, np.asarray(codes, np.int32)),
                                              _arrow(list(levels)))
    n = len(values)
    if n == 0:
        return pa.nulls(0)
    first = values[0]
    if isinstance(first, bool):
        return array(pa.bool_(), n, None, np.packbits(np.asarray(values, bool), bitorder="little"))
    if isinstance(first, int):
        return array(pa.int64(), n, None, np.asarray(values, np.int64))
    if isinstance(first, float):
        floats = np.asarray(values, np.float64)
        nan = np.isnan(floats)
        missing = int(nan.sum())  # stored as null, as pandas does
        valid = np.packbits(~nan, bitorder="little") if missing else None
        return array(pa.float64(), n, valid, floats, null_count=missing)
    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return array(pa.large_string(), n, None, offsets, b"".join(encoded))


def write_csv(columns: Columns, path: Path) -> None:
    out = []
    for values in columns.values():
        values = plain(values)
        if any(isinstance(v, float) for v in values[:1024]):
            values = ["" if isinstance(v, float) and math.isnan(v) else v for v in values]
        out.append(values)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(list(columns))
        writer.writerows(zip(*out))


# ---------------------------------------------------------------------------------------
# The summary's numbers, from the flow table's columns, in plain Python (no numpy to
# import): percentiles as numpy's default (linear) method gives them, means correctly
# rounded (``math.fsum``).

_SUMMARISED = ("finished", "start_us", "finish_us", "fct_us", "slowdown", "group")


def summaries(columns: Columns) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summary of each workload tag (in the order tags first appear) and of all
    flows: see :func:`group_summary`."""
    flows = {name: plain(columns[name]) for name in _SUMMARISED if name in columns}
    by_tag: dict[Any, list[int]] = {}
    for i, tag in enumerate(plain(columns["tag"])):
        by_tag.setdefault(tag, []).append(i)
    everything = group_summary(flows)
    if len(by_tag) == 1:
        return {str(tag): copy.deepcopy(everything) for tag in by_tag}, everything
    workloads = {str(tag): group_summary({name: [values[i] for i in rows] for name, values in flows.items()})
                 for tag, rows in by_tag.items()}
    return workloads, everything


def group_summary(flows: dict[str, list[Any]]) -> dict[str, Any]:
    """Flows, finished flows, CCT (last delivery minus first start, once every flow
    finished), the FCT and slowdown distributions of finished flows and the collectives."""
    finished = [bool(f) for f in flows["finished"]]
    count, done = len(finished), sum(finished)
    all_finished = count > 0 and done == count
    return {
        "flows": count,
        "finished": done,
        # Collective completion time: only meaningful once every flow of the group is done.
        "cct_us": _extreme(max, flows["finish_us"]) - _extreme(min, flows["start_us"]) if all_finished else None,
        "fct_us": distribution([v for v, f in zip(flows["fct_us"], finished) if f]),
        "slowdown": distribution([v for v, f in zip(flows["slowdown"], finished) if f]),
        **_collectives(flows, finished),
    }


def _collectives(flows: dict[str, list[Any]], finished: list[bool]) -> dict[str, Any]:
    """Flows that form collectives (a training iteration's all-reduce; ``group`` >= 0):
    how many there are, how many completed, and each completed one's time from its first
    flow's start to its last flow's delivery."""
    if "group" not in flows or not any(g >= 0 for g in flows["group"]):
        return {}
    members: dict[int, list[int]] = {}
    for i, g in enumerate(flows["group"]):
        if g >= 0:
            members.setdefault(g, []).append(i)
    spans = [_extreme(max, [flows["finish_us"][i] for i in rows]) - _extreme(min, [flows["start_us"][i] for i in rows])
             for rows in members.values() if all(finished[i] for i in rows)]
    return {"groups": {"count": len(members), "complete": len(spans), "time_us": distribution(spans)}}


def distribution(values: Any) -> dict[str, Optional[float]]:
    """Mean, percentiles and maximum of the finite values; all None when there are none."""
    v = sorted(float(x) for x in values if math.isfinite(x))
    if not v:
        return dict.fromkeys(["mean", *PERCENTILES, "max"])
    return {
        "mean": math.fsum(v) / len(v),
        **{key: percentile(v, q) for key, q in PERCENTILES.items()},
        "max": v[-1],
    }


def percentile(ordered: list[float], q: float) -> float:
    """The ``q``-th percentile of sorted values, as ``numpy.percentile`` computes it by
    default: linear between the two closest ranks, from the nearer end."""
    index = (len(ordered) - 1) * (q / 100)
    below = math.floor(index)
    above = min(below + 1, len(ordered) - 1)
    a, b, t = ordered[below], ordered[above], index - below
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _extreme(pick: Any, values: list[float]) -> float:
    """``max`` or ``min`` of the values that are not NaN (NaN when none is), as pandas'."""
    kept = [v for v in values if not math.isnan(v)]
    return float(pick(kept)) if kept else math.nan
