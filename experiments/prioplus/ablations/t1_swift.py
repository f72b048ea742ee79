"""One-setting ablations of the Swift side of T1 (H21, the testbed's Fig. 8 staircase):
what would bring Swift's mean time to refill (ours 1.07 ms) to the paper's ≈ 3 ms while its
mean time to yield stays near ≈ 2 ms.

Each row is the full-size T1 cell (``dcnsim.repro.papers.prioplus.runs.t1_runs``: the same
scenario file, overrides and seed 1 as ``dcnsim reproduce prioplus --only T1``, so the base
rows equal the table's cells) with one changed setting (the last row: two). Every setting runs for the
Swift cell and for the PrioPlus+Swift cell of the same staircase (PrioPlus wraps Swift and
takes some of these settings too, e.g. beta and max_mdf), so the table shows whether a
setting also keeps PrioPlus's results. Transitions are the harness's (``checks.t1_transitions``).
Raw numbers go to ``t1_swift_raw.json`` beside this script, the markdown table to stdout
(t1_swift.md holds it with notes). Row names as arguments run only those rows (raw numbers
then go to ``t1_swift_raw_partial.json``). The whole set takes under 10 s.

    PYTHONPATH=python python experiments/prioplus/ablations/t1_swift.py > /tmp/t1_swift_table.md
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from dcnsim._scenario import load_scenario
from dcnsim.repro.core import simulate
from dcnsim.repro.papers.prioplus import runs as R
from dcnsim.repro.papers.prioplus.checks import t1_transitions
from dcnsim.repro.papers.prioplus.metrics import select, summarize

HERE = Path(__file__).resolve().parent
NOISE = 'transport.delay_noise.cdf="../../workloads/delay_noise_nic.cdf"'
# (row, one changed setting or None)
ROWS = [
    ("base", None),
    # Swift's additive increase per RTT (base 150 B = 0.15 packet of 1000 B)
    ("AI 19 B", "transport.swift.ai=0.019"),
    ("AI 30 B", "transport.swift.ai=0.03"),
    ("AI 50 B", "transport.swift.ai=0.05"),
    ("AI 75 B", "transport.swift.ai=0.075"),
    ("AI 80 B", "transport.swift.ai=0.08"),
    ("AI 85 B", "transport.swift.ai=0.085"),
    ("AI 90 B", "transport.swift.ai=0.09"),
    ("AI 95 B", "transport.swift.ai=0.095"),
    ("AI 100 B", "transport.swift.ai=0.1"),
    ("AI 120 B", "transport.swift.ai=0.12"),
    ("AI 300 B", "transport.swift.ai=0.3"),
    ("AI 750 B (Fig. 9's 5x)", "transport.swift.ai=0.75"),
    # the decrease: gain beta (base 0.8) and cap max_mdf (base 0.5)
    ("beta 0.2", "transport.swift.beta=0.2"),
    ("beta 0.4", "transport.swift.beta=0.4"),
    ("beta 1.0", "transport.swift.beta=1.0"),
    ("beta 1.2", "transport.swift.beta=1.2"),
    ("beta 1.3", "transport.swift.beta=1.3"),
    ("beta 1.4", "transport.swift.beta=1.4"),
    ("beta 1.5", "transport.swift.beta=1.5"),
    ("beta 1.6", "transport.swift.beta=1.6"),
    ("beta 1.7", "transport.swift.beta=1.7"),
    ("beta 1.8", "transport.swift.beta=1.8"),
    ("beta 1.9", "transport.swift.beta=1.9"),
    ("beta 2.0", "transport.swift.beta=2.0"),
    ("beta 2.2", "transport.swift.beta=2.2"),
    ("beta 2.4", "transport.swift.beta=2.4"),
    ("beta 3.2", "transport.swift.beta=3.2"),
    ("beta 4.0", "transport.swift.beta=4.0"),
    ("max_mdf 0.25", "transport.swift.max_mdf=0.25"),
    ("max_mdf 0.1", "transport.swift.max_mdf=0.1"),
    ("max_mdf 1", "transport.swift.max_mdf=1.0"),
    # the target: D_limit instead of D_target (+2.4 us), and twice D_target
    ("targets = D_limit", 'transport.swift.level_targets=["6.4us","10.4us","14.4us","18.4us","22.4us","26.4us"]'),
    ("targets = 2 x D_target", 'transport.swift.level_targets=["8us","16us","24us","32us","40us","48us"]'),
    # flow scaling (the paper: disabled), the window floor, pacing, the testbed's NIC noise
    ("flow scaling 5 us", 'transport.swift.fs_range="5us"'),
    ("min window 0.0001 packet", "transport.swift.min_cwnd_pkts=0.0001"),
    ("min window 0.01 packet", "transport.swift.min_cwnd_pkts=0.01"),
    ("min window 0.1 packet", "transport.swift.min_cwnd_pkts=0.1"),
    ("min window 1 packet", "transport.swift.min_cwnd_pkts=1.0"),
    ("pacing cwnd / SRTT", "transport.pacing=true"),
    ("testbed NIC delay noise (Fig. 7)", NOISE),
    # Since 2026-11-28 the scenario file has the artefact's sub-packet pacing (base RTT / W)
    # and decrease gate (the decreasing ACK's own sample); these put dcnsim's defaults back.
    ("sub-packet pacing smoothed RTT / W", 'transport.swift.pacing_rtt="smoothed"'),
    ("decrease waits one smoothed RTT", 'transport.swift.last_decrease_update="lt"'),
    ("both dcnsim defaults (the base before 2026-11-28)",
     ('transport.swift.pacing_rtt="smoothed"', 'transport.swift.last_decrease_update="lt"')),
]
YIELD_BAR = (1000.0, 3000.0)   # Swift ≈ 2 ms ± 50 %
REFILL_BAR = (1500.0, 4500.0)  # Swift ≈ 3 ms ± 50 %


def summarize_cwnd(sim) -> dict:
    """The harness's summary plus every flow's window samples (bytes)."""
    out = summarize(sim)
    t, flows, w = select(sim.timeseries(), "flow", "cwnd_bytes")
    out["w_t"], out["w_flow"], out["w_bytes"] = [float(x) for x in t], [int(x) for x in flows], [float(x) for x in w]
    return out


def windows_at(rec: dict, flows: dict, at_us: float, below: int) -> list[float]:
    """Windows (bytes, last sample at or before ``at_us``) of the flows of levels below
    ``below`` that are still running at ``at_us``."""
    ex = rec.get("extra", {})
    last: dict[int, float] = {}
    for t, f, w in zip(ex.get("w_t", []), ex.get("w_flow", []), ex.get("w_bytes", [])):
        if t <= at_us:
            last[f] = w
    out = []
    for i, (tag, fin) in enumerate(zip(flows["tag"], flows["finish_us"])):
        if int(str(tag)[1:]) < below and (fin is None or float(fin) > at_us) and flows["id"][i] in last:
            out.append(last[flows["id"][i]])
    return out


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs and all(math.isfinite(x) for x in xs) else math.inf


def main() -> None:
    only = set(sys.argv[1:])
    exp_dir = R.experiments_dir()
    e = R.EXPERIMENTS["T1"]
    base = {run.variant: run for run in e.runs(False)}
    raw = {}
    lines = ["| setting | scheme | yield L4 / L5 / L6 starts (ms) | refill L6 / L5 / L4 stops (ms) | "
             "mean yield / refill (ms) | Swift means in both bars | "
             "lower levels' windows at the L6 / L5 / L4 stops, min-max (B) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, change in ROWS:
        if only and name not in only:
            continue
        for variant, label in ((R.T1_SWIFT, "Swift"), (R.PP, "PrioPlus+Swift")):
            changes = [change] if isinstance(change, str) else list(change or ())
            overrides = [*base[variant].overrides, "seed=1"] + changes
            spec, _ = load_scenario(exp_dir / e.toml, overrides)
            rec = simulate(spec, str(exp_dir), [*R._FLOW_COLUMNS, "id"], R.CAP_US, summarize_cwnd)
            cell = R.Cell.of("T1", base[variant], 1, spec)
            r = R.RunResult(cell, rec)
            tr = t1_transitions(r)
            ys = {p: x for k, p, _, x in tr if k == "yield"}
            rs = {p: x for k, p, _, x in tr if k == "refill"}
            y = [ys.get(p, math.inf) for p in (4, 5, 6)]
            f = [rs.get(p, math.inf) for p in (6, 5, 4)]
            y = [x if x == x else math.inf for x in y]
            f = [x if x == x else math.inf for x in f]
            my, mf = mean(y), mean(f)
            # windows of the still-running lower-level flows at each stop (L6, L5, L4)
            stops = {p: t for k, p, t, _ in tr if k == "refill"}
            wins = [windows_at(rec, rec["flows"], stops[p], p) if p in stops else [] for p in (6, 5, 4)]
            wmin = [min(w, default=math.nan) for w in wins]
            wmax = [max(w, default=math.nan) for w in wins]
            raw[f"{name} | {label}"] = {"overrides": overrides, "yield_us": y, "refill_us": f,
                                        "mean_yield_us": my, "mean_refill_us": mf,
                                        "lower_windows_at_stops_B": wins,
                                        "flows": {k: r.flows[k] for k in ("tag", "start_us", "finish_us")},
                                        "transitions": tr}

            def ms(xs: list[float]) -> str:
                return " / ".join(f"{x / 1000:.2f}" if math.isfinite(x) else "none" for x in xs)

            def one(x: float) -> str:
                return f"{x / 1000:.2f}" if math.isfinite(x) else "none"

            ok = ""
            if label == "Swift":
                ok = "yes" if (YIELD_BAR[0] <= my <= YIELD_BAR[1] and REFILL_BAR[0] <= mf <= REFILL_BAR[1]) else "no"
            shown = '' if not changes else ' (' + ', '.join(f'`{c}`' for c in changes) + ')'
            lines.append(f"| {name}{shown} | {label} | {ms(y)} | {ms(f)} | "
                         f"{one(my)} / {one(mf)} | {ok} | {' / '.join('-' if a != a else f'{a:.0f}-{b:.0f}' for a, b in zip(wmin, wmax))} |")
            print(lines[-1], file=sys.stderr, flush=True)
    (HERE / ("t1_swift_raw.json" if not only else "t1_swift_raw_partial.json")).write_text(
        json.dumps(raw, indent=1, default=lambda o: None if isinstance(o, float) and not math.isfinite(o) else str(o)))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
