"""Ablation runs behind the SMaRTT checks that fail.

docs/reproductions/smartt-paper.md, section "Checks that fail, and why (measured)", quotes
the numbers this script prints. Each check has a list of rows: the harness's experiment
(scenario file, point, variant) and one change at a time. Every row is run like the
harness runs its cells (same scenario files, the same REPS/UEC ACK overrides, the same
duration cap and metrics), one at a time in one process, over the seeds in the check's note
(--seeds N for seeds 1..N). All checks take about 25 min on one core.

    PYTHONPATH=python python experiments/smartt/ablations/ablate.py A3          # E1 at full size
    PYTHONPATH=python python experiments/smartt/ablations/ablate.py F8 --quick  # 128 hosts
    PYTHONPATH=python python experiments/smartt/ablations/ablate.py --list

Without --quick the rows run at the harness's full size (1024 hosts; E15 has 128), as the
section quotes them. Check ids: A3, A5, F8, F9, A8, A11, A6, A10.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dcnsim._scenario import load_scenario
from dcnsim.repro.core import simulate
from dcnsim.repro.papers.smartt import runs as R

EXP_DIR = Path(__file__).resolve().parents[1]
COLUMNS = R._FLOW_COLUMNS


@dataclass(frozen=True)
class Row:
    label: str
    exp: str            # the harness's experiment key (its scenario file, observe, ideal)
    overrides: tuple[str, ...]
    point: tuple[str, ...] = ()   # the point's overrides (incast size etc.)
    small: bool = False           # always on the 128-host tree (the harness's --quick size)


def smartt(*extra: str, lb: str = "reps") -> tuple[str, ...]:
    return R.nscc(*extra, lb=lb)


def simulate_row(row: Row, seed: int, quick: bool, observe: dict | None = None) -> tuple[dict, float]:
    """One run of ``row`` as the harness runs its cell: the simulate() record (flow table,
    counters) and the cell's ideal, µs. ``observe`` replaces the experiment's [observe]."""
    e = R.EXPERIMENTS[row.exp]
    overrides = [*(e.quick_overrides if quick or row.small else ()), *row.overrides, *row.point, f"seed={seed}"]
    spec, root = load_scenario(EXP_DIR / e.toml, overrides)
    ideal = R.ideal_of(row.exp, spec)
    if math.isfinite(ideal):
        spec["duration"] = f"{math.ceil(R.CAP_FACTOR * ideal + 1000)}us"
    sampled = e.observe is not None or row.exp in ("E11", "E11b")
    if row.exp in ("E11", "E11b"):
        spec["output"] = dict(R.CWND_SAMPLING)
    if e.observe is not None:
        spec["observe"] = dict(e.observe)
    if observe is not None:
        spec["observe"] = dict(observe)
    rec = simulate(spec, str(root), COLUMNS, summarize=R.cwnd_summary if sampled else None)
    if "error" in rec:
        raise SystemExit(f"{row.label}: {rec['error']}")
    return rec, ideal


def run_row(row: Row, seed: int, quick: bool) -> dict[str, float]:
    rec, ideal = simulate_row(row, seed, quick)
    m = R.run_metrics(rec["flows"], rec["stats"], ideal, rec.get("extra"))
    st = rec["stats"]
    m["retransmits"] = float(st.get("retransmits") or 0)
    # Resends that no NACK asked for (timeouts, loss detection): retransmits - NACKs.
    m["other_resends"] = m["retransmits"] - float(st.get("nacks") or 0)
    m["ecn_marks"] = float(st.get("ecn_marks") or 0)
    m["wall_s"] = rec["wall_seconds"]
    return m


SHOW = ("max_fct_us", "mean_fct_us", "spread", "completion_us", "rel_perf", "trims", "timeouts", "other_resends",
        "ecn_marks", "reps_recycle_ratio", "ss_nacks", "ss_cwnd_cv", "undershoot", "mean_queue_kb", "agg_cwnd_mb")


def fmt(x: float) -> str:
    if isinstance(x, float) and math.isnan(x):
        return "-"
    if abs(x) >= 100:
        return f"{x:.1f}"
    return f"{x:.3f}"


def run_check(rows: list[Row], seeds: int, quick: bool) -> None:
    for row in rows:
        per_seed = [run_row(row, s, quick) for s in range(1, seeds + 1)]
        mean = {k: sum(p[k] for p in per_seed) / len(per_seed) for k in per_seed[0]}
        print(f"  {row.label:<40} " + " ".join(f"{k}={fmt(mean[k])}" for k in SHOW if not math.isnan(mean[k]))
              + f"  ({mean['wall_s']:.1f} s)", flush=True)


# ---------------------------------------------------------------------------------------
# The checks: one change per row against the harness's row of its block; a label that lists
# several changes has all of them and is compared with the row that has all but the last.

UEC = R.UEC_ACKS
PER_PACKET_ACKS = ('transport.ack_policy="tcp"', "transport.ack_ratio=1")

CHECKS: dict[str, tuple[str, list[Row]]] = {}


def check(key: str, note: str, rows: list[Row]) -> None:
    CHECKS[key] = (note, rows)


RTO_1MS = ('transport.nscc.rto="1ms"',)   # no spurious expiry reaches it; no packet is dropped in these runs
IW_BDP = ('transport.nscc.initial_cwnd="bdp"',)
QA_OFF = ("transport.nscc.quick_adapt=false",)
FI_OFF = ("transport.nscc.fast_increase=false",)
MPRDMA = ("transport.cc=mprdma", *R.on_lb("ops"))
EQDS = ("transport.cc=eqds", *R.on_lb("reps"))
SWIFT = ("transport.cc=swift", *R.on_lb("reps"))
MIB = 1 << 20
KIB = 1 << 10

check("A3", "E1 (8:1 tree, 2 MiB permutation): SMaRTT's max FCT against MPRDMA's; 3 seeds", [
    Row("SMaRTT (harness: REPS, UEC ACKs)", "E1", smartt()),
    Row("SMaRTT, OPS (UEC ACKs kept)", "E1", ("transport.cc=nscc", "transport.lb=ops", *UEC)),
    Row("SMaRTT, per-packet ACKs (REPS)", "E1", smartt(*PER_PACKET_ACKS)),
    Row("SMaRTT, UEC ACK every 2 packets", "E1", smartt("transport.ack_ratio=2")),
    Row("SMaRTT, UEC ACK every packet", "E1", smartt("transport.ack_ratio=1")),
    Row("SMaRTT, RTO 1 ms", "E1", smartt(*RTO_1MS)),
    Row("SMaRTT, initial window 1 BDP", "E1", smartt(*IW_BDP)),
    Row("SMaRTT, QuickAdapt off", "E1", smartt(*QA_OFF)),
    Row("SMaRTT, FastIncrease off", "E1", smartt(*FI_OFF)),
    Row("SMaRTT, OPS, per-packet ACKs", "E1", smartt(lb="ops")),
    Row("SMaRTT, RTO 1 ms, initial window 1 BDP", "E1", smartt(*RTO_1MS, *IW_BDP)),
    Row("SMaRTT, RTO 1 ms, QuickAdapt off", "E1", smartt(*RTO_1MS, *QA_OFF)),
    Row("SMaRTT, RTO 1 ms, target 2.0 brtt", "E1", smartt(*RTO_1MS, "transport.nscc.target_ratio=2.0")),
    Row("SMaRTT, QuickAdapt off, initial window 1 BDP", "E1", smartt(*QA_OFF, *IW_BDP)),
    Row("MPRDMA (harness: OPS, per-packet ACKs)", "E1", MPRDMA),
    Row("MPRDMA, REPS, UEC ACKs", "E1", ("transport.cc=mprdma", *R.on_lb("reps"))),
    Row("MPRDMA, REPS, UEC ACKs, initial window 1.5 BDP", "E1",
        ("transport.cc=mprdma", *R.on_lb("reps"), 'transport.mprdma={ initial_cwnd = "maxwnd" }')),
])

check("A5", "E1 and E14: trims of SMaRTT and EQDS against the flow size; 1 seed (EQDS at 8 MiB takes 3 min)", [
    Row("SMaRTT 2 MiB (harness)", "E1", smartt()),
    Row("SMaRTT 8 MiB", "E1", smartt(), ("workload.0.size=8MiB",)),
    Row("SMaRTT 2 MiB, initial window 1 BDP", "E1", smartt(*IW_BDP)),
    Row("EQDS 2 MiB (harness)", "E1", EQDS),
    Row("EQDS 2 MiB, pull rate 1/8 (the core's fair share)", "E1", (*EQDS, "transport.eqds={ pull_rate = 0.125 }")),
    Row("EQDS 8 MiB", "E1", EQDS, ("workload.0.size=8MiB",)),
    Row("E14 at 128 hosts (32 MiB + one 64 MiB): SMaRTT", "E14", smartt(), small=True),
    Row("E14 at 128 hosts (32 MiB + one 64 MiB): EQDS", "E14", EQDS, small=True),
])


def _incast(n: int, size: int) -> tuple[str, ...]:
    return (f"workload.0.senders={n}", f"workload.0.size={size}")


check("F8", "E8 (non-blocking, N x 2 MiB into host 0): QuickAdapt on / off; 3 seeds", [
    Row(f"{n}x2MiB QA {qa}, {label}", "E8", smartt(*(() if qa == "on" else QA_OFF), *extra), _incast(n, 2 * MIB))
    for n in (32, 64)
    for label, extra in (("harness", ()), ("RTO 1 ms", RTO_1MS), ("per-packet ACKs", PER_PACKET_ACKS),
                         ("RTO 1 ms, initial window 1 BDP", (*RTO_1MS, *IW_BDP)))
    for qa in ("on", "off")
])

check("F9", "E9 (32 x 2 MiB into host 0): ignore phase on / off; 3 seeds", [
    Row(f"ignore {ig}, {label}", "E9", smartt(f"transport.nscc.qa_ignore={ig}", *extra), _incast(32, 2 * MIB))
    for label, extra in (("harness", ()), ("RTO 1 ms", RTO_1MS), ("per-packet ACKs", PER_PACKET_ACKS))
    for ig in ("true", "false")
])

check("A8", "E5 (80 x 2 MiB into host 0): both signals / ECN only / delay only; 3 seeds", [
    Row(f"{sig}, {label}", "E5", smartt(f'transport.nscc.signals="{sig}"', *extra), ("workload.0.size=2MiB",))
    for label, extra in (("harness", ()), ("per-packet ACKs", PER_PACKET_ACKS), ("RTO 1 ms", RTO_1MS),
                         ("QuickAdapt off", QA_OFF), ("QuickAdapt off, per-packet ACKs", (*QA_OFF, *PER_PACKET_ACKS)))
    for sig in ("both", "ecn_only", "delay_only")
])

check("A11", "E12 (non-blocking, N x 256 KiB into a random host): SMaRTT's relative performance; 3 seeds", [
    Row(f"{n}x256KiB {label}", "E12", v, _incast(n, 256 * KIB))
    for n in (32, 50)
    for label, v in (("SMaRTT (harness)", smartt()), ("SMaRTT, QuickAdapt off", smartt(*QA_OFF)),
                     ("SMaRTT, ignore phase off", smartt("transport.nscc.qa_ignore=false")),
                     ("SMaRTT, FastIncrease off", smartt(*FI_OFF)), ("SMaRTT, RTO 1 ms", smartt(*RTO_1MS)),
                     ("SMaRTT, per-packet ACKs", smartt(*PER_PACKET_ACKS)), ("MPRDMA (harness)", MPRDMA),
                     ("Swift (harness)", SWIFT))
])


def _a2a(k: int, size: int) -> tuple[str, ...]:
    return (f"workload.0.window={k}", f"workload.0.size={size}")


check("A6", "E15 (128 hosts, aggregation 4:1, windowed all-to-all): SMaRTT per cell; 3 seeds", [
    Row(f"k{k} {size // KIB}KiB {label}", "E15", smartt(*extra), _a2a(k, size))
    for k, size in ((1, 128 * KIB), (8, 128 * KIB), (16, 512 * KIB), (1, MIB))
    for label, extra in (("harness", ()), ("RTO 1 ms", RTO_1MS), ("per-packet ACKs", PER_PACKET_ACKS),
                         ("initial window 1 BDP", IW_BDP), ("QuickAdapt off", QA_OFF), ("FastIncrease off", FI_OFF),
                         ("target 2.0 brtt", ("transport.nscc.target_ratio=2.0",)))
])

check("A10", "E11 (non-blocking, 8 MiB permutation), OPS: Case 2 no-op / decrease; 1 seed (about 30 s a run)", [
    Row(f"OPS {c}, {label}", "E11", smartt(f'transport.nscc.case2="{c}"', *extra, lb="ops"))
    for label, extra in (("harness (RED 20-80 %)", ()),
                         ("RED 5-20 % of the buffer",
                          ('switch.ecn={ enabled = true, kmin = 58240, kmax = 232960, on = "dequeue" }',)))
    for c in ("noop", "decrease")
])


def alltoall_k1_bound_us(size: int, quick: bool = True) -> tuple[float, float]:
    """E15 at k = 1: a host sends its 127 messages one after another, each starting when
    the previous one is delivered, so its completion is at least the sum over its
    destinations of (its bytes at line rate + the one-way delay of that path). Returns
    (that bound, the harness's per-node ideal), µs."""
    spec, _ = load_scenario(EXP_DIR / "e15_alltoall.toml", _a2a(1, size))
    fab = R.Fabric.of(spec)
    ser = R.ser_us(fab.wire(size), fab.rate)

    def one_way(links: int, switches: int) -> float:
        return links * fab.link_latency_us + switches * fab.switch_latency_us + links * R.ser_us(fab.mtu, fab.rate)

    rack, pod = fab.hosts_per_tor - 1, fab.hosts_per_pod - fab.hosts_per_tor
    other = fab.hosts - fab.hosts_per_pod
    bound = (fab.hosts - 1) * ser + rack * one_way(2, 1) + pod * one_way(4, 3) + other * one_way(6, 5)
    return bound, R.ideal_alltoall_us(size, fab)


def a11_trace(quick: bool) -> None:
    """E12, 32 and 50 x 256 KiB, seed 1: the receiver's queue and the sum of the live
    windows every 4 µs (where the receiver's link idles), QuickAdapt on and off."""
    from dcnsim._ext import core
    from dcnsim._run import drive
    from dcnsim._scenario import scenario_json
    from dcnsim._timeseries import select

    for n, qa in ((n, qa) for n in (32, 50) for qa in ("on", "off")):
        ov = [*(R.QUICK_HOSTS if quick else ()), *smartt(*(() if qa == "on" else QA_OFF)), *_incast(n, 256 * KIB),
              "seed=1"]
        spec, root = load_scenario(EXP_DIR / "e12_incast.toml", ov)
        sim = core().Simulation(scenario_json(spec), str(root))
        drive(sim)
        dst = sim.flows()["dst"][0]
        spec["observe"] = {"interval": "1us", "ports": [f"*->h{dst}"], "flows": "all", "metrics": ["cwnd", "queue"]}
        sim = core().Simulation(scenario_json(spec), str(root))
        drive(sim)
        ts = sim.timeseries()
        q = select(ts, "port", "queue_bytes")
        c = select(ts, "flow", "cwnd_bytes")
        agg: dict[float, float] = {}
        for t, v in zip(c[0], c[2]):
            agg[float(t)] = agg.get(float(t), 0.0) + float(v)
        done = max(float(x) for x in sim.flows()["finish_us"])
        empty = [round(float(t)) for t, v in zip(q[0], q[2]) if v == 0 and float(t) > 10]
        print(f"  {n}x256KiB QA {qa}: receiver h{dst}, completion {done:.1f} µs; "
              f"queue empty at 1-µs samples (after 10 µs): {len(empty)}: {empty}")
        print("   " + " ".join(f"{float(t):.0f}:{float(v) / 1e3:.0f}/{agg.get(float(t), 0) / 1e3:.0f}"
                              for t, v in list(zip(q[0], q[2]))[::4]) + "  (µs: queue KB / sum of windows KB)")


SEEDS = {"A3": 3, "F8": 3, "F9": 3, "A8": 3, "A11": 3, "A6": 3}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checks", nargs="*", help="check ids (default: all)")
    ap.add_argument("--quick", action="store_true", help="128-host trees (the harness's --quick)")
    ap.add_argument("--seeds", type=int, default=0, help="seeds 1..N (default: the check's, in its note)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    keys = args.checks or list(CHECKS)
    for key in keys:
        note, rows = CHECKS[key]
        if args.list:
            print(f"{key}: {note}; " + "; ".join(r.label for r in rows))
            continue
        print(f"{key}: {note} ({'128 hosts' if args.quick else 'full size'})", flush=True)
        t = time.time()
        run_check(rows, args.seeds if args.seeds else SEEDS.get(key, 1), args.quick)
        if key == "A6":
            for size in (128 * KIB, MIB):
                bound, ideal = alltoall_k1_bound_us(size)
                print(f"  k1 {size // KIB}KiB: per-node ideal {ideal:.1f} µs; k = 1 bound with each message's "
                      f"one-way delay {bound:.1f} µs ({bound / ideal:.3f} x the ideal)")
        if key == "A11":
            a11_trace(args.quick)
        print(f"  [{time.time() - t:.0f} s]", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
