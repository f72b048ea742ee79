"""Ablation runs behind the PrioPlus checks that failed with no ablation to say why:
H24 / AC13 (M4), AC14, H19 / AC19 (F13), H3 / AC15, H4 and H10 (F11), H18 (F14),
H8 / AC17 (F12C), AC16 (F12AB) and, in the second round, H13 (F12AB, Physical w/o CC).

A sibling of ``ablate.py`` (this folder), with its storage (``digest``, ``save``, ``raw/``).
Each "cells" entry is a harness run list: one experiment, one variant, some points, every
seed the harness runs (``runs.build_cells``: 9 for F11, F14 and F12C, 3 for F13 and F12AB,
one for M4 and AC14), plus at most one changed setting. A base entry's scenarios are checked
to be the harness's own. Every run keeps the harness's flow columns and its ``summarize``
extract, so the figures come from the harness's own functions (``checks.m4_idle``,
``checks.ac14_exceed``, ``checks.f13_gaps``, ``checks.f11_stats``, ``checks.f14_cells``,
``checks.f12c_speedups``, ``checks.f12ab_diff``) on a grid of the line's runs. A line
changes one setting against the base line of its check (the table's cells).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_checks.py            # every check
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_checks.py --only M4,AC14
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_checks.py --list
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_checks.py --round 2   # the second round's lines
    ... --harness-cache OUT/cache   # base runs read from a `dcnsim reproduce prioplus --out OUT` run

Runs are stored under ``raw/checks/`` (gzipped JSON, not committed) and reused while their
scenario is unchanged. The tables (markdown) go to stdout; results_checks.md holds them.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate as A  # noqa: E402  (the F11 / F14 ablation script: storage and paths)
from dcnsim._scenario import load_scenario  # noqa: E402
from dcnsim.repro.core import simulate  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

RAW = A.RAW / "checks"
SEEDS = 9  # the harness's default (build_cells caps F13 and F12AB at 3, M4 and AC14 at 1)


@dataclass(frozen=True)
class Cells:
    key: str
    exp: str
    variant: str
    points: tuple[str, ...]  # empty: every point of the variant
    change: tuple[str, ...] = ()
    seeds: tuple[int, ...] = ()  # empty: every seed the harness runs


@dataclass(frozen=True)
class Line:
    label: str
    cells: tuple[str, ...]  # Cells keys whose runs make the line's grid
    note: str = ""


@dataclass(frozen=True)
class Study:
    key: str  # --only name
    check: str
    what: str
    paper: str
    lines: tuple[Line, ...]
    figures: Callable[[R.Grid], dict[str, float]]
    meets: Callable[[dict[str, float]], bool]
    bar: str


def flat(settings: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """Several one-setting changes (each a tuple of overrides) as one tuple of overrides."""
    return tuple(s for setting in settings for s in setting)


def harness_runs(c: Cells) -> list[R.Run]:
    out = [r for r in R.EXPERIMENTS[c.exp].runs(False)
           if r.variant == c.variant and (not c.points or r.point in c.points)]
    if not out:
        raise SystemExit(f"{c.key}: no {c.exp} {c.variant} {c.points} in the harness")
    return out


def seeds_of(run: R.Run, only: tuple[int, ...] = ()) -> list[int]:
    """The harness's seeds of ``run`` (``SEEDS``, capped by the run's own ``max_seeds``), or
    ``only`` for a seeded run: some of them, or seeds past them (held-out seeds, whose base
    scenarios are built the same way but have no harness cell to be checked against)."""
    if only and run.seeded:
        return list(only)
    every = range(1, (min(SEEDS, run.max_seeds or SEEDS) if run.seeded else 1) + 1)
    return [s for s in every if not only or s in only]


# A harness output folder (``dcnsim reproduce prioplus --out DIR``) whose cache holds runs of
# the very scenarios of some base cells (``--harness-cache DIR/cache``): such a run is taken
# from there instead of being simulated again (the F12AB coflow runs take 10-18 min each).
HARNESS_CACHE: Optional[Path] = None
_CACHE_INDEX: dict[tuple[str, str, str, int], list[Path]] = {}


def harness_record(exp: str, point: str, variant: str, seed: int, spec: dict[str, Any]) -> Optional[dict[str, Any]]:
    if HARNESS_CACHE is None:
        return None
    if not _CACHE_INDEX:
        for p in HARNESS_CACHE.glob("*.json"):
            with open(p) as fh:
                head = fh.read(400)
            m = re.search(r'"experiment": "([^"]*)", "point": "([^"]*)", "variant": "([^"]*)", "seed": (\d+)', head)
            if m:
                _CACHE_INDEX.setdefault((m[1], m[2], m[3], int(m[4])), []).append(p)
    for p in _CACHE_INDEX.get((exp, point, variant, seed), []):
        with open(p) as fh:
            data = json.load(fh)
        if data.get("scenario") == spec and "extra" in data.get("record", {}):
            return dict(data["record"], harness_cache=p.name)
    return None


_HARNESS: dict[str, dict[tuple[str, str, int], dict[str, Any]]] = {}


def harness_spec(exp: str, point: str, variant: str, seed: int) -> dict[str, Any]:
    if exp not in _HARNESS:
        _HARNESS[exp] = {(c.point, c.variant, c.seed): c.spec
                         for c in R.build_cells([exp], SEEDS, False, A.EXP_DIR, "x")}
    return _HARNESS[exp][(point, variant, seed)]


def load(c: Cells, stream: Any = sys.stderr) -> list[R.RunResult]:
    out = []
    toml = A.EXP_DIR / R.EXPERIMENTS[c.exp].toml
    for run in harness_runs(c):
        for seed in seeds_of(run, c.seeds):
            spec, root = load_scenario(toml, [*run.overrides, f"seed={seed}", *c.change])
            if not c.change and seed in seeds_of(run):
                assert harness_spec(c.exp, run.point, c.variant, seed) == spec, f"{c.key}: not the harness's cell"
            sha = A.digest({"spec": spec, "columns": list(R._FLOW_COLUMNS), "summary": R.SUMMARY_VERSION})
            path = RAW / c.key / f"{re.sub(r'[^A-Za-z0-9]+', '_', run.point)}_seed{seed}.json.gz"
            cached = A.read_cached(path, sha)
            rec = cached["record"] if cached else None
            if rec is None and not c.change:
                rec = harness_record(c.exp, run.point, c.variant, seed, spec)
                if rec is not None:
                    A.save(path, {"cells": c.key, "point": run.point, "seed": seed, "change": [],
                                  "scenario_sha": sha, "record": rec})
            if rec is None:
                rec = simulate(spec, str(root), R._FLOW_COLUMNS, cap_us=R.CAP_US, summarize=M.summarize)
                if "error" in rec:
                    raise SystemExit(f"{c.key} {run.point} seed {seed}: {rec['error']}")
                A.save(path, {"cells": c.key, "point": run.point, "seed": seed, "change": list(c.change),
                              "scenario_sha": sha, "record": rec})
                print(f"{c.key:<24} {run.point:<8} seed {seed}: {rec['wall_seconds']:6.1f} s, "
                      f"complete {rec['complete']}", file=stream, flush=True)
            out.append(R.RunResult(R.Cell.of(c.exp, run, seed, spec), rec))
    return out


# ---------------------------------------------------------------------------------------
# Figures, each from the harness's own functions


def m4_figures(g: R.Grid) -> dict[str, float]:
    r = g.results[0]
    idle, t_hi = C.m4_idle(r)
    # The low flows' spacing just before: mean time between delivery changes in the 100 µs
    # before the high flows' last finish (84 µs at the 100 Mbps minimum).
    d = r.delivered()
    steps = []
    for i in C.flow_groups(r).get("low", []):
        ch = [t for (t, v), (_, v0) in zip(d.get(i, [])[1:], d.get(i, [])) if v != v0 and t_hi - 100 <= t <= t_hi]
        steps += [b - a for a, b in zip(ch, ch[1:])]
    out = {"idle gap µs": idle, "low spacing before µs": sum(steps) / len(steps) if steps else math.nan,
           "high done µs": t_hi}
    # The low flows' rate trajectory: mean rate of one low flow (Mbps) in 100 µs windows from
    # their start (125 µs), and in the last 100 µs before the high flows' end; and when they
    # first go M4_MIN_GAP_US without a delivery (at the minimum: one packet per ~84 µs).
    low = C.flow_groups(r).get("low", [])
    for a, b in [*M4_WINDOWS, (t_hi - 100, t_hi)]:
        name = f"low Mbps {a:.0f}-{b:.0f}" if (a, b) in M4_WINDOWS else "low Mbps last 100 µs"
        rates = [(at(d.get(i, []), b) - at(d.get(i, []), a)) * 8 / (b - a) for i in low]
        out[name] = sum(rates) / len(rates) if rates and b > a else math.nan
    firsts = []
    for i in low:
        ch = [t for (t, v), (_, v0) in zip(d.get(i, [])[1:], d.get(i, [])) if v != v0 and t <= t_hi]
        firsts.append(next((a for a, b in zip(ch, ch[1:]) if b - a >= M4_MIN_GAP_US), math.inf))
    out[f"first gap ≥ {M4_MIN_GAP_US:.0f} µs at"] = sum(firsts) / len(firsts) if firsts else math.nan
    return out
    return out


M4_WINDOWS = ((125.0, 225.0), (225.0, 325.0), (325.0, 425.0), (425.0, 525.0))
M4_MIN_GAP_US = 70.0


def at(series: list[tuple[float, float]], t: float) -> float:
    """Delivered bytes of one flow at time ``t`` (its last sample at or before ``t``)."""
    v = 0.0
    for ts, x in series:
        if ts > t:
            break
        v = x
    return v


def ac14_figures(g: R.Grid) -> dict[str, float]:
    out = {}
    for r in g.results:
        out[f"{r.cell.variant} above D_limit"] = C.ac14_exceed(r)
    return out


def f13_figures(g: R.Grid) -> dict[str, float]:
    gaps = C.f13_gaps(g)
    out = {}
    for b in R.F13_BS:
        pts = gaps.get(b, [])
        out[f"B={b} gap at R=0"] = dict(pts).get(0.0, math.nan)
        out[f"B={b} smallest R gap ≥ 0.5"] = M.first_break(pts, 0.5)
        # The top level's (p6) FCT at R = 0 against Physical+Swift's, mean over seeds.
        ratios = []
        for r in g.runs(C.F13_ZERO, f"{R.PP} B={b}"):
            ref = g.one(C.F13_ZERO, R.PHYS, r.cell.seed)
            top = [[x for x, t in zip(q.fcts(), q.flows["tag"]) if t == "p6"] for q in (r, ref)]
            ratios.append(sum(top[0]) / sum(top[1]))
        out[f"B={b} p6 FCT / Physical's at R=0"] = sum(ratios) / len(ratios) if ratios else math.nan
    return out


def f13_meets(f: dict[str, float]) -> bool:
    return all(abs(f[f"B={b} smallest R gap ≥ 0.5"] - C.F13_PAPER[b]) <= 4 for b in R.F13_BS)


def f11_large(g: R.Grid) -> dict[str, float]:
    st = C.f11_stats(g)
    out = {}
    for p in ("N=8", "N=12", "N=16"):
        out[f"{p} large avg"] = C.f11_ratio(st, p, R.PP, R.PHYS_STAR, "large", 1)
        out[f"{p} large p99"] = C.f11_ratio(st, p, R.PP, R.PHYS_STAR, "large", 2)
    return out


def f11_rise(g: R.Grid) -> dict[str, float]:
    st = C.f11_stats(g)
    out = {f"{p} all avg µs": st[(p, R.PHYS)]["all"][1] for p in ("N=2", "N=4", "N=6", "N=8")}
    out["N=8 / best N≤6"] = out["N=8 all avg µs"] / min(out[f"N={n} all avg µs"] for n in (2, 4, 6))
    out["pauses/run"] = sum(r.stat("pfc_pause_frames") for r in g.results) / len(g.results)
    return out


def f11_hpcc(g: R.Grid) -> dict[str, float]:
    st = C.f11_stats(g)
    pp = next(v for v in g.variants if v != R.HPCC)
    return {"HPCC / PrioPlus avg": C.f11_ratio(st, "N=8", R.HPCC, pp, "all", 1),
            "HPCC / PrioPlus p99": C.f11_ratio(st, "N=8", R.HPCC, pp, "all", 2),
            "PrioPlus p99 µs": st[("N=8", pp)]["all"][2]}


def f14_d2tcp(g: R.Grid) -> dict[str, float]:
    c = C.f14_cells(g)
    pp, d2 = c[R.PP][("large", "all")][1], c[R.D2TCP][("large", "all")][1]
    return {"PrioPlus large µs": pp, "D2TCP large µs": d2, "PrioPlus / D2TCP": pp / d2}


def f12c_figures(g: R.Grid) -> dict[str, float]:
    sp = C.f12c_speedups(g).get(R.PP, {})
    return {k: sp[k]["primary"] if k in sp else math.nan for k in ("ResNet", "VGG", "total")}


def f12c_meets(f: dict[str, float]) -> bool:
    return all(abs(f[k] - t) <= R.F12C_TOLERANCE + 1e-9 for k, t in zip(("ResNet", "VGG", "total"), R.F12C_PAPER[R.PP]))


def f12ab_figures(g: R.Grid) -> dict[str, float]:
    sp = C.f12ab_speedups(g, "70%")
    out = {"PrioPlus − Physical, all": C.f12ab_diff(g, "70%")[2]}
    for v, name in ((R.PP, "PrioPlus"), (R.PHYS, "Physical")):
        if v in sp:
            out[f"{name} high"] = sp[v]["means"]["high"]
            out[f"{name} low"] = sp[v]["means"]["low"]
    return out


def f12ab_nocc(g: R.Grid) -> dict[str, float]:
    sp = C.f12ab_speedups(g, "70%").get(R.PHYS8_NOCC)
    out = {f"avg {k}": sp["means"][k] if sp else math.nan for k in ("high", "low", "all")}
    out["p99 all"] = sp["p99"]["all"] if sp else math.nan
    nocc = [r for r in g.results if r.cell.variant == R.PHYS8_NOCC]
    out["pauses/run"] = sum(r.stat("pfc_pause_frames") for r in nocc) / max(len(nocc), 1)
    return out


# ---------------------------------------------------------------------------------------
# The cells and the lines

NOISE_OFF = ("transport.delay_noise.scale=0",)


def m4_file(name: str, rows: list[str]) -> str:
    """A flow list for an M4 line (written under raw/, not committed): the harness's
    m4_high.csv or m4_low.csv with one field changed."""
    path = RAW / "m4_files" / name
    text = "src,dst,size,start\n" + "".join(r + "\n" for r in rows)
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(path.relative_to(A.EXP_DIR))  # a workload file is relative to the scenario file


M4_HIGH7 = m4_file("high_7MB.csv", ["0,4,7MB,0us", "1,4,7MB,0us"])
M4_HIGH10 = m4_file("high_10MB.csv", ["0,4,10MB,0us", "1,4,10MB,0us"])
M4_LOW_AT0 = m4_file("low_start0.csv", ["2,4,3MB,0us", "3,4,3MB,0us"])
F11_LARGE = ("N=8", "N=12", "N=16")
F11_LOW_N = ("N=2", "N=4", "N=6", "N=8")
F13_PP = tuple(f"{R.PP} B={b}" for b in R.F13_BS)
F13_POINTS = tuple(f"R={r}" for r in R.F13_RS)
# F12C's PrioPlus W_LS before 7b03fbe, one half at a time, as one setting each (the list from
# the top level down): the VGG levels (4-1) at 0.25 / 0.125 (now 0.2), or the ResNet levels 6
# and 5 at 0.25 (now 1.0).
F12C_OLD_WLS = ("transport.prioplus.linear_step=[1.0, 1.0, 1.0, 1.0, 0.25, 0.125, 0.125, 0.125]",)
F12C_OLD_WLS_RESNET = ("transport.prioplus.linear_step=[1.0, 1.0, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]",)

CELLS = [Cells(*a) for a in [
    # M4
    ("m4", "M4", "Swift min rate", ()),
    ("m4_high5", "M4", "Swift min rate", (), ("workload.0.file=m2_high.csv",)),
    ("m4_lowtarget1", "M4", "Swift min rate", (), ('transport.swift.level_targets=["1us", "25us"]',)),
    ("m4_nonoise", "M4", "Swift min rate", (), NOISE_OFF),
    ("m4_mdf1", "M4", "Swift min rate", (), ("transport.swift.max_mdf=1.0",)),
    ("m4_ai_tenth", "M4", "Swift min rate", (), ("transport.swift.ai=0.018",)),
    ("m4_beta16", "M4", "Swift min rate", (), ("transport.swift.beta=1.6",)),
    ("m4_hightarget50", "M4", "Swift min rate", (), ('transport.swift.level_targets=["5us", "50us"]',)),
    ("m4_high7", "M4", "Swift min rate", (), (f"workload.0.file={json.dumps(M4_HIGH7)}",)),
    ("m4_high10", "M4", "Swift min rate", (), (f"workload.0.file={json.dumps(M4_HIGH10)}",)),
    ("m4_low_at0", "M4", "Swift min rate", (), (f"workload.1.file={json.dumps(M4_LOW_AT0)}",)),
    # AC14
    ("ac14_pp", "AC14", R.PP, ()),
    ("ac14_swift", "AC14", "Swift (same target)", ()),
    ("ac14_swift_nonoise", "AC14", "Swift (same target)", (), NOISE_OFF),
    ("ac14_swift_ai2", "AC14", "Swift (same target)", (), ("transport.swift.ai=1.5",)),
    ("ac14_swift_ai5", "AC14", "Swift (same target)", (), ("transport.swift.ai=3.75",)),
    # F13
    ("f13_phys", "F13", R.PHYS, F13_POINTS),
    *[(f"f13_pp{b}", "F13", f"{R.PP} B={b}", F13_POINTS) for b in R.F13_BS],
    *[(f"f13_pp{b}_direct", "F13", f"{R.PP} B={b}", F13_POINTS, ("transport.prioplus.direct_start_levels=6",))
      for b in R.F13_BS],
    *[(f"f13_pp{b}_ls1", "F13", f"{R.PP} B={b}", F13_POINTS, ("transport.prioplus.linear_step=1.0",))
      for b in R.F13_BS],
    *[(f"f13_pp{b}_a8", "F13", f"{R.PP} B={b}", F13_POINTS, ('transport.prioplus.fluctuation="8us"',))
      for b in R.F13_BS],
    # F11
    ("f11_pp", "F11", R.PP, F11_LARGE),
    ("f11_star", "F11", R.PHYS_STAR, F11_LARGE),
    ("f11_star_ai_half", "F11", R.PHYS_STAR, F11_LARGE, ("transport.swift.ai=0.09",)),
    ("f11_star_mincwnd", "F11", R.PHYS_STAR, F11_LARGE, ("transport.swift.min_cwnd_pkts=0.1",)),
    ("f11_pp_nonoise", "F11", R.PP, F11_LARGE, NOISE_OFF),
    ("f11_phys", "F11", R.PHYS, F11_LOW_N),
    ("f11_phys_headroom50", "F11", R.PHYS, F11_LOW_N, ('switch.pfc.headroom="50000B"',)),
    ("f11_phys_buffer22", "F11", R.PHYS, F11_LOW_N, ('switch.pfc.dynamic.buffer="2200000B"',)),
    ("f11_phys_acks_top", "F11", R.PHYS, F11_LOW_N, ("switch.ack_priority=true",)),
    ("f11_phys_one_class", "F11", R.PHYS, F11_LOW_N, ("switch.pfc.per_priority=false",)),
    ("f11_phys_alpha8", "F11", R.PHYS, F11_LOW_N, ("switch.pfc.dynamic.alpha_shift=3",)),
    ("f11_hpcc", "F11", R.HPCC, ("N=8",)),
    ("f11_pp_nonoise_table", "F11", R.PP_NO_NOISE, ("N=8",)),
    ("f11_pp8_restart", "F11", R.PP, ("N=8",), ("transport.prioplus.restart_pkts=150",)),
    # F14
    ("f14_pp", "F14", R.PP, ()),
    ("f14_d2tcp", "F14", R.D2TCP, ()),
    ("f14_pp_nonoise", "F14", R.PP, (), NOISE_OFF),
    ("f14_d2tcp_dctcp", "F14", R.D2TCP, (), ("transport.d2tcp.deadline_factor_low=1.5",)),
    ("f14_d2tcp_k100", "F14", R.D2TCP, (), (
        'switch.ecn={ enabled = true, kmin = "100KiB", kmax = "400KiB", pmax = 0.2 }',)),
    ("f14_pp_restart", "F14", R.PP, (), ("transport.prioplus.restart_pkts=150",)),
    ("f14_pp_ls1", "F14", R.PP, (), ("transport.prioplus.linear_step=1.0",)),
    # F12C ([A] fabric)
    ("f12c_swift", "F12C", R.SWIFT_FLAT, (R.F12C_A,)),
    ("f12c_pp", "F12C", R.PP, (R.F12C_A,)),
    ("f12c_pp_nonoise", "F12C", R.PP, (R.F12C_A,), NOISE_OFF),
    ("f12c_pp_slack0", "F12C", R.PP, (R.F12C_A,), ("transport.prioplus.countdown_slack=0",)),
    ("f12c_pp_oldwls", "F12C", R.PP, (R.F12C_A,), F12C_OLD_WLS),
    ("f12c_pp_oldwls_resnet", "F12C", R.PP, (R.F12C_A,), F12C_OLD_WLS_RESNET),
    ("f12c_swift_nonoise", "F12C", R.SWIFT_FLAT, (R.F12C_A,), NOISE_OFF),
    # F12AB, 70 %
    ("f12ab_swift", "F12AB", R.SWIFT_FLAT, ("70%",)),
    ("f12ab_pp", "F12AB", R.PP, ("70%",)),
    ("f12ab_phys", "F12AB", R.PHYS, ("70%",)),
    ("f12ab_phys_ai_half", "F12AB", R.PHYS, ("70%",), ("transport.swift.ai=0.09",)),
    # H13: Physical w/o CC at 70 %, seed 3 only (its fastest seed: 609 s in the harness's run)
    ("f12ab_swift_s3", "F12AB", R.SWIFT_FLAT, ("70%",), (), (3,)),
    ("f12ab_nocc_s3", "F12AB", R.PHYS8_NOCC, ("70%",), (), (3,)),
    ("f12ab_nocc_s3_buf1m", "F12AB", R.PHYS8_NOCC, ("70%",), ('switch.pfc.dynamic.buffer_per_port="1MB"',), (3,)),
    ("f12ab_nocc_s3_one_class", "F12AB", R.PHYS8_NOCC, ("70%",), ("switch.pfc.per_priority=false",), (3,)),
    # The harness's switch.pfc less its [dynamic] table: fixed thresholds per (ingress link,
    # class), xoff = the 2 MiB port buffer less the headroom (docs/models/pfc.md).
    ("f12ab_nocc_s3_fixed", "F12AB", R.PHYS8_NOCC, ("70%",), ("switch.pfc:={ per_priority = true }",), (3,)),
]]
BY_KEY = {c.key: c for c in CELLS}
# The cells of the second round's lines (results_checks.md, "Second round"; --round 2 shows
# each check's table line and these).
ROUND2 = {"m4_mdf1", "m4_beta16", "m4_hightarget50", "m4_high7", "m4_ai_tenth", "m4_high10", "m4_low_at0", "f11_phys_acks_top", "f11_phys_one_class",
          "f11_phys_alpha8", "f12ab_swift_s3", "f12ab_nocc_s3", "f12ab_nocc_s3_buf1m", "f12ab_nocc_s3_one_class", "f12ab_nocc_s3_fixed",
          "f11_pp8_restart", "f14_pp_restart", "f14_pp_ls1"}

F13_BASE = ("f13_phys",) + tuple(f"f13_pp{b}" for b in R.F13_BS)
STUDIES = [
    Study("M4", "H24 / AC13", "M4: low flows' idle gap across the high flows' end", "≈ 80 µs (60-110)", (
        Line("table", ("m4",)),
        Line("high flows 5 MB (M2's file), not 3 MB", ("m4_high5",),
             "the low flows have longer to fall to their minimum"),
        Line("low level's target 1 µs, not 5 µs", ("m4_lowtarget1",), "the low flows cut harder"),
        Line("no NIC noise", ("m4_nonoise",)),
        Line("Swift's decrease cap lifted (max_mdf 1, not 0.5)", ("m4_mdf1",),
             "one decrease may take the window to the minimum"),
        Line("Swift's additive increase 0.018 packet, not 0.18", ("m4_ai_tenth",),
             "less increase between the cuts"),
        Line("Swift's decrease gain β 1.6, not 0.8", ("m4_beta16",), "each cut twice as deep for the same delay"),
        Line("high level's target 50 µs, not 25 µs", ("m4_hightarget50",),
             "a deeper standing queue: more delay above the low flows' target, so deeper cuts"),
        Line("high flows 7 MB, not 3 MB", ("m4_high7",)),
        Line("high flows 10 MB, not 3 MB", ("m4_high10",), "the low flows have far longer to fall"),
        Line("low flows start at 0 µs with the high flows, not 125 µs", ("m4_low_at0",),
             "the low flows fall for 125 µs more before the high flows end"),
    ), m4_figures, lambda f: 60 <= f["idle gap µs"] <= 110, "60-110 µs"),
    Study("AC14", "AC14", "plain Swift's queue samples above D_limit (after 1 ms)", "far more than PrioPlus's", (
        Line("table", ("ac14_pp", "ac14_swift")),
        Line("Swift without the NIC noise", ("ac14_pp", "ac14_swift_nonoise")),
        Line("Swift's additive increase 1.5 packets (2x its 0.75)", ("ac14_pp", "ac14_swift_ai2")),
        Line("Swift's additive increase 3.75 packets (5x its 0.75)", ("ac14_pp", "ac14_swift_ai5"),
             "25x the recommended 150 B: beyond the paper's setup"),
    ), ac14_figures, lambda f: f["Swift (same target) above D_limit"] >= max(0.05, 2 * f[f"{R.PP} above D_limit"]),
        "≥ 0.05 and ≥ 2x PrioPlus"),
    Study("F13", "H19 / AC19", "F13: smallest R whose gap to Physical+Swift is ≥ 0.5", "14 / 24 / 32 µs", (
        Line("table", F13_BASE),
        Line("PrioPlus: no probe before start (direct_start_levels = 6)",
             ("f13_phys",) + tuple(f"f13_pp{b}_direct" for b in R.F13_BS)),
        Line("PrioPlus: W_LS = 1 BDP at every level", ("f13_phys",) + tuple(f"f13_pp{b}_ls1" for b in R.F13_BS)),
        Line("PrioPlus: A = 8 µs, not 3.2 µs (channel spacing A + B)",
             ("f13_phys",) + tuple(f"f13_pp{b}_a8" for b in R.F13_BS),
             "A is the wrapped Swift's delay fluctuation; 3.2 µs is the paper's for 150 flows at 100 Gbps"),
    ), f13_figures, f13_meets, "each B within ± 4 µs of 14 / 24 / 32"),
    Study("H3", "H3 / AC15", "F11: large flows, PrioPlus / Physical*", "avg 0.59-0.75, p99 0.57-0.76", (
        Line("table", ("f11_pp", "f11_star")),
        Line("Physical*: Swift's additive increase halved (0.09)", ("f11_pp", "f11_star_ai_half"),
             "slower re-acceleration"),
        Line("Physical*: Swift's smallest window 0.1 packet (default 0.001)", ("f11_pp", "f11_star_mincwnd"),
             "shallower deceleration; its runs equal the table line's"),
        Line("PrioPlus without the NIC noise", ("f11_pp_nonoise", "f11_star")),
    ), f11_large, lambda f: all(0.59 <= f[f"{p} large avg"] <= 0.75 for p in F11_LARGE), "avg 0.59-0.75 at each N"),
    Study("H4", "H4 / AC15", "F11: Physical+Swift all flows, N = 8 / best N ≤ 6", "sharp rise", (
        Line("table", ("f11_phys",)),
        Line("PFC headroom 50 KB per lossless queue, not 37.5 KB", ("f11_phys_headroom50",),
             "with the 4 KiB reserve, 8 queues on 6 ports set aside 2.6 of the 2.64 MB"),
        Line("buffer 2.2 MB per switch, not 2.64 MB", ("f11_phys_buffer22",),
             "8 queues on 6 ports set aside 2.0 MB; 1.32 MB (half) left no shared pool at N = 6"),
        Line("ACKs at the top priority, not with their data", ("f11_phys_acks_top",),
             "the ACKs of the low levels no longer wait behind the higher levels"),
        Line("one PFC class for all data, not one per priority", ("f11_phys_one_class",),
             "a PAUSE stops every level of the link: pauses spread across levels"),
        Line("dynamic threshold α = 1/8, not 1/4", ("f11_phys_alpha8",),
             "each lossless queue's share of the pool halves, so the more levels back up the sooner each pauses"),
    ), f11_rise, lambda f: f["N=8 / best N≤6"] >= 1.25, "≥ 1.25"),
    Study("H10", "H10", "F11, N = 8: HPCC / PrioPlus+Swift, all flows", "avg ≥ 1.15, p99 ≥ 1.11", (
        Line("table", ("f11_hpcc", "f11_pp")),
        Line("PrioPlus without the NIC noise (the table's own row)", ("f11_hpcc", "f11_pp_nonoise_table")),
        Line("PrioPlus: 150 packets (about 1 BDP) after a probe that sees a non-empty queue, not 1",
             ("f11_hpcc", "f11_pp8_restart"), "ablate.py's F14 line that sped up the low levels' large flows"),
    ), f11_hpcc, lambda f: f["HPCC / PrioPlus avg"] >= 1.15 and f["HPCC / PrioPlus p99"] >= 1.11,
        "avg ≥ 1.15 and p99 ≥ 1.11"),
    Study("H18", "H18", "F14: all large flows, PrioPlus / D2TCP", "0.96 (4 % better)", (
        Line("table", ("f14_pp", "f14_d2tcp")),
        Line("PrioPlus without the NIC noise", ("f14_pp_nonoise", "f14_d2tcp")),
        Line("D2TCP: every deadline 1.5x (deadline_factor_low 12 → 1.5)", ("f14_pp", "f14_d2tcp_dctcp")),
        Line("D2TCP: RED marking at 100 / 400 KiB, not 400 / 1600 KiB", ("f14_pp", "f14_d2tcp_k100")),
        Line("PrioPlus: 150 packets (about 1 BDP) after a probe that sees a non-empty queue, not 1",
             ("f14_pp_restart", "f14_d2tcp"), "ablate.py's line: the low levels' large flows 0.76-0.83x Physical*'s"),
        Line("PrioPlus: W_LS = 1 BDP at every level", ("f14_pp_ls1", "f14_d2tcp")),
    ), f14_d2tcp, lambda f: f["PrioPlus / D2TCP"] <= 0.96, "≤ 0.96"),
    Study("F12C", "H8 / AC17", "F12C [A]: PrioPlus+Swift training speedup ResNet / VGG / total",
          "1.12 / 1.15 / 1.13 (± 0.05)", (
              Line("table", ("f12c_swift", "f12c_pp")),
              Line("PrioPlus without the NIC noise", ("f12c_swift", "f12c_pp_nonoise")),
              Line("PrioPlus: countdown slack 0 (default 2)", ("f12c_swift", "f12c_pp_slack0")),
              Line("PrioPlus: the VGG levels' W_LS as before 7b03fbe (0.25 at level 4, 0.125 below; now 0.2)",
                   ("f12c_swift", "f12c_pp_oldwls")),
              Line("PrioPlus: the ResNet levels 6 and 5 at W_LS 0.25 as before 7b03fbe (now 1.0)",
                   ("f12c_swift", "f12c_pp_oldwls_resnet")),
              Line("no NIC noise for both (the baseline too)", ("f12c_swift_nonoise", "f12c_pp_nonoise")),
          ), f12c_figures, f12c_meets, "each within ± 0.05"),
    Study("F12AB", "AC16", "F12AB 70 %: coflow CCT speedup PrioPlus − Physical (ratio of means)", "+0.21 ± 0.10", (
        Line("table", ("f12ab_swift", "f12ab_pp", "f12ab_phys")),
        Line("Physical+Swift: Swift's additive increase halved (0.09)", ("f12ab_swift", "f12ab_pp",
                                                                          "f12ab_phys_ai_half"),
             "as H3's line: slower re-acceleration after the higher levels leave"),
    ), f12ab_figures, lambda f: f["PrioPlus − Physical, all"] >= 0.11, "≥ +0.11"),
    Study("H13", "H13", "F12AB 70 %, seed 3: Physical w/o CC speedup over Swift (ratio of means)",
          "avg 0.03 / 0.24 / 0.03 (high / low / all)", (
              Line("table (seed 3)", ("f12ab_swift_s3", "f12ab_nocc_s3")),
              Line("PFC pool 1 MB per port, not 2 MiB", ("f12ab_swift_s3", "f12ab_nocc_s3_buf1m"),
                   "the PrioPlus artefact's other per-port buffer: half the shared pool, so each lossless "
                   "queue pauses at about half the bytes"),
              Line("one PFC class for all data, not one per priority", ("f12ab_swift_s3", "f12ab_nocc_s3_one_class"),
                   "a PAUSE stops every level of the link, so the lower levels' incasts block the higher levels"),
              Line("PFC fixed thresholds, not the dynamic pool", ("f12ab_swift_s3", "f12ab_nocc_s3_fixed"),
                   "each (ingress link, class) pauses at the 2 MiB port buffer less its headroom"),
          ), f12ab_nocc, lambda f: f["avg all"] <= 0.05, "avg all ≤ 0.05"),
]


def fmtv(x: float) -> str:
    if x is None or not math.isfinite(x):
        return "n/a" if x is None or math.isnan(x) else "none"
    return A.fmt(x, ".0f") if abs(x) >= 100 else A.fmt(x, ".3f") if abs(x) < 10 else A.fmt(x, ".1f")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="study keys, comma-separated: " + ", ".join(s.key for s in STUDIES))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--round", type=int, default=0, help="2: only each check's table line and the second round's")
    ap.add_argument("--harness-cache", type=Path, default=None,
                    help="a `dcnsim reproduce prioplus` cache folder: base cells whose scenario is there are read "
                         "from it, not simulated")
    a = ap.parse_args(argv)
    global HARNESS_CACHE
    HARNESS_CACHE = a.harness_cache
    want = [w.strip() for w in a.only.split(",") if w.strip()]
    studies = [s for s in STUDIES if (not want or s.key in want) and (a.round != 2 or any(
        set(ln.cells) & ROUND2 for ln in s.lines))]
    if a.list:
        for s in studies:
            for ln in s.lines:
                print(f"{s.key:<6} {ln.label:<70} {' '.join(ln.cells)}")
        return 0
    res: dict[str, list[R.RunResult]] = {}
    for s in studies:
        walls = []
        out = [f"\n### {s.check}: {s.what}\n", f"Paper: {s.paper}. Bar: {s.bar}.\n"]
        rows = []
        lines = [ln for ln in s.lines if a.round != 2 or ln.label.startswith("table") or set(ln.cells) & ROUND2]
        for ln in lines:
            runs = []
            for k in ln.cells:
                if k not in res:
                    res[k] = load(BY_KEY[k])
                runs += res[k]
            walls += [float(r.record.get("wall_seconds", 0.0)) for r in runs]
            f = s.figures(R.Grid(R.EXPERIMENTS[BY_KEY[ln.cells[0]].exp], runs))
            changed = dict.fromkeys(", ".join(BY_KEY[k].change) for k in ln.cells if BY_KEY[k].change)
            change = "; ".join(changed) or "—"  # the one setting (the same on every cells entry it changes)
            rows.append((ln, change, f, s.meets(f), len(runs)))
        names = list(rows[0][2])
        head = ["line", "change", *names, "meets the bar", "runs"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for ln, change, f, ok, n in rows:
            out.append("| " + " | ".join([ln.label, change.replace("|", "\\|"), *[fmtv(f[k]) for k in names],
                                          "yes" if ok else "no", str(n)]) + " |")
        notes = [f"- {ln.label}: {ln.note}" for ln in lines if ln.note]
        out += [""] + notes if notes else []
        out.append(f"\n({len(walls)} runs in the lines, {sum(walls) / max(len(walls), 1):.2f} s of one core a run "
                   "as stored.)")
        print("\n".join(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
