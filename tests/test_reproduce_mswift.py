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
