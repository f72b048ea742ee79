"""Summary statistics and the result directory, from a stand-in for a finished simulation.

These check the Python side on data whose right answers are known (including the
awkward cases: unfinished flows, no flows, empty samplers) without the simulator.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dcnsim import Result

NAN = math.nan


class StandInSimulation:
    """The read-only surface of ``dcnsim._core.Simulation`` that Result uses."""

    def __init__(self, flows: dict[str, list[Any]], timeseries: Any, finished: bool, trace: Any = None):
        self._flows = flows
        self._timeseries = timeseries
        self._trace = trace
        self.finished = finished
        self.now_ps = 2_000_000_000
        self.events = 1000
        self.packets = 100

    def flows(self) -> dict[str, list[Any]]:
        return self._flows

    def timeseries(self) -> Any:
        return self._timeseries

    def ports(self) -> dict[str, list[Any]]:
        return PORTS

    def trace_events(self) -> Any:
        return self._trace

    def pfc_events(self) -> Any:
        return None

    def pcap(self) -> Any:
        return None if self._trace is None else b"pcap bytes"

    def stats(self) -> dict[str, Any]:
        return {"events": 1000, "drops": 2, "mean_queue": NAN}

    def resolved_json(self) -> str:
        return json.dumps({"name": "stand-in", "seed": 7, "topology": {"hosts": 4}})


def flow_columns(rows: list[tuple[str, int, float, float]]) -> dict[str, list[Any]]:
    """Columns of the flows table from (tag, size, start_us, fct_us or NaN) rows."""
    cols: dict[str, list[Any]] = {c: [] for c in (
        "id", "tag", "src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us",
        "slowdown", "delivered", "retransmits", "drops", "finished", "cc", "lb")}
    for i, (tag, size, start, fct) in enumerate(rows):
        done = not math.isnan(fct)
        ideal = size * 8 / 100e3  # us at 100 Gbps
        for col, value in [
            ("id", i), ("tag", tag), ("src", i % 4), ("dst", (i + 1) % 4), ("size", size),
            ("start_us", start), ("finish_us", start + fct), ("fct_us", fct), ("ideal_fct_us", ideal),
            ("slowdown", fct / ideal), ("delivered", size if done else 0), ("retransmits", 0),
            ("drops", 0), ("finished", done), ("cc", "dctcp"), ("lb", "ecmp"),
        ]:
            cols[col].append(value)
    return cols


ROWS = [
    ("a", 100_000, 0.0, 10.0),
    ("a", 100_000, 1.0, 20.0),
    ("a", 1_000_000, 2.0, 100.0),
    ("b", 1_000_000, 0.0, 200.0),
    ("b", 1_000_000, 5.0, NAN),
]
# The core's long form: categorical columns come as (codes, levels).
QUEUE = {"time_us": [0.0, 1.0, 0.0, 1.0], "kind": ([0, 0, 0, 0], ["port", "flow"]), "id": [0, 0, 1, 1],
         "metric": ([0, 0, 0, 0], ["queue_bytes"]), "value": [0.0, 500.0, 100.0, 0.0]}
PORTS = {"port": [0, 1], "name": ["h0->s0", "s0->h0"], "node": [0, 4], "peer": [4, 0], "tier": ["host", "host"],
         "rate_bps": [100_000_000_000] * 2, "up": [True, True]}
TRACE = {"time_us": [0.5], "event": ([1], ["enqueue", "dequeue"]), "port": [0], "flow": [0]}


def make(rows: list[tuple[str, int, float, float]] = ROWS, timeseries: Any = None, finished: bool = True,
         trace: Any = None) -> Result:
    sim = StandInSimulation(flow_columns(rows), timeseries, finished, trace)
    return Result.from_simulation(sim, wall_seconds=0.5)


def test_summary_per_workload_and_overall() -> None:
    s = make().summary
    assert s["name"] == "stand-in" and s["seed"] == 7 and s["complete"] is True
    assert s["sim_time_us"] == 2000.0
    assert s["events_per_second"] == 2000.0
    assert s["stats"] == {"events": 1000, "drops": 2, "mean_queue": None}
    assert list(s["workloads"]) == ["a", "b"]

    a = s["workloads"]["a"]
    assert (a["flows"], a["finished"]) == (3, 3)
    assert a["cct_us"] == pytest.approx(102.0)  # last finish 2 + 100, first start 0
    fct = np.array([10.0, 20.0, 100.0])
    assert a["fct_us"]["mean"] == pytest.approx(fct.mean())
    assert a["fct_us"]["p50"] == pytest.approx(20.0)
    assert a["fct_us"]["p99"] == pytest.approx(np.percentile(fct, 99))
    assert a["fct_us"]["p999"] == pytest.approx(np.percentile(fct, 99.9))
    assert a["fct_us"]["max"] == 100.0
    assert a["slowdown"]["max"] == pytest.approx(20.0 / 8.0)  # 100 KB ideal is 8 us

    b = s["workloads"]["b"]
    assert (b["flows"], b["finished"]) == (2, 1)
    assert b["cct_us"] is None  # a collective is not complete until all its flows are
    assert b["fct_us"]["p50"] == 200.0

    assert (s["all"]["flows"], s["all"]["finished"]) == (5, 4)
    assert s["all"]["cct_us"] is None


def test_collectives_count_complete_groups_and_their_span() -> None:
    # Two iterations of a 2-worker job (groups 0 and 1) and one flow in no group: group 0
    # spans from its first start (0) to its last delivery (1 + 20), group 1 is incomplete.
    cols = flow_columns([("job", 1000, 0.0, 10.0), ("job", 1000, 1.0, 20.0), ("job", 1000, 40.0, 5.0),
                         ("job", 1000, NAN, NAN), ("other", 1000, 0.0, 3.0)])
    cols["group"] = [0, 0, 1, 1, -1]
    s = Result.from_simulation(StandInSimulation(cols, None, True), wall_seconds=0.5).summary
    job = s["workloads"]["job"]["groups"]
    assert (job["count"], job["complete"]) == (2, 1)
    assert job["time_us"]["max"] == pytest.approx(21.0) and job["time_us"]["p50"] == pytest.approx(21.0)
    assert "groups" not in s["workloads"]["other"], "no collectives, no entry"
    assert s["all"]["groups"]["complete"] == 1


def test_group_table_gives_each_coflow_its_completion_time() -> None:
    # Coflow 0 arrives at 5 µs as three flows finishing at 5 + 10, 5 + 30 and 5 + 20: CCT
    # 30 µs, 3 MB. Coflow 1 arrives at 8 µs, one of its two flows unfinished: no CCT yet.
    # The flow in no group is left out.
    cols = flow_columns([("cf", 1_000_000, 5.0, 10.0), ("cf", 1_000_000, 5.0, 30.0), ("cf", 1_000_000, 5.0, 20.0),
                         ("cf", 500_000, 8.0, 4.0), ("cf", 500_000, 8.0, NAN), ("bg", 10, 0.0, 1.0)])
    cols["group"] = [0, 0, 0, 1, 1, -1]
    cols["priority"] = [6, 6, 6, 8, 8, 0]
    result = Result.from_simulation(StandInSimulation(cols, None, True), wall_seconds=0.5)
    g = result.groups
    assert g["group"].tolist() == [0, 1]
    assert g["priority"].tolist() == [6, 8]
    assert g["flows"].tolist() == [3, 2] and g["finished"].tolist() == [3, 1]
    assert g["bytes"].tolist() == [3_000_000, 1_000_000]
    assert g["start_us"].tolist() == [5.0, 8.0]
    assert g["cct_us"][0] == pytest.approx(30.0) and g["finish_us"][0] == pytest.approx(35.0)
    assert math.isnan(g["cct_us"][1]) and math.isnan(g["finish_us"][1])
    assert Result.from_simulation(StandInSimulation(flow_columns(ROWS), None, True), 0.5).groups.empty


def test_complete_follows_the_simulation() -> None:
    assert make(finished=False).complete is False


def test_write_produces_the_documented_files(tmp_path: Path) -> None:
    result = make(timeseries=QUEUE, trace=TRACE)
    out = result.write(tmp_path / "out", plots=True)
    for name in ("flows.parquet", "flows.csv", "summary.json", "fct_cdf.png", "slowdown_by_size.png",
                 "timeseries.parquet", "ports.parquet", "timeseries_port.png", "trace_events.parquet",
                 "trace.pcap"):
        assert (out / name).is_file(), name
    assert not (out / "timeseries_flow.png").exists(), "no flow was sampled"
    assert pd.read_parquet(out / "flows.parquet").equals(result.flows)
    assert len(pd.read_csv(out / "flows.csv")) == 5
    assert json.loads((out / "summary.json").read_text()) == result.summary
    series = pd.read_parquet(out / "timeseries.parquet")
    assert series["value"].tolist() == QUEUE["value"]
    assert series["metric"].astype(str).tolist() == ["queue_bytes"] * 4
    assert series["kind"].astype(str).tolist() == ["port"] * 4
    assert pd.read_parquet(out / "ports.parquet")["name"].tolist() == PORTS["name"]
    assert pd.read_parquet(out / "trace_events.parquet")["event"].astype(str).tolist() == ["dequeue"]
    assert (out / "trace.pcap").read_bytes() == b"pcap bytes"
    assert not (out / "groups.parquet").exists(), "no flow forms a group"


def test_flows_parquet_depends_only_on_the_data(tmp_path: Path) -> None:
    first = make().write(tmp_path / "1") / "flows.parquet"
    second = make().write(tmp_path / "2") / "flows.parquet"
    assert first.read_bytes() == second.read_bytes()


def test_no_finished_flows_and_empty_samplers_skip_plots_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unfinished = [("perm", -1, 0.0, NAN), ("perm", -1, 0.0, NAN)]
    empty = {"time_us": [], "kind": ([], ["port", "flow"]), "id": [], "metric": ([], ["queue_bytes"]), "value": []}
    out = make(unfinished, timeseries=empty, finished=False).write(tmp_path / "out", plots=True)
    assert sorted(p.name for p in out.iterdir()) == ["dcnsim-result.json", "flows.csv", "flows.parquet", "ports.parquet",
                                                      "summary.json"]
    notes = capsys.readouterr().err
    for name in ("fct_cdf.png", "slowdown_by_size.png"):
        assert f"note: {name} not written" in notes
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    assert summary["all"]["fct_us"] == dict.fromkeys(["mean", "p50", "p90", "p99", "p999", "max"])


def test_a_run_without_flows_writes_without_crashing(tmp_path: Path) -> None:
    out = make([]).write(tmp_path / "out")
    assert json.loads((out / "summary.json").read_text())["all"]["flows"] == 0


def test_rewriting_a_directory_drops_outputs_of_the_earlier_run(tmp_path: Path) -> None:
    make(timeseries=QUEUE, trace=TRACE).write(tmp_path, plots=True)
    assert list(tmp_path.glob("*.png"))
    (tmp_path / "timeseries_queue.parquet").write_bytes(b"")  # as dcnsim wrote before the long form
    make([("perm", -1, 0.0, NAN)]).write(tmp_path)
    assert not list(tmp_path.glob("*.png"))
    assert not list(tmp_path.glob("timeseries*"))
    assert not list(tmp_path.glob("trace*")) and not (tmp_path / "ports.parquet").exists()


def test_write_draws_no_plot_unless_asked_and_imports_neither_pandas_nor_matplotlib(tmp_path: Path) -> None:
    # In a fresh interpreter (this module imports pandas): a plain write of a result
    # with every kind of table needs neither pandas nor matplotlib, each of which takes
    # longer to import than a small simulation takes to run.
    code = "\n".join([
        "import sys",
        "sys.modules['pandas'] = sys.modules['matplotlib'] = None  # importing either now fails",
        "from dcnsim import Result",
        _standalone_make(),
        f"make(timeseries=QUEUE, trace=TRACE).write({str(tmp_path / 'out')!r})",
    ])
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.returncode == 0, child.stderr
    out = tmp_path / "out"
    assert not list(out.glob("*.png"))
    assert {"flows.parquet", "flows.csv", "summary.json", "timeseries.parquet", "ports.parquet",
            "trace_events.parquet", "trace.pcap"} <= {p.name for p in out.iterdir()}


def _standalone_make() -> str:
    """This module's stand-in simulation, data and ``make``, as source for a child
    interpreter that cannot import pandas."""
    import inspect

    return "\n".join([
        "import json, math",
        "from typing import Any",
        "NAN = math.nan",
        inspect.getsource(StandInSimulation),
        inspect.getsource(flow_columns),
        f"ROWS = {ROWS!r}".replace("nan", "NAN"),
        f"QUEUE = {QUEUE!r}", f"PORTS = {PORTS!r}", f"TRACE = {TRACE!r}",
        inspect.getsource(make),
    ])


def test_tables_read_back_as_pandas_writes_them(tmp_path: Path) -> None:
    # The files written from the core's columns are those pandas writes for the same
    # DataFrames: the same values and dtypes read back, the same CSV text.
    cols = flow_columns(ROWS + [("c", 5, NAN, NAN)])
    cols["group"] = [0, 0, -1, 1, 1, -1]
    result = Result.from_simulation(StandInSimulation(cols, QUEUE, True, TRACE), wall_seconds=0.5)
    out = result.write(tmp_path / "out")
    expected = pd.DataFrame(cols)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "flows.parquet"), expected)
    expected.to_csv(tmp_path / "pandas.csv", index=False)
    assert (out / "flows.csv").read_text() == (tmp_path / "pandas.csv").read_text()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "ports.parquet"), pd.DataFrame(PORTS))
    series = pd.read_parquet(out / "timeseries.parquet")
    assert series["kind"].dtype == "category" and list(series["kind"].cat.categories) == ["port", "flow"]
    assert series["id"].tolist() == QUEUE["id"] and series["time_us"].tolist() == QUEUE["time_us"]
    assert pd.read_parquet(out / "groups.parquet")["group"].tolist() == [0, 1]
    # Read after writing, the DataFrames are those of the files.
    pd.testing.assert_frame_equal(result.flows, expected)


def test_distribution_matches_numpy() -> None:
    # The summary's percentiles are numpy's default (linear) ones; NaN and infinities
    # (unfinished flows) are left out.
    from dcnsim._tables import distribution

    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 7, 10, 101, 1000):
        values = rng.lognormal(3.0, 1.5, n)
        d = distribution(list(values) + [NAN, math.inf])
        for key, q in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9)):
            assert d[key] == np.percentile(values, q), (n, key)
        assert d["mean"] == pytest.approx(values.mean(), rel=1e-14) and d["max"] == values.max()


def test_pure_and_pyarrow_parquet_read_back_alike(tmp_path: Path) -> None:
    # Small flow tables are written without pyarrow, large ones with it: both read back
    # as the DataFrame of the same columns.
    import pyarrow.parquet as pq

    from dcnsim import _parquet, _tables

    cols = flow_columns(ROWS * 3)
    cols["tag"][1] = "ünïcode, \"quoted\""
    _parquet.write(cols, tmp_path / "pure.parquet")
    pq.read_table(tmp_path / "pure.parquet").validate(full=True)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "pure.parquet"), pd.DataFrame(cols))
    # Past the pure writer's limit, pyarrow writes the same columns.
    cols = flow_columns(ROWS * (_tables.PURE_PARQUET_ROWS // len(ROWS) + 1))
    _tables.write_parquet(cols, tmp_path / "arrow.parquet")
    assert pq.ParquetFile(tmp_path / "arrow.parquet").metadata.created_by.startswith("parquet-cpp")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "arrow.parquet"), pd.DataFrame(cols))
