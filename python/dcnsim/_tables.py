"""The core's tables, written and summarised without pandas.

The core hands back each table as ``{column: values}``: a list per column, or
``(codes, levels)`` for a categorical one. Importing pandas takes about half a second,
more than a small simulation, so a plain ``dcnsim run`` does without it: this module
writes those columns to Parquet with pyarrow and to CSV with the ``csv`` module, and
computes the summary's numbers with numpy. :class:`dcnsim.Result` builds its pandas
DataFrames only when they are read.

The files are those pandas writes for the same table: the same Arrow types (strings as
``large_string``, categoricals as dictionaries, NaN stored as null), read back by
``pandas.read_parquet`` into the same DataFrame; the CSV has pandas' layout (``True`` and
``False``, NaN as an empty field, floats written in full).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    import numpy as np

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


def write_parquet(columns: Columns, path: Path) -> None:
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
# The summary's numbers, from the flow table's columns.


def summaries(columns: Columns) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summary of each workload tag (in the order tags first appear) and of all
    flows: see :func:`group_summary`."""
    import numpy as np

    tags = np.asarray(plain(columns["tag"]), dtype=object) if rows(columns) else np.array([], dtype=object)
    flows = {
        "finished": np.asarray(columns["finished"], dtype=bool),
        **{name: np.asarray(columns[name], dtype=float) for name in ("start_us", "finish_us", "fct_us", "slowdown")},
    }
    if "group" in columns:
        flows["group"] = np.asarray(columns["group"], dtype=np.int64)
    workloads = {}
    for tag in dict.fromkeys(tags.tolist()):
        mine = tags == tag
        workloads[str(tag)] = group_summary({name: values[mine] for name, values in flows.items()})
    return workloads, group_summary(flows)


def group_summary(flows: dict[str, np.ndarray]) -> dict[str, Any]:
    """Flows, finished flows, CCT (last delivery minus first start, once every flow
    finished), the FCT and slowdown distributions of finished flows and the collectives."""
    finished = flows["finished"]
    count, done = len(finished), int(finished.sum())
    all_finished = count > 0 and done == count
    return {
        "flows": count,
        "finished": done,
        # Collective completion time: only meaningful once every flow of the group is done.
        "cct_us": float(_nanmax(flows["finish_us"]) - _nanmin(flows["start_us"])) if all_finished else None,
        "fct_us": distribution(flows["fct_us"][finished]),
        "slowdown": distribution(flows["slowdown"][finished]),
        **_collectives(flows),
    }


def _collectives(flows: dict[str, np.ndarray]) -> dict[str, Any]:
    """Flows that form collectives (a training iteration's all-reduce; ``group`` >= 0):
    how many there are, how many completed, and each completed one's time from its first
    flow's start to its last flow's delivery."""
    import numpy as np

    if "group" not in flows or not (flows["group"] >= 0).any():
        return {}
    member = flows["group"] >= 0
    ids, which = np.unique(flows["group"][member], return_inverse=True)
    complete = np.bincount(which, minlength=ids.size) == np.bincount(
        which, weights=flows["finished"][member], minlength=ids.size)
    last = np.full(ids.size, np.nan)
    first = np.full(ids.size, np.nan)
    np.fmax.at(last, which, flows["finish_us"][member])  # fmax/fmin skip NaN, as pandas does
    np.fmin.at(first, which, flows["start_us"][member])
    return {"groups": {"count": int(ids.size), "complete": int(complete.sum()),
                       "time_us": distribution((last - first)[complete])}}


def distribution(values: np.ndarray) -> dict[str, Optional[float]]:
    """Mean, percentiles and maximum of the finite values; all None when there are none."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return dict.fromkeys(["mean", *PERCENTILES, "max"])
    quantiles = np.percentile(v, list(PERCENTILES.values()))
    return {
        "mean": float(v.mean()),
        **{key: float(q) for key, q in zip(PERCENTILES, quantiles)},
        "max": float(v.max()),
    }


def _nanmax(values: np.ndarray) -> float:
    import numpy as np

    return float(np.nanmax(values)) if (~np.isnan(values)).any() else math.nan


def _nanmin(values: np.ndarray) -> float:
    import numpy as np

    return float(np.nanmin(values)) if (~np.isnan(values)).any() else math.nan
