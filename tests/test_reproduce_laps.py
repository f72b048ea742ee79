"""``dcnsim reproduce laps``: the metric functions and the flow-table helpers (measurement
window, size buckets, offered load) on hand-computed inputs (docs/reproductions/laps-paper.md),
the cells and their overrides (the headline LAPS is the artefact's), every scenario built by
the core without running it, a tiny end-to-end run of E5 and E6 (1 MB LLM flows): the table
has a row for every check B1-B9 for the headline and the ablation, and the 63 -> 1 incast
cannot beat its receiver link, a bound computed here from the flow sizes; and a quick E1 of
two schemes."""

from __future__ import annotations

import csv
import io
import math

import pytest

from dcnsim.repro.papers import laps as rl

# ---------------------------------------------------------------------------------------
# Metrics


def test_ideal_incast_is_the_receiver_link_time():
    # 63 x 64,000,000 B x 8 / 200 Gb/s = 161.28 ms (docs/reproductions/laps-paper.md); 322.56 ms through 100G.
    assert rl.ideal_incast_ms(63, 64_000_000) == pytest.approx(161.28)
    assert rl.ideal_incast_ms(63, 64_000_000, gbps=100) == pytest.approx(322.56)
    # On the wire every 1000 B of payload carries a 48 B header: x 1.048.
    assert rl.ideal_incast_ms(63, 64_000_000, wire=True) == pytest.approx(161.28 * 1.048)
    # A partial last packet still carries a whole header: 1500 B = 2 packets, 96 B of headers.
    assert rl.ideal_incast_ms(1, 1500, gbps=8e-6, wire=True) == pytest.approx(1500 + 96)  # bits / 8 kb/s, in ms


def test_p99_is_the_artefacts_element_and_median_skips_nan():
    assert rl.p99_artefact(list(range(1, 64))) == 63  # floor(0.99 x 63) = 62: the largest of 63
    assert rl.p99_artefact(list(range(200))) == 198  # floor(0.99 x 200) = 198
    assert math.isnan(rl.p99_artefact([]))
    assert rl.median([3.0, math.nan, 1.0, 2.0]) == 2.0
    assert math.isnan(rl.median([math.nan]))


def test_growth_is_the_difference_between_full_and_half_load():
    assert rl.growth({0.5: 1.0, 0.8: 2.0, 1.0: 4.5}) == 3.5
    assert math.isnan(rl.growth({0.5: 1.0}))


def test_llm_flows_are_a_poisson_incast_and_scatter():
    flows = rl.llm_flows("allreduce", 1, 64_000_000, 10_000.0)
    assert len(flows) == 63
    assert {d for _, d, _, _ in flows} == {0} and sorted(s for s, _, _, _ in flows) == list(range(1, 64))
    starts = [t for _, _, _, t in flows]
    assert starts == sorted(starts) and starts[0] > 0
    # 63 exponential gaps of mean 10 ms / 63: the last start is a Gamma(63) with mean 10 ms
    # and sd 1.26 ms, so far outside 5..15 ms only by a broken generator.
    assert 5_000 < starts[-1] < 15_000
    scatter = rl.llm_flows("allscatter", 1, 1000, 10_000.0)
    assert {s for s, _, _, _ in scatter} == {0} and sorted(d for _, d, _, _ in scatter) == list(range(1, 64))
    assert rl.llm_flows("allreduce", 2, 1000, 10.0) != rl.llm_flows("allreduce", 1, 1000, 10.0)
    assert rl.llm_flows("allreduce", 2, 1000, 10.0) == rl.llm_flows("allreduce", 2, 1000, 10.0)
    text = rl.llm_csv(flows[:2])
    assert text.startswith("src,dst,size,start\n") and text.count("\n") == 3 and "us\n" in text


def test_artefact_load():
    # x1/100 on percent-scale CDFs, x 0.0091 x 143 = 1.3013 on the dragonfly (docs/reproductions/laps-paper.md, AL).
    assert rl.artefact_load(rl.EXPERIMENTS["E1"], 0.8) == 0.8
    assert rl.artefact_load(rl.EXPERIMENTS["E2"], 0.8) == pytest.approx(0.008)
    assert rl.artefact_load(rl.EXPERIMENTS["E4"], 0.8) == pytest.approx(0.8 * 0.01 * 1.3013)
    assert rl.artefact_load(rl.EXPERIMENTS["E4A"], 1.0) == pytest.approx(0.013013)


# A flow table of 6 flows (sizes in B, times in µs), by hand: starts 500 and 9000 fall outside
# the window [1000, 9000); the flow at 8000 is unfinished.
FLOWS = {
    "size": [50_000, 99_999, 100_000, 9_999_999, 10_000_000, 20_000_000],
    "start_us": [500.0, 1000.0, 2000.0, 8999.0, 9000.0, 8000.0],
    "fct_us": [10.0, 20.0, 300.0, 4000.0, 900.0, None],
    "finished": [True, True, True, True, True, False],
}


def test_size_buckets_and_the_measurement_window():
    # dcnsim's buckets: small < 100 KB, medium 100 KB to < 10 MB, large >= 10 MB.
    assert [rl.size_bucket(s) for s in FLOWS["size"]] == ["small", "small", "medium", "medium", "large", "large"]
    assert rl.in_window(FLOWS, (1000.0, 9000.0)) == [1, 2, 3, 5]
    assert rl.in_window(FLOWS, None) == list(range(6))
    # Finished flows in the window: 20 (small), 300 and 4000 (medium); the large one at 8000
    # is unfinished and the one at 9000 starts at the window's (open) end.
    assert rl.window_fcts_us(FLOWS, (1000.0, 9000.0)) == [20.0, 300.0, 4000.0]
    assert rl.window_fcts_us(FLOWS, (1000.0, 9000.0), "small") == [20.0]
    assert rl.window_fcts_us(FLOWS, (1000.0, 9000.0), "medium") == [300.0, 4000.0]
    assert rl.window_fcts_us(FLOWS, (1000.0, 9000.0), "large") == []
    assert rl.window_fcts_us(FLOWS, None, "large") == [900.0]
    # A run keeps its window: avg (20 + 300 + 4000) / 3 µs = 1.44 ms; medium avg 2.15 ms.
    cell = rl.Cell.of("E1", rl.Run("load 1.00", rl.LAPS, (), 1.0, measure=(1000.0, 9000.0), window_us=10_000.0),
                      1, {})
    r = rl.RunResult(cell, {"flows": FLOWS, "stats": {"ecn_marks": 0, "pfc_pause_frames": 0}})
    assert r.avg_ms() == pytest.approx(4320 / 3 / 1e3)
    assert r.bucket_avg_ms("medium") == pytest.approx(2.15)
    assert r.bucket_p99_ms("medium") == pytest.approx(4.0)  # floor(0.99 x 2) = element 1
    assert math.isnan(r.bucket_avg_ms("large"))
    assert r.measured() == 4 and r.quiet()


def test_offered_load_of_the_window():
    # Flows starting in [1000, 9000) µs: 99,999 + 100,000 + 9,999,999 + 20,000,000 = 30,199,998 B
    # over 64 hosts x 200 Gb/s x 8 ms = 12.8 GB: 0.0023594 (to 5 digits).
    x = rl.offered_load(FLOWS, 1000.0, 9000.0, 64, 200.0)
    assert x == pytest.approx(30_199_998 * 8 / (64 * 200e9 * 8e-3))
    assert x == pytest.approx(0.0023594, rel=1e-4)
    # The same bytes on 100G host links are twice the load.
    assert rl.offered_load(FLOWS, 1000.0, 9000.0, 64, 100.0) == pytest.approx(2 * x)
    assert math.isnan(rl.offered_load(FLOWS, 5.0, 5.0, 64, 200.0))


def test_headline_is_the_artefacts_laps():
    # Issue 28: "LAPS" = the artefact's rules (the core's defaults), "LAPS [text]" = the
    # paper's literal rules as the ablation; RPS = the headline with beta = 0.
    assert rl.SCHEMES[rl.LAPS][-1] == "transport.laps={}"
    assert rl.LAPS_VARIANTS == ("LAPS", "LAPS [text]")
    assert "raw_us" in rl.SCHEMES[rl.LAPS_T][-1] and 'gate = "paper"' in rl.SCHEMES[rl.LAPS_T][-1]
    assert rl.SCHEMES[rl.RPS][-1] == "transport.laps={ beta = 0 }"
    assert rl.beta_variant(5.0) == ("LAPS β=5", ("transport.cc=laps", "transport.lb=laps",
                                                 "transport.laps={ beta = 5.0 }"))
    for s in (rl.ECMP, rl.LETFLOW, rl.CONGA, rl.CONWEAVE):
        assert rl.SCHEMES[f"{s} [DCQCN paper]"] == rl.SCHEMES[s] + ("transport.dcqcn.variant=paper",)
    assert rl.SCHEMES[rl.LAPS_NCC] == rl.SCHEMES[rl.LAPS] + ('switch.pfc.class_change="none"',)


# ---------------------------------------------------------------------------------------
# Cells


def test_quick_and_full_cells(tmp_path):
    exp_dir = rl.experiments_dir()
    quick = rl.build_cells(list(rl.EXPERIMENTS), 1, True, exp_dir, "test", flows_dir=tmp_path)
    per = {k: sum(c.exp == k for c in quick) for k in rl.EXPERIMENTS}
    # The paper's schemes in Figs. 5-8 and Table 1 (LAPS paper §4.2): ECMP, LetFlow, CONGA,
    # ConWeave, PLB and LAPS, LAPS twice (the headline and the ablation [text]): 7 per
    # point; E4 adds "LAPS [no class change]" at its top load(s); E5 adds RPS and the four
    # DCQCN baselines on the DCQCN paper's rules: 12 per drop rate. Quick: 3 loads, 1 seed.
    a2a = {k: 3 * 7 for k in ("E1", "E1H", "E2", "E2H", "E3", "E2A", "E3A", "E4A")}
    assert per == {**a2a, "E4": 3 * 7 + 1, "E5": 2 * 12, "E6": 7}
    full = rl.build_cells(list(rl.EXPERIMENTS), 3, False, exp_dir, "test", flows_dir=tmp_path)
    per = {k: sum(c.exp == k for c in full) for k in rl.EXPERIMENTS}
    # Full: 6 loads x 7 schemes x 3 seeds = 126; E4 + 2 loads x 3 seeds of the ablation; E5
    # (2 x 12 + 8 at the artefact's 1e-5 at every link) x 3; E6 (3 + 4 betas + 3) x 3.
    a2a = {k: 126 for k in ("E1", "E1H", "E2", "E2H", "E3", "E2A", "E3A", "E4A")}
    assert per == {**a2a, "E4": 132, "E5": 96, "E6": 30}
    by = {(c.exp, c.point, c.scheme, c.seed): c for c in full}
    # docs/reproductions/laps-paper.md: the artefact drops with probability about 1e-5 at every link receive.
    art = by[("E5", rl.E5_POINT_A, rl.ECMP, 3)].spec["topology"]
    assert (art["loss_rate"], art["loss_links"]) == (1e-5, "all")
    assert by[("E5", "drop 1e-06", rl.ECMP, 3)].spec["topology"].get("loss_links", "switch") == "switch"
    assert not any(c.point == rl.E5_POINT_A for c in quick), "quick: the paper's two drop rates only"
    laps = by[("E1", "load 0.80", rl.LAPS_T, 2)].spec
    assert laps["transport"]["cc"] == "laps" and laps["transport"]["lb"] == "laps"
    assert laps["transport"]["laps"] == {"latency_scale": "raw_us", "gate": "paper", "probe": "paper",
                                         "window": False}
    # Steady-state E1: the paper's 10 ms of arrivals, FCTs of the flows starting in [1, 9) ms.
    assert laps["workload"][0]["load"] == 0.8 and laps["workload"][0]["stop"] == "10000us" and laps["seed"] == 2
    assert by[("E1", "load 0.80", rl.LAPS_T, 2)].run.measure == (1000.0, 9000.0)
    assert {c.run.measure for c in quick if c.exp in ("E1", "E1H")} == {(100.0, 400.0)}
    assert {c.run.measure for c in full if c.exp not in ("E1", "E1H")} == {None}
    assert by[("E1", "load 0.80", rl.LAPS, 1)].spec["transport"]["laps"] == {}
    # The all-100G rail: the GPU links at the fabric's 100 Gb/s, the same nominal load.
    h = by[("E1H", "load 0.80", rl.ECMP, 1)].spec
    assert h["topology"]["host_link_rate"] == "100Gbps" and h["workload"][0]["load"] == 0.8
    assert "host_link_rate" not in by[("E1", "load 0.80", rl.ECMP, 1)].spec["topology"]
    assert by[("E2H", "load 0.50", rl.PLB, 3)].spec["topology"]["host_link_rate"] == "100Gbps"
    # The DCQCN baselines run the artefact's Mellanox DCQCN in every scenario file.
    for key in (("E1", "load 0.80", rl.ECMP, 1), ("E3", "load 0.80", rl.CONGA, 1), ("E5", "drop 0", rl.CONWEAVE, 1)):
        assert by[key].spec["transport"]["dcqcn"]["variant"] == "mellanox", key
    # E5's ablation: the same baselines on the DCQCN paper's rules, at both of Table 1's drop rates.
    for p in ("drop 0", "drop 1e-06"):
        t = by[("E5", p, "LetFlow [DCQCN paper]", 1)].spec["transport"]
        assert (t["lb"], t["dcqcn"]["variant"]) == ("letflow", "paper")
    assert not any(c.scheme.endswith("[DCQCN paper]") for c in full if c.point == rl.E5_POINT_A)
    # The dragonfly: the PFC class change at global links for every scheme; E4's ablation
    # without it at 0.9 and 1.0 only.
    for key in (("E3", "load 0.50", rl.LETFLOW, 1), ("E4", "load 1.00", rl.LAPS, 1), ("E4A", "load 0.80", rl.PLB, 1)):
        sw = by[key].spec["switch"]
        assert sw["pfc"] == {"per_priority": True, "class_change": "per_global_hop"}, key
        assert (sw["scheduler"], sw["priority"]) == ("priority", {"queues": 3, "service": "drr"}), key
    assert by[("E4", "load 1.00", rl.LAPS_NCC, 2)].spec["switch"]["pfc"]["class_change"] == "none"
    assert sorted({c.point for c in full if c.scheme == rl.LAPS_NCC}) == ["load 0.90", "load 1.00"]
    assert {c.exp for c in full if c.scheme == rl.LAPS_NCC} == {"E4"}
    ecmp = by[("E3", "load 1.00", rl.ECMP, 1)].spec
    assert (ecmp["transport"]["cc"], ecmp["transport"]["lb"], ecmp["transport"]["loss_recovery"]) == (
        "dcqcn", "ecmp", "go_back_n")
    assert ecmp["topology"]["kind"] == "dragonfly" and ecmp["workload"][0]["cdf"].endswith("googlerpc2008.cdf")
    assert ecmp["workload"][0]["stop"] == "500us"
    # ConWeave (docs/models/conweave.md): DCQCN with go-back-N like ECMP, the artefact's parameters.
    cw = by[("E2", "load 0.80", rl.CONWEAVE, 1)].spec["transport"]
    assert (cw["cc"], cw["lb"], cw["loss_recovery"]) == ("dcqcn", "conweave", "go_back_n")
    assert cw["conweave"] == {"reply_deadline_extra": "80ns", "voq_flush_slack": "32us", "voq_wait": "200us",
                              "tx_inactivity": "10us", "path_pause": "4us"}
    plb = by[("E4", "load 0.50", rl.PLB, 1)].spec
    assert (plb["transport"]["cc"], plb["transport"]["lb"]) == ("dctcp", "plb")
    # docs/models/dctcp.md (the artefact's): PLB runs the rate-based DCTCP (g = 1/256, +1 Gb/s per batch), with
    # the unified window, in every experiment.
    for key in (("E1", "load 0.80", rl.PLB, 1), ("E4", "load 0.50", rl.PLB, 1), ("E5", "drop 0", rl.PLB, 1)):
        d = by[key].spec["transport"]["dctcp"]
        assert d["variant"] == "rate", key
        assert (d["rate"]["g"], d["rate"]["rate_ai"], d["rate"]["window"]) == (1 / 256, "1Gbps", "bdp"), key
    # docs/models/plb.md (PLB: idle re-path after 3, forced after 12, an RTO only pauses) and docs/models/dcqcn.md
    # (DCQCN's unified one-BDP window), in every scenario file of the harness.
    for key in (("E1", "load 0.80", rl.PLB, 1), ("E4", "load 0.50", rl.PLB, 1), ("E5", "drop 0", rl.PLB, 1)):
        t = by[key].spec["transport"]
        assert (t["plb"]["rounds"], t["plb"]["idle_rounds"], t["plb"]["repath_on_timeout"]) == (12, 3, False), key
    for key in (("E1", "load 0.80", rl.ECMP, 1), ("E3", "load 0.80", rl.LETFLOW, 1), ("E5", "drop 0", rl.CONGA, 1)):
        assert by[key].spec["transport"]["dcqcn"]["window"] == "bdp", key
    assert by[("E2", "load 0.60", rl.LETFLOW, 3)].spec["transport"]["lb"] == "letflow"
    # The flow-level baselines route over the union of the LAPS candidate paths (docs/models/ecmp.md).
    for s in (rl.ECMP, rl.LETFLOW, rl.PLB):
        for key in (("E1", "load 0.80", s, 1), ("E3", "load 0.80", s, 1), ("E5", "drop 0", s, 1)):
            assert by[key].spec["transport"]["lb_paths"] == "candidates", key
    # CONGA: DCQCN + go-back-N (docs/reproductions/laps-paper.md) with the artefact's CONGA parameters
    # (docs/models/conga.md: flowlet timeout 10 µs, DRE period 200 µs, alpha 0.2, 3 bits, aging 10 ms),
    # in every experiment whose figure has it (E1-E5), not in E6 (LAPS only, Fig. 9).
    for key in (("E1", "load 0.50", rl.CONGA, 1), ("E2", "load 1.00", rl.CONGA, 2), ("E3", "load 0.80", rl.CONGA, 3),
                ("E4", "load 0.60", rl.CONGA, 1), ("E5", "drop 1e-06", rl.CONGA, 1), ("E2A", "load 0.80", rl.CONGA, 1)):
        t = by[key].spec["transport"]
        assert (t["cc"], t["lb"], t["loss_recovery"]) == ("dcqcn", "conga", "go_back_n"), key
        assert t["conga"] == {"flowlet_timeout": "10us", "dre_period": "200us", "dre_decay": 0.2, "metric_bits": 3,
                              "table_aging": "10ms"}, key
    assert not any(c.scheme == rl.CONGA for c in full if c.exp == "E6")
    # E5: 64 MB flows from the harness's file, loss per switch-to-switch link.
    e5 = by[("E5", "drop 1e-06", rl.RPS, 1)]
    assert e5.spec["topology"]["loss_rate"] == 1e-6 and e5.spec["transport"]["laps"] == {"beta": 0}
    rows = list(csv.DictReader(open(e5.spec["workload"][0]["file"])))
    assert len(rows) == 63 and {r["size"] for r in rows} == {"64000000"} and {r["dst"] for r in rows} == {"0"}
    # E6's AllReduce runs are E5's loss-free ones: the same scenario, so the same cache key.
    assert by[("E6", "allreduce", rl.LAPS, 1)].key == by[("E5", "drop 0", rl.LAPS, 1)].key
    assert by[("E6", "allscatter", f"{rl.LAPS} β=10", 1)].spec["transport"]["laps"] == {"beta": 10.0}
    # E2A-E4A: the artefact's load at every load of LOADS; on the dragonfly x 1.30 x 1/100, on
    # the rail x 1/100; the paper's 10 ms of arrivals.
    for x in rl.LOADS:
        al = by[("E4A", f"load {x:.2f}", rl.ECMP, 1)].spec
        assert al["workload"][0]["load"] == pytest.approx(x * 0.01 * 0.0091 * 143)
        assert al["topology"]["kind"] == "dragonfly" and al["workload"][0]["cdf"].endswith("hadoop_fb2015.cdf")
        assert al["workload"][0]["stop"] == "10000us"
        e2a = by[("E2A", f"load {x:.2f}", rl.LAPS, 2)].spec
        assert e2a["workload"][0]["load"] == pytest.approx(x * 0.01) and e2a["topology"]["kind"] == "rail"
        assert by[("E3A", f"load {x:.2f}", rl.PLB, 3)].spec["workload"][0]["load"] == pytest.approx(x * 0.013013)


def _e5_grid(avg_ms: dict[str, float]) -> "rl.Grid":
    """An E5 grid of one seed where every scheme's 63 flows all take ``avg_ms``."""
    results = []
    for scheme, ms in avg_ms.items():
        cell = rl.Cell.of("E5", rl.Run("drop 0", scheme, ()), 1, {})
        flows = {"fct_us": [ms * 1e3] * 63, "finished": [True] * 63, "size": [64_000_000] * 63}
        results.append(rl.RunResult(cell, {"flows": flows}))
    return rl.Grid(rl.EXPERIMENTS["E5"], results)


def test_b1_judges_conga_and_conweave_with_ecmp_and_letflow():
    # docs/reproductions/laps-paper.md, B1: every one of ECMP, LetFlow, CONGA and ConWeave at ≥ 2.5 x LAPS's avg.
    # LAPS 160 ms; Table 1's ECMP 564 and LetFlow 553 are 3.5x, CONGA's 540 3.375x and
    # ConWeave's 563 3.52x: holds.
    paper = {rl.LAPS: 160.0, rl.ECMP: 564.0, rl.LETFLOW: 553.0, rl.CONGA: 540.0, rl.CONWEAVE: 563.0,
             rl.PLB: 211.0}
    c = rl.checks_b1(_e5_grid(paper), rl.LAPS, 1.0)
    assert [x.status for x in c] == ["holds", "holds", "holds"]  # 160 in [155, 180]; PLB 211/160 = 1.32
    assert "CONGA 3.38x" in c[1].ours and "ConWeave 3.52x" in c[1].ours
    # CONGA or ConWeave at 390 ms = 2.44x alone fails it, whatever the others do.
    for scheme in (rl.CONGA, rl.CONWEAVE):
        c = rl.checks_b1(_e5_grid({**paper, scheme: 390.0}), rl.LAPS, 1.0)
        assert c[1].status == "fails" and f"{scheme} 2.44x" in c[1].ours
        # No run of it: not judged rather than judged on the others.
        missing = {k: v for k, v in paper.items() if k != scheme}
        assert rl.checks_b1(_e5_grid(missing), rl.LAPS, 1.0)[1].status == "not run"


def test_b6_counts_conga_among_the_baselines():
    # docs/reproductions/laps-paper.md, B6: PLB the best baseline in E5; a CONGA faster than PLB breaks it.
    base = {rl.LAPS: 160.0, rl.ECMP: 564.0, rl.LETFLOW: 553.0, rl.CONGA: 540.0, rl.PLB: 211.0}
    b6 = [c for c in rl.checks_b6({"E5": _e5_grid(base)}) if "PLB the best" in c.name]
    assert b6[0].status == "holds"
    b6 = [c for c in rl.checks_b6({"E5": _e5_grid({**base, rl.CONGA: 200.0})}) if "PLB the best" in c.name]
    assert b6[0].status == "fails" and "E5: CONGA" in b6[0].ours


def test_a_load_above_one_is_two_half_workloads():
    spec = {"workload": [{"kind": "poisson", "tag": "all2all", "load": 0.5}]}
    rl.runs._workload_with_load(spec, 1.3)
    assert [w["load"] for w in spec["workload"]] == [0.65, 0.65]
    assert spec["workload"][1]["tag"] == "all2all_2"


def test_the_cache_key_follows_the_flow_file_content_not_its_path(tmp_path):
    exp_dir = rl.experiments_dir()
    a = rl.build_cells(["E5"], 1, True, exp_dir, "test", flows_dir=tmp_path / "a")
    b = rl.build_cells(["E5"], 1, True, exp_dir, "test", flows_dir=tmp_path / "b")
    assert [c.key for c in a] == [c.key for c in b]
    c = rl.build_cells(["E5"], 1, True, exp_dir, "test", flows_dir=tmp_path / "a", llm_bytes=2_000_000)
    assert not {x.key for x in a} & {x.key for x in c}


def test_parse_only():
    assert rl.parse_only(None) == list(rl.EXPERIMENTS)
    assert rl.parse_only("e5, e1") == ["E1", "E5"]
    with pytest.raises(ValueError, match="E7"):
        rl.parse_only("E7")


@pytest.mark.core
def test_every_scenario_builds_in_the_core(tmp_path):
    """The core validates every distinct quick and full scenario (and generates its flows)
    without running it (one seed: the seeds change nothing the core checks)."""
    from dcnsim._ext import ScenarioError, core
    from dcnsim._scenario import scenario_json

    exp_dir = rl.experiments_dir()
    cells = rl.build_cells(list(rl.EXPERIMENTS), 1, True, exp_dir, "test", flows_dir=tmp_path)
    # Full E3 and E3A generate 10^5 RPC flows per scenario; their quick twins cover the same files.
    cells += rl.build_cells([k for k in rl.EXPERIMENTS if k not in ("E3", "E3A")], 1, False, exp_dir, "test",
                            flows_dir=tmp_path)
    errors: dict[str, list[str]] = {}
    for cell in {c.key: c for c in cells}.values():
        try:
            core().Simulation(scenario_json(cell.spec), str(exp_dir))
        except ScenarioError as exc:
            errors.setdefault(str(exc), []).append(cell.progress_label().strip())
    assert not errors, "\n".join(f"{msg}\n  in {len(c)} cells, e.g. {c[0]}" for msg, c in errors.items())


# ---------------------------------------------------------------------------------------
# End to end

def test_ooo_cdf_pools_the_histograms_of_the_seeds():
    # Samples by KB held: seed 1 saw 0 KB twice and 1 KB once, seed 2 0 KB once and 2 KB
    # once: 5 samples, P(<= 0 KB) = 3/5, P(<= 1) = 4/5, P(<= 2) = 1. A run without a
    # histogram (a baseline) adds nothing.
    def run(hist):
        cell = rl.Cell.of("E6", rl.Run("AllReduce", rl.LAPS, ()), 1, {})
        return rl.RunResult(cell, {"flows": {}, "extra": {"ooo_histogram_kb": hist} if hist is not None else {}})
    assert rl.ooo_cdf([run([2, 1]), run([1, 0, 1]), run(None)]) == ([0.0, 1.0, 2.0], [0.6, 0.8, 1.0])
    assert rl.ooo_cdf([run(None)]) == ([], [])


LLM = 1_000_000  # 1 MB flows: 63 MB through the receiver, a few seconds for every run


@pytest.mark.core
def test_tiny_end_to_end(tmp_path):
    err = io.StringIO()
    code, table = rl.reproduce(quick=True, only="E5,E6", jobs=1, out=str(tmp_path), stream=err,
                                    llm_bytes=LLM)
    assert code == 0, err.getvalue()
    assert (tmp_path / "table.md").read_text() == table
    checks = table.split("## Checks")[1].split("```")[1]
    rows = [[c.strip() for c in line.split("|")] for line in checks.strip().splitlines()[1:]]
    for variant in ("headline", "ablation [text]"):
        ids = {r[0] for r in rows if r[1] == variant}
        assert {"B1", "B2", "B3", "B4", "B5", "B7", "B8", "B9"} <= ids, (variant, ids)
    assert "B6" in {r[0] for r in rows}
    for r in rows:
        assert r[-1].split(":")[0] in ("holds", "fails", "not run"), r
    # Experiments not selected are "not run".
    assert all(r[-1].startswith("not run") for r in rows if r[0] in ("B3", "B4", "B5"))
    # B1 judges all four of the paper's Table 1 baselines against LAPS.
    b1 = [r for r in rows if r[0] == "B1" and "ECMP, LetFlow, CONGA, ConWeave" in r[2]]
    assert len(b1) == 2 and all("CONGA" in r[3] and "ConWeave" in r[3] for r in b1)
    e5 = table.split("## E5")[1].split("## E6")[0]
    e5_rows = {line.split("|")[0].strip(): line for line in e5.splitlines() if "|" in line}
    assert {"ECMP", "LetFlow", "CONGA", "ConWeave", "PLB", "LAPS", "LAPS [text]", "RPS"} <= set(e5_rows)
    assert {"ECMP [DCQCN paper]", "ConWeave [DCQCN paper]"} <= set(e5_rows)
    assert "not implemented" not in e5
    assert "## E6" in table

    runs = list(csv.DictReader(open(tmp_path / "runs.csv")))
    # One row per cell: E5 (8 schemes + 4 DCQCN-paper ablations) x 2 drop rates; E6 AllScatter 4
    # variants, AllReduce 3
    assert len(runs) == 24 + 7
    assert {r["scheme"] for r in runs if r["experiment"] == "E5"} == {
        rl.LAPS, rl.LAPS_T, rl.ECMP, rl.LETFLOW, rl.CONGA, rl.CONWEAVE, rl.PLB, rl.RPS, *rl.E5_ABLATIONS}
    assert all(r["error"] == "" and r["finished"] == r["flows"] == "63" for r in runs)
    # Physics: no scheme empties 63 x 1 MB through the receiver's 200 Gb/s link faster than
    # the link allows: last finish − first start ≥ 63 x 1 MB x 8 / 200 Gb/s = 2.52 ms.
    bound_ms = 63 * LLM * 8 / 200e9 * 1e3
    assert bound_ms == pytest.approx(2.52)
    import json

    e5 = [r for r in runs if r["experiment"] == "E5"]
    for r in e5:
        rec = json.loads((tmp_path / "cache" / f"{r['key']}.json").read_text())["record"]
        f = rec["flows"]
        assert f["size"] == [LLM] * 63
        makespan_ms = (max(f["finish_us"]) - min(f["start_us"])) / 1e3
        assert makespan_ms >= bound_ms, (r["scheme"], makespan_ms)
        # and no flow beats its own 1 MB at 200 Gb/s (40 µs)
        assert min(f["fct_us"]) >= LLM * 8 / 200e9 * 1e6
    assert (tmp_path / "table1_allreduce.png").is_file() and (tmp_path / "fig9_reordering.png").is_file()
    assert (tmp_path / "fig9_ooo_cdf.png").is_file() and (tmp_path / "fig9_ooo_histogram.png").is_file()
    # A second invocation takes every run from the cache and writes the same table.
    err = io.StringIO()
    _, again = rl.reproduce(quick=True, only="E5,E6", jobs=1, out=str(tmp_path), stream=err, llm_bytes=LLM)
    assert "28 cached, 0 to run" in err.getvalue()
    assert again == table


def test_schemes_select_and_the_old_plb_pairing(tmp_path):
    exp_dir = rl.experiments_dir()
    cells = rl.build_cells(["E5"], 1, True, exp_dir, "test", flows_dir=tmp_path, schemes=[rl.PLB, rl.PLB_W])
    # 2 drop rates x (PLB, its window-DCTCP twin).
    assert sorted((c.point, c.scheme) for c in cells) == sorted(
        (p, s) for p in ("drop 0", "drop 1e-06") for s in (rl.PLB, rl.PLB_W))
    by = {(c.point, c.scheme): c.spec for c in cells}
    old = by[("drop 1e-06", rl.PLB_W)]
    assert old["transport"]["dctcp"]["variant"] == "window" and old["transport"]["lb"] == "plb"
    assert old["topology"]["loss_rate"] == 1e-6
    assert by[("drop 0", rl.PLB)]["transport"]["dctcp"]["variant"] == "rate"
    with pytest.raises(ValueError, match="schemes: unknown 'PLBX'.*allowed: .*PLB \\[window DCTCP\\]"):
        rl.build_cells(["E5"], 1, True, exp_dir, "test", flows_dir=tmp_path, schemes=["PLBX"])


def _a2a_result(exp: str, load: float, scheme: str, seed: int, fct_us: float, *, stalled: bool = False,
                ecn: int = 0, pauses: int = 0) -> "rl.RunResult":
    """Two flows of 1 MB starting at 0 µs, both finished in ``fct_us`` (one unfinished when
    ``stalled``: the events ran out, no time cap)."""
    cell = rl.Cell.of(exp, rl.Run(f"load {load:.2f}", scheme, (), load, window_us=1000.0), seed, {})
    flows = {"size": [1_000_000] * 2, "start_us": [0.0, 0.0], "fct_us": [fct_us, fct_us if not stalled else None],
             "finished": [True, not stalled], "ideal_fct_us": [40.0, 40.0]}  # 1 MB at 200 Gb/s
    return rl.RunResult(cell, {"flows": flows, "stats": {"ecn_marks": ecn, "pfc_pause_frames": pauses}})


def test_stalled_runs_are_counted_apart_and_kept_out_of_the_medians():
    g = rl.Grid(rl.EXPERIMENTS["E4"], [
        _a2a_result("E4", 1.0, rl.LAPS_NCC, 1, 100.0),
        _a2a_result("E4", 1.0, rl.LAPS_NCC, 2, 900.0, stalled=True),
        _a2a_result("E4", 1.0, rl.LAPS_NCC, 3, 300.0, stalled=True)])
    assert g.stalled("load 1.00", rl.LAPS_NCC) == (2, 3)
    # Only seed 1 counts: 0.1 ms, not the median 0.3 ms of all three.
    assert g.med("load 1.00", rl.LAPS_NCC, rl.avg_fct_ms) == pytest.approx(0.1)


def test_b3_says_when_it_rests_on_cells_without_congestion_signal():
    # LAPS 1 ms everywhere, every baseline 2 ms: LAPS lowest at every load; ECMP's cell at 0.8
    # saw 5 ECN marks, every other cell none (and no PFC pause).
    res = [_a2a_result("E1", x, s, 1, 1000.0 if s == rl.LAPS else 2000.0, ecn=5 if (s, x) == (rl.ECMP, 0.8) else 0)
           for x in (0.5, 0.8, 1.0) for s in (rl.LAPS, *rl.BASELINES)]
    g = rl.Grid(rl.EXPERIMENTS["E1"], res)
    b3 = rl.checks_b3(g, rl.LAPS)
    assert b3[0].status == "holds"
    assert "rests on 17 of 18 cells with no congestion signal" in b3[0].why
    assert "0.80 ECMP" not in b3[0].why and "0.80 PLB" in b3[0].why
    assert "rests on 2 of 3 cells" in b3[1].why  # at 0.8: LAPS, ECMP, PLB


@pytest.mark.core
def test_quick_e1_smoke(tmp_path):
    """``reproduce laps --quick --only E1`` for the headline LAPS (3 runs, seconds): the table has E1's
    steady-state block with the size buckets and the congestion-signal columns, and the
    window's flows never beat their own size at the 200 Gb/s host link."""
    err = io.StringIO()
    code, table = rl.reproduce(quick=True, only="E1", jobs=1, out=str(tmp_path), stream=err,
                               schemes=[rl.LAPS])
    assert code == 0, err.getvalue()
    e1 = table.split("## E1")[1]
    assert "FCTs of the flows that start in [0.1, 0.4) ms" in e1
    assert "small avg / P99" in e1 and "ECN marks" in e1 and "deadlocked seeds" in e1
    runs = list(csv.DictReader(open(tmp_path / "runs.csv")))
    assert len(runs) == 3 and all(r["error"] == "" for r in runs)
    assert all(0 < int(r["measured"]) <= int(r["flows"]) for r in runs)
    import json

    for r in runs:
        f = json.loads((tmp_path / "cache" / f"{r['key']}.json").read_text())["record"]["flows"]
        for size, fct in zip(f["size"], f["fct_us"]):
            assert fct >= size * 8 / 200e9 * 1e6
    assert (tmp_path / "fig5_rail_dm.png").is_file() and (tmp_path / "fig5_rail_dm_by_size.png").is_file()


def test_checks_judge_the_headline_on_both_load_definitions_and_the_100g_rail():
    # B3 on E1 and E1H, B4 on E2, E2A and E2H, B5 on E3/E4 and E3A/E4A: one row each, for the
    # headline and again, marked as the ablation, for LAPS [text]; B6 once, on the headline.
    grids = {k: rl.Grid(rl.EXPERIMENTS[k], [_a2a_result(k, 0.8, s, 1, 1000.0) for s in (rl.LAPS, *rl.BASELINES)])
             for k in ("E1", "E1H", "E2", "E2A", "E2H", "E3", "E4", "E3A", "E4A")}
    (head, cs), (abl, cs_t) = rl.all_checks(grids, quick=True)
    assert (head, abl) == (rl.LAPS, rl.LAPS_T)
    names = [c.name for c in cs]
    for key in ("E1", "E1H"):
        assert sum(n.startswith(f"{key} ") for n in names if "lowest avg FCT at every load" in n) == 1, key
    for key in ("E2", "E2A", "E2H"):
        assert f"{key} at 0.8: LAPS P99 lowest and ≤ 0.5 x every baseline's" in names, key
    for key in ("E3", "E4", "E3A", "E4A"):
        assert any(n.startswith(f"{key} LAPS: lowest avg and P99") for n in names), key
    assert sum(c.id == "B6" for c in cs) == 2 and not any(c.id == "B6" for c in cs_t)
    assert "E2A at 0.8: LAPS [text] P99 lowest and ≤ 0.5 x every baseline's" in [c.name for c in cs_t]
    block = rl.checks_block([(head, cs), (abl, cs_t)])
    assert "| headline " in block and "| ablation [text] " in block
