"""`dcnsim export --format hpcc`: fct.txt, pfc.txt and qlen.txt in the HPCC ns-3
simulator's layout. The readers below are written from that layout (docs/formats.md,
"HPCC output files"), and the expected lines are worked out by hand from the inputs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Callable, Optional

import pandas as pd
import pytest

import dcnsim
from dcnsim._export_hpcc import node_ip

Cli = Callable[..., "subprocess.CompletedProcess[str]"]


# -- readers of the HPCC simulator's files ------------------------------------------

def read_fct(path: Path) -> list[dict[str, int]]:
    """`sip dip sport dport size start_ns fct_ns standalone_fct_ns`, addresses in hex."""
    rows = []
    for line in path.read_text().splitlines():
        sip, dip, *rest = line.split()
        assert len(sip) == 8 and len(dip) == 8, line
        sport, dport, size, start, fct, ideal = map(int, rest)
        rows.append({"sip": int(sip, 16), "dip": int(dip, 16), "sport": sport, "dport": dport,
                     "size": size, "start": start, "fct": fct, "standalone": ideal})
    return rows


def ip_node(ip: int) -> int:
    """The node of an 11.0.x.1 address: bits 8..23."""
    assert ip & 0xFF000000 == 0x0B000000 and ip & 0xFF == 1
    return (ip >> 8) & 0xFFFF


def slowdowns_as_fct_analysis(rows: list[dict[str, int]], before_ns: int = 3_000_000_000) -> list[tuple[int, float]]:
    """What the HPCC simulator's fct_analysis.py keeps of fct.txt for ordinary flows:
    lines with destination port 100 that started before T, as (size, slowdown), slowdown =
    FCT / standalone FCT, at least 1, sorted by size."""
    kept = [(r["size"], max(r["fct"] / r["standalone"], 1.0)) for r in rows
            if r["dport"] == 100 and r["start"] < before_ns]
    return sorted(kept, key=lambda x: x[0])


def read_pfc(path: Path) -> list[tuple[int, int, int, int, int]]:
    """`time_ns node node_type if_index type` (type 1 PAUSE, 0 RESUME)."""
    rows = [tuple(map(int, line.split())) for line in path.read_text().splitlines()]
    assert all(len(r) == 5 and r[2] in (0, 1) and r[4] in (0, 1) for r in rows), rows
    return rows  # type: ignore[return-value]


def read_qlen(path: Path) -> list[tuple[int, dict[tuple[int, int], list[int]]]]:
    """Blocks of `time: T` then `node if_index c0 c1 ...` lines."""
    blocks: list[tuple[int, dict[tuple[int, int], list[int]]]] = []
    for line in path.read_text().splitlines():
        if line.startswith("time: "):
            blocks.append((int(line[len("time: "):]), {}))
            continue
        node, port, *counts = map(int, line.split())
        assert counts, line
        blocks[-1][1][(node, port)] = counts
    return blocks


# -- a hand-made result directory ---------------------------------------------------
# Two hosts (nodes 0, 1) under one switch (node 2). Port ids: 0 h0->s0, 1 s0->h0,
# 2 h1->s0, 3 s0->h1. Switch node 2 has ports 1 and 3: if_index 1 and 2; hosts have one.

PORTS = pd.DataFrame({
    "port": [0, 1, 2, 3], "name": ["h0->s0", "s0->h0", "h1->s0", "s0->h1"], "node": [0, 2, 1, 2],
    "peer": [2, 0, 2, 1], "tier": ["host"] * 4, "rate_bps": [100_000_000_000] * 4, "up": [True] * 4,
})

NAN = float("nan")
FLOWS = pd.DataFrame({
    "id": [0, 1, 2, 3, 4],
    "src": [0, 0, 1, 1, 300],
    "dst": [1, 1, 0, 0, 2],
    "size": [1000, 5000, 7000, 2000, 100],
    "start_us": [0.0, 1.0, 0.2, 0.5, 10.0],
    "fct_us": [2.5, 3.0, NAN, 1.0, 0.5],
    "ideal_fct_us": [1.25, 2.0, 1.5, 1.0, 0.5],
    "finished": [True, True, False, True, True],
})
# Finished in the order 3 (1.5 us), 0 (2.5), 1 (4.0), 4 (10.5). Host 0 numbers flows 0
# and 1 as source ports 10000, 10001; host 1 flows 2 and 3 as 10000, 10001.
FCT_LINES = [
    "0b000101 0b000001 10001 100 2000 500 1000 1000",
    "0b000001 0b000101 10000 100 1000 0 2500 1250",
    "0b000001 0b000101 10001 100 5000 1000 3000 2000",
    "0b012c01 0b000201 10000 100 100 10000 500 500",
]

# Frames out of time order, as a file may hold them; port 0 is host 0's NIC (node 0,
# type 0, if_index 1), port 3 switch 2's second port (if_index 2).
PFC = pd.DataFrame({
    "time_us": [1.0, 2.0, 1.5, 3.0],
    "port": [0, 0, 3, 3],
    "class": [0, 0, 0, 0],
    "event": ["pause", "resume", "pause", "resume"],
})
PFC_LINES = ["1000 0 0 1 1", "1500 2 1 2 1", "2000 0 0 1 0", "3000 2 1 2 0"]

# Queue samples every 1 us and at the end (3.5 us). Port 0 is a host NIC: left out.
# Port 1: 0, 1500, 999, 2000, 0 bytes -> 1 KB bins 0, 1, 0, 2, 0; port 3: bins 0, 0, 0, 0, 3.
_TIMES = [0.0, 1.0, 2.0, 3.0, 3.5]
_QUEUE = {0: [5000, 5000, 5000, 5000, 5000], 1: [0, 1500, 999, 2000, 0], 3: [0, 0, 0, 0, 3000]}


def _timeseries() -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for k, t in enumerate(_TIMES):
        for port, values in _QUEUE.items():
            rows.append({"time_us": t, "kind": "port", "id": port, "metric": "queue_bytes", "value": float(values[k])})
            rows.append({"time_us": t, "kind": "port", "id": port, "metric": "pfc_paused", "value": 0.0})
    ts = pd.DataFrame(rows)
    return ts.astype({"kind": "category", "metric": "category"})


def _summary(pfc: bool) -> dict[str, Any]:
    switch: dict[str, Any] = {"buffer": 1000000, "pfc": {"enabled": True, "lossless": ["data"]} if pfc else None}
    return {"name": "hand", "complete": True, "scenario": {"switch": switch}}


def _result_dir(path: Path, *, pfc: Optional[bool] = True, timeseries: bool = True) -> Path:
    """pfc: True writes the frames, False a run without PFC, None a PFC run without the file."""
    path.mkdir(parents=True)
    (path / "dcnsim-result.json").write_text(json.dumps({"kind": "run"}))
    (path / "summary.json").write_text(json.dumps(_summary(pfc is not False)))
    FLOWS.to_parquet(path / "flows.parquet", index=False)
    PORTS.to_parquet(path / "ports.parquet", index=False)
    if timeseries:
        _timeseries().to_parquet(path / "timeseries.parquet", index=False)
    if pfc:
        PFC.to_parquet(path / "pfc_events.parquet", index=False)
    return path


def test_node_addresses_are_the_hpcc_simulators() -> None:
    assert node_ip(0) == 0x0B000001
    assert node_ip(255) == 0x0B00FF01
    assert node_ip(256) == 0x0B010001
    assert node_ip(300) == 0x0B012C01
    assert all(ip_node(node_ip(i)) == i for i in (0, 1, 255, 256, 300, 4095))


def test_fct_txt_has_the_finished_flows_in_finish_order(tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run")
    done = dcnsim.export_hpcc(run, qlen_dump="2us")
    assert done.out == run / "hpcc" and not done.skipped
    assert (run / "hpcc" / "fct.txt").read_text().splitlines() == FCT_LINES
    rows = read_fct(run / "hpcc" / "fct.txt")
    assert [ip_node(r["sip"]) for r in rows] == [1, 0, 0, 300]
    # fct_analysis.py's view: sizes with slowdown FCT / standalone (at least 1).
    assert slowdowns_as_fct_analysis(rows) == [(100, 1.0), (1000, 2.0), (2000, 1.0), (5000, 1.5)]
    assert slowdowns_as_fct_analysis(rows, before_ns=1000) == [(1000, 2.0), (2000, 1.0)]


def test_pfc_txt_lists_each_frame_at_the_paused_port(tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run")
    dcnsim.export_hpcc(run)
    assert (run / "hpcc" / "pfc.txt").read_text().splitlines() == PFC_LINES
    rows = read_pfc(run / "hpcc" / "pfc.txt")
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    by_port: dict[tuple[int, int], list[int]] = {}
    for _, node, _, port, kind in rows:
        by_port.setdefault((node, port), []).append(kind)
    assert all(kinds == [1, 0] * (len(kinds) // 2) for kinds in by_port.values()), by_port


def test_qlen_txt_cumulative_histograms_per_switch_port(tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run")
    dcnsim.export_hpcc(run, qlen_dump="2us")
    assert (run / "hpcc" / "qlen.txt").read_text().splitlines() == [
        "time: 0", "2 1 1", "2 2 1",
        "time: 2000", "2 1 2 1", "2 2 3",
        "time: 3500", "2 1 3 1 1", "2 2 4 0 0 1",
    ]
    blocks = read_qlen(run / "hpcc" / "qlen.txt")
    for t, ports in blocks:
        samples = sum(1 for s in _TIMES if s * 1000 <= t)
        assert {key: sum(c) for key, c in ports.items()} == {(2, 1): samples, (2, 2): samples}
    # Blocks at the first sample at or after each multiple of the interval, and the last.
    dcnsim.export_hpcc(run, qlen_dump="1.5us")
    assert [t for t, _ in read_qlen(run / "hpcc" / "qlen.txt")] == [0, 2000, 3000, 3500]
    dcnsim.export_hpcc(run, qlen_dump="end")
    assert [t for t, _ in read_qlen(run / "hpcc" / "qlen.txt")] == [3500]


def test_files_without_data_are_skipped_saying_what_the_run_needs(tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run", pfc=None, timeseries=False)
    done = dcnsim.export_hpcc(run)
    assert [p.name for p in done.written] == ["fct.txt"]
    assert "[observe]" in done.skipped["qlen.txt"] and '"queue"' in done.skipped["qlen.txt"]
    assert "pfc_events.parquet" in done.skipped["pfc.txt"] and "[switch.pfc]" in done.skipped["pfc.txt"]
    # A run without PFC has no frames: an empty pfc.txt, as the HPCC simulator leaves.
    no_pfc = _result_dir(tmp_path / "no_pfc", pfc=False)
    done = dcnsim.export_hpcc(no_pfc)
    assert not done.skipped and (no_pfc / "hpcc" / "pfc.txt").read_text() == ""


def test_a_result_object_exports_to_a_given_directory(tmp_path: Path) -> None:
    result = dcnsim.Result(FLOWS, _timeseries(), _summary(False), PORTS)
    with pytest.raises(dcnsim.UsageError, match="out="):
        dcnsim.export_hpcc(result)
    done = dcnsim.export_hpcc(result, tmp_path / "x", qlen_dump="2us")
    assert (done.out / "fct.txt").read_text().splitlines() == FCT_LINES
    assert read_qlen(done.out / "qlen.txt")[-1][1] == {(2, 1): [3, 1, 1], (2, 2): [4, 0, 0, 1]}


def test_a_new_run_in_the_directory_removes_the_old_export(tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run")
    dcnsim.export_hpcc(run)
    (run / "hpcc" / "mine.txt").write_text("the user's own")
    summary = {**_summary(False), "all": {}, "workloads": {}}
    dcnsim.Result(FLOWS, _timeseries(), summary, PORTS).write(run, plots=False)
    assert sorted(p.name for p in (run / "hpcc").iterdir()) == ["mine.txt"]
    (run / "hpcc" / "mine.txt").unlink()
    dcnsim.export_hpcc(run)
    dcnsim.Result(FLOWS, _timeseries(), summary, PORTS).write(run, plots=False)
    assert not (run / "hpcc").exists()


def test_cli_export_and_its_errors(dcnsim_cli: Cli, tmp_path: Path) -> None:
    run = _result_dir(tmp_path / "run", timeseries=False)
    done = dcnsim_cli("export", str(run), "--format", "hpcc", "--out", str(tmp_path / "h"))
    assert done.returncode == 0, done.stderr
    assert "wrote fct.txt, pfc.txt to" in done.stdout
    assert done.stderr.startswith("note: skipped qlen.txt: needs the queue time series: add [observe]")
    assert (tmp_path / "h" / "fct.txt").read_text().splitlines() == FCT_LINES

    def one_line_error(*args: str) -> str:
        failed = dcnsim_cli("export", *args)
        assert failed.returncode == 2, failed.stderr
        assert failed.stderr.startswith("error: ") and failed.stderr.count("\n") == 1, failed.stderr
        return failed.stderr

    assert "--format ns3: allowed hpcc" in one_line_error(str(run), "--format", "ns3")
    assert "--format is required: allowed hpcc" in one_line_error(str(run))
    assert "no such directory" in one_line_error(str(tmp_path / "nope"), "--format", "hpcc")
    assert "--qlen-dump 5x: allowed a time" in one_line_error(str(run), "--format", "hpcc", "--qlen-dump", "5x")
    assert "holds the results of a run" in one_line_error(str(run), "--format", "hpcc", "--out", str(run))
    (tmp_path / "afile").write_text("")
    assert "is a file" in one_line_error(str(run), "--format", "hpcc", "--out", str(tmp_path / "afile"))
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "dcnsim-result.json").write_text(json.dumps({"kind": "sweep"}))
    assert "runs" in one_line_error(str(sweep), "--format", "hpcc")
    not_run = tmp_path / "empty"
    not_run.mkdir()
    assert "no flows.parquet" in one_line_error(str(not_run), "--format", "hpcc")


# -- a real run: two lone single-packet flows ----------------------------------------

TWO_FLOWS = """\
name = "two"
[topology]
kind = "file"
file = "two.csv"
hosts = 2
[transport]
cc = "dctcp"
[observe]
interval = "1us"
metrics = ["queue"]
[[workload]]
kind = "flows"
file = "flows.csv"
"""


@pytest.mark.core
def test_a_two_flow_run_exports_the_fcts_worked_out_by_hand(tmp_path: Path) -> None:
    (tmp_path / "two.csv").write_text("a,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s0,100Gbps,1us\n")
    (tmp_path / "flows.csv").write_text("src,dst,size,start\n0,1,1000,0us\n1,0,1000,0us\n")
    (tmp_path / "two.toml").write_text(TWO_FLOWS)
    out = tmp_path / "run"
    result = dcnsim.run(tmp_path / "two.toml", out=out)
    assert result.pfc_events is None and not (out / "pfc_events.parquet").exists()
    dcnsim.export_hpcc(out)
    assert (out / "hpcc" / "pfc.txt").read_text() == ""  # no PFC, no frame
    # One packet of 1000 + 64 B header: 85.12 ns to serialise at 100 Gbit/s, twice
    # (store and forward at the switch), plus 2 x 1 us of links: 2170.24 ns, alone.
    rows = read_fct(out / "hpcc" / "fct.txt")
    assert sorted((ip_node(r["sip"]), ip_node(r["dip"]), r["sport"], r["dport"], r["size"], r["start"], r["fct"],
                   r["standalone"]) for r in rows) == [(0, 1, 10000, 100, 1000, 0, 2170, 2170),
                                                       (1, 0, 10000, 100, 1000, 0, 2170, 2170)]
    # Queue samples at 0, 1 and 2 us and at the end; a lone packet never waits: all in bin 0.
    # The switch is node 2 with two ports.
    blocks = read_qlen(out / "hpcc" / "qlen.txt")
    assert [t for t, _ in blocks][0] == 0
    assert blocks[-1][1] == {(2, 1): [4], (2, 2): [4]}


@pytest.mark.core
def test_if_index_follows_the_link_order_of_an_hpcc_topology_file(tmp_path: Path) -> None:
    # The HPCC simulator gives a node's links device indices 1, 2, ... in the order the
    # topology file lists them. Node 2's links: to 3 (line 1), to 0 (line 2); node 3's:
    # to 2 (line 1), to 1 (line 3). Only the ports 2->3 and 3->1 are sampled.
    (tmp_path / "topo.txt").write_text("4 2 3\n2 3\n2 3 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n"
                                       "1 3 100Gbps 0.001ms 0\n")
    (tmp_path / "flows.csv").write_text("src,dst,size,start\n0,1,1000,0us\n")
    (tmp_path / "h.toml").write_text(
        'name = "h"\n[topology]\nkind = "file"\nfile = "topo.txt"\nhosts = 2\n'
        '[observe]\ninterval = "1us"\nmetrics = ["queue"]\nports = ["s0->s1", "s1->h1"]\n'
        '[[workload]]\nkind = "flows"\nfile = "flows.csv"\n')
    out = tmp_path / "run"
    dcnsim.run(tmp_path / "h.toml", out=out)
    dcnsim.export_hpcc(out, qlen_dump="end")
    (_, ports), = read_qlen(out / "hpcc" / "qlen.txt")
    assert sorted(ports) == [(2, 1), (3, 2)]


@pytest.mark.core
def test_an_incast_under_pfc_lists_pauses_at_the_senders_nics(tmp_path: Path) -> None:
    # Hosts 0 and 1 send to host 2 through switch node 3 at line rate (no congestion
    # control); the switch pauses the two links it receives them over, so every frame
    # reaches a sender's NIC: node 0 or 1, type 0 (host), if_index 1 (its only port).
    (tmp_path / "star.csv").write_text("a,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s0,100Gbps,1us\nh2,s0,100Gbps,1us\n")
    (tmp_path / "flows.csv").write_text("src,dst,size,start\n0,2,400KB,0us\n1,2,400KB,0us\n")
    (tmp_path / "incast.toml").write_text(
        'name = "incast"\n[topology]\nkind = "file"\nfile = "star.csv"\nhosts = 3\n'
        '[switch]\nbuffer = "200KB"\n[switch.pfc]\n[transport]\ncc = "none"\n'
        '[[workload]]\nkind = "flows"\nfile = "flows.csv"\n')
    out = tmp_path / "run"
    result = dcnsim.run(tmp_path / "incast.toml", out=out)
    assert len(pd.read_parquet(out / "pfc_events.parquet")) == len(result.pfc_events)
    done = dcnsim.export_hpcc(out)
    assert "pfc.txt" not in done.skipped
    rows = read_pfc(out / "hpcc" / "pfc.txt")
    stats = result.summary["stats"]
    assert len(rows) == stats["pfc_pause_frames"] + stats["pfc_resume_frames"] > 0
    assert {(node, kind, port) for _, node, kind, port, _ in rows} <= {(0, 0, 1), (1, 0, 1)}
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    for node in (0, 1):
        kinds = [r[4] for r in rows if r[1] == node]
        assert kinds == [1, 0] * (len(kinds) // 2) + [1] * (len(kinds) % 2), (node, kinds)
    assert len(read_fct(out / "hpcc" / "fct.txt")) == 2
