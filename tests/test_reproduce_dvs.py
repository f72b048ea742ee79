"""``dcnsim reproduce dctcp-vs-swift``: the study's metrics on hand-computed inputs, the
experiment files against counts derived by hand, the variants' overrides, and one quick
experiment end to end (table structure, conservation, cache reuse)."""

from __future__ import annotations

import math

import pytest

from dcnsim.repro.papers import dctcp_vs_swift as dvs


# ---------------------------------------------------------------------------------------
# Metric formulas (docs/reproductions/dctcp-vs-swift-paper.md)


def test_throughput_is_kibibits_per_second_from_start_to_last_reception():
    # 1,280,000 B over 10 s = 1,024,000 bit/s = 1000 Kibit/s (the study's "Kbps").
    assert dvs.flow_throughput_kbps(1_280_000, 2_000_000.0, 12_000_000.0) == pytest.approx(1000.0)
    assert math.isnan(dvs.flow_throughput_kbps(100, 5.0, 5.0))


def test_jain_index():
    assert dvs.jain([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert dvs.jain([1.0, 0.0]) == pytest.approx(0.5)
    assert dvs.jain([1.0, 2.0, 3.0]) == pytest.approx(36 / 42)  # (6)^2 / (3 * 14)


def test_study_metrics_on_a_hand_computed_table():
    # Three flows into host 9 from start 0 (us); flow 2 never received anything.
    flows = {
        "src": [1, 2, 3],
        "dst": [9, 9, 9],
        "start_us": [0.0, 0.0, 0.0],
        "tx_packets": [100, 50, 10],
        "rx_packets": [90, 50, 0],
        "rx_bytes": [128_000, 64_000, 0],
        "delay_sum_us": [90 * 1000.0, 50 * 3000.0, 0.0],
        "last_rx_us": [1_000_000.0, 2_000_000.0, None],
    }
    m = dvs.study_metrics(flows)
    # Throughputs 128000*8/1 s/1024 = 1000 and 64000*8/2 s/1024 = 250 Kibit/s.
    assert m["thr_kbps"] == pytest.approx(625.0)
    # (90 * 1 ms + 50 * 3 ms) / 140 packets = 1.7142857 ms.
    assert m["delay_ms"] == pytest.approx(240 / 140)
    # Loss per flow 10 %, 0 %, 100 %: mean 36.67 %.
    assert m["loss_pct"] == pytest.approx(110 / 3)
    assert m["jain"] == pytest.approx(1250**2 / (2 * (1000**2 + 250**2)))
    assert m["agg_gbps"] == pytest.approx(625 * 1024 * 2 / 1e9)
    # 192000 B into host 9 over 2 s = 768 kbit/s.
    assert m["hotspot_gbps"] == pytest.approx(192_000 * 8 / 2.0 / 1e9)
    assert m["flows"] == 3


# ---------------------------------------------------------------------------------------
# Experiments and cells


def test_parse_only():
    assert dvs.parse_only(None) == ["E1", "E2", "E3", "E4", "E5", "E6"]
    assert dvs.parse_only("e4, 3") == ["E3", "E4"]
    with pytest.raises(ValueError, match="E9"):
        dvs.parse_only("E9")


def test_quick_cells_and_their_overrides():
    cells = dvs.build_cells(list(dvs.EXPERIMENTS), 3, True, dvs.experiments_dir(), "test")
    per_exp = {k: sum(c.exp == k for c in cells) for k in dvs.EXPERIMENTS}
    # E1: 3 targets, E2: 2 min_cwnd values, E3-E6: 2 flow counts x 6 variants; 1 seed.
    assert per_exp == {"E1": 3, "E2": 2, "E3": 12, "E4": 12, "E5": 12, "E6": 12}
    # E2's min_cwnd "0" (0.001 packets, the paper profile's default) is E1's baseRTT run:
    # one simulation, shared through the cache (the study's E2 "2000" row equals its E1
    # "baseRTT" row the same way).
    assert len({c.key for c in cells}) == len(cells) - 1
    e1_base = next(c for c in cells if (c.exp, c.point) == ("E1", "baseRTT"))
    assert e1_base.key == next(c for c in cells if (c.exp, c.point) == ("E2", "0")).key
    by = {(c.exp, c.point, c.variant): c.spec for c in cells}
    d20 = by[("E3", "1000", "D20")]
    assert d20["switch"]["ecn"]["kmin"] == 20 * 1554 and d20["workload"][0]["flows"] == 1000
    assert (d20["duration"], d20["workload"][0]["stop"]) == ("15s", "4s")  # T = 5: stop T - 1, end T + 10
    sb = by[("E5", "100", "Sb")]
    assert sb["transport"]["cc"] == "swift" and sb["switch"]["ecn"]["enabled"] is False
    assert sb["transport"]["swift"]["target_mode"] == "min_rtt" and sb["transport"]["ack_ratio"] == 1
    s25 = by[("E6", "100", "S25")]["transport"]["swift"]
    assert (s25["target_mode"], s25["fixed_target"]) == ("formula", "25ms")
    e2 = by[("E2", "2000", "Swift")]["transport"]["swift"]
    assert e2["min_cwnd_pkts"] == pytest.approx(2000 / 1500, rel=1e-5)


# ---------------------------------------------------------------------------------------
# The ns3_study profile (docs/reproductions/dctcp-vs-swift-paper.md, "Profiles")


def test_ns3_study_overrides_reach_every_scenario():
    cells = dvs.build_cells(list(dvs.EXPERIMENTS), 3, True, dvs.experiments_dir(), "test", profile_name="ns3_study")
    # E3-E6 run the study's four columns only: 2 flow counts x 4 variants.
    per_exp = {k: sum(c.exp == k for c in cells) for k in dvs.EXPERIMENTS}
    assert per_exp == {"E1": 3, "E2": 2, "E3": 8, "E4": 8, "E5": 8, "E6": 8}
    assert {c.variant for c in cells if c.exp == "E4"} == {"D250", "Sb", "Se", "S25"}
    for c in cells:
        assert c.profile == "ns3_study" and c.cache_meta()["profile"] == "ns3_study"
        t, sw = c.spec["transport"], c.spec["switch"]
        assert (t["lb"], t["rto_min"], t["ack_ratio"]) == ("single_path", "1s", 1), c
        # The 100-packet NIC ring folded into the port: (2666 + 100) and (250 + 100) packets of 1554 B.
        assert sw["buffer"] == 4_298_364
        assert sw["ecn"]["kmin"] == sw["ecn"]["kmax"] == 543_900 and sw["ecn"]["mark_if"] == ">="
        assert t["dctcp"]["loss_response"] == "alpha" and t["dctcp"]["min_cwnd_pkts"] == 1
        assert t["dctcp"]["after_timeout"] == "cwr_prr"  # ns-3's path after a timeout
        s = t["swift"]
        assert (s["rtt_resolution"], s["ai"], s["beta"], s["max_mdf"]) == ("1ms", 2, 4, 1)
        assert s["max_cwnd_pkts"] == 40  # 60000 B / 1500 B
        if c.exp != "E2":
            assert s["min_cwnd_pkts"] == pytest.approx(2000 / 1500, rel=1e-5)
    by = {(c.exp, c.point, c.variant): c for c in cells}
    # The variant's overrides still apply on top: Swift runs have no ECN, DCTCP keeps it.
    assert by[("E3", "100", "Sb")].spec["switch"]["ecn"]["enabled"] is False
    assert by[("E3", "100", "D250")].spec["transport"]["cc"] == "dctcp"
    # E2's points win over the profile's min_cwnd; its 2000 B point is the profile's own
    # window, so it is E1's baseRTT run (as the study's E2 "2000" row is its E1 baseRTT row).
    assert by[("E2", "0", "Swift")].spec["transport"]["swift"]["min_cwnd_pkts"] == pytest.approx(0.001)
    assert by[("E2", "2000", "Swift")].key == by[("E1", "baseRTT", "Swift")].key
    assert by[("E2", "0", "Swift")].key != by[("E1", "baseRTT", "Swift")].key
    # Nothing of the profile leaks into the paper profile, whose cells are as before.
    paper = dvs.build_cells(["E3"], 3, True, dvs.experiments_dir(), "test")
    assert all(c.profile == "paper" and c.spec["transport"]["lb"] == "ecmp" for c in paper)
    assert all(c.spec["switch"]["buffer"] == 2666 * 1554 for c in paper)
    assert all(c.spec["transport"].get("dctcp", {}).get("after_timeout", "slow_start") == "slow_start" for c in paper)
    assert not {c.key for c in paper} & {c.key for c in cells}


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="ns3_study"):
        dvs.reproduction("ns3")
    with pytest.raises(ValueError, match="paper"):
        dvs.build_cells(["E1"], 1, True, dvs.experiments_dir(), "test", profile_name="ns-3")


def test_the_cli_passes_profile_only_to_papers_that_have_one(dcnsim_cli):
    done = dcnsim_cli("reproduce", "mswift", "--profile", "ns3_study", "--quick")
    assert done.returncode == 2 and "one profile" in done.stderr
    done = dcnsim_cli("reproduce", "dctcp-vs-swift", "--profile", "ns3", "--quick")
    assert done.returncode == 2 and "paper, ns3_study" in done.stderr


def _e1_e2_grids(e1: dict[str, tuple[float, float, float]], e2: dict[str, tuple[float, float, float]]):
    results = []
    for key, table in (("E1", e1), ("E2", e2)):
        for point, (thr, delay, loss) in table.items():
            cell = dvs.Cell(key, point, "Swift", 1, {})
            metrics = {m: math.nan for m in dvs.METRICS}
            metrics.update(thr_kbps=thr, delay_ms=delay, loss_pct=loss)
            results.append(dvs.RunResult(cell, {}, metrics))
    return {k: dvs.Grid(dvs.EXPERIMENTS[k], [r for r in results if r.cell.exp == k]) for k in ("E1", "E2")}


def test_c1_to_c3_on_the_study_own_numbers_hold_and_are_tagged_by_profile():
    # The study's own tables satisfy its checks C1-C3.
    grids = _e1_e2_grids(dvs.STUDY_EXACT["E1"], dvs.STUDY_EXACT["E2"])
    c1, c2, c2m, c3 = dvs.ordering_facts(grids, study_profile=True)[:4]
    assert [f.name[:2] for f in (c1, c2, c2m, c3)] == ["C1", "C2", "C2", "C3"]
    assert c1.ours == "yes (1/1)"
    assert c2.ours == "yes (9/9)"  # 3 targets >= 25 ms, and baseRTT against the 6 fixed targets
    assert c2m.ours == "yes (21/21)"  # 7 points x 3 metrics
    assert c3.ours == "yes (3/3)" and c3.tag == "study fact"
    # Swapping E2's 0 and 5000 B losses breaks C3; 0.25 s differing from 5 s breaks C1.
    e2 = dict(dvs.STUDY_EXACT["E2"])
    e2["0"], e2["5000"] = (753.614, 4.21358, 9.0), (916.074, 15.6578, 18.8)
    e1 = dict(dvs.STUDY_EXACT["E1"])
    e1["5"] = (895.223, 16.6009, 10.9)
    facts = dvs.ordering_facts(_e1_e2_grids(e1, e2))
    assert facts[0].ours.startswith("no") and facts[3].ours.startswith("no (2/3)")
    assert facts[3].tag == "study fact, profile differs"


@pytest.mark.core
def test_ns3_study_scenarios_pass_the_core_validation():
    from dcnsim._ext import core
    from dcnsim._scenario import scenario_json

    exp_dir = dvs.experiments_dir()
    cells = dvs.build_cells(["E1", "E3"], 1, True, exp_dir, "test", profile_name="ns3_study")
    for c in cells:
        core().Simulation(scenario_json(c.spec), str(exp_dir))  # max_mdf = 1, rtt_resolution, single_path


@pytest.mark.core
def test_experiment_files_build_with_the_hand_derived_flow_counts():
    from dcnsim._ext import core
    from dcnsim._scenario import load_scenario, scenario_json

    exp_dir = dvs.experiments_dir()
    # Mode 0 skips the receiver's turns: 650 - floor(650/16) = 610 at k = 4; 100 at k = 12
    # (host 431's turn never comes); modes 1 and 2 keep every requested flow.
    expected = {"E1": (610, 16), "E2": (610, 16), "E3": (100, 16), "E4": (100, 16), "E5": (100, 432),
                "E6": (100, 432)}
    for key, (flows, hosts) in expected.items():
        spec, _ = load_scenario(exp_dir / dvs.EXPERIMENTS[key].toml)
        assert spec["topology"]["hosts"] == hosts
        sim = core().Simulation(scenario_json(spec), str(exp_dir))
        table = sim.flows()
        assert len(table["src"]) == flows, key
        if key in ("E1", "E2", "E6"):
            assert set(table["dst"]) == {hosts - 1}


@pytest.mark.core
def test_quick_e3_end_to_end(tmp_path):
    code, table = dvs.reproduce(quick=True, only="E3", jobs=1, out=str(tmp_path))
    assert code == 0
    assert "## E3" in table and "study D" in table and "study fact, profile differs" in table
    assert "C4 delivered rate into the hotspot ≤ 1 Gbps (every variant)" in table
    # Conservation holds in every run.
    assert "| yes (2/2)" in table.split("C4 delivered rate")[1].splitlines()[0]
    runs = (tmp_path / "runs.csv").read_text().splitlines()
    assert len(runs) == 1 + 12
    assert (tmp_path / "e3.png").is_file()
    # A second invocation runs nothing: every run comes from the cache.
    import io

    err = io.StringIO()
    code, again = dvs.reproduce(quick=True, only="E3", jobs=1, out=str(tmp_path), stream=err)
    assert "12 cached, 0 to run" in err.getvalue()
    assert again == table
