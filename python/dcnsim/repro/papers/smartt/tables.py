"""SMaRTT: the blocks of ``table.md`` and the lines of ``runs.csv``."""

from __future__ import annotations

import math
from typing import Any, Optional

from dcnsim.repro.core import Outcome
from dcnsim.repro.papers.smartt.checks import CHECKS, headlines, num
from dcnsim.repro.papers.smartt.runs import CAP_FACTOR, METRICS, Cell, Fabric, Grid, RunResult
from dcnsim.repro.stats import mean_sem
from dcnsim.repro.tables import headline_table, pad_rows


_COLUMNS = {
    "E1": (("max_fct_us", "max FCT µs", ".1f"), ("spread", "spread", ".3f"), ("jain", "Jain", ".3f"),
           ("trims", "trims", ".0f"), ("reps_recycle_ratio", "REPS recycled", ".3f")),
    "E14": (("completion_us", "completion µs", ".1f"), ("large_fct_us", "64 MiB FCT µs", ".1f"),
            ("spread", "spread", ".3f"), ("jain", "Jain", ".3f"), ("trims", "trims", ".0f")),
    "E11": (("agg_cwnd_mb", "mean aggregate cwnd MB", ".2f"), ("max_fct_us", "max FCT µs", ".1f"),
            ("mean_fct_us", "mean FCT µs", ".1f"), ("trims", "trims", ".0f")),
    "E15": (("completion_us", "completion µs", ".1f"), ("rel_perf", "ideal/actual", ".3f"),
            ("trims", "trims", ".0f")),
    "E3": (("max_fct_us", "max FCT µs", ".1f"), ("mean_fct_us", "mean FCT µs", ".1f"), ("spread", "spread", ".3f"),
           ("jain", "Jain", ".3f"), ("trims", "trims", ".0f"), ("reps_recycle_ratio", "REPS recycled", ".3f")),
    "E5": (("completion_us", "completion µs", ".1f"), ("ss_nacks", "steady NACKs", ".0f"),
           ("ss_cwnd_cv", "steady window CV", ".3f"), ("nacks", "NACKs", ".0f"),
           ("mean_queue_kb", "mean queue KB", ".1f")),
    "E6": (("brtt_ratio", "brtt ratio", ".2f"), ("cwnd_short_kb", "cwnd short KB", ".1f"),
           ("cwnd_long_kb", "cwnd long KB", ".1f"), ("gbps_short", "Gbps short", ".1f"),
           ("gbps_long", "Gbps long", ".1f"),
           ("cwnd_ratio", "cwnd long/short", ".2f"), ("thr_ratio", "thr smaller/larger", ".2f")),
    "E8": (("completion_us", "completion µs", ".1f"), ("rel_perf", "ideal/actual", ".3f"), ("trims", "trims", ".0f"),
           ("mean_queue_kb", "mean queue KB", ".1f"), ("max_queue_kb", "max queue KB", ".1f")),
    "E9": (("completion_us", "completion µs", ".1f"), ("nacks", "NACKs", ".0f"),
           ("undershoot", "windows < ½ ideal", ".3f"), ("mean_queue_kb", "mean queue KB", ".1f")),
    "E10": (("large_fct_us", "long flow FCT µs", ".1f"), ("completion_us", "completion µs", ".1f"),
            ("max_fct_us", "max FCT µs", ".1f"), ("trims", "trims", ".0f")),
    "E13": (("max_fct_us", "max FCT µs", ".1f"), ("spread", "spread", ".3f"), ("jain", "Jain", ".3f"),
            ("trims", "trims", ".0f")),
    "E17": (("max_fct_us", "max FCT µs", ".1f"), ("mean_fct_us", "mean FCT µs", ".1f"), ("trims", "trims", ".0f")),
}
_COLUMNS["E11b"] = _COLUMNS["E11"]
_COLUMNS["E16"] = _COLUMNS["E14"]
# E6's flows outlive the run by design: its unfinished flows are not worth a note.
LONG_FLOWS = ("E6",)


def _variant_table(g: Grid) -> list[str]:
    cols = _COLUMNS[g.exp.key]
    lines = []
    for p in g.points:
        ideals = [r.cell.ideal_us for r in g.results if r.cell.point == p]
        ideal = sum(ideals) / len(ideals) if ideals else math.nan
        lines.append(f"{p}: ideal {ideal:.1f} µs" if math.isfinite(ideal) else
                     f"{p}: long flows, measured over the second half of the run")
        rows = [["variant"] + [c[1] for c in cols]]
        for v in g.variants:
            if g.errors(v) and all(r.error for r in g.runs(p, v)):
                rows.append([v] + ["error"] + [""] * (len(cols) - 1))
                continue
            rows.append([v] + [num(g.mean(p, v, m), spec) for m, _, spec in cols])
        lines += pad_rows(rows)
    return lines


def _incast_table(g: Grid) -> list[str]:
    lines = ["relative performance = ideal / completion (N·bytes on wire / 800G + one-way delay, over the last "
             "FCT); above 1 when senders closer than another pod finish sooner than the inter-pod bound"]
    rows = [["N x size"] + g.variants]
    for p in g.points:
        row = [p]
        for v in g.variants:
            runs = g.runs(p, v)
            rel = g.mean(p, v, "rel_perf")
            unfinished = any(r.metrics["finished"] < r.metrics["flows"] for r in runs if not r.error)
            row.append("error" if runs and all(r.error for r in runs) else
                       "unfinished" if unfinished else num(rel, ".3f"))
        rows.append(row)
    return lines + pad_rows(rows)


def experiment_block(g: Grid, quick: bool) -> str:
    e = g.exp
    head = f"{e.key} — {e.title} — checks {e.checks} — mean over {g.seeds} seed{'s' if g.seeds != 1 else ''}"
    lines = [head]
    if quick:
        lines.append(f"quick: {e.quick_note}")
    lines.append("")
    lines += _incast_table(g) if e.key == "E12" else _variant_table(g)
    lines.append("")
    checks = CHECKS[e.key](g)
    lines += pad_rows([["check", "ours", "target", "status"]] + [[c.name, c.ours, c.target, c.status] for c in checks])
    lines.append("")
    lines.append(f"paper: {e.paper}")
    if e.key == "E15":
        lines.append("note: the per-node bound has no term for the wait between messages (a sender starts its next "
                     "message when one is delivered), which dominates at small k and small messages: at k = 1 each "
                     "of the 127 messages costs at least its one-way delay on top of its bytes")
    lines += run_notes(g)
    return "\n".join(lines)


def run_notes(g: Grid) -> list[str]:
    res = g.results
    notes = []
    errors = [r for r in res if r.error]
    unfinished = [r for r in res if not r.error and r.metrics["finished"] < r.metrics["flows"]
                  and g.exp.key not in LONG_FLOWS]
    if res:
        tot = {k: sum(r.stat(k) for r in res if not r.error and math.isfinite(r.stat(k)))
               for k in ("trims", "drops", "nacks", "timeouts", "pfc_pause_frames")}
        notes.append(f"runs: {len(res)}; " + ", ".join(f"{k} {v:.0f}" for k, v in tot.items())
                     + f"; unfinished {len(unfinished)}; errors {len(errors)}")
    notes += dict.fromkeys(f"error ({r.cell.variant}): {r.error}" for r in errors)  # each message once
    for r in unfinished[:5]:
        notes.append(f"unfinished: {r.cell.progress_label().strip()}: {r.metrics['finished']:.0f}/"
                     f"{r.metrics['flows']:.0f} flows done at {r.record.get('sim_time_us', 0):.0f} µs "
                     f"(cap {CAP_FACTOR} x ideal + 1 ms)")
    return notes


RUNS_COLUMNS = ("experiment", "point", "variant", "seed", "key", *METRICS, "complete", "sim_time_us", "wall_seconds",
                "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    return [r.cell.exp, r.cell.point, r.cell.variant, r.cell.seed, r.cell.key,
            *("" if math.isnan(r.metrics[m]) else f"{r.metrics[m]:.6g}" for m in METRICS),
            r.record.get("complete", False), r.record.get("sim_time_us", ""),
            f"{r.record.get('wall_seconds', 0):.2f}", r.record.get("error", "")]


def header(outcome: Outcome[Cell, RunResult, Grid]) -> list[str]:
    quick = outcome.settings.quick
    fab = Fabric.of(outcome.cells[0].spec) if outcome.cells else None
    return [
        f"# SMaRTT reproduction (dcnsim) — {'quick' if quick else 'full'} mode, seeds 1..{outcome.settings.seeds}",
        "",
        "Paper: \"SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport\" (arXiv 2404.01630 v4); "
        "experiments, checks and decisions: docs/reproductions/smartt-paper.md.",
        "Setup: 3-tier fat trees, 800 Gbps links, 600 ns per link + 400 ns per switch, 4160 B frames (4096 B "
        "payload), 1-BDP buffer per port (276 packets), RED at dequeue 20 %/80 %, trimming, high-priority "
        "ACKs/NACKs/headers, per-packet ACKs except on REPS (UEC's: one per 16 KiB, at once on ECN). SMaRTT = NSCC in smartt_paper mode on REPS; Swift and EQDS on "
        "REPS; MPRDMA on OPS; RoCEv2 = DCQCN + PFC + go-back-N on ECMP."
        + (f" Inter-pod base RTT {fab.brtt_us:.3f} µs, BDP {fab.bdp_bytes:,.0f} B." if fab else ""),
        "FCT runs from a flow's start to its last byte's arrival at the receiver (the checks' is to the last ACK "
        "at the sender), so every ideal adds the inter-pod one-way delay where docs/reproductions/smartt-paper.md adds a base RTT. Checks are evaluated on the mean over seeds; "
        + ("informational here (quick: smaller trees, 1 seed unless --seeds)." if quick
           else "docs/reproductions/smartt-paper.md asks for ≥ 3 seeds."),
    ]


def block(key: str, outcome: Outcome[Cell, RunResult, Grid]) -> Optional[str]:
    g = outcome.grids.get(key)
    return experiment_block(g, outcome.settings.quick) if g is not None else None


def paper_numbers(outcome: Outcome[Cell, RunResult, Grid]) -> list[tuple[str, str]]:
    return [("Ours vs the paper (docs/reproductions/smartt-paper.md, R1-R20)", headline_table(headlines(outcome.grids)))]
