"""PrioPlus: the blocks of ``table.md`` and the lines of ``runs.csv``."""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from dcnsim.repro.checks import Check, fmt
from dcnsim.repro.core import Outcome
from dcnsim.repro.papers.prioplus.checks import (
    AC14_LIMIT_Q_US,
    f11_ratio,
    ac14_exceed,
    active_window_shares,
    all_checks,
    cct_rows,
    f10d_defaults,
    f10d_table,
    f11_stats,
    f12ab_diff,
    f12ab_speedups,
    f12c_iterations,
    f12c_speedups,
    f13_gaps,
    f14_cells,
    headlines,
    m4_idle,
    t1_transitions,
    T1_HIGH,
    T1_LOW,
    T1_PAPER_US,
    T1_WINDOW_US,
)
from dcnsim.repro.papers.prioplus.metrics import (
    BUCKETS_F14,
    GROUPS_F14,
    quantile,
)
from dcnsim.repro.papers.prioplus.runs import (
    CAP_US,
    F12AB_PAPER_DIFF,
    F12AB_SEEDS,
    F12C_A,
    F12C_MODELS_ALL,
    F12C_PAPER,
    MICRO_SEEDS,
    PHYS,
    PHYS_STAR,
    PP,
    SWIFT_FLAT,
    T1_SWIFT,
    Cell,
    Grid,
    RunResult,
)
from dcnsim.repro.tables import headline_table, pad_rows


def f11_block(g: Grid) -> list[str]:
    st = f11_stats(g)
    lines = ["avg / p99 FCT in µs per size bucket (small < 300 KB ≤ middle < 6 MB ≤ large), flows pooled over "
             "seeds; x = ratio to Physical*+Swift at the same N"]
    rows = [["N", "scheme", "flows", "all avg", "all p99", "small avg", "small p99", "middle avg", "middle p99",
             "large avg", "large p99"]]
    for p in g.points:
        for v in g.variants:
            s = st.get((p, v))
            if not s:
                continue
            row = [p, v, str(s["all"][0])]
            for b in ("all", "small", "middle", "large"):
                for i in (1, 2):
                    x = s[b][i]
                    rr = f11_ratio(st, p, v, PHYS_STAR, b, i)
                    row.append(f"{fmt(x, '.0f')}" + (f" ({fmt(rr, '.2f')}x)" if v != PHYS_STAR and not math.isnan(rr)
                                                     else ""))
            rows.append(row)
    return lines + pad_rows(rows)


def f14_block(g: Grid) -> list[str]:
    c = f14_cells(g)
    lines = ["avg FCT in µs per (size bucket, level group), pooled over seeds; x = ratio to Physical*+Swift. "
             "Groups: high = level 12, middle = 7-11, low = 1-6; sub-RTT < 150 KB ≤ middle < 6 MB ≤ large"]
    cols = [(b, gname) for gname, _ in GROUPS_F14 for b, _, _ in BUCKETS_F14]
    rows = [["scheme"] + [f"{b}/{gname}" for b, gname in cols] + ["large/all"]]
    for v in g.variants:
        row = [v]
        for key in cols + [("large", "all")]:
            x = c[v][key][1]
            ref = c.get(PHYS_STAR, {}).get(key, (0, math.nan))[1]
            row.append(fmt(x, ".0f") + (f" ({fmt(x / ref, '.2f')}x)" if v != PHYS_STAR and ref and math.isfinite(ref)
                                       and math.isfinite(x) else ""))
        rows.append(row)
    counts = ["flows"] + [str(c[g.variants[0]][k][0]) for k in cols + [("large", "all")]]
    return lines + pad_rows(rows + [counts])


def f13_block(g: Grid) -> list[str]:
    gaps = f13_gaps(g)
    selfs = f13_gaps(g, "self")
    samples = f13_gaps(g, at="samples")
    lines = ["normalised FCT gap Σ|FCT_PrioPlus − FCT_ref| / FCT_ref over the 8 flows, mean over seeds; ref = "
             "Physical+Swift with the same seed and the same uniform extra delay [0, R], which the receiving host "
             "adds to every reply (the paper's), or PrioPlus with the same B and seed at R = 0 (self); "
             "'on samples': the ablation with the delay added to the delay samples only"]
    rs = sorted({x for pts in gaps.values() for x, _ in pts})
    rows = [["R µs"] + [f"B={b}" for b in sorted(gaps)] + [f"B={b} self" for b in sorted(selfs)]
            + [f"B={b} on samples" for b in sorted(samples)]]
    for x in rs:
        rows.append([f"{x:.0f}"] + [fmt(dict(gaps[b]).get(x, math.nan), ".3f") for b in sorted(gaps)]
                    + [fmt(dict(selfs[b]).get(x, math.nan), ".3f") for b in sorted(selfs)]
                    + [fmt(dict(samples[b]).get(x, math.nan), ".3f") for b in sorted(samples)])
    return lines + pad_rows(rows)


def f10d_block(g: Grid) -> list[str]:
    tab = f10d_table(g)
    widths = sorted({x for pts in tab.values() for x, _, _ in pts})
    lines = ["utilisation of the bottleneck from 1 ms to the end (delivered payload / line payload rate); channel "
             "spacing = width + 1.6 µs, limit gap = width; stops = stops of the five flows; both means over seeds"]
    rows = [["spacing µs (width)"] + [f"x{s} util / stops" for s in sorted(tab)]]
    for w in widths:
        row = [f"{w:.2f} ({w - 1.6:.2f})"]
        for s in sorted(tab):
            hit = [(u, st) for x, u, st in tab[s] if x == w]
            row.append(f"{fmt(hit[0][0], '.3f')} / {fmt(hit[0][1], '.1f')}" if hit else "-")
        rows.append(row)
    for filt, (u, stops) in sorted(f10d_defaults(g).items()):
        rows.append([f"4.00 (2.40) filter {filt}", f"{fmt(u, '.3f')} / {fmt(stops, '.1f')}"]
                    + ["" for _ in range(len(tab) - 1)])
    if widths:
        for filt, (u, stops) in sorted(f10d_defaults(g, narrow=True).items()):
            rows.append([f"{widths[0]:.2f} ({widths[0] - 1.6:.2f}) filter {filt}", f"{fmt(u, '.3f')} / {fmt(stops, '.1f')}"]
                        + ["" for _ in range(len(tab) - 1)])
    return lines + pad_rows(rows)


def f12c_block(g: Grid) -> list[str]:
    lines: list[str] = []
    for point in g.points:
        lines += f12c_point_block(g, point) + [""]
    lines.append("primary: ResNet and VGG per job (its iterations summed over seeds / the baseline's), averaged over "
                 "the type's 4 jobs (docs/reproductions/prioplus-paper.md: per priority, then across priorities); total pooled over all jobs, "
                 "the reading the paper's Physical total (1.09 from 1.16 and 0.82) implies. A VGG job completes about "
                 "4 iterations in 20 ms, so one iteration is ±0.25 of its speedup per seed. The checks use the "
                 f"{F12C_A} fabric.")
    return lines


def f12c_point_block(g: Grid, point: str) -> list[str]:
    variants = [v for v in (SWIFT_FLAT, PP, PHYS) if v in g.variants]
    iters = {v: f12c_iterations(g, v, point) for v in variants}
    rows = [["job", "priority"] + [f"iterations {v}" for v in variants]]
    for i, t in enumerate(F12C_MODELS_ALL["total"]):
        cells = []
        for v in variants:
            xs = [d.get(t, 0) for d in iters[v]]
            cells.append(fmt(sum(xs) / len(xs), ".2f") if xs else "-")
        rows.append([t, str(8 - i)] + cells)
    lines = [f"{point}: iterations completed in 20 ms (mean over seeds):", ""] + pad_rows(rows) + [""]
    sp = f12c_speedups(g, point)
    rows = [["speedup vs Swift (no priorities)", "ResNet", "VGG", "total", "paper (ResNet / VGG / total)"]]
    for v in (PP, PHYS):
        if v in sp:
            rows.append([v] + [fmt(sp[v][k]["primary"], ".3f") for k in ("ResNet", "VGG", "total")]
                        + [" / ".join(f"{x:.2f}" for x in F12C_PAPER[v])])
    for v in (PP, PHYS):
        for reading in ("jobs", "pooled", "per_seed"):
            if v in sp:
                rows.append([f"  {v}, reading {reading}"] + [fmt(sp[v][k][reading], ".3f")
                                                              for k in ("ResNet", "VGG", "total")] + [""])
    lines += pad_rows(rows)
    return lines


def f12ab_block(g: Grid) -> list[str]:
    lines: list[str] = []
    for point in g.points:
        sp = f12ab_speedups(g, point)
        lines.append(f"{point}: CCT speedup over Swift without priorities, per level (8 = highest), coflows "
                     "and file requests pooled, seeds pooled")
        lines.append("")
        levels = list(range(8, 0, -1))
        rows = [["scheme", "reading"] + [f"L{p}" for p in levels] + ["high 4", "low 4", "overall", "mean of levels"]]
        for v in [v for v in (PP, PHYS) if v in sp] + [v for v in sp if v not in (PP, PHYS)]:
            for reading in ("means", "ratios", "p99"):
                d = sp[v][reading]
                rows.append([v, {"means": "ratio of means", "ratios": "mean of ratios", "p99": "p99"}[reading]]
                            + [fmt(d[p], ".2f") for p in levels]
                            + [fmt(d[k], ".3f") for k in ("high", "low", "overall", "all")])
        if sp:
            any_v = next(iter(sp.values()))
            rows.append(["coflows per level", "(both)"] + [f"{any_v['count'][p]:.0f}" for p in levels]
                        + ["", "", f"{any_v['count']['overall']:.0f}", ""])
        lines += pad_rows(rows) + [""]
        diff = {r: f12ab_diff(g, point, r, ("high", "low", "overall", "all")) for r in ("means", "ratios", "p99")}
        paper = F12AB_PAPER_DIFF.get(point, F12AB_PAPER_DIFF["70%"])
        rows = [["PrioPlus − Physical", "high 4", "low 4", "overall", "mean of levels", "paper (high / low / all)"]]
        for r, label in (("means", "ratio of means"), ("ratios", "mean of ratios"), ("p99", "p99 (tail, Fig. 15)")):
            ref = " / ".join(fmt(x, "+.2f") for x in (paper if r != "p99" else
                                                        ((-0.17, 0.06, -0.02) if point == "40%" else (math.nan,) * 3)))
            rows.append([label] + [fmt(x, "+.3f") for x in diff[r]] + [ref])
        lines += pad_rows(rows) + [""]
        for r in (r for r in g.results if r.cell.point == point and not r.error):
            left = [(t, p) for t, _, p, c in cct_rows(r) if not math.isfinite(c)]
            if left:
                levels = ", ".join(f"{t} L{p}" for t, p in sorted(set(left), key=lambda x: (x[0], -x[1])))
                lines.append(f"unfinished at the {CAP_US / 1000:.0f} ms cap (left out of the speedups): "
                             f"{r.cell.variant} seed {r.cell.seed}: {len(left)} coflows ({levels})")
    lines.append("A level's speedup pools its coflows and file requests (each (pattern, level) offers 1/16 of the "
                 "load); high 4 / low 4 average the levels' speedups (docs/reproductions/prioplus-paper.md: per priority, then across "
                 "priorities). overall = one ratio over every coflow of every level and seed pooled, the paper's "
                 "\"overall CCT speedup ratio\" (its \"all\"; the checks use it); mean of levels = the mean of the 8 "
                 "levels' speedups, for comparison. The paper's numbers are differences of speedups (its \"12 % higher\").")
    return lines


def micro_block(g: Grid) -> list[str]:
    rows = [["variant", "flows done", "result"]]
    for v in g.variants:
        r = g.one(g.points[0], v)
        if r is None:
            rows.append([v, "-", "error"])
            continue
        done, n = r.finished()
        if g.exp.key in ("M1", "M2"):
            low, t0, t1 = active_window_shares(r)
            res = f"low share {fmt(low, '.4f')} over {t0:.0f}-{t1:.0f} µs"
        elif g.exp.key == "M4":
            idle, t_hi = m4_idle(r)
            res = f"high flows done at {t_hi:.0f} µs; low flows' delivery gap across it {fmt(idle, '.0f')} µs"
        else:
            e = ac14_exceed(r)
            res = f"queue samples above D_limit − BaseRtt = {AC14_LIMIT_Q_US} µs after 1 ms: {fmt(e, '.4f')}"
        rows.append([v, f"{done}/{n}", res])
    return pad_rows(rows)


def t1_block(g: Grid) -> list[str]:
    rows_by = {v: t1_transitions(g.one(g.points[0], v)) for v in (PP, T1_SWIFT) if v in g.variants}
    lines = [f"time to yield: from a level's start until the lower levels active then deliver < {T1_LOW * 100:.0f} % "
             f"of the line's payload rate over the next {T1_WINDOW_US:.0f} µs; time to refill: from a level's stop "
             f"(its last flow's finish) until the levels below it deliver ≥ {T1_HIGH * 100:.0f} % of it; 'none': not "
             "before the next start or stop. Paper (H21, Swift): "
             f"≈ {T1_PAPER_US['yield'] / 1000:.0f} ms to yield, ≈ {T1_PAPER_US['refill'] / 1000:.0f} ms to refill; "
             "PrioPlus much faster"]
    rows = [["transition"] + [f"{v}: at ms / took ms" for v in rows_by]]
    keys = sorted({(k, p) for rs in rows_by.values() for k, p, _, _ in rs},
                  key=lambda kp: (kp[0] != "yield", kp[1] if kp[0] == "yield" else -kp[1]))
    for kind, level in keys:
        row = [f"{kind}: L{level} {'starts' if kind == 'yield' else 'stops'}"]
        for rs in rows_by.values():
            hit = [(t, x) for k, p, t, x in rs if (k, p) == (kind, level)]
            row.append(f"{hit[0][0] / 1000:.2f} / {fmt(hit[0][1] / 1000, '.2f') if math.isfinite(hit[0][1]) else 'none'}"
                       if hit else "-")
        rows.append(row)
    return lines + pad_rows(rows)


BLOCKS = {"F11": f11_block, "F14": f14_block, "F13": f13_block, "F10D": f10d_block, "F12C": f12c_block,
          "F12AB": f12ab_block, "T1": t1_block}


def experiment_block(g: Grid, quick: bool) -> str:
    e = g.exp
    lines = [f"{e.key} — {e.title} — checks {e.checks} — seeds {g.seeds}"]
    if quick:
        lines.append(f"quick: {e.quick_note}")
    lines.append("")
    lines += BLOCKS.get(e.key, micro_block)(g)
    lines += run_notes(g)
    return "\n".join(lines)


def run_notes(g: Grid) -> list[str]:
    res = g.results
    errors = [r for r in res if r.error]
    notes = []
    tot = {k: sum(r.stat(k) for r in res if not r.error and math.isfinite(r.stat(k)))
           for k in ("drops", "timeouts", "pfc_pause_frames", "pfc_headroom_overflow_bytes", "probe_packets")}
    notes.append(f"runs: {len(res)}; " + ", ".join(f"{k} {v:.0f}" for k, v in tot.items())
                 + f"; errors {len(errors)}")
    notes += dict.fromkeys(f"error ({r.cell.variant}): {r.error}" for r in errors)  # each message once
    capped = [r for r in res if not r.error and r.record.get("capped") and r.finished()[0] < r.finished()[1]]
    for r in capped[:5]:
        notes.append(f"unfinished at the {CAP_US / 1000:.0f} ms cap: {r.cell.progress_label().strip()}")
    return notes


def checks_block(checks: Sequence[Check]) -> str:
    rows = [["check", "what", "ours", "target (docs/reproductions/prioplus-paper.md)", "status"]]
    rows += [[c.id, c.name, c.ours, c.target, c.status + (f": {c.why}" if c.why else "")] for c in checks]
    return "\n".join(pad_rows(rows))


RUNS_COLUMNS = ("experiment", "point", "variant", "seed", "key", "flows", "finished", "mean_fct_us", "p99_fct_us",
                "drops", "timeouts", "pfc_pause_frames", "probe_packets", "stops", "complete", "sim_time_us",
                "wall_seconds", "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    fcts = [x for x in r.fcts() if math.isfinite(x)]
    done, n = r.finished()
    mean = sum(fcts) / len(fcts) if fcts else math.nan
    return [r.cell.exp, r.cell.point, r.cell.variant, r.cell.seed, r.cell.key, n, done,
            fmt(mean, ".3f"), fmt(quantile(fcts, 0.99), ".3f"),
            *(fmt(r.stat(k), ".0f") for k in ("drops", "timeouts", "pfc_pause_frames", "probe_packets")),
            fmt(float(r.extra.get("stops", math.nan)), ".0f"), r.record.get("complete", False),
            r.record.get("sim_time_us", ""), f"{r.record.get('wall_seconds', 0):.2f}", r.record.get("error", "")]


def header(outcome: Outcome[Cell, RunResult, Grid]) -> list[str]:
    quick, n_seeds = outcome.settings.quick, outcome.settings.seeds
    return [
        f"# PrioPlus reproduction (dcnsim) — {'quick' if quick else 'full'} mode, seeds 1..{n_seeds} for F11, "
        f"F14 and F12C, 1..{min(n_seeds, MICRO_SEEDS)} for F13 and F10D, 1..{min(n_seeds, F12AB_SEEDS)} for F12AB, "
        "one run for M1, M2, M4, AC14 and T1",
        "",
        "Paper: \"Enabling Virtual Priority in Data Center Congestion Control\" (EuroSys 2025); experiments, "
        "checks and decisions: docs/reproductions/prioplus-paper.md. Setups and the network model: experiments/prioplus/README.md.",
        "F11/F14: k = 6 fat tree, 100 Gbps, 1 µs links, 1 KB packets, lossless (PFC on data; each switch's "
        "2.64 MB shared by its lossless ingress queues by dynamic threshold, α = 1/4, 37.5 KB of PFC headroom per "
        "lossless queue carved from it for Physical+Swift and PrioPlus, free for Physical*); PrioPlus's ACKs at top priority, the Physical schemes' at their data's priority "
        "(the artefact's; PrioPlus* too). PrioPlus = PrioPlus over Swift with the "
        "artefact's stop below 0.1 packet of window; Physical(*) = Swift with base target 25 µs and target "
        "scaling, on strict-priority queues, each paused on its own by per-priority PFC.",
        "Checks are evaluated on pooled flows (F11, F14) or on the one run (others); "
        + ("informational here (quick: small sizes, 1 seed)." if quick else "docs/reproductions/prioplus-paper.md asks for 9 seeds in F11."),
        "F12C: by default the artefact's training fabric (docs/reproductions/prioplus-paper.md: 3 leaves x 8 hosts at 200 Gbps, 1 spine, 400 "
        "Gbps uplinks, 1 MB per port shared per switch by dynamic threshold, lossless, 1 µs links; a topology file, leaf_spine cannot put 3 leaves on 1 "
        "spine); the full run adds the paper's 100 Gbps, 2:1, 32 MB per switch on the same layout ([P] gives no layout), "
        "one worker per leaf, ResNet jobs at levels 8-5, VGG at 4-1; PrioPlus with the top 4 levels starting "
        "directly and the training preset's per-level W_LS (1.0 for the top 4 levels, 0.2 below).",
        "F12AB: the artefact's 5-pod fat tree (320 hosts, 100 Gbps hosts, 400 Gbps between switches, 2 MiB per "
        "port shared per switch by dynamic threshold, lossless); coflows from dcnsim's FB2010-like distribution (not the trace: README, workload.rs) and "
        "file requests (20 senders, 10-80 MB), each (pattern, level) 1/16 of the load; the same PrioPlus preset "
        "as F12C; ACKs at top priority, except Physical's, which travel at their data's priority as in [A].",
    ]


def block(key: str, outcome: Outcome[Cell, RunResult, Grid]) -> Optional[str]:
    g = outcome.grids.get(key)
    return experiment_block(g, outcome.settings.quick) if g is not None else None


def paper_checks(outcome: Outcome[Cell, RunResult, Grid]) -> list[tuple[str, str]]:
    return [("Checks (docs/reproductions/prioplus-paper.md, AC1-AC19)", checks_block(all_checks(outcome.grids))),
            ("Ours vs the paper (docs/reproductions/prioplus-paper.md, H1-H26)", headline_table(headlines(outcome.grids)))]
