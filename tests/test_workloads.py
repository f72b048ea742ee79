"""Workload shapes and imports, end to end through the compiled simulator. Each check is
a property of the workload's definition (a derangement, n·(n−1) pairs, N:1), not a number
read off an earlier run."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim

pytestmark = pytest.mark.core

TOPOLOGY = """
seed = 7
[topology]
kind = "fat_tree"
tiers = 2
hosts = 32
link_rate = "100Gbps"
"""


def run(tmp_path: Path, workloads: str, files: dict[str, str] | None = None) -> dcnsim.Result:
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    scenario = tmp_path / "s.toml"
    scenario.write_text(TOPOLOGY + workloads)
    return dcnsim.run(scenario)


def test_permutation_is_a_derangement_over_the_chosen_subset(tmp_path: Path) -> None:
    flows = run(tmp_path, '[[workload]]\nkind = "permutation"\nhosts = 12\nsize = "64KB"\n').flows
    assert len(flows) == 12
    assert sorted(flows.src) == sorted(flows.dst), "every chosen host sends once and receives once"
    assert (flows.src != flows.dst).all()
    assert flows.finished.all()


def test_all_to_all_has_every_ordered_pair(tmp_path: Path) -> None:
    flows = run(tmp_path, '[[workload]]\nkind = "all_to_all"\nhosts = [0, 5, 9, 30]\nsize = "16KB"\n').flows
    pairs = set(zip(flows.src, flows.dst))
    assert pairs == {(a, b) for a in (0, 5, 9, 30) for b in (0, 5, 9, 30) if a != b}


def test_incast_sends_everything_to_the_receiver(tmp_path: Path) -> None:
    flows = run(tmp_path, '[[workload]]\nkind = "incast"\nsenders = 10\nreceiver = 3\nsize = "100KB"\n').flows
    assert len(flows) == 10 and (flows.dst == 3).all() and flows.src.nunique() == 10
    assert (flows.delivered == 100_000).all(), "a finished flow delivered exactly its size"


def test_flow_csv_and_htsim_cm_resolve_relative_to_the_scenario(tmp_path: Path) -> None:
    files = {
        "flows.csv": "src,dst,size,start\n0,1,2MB,0\n2,3,1500,10us\n",
        "matrix.cm": "Nodes 32\nConnections 2\n4->5 id 1 start 0 size 4096\n6->7 id 2 start 12.5 size 9000\n",
    }
    result = run(
        tmp_path,
        '[[workload]]\nkind = "flows"\nfile = "flows.csv"\ntag = "csv"\n'
        '[[workload]]\nkind = "htsim_cm"\nfile = "matrix.cm"\ntag = "cm"\n',
        files,
    )
    f = result.flows.set_index(["src", "dst"])
    assert f.loc[(0, 1), "size"] == 2_000_000 and f.loc[(2, 3), "start_us"] == 10.0
    assert f.loc[(6, 7), "start_us"] == 12.5 and f.loc[(6, 7), "tag"] == "cm"
    assert result.flows.finished.all()
    assert set(result.summary["workloads"]) == {"csv", "cm"}


def test_hpcc_flow_file_keeps_its_sizes_and_start_times(tmp_path: Path) -> None:
    # The HPCC simulator's flow.txt: a count, then `src dst pg dport size start_seconds`.
    files = {"flow.txt": "2\n4 5 3 100 4096 0.000002\n6 7 3 100 9000 0.0000125\n"}
    result = run(tmp_path, '[[workload]]\nkind = "hpcc_flows"\nfile = "flow.txt"\n', files)
    f = result.flows.set_index(["src", "dst"])
    assert f.loc[(4, 5), "size"] == 4096 and f.loc[(4, 5), "start_us"] == 2.0
    assert f.loc[(6, 7), "size"] == 9000 and f.loc[(6, 7), "start_us"] == 12.5
    assert result.flows.finished.all()


def test_infinite_flows_stop_and_report_delivered_bytes(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        '[[workload]]\nkind = "permutation"\nhosts = 4\nsize = "infinite"\nstop = "200us"\n',
    )
    flows = result.flows
    assert (flows["size"] == -1).all() and not flows.finished.any()
    # At most the link rate for the flow's lifetime can have arrived.
    assert (flows.delivered <= 100e9 / 8 * 200e-6).all()
    assert (flows.delivered > 0).all()


def test_time_series_obey_their_invariants(tmp_path: Path) -> None:
    result = run(
        tmp_path,
        '[output]\nsample_interval = "5us"\n'
        '[switch]\nbuffer = "200KB"\n'
        '[[workload]]\nkind = "incast"\nsenders = 8\nreceiver = 0\nsize = "500KB"\n',
    )
    ts = result.timeseries
    assert {"queue_bytes", "cwnd_bytes", "delivered_bytes", "cc.alpha"} <= set(ts["metric"].astype(str))
    q = ts[ts["metric"] == "queue_bytes"]
    assert (q.value >= 0).all() and (q.value <= 200_000).all(), "a queue never exceeds its buffer"
    assert q.value.max() > 0, "an 8:1 incast queues somewhere"
    times = sorted(q.time_us.unique())
    # Every 5 us, and a last sample when the run ends between two.
    assert all(abs(b - a - 5.0) < 1e-9 for a, b in zip(times, times[1:-1])) and 0 < times[-1] - times[-2] <= 5.0
    c = ts[ts["metric"] == "delivered_bytes"]
    for _, g in c.groupby("id"):
        d = g.sort_values("time_us").value
        assert d.is_monotonic_increasing and d.max() <= 500_000
    alpha = ts[ts["metric"] == "cc.alpha"].value
    assert ((alpha >= 0) & (alpha <= 1)).all()


PKT_US = 4160 * 8 / 100e9 * 1e6  # 4096 B payload + 64 B header at 100 Gbps


def test_coflow_completion_time_is_the_serialisation_through_the_reducer(tmp_path: Path) -> None:
    """2 mappers x 1 reducer on a 3-host star with line-rate senders: S = 2 x 100 packets
    cross the reducer's link back to back once the first packets arrive (one
    serialisation and 1 us in), then 1 us more: CCT = 201 packet times + 2 us."""
    scenario = tmp_path / "coflow.toml"
    scenario.write_text(
        'seed = 3\n[topology]\nkind = "star"\nhosts = 3\nlink_rate = "100Gbps"\nlink_latency = "1us"\n'
        'mtu = "4160B"\n[switch]\nbuffer = "100MB"\n[transport]\ncc = "none"\nheader = "64B"\n'
        '[[workload]]\nkind = "coflow"\nsize = 819200\nmappers = 2\nreducers = 1\ncoflows = 1\nload = 0.1\n'
        'priority = { edges = ["0.5MB", "1MB"] }\n')
    result = dcnsim.run(scenario)
    groups = result.groups
    assert len(groups) == 1
    row = groups.iloc[0]
    assert (row["flows"], row["finished"], row["bytes"], row["priority"]) == (2, 2, 819_200, 2)
    assert row["cct_us"] == pytest.approx(201 * PKT_US + 2.0, abs=1e-6)
    assert row["start_us"] == pytest.approx(result.flows["start_us"].min())
    out = result.write(tmp_path / "out", plots=False)
    assert (out / "groups.parquet").is_file()
