"""``dcnsim reproduce prioplus``: the buffer model and the metric functions on hand-computed
inputs (docs/reproductions/prioplus-paper.md), the cells and their overrides, every scenario
built by the core without running it, and the whole ``--quick`` harness end to end: its
outputs exist and the table has a row for every check. No test asserts a number of our
own simulation's output."""

from __future__ import annotations

import io
import math
import tomllib

import pytest

from dcnsim.repro.papers import prioplus as rp

NAN = math.nan

# ---------------------------------------------------------------------------------------
# Buffer model


def test_dt_pfc_is_a_dynamic_threshold_over_the_switch_buffer():
    carved = tomllib.loads(rp.dt_pfc().replace("switch.pfc=", "pfc = "))["pfc"]
    assert carved["dynamic"] == {"buffer": "2640000B", "carve_headroom": True}
    assert carved["headroom"] == "37500B" and carved["per_priority"] is False
    ideal = tomllib.loads(rp.dt_pfc(headroom_carved=False, per_priority=True).replace("switch.pfc=", "pfc = "))["pfc"]
    assert ideal["dynamic"]["carve_headroom"] is False and ideal["per_priority"] is True


# ---------------------------------------------------------------------------------------
# Metrics


def test_quantile_and_bucket_stats():
    assert rp.quantile([1, 2, 3, 4], 0.5) == 2.5
    assert rp.quantile([10], 0.99) == 10
    assert math.isnan(rp.quantile([], 0.5))
    sizes = [100, 200_000, 400_000, 7_000_000, 150]
    fcts = [10.0, 30.0, 300.0, 3000.0, math.nan]  # the last flow did not finish
    n, mean, p99 = rp.bucket_stats(sizes, fcts, 0, 300_000)
    assert (n, mean) == (2, 20.0) and p99 == pytest.approx(10 + 0.99 * 20)
    assert rp.bucket_stats(sizes, fcts, 300_000, 6_000_000)[:2] == (1, 300.0)
    assert rp.bucket_stats(sizes, fcts, 6_000_000, math.inf)[:2] == (1, 3000.0)
    assert rp.bucket_stats(sizes, fcts, 10, 20)[0] == 0


def test_fct_gap_is_the_sum_of_relative_differences():
    # |110 − 100|/100 + |90 − 100|/100 + |200 − 200|/200 = 0.2
    assert rp.fct_gap([110, 90, 200], [100, 100, 200]) == pytest.approx(0.2)
    assert rp.fct_gap([110, math.nan], [100, 100]) == math.inf


def test_first_break_and_smallest_passing():
    pts = [(0, 0.1), (10, 0.2), (20, 0.7), (30, 0.3)]
    assert rp.first_break(pts, 0.5) == 20
    assert math.isnan(rp.first_break([(0, 0.1)], 0.5))
    # utilisation by spacing: it must reach 0.98 and stay there.
    util = [(2.4, 0.99), (2.8, 0.90), (3.2, 0.985), (3.6, 0.99)]
    assert rp.smallest_passing(util, 0.98) == 3.2
    assert math.isnan(rp.smallest_passing([(2.4, 0.5), (3.0, 0.9)], 0.98))


def test_linear_r2():
    slope, r2 = rp.linear_r2([1, 2, 3, 4], [2.4, 2.8, 3.2, 3.6])
    assert slope == pytest.approx(0.4) and r2 == pytest.approx(1.0)
    slope, r2 = rp.linear_r2([1, 2, 3], [1, 3, 2])
    assert slope == pytest.approx(0.5) and r2 == pytest.approx(0.25)
    assert math.isnan(rp.linear_r2([1], [1])[1])


def test_delivered_series_windows_and_gaps():
    # Two flows sampled at 0, 10, 20, 30 us: flow 0 delivers 100 B/us, flow 1 25 B/us.
    t = [0, 10, 20, 30] * 2
    f = [0] * 4 + [1] * 4
    b = [0, 1000, 2000, 3000, 0, 250, 500, 750]
    s = rp.series_by_flow(t, f, b)
    assert rp.value_at(s[0], 15) == 1000 and rp.value_at(s[0], -1) == 0
    shares = rp.window_shares(s, {"high": [0], "low": [1]}, 10, 30)
    assert shares["low"] == pytest.approx(0.2) and shares["high"] == pytest.approx(0.8)
    assert math.isnan(rp.window_shares(s, {"low": [1]}, 30, 10)["low"])
    assert rp.utilisation(s, 10, 30, 125.0) == pytest.approx(1.0)
    # A flow that delivers at 0..5 us, then nothing until 90 us: the gap spanning 40 us is
    # from its last change (5) to its next (90).
    series = [(float(x), float(min(x, 5) * 10)) for x in range(0, 90)] + [(90.0, 60.0), (91.0, 70.0)]
    assert rp.gap_across(series, 40.0) == pytest.approx(85.0)
    assert math.isnan(rp.gap_across([(0.0, 1.0), (1.0, 1.0)], 0.5))


def test_completed_groups_counts_collectives_whose_every_flow_finished():
    tags = ["a", "a", "a", "a", "b", "b", "c"]
    groups = [0, 0, 1, 1, 0, 0, -1]
    finished = [True, True, True, False, True, True, True]
    # a: iteration 0 done, iteration 1 has an unfinished flow; b: one done; c: no groups.
    assert rp.completed_groups(tags, groups, finished) == {"a": 1, "b": 1}
    assert rp.completed_groups([], [], []) == {}


def test_training_speedups_readings():
    base = [{"r1": 10, "r2": 10, "v1": 4}, {"r1": 10, "r2": 10, "v1": 4}]
    scheme = [{"r1": 12, "r2": 11, "v1": 2}, {"r1": 12, "r2": 13, "v1": 4}]
    sp = rp.training_speedups(base, scheme, {"R": ("r1", "r2"), "V": ("v1",), "all": ("r1", "r2", "v1")})
    # R: jobs 24/20 = 1.2 and 24/20 = 1.2; pooled 48/40; per seed (1.2 + 1.1 + 1.2 + 1.3)/4.
    assert sp["R"]["jobs"] == pytest.approx(1.2) and sp["R"]["pooled"] == pytest.approx(1.2)
    assert sp["R"]["per_seed"] == pytest.approx(1.2)
    # V: 6/8 = 0.75; per seed (0.5 + 1.0)/2 = 0.75.
    assert sp["V"]["jobs"] == pytest.approx(0.75) and sp["V"]["per_seed"] == pytest.approx(0.75)
    # all: per job (1.2 + 1.2 + 0.75)/3 = 1.05; pooled (48 + 6)/(40 + 8) = 1.125.
    assert sp["all"]["jobs"] == pytest.approx(1.05) and sp["all"]["pooled"] == pytest.approx(1.125)
    assert math.isnan(rp.training_speedups([{"x": 0}], [{"x": 3}], {"X": ("x",)})["X"]["jobs"])


def test_paper_training_totals_are_pooled_over_jobs():
    # docs/reproductions/prioplus-paper.md, H9: Physical+Swift 1.16 (ResNet), 0.82 (VGG), 1.09 total. The mean of the two
    # types is 0.99; weighting by iterations, with a ResNet job iterating about 4.5x as often
    # as a VGG job (compute 701 vs 2743 us, docs/reproductions/prioplus-paper.md), gives the paper's total.
    r, v, total = rp.F12C_PAPER[rp.PHYS]
    assert abs((r + v) / 2 - total) > 0.05
    assert (4.5 * r + v) / 5.5 == pytest.approx(total, abs=0.015)
    assert rp.F12C_PRIMARY == {"ResNet": "jobs", "VGG": "jobs", "total": "pooled"}
    # H9: VGG 33 points below PrioPlus (H8: 1.15).
    assert rp.F12C_PAPER[rp.PP][1] - v == pytest.approx(0.33)


def test_group_ccts_are_last_delivery_minus_arrival():
    # Coflow 0: arrival 5, deliveries 15 and 25 -> 20. Coflow 1: one flow, 3 -> 4 = 1.
    # File request 2: one flow unfinished -> NaN. The flow in no group is ignored.
    rows = rp.group_ccts(["c", "c", "c", "f", "f", "x"], [0, 0, 1, 2, 2, -1], [7, 7, 8, 3, 3, 0],
                         [5.0, 5.0, 3.0, 1.0, 1.0, 0.0], [15.0, 25.0, 4.0, 9.0, NAN], [True, True, True, True, False,
                                                                                          True])
    assert rows[:2] == [("c", 0, 7, 20.0), ("c", 1, 8, 1.0)]
    assert rows[2][:3] == ("f", 2, 3) and math.isnan(rows[2][3])
    assert len(rows) == 3


def test_cct_rows_read_an_unfinished_coflow_back_as_nan():
    # The cache is JSON without NaN: summarize keeps an unfinished coflow's CCT as null.
    r = rp.RunResult(None, {"extra": {"ccts": [["coflow", 0, 8, None], ["file_request", 1, 3, 12.5]]}})
    rows = rp.cct_rows(r)
    assert rows[1] == ("file_request", 1, 3, 12.5)
    assert rows[0][:3] == ("coflow", 0, 8) and math.isnan(rows[0][3])


def test_coflow_speedups_ratio_of_means_mean_of_ratios_and_tail():
    base = [[("c", 0, 2, 10.0), ("c", 1, 1, 40.0)], [("c", 0, 2, 30.0), ("c", 1, 1, NAN)]]
    scheme = [[("c", 0, 2, 5.0), ("c", 1, 1, 80.0)], [("c", 0, 2, 10.0), ("c", 1, 1, 20.0)]]
    sp = rp.coflow_speedups(base, scheme, levels=(1, 2))
    # Level 2: pairs (10, 5) and (30, 10): 40/15; (2 + 3)/2; p99 (10 + 0.99·20)/(5 + 0.99·5).
    assert sp["means"][2] == pytest.approx(40 / 15) and sp["ratios"][2] == pytest.approx(2.5)
    assert sp["p99"][2] == pytest.approx(29.8 / 9.95)
    # Level 1: only seed 1 (the baseline's seed-2 coflow never finished): 40/80.
    assert sp["means"][1] == pytest.approx(0.5) and sp["count"][1] == 1
    assert sp["means"]["high"] == pytest.approx(40 / 15) and sp["means"]["low"] == pytest.approx(0.5)
    assert sp["means"]["all"] == pytest.approx((40 / 15 + 0.5) / 2)
    empty = rp.coflow_speedups([[]], [[]], levels=(1, 2))
    assert math.isnan(empty["means"]["all"])


def test_coflow_speedups_overall_pools_every_coflow_of_every_level():
    """``overall`` is one ratio over every coflow of every level and seed (the paper's "overall
    CCT speedup ratio", §6.2), not the mean of the levels' speedups (``all``). By hand:

    - level 2: one coflow (seed 1), baseline 10, scheme 5: ratio of means 2;
    - level 1: three coflows (seed 1: 30 → 60; seed 2: 30 → 60 and 40 → 60), plus one the
      baseline never finished (left out): ratio of means 100 / 180 = 5/9;
    - ``all`` (mean of the levels) = (2 + 5/9) / 2 = 23/18 ≈ 1.278;
    - ``overall``: baseline 10 + 30 + 30 + 40 = 110 over the scheme's 5 + 60 + 60 + 60 = 185,
      = 22/37 ≈ 0.595: the three slow level-1 coflows outweigh the one fast level-2 one;
    - ``overall`` mean of ratios: (2 + 1/2 + 1/2 + 2/3) / 4 = 11/12;
    - ``overall`` p99: the baseline's [10, 30, 30, 40] at position 3 · 0.99 = 2.97 gives
      30 + 0.97 · 10 = 39.7, the scheme's [5, 60, 60, 60] gives 60: 39.7 / 60."""
    base = [[("c", 0, 2, 10.0), ("c", 1, 1, 30.0)], [("c", 0, 1, 30.0), ("f", 1, 1, 40.0), ("f", 2, 1, NAN)]]
    scheme = [[("c", 0, 2, 5.0), ("c", 1, 1, 60.0)], [("c", 0, 1, 60.0), ("f", 1, 1, 60.0), ("f", 2, 1, 60.0)]]
    sp = rp.coflow_speedups(base, scheme, levels=(1, 2))
    assert sp["means"][2] == pytest.approx(2.0) and sp["means"][1] == pytest.approx(5 / 9)
    assert sp["means"]["all"] == pytest.approx(23 / 18)
    assert sp["means"]["overall"] == pytest.approx(22 / 37)
    assert sp["ratios"]["overall"] == pytest.approx(11 / 12)
    assert sp["p99"]["overall"] == pytest.approx(39.7 / 60)
    assert sp["count"]["overall"] == 4
    assert math.isnan(rp.coflow_speedups([[]], [[]], levels=(1, 2))["means"]["overall"])


def _f12ab_grid_40(ccts: dict[str, list[tuple[str, int, int, float]]]):
    """A quick F12AB grid whose 40 % runs (seed 1) carry the given CCT rows per variant."""
    cells_ = [c for c in rp.build_cells(["F12AB"], 1, True, rp.experiments_dir(), "test") if c.point == "40%"]
    return rp.Grid(rp.EXPERIMENTS["F12AB"], [rp.RunResult(c, {"extra": {"ccts": [list(x) for x in ccts[c.variant]]}})
                                             for c in cells_])


def test_ac16_and_h5_judge_the_pooled_overall_and_show_the_mean_of_levels():
    """AC16 and H5 read the paper's "all" as the pooled overall speedup. By hand, one seed,
    Swift without priorities: a level-8 coflow of 10 µs and three level-1 coflows of 30 µs
    (sum 100).

    - PrioPlus: 20 and 30, 30, 30 (sum 110): levels 0.5 and 1.0, mean 0.75; pooled 100/110.
    - Physical: 5 and 40, 40, 40 (sum 125): levels 2.0 and 0.75, mean 1.375; pooled 100/125.
    - PrioPlus − Physical: pooled 10/11 − 4/5 = 6/55 ≈ +0.109, within +0.12 ± 0.08 (holds);
      the mean of the levels gives 0.75 − 1.375 = −0.625 (shown, not judged).
    - Mean of ratios: pooled (0.5 + 3) / 4 − (2 + 2.25) / 4 = −0.1875; per level as above, −0.625."""
    base = [("coflow", 0, 8, 10.0)] + [("coflow", g, 1, 30.0) for g in (1, 2, 3)]
    pp = [("coflow", 0, 8, 20.0)] + [("coflow", g, 1, 30.0) for g in (1, 2, 3)]
    phys = [("coflow", 0, 8, 5.0)] + [("coflow", g, 1, 40.0) for g in (1, 2, 3)]
    grid = _f12ab_grid_40({rp.SWIFT_FLAT: base, rp.PP: pp, rp.PHYS: phys})
    hi, lo, ov, al = rp.f12ab_diff(grid, "40%", kinds=("high", "low", "overall", "all"))
    assert (hi, lo) == (pytest.approx(0.5 - 2.0), pytest.approx(1.0 - 0.75))
    assert ov == pytest.approx(6 / 55) and al == pytest.approx(-0.625)
    ac16 = [c for c in rp.checks_f12ab(grid) if "40%" in c.name]
    assert len(ac16) == 1 and ac16[0].status == "holds"
    assert ac16[0].ours == "+0.109 (mean of levels -0.625); -0.188 (mean of levels -0.625)"
    h5 = [h for h in rp.headlines({"F12AB": grid}) if h.id == "H5"]
    assert h5[0].ours.startswith("overall +10.9 % (mean of levels -62.5 %)")


def test_f12ab_cells_split_the_load_between_coflows_and_file_requests():
    exp_dir = rp.experiments_dir()
    full = {(c.point, c.variant, c.seed): c.spec for c in rp.build_cells(["F12AB"], 9, False, exp_dir, "test")}
    assert {seed for _, _, seed in full} == set(range(1, rp.F12AB_SEEDS + 1))
    for point, load, stop in (("40%", 0.4, "10ms"), ("70%", 0.7, "5ms")):
        for variant in (rp.SWIFT_FLAT, rp.PP, rp.PHYS):
            w = full[(point, variant, 1)]["workload"]
            assert [x["tag"] for x in w] == list(rp.COFLOW_TAGS)
            assert [x["load"] for x in w] == [pytest.approx(load / 2)] * 2, "1:1 between the patterns"
            assert [x["stop"] for x in w] == [stop] * 2
            assert all(x["equal_load_per_level"] for x in w), "each (pattern, level) 1/16 of the load"
    assert full[("40%", rp.PP, 1)]["transport"]["cc"] == "prioplus"
    phys = full[("70%", rp.PHYS, 2)]
    assert phys["switch"]["scheduler"] == "priority" and phys["switch"]["priority"]["queues"] == 8
    assert phys["switch"]["pfc"]["per_priority"], "each physical queue paused on its own"
    assert full[("40%", rp.SWIFT_FLAT, 1)]["switch"]["scheduler"] == "fifo"
    # The artefact's hosts dequeue their physical priority queues in strict order; one-queue
    # schemes leave the NIC's round robin.
    for (point, variant, _), spec in full.items():
        physical = spec["switch"]["scheduler"] == "priority"
        assert spec["transport"].get("nic_scheduler") == ("priority" if physical else None), (point, variant)
    w = full[("40%", rp.PP, 1)]["workload"]
    assert w[0]["priority"] == {"edges": ["0.5MB", "1MB", "6MB", "10MB", "25MB", "42MB", "137MB"]}
    assert (w[1]["mappers"], w[1]["reducers"]) == (20, 1), "file requests: 20 senders, one receiver"
    # Swift's floor is the paper's 100 Mbps (PrioPlus paper §3.3): 0.15 packet at 100 Gbps and 12 us.
    assert phys["transport"]["swift"]["min_cwnd_pkts"] == pytest.approx(100e6 * 12e-6 / 8 / 1000, rel=0.01)
    # Fig. 12's other bars (docs/reproductions/prioplus-paper.md), full runs only: single-queue Swift with targets of
    # 4 ... 32 us from the lowest level to the highest and no target scaling, D2TCP with
    # RED 400 / 1600 KiB at pmax 0.2, LEDBAT, PrioPlus over LEDBAT.
    sw = full[("40%", rp.SWIFT_LEVELS, 1)]["transport"]
    assert sw["cc"] == "swift" and sw["swift"]["level_targets"] == [f"{t}us" for t in (4, 8, 12, 16, 20, 24, 28, 32)]
    assert sw["swift"]["fs_range"] == "0us"
    d2 = full[("70%", rp.D2TCP, 3)]
    assert d2["transport"]["cc"] == "d2tcp" and d2["switch"]["scheduler"] == "fifo"
    assert (d2["switch"]["ecn"]["kmin"], d2["switch"]["ecn"]["kmax"], d2["switch"]["ecn"]["pmax"]) == ("400KiB", "1600KiB", 0.2)
    assert full[("40%", rp.LEDBAT, 1)]["transport"]["cc"] == "ledbat"
    ppl = full[("40%", rp.PP_LEDBAT, 1)]["transport"]
    assert ppl["cc"] == "prioplus" and ppl["prioplus"]["underlying"] == "ledbat" and ppl["prioplus"]["filter"] == 1
    # App. A.4 / Fig. 18 (H12): HPCC in one queue at 70 % only.
    assert full[("70%", rp.HPCC, 1)]["transport"]["cc"] == "hpcc"
    assert full[("70%", rp.HPCC, 1)]["switch"]["scheduler"] == "fifo"
    assert ("40%", rp.HPCC, 1) not in full
    # App. A.5 / Fig. 17 (H14): the 70 % point again on a lossy fabric with IRN's recovery,
    # for the three AC16 schemes: PFC off, BDP cap, selective retransmission, RTO floor 320 us.
    irn = {v for p, v, _ in full if p == rp.F12AB_IRN}
    assert irn == {rp.SWIFT_FLAT, rp.PP, rp.PHYS}
    lossy = full[(rp.F12AB_IRN, rp.PHYS, 1)]
    assert lossy["switch"]["pfc"]["enabled"] is False and lossy["transport"]["inflight_cap"] == "bdp"
    assert lossy["transport"]["rto_min"] == "320us" and lossy["transport"]["loss_recovery"] == "sack"
    assert [w["load"] for w in lossy["workload"]] == [pytest.approx(0.35)] * 2
    quick = rp.build_cells(["F12AB"], 1, True, exp_dir, "test")
    assert {c.variant for c in quick} == {rp.SWIFT_FLAT, rp.PP, rp.PHYS}, "quick: the AC16 schemes only"
    assert {c.spec["workload"][0]["stop"] for c in quick} == {rp.F12AB_QUICK_STOP}
    assert {c.point for c in quick} == set(rp.F12AB_LOADS)


def test_paper_coflow_numbers_are_differences_of_speedups():
    # docs/reproductions/prioplus-paper.md, H5/H6, AC16: overall +0.12 (high +0.09, low +0.15) at 40 %, +0.21 at 70 %.
    assert rp.F12AB_PAPER_DIFF["40%"] == (0.09, 0.15, 0.12)
    assert rp.F12AB_PAPER_DIFF["70%"][2] == 0.21
    assert rp.F12AB_TOLERANCE == {"40%": 0.08, "70%": 0.10}


# ---------------------------------------------------------------------------------------
# Cells


def test_quick_and_full_cells():
    exp_dir = rp.experiments_dir()
    quick = rp.build_cells(list(rp.EXPERIMENTS), 1, True, exp_dir, "test")
    assert len({c.key for c in quick}) == len(quick)
    per = {k: sum(c.exp == k for c in quick) for k in rp.EXPERIMENTS}
    assert per == {"F11": 5, "F14": 4, "F13": 8, "F10D": 9, "M1": 2, "M2": 2, "M4": 1, "AC14": 2, "F12C": 3,
                   "F12AB": 6, "T1": 2}
    full = rp.build_cells(list(rp.EXPERIMENTS), 9, False, exp_dir, "test")
    per = {k: sum(c.exp == k for c in full) for k in rp.EXPERIMENTS}
    assert per == {"F11": 9 * (4 * 3 + 6 + 2 * 2), "F14": 9 * 4, "F13": 3 * (31 * 4 + 8 * 2), "F10D": 3 * (13 * 4 + 3),
                   "M1": 2, "M2": 2, "M4": 1, "AC14": 2, "F12C": 9 * 3 * 2, "F12AB": rp.F12AB_SEEDS * (7 * 2 + 2 + 3),
                   "T1": 2}
    assert {c.seed for c in full if c.exp in ("F13", "F10D")} == {1, 2, 3}
    assert {c.seed for c in full if c.exp in ("M1", "M2", "M4", "AC14")} == {1}
    by = {(c.exp, c.point, c.variant, c.seed): c.spec for c in full}
    pp = by[("F11", "N=8", rp.PP, 1)]
    assert pp["transport"]["cc"] == "prioplus" and pp["transport"]["prioplus"]["levels"] == 8
    assert pp["workload"][0]["priority"] == {"levels": 8, "max": "30MB"}
    assert pp["transport"]["prioplus"]["stop_below_pkts"] == 0.1
    assert pp["switch"]["pfc"]["dynamic"]["carve_headroom"] is True
    assert "stop_below_pkts" not in by[("F11", "N=8", rp.PP_P, 1)]["transport"]["prioplus"]
    # App. A.3 (H10): HPCC in PrioPlus's one lossless queue, at N = 8 only.
    hpcc = by[("F11", "N=8", rp.HPCC, 1)]
    assert hpcc["transport"]["cc"] == "hpcc" and hpcc["switch"]["scheduler"] == "fifo"
    assert hpcc["switch"]["pfc"]["dynamic"]["buffer"] == f"{rp.SWITCH_BUFFER}B"
    assert not any(k[0] == "F11" and k[2] == rp.HPCC and k[1] != "N=8" for k in by)
    phys = by[("F11", "N=6", rp.PHYS, 3)]
    assert phys["transport"]["cc"] == "swift" and phys["switch"]["scheduler"] == "priority"
    assert phys["switch"]["priority"]["queues"] == 6, "a lossless queue (and its headroom) per level"
    assert phys["switch"]["pfc"]["dynamic"]["carve_headroom"] is True
    assert phys["switch"]["pfc"]["per_priority"]
    assert by[("F11", "N=8", rp.PHYS_STAR, 1)]["switch"]["pfc"]["per_priority"]
    assert not pp["switch"]["pfc"].get("per_priority", False), "one data queue: one class"
    assert phys["seed"] == 3
    # The artefact's Physical schemes send ACKs at the data's priority; PrioPlus's ride on
    # top, PrioPlus*'s (App. A.3, H11) in its one data queue; the ablation keeps Physical*'s on top.
    assert phys["switch"]["ack_priority"] is False
    assert by[("F11", "N=8", rp.PHYS_STAR, 1)]["switch"]["ack_priority"] is False
    assert pp["switch"]["ack_priority"] is True
    star_pp = by[("F11", "N=8", rp.PP_STAR, 1)]
    assert star_pp["switch"]["ack_priority"] is False and star_pp["transport"]["cc"] == "prioplus"
    assert by[("F11", "N=8", rp.PHYS_STAR_ACKS_ON_TOP, 1)]["switch"]["ack_priority"] is True
    assert by[("F14", "12 levels", rp.PHYS_STAR, 1)]["switch"]["ack_priority"] is False
    nocc = by[("F12AB", "70%", rp.PHYS8_NOCC, 1)]
    assert nocc["transport"]["cc"] == "none" and nocc["switch"]["priority"]["queues"] == 8
    assert ("F12AB", "40%", rp.PHYS8_NOCC, 1) not in by
    star = by[("F11", "N=16", rp.PHYS_STAR, 1)]
    assert star["switch"]["priority"]["queues"] == "ideal"
    assert star["switch"]["pfc"]["dynamic"]["carve_headroom"] is False
    assert ("F11", "N=12", rp.PHYS, 1) not in by
    d2 = by[("F14", "12 levels", rp.D2TCP, 1)]
    assert d2["transport"]["cc"] == "d2tcp" and d2["switch"]["ecn"]["kmin"] == "400KiB"
    assert len(d2["workload"]) == 12 and {w["priority"] for w in d2["workload"]} == set(range(1, 13))
    f13 = by[("F13", "R=20", f"{rp.PP} B=30", 1)]
    assert f13["transport"]["delay_noise"] == {"uniform": "20us", "at": "receiver"}
    ablation = by[("F13", "R=16", f"{rp.PP} B=10{rp.F13_SAMPLES}", 2)]
    assert ablation["transport"]["delay_noise"] == {"uniform": "16us", "at": "samples"}
    assert f13["transport"]["prioplus"]["noise"] == "30us"
    f10 = by[("F10D", "x3 w=15KB", f"{rp.PP} filter 2", 1)]
    # width 15 KB = 1.2 us, spacing 35 KB = 2.8 us at 100 Gbps
    assert f10["transport"]["prioplus"]["limit_gap"] == "1200ns"
    assert f10["transport"]["prioplus"]["fluctuation"] == "2800ns"
    assert f10["transport"]["delay_noise"]["scale"] == 3
    assert by[("AC14", "4 flows", "Swift (same target)", 1)]["transport"]["swift"]["base_target"] == "24us"


def _fabric(exp_dir, spec):
    """(host → (leaf, rate), [(leaf, spine, rate)]) of a topology file."""
    links = [line.split(",") for line in (exp_dir / spec["topology"]["file"]).read_text().splitlines()
             if line and not line.startswith("#")][1:]
    hosts = {a: (b, rate) for a, b, rate, _ in links if a.startswith("h")}
    return hosts, [(a, b, rate) for a, b, rate, _ in links if not a.startswith("h")]


def test_f12c_is_the_spec_training_setup():
    """docs/reproductions/prioplus-paper.md, F12C [A]: 3 leaves x 8 hosts at 200 Gbps, 1 spine, 400 Gbps uplinks,
    1 MB per port; one worker per leaf; 4 ResNet (701 us, 2,244,609 B) on the 4 highest
    levels, 4 VGG (2743 us, 9,439,232 B) on the 4 lowest; 20 ms; the three schemes. The
    [P] variant: 100 Gbps hosts, 2:1, 32 MB."""
    exp_dir = rp.experiments_dir()
    cells = rp.build_cells(["F12C"], 1, False, exp_dir, "test")
    by = {(c.point, c.variant): c.spec for c in cells}
    assert set(by) == {(p, v) for p in (rp.F12C_A, rp.F12C_P) for v in (rp.SWIFT_FLAT, rp.PP, rp.PHYS)}
    assert {c.point for c in rp.build_cells(["F12C"], 1, True, exp_dir, "test")} == {rp.F12C_A}
    shared = {rp.F12C_A: {"buffer_per_port": "1MB"}, rp.F12C_P: {"buffer": "32MB"}}
    for point, host_rate, buffer in ((rp.F12C_A, "200Gbps", "1MB"), (rp.F12C_P, "100Gbps", "32MB")):
        spec = by[(point, rp.PP)]
        assert spec["duration"] == "20ms" and spec["switch"]["buffer"] == buffer
        assert spec["switch"]["pfc"]["dynamic"] == shared[point], "a dynamic-threshold shared buffer"
        hosts, uplinks = _fabric(exp_dir, spec)
        assert len(hosts) == 24 and {r for _, r in hosts.values()} == {host_rate}
        leaves = sorted({b for b, _ in hosts.values()})
        assert len(leaves) == 3 and all(sum(1 for b, _ in hosts.values() if b == leaf) == 8 for leaf in leaves)
        assert len(uplinks) == 3 and {a for a, _, _ in uplinks} == set(leaves)
        assert len({b for _, b, _ in uplinks}) == 1 and {r for _, _, r in uplinks} == {"400Gbps"}
        jobs = spec["workload"]
        assert [w["kind"] for w in jobs] == ["training"] * 8
        for w in jobs:
            assert len({hosts[f"h{h}"][0] for h in w["hosts"]}) == 3, "one worker per leaf"
    spec = by[(rp.F12C_A, rp.PP)]
    jobs = spec["workload"]
    resnet = [w for w in jobs if w["tag"].startswith("resnet")]
    vgg = [w for w in jobs if w["tag"].startswith("vgg")]
    assert {(w["size"], w["compute"]) for w in resnet} == {(2_244_609, "701us")}
    assert {(w["size"], w["compute"]) for w in vgg} == {(9_439_232, "2743us")}
    assert {w["priority"] for w in resnet} == {8, 7, 6, 5} and {w["priority"] for w in vgg} == {4, 3, 2, 1}
    assert sorted(t for ts in rp.F12C_MODELS.values() for t in ts) == sorted(w["tag"] for w in jobs)
    base, phys = by[(rp.F12C_A, rp.SWIFT_FLAT)], by[(rp.F12C_A, rp.PHYS)]
    assert base["transport"]["cc"] == "swift" and base["switch"]["scheduler"] == "fifo"
    assert spec["transport"]["cc"] == "prioplus" and spec["switch"]["scheduler"] == "fifo"
    assert phys["transport"]["cc"] == "swift" and phys["switch"]["scheduler"] == "priority"
    assert phys["switch"]["priority"]["queues"] == 8
    # docs/reproductions/prioplus-paper.md, H8/H9 and AC17.
    assert rp.F12C_PAPER == {rp.PP: (1.12, 1.15, 1.13), rp.PHYS: (1.16, 0.82, 1.09)}
    assert rp.F12C_TOLERANCE == 0.05


def test_parse_only():
    assert rp.parse_only(None) == list(rp.EXPERIMENTS)
    assert rp.parse_only("m1, f11") == ["F11", "M1"]
    with pytest.raises(ValueError, match="F12"):
        rp.parse_only("F12")


@pytest.mark.core
def test_every_scenario_builds_in_the_core():
    """The core validates every distinct quick and full scenario (and generates its flows)
    without running it."""
    from dcnsim._ext import ScenarioError, core
    from dcnsim._scenario import scenario_json

    exp_dir = rp.experiments_dir()
    errors = {}
    cells = rp.build_cells(list(rp.EXPERIMENTS), 1, True, exp_dir, "test")
    cells += [c for c in rp.build_cells(list(rp.EXPERIMENTS), 1, False, exp_dir, "test")]
    for cell in cells:
        try:
            core().Simulation(scenario_json(cell.spec), str(exp_dir))
        except ScenarioError as exc:
            errors.setdefault(str(exc), []).append(cell.progress_label().strip())
    assert not errors, "\n".join(f"{msg}\n  in {len(c)} cells, e.g. {c[0]}" for msg, c in errors.items())


# ---------------------------------------------------------------------------------------
# End to end

CHECK_ROWS = ("AC10", "AC13", "AC14", "AC15", "AC16", "AC17", "AC18", "AC19")


@pytest.mark.core
def test_quick_end_to_end(tmp_path):
    err = io.StringIO()
    code, table = rp.reproduce(quick=True, jobs=1, out=str(tmp_path), stream=err)
    assert code == 0
    assert (tmp_path / "table.md").read_text() == table
    checks = table.split("## Checks")[1].split("```")[1]
    rows = [line.split("|") for line in checks.strip().splitlines()[1:]]
    ids = [r[0].strip() for r in rows]
    for ac in CHECK_ROWS:
        assert ac in ids, f"no {ac} row"
    for r in rows:
        assert r[-1].strip().split(":")[0] in ("holds", "fails", "not run"), r
    not_run = {r[0].strip(): r[-1] for r in rows if r[-1].strip().startswith("not run")}
    assert "AC16" not in not_run
    assert "AC17" not in not_run
    assert "## Ours vs the paper" in table
    for h in ("H1 ", "H3 ", "H5 ", "H6 ", "H7 ", "H8 ", "H9 ", "H10", "H11", "H12", "H15", "H19", "H21", "H24"):
        assert h in table
    for key in rp.EXPERIMENTS:
        assert f"## {key}" in table
    runs = (tmp_path / "runs.csv").read_text().splitlines()
    assert len(runs) == 1 + 44
    for png in ("fig11_fct_vs_n.png", "fig14_normalised_fct.png", "fig13_fct_gap.png", "fig10d_utilisation.png",
                "motivation_throughput.png", "fig12c_training_speedup.png", "fig12ab_coflow_speedup.png",
                "fig8_staircase_throughput.png"):
        assert (tmp_path / png).is_file(), png
    # A second invocation takes every run from the cache and writes the same table.
    err = io.StringIO()
    _, again = rp.reproduce(quick=True, jobs=1, out=str(tmp_path), stream=err)
    assert "44 cached, 0 to run" in err.getvalue()
    assert again == table


def _size_bytes(text: str) -> int:
    """A flow file's size ("1.25MB", "625KB"; 1 KB = 1000 B) in bytes."""
    for unit, mult in (("MB", 1_000_000), ("KB", 1_000), ("B", 1)):
        if text.endswith(unit):
            return round(float(text[: -len(unit)]) * mult)
    return int(text)


@pytest.mark.core
def test_t1_quick_staircase_delivers_every_flow_within_the_schedule_bounds():
    """T1 in quick mode (the 1 ms staircase, both schemes): every flow delivers exactly the
    bytes its flow file lists (the flow table's ``delivered``), none finishes before its start plus its size at the line's
    payload rate (10 Gbps, 936 B of payload per 1000 B packet), the last one not before all
    bytes at that rate, and each yield is measured from a level's start in the flow files.
    Every expected number comes from the flow files and the line rate, not from dcnsim."""
    from dcnsim.repro.core import simulate

    exp_dir = rp.experiments_dir()
    files = [exp_dir / f"fig13_quick_p{lvl}.csv" for lvl in (3, 4, 5, 6)]
    want = []  # (level, size B, start µs) per flow, in workload order
    for lvl, f in zip((3, 4, 5, 6), files):
        for line in f.read_text().splitlines()[1:]:
            _, _, size, start = line.split(",")
            want.append((lvl, _size_bytes(size), float(start.removesuffix("us"))))
    payload_per_us = 10e9 / 8 / 1e6 * 936 / 1000
    cells_ = rp.build_cells(["T1"], 1, True, exp_dir, "test")
    assert {c.variant for c in cells_} == {rp.PP, rp.T1_SWIFT}
    for cell in cells_:
        columns = (*rp._FLOW_COLUMNS, "delivered")
        r = rp.RunResult(cell, simulate(cell.spec, str(exp_dir), columns, rp.CAP_US, rp.summarize))
        f = r.flows
        assert list(f["size"]) == [s for _, s, _ in want]
        assert all(f["finished"])
        series = r.delivered()
        for i, (_, size, start) in enumerate(want):
            assert f["delivered"][i] == size, (cell.variant, i)
            # The samples stop at the last interval before the finish: never more than the size.
            assert 0 < series[i][-1][1] <= size
            assert float(f["finish_us"][i]) >= start + size / payload_per_us
        total = sum(s for _, s, _ in want)
        assert max(float(x) for x in f["finish_us"]) >= total / payload_per_us
        starts = {lvl: min(s for p, _, s in want if p == lvl) for lvl in (4, 5, 6)}
        yields = {p: t for k, p, t, _ in rp.t1_transitions(r) if k == "yield"}
        assert yields == {lvl: starts[lvl] for lvl in yields}


def test_checks_survive_an_experiment_whose_every_run_failed():
    """A run that errors is reported, not fatal: with every F10D run failed the table is
    still written, its AC10 rows reading "not run" or "fails" instead of a traceback."""
    cells_ = [c for c in rp.build_cells(["F10D"], 1, True, rp.experiments_dir(), "test")]
    failed = [rp.RunResult(c, {"error": "boom"}) for c in cells_]
    grid = rp.Grid(rp.EXPERIMENTS["F10D"], failed)
    rows = rp.checks_f10d(grid)
    assert len(rows) == 3
    assert all(r.status.split(":")[0] in ("not run", "fails") for r in rows), [r.status for r in rows]
