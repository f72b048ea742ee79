"""H4 (F11, Physical+Swift's avg FCT of all flows at N = 8 over the best N ≤ 6, paper "sharp
rise", our bar ≥ 1.25): why frequent PFC costs our Physical+Swift so little FCT.

Three parts (h4_pfc.md holds the output):

1. The shared pool per switch, by hand: ours (``build/switch.rs``, ``shared_buffer``: the
   buffer less reserve and headroom per lossless queue) against the PrioPlus artefact's
   (its ``DcbFcHelper::Install`` and ``DcbTrafficControl::Buffer::GetSharedSize``: the
   4.4 MB/Tbps buffer, less reserve + headroom for each of the 32 queues of every port, plus
   the headroom of the 32 − N lossy queues given back; the reserve of the lossy queues is
   not given back).
2. Lines of Physical+Swift's F11 runs (N = 2, 4, 6, 8; seeds 1-9; the harness's scenarios,
   asserted for the table line), one setting changed each, with the harness's figure
   (``ablate_checks.f11_rise``: ``checks.f11_stats``) and, from every run's PFC frame log
   (``pfc_events``), how long the pauses last, who is paused and how many ingress queues of
   one switch are paused at once.
3. Which flows lose FCT from N = 6 to N = 8 (size buckets of ``checks.f11_stats``).

``ablate_h4_trace.py`` (this folder) replays one switch's packets to measure how often the
artefact's resume rule would have held a pause that ours lifts.

Runs are stored under ``raw/h4_pfc/`` (gzipped JSON, not committed) and reused while their
scenario is unchanged.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h4_pfc.py
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h4_pfc.py --only table,artefact_pool
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h4_pfc.py --list
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (harness runs, seeds, the H4 figure)
from dcnsim._scenario import load_scenario  # noqa: E402
from dcnsim.repro.core import simulate  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

A = AC.A
HERE = Path(__file__).resolve().parent
RAW = HERE / "raw" / "h4_pfc"
NS = (2, 4, 6, 8)
POINTS = tuple(f"N={n}" for n in NS)
SUMMARY = "h4-1"  # bump when h4_summary changes

# --- The F11 switch and the two buffer models -------------------------------------------

PORTS = 6  # every switch of the k = 6 fat tree
RESERVE = 4096  # [switch.pfc.dynamic] reserve, the artefact's ReserveSize 4 KiB
HEADROOM = M.HEADROOM  # 37.5 KB per lossless queue and port, the artefact's 3 x rate x delay
BUFFER = M.SWITCH_BUFFER  # 2.64 MB: 4.4 MB/Tbps x 0.6 Tbps, the artefact's bufferBandwidthRatio
ARTEFACT_QUEUES = 32  # the artefact's numQueuePerPort in its Fig. 11 configs; numLosslessQueue = N
PRIORITY_BASE = 2  # the core's class of priority queue q is PRIORITY_BASE + q (net/pfc/mod.rs)
N_HOSTS = 54
STUCK_AT = 7  # queues of one switch paused at once from which the artefact's N = 8 pool can run dry


def pool_ours(n: int, buffer: int = BUFFER) -> int:
    """Our pool at N lossless queues per port: the buffer less (reserve + headroom) per queue."""
    return buffer - PORTS * n * (RESERVE + HEADROOM)


def pool_artefact(n: int) -> int:
    """The artefact's pool at N lossless queues: 32 queues per port each set aside reserve +
    headroom, then the headroom of the 32 − N lossy ones added back to the buffer."""
    return BUFFER + PORTS * HEADROOM * (ARTEFACT_QUEUES - n) - PORTS * ARTEFACT_QUEUES * (RESERVE + HEADROOM)


def artefact_buffer(n: int) -> int:
    """``switch.pfc.dynamic.buffer`` that gives our model the artefact's pool at N: 2.64 MB less
    the reserve of the artefact's 32 − N unused queues per port."""
    b = BUFFER - PORTS * (ARTEFACT_QUEUES - n) * RESERVE
    assert pool_ours(n, b) == pool_artefact(n)
    return b


def t_one(pool: int) -> float:
    """The pool share at which one backed-up queue pauses alone: α/(1 + α) of the pool, α = 1/4."""
    return pool / 5


def pool_table() -> str:
    rows = ["| N | ours: set aside | ours: pool | one queue pauses at (pool / 5) | artefact: set aside "
            "| artefact: pool | one queue pauses at | free pool < 12 KiB (T < 3 KiB, the artefact's resume "
            "offset) once ≥ k queues fill in turn |",
            "|---|---|---|---|---|---|---|---|"]
    for n in (1, 2, 4, 6, 7, 8):
        po, pa = pool_ours(n), pool_artefact(n)
        # k queues filling one after the other each take a fifth of what is free: free = P (4/5)^k.
        k = math.ceil(math.log(12 * 1024 / pa) / math.log(0.8)) if pa > 12 * 1024 else 0
        can = f"{k} of its {PORTS * n}" if k <= PORTS * n else f"never ({k} needed, {PORTS * n} exist)"
        rows.append(f"| {n} | {BUFFER - po:,} | {po:,} | {t_one(po):,.0f} | {BUFFER - pa:,} | {pa:,} "
                    f"| {t_one(pa):,.0f} | {can} |")
    return "\n".join(rows)


# --- The lines -------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    key: str
    label: str
    change: Callable[[int], tuple[str, ...]]  # the overrides at N
    note: str = ""


def _buffer(n: int) -> tuple[str, ...]:
    return (f'switch.pfc.dynamic.buffer="{artefact_buffer(n)}B"',)


LINES = [
    Line("table", "table", lambda n: ()),
    Line("artefact_pool", "the artefact's pool: buffer 2.64 MB less the 4 KiB reserve of its 32 − N unused "
         "queues per port", _buffer,
         "pool 1,403,568 / 953,568 / 503,568 / 53,568 B at N = 2 / 4 / 6 / 8, the artefact's to the byte"),
    Line("artefact_pool_empty", "the artefact's pool, and a paused queue resumes only once its pool share is "
         "empty", lambda n: _buffer(n) + ('switch.pfc.dynamic.resume_offset="100MB"',),
         "resume_offset beyond any threshold: longer pauses (drained to the 4 KiB reserve), a dose of "
         "pause time, not the artefact's rule"),
    Line("artefact_rule", "the artefact's pool and its resume rule: resume only 3 KiB below the threshold, "
         "else the PAUSE runs out after 65535 quanta (335.5 µs) unless renewed",
         lambda n: _buffer(n) + ('switch.pfc.dynamic.resume="offset_or_expiry"',),
         "`switch.pfc.dynamic.resume = \"offset_or_expiry\"` (docs/models/pfc.md, \"How a pause ends\"): "
         "the artefact's switches to the rule, which dcnsim could not run when this note was first written"),
    Line("pool_4k_at_8", "the artefact's pool at N ≤ 6; at N = 8 a pool of 4 KiB", lambda n: _buffer(n) if n < 8 else (
        f'switch.pfc.dynamic.buffer="{BUFFER - pool_ours(8) + 4096}B"',),
         "the limit of headroom eating the buffer: at N = 8 a queue pauses one packet past its 4 KiB reserve"),
    Line("headroom50", "PFC headroom 50 KB per lossless queue, not 37.5 KB (results_checks.md)",
         lambda n: ('switch.pfc.headroom="50000B"',), "pool 43,392 B at N = 8, 692,544 B at N = 6"),
]
BY_KEY = {ln.key: ln for ln in LINES}


# --- Runs ------------------------------------------------------------------------------


def h4_summary(sim: Any) -> dict[str, Any]:
    """The harness's extract plus what the PFC frame log says: each pause (PAUSE to RESUME at
    one upstream port and class) and, per downstream switch, how many of its ingress queues
    were paused at once."""
    out = M.summarize(sim)
    ev, ports = sim.pfc_events(), sim.ports()
    end = sim.now_ps / 1e6
    node = dict(zip(ports["port"], ports["node"]))
    peer = dict(zip(ports["port"], ports["peer"]))
    since: dict[tuple[int, int], float] = {}
    durs: list[float] = []
    nic_us = sw_us = 0.0
    by_level: dict[int, float] = {}
    conc: dict[int, list[tuple[float, int]]] = {}
    if ev:
        for t, p, c, e in zip(ev["time_us"], ev["port"], ev["class"], ev["event"]):
            p, c = int(p), int(c)
            conc.setdefault(int(peer[p]), []).append((float(t), 1 if e == "pause" else -1))
            if e == "pause":
                since[(p, c)] = float(t)
                continue
            d = float(t) - since.pop((p, c))
            durs.append(d)
            if node[p] < N_HOSTS:
                nic_us += d
            else:
                sw_us += d
            lvl = c - PRIORITY_BASE + 1
            by_level[lvl] = by_level.get(lvl, 0.0) + d
    for (p, c), t in since.items():  # still paused at the end
        durs.append(end - t)
    durs.sort()
    q = (lambda f: durs[min(len(durs) - 1, int(f * len(durs)))] if durs else None)  # JSON: no NaN
    # Per switch: time-weighted mean and max of its ingress queues paused at once, and the time
    # with at least STUCK_AT of them paused.
    mean_conc, max_conc, stuck_us = [], 0, 0.0
    for s, evs in conc.items():
        evs.sort()
        k, last, area = 0, 0.0, 0.0
        for t, dk in evs:
            area += k * (t - last)
            if k >= STUCK_AT:
                stuck_us += t - last
            k += dk
            last = t
            max_conc = max(max_conc, k)
        mean_conc.append(area / end)
    out["h4"] = {
        "pauses": len(durs), "paused_us": sum(durs), "nic_paused_us": nic_us, "switch_paused_us": sw_us,
        "p50_us": q(0.5), "p90_us": q(0.9), "p99_us": q(0.99), "max_us": durs[-1] if durs else None,
        "over_100us": sum(1 for d in durs if d >= 100), "by_level_us": {str(k): v for k, v in by_level.items()},
        "max_paused_at_one_switch": max_conc, "switch_us_with_stuck_at": stuck_us,
        "busiest_switch_mean_paused": max(mean_conc) if mean_conc else 0.0, "end_us": end,
    }
    return out


def load(line: Line, ns: tuple[int, ...] = NS, seeds: tuple[int, ...] = ()) -> list[R.RunResult]:
    out = []
    toml = A.EXP_DIR / R.EXPERIMENTS["F11"].toml
    for run in AC.harness_runs(AC.Cells("h4", "F11", R.PHYS, tuple(f"N={n}" for n in ns))):
        n = int(run.param("n"))
        for seed in AC.seeds_of(run, seeds):
            change = line.change(n)
            spec, root = load_scenario(toml, [*run.overrides, f"seed={seed}", *change])
            if not change and seed in AC.seeds_of(run):
                assert AC.harness_spec("F11", run.point, R.PHYS, seed) == spec, "not the harness's cell"
            sha = A.digest({"spec": spec, "columns": list(R._FLOW_COLUMNS), "summary": [R.SUMMARY_VERSION, SUMMARY]})
            path = RAW / line.key / f"{re.sub(r'[^A-Za-z0-9]+', '_', run.point)}_seed{seed}.json.gz"
            cached = A.read_cached(path, sha)
            rec = cached["record"] if cached else None
            if rec is None:
                rec = simulate(spec, str(root), R._FLOW_COLUMNS, cap_us=R.CAP_US, summarize=h4_summary)
                if "error" in rec:
                    raise SystemExit(f"{line.key} {run.point} seed {seed}: {rec['error']}")
                A.save(path, {"line": line.key, "point": run.point, "seed": seed, "change": list(change),
                              "scenario_sha": sha, "record": rec})
                print(f"{line.key:<22} {run.point:<5} seed {seed}: {rec['wall_seconds']:5.1f} s, "
                      f"complete {rec['complete']}, pauses {rec['extra']['h4']['pauses']}",
                      file=sys.stderr, flush=True)
            out.append(R.RunResult(R.Cell.of("F11", run, seed, spec), rec))
    return out


# --- Tables ----------------------------------------------------------------------------


def mech(results: list[R.RunResult], point: str) -> dict[str, float]:
    rs = [r for r in results if r.cell.point == point]
    h = [r.extra["h4"] for r in rs]
    n = max(len(h), 1)
    paused = sum(x["paused_us"] for x in h)
    pauses = sum(x["pauses"] for x in h)
    return {
        "pauses/run": pauses / n,
        "mean pause µs": paused / pauses if pauses else math.nan,
        "p50 pause µs (mean of runs)": sum(x["p50_us"] for x in h if x["pauses"]) / max(1, sum(1 for x in h if x["pauses"])),
        "p99 pause µs (mean of runs)": sum(x["p99_us"] for x in h if x["pauses"]) / max(1, sum(1 for x in h if x["pauses"])),
        "longest pause µs": max((x["max_us"] for x in h if x["pauses"]), default=math.nan),
        "pauses ≥ 100 µs/run": sum(x["over_100us"] for x in h) / n,
        # Paused (port, level) pairs at any moment, over the run: Σ pause time / run time.
        "paused pairs at once": sum(x["paused_us"] / x["end_us"] for x in h) / n,
        "NIC share of pause time": sum(x["nic_paused_us"] for x in h) / paused if paused else math.nan,
        "most queues of one switch paused at once": max((x["max_paused_at_one_switch"] for x in h), default=0),
        f"switch-µs with ≥ {STUCK_AT} queues paused/run": sum(x["switch_us_with_stuck_at"] for x in h) / n,
        "headroom overflow B": int(sum(r.stat("pfc_headroom_overflow_bytes") for r in rs)),
    }


def level_of(size: float, n: int) -> int:
    """The harness's level of a flow: N equal-width groups over [0, 30 MB], smaller higher."""
    return max(1, n - int(size * n // 30_000_000))


def fmtv(x: float) -> str:
    return AC.fmtv(x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated line keys")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--seeds", help="e.g. 1-3 (default: the harness's 9)")
    a = ap.parse_args()
    if a.list:
        for ln in LINES:
            print(f"{ln.key:<22} {ln.label}: N=8 {' '.join(ln.change(8)) or '(harness)'}")
        return
    seeds: tuple[int, ...] = ()
    if a.seeds:
        lo, _, hi = a.seeds.partition("-")
        seeds = tuple(range(int(lo), int(hi or lo) + 1))
    lines = [BY_KEY[k] for k in a.only.split(",")] if a.only else LINES

    print("### The shared pool per switch (6 ports, 2.64 MB, 4 KiB reserve, 37.5 KB headroom, α = 1/4)\n")
    print(pool_table())
    print()
    grids = {}
    for ln in lines:
        grids[ln.key] = R.Grid(R.EXPERIMENTS["F11"], load(ln, NS, seeds))

    print("### H4: Physical+Swift, all flows, N = 8 / best N ≤ 6 (bar ≥ 1.25)\n")
    print("| line | N=2 avg µs | N=4 avg µs | N=6 avg µs | N=8 avg µs | N=8 / best N≤6 | pauses/run N=6 "
          "| pauses/run N=8 | meets | runs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for ln in lines:
        g = grids[ln.key]
        f = AC.f11_rise(g)
        m6, m8 = mech(g.results, "N=6"), mech(g.results, "N=8")
        print(f"| {ln.label} | " + " | ".join(fmtv(f[f"N={n} all avg µs"]) for n in NS)
              + f" | {f['N=8 / best N≤6']:.3f} | {m6['pauses/run']:.0f} | {m8['pauses/run']:.0f} | "
              f"{'yes' if f['N=8 / best N≤6'] >= 1.25 else 'no'} | {len(g.results)} |")
    print()
    for ln in lines:
        if ln.note:
            print(f"- {ln.label}: {ln.note}")
    print()

    print("### The pauses (PFC frame log of every run; per run, N = 6 and N = 8)\n")
    keys = list(mech(grids[lines[0].key].results, "N=8"))
    print("| line | N | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for ln in lines:
        for p in ("N=6", "N=8"):
            m = mech(grids[ln.key].results, p)
            print(f"| {ln.label} | {p[2:]} | " + " | ".join(str(m[k]) if isinstance(m[k], int) else fmtv(m[k])
                                                           for k in keys) + " |")
    print()

    print("### Which flows lose: mean FCT µs by size bucket (flows pooled over seeds)\n")
    print("The last column is the bucket's part of the change of the all-flows mean from N = 6 to N = 8 "
          "(its flows × their mean change / all flows), in µs.\n")
    print("| line | bucket | flows | N=6 | N=8 | N=8 / N=6 | part of the all-flows change µs |")
    print("|---|---|---|---|---|---|---|")
    for ln in lines:
        st = C.f11_stats(grids[ln.key])
        n_all = st[("N=8", R.PHYS)]["all"][0]
        for b in ("all", "small", "middle", "large"):
            a6, a8 = st[("N=6", R.PHYS)][b], st[("N=8", R.PHYS)][b]
            part = a8[0] * a8[1] / n_all - a6[0] * a6[1] / n_all
            print(f"| {ln.label} | {b} | {a8[0]} | {fmtv(a6[1])} | {fmtv(a8[1])} | {a8[1] / a6[1]:.3f} | {part:+.1f} |")
    print()

    print("### N = 8 by level: mean FCT µs (flows pooled over seeds; level 8 is the top, flows under 3.75 MB)\n")
    print("| line | " + " | ".join(f"level {lv}" for lv in range(1, 9)) + " |")
    print("|---|" + "---|" * 8)
    for ln in lines:
        by: dict[int, list[float]] = {}
        for r in grids[ln.key].results:
            if r.cell.point != "N=8":
                continue
            for size, fct in zip(r.flows["size"], r.fcts()):
                if math.isfinite(fct):
                    by.setdefault(level_of(float(size), 8), []).append(fct)
        print(f"| {ln.label} | " + " | ".join(f"{sum(by[lv]) / len(by[lv]):.0f} ({len(by[lv])})" if by.get(lv) else "-"
                                             for lv in range(1, 9)) + " |")
    print()

    print("### Pause time by level at N = 8 (µs per run, all ports; level 8 is the top, the smallest flows)\n")
    print("| line | " + " | ".join(f"level {lv}" for lv in range(1, 9)) + " |")
    print("|---|" + "---|" * 8)
    for ln in lines:
        h = [r.extra["h4"] for r in grids[ln.key].results if r.cell.point == "N=8"]
        tot = {lv: sum(x["by_level_us"].get(str(lv), 0.0) for x in h) / max(len(h), 1) for lv in range(1, 9)}
        print(f"| {ln.label} | " + " | ".join(f"{tot[lv]:.0f}" for lv in range(1, 9)) + " |")


if __name__ == "__main__":
    main()
