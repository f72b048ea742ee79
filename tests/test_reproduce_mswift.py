"""``dcnsim reproduce mswift``: how REPS is fed, its recycle ratio, the extra seeds of
noisy cells and the restated checks B6, B10 and B15, on hand-made inputs (no simulation)."""

from __future__ import annotations

import math

import pytest

from dcnsim.repro.papers import mswift as rp
from dcnsim.repro.papers.mswift import checks as ck
from dcnsim.repro.papers.mswift import tables as tb


def _cell(fig: str, row: rp.Row, lb: str, seed: int) -> rp.Cell:
    return rp.Cell.of(fig, row, lb, seed, {"workload": [{"kind": "permutation", "tag": "sprayed"}]})


def _result(fig: str, row: rp.Row, lb: str, seed: int, cct: float, lb_us: float = 100.0,
            stats: dict | None = None) -> rp.RunResult:
    return rp.RunResult(_cell(fig, row, lb, seed), {"stats": stats or {}}, cct, lb_us, 1, 1)


# --- REPS fed as uet-htsim feeds it -----------------------------------------------------


def test_only_the_reps_cells_get_the_uec_receiver() -> None:
    cells = rp.build_cells(["7"], 1, True, rp.experiments_dir(), "fp")
    assert len(cells) == 4 * 3
    for c in cells:
        tr = c.spec["transport"]
        if c.lb == "reps":
            assert (tr["ack_policy"], tr["ack_ratio"]) == ("uec", 4), c.progress_label()
        else:
            assert tr.get("ack_policy", "tcp") == "tcp" and tr["ack_ratio"] == 1, c.progress_label()
    assert rp.lb_overrides("ops") == rp.lb_overrides("ar") == ()


# --- REPS recycle ratio -----------------------------------------------------------------


def test_recycle_ratio_is_nan_when_the_run_does_not_report_it() -> None:
    assert _result("4", rp.MSWIFT, "reps", 1, 150.0, stats={"reps_recycle_ratio": 0.25}).recycle_ratio == 0.25
    for stats in ({}, {"reps_recycle_ratio": None}, {"reps_recycle_ratio": "x"}):
        assert math.isnan(_result("4", rp.MSWIFT, "reps", 1, 150.0, stats=stats).recycle_ratio)
    errored = rp.RunResult(_cell("4", rp.MSWIFT, "reps", 1), {"error": "boom"}, math.nan, math.nan, 0, 0)
    assert math.isnan(errored.recycle_ratio)


def test_recycle_ratio_mean_and_table_line() -> None:
    fig = rp.FIGURES["6"]
    results = [
        _result("6", rp.MSWIFT, "reps", 1, 150.0, stats={"reps_recycle_ratio": 0.2}),
        _result("6", rp.MSWIFT, "reps", 2, 150.0, stats={"reps_recycle_ratio": 0.4}),
        _result("6", rp.MSWIFT, "reps", 3, 150.0, stats={}),  # not reported: left out of the mean
        _result("6", rp.LSWIFT, "reps", 1, 150.0, stats={}),
        _result("6", rp.MSWIFT, "ops", 1, 150.0),
    ]
    g = rp.Grid(fig, results, 3)
    assert g.recycle_ratio("MSwift") == pytest.approx(0.3)
    assert math.isnan(g.recycle_ratio("LSwift")) and math.isnan(g.recycle_ratio("NSCC"))
    line = tb.recycle_line(g)
    assert "MSwift 0.30" in line and "LSwift n/a" in line and "NSCC n/a" in line
    row = tb.run_row(results[0])
    assert row[tb.RUNS_COLUMNS.index("reps_recycle_ratio")] == "0.2000"
    assert tb.run_row(results[3])[tb.RUNS_COLUMNS.index("reps_recycle_ratio")] == ""


# --- more seeds for noisy cells -----------------------------------------------------------


def test_a_cell_is_noisy_when_its_sem_exceeds_a_third_of_its_mean() -> None:
    # [10, 50]: mean 30, stdev 28.28, SEM 20 > 10
    assert rp.is_noisy([10.0, 50.0])
    # [28, 32]: mean 30, SEM 2 < 10
    assert not rp.is_noisy([28.0, 32.0])
    # [20, 40, 60]: mean 40, stdev 20, SEM 11.547 < 13.33; [10, 40, 70]: SEM 17.32 > 13.33
    assert not rp.is_noisy([20.0, 40.0, 60.0]) and rp.is_noisy([10.0, 40.0, 70.0])
    # one finite value has no SEM; NaN (unfinished seeds) are left out
    assert not rp.is_noisy([10.0]) and not rp.is_noisy([10.0, math.nan]) and rp.is_noisy([10.0, 50.0, math.nan])
    assert not rp.is_noisy([])


def test_cell_seeds_tops_up_noisy_cells_in_full_runs_only() -> None:
    noisy, calm = [10.0, 50.0, 30.0, 90.0, 20.0], [30.0, 31.0, 29.0, 30.0, 30.5]
    assert rp.cell_seeds(noisy, 5, quick=False) == rp.NOISY_SEEDS == 10
    assert rp.cell_seeds(calm, 5, quick=False) == 5
    assert rp.cell_seeds(noisy, 2, quick=True) == 2  # --quick unchanged
    assert rp.cell_seeds(noisy, 12, quick=False) == 12  # already enough


def _settings(quick: bool, seeds: int, keys: list[str]) -> rp.Settings:
    return rp.Settings(quick, keys, seeds)


def test_more_cells_adds_seeds_to_the_noisy_cells_only() -> None:
    exp = rp.experiments_dir()
    results = []
    for seed, (ms, ls) in enumerate([(10.0, 200.0), (50.0, 210.0), (90.0, 190.0)], start=1):
        results.append(_result("7", rp.MSWIFT, "ops", seed, 100.0 + ms))
        results.append(_result("7", rp.LSWIFT, "ops", seed, 100.0 + ls))
    extra = rp.more_cells(_settings(False, 3, ["7"]), results, exp, "fp")
    assert [(c.fig, c.row.label, c.lb, c.seed) for c in extra] == [("7", "MSwift", "ops", s) for s in range(4, 11)]
    base = rp.build_cells(["7"], 10, False, exp, "fp")
    want = {(c.row.label, c.lb, c.seed): c.key for c in base}
    assert all(c.key == want[(c.row.label, c.lb, c.seed)] for c in extra)  # the same runs a 10-seed run makes
    assert rp.more_cells(_settings(True, 3, ["7"]), results, exp, "fp") == []

    # the grid expects 10 seeds of the noisy cell: 3 of 10 so far are "missing"
    g = rp.Grid(rp.FIGURES["7"], results, 3, quick=False)
    assert g.expected("MSwift", "ops") == 10 and g.expected("LSwift", "ops") == 3
    st = g.stat("MSwift", "ops")
    assert (st.n, st.missing, st.seeds) == (3, 7, 10)
    full = results + [_result("7", rp.MSWIFT, "ops", s, 140.0) for s in range(4, 11)]
    st = rp.Grid(rp.FIGURES["7"], full, 3, quick=False).stat("MSwift", "ops")
    assert (st.n, st.missing, st.seeds) == (10, 0, 10)
    assert st.fmt(3).endswith("[10]") and "*" not in st.fmt(3)
    assert rp.Grid(rp.FIGURES["7"], results, 3).expected("MSwift", "ops") == 3  # quick grid


def test_drive_runs_the_second_pass_of_more_cells(tmp_path) -> None:
    """The shared driver asks ``more_cells`` once the first pass ran and runs what it adds;
    the records come from the cache here, so nothing is simulated."""
    import io
    import json
    from dataclasses import dataclass

    from dcnsim.repro.core import Reproduction, drive

    @dataclass
    class C:
        key: str
        seed: int
        spec: dict

        def progress_label(self) -> str:
            return f"seed {self.seed}"

        def cache_meta(self) -> dict:
            return {"seed": self.seed}

    out = tmp_path / "out"
    (out / "cache").mkdir(parents=True)
    for seed in range(1, 5):
        (out / "cache" / f"k{seed}.json").write_text(json.dumps({"record": {"v": seed}}))
    asked = []

    def more(settings, results, exp_dir, fp):
        asked.append([r[0].seed for r in results])
        return [C(f"k{s}", s, {}) for s in range(settings.seeds + 1, 5)]

    repro = Reproduction(
        "fake", seeds=2, quick_seeds=1, select=lambda only: ["x"], experiments_dir=lambda: tmp_path,
        cells=lambda keys, seeds, quick, exp_dir, fp: [C(f"k{s}", s, {}) for s in range(1, seeds + 1)],
        flow_columns=(), evaluate=lambda c, rec: (c, rec["v"]), grids=lambda s, rs: {"x": rs},
        header=lambda o: ["seeds " + ",".join(str(r[1]) for r in o.results)], block=lambda k, o: None,
        runs_columns=("seed",), run_row=lambda r: [r[1]], figures=lambda out, grids: [], more_cells=more,
    )
    code, table = drive(repro, out=str(out), jobs=1, stream=io.StringIO())
    assert code == 0 and asked == [[1, 2]] and table.startswith("seeds 1,2,3,4")


# --- restated checks B6, B10, B15 ---------------------------------------------------------


def test_b6_highest_from_the_median_up() -> None:
    # quantiles p50, p60, p70, p80, p90, p99 of LSwift and two others
    ls = [60.0, 70.0, 80.0, 90.0, 100.0, 140.0]
    ms = [55.0, 60.0, 62.0, 64.0, 66.0, 70.0]
    ns = [50.0, 58.0, 66.0, 80.0, 95.0, 130.0]
    assert ck.highest_at_every_quantile(ls, [ms, ns]) is True
    # ties count as highest
    assert ck.highest_at_every_quantile(ls, [ls]) is True
    # another CCA above LSwift at one quantile (p90: 101 > 100)
    assert ck.highest_at_every_quantile(ls, [ms, ns[:4] + [101.0, 130.0]]) is False
    # a missing quantile (no finished flows) or nothing to compare with: no verdict
    assert ck.highest_at_every_quantile(ls, [ms[:5] + [math.nan]]) is None
    assert ck.highest_at_every_quantile(ls, []) is None


def test_b6_tail_order_with_reps() -> None:
    p99 = {"LSwift": 169.5, "MSwift": 111.4, "NSCC": 127.0, "MNSCC": 122.0}
    assert ck.tail_order(p99, "LSwift", "MSwift") is True
    assert ck.tail_order({**p99, "MNSCC": 111.4}, "LSwift", "MSwift") is False  # MSwift must be strictly lowest
    assert ck.tail_order({**p99, "NSCC": 170.0}, "LSwift", "MSwift") is False  # LSwift not the highest
    assert ck.tail_order({**p99, "NSCC": math.nan}, "LSwift", "MSwift") is None


def test_b10_compares_the_absolute_inflation() -> None:
    # RESULTS.md's LSwift: 219.8 / 189.0 / 84.7 % at 8 MiB (LB 88.405 us), 179.5 / 158.2 / 72.3 % at
    # 16 MiB (LB 173.602 us): lower in %, higher in us (194.3 / 167.1 / 74.9 against 311.6 / 274.6 / 125.5)
    pct8, pct16 = (219.8, 189.0, 84.7), (179.5, 158.2, 72.3)
    us8 = {lb: p / 100 * 88.405 for lb, p in zip(rp.LBS, pct8)}
    us16 = {lb: p / 100 * 173.602 for lb, p in zip(rp.LBS, pct16)}
    assert us16["ops"] == pytest.approx(311.62, abs=0.01) and us8["ops"] == pytest.approx(194.31, abs=0.01)
    assert ck.worse_everywhere(us16, us8) is True
    assert ck.worse_everywhere(dict(zip(rp.LBS, pct16)), dict(zip(rp.LBS, pct8))) is False
    assert ck.worse_everywhere({**us16, "reps": math.nan}, us8) is None


def test_grid_excess_is_the_mean_of_cct_minus_lb() -> None:
    results = [_result("9", rp.LSWIFT, "ops", 1, 400.0, 173.6), _result("9", rp.LSWIFT, "ops", 2, 500.0, 173.6),
               _result("9", rp.LSWIFT, "ops", 3, math.nan, 173.6)]  # unfinished: left out
    g = rp.Grid(rp.FIGURES["9"], results, 3)
    assert g.excess_us("LSwift", "ops") == pytest.approx(450.0 - 173.6)
    assert math.isnan(g.excess_us("LSwift", "ar"))


def test_b15_slightly_worse() -> None:
    # small increases: within 1 percentage point, whatever the ratio (0.68 against 0.50 is 1.36x)
    assert ck.slightly_worse(0.68, 0.50) is True
    assert ck.slightly_worse(1.49, 0.50) is True and ck.slightly_worse(1.51, 0.50) is False
    # larger ones: within 25 % of the base (8 % above 1 pp)
    assert ck.slightly_worse(10.0, 8.0) is True and ck.slightly_worse(10.1, 8.0) is False
    # better is always fine; a missing cell gives no verdict
    assert ck.slightly_worse(0.3, 0.8) is True and ck.slightly_worse(math.nan, 0.5) is None
