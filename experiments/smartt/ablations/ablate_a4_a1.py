"""Ablation runs behind two SMaRTT rows of experiments/smartt/RESULTS.md that had no run:
A4 in E14 (SMaRTT >= 15 % below the best of Swift and MPRDMA) and A1's window bullet in
paper mode (the CI-size incast of crates/dcnsim/tests/it/smartt_scenarios.rs).

Each row changes one setting of the failing cell, with the same seeds. The rows and their
machinery come from ablate.py (Row, simulate_row, the variants' overrides).

    PYTHONPATH=python python experiments/smartt/ablations/ablate_a4_a1.py A4          # full size, 3 seeds
    PYTHONPATH=python python experiments/smartt/ablations/ablate_a4_a1.py A4 --quick  # 128 hosts
    PYTHONPATH=python python experiments/smartt/ablations/ablate_a4_a1.py A1          # 54 hosts, seeds 1-3

A4: E14 at the harness's full size (1024 hosts; a run took 27-72 s on a shared 2-core
machine). Per row and seed it prints the completion (the last flow's finish), the 64 MiB
flow's finish, the last 32 MiB flow's finish and the 64 MiB flow's time after it.

A1: the test's scenario (54-host non-blocking tree, 16 or 32 senders of 8 MiB into host 0,
NSCC in paper mode on REPS), built here as the test builds it, run through the Python API
with every flow's window sampled every 0.1 µs. It prints the windows 3 target RTTs after
the first NACK (the test's bullet), and per sender class ("pod-local": a base RTT below
the inter-pod 11.453 µs, i.e. in the receiver's rack or pod; and the other pods) the
window's range over 3-40 target RTTs and the throughput over 6-40 inter-pod target RTTs,
both against the fair share.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ablate as A  # noqa: E402

RAW = Path(__file__).resolve().parent / "a4_a1_raw"

# ---------------------------------------------------------------------------------------
# A4 (E14)

# The harness's Swift (e14_permutation_32mib.toml: ai 1, no flow scaling, 413-packet window,
# RACK reordering wait, SMaRTT's target; REPS with UEC ACKs), then one setting each.
A4_ROWS = [
    A.Row("Swift (harness)", "E14", A.SWIFT),
    A.Row("Swift, ai 7.64 (1 MTU per RTT scaled by BDP / 150 kB)", "E14", (*A.SWIFT, "transport.swift.ai=7.64")),
    A.Row("Swift, ai 0.5", "E14", (*A.SWIFT, "transport.swift.ai=0.5")),
    A.Row("Swift, flow scaling fs_range 28.635 us (htsim: 5 x base target)", "E14",
          (*A.SWIFT, 'transport.swift.fs_range="28.635us"')),
    A.Row("Swift, max window 1000 packets (htsim's)", "E14", (*A.SWIFT, "transport.swift.max_cwnd_pkts=1000")),
    A.Row("Swift, reorder wait 0 (a hole is a loss at once)", "E14",
          (*A.SWIFT, 'transport.swift.reorder_wait="auto"')),
    A.Row("Swift, per-packet ACKs", "E14", (*A.SWIFT, *A.PER_PACKET_ACKS)),
    A.Row("SMaRTT (harness)", "E14", A.smartt()),
    A.Row("MPRDMA (harness)", "E14", A.MPRDMA),
    # The best other once Swift is slowed: MPRDMA (harness: OPS, per-packet ACKs), one setting each.
    A.Row("MPRDMA, REPS with UEC ACKs", "E14", ("transport.cc=mprdma", *A.R.on_lb("reps"))),
    A.Row("MPRDMA, variant htsim_dctcp (uet-htsim's dctcp sender)", "E14",
          (*A.MPRDMA, 'transport.mprdma.variant="htsim_dctcp"')),
]


def e14_numbers(rec: dict[str, Any]) -> dict[str, float]:
    f = rec["flows"]
    large = [x for t, x in zip(f["tag"], f["finish_us"]) if t == "large"]
    small = [x for t, x in zip(f["tag"], f["finish_us"]) if t != "large"]
    st = rec["stats"]
    return {"completion_us": max(f["finish_us"]), "large_us": large[0], "last_32_us": max(small),
            "tail_us": large[0] - max(small), "trims": float(st.get("trims") or 0),
            "timeouts": float(st.get("timeouts") or 0), "wall_s": rec["wall_seconds"]}


def run_a4(seeds: int, quick: bool, only: list[str]) -> None:
    size = "128 hosts" if quick else "1024 hosts"
    print(f"A4: E14 ({size}), seeds 1..{seeds}; means over seeds, µs", flush=True)
    print("| row | completion | 64 MiB flow | last 32 MiB flow | 64 MiB after it | trims | timeouts | per seed: "
          "completion / 64 MiB after the last 32 MiB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in A4_ROWS:
        if only and not any(o.lower() in row.label.lower() for o in only):
            continue
        per = []
        for s in range(1, seeds + 1):
            rec, _ = A.simulate_row(row, s, quick)
            n = e14_numbers(rec)
            per.append(n)
            RAW.mkdir(exist_ok=True)
            (RAW / f"a4_{'q_' if quick else ''}{_slug(row.label)}_s{s}.json").write_text(json.dumps(n))
        m = {k: sum(p[k] for p in per) / len(per) for k in per[0]}
        seeds_txt = "; ".join(f"{p['completion_us']:.1f} / {p['tail_us']:.1f}" for p in per)
        print(f"| {row.label} | {m['completion_us']:.1f} | {m['large_us']:.1f} | {m['last_32_us']:.1f} | "
              f"{m['tail_us']:.1f} | {m['trims']:.0f} | {m['timeouts']:.0f} | {seeds_txt} |  "
              f"({m['wall_s']:.0f} s a run)", flush=True)


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label.lower())[:60]


# ---------------------------------------------------------------------------------------
# A1 (the CI-size incast of crates/dcnsim/tests/it/smartt_scenarios.rs)

WIRE = 4160
PAYLOAD = 4096
LINK_BPS = 800e9


def a1_spec(n: int, seed: int, overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    """The test's scenario (common/smartt.rs's `scenario(true, ...)` with the A1 incast),
    with ``overrides`` (the one setting) applied."""
    import tomllib

    from dcnsim._scenario import apply_overrides
    toml = f"""
seed = {seed}
[topology]
kind = "fat_tree"
tiers = 3
hosts = 54
link_rate = "800Gbps"
link_latency = "600ns"
switch_latency = "400ns"
mtu = "4160B"
[switch]
buffer = {276 * WIRE}
trimming = true
ecn = {{ kmin = {56 * WIRE}, kmax = {221 * WIRE}, on = "dequeue" }}
[transport]
cc = "nscc"
lb = "reps"
nscc.mode = "smartt_paper"
[[workload]]
kind = "incast"
receiver = 0
senders = {n}
size = "{8 << 20}B"
"""
    return apply_overrides(tomllib.loads(toml), overrides)


def _col(c: Any) -> list[Any]:
    return [c[1][i] for i in c[0]] if isinstance(c, tuple) else c


def _series(spec: dict[str, Any], observe: dict[str, Any]) -> tuple[Any, float, dict[str, np.ndarray]]:
    """Runs ``spec`` with ``observe``, stepping 100 ns at a time to the first NACK as the
    test does; returns the simulation, that time (µs) and the time series as arrays."""
    from dcnsim._ext import core
    from dcnsim._scenario import scenario_json
    spec = dict(spec, observe=observe)
    sim = core().Simulation(scenario_json(spec), ".")
    while sim.stats()["nacks"] == 0:
        sim.run_until(sim.now_ps + 100_000)
        assert sim.now_ps < 200_000_000, "no NACK in the first 200 us"
    first_nack = sim.now_ps / 1e6
    while not sim.run_until(sim.now_ps + 10**9):
        pass
    ts = sim.timeseries()
    arr = {"id": np.array(ts["id"]), "t": np.array(ts["time_us"]), "metric": np.array(_col(ts["metric"])),
           "v": np.array(ts["value"], dtype=float)}
    return sim, first_nack, arr


def a1_run(n: int, seed: int, overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    spec = a1_spec(n, seed, overrides)
    # The targets and base RTTs from a coarse run (they settle at once), the windows and
    # delivered bytes from a fine one: the same run twice, deterministic.
    _, _, cc = _series(spec, {"interval": "50us", "ports": "none", "flows": "all", "metrics": ["cc"]})
    sim, fn, w = _series(spec, {"interval": "0.1us", "ports": "none", "flows": "all", "metrics": ["cwnd"]})
    flows = sim.flows()
    finish = max(flows["finish_us"])
    out: dict[str, Any] = {"n": n, "seed": seed, "first_nack_us": fn, "finish_us": finish,
                           "trims": sim.stats().get("trims"), "flows": []}
    fair_rate = LINK_BPS / 8 / n  # bytes per second each
    trtt_far = 0.0
    per = []
    for f in range(n):
        def last(metric: str) -> float:
            m = (cc["id"] == f) & (cc["metric"] == metric)
            return float(cc["v"][m][-1])
        trtt, brtt = last("cc.target_us"), last("cc.base_rtt_us")
        trtt_far = max(trtt_far, trtt)
        m = w["id"] == f
        t = w["t"][m & (w["metric"] == "cwnd_bytes")]
        # The test reads NSCC's own window, in payload bytes; the sample is in wire bytes.
        c = w["v"][m & (w["metric"] == "cwnd_bytes")] * PAYLOAD / WIRE
        # Delivered payload, counted on the wire like the fair rate.
        d = w["v"][m & (w["metric"] == "delivered_bytes")] * WIRE / PAYLOAD
        per.append((f, int(flows["src"][f]), brtt, trtt, t, c, d))
    for f, src, brtt, trtt, t, c, d in per:
        fair = fair_rate * trtt * 1e-6

        def at(x: float) -> float:
            return float(c[max(0, np.searchsorted(t, x, side="right") - 1)] / fair)

        span = (t >= fn + 3 * trtt) & (t <= fn + 40 * trtt)
        r = c[span] / fair
        t0, t1 = fn + 6 * trtt_far, fn + 40 * trtt_far
        i0, i1 = (min(int(np.searchsorted(t, x)), len(t) - 1) for x in (t0, t1))
        thr = (d[i1] - d[i0]) / ((t[i1] - t[i0]) * 1e-6) / fair_rate
        out["flows"].append({"flow": f, "src": src, "brtt_us": brtt, "trtt_us": trtt,
                             "at": {k: at(fn + k * trtt) for k in (3, 6, 10, 20, 40)},
                             "min": float(r.min()), "max": float(r.max()),
                             "share_outside": float(((r < 0.5) | (r > 2.0)).mean()), "thr": float(thr)})
    return out


def a1_summary(res: dict[str, Any]) -> dict[str, Any]:
    far = max(f["brtt_us"] for f in res["flows"])
    near = [f for f in res["flows"] if f["brtt_us"] < far - 1e-6]
    rest = [f for f in res["flows"] if f["brtt_us"] >= far - 1e-6]
    out3 = [f for f in res["flows"] if not 0.5 <= f["at"][3] <= 2.0]
    if not near:
        near = [{"at": {k: float("nan") for k in (3, 6, 10, 20, 40)}, "min": float("nan"), "max": float("nan"),
                 "share_outside": float("nan"), "thr": float("nan")}]
    return {
        "out3": len(out3), "out3_near": sum(1 for f in out3 if f in near),
        "near": sum(1 for f in near if "flow" in f), "near_at": [[round(f["at"][k], 2) for k in (3, 6, 10, 20, 40)] for f in near],
        "near_min": min(f["min"] for f in near), "near_max": max(f["max"] for f in near),
        "near_outside": float(np.mean([f["share_outside"] for f in near])),
        "near_thr": float(np.mean([f["thr"] for f in near])),
        "rest_min": min(f["min"] for f in rest), "rest_max": max(f["max"] for f in rest),
        "rest_thr": float(np.mean([f["thr"] for f in rest])),
        "finish_us": res["finish_us"],
    }


COUNTERS = ("cc.md", "cc.quick_adapt", "cc.fast_increase_acks", "cc.nacks")


def a1_counters(n: int, seed: int, overrides: tuple[str, ...] = ()) -> dict[str, dict[str, float]]:
    """Which reactions act on each sender class between 3 and 40 inter-pod target RTTs
    after the first NACK: per sender, the multiplicative decreases, QuickAdapt cuts,
    FastIncrease ACKs and NACKs NSCC counted in that span (1-µs samples), averaged per class."""
    _, fn, cc = _series(a1_spec(n, seed, overrides),
                        {"interval": "1us", "ports": "none", "flows": "all", "metrics": ["cc"]})
    rows = []
    for f in range(n):
        m = cc["id"] == f

        def ser(metric: str) -> tuple[np.ndarray, np.ndarray]:
            k = m & (cc["metric"] == metric)
            return cc["t"][k], cc["v"][k]
        rows.append((float(ser("cc.base_rtt_us")[1][-1]), float(ser("cc.target_us")[1][-1]),
                     {c: ser(c) for c in COUNTERS}))
    far = max(r[0] for r in rows)
    trtt_far = max(r[1] for r in rows)
    t0, t1 = fn + 3 * trtt_far, fn + 40 * trtt_far
    out: dict[str, dict[str, float]] = {}
    for cls, pick in (("pod-local", lambda b: b < far - 1e-6), ("other pods", lambda b: b >= far - 1e-6)):
        sel = [r for r in rows if pick(r[0])]
        if not sel:
            continue
        d: dict[str, float] = {"senders": float(len(sel))}
        for c in COUNTERS:
            vals = []
            for _, _, series in sel:
                t, v = series[c]
                i0, i1 = (min(int(np.searchsorted(t, x)), len(t) - 1) for x in (t0, t1))
                vals.append(v[i1] - v[i0])
            d[c] = float(np.mean(vals))
        out[cls] = d
    return out


def a1_cases(seeds: int, ns: list[int], only: list[str]):
    """(N, row label, overrides, seed) of every A1 run asked for: the rows whose label
    contains one of `only` (all when empty), seeds 1..`seeds`."""
    for n in ns:
        for label, overrides in A1_ROWS:
            if only and not any(o.lower() in label.lower() for o in only):
                continue
            for s in range(1, seeds + 1):
                yield n, label, overrides, s


def run_a1_counters(seeds: int, ns: list[int], only: list[str]) -> None:
    print(f"A1 reactions per sender between 3 and 40 inter-pod target RTTs after the first NACK, seeds 1..{seeds}")
    print("| N | row | seed | class | senders | multiplicative decreases | QuickAdapt cuts | FastIncrease ACKs | NACKs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, label, overrides, s in a1_cases(seeds, ns, only):
        for cls, d in a1_counters(n, s, overrides).items():
            print(f"| {n} | {label} | {s} | {cls} | {d['senders']:.0f} | "
                  + " | ".join(f"{d[c]:.1f}" for c in COUNTERS) + " |", flush=True)


# One setting each against the test's scenario (paper mode, per-packet ACKs, arrival trims),
# as overrides of the spec (dcnsim run --set syntax).
A1_ROWS: list[tuple[str, tuple[str, ...]]] = [
    ("test's scenario", ()),
    ("per-path target and constants (scope = path)", ('transport.nscc.scope="path"',)),
    ("UEC ACKs (one per 4 packets, at once on ECN)", A.UEC),
    ("trim victim: arrival or tail (htsim's)", ('switch.trim_victim="arrival_or_tail"',)),
    ("ECN thresholds Kmin/Kmax 10 % / 40 % of the buffer",
     (f'switch.ecn={{ kmin = {28 * WIRE}, kmax = {110 * WIRE}, on = "dequeue" }}',)),
    ("target 1.25 x (target_ratio)", ("transport.nscc.target_ratio=1.25",)),
    ("target 2.0 x (target_ratio)", ("transport.nscc.target_ratio=2.0",)),
    ("averaged-RTT gain 0.1 (ewma_gain; the MD gate)", ("transport.nscc.ewma_gain=0.1",)),
    ("wait_to_decrease 0 (acts only with Fair Decrease)", ("transport.nscc.wait_to_decrease=0.0",)),
    ("multiplicative decrease beta 0.4", ("transport.nscc.beta=0.4",)),
    ("largest decrease max_mdf 0.25", ("transport.nscc.max_mdf=0.25",)),
    ("signals delay only", ('transport.nscc.signals="delay_only"',)),
    ("signals ECN only", ('transport.nscc.signals="ecn_only"',)),
    ("OPS instead of REPS", ("transport.lb=ops",)),
    # Tried on seed 1 before (the test's comment); here over the three seeds.
    ("QuickAdapt off", ("transport.nscc.quick_adapt=false",)),
    ("FastIncrease off", ("transport.nscc.fast_increase=false",)),
    ("Fair Decrease (decrease = fair)", ('transport.nscc.decrease="fair"',)),
    # The increases (Case 3's fair increase, Case 4's proportional one), one setting each.
    ("fair increase fi 0.25", ("transport.nscc.fi=0.25",)),
    ("fair increase fi 4", ("transport.nscc.fi=4.0",)),
    ("proportional increase pi 0.5", ("transport.nscc.pi=0.5",)),
    ("no fair increase after the proportional one (fi_after_pi = false)", ("transport.nscc.fi_after_pi=false",)),
    ("plain additive increase (bdp_scaling = false)", ("transport.nscc.bdp_scaling=false",)),
]


def run_a1(seeds: int, ns: list[int], only: list[str]) -> None:
    print(f"A1: CI-size incast, 8 MiB a sender, seeds 1..{seeds}", flush=True)
    print("| N | row | seed | outside [0.5, 2] at 3 trtt (pod-local of them) | pod-local windows at 3/6/10/20/40 trtt "
          "| pod-local min-max, share of time outside (3-40 trtt) | pod-local throughput | others min-max "
          "| others throughput | completion µs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n, label, overrides, s in a1_cases(seeds, ns, only):
        res = a1_run(n, s, overrides)
        RAW.mkdir(exist_ok=True)
        (RAW / f"a1_n{n}_{_slug(label)}_s{s}.json").write_text(json.dumps(res))
        m = a1_summary(res)
        print(f"| {n} | {label} | {s} | {m['out3']} ({m['out3_near']} of {m['near']}) | "
              f"{' ; '.join('/'.join(f'{x:.2f}' for x in a) for a in m['near_at'])} | "
              f"{m['near_min']:.2f}-{m['near_max']:.2f}, {m['near_outside']:.2f} | {m['near_thr']:.2f} | "
              f"{m['rest_min']:.2f}-{m['rest_max']:.2f} | {m['rest_thr']:.2f} | {m['finish_us']:.1f} |",
              flush=True)


def a1_table(seeds: int, ns: list[int]) -> None:
    """The A1 rows summed over seeds, from the raw files the A1 run wrote: senders outside
    [0.5, 2] x fair at 3 target RTTs (of all N x seeds), the pod-local senders' window range
    over 3-40 target RTTs and their throughput against the fair share per seed."""
    print("| N | row | outside at 3 trtt, seeds 1-3 (pod-local of them) | pod-local window range, 3-40 trtt "
          "| pod-local throughput / fair, per seed | other pods' throughput / fair, per seed |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in ns:
        for label, _ in A1_ROWS:
            files = [RAW / f"a1_n{n}_{_slug(label)}_s{s}.json" for s in range(1, seeds + 1)]
            if not all(f.exists() for f in files):
                continue
            ms = [a1_summary(json.loads(f.read_text(), object_hook=_int_keys)) for f in files]
            near_thr = " / ".join(f"{m['near_thr']:.2f}" for m in ms)
            rest_thr = " / ".join(f"{m['rest_thr']:.2f}" for m in ms)
            print(f"| {n} | {label} | {sum(m['out3'] for m in ms)} of {n * seeds} "
                  f"({sum(m['out3_near'] for m in ms)} of {sum(m['near'] for m in ms)}) | "
                  f"{min(m['near_min'] for m in ms):.2f}-{max(m['near_max'] for m in ms):.2f} | "
                  f"{near_thr} | {rest_thr} |")


def _int_keys(d: dict[str, Any]) -> dict[Any, Any]:
    return {int(k) if k.isdigit() else k: v for k, v in d.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checks", nargs="*", default=["A4", "A1"])
    ap.add_argument("--quick", action="store_true", help="A4 on the 128-host tree (the harness's --quick)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--n", type=int, nargs="*", default=[16, 32], help="A1's incast degrees")
    ap.add_argument("--only", nargs="*", default=[], help="rows whose label contains one of these")
    args = ap.parse_args(argv)
    for key in args.checks:
        t = time.time()
        if key == "A4":
            run_a4(args.seeds, args.quick, args.only)
        elif key == "A1":
            run_a1(args.seeds, args.n, args.only)
        elif key == "A1-table":
            a1_table(args.seeds, args.n)
        elif key == "A1-reactions":
            run_a1_counters(args.seeds, args.n, args.only)
        print(f"  [{time.time() - t:.0f} s]", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
