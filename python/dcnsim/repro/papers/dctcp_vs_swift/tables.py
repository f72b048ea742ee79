"""DCTCP vs Swift: the blocks of ``table.md`` and the lines of ``runs.csv``."""

from __future__ import annotations

import math
from typing import Any, Optional

from dcnsim.repro.core import Outcome
from dcnsim.repro.papers.dctcp_vs_swift.checks import facts_block, ordering_facts
from dcnsim.repro.papers.dctcp_vs_swift.runs import (
    METRICS,
    PROFILES,
    QUICK_T,
    STUDY_EXACT,
    STUDY_INDEX,
    VARIANT,
    VARIANTS,
    Cell,
    Grid,
    Profile,
    RunResult,
    study_value,
)
from dcnsim.repro.tables import pad_rows


def _num(x: float, metric: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if metric == "thr_kbps":
        return f"{x:.0f}"
    if metric in ("jain", "agg_gbps", "hotspot_gbps"):
        return f"{x:.3f}"
    if metric == "loss_pct":
        return f"{x:.2f}"
    return f"{x:.2f}"


METRIC_TITLE = {"thr_kbps": "throughput [Kbps = Kibit/s]", "delay_ms": "delay [ms, one-way]",
                 "loss_pct": "loss [%]", "jain": "Jain's index (ours only)",
                 "agg_gbps": "aggregate = mean Kbps · 1.024 · flows [Gbit/s]",
                 "hotspot_gbps": "into the busiest receiver [Gbit/s] (≤ 1: conservation)"}


def experiment_block(grid: Grid, quick: bool, prof: Profile = PROFILES["paper"]) -> str:
    e = grid.exp
    t = QUICK_T if quick else e.t_seconds
    lines = [f"{e.key} — {e.title}, T = {t} s — mean over {grid.seeds} seed(s), profile {prof.name}"]
    t_differs = " (but T differs: --quick)" if quick else ""
    if prof.study_profile:
        where = "exact numbers" if e.key in STUDY_EXACT else "D, Sb, Se, S25 read from its charts (±5-10 %)"
        lines.append(f"study: {where}, T = {e.t_seconds} s: study fact, same profile — directly comparable"
                     f"{t_differs} (what ns3_study does not model: docs/reproductions/dctcp-vs-swift-paper.md)")
    elif e.key in STUDY_EXACT:
        lines.append("study: exact numbers of its ns-3 profile (1 ms RTT quantisation, 1 s min RTO, study Swift "
                     "constants, T = 15 s): study fact, profile differs — contrast only (--profile ns3_study "
                     "compares)" + t_differs)
    else:
        lines.append("study: D, Sb, Se, S25 read from its charts (±5-10 %), ns-3 profile, T = "
                     f"{e.t_seconds} s: study fact, profile differs" + t_differs)
    metrics = ["thr_kbps", "delay_ms", "loss_pct", "jain", "agg_gbps"] + (["hotspot_gbps"] if e.hotspot else [])
    for metric in metrics:
        lines.append("")
        lines.append(METRIC_TITLE[metric])
        study_cols = [] if metric not in STUDY_INDEX else (
            ["study"] if e.key in STUDY_EXACT else [VARIANT[v].study for v in grid.variants if VARIANT[v].study])
        header = [e.x_name] + grid.variants + [f"study {c}" if c != "study" else "study" for c in study_cols]
        rows = [header]
        for p in grid.points:
            row = [p] + [_num(grid.mean(p, v, metric), metric) for v in grid.variants]
            row += [_num(study_value(e.key, p, c, metric), metric) for c in study_cols]
            rows.append(row)
        lines += pad_rows(rows, right=True)
    return "\n".join(lines)


def run_notes(results: list[RunResult]) -> list[str]:
    notes = []
    for r in results:
        if "error" in r.record:
            notes.append(f"error ({r.cell.progress_label()}): {r.record['error']}")
    totals: dict[str, float] = {}
    for r in results:
        for k in ("drops", "timeouts", "retransmits", "ecn_marks"):
            totals[k] = totals.get(k, 0) + (r.record.get("stats", {}).get(k) or 0)
    if results:
        notes.append("over these runs: " + ", ".join(f"{k} {int(v)}" for k, v in totals.items()))
    return notes


RUNS_COLUMNS = ("experiment", "point", "variant", "seed", "flows", *METRICS, "drops", "timeouts", "retransmits",
                "ecn_marks", "sim_time_us", "wall_seconds", "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    st = r.record.get("stats", {})
    return [r.cell.exp, r.cell.point, r.cell.variant, r.cell.seed, int(r.metrics.get("flows", 0) or 0),
            *(r.metrics[m] for m in METRICS), st.get("drops"), st.get("timeouts"), st.get("retransmits"),
            st.get("ecn_marks"), r.record.get("sim_time_us"), round(r.record.get("wall_seconds", 0), 3),
            r.record.get("error", "")]


def header(outcome: Outcome[Cell, RunResult, Grid], prof: Profile = PROFILES["paper"]) -> list[str]:
    quick = outcome.settings.quick
    header = [
        f"# DCTCP-vs-Swift reproduction (dcnsim) — profile {prof.name}, {'quick' if quick else 'full'} mode, "
        f"seeds 1..{1 if quick else outcome.settings.seeds}",
        "",
        "Study: \"Data Center Congestion Control Comparison: DCTCP vs Swift\" (ns-3). Both profiles: k-ary 3-tier "
        "fat trees at 1 Gbps / 10 µs, 1554 B packets, one FIFO per port, On-Off sources (5 Gbps, 1 s ON / 1 s "
        "OFF, OFF first, 128 KiB send buffer) from 2 s to T − 1, measured to T + 10 s.",
        f"Profile {prof.name}: {prof.about}.",
        "Variants: " + "; ".join(f"{v.label} = {v.about}" for v in VARIANTS if v.label in prof.variants) + ".",
    ]
    if prof.study_profile:
        header.append("The study's numbers come from this profile: ours and theirs are directly comparable, up to "
                      "what the profile does not model (docs/reproductions/dctcp-vs-swift-paper.md, \"Profiles\").")
    else:
        header.append("The study's numbers come from its ns-3 profile (1 ms RTT quantisation, 1 s min RTO, no "
                      "ECMP, RED NIC rings, its Swift constants): compare orderings and trends, not values "
                      "(--profile ns3_study runs the study's; docs/reproductions/dctcp-vs-swift-paper.md).")
    if quick:
        header.append(f"--quick: T = {QUICK_T} s (one ON second), 2 points per sweep, 1 seed; the study's T is "
                      "15 s (k = 4) or 7 s (k = 12), so per-flow throughputs are not comparable in scale.")
    return header


def block(key: str, outcome: Outcome[Cell, RunResult, Grid], prof: Profile = PROFILES["paper"]) -> Optional[str]:
    g = outcome.grids.get(key)
    if g is None:
        return None
    return experiment_block(g, outcome.settings.quick, prof) + "\n" + "\n".join(run_notes(g.results))


def orderings(outcome: Outcome[Cell, RunResult, Grid], prof: Profile = PROFILES["paper"]) -> list[tuple[str, str]]:
    what = ("the study's checks under its own profile" if prof.study_profile
            else "contrast only: the study ran ns3_study")
    return [(f"Checks C1-C9 (docs/reproductions/dctcp-vs-swift-paper.md; {what}; printed, not asserted)",
             facts_block(ordering_facts(outcome.grids, prof.study_profile)))]
