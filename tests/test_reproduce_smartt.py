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
    assert rs.parse_only(None) == ["E1", "E14", "E11", "E12", "E15"]
    assert rs.parse_only("e15, 1") == ["E1", "E15"]
    with pytest.raises(ValueError, match="E2"):
        rs.parse_only("E2")


def test_quick_and_full_grids():
    exp_dir = rs.experiments_dir()
    quick = rs.build_cells(list(rs.EXPERIMENTS), 1, True, exp_dir, "test")
    per = {k: sum(c.exp == k for c in quick) for k in rs.EXPERIMENTS}
    assert per == {"E1": 8, "E14": 6, "E11": 4, "E12": 2 * 4 * 5, "E15": 2 * 4}
    assert len({c.key for c in quick}) == len(quick)
    assert all(c.spec["topology"]["hosts"] == 128 for c in quick)
    full = rs.build_cells(list(rs.EXPERIMENTS), 3, False, exp_dir, "test")
    per = {k: sum(c.exp == k for c in full) for k in rs.EXPERIMENTS}
    assert per == {"E1": 24, "E14": 18, "E11": 12, "E12": 4 * 7 * 5 * 3, "E15": 4 * 3 * 4 * 3}
    assert {c.spec["topology"]["hosts"] for c in full} == {1024, 128}

    by = {(c.exp, c.point, c.variant): c for c in quick}
    e1 = by[("E1", "2MiB", "SMaRTT")].spec
    assert e1["topology"]["oversubscription_tiers"] == [4, 2] and e1["workload"][0]["cross_pod"] is True
    assert e1["transport"]["cc"] == "nscc" and e1["transport"]["lb"] == "reps"
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


@pytest.mark.core
def test_every_quick_scenario_builds_in_the_core():
    """The core validates every distinct quick scenario (and generates its flows) without
    running it. This fails until the scenario features the harness is written against
    exist in the core: `cross_pod` (E1, E14), `cc = "eqds"`, `transport.nscc.case2` (E11),
    all-to-all `window` (E15)."""
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
        if cell.exp in ("E1", "E14"):  # every flow crosses the core: pods of 16 hosts at k = 8
            assert all(s // 16 != d // 16 for s, d in zip(flows["src"], flows["dst"])), cell.progress_label()
        if cell.exp == "E14":
            assert sorted(flows["size"])[-1] == 64 * rs.MIB and len(flows["size"]) == 127
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
