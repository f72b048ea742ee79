"""Ablation runs behind the MSwift checks that fail.

docs/reproductions/mswift-paper.md, section "Checks that fail, and why (measured)", quotes
the numbers this script prints. Each check has rows: a harness cell (figure, CCA row,
load balancer) run exactly as `dcnsim reproduce mswift` runs it (same scenario file, same
overrides, the same REPS/UEC ACK overrides in REPS cells, full size), and then one change
at a time. Rows print the mean CCT increase over seeds (and its SEM), the per-seed values,
the timeouts per seed, retransmissions, drops, the REPS recycle ratio and the p99 of the
pooled sprayed-flow FCTs.

    PYTHONPATH=python python experiments/mswift/ablations/ablate.py B1            # 5 seeds
    PYTHONPATH=python python experiments/mswift/ablations/ablate.py B11 --seeds 10
    PYTHONPATH=python python experiments/mswift/ablations/ablate.py --list

A run takes 0.5-1.5 s (full size, 128 hosts); a check with its default seeds takes one to
four minutes on one core (B12 runs 20 seeds), all of them about 15 minutes. Two checks add diagnostics that run a cell with a packet
trace or a window time series: B1 (which delays MSwift samples under the UEC receiver,
and how deep each flow's window falls) and B12 (where the slowest flow of a failure seed
queues).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from dcnsim._scenario import load_scenario, scenario_json
from dcnsim.repro.core import simulate
from dcnsim.repro.papers.mswift import runs as R

EXP_DIR = Path(__file__).resolve().parents[1]
ROWS = {r.label: r for r in R.C5}
ROWS["MSwift-P10"] = R.Row("MSwift-P10", "mswift", ("transport.swift.percentile=10",))
UEC4 = R.REPS_ACKS  # uet-htsim's receiver as the REPS cells use it: ACK per 16 KiB, at once on ECN
NO_ECN = ("switch.ecn.enabled=false",)


@dataclass(frozen=True)
class Case:
    label: str
    fig: str            # the harness figure ("4" = E1, "6" = E2, ...)
    cca: str            # a row label: Swift, LSwift, MSwift, NSCC, MNSCC, MSwift-P10
    lb: str             # ops, ar, reps
    extra: tuple[str, ...] = ()


def overrides(c: Case, seed: int) -> list[str]:
    """The harness's overrides of the cell (runs.make_cell), then the case's change."""
    fig = R.FIGURES[c.fig]
    row = ROWS[c.cca]
    sprayed = R.sprayed_index(load_scenario(EXP_DIR / fig.toml)[0])
    return [*fig.overrides, f"transport.cc={row.cc}", *row.overrides, *R.lb_overrides(c.lb),
            f"workload.{sprayed}.lb={c.lb}", f"seed={seed}", *c.extra]


def run_case(c: Case, seed: int) -> dict[str, Any]:
    spec, root = load_scenario(EXP_DIR / R.FIGURES[c.fig].toml, overrides(c, seed))
    rec = simulate(spec, str(root), R._FLOW_COLUMNS + ("delivered",), cap_us=R.SIM_CAP_US)
    if "error" in rec:
        raise SystemExit(f"{c.label}: {rec['error']}")
    cct, lb_us, _, _ = R.cct_and_lb(rec["flows"], R.Geometry.of(spec), c.fig in ("14", "14b"))
    f = rec["flows"]
    fcts = [float(x) for t, x, ok in zip(f["tag"], f["fct_us"], f["finished"]) if t == "sprayed" and ok]
    return {**rec["stats"], "inc": R.cct_increase(cct, lb_us), "cct": cct, "fcts": fcts, "flows": f}


def p99(values: list[float]) -> float:
    return R.quantiles(values, [0.99])[0]


def run_cases(cases: list[Case], seeds: int) -> None:
    for c in cases:
        res = [run_case(c, s) for s in range(1, seeds + 1)]
        incs = [r["inc"] for r in res]
        sem = statistics.stdev(incs) / math.sqrt(len(incs)) if len(incs) > 1 else 0.0
        mean = lambda k: statistics.mean(float(r.get(k) or 0) for r in res)  # noqa: E731
        pooled = [x for r in res for x in r["fcts"]]
        rr = mean("reps_recycle_ratio")
        print(f"  {c.label:<58} {statistics.mean(incs):6.1f} ± {sem:4.1f} %  "
              f"[{' '.join(f'{x:.0f}' for x in incs)}]  timeouts {[int(r.get('timeouts') or 0) for r in res]}  "
              f"rtx {mean('retransmits'):.0f}  drops {mean('drops'):.0f}  p99 {p99(pooled):.1f} us"
              + (f"  recycle {rr:.2f}" if rr else ""), flush=True)


# ---------------------------------------------------------------------------------------
# Diagnostics that need a trace or a time series (one cell, a few seeds)

def _sim(c: Case, seed: int, extra: list[str]):
    from dcnsim._ext import core

    spec, root = load_scenario(EXP_DIR / R.FIGURES[c.fig].toml, overrides(c, seed) + extra)
    sim = core().Simulation(scenario_json(spec), str(root))
    while not sim.run_until(sim.now_ps + 10**8):
        pass
    return sim


def sample_bias(c: Case, seed: int = 1) -> None:
    """Which packets give MSwift its delay samples: the share of delivered data packets
    that carry CE against the share of ACKs that echo it, and the forward delay of all
    delivered packets against that of the packets an ACK answers (32 sprayed flows)."""
    import numpy as np
    from dcnsim import _timeseries

    flows = list(range(4, 128, 4))
    sim = _sim(c, seed, [f"trace={{ flows = {flows}, max_events = 6000000 }}"])
    t = _timeseries.frame(sim.trace_events())
    ev, pk = t["event"].astype(str).to_numpy(), t["packet"].astype(str).to_numpy()
    fl = t["flags"].to_numpy().astype(int)
    dl, ak = (ev == "deliver") & (pk == "data"), (ev == "ack") & (pk == "ack")
    sent, flow, now = t["sent_at_us"].to_numpy(), t["flow"].to_numpy(), t["time_us"].to_numpy()
    answered = set(zip(flow[ak].tolist(), sent[ak].tolist()))
    sel = np.array([k in answered for k in zip(flow[dl].tolist(), sent[dl].tolist())])
    fwd = (now - sent)[dl]
    print(f"  {c.label:<58} seed {seed}: CE on {((fl & 2) != 0)[dl].mean():.3f} of delivered data packets, "
          f"ECE on {((fl & 4) != 0)[ak].mean():.3f} of ACKs; forward delay p50 {np.median(fwd):.2f} us "
          f"(all) vs {np.median(fwd[sel]):.2f} us (the {sel.mean():.2f} answered by an ACK)", flush=True)


def decreases(c: Case, seeds: int) -> None:
    """MSwift's own counters per sprayed flow at its end: delay, loss and timeout decreases,
    and the window's low point over its initial value (sampled every 1 us)."""
    import numpy as np
    from dcnsim import _timeseries

    for seed in range(1, seeds + 1):
        sim = _sim(c, seed, ['observe={ interval = "1us", ports = "none", flows = "all", metrics = ["cc"] }'])
        ts = _timeseries.frame(sim.timeseries())
        ts = ts[ts.kind.astype(str) == "flow"]
        f = sim.flows()
        spr = [i for i, tag in enumerate(f["tag"]) if tag == "sprayed"] or list(range(len(f["tag"])))
        last = ts.groupby(["id", "metric"], observed=True).value.last().unstack().loc[spr]
        w = ts[ts.metric.astype(str) == "cc.cwnd_pkts"].groupby("id").value
        low = (w.min() / w.first()).loc[spr].to_numpy()
        fct = np.array([f["fct_us"][i] for i in spr])
        s = int(np.argmax(fct))
        ws = ts[(ts.metric.astype(str) == "cc.cwnd_pkts") & (ts.id == spr[s])].set_index("time_us").value
        t_low = float(ws.idxmin())
        grow = (ws.iloc[-1] - ws.min()) / max(ws.index[-1] - t_low, 1e-9)
        print(f"  {c.label:<58} seed {seed}: FCT p50 {np.median(fct):.1f} us, p90 {np.percentile(fct, 90):.1f} us, "
              f"{int((fct > 110).sum())} flows above 110 us; delay decreases {int(last['cc.delay_md'].sum())}, loss "
              f"{int(last['cc.loss_md'].sum())}, timeout {int(last['cc.timeout_md'].sum())}; window low point / "
              f"initial: min {low.min():.2f}, median {np.median(low):.2f}", flush=True)
        print(f"    slowest flow {spr[s]} (h{f['src'][spr[s]]}->h{f['dst'][spr[s]]}, FCT {fct[s]:.1f} us, ideal "
              f"{f['ideal_fct_us'][spr[s]]:.1f} us): {int(last['cc.delay_md'].iloc[s])} delay decreases, window "
              f"{ws.iloc[0]:.0f} -> {ws.min():.0f} packets at {t_low:.0f} us ({low[s]:.2f}), then "
              f"+{grow * 6:.1f} packets per 6 us", flush=True)


def failure_queues(c: Case, seed: int, flow: int) -> None:
    """E7: the failed cables of a seed and the ports where one flow's packets queue."""
    from dcnsim import _timeseries

    sim = _sim(c, seed, [f"trace={{ flows = [{flow}], max_events = 3000000 }}"])
    ports = _timeseries.frame(sim.ports())
    name = dict(zip(ports.port, ports.name))
    f = sim.flows()
    print(f"  {c.label} seed {seed}: failed ports {list(ports[~ports.up.astype(bool)].name)}; flow {flow} "
          f"h{f['src'][flow]}->h{f['dst'][flow]}, FCT {f['fct_us'][flow]:.1f} us", flush=True)
    t = _timeseries.frame(sim.trace_events())
    dq = t[(t["event"].astype(str) == "dequeue") & (t["packet"].astype(str) == "data")]
    g = dq.groupby("port").queue_bytes.agg(["mean", "size"]).sort_values("mean", ascending=False).head(6)
    for port, r in g.iterrows():
        print(f"    {name[port]:<10} {int(r['size']):5d} of its packets, mean queue ahead {r['mean'] / 1e3:6.1f} KB")


def elephant_rates(c: Case, seeds: int) -> None:
    """Goodput of the 4 ECMP elephants over the sprayed collective's CCT."""
    for seed in range(1, seeds + 1):
        r = run_case(c, seed)
        f = r["flows"]
        gbps = [f["delivered"][i] * 8 / r["cct"] / 1e3 for i, t in enumerate(f["tag"]) if t == "elephants"]
        print(f"  {c.label:<58} seed {seed}: CCT increase {r['inc']:.1f} %, elephants "
              f"{[round(g) for g in gbps]} Gbps", flush=True)


# ---------------------------------------------------------------------------------------
# The checks: rows of one change against the first row of their block

@dataclass
class Check:
    note: str
    blocks: list[list[Case]]
    seeds: int = 5
    extra: Optional[Callable[[int], None]] = None


def b1_extra(seeds: int) -> None:
    reps = Case("E1 MSwift + REPS (UEC receiver)", "4", "MSwift", "reps")
    pp = Case("E1 MSwift + REPS, ack_ratio = 1", "4", "MSwift", "reps", ("transport.ack_ratio=1",))
    print(" delay samples (trace of 32 sprayed flows):")
    for c in (reps, pp, Case("E1 MSwift + AR, UEC receiver", "4", "MSwift", "ar", UEC4)):
        sample_bias(c)
    print(" decreases per sprayed flow:")
    decreases(reps, min(seeds, 5))
    decreases(pp, min(seeds, 5))


def b7_extra(seeds: int) -> None:
    decreases(Case("E2 LSwift + OPS", "6", "LSwift", "ops"), min(seeds, 3))


def b12_extra(seeds: int) -> None:
    # Seed 16 fails one cable only (aggregation switch s59 to core s78); flow 99 is its
    # slowest MSwift flow. Where its packets queue under MSwift and under NSCC.
    for c in (Case("E7 MSwift + OPS", "11", "MSwift", "ops"), Case("E7 NSCC + OPS", "11", "NSCC", "ops")):
        failure_queues(c, 16, 99)


def b14_extra(seeds: int) -> None:
    for c in (Case("E1 NSCC + OPS (FIFO)", "4", "NSCC", "ops"), Case("E9 NSCC + OPS (DRR 1:1)", "13", "NSCC", "ops"),
              Case("E9 NSCC + OPS, DRR weights 3:1", "13", "NSCC", "ops", DRR31)):
        elephant_rates(c, 3)


DRR31 = ('switch.drr={ quantum = "4096B", weights = [3, 1] }',)
RTO25 = ('transport.rto_min="25us"',)


def with_rto25(label: str, fig: str, variant: str, lb: str) -> list[Case]:
    """A harness cell and the same cell with a 25 us RTO floor (B11, B13)."""
    return [Case(label, fig, variant, lb), Case('  transport.rto_min = "25us"', fig, variant, lb, RTO25)]


CHECKS: dict[str, Check] = {
    "B1": Check(
        "E1 (Fig. 4): why MSwift + REPS is slow; also B4 and B6.2 (same runs)",
        [[Case("E1 MSwift + REPS (harness cell)", "4", "MSwift", "reps"),
          Case("  transport.ack_ratio = 1 (UEC receiver, ACK per packet)", "4", "MSwift", "reps", ("transport.ack_ratio=1",)),
          Case('  transport.ack_policy = "tcp"', "4", "MSwift", "reps", ('transport.ack_policy="tcp"',)),
          Case("  transport.dupack_threshold = 64", "4", "MSwift", "reps", ("transport.dupack_threshold=64",)),
          Case('  transport.swift.reorder_wait = "10us"', "4", "MSwift", "reps", ('transport.swift.reorder_wait="10us"',)),
          Case('  transport.swift.reorder_wait = "1ms"', "4", "MSwift", "reps", ('transport.swift.reorder_wait="1ms"',)),
          Case('  transport.loss_rule = "distance"', "4", "MSwift", "reps", ('transport.loss_rule="distance"',))],
         [Case("E1 MSwift + AR (harness cell, ACK per packet)", "4", "MSwift", "ar"),
          Case("  UEC receiver (ack_policy uec, ack_ratio 4)", "4", "MSwift", "ar", UEC4),
          Case("  UEC receiver, ECN off", "4", "MSwift", "ar", UEC4 + NO_ECN),
          Case("  ECN off (ACK per packet)", "4", "MSwift", "ar", NO_ECN)],
         [Case("E1 MSwift + OPS (harness cell)", "4", "MSwift", "ops"),
          Case("  UEC receiver", "4", "MSwift", "ops", UEC4),
          Case("  UEC receiver, ECN off", "4", "MSwift", "ops", UEC4 + NO_ECN)],
         [Case("E1 NSCC + AR (lowest cell)", "4", "NSCC", "ar"),
          Case("E1 MNSCC + REPS (B6.2's p99)", "4", "MNSCC", "reps"),
          Case("E1 MSwift-P10 + REPS", "4", "MSwift-P10", "reps")]],
        extra=b1_extra),
    "B7": Check(
        "E2 (Fig. 6) and E3 (Fig. 7): B7.2 LSwift against NSCC; B7.4 and B8 MSwift + REPS against AR; B8 MNSCC against NSCC",
        [[Case("E2 LSwift + OPS", "6", "LSwift", "ops"),
          Case("  transport.swift.ai = 4", "6", "LSwift", "ops", ("transport.swift.ai=4",)),
          Case("E2 LSwift + AR", "6", "LSwift", "ar"),
          Case("  transport.swift.ai = 4", "6", "LSwift", "ar", ("transport.swift.ai=4",))],
         [Case("E2 NSCC + OPS", "6", "NSCC", "ops"),
          Case("  transport.nscc.fast_increase = false", "6", "NSCC", "ops", ("transport.nscc.fast_increase=false",)),
          Case("E2 NSCC + AR", "6", "NSCC", "ar"),
          Case("  transport.nscc.fast_increase = false", "6", "NSCC", "ar", ("transport.nscc.fast_increase=false",))],
         [Case("E2 MSwift + REPS (UEC receiver)", "6", "MSwift", "reps"),
          Case("  lb = OPS, same UEC receiver", "6", "MSwift", "ops", UEC4),
          Case("E2 MSwift + AR (ACK per packet)", "6", "MSwift", "ar"),
          Case("  UEC receiver", "6", "MSwift", "ar", UEC4)],
         [Case("E3 MSwift + REPS (UEC receiver)", "7", "MSwift", "reps"),
          Case("  lb = OPS, same UEC receiver", "7", "MSwift", "ops", UEC4),
          Case("  transport.ack_ratio = 1", "7", "MSwift", "reps", ("transport.ack_ratio=1",)),
          Case("E3 MSwift + AR (ACK per packet)", "7", "MSwift", "ar"),
          Case("  UEC receiver", "7", "MSwift", "ar", UEC4),
          Case("E3 NSCC + REPS (UEC receiver)", "7", "NSCC", "reps"),
          Case("  lb = OPS, same receiver (ack_ratio 4)", "7", "NSCC", "ops", ("transport.ack_ratio=4",))],
         [Case("E3 NSCC + OPS", "7", "NSCC", "ops"),
          Case("E3 MNSCC + OPS", "7", "MNSCC", "ops"),
          Case("  transport.nscc.median_feeds_ewma = true", "7", "MNSCC", "ops", ("transport.nscc.median_feeds_ewma=true",)),
          Case("  transport.nscc.history = 1 (no median: NSCC)", "7", "MNSCC", "ops", ("transport.nscc.history=1",)),
          Case("E3 MNSCC + REPS", "7", "MNSCC", "reps"),
          Case("  transport.nscc.median_feeds_ewma = true", "7", "MNSCC", "reps", ("transport.nscc.median_feeds_ewma=true",))]],
        extra=b7_extra),
    "B11": Check(
        "E6 (Fig. 10) against E1: MSwift + AR / OPS and the 100 us RTO floor",
        [with_rto25("E6 MSwift + AR", "10", "MSwift", "ar") + with_rto25("E1 MSwift + AR", "4", "MSwift", "ar"),
         with_rto25("E6 MSwift + OPS", "10", "MSwift", "ops") + with_rto25("E1 MSwift + OPS", "4", "MSwift", "ops")],
        seeds=10),
    "B12": Check(
        "E7 (Fig. 11): MSwift against NSCC with failed links",
        [[Case("E7 MSwift + OPS", "11", "MSwift", "ops"),
          Case("  transport.swift.percentile = 75", "11", "MSwift", "ops", ("transport.swift.percentile=75",)),
          Case("  transport.swift.ai = 4", "11", "MSwift", "ops", ("transport.swift.ai=4",)),
          Case("E7 MSwift + AR", "11", "MSwift", "ar"),
          Case("E7 MSwift + REPS", "11", "MSwift", "reps"),
          Case("E7 NSCC + OPS", "11", "NSCC", "ops"),
          Case("E7 NSCC + AR", "11", "NSCC", "ar"),
          Case("E7 NSCC + REPS", "11", "NSCC", "reps"),
          Case("E7 MNSCC + OPS", "11", "MNSCC", "ops"),
          Case("E7 MNSCC + AR", "11", "MNSCC", "ar"),
          Case("E7 MNSCC + REPS", "11", "MNSCC", "reps")]],
        seeds=20, extra=b12_extra),
    "B13": Check(
        "E8 (Fig. 12): MSwift-P10 against MSwift",
        [with_rto25("E8 MSwift-P10 + OPS", "12", "MSwift-P10", "ops") + with_rto25("E8 MSwift + OPS", "12", "MSwift", "ops"),
         [Case("E8 MSwift-P10 + REPS", "12", "MSwift-P10", "reps"),
          Case("  transport.ack_ratio = 1", "12", "MSwift-P10", "reps", ("transport.ack_ratio=1",)),
          Case("E8 MSwift + REPS", "12", "MSwift", "reps"),
          Case("  transport.ack_ratio = 1", "12", "MSwift", "reps", ("transport.ack_ratio=1",))]],
        seeds=10),
    "B14": Check(
        "E9 (Fig. 13): NSCC and MNSCC under two-class DRR",
        [[Case("E1 NSCC + OPS (FIFO)", "4", "NSCC", "ops"),
          Case("E9 NSCC + OPS (DRR 1:1)", "13", "NSCC", "ops"),
          Case('  switch.buffer = "1600KB"', "13", "NSCC", "ops", ('switch.buffer="1600KB"',)),
          Case("  DRR weights 3:1 (sprayed : ECMP)", "13", "NSCC", "ops", DRR31),
          Case("E9 MNSCC + OPS (DRR 1:1)", "13", "MNSCC", "ops"),
          Case("  DRR weights 3:1", "13", "MNSCC", "ops", DRR31)],
         [Case("E9 NSCC + REPS (DRR 1:1)", "13", "NSCC", "reps"),
          Case("  DRR weights 3:1", "13", "NSCC", "reps", DRR31),
          Case("E9 MNSCC + REPS (DRR 1:1)", "13", "MNSCC", "reps"),
          Case("  DRR weights 3:1", "13", "MNSCC", "reps", DRR31)]],
        extra=b14_extra),
}


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checks", nargs="*", help="check ids (default: all)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds 1..N (default: the check's own)")
    ap.add_argument("--no-diagnostics", action="store_true", help="skip the trace / time-series runs")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    for key in args.checks or list(CHECKS):
        c = CHECKS[key]
        if args.list:
            print(f"{key}: {c.note}")
            continue
        seeds = args.seeds or c.seeds
        print(f"{key}: {c.note} (full size, seeds 1-{seeds}; CCT increase mean ± SEM, per seed)", flush=True)
        t = time.time()
        for block in c.blocks:
            run_cases(block, seeds)
        if c.extra is not None and not args.no_diagnostics:
            c.extra(seeds)
        print(f"  [{time.time() - t:.0f} s]", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
