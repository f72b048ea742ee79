"""One-setting ablations of H10 (F11, N = 8): HPCC / PrioPlus+Swift FCT of all flows (paper p99 ≥ 1.11).

Each line is the harness's F11 N = 8 runs of both schemes (``runs.f11_runs``: the scenario file
``fig11_flow_scheduling.toml``, the harness's overrides, seeds 1..9, 18 runs), with one setting
changed in PrioPlus's runs. Base runs are checked to be the harness's own scenarios. The figure is
the harness's (``checks.f11_stats``: mean and p99 FCT of every flow, pooled over seeds).

Besides the harness's flow columns each run keeps ``priority`` and ``first_tx_us``, so the
per-flow table (--flows) splits the flows at or above the pooled p99 FCT by size and level.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f11.py            # every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f11.py --only table,pp_nocard
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f11.py --flows [--only pp_nocard]
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f11.py --trace --only pp_nocard
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f11.py --list

Runs are stored under ``raw/f11/`` (gzipped JSON, not committed) and reused while their scenario
is unchanged. The tables (markdown) go to stdout; f11.md holds them.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate as A  # noqa: E402  (storage: digests, cached records, the harness's seeded runs)
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402
from dcnsim.repro.papers.prioplus.metrics import KB, quantile  # noqa: E402

HERE = Path(__file__).resolve().parent
EXP_DIR = HERE.parent
RAW = HERE / "raw" / "f11"
SEEDS = tuple(range(1, 10))
COLUMNS = (*R._FLOW_COLUMNS, "priority", "first_tx_us")
POINT = "N=8"
PP, HPCC = R.PP, R.HPCC

# key → (the one changed setting in PrioPlus's runs, what the line says)
LINES: dict[str, tuple[tuple[str, ...], str]] = {
    "table": ((), "table (the harness's runs)"),
    "pp_nonoise": (("transport.delay_noise.scale=0",), "PrioPlus: no NIC noise"),
    "pp_nocard": (("transport.prioplus.cardinality=false",), "PrioPlus: no flow-count estimate (#flow = 1)"),
    "pp_target_est": (('transport.prioplus.flow_estimate="target"',),
                      "PrioPlus: the artefact's flow-count estimate (\"target\"), not the paper's"),
    "pp_restart150": (("transport.prioplus.restart_pkts=150",),
                      "PrioPlus: 150 packets after a probe that sees a non-empty queue, not 1"),
    "pp_fluct12": (('transport.prioplus.fluctuation="1.2us"',), "PrioPlus: A 1.2 µs, not 3.2 µs (spacing 2 µs)"),
    "pp_fluct72": (('transport.prioplus.fluctuation="7.2us"',), "PrioPlus: A 7.2 µs, not 3.2 µs (spacing 8 µs)"),
    "pp_fluct12us": (('transport.prioplus.fluctuation="12us"',),
                     "PrioPlus: A 12 µs, not 3.2 µs (spacing 12.8 µs)"),
    "pp_nostop": (("transport.prioplus.stop_below_pkts=1e-9",),
                  "PrioPlus: no stop below 0.1 packet of window (1e-9 packet)"),
    "pp_ls1": (("transport.prioplus.linear_step=1.0",), "PrioPlus: W_LS = 1 BDP at every level"),
    "pp_ai750": (("transport.prioplus.ai_bytes=750",), "PrioPlus: W_AI 750 B (the testbed's), not 150 B"),
    "pp_empty2": (('transport.prioplus.empty_tolerance="2us"',), "PrioPlus: empty-queue tolerance 2 µs, not 1 µs"),
    "pp_slack0": (("transport.prioplus.countdown_slack=0",),
                  "PrioPlus: countdown slack 0 rounds, not 2 (#flow halves sooner)"),
    "pp_gap": (('transport.prioplus.noise="0.4us"',), "PrioPlus: B 0.4 µs, not 0.8 µs (spacing 3.6 µs)"),
}


def runs_of(variant: str) -> R.Run:
    (run,) = [r for r in R.f11_runs(False) if r.variant == variant and r.point == POINT]
    return run


_HARNESS: dict[tuple[str, int], dict[str, Any]] = {}


def harness_spec(variant: str, seed: int) -> dict[str, Any]:
    if not _HARNESS:
        for c in R.build_cells(["F11"], len(SEEDS), False, EXP_DIR, "x"):
            if c.point == POINT:
                _HARNESS[(c.variant, c.seed)] = c.spec
    return _HARNESS[(variant, seed)]


def load(variant: str, change: tuple[str, ...], key: str) -> list[dict[str, Any]]:
    return A.seeded_runs("F11", runs_of(variant), SEEDS, change, key, RAW, COLUMNS, harness_spec)


def flows_of(recs: list[dict[str, Any]]) -> list[dict[str, float]]:
    out = []
    for r in recs:
        f = r["flows"]
        for i, s in enumerate(f["size"]):
            ok = f["finished"][i]
            out.append({"seed": r["seed"], "id": i, "prio": int(f["priority"][i]), "size": float(s),
                        "start": f["start_us"][i], "first": f["first_tx_us"][i],
                        "fct": float(f["fct_us"][i]) if ok else math.nan, "ideal": float(f["ideal_fct_us"][i])})
    return out


def stats(recs: list[dict[str, Any]]) -> tuple[int, float, float]:
    """The harness's ("all") cell: flows, mean FCT, p99 FCT (``metrics.bucket_stats``, pooled over seeds)."""
    xs = [f["fct"] for f in flows_of(recs) if math.isfinite(f["fct"])]
    return len(xs), sum(xs) / len(xs), quantile(xs, 0.99)


mean = A.mean


fmt = A.fmt


SIZE_BINS = (("< 300 KB", 0, 300 * KB), ("0.3-3 MB", 300 * KB, 3_000 * KB), ("3-6 MB", 3_000 * KB, 6_000 * KB),
             ("6-15 MB", 6_000 * KB, 15_000 * KB), ("≥ 15 MB", 15_000 * KB, math.inf))


def flow_table(recs: dict[str, list[dict[str, Any]]]) -> None:
    """Per-flow view: the flows at or above each scheme's pooled p99 FCT (size, level, slowdown),
    and mean slowdown (FCT / ideal FCT) by size bin and level for both schemes."""
    fl = {v: flows_of(r) for v, r in recs.items()}
    for v, fs in fl.items():
        _, _, p99 = stats(recs[v])
        top = sorted([f for f in fs if math.isfinite(f["fct"]) and f["fct"] >= p99], key=lambda f: -f["fct"])
        print(f"\n{v}: p99 FCT {p99:.0f} µs; {len(top)} flows at or above it (of {len(fs)}).\n")
        print("| level | flows ≥ p99 | mean size MB | mean FCT µs | mean slowdown | mean wait before first packet µs |")
        print("|---|---|---|---|---|---|")
        for lv in sorted({f["prio"] for f in top}):
            sel = [f for f in top if f["prio"] == lv]
            print(f"| {lv} | {len(sel)} | {mean([f['size'] for f in sel]) / 1e6:.1f} | "
                  f"{fmt(mean([f['fct'] for f in sel]))} | {fmt(mean([f['fct'] / f['ideal'] for f in sel]), '.2f')} | "
                  f"{fmt(mean([(f['first'] - f['start']) if f['first'] is not None else math.nan for f in sel]), '.1f')} |")
    print("\nMean slowdown (FCT / ideal FCT) by size and level, flows pooled over the 9 seeds "
          "(flows: PrioPlus / HPCC slowdown).\n")
    levels = sorted({f["prio"] for f in fl[PP]})
    print("| size | " + " | ".join(f"level {lv}" for lv in levels) + " |")
    print("|---|" + "---|" * len(levels))
    for name, lo, hi in SIZE_BINS:
        cells = []
        for lv in levels:
            a = [f["fct"] / f["ideal"] for f in fl[PP] if lo <= f["size"] < hi and f["prio"] == lv]
            b = [f["fct"] / f["ideal"] for f in fl[HPCC] if lo <= f["size"] < hi and f["prio"] == lv]
            cells.append(f"{len(a)}: {fmt(mean(a), '.2f')} / {fmt(mean(b), '.2f')}" if a else "-")
        print(f"| {name} | " + " | ".join(cells) + " |")
    # The same flows (seed, id) in both schemes: the p99 flows of PrioPlus, their FCT in HPCC.
    h = {(f["seed"], f["id"]): f for f in fl[HPCC]}
    _, _, p99 = stats(recs[PP])
    top = sorted([f for f in fl[PP] if math.isfinite(f["fct"]) and f["fct"] >= p99], key=lambda f: -f["fct"])
    print("\nPrioPlus's flows at or above its p99 (the 20 slowest), and the same flow in HPCC's run.\n")
    print("| seed | flow | level | size MB | PrioPlus FCT µs | wait µs | HPCC FCT µs | ideal µs |")
    print("|---|---|---|---|---|---|---|---|")
    for f in top[:20]:
        g = h.get((f["seed"], f["id"]), {})
        print(f"| {f['seed']} | {f['id']} | {f['prio']} | {f['size'] / 1e6:.1f} | {f['fct']:.0f} | "
              f"{fmt((f['first'] - f['start']) if f['first'] is not None else math.nan, '.1f')} | "
              f"{fmt(g.get('fct', math.nan))} | {f['ideal']:.0f} |")


# --- the trace diagnostic (--trace): each large flow's delivered bytes and window every TRACE_US ---

TRACE_US, TRACE_SEEDS = A.TRACE_US, A.TRACE_SEEDS
TRACE_MIN = 15_000 * KB  # the flows that make the p99 (levels 1-4 at N = 8)


def trace(variant: str, seed: int, key: str = "table") -> dict[str, Any]:
    """The run of ``variant`` and ``seed`` (PrioPlus with line ``key``'s change) with its flows of
    TRACE_MIN or more sampled every TRACE_US: per flow, its FCT split into intervals stopped
    (window 0), with a window below one packet ("tiny"), delivering below half the line rate with a
    larger window ("slow") and the rest."""
    change = LINES[key][0] if variant == PP else ()
    (base,) = [r for r in load(variant, change, key if change else "table") if r["seed"] == seed]
    f = base["flows"]
    large = [i for i, s in enumerate(f["size"]) if s >= TRACE_MIN]
    name = "".join(ch for ch in variant.lower() if ch.isalnum()) + (f"_{key}" if change else "")
    return A.trace_flows("F11", runs_of(variant), seed, change, f, large, variant == PP,
                         RAW / "trace" / f"{name}_seed{seed}.json.gz", COLUMNS, f"{variant} {key}")


def trace_table(keys: list[str]) -> None:
    print(f"Flows of 15 MB or more (levels 1-4) of seeds {', '.join(map(str, TRACE_SEEDS))}, delivered bytes and "
          f"window sampled every {TRACE_US:.0f} µs, each interval classed by the window at its start: flows, mean "
          "FCT, mean ideal FCT, mean time stopped (window 0), with a window below one packet (tiny), with a window "
          "of a packet or more but delivering below 50 Gbps (slow); PrioPlus's mean stops per flow and its "
          "time-averaged flow-count estimate #flow; µs.\n")
    print("| scheme | flows | FCT | ideal | stopped | tiny | slow | stops | #flow |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = [(PP, "table"), (HPCC, "table")] + [(PP, k) for k in keys if k != "table"]
    for v, key in rows:
        flows, same = [], True
        for seed in TRACE_SEEDS:
            t = trace(v, seed, key)
            flows += t["flows"]
            same &= t["same_fcts"]
        name = v if key == "table" else f"{v}, {LINES[key][1]}"
        m = {k: mean([x[k] for x in flows]) for k in ("fct", "ideal", "stopped", "tiny", "slow", "stops", "n_flow")}
        print(f"| {name}{'' if same else ' (FCTs differ from the untraced runs)'} | {len(flows)} | {fmt(m['fct'])} | "
              f"{fmt(m['ideal'])} | {fmt(m['stopped'])} | {fmt(m['tiny'])} | {fmt(m['slow'])} | "
              f"{fmt(m['stops'], '.1f') if v == PP else '-'} | {fmt(m['n_flow'], '.1f') if v == PP else '-'} |",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated line keys")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--flows", action="store_true", help="the per-flow tables of the base runs only")
    ap.add_argument("--trace", action="store_true", help="the per-flow trace of the large flows (plus --only lines)")
    a = ap.parse_args()
    if a.trace:
        trace_table(a.only.split(",") if a.only else [])
        return
    if a.list:
        for k, (ch, what) in LINES.items():
            print(f"{k:<14} {' '.join(ch) or '-'}  {what}")
        return
    base = {s: load(s, (), "table") for s in (PP, HPCC)}
    if a.flows:
        key = a.only or "table"  # one line key: its PrioPlus runs in place of the table's
        ch = LINES[key][0]
        flow_table({PP: load(PP, ch, key) if ch else base[PP], HPCC: base[HPCC]})
        return
    keys = a.only.split(",") if a.only else list(LINES)
    _, h_avg, h_p99 = stats(base[HPCC])
    print("| line (one setting changed) | runs | PrioPlus avg µs | PrioPlus p99 µs | HPCC avg µs | HPCC p99 µs "
          "| HPCC / PrioPlus avg | HPCC / PrioPlus p99 | meets p99 ≥ 1.11 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        ch, what = LINES[k]
        recs = load(PP, ch, k) if ch else base[PP]
        _, avg, p99 = stats(recs)
        n = len(recs) + len(base[HPCC])
        print(f"| {what} | {n} | {avg:.0f} | {p99:.0f} | {h_avg:.0f} | {h_p99:.0f} | {h_avg / avg:.3f} | "
              f"{h_p99 / p99:.3f} | {'yes' if h_p99 / p99 >= 1.11 else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
