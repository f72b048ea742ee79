"""Time series (``[observe]``) and packet traces (``[trace]``), issue 9 items 1 and 3.

The expected packets, timestamps and sizes of the pcap are computed here from the
topology (link rate, latency, MTU, header), not read off dcnsim's own output; the pcap
is read back with dpkt. The long-form time series is checked against figures that follow
from the setting (a saturated bottleneck, the buffer bound, the run's counters).
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import dpkt
import numpy as np
import pandas as pd
import pytest

import dcnsim

pytestmark = pytest.mark.core

RATE_BPS = 100e9
LATENCY_PS = 1_000_000  # 1 us
MTU, HEADER = 4096, 64


def ser_ps(wire_bytes: int) -> int:
    """Serialisation time at 100 Gbps, in picoseconds (80 ps per byte, exact)."""
    return round(wire_bytes * 8 / RATE_BPS * 1e12)


def three_packet_run(tmp_path: Path) -> Path:
    (tmp_path / "flows.csv").write_text("src,dst,size,start\n0,1,10000,0us\n")
    spec = {
        "name": "three-packets",
        "duration": "20us",  # the run would end with the last byte; this lets the ACKs come back
        "topology": {"kind": "star", "hosts": 2, "link_rate": "100Gbps", "link_latency": "1us", "mtu": f"{MTU}B"},
        "transport": {"cc": "dctcp", "header": f"{HEADER}B"},
        "workload": [{"kind": "flows", "file": "flows.csv"}],
        "trace": {"flows": [0]},
    }
    dcnsim.run(spec, base_dir=tmp_path, out=tmp_path / "out")
    return tmp_path / "out"


def pcap_records(path: Path) -> list[tuple[int, int, int, bytes]]:
    """(timestamp in ns, caplen, orig_len, frame) of every record, read by hand."""
    data = path.read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack_from("<IHHiIII", data, 0)
    assert (magic, major, minor, snaplen, linktype) == (0xA1B23C4D, 2, 4, 64, 1)  # ns pcap, Ethernet
    out, offset = [], 24
    while offset < len(data):
        sec, nsec, caplen, orig_len = struct.unpack_from("<IIII", data, offset)
        offset += 16
        out.append((sec * 10**9 + nsec, caplen, orig_len, data[offset:offset + caplen]))
        offset += caplen
    return out


def test_pcap_of_a_three_packet_flow_has_the_expected_packets_timestamps_and_sizes(tmp_path: Path) -> None:
    out = three_packet_run(tmp_path)

    # The flow: 10000 payload bytes in packets of MTU - header = 4032, so 4032, 4032 and
    # 1936 payload bytes, i.e. 4096, 4096 and 2000 on the wire. The sender's NIC sends
    # them back to back from t = 0 (the initial window of 10 packets holds all three).
    payload = MTU - HEADER
    wire = [payload + HEADER, payload + HEADER, 10_000 - 2 * payload + HEADER]
    sent = [0, ser_ps(wire[0]), ser_ps(wire[0]) + ser_ps(wire[1])]
    # Store and forward through the switch: a packet starts there when it has arrived
    # whole and the previous one has left; it then reaches host 1 one serialisation and
    # one latency later.
    delivered, switch_free = [], 0
    for t, w in zip(sent, wire):
        start = max(t + ser_ps(w) + LATENCY_PS, switch_free)
        switch_free = start + ser_ps(w)
        delivered.append(switch_free + LATENCY_PS)
    # Host 1 acknowledges each packet at once with a 64-byte ACK over two idle links.
    acked = [d + 2 * (ser_ps(HEADER) + LATENCY_PS) for d in delivered]

    records = pcap_records(out / "trace.pcap")
    expected_ns = [t // 1000 for t in sent + acked]
    assert [r[0] for r in records] == expected_ns
    assert [r[2] for r in records] == wire + [HEADER] * 3, "orig_len is the simulated wire size"
    assert [r[1] for r in records] == [64] * 6, "the 64 header bytes are stored"

    # dpkt reads the same file: Ethernet / IPv4 / UDP and the dcnsim header.
    with open(out / "trace.pcap", "rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == dpkt.pcap.DLT_EN10MB
        packets = list(reader)
    assert len(packets) == 6
    for i, ((ts, frame), ns) in enumerate(zip(packets, expected_ns)):
        assert ts * 10**9 == ns  # dpkt gives nanosecond timestamps as exact Decimals
        ip = dpkt.ethernet.Ethernet(frame).data
        assert isinstance(ip, dpkt.ip.IP) and isinstance(ip.data, dpkt.udp.UDP)
        data = i < 3
        src, dst = ("10.0.0.0", "10.0.0.1") if data else ("10.0.0.1", "10.0.0.0")
        assert (dpkt.utils.inet_to_str(ip.src), dpkt.utils.inet_to_str(ip.dst)) == (src, dst)
        assert ip.len == records[i][2] - 14 and ip.p == dpkt.ip.IP_PROTO_UDP
        assert ip.tos & 0b11 == (0b10 if data else 0), "DCTCP's data carry ECT(0); ACKs no ECN codepoint"
        udp = ip.data
        assert (udp.sport, udp.dport) == ((61440, 46000) if data else (46000, 61440))
        kind, priority, flags, flow, psn, sacked = struct.unpack_from(">BBHIII", bytes(udp.data), 0)
        sent_ns = int.from_bytes(bytes(udp.data)[16:22], "big")
        k = i if data else i - 3
        assert (kind, flow, priority) == (0 if data else 1, 0, 0)
        assert psn == (k if data else k + 1), "data: its PSN; ACK: the cumulative ACK"
        assert sent_ns == sent[k] // 1000, "data: when it left; ACK: the echo"
        if not data:
            assert sacked == k


@pytest.mark.skipif(shutil.which("tshark") is None, reason="Wireshark's tshark is not installed")
def test_wireshark_reads_the_pcap_as_ethernet_ipv4_udp_without_complaint(tmp_path: Path) -> None:
    out = three_packet_run(tmp_path)
    fields = ["frame.len", "frame.cap_len", "ip.src", "ip.dst", "ip.dsfield.ecn", "ip.checksum.status",
              "udp.srcport", "udp.dstport", "_ws.col.Protocol", "_ws.expert.message"]
    done = subprocess.run(["tshark", "-r", str(out / "trace.pcap"), "-o", "ip.check_checksum:TRUE", "-T", "fields",
                           *[arg for f in fields for arg in ("-e", f)]], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert [r[:4] for r in rows] == (
        [[w, "64", "10.0.0.0", "10.0.0.1"] for w in ("4096", "4096", "2000")] + [["64", "64", "10.0.0.1", "10.0.0.0"]] * 3)
    for r in rows:
        assert r[5] == "1", "a good IPv4 header checksum (0 bad, 1 good, 2 unverified)"
        assert r[8] == "UDP", "no dissector claims the dcnsim ports: the header shows as data"
        assert "Malformed" not in r[9], r


def test_the_event_log_follows_each_packet(tmp_path: Path) -> None:
    events = pd.read_parquet(three_packet_run(tmp_path) / "trace_events.parquet")
    assert list(events.columns) == ["time_us", "event", "node", "port", "flow", "packet", "psn", "size",
                                    "queue_bytes", "sent_at_us", "flags"]
    assert events["time_us"].is_monotonic_increasing
    data = events[events["packet"] == "data"]
    for psn, one in data.groupby("psn"):
        # NIC (node 0): dequeue; switch (node 2): enqueue, dequeue; host 1: deliver.
        assert list(zip(one["event"].astype(str), one["node"])) == [
            ("dequeue", 0), ("enqueue", 2), ("dequeue", 2), ("deliver", 1)], psn
    acks = events[events["packet"] == "ack"]
    assert (acks.groupby("psn")["event"].apply(lambda e: list(e.astype(str)))
            == [["enqueue", "dequeue", "enqueue", "dequeue", "ack"]] * 3).all()
    ports = pd.read_parquet(tmp_path / "out" / "ports.parquet")
    names = ports.set_index("port")["name"]
    assert set(names[data["port"]]) == {"h0->s0", "s0->h1"}


DUMBBELL = {
    "name": "dumbbell", "duration": "1ms",
    "topology": {"kind": "dumbbell", "hosts": 2, "link_rate": "100Gbps", "bottleneck_rate": "10Gbps",
                 "link_latency": "1us", "mtu": "4096B"},
    "switch": {"buffer": "100KB", "ecn": {"kmin": "30KB", "kmax": "30KB"}},
    "transport": {"cc": "dctcp"},
    "workload": [{"kind": "permutation", "size": "infinite"}],
}


def test_long_form_time_series_of_a_dumbbell_meet_the_analytic_figures(tmp_path: Path) -> None:
    spec = {**DUMBBELL, "observe": {"interval": "10us", "ports": "switch"}}
    dcnsim.run(spec, out=tmp_path / "out")
    ts = pd.read_parquet(tmp_path / "out" / "timeseries.parquet")
    ports = pd.read_parquet(tmp_path / "out" / "ports.parquet")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert list(ts.columns) == ["time_us", "kind", "id", "metric", "value"]

    # The documented pivot: one column per port, one row per sample time.
    util = ts[ts["metric"] == "utilisation"].pivot(index="time_us", columns="id", values="value")
    util.columns = ports.set_index("port")["name"][util.columns]
    assert list(util.index) == pytest.approx(np.arange(10, 1001, 10.0)), "none at time 0"
    # Both hosts send (a permutation of 2): each direction of the 10 Gbps link is saturated
    # after slow start, by one flow's data and the other's ACKs; a host's 100 Gbps
    # downlink carries what crossed the bottleneck towards it.
    steady = util[util.index > 100]
    assert steady[["s0->s1", "s1->s0"]].min().min() > 0.999
    assert steady[["s0->s1", "s1->s0"]].max().max() <= 1 + 1e-9
    downlink = steady["s1->h1"].mean()
    assert downlink == pytest.approx(0.1, rel=2e-3), "10 of 100 Gbps"

    queue = ts[ts["metric"] == "queue_bytes"]["value"]
    assert queue.between(0, 100_000).all() and queue.max() > 0
    marks = ts[ts["metric"] == "ecn_marks"]["value"].sum()
    assert marks > 0 and marks == summary["stats"]["ecn_marks"]
    flows = ts[ts["kind"] == "flow"]
    assert {"cwnd_bytes", "in_flight_bytes", "delivered_bytes", "send_rate_gbps", "goodput_gbps", "srtt_us",
            "cc.alpha"} <= set(flows["metric"].astype(str))
    goodput = flows[(flows["metric"] == "goodput_gbps") & (flows["time_us"] > 100)]["value"]
    # Per 4096-byte data packet of one flow the link also carries a 64-byte ACK of the
    # other; 4032 of the 4096 bytes are payload.
    assert goodput.mean() == pytest.approx(10 * 4032 / (4096 + 64), rel=5e-3)


def test_output_sample_interval_is_the_older_spelling_of_observe(tmp_path: Path) -> None:
    old = dcnsim.run({**DUMBBELL, "output": {"sample_interval": "50us", "queues": "all", "cwnd": False}})
    new = dcnsim.run({**DUMBBELL, "observe": {"interval": "50us", "ports": "all", "flows": []}})
    pd.testing.assert_frame_equal(old.timeseries, new.timeseries)
    assert old.summary["scenario"]["output"] == {"sample_interval": "50us", "queues": "all", "cwnd": False, "fct": "receiver"}
    assert "observe" not in old.summary["scenario"]
    assert new.summary["scenario"]["observe"]["metrics"] == "all"


def test_observation_off_writes_no_series_and_bad_selections_are_clear_errors(tmp_path: Path,
                                                                              child_env: dict[str, str]) -> None:
    plain = dcnsim.run(DUMBBELL, out=tmp_path / "plain")
    assert plain.timeseries.empty and plain.ports is None and plain.trace is None and plain.pcap is None
    assert not list((tmp_path / "plain").glob("timeseries*")) and not (tmp_path / "plain" / "ports.parquet").exists()

    (tmp_path / "bad.toml").write_text(
        '[topology]\nkind = "star"\nhosts = 4\n[[workload]]\nkind = "permutation"\nsize = "1MB"\n'
        '[observe]\ninterval = "1us"\nports = ["s0->h9"]\n')
    done = subprocess.run([sys.executable, "-m", "dcnsim", "run", "bad.toml", "--quiet"], cwd=tmp_path,
                          env=child_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith('error: observe.ports: "s0->h9": there is no node "h9"'), done.stderr
    with pytest.raises(dcnsim.ScenarioError, match=r'^trace.flows: 5 is out of range: the workloads make 2 flows'):
        dcnsim.run({**DUMBBELL, "trace": {"flows": [5]}})
    with pytest.raises(dcnsim.ScenarioError, match=r'^observe.metrics: "bytes" is not a metric; allowed'):
        dcnsim.run({**DUMBBELL, "observe": {"interval": "1us", "metrics": ["queue", "bytes"]}})
