"""LAPS: checks B1-B9 for the headline LAPS (the artefact's rules) and, marked as the
ablation, for the paper's literal text ("LAPS [text]"), and the paper's numbers beside ours
(docs/reproductions/laps-paper.md). B3 is also judged on the all-100G rail (E1H), B4 on the
artefact's load (E2A) and the all-100G rail (E2H), B5 on the artefact's load (E3A, E4A)."""

from __future__ import annotations

import math
from typing import Callable, Optional

from dcnsim.repro.checks import Check, finite, fmt, verdict
from dcnsim.repro.papers.laps.runs import (
    BASELINES,
    CONGA,
    CONWEAVE,
    ECMP,
    LAPS,
    LAPS_T,
    LAPS_VARIANTS,
    PAPER_A2A,
    LETFLOW,
    LLM_BYTES,
    LOSS,
    PLB,
    QUICK_LLM_BYTES,
    RPS,
    Grid,
    RunResult,
    avg_fct_ms,
    p99_fct_ms,
    growth,
    ideal_incast_ms,
)
from dcnsim.repro.tables import Headline, pad_rows


def _missing(g: Optional[Grid], key: str) -> str:
    return f"{key} not selected" if g is None else "no finished runs"


def e5_point(loss: float) -> str:
    return f"drop {loss:g}"


def checks_b1(g: Optional[Grid], laps: str, scale: float) -> list[Check]:
    """B1 with the paper's bands scaled by flow size / 64 MB (1 at full size)."""
    lo, hi = 155 * scale, 180 * scale
    names = (f"E5 {laps}: avg FCT in [{lo:.4g}, {hi:.4g}] ms; P99 ≤ 1.15 x avg",
             "E5 ECMP, LetFlow, CONGA, ConWeave: avg ≥ 2.5 x LAPS",
             "E5 PLB avg / LAPS avg in [1.1, 1.8]")
    if g is None:
        return [Check.with_id("B1", n, "-", "", "not run", "E5 not selected") for n in names]
    p = e5_point(0.0)
    la, lp = g.med(p, laps, avg_fct_ms), g.med(p, laps, p99_fct_ms)
    ok = None if not finite(la, lp) else (lo <= la <= hi and lp <= 1.15 * la)
    ideal = ideal_incast_ms(63, round(LLM_BYTES * scale))
    out = [Check.with_id("B1", names[0], f"avg {fmt(la, '.2f')}, P99 {fmt(lp, '.2f')} ms (ideal {ideal:.2f})",
                 f"paper {162 * scale:.4g} / {175 * scale:.4g} ms", verdict(ok))]
    ratios = {b: g.med(p, b, avg_fct_ms) / la if finite(la) and la > 0 else math.nan
              for b in (ECMP, LETFLOW, CONGA, CONWEAVE)}
    ok = None if not all(finite(x) for x in ratios.values()) else all(x >= 2.5 for x in ratios.values())
    out.append(Check.with_id("B1", names[1], ", ".join(f"{b} {fmt(x, '.2f')}x" for b, x in ratios.items()),
                     "≥ 2.5x (paper 3.3-3.5x)", verdict(ok)))
    r = g.med(p, PLB, avg_fct_ms) / la if finite(la) and la > 0 else math.nan
    out.append(Check.with_id("B1", names[2], f"{fmt(r, '.2f')}x", "1.1-1.8x (paper 1.30x)",
                     verdict(None if not finite(r) else 1.1 <= r <= 1.8)))
    return out


def _change(g: Grid, scheme: str, metric: Callable[[RunResult], float]) -> float:
    a, b = g.med(e5_point(0.0), scheme, metric), g.med(e5_point(LOSS), scheme, metric)
    return b / a - 1 if finite(a, b) and a > 0 else math.nan


def checks_b2(g: Optional[Grid], laps: str) -> list[Check]:
    names = (f"E5 {laps} with 1e-6 loss: avg and P99 change", "E5 go-back-N baselines with loss: avg change")
    if g is None:
        return [Check.with_id("B2", n, "-", "", "not run", "E5 not selected") for n in names]
    ca, cp = _change(g, laps, avg_fct_ms), _change(g, laps, p99_fct_ms)
    ok = None if not finite(ca, cp) else (abs(ca) < 0.03 and abs(cp) < 0.03)
    out = [Check.with_id("B2", names[0], f"avg {ca * 100:+.2f} %, P99 {cp * 100:+.2f} %" if finite(ca, cp) else "n/a",
                 "< 3 % each (paper +0 %)", verdict(ok))]
    ch = {b: _change(g, b, avg_fct_ms) for b in BASELINES}
    ok = None if not all(finite(x) for x in ch.values()) else (
        all(x >= 0 for x in ch.values()) and any(x > 0.05 for x in ch.values()))
    out.append(Check.with_id("B2", names[1], ", ".join(f"{b} {x * 100:+.1f} %" for b, x in ch.items()),
                     "all ≥ 0 %, one > 5 % (paper ECMP +2.8, PLB +3.8, ConWeave +8.3 %)", verdict(ok)))
    return out


def quiet_note(g: Grid, schemes: tuple[str, ...], loads: Optional[list[float]] = None) -> str:
    """Which cells (load, scheme) a verdict rests on that had no congestion signal (median
    ECN marks and PFC pauses both 0); empty when none."""
    loads = g.loads() if loads is None else loads
    cells = [(x, s) for x in loads for s in schemes if g.runs(g.point_of_load(x), s)]
    quiet = [f"{x:.2f} {s}" for x, s in cells if g.quiet(g.point_of_load(x), s)]
    if not quiet:
        return ""
    return (f"rests on {len(quiet)} of {len(cells)} cells with no congestion signal (0 ECN marks, 0 PFC pauses): "
            + ", ".join(quiet))


def _why(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def checks_b3(g: Optional[Grid], laps: str, key: str = "E1") -> list[Check]:
    names = (f"{key} {laps}: lowest avg FCT at every load", f"{key} at 0.8: ECMP / LAPS and PLB / LAPS avg FCT",
             f"{key} growth of avg FCT 0.5 -> 1.0: LAPS smallest and < 0.5 x ECMP's")
    if g is None:
        return [Check.with_id("B3", n, "-", "", "not run", f"{key} not selected") for n in names]
    quiet = quiet_note(g, (laps,) + BASELINES)
    quiet_08 = quiet_note(g, (laps, ECMP, PLB), [x for x in g.loads() if x == 0.8])
    quiet_gr = quiet_note(g, (laps,) + BASELINES, [x for x in g.loads() if x in (0.5, 1.0)])
    la = g.by_load(laps, avg_fct_ms)
    base = {b: g.by_load(b, avg_fct_ms) for b in BASELINES}
    lost = [x for x in g.loads() if not all(finite(la[x], base[b][x]) and la[x] < base[b][x] for b in BASELINES)]
    ok = None if not g.loads() else not lost
    out = [Check.with_id("B3", names[0], "every load" if not lost else "not at " + ", ".join(f"{x:.2f}" for x in lost),
                 "every load 0.5-1.0", verdict(ok),
                 _why("" if not lost else "best at those loads: " + ", ".join(
                     f"{x:.2f} {min(BASELINES, key=lambda b: base[b][x] if finite(base[b][x]) else math.inf)}"
                     for x in lost), quiet if ok is not None else ""))]
    r_e = base[ECMP].get(0.8, math.nan) / la.get(0.8, math.nan) if finite(la.get(0.8, math.nan)) else math.nan
    r_p = base[PLB].get(0.8, math.nan) / la.get(0.8, math.nan) if finite(la.get(0.8, math.nan)) else math.nan
    ok = None if not finite(r_e, r_p) else (r_e >= 2.0 and r_p >= 1.2)
    out.append(Check.with_id("B3", names[1], f"ECMP {fmt(r_e, '.2f')}x, PLB {fmt(r_p, '.2f')}x",
                     "ECMP ≥ 2.0x (paper 3.3x), PLB ≥ 1.2x (paper 1.6x)", verdict(ok), quiet_08 if ok is not None else ""))
    gr = {s: growth(d) for s, d in [(laps, la)] + list(base.items())}
    ok = None if not all(finite(x) for x in gr.values()) else (
        all(gr[laps] < gr[b] for b in BASELINES) and gr[laps] < 0.5 * gr[ECMP])
    out.append(Check.with_id("B3", names[2], ", ".join(f"{s} {fmt(x, '+.3f')}" for s, x in gr.items()) + " ms",
                     "LAPS smallest, < 0.5 x ECMP (paper +0.64 vs +4.6 ms)", verdict(ok), quiet_gr if ok is not None else ""))
    return out


def checks_b4(g: Optional[Grid], laps: str, key: str = "E2") -> list[Check]:
    names = (f"{key} at 0.8: {laps} P99 lowest and ≤ 0.5 x every baseline's",
             f"{key} at 0.8: {laps} P99 / ideal FCT of the P99-size flow")
    if g is None or 0.8 not in g.loads():
        return [Check.with_id("B4", n, "-", "", "not run", _missing(g, key) if g is None else "no 0.8 point")
                for n in names]
    p = g.point_of_load(0.8)
    lp = g.med(p, laps, p99_fct_ms)
    bp = {b: g.med(p, b, p99_fct_ms) for b in BASELINES}
    ok = None if not finite(lp, *bp.values()) else all(lp <= 0.5 * x for x in bp.values())
    out = [Check.with_id("B4", names[0], f"{laps} {fmt(lp, '.3f')} ms; " + ", ".join(
        f"{b} {fmt(x, '.3f')} ({fmt(lp / x if finite(x) and x else math.nan, '.2f')}x)" for b, x in bp.items()),
        "≤ 0.5x (paper 0.12 vs 0.48-0.85 ms, ≤ 0.25x)", verdict(ok))]
    ideal = g.med(p, laps, lambda r: r.p99_size_ideal_us()) / 1e3
    r = lp / ideal if finite(lp, ideal) and ideal > 0 else math.nan
    out.append(Check.with_id("B4", names[1], f"{fmt(r, '.2f')}x (ideal {fmt(ideal, '.3f')} ms)", "≤ 2x (paper 0.12 ms)",
                     verdict(None if not finite(r) else r <= 2.0)))
    return out


def checks_b5(grids: dict[str, Grid], laps: str, keys: tuple[str, ...] = ("E3", "E4")) -> list[Check]:
    out = []
    for key in keys:
        g = grids.get(key)
        name = f"{key} {laps}: lowest avg and P99 at all but ≤ 1 load; lowest mean over loads"
        if g is None:
            out.append(Check.with_id("B5", name, "-", "", "not run", f"{key} not selected"))
            continue
        loads = g.loads()
        wins = 0
        for x in loads:
            p = g.point_of_load(x)
            la, lp = g.med(p, laps, avg_fct_ms), g.med(p, laps, p99_fct_ms)
            if all(finite(la, lp, g.med(p, b, avg_fct_ms), g.med(p, b, p99_fct_ms)) and la < g.med(p, b, avg_fct_ms)
                   and lp < g.med(p, b, p99_fct_ms) for b in BASELINES):
                wins += 1
        mean = {s: sum(g.by_load(s, avg_fct_ms).values()) / len(loads) if loads else math.nan for s in (laps,) + BASELINES}
        ok_mean = finite(*mean.values()) and all(mean[laps] < mean[b] for b in BASELINES)
        complete = bool(loads) and all(finite(g.med(g.point_of_load(x), s, avg_fct_ms)) for x in loads
                                       for s in (laps,) + BASELINES)
        ok = None if not complete else (wins >= len(loads) - 1 and ok_mean)
        out.append(Check.with_id("B5", name, f"lowest at {wins}/{len(loads)} loads; mean avg FCT " + ", ".join(
            f"{s} {fmt(x, '.3f')}" for s, x in mean.items()) + " ms", "≥ 10 of 11 (ours: all but one of "
            f"{len(loads)}); lowest mean", verdict(ok),
            "" if complete or not loads else f"{key} incomplete: not every scheme has runs at every load"))
    return out


def checks_b6(grids: dict[str, Grid]) -> list[Check]:
    ratios = []
    for key in PAPER_A2A:
        g = grids.get(key)
        if g is None:
            continue
        for x in g.loads():
            p = g.point_of_load(x)
            a, b = g.med(p, LETFLOW, avg_fct_ms), g.med(p, ECMP, avg_fct_ms)
            if finite(a, b) and b > 0:
                ratios.append((a / b, f"{key}@{x:.2f}"))
    g5 = grids.get("E5")
    if g5 is not None:
        a, b = g5.med(e5_point(0.0), LETFLOW, avg_fct_ms), g5.med(e5_point(0.0), ECMP, avg_fct_ms)
        if finite(a, b) and b > 0:
            ratios.append((a / b, "E5"))
    out = []
    if ratios:
        lo, hi = min(ratios), max(ratios)
        ok = all(0.75 <= r <= 1.25 for r, _ in ratios)
        g1 = grids.get("E1")
        out.append(Check.with_id("B6", "LetFlow / ECMP avg FCT, every point of E1-E5", f"{lo[0]:.2f} ({lo[1]}) to "
                         f"{hi[0]:.2f} ({hi[1]})", "within 0.75-1.25", verdict(ok),
                         quiet_note(g1, (LETFLOW, ECMP)).replace("rests on", "E1 rests on") if g1 else ""))
    else:
        out.append(Check.with_id("B6", "LetFlow / ECMP avg FCT", "-", "within 0.75-1.25", "not run", "no E1-E5 runs"))
    best = []
    g1 = grids.get("E1")
    if g1 is not None:
        for x in g1.loads():
            p = g1.point_of_load(x)
            vals = {b: g1.med(p, b, avg_fct_ms) for b in BASELINES}
            best.append((f"E1@{x:.2f}", min(vals, key=lambda b: vals[b] if finite(vals[b]) else math.inf)))
    if g5 is not None:
        vals = {b: g5.med(e5_point(0.0), b, avg_fct_ms) for b in BASELINES}
        best.append(("E5", min(vals, key=lambda b: vals[b] if finite(vals[b]) else math.inf)))
    if best:
        not_plb = [f"{w}: {b}" for w, b in best if b != PLB]
        out.append(Check.with_id("B6", "PLB the best baseline (avg FCT) in E1 (every load) and E5",
                         "everywhere" if not not_plb else "not at " + ", ".join(not_plb),
                         "PLB best of ECMP, LetFlow, CONGA, ConWeave, PLB",
                         verdict(not not_plb),
                         quiet_note(g1, BASELINES).replace("rests on", "E1 rests on") if g1 else ""))
    else:
        out.append(Check.with_id("B6", "PLB the best baseline in E1 and E5", "-", "PLB best", "not run", "E1, E5 not selected"))
    return out


def _one(g: Grid, point: str, scheme: str, metric: Callable[[RunResult], float]) -> float:
    return g.med(point, scheme, metric)


def checks_b7_b9(g6: Optional[Grid], g5: Optional[Grid], laps: str) -> list[Check]:
    out = []
    if g6 is None:
        return [Check.with_id(c, n, "-", "", "not run", "E6 not selected") for c, n in (
            ("B7", "AllScatter reordering"), ("B8", "AllReduce OOO buffer"), ("B9", "rate decreases"))]
    rr = _one(g6, "allscatter", laps, lambda r: r.reordered_ratio())
    oo = _one(g6, "allscatter", laps, lambda r: r.stat("ooo_buffer_mean_kb"))
    rr0 = _one(g6, "allscatter", RPS, lambda r: r.reordered_ratio())
    oo0 = _one(g6, "allscatter", RPS, lambda r: r.stat("ooo_buffer_mean_kb"))
    ok = None if not finite(rr, oo, rr0, oo0) else (rr <= 0.02 and oo <= 1.0 and rr < rr0 and oo < oo0)
    why = ""
    if ok is False:
        passing = []
        for s in g6.schemes:
            a = _one(g6, "allscatter", s, lambda r: r.reordered_ratio())
            b = _one(g6, "allscatter", s, lambda r: r.stat("ooo_buffer_mean_kb"))
            if finite(a, b) and a <= 0.02 and b <= 1.0:
                passing.append(s)
        why = ("variants that meet it: " + ", ".join(passing)) if passing else "no variant run meets it"
    out.append(Check.with_id("B7", f"E6 AllScatter {laps}: reordered ratio, mean OOO; vs RPS",
                     f"{fmt(rr * 100, '.2f')} %, {fmt(oo, '.3f')} KB; RPS {fmt(rr0 * 100, '.2f')} %, {fmt(oo0, '.3f')} KB",
                     "≤ 2 % and ≤ 1 KB, below RPS (paper 0.2 %, 0.003 KB)", verdict(ok), why))
    mo = _one(g6, "allreduce", laps, lambda r: r.stat("ooo_buffer_mean_kb"))
    pa = _one(g6, "allreduce", laps, lambda r: r.stat("ooo_buffer_above_30kb"))
    ok = None if not finite(mo, pa) else (mo < 16 and pa < 0.04)
    out.append(Check.with_id("B8", f"E6 AllReduce {laps}: mean OOO buffer, P(> 30 KB)", f"{fmt(mo, '.2f')} KB, "
                     f"{fmt(pa * 100, '.1f')} %", "< 16 KB and < 4 %", verdict(ok)))
    dec_inc = _one(g6, "allreduce", laps, lambda r: r.stat("laps_rate_decreases"))
    dec_sc = _one(g6, "allscatter", laps, lambda r: r.stat("laps_rate_decreases") / max(1, r.finished()[1]))
    ok = None if not finite(dec_inc, dec_sc) else (dec_inc > 0 and dec_sc < 1)
    out.append(Check.with_id("B9", f"{laps} rate decreases: AllReduce total; AllScatter per flow",
                     f"{fmt(dec_inc, '.0f')}; {fmt(dec_sc, '.2f')}", "> 0; < 1 per flow", verdict(ok)))
    return out


def all_checks(grids: dict[str, Grid], quick: bool) -> list[tuple[str, list[Check]]]:
    """(LAPS variant, its checks B1-B9): the headline LAPS (the artefact's rules), then the
    ablation LAPS [text] (the paper's literal rules). B3 is judged on E1 and E1H, B4 on E2,
    E2A and E2H, B5 on E3/E4 and E3A/E4A (one row each)."""
    out = []
    g5 = grids.get("E5")
    scale = (g5.results[0].cell_size / LLM_BYTES) if g5 is not None and g5.results else (
        QUICK_LLM_BYTES / LLM_BYTES if quick else 1.0)
    for laps in LAPS_VARIANTS:
        cs = checks_b1(g5, laps, scale) + checks_b2(g5, laps)
        for key in ("E1", "E1H"):
            if key == "E1" or key in grids:
                cs += checks_b3(grids.get(key), laps, key)
        for key in ("E2", "E2A", "E2H"):
            if key == "E2" or key in grids:
                cs += checks_b4(grids.get(key), laps, key)
        cs += checks_b5(grids, laps)
        if "E3A" in grids or "E4A" in grids:
            cs += checks_b5(grids, laps, tuple(k for k in ("E3A", "E4A") if k in grids))
        if laps == LAPS:
            cs += checks_b6(grids)
        cs += checks_b7_b9(grids.get("E6"), g5, laps)
        out.append((laps, cs))
    return out


def checks_block(variant_checks: list[tuple[str, list[Check]]]) -> str:
    rows = [["check", "LAPS", "what", "ours", "target", "status"]]
    for laps, cs in variant_checks:
        for c in cs:
            rows.append([c.id, "headline" if laps == LAPS else "ablation [text]", c.name, c.ours, c.target,
                         c.status + (f": {c.why}" if c.why else "")])
    return "\n".join(pad_rows(rows))


# ---------------------------------------------------------------------------------------
# Ours vs the paper (docs/reproductions/laps-paper.md)

PAPER_E5 = {  # Table 1 (ms): (avg, P99) at drop 0 and 1e-6
    ECMP: ((564, 617), (580, 645)), LETFLOW: ((553, 589), (578, 633)), CONGA: ((540, 628), (547, 658)),
    CONWEAVE: ((563, 659), (610, 757)), PLB: ((211, 235), (219, 240)), LAPS: ((162, 175), (162, 175)),
}
PAPER_E1_RATIO = {ECMP: 3.3, LETFLOW: 2.8, PLB: 1.6, CONWEAVE: 4.8, CONGA: 6.1}
PAPER_E1_GROWTH = {LAPS: 0.64, ECMP: 4.6, LETFLOW: 4.3, PLB: 1.1, CONWEAVE: 5.2, CONGA: 5.6}
PAPER_E2_P99 = {LAPS: 0.12, ECMP: 0.67, LETFLOW: 0.70, PLB: 0.48, CONWEAVE: 0.80, CONGA: 0.85}


def headlines(grids: dict[str, Grid]) -> list[Headline]:
    out = []
    g = grids.get("E1")
    for s in (ECMP, LETFLOW, PLB, CONWEAVE, CONGA):  # the paper's order (LAPS paper §4.2)
        ours = "n/a"
        if g is not None and 0.8 in g.loads():
            p = g.point_of_load(0.8)
            vals = [g.med(p, s, avg_fct_ms) / g.med(p, lv, avg_fct_ms) for lv in LAPS_VARIANTS]
            ours = " / ".join(f"{fmt(v, '.2f')}x" for v in vals) + " (LAPS / LAPS [text])"
        out.append(Headline("E1", f"Rail DM 0.8: {s} avg FCT / LAPS", f"{PAPER_E1_RATIO[s]}x", ours))
    for s, paper in PAPER_E1_GROWTH.items():
        ours = "n/a"
        if g is not None:
            ours = f"{fmt(growth(g.by_load(s, avg_fct_ms)), '+.2f')} ms"
            if s == LAPS:
                ours += f" ([text] {fmt(growth(g.by_load(LAPS_T, avg_fct_ms)), '+.2f')} ms)"
        out.append(Headline("E1", f"Rail DM: {s} avg FCT growth 0.5 -> 1.0", f"+{paper} ms", ours))
    g = grids.get("E2")
    for s, paper in PAPER_E2_P99.items():
        ours = "n/a"
        if g is not None and 0.8 in g.loads():
            ours = f"{fmt(g.med(g.point_of_load(0.8), s, p99_fct_ms), '.3f')} ms"
            if s == LAPS:
                ours += f" ([text] {fmt(g.med(g.point_of_load(0.8), LAPS_T, p99_fct_ms), '.3f')} ms)"
        out.append(Headline("E2", f"Rail STR 0.8: {s} P99 FCT", f"{paper} ms", ours))
    g = grids.get("E5")
    scale = g.results[0].cell_size / LLM_BYTES if g is not None and g.results else 1.0
    for s, ((a0, p0), (a1, p1)) in PAPER_E5.items():
        ours = "n/a"
        if g is not None:
            v = [g.med(e5_point(x), s, m) / scale for x in (0.0, LOSS) for m in (avg_fct_ms, p99_fct_ms)]
            ours = " / ".join(fmt(x, ".0f") for x in v)
            if s == LAPS:
                va = [g.med(e5_point(x), LAPS_T, m) / scale for x in (0.0, LOSS) for m in (avg_fct_ms, p99_fct_ms)]
                ours += " ([text] " + " / ".join(fmt(x, ".0f") for x in va) + ")"
        out.append(Headline("T1", f"AllReduce {s}: avg / P99 drop 0, avg / P99 drop 1e-6 (ms"
                            + (f", x{1 / scale:g} from {scale * 64:g} MB" if scale != 1 else "") + ")",
                            f"{a0} / {p0} / {a1} / {p1}", ours))
    g = grids.get("E6")
    if g is not None:
        rr = g.med("allscatter", LAPS, lambda r: r.reordered_ratio())
        oo = g.med("allscatter", LAPS, lambda r: r.stat("ooo_buffer_mean_kb"))
        rra = g.med("allscatter", LAPS_T, lambda r: r.reordered_ratio())
        ooa = g.med("allscatter", LAPS_T, lambda r: r.stat("ooo_buffer_mean_kb"))
        out.append(Headline("F9", "AllScatter: reordered packets, mean OOO buffer", "0.2 %, 0.003 KB",
                            f"{fmt(rr * 100, '.2f')} %, {fmt(oo, '.3f')} KB ([text] {fmt(rra * 100, '.2f')} %, "
                            f"{fmt(ooa, '.3f')} KB)"))
        mo = g.med("allreduce", LAPS, lambda r: r.stat("ooo_buffer_mean_kb"))
        pa = g.med("allreduce", LAPS, lambda r: r.stat("ooo_buffer_above_30kb"))
        out.append(Headline("F9", "AllReduce: mean OOO buffer, P(> 30 KB)", "< 16 KB, < 4 %",
                            f"{fmt(mo, '.2f')} KB, {fmt(pa * 100, '.1f')} %"))
    else:
        out.append(Headline("F9", "AllScatter / AllReduce reordering", "0.2 % / < 16 KB", "n/a"))
    out.append(Headline("T2", "FPGA resources (U280)", "33,808 LUT (2.51 %)", "not a simulation: not reproduced"))
    return out
