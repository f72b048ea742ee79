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
                         _status(trims == 0 and drops == 0 if _finite(trims, drops) else None,
                                 g.why_missing(["RoCEv2"]))))
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


def _lowest(values: dict[str, float], who: str, slack: float = 1.0) -> Optional[bool]:
    """Whether ``who``'s value is at most ``slack`` × every other's; None if one is unknown."""
    if not _finite(*values.values()):
        return None
    return all(values[who] <= slack * v for k, v in values.items() if k != who)


def checks_e3(g: Grid) -> list[Check]:
    """F3 (Fig. 3, our bounds): REPS's max FCT within 5 % of the best of the others (OPS
    may tie it on a non-blocking tree); single-path ECMP and PLB at least 20 % slower."""
    p = g.points[0]
    mx = {v: g.mean(p, v, "max_fct_us") for v in ("ECMP", "PLB", "OPS", "REPS")}
    slow = [mx[v] >= 1.2 * mx["REPS"] for v in ("ECMP", "PLB")] if _finite(*mx.values()) else None
    return [
        Check("F3 REPS max FCT ≤ 1.05 × every other balancer's", " / ".join(f"{v} {num(mx[v])}" for v in mx) + " µs",
              "REPS lowest (5 % slack)", _status(_lowest(mx, "REPS", 1.05), g.why_missing(list(mx)))),
        Check("F3 ECMP and PLB max FCT ≥ 1.2 × REPS's (collisions)",
              " / ".join(f"{v} {num(mx[v] / mx['REPS'], '.2f')}x" for v in ("ECMP", "PLB"))
              if _finite(mx["REPS"]) and mx["REPS"] > 0 else "n/a", "≥ 1.2x each",
              _status(all(slow) if slow is not None else None, g.why_missing(list(mx)))),
    ]


def checks_e5(g: Grid) -> list[Check]:
    """A8: in steady state (after 20 trtt) ECN-only has more NACKs and a larger window
    variation than delay-only and full SMaRTT; full has no more NACKs than delay-only."""
    p = g.points[0]
    nacks = {v: g.mean(p, v, "ss_nacks") for v in ("SMaRTT", "ECN-only", "delay-only")}
    cvs = {v: g.mean(p, v, "ss_cwnd_cv") for v in nacks}
    ok = None
    if _finite(*nacks.values(), *cvs.values()):
        ok = all(nacks["ECN-only"] > nacks[v] and cvs["ECN-only"] > cvs[v] for v in ("SMaRTT", "delay-only"))
    return [
        Check("A8 ECN-only: more steady-state NACKs and a larger window CV than delay-only and full",
              "NACKs " + " / ".join(f"{v} {num(nacks[v], '.0f')}" for v in nacks) + "; CV "
              + " / ".join(f"{v} {num(cvs[v], '.3f')}" for v in cvs), "ECN-only highest in both",
              _status(ok, g.why_missing(list(nacks)))),
        Check("A8 full SMaRTT ≤ delay-only in steady-state NACKs",
              f"{num(nacks['SMaRTT'], '.0f')} vs {num(nacks['delay-only'], '.0f')}", "≤",
              _status(nacks["SMaRTT"] <= nacks["delay-only"] if _finite(nacks["SMaRTT"], nacks["delay-only"])
                      else None, g.why_missing(["SMaRTT", "delay-only"]))),
    ]


def _within(x: float, lo: float, hi: float) -> Optional[bool]:
    return lo <= x <= hi if _finite(x) and math.isfinite(x) else None


def checks_e6(g: Grid) -> list[Check]:
    """A7 as the UEC fidelity issue restates it (docs/reproductions/smartt-paper.md):
    with FI the window ratio (long-RTT / short-RTT flow) lies within [0.75, 1.33] × the
    base-RTT ratio and the throughput ratio (smaller / larger) within [0.55, 1.0]; with AI
    the window ratio lies within [0.75, 1.33]; FI's throughput ratio is closer to 1 than
    AI's."""
    p = g.points[0]
    m = {v: {k: g.mean(p, v, k) for k in ("cwnd_ratio", "thr_ratio", "brtt_ratio")} for v in ("FI", "AI")}
    fi, ai = m["FI"], m["AI"]
    rel = fi["cwnd_ratio"] / fi["brtt_ratio"] if _finite(fi["cwnd_ratio"], fi["brtt_ratio"]) else math.nan
    return [
        Check("A7 FI: window ratio long/short within [0.75, 1.33] × the base-RTT ratio",
              f"{num(fi['cwnd_ratio'], '.2f')} = {num(rel, '.2f')} × {num(fi['brtt_ratio'], '.2f')}",
              "[0.75, 1.33] ×", _status(_within(rel, 0.75, 1.33), g.why_missing(["FI"]))),
        Check("A7 FI: throughput ratio (smaller/larger) within [0.55, 1.0]", num(fi["thr_ratio"], ".2f"),
              "[0.55, 1.0] (fluid model ≈ 0.64-0.68)", _status(_within(fi["thr_ratio"], 0.55, 1.0),
                                                              g.why_missing(["FI"]))),
        Check("A7 AI: window ratio long/short within [0.75, 1.33]", num(ai["cwnd_ratio"], ".2f"), "[0.75, 1.33]",
              _status(_within(ai["cwnd_ratio"], 0.75, 1.33), g.why_missing(["AI"]))),
        Check("A7 FI's throughput ratio closer to 1 than AI's",
              f"{num(fi['thr_ratio'], '.2f')} vs {num(ai['thr_ratio'], '.2f')}", "FI higher",
              _status(fi["thr_ratio"] > ai["thr_ratio"] if _finite(fi["thr_ratio"], ai["thr_ratio"]) else None,
                      g.why_missing(["FI", "AI"]))),
    ]


_SHORT = {"completion_us": "completion µs", "undershoot": "windows < ½ ideal"}
_FORMAT = {"trims": ".0f", "nacks": ".0f", "undershoot": ".3f"}


def _on_off(g: Grid, on: str, off: str, metrics: tuple[str, ...]) -> tuple[Optional[bool], list[str]]:
    """Whether ``on`` is at most ``off`` in every metric at every point, and the texts."""
    texts, oks = [], []
    for p in g.points:
        a = {m: g.mean(p, on, m) for m in metrics}
        b = {m: g.mean(p, off, m) for m in metrics}
        texts.append(f"{p}: " + ", ".join(f"{_SHORT.get(m, m)} {num(a[m], _FORMAT.get(m, '.1f'))} vs "
                                          f"{num(b[m], _FORMAT.get(m, '.1f'))}" for m in metrics))
        oks.append(all(a[m] <= b[m] for m in metrics) if _finite(*a.values(), *b.values()) else None)
    ok = None if not oks or any(o is None for o in oks) else all(oks)
    return ok, texts


def checks_e8(g: Grid) -> list[Check]:
    """F8 (Fig. 8): QuickAdapt on completes no later and trims no more than off, at every N."""
    ok, texts = _on_off(g, "QA on", "QA off", ("completion_us", "trims"))
    return [Check("F8 QuickAdapt on: completion and trims ≤ off's", "; ".join(texts), "≤ at every N",
                  _status(ok, g.why_missing(["QA on", "QA off"])))]


def checks_e9(g: Grid) -> list[Check]:
    """F9 (Fig. 9): with the ignore phase, no more NACKs and no more windows below half
    the ideal than without."""
    ok, texts = _on_off(g, "ignore on", "ignore off", ("nacks", "undershoot"))
    return [Check("F9 ignore phase on: NACKs and share of windows < ½ ideal ≤ off's", "; ".join(texts), "≤",
                  _status(ok, g.why_missing(["ignore on", "ignore off"])))]


def _signed_pct(x: float) -> str:
    return _pct(x) if not math.isfinite(x) else f"{100 * x:+.1f} %"


def _fi_off_later(g: Grid, on: str, off: str, label: str) -> Check:
    p = g.points[0]
    a, b = g.mean(p, on, "large_fct_us"), g.mean(p, off, "large_fct_us")
    return Check(f"A4 FastIncrease off ({label}): long flow ≥ 10 % later",
                 f"{num(b)} vs {num(a)} µs ({_signed_pct(b / a - 1) if _finite(a, b) else 'n/a'})", "≥ +10 %",
                 _status(b >= 1.10 * a if _finite(a, b) else None, g.why_missing([on, off])))


def checks_e10(g: Grid) -> list[Check]:
    """A4's FastIncrease part on Fig. 10's uneven incast, and the long flow against its
    ideal (informational)."""
    p = g.points[0]
    a, ideal = g.mean(p, "FI on", "large_fct_us"), g.mean(p, "FI on", "ideal_us")
    return [_fi_off_later(g, "FI on", "FI off", "Fig. 10"),
            Check("F10 long flow with FastIncrease ≤ 1.15 × ideal", f"{num(a)} µs = {num(a / ideal, '.3f')} × "
                  f"{num(ideal)} µs", "≤ 1.15 (ours)",
                  _status(a <= 1.15 * ideal if _finite(a, ideal) else None, g.why_missing(["FI on"])))]


def checks_e11b(g: Grid) -> list[Check]:
    """A10 on Fig. 11b (oversubscribed): the no-op comparable or slightly better, i.e.
    its max FCT at most 1.05 × the decrease's, under OPS and under REPS (5 %: ours)."""
    p = g.points[0]
    out = []
    for lb in ("OPS", "REPS"):
        noop = {m: g.mean(p, f"{lb} noop", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        dec = {m: g.mean(p, f"{lb} decrease", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        ok = noop["max_fct_us"] <= 1.05 * dec["max_fct_us"] if _finite(noop["max_fct_us"], dec["max_fct_us"]) \
            else None
        out.append(Check(f"A10 (Fig. 11b) {lb}: no-op comparable or better (max FCT ≤ 1.05 × decrease's)",
                         f"max FCT {num(noop['max_fct_us'])} vs {num(dec['max_fct_us'])} µs, window "
                         f"{num(noop['agg_cwnd_mb'], '.2f')} vs {num(dec['agg_cwnd_mb'], '.2f')} MB", "≤ 1.05x",
                         _status(ok, g.why_missing([f"{lb} noop", f"{lb} decrease"]))))
    return out


def _ratio_of(point: str) -> int:
    return int(point.split(":", 1)[0])


def checks_e13(g: Grid) -> list[Check]:
    """R14 (Figs. 13a-c): SMaRTT's max FCT the lowest at every ratio and size; its margin
    over the best other (1 − SMaRTT / best) no larger at the lowest ratio than at the
    highest, per size."""
    others = ("Swift", "MPRDMA", "EQDS")
    best, margins, texts = [], {}, []
    for p in g.points:
        mx = {v: g.mean(p, v, "max_fct_us") for v in ("SMaRTT", *others)}
        if _finite(*mx.values()):
            best.append((p, all(mx["SMaRTT"] < mx[o] for o in others)))
            margins[p] = 1 - mx["SMaRTT"] / min(mx[o] for o in others)
            texts.append(f"{p} {_pct(margins[p])}")
    lose = [p for p, ok in best if not ok]
    out = [Check("R14 SMaRTT max FCT lowest at every ratio and size", f"{len(best) - len(lose)}/{len(best)} cells"
                 + (f"; not at: {', '.join(lose)}" if lose else ""), "every cell",
                 _status(not lose if best and len(best) == len(g.points) else None,
                         g.why_missing(["SMaRTT", *others])))]
    sizes = sorted({p.split(" ", 1)[1] for p in margins}, key=lambda s: size_bytes(s))
    oks = []
    for s in sizes:
        ps = sorted((p for p in margins if p.endswith(" " + s)), key=_ratio_of)
        if len(ps) >= 2:
            oks.append(margins[ps[0]] <= margins[ps[-1]])
    out.append(Check("R14 SMaRTT's margin smaller at lower oversubscription (lowest vs highest ratio)",
                     "; ".join(texts) if texts else "n/a", "margin(1:1) ≤ margin(4:1) per size",
                     _status(all(oks) if oks else None, g.why_missing(["SMaRTT", *others]))))
    return out


def checks_e16(g: Grid) -> list[Check]:
    """Fig. 17 at 32/64 MiB: a sender window improves EQDS (EQDS+SMaRTT completes sooner
    than EQDS), and FastIncrease is key (A4's ≥ 10 % on the 64 MiB flow of EQDS+SMaRTT)."""
    p = g.points[0]
    comp = {v: g.mean(p, v, "completion_us") for v in ("EQDS", "EQDS+MPRDMA", "EQDS+SMaRTT", "SMaRTT")}
    return [Check("F17 EQDS+SMaRTT completion < EQDS's", " / ".join(f"{v} {num(comp[v])}" for v in comp) + " µs",
                  "EQDS+SMaRTT lower",
                  _status(comp["EQDS+SMaRTT"] < comp["EQDS"] if _finite(comp["EQDS+SMaRTT"], comp["EQDS"]) else None,
                          g.why_missing(["EQDS", "EQDS+SMaRTT"]))),
            _fi_off_later(g, "EQDS+SMaRTT", "EQDS+SMaRTT-noFI", "EQDS+SMaRTT, 64 MiB")]


def checks_e17(g: Grid) -> list[Check]:
    """A9: every-8 sampling and per-RTT accumulation within 10 % of per-packet adjustment
    in max FCT, in E1's permutation and in the 32:1 incast."""
    out = []
    for v in ("sample-8", "accumulate"):
        texts, oks = [], []
        for p in g.points:
            a, b = g.mean(p, "per-packet", "max_fct_us"), g.mean(p, v, "max_fct_us")
            texts.append(f"{p} {num(b)} vs {num(a)} µs ({_signed_pct(b / a - 1) if _finite(a, b) else 'n/a'})")
            oks.append(abs(b / a - 1) <= 0.10 if _finite(a, b) and math.isfinite(a) and math.isfinite(b) else None)
        ok = None if not oks or any(o is None for o in oks) else all(oks)
        out.append(Check(f"A9 {v}: max FCT within 10 % of per-packet", "; ".join(texts), "±10 % at both points",
                         _status(ok, g.why_missing(["per-packet", v]))))
    return out


CHECKS: dict[str, Callable[[Grid], list[Check]]] = {
    "E1": checks_e1, "E3": checks_e3, "E5": checks_e5, "E6": checks_e6, "E8": checks_e8, "E9": checks_e9,
    "E10": checks_e10, "E11": checks_e11, "E11b": checks_e11b, "E12": checks_e12, "E13": checks_e13,
    "E14": checks_e14, "E15": checks_e15, "E16": checks_e16, "E17": checks_e17,
}


def headlines(grids: dict[str, Grid]) -> list[Headline]:
    """The paper's headline numbers R2-R6, R11, R14, R19 and R20 (docs/reproductions/smartt-paper.md) beside
    ours."""
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
    g = grids.get("E17")
    gaps = []
    if g:
        for p in g.points:
            a = g.mean(p, "per-packet", "max_fct_us")
            for v in ("sample-8", "accumulate"):
                b = g.mean(p, v, "max_fct_us")
                if _finite(a, b) and math.isfinite(a) and math.isfinite(b):
                    gaps.append(abs(b / a - 1))
    out.append(Headline("R11", "adjustment every 8 ACKs / accumulated vs per packet, largest max-FCT gap (E17)",
                        "works as well", _pct(max(gaps)) if gaps else "n/a"))
    g = grids.get("E13")
    margins = []
    if g:
        for p in g.points:
            s = g.mean(p, "SMaRTT", "max_fct_us")
            others = [g.mean(p, v, "max_fct_us") for v in ("Swift", "MPRDMA", "EQDS")]
            if _finite(s, *others) and math.isfinite(min(others)):
                margins.append(f"{p} {_pct(1 - s / min(others))}")
    out.append(Headline("R14", "1:1 / 2:1 / 4:1 permutations: SMaRTT's max FCT below the best other (E13)",
                        "best, smaller margin at lower oversubscription", "; ".join(margins) or "n/a"))
    g = grids.get("E5")
    ours = "n/a"
    if g:
        p = g.points[0]
        ours = "steady-state NACKs " + " / ".join(f"{v} {num(g.mean(p, v, 'ss_nacks'), '.0f')}"
                                                  for v in ("SMaRTT", "delay-only", "ECN-only"))
    out.append(Headline("R19", "large incast, ideal window ≈ 5 packets: full / delay-only / ECN-only (E5)",
                        "ECN-only unstable with drops; full ≥ delay-only", ours))
    g = grids.get("E6")
    ours = "n/a"
    if g:
        p = g.points[0]
        ours = "throughput ratio " + " / ".join(f"{v} {num(g.mean(p, v, 'thr_ratio'), '.2f')}" for v in ("FI", "AI"))
    out.append(Headline("R20", "3x base-RTT ratio, smaller / larger throughput: FI / AI (E6)",
                        "FI ≈ equal; AI ∝ 1/RTT", ours))
    return out
