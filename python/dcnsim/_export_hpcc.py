"""A run's results as the HPCC ns-3 simulator's output files, so that scripts written for
that simulator (its ``fct_analysis.py`` and the like) read them unchanged.

Three files, in the layout that simulator writes (docs/formats.md, "HPCC output files"):

- ``fct.txt``: one line per finished flow, ``sip dip sport dport size start_ns fct_ns
  standalone_fct_ns`` with the addresses in hex (node i is 11.0.x.1: ``0x0b000001 +
  (i // 256) * 0x10000 + (i % 256) * 0x100``);
- ``pfc.txt``: one line per PFC frame received, ``time_ns node node_type if_index type``
  (node type 0 host, 1 switch; type 1 PAUSE, 0 RESUME);
- ``qlen.txt``: every dump interval a ``time: T`` line, then per switch port ``node
  if_index c0 c1 ...``, ck counting the queue samples in [k, k + 1) KB (1 KB = 1000 B)
  since the start.

Node ids are dcnsim's: hosts 0..H-1, then switch j is node H + j, which is the HPCC
simulator's numbering (hosts first in its topology files' renumbering). A port's
``if_index`` is 1 + its rank among its node's ports in port-id order (ns-3's device 0 is
the loopback).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from dcnsim._outdir import OutputError, UsageError, kind_of

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from dcnsim._result import Result

FORMATS = ("hpcc",)
FILES = ("fct.txt", "pfc.txt", "qlen.txt")
# The HPCC simulator's destination port for ordinary flows (its fct_analysis.py keeps
# the lines whose 4th column is 100; 200 marks incast flows in its traffic generator).
DPORT = 100
# Source ports: each host numbers its flows from 10000, as that simulator does; they wrap
# to 10000 after 65535 so that they stay 16-bit.
SPORT_BASE = 10000
_SPORT_SPAN = 65536 - SPORT_BASE
KB = 1000
DEFAULT_QLEN_DUMP = "1ms"

_TIME_UNITS_NS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


@dataclass
class HpccExport:
    """What :func:`export_hpcc` did: the directory, the files written, and for each file
    left out the reason (what the run lacked and how to get it)."""

    out: Path
    written: list[Path] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def node_ip(node: int) -> int:
    """The HPCC simulator's IPv4 address of node ``node`` (11.0.x.1), as an integer."""
    return 0x0B000001 + (node // 256) * 0x10000 + (node % 256) * 0x100


def parse_dump_interval(text: Optional[str], option: str = "--qlen-dump") -> Optional[int]:
    """``"1ms"``, ``"100us"``... as whole nanoseconds; ``"end"`` or None: only at the end."""
    if text is None or str(text).strip() == "end":
        return None
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*(ps|ns|us|ms|s)\s*", str(text))
    ns = float(m.group(1)) * _TIME_UNITS_NS[m.group(2)] if m else math.nan
    if not (ns >= 1 and math.isfinite(ns)):
        raise UsageError(f"{option} {text}: allowed a time of at least 1ns with a unit (ns, us, ms, s), "
                         "e.g. 1ms, or \"end\" (one dump when the run ends)")
    return int(round(ns))


def export_hpcc(source: Union[str, os.PathLike[str], Result], out: Union[str, os.PathLike[str], None] = None,
                qlen_dump: Optional[str] = DEFAULT_QLEN_DUMP) -> HpccExport:
    """Write ``fct.txt``, ``pfc.txt`` and ``qlen.txt`` for a run, in the HPCC ns-3
    simulator's layout. ``source`` is a run's result directory or a :class:`dcnsim.Result`;
    ``out`` defaults to ``<source>/hpcc`` (required for a Result). ``qlen_dump`` is how
    often ``qlen.txt`` gets a block (a time such as ``"1ms"``; ``"end"``: once, when the
    run ends); the last sample always closes one.

    A file the run has no data for is skipped, with the reason in ``.skipped``: ``qlen.txt``
    needs ``[observe]`` sampling switch ports with the ``queue`` metric, ``pfc.txt`` a run
    with ``[switch.pfc]`` that wrote ``pfc_events.parquet``. Raises
    :class:`dcnsim.UsageError` for a source that is not a run, or an output directory that
    cannot be used."""
    return write_hpcc(source, out, parse_dump_interval(qlen_dump, "qlen_dump"), out_option="out")


def write_hpcc(source: Union[str, os.PathLike[str], Result], out: Union[str, os.PathLike[str], None],
               dump_ns: Optional[int], out_option: str = "--out") -> HpccExport:
    """:func:`export_hpcc` with the dump interval in nanoseconds (None: at the end only);
    errors name the output option ``out_option``."""
    tables = _tables_of(source, out)
    target = Path(out) if out is not None else Path(tables["dir"]) / "hpcc"
    _check_out(target, out_option)
    target.mkdir(parents=True, exist_ok=True)
    done = HpccExport(target)
    texts: dict[str, Optional[str]] = {
        "fct.txt": fct_text(tables["flows"]),
        "pfc.txt": None,
        "qlen.txt": None,
    }
    texts["pfc.txt"], why_pfc = _pfc_or_reason(tables)
    texts["qlen.txt"], why_qlen = _qlen_or_reason(tables, dump_ns)
    for name, why in (("pfc.txt", why_pfc), ("qlen.txt", why_qlen)):
        if why is not None:
            done.skipped[name] = why
    for name in FILES:
        path = target / name
        text = texts[name]
        if text is None:
            path.unlink(missing_ok=True)  # an earlier export's file would no longer match
            continue
        tmp = path.with_name(f"{name}.tmp{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
        done.written.append(path)
    return done


# -- sources ------------------------------------------------------------------------

def _tables_of(source: Any, out: Any) -> dict[str, Any]:
    """flows, ports, timeseries, pfc_events (None when absent) and the PFC setting."""
    from dcnsim._result import Result

    if isinstance(source, Result):
        if out is None:
            raise UsageError("export_hpcc: give out= when exporting a Result (it has no result directory)")
        return {"dir": None, "flows": source.flows, "ports": source.ports, "timeseries": source.timeseries,
                "pfc_events": getattr(source, "pfc_events", None), "pfc_on": _pfc_on(source.summary)}
    return _read_dir(Path(source))


def _read_dir(path: Path) -> dict[str, Any]:
    import json

    import pandas as pd

    if not path.is_dir():
        what = "is a file, not" if path.exists() else "no such directory; give"
        raise UsageError(f"export {path}: {what} a run's result directory (written by `dcnsim run`)")
    try:
        kind = kind_of(path)
    except OutputError as exc:
        raise UsageError(f"export {exc}") from None
    if kind == "sweep":
        raise UsageError(f"export {path}: is a sweep directory; export one of its points: {path / 'runs'}/<point>")
    if kind == "reproduction":
        raise UsageError(f"export {path}: is a reproduction directory; export a run directory")
    if not (path / "flows.parquet").is_file():
        raise UsageError(f"export {path}: no flows.parquet: not a run's result directory (write one with `dcnsim run`)")

    def table(name: str) -> Optional[pd.DataFrame]:
        file = path / f"{name}.parquet"
        if not file.is_file():
            return None
        try:
            return pd.read_parquet(file)
        except Exception as exc:  # pyarrow's errors for a damaged file have no common base
            raise UsageError(f"export {file}: cannot be read as Parquet ({type(exc).__name__}); "
                             "write the run again with `dcnsim run`") from None

    summary: dict[str, Any] = {}
    if (path / "summary.json").is_file():
        summary = json.loads((path / "summary.json").read_text())
    return {"dir": path, "flows": table("flows"), "ports": table("ports"), "timeseries": table("timeseries"),
            "pfc_events": table("pfc_events"), "pfc_on": _pfc_on(summary)}


def _pfc_on(summary: dict[str, Any]) -> Optional[bool]:
    """Whether the run had ``[switch.pfc]`` on; None when the summary does not say."""
    scenario = summary.get("scenario")
    if not isinstance(scenario, dict):
        return None
    pfc = (scenario.get("switch") or {}).get("pfc")
    return isinstance(pfc, dict) and pfc.get("enabled", True) is not False


def _check_out(out: Path, option: str) -> None:
    if out.exists() and not out.is_dir():
        raise OutputError(f"{option} {out}: is a file, not a directory; give a new directory")
    if out.is_dir():
        try:
            kind = kind_of(out)
        except OutputError:
            kind = "result"
        if kind is not None:
            raise OutputError(f"{option} {out}: holds the results of a {kind}; the HPCC files go to a directory of "
                              "their own (by default RESULT_DIR/hpcc)")
    probe = out
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK):
        raise OutputError(f"{option} {out}: cannot write in {probe}")


# -- the files ----------------------------------------------------------------------

def _ns(us: Any) -> np.ndarray:
    import numpy as np

    return np.rint(np.asarray(us, dtype=float) * 1000.0).astype(np.int64)


def source_ports(flows: pd.DataFrame) -> pd.Series:
    """Each flow's source port: 10000 + its rank among its source host's flows in flow-id
    order, wrapping after 65535 (as the HPCC simulator numbers each host's flows)."""
    ordered = flows.sort_values("id", kind="stable")
    rank = ordered.groupby("src", sort=False).cumcount()
    return (SPORT_BASE + rank % _SPORT_SPAN).reindex(flows.index)


def fct_text(flows: pd.DataFrame) -> str:
    """fct.txt: the finished flows in the order they finished (ties by flow id)."""
    import numpy as np

    sport = source_ports(flows)
    done = flows[flows["finished"].astype(bool) & np.isfinite(flows["fct_us"].to_numpy(dtype=float))]
    done = done.assign(_sport=sport[done.index], _finish=done["start_us"] + done["fct_us"])
    done = done.sort_values(["_finish", "id"], kind="stable")
    start, fct, ideal = _ns(done["start_us"]), _ns(done["fct_us"]), _ns(done["ideal_fct_us"])
    lines = [
        f"{node_ip(int(s)):08x} {node_ip(int(d)):08x} {int(p)} {DPORT} {int(size)} {a} {f} {i}\n"
        for s, d, p, size, a, f, i in zip(done["src"], done["dst"], done["_sport"], done["size"], start, fct, ideal)
    ]
    return "".join(lines)


def port_places(ports: pd.DataFrame) -> pd.DataFrame:
    """Per port id: ``node``, ``node_type`` (0 host, 1 switch: the port's name starts with
    ``h`` or ``s``) and ``if_index`` (1 + rank among the node's ports by port id)."""
    p = ports.sort_values("port", kind="stable")
    place = p[["port", "node"]].copy()
    place["node_type"] = [0 if str(name).startswith("h") else 1 for name in p["name"]]
    place["if_index"] = p.groupby("node", sort=False).cumcount() + 1
    return place.set_index("port")


def pfc_text(events: pd.DataFrame, ports: pd.DataFrame) -> str:
    """pfc.txt: one line per frame, at the port that received it (the paused one), in time
    order. The HPCC simulator's line has no class: frames of every class are listed."""
    place = port_places(ports)
    unknown = sorted(set(events["port"].astype(int)) - set(place.index))
    if unknown:
        raise UsageError(f"pfc_events.parquet names port {unknown[0]}, which ports.parquet lacks: "
                         "the two files come from different runs")
    order = events.assign(_ns=_ns(events["time_us"])).sort_values("_ns", kind="stable")
    where = place.loc[order["port"].astype(int)]
    kinds = order["event"].astype(str)
    bad = sorted(set(kinds) - {"pause", "resume"})
    if bad:
        raise UsageError(f"pfc_events.parquet: event {bad[0]!r}: allowed pause, resume")
    lines = [f"{t} {n} {k} {i} {1 if e == 'pause' else 0}\n"
             for t, n, k, i, e in zip(order["_ns"], where["node"], where["node_type"], where["if_index"], kinds)]
    return "".join(lines)


def _pfc_or_reason(tables: dict[str, Any]) -> tuple[Optional[str], Optional[str]]:
    events, ports = tables["pfc_events"], tables["ports"]
    if events is None:
        if tables["pfc_on"] is False:
            return "", None  # no PFC, so no frame: the HPCC simulator writes an empty file too
        return None, ("needs pfc_events.parquet, written by runs with [switch.pfc] (this run has no such file: "
                      "run the scenario again with this dcnsim)")
    if len(events) == 0:
        return "", None
    if ports is None:
        return None, "needs ports.parquet to place the frames' ports; run the scenario again with this dcnsim"
    return pfc_text(events, ports), None


def qlen_text(queue: pd.DataFrame, ports: pd.DataFrame, dump_ns: Optional[int]) -> str:
    """qlen.txt from the ``queue_bytes`` samples (``time_us, id, value``) of switch ports:
    a block at the first sample at or after each multiple of ``dump_ns`` and at the last
    sample; each block gives, per switch port, how many samples so far fell in each 1 KB
    bin, up to the highest bin that port has reached."""
    import numpy as np

    place = port_places(ports)
    q = queue.assign(_ns=_ns(queue["time_us"]), _bin=(queue["value"].to_numpy(dtype=float) // KB).astype(np.int64))
    q = q.sort_values("_ns", kind="stable")
    rows = place.loc[sorted(set(q["id"].astype(int)))].reset_index()
    rows = rows.sort_values(["node", "if_index"], kind="stable")
    slot = {int(port): k for k, port in enumerate(rows["port"])}
    times = np.unique(q["_ns"].to_numpy())
    ends = [t for prev, t in zip(np.concatenate([[-1], times[:-1]]), times)
            if dump_ns is not None and (t // dump_ns > prev // dump_ns if prev >= 0 else t % dump_ns == 0)]
    if not ends or ends[-1] != times[-1]:
        ends.append(times[-1])
    counts = [np.zeros(0, dtype=np.int64) for _ in range(len(rows))]
    sample_ns, sample_bin = q["_ns"].to_numpy(), q["_bin"].to_numpy()
    sample_slot = q["id"].astype(int).map(slot).to_numpy(dtype=np.int64)
    width = int(sample_bin.max()) + 1
    out: list[str] = []
    lo = 0
    labels = [f"{n} {i}" for n, i in zip(rows["node"], rows["if_index"])]
    for end in ends:
        hi = int(np.searchsorted(sample_ns, end, side="right"))
        # Most samples of a block share a few (port, bin) pairs (empty queues): count
        # the pairs, then add each pair's count.
        keys, n = np.unique(sample_slot[lo:hi] * width + sample_bin[lo:hi], return_counts=True)
        for key, c_add in zip(keys.tolist(), n.tolist()):
            k, b = divmod(key, width)
            c = counts[k]
            if b >= len(c):
                c = counts[k] = np.concatenate([c, np.zeros(b + 1 - len(c), dtype=np.int64)])
            c[b] += c_add
        lo = hi
        out.append(f"time: {int(end)}\n")
        out.extend(f"{label} {' '.join(map(str, c))}\n" for label, c in zip(labels, counts))
    return "".join(out)


def _qlen_or_reason(tables: dict[str, Any], dump_ns: Optional[int]) -> tuple[Optional[str], Optional[str]]:
    how = ("add [observe] with an interval (the monitor interval), metrics including \"queue\" and ports "
           "including switch ports (the default \"switch\"), and run again")
    ts, ports = tables["timeseries"], tables["ports"]
    if ts is None or ports is None or len(ts) == 0:
        return None, f"needs the queue time series: {how}"
    queue = ts[(ts["kind"] == "port") & (ts["metric"] == "queue_bytes")]
    switch_ports = port_places(ports).query("node_type == 1").index
    queue = queue[queue["id"].isin(switch_ports)].dropna(subset=["value"])
    if len(queue) == 0:
        return None, f"needs queue samples of switch ports: {how}"
    return qlen_text(queue, ports, dump_ns), None
