"""H18 (F14, all large flows, PrioPlus+Swift / D2TCP, paper 0.96): the D2TCP side.

Earlier lines (f14.md, combos.md) changed PrioPlus; this script asks why our D2TCP's large
flows are as fast as they are. Three parts:

- ``lines`` (default): one setting changed in D2TCP's runs (or, for the references, in the
  Physical* w/o CC runs), seeds 1..9 as the harness runs them, against the harness's
  PrioPlus runs. The settings are the differences found between dcnsim's D2TCP and the
  PrioPlus authors' ns-3 artefact, and settings that could make a D2TCP slower. Runs are
  ``ablate.seeded_runs`` (the base runs asserted to be the harness's own scenarios); the
  figure is ``ablate_f14.large_mean`` (``checks.f14_cells``' large / all).
- ``--fluid``: two fluid references on the very flows of each seed (same arrivals, sizes,
  hosts and levels as every scheme's runs): max-min fair sharing with no priority (what a
  work-conserving D2TCP could at best do) and strict priority (levels served top-down,
  max-min fair inside a level), each on the hosts' up- and downlinks only (the fat tree's
  core taken as ideal). A flow's fluid FCT is its fluid transfer time plus the fixed part of
  its ideal FCT (ideal FCT − wire time at line rate). Per flow it also splits the time
  into full rate (≥ 50 Gbps), sharing (below 50 Gbps but moving) and held (rate 0: yielding
  to higher levels).
- ``--trace``: the same split for the packet-level runs of seeds 1..3 (``ablate.trace_flows``:
  each large flow's delivered bytes every 5 µs), D2TCP and PrioPlus+Swift and Physical*
  w/o CC, with the wait before the first data packet.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h18_d2tcp.py             # the lines
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h18_d2tcp.py --fluid
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h18_d2tcp.py --trace
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h18_d2tcp.py --only table,d2_noecn
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h18_d2tcp.py --list

Runs are stored under ``raw/h18_d2tcp/`` (gzipped JSON, not committed) and reused while
their scenario is unchanged. The tables (markdown) go to stdout; h18_d2tcp.md holds them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate as A  # noqa: E402  (storage, the harness's seeded runs, the per-flow trace)
import ablate_f14 as F14  # noqa: E402  (F14's runs, harness scenarios, figure and per-level split)
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402
from dcnsim.repro.papers.prioplus.metrics import dt_pfc  # noqa: E402

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw" / "h18_d2tcp"
SEEDS = F14.SEEDS  # 1..9, the harness's
PP, D2, NOCC = R.PP, R.D2TCP, R.PHYS_NOCC
RED = 'kmin = "400KiB", kmax = "1600KiB", pmax = 0.2'
assert R.D2TCP_ECN == f"switch.ecn={{ enabled = true, {RED} }}", "the harness's RED changed: update RED"

# key → (scheme whose runs change, the changed setting, what the line says). The ratio is always
# PrioPlus (the harness's runs) over D2TCP (the line's runs); the reference lines change the
# Physical* w/o CC runs and show that scheme's large flows instead of D2TCP's.
LINES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "table": (D2, (), "table (the harness's runs)"),
    # differences from the artefact (rocev2-dctcp.cc / rocev2-d2tcp.cc / fifo-queue-disc-ecn.cc)
    "d2_dequeue": (D2, (f'switch.ecn={{ enabled = true, {RED}, on = "dequeue" }}',),
                   "D2TCP: RED compared at dequeue, not at enqueue (the artefact's marking queue)"),
    "d2_acks_data": (D2, ("switch.ack_priority=false",),
                     "D2TCP: ACKs in the data queue, not in the top (control) queue"),
    "d2_artefact": (D2, (f'switch.ecn={{ enabled = true, {RED}, on = "dequeue" }}', "switch.ack_priority=false"),
                    "D2TCP: both differences at once (RED at dequeue, ACKs in the data queue)"),
    # what would make a D2TCP lose more
    "d2_noecn": (D2, ("switch.ecn={ enabled = false }",), "D2TCP: no ECN marking at all (it never cuts)"),
    "d2_k100": (D2, ('switch.ecn={ enabled = true, kmin = "100KiB", kmax = "400KiB", pmax = 0.2 }',),
                "D2TCP: RED at 100 / 400 KiB, not 400 / 1600 KiB"),
    "d2_k100_dequeue": (D2, ('switch.ecn={ enabled = true, kmin = "100KiB", kmax = "400KiB", pmax = 0.2, '
                             'on = "dequeue" }',), "D2TCP: RED at 100 / 400 KiB, compared at dequeue"),
    "d2_g16": (D2, ("transport.d2tcp.g=0.0625",), "D2TCP: g = 1/16 (DCTCP's), not 1/256"),
    "d2_ai_code": (D2, ("transport.d2tcp.ai_bdp=0.0005",),
                   "D2TCP: growth 0.0005 BDP per RTT (the artefact's code default), not 0.01"),
    "d2_dl15": (D2, ("transport.d2tcp.deadline_factor_low=1.5",), "D2TCP: every deadline 1.5x the ideal FCT"),
    "d2_dl_rev": (D2, ("transport.d2tcp.deadline_factor_high=12.0", "transport.d2tcp.deadline_factor_low=1.5"),
                  "D2TCP: deadline factors reversed (12x at level 12, 1.5x at level 1)"),
    # the start: D2TCP ignores transport.initial_window, so DCTCP (same α machine, g = 1/256,
    # Reno growth, no deadlines) stands in, at one BDP and from 10 packets by slow start
    "dctcp_bdp": (D2, ("transport.cc=dctcp", "transport.dctcp.g=0.00390625", 'transport.initial_window="bdp"'),
                  "DCTCP (g = 1/256, Reno growth, no deadlines) from one BDP, in D2TCP's place"),
    "dctcp_ss": (D2, ("transport.cc=dctcp", "transport.dctcp.g=0.00390625", "transport.initial_window=10"),
                 "DCTCP (g = 1/256) from 10 packets by slow start, in D2TCP's place"),
    # references: strict priority without CC, as the harness runs it and without PFC pauses
    "nocc": (NOCC, (), "reference: Physical* w/o CC (the harness's runs)"),
    "nocc_nopause": (NOCC, (dt_pfc(headroom_carved=False, per_priority=True).replace('2640000B', '1000MB'),),
                     "reference: Physical* w/o CC, 1000 MB shared buffer (PFC never pauses)"),
}


def runs_of(variant: str) -> R.Run:
    (run,) = [r for r in R.f14_runs(False) if r.variant == variant]
    return run


_HARNESS: dict[tuple[str, int], dict[str, Any]] = {}


def harness_spec(variant: str, seed: int) -> dict[str, Any]:
    """The harness's F14 scenario of (variant, seed), built for as many seeds as asked
    (``build_cells``; seeds past 9 are built the same way: the held-out check)."""
    if (variant, seed) not in _HARNESS:
        for c in R.build_cells(["F14"], max(seed, max(SEEDS)), False, F14.EXP_DIR, "x"):
            _HARNESS[(c.variant, c.seed)] = c.spec
    return _HARNESS[(variant, seed)]


def load(variant: str, change: tuple[str, ...], key: str, seeds: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    return A.seeded_runs("F14", runs_of(variant), seeds or SEEDS, change, key, RAW, F14.COLUMNS, harness_spec)


def line_runs(key: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(PrioPlus's runs, the line's runs of its scheme)."""
    v, ch, _ = LINES[key]
    return load(PP, (), "table"), load(v, ch, key)


def stat_mean(recs: list[dict[str, Any]], stat: str) -> float:
    return A.mean([float(r["stats"].get(stat, math.nan)) for r in recs])


def lines_table(keys: list[str]) -> None:
    print("| line (one setting changed) | PrioPlus large µs | other large µs | PrioPlus / other | meets ≤ 0.96 "
          "| ECN marks a run | PAUSE frames a run |")
    print("|---|---|---|---|---|---|---|")
    detail = {}
    for k in keys:
        pp, other = line_runs(k)
        a, b = F14.large_mean(pp), F14.large_mean(other)
        marks, pauses = stat_mean(other, "ecn_marks"), stat_mean(other, "pfc_pause_frames")
        print(f"| {LINES[k][2]} | {A.fmt(a)} | {A.fmt(b)} | {A.fmt(a / b, '.3f')} | {'yes' if a / b <= 0.96 else 'no'} "
              f"| {A.fmt(marks)} | {A.fmt(pauses, '.1f')} |", flush=True)
        detail[k] = F14.per_level(F14.large_flows(other))
    print(f"\nThe line's large flows (≥ 6 MB) by level: flows: mean FCT µs (pooled over seeds "
          f"{SEEDS[0]}-{SEEDS[-1]}).\n")
    groups = list(next(iter(detail.values())))
    print("| line | " + " | ".join(f"levels {g}" for g in groups) + " |")
    print("|---|" + "---|" * len(groups))
    pp = F14.per_level(F14.large_flows(load(PP, (), "table")))
    print("| PrioPlus+Swift (the harness's runs) | " + " | ".join(f"{n}: {A.fmt(fc)}" for n, fc, _, _ in pp.values())
          + " |")
    for k, cells in detail.items():
        print(f"| {LINES[k][2]} | " + " | ".join(f"{n}: {A.fmt(fc)}" for n, fc, _, _ in cells.values()) + " |")


# --- fluid references ----------------------------------------------------------------

PAYLOAD, MTU = 936.0, 1000.0  # F14: 1000 B packets, 64 B of headers
US_PER_WIRE_BYTE = 8 / 100e3  # 100 Gbps
FULL = 0.5  # "full rate": at least half the line rate, as the trace's classes


def wire_us(size: float) -> float:
    return math.ceil(size / PAYLOAD) * MTU * US_PER_WIRE_BYTE


K = 6  # F14's fat tree: 6 pods of 3 ToRs (3 hosts each) and 3 aggregation switches, 9 cores


def path(src: int, dst: int, rng: random.Random, fabric: bool) -> tuple[tuple[Any, ...], ...]:
    """The directed links a flow crosses: its hosts' up- and downlink, and with ``fabric`` the
    ToR / aggregation / core links of one equal-cost path drawn at random (ECMP)."""
    ends = (("hu", src), ("hd", dst))
    es, ed, ps, pd = src // (K // 2), dst // (K // 2), src // (K * K // 4), dst // (K * K // 4)
    if not fabric or es == ed:
        return ends
    j = rng.randrange(K // 2)
    mid: tuple[tuple[Any, ...], ...] = (("eu", es, j), ("ed", ed, j))
    if ps != pd:
        m = rng.randrange(K // 2)
        mid = (("eu", es, j), ("au", ps, j, m), ("ad", pd, j, m), ("ed", ed, j))
    return (ends[0], *mid, ends[1])


def waterfill(flows: list[tuple[int, tuple[Any, ...]]], cap: dict[Any, float]) -> dict[int, float]:
    """Max-min fair rates (fractions of the line rate) of ``flows`` (id, links) on the residual
    link capacities ``cap``."""
    rate: dict[int, float] = {}
    left = dict(flows)
    cap = dict(cap)
    while left:
        users: dict[Any, list[int]] = {}
        for i, links in left.items():
            for ln in links:
                users.setdefault(ln, []).append(i)
        share, link = min((max(cap[ln], 0.0) / len(ids), ln) for ln, ids in users.items())
        for i in users[link]:
            for ln in left.pop(i):
                cap[ln] -= share
            rate[i] = share
    return rate


def strict(flows: list[tuple[int, tuple[Any, ...], int]], cap: dict[Any, float]) -> dict[int, float]:
    """Levels served top-down, max-min fair inside a level, on every link of ``flows`` (id, links, level)."""
    rate: dict[int, float] = {}
    cap = dict(cap)
    for lvl in sorted({x[2] for x in flows}, reverse=True):
        r = waterfill([(i, links) for i, links, lv in flows if lv == lvl], cap)
        for i, links, lv in flows:
            if lv == lvl:
                for ln in links:
                    cap[ln] -= r[i]
        rate.update(r)
    return rate


def strict_nic_rr(flows: list[tuple[int, tuple[Any, ...], int]], cap: dict[Any, float]) -> dict[int, float]:
    """Strict priority at the switches, but each sender's uplink shared max-min fair whatever
    the levels (dcnsim's NIC serves its flows round robin): a fixed point between the uplinks'
    fair shares (capped by what the switches would give) and the switches' strict allocation."""
    demand = {i: math.inf for i, _, _ in flows}
    rate: dict[int, float] = {}
    for _ in range(40):
        offer: dict[int, float] = {}
        by_host: dict[Any, list[int]] = {}
        for i, links, _ in flows:
            by_host.setdefault(links[0], []).append(i)
        for host, ids in by_host.items():  # max-min with demands on one link
            left, c = sorted(ids, key=lambda i: demand[i]), cap[host]
            while left:
                share = c / len(left)
                i = left.pop(0)
                offer[i] = min(demand[i], share)
                c -= offer[i]
        lim = {**cap, **{("offer", i): offer[i] for i in offer}}
        new = strict([(i, (("offer", i), *links[1:]), lv) for i, links, lv in flows], lim)
        nd = {i: (new[i] if new[i] < offer[i] - 1e-9 else math.inf) for i in new}
        if new == rate and nd == demand:
            break
        rate, demand = new, nd
    return rate


ALLOC = {"fair": lambda fl, cap: waterfill([(i, links) for i, links, _ in fl], cap), "strict": strict,
         "strict_nic_rr": strict_nic_rr}


def fluid(flows: list[dict[str, Any]], alloc: str) -> dict[int, dict[str, float]]:
    """Event-driven fluid run of ``flows`` (id, links, start, work µs at line rate, prio) under
    the allocation ``alloc``: id → finish time and the time at full rate, sharing and held (rate 0)."""
    pending = sorted(flows, key=lambda f: f["start"])
    links = {ln: 1.0 for f in flows for ln in f["links"]}
    active: dict[int, list[Any]] = {}
    out: dict[int, dict[str, float]] = {}
    t, k = 0.0, 0
    while k < len(pending) or active:
        if not active:
            t = max(t, pending[k]["start"])
        while k < len(pending) and pending[k]["start"] <= t:
            f = pending[k]
            active[f["id"]] = [f, f["work"]]
            out[f["id"]] = {"full": 0.0, "sharing": 0.0, "held": 0.0}
            k += 1
        rate = ALLOC[alloc]([(i, a[0]["links"], a[0]["prio"]) for i, a in active.items()], links)
        dt = min([a[1] / rate[i] for i, a in active.items() if rate[i] > 1e-12]
                 + ([pending[k]["start"] - t] if k < len(pending) else []))
        for i, a in list(active.items()):
            r = rate[i]
            out[i]["full" if r >= FULL else "sharing" if r > 1e-12 else "held"] += dt
            a[1] -= r * dt
            if r > 1e-12 and a[1] <= 1e-9 * max(1.0, a[0]["work"]):
                out[i]["finish"] = t + dt
                del active[i]
        t += dt
    return out


PATH_SALT = 0  # --path-salt: another draw of the ECMP paths (a sensitivity check)


def fluid_flows(seed: int, fabric: bool) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    (rec,) = load(D2, (), "table", (seed,))
    f = rec["flows"]
    rng = random.Random(seed + 1000 * PATH_SALT)
    return [{"id": i, "links": path(int(f["src"][i]), int(f["dst"][i]), rng, fabric), "start": float(f["start_us"][i]),
             "work": wire_us(float(f["size"][i])), "prio": int(f["priority"][i])}
            for i in range(len(f["size"]))], f


GROUPS = {"12": (12, 12), "9-11": (9, 11), "7-8": (7, 8), "4-6": (4, 6), "1-3": (1, 3), "all": (1, 12)}


REFS = {  # name → (allocation, fabric links too)
    "fluid, max-min fair, host links only": ("fair", False),
    "fluid, strict priority, host links only": ("strict", False),
    "fluid, max-min fair, ECMP fabric": ("fair", True),
    "fluid, strict priority, ECMP fabric": ("strict", True),
    "fluid, strict priority at the switches, sender NIC round robin, ECMP fabric": ("strict_nic_rr", True),
}


def fluid_large(seeds: tuple[int, ...]) -> dict[str, list[dict[str, float]]]:
    rows: dict[str, list[dict[str, float]]] = {n: [] for n in REFS}
    for seed in seeds:
        for name, (alloc, fabric) in REFS.items():
            flows, f = fluid_flows(seed, fabric)
            res = fluid(flows, alloc)
            for x in flows:
                if f["size"][x["id"]] >= F14.LARGE:
                    r = res[x["id"]]
                    ideal = float(f["ideal_fct_us"][x["id"]])
                    rows[name].append({"prio": x["prio"], "fct": r["finish"] - x["start"] + ideal - x["work"],
                                       "full": r["full"], "sharing": r["sharing"], "held": r["held"], "ideal": ideal})
    return rows


def fluid_table() -> None:
    # Every scheme's runs of a seed carry the same flows (arrivals, sizes, hosts, levels).
    for v in (PP, NOCC):
        for seed in (SEEDS[0], SEEDS[-1]):
            a, b = load(D2, (), "table", (seed,))[0]["flows"], load(v, (), "table", (seed,))[0]["flows"]
            assert all(a[c] == b[c] for c in ("src", "dst", "size", "start_us", "priority")), (v, seed)
    rows = fluid_large(SEEDS)
    print(f"Fluid references on each seed's own flows (seeds {SEEDS[0]}-{SEEDS[-1]}, large flows ≥ 6 MB pooled): "
          "mean FCT µs, and the mean µs per large flow at full rate (≥ 50 Gbps) / sharing (moving below 50 Gbps) / "
          "held (rate 0). "
          "ECMP fabric: each flow on one equal-cost path drawn at random.\n")
    print("| reference | " + " | ".join(f"levels {g}" for g in GROUPS) + " |")
    print("|---|" + "---|" * len(GROUPS))
    for name, xs in rows.items():
        cells = []
        for lo, hi in GROUPS.values():
            sel = [x for x in xs if lo <= x["prio"] <= hi]
            m = {k: A.mean([x[k] for x in sel]) for k in ("fct", "full", "sharing", "held")}
            cells.append(f"{len(sel)}: {A.fmt(m['fct'])} (full {A.fmt(m['full'])}, sharing {A.fmt(m['sharing'])}, "
                         f"held {A.fmt(m['held'])})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    means = {n: A.mean([x["fct"] for x in xs]) for n, xs in rows.items()}
    print(f"\nAll large flows: ideal FCT {A.mean([x['ideal'] for x in rows[next(iter(rows))]]):.0f} µs; "
          + "; ".join(f"{n} {v:.0f} µs" for n, v in means.items()) + ".")
    measured = {s: F14.large_mean(load(s, (), "table")) for s in (PP, D2, NOCC)}
    fair, strict_ = means["fluid, max-min fair, ECMP fabric"], means["fluid, strict priority, ECMP fabric"]
    print("Measured (the harness's runs): " + ", ".join(
        f"{s} {v:.0f} µs ({v / fair:.3f}x fluid fair, {v / strict_:.3f}x fluid strict, ECMP fabric)"
        for s, v in measured.items()) + ".")
    print(f"Fluid strict / fluid fair (ECMP fabric): {strict_ / fair:.3f}; host links only: "
          f"{means['fluid, strict priority, host links only'] / means['fluid, max-min fair, host links only']:.3f}.")


# --- per-flow trace --------------------------------------------------------------------


def rate_split(path: Path, f: dict[str, list[Any]], ids: list[int]) -> dict[int, dict[str, float]]:
    """From a stored trace (``ablate.trace_flows``' file): per flow, its time from start to
    finish split by what it delivered in each 5 µs sample: nothing (idle: yielding, stopped,
    or waiting for its first packet), below 50 Gbps (partial) and at least 50 Gbps (full)."""
    with gzip.open(path, "rt") as fh:
        e = json.load(fh)["record"]["extra"]
    series: dict[int, list[tuple[float, float]]] = {}
    for t, i, b in zip(e["t"], e["id"], e["bytes"]):
        series.setdefault(int(i), []).append((t, b))
    out = {}
    for i in ids:
        s0, s1 = f["start_us"][i], f["finish_us"][i]
        acc = {"idle": 0.0, "partial": 0.0, "full": 0.0}
        pts = sorted(series.get(i, []))
        if pts and pts[0][0] > s0:  # before the flow's first sample: nothing delivered yet
            acc["idle"] += min(pts[0][0], s1) - s0
        for (ta, ba), (tb, bb) in zip(pts, pts[1:]):
            a, b = max(ta, s0), min(tb, s1)
            if b <= a:
                continue
            rate = (bb - ba) / (tb - ta)
            acc["idle" if rate <= 0 else "full" if rate >= FULL * A.LINE_BYTES_PER_US else "partial"] += b - a
        out[i] = acc
    return out


def trace_table() -> None:
    print(f"Large flows (≥ 6 MB) of seeds {', '.join(map(str, A.TRACE_SEEDS))}, delivered bytes sampled every "
          f"{A.TRACE_US:.0f} µs. Mean µs per flow: FCT; wait before the first data packet; then the FCT split by "
          "what the flow delivered in each sample: nothing (idle: yielding, stopped or not yet started), below "
          "50 Gbps (partial: sharing) and at least 50 Gbps (full). PrioPlus's held time (window 0 or below "
          "one packet, the trace's classes) in brackets.\n")
    print("| scheme | " + " | ".join(f"levels {g}" for g in GROUPS) + " |")
    print("|---|" + "---|" * len(GROUPS))
    for v in (PP, D2, NOCC):
        flows, same = [], True
        for seed in A.TRACE_SEEDS:
            (base,) = load(v, (), "table", (seed,))
            f = base["flows"]
            large = [i for i, s in enumerate(f["size"]) if s >= F14.LARGE]
            name = "".join(ch for ch in v.lower() if ch.isalnum())
            path = RAW / "trace" / f"{name}_seed{seed}.json.gz"
            t = A.trace_flows("F14", runs_of(v), seed, (), f, large, v == PP, path, F14.COLUMNS, v)
            same &= t["same_fcts"]
            split = rate_split(path, f, large)
            for i, x in zip(large, t["flows"]):
                x.update(split[i], wait=f["first_tx_us"][i] - f["start_us"][i])
            flows += t["flows"]
        cells = []
        for lo, hi in GROUPS.values():
            sel = [x for x in flows if lo <= x["prio"] <= hi]
            m = {k: A.mean([x[k] for x in sel]) for k in ("fct", "wait", "idle", "partial", "full")}
            held = f" [held {A.fmt(A.mean([x['stopped'] + x['tiny'] for x in sel]))}]" if v == PP else ""
            cells.append(f"{len(sel)}: FCT {A.fmt(m['fct'])}, wait {A.fmt(m['wait'])}, idle {A.fmt(m['idle'])}, "
                         f"partial {A.fmt(m['partial'])}, full {A.fmt(m['full'])}{held}")
        print(f"| {v}{'' if same else ' (FCTs differ from the untraced runs)'} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated line keys")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--fluid", action="store_true", help="the fluid references only")
    ap.add_argument("--trace", action="store_true", help="the per-flow trace split only")
    ap.add_argument("--path-salt", type=int, default=0, help="--fluid: another random draw of the ECMP paths")
    ap.add_argument("--seeds", default="", help="a range such as 10-18 (held-out seeds) instead of 1-9")
    a = ap.parse_args()
    global PATH_SALT, SEEDS
    PATH_SALT = a.path_salt
    if a.seeds:
        lo, hi = (int(x) for x in a.seeds.split("-"))
        SEEDS = tuple(range(lo, hi + 1))
    if a.list:
        for k, (v, ch, what) in LINES.items():
            print(f"{k:<16} {v:<16} {' '.join(ch) or '-'}  {what}")
        return
    if a.fluid:
        fluid_table()
        return
    if a.trace:
        trace_table()
        return
    lines_table(a.only.split(",") if a.only else list(LINES))


if __name__ == "__main__":
    main()
