"""Ablation runs behind H21 (T1, the testbed's Fig. 8 staircase): what sets PrioPlus's time
to yield at the starts of levels 4 and 5, and Swift's time to refill.

Each row is a harness cell of T1 (full size, ``dcnsim.repro.papers.prioplus.runs.t1_runs``:
the same scenario file and overrides as ``dcnsim reproduce prioplus --only T1``, so a base
row equals the table's cell) plus at most one changed setting. The transitions are the
harness's (``checks.t1_transitions``). The raw numbers (each flow's start and finish, each
transition) go to ``t1_raw.json`` beside this script; the markdown table to stdout
(t1_results.md holds it).

    PYTHONPATH=python python experiments/prioplus/ablations/t1_ablate.py > experiments/prioplus/ablations/t1_results.md
"""

from __future__ import annotations

import json
from pathlib import Path

from dcnsim._scenario import load_scenario
from dcnsim.repro.core import simulate
from dcnsim.repro.papers.prioplus import runs as R
from dcnsim.repro.papers.prioplus.checks import t1_transitions
from dcnsim.repro.papers.prioplus.metrics import summarize

HERE = Path(__file__).resolve().parent
# (row, base variant, one changed setting or None, what it tests)
ROWS = [
    ("PrioPlus (base)", R.PP, None, "the T1 cell"),
    ("PrioPlus, W_LS = 1 BDP at every level", R.PP, "transport.prioplus.linear_step=1.0",
     "the linear-start step of levels 3-5 (preset 0.25 / 0.125 BDP)"),
    ("PrioPlus, every level starts without probing", R.PP, "transport.prioplus.direct_start_levels=6",
     "the probe before a lower level's first data"),
    ("Swift (base)", R.T1_SWIFT, None, "the T1 cell"),
    ("Swift, AI 19 B (0.0012 BDP)", R.T1_SWIFT, "transport.swift.ai=0.019",
     "the additive increase (the artefact's 0.0012 BDP at 10 Gbps instead of 150 B)"),
]


def main() -> None:
    exp_dir = R.experiments_dir()
    e = R.EXPERIMENTS["T1"]
    base = {run.variant: run for run in e.runs(False)}
    raw = {}
    lines = ["| row | changed setting | yield L4 / L5 / L6 starts (ms) | refill L6 / L5 / L4 stops (ms) | last finish (ms) |",
             "| --- | --- | --- | --- | --- |"]
    for name, variant, change, _ in ROWS:
        overrides = [*base[variant].overrides, "seed=1"] + ([change] if change else [])
        spec, _ = load_scenario(exp_dir / e.toml, overrides)
        rec = simulate(spec, str(exp_dir), R._FLOW_COLUMNS, R.CAP_US, summarize)
        cell = R.Cell.of("T1", base[variant], 1, spec)
        r = R.RunResult(cell, rec)
        tr = t1_transitions(r)
        raw[name] = {"overrides": overrides, "flows": {k: r.flows[k] for k in ("tag", "start_us", "finish_us")},
                     "transitions": tr}

        def cells(kind: str, order: list[int]) -> str:
            by = {p: x for k, p, _, x in tr if k == kind}
            return " / ".join(f"{by[p] / 1000:.2f}" if p in by and by[p] == by[p] else "none" for p in order)

        last = max(float(x) for x in r.flows["finish_us"]) / 1000
        lines.append(f"| {name} | {change or '-'} | {cells('yield', [4, 5, 6])} | {cells('refill', [6, 5, 4])} | "
                     f"{last:.2f} |")
    (HERE / "t1_raw.json").write_text(json.dumps(raw, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
