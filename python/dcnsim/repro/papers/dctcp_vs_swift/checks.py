"""DCTCP vs Swift: the study's checks C1-C9, evaluated on our grids and printed. Under
the ``paper`` profile they are contrast only (the study ran its ns-3 build); under
``ns3_study`` they are the study's checks (docs/reproductions/dctcp-vs-swift-paper.md).
Printed either way, never turned into an exit code."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from dcnsim.repro.papers.dctcp_vs_swift.runs import Grid, study_value
from dcnsim.repro.tables import pad_rows


@dataclass
class Fact:
    name: str
    ours: str
    study: str = "yes"
    tag: str = "study fact, profile differs"


SAME_PROFILE = "study fact"  # the tag under ns3_study: the study's own profile


def _holds(pairs: list[tuple[str, Optional[bool]]]) -> str:
    known = [(p, ok) for p, ok in pairs if ok is not None]
    if not known:
        return "n/a (not run)"
    bad = [p for p, ok in known if not ok]
    verdict = "yes" if not bad else "no"
    return f"{verdict} ({len(known) - len(bad)}/{len(known)})" + (f", fails at {', '.join(bad)}" if bad else "")


def _cmp(values: list[float], test) -> Optional[bool]:
    if any(math.isnan(v) for v in values):
        return None
    return bool(test(*values))


def ordering_facts(grids: dict[str, Grid], study_profile: bool = False) -> list[Fact]:
    """The study's checks C1-C3 (E1, E2) and orderings C4-C9 (E3-E6;
    docs/reproductions/dctcp-vs-swift-paper.md), evaluated on our grids. ``study_profile``:
    the grids ran the study's profile, so the facts are tagged as directly comparable."""
    facts = _ordering_facts(grids)
    if study_profile:
        for f in facts:
            if f.tag == Fact.tag:
                f.tag = SAME_PROFILE
    return facts


def _e1_e2_facts(grids: dict[str, Grid]) -> list[Fact]:
    """C1-C3 on E1 and E2 (the study's exact tables); n/a for the points not run."""
    def m(key: str, p: str, metric: str) -> float:
        g = grids.get(key)
        return g.mean(p, "Swift", metric) if g and p in g.points else math.nan

    metrics = ("thr_kbps", "delay_ms", "loss_pct")
    c1 = [("E1/0.25=5", _cmp([m("E1", "0.25", x) for x in metrics] + [m("E1", "5", x) for x in metrics],
                             lambda *v: v[:3] == v[3:]))]
    low, high = ("0", "0.00025", "0.0025"), ("0.025", "0.25", "5")
    low_losses = [v for v in (m("E1", p, "loss_pct") for p in low) if not math.isnan(v)]
    c2 = [(f"E1/{h}", _cmp([m("E1", h, "loss_pct"), max(low_losses, default=math.nan)],
                           lambda hv, lv: hv >= 2.5 * lv)) for h in high]
    c2 += [(f"E1/thr baseRTT≥{p}", _cmp([m("E1", "baseRTT", "thr_kbps"), m("E1", p, "thr_kbps")],
                                         lambda b, f: b >= f)) for p in low + high]
    c2m = [(f"E1/{p}/{x[:4]}", _cmp([m("E1", p, x), study_value("E1", p, "study", x)],
                                    lambda ours, study: abs(ours - study) <= 0.3 * study))
           for p in low + high + ("baseRTT",) for x in metrics]
    e2 = ("0", "2000", "5000")
    c3 = [("E2/loss 0>5000>2000", _cmp([m("E2", p, "loss_pct") for p in e2], lambda a, b, c: a > c > b)),
          ("E2/thr 2000 highest", _cmp([m("E2", p, "thr_kbps") for p in e2], lambda a, b, c: b >= max(a, c))),
          ("E2/delay rises", _cmp([m("E2", p, "delay_ms") for p in e2], lambda a, b, c: a < b < c))]
    return [
        Fact("C1 E1 targets 0.25 s and 5 s give identical results", _holds(c1)),
        Fact("C2 E1 loss at targets ≥ 25 ms ≥ 2.5 × at ≤ 2.5 ms; baseRTT best throughput", _holds(c2)),
        Fact("C2 E1 throughput, delay, loss within ±30 % of the study's", _holds(c2m)),
        Fact("C3 E2 loss(0) > loss(5000 B) > loss(2000 B); throughput best at 2000 B; delay rises", _holds(c3)),
    ]


def _ordering_facts(grids: dict[str, Grid]) -> list[Fact]:
    facts: list[Fact] = _e1_e2_facts(grids)
    four = ("D250", "Sb", "Se", "S25")

    def points(key: str, pred=lambda f: True) -> list[str]:
        g = grids.get(key)
        return [p for p in g.points if pred(int(p))] if g else []

    def m(key: str, p: str, v: str, metric: str) -> float:
        g = grids.get(key)
        return g.mean(p, v, metric) if g and v in g.variants else math.nan

    c4 = []
    for key in ("E3", "E4", "E5", "E6"):
        for p in points(key):
            vals = [m(key, p, v, "thr_kbps") for v in four]
            c4.append((f"{key}/{p}", _cmp(vals, lambda *x: all(abs(v - sum(x) / 4) <= 0.15 * sum(x) / 4 for v in x))))
    facts.append(Fact("C4 throughputs of D, Sb, Se, S25 within ±15 % of their mean", _holds(c4)))
    c4b = [(f"{k}/{p}", _cmp([grids[k].mean(p, v, "hotspot_gbps") for v in grids[k].variants],
                             lambda *x: max(x) <= 1.0001))
           for k in ("E1", "E2", "E3", "E5", "E6") if k in grids for p in grids[k].points]
    facts.append(Fact("C4 delivered rate into the hotspot ≤ 1 Gbps (every variant)", _holds(c4b), "yes",
                      "conservation (must hold)"))
    c5 = []
    for key in ("E3", "E5", "E6"):
        for p in points(key):
            for metric in ("loss_pct", "delay_ms"):
                vals = [m(key, p, v, metric) for v in four]
                c5.append((f"{key}/{p}/{metric[:4]}", _cmp(vals, lambda d, b, e, s: s >= max(d, b, e))))
    facts.append(Fact("C5 S25 has the highest loss and delay (E3, E5, E6)", _holds(c5)))
    c5b = [(f"E4/{p}", _cmp([m("E4", p, v, "delay_ms") for v in four], lambda d, b, e, s: s >= max(d, b, e)))
           for p in points("E4")]
    facts.append(Fact("C5 S25 has the highest delay in mode 2 (E4)", _holds(c5b)))
    c6 = [(f"{k}/{p}", _cmp([m(k, p, v, "loss_pct") for v in ("Sb", "D250", "Se", "S25")],
                            lambda b, d, e, s: b < d < e < s))
          for k in ("E5", "E6") for p in points(k, lambda f: f >= 1500)]
    facts.append(Fact("C6 loss Sb < D < Se < S25 at ≥ 1500 flows (E5, E6)", _holds(c6)))
    c7 = [(f"E3/{p}", _cmp([m("E3", p, v, "delay_ms") for v in four], lambda d, b, e, s: d <= min(b, e, s)))
          for p in points("E3", lambda f: f <= 500)]
    c7 += [(f"{k}/{p}", _cmp([m(k, p, v, "delay_ms") for v in four], lambda d, b, e, s: d <= min(b, e, s)))
           for k in ("E5", "E6") for p in points(k, lambda f: f >= 2000)]
    facts.append(Fact("C7 DCTCP lowest delay at low N (E3 ≤ 500) and at scale (E5, E6 ≥ 2000)", _holds(c7)))
    c8 = [(f"E4/{p}", _cmp([m("E4", p, v, "delay_ms") for v in four], lambda d, b, e, s: b <= min(d, e, s)))
          for p in points("E4")]
    facts.append(Fact("C8 Sb lowest delay in mode 2 (E4)", _holds(c8)))
    c8b = [(f"E4/{p}", _cmp([m("E4", p, v, "thr_kbps") for v in four], lambda d, b, e, s: d >= max(b, e, s)))
           for p in points("E4", lambda f: f >= 250)]
    facts.append(Fact("C8 DCTCP highest throughput in mode 2 from 250 flows (E4)", _holds(c8b)))
    c9 = [(f"E3/{p}", _cmp([m("E3", p, v, "thr_kbps") for v in ("D250", "Sb", "Se")], lambda d, b, e: min(b, e) >= d))
          for p in points("E3", lambda f: f >= 250)]
    facts.append(Fact("C9 Sb and Se throughput ≥ DCTCP at ≥ 250 flows (E3)", _holds(c9)))
    return facts


def facts_block(facts: list[Fact]) -> str:
    rows = [["check", "ours", "study", "tag"]] + [[f.name, f.ours, f.study, f.tag] for f in facts]
    return "\n".join(pad_rows(rows))
