"""Ablation runs behind H19 / AC19 (the PrioPlus paper's Fig. 13, F13) at B = 20 and 30 µs.

The check: with a non-congestive delay uniform in [0, R] and PrioPlus's tolerable noise B
(``transport.prioplus.noise``) = 10, 20, 30 µs, the smallest R whose normalised FCT gap to
Physical+Swift reaches 0.5 is 14 / 24 / 32 µs in the paper; the table has 0 / 0 / 0 µs.
``results_checks.md`` (this folder) showed the B = 10 point: without the probe before start
(``direct_start_levels = 6``) it is 14 µs. This script starts from that change ("direct") and
changes one more setting in PrioPlus's runs (or, where a line says so, in Physical+Swift's).
The lines "on top of ls1" start from direct plus W_LS = 1 BDP at every level instead.
Some lines run B = 30 only (``Line.bs``).

Every line runs the harness's full F13 sweep (``runs.f13_runs``: R = 0, 2, ..., 60 µs, the
delay held at the receiver, seeds 1..3) for B = 10, 20 and 30, with the harness's own
scenario file and overrides, and the harness's figures (``checks.f13_gaps``,
``metrics.first_break``). A sibling of ``ablate_checks.py``: same storage (``raw/checks/``,
not committed) and the same check that a base line's scenarios are the harness's.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f13.py          # every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f13.py --only direct,iw34

The tables (markdown) go to stdout; f13.md holds them: per line the gap at R = 0, the
smallest R with gap ≥ 0.5 (to Physical+Swift, and to PrioPlus itself at R = 0) and p6's FCT
against Physical's; the gap at every R up to 40 µs; each level's share of the R = 0 gap;
Physical+Swift's FCTs by R; and, for the lines in ``--takeover``, when each level first
carries ≥ 8 Gbps after its start (R = 0, seed 1, delivered bytes sampled every 20 µs).
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

DIRECT = ("transport.prioplus.direct_start_levels=6",)
LS1 = ("transport.prioplus.linear_step=1.0",)
PHYS_SRTT = ('transport.swift.pacing_rtt="smoothed"',)
PHYS_DEFAULTS = PHYS_SRTT + ('transport.swift.last_decrease_update="lt"',)
POINTS = tuple(f"R={r}" for r in R.F13_RS)


@dataclass(frozen=True)
class Line:
    key: str
    label: str
    pp: tuple[str, ...]         # PrioPlus's overrides (on top of the harness's)
    phys: tuple[str, ...] = ()  # Physical+Swift's overrides
    on: str = "direct"          # the line it changes one setting of
    bs: tuple[int, ...] = R.F13_BS  # the B values it runs


LINES = [
    Line("table", "table (the harness's runs)", (), on=""),
    Line("direct", "no probe before start (direct_start_levels = 6)", DIRECT, on="table"),
    # Where the non-congestive delay goes: on the samples only (PrioPlus's and Physical's).
    Line("samples", "delay on the samples only, not held at the receiver (both schemes)",
         DIRECT + ('transport.delay_noise.at="samples"',), ('transport.delay_noise.at="samples"',)),
    # The reference: Physical+Swift without the non-congestive delay (every R against R = 0).
    Line("phys_r0", "Physical+Swift without the non-congestive delay (its R = 0 runs at every R)", DIRECT,
         ('transport.delay_noise.uniform="0us"',)),
    # Physical+Swift's retransmission timeouts (6 a run at R = 0, 2-3 at R = 20, none from 22 on,
    # with no drops: starved lower levels time out under strict priority).
    Line("phys_rto50", "Physical+Swift's rto_min 50 ms, not 5 ms", DIRECT, ('transport.rto_min="50ms"',)),
    # How the channel takes B: the limit gap A/2 only (B in the spacing, not in D_limit − D_target).
    Line("gap_a2", "D_limit − D_target = A/2 (1.6 µs), not A/2 + B", DIRECT + ('transport.prioplus.limit_gap="1.6us"',)),
    # The flow-count estimate: the artefact's formula.
    # The top level's start burst (2 flows × 1 BDP = 25.8 µs of queue) against level 5's limit
    # gap (A/2 + B = 31.6 µs at B = 30): a limit gap just below and just above it, B = 30 only.
    Line("gap24", "D_limit − D_target = 24 µs, not 31.6 µs (B = 30 only)", DIRECT + ('transport.prioplus.limit_gap="24us"',),
         bs=(30,)),
    Line("gap20", "D_limit − D_target = 20 µs, not 31.6 µs (B = 30 only)", DIRECT + ('transport.prioplus.limit_gap="20us"',),
         bs=(30,)),
    Line("gap16", "D_limit − D_target = 16 µs, not 31.6 µs (B = 30 only)", DIRECT + ('transport.prioplus.limit_gap="16us"',),
         bs=(30,)),
    Line("gap28", "D_limit − D_target = 28 µs, not 31.6 µs (B = 30 only)", DIRECT + ('transport.prioplus.limit_gap="28us"',),
         bs=(30,)),
    Line("fe_target", "flow-count estimate: the artefact's d / (D_target·cwnd/BaseBdp)",
         DIRECT + ('transport.prioplus.flow_estimate="target"',)),
    # The line-rate start: 2 and 4 BDP (17 packets is one) instead of one.
    Line("iw34", "initial window 34 packets (2 BDP), not 1 BDP", DIRECT + ("transport.initial_window=34",)),
    # The start window of the levels below the top: W_LS (1 BDP at level 5, 0.25 at 4 and 3).
    Line("ls1", "W_LS = 1 BDP at every level (each flow starts at 1 BDP)", DIRECT + LS1),
    Line("nocap", "no window cap at D_target × LineRate", DIRECT + ("transport.prioplus.cwnd_cap=false",)),
    Line("nopace", "no pacing", DIRECT + ("transport.prioplus.pacing=false",)),
    Line("ai750", "W_AI 750 B (the testbed's), not 150 B", DIRECT + ("transport.prioplus.ai_bytes=750",)),
    Line("filter1", "stop on one sample above D_limit, not two", DIRECT + ("transport.prioplus.filter=1",)),
    Line("beta16", "Swift's decrease gain β 1.6, not 0.8 (PrioPlus's runs)", DIRECT + ("transport.swift.beta=1.6",)),
    Line("dual_off", "adaptive increase every round, not every second", DIRECT + ("transport.prioplus.dual_rtt=false",)),
    # On top of the probe change and W_LS = 1 BDP ("ls1"), one more setting each.
    Line("ls1_phys_r0", "Physical+Swift without the non-congestive delay", DIRECT + LS1,
         ('transport.delay_noise.uniform="0us"',), on="ls1"),
    Line("ls1_samples", "delay on the samples only (both schemes)", DIRECT + LS1 + ('transport.delay_noise.at="samples"',),
         ('transport.delay_noise.at="samples"',), on="ls1"),
    Line("ls1_beta16", "Swift's β 1.6, not 0.8 (PrioPlus's runs)", DIRECT + LS1 + ("transport.swift.beta=1.6",), on="ls1"),
    Line("ls1_fe_target", "the artefact's flow-count estimate", DIRECT + LS1 + ('transport.prioplus.flow_estimate="target"',),
         on="ls1"),
    Line("ls1_slack0", "countdown slack 0, not 2", DIRECT + LS1 + ("transport.prioplus.countdown_slack=0",), on="ls1"),
    # The reference's pacing (2026-11-28). The artefact's Swift paces a sub-packet window at
    # W / base RTT and waits the decreasing ACK's RTT sample between decreases; since
    # 2026-11-28 fig13_noncongestive.toml does both (`pacing_rtt = "base"`,
    # `last_decrease_update = "lt_sample"`), so the base lines above run that reference. The
    # `*_phys_srtt` lines give Physical+Swift dcnsim's default pacing back, smoothed RTT / W: a
    # level starved under strict priority keeps a smoothed RTT of milliseconds and sends one
    # packet every 8-11 ms after the levels above it end (p3's 62 ms at R = 20, seed 1).
    # `phys_defaults` gives it both defaults: the reference every line before that date ran.
    Line("phys_srtt", "Physical+Swift paced at smoothed RTT / W, the harness's PrioPlus runs", (), PHYS_SRTT,
         on="table"),
    Line("direct_phys_srtt", "Physical+Swift paced at smoothed RTT / W", DIRECT, PHYS_SRTT),
    Line("ls1_phys_srtt", "Physical+Swift paced at smoothed RTT / W", DIRECT + LS1, PHYS_SRTT, on="ls1"),
    Line("ls1_fe_phys_srtt", "the artefact's flow-count estimate, and Physical+Swift paced at smoothed RTT / W",
         DIRECT + LS1 + ('transport.prioplus.flow_estimate="target"',), PHYS_SRTT, on="ls1"),
    Line("phys_defaults", "Physical+Swift with dcnsim's Swift defaults (smoothed-RTT pacing, one smoothed RTT "
         "between decreases: the reference before 2026-11-28), the harness's PrioPlus runs", (), PHYS_DEFAULTS,
         on="table"),
    # B = 30: the lower level's limit gap (the take-over, above) with the artefact's reference.
    Line("ls1_gap16", "D_limit − D_target = 16 µs, not 31.6 µs (B = 30 only)",
         DIRECT + LS1 + ('transport.prioplus.limit_gap="16us"',), on="ls1", bs=(30,)),
    Line("ls1_gap20", "D_limit − D_target = 20 µs, not 31.6 µs (B = 30 only)",
         DIRECT + LS1 + ('transport.prioplus.limit_gap="20us"',), on="ls1", bs=(30,)),
    Line("ls1_restart", "17 packets (1 BDP) after a probe that sees a non-empty queue, not 1",
         DIRECT + LS1 + ("transport.prioplus.restart_pkts=17",), on="ls1"),
]


def cells(line: Line) -> list[AC.Cells]:
    phys = AC.Cells(f"f13_phys{'_' + line.key if line.phys else ''}", "F13", R.PHYS, POINTS, line.phys)
    pp = [AC.Cells(f"f13_pp{b}" if line.key == "table" else f"f13_pp{b}_{line.key}", "F13", f"{R.PP} B={b}",
                   POINTS, line.pp) for b in line.bs]
    return [phys, *pp]


def figures(g: R.Grid) -> dict[str, float]:
    out = AC.f13_figures(g)
    gaps = C.f13_gaps(g)
    selfs = C.f13_gaps(g, "self")
    for b in R.F13_BS:
        out[f"B={b} self break"] = M.first_break(selfs.get(b, []), 0.5)
        d = dict(gaps.get(b, []))
        out[f"B={b} gaps"] = " ".join(f"{d.get(float(r), math.nan):.2f}" for r in range(0, 42, 2))
    return out


def level_gaps(g: R.Grid, b: int) -> str:
    """Each level's FCT against Physical+Swift's at R = 0 for PrioPlus at B = ``b``:
    "tag mean (share)", the mean of (PrioPlus − Physical) / Physical over the level's flows
    and seeds, and (share) the level's part of the gap, the sum of |difference| over its
    flows, averaged over the seeds."""
    diff: dict[str, list[float]] = {}
    share: dict[str, float] = {}
    runs = g.runs("R=0", f"{R.PP} B={b}")
    for r in runs:
        ref = g.one("R=0", R.PHYS, r.cell.seed)
        for t, x, y in zip(r.flows["tag"], r.fcts(), ref.fcts()):
            diff.setdefault(t, []).append(x / y - 1)
            share[t] = share.get(t, 0.0) + abs(x - y) / y / len(runs)
    return " ".join(f"{t} {sum(v) / len(v):+.2f} ({share[t]:.2f})" for t, v in sorted(diff.items()))


# The take-over: when a level's two flows first carry ≥ 8 Gbps together (250 µs windows)
# after they start, in one run (R = 0, seed 1) sampled every 20 µs.
TAKEOVER = (("p4", 4000.0), ("p5", 8000.0), ("p6", 12000.0))
SAMPLE = ('output.sample_interval="20us"',)


def takeover(line: Line, b: int) -> dict[str, float]:
    if line.key == "physical":
        c = AC.Cells("f13ts_phys", "F13", R.PHYS, ("R=0",), SAMPLE, (1,))
    else:
        c = AC.Cells(f"f13ts_pp{b}_{line.key}", "F13", f"{R.PP} B={b}", ("R=0",), line.pp + SAMPLE, (1,))
    rec = AC.load(c, io.StringIO())[0].record
    e, tags = rec["extra"], rec["flows"]["tag"]
    series = R.series_by_flow(e["d_t"], e["d_flow"], e["d_bytes"])
    out = {}
    for tag, t0 in TAKEOVER:
        flows = [series.get(i, []) for i, t in enumerate(tags) if t == tag]
        t, found = t0, math.nan
        while t < t0 + 20000:
            gbps = sum(AC.at(s, t + 250) - AC.at(s, t) for s in flows) * 8 / 250 / 1000
            if gbps >= 8:
                found = t - t0
                break
            t += 250
        out[tag] = found
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--takeover", default="direct,ls1,gap_a2,gap16,gap20,gap24,dual_off,beta16,fe_target",
                    help="lines whose take-over times are measured (empty: none)")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    rows = []
    grids: dict[str, R.Grid] = {}
    for line in LINES:
        if only and line.key not in only:
            continue
        t = time.time()
        res = []
        for c in cells(line):
            res += AC.load(c, io.StringIO())
        f = figures(R.Grid(R.EXPERIMENTS["F13"], res))
        rows.append((line, f, len(res)))
        grids[line.key] = R.Grid(R.EXPERIMENTS["F13"], res)
        print(f"{line.key}: {len(res)} runs, {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    print("| line | change | on top of | " + " | ".join(
        f"B={b} gap at R=0 | B={b} smallest R | B={b} smallest R, gap to itself | B={b} p6 / Physical at R=0"
        for b in R.F13_BS) + " | runs |")
    print("|---|---|---|" + "---|---|---|---|" * len(R.F13_BS) + "---|")
    for line, f, n in rows:
        base = DIRECT + (LS1 if line.on == "ls1" else ())
        change = ", ".join(f"`{x}`" for x in line.pp if x not in base) or "—"
        if line.phys:
            change += " (Physical: " + ", ".join(f"`{x}`" for x in line.phys) + ")"
        cols = []
        for b in R.F13_BS:
            if b not in line.bs:
                cols += ["not run"] * 4
                continue
            cols += [f"{f[f'B={b} gap at R=0']:.2f}", f"{f[f'B={b} smallest R gap ≥ 0.5']:.0f}",
                     f"{f[f'B={b} self break']:.0f}",
                     f"{f[f'B={b} p6 FCT / Physical' + chr(39) + 's at R=0']:.2f}"]
        print(f"| {line.label} | {change} | {line.on or '—'} | " + " | ".join(cols) + f" | {n} |")
    print()
    for b in R.F13_BS:
        print(f"Gap to Physical+Swift at B = {b} µs, R = 0, 2, ..., 40 µs (mean over seeds 1-3):")
        print()
        print("| line | " + " | ".join(str(r) for r in range(0, 42, 2)) + " |")
        print("|---|" + "---|" * 21)
        for line, f, _ in rows:
            if b in line.bs:
                print(f"| {line.key} | " + " | ".join(f[f"B={b} gaps"].split()) + " |")
        print()
    print("Each level's FCT against Physical+Swift's at R = 0, (PrioPlus − Physical) / Physical per flow, "
          "the level's two flows and seeds 1-3 averaged (in brackets: the level's share of the gap, the sum of "
          "|difference| over its two flows):")
    print()
    print("| line | " + " | ".join(f"B={b}" for b in R.F13_BS) + " |")
    print("|---|" + "---|" * len(R.F13_BS))
    for line, _, _ in rows:
        g = grids[line.key]
        cols = []
        for b in R.F13_BS:
            if b not in line.bs:
                cols.append("not run")
                continue
            cols.append(level_gaps(g, b))
        print(f"| {line.key} | " + " | ".join(cols) + " |")
    print()
    g = grids.get("direct")
    if g is not None:
        print("Physical+Swift's mean FCT per level (ms, seeds 1-3) and retransmission timeouts a run, by R:")
        print()
        print("| R µs | p3 | p4 | p5 | p6 | timeouts a run |")
        print("|---|---|---|---|---|---|")
        for x in range(0, 42, 2):
            rs = g.runs(f"R={x}", R.PHYS)
            per: dict[str, list[float]] = {}
            for r in rs:
                for t, f in zip(r.flows["tag"], r.fcts()):
                    per.setdefault(t, []).append(f)
            to = sum(r.stat("timeouts") for r in rs) / len(rs)
            print(f"| {x} | " + " | ".join(f"{sum(v) / len(v) / 1000:.1f}" for _, v in sorted(per.items()))
                  + f" | {to:.1f} |")
        print()
    keys = [k for k in a.takeover.split(",") if k and (not only or k in only)]
    if keys:
        print("Take-over at R = 0, seed 1: µs from a level's start until its two flows first carry ≥ 8 Gbps "
              "in a 250 µs window (0: in the first window):")
        print()
        print("| line | " + " | ".join(f"B={b} {t}" for b in (20, 30) for t, _ in TAKEOVER) + " |")
        print("|---|" + "---|" * (2 * len(TAKEOVER)))
        for k in ["physical", *keys]:
            line = next((x for x in LINES if x.key == k), Line("physical", "Physical+Swift", ()))
            cols = []
            for b in (20, 30):
                if b not in line.bs:
                    cols += ["not run"] * len(TAKEOVER)
                    continue
                tk = takeover(line, b)
                cols += [f"{tk[t]:.0f}" for t, _ in TAKEOVER]
            print(f"| {k} | " + " | ".join(cols) + " |")


if __name__ == "__main__":
    main()
