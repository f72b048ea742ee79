"""SMaRTT: the scenario checks and the paper's headline numbers beside ours
(docs/reproductions/smartt-paper.md)."""

from __future__ import annotations

import math
from typing import Callable, Optional

from dcnsim.repro.checks import Check, verdict
from dcnsim.repro.papers.smartt.runs import Fabric, Grid
from dcnsim.repro.units import size_bytes
from dcnsim.repro.tables import Headline


def num(x: float, spec: str = ".1f") -> str:
    if x is None or math.isnan(x):
        return "n/a"
    return "unfinished" if math.isinf(x) else format(x, spec)


def _pct(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    return "unfinished" if math.isinf(x) else f"{100 * x:.1f} %"


def _status(ok: Optional[bool], why: str = "") -> str:
    return verdict(ok, f"n/a ({why})" if why else "n/a")


def _finite(*xs: float) -> bool:
    """Known values: not NaN (a failed run). inf (an unfinished run) is known: slower
    than any finished one."""
    return all(x is not None and not math.isnan(x) for x in xs)


def _trim_ratio(g: Grid, point: str) -> float:
    eqds, smartt = g.mean(point, "EQDS", "trims"), g.mean(point, "SMaRTT", "trims")
    if not _finite(eqds, smartt):
        return math.nan
    if smartt == 0:
        return math.inf if eqds > 0 else math.nan
    return eqds / smartt


def _ratio_text(x: float) -> str:
    return "∞ (SMaRTT 0)" if x == math.inf else (f"{x:.1f}x" if math.isfinite(x) else "n/a")


def checks_e1(g: Grid) -> list[Check]:
    p = g.points[0]
    mx = {v: g.mean(p, v, "max_fct_us") for v in ("SMaRTT", "Swift", "MPRDMA", "EQDS")}
    sp = {v: g.mean(p, v, "spread") for v in ("SMaRTT", "Swift")}
    others = ("Swift", "MPRDMA", "EQDS")
    out = [Check("A3 SMaRTT max FCT < Swift's, MPRDMA's, EQDS's",
                 " / ".join(f"{v} {num(mx[v])}" for v in mx) + " µs", "SMaRTT lowest",
                 _status(all(mx["SMaRTT"] < mx[o] for o in others) if _finite(*mx.values()) else None,
                         g.why_missing(list(mx)))),
           Check("A3 SMaRTT spread (max−min)/min < Swift's", f"{_pct(sp['SMaRTT'])} vs {_pct(sp['Swift'])}",
                 "SMaRTT lower", _status(sp["SMaRTT"] < sp["Swift"] if _finite(*sp.values()) else None,
                                          g.why_missing(["SMaRTT", "Swift"]))),
           Check("A3 Swift spread ≥ 30 %", _pct(sp["Swift"]), "≥ 30 % (paper 65 %)",
                 _status(sp["Swift"] >= 0.30 if _finite(sp["Swift"]) else None, g.why_missing(["Swift"])))]
    r = _trim_ratio(g, p)
    out.append(Check("A5 EQDS trims ≥ 10 × SMaRTT's (E1)",
                     f"{num(g.mean(p, 'EQDS', 'trims'), '.0f')} vs {num(g.mean(p, 'SMaRTT', 'trims'), '.0f')} "
                     f"= {_ratio_text(r)}", "≥ 10x (paper up to 155x)",
                     _status(r >= 10 if not math.isnan(r) else None, g.why_missing(["EQDS", "SMaRTT"]))))
    return out


def checks_e14(g: Grid) -> list[Check]:
    p = g.points[0]
    comp = {v: g.mean(p, v, "completion_us") for v in ("SMaRTT", "Swift", "MPRDMA")}
    best = min(comp["Swift"], comp["MPRDMA"]) if _finite(comp["Swift"], comp["MPRDMA"]) else math.nan
    gain = 1 - comp["SMaRTT"] / best if _finite(comp["SMaRTT"], best) else math.nan
    large = g.mean(p, "SMaRTT", "large_fct_us")
    nofi = g.mean(p, "SMaRTT-noFI", "large_fct_us")
    ideal = g.mean(p, "SMaRTT", "ideal_us")
    r = _trim_ratio(g, p)
    return [
        Check("A4 SMaRTT completion ≥ 15 % below the best of Swift/MPRDMA",
              " / ".join(f"{v} {num(comp[v])}" for v in comp) + f" µs: {_pct(gain)} lower", "≥ 15 % (paper ≈ 30 %)",
              _status(gain >= 0.15 if not math.isnan(gain) else None, g.why_missing(list(comp)))),
        Check("A4 64 MiB flow ≤ 1.15 × ideal_reclaim", f"{num(large)} µs = {num(large / ideal, '.3f')} × "
              f"{num(ideal)} µs", "≤ 1.15",
              _status(large <= 1.15 * ideal if _finite(large, ideal) else None, g.why_missing(["SMaRTT"]))),
        Check("A4 FastIncrease off: 64 MiB flow ≥ 10 % later", f"{num(nofi)} vs {num(large)} µs "
              f"(+{_pct(nofi / large - 1) if _finite(nofi, large) else 'n/a'})", "≥ +10 %",
              _status(nofi >= 1.10 * large if _finite(nofi, large) else None,
                      g.why_missing(["SMaRTT", "SMaRTT-noFI"]))),
        Check("A5 EQDS trims ≥ 10 × SMaRTT's (E14)",
              f"{num(g.mean(p, 'EQDS', 'trims'), '.0f')} vs {num(g.mean(p, 'SMaRTT', 'trims'), '.0f')} "
              f"= {_ratio_text(r)}", "≥ 10x (paper up to 155x)",
              _status(r >= 10 if not math.isnan(r) else None, g.why_missing(["EQDS", "SMaRTT"]))),
    ]


def checks_e11(g: Grid) -> list[Check]:
    """A10: with OPS the no-op has a higher mean aggregate window and a lower max FCT than
    the decrease; with REPS the differences are ≥ 0 (no-op − decrease for the window,
    decrease − no-op for the max FCT)."""
    p = g.points[0]
    out = []
    for lb, strict in (("OPS", True), ("REPS", False)):
        noop = {m: g.mean(p, f"{lb} noop", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        dec = {m: g.mean(p, f"{lb} decrease", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        ok: Optional[bool] = None
        if _finite(*noop.values(), *dec.values()):
            if strict:
                ok = noop["agg_cwnd_mb"] > dec["agg_cwnd_mb"] and noop["max_fct_us"] < dec["max_fct_us"]
            else:
                ok = noop["agg_cwnd_mb"] - dec["agg_cwnd_mb"] >= 0 and dec["max_fct_us"] - noop["max_fct_us"] >= 0
        out.append(Check(
            f"A10 {lb}: no-op {'better than' if strict else 'at least as good as'} decrease (window, max FCT)",
            f"window {num(noop['agg_cwnd_mb'], '.2f')} vs {num(dec['agg_cwnd_mb'], '.2f')} MB, max FCT "
            f"{num(noop['max_fct_us'])} vs {num(dec['max_fct_us'])} µs",
            "no-op higher / lower" if strict else "differences ≥ 0",
            _status(ok, g.why_missing([f"{lb} noop", f"{lb} decrease"]))))
    return out


def _incast_size(point: str) -> int:
    return size_bytes(point.split("x", 1)[1])


def checks_e12(g: Grid) -> list[Check]:
    bdp = Fabric.of(g.results[0].cell.spec).bdp_bytes if g.results else math.nan
    rel = {(p, v): g.mean(p, v, "rel_perf") for p in g.points for v in g.variants}
    pairs = [(rel[(p, "EQDS")], rel[(p, "SMaRTT")]) for p in g.points
             if (p, "EQDS") in rel and (p, "SMaRTT") in rel and _finite(rel[(p, "EQDS")], rel[(p, "SMaRTT")])]
    ge = sum(e >= s for e, s in pairs)
    out = [Check("A11 EQDS relative performance ≥ SMaRTT's in most cells", f"{ge}/{len(pairs)} cells", "> half",
                 _status(ge > len(pairs) / 2 if pairs else None, g.why_missing(["EQDS", "SMaRTT"])))]
    edge = [p for p in g.points if _incast_size(p) >= 8 * bdp or _incast_size(p) <= 0.25 * bdp]
    vals = [(p, rel.get((p, "SMaRTT"), math.nan)) for p in edge]
    known = [(p, v) for p, v in vals if math.isfinite(v)]
    low = [f"{p} {v:.2f}" for p, v in known if v < 0.9]
    out.append(Check("A11 SMaRTT ≥ 0.9 of ideal for sizes ≥ 8 BDP and ≤ 0.25 BDP",
                     f"{len(known) - len(low)}/{len(known)} cells" + (f"; below: {', '.join(low)}" if low else "")
                     + f" (BDP {bdp / 1e6:.3f} MB)", "all ≥ 0.9",
                     _status(not low if known and len(known) == len(vals) else None, g.why_missing(["SMaRTT"]))))
    smartt = [(p, rel[(p, "SMaRTT")]) for p in g.points if math.isfinite(rel.get((p, "SMaRTT"), math.nan))]
    if smartt:
        worst_p, worst = min(smartt, key=lambda t: t[1])
        frac = _incast_size(worst_p) / bdp
        out.append(Check("A11 worst SMaRTT cell at ≈ 0.3–1 BDP", f"{worst_p}: {worst:.2f} (size {frac:.2f} BDP)",
                         "0.3–1 BDP", _status(0.3 <= frac <= 1.0)))
    else:
        out.append(Check("A11 worst SMaRTT cell at ≈ 0.3–1 BDP", "n/a", "0.3–1 BDP",
                         _status(None, g.why_missing(["SMaRTT"]))))
    roce = [r for r in g.results if r.cell.variant == "RoCEv2" and not r.error]
    if roce:
        trims, drops = sum(r.metrics["trims"] for r in roce), sum(r.metrics["drops"] for r in roce)
        out.append(Check("A11 lossless RoCEv2 shows no trims or drops",
                         f"{trims:.0f} trims, {drops:.0f} drops over {len(roce)} runs", "0, 0",
                         _status(trims == 0 and drops == 0)))
    else:
        out.append(Check("A11 lossless RoCEv2 shows no trims or drops", "n/a", "0, 0",
                         _status(None, g.why_missing(["RoCEv2"]))))
    return out


def checks_e15(g: Grid) -> list[Check]:
    within, best, texts = [], [], []
    for p in g.points:
        s, ideal = g.mean(p, "SMaRTT", "completion_us"), g.mean(p, "SMaRTT", "ideal_us")
        others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
        if _finite(s, ideal):
            within.append((p, s / ideal))
        if _finite(s, *others):
            best.append((p, s <= min(others)))
    bad = [f"{p} {x:.3f}" for p, x in within if x > 1.10]
    out = [Check("A6 SMaRTT ≤ 1.10 × ideal", f"{len(within) - len(bad)}/{len(within)} cells"
                 + (f"; above: {', '.join(bad)}" if bad else "")
                 + (f"; worst {max(x for _, x in within):.3f}" if within else ""), "≤ 1.10 (paper ≤ 1.06)",
                 _status(not bad if within and len(within) == len(g.points) else None, g.why_missing(["SMaRTT"])))]
    lose = [p for p, ok in best if not ok]
    out.append(Check("A6 SMaRTT ≤ Swift and ≤ MPRDMA", f"{len(best) - len(lose)}/{len(best)} cells"
                     + (f"; not at: {', '.join(lose)}" if lose else ""), "every cell",
                     _status(not lose if best and len(best) == len(g.points) else None,
                             g.why_missing(["SMaRTT", "Swift", "MPRDMA"]))))
    return out


CHECKS: dict[str, Callable[[Grid], list[Check]]] = {
    "E1": checks_e1, "E14": checks_e14, "E11": checks_e11, "E12": checks_e12, "E15": checks_e15,
}


def headlines(grids: dict[str, Grid]) -> list[Headline]:
    """The paper's headline numbers R2-R6 (docs/reproductions/smartt-paper.md) beside ours."""
    out = []
    g = grids.get("E1")
    sp = g.mean(g.points[0], "Swift", "spread") if g else math.nan
    out.append(Headline("R2", "Swift, 2 MiB permutation, 8:1: slowest vs fastest flow (E1)", "65 % longer", _pct(sp)))
    g = grids.get("E14")
    gain, trims = math.nan, math.nan
    if g:
        p = g.points[0]
        s = g.mean(p, "SMaRTT", "completion_us")
        others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
        if _finite(s, *others):
            gain = 1 - s / min(others)
        trims = _trim_ratio(g, p)
    out.append(Headline("R3", "32 MiB + one 64 MiB: SMaRTT completion vs best other sender-based (E14)",
                        "almost 30 % better", f"{_pct(gain)} better" if math.isfinite(gain) else "n/a"))
    e1_trims = _trim_ratio(grids["E1"], grids["E1"].points[0]) if "E1" in grids else math.nan
    out.append(Headline("R4", "EQDS trims / SMaRTT trims (E14; E1)", "up to 155x",
                        f"{_ratio_text(trims)}; {_ratio_text(e1_trims)}"))
    g = grids.get("E15")
    r5, r6 = math.nan, math.nan
    if g:
        behind = [g.mean(p, "SMaRTT", "completion_us") / g.mean(p, "SMaRTT", "ideal_us") - 1 for p in g.points]
        behind = [x for x in behind if not math.isnan(x)]
        r5 = max(behind) if behind else math.nan
        better = []
        for p in g.points:
            s = g.mean(p, "SMaRTT", "completion_us")
            others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
            if _finite(s, *others) and math.isfinite(min(others)):
                better.append(1 - s / min(others))
        r6 = max(better) if better else math.nan
    out.append(Headline("R5", "all-to-all: SMaRTT behind ideal, worst cell (E15)", "≤ 6 %", _pct(r5)))
    out.append(Headline("R6", "all-to-all: SMaRTT vs best other sender-based, best cell (E15)", "up to 20 % better",
                        f"{_pct(r6)} better" if math.isfinite(r6) else "n/a"))
    return out
