"""MSwift: the checks per figure (the paper's statements and the Tier B checks B1-B15,
docs/reproductions/mswift-paper.md) and their status."""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

from dcnsim.repro.checks import Check
from dcnsim.repro.papers.mswift.runs import (
    LBS,
    LB_LABEL,
    Grid,
    pooled_fcts,
    quantiles,
)

# ---------------------------------------------------------------------------------------
# Checks (docs/reproductions/mswift-paper.md: the paper's statements and Tier B)

TOL = 1.10  # "X <= Y" passes if mean(X) <= 1.10 * mean(Y)


def _r(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{x:.2f}"


def _ratio(a: float, b: float) -> float:
    return a / b if math.isfinite(a) and math.isfinite(b) and b != 0 else math.nan


def _ok(cond: Optional[bool]) -> str:
    return "n/a" if cond is None else ("PASS" if cond else "FAIL")


def _best(grid: Grid, rows: Sequence[str]) -> tuple[str, str, float]:
    best = ("", "", math.inf)
    for row in rows:
        for lb in LBS:
            m = grid.mean(row, lb)
            if math.isfinite(m) and m < best[2]:
                best = (row, lb, m)
    return best


def _all_finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)


def checks_for(key: str, grids: dict[str, Grid]) -> list[Check]:
    g = grids.get(key)
    if g is None:
        return []
    fn = _CHECKS.get(key)
    return fn(g, grids) if fn else []


def _checks_fig4(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    out = []
    ls, ms, sw = ({lb: g.mean(r, lb) for lb in LBS} for r in ("LSwift", "MSwift", "Swift"))
    reps_ratio = _ratio(ls["reps"], ms["reps"])
    ratios = {lb: _ratio(ls[lb], ms[lb]) for lb in LBS}
    max_lb = max(LBS, key=lambda lb: ratios[lb] if math.isfinite(ratios[lb]) else -1)
    out.append(Check("LSwift/MSwift @REPS", _r(reps_ratio), "8.6 (up to)"))
    out.append(Check("max_LB LSwift/MSwift", f"{_r(ratios[max_lb])} ({LB_LABEL[max_lb]})", "8.6"))
    others = [r for r in g.available_rows() if r != "Swift"]
    per_lb_best = {lb: min((g.mean(r, lb) for r in others), default=math.nan) for lb in LBS}
    out.append(Check("Swift / best other CCA, OPS/AR/REPS",
                     "/".join(_r(_ratio(sw[lb], per_lb_best[lb])) for lb in LBS), "~13 (base unclear)"))
    out.append(Check("Swift / MSwift, OPS/AR/REPS", "/".join(_r(_ratio(sw[lb], ms[lb])) for lb in LBS),
                     "~13 (base unclear)"))
    row, lb, _ = _best(g, g.available_rows())
    out.append(Check("best (CCA, LB) of the cells run", f"{row}+{LB_LABEL.get(lb, '?')}", "MSwift+REPS"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    b5 = ns["ar"] < ns["reps"] if _all_finite(ns["ar"], ns["reps"]) else None
    out.append(Check("B5 NSCC: AR < REPS", f"{_r(ns['ar'])} vs {_r(ns['reps'])}", "yes", _ok(b5)))
    # B1
    best_all = _best(g, g.available_rows())[2]
    b1a = reps_ratio >= 3 if math.isfinite(reps_ratio) else None
    b1b = ms["reps"] <= TOL * best_all if _all_finite(ms["reps"], best_all) else None
    n_cells = 3 * len(g.available_rows())
    out.append(Check(
        "B1 LSwift/MSwift@REPS >= 3; MSwift+REPS lowest (10%)",
        f"{_r(reps_ratio)}; MSwift+REPS {_r(ms['reps'])} vs lowest {_r(best_all)} ({n_cells} of 15 cells)",
        ">= 3; lowest", _ok(None if b1a is None or b1b is None else (b1a and b1b))))
    # B2: the minimum over a subset of CCAs is >= the minimum over all, so a pass on the
    # cells we have implies a pass with NSCC/MNSCC; a fail may not hold once they exist.
    fac = {lb: _ratio(sw[lb], per_lb_best[lb]) for lb in LBS}
    b2 = None if not all(math.isfinite(v) for v in fac.values()) else all(v >= 4 for v in fac.values())
    out.append(Check("B2 Swift >= 4 x best other CCA, every LB",
                     "/".join(_r(fac[lb]) for lb in LBS), ">= 4 (~13)", _ok(b2)))
    # B3
    b3 = None if not all(_all_finite(ms[lb], ls[lb]) for lb in LBS) else all(ms[lb] < ls[lb] for lb in LBS)
    out.append(Check("B3 MSwift < LSwift every LB (strict)",
                     "/".join(f"{_r(ms[lb])}<{_r(ls[lb])}" for lb in LBS), "yes", _ok(b3)))
    out.append(Check("B3 MSwift <= NSCC every LB", "OPS/AR/REPS " + _pairs(ms, ns), "yes",
                     _ok(_every_lb(ms, ns, lambda a, b: a <= TOL * b))))
    b4a = _every_lb(mn, ns, lambda a, b: a <= TOL * b)
    min_mn = min(mn.values()) if all(math.isfinite(v) for v in mn.values()) else math.nan
    b4b = ms["reps"] < min_mn if _all_finite(ms["reps"], min_mn) else None
    out.append(Check("B4 MNSCC <= NSCC every LB; MSwift+REPS < min MNSCC",
                     f"{_pairs(mn, ns)}; {_r(ms['reps'])} vs {_r(min_mn)}", "yes",
                     _ok(None if b4a is None or b4b is None else b4a and b4b)))
    return out


# B6 (restated 2026-11-26, docs/reproductions/mswift-paper.md): LSwift's FCTs are the highest
# of the four CCAs from the median up, under every LB; with REPS LSwift has the highest p99
# and MSwift the lowest.
B6_QUANTILES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.99)
FIG5_ROWS = ("LSwift", "MSwift", "NSCC", "MNSCC")


def highest_at_every_quantile(worst: Sequence[float], others: Sequence[Sequence[float]]) -> Optional[bool]:
    """Whether ``worst`` is at least every one of ``others`` at each quantile (the lists
    hold the same quantiles); None when a value is missing (NaN) or no other is given."""
    if not others or not all(math.isfinite(x) for q in (worst, *others) for x in q):
        return None
    return all(w >= max(o[i] for o in others) for i, w in enumerate(worst))


def tail_order(p99: dict[str, float], worst: str, best: str) -> Optional[bool]:
    """Whether ``worst`` has the highest p99 and ``best`` the lowest (strictly below every
    other); None when a value is missing."""
    if not p99 or not all(math.isfinite(v) for v in p99.values()):
        return None
    others = [v for k, v in p99.items() if k != best]
    return p99[worst] >= max(p99.values()) and p99[best] < min(others)


def _checks_fig5(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    rows = [r for r in FIG5_ROWS if r in g.available_rows()]
    q = {lb: {r: quantiles(pooled_fcts(g, r, lb), B6_QUANTILES) for r in rows} for lb in LBS}
    worst = {lb: highest_at_every_quantile(q[lb]["LSwift"], [q[lb][r] for r in rows if r != "LSwift"])
             for lb in LBS}
    b61 = None if None in worst.values() else all(worst.values())
    p99 = {r: q["reps"][r][-1] for r in rows}
    b62 = tail_order(p99, "LSwift", "MSwift")
    # The reading before the restatement, printed for information: LSwift >= MSwift at every decile.
    deciles = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99]
    strict = []
    for lb in LBS:
        flag = highest_at_every_quantile(quantiles(pooled_fcts(g, "LSwift", lb), deciles),
                                         [quantiles(pooled_fcts(g, "MSwift", lb), deciles)])
        strict.append({True: "yes", False: "no", None: "n/a"}[flag])
    yn = {True: "yes", False: "no", None: "n/a"}
    return [
        Check("B6.1 LSwift's FCTs the highest of the 4 CCAs at p50-p90 and p99, every LB",
              "OPS/AR/REPS " + "/".join(yn[worst[lb]] for lb in LBS), "worst", _ok(b61)),
        Check("B6.2 REPS: LSwift's p99 the highest, MSwift's the lowest",
              ", ".join(f"{r} {_r(p99[r])}" for r in rows) + " us", "LSwift poor tail, MSwift best tail",
              _ok(b62)),
        Check("(old B6) LSwift >= MSwift at every decile and p99", "OPS/AR/REPS " + "/".join(strict),
              "not claimed"),
    ]


def _checks_fig6(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    out = []
    ls, ms = ({lb: g.mean(r, lb) for lb in LBS} for r in ("LSwift", "MSwift"))
    ratios = {lb: _ratio(ls[lb], ms[lb]) for lb in LBS}
    finite = [v for v in ratios.values() if math.isfinite(v)]
    mx = max(finite) if finite else math.nan
    out.append(Check("LSwift/MSwift, OPS/AR/REPS", "/".join(_r(ratios[lb]) for lb in LBS), "up to 1.7"))
    out.append(Check("max_LB LSwift/MSwift", _r(mx), "1.7"))
    row, lb, _ = _best(g, g.available_rows())
    out.append(Check("best (CCA, LB) of the cells run", f"{row}+{LB_LABEL.get(lb, '?')}", "MSwift+REPS"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    out.append(Check("MNSCC slightly < NSCC, OPS/AR/REPS", _pairs(mn, ns), "yes"))
    e1 = grids.get("4")
    if e1 is None:
        out.append(Check("B7 (E2 vs E1)", "-", "", "SKIP (needs Fig. 4 in --only)"))
        return out
    comps = [(r, lb, g.mean(r, lb), e1.mean(r, lb)) for r in ("LSwift", "MSwift", "NSCC", "MNSCC") for lb in LBS]
    better = [a < b for _, _, a, b in comps if _all_finite(a, b)]
    b71 = None if len(better) < len(comps) else all(better)
    out.append(Check("B7.1 every cell of Fig. 6 < its Fig. 4 value", f"{sum(better)}/{len(comps)} lower", "12/12",
                     _ok(b71)))
    below = [ls[lb] < ns[lb] for lb in LBS if _all_finite(ls[lb], ns[lb])]
    out.append(Check("B7.2 LSwift < NSCC under >= 2 LBs", f"{sum(below)}/3 LBs ({_pairs(ls, ns)})", "yes",
                     _ok(None if len(below) < 3 else sum(below) >= 2)))
    le = [ms[lb] <= TOL * ls[lb] for lb in LBS if _all_finite(ms[lb], ls[lb])]
    b73 = None if len(le) < 3 or not math.isfinite(mx) else (all(le) and 1.2 <= mx <= 3)
    out.append(Check("B7.3 MSwift <= LSwift every LB; max ratio in [1.2, 3]",
                     f"{sum(le)}/3 LBs; max {_r(mx)}", "1.7", _ok(b73)))
    b74 = (row, lb) == ("MSwift", "reps") if row else None
    out.append(Check("B7.4 lowest cell is MSwift+REPS", f"{row}+{LB_LABEL.get(lb, '?')} (of the cells run)",
                     "MSwift+REPS", _ok(b74)))
    return out


def _row(g: Grid, row: str) -> dict[str, float]:
    return {lb: g.mean(row, lb) for lb in LBS}


def _every_lb(a: dict[str, float], b: dict[str, float], test: Callable[[float, float], bool]) -> Optional[bool]:
    """``test(a[lb], b[lb])`` under every LB; None when a cell is missing."""
    if not all(_all_finite(a[lb], b[lb]) for lb in LBS):
        return None
    return all(test(a[lb], b[lb]) for lb in LBS)


def _pairs(a: dict[str, float], b: dict[str, float]) -> str:
    return "/".join(f"{_r(a[lb])} vs {_r(b[lb])}" for lb in LBS)


def _mswift_best(g: Grid) -> tuple[Optional[bool], str]:
    flags = []
    for lb in LBS:
        ms = g.mean("MSwift", lb)
        others = [g.mean(r, lb) for r in g.available_rows() if r != "MSwift"]
        if not _all_finite(ms, *others):
            return None, "n/a"
        flags.append(ms <= TOL * min(others))
    return all(flags), "/".join("yes" if f else "no" for f in flags)


def _checks_fig7(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    ratio = _ratio(g.mean("LSwift", "reps"), g.mean("MSwift", "reps"))
    best, text = _mswift_best(g)
    out = [
        Check("REPS LSwift/MSwift", _r(ratio), "1.8"),
        Check("REPS NSCC/MSwift", _r(_ratio(g.mean("NSCC", "reps"), g.mean("MSwift", "reps"))), "2.3"),
        Check("B8 MSwift lowest every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best)),
        Check("B8 REPS LSwift/MSwift in [1.3, 3]", _r(ratio), "1.8",
              _ok(None if not math.isfinite(ratio) else 1.3 <= ratio <= 3)),
    ]
    nr = _ratio(g.mean("NSCC", "reps"), g.mean("MSwift", "reps"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    close = _every_lb(mn, ns, lambda a, b: abs(a - b) <= 0.15 * b)
    out.append(Check("B8 REPS NSCC/MSwift in [1.5, 4]; |MNSCC-NSCC| <= 15% every LB",
                     f"{_r(nr)}; {_pairs(mn, ns)}", "2.3",
                     _ok(None if close is None or not math.isfinite(nr) else 1.5 <= nr <= 4 and close)))
    return out


def _checks_fig8(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    best, text = _mswift_best(g)
    return [Check("B9 MSwift best every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best)),
            Check("B9 MNSCC <= NSCC every LB", _pairs(_row(g, "MNSCC"), _row(g, "NSCC")), "yes",
                  _ok(_every_lb(_row(g, "MNSCC"), _row(g, "NSCC"), lambda a, b: a <= TOL * b)))]


def _max_ratio(g: Grid) -> float:
    vals = [_ratio(g.mean("LSwift", lb), g.mean("MSwift", lb)) for lb in LBS]
    vals = [v for v in vals if math.isfinite(v)]
    return max(vals) if vals else math.nan


def worse_everywhere(now: dict[str, float], before: dict[str, float]) -> Optional[bool]:
    """B10: whether ``now`` exceeds ``before`` under every LB (None when a cell is missing)."""
    return _every_lb(now, before, lambda a, b: a > b)


def _excess(g: Grid, row: str) -> dict[str, float]:
    return {lb: g.excess_us(row, lb) for lb in LBS}


def _checks_fig9(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    m16 = _max_ratio(g)
    out = [Check("max_LB LSwift/MSwift at 16 MiB", _r(m16), "10.7")]
    e1 = grids.get("4")
    if e1 is None:
        out.append(Check("B10 (E5 vs E1)", "-", "", "SKIP (needs Fig. 4 in --only)"))
        return out
    m8 = _max_ratio(e1)
    out.append(Check("B10 max ratio at 16 MiB > at 8 MiB", f"{_r(m16)} vs {_r(m8)}", "10.7 vs 8.6",
                     _ok(None if not _all_finite(m16, m8) else m16 > m8)))
    # Restated 2026-11-26: "get worse" read as the absolute inflation CCT - LB in us; the
    # relative inflation (%) is printed beside it.
    for row in ("LSwift", "NSCC"):
        now, before = _excess(g, row), _excess(e1, row)
        out.append(Check(f"B10 {row}: CCT - LB [us] higher at 16 MiB, every LB",
                         _pairs(now, before) + f" (% {_pairs(_row(g, row), _row(e1, row))})", "worse",
                         _ok(worse_everywhere(now, before))))
    return out


def _versus_e1(g: Grid, grids: dict[str, Grid], label: str, test: Callable[[float, float], bool],
               paper: str) -> Check:
    e1 = grids.get("4")
    if e1 is None:
        return Check(label, "-", paper, "SKIP (needs Fig. 4 in --only)")
    rows = [r for r in g.available_rows() if r in e1.available_rows()]
    comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in rows for lb in LBS]
    ok = [test(a, b) for a, b in comps if _all_finite(a, b)]
    return Check(label, f"{sum(ok)}/{len(comps)} cells", paper, _ok(None if len(ok) < len(comps) else all(ok)))


def _checks_fig10(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    return [_versus_e1(g, grids, "B11 every cell <= 1.5 x its Fig. 4 value", lambda a, b: a <= 1.5 * b,
                       "not much worse")]


def _checks_fig11(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    best, text = _mswift_best(g)
    return [_versus_e1(g, grids, "B12 every cell >= its Fig. 4 value (10%)", lambda a, b: b <= TOL * a,
                       "higher than baseline"),
            Check("B12 MSwift best every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best))]


def _checks_fig12(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    p10, med, p90 = ({lb: g.mean(r, lb) for lb in LBS} for r in ("MSwift-P10", "MSwift", "MSwift-P90"))
    ops = None if not _all_finite(p10["ops"], med["ops"]) else p10["ops"] < med["ops"]
    rest = [med[lb] <= TOL * p10[lb] and med[lb] <= TOL * p90[lb] for lb in ("ar", "reps")
            if _all_finite(med[lb], p10[lb], p90[lb])]
    return [
        Check("B13 OPS: P10 < MSwift", f"{_r(p10['ops'])} vs {_r(med['ops'])}", "yes", _ok(ops)),
        Check("B13 AR, REPS: MSwift <= P10 and <= P90",
              "; ".join(f"{LB_LABEL[lb]} {_r(med[lb])} vs {_r(p10[lb])}/{_r(p90[lb])}" for lb in ("ar", "reps")),
              "yes", _ok(None if len(rest) < 2 else all(rest))),
    ]


def _checks_fig13(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    e1 = grids.get("4")
    if e1 is None:
        up = Check("B14 LSwift and MSwift higher than Fig. 4", "-", "worse", "SKIP (needs Fig. 4 in --only)")
    else:
        comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in ("LSwift", "MSwift") for lb in LBS]
        ok = [a > b for a, b in comps if _all_finite(a, b)]
        up = Check("B14 LSwift and MSwift higher than Fig. 4", f"{sum(ok)}/{len(comps)} cells", "worse",
                   _ok(None if len(ok) < len(comps) else all(ok)))
    less = [g.mean("MSwift", lb) < g.mean("LSwift", lb) for lb in LBS
            if _all_finite(g.mean("MSwift", lb), g.mean("LSwift", lb))]
    return [
        up,
        Check("B14 MSwift < LSwift every LB",
              "/".join(_r(_ratio(g.mean("LSwift", lb), g.mean("MSwift", lb))) for lb in LBS) + " (LSwift/MSwift)",
              "yes", _ok(None if len(less) < 3 else all(less))),
        _nscc_better_under_drr(g, e1),
        Check("B14 |MNSCC-NSCC| <= 10% every LB", _pairs(_row(g, "MNSCC"), _row(g, "NSCC")), "yes",
              _ok(_every_lb(_row(g, "MNSCC"), _row(g, "NSCC"), lambda a, b: abs(a - b) <= 0.10 * b))),
    ]


def _nscc_better_under_drr(g: Grid, e1: Optional[Grid]) -> Check:
    if e1 is None:
        return Check("B14 NSCC and MNSCC lower than Fig. 4", "-", "better", "SKIP (needs Fig. 4 in --only)")
    comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in ("NSCC", "MNSCC") for lb in LBS]
    ok = [a < b for a, b in comps if _all_finite(a, b)]
    return Check("B14 NSCC and MNSCC lower than Fig. 4", f"{sum(ok)}/{len(comps)} cells", "better",
                 _ok(None if len(ok) < len(comps) else all(ok)))


# B15 (restated 2026-11-26): "only slightly worse" as at most 25 % above the base CCA's CCT
# increase or at most 1 percentage point of the lower bound above it, whichever is larger.
SLIGHT_REL = 0.25
SLIGHT_PP = 1.0


def slightly_worse(median: float, base: float, rel: float = SLIGHT_REL, pp: float = SLIGHT_PP) -> Optional[bool]:
    """Whether a median variant's CCT increase ``median`` (%) is at most slightly worse than
    its base's ``base`` (%): ``median - base <= max(rel * base, pp)``; None when missing."""
    if not _all_finite(median, base):
        return None
    return median - base <= max(rel * base, pp)


def _checks_fig14(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    out = []
    for med, base in (("MSwift", "LSwift"), ("MNSCC", "NSCC")):
        m, b = _row(g, med), _row(g, base)
        out.append(Check(f"B15 {med} - {base} <= max(25% of {base}, 1 pp) every LB",
                         "/".join(f"{_r(m[lb])} vs {_r(b[lb])}" for lb in LBS) + " %",
                         "only slightly worse", _ok(_every_lb(m, b, lambda x, y: bool(slightly_worse(x, y))))))
    out.append(_versus_e1(g, grids, "B15 every incast cell < its Fig. 4 value", lambda a, b: a < b, "small increase"))
    return out


_CHECKS: dict[str, Callable[[Grid, dict[str, Grid]], list[Check]]] = {
    "4": _checks_fig4, "5": _checks_fig5, "6": _checks_fig6, "7": _checks_fig7, "8": _checks_fig8,
    "9": _checks_fig9, "10": _checks_fig10, "11": _checks_fig11, "12": _checks_fig12, "13": _checks_fig13,
    "14": _checks_fig14,
    "14b": _checks_fig14,
}


def finalise_status(check: Check, tier_b_binding: bool, fig: str) -> Check:
    """Outside the Tier B conditions (>= 5 seeds, full sizes, the primary setting), a pass
    or fail is informational."""
    informational = not tier_b_binding or fig == "14b"
    if check.status in ("PASS", "FAIL") and informational:
        check.status = f"INFO ({check.status.lower()})"
    elif check.status == "n/a":
        check.status = "INFO (no data)"
    elif not check.status:
        check.status = "INFO"
    return check
