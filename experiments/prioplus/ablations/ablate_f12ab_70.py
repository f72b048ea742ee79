"""F12AB at 70 %: H13 (Physical w/o CC), H6 / AC16 (PrioPlus+Swift − Physical+Swift) and H12
(HPCC against PrioPlus+Swift), taken apart on the table's runs, and one line for H6.

The breakdown (``--decompose``) needs no simulation. It reads the harness's runs
(``--harness-cache``, a ``dcnsim reproduce prioplus`` cache on this core, through
``ablate_checks.load``, which asserts that every base cell is the harness's scenario) and
prints:

- the paper's "all" against two readings of ours (the PrioPlus paper, §6.2: "the average CCT
  speedup ratios for the high four and low four priorities, as well as the overall CCT
  speedup ratio"): the mean over the 8 levels' speedups (the harness's reading until
  2026-11-27, still printed beside it), and one ratio over every coflow of every level pooled
  ("overall", ``metrics.coflow_speedups``; the harness's reading since), for H5, H6, H7, H12
  and H13;
- per level and per pattern (coflows, file requests), the 70 % mean speedups of PrioPlus,
  Physical, HPCC and Physical w/o CC over Swift without priorities, and each level's share of
  PrioPlus − Physical.

The lines (``ablate_checks.main``) change one setting in PrioPlus's 70 % runs; the baseline
(Swift without priorities), Physical+Swift and HPCC keep the table's runs. Seeds: the
harness's 3 (PrioPlus's 70 % runs take about 35 s each).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_70.py --decompose --harness-cache OUT/cache
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_70.py --harness-cache OUT/cache

Runs are stored under ``raw/f12ab_70/`` (gzipped JSON, not committed). f12ab_70.md holds the
output.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells, loader, table printer)
import ablate_f12ab_tail_hpcc as T  # noqa: E402  (per-coflow groups, per-pattern speedups)
from ablate_checks import Cells, Line, Study  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "f12ab_70"  # after T's import, which points it at its own folder

# The one-setting change: PrioPlus's host NICs send their highest-level ready flows first, as
# the physical schemes' NICs do since the NIC rerun (``docs/models/priority-queues.md``).
NIC_BY_LEVEL = ('transport.nic_scheduler="priority"',)
# PrioPlus's delay channels half as wide (A 1.6 µs, B 0.4 µs: spacing 2 µs, not 4): every level's
# target, and so the queue a level holds in the one shared queue, halves (docs/models/prioplus.md).
SPACING_HALF = ('transport.prioplus.fluctuation="1.6us"', 'transport.prioplus.noise="0.4us"')
# Only the top level starts without probing (the coflow preset lets the top 4 start at once): levels
# 7-5 no longer burst into the queue that level 8 shares with them.
DIRECT_1 = ("transport.prioplus.direct_start_levels=1",)

CELLS = [
    Cells("s40_swift", "F12AB", R.SWIFT_FLAT, ("40%",)),
    Cells("s40_pp", "F12AB", R.PP, ("40%",)),
    Cells("s40_phys", "F12AB", R.PHYS, ("40%",)),
    Cells("s70_swift", "F12AB", R.SWIFT_FLAT, ("70%",)),
    Cells("s70_pp", "F12AB", R.PP, ("70%",)),
    Cells("s70_phys", "F12AB", R.PHYS, ("70%",)),
    Cells("s70_hpcc", "F12AB", R.HPCC, ("70%",)),
    Cells("s70_nocc", "F12AB", R.PHYS8_NOCC, ("70%",)),
    Cells("s70_pp_nic", "F12AB", R.PP, ("70%",), NIC_BY_LEVEL),
    Cells("s70_pp_half", "F12AB", R.PP, ("70%",), SPACING_HALF),
    Cells("s70_pp_nic_half", "F12AB", R.PP, ("70%",), AC.flat((NIC_BY_LEVEL, SPACING_HALF))),
    Cells("s70_pp_direct1", "F12AB", R.PP, ("70%",), DIRECT_1),
    Cells("s70_pp_nic_direct1", "F12AB", R.PP, ("70%",), AC.flat((NIC_BY_LEVEL, DIRECT_1))),
    Cells("s70_pp_all3", "F12AB", R.PP, ("70%",), AC.flat((NIC_BY_LEVEL, SPACING_HALF, DIRECT_1))),
]

# The paper's figures with an "all" (PrioPlus paper, Figs. 12, 15, 18 and App. A.2 / A.4):
# (check, point, scheme, reference or None, reading, (high, low, all)). Differences are
# absolute (docs/reproductions/prioplus-paper.md); H12's are HPCC's CCT over PrioPlus's.
PAPER_ALL = [
    ("H5", "40%", R.PP, R.PHYS, "means", (0.09, 0.15, 0.12)),
    ("H6", "70%", R.PP, R.PHYS, "means", (math.nan, math.nan, 0.21)),
    ("H7", "40%", R.PP, R.PHYS, "p99", (-0.17, 0.06, -0.02)),
    ("H12", "70%", R.HPCC, R.PP, "means", (math.nan, math.nan, 0.24)),
    ("H12", "70%", R.HPCC, R.PP, "p99", (math.nan, math.nan, 0.15)),
    ("H13", "70%", R.PHYS8_NOCC, None, "means", (0.03, 0.24, 0.03)),
    ("H13", "70%", R.PHYS8_NOCC, None, "p99", (0.27, 0.48, 0.39)),
]


def overall(runs: list[R.RunResult], point: str, variant: str) -> dict[str, float]:
    """The scheme's speedup over Swift without priorities with every coflow of every level and
    seed pooled: ``means`` the baseline's mean CCT over the scheme's, ``p99`` their 99th
    percentiles (the same coflows, finished in both). The harness's reading
    (``metrics.coflow_speedups``' ``overall``, through ``checks.f12ab_speedups``)."""
    sp = C.f12ab_speedups(R.Grid(R.EXPERIMENTS["F12AB"], runs), point)[variant]
    return {k: sp[k]["overall"] for k in ("means", "p99")}


def compare(a: float, b: Any, relative: bool) -> float:
    """``a`` against ``b`` (None: ``a`` itself): an absolute difference, or for H12 the
    reference's speedup over the scheme's less one (the scheme's CCT "x % worse")."""
    if b is None:
        return a
    return b / a - 1 if relative else a - b


def all_readings(runs: list[R.RunResult]) -> list[str]:
    head = ["check", "reading", "paper high / low / all", "mean of high and low (paper)",
            "ours: high / low (level-averaged)", "ours: all, mean of the 8 levels",
            "ours: all, every coflow pooled (the harness)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for check, point, v, ref, reading, paper in PAPER_ALL:
        sp = C.f12ab_speedups(R.Grid(R.EXPERIMENTS["F12AB"], runs), point)
        rel = check == "H12"
        lv = [compare(sp[v][reading][k], sp[ref][reading][k] if ref else None, rel) for k in ("high", "low", "all")]
        ov = compare(overall(runs, point, v)[reading], overall(runs, point, ref)[reading] if ref else None, rel)
        f = (lambda x: f"{x * 100:+.1f} %") if rel else (lambda x: f"{x:+.3f}" if ref else f"{x:.3f}")
        pf = (lambda x: "–" if math.isnan(x) else f"{x * 100:+.0f} %") if rel else (
            lambda x: "–" if math.isnan(x) else f"{x:+.2f}" if ref else f"{x:.2f}")
        out.append(f"| {check} ({point}) | {'avg' if reading == 'means' else 'p99'} | "
                   f"{' / '.join(pf(x) for x in paper)} | {pf((paper[0] + paper[1]) / 2)} | "
                   f"{f(lv[0])} / {f(lv[1])} | {f(lv[2])} | {f(ov)} |")
    return out


def per_level(runs: list[R.RunResult], point: str = "70%") -> list[str]:
    """Mean speedup per level (both patterns, then coflows / file requests) of each scheme, and
    each level's share of PrioPlus − Physical's level average (its difference / 8)."""
    grid = R.Grid(R.EXPERIMENTS["F12AB"], runs)
    sp = C.f12ab_speedups(grid, point)
    names = [(R.PP, "PrioPlus"), (R.PHYS, "Physical"), (R.HPCC, "HPCC"), (R.PHYS8_NOCC, "w/o CC")]
    names = [(v, n) for v, n in names if v in sp]
    tags = {v: {t: T.speedups_by_tag(runs, point, v, t) for t in ("coflow", "file_request")} for v, _ in names}
    head = ["level", *[f"{n}: both (coflows / files)" for _, n in names], "PrioPlus − Physical", "its share of all"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lv in [*range(8, 0, -1), "high", "low", "all"]:
        row = [str(lv)]
        for v, _ in names:
            row.append(f"{sp[v]['means'][lv]:.3f} ({tags[v]['coflow']['means'][lv]:.3f} / "
                       f"{tags[v]['file_request']['means'][lv]:.3f})")
        d = sp[R.PP]["means"][lv] - sp[R.PHYS]["means"][lv]
        row += [f"{d:+.3f}", f"{d / 8:+.3f}" if isinstance(lv, int) else "–"]
        out.append("| " + " | ".join(row) + " |")
    return out


def h6_figures(g: R.Grid) -> dict[str, float]:
    sp = C.f12ab_speedups(g, "70%")
    hi, lo, al = C.f12ab_diff(g, "70%")
    pp_co = T.speedups_by_tag(g.results, "70%", R.PP, "coflow")["means"]
    return {"PP − Phys, high": hi, "low": lo, "all": al,
            "level 8: PP − Phys": sp[R.PP]["means"][8] - sp[R.PHYS]["means"][8],
            "PP level 8": sp[R.PP]["means"][8], "PP level-8 coflows": pp_co[8],
            "PP avg high": sp[R.PP]["means"]["high"], "PP avg low": sp[R.PP]["means"]["low"],
            "PP avg all": sp[R.PP]["means"]["all"],
            "PP − Phys, all pooled": overall(g.results, "70%", R.PP)["means"]
            - overall(g.results, "70%", R.PHYS)["means"],
            "H12: HPCC avg % worse": (sp[R.PP]["means"]["all"] / sp[R.HPCC]["means"]["all"] - 1) * 100}


def pp_line(label: str, pp_cell: str) -> Line:
    """A line that replaces PrioPlus+Swift's 70 % runs by `pp_cell`; the baseline, Physical+Swift
    and HPCC keep the table's runs."""
    return Line(label, ("s70_swift", pp_cell, "s70_phys", "s70_hpcc"))


STUDIES = [
    Study("H6", "H6 / AC16, H12", "F12AB 70 %: PrioPlus+Swift − Physical+Swift (level-averaged mean speedups)",
          "+0.21 overall (AC16: ± 0.10); H12: HPCC 24 % worse", (
              pp_line("table", "s70_pp"),
              pp_line("PrioPlus+Swift: host NICs send the highest ready level first, as Physical's", "s70_pp_nic"),
              pp_line("PrioPlus+Swift: delay channels half as wide (spacing 2 µs, not 4)", "s70_pp_half"),
              pp_line("PrioPlus+Swift: both (NIC by level, channels half as wide)", "s70_pp_nic_half"),
              pp_line("PrioPlus+Swift: only level 8 starts without probing (not the top 4)", "s70_pp_direct1"),
              pp_line("PrioPlus+Swift: NIC by level and only level 8 starting without probing",
                      "s70_pp_nic_direct1"),
              pp_line("PrioPlus+Swift: the three (NIC by level, channels half as wide, only level 8 direct)",
                      "s70_pp_all3"),
          ), h6_figures, lambda f: abs(f["all"] - 0.21) <= 0.10, "all within +0.21 ± 0.10"),
]

AC.STUDIES = STUDIES
AC.BY_KEY = {c.key: c for c in CELLS}


def top_ccts(runs: list[R.RunResult], lines: list[tuple[str, list[R.RunResult]]], level: int = 8) -> list[str]:
    """The level's coflows (not file requests) finished in every run: their CCT in µs, mean /
    p50 / p90, per scheme and per PrioPlus line (``lines``: label, that line's PrioPlus runs)."""
    groups = [(n, T.pooled_groups(runs, "70%", v)) for v, n in (
        (R.SWIFT_FLAT, "Swift (no priorities)"), (R.PP, "PrioPlus+Swift"), (R.PHYS, "Physical+Swift"),
        (R.HPCC, "HPCC"))] + [(n, T.pooled_groups(rs, "70%", R.PP)) for n, rs in lines]
    base = groups[0][1]
    ks = [k for k, x in base.items() if x["level"] == level and k[1] == "coflow"
          and all(math.isfinite(g.get(k, {}).get("cct", math.nan)) for _, g in groups)]
    out = [f"| scheme | level-{level} coflows: CCT µs, mean / p50 / p90 ({len(ks)} coflows) |", "|---|---|"]
    for n, g in groups:
        xs = sorted(g[k]["cct"] for k in ks)
        out.append(f"| {n} | {sum(xs) / len(xs):.1f} / {M.quantile(xs, 0.5):.1f} / {M.quantile(xs, 0.9):.1f} |")
    return out


def decompose() -> None:
    runs = [r for c in CELLS if not c.change for r in AC.load(c)]
    print(f"\n### The paper's \"all\" against two readings of ours ({len(runs)} table runs, 3 seeds)\n")
    print("\n".join(all_readings(runs)))
    base = [x for x in T.pooled_groups(runs, "70%", R.SWIFT_FLAT).values() if math.isfinite(x["cct"])]
    w = sum(x["cct"] for x in base if x["level"] >= 5) / sum(x["cct"] for x in base)
    print(f"\n- 70 %: the high 4's share of the baseline's CCT sum {w:.3f}; with it, Fig. 18's 0.03 (high) "
          f"and 0.24 (low) pool to {1 / (w / 0.03 + (1 - w) / 0.24):.3f}")
    print("\n### 70 %: mean speedup per level and pattern\n")
    print("\n".join(per_level(runs)))
    lines = [(f"PrioPlus+Swift, {ln.label.split(': ', 1)[1]}", AC.load(AC.BY_KEY[ln.cells[1]]))
             for ln in STUDIES[0].lines[1:]]
    print("\n### 70 %: the smallest coflows' CCT (level 8)\n")
    print("\n".join(top_ccts(runs, lines)))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--decompose" in argv:
        argv.remove("--decompose")
        AC.main(["--list", *argv])  # sets the harness cache; prints the lines
        decompose()
        sys.exit(0)
    sys.exit(AC.main(argv))
