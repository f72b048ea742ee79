"""DCTCP vs Swift: the study's orderings C4-C9, evaluated on our grids and printed (not
asserted: the study ran another profile; docs/reproductions/dctcp-vs-swift-paper.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from dcnsim.repro.papers.dctcp_vs_swift.runs import Grid
from dcnsim.repro.tables import pad_rows


@dataclass
class Fact:
    name: str
    ours: str
    study: str = "yes"
    tag: str = "study fact, profile differs"


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


def ordering_facts(grids: dict[str, Grid]) -> list[Fact]:
    """The study's orderings C4-C9 (docs/reproductions/dctcp-vs-swift-paper.md), evaluated on our E3-E6 grids."""
    facts: list[Fact] = []
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
    rows = [["ordering", "ours", "study", "tag"]] + [[f.name, f.ours, f.study, f.tag] for f in facts]
    return "\n".join(pad_rows(rows))
