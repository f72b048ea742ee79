"""Ablations of three F12AB (coflow) headlines that fail with no ablation to say why: H7 (the
p99 CCT speedup at 40 %, PrioPlus+Swift − Physical+Swift), H12 (HPCC against PrioPlus+Swift
at 70 %) and H13 (Physical w/o CC at 70 %).

Each study first takes its check apart from the harness's own runs (``--harness-cache``: a
``dcnsim reproduce prioplus`` cache on this core, read through ``ablate_checks.load``, whose
base cells are asserted to be the harness's scenarios): per level, per pattern (coflows,
file requests) and per coflow (its retransmitted packets). Then each line changes one
setting in one scheme's runs; the baseline (Swift without priorities) and the other schemes
keep the table's runs. The figures are the harness's (``checks.f12ab_speedups``,
``checks.f12ab_diff``, ``metrics.coflow_speedups``).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_tail_hpcc.py \\
        --harness-cache OUT/cache                      # every study
    ... --only H7 --harness-cache OUT/cache
    ... --decompose --only H7,H12 --harness-cache OUT/cache   # the breakdowns only (no simulation)
    ... --list

Runs are stored under ``raw/f12ab_tail_hpcc/`` (gzipped JSON, not committed). The tables
(markdown) go to stdout; f12ab_tail_hpcc.md holds them.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells, loader, table printer)
from ablate_checks import Cells, Line, Study  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "f12ab_tail_hpcc"

# The one-setting changes
RTO_1S = ('transport.rto_min="1s"',)          # no spurious timeout in a lossless run (≤ 200 ms)
RTO_100US = ('transport.rto_min="100us"',)    # the other side: timeouts (and go-back-N) 10x sooner
NO_PACING = ("transport.prioplus.pacing=false",)  # PrioPlus's flows not paced at cwnd / BaseRtt
FS_OFF = ('transport.swift.fs_range="0us"',)  # Swift's target without flow scaling (25 µs), as in PrioPlus
ETA_088 = ("transport.hpcc.target_utilization=0.88",)  # the artefact's lowest per-priority η
STAGE_0 = ("transport.hpcc.max_stage=0",)  # every HPCC update multiplicative (no additive rounds)
SEED_H13 = 3  # the harness's fastest Physical w/o CC seed (502 s in its run), as combos3.md

CELLS = [
    Cells("s40_swift", "F12AB", R.SWIFT_FLAT, ("40%",)),
    Cells("s40_pp", "F12AB", R.PP, ("40%",)),
    Cells("s40_phys", "F12AB", R.PHYS, ("40%",)),
    Cells("s40_phys_rto1s", "F12AB", R.PHYS, ("40%",), RTO_1S),
    Cells("s40_phys_fs0", "F12AB", R.PHYS, ("40%",), FS_OFF),
    Cells("s40_pp_nopacing", "F12AB", R.PP, ("40%",), NO_PACING),
    Cells("s70_swift", "F12AB", R.SWIFT_FLAT, ("70%",)),
    Cells("s70_pp", "F12AB", R.PP, ("70%",)),
    Cells("s70_hpcc", "F12AB", R.HPCC, ("70%",)),
    Cells("s70_hpcc_eta088", "F12AB", R.HPCC, ("70%",), ETA_088),
    Cells("s70_hpcc_stage0", "F12AB", R.HPCC, ("70%",), STAGE_0),
    Cells("s70_swift_s3", "F12AB", R.SWIFT_FLAT, ("70%",), (), (SEED_H13,)),
    Cells("s70_nocc_s3", "F12AB", R.PHYS8_NOCC, ("70%",), (), (SEED_H13,)),
    Cells("s70_nocc_s3_rto1s", "F12AB", R.PHYS8_NOCC, ("70%",), RTO_1S, (SEED_H13,)),
    Cells("s70_nocc_s3_rto100us", "F12AB", R.PHYS8_NOCC, ("70%",), RTO_100US, (SEED_H13,)),
]


def timeouts(g: R.Grid, variant: str) -> float:
    rs = [r for r in g.results if r.cell.variant == variant]
    return sum(r.stat("timeouts") for r in rs) / max(len(rs), 1)


def h7_figures(g: R.Grid) -> dict[str, float]:
    hi, lo, al = C.f12ab_diff(g, "40%", "p99")
    sp = C.f12ab_speedups(g, "40%")
    out = {"p99 PP − Phys, high": hi, "low": lo, "all": al}
    for v, name in ((R.PP, "PrioPlus"), (R.PHYS, "Physical")):
        for k in ("high", "low"):
            out[f"{name} p99 {k}"] = sp[v]["p99"][k] if v in sp else math.nan
    out["avg PP − Phys, all"] = C.f12ab_diff(g, "40%")[2]
    out["Physical timeouts / run"] = timeouts(g, R.PHYS)
    return out


def h12_figures(g: R.Grid) -> dict[str, float]:
    sp = C.f12ab_speedups(g, "70%")
    pp, hp = sp.get(R.PP), sp.get(R.HPCC)
    if not pp or not hp:
        return {k: math.nan for k in ("HPCC avg % worse", "HPCC p99 % worse")}
    return {"HPCC avg % worse": (pp["means"]["all"] / hp["means"]["all"] - 1) * 100,
            "HPCC p99 % worse": (pp["p99"]["all"] / hp["p99"]["all"] - 1) * 100,
            "HPCC avg high": hp["means"]["high"], "HPCC avg low": hp["means"]["low"],
            "HPCC p99 high": hp["p99"]["high"], "HPCC p99 low": hp["p99"]["low"],
            "PrioPlus avg all": pp["means"]["all"], "PrioPlus p99 all": pp["p99"]["all"],
            "HPCC timeouts / run": timeouts(g, R.HPCC)}


def h13_figures(g: R.Grid) -> dict[str, float]:
    out = AC.f12ab_nocc(g)
    out["timeouts / run"] = timeouts(g, R.PHYS8_NOCC)
    out["retransmits / run"] = sum(r.stat("retransmits") for r in g.results if r.cell.variant == R.PHYS8_NOCC) / max(
        1, sum(1 for r in g.results if r.cell.variant == R.PHYS8_NOCC))
    return out


STUDIES = [
    Study("H7", "H7", "F12AB 40 %: p99 CCT speedup PrioPlus+Swift − Physical+Swift (level-averaged)",
          "−0.02 (high −0.17, low +0.06)", (
              Line("table", ("s40_swift", "s40_pp", "s40_phys")),
              Line("Physical+Swift: RTO_min 1 s, not 1 ms (no spurious timeout)", ("s40_swift", "s40_pp",
                                                                                  "s40_phys_rto1s")),
              Line("PrioPlus+Swift: not paced (window only), as Physical's Swift",
                   ("s40_swift", "s40_pp_nopacing", "s40_phys")),
              Line("Physical+Swift: no target scaling (fs_range 0), as PrioPlus's Swift",
                   ("s40_swift", "s40_pp", "s40_phys_fs0")),
          ), h7_figures, lambda f: f["all"] <= 0.0 and f["p99 PP − Phys, high"] < 0, "all ≤ 0 and high < 0"),
    Study("H12", "H12", "F12AB 70 %: HPCC's CCT against PrioPlus+Swift's (level-averaged speedups)",
          "avg 24 % worse, p99 15 % worse", (
              Line("table", ("s70_swift", "s70_pp", "s70_hpcc")),
              Line("HPCC: η 0.88, not 0.95 (the artefact's lowest per-priority η, for every flow)",
                   ("s70_swift", "s70_pp", "s70_hpcc_eta088")),
              Line("HPCC: maxStage 0, not 5 (no additive rounds before a multiplicative step)",
                   ("s70_swift", "s70_pp", "s70_hpcc_stage0")),
          ), h12_figures, lambda f: abs(f["HPCC avg % worse"] - 24) <= 5 and abs(f["HPCC p99 % worse"] - 15) <= 5,
          "each within ± 5 points"),
    Study("H13", "H13", f"F12AB 70 %, seed {SEED_H13}: Physical w/o CC speedup over Swift (ratio of means)",
          "avg 0.03 / 0.24 / 0.03 (high / low / all)", (
              Line(f"table (seed {SEED_H13})", ("s70_swift_s3", "s70_nocc_s3")),
              Line("Physical w/o CC: RTO_min 1 s, not 1 ms (no spurious timeout)", ("s70_swift_s3",
                                                                                   "s70_nocc_s3_rto1s")),
              Line("Physical w/o CC: RTO_min 100 µs, not 1 ms (timeouts sooner)", ("s70_swift_s3",
                                                                                  "s70_nocc_s3_rto100us")),
          ), h13_figures, lambda f: f["avg all"] <= 0.05, "avg all ≤ 0.05"),
]

AC.STUDIES = STUDIES
AC.BY_KEY = {c.key: c for c in CELLS}




# ---------------------------------------------------------------------------------------
# Breakdowns of the table lines (no simulation: the harness's runs)


def coflows(r: R.RunResult) -> dict[tuple[str, int], dict[str, Any]]:
    """(tag, group) → level, CCT (µs, NaN unfinished), bytes, flows and retransmitted packets.
    The flow table has no group column: a group's flows share their tag and start time (a
    coflow's flows all start at its arrival) and come in group order; group numbers run
    over the coflows first, then the file requests (``group_ccts``). A group whose rebuilt
    CCT differs from the stored one by more than 1 ns keeps the stored CCT and gets no bytes."""
    f = r.flows
    order: dict[tuple[str, float], list[int]] = {}
    for i, (t, s) in enumerate(zip(f["tag"], f["start_us"])):
        order.setdefault((str(t), float(s)), []).append(i)
    by_tag: dict[str, list[list[int]]] = {}
    for (t, _), ii in order.items():
        by_tag.setdefault(t, []).append(ii)
    offset = {"coflow": 0, "file_request": len(by_tag.get("coflow", []))}
    out = {}
    for t, g, p, c in C.cct_rows(r):
        ii = by_tag.get(t, [])[g - offset.get(t, 0)] if 0 <= g - offset.get(t, 0) < len(by_tag.get(t, [])) else []
        rebuilt = (max(f["finish_us"][i] for i in ii) - min(f["start_us"][i] for i in ii)) if ii and all(
            f["finished"][i] for i in ii) else math.nan
        ok = bool(ii) and (abs(rebuilt - c) < 1e-3 or (math.isnan(c) and math.isnan(rebuilt)))
        out[(t, g)] = {"level": p, "cct": c, "bytes": sum(f["size"][i] for i in ii) if ok else math.nan,
                       "flows": len(ii) if ok else 0,
                       "retx": sum(f["retransmits"][i] for i in ii) if ok else 0,
                       "fcts": sorted(f["fct_us"][i] for i in ii) if ok and math.isfinite(c) else []}
    return out


def pooled_groups(runs: list[R.RunResult], point: str, variant: str) -> dict[tuple[int, str, int], dict[str, Any]]:
    return {(r.cell.seed, t, g): v for r in runs if r.cell.point == point and r.cell.variant == variant
            for (t, g), v in coflows(r).items()}


def q99(xs: list[float]) -> float:
    return M.quantile(xs, 0.99) if xs else math.nan


def speedups_by_tag(runs: list[R.RunResult], point: str, variant: str, tag: str) -> dict[str, dict[Any, float]]:
    """``metrics.coflow_speedups`` on one pattern's coflows only."""
    base = {r.cell.seed: r for r in runs if r.cell.point == point and r.cell.variant == R.SWIFT_FLAT}
    sch = {r.cell.seed: r for r in runs if r.cell.point == point and r.cell.variant == variant}
    seeds = sorted(set(base) & set(sch))
    pick = lambda r: [x for x in C.cct_rows(r) if x[0] == tag]  # noqa: E731
    return M.coflow_speedups([pick(base[s]) for s in seeds], [pick(sch[s]) for s in seeds])


def level_table(runs: list[R.RunResult], point: str, variants: list[tuple[str, str]]) -> list[str]:
    """Per level: coflows / file requests, p99 and mean CCT (ms) of each scheme, its p99 and
    mean speedup, and the p99 speedup within each pattern."""
    groups = {v: pooled_groups(runs, point, v) for v, _ in [(R.SWIFT_FLAT, "Swift"), *variants]}
    base = groups[R.SWIFT_FLAT]
    keys = [k for k in base if all(math.isfinite(groups[v].get(k, {}).get("cct", math.nan)) for v in groups)]
    head = ["level", "coflows / file req.", "Swift p99 ms"]
    for _, n in variants:
        head += [f"{n} p99 ms", f"{n} p99 speedup", f"{n} mean speedup", f"{n} p99 speedup, coflows / files"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lv in range(8, 0, -1):
        ks = [k for k in keys if base[k]["level"] == lv]
        nco = sum(1 for k in ks if k[1] == "coflow")
        b99 = q99([base[k]["cct"] for k in ks])
        row = [str(lv), f"{nco} / {len(ks) - nco}", f"{b99 / 1e3:.2f}"]
        for v, _ in variants:
            g = groups[v]
            s99 = q99([g[k]["cct"] for k in ks])
            mean = sum(base[k]["cct"] for k in ks) / sum(g[k]["cct"] for k in ks)
            by = []
            for tag in ("coflow", "file_request"):
                kt = [k for k in ks if k[1] == tag]
                by.append(f"{q99([base[k]['cct'] for k in kt]) / q99([g[k]['cct'] for k in kt]):.2f}"
                          if len(kt) > 1 else "–")
            row += [f"{s99 / 1e3:.2f}", f"{b99 / s99:.3f}", f"{mean:.3f}", " / ".join(by)]
        out.append("| " + " | ".join(row) + " |")
    return out


def file_ideal(runs: list[R.RunResult], point: str, variants: list[tuple[str, str]]) -> list[str]:
    """File requests (20-sender incasts) of the top four levels: CCT over the file's time at
    the receiver's 100 Gbps (bytes·8 / 100 Gbps), p50 / p90 / p99 pooled over the seeds."""
    head = ["scheme", *[f"level {lv}: p50 / p90 / p99" for lv in (8, 7, 6, 5)]]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v, n in [(R.SWIFT_FLAT, "Swift (no priorities)"), *variants]:
        g = pooled_groups(runs, point, v)
        row = [n]
        for lv in (8, 7, 6, 5):
            xs = sorted(x["cct"] / (x["bytes"] * 8 / 100e3) for k, x in g.items()
                        if k[1] == "file_request" and x["level"] == lv and math.isfinite(x["cct"] * x["bytes"]))
            row.append(" / ".join(f"{M.quantile(xs, q):.2f}" for q in (0.5, 0.9, 0.99)) if xs else "–")
        out.append("| " + " | ".join(row) + " |")
    return out


def stragglers(runs: list[R.RunResult], point: str, variants: list[tuple[str, str]], level: int = 8) -> list[str]:
    """The level's file requests (20 pieces each) ranked by CCT over the file's time at
    100 Gbps, per scheme: for the fastest half and the slowest third, the mean CCT / ideal
    and the mean of the last piece's FCT over the median piece's (1: the pieces end
    together; 2: one piece takes twice the others' time)."""
    head = ["scheme", "fastest half: CCT / ideal", "last / median piece", "slowest third: CCT / ideal",
            "last / median piece"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v, n in variants:
        g = pooled_groups(runs, point, v)
        xs = sorted((x["cct"] / (x["bytes"] * 8 / 100e3), x["fcts"][-1] / x["fcts"][len(x["fcts"]) // 2])
                    for k, x in g.items() if k[1] == "file_request" and x["level"] == level and x["fcts"])
        fast, slow = xs[:len(xs) // 2], xs[len(xs) - len(xs) // 3:]
        mean = lambda ys, i: sum(y[i] for y in ys) / len(ys)  # noqa: E731
        out.append(f"| {n} | {mean(fast, 0):.2f} | {mean(fast, 1):.2f} | {mean(slow, 0):.2f} | {mean(slow, 1):.2f} |")
    return out


def retx_table(runs: list[R.RunResult], point: str, variant: str, name: str, ref: str = R.PP,
               ref_name: str = "PrioPlus") -> list[str]:
    """Per level: the scheme's coflows with retransmitted packets (there are no drops: every
    one comes from a timeout), their mean CCT against ``ref``'s for the same coflows,
    and how many of the level's top 1 % (the coflows at or above its p99) have them."""
    g = pooled_groups(runs, point, variant)
    pp = pooled_groups(runs, point, ref)
    head = ["level", f"{name} coflows with retransmissions", f"their mean CCT ms, {name} / {ref_name}",
            "of the level's top 1 %", "retransmitted packets"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lv in range(8, 0, -1):
        ks = [k for k, x in g.items() if x["level"] == lv and math.isfinite(x["cct"])]
        n = len(ks)
        top = sorted(ks, key=lambda k: -g[k]["cct"])[:max(1, n - int(0.99 * n))]
        wr = [k for k in ks if g[k]["retx"] > 0]
        mean = (f"{sum(g[k]['cct'] for k in wr) / len(wr) / 1e3:.2f} / "
                f"{sum(pp[k]['cct'] for k in wr if k in pp) / max(1, sum(1 for k in wr if k in pp)) / 1e3:.2f}"
                if wr else "–")
        out.append(f"| {lv} | {len(wr)} / {n} | {mean} | {sum(1 for k in top if g[k]['retx'] > 0)} / {len(top)} | "
                   f"{sum(g[k]['retx'] for k in ks)} |")
    return out


def readings(runs: list[R.RunResult], point: str, variant: str) -> dict[str, tuple[float, float, float]]:
    """High / low / all of the level-averaged readings (``coflow_speedups``) and of the same
    two readings pooled over the levels' coflows instead."""
    sp = C.f12ab_speedups(R.Grid(R.EXPERIMENTS["F12AB"], runs), point)[variant]
    out = {f"level-averaged {k}": tuple(sp[k][x] for x in ("high", "low", "all")) for k in ("means", "ratios", "p99")}
    base = pooled_groups(runs, point, R.SWIFT_FLAT)
    g = pooled_groups(runs, point, variant)
    pairs = [(base[k]["level"], base[k]["cct"], g[k]["cct"]) for k in base
             if k in g and math.isfinite(base[k]["cct"]) and math.isfinite(g[k]["cct"])]
    for name, fn in (("means", lambda xs: sum(b for b, _ in xs) / sum(s for _, s in xs)),
                     ("ratios", lambda xs: sum(b / s for b, s in xs) / len(xs))):
        out[f"pooled {name}"] = tuple(fn([(b, s) for lv, b, s in pairs if sel(lv)]) for sel in (
            lambda lv: lv >= 5, lambda lv: lv <= 4, lambda lv: True))
    return out


def print_pp_vs_phys(runs: list[R.RunResult]) -> None:
    """H7's breakdown at 40 %: per level, then PrioPlus − Physical at p99 per traffic pattern."""
    print("\n".join(level_table(runs, "40%", [(R.PP, "PrioPlus"), (R.PHYS, "Physical")])))
    print()
    for tag in ("coflow", "file_request"):
        sp = {v: speedups_by_tag(runs, "40%", v, tag) for v in (R.PP, R.PHYS)}
        print(f"- {tag} only: p99 PrioPlus − Physical high / low / all " + " / ".join(
            f"{sp[R.PP]['p99'][x] - sp[R.PHYS]['p99'][x]:+.3f}" for x in ("high", "low", "all")))
    print()


def decompose(key: str) -> None:
    s = next(x for x in STUDIES if x.key == key)
    runs: list[R.RunResult] = []
    for k in s.lines[0].cells:
        runs += AC.load(AC.BY_KEY[k])
    print(f"\n### {s.check}: breakdown of the table line ({len(runs)} runs)\n")
    if key == "H7":
        print_pp_vs_phys(runs)
        print("\n".join(file_ideal(runs, "40%", [(R.PP, "PrioPlus+Swift"), (R.PHYS, "Physical+Swift")])))
        print()
        print("\n".join(retx_table(runs, "40%", R.PHYS, "Physical")))
        print()
        print("\n".join(stragglers(runs, "40%", [(R.SWIFT_FLAT, "Swift (no priorities)"), (R.PP, "PrioPlus+Swift"),
                                                   (R.PHYS, "Physical+Swift")])))
        # the RTO line (its runs simulated by the study, or here if not stored yet)
        rto = [r for k in s.lines[1].cells for r in AC.load(AC.BY_KEY[k])]
        print(f"\n{s.lines[1].label}:\n")
        print_pp_vs_phys(rto)
        print("\n".join(stragglers(rto, "40%", [(R.PHYS, "Physical+Swift, RTO_min 1 s")])))
    elif key == "H12":
        print("\n".join(level_table(runs, "70%", [(R.PP, "PrioPlus"), (R.HPCC, "HPCC")])))
        print()
        for tag in ("coflow", "file_request"):
            sp = {v: speedups_by_tag(runs, "70%", v, tag) for v in (R.PP, R.HPCC)}
            print(f"- {tag} only: HPCC avg {(sp[R.PP]['means']['all'] / sp[R.HPCC]['means']['all'] - 1) * 100:.1f} % "
                  f"worse, p99 {(sp[R.PP]['p99']['all'] / sp[R.HPCC]['p99']['all'] - 1) * 100:.1f} % worse")
        print()
        print("\n".join(file_ideal(runs, "70%", [(R.PP, "PrioPlus+Swift"), (R.HPCC, "HPCC")])))
        print()
        for v in (R.PP, R.HPCC):
            for name, x in readings(runs, "70%", v).items():
                print(f"- {v}, {name}: high / low / all " + " / ".join(f"{y:.3f}" for y in x))
    elif key == "H13":
        print("\n".join(level_table(runs, "70%", [(R.PHYS8_NOCC, "w/o CC")])))
        print()
        for name, x in readings(runs, "70%", R.PHYS8_NOCC).items():
            print(f"- {name}: high / low / all " + " / ".join(f"{y:.3f}" for y in x))
        print()
        print("\n".join(retx_table(runs, "70%", R.PHYS8_NOCC, "w/o CC", R.SWIFT_FLAT, "Swift")))
        for ln in s.lines[1:]:
            lr = [r for k in ln.cells for r in AC.load(AC.BY_KEY[k])]
            print(f"\n{ln.label}:\n")
            print("\n".join(level_table(lr, "70%", [(R.PHYS8_NOCC, "w/o CC")])))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--decompose" in argv:
        argv.remove("--decompose")
        AC.main(["--list", *argv])  # sets the harness cache; prints the lines
        want = argv[argv.index("--only") + 1].split(",") if "--only" in argv else [x.key for x in STUDIES]
        for k in want:
            decompose(k)
        sys.exit(0)
    sys.exit(AC.main(argv))
