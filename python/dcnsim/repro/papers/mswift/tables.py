"""MSwift: the blocks of ``table.md`` and the lines of ``runs.csv``."""

from __future__ import annotations

import math
from typing import Any, Optional

from dcnsim.repro.core import Outcome
from dcnsim.repro.papers.mswift.checks import (
    finalise_status,
    checks_for,
)
from dcnsim.repro.papers.mswift.runs import (
    FIGURES,
    LBS,
    LB_LABEL,
    NOISY_SEEDS,
    NOT_IMPLEMENTED,
    QUICK_NOTE,
    Cell,
    Figure,
    Grid,
    RunResult,
    fabric_cables,
    failed_link_count,
    pooled_fcts,
    quantiles,
)
from dcnsim.repro.tables import pad_rows

# ---------------------------------------------------------------------------------------
# Output: table.md, runs.csv, figures


def figure_block(fig: Figure, grid: Optional[Grid], grids: dict[str, Grid], quick: bool, seeds: int,
                 tier_b_binding: bool) -> str:
    head = f"Fig {fig.key} — {fig.exp} {fig.title}"
    if fig.not_run:
        return "\n".join([head, f"  {fig.not_run}", f"  paper: {fig.paper}"])
    if grid is None:
        return "\n".join([head, "  no runs"])
    lines = []
    lbs = grid.lbs_us()
    lb_text = "n/a"
    if lbs:
        lo, hi = min(lbs), max(lbs)
        lb_text = f"{lo:.3f} µs" if abs(hi - lo) < 5e-4 else f"{lo:.3f}-{hi:.3f} µs (per seed)"
    n_seeds = grid.seeds
    if fig.key == "5":
        lines.append(f"{head}, {n_seeds} seed{'s' if n_seeds != 1 else ''} pooled — FCT of the sprayed flows [µs]: p50 / p90 / p99 / max")
        rows = [["CCA"] + [LB_LABEL[lb] for lb in LBS]]
        for row in fig.rows:
            if row.cc is None:
                rows.append([row.label] + [NOT_IMPLEMENTED] * 3)
                continue
            cells = []
            for lb in LBS:
                q = quantiles(pooled_fcts(grid, row.label, lb), [0.5, 0.9, 0.99, 1.0])
                cells.append(" / ".join("n/a" if not math.isfinite(v) else f"{v:.0f}" for v in q))
            rows.append([row.label] + cells)
        lines += pad_rows(rows)
    else:
        size_note = f" [quick: {QUICK_NOTE.get(fig.key, '')}]" if quick else ""
        lines.append(f"{head}{size_note} — CCT increase over zero-queueing LB [%], mean ± SEM over "
                     f"{n_seeds} seed{'s' if n_seeds != 1 else ''} (LB = {lb_text})")
        rows = [["CCA"] + [LB_LABEL[lb] for lb in LBS]]
        for row in fig.rows:
            if row.cc is None:
                rows.append([row.label] + [NOT_IMPLEMENTED] * 3)
            else:
                rows.append([row.label] + [grid.stat(row.label, lb).fmt(n_seeds) for lb in LBS])
        lines += pad_rows(rows)
        if any(grid.stat(r, lb).missing for r in grid.available_rows() for lb in LBS):
            lines.append("  * some seeds missing (interrupted) or unfinished; mean over the rest")
        if any(grid.stat(r, lb).seeds > n_seeds for r in grid.available_rows() for lb in LBS):
            lines.append(f"  [n]: a noisy cell (SEM over its first {n_seeds} seeds above a third of the mean), "
                         f"run over n seeds")
        lines.append(recycle_line(grid))
    checks = [finalise_status(c, tier_b_binding, fig.key) for c in checks_for(fig.key, grids)]
    if checks:
        lines.append("")
        crow = [["check", "ours", "paper", "status"]] + [[c.name, c.ours, c.target, c.status] for c in checks]
        lines += pad_rows(crow)
    lines.append("")
    lines.append(f"paper: {fig.paper}")
    if fig.key != "5":
        lines += _run_notes(fig, grid)
    return "\n".join(lines)


def recycle_line(grid: Grid) -> str:
    """REPS's recycle ratio per CCA in the REPS cells (mean over seeds; n/a where the runs
    do not report it)."""
    parts = []
    for row in grid.available_rows():
        x = grid.recycle_ratio(row)
        parts.append(f"{row} {'n/a' if not math.isfinite(x) else f'{x:.2f}'}")
    return "REPS recycle ratio (share of entropy choices reusing a recycled entropy), mean over seeds: " \
        + ", ".join(parts)


def _run_notes(fig: Figure, grid: Grid) -> list[str]:
    res = grid.results
    notes = []
    errors = [r for r in res if "error" in r.record]
    unfinished = [r for r in res if "error" not in r.record and not math.isfinite(r.cct_us)]
    drops = [int(r.stat("drops") or 0) for r in res]
    tos = [int(r.stat("timeouts") or 0) for r in res]
    rtx = [int(r.stat("retransmits") or 0) for r in res]
    data = [int(r.stat("data_packets") or 0) for r in res]
    if res:
        notes.append(
            f"runs: {len(res)}; drops total {sum(drops)} (max {max(drops)}/run); timeouts total {sum(tos)} "
            f"(max {max(tos)}/run); retransmitted {100 * sum(rtx) / max(1, sum(data)):.1f}% of data packets; "
            f"unfinished {len(unfinished)}; errors {len(errors)}"
        )
    for r in errors[:3]:
        notes.append(f"error ({r.cell.row.label} {LB_LABEL[r.cell.lb]} seed {r.cell.seed}): {r.record['error']}")
    for r in unfinished[:5]:
        notes.append(f"unfinished: {r.cell.row.label} {LB_LABEL[r.cell.lb]} seed {r.cell.seed}: "
                     f"{r.done}/{r.total} sprayed flows done at {r.record.get('sim_time_us', 0):.0f} µs")
    if fig.exp == "E7" and res:
        spec = res[0].cell.spec
        p = float(spec["topology"].get("failed_links", 0))
        counts = {s: failed_link_count(s, p, fabric_cables(spec)) for s in sorted({r.cell.seed for r in res})}
        notes.append("failed links per seed: " + ", ".join(f"{s}: {n}" for s, n in counts.items())
                     + f" (of {fabric_cables(spec)})")
    return notes


RUNS_COLUMNS = ("figure", "experiment", "cca", "cc", "lb", "seed", "key", "cct_us", "lb_us", "cct_increase_pct",
                "sprayed_flows", "sprayed_finished", "complete", "sim_time_us", "wall_seconds", "drops", "timeouts",
                "retransmits", "data_packets", "ecn_marks", "reps_recycle_ratio", "failed_links", "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    c = r.cell
    failed: Any = ""
    if FIGURES[c.fig].exp == "E7":
        failed = failed_link_count(c.seed, float(c.spec["topology"].get("failed_links", 0)), fabric_cables(c.spec))
    return [
        c.fig, FIGURES[c.fig].exp, c.row.label, c.row.cc, c.lb, c.seed, c.key, _csv_num(r.cct_us), _csv_num(r.lb_us),
        _csv_num(r.increase), r.total, r.done, r.record.get("complete", False),
        r.record.get("sim_time_us", ""), f"{r.record.get('wall_seconds', 0):.2f}", r.stat("drops"),
        r.stat("timeouts"), r.stat("retransmits"), r.stat("data_packets"), r.stat("ecn_marks"),
        _csv_num(r.recycle_ratio), failed,
        r.record.get("error", ""),
    ]


def _csv_num(x: float) -> str:
    return "" if not math.isfinite(x) else f"{x:.4f}"


def tier_b_binds(outcome: Outcome[Cell, RunResult, Grid], scale: float) -> bool:
    """The Tier B checks bind only with >= 5 seeds of full-size, complete runs."""
    s = outcome.settings
    return not s.quick and s.seeds >= 5 and scale == 1.0 and not outcome.interrupted


def header(outcome: Outcome[Cell, RunResult, Grid], scale: float) -> list[str]:
    quick, n_seeds = outcome.settings.quick, outcome.settings.seeds
    tier_b_binding = tier_b_binds(outcome, scale)
    mode = "quick" if quick else "full"
    more = "" if quick or n_seeds >= NOISY_SEEDS else \
        f"; a cell whose SEM over these exceeds a third of its mean: seeds 1..{NOISY_SEEDS}"
    header = [
        f"# MSwift reproduction (dcnsim) — {mode} mode, seeds 1..{n_seeds}{more}",
        "",
        "Paper: \"Congestion Control for Spraying with Congested Paths\" (arXiv 2509.07907 v2).",
        "Setup: 3-tier fat tree (k = 8, 128 hosts; k = 10 for Fig. 8), 800 Gbps, 0.5 µs links, 4160 B packets, "
        "800 KB buffers, ECN step 40 KB at dequeue, initial window = BDP; per-packet ACKs with OPS and AR, "
        "uet-htsim's receiver with REPS (an ACK per 4 packets, at once on ECN).",
        "CCT increase = (CCT − LB) / LB · 100 per seed, LB = zero-queueing lower bound "
        "(max ideal FCT; for the incast the receiver link's bound).",
        "Tier B: " + ("binding (≥ 5 seeds, full sizes)" if tier_b_binding else
                      "informational (" + ("--quick" if quick else f"{n_seeds} seeds" if n_seeds < 5 else
                                           "scaled sizes" if scale != 1 else "interrupted") + ")")
        + "; '≤' allows 10% (mean(X) ≤ 1.10 · mean(Y)), '<' is strict.",
    ]
    if scale != 1.0:
        header.append(f"DCNSIM_REPRO_SCALE = {scale}: every message size scaled down (not a paper setting).")
    return header


def block(key: str, outcome: Outcome[Cell, RunResult, Grid], scale: float) -> str:
    grids = outcome.grids
    seeds = grids[key].seeds if key in grids else outcome.settings.seeds
    return figure_block(FIGURES[key], grids.get(key), grids, outcome.settings.quick, seeds,
                        tier_b_binds(outcome, scale))
