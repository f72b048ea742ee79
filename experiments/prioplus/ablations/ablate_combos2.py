"""Combination ablations, second set: H19 / AC19 (F13, the smallest non-congestive delay R
whose FCT gap to Physical+Swift is ≥ 0.5, B = 10 / 20 / 30 µs, paper 14 / 24 / 32 µs) and
H4 (F11, Physical+Swift's avg FCT of all flows at N = 8 over the best N ≤ 6, paper "sharp
rise", our bar ≥ 1.25).

H19: the probe change (no probe before start, ``direct_start_levels = 6``) showed B = 10 alone
(results_checks.md). Each line here changes it together with one to three of the settings
that moved B = 20 or 30 in f13.md (W_LS = 1 BDP, Swift's β 1.6, the artefact's flow-count
estimate, countdown slack 0, W_AI 750 B, a smaller limit gap), in PrioPlus's runs only. The
settings are taken from ``ablate_f13.py``'s LINES, and the runs and figures are its and
``ablate_checks.py``'s: ``ablate_f13.cells`` (the harness's F13 sweep, R = 0, 2, ..., 60 µs,
seeds 1-3, base runs asserted to be the harness's scenarios), ``ablate_f13.figures``
(``checks.f13_gaps``, ``metrics.first_break``) and ``ablate_f13.level_gaps``.

H4: the three one-setting movers of results_checks.md (PFC headroom 50 KB per lossless queue,
buffer 2.2 MB per switch, dynamic threshold α = 1/8), two or three together, in
Physical+Swift's runs (N = 2, 4, 6, 8, seeds 1-9). Settings from ``ablate_checks.py``'s CELLS,
figure ``ablate_checks.f11_rise`` (``checks.f11_stats``), bar from its H4 study. A line that
leaves a switch no shared pool is refused by the core; the script tries N = 8, seed 1 first
and reports the refusal.

Every run, the table lines included, is stored under ``raw/combos2/`` (gzipped JSON, not
committed), apart from ``raw/checks/``, so that each line is rerun on the current core (the
cache key is the scenario, not the core).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos2.py                 # both, every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos2.py --check H19 --only table,direct_ls1
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos2.py --check H19 --seeds 4-9   # held-out seeds
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos2.py --list

The tables (markdown) go to stdout; combos2.md holds them.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (loader, storage, F11 figure and H4 bar)
import ablate_f13 as F13  # noqa: E402  (F13 cells, figures, per-level gaps)
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

HERE = Path(__file__).resolve().parent
AC.RAW = HERE / "raw" / "combos2"  # a folder of this script's own: every line rerun on this core

# --- H19 (F13) ---------------------------------------------------------------------------

_F13 = {ln.key: ln for ln in F13.LINES}


def f13_setting(key: str) -> tuple[str, ...]:
    """The one setting an ``ablate_f13`` line adds to the line it is on top of (PrioPlus's runs)."""
    ln = _F13[key]
    assert not ln.phys, key
    base = {"table": (), "direct": F13.DIRECT, "ls1": F13.DIRECT + F13.LS1}[ln.on]
    extra = tuple(x for x in ln.pp if x not in base)
    assert len(extra) == 1, key
    return extra


DIRECT, LS1 = f13_setting("direct"), f13_setting("ls1")
BETA16, FE, SLACK0, AI750 = f13_setting("beta16"), f13_setting("fe_target"), f13_setting("ls1_slack0"), \
    f13_setting("ai750")
GAP16, GAP20 = f13_setting("gap16"), f13_setting("gap20")
assert DIRECT == F13.DIRECT and LS1 == F13.LS1
F13_SHORT = {DIRECT: "no probe before start", LS1: "W_LS = 1 BDP", BETA16: "Swift's β 1.6",
             FE: "the artefact's #flow estimate", SLACK0: "countdown slack 0", AI750: "W_AI 750 B",
             GAP16: "limit gap 16 µs", GAP20: "limit gap 20 µs"}
ALL_B = R.F13_BS
B30 = (30,)  # limit gaps of 16 and 20 µs are valid (below A + B) only from B = 20 on; run at B = 30

# key → (the settings changed together in PrioPlus's runs, the B values run)
F13_LINES: dict[str, tuple[tuple[tuple[str, ...], ...], tuple[int, ...]]] = {
    "table": ((), ALL_B),
    "direct": ((DIRECT,), ALL_B),  # the one-setting line, rerun
    "direct_ls1": ((DIRECT, LS1), ALL_B),
    "direct_beta16": ((DIRECT, BETA16), ALL_B),
    "direct_fe": ((DIRECT, FE), ALL_B),
    "direct_beta16_fe": ((DIRECT, BETA16, FE), ALL_B),
    "direct_ls1_beta16": ((DIRECT, LS1, BETA16), ALL_B),
    "direct_ls1_fe": ((DIRECT, LS1, FE), ALL_B),
    "direct_ls1_slack0": ((DIRECT, LS1, SLACK0), ALL_B),
    "direct_ls1_beta16_fe": ((DIRECT, LS1, BETA16, FE), ALL_B),
    "direct_ls1_beta16_ai750": ((DIRECT, LS1, BETA16, AI750), ALL_B),
    # B = 30: the take-over (f13.md) is fast once the limit gap is 16-20 µs
    "direct_gap16": ((DIRECT, GAP16), B30),
    "direct_ls1_beta16_gap20": ((DIRECT, LS1, BETA16, GAP20), B30),
    "direct_ls1_beta16_gap16": ((DIRECT, LS1, BETA16, GAP16), B30),
    "direct_ls1_beta16_ai750_gap20": ((DIRECT, LS1, BETA16, AI750, GAP20), B30),
}


def f13_line(key: str) -> F13.Line:
    settings, bs = F13_LINES[key]
    what = " + ".join(F13_SHORT[s] for s in settings) or "table (the harness's runs)"
    return F13.Line(key, what, tuple(x for s in settings for x in s), on="", bs=bs)


def h19(keys: list[str]) -> None:
    rows = []
    for k in keys:
        ln, t = f13_line(k), time.time()
        res = [r for c in F13.cells(ln) for r in AC.load(dataclasses.replace(c, seeds=SEEDS))]
        g = R.Grid(R.EXPERIMENTS["F13"], res)
        rows.append((ln, F13.figures(g), g, len(res)))
        print(f"H19 {k}: {len(res)} runs, {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    print("| line | settings changed (PrioPlus's runs) | " + " | ".join(
        f"B={b} smallest R µs (paper {C.F13_PAPER[b]}) | B={b} gap at R=0" for b in ALL_B)
        + " | meets (± 4 µs) B=10 / 20 / 30 | runs |")
    print("|---|---|" + "---|---|" * len(ALL_B) + "---|---|")
    for ln, f, _, n in rows:
        cols, ok = [], []
        for b in ALL_B:
            if b not in ln.bs:
                cols += ["not run", "not run"]
                ok.append("—")
                continue
            brk = f[f"B={b} smallest R gap ≥ 0.5"]
            cols += [A_fmt(brk), f"{f[f'B={b} gap at R=0']:.2f}"]
            ok.append("yes" if math.isfinite(brk) and abs(brk - C.F13_PAPER[b]) <= 4 else "no")
        spelled = ", ".join(f"`{x}`" for x in ln.pp) or "—"
        print(f"| {ln.label} | {spelled} | " + " | ".join(cols) + f" | {' / '.join(ok)} | {n} |", flush=True)
    for b in ALL_B:
        print(f"\nGap to Physical+Swift at B = {b} µs, R = 0, 2, ..., 40 µs (mean over seeds {seeds_text()}):\n")
        print("| line | " + " | ".join(str(r) for r in range(0, 42, 2)) + " |")
        print("|---|" + "---|" * 21)
        for ln, f, _, _ in rows:
            if b in ln.bs:
                print(f"| {ln.key} | " + " | ".join(f[f"B={b} gaps"].split()) + " |")
    print("\nEach level's FCT against Physical+Swift's at R = 0 (`ablate_f13.level_gaps`: mean "
          "(PrioPlus − Physical) / Physical, in brackets the level's share of the gap):\n")
    print("| line | " + " | ".join(f"B={b}" for b in ALL_B) + " |")
    print("|---|" + "---|" * len(ALL_B))
    for ln, _, g, _ in rows:
        print(f"| {ln.key} | " + " | ".join(F13.level_gaps(g, b) if b in ln.bs else "not run" for b in ALL_B) + " |")


def A_fmt(x: float) -> str:
    return f"{x:.0f}" if math.isfinite(x) else "none ≤ 60"


# --- H4 (F11, Physical+Swift) ----------------------------------------------------------------

H4 = next(s for s in AC.STUDIES if s.key == "H4")
HEADROOM50 = AC.BY_KEY["f11_phys_headroom50"].change
BUFFER22 = AC.BY_KEY["f11_phys_buffer22"].change
ALPHA8 = AC.BY_KEY["f11_phys_alpha8"].change
# The largest headroom that leaves a pool at N = 8 with the 2.2 MB buffer: 8 queues on 6
# ports set aside 48 × (41 500 + 4 096) = 2 188 608 B, a pool of 11 392 B (50 KB: none).
HEADROOM415 = ('switch.pfc.headroom="41500B"',)
ALPHA16 = ("switch.pfc.dynamic.alpha_shift=4",)
H4_SHORT = {HEADROOM50: "headroom 50 KB", BUFFER22: "buffer 2.2 MB", ALPHA8: "α = 1/8",
            HEADROOM415: "headroom 41.5 KB", ALPHA16: "α = 1/16"}
H4_LINES: dict[str, tuple[tuple[str, ...], ...]] = {
    "table": (),
    "headroom50_alpha8": (HEADROOM50, ALPHA8),
    "buffer22_alpha8": (BUFFER22, ALPHA8),
    "headroom50_buffer22": (HEADROOM50, BUFFER22),  # no shared pool at N = 8
    "all3": (HEADROOM50, BUFFER22, ALPHA8),  # no shared pool at N = 8
    # the nearest that the core takes: the headroom lowered until the 2.2 MB leave a pool at N = 8
    "headroom415_buffer22_alpha8": (HEADROOM415, BUFFER22, ALPHA8),
    "headroom415_buffer22": (HEADROOM415, BUFFER22),
    # the one-setting lines, rerun on this core
    "headroom50": (HEADROOM50,),
    "buffer22": (BUFFER22,),
    "alpha8": (ALPHA8,),
    # beyond the three: the nearest feasible three with α halved again
    "headroom415_buffer22_alpha16": (HEADROOM415, BUFFER22, ALPHA16),
}


def h4_cells(key: str, points: tuple[str, ...] = AC.F11_LOW_N, seeds: tuple[int, ...] = ()) -> AC.Cells:
    change = tuple(x for s in H4_LINES[key] for x in s)
    return AC.Cells("f11_phys" if key == "table" else f"f11_phys_{key}", "F11", R.PHYS, points, change, seeds)


def h4(keys: list[str]) -> None:
    print("| line | settings changed (Physical+Swift's runs) | N=2 all avg µs | N=4 | N=6 | N=8 | N=8 / best N≤6 "
          "| pauses/run | meets ≥ 1.25 | runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        c, t = h4_cells(k), time.time()
        what = " + ".join(H4_SHORT[s] for s in H4_LINES[k]) or "table (the harness's runs)"
        spelled = (", ".join(f"`{x}`" for x in c.change) or "—").replace("|", "\\|")
        try:  # the one run that a switch without a pool fails first
            AC.load(h4_cells(k, ("N=8",), (1,)))
        except SystemExit as e:
            why = str(e).split(": ", 1)[-1].split("; raise")[0]  # the core's message, less its advice
            print(f"| {what} | {spelled} | not run: the core refuses N = 8 ({why}) "
                  "| | | | | | — | 0 |", flush=True)
            continue
        runs = AC.load(dataclasses.replace(c, seeds=SEEDS))
        f = AC.f11_rise(R.Grid(R.EXPERIMENTS["F11"], runs))
        print(f"| {what} | {spelled} | " + " | ".join(f"{f[f'N={n} all avg µs']:.0f}" for n in (2, 4, 6, 8))
              + f" | {f['N=8 / best N≤6']:.3f} | {f['pauses/run']:.0f} | {'yes' if H4.meets(f) else 'no'} "
              f"| {len(runs)} |", flush=True)
        print(f"H4 {k}: {len(runs)} runs, {time.time() - t:.0f} s", file=sys.stderr, flush=True)


SEEDS: tuple[int, ...] = ()  # empty: the harness's (1-3 for F13, 1-9 for F11); --seeds picks others


def seeds_text() -> str:
    return f"{SEEDS[0]}-{SEEDS[-1]}" if SEEDS else "1-3"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", choices=("H19", "H4", "both"), default="both")
    ap.add_argument("--only", help="comma-separated line keys, in the order to run them")
    ap.add_argument("--seeds", default="", help="first-last seed, e.g. 4-9 (held-out seeds); default the harness's")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    global SEEDS
    if a.seeds:
        lo, hi = map(int, a.seeds.split("-"))
        SEEDS = tuple(range(lo, hi + 1))
    checks = ("H19", "H4") if a.check == "both" else (a.check,)
    for chk in checks:
        table = F13_LINES if chk == "H19" else H4_LINES
        keys = [k for k in (a.only.split(",") if a.only else table) if k in table]
        if a.list:
            for k in keys:
                print(f"{chk:<4} {k:<32} {f13_line(k).pp if chk == 'H19' else h4_cells(k).change}")
            continue
        print(f"\n{chk}" + (f", seeds {seeds_text()}" if SEEDS else "") + "\n")
        (h19 if chk == "H19" else h4)(keys)


if __name__ == "__main__":
    main()
