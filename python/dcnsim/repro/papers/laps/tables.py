"""LAPS: the blocks of ``table.md`` and the lines of ``runs.csv``."""

from __future__ import annotations

import math
from typing import Any, Optional

from dcnsim.repro.checks import finite, fmt
from dcnsim.repro.core import Outcome
from dcnsim.repro.papers.laps.checks import (
    e5_point,
    all_checks,
    checks_block,
    headlines,
)
from dcnsim.repro.papers.laps.runs import (
    A2A,
    A2A_SCHEMES,
    BUCKETS,
    CAP_US,
    E5_ABLATIONS,
    E5_POINT_A,
    E5_SCHEMES,
    EXPERIMENTS,
    LAPS,
    LAPS_NCC,
    LAPS_T,
    LLM_BYTES,
    LOADS,
    LOSS,
    LOSS_A,
    QUICK_LLM_BYTES,
    QUICK_LOADS,
    RPS,
    Cell,
    Grid,
    RunResult,
    avg_fct_ms,
    p99_fct_ms,
    artefact_load,
    ideal_incast_ms,
)
from dcnsim.repro.tables import headline_table, pad_rows

# ---------------------------------------------------------------------------------------
# Output


def _cell(x: float, spec: str) -> str:
    return fmt(x, spec)


def a2a_block(g: Grid) -> list[str]:
    e = g.exp
    what = ("flows that start in the measurement window" if g.results and g.results[0].cell.run.measure
            else "every flow")
    lines = [f"avg / P99 FCT in ms of {what}, median over seeds (P99: element floor(0.99 n) of the sorted FCTs); "
             "x = ratio to LAPS (the headline, the artefact's rules); runs that stalled (PFC deadlock) are left "
             "out of every median and counted under \"deadlocked seeds\""]
    if e.artefact_load:
        lines.append("the artefact's load: nominal x " + (f"{artefact_load(e, 1.0):.4g}") + " (x1/100 for its "
                     "percent-scale CDF" + (", x1.30 per-pair factor on the dragonfly" if e.dragonfly else "")
                     + "; docs/reproductions/laps-paper.md, AL): effective " + ", ".join(
                         f"{artefact_load(e, x):.4f}" for x in g.loads()))
    schemes = [s for s in A2A_SCHEMES if s in g.schemes]
    rows = [["load"] + [f"{s} avg" for s in schemes] + [f"{s} P99" for s in schemes] + ["flows"]]
    for x in g.loads():
        p = g.point_of_load(x)
        la, lp = g.med(p, LAPS, avg_fct_ms), g.med(p, LAPS, p99_fct_ms)
        row = [f"{x:.2f}"]
        for metric, ref in ((avg_fct_ms, la), (p99_fct_ms, lp)):
            for s in schemes:
                v = g.med(p, s, metric)
                row.append(_cell(v, ".3f") + (f" ({fmt(v / ref, '.2f')}x)" if s != LAPS and finite(v, ref) and ref
                                              else ""))
        row.append(fmt(g.med(p, LAPS, lambda r: float(r.measured())), ".0f"))
        rows.append(row)
    lines += pad_rows(rows)
    lines += ["", "per cell, median over seeds: avg / P99 FCT in ms per size bucket (dcnsim's buckets: small < 100 KB, "
              "medium 100 KB - 10 MB, large >= 10 MB) and of every counted flow; offered = bytes of the flows that "
              f"start in the {'measurement' if what != 'every flow' else 'arrival'} window / ({e.hosts} hosts x "
              f"{e.host_gbps:g} Gb/s x window); ECN marks (core stat ecn_marks, RED marks on ECN-capable packets) and PFC "
              "pause frames (pfc_pause_frames) over the whole run; \"no congestion signal\" = 0 ECN marks and 0 PFC "
              "pauses: such a cell cannot judge a balancer"]
    rows = [["load", "scheme", "flows", "offered", "small avg / P99", "medium avg / P99", "large avg / P99",
             "all avg / P99", "ECN marks", "PFC pauses", "deadlocked seeds", "note"]]
    for x in g.loads():
        p = g.point_of_load(x)
        for s in [*schemes, *(v for v in g.schemes if v not in schemes)]:
            dead, n = g.stalled(p, s)
            if not n:
                continue
            rows.append([f"{x:.2f}", s, fmt(g.med(p, s, lambda r: float(r.measured())), ".0f"),
                         fmt(g.med(p, s, lambda r: r.offered_load()), ".3f"),
                         *(f"{fmt(g.med(p, s, lambda r, b=b: r.bucket_avg_ms(b)), '.3f')} / "
                           f"{fmt(g.med(p, s, lambda r, b=b: r.bucket_p99_ms(b)), '.3f')}" for b in BUCKETS),
                         f"{fmt(g.med(p, s, avg_fct_ms), '.3f')} / {fmt(g.med(p, s, p99_fct_ms), '.3f')}",
                         fmt(g.med(p, s, lambda r: r.stat("ecn_marks")), ".0f"),
                         fmt(g.med(p, s, lambda r: r.stat("pfc_pause_frames")), ".0f"),
                         f"{dead}/{n}", "no congestion signal" if g.quiet(p, s) else ""])
    return lines + pad_rows(rows)


def e5_block(g: Grid, scale: float) -> list[str]:
    lines = [f"AllReduce 63 -> 1 of {scale * 64:g} MB flows, FCT in ms, median over seeds (ideal: every byte through "
             f"the 200 Gb/s receiver link, {ideal_incast_ms(63, round(LLM_BYTES * scale)):.2f} ms payload, "
             f"{ideal_incast_ms(63, round(LLM_BYTES * scale), wire=True):.2f} ms on the wire)"]
    wire = ideal_incast_ms(63, round(LLM_BYTES * scale), wire=True)
    lines.append(f"makespan = last finish − first start, drop 0; efficiency = {wire:.2f} ms on the wire / makespan")
    rows = [["scheme", "avg drop 0", "P99 drop 0", "avg drop 1e-6", "P99 drop 1e-6", "makespan", "efficiency",
             "retx drop 0", "retx drop 1e-6", "RTO timeouts drop 0", "drops", "PFC pauses", "rate cuts",
             "re-paths per flow"]]
    for s in list(dict.fromkeys([*E5_SCHEMES, *E5_ABLATIONS, *g.schemes])):
        if s not in g.schemes:
            continue
        p0, p1 = e5_point(0.0), e5_point(LOSS)
        rows.append([s, fmt(g.med(p0, s, avg_fct_ms), ".2f"), fmt(g.med(p0, s, p99_fct_ms), ".2f"), fmt(g.med(p1, s, avg_fct_ms), ".2f"),
                     fmt(g.med(p1, s, p99_fct_ms), ".2f"), fmt(g.med(p0, s, lambda r: r.makespan_ms()), ".2f"),
                     fmt(wire / g.med(p0, s, lambda r: r.makespan_ms()), ".3f"),
                     fmt(g.med(p0, s, lambda r: r.stat("retransmits")), ".0f"),
                     fmt(g.med(p1, s, lambda r: r.stat("retransmits")), ".0f"),
                     fmt(g.med(p0, s, lambda r: r.stat("timeouts")), ".0f"),
                     fmt(g.med(p1, s, lambda r: r.stat("drops")), ".0f"),
                     fmt(g.med(p0, s, lambda r: r.stat("pfc_pause_frames")), ".0f"),
                     fmt(g.med(p0, s, lambda r: r.stat("laps_rate_decreases")), ".0f"),
                     fmt(g.med(p0, s, lambda r: r.repaths_per_flow()), ".2f")])
    lines += pad_rows(rows)
    if E5_POINT_A in g.points:
        lines += ["", f"the artefact's loss model (docs/reproductions/laps-paper.md, \"Loss model\"): {LOSS_A:g} at every link, host links and ACKs included; "
                  "avg / P99 in ms and the change of the avg against drop 0"]
        rows = [["scheme", "avg", "P99", "avg change", "drops", "retx", "RTO timeouts"]]
        for s in list(dict.fromkeys([*E5_SCHEMES, *g.schemes])):
            if not g.runs(E5_POINT_A, s):
                continue
            a0, a = g.med(e5_point(0.0), s, avg_fct_ms), g.med(E5_POINT_A, s, avg_fct_ms)
            rows.append([s, fmt(a, ".2f"), fmt(g.med(E5_POINT_A, s, p99_fct_ms), ".2f"),
                         f"{(a / a0 - 1) * 100:+.1f} %" if finite(a, a0) and a0 > 0 else "n/a",
                         fmt(g.med(E5_POINT_A, s, lambda r: r.stat("drops")), ".0f"),
                         fmt(g.med(E5_POINT_A, s, lambda r: r.stat("retransmits")), ".0f"),
                         fmt(g.med(E5_POINT_A, s, lambda r: r.stat("timeouts")), ".0f")])
        lines += pad_rows(rows)
    return lines


def e6_block(g: Grid) -> list[str]:
    lines = ["per pattern and variant, median over seeds: reordered = data packets arriving above the next "
             "expected one / data packets; OOO = receiver buffer above the next expected byte, sampled per ACK (core "
             "stats ooo_buffer_mean_kb, ooo_buffer_above_30kb); avg FCT in ms"]
    rows = [["pattern", "variant", "reordered %", "OOO mean KB", "OOO > 30 KB %", "rate cuts", "probes", "avg FCT",
             "P99 FCT"]]
    for p in g.points:
        for s in g.schemes:
            if not g.runs(p, s):
                continue
            rows.append([p, s, fmt(g.med(p, s, lambda r: r.reordered_ratio() * 100), ".3f"),
                         fmt(g.med(p, s, lambda r: r.stat("ooo_buffer_mean_kb")), ".3f"),
                         fmt(g.med(p, s, lambda r: r.stat("ooo_buffer_above_30kb") * 100), ".2f"),
                         fmt(g.med(p, s, lambda r: r.stat("laps_rate_decreases")), ".0f"),
                         fmt(g.med(p, s, lambda r: r.stat("laps_probes")), ".0f"),
                         fmt(g.med(p, s, avg_fct_ms), ".2f"), fmt(g.med(p, s, p99_fct_ms), ".2f")])
    return lines + pad_rows(rows)


def run_notes(g: Grid) -> list[str]:
    res = g.results
    errors = [r for r in res if r.error]
    ok = [r for r in res if not r.error]
    tot = {k: sum(r.stat(k) for r in ok if math.isfinite(r.stat(k)))
           for k in ("drops", "retransmits", "timeouts", "laps_path_timeouts", "pfc_pause_frames")}
    notes = [f"runs: {len(res)}; " + ", ".join(f"{k} {v:.0f}" for k, v in tot.items()) + f"; errors {len(errors)}"]
    false_retx = [r for r in ok if r.cell.scheme in (LAPS, LAPS_T, LAPS_NCC, RPS) and r.stat("drops") == 0
                  and r.stat("retransmits") > 0]
    if false_retx:
        notes.append(f"LAPS runs with retransmissions but no drop (docs/reproductions/laps-paper.md, A6: per-path RTO under PFC, or false loss "
                     f"inference): {len(false_retx)}, e.g. {false_retx[0].cell.progress_label().strip()} "
                     f"({false_retx[0].stat('retransmits'):.0f} retx, {false_retx[0].stat('laps_path_timeouts'):.0f} "
                     "path timeouts)")
    notes += dict.fromkeys(f"error ({r.cell.scheme}): {r.error}" for r in errors)
    for r in [r for r in ok if r.stalled()][:5]:
        done, n = r.finished()
        notes.append(f"STALLED (events ran out, {n - done} of {n} flows unfinished; PFC pauses "
                     f"{r.stat('pfc_pause_frames'):.0f}, resumes {r.stat('pfc_resume_frames'):.0f}, ports in a "
                     f"PFC deadlock {fmt(r.stat('pfc_deadlocked_ports'), '.0f')}): {r.cell.progress_label().strip()}")
    for r in [r for r in ok if r.capped()][:5]:
        done, n = r.finished()
        notes.append(f"unfinished at the {CAP_US / 1e6:.0f} s cap ({n - done} of {n} flows): "
                     f"{r.cell.progress_label().strip()}")
    return notes


def experiment_block(g: Grid, grids: dict[str, Grid], quick: bool, scale: float) -> str:
    e = g.exp
    lines = [f"{e.key} — {e.paper} — {e.title} — checks {e.checks} — seeds {g.seeds}"]
    if e.key in A2A:
        m = e.measure(quick)
        lines.append(f"arrivals for {e.window(quick) / 1000:g} ms (paper 10 ms)"
                     + (f"; FCTs of the flows that start in [{m[0] / 1000:g}, {m[1] / 1000:g}) ms (warm-up, "
                        "measurement window; every flow runs and drains)" if m else "")
                     + f"; loads {', '.join(f'{x:.2f}' for x in g.loads())}"
                     + ("; host links 100 Gb/s, the load on them (half E1/E2's bytes at the same load)"
                        if e.host_gbps == 100.0 and not e.dragonfly else ""))
        if e.dragonfly:
            lines.append("PFC class change at every switch entered over a global link, 3 PFC classes with equal-weight "
                         "DRR, for every scheme (docs/models/pfc.md, \"Deadlock\")" + (
                             f"; {LAPS_NCC} = LAPS without it" if LAPS_NCC in g.schemes else ""))
    lines.append("")
    if e.key in A2A:
        lines += a2a_block(g)
    elif e.key == "E5":
        lines += e5_block(g, scale)
    else:
        lines += e6_block(g)
    lines += run_notes(g)
    return "\n".join(lines)


RUNS_COLUMNS = ("experiment", "point", "scheme", "seed", "key", "flows", "finished", "measured", "offered_load",
                "avg_fct_ms", "p99_fct_ms", "ecn_marks", "drops", "retransmits", "pfc_pause_frames", "pfc_resume_frames", "reordered_ratio",
                "ooo_buffer_mean_kb", "ooo_buffer_above_30kb", "laps_rate_decreases", "laps_probes",
                "laps_path_timeouts", "repaths_per_flow", "pfc_deadlocked_ports", "stalled", "complete", "sim_time_us",
                "wall_seconds", "error")


def run_row(r: RunResult) -> list[Any]:
    done, n = r.finished()
    return [r.cell.exp, r.cell.point, r.cell.scheme, r.cell.seed, r.cell.key, n, done, r.measured(),
            fmt(r.offered_load(), ".4f"), fmt(r.avg_ms(), ".6f"),
            fmt(r.p99_ms(), ".6f"), *(fmt(r.stat(k), ".0f") for k in ("ecn_marks", "drops", "retransmits", "pfc_pause_frames",
                                                                    "pfc_resume_frames")),
            fmt(r.reordered_ratio(), ".6f"), fmt(r.stat("ooo_buffer_mean_kb"), ".4f"),
            fmt(r.stat("ooo_buffer_above_30kb"), ".4f"),
            *(fmt(r.stat(k), ".0f") for k in ("laps_rate_decreases", "laps_probes", "laps_path_timeouts")),
            fmt(r.repaths_per_flow(), ".3f"), fmt(r.stat("pfc_deadlocked_ports"), ".0f"), r.stalled(), r.record.get("complete", False), r.record.get("sim_time_us", ""),
            f"{r.record.get('wall_seconds', 0):.2f}", r.record.get("error", "")]


# ---------------------------------------------------------------------------------------
# Entry point


def _llm_scale(outcome: Outcome[Cell, RunResult, Grid]) -> float:
    sizes = [r.cell_size for r in outcome.results if r.cell.run.pattern]
    return sizes[0] / LLM_BYTES if sizes else (QUICK_LLM_BYTES / LLM_BYTES if outcome.settings.quick else 1.0)


def header(outcome: Outcome[Cell, RunResult, Grid]) -> list[str]:
    quick, n = outcome.settings.quick, outcome.settings.seeds
    scale = _llm_scale(outcome)
    windows = ", ".join(f"{k} {EXPERIMENTS[k].window(quick) / 1000:g} ms" for k in A2A)
    m = EXPERIMENTS["E1"].measure(quick)
    return [
        f"# LAPS reproduction (dcnsim) — {'quick' if quick else 'full'} mode, seeds 1..{n}, medians over seeds",
        "",
        "Paper: \"LAPS: Joint Load Balancing and Congestion Control on Unequal-cost Multi-path Data Center "
        "Networks\" (NAIC '25); experiments, checks and decisions: docs/reproductions/laps-paper.md. Setups, schemes and every deviation: experiments/laps/README.md.",
        "Fabrics: rail 8 x 8 GPUs (200G GPU links, 100G fabric; E1H, E2H: every link 100G, the paper's text) and "
        "dragonfly 9 x 4 x 4 (100G), 1 µs links, 1048 B packets (1000 B payload), PFC on, 4 MB per port, ACKs at "
        "strict priority, RED 400/1600 KB/0.8. Dragonfly: data moves one PFC class up at every switch entered over "
        "a global link (3 classes, equal-weight DRR; docs/models/pfc.md, \"Deadlock\"), E4's \"LAPS [no class "
        "change]\" without it.",
        "Schemes: LAPS = the headline, the artefact's rules (latency / T in the softmax, increase timer 2T, "
        "decrease timer 2 x the largest current latency, artefact probing, W = 2T x line rate); LAPS [text] = the "
        "ablation, the paper's literal text (softmax on raw µs latencies, one 2T gate, paper probing, no window); "
        "the paper alone does not fix these settings and points to its artefact. ECMP, LetFlow, CONGA, ConWeave = "
        "the artefact's Mellanox DCQCN (transport.dcqcn.variant = \"mellanox\", docs/models/dcqcn.md; unified "
        "window: the largest one-way BDP of any path) + go-back-N; E5 adds each on the DCQCN paper's rules "
        "(\"[DCQCN paper]\"); PLB = rate-based DCTCP (docs/models/dctcp.md, the same window) + go-back-N "
        "(re-path after 3 congested rounds with nothing in flight, or 12 in any case; none after an RTO; docs/models/plb.md); RPS = LAPS with beta = 0. ECMP, LetFlow and PLB route over the LAPS candidate paths, chosen "
        "hop by hop (lb_paths = \"candidates\", docs/models/ecmp.md); CONGA takes the least congested candidate path per "
        "flowlet (10 µs gap; DRE 200 µs, decay 0.2, 3 bits; docs/models/conga.md); ConWeave moves a flow to another candidate "
        "path when an RTT reply misses the path's unloaded RTT + 80 ns, the destination holding the new path's "
        "packets until the old path's TAIL (32 µs slack, 200 µs default wait; docs/models/conweave.md).",
        f"Reductions ({'quick' if quick else 'full'}): All2all loads "
        f"{', '.join(f'{x:g}' for x in (QUICK_LOADS if quick else LOADS))} (paper 0.50-1.00 in 11 steps); arrival "
        f"windows {windows} (paper 10 ms); E1 and E1H in a steady state: FCTs of the flows that start in "
        f"[{m[0] / 1000:g}, {m[1] / 1000:g}) ms only (warm-up, then the measurement window; the other flows load the "
        "fabric and every flow drains), by size bucket (dcnsim's: small < 100 KB, medium 100 KB - 10 MB, large >= "
        "10 MB); E2A-E4A = E2-E4 under the artefact's load definition (x1/100 on its percent-scale CDFs, x1.30 on "
        f"the dragonfly); full flow-size CDFs; LLM flows of {scale * 64:g} MB"
        + (" with the start window scaled alike" if scale != 1 else " (the paper's)")
        + f"; loss 1e-6 per switch-to-switch link crossed; runs capped at {CAP_US / 1e6:g} s simulated.",
        "Checks judge the headline LAPS; the ablation's rows are marked \"ablation [text]\". They are evaluated on "
        "medians over seeds; " + ("informational here (quick: toy sizes, 1 seed)."
                                  if quick else "docs/reproductions/laps-paper.md asks for ≥ 3 seeds."),
    ]


def block(key: str, outcome: Outcome[Cell, RunResult, Grid]) -> Optional[str]:
    g = outcome.grids.get(key)
    if g is None:
        return None
    return experiment_block(g, outcome.grids, outcome.settings.quick, _llm_scale(outcome))


def paper_checks(outcome: Outcome[Cell, RunResult, Grid]) -> list[tuple[str, str]]:
    return [("Checks B1-B9 (docs/reproductions/laps-paper.md): the headline LAPS (the artefact's rules), then the "
             "ablation LAPS [text] (the paper's literal rules)",
             checks_block(all_checks(outcome.grids, outcome.settings.quick))),
            ("Ours vs the paper (docs/reproductions/laps-paper.md)", headline_table(headlines(outcome.grids)))]
