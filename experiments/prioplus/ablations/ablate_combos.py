"""Combination ablations of H18 (F14, all large flows, PrioPlus+Swift / D2TCP, paper 0.96) and
H10 (F11, N = 8, HPCC / PrioPlus+Swift p99 of all flows, paper ≥ 1.11).

The three largest one-setting movers toward both bars (f14.md, f11.md) were: no flow-count
estimate (``pp_nocard``), A = 12 µs (``pp_fluct12us``) and 150 packets after a probe that sees
a non-empty queue (``pp_restart150``). Each line here changes two or three of them together in
PrioPlus's runs only (the other scheme's runs are the harness's); the one-setting lines are
rerun too, and two lines go beyond the three (W_LS = 1 BDP added; D2TCP's threshold changed as
well, F14 only). The settings are taken from
the one-setting scripts' LINES tables (``ablate_f14.py``, ``ablate_f11.py``), and the runs,
harness checks and figures are theirs: ``ablate.seeded_runs`` (base runs asserted to be the
harness's own scenarios), ``ablate_f14.large_mean`` (``checks.f14_cells``' large/all) and
``ablate_f11.stats`` (``checks.f11_stats``' all-flow mean and p99), seeds 1..9.

Runs are stored under ``raw/f14_combo/`` and ``raw/f11_combo/`` (gzipped JSON, not committed),
apart from the one-setting scripts' ``raw/f14`` and ``raw/f11`` so that every line, the table
line included, is rerun on the current core (the cache key is the scenario, not the core).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py               # both, every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py --exp F14 --only table,nocard_fluct
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py --seeds 10-18   # held-out seeds
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py --trace --exp F11  # where time goes
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py --levels --exp F14
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos.py --list

The tables (markdown) go to stdout; combos.md holds them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate as A  # noqa: E402  (the harness's seeded runs, cached)
import ablate_f11 as F11  # noqa: E402  (its runs, harness scenarios and figure)
import ablate_f14 as F14  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

HERE = Path(__file__).resolve().parent
RAW = {"F14": HERE / "raw" / "f14_combo", "F11": HERE / "raw" / "f11_combo"}
PP = F14.PP


def _setting(key: str) -> tuple[str, ...]:
    """One line's changed setting, the same in both one-setting scripts (PrioPlus's runs)."""
    v, ch14, _ = F14.LINES[key]
    ch11, _ = F11.LINES[key]
    assert v == PP and ch14 == ch11, key
    return ch14


NOCARD, FLUCT, RESTART = _setting("pp_nocard"), _setting("pp_fluct12us"), _setting("pp_restart150")
LS1 = _setting("pp_ls1")
D2_K100 = F14.LINES["d2_k100"][1]
SHORT = {NOCARD: "no #flow estimate", FLUCT: "A = 12 µs", RESTART: "150 pkts after a busy probe",
         LS1: "W_LS = 1 BDP", D2_K100: "D2TCP: RED at 100 / 400 KiB"}

# key → the settings changed together in PrioPlus's runs (none: the harness's table line)
LINES: dict[str, tuple[tuple[str, ...], ...]] = {
    "table": (),
    "nocard_fluct": (NOCARD, FLUCT),
    "nocard_restart": (NOCARD, RESTART),
    "all3": (NOCARD, FLUCT, RESTART),
    "fluct_restart": (FLUCT, RESTART),
    # the one-setting lines, rerun on this core for the comparison
    "nocard": (NOCARD,),
    "fluct": (FLUCT,),
    "restart": (RESTART,),
    # beyond the three: the next PrioPlus mover of f14.md (W_LS = 1 BDP, H18 1.129) on the best pair
    "nocard_fluct_ls1": (NOCARD, FLUCT, LS1),
    # F14 only, not a PrioPlus setting: the best pair against D2TCP marking at 100 / 400 KiB
    # (f14.md's d2_k100, H18 1.155), to see how far the bar rests on D2TCP's threshold
    "nocard_fluct_d2k100": (NOCARD, FLUCT),
}
# key → the settings changed in the other scheme's runs (F14's D2TCP); these lines are F14's only
OTHER: dict[str, tuple[str, ...]] = {"nocard_fluct_d2k100": D2_K100}


def change_of(key: str) -> tuple[str, ...]:
    return tuple(s for setting in LINES[key] for s in setting)


def what(key: str) -> str:
    parts = [SHORT[s] for s in LINES[key]] + ([SHORT[OTHER[key]]] if key in OTHER else [])
    return " + ".join(parts) or "table (the harness's runs)"


def spelled(key: str) -> str:
    out = ", ".join(f"`{s}`" for s in change_of(key)) or "—"
    if key in OTHER:
        out += "; D2TCP's runs: " + ", ".join(f"`{s}`" for s in OTHER[key])
    return out.replace("|", "\\|")


SEEDS = F14.SEEDS  # the harness's 1..9 (--seeds picks others, e.g. 10-18 as a held-out check)
assert SEEDS == F11.SEEDS
_HARNESS: dict[tuple[str, int], dict[tuple[str, int], dict[str, Any]]] = {}


def harness_spec(exp: str, n: int) -> Any:
    """The harness's scenario of (variant, seed) for seeds 1..n (``build_cells``, F11 at N = 8)."""
    def spec(variant: str, seed: int) -> dict[str, Any]:
        if (exp, n) not in _HARNESS:
            _HARNESS[(exp, n)] = {(c.variant, c.seed): c.spec for c in R.build_cells([exp], n, False, F14.EXP_DIR, "x")
                                  if exp == "F14" or c.point == F11.POINT}
        return _HARNESS[(exp, n)][(variant, seed)]
    return spec


def load(exp: str, variant: str, key: str) -> list[dict[str, Any]]:
    mod = F14 if exp == "F14" else F11
    change = change_of(key) if variant == PP else OTHER.get(key, ())
    if variant != PP:  # the other scheme's changed runs: a folder of their own
        key += "_" + "".join(ch for ch in variant.lower() if ch.isalnum())
    return A.seeded_runs(exp, mod.runs_of(variant), SEEDS, change, key, RAW[exp], mod.COLUMNS,
                         harness_spec(exp, max(SEEDS)))


def f14(keys: list[str]) -> None:
    d2_table = F14.large_mean(load("F14", F14.D2, "table"))
    print("| line | settings changed | PrioPlus large µs | D2TCP large µs | PrioPlus / D2TCP "
          "| meets ≤ 0.96 |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        pp = F14.large_mean(load("F14", PP, k))
        d2 = F14.large_mean(load("F14", F14.D2, k)) if k in OTHER else d2_table
        print(f"| {what(k)} | {spelled(k)} | {pp:.0f} | {d2:.0f} | {pp / d2:.3f} | {'yes' if pp / d2 <= 0.96 else 'no'} |",
              flush=True)
    # References (the harness's runs, no change): the ideal strict-priority schemes against D2TCP.
    for v in F14.REFS:
        x = F14.large_mean(load("F14", v, "table"))
        print(f"| reference: {v} (harness's runs) | — | {x:.0f} | {d2_table:.0f} | {x / d2_table:.3f} | — |",
              flush=True)


def f14_levels(keys: list[str]) -> None:
    """Mean FCT (µs) of the large flows by level group, pooled over the seeds (``ablate_f14.per_level``)."""
    rows = [(f"{v} (harness's runs)", load("F14", v, "table")) for v in (F14.D2, *F14.REFS)]
    rows += [(f"PrioPlus+Swift, {what(k)}", load("F14", PP, k)) for k in keys]
    cells = [(name, F14.per_level(F14.large_flows(recs))) for name, recs in rows]
    print("| large flows, mean FCT µs | " + " | ".join(f"levels {g}" for g in cells[0][1]) + " |")
    print("|---|" + "---|" * len(cells[0][1]))
    for name, c in cells:
        print(f"| {name} | " + " | ".join(f"{F14.fmt(fc)} ({n})" for n, fc, _, _ in c.values()) + " |")


def f11(keys: list[str]) -> None:
    _, h_avg, h_p99 = F11.stats(load("F11", F11.HPCC, "table"))
    print("| line | settings changed (PrioPlus's runs) | PrioPlus avg µs | PrioPlus p99 µs | HPCC avg µs | HPCC p99 µs "
          "| HPCC / PrioPlus avg | HPCC / PrioPlus p99 | meets p99 ≥ 1.11 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in [k for k in keys if k not in OTHER]:
        _, avg, p99 = F11.stats(load("F11", PP, k))
        print(f"| {what(k)} | {spelled(k)} | {avg:.0f} | {p99:.0f} | {h_avg:.0f} | {h_p99:.0f} | {h_avg / avg:.3f} | "
              f"{h_p99 / p99:.3f} | {'yes' if h_p99 / p99 >= 1.11 else 'no'} |", flush=True)


def trace(exp: str, keys: list[str]) -> None:
    """The one-setting scripts' per-flow trace (--trace, seeds 1-3) of the large flows, on this
    script's runs: their loaders pointed at this script's raw folder, the combination lines
    added to their LINES tables for the run."""
    mod = F14 if exp == "F14" else F11
    mod.RAW = RAW[exp]
    keys = [k for k in keys if k not in OTHER]  # the trace changes PrioPlus's runs only
    for k in keys:
        if LINES[k]:
            mod.LINES[k] = (PP, change_of(k), what(k)) if exp == "F14" else (change_of(k), what(k))
    mod.trace_table(keys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exp", choices=("F14", "F11", "both"), default="both")
    ap.add_argument("--only", help="comma-separated line keys, in the order to run them")
    ap.add_argument("--seeds", default="1-9", help="first-last seed (default the harness's 1-9)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--trace", action="store_true", help="the per-flow trace of the large flows (seeds 1-3)")
    ap.add_argument("--levels", action="store_true", help="F14: the large flows' mean FCT by level group")
    a = ap.parse_args()
    global SEEDS
    lo, hi = map(int, a.seeds.split("-"))
    SEEDS = tuple(range(lo, hi + 1))
    if a.list:
        for k in LINES:
            print(f"{k:<16} {' '.join(change_of(k)) or '-'}  {what(k)}")
        return
    keys = a.only.split(",") if a.only else list(LINES)
    for exp in (("F14", "F11") if a.exp == "both" else (a.exp,)):
        print(f"\n{exp}" + ("" if a.trace else f", seeds {SEEDS[0]}-{SEEDS[-1]}") + "\n")
        if a.trace:
            trace(exp, keys)
        elif a.levels and exp == "F14":
            f14_levels(keys)
        else:
            (f14 if exp == "F14" else f11)(keys)


if __name__ == "__main__":
    main()
