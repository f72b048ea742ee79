"""The outcome of a run: per-flow table, time series, summary, and the result directory.

pandas and numpy are imported inside the functions that use them rather than at module
level, so that ``import dcnsim`` stays light: the CLI starts quickly, and the peak RSS
that ``dcnsim bench`` reports for a scenario is the simulator's, not ~90 MiB of pandas.
A run that is only written (``dcnsim run``) never imports pandas or matplotlib: its
tables are written from the core's columns (:mod:`dcnsim._tables`), and the PNG plots
are drawn only when asked for.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from dcnsim import _tables, _timeseries
from dcnsim._ext import __version__
from dcnsim._files import write_text_atomic

if TYPE_CHECKING:
    import pandas as pd

    from dcnsim._scenario import StrPath

# A table as the core returns it (``{column: values}``) or as a DataFrame.
Table = Union["pd.DataFrame", dict[str, Any]]

# Files of ours that a run may or may not produce; removed before writing so that a
# directory reused for another run never shows a plot, table or report left from the
# earlier one.
# (`timeseries_*.parquet` were the per-sampler tables of dcnsim before the long form.)
_OPTIONAL_OUTPUTS = ("fct_cdf.png", "slowdown_by_size.png", "groups.parquet", "timeseries.parquet", "timeseries_*.parquet",
                     "timeseries_*.png", "ports.parquet", "trace_events.parquet", "trace.pcap", "pfc_events.parquet",
                     "report.html")


def _frame(name: str) -> Any:
    """A property for one of Result's tables: the core's columns are made a DataFrame
    the first time the table is read, and kept."""
    def get(self: Result) -> Any:
        table = self._tables[name]
        if isinstance(table, dict) or (table is None and name == "timeseries"):
            table = self._tables[name] = _timeseries.frame(table)
        return table

    def set(self: Result, value: Any) -> None:
        self._tables[name] = value

    getter: Callable[[Result], Any] = get
    return property(getter, set)


class Result:
    """Everything a run produced.

    ``flows`` has one row per flow in flow-id order (columns ``id, tag, src, dst, size,
    start_us, finish_us, fct_us, ideal_fct_us, slowdown, delivered, retransmits, drops,
    finished, cc, lb``; times in microseconds, NaN for flows that did not finish).
    ``timeseries`` is the ``[observe]`` time series in long form (``time_us, kind, id,
    metric, value``; no rows when nothing was sampled), ``ports`` names the port ids
    it, the trace and the PFC frames use (None when the run samples, traces and pauses
    nothing), ``trace`` is the ``[trace]`` event log and ``pcap`` its capture (None
    without a trace), ``pfc_events`` every PFC frame as it reached the port it pauses
    (``time_us, port, class, event``; None without ``[switch.pfc]``).
    ``summary`` is what ``summary.json`` holds.

    The tables are pandas DataFrames, built when first read: a run that is only written
    to disk never imports pandas (see :mod:`dcnsim._tables`).

    >>> result = dcnsim.run("examples/quickstart.toml")  # doctest: +SKIP
    >>> result.summary["all"]["fct_us"]["p99"]  # doctest: +SKIP
    >>> result.flows.query("finished").plot.scatter("size", "slowdown", logx=True)  # doctest: +SKIP
    """

    def __init__(self, flows: Table, timeseries: Optional[Table], summary: dict[str, Any],
                 ports: Optional[Table] = None, trace: Optional[Table] = None, pcap: Optional[bytes] = None,
                 pfc_events: Optional[Table] = None) -> None:
        # Each table is a DataFrame or the core's columns (a dict), made a DataFrame when read.
        self._tables: dict[str, Optional[Table]] = {"flows": flows, "timeseries": timeseries, "ports": ports,
                                                    "trace": trace, "pfc_events": pfc_events}
        self.summary = summary
        self.pcap = pcap

    flows = _frame("flows")
    timeseries = _frame("timeseries")
    ports = _frame("ports")
    trace = _frame("trace")
    pfc_events = _frame("pfc_events")

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group of flows (a training iteration, a coflow; the flow table's
        ``group`` ≥ 0), in group order: see :func:`group_table`. Empty when no flow
        belongs to a group."""
        return group_table(self.flows)

    @property
    def complete(self) -> bool:
        """False when the run was interrupted before the simulation finished."""
        return bool(self.summary["complete"])

    @classmethod
    def from_simulation(cls, sim: Any, wall_seconds: float) -> Result:
        """Collect the result of a ``dcnsim._core.Simulation`` as it stands now."""
        flows = sim.flows()
        sampled, traced, paused = sim.timeseries(), sim.trace_events(), sim.pfc_events()
        named = sampled is not None or traced is not None or paused is not None
        ports = sim.ports() if named else None
        resolved = json.loads(sim.resolved_json())
        events = int(sim.events)
        workloads, everything = _tables.summaries(flows)
        summary = {
            "name": resolved.get("name"),
            "version": __version__,
            "seed": resolved.get("seed"),
            "complete": bool(sim.finished),
            "sim_time_us": sim.now_ps / 1e6,
            "wall_seconds": wall_seconds,
            "events": events,
            "packets": int(sim.packets),
            "events_per_second": events / wall_seconds if wall_seconds > 0 else None,
            "stats": {key: _finite_or_none(value) for key, value in sim.stats().items()},
            "scenario": resolved,
            "workloads": workloads,
            "all": everything,
        }
        return cls(flows, sampled, summary, ports, traced, sim.pcap(), paused)

    def write(self, out_dir: StrPath, plots: bool = False) -> Path:
        """Write the result directory and return its path; with ``plots`` the PNG plots
        too (``dcnsim run --plots``; drawing them costs more than a small simulation). A
        directory holding a sweep's or a reproduction's results is refused
        (:class:`dcnsim.OutputError`).

        ``flows.parquet`` depends only on the simulation (no wall-clock values), so two
        runs of the same scenario and seed give byte-identical files; wall time lives in
        ``summary.json``.
        """
        from dcnsim import _outdir

        out = Path(out_dir)
        _outdir.check_kind(out, "run", option="out")
        out.mkdir(parents=True, exist_ok=True)
        _outdir.mark(out, "run")
        for pattern in _OPTIONAL_OUTPUTS:
            for stale in out.glob(pattern):
                stale.unlink()
        _remove_stale_export(out / "hpcc")
        flows = self._tables["flows"]
        _write_parquet(flows, out / "flows.parquet")
        if isinstance(flows, dict):
            _tables.write_csv(flows, out / "flows.csv")
        else:
            flows.to_csv(out / "flows.csv", index=False)
        write_text_atomic(out / "summary.json", json.dumps(self.summary, indent=2, allow_nan=False) + "\n")
        timeseries = self._tables["timeseries"]
        if timeseries is not None and (_tables.rows(timeseries) if isinstance(timeseries, dict) else len(timeseries)):
            _write_parquet(timeseries, out / "timeseries.parquet")
        for name, file in (("ports", "ports"), ("trace", "trace_events"), ("pfc_events", "pfc_events")):
            table = self._tables[name]
            if table is not None:
                _write_parquet(table, out / f"{file}.parquet")
        if self.pcap is not None:
            (out / "trace.pcap").write_bytes(self.pcap)
        if _has_groups(flows):
            self.groups.to_parquet(out / "groups.parquet", engine="pyarrow", index=False)

        if plots:
            from dcnsim import _plots  # matplotlib takes ~0.5 s to import; only drawing needs it

            _plots.write_plots(self, out)
        return out

    def __repr__(self) -> str:
        everything = self.summary["all"]
        return (
            f"Result(name={self.summary['name']!r}, flows={everything['flows']}, "
            f"finished={everything['finished']}, complete={self.complete}, "
            f"sim_time_us={self.summary['sim_time_us']:g})"
        )


def _remove_stale_export(export_dir: Path) -> None:
    """`dcnsim export`'s default directory inside a run directory describes the run that
    was there: its files go when another run replaces it (the directory too, if empty)."""
    from dcnsim._export_hpcc import FILES

    if not export_dir.is_dir():
        return
    for name in FILES:
        (export_dir / name).unlink(missing_ok=True)
    try:
        export_dir.rmdir()
    except OSError:
        pass  # files of the user's own stay


def _write_parquet(table: Table, path: Path) -> None:
    if isinstance(table, dict):
        _tables.write_parquet(table, path)
    else:
        table.to_parquet(path, engine="pyarrow", index=False)


def _has_groups(flows: Table) -> bool:
    if "group" not in flows:
        return False
    groups = flows["group"]
    return any(g >= 0 for g in groups) if isinstance(flows, dict) else bool((groups >= 0).any())


GROUP_COLUMNS = ("group", "tag", "priority", "flows", "finished", "bytes", "start_us", "finish_us", "cct_us")


def group_table(flows: pd.DataFrame) -> pd.DataFrame:
    """Per group (``group`` ≥ 0) of the flow table: ``tag`` and ``priority`` (of its first
    flow; a coflow's flows share both), ``flows``, ``finished`` (how many are delivered),
    ``bytes`` (their sizes summed), ``start_us`` (the earliest start: a coflow's arrival,
    a training iteration's release), ``finish_us`` (the last delivery) and ``cct_us`` =
    finish − start, the completion time; both NaN unless every flow finished."""
    import numpy as np
    import pandas as pd

    if "group" not in flows or not (flows["group"] >= 0).any():
        return pd.DataFrame({c: [] for c in GROUP_COLUMNS})
    member = flows[flows["group"] >= 0]
    by = member.groupby("group", sort=True)
    first = by.head(1).set_index("group")
    finished = by["finished"].sum().astype(int)
    count = by.size()
    complete = finished == count
    start = by["start_us"].min()
    finish = by["finish_us"].max().where(complete, np.nan)
    table = pd.DataFrame({
        "group": count.index.astype(int),
        "tag": first["tag"].reindex(count.index).to_numpy(),
        "priority": (first["priority"].reindex(count.index).to_numpy().astype(int)
                     if "priority" in first else np.zeros(len(count), dtype=int)),
        "flows": count.to_numpy(),
        "finished": finished.to_numpy(),
        "bytes": by["size"].sum().to_numpy(),
        "start_us": start.to_numpy(),
        "finish_us": finish.to_numpy(),
        "cct_us": (finish - start).to_numpy(),
    })
    return table.reset_index(drop=True)


def _finite_or_none(value: Any) -> Any:
    """JSON has no NaN or infinity; such counters are written as null."""
    return None if isinstance(value, float) and not math.isfinite(value) else value
