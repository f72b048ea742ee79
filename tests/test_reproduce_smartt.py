"""``dcnsim reproduce smartt``: the ideal times and metrics on hand-computed inputs
(docs/reproductions/smartt-paper.md), the cells of the grid and their overrides, every quick
scenario validated by the core without running it, and a two-point E12 end to end."""

from __future__ import annotations

import dataclasses
import io
import math

import pytest

from dcnsim.repro.papers import smartt as rs

SER = 4160 * 8 / 800e9 * 1e6  # 0.0416 us: one frame at 800 Gbps
ACK = 64 * 8 / 800e9 * 1e6  # 0.00064 us


def paper_fabric(hosts: int = 1024, tiers: tuple[int, int] = (4, 2)) -> rs.Fabric:
    spec = {"topology": {"hosts": hosts, "oversubscription_tiers": list(tiers), "link_rate": "800Gbps",
                         "link_latency": "600ns", "switch_latency": "400ns", "mtu": "4160B"},
            "transport": {"header": "64B"}}
    return rs.Fabric.of(spec)


# ---------------------------------------------------------------------------------------
# Geometry (docs/reproductions/smartt-paper.md)


def test_base_rtts_of_the_three_path_classes():
    # inter-pod: 2 * (6 * 0.6 + 5 * 0.4) + 6 * (0.0416 + 0.00064) = 11.2 + 0.25344
    assert rs.base_rtt_us(6, 5, 0.6, 0.4, 4160, 64, 800e9) == pytest.approx(11.45344)
    assert rs.base_rtt_us(4, 3, 0.6, 0.4, 4160, 64, 800e9) == pytest.approx(7.36896)  # intra-pod
    assert rs.base_rtt_us(2, 1, 0.6, 0.4, 4160, 64, 800e9) == pytest.approx(3.28448)  # intra-rack


def test_wire_bytes_count_one_header_per_packet():
    assert rs.wire_bytes(2 * rs.MIB) == 2_097_152 + 512 * 64 == 2_129_920
    assert rs.wire_bytes(1) == 65
    assert rs.wire_bytes(4096) == 4160 and rs.wire_bytes(4097) == 4097 + 2 * 64


def test_the_paper_fabric():
    f = paper_fabric()
    assert (f.k, f.hosts_per_tor, f.hosts_per_pod, f.oversubscription) == (16, 8, 64, 8)
    assert f.brtt_us == pytest.approx(11.45344)
    assert f.bdp_bytes == pytest.approx(1_145_344)  # docs/reproductions/smartt-paper.md
    assert f.one_way_us == pytest.approx(6 * 0.6 + 5 * 0.4 + 6 * SER)  # 5.8496
    assert f.one_way_us == pytest.approx(f.brtt_us - (6 * 0.6 + 5 * 0.4 + 6 * ACK))
    small = paper_fabric(128, (1, 4))
    assert (small.k, small.hosts_per_tor, small.hosts_per_pod, small.oversubscription) == (8, 4, 16, 4)
    nonblocking = rs.Fabric.of({"topology": {"hosts": 1024}})
    assert nonblocking.oversubscription == 1


def test_ideal_flow_and_reclaim_times():
    f = paper_fabric()
    # docs/reproductions/smartt-paper.md: 2 MiB at 100 Gbps (800G / 8) = 170.4 us, plus the one-way 5.8496 us
    assert rs.ideal_flow_us(2 * rs.MIB, f) == pytest.approx(170.3936 + 5.8496)
    # A4: 32 MiB at 100 Gbps (2726.2976 us), the other 32 MiB at 800 Gbps (340.7872 us)
    assert rs.ideal_reclaim_us(32 * rs.MIB, 64 * rs.MIB, f) == pytest.approx(2726.2976 + 340.7872 + 5.8496)
    assert 3060 < rs.ideal_reclaim_us(32 * rs.MIB, 64 * rs.MIB, f) < 3080  # ≈ 3.07 ms


def test_ideal_incast():
    # 8 x 1 MiB = 8 x 1,064,960 B on the wire through one 800G link = 85.1968 us
    assert rs.ideal_incast_us(8, rs.MIB, paper_fabric(1024, (1, 1))) == pytest.approx(85.1968 + 5.8496)


def test_ideal_alltoall_is_the_per_node_bound():
    f = paper_fabric(128, (1, 4))
    w = 128 * 1024 + 32 * 64  # 133,120 B per message
    host = 127 * w * 8 / 800e9 * 1e6  # 169.06 us
    tor = 124 * w * 8 / 800e9 * 1e6  # 124 messages leave the rack at 1:1
    agg = 112 * w * 4 * 8 / 800e9 * 1e6  # 112 leave the pod at a quarter link each: 596.38 us
    assert max(host, tor, agg) == agg
    assert rs.ideal_alltoall_us(128 * 1024, f) == pytest.approx(596.3776 + 5.8496)
    # Non-blocking: the host link bounds it.
    assert rs.ideal_alltoall_us(128 * 1024, paper_fabric(128, (1, 1))) == pytest.approx(host + 5.8496)


# ---------------------------------------------------------------------------------------
# Metrics


def test_spread_jain_relative_performance():
    assert rs.spread([100.0, 130.0, 165.0]) == pytest.approx(0.65)  # R2's "65 % longer"
    assert math.isnan(rs.spread([]))
    assert rs.jain([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert rs.jain([1.0, 2.0, 3.0]) == pytest.approx(36 / 42)
    assert math.isnan(rs.jain([]))
    assert rs.relative_performance(90.0, 100.0) == pytest.approx(0.9)
    assert rs.relative_performance(90.0, math.inf) == 0.0  # unfinished
    assert math.isnan(rs.relative_performance(90.0, math.nan))


def test_run_metrics_on_a_hand_computed_table():
    flows = {"tag": ["perm", "perm", "large"], "size": [100, 100, 200], "fct_us": [10.0, 20.0, 40.0],
             "start_us": [0.0, 0.0, 0.0], "finish_us": [10.0, 20.0, 40.0], "finished": [True, True, True]}
    m = rs.run_metrics(flows, {"trims": 7, "drops": 0, "nacks": 7, "timeouts": 1}, 20.0)
    assert m["completion_us"] == 40.0 and m["rel_perf"] == pytest.approx(0.5)
    assert (m["min_fct_us"], m["max_fct_us"], m["mean_fct_us"]) == (10.0, 40.0, pytest.approx(70 / 3))
    assert m["spread"] == pytest.approx(3.0)
    assert m["jain"] == pytest.approx(rs.jain([10.0, 5.0, 5.0]))  # bytes per us
    assert m["large_fct_us"] == 40.0 and m["trims"] == 7 and m["timeouts"] == 1
    assert math.isnan(m["reps_recycle_ratio"])  # no REPS
    assert rs.run_metrics(flows, {"reps_recycle_ratio": 0.25}, 20.0)["reps_recycle_ratio"] == 0.25
    # Flows started later (a windowed all-to-all): completion runs from the first start
    # to the last finish, not the largest FCT.
    later = {**flows, "start_us": [0.0, 5.0, 30.0], "finish_us": [10.0, 25.0, 70.0]}
    m = rs.run_metrics(later, {}, 35.0)
    assert m["completion_us"] == 70.0 and m["max_fct_us"] == 40.0 and m["rel_perf"] == pytest.approx(0.5)
    # An unfinished flow (the run hit its cap): slower than any finished run, relative
    # performance 0; Jain's index over the finished flows.
    flows["finished"][2], flows["fct_us"][2], flows["finish_us"][2] = False, None, None
    m = rs.run_metrics(flows, {}, 20.0)
    assert m["completion_us"] == m["max_fct_us"] == m["large_fct_us"] == m["spread"] == math.inf
    assert m["rel_perf"] == 0.0 and m["min_fct_us"] == 10.0 and m["jain"] == pytest.approx(rs.jain([10.0, 5.0]))
    assert (m["finished"], m["flows"]) == (2, 3)


def test_path_base_rtts_and_incast_ideals():
    f = paper_fabric(1024, (1, 1))
    assert f.trtt_us == pytest.approx(1.5 * 11.45344)
    assert f.path_brtt_us(0, 1) == pytest.approx(3.28448)  # same ToR (8 hosts each at k = 16)
    assert f.path_brtt_us(0, 8) == pytest.approx(7.36896)  # same pod (64 hosts)
    assert f.path_brtt_us(0, 64) == pytest.approx(11.45344)
    small = paper_fabric(128, (1, 1))  # k = 8: 4 hosts per ToR, 16 per pod
    assert small.path_brtt_us(1, 0) == pytest.approx(3.28448) and small.path_brtt_us(4, 0) == pytest.approx(7.36896)
    assert small.path_brtt_us(64, 0) == pytest.approx(11.45344)
    # E10: 15 x 2 MiB + 4 MiB = 17 x 2,129,920 B through one 800G link = 362.0864 us
    assert rs.ideal_uneven_incast_us(16, 2 * rs.MIB, f) == pytest.approx(362.0864 + 5.8496)
    # E5: C x trtt / 80 = 1e11 B/s x 17.18016 us / 80 = 21,475.2 B, 5.16 frames
    assert rs.ideal_cwnd_bytes(80, f) == pytest.approx(21_475.2)
    assert 5 < rs.ideal_cwnd_bytes(80, f) / 4160 < 5.2


def test_fabric_of_a_resolved_scenario():
    # The core's resolved scenario names every key, absent ones as None.
    spec = {"topology": {"hosts": 128, "radix": None, "oversubscription_tiers": None, "link_rate": "800Gbps",
                         "link_latency": "600ns", "switch_latency": "400ns", "mtu": 4160},
            "transport": {"header": None}}
    f = rs.Fabric.of(spec)
    assert (f.k, f.oversubscription, f.mtu, f.header) == (8, 1, 4160, 64)
    assert f.brtt_us == pytest.approx(11.45344)


def test_window_helpers():
    assert rs.window([1.0, 2.0, 3.0, 4.0], [10, 20, 30, 40], 1.0, 3.0) == [20.0, 30.0]  # (t0, t1]
    series = rs.per_flow([1.0, 1.0, 2.0, 2.0, 3.0], [0, 1, 0, 1, 0], [5, 6, 7, 8, 9], 1.0)
    assert series == {0: ([2.0, 3.0], [7.0, 9.0]), 1: ([2.0], [8.0])}
    assert rs.cv([2.0, 2.0]) == 0.0
    assert rs.cv([1.0, 3.0]) == pytest.approx(0.5)  # pstdev 1, mean 2
    assert math.isnan(rs.cv([1.0])) and math.isnan(rs.cv([0.0, 0.0]))
    assert rs.mean_cv({0: ([1, 2], [1.0, 3.0]), 1: ([1, 2], [2.0, 2.0]), 2: ([1], [4.0])}) == pytest.approx(0.25)
    assert math.isnan(rs.mean_cv({}))
    assert rs.share_below([1.0, 2.0, 3.0, 4.0], 2.5) == 0.5 and math.isnan(rs.share_below([], 1.0))
    # 1 MB more in 100 us = 8e6 bits / 1e-4 s = 80 Gbps
    assert rs.rate_gbps([100.0, 150.0, 200.0], [0.0, 4e5, 1e6]) == pytest.approx(80.0)
    assert math.isnan(rs.rate_gbps([100.0], [0.0]))
    assert rs.downsample(list(range(10)), list(range(10, 20)), 4) == ([0.0, 3.0, 6.0, 9.0], [10.0, 13.0, 16.0, 19.0])
    assert rs.downsample([1, 2], [3, 4], 400) == ([1.0, 2.0], [3.0, 4.0])


def test_two_flow_ratios():
    m = rs.two_flow_ratios([3.28448, 11.45344], [100e3, 300e3], [400.0, 200.0])
    assert m["brtt_ratio"] == pytest.approx(11.45344 / 3.28448)  # 3.487
    assert (m["cwnd_short_kb"], m["cwnd_long_kb"], m["gbps_short"], m["gbps_long"]) == (100.0, 300.0, 400.0, 200.0)
    assert m["cwnd_ratio"] == pytest.approx(3.0) and m["thr_ratio"] == pytest.approx(0.5)
    # The order of the flows does not matter; the throughput ratio stays ≤ 1.
    m = rs.two_flow_ratios([11.45344, 3.28448], [300e3, 100e3], [300.0, 400.0])
    assert m["cwnd_ratio"] == pytest.approx(3.0) and m["thr_ratio"] == pytest.approx(0.75)


def test_series_metrics_on_hand_computed_series():
    f = paper_fabric(1024, (1, 1))  # trtt 17.18016 us: steady state from 343.6 us
    t = [100.0, 400.0, 600.0, 800.0]
    cwnd = (t + t, [0] * 4 + [1] * 4, [1e6, 5e5, 5e5, 5e5] + [1e6, 2.5e5, 5e5, 7.5e5])
    delivered = ([600.0, 800.0, 1000.0] * 2, [0] * 3 + [1] * 3, [0.0, 1e6, 2e6, 1e6, 1.5e6, 2e6])
    queue = ([0.0, 400.0, 800.0, 1000.0], [0.0, 1000.0, 2000.0, 9000.0])
    trims = ([50.0, 400.0, 700.0, 850.0], [3.0, 2.0, 1.0, 5.0])
    m = rs.series_metrics(f.trtt_us, rs.ideal_cwnd_bytes(2, f), 1000.0, [800.0, 900.0], 2, cwnd, delivered, queue,
                          trims)
    assert m["ss_nacks"] == 3.0  # trims at 400 and 700: after 343.6 us, before the first finish (800)
    # Steady windows (400-800 us): flow 0 flat (CV 0), flow 1 250/500/750 kB (CV 0.4082)
    assert m["ss_cwnd_cv"] == pytest.approx((0 + math.sqrt(2 / 3) * 0.5) / 2)
    # From the first trim (50 us) to 800 us: 1 of 8 windows under half of 859,008 B
    assert m["undershoot"] == pytest.approx(1 / 8)
    assert m["mean_queue_kb"] == pytest.approx(1.0) and m["max_queue_kb"] == pytest.approx(2.0)
    # Second half (500-1000 us): windows 500 and 625 kB; 2 MB and 1 MB in 400 us = 40 and 20 Gbps
    assert m["late_cwnd_0"] == pytest.approx(5e5) and m["late_cwnd_1"] == pytest.approx(6.25e5)
    assert m["late_gbps_0"] == pytest.approx(40.0) and m["late_gbps_1"] == pytest.approx(20.0)
    assert m["trace_flows"] == [0, 1] and m["trace_t0"] == t
    assert m["trace_q"] == [0.0, 1000.0, 2000.0]  # until the last flow finishes (900 us)
    m = rs.series_metrics(f.trtt_us, rs.ideal_cwnd_bytes(2, f), 1000.0, [800.0, 900.0], 2, cwnd, delivered, queue,
                          trims, traced=(1, 7))
    assert m["trace_flows"] == [1] and m["trace_w0"] == [1e6, 2.5e5, 5e5, 7.5e5] and "trace_t1" not in m
    # An incast that ends before steady state has no steady numbers; no trims, no undershoot.
    m = rs.series_metrics(f.trtt_us, rs.ideal_cwnd_bytes(40, f), 300.0, [300.0], 40, cwnd, delivered, queue,
                          ([10.0], [0.0]))
    assert math.isnan(m["ss_nacks"]) and math.isnan(m["ss_cwnd_cv"]) and "undershoot" not in m
    assert "late_cwnd_0" not in m  # more than LATE_FLOWS flows


def test_e6_evaluation_reads_the_two_flows():
    cell = rs.build_cells(["E6"], 1, True, rs.experiments_dir(), "test")[0]
    flows = {"tag": ["long", "long"], "src": [1, 64], "dst": [0, 0], "size": [10**10] * 2,
             "start_us": [0.0, 0.0], "finish_us": [None, None], "fct_us": [None, None], "finished": [False, False]}
    record = {"flows": flows, "stats": {}, "extra": {"late_cwnd_0": 100e3, "late_cwnd_1": 350e3,
                                                     "late_gbps_0": 300.0, "late_gbps_1": 450.0}}
    m = rs.evaluate(cell, record).metrics
    assert m["brtt_ratio"] == pytest.approx(11.45344 / 3.28448)
    assert m["cwnd_ratio"] == pytest.approx(3.5) and m["thr_ratio"] == pytest.approx(300 / 450)
    assert m["gbps_short"] == 300.0 and m["completion_us"] == math.inf


def test_mean_aggregate_window():
    # Two flows at t = 0 (10 + 30), one at t = 1 (20), none later: (40 + 20) / 2.
    assert rs.mean_aggregate([0.0, 0.0, 1.0], [10.0, 30.0, 20.0]) == pytest.approx(30.0)
    assert math.isnan(rs.mean_aggregate([], []))
    flows = {"tag": ["p"], "size": [1], "fct_us": [1.0], "start_us": [0.0], "finish_us": [1.0], "finished": [True]}
    assert rs.run_metrics(flows, {}, 1.0, {"agg_cwnd_mb": 2.5})["agg_cwnd_mb"] == 2.5
    assert math.isnan(rs.run_metrics(flows, {}, 1.0)["agg_cwnd_mb"])


# ---------------------------------------------------------------------------------------
# Cells


def test_parse_only():
    assert rs.parse_only(None) == ["E1", "E3", "E5", "E6", "E8", "E9", "E10", "E11", "E11b", "E12", "E13", "E14",
                                   "E15", "E16", "E17"]
    assert rs.parse_only("e15, 1") == ["E1", "E15"]
    assert rs.parse_only("e11b,E11B, 17") == ["E11b", "E17"]
    with pytest.raises(ValueError, match="E2"):
        rs.parse_only("E2")


def test_quick_and_full_grids():
    exp_dir = rs.experiments_dir()
    quick = rs.build_cells(list(rs.EXPERIMENTS), 1, True, exp_dir, "test")
    per = {k: sum(c.exp == k for c in quick) for k in rs.EXPERIMENTS}
    assert per == {"E1": 8, "E3": 4, "E5": 3, "E6": 2, "E8": 2, "E9": 2, "E10": 2, "E11": 4, "E11b": 4,
                   "E12": 2 * 4 * 5, "E13": 3 * 4, "E14": 6, "E15": 2 * 4, "E16": 5, "E17": 2 * 3}
    # E16's SMaRTT and EQDS runs are E14's, and E17's per-packet permutation is E1's SMaRTT
    # (the same file and overrides): one cache entry each.
    assert len({c.key for c in quick}) == len(quick) - 3
    assert all(c.spec["topology"]["hosts"] == 128 for c in quick)
    full = rs.build_cells(list(rs.EXPERIMENTS), 3, False, exp_dir, "test")
    per = {k: sum(c.exp == k for c in full) for k in rs.EXPERIMENTS}
    assert per == {"E1": 24, "E3": 12, "E5": 9, "E6": 6, "E8": 12, "E9": 6, "E10": 6, "E11": 12, "E11b": 12,
                   "E12": 4 * 7 * 5 * 3, "E13": 6 * 4 * 3, "E14": 18, "E15": 4 * 3 * 4 * 3, "E16": 15, "E17": 18}
    assert {c.spec["topology"]["hosts"] for c in full} == {1024, 128}

    by = {(c.exp, c.point, c.variant): c for c in quick}
    e1 = by[("E1", "2MiB", "SMaRTT")].spec
    assert e1["topology"]["oversubscription_tiers"] == [4, 2] and e1["workload"][0]["cross_pod"] is True
    assert e1["transport"]["cc"] == "nscc" and e1["transport"]["lb"] == "reps"
    # REPS is fed UEC's coalesced ACKs in every experiment; the other balancers per-packet ACKs.
    for c in quick:
        t = c.spec["transport"]
        if t["lb"] == "reps":
            assert (t["ack_policy"], t["ack_ratio"]) == ("uec", 4), c.progress_label()
        else:
            assert "ack_policy" not in t and t["ack_ratio"] == 1, c.progress_label()
    assert e1["transport"]["nscc"]["mode"] == "smartt_paper"
    assert e1["switch"]["buffer"] == 276 * 4160 and e1["switch"]["trimming"] is True
    assert (e1["switch"]["ecn"]["kmin"], e1["switch"]["ecn"]["kmax"]) == (56 * 4160, 221 * 4160)
    assert by[("E1", "2MiB", "MPRDMA")].spec["transport"]["lb"] == "ops"
    eqds = by[("E1", "2MiB", "EQDS")].spec
    assert eqds["transport"]["cc"] == "eqds" and eqds["switch"]["ecn"]["enabled"] is True
    assert e1["transport"]["ect_always"] is True
    nofi = by[("E14", "32+64MiB", "SMaRTT-noFI")].spec
    assert nofi["transport"]["nscc"]["fast_increase"] is False
    assert by[("E14", "32+64MiB", "SMaRTT")].ideal_us == pytest.approx(3072.9344)
    roce = by[("E12", "32x16MiB", "RoCEv2")].spec
    assert roce["transport"]["cc"] == "dcqcn" and roce["transport"]["loss_recovery"] == "go_back_n"
    assert roce["switch"]["pfc"] == {} and roce["transport"]["lb"] == "ecmp"
    assert roce["workload"][0]["senders"] == 32 and roce["workload"][0]["size"] == 16 * rs.MIB
    e11 = by[("E11", "8MiB", "OPS decrease")].spec
    assert e11["transport"]["nscc"]["case2"] == "decrease" and e11["output"]["sample_interval"] == "1us"
    assert "output" not in e1
    a2a = by[("E15", "k8 128KiB", "Swift")]
    assert a2a.spec["workload"][0]["window"] == 8 and a2a.spec["topology"]["oversubscription_tiers"] == [1, 4]
    assert a2a.ideal_us == pytest.approx(596.3776 + 5.8496)
    # Every run is capped at 20 x its ideal + 1 ms of simulated time.
    assert a2a.spec["duration"] == f"{math.ceil(20 * a2a.ideal_us + 1000)}us"

    # The new experiments: their transports, points, sampling and ideals.
    assert {c.spec["transport"]["lb"] for c in quick if c.exp == "E3"} == {"ecmp", "plb", "ops", "reps"}
    assert by[("E5", "80x1MiB", "ECN-only")].spec["transport"]["nscc"]["signals"] == "ecn_only"
    assert by[("E5", "80x1MiB", "delay-only")].spec["transport"]["nscc"]["signals"] == "delay_only"
    e5 = by[("E5", "80x1MiB", "SMaRTT")].spec
    assert e5["workload"][0]["receiver"] == 0 and e5["observe"]["ports"] == ["*->h0"]
    fi, ai = by[("E6", "2ms", "FI")], by[("E6", "2ms", "AI")]
    assert fi.spec["transport"]["nscc"]["decrease"] == "fair" and "bdp_scaling" not in fi.spec["transport"]["nscc"]
    assert fi.spec["transport"]["nscc"]["scope"] == "path"
    assert fi.spec["transport"]["nscc"]["target_queue_rtt"] == "11.45344us"
    assert ai.spec["transport"]["nscc"]["decrease"] == "fair" and ai.spec["transport"]["nscc"]["bdp_scaling"] is False
    assert math.isnan(fi.ideal_us) and fi.spec["duration"] == "2ms"  # long flows: the file's duration, halved
    assert rs.build_cells(["E6"], 1, False, exp_dir, "test")[0].spec["duration"] == "4ms"
    assert by[("E8", "32x1MiB", "QA off")].spec["transport"]["nscc"]["quick_adapt"] is False
    assert by[("E8", "32x1MiB", "QA on")].spec["observe"]["flows"] == []
    assert by[("E9", "32x1MiB", "ignore off")].spec["transport"]["nscc"]["qa_ignore"] is False
    e10 = by[("E10", "16x2MiB+1", "FI off")]
    assert e10.spec["transport"]["nscc"]["fast_increase"] is False
    assert e10.ideal_us == pytest.approx(17 * 2_129_920 * 8 / 800e9 * 1e6 + 5.8496)
    e11b = by[("E11b", "8MiB", "REPS decrease")].spec
    assert e11b["topology"]["oversubscription_tiers"] == [4, 2] and e11b["output"]["cwnd"] is True
    e13 = by[("E13", "2:1 2MiB", "MPRDMA")]
    assert e13.spec["topology"]["oversubscription_tiers"] == [2, 1] and e13.spec["workload"][0]["cross_pod"] is True
    assert e13.ideal_us == pytest.approx(2 * 2_129_920 * 8 / 800e9 * 1e6 + 5.8496)
    assert by[("E16", "32+64MiB", "EQDS+SMaRTT-noFI")].spec["transport"]["receiver_credit"] is True
    assert by[("E16", "32+64MiB", "EQDS+SMaRTT-noFI")].ideal_us == pytest.approx(3072.9344)
    sample = by[("E17", "32x1MiB", "sample-8")]
    assert sample.spec["transport"]["nscc"]["adjustment"] == "sample" and sample.spec["workload"][0]["kind"] == "incast"
    assert by[("E17", "perm 2MiB", "accumulate")].spec["workload"][0]["kind"] == "permutation"


@pytest.mark.core
def test_every_quick_scenario_builds_in_the_core():
    """The core validates every distinct quick scenario (and generates its flows) without
    running it. This fails until the scenario features the harness is written against
    exist in the core: `cross_pod` (E1, E14), `cc = "eqds"`, `transport.nscc.case2` (E11),
    all-to-all `window` (E15), `transport.nscc.signals` (E5), `transport.nscc.decrease`
    (E6)."""
    from dcnsim._ext import ScenarioError, core
    from dcnsim._scenario import scenario_json

    exp_dir = rs.experiments_dir()
    errors = {}
    for cell in rs.build_cells(list(rs.EXPERIMENTS), 1, True, exp_dir, "test"):
        try:
            sim = core().Simulation(scenario_json(cell.spec), str(exp_dir))
        except ScenarioError as exc:
            errors.setdefault(str(exc), []).append(cell.progress_label().strip())
            continue
        flows = sim.flows()
        if cell.exp in ("E1", "E3", "E13", "E14", "E16") or cell.point == "perm 2MiB":
            # every flow crosses the core: pods of 16 hosts at k = 8
            assert all(s // 16 != d // 16 for s, d in zip(flows["src"], flows["dst"])), cell.progress_label()
        if cell.exp in ("E14", "E16"):
            assert sorted(flows["size"])[-1] == 64 * rs.MIB and len(flows["size"]) == 127
        if cell.exp in ("E5", "E8", "E9", "E10", "E6"):  # host 0 receives
            assert set(flows["dst"]) == {0}, cell.progress_label()
        if cell.exp == "E10":
            assert sorted(flows["size"]) == [2 * rs.MIB] * 15 + [4 * rs.MIB] and flows["tag"][0] == "large"
        if cell.exp == "E6":
            assert list(flows["src"]) == [1, 64]
        if cell.exp == "E15":
            assert len(flows["size"]) == 128 * 127
    assert not errors, "\n".join(f"{msg}\n  in {len(cells)} cells, e.g. {cells[0]}" for msg, cells in errors.items())


@pytest.mark.core
def test_two_point_e12_end_to_end(tmp_path, monkeypatch):
    small = dataclasses.replace(rs.EXPERIMENTS["E12"],
                                quick_points=rs.runs._incast_points((8,), (64 * rs.KIB, 16 * rs.MIB)))
    monkeypatch.setitem(rs.EXPERIMENTS, "E12", small)
    code, table = rs.reproduce(quick=True, only="E12", jobs=1, out=str(tmp_path), stream=io.StringIO())
    assert code == 0
    assert "## E12" in table and "## Ours vs the paper" in table and "R5 " in table
    block = table.split("## E12")[1]
    for line in ("A11 EQDS relative performance", "A11 SMaRTT ≥ 0.9 of ideal", "A11 worst SMaRTT cell",
                 "A11 lossless RoCEv2 shows no trims or drops"):
        assert line in block
    # RoCEv2 is lossless: PFC, never a trim or a drop.
    assert "| 0, 0      | holds" in block.split("A11 lossless RoCEv2")[1].splitlines()[0]
    runs = (tmp_path / "runs.csv").read_text().splitlines()
    assert len(runs) == 1 + 2 * 5
    assert (tmp_path / "e12_relperf.png").is_file()
    err = io.StringIO()
    _, again = rs.reproduce(quick=True, only="E12", jobs=1, out=str(tmp_path), stream=err)
    assert "10 cached, 0 to run" in err.getvalue()
    assert again == table


# ---------------------------------------------------------------------------------------
# Checks on hand-made results


def _grid(exp: str, values: dict[str, dict[str, float]]) -> rs.Grid:
    """A grid of the quick cells of ``exp``, each run's metrics NaN but for ``values``
    (per variant)."""
    results = []
    for c in rs.build_cells([exp], 1, True, rs.experiments_dir(), "test"):
        metrics = {m: math.nan for m in rs.METRICS} | {"finished": 1.0, "flows": 1.0}
        results.append(rs.RunResult(c, {"flows": {}}, metrics | values.get(c.variant, {})))
    return rs.Grid(rs.EXPERIMENTS[exp], results)


def test_a7_check_on_hand_made_ratios():
    ok = _grid("E6", {"FI": {"brtt_ratio": 3.5, "cwnd_ratio": 3.2, "thr_ratio": 0.66},
                      "AI": {"brtt_ratio": 3.5, "cwnd_ratio": 1.05, "thr_ratio": 0.52}})
    assert [c.status for c in rs.checks_e6(ok)] == ["holds"] * 4
    # FI's windows equal (0.29 x the RTT ratio), AI's throughput fairer than FI's: three fail.
    bad = _grid("E6", {"FI": {"brtt_ratio": 3.5, "cwnd_ratio": 1.0, "thr_ratio": 0.60},
                       "AI": {"brtt_ratio": 3.5, "cwnd_ratio": 1.4, "thr_ratio": 0.7}})
    assert [c.status for c in rs.checks_e6(bad)] == ["fails", "holds", "fails", "fails"]


def test_a8_and_a9_checks_on_hand_made_numbers():
    g = _grid("E5", {"SMaRTT": {"ss_nacks": 0.0, "ss_cwnd_cv": 0.1}, "delay-only": {"ss_nacks": 2.0, "ss_cwnd_cv": 0.2},
                     "ECN-only": {"ss_nacks": 40.0, "ss_cwnd_cv": 0.5}})
    assert [c.status for c in rs.checks_e5(g)] == ["holds", "holds"]
    g = _grid("E17", {"per-packet": {"max_fct_us": 100.0}, "sample-8": {"max_fct_us": 109.0},
                      "accumulate": {"max_fct_us": 111.0}})
    assert [c.status for c in rs.checks_e17(g)] == ["holds", "fails"]


def test_every_check_without_data_says_so():
    for key, check in rs.CHECKS.items():
        for c in check(_grid(key, {})):
            assert c.status.startswith("n/a"), (key, c.name, c.status)
