"""One-setting ablations of H18 (F14): all large flows, PrioPlus+Swift / D2TCP (paper 0.96).

Each line is the harness's F14 runs of both schemes (``runs.f14_runs``: the scenario file
``fig14_twelve_levels.toml``, the harness's overrides, seeds 1..9, 18 runs), with one
setting changed in one scheme's runs (the line says which). Base runs are checked to be
the harness's own scenarios. The figure is the harness's (``checks.f14_cells``: the mean
FCT of every flow of 6 MB or more, pooled over seeds).

Besides the harness's flow columns each run keeps ``priority`` and ``first_tx_us`` (when
the flow's first data packet left), so the per-flow tables split the large flows by level
and separate the wait before the first data packet from the rest of the FCT.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f14.py            # every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f14.py --only table,pp_nostop
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f14.py --list

Runs are stored under ``raw/f14/`` (gzipped JSON, not committed) and reused while their
scenario is unchanged. The tables (markdown) go to stdout; f14.md holds them.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate as A  # noqa: E402  (storage: digests, cached records, the harness's seeded runs)
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402
from dcnsim.repro.papers.prioplus.metrics import KB  # noqa: E402

HERE = Path(__file__).resolve().parent
EXP_DIR = HERE.parent
RAW = HERE / "raw" / "f14"
SEEDS = tuple(range(1, 10))
COLUMNS = (*R._FLOW_COLUMNS, "priority", "first_tx_us")
LARGE = 6_000 * KB
PP, D2 = R.PP, R.D2TCP

# key → (scheme whose runs change, the one changed setting, what the line says)
LINES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "table": (PP, (), "table (the harness's runs)"),
    "pp_nostop": (PP, ("transport.prioplus.stop_below_pkts=1e-9",),
                  "PrioPlus: no stop below 0.1 packet of window (the paper has none; 1e-9 packet)"),
    "pp_stop09": (PP, ("transport.prioplus.stop_below_pkts=0.9",),
                  "PrioPlus: stop and probe below 0.9 packet of window, not 0.1"),
    "pp_stop05": (PP, ("transport.prioplus.stop_below_pkts=0.5",),
                  "PrioPlus: stop and probe below 0.5 packet of window, not 0.1"),
    "pp_target_est": (PP, ('transport.prioplus.flow_estimate="target"',),
                      "PrioPlus: the artefact's flow-count estimate (\"target\"), not the paper's"),
    "pp_nocard": (PP, ("transport.prioplus.cardinality=false",), "PrioPlus: no flow-count estimate (#flow = 1)"),
    "pp_ai750": (PP, ("transport.prioplus.ai_bytes=750",), "PrioPlus: W_AI 750 B (the testbed's), not 150 B"),
    "pp_direct": (PP, ("transport.prioplus.direct_start_levels=12",), "PrioPlus: no probe before start"),
    "pp_gap": (PP, ('transport.prioplus.noise="0.4us"',), "PrioPlus: B 0.4 µs, not 0.8 µs (spacing 3.6 µs)"),
    "pp_beta": (PP, ("transport.swift.beta=0.4",), "PrioPlus: Swift's decrease gain β 0.4, not 0.8"),
    "pp_slack0": (PP, ("transport.prioplus.countdown_slack=0",), "PrioPlus: countdown slack 0 rounds, not 2"),
    "pp_filter1": (PP, ("transport.prioplus.filter=1",), "PrioPlus: stop on 1 sample above D_limit, not 2"),
    "pp_ls_low": (PP, ("transport.prioplus.linear_step=0.25",), "PrioPlus: W_LS = 0.25 BDP at every level"),
    "pp_empty2": (PP, ('transport.prioplus.empty_tolerance="2us"',),
                  "PrioPlus: empty-queue tolerance 2 µs, not 1 µs"),
    "pp_fluct12": (PP, ('transport.prioplus.fluctuation="1.2us"',), "PrioPlus: A 1.2 µs, not 3.2 µs (spacing 2 µs)"),
    "pp_fluct72": (PP, ('transport.prioplus.fluctuation="7.2us"',), "PrioPlus: A 7.2 µs, not 3.2 µs (spacing 8 µs)"),
    "pp_fluct12us": (PP, ('transport.prioplus.fluctuation="12us"',),
                     "PrioPlus: A 12 µs, not 3.2 µs (spacing 12.8 µs)"),
    "pp_restart150": (PP, ("transport.prioplus.restart_pkts=150",),
                      "PrioPlus: 150 packets after a probe that sees a non-empty queue, not 1"),
    "pp_ls1": (PP, ("transport.prioplus.linear_step=1.0",), "PrioPlus: W_LS = 1 BDP at every level"),
    "d2_k100": (D2, ('switch.ecn={ enabled = true, kmin = "100KiB", kmax = "400KiB", pmax = 0.2 }',),
                "D2TCP: RED marking at 100 / 400 KiB, not 400 / 1600 KiB"),
    "d2_dl15": (D2, ("transport.d2tcp.deadline_factor_low=1.5",), "D2TCP: every deadline 1.5x the ideal FCT"),
    "d2_g16": (D2, ("transport.d2tcp.g=0.0625",), "D2TCP: g = 1/16 (the DCTCP paper's), not 1/256"),
    "d2_ai": (D2, ("transport.d2tcp.ai_bdp=0.0067",), "D2TCP: growth 1 packet per RTT (0.0067 BDP), not 0.01 BDP"),
}
# Reference schemes shown in the per-level tables only (the harness's runs, no change).
REFS = (R.PHYS_STAR, R.PHYS_NOCC)


def runs_of(variant: str) -> R.Run:
    (run,) = [r for r in R.f14_runs(False) if r.variant == variant]
    return run


_HARNESS: dict[tuple[str, int], dict[str, Any]] = {}


def harness_spec(variant: str, seed: int) -> dict[str, Any]:
    if not _HARNESS:
        for c in R.build_cells(["F14"], len(SEEDS), False, EXP_DIR, "x"):
            _HARNESS[(c.variant, c.seed)] = c.spec
    return _HARNESS[(variant, seed)]


def load(variant: str, change: tuple[str, ...], key: str) -> list[dict[str, Any]]:
    return A.seeded_runs("F14", runs_of(variant), SEEDS, change, key, RAW, COLUMNS, harness_spec)


def large_mean(recs: list[dict[str, Any]]) -> float:
    """The harness's figure: ``checks.f14_cells``' ("large", "all") on a grid of these runs."""
    results = [R.RunResult(R.Cell.of("F14", runs_of(PP), r["seed"], {}),
                           {"complete": r["complete"], "flows": r["flows"], "stats": r["stats"]}) for r in recs]
    sizes, fcts, _ = R.pooled(results)
    return C.bucket_stats(sizes, fcts, LARGE, math.inf)[1]


def large_flows(recs: list[dict[str, Any]]) -> list[dict[str, float]]:
    out = []
    for r in recs:
        f = r["flows"]
        for i, s in enumerate(f["size"]):
            if s >= LARGE:
                ok = f["finished"][i]
                out.append({"prio": int(f["priority"][i]), "size": float(s), "start": f["start_us"][i],
                            "first": f["first_tx_us"][i], "fct": f["fct_us"][i] if ok else math.nan,
                            "ideal": f["ideal_fct_us"][i]})
    return out


mean = A.mean


def per_level(flows: list[dict[str, float]]) -> dict[str, tuple[int, float, float, float]]:
    """level group → (flows, mean FCT, mean ideal FCT, mean wait before the first data packet)."""
    groups = {"12": (12, 12), "9-11": (9, 11), "7-8": (7, 8), "4-6": (4, 6), "1-3": (1, 3), "all": (1, 12)}
    out = {}
    for name, (lo, hi) in groups.items():
        sel = [f for f in flows if lo <= f["prio"] <= hi]
        out[name] = (len(sel), mean([f["fct"] for f in sel]), mean([f["ideal"] for f in sel]),
                     mean([(f["first"] - f["start"]) if f["first"] is not None else math.nan for f in sel]))
    return out


# --- the trace diagnostic (--trace): each large flow's delivered bytes every TRACE_US -------

TRACE_US, TRACE_SEEDS = A.TRACE_US, A.TRACE_SEEDS


def trace(variant: str, seed: int, key: str = "table") -> dict[str, Any]:
    """The base run of ``variant`` and ``seed`` with its large flows sampled every TRACE_US
    (delivered bytes, and PrioPlus's stop counter): per large flow, its FCT split into
    intervals stopped (window 0), with a window below one packet ("tiny"), delivering below half the
    line rate with a larger window ("slow") and the rest."""
    change = LINES[key][1] if key != "table" and LINES[key][0] == variant else ()
    (base,) = [r for r in load(variant, change, key if change else "table") if r["seed"] == seed]
    f = base["flows"]
    large = [i for i, s in enumerate(f["size"]) if s >= LARGE]
    name = "".join(ch for ch in variant.lower() if ch.isalnum()) + (f"_{key}" if change else "")
    return A.trace_flows("F14", runs_of(variant), seed, change, f, large, variant == PP,
                         RAW / "trace" / f"{name}_seed{seed}.json.gz", COLUMNS, f"{variant} {key}")


def trace_table(keys: list[str]) -> None:
    print(f"Large flows (≥ 6 MB) of seeds {', '.join(map(str, TRACE_SEEDS))}, delivered bytes sampled every "
          f"{TRACE_US:.0f} µs, each interval classed by the window at its start: mean FCT, mean time stopped "
          "(window 0), with a window below one packet (tiny), with a window of a packet or more but delivering "
          "below 50 Gbps (slow); mean PrioPlus stops per flow and its time-averaged flow-count estimate #flow; µs.\n")
    groups = {"12": (12, 12), "9-11": (9, 11), "7-8": (7, 8), "4-6": (4, 6), "1-3": (1, 3), "all": (1, 12)}
    print("| scheme | " + " | ".join(f"levels {g}" for g in groups) + " |")
    print("|---|" + "---|" * len(groups))
    rows = [(v, "table") for v in (PP, D2, R.PHYS_NOCC)] + [(LINES[k][0], k) for k in keys if k != "table"]
    for v, key in rows:
        flows, same = [], True
        for seed in TRACE_SEEDS:
            t = trace(v, seed, key)
            flows += t["flows"]
            same &= t["same_fcts"]
        cells = []
        for lo, hi in groups.values():
            sel = [x for x in flows if lo <= x["prio"] <= hi]
            cells.append(f"{len(sel)}: FCT {fmt(mean([x['fct'] for x in sel]))}, stopped "
                         f"{fmt(mean([x['stopped'] for x in sel]))}, tiny {fmt(mean([x['tiny'] for x in sel]))}, "
                         f"slow {fmt(mean([x['slow'] for x in sel]))}"
                         + (f", stops {fmt(mean([x['stops'] for x in sel]), '.1f')}, #flow "
                            f"{fmt(mean([x['n_flow'] for x in sel]), '.1f')}" if v == PP else ""))
        name = v if key == "table" else f"{v}, {LINES[key][2]}"
        print(f"| {name}{'' if same else ' (FCTs differ from the untraced runs)'} | " + " | ".join(cells) + " |")


fmt = A.fmt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated line keys")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--trace", action="store_true",
                    help="the per-flow trace diagnostic only (the table's three schemes, plus the --only lines)")
    a = ap.parse_args()
    if a.trace:
        trace_table(a.only.split(",") if a.only else [])
        return
    if a.list:
        for k, (v, ch, what) in LINES.items():
            print(f"{k:<14} {v:<16} {' '.join(ch) or '-'}  {what}")
        return
    keys = a.only.split(",") if a.only else list(LINES)
    base = {s: load(s, (), "table") for s in (PP, D2, *REFS)}
    refs = {s: per_level(large_flows(base[s])) for s in REFS}
    print("| line (one setting changed) | PrioPlus large µs | D2TCP large µs | PrioPlus / D2TCP | meets ≤ 0.96 |")
    print("|---|---|---|---|---|")
    detail = {}
    for k in keys:
        v, ch, what = LINES[k]
        recs = {PP: base[PP], D2: base[D2]}
        if ch:
            recs[v] = load(v, ch, k)
        pp, d2 = large_mean(recs[PP]), large_mean(recs[D2])
        print(f"| {what} | {fmt(pp)} | {fmt(d2)} | {fmt(pp / d2, '.3f')} | {'yes' if pp / d2 <= 0.96 else 'no'} |",
              flush=True)
        detail[k] = (what, {s: per_level(large_flows(recs[s])) for s in (PP, D2)})
    print("\nLarge flows (≥ 6 MB) by level: flows, mean FCT µs, mean ideal FCT µs, mean wait before the "
          "first data packet µs (pooled over the 9 seeds).\n")
    for k, (what, d) in detail.items():
        print(f"{what}\n")
        print("| scheme | " + " | ".join(f"levels {g}" for g in d[PP]) + " |")
        print("|---|" + "---|" * len(d[PP]))
        rows = [(s, d[s]) for s in (PP, D2)] + ([(f"{s} (reference)", refs[s]) for s in REFS] if k == "table" else [])
        for s, cells in rows:
            print(f"| {s} | " + " | ".join(f"{n}: {fmt(fc)} (ideal {fmt(i)}, wait {fmt(w, '.1f')})"
                                         for n, fc, i, w in cells.values()) + " |")
        print()


if __name__ == "__main__":
    main()
