"""Ablation runs behind H2 / AC15 (F11), H16 and H17 / AC18 (F14): why PrioPlus's small
(sub-RTT) flows are slower than under Physical*+Swift.

Each row is a harness cell (F11 at N = 8, or F14) built from the harness's own run list
(``dcnsim.repro.papers.prioplus.runs``: the same scenario file and overrides as
``dcnsim reproduce prioplus``, so a base row equals the table's cell), plus at most one
changed setting. The script checks that every base row's scenario is the one the harness
builds. Every run's flow table is kept under ``raw/`` (one JSON file per row and seed; not
committed: the full set is 2.8 MB and reruns in about 10 minutes of one core) and reused
when its scenario is unchanged (gzipped JSON, times rounded to 1 ns); delete a file to run
it again.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate.py            # every row, 9 seeds
    PYTHONPATH=python python experiments/prioplus/ablations/ablate.py --only F14 --seeds 3
    PYTHONPATH=python python experiments/prioplus/ablations/ablate.py --list

The tables (markdown) go to stdout: avg / p99 FCT in µs per size bucket (F11) or per
(size bucket, level group) (F14), flows pooled over seeds, and the ratio to the
Physical*+Swift reference named in the row ("ref"). results.md holds the output of the
run described there.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from dcnsim._scenario import load_scenario
from dcnsim.repro.core import core_fingerprint, simulate
from dcnsim.repro.papers.prioplus import runs as R
from dcnsim.repro.papers.prioplus.metrics import (BUCKETS_F11, BUCKETS_F14, GROUPS_F14, KB, bucket_stats,
                                                  f14_level_cells, level_of)

HERE = Path(__file__).resolve().parent
EXP_DIR = HERE.parent
RAW = HERE / "raw"
COLUMNS = ("tag", "src", "dst", "size", "priority", "start_us", "first_tx_us", "fct_us", "ideal_fct_us", "finished")
POINT = {"F11": "N=8", "F14": "12 levels"}


@dataclass(frozen=True)
class Row:
    key: str            # file name under raw/
    exp: str            # F11 or F14
    variant: str        # the harness variant it starts from
    change: tuple[str, ...] = ()  # the one changed setting (overrides), none for a base row
    ref: str = ""       # the row it is compared against (Physical*+Swift, base or matched)
    note: str = ""
    base: str = ""      # the row this one changes one setting of (empty: the harness cell)


PP_Q = ('switch.scheduler="priority"', 'switch.priority.queues="ideal"')
ROWS = [
    # F11, N = 8 (H2 / AC15)
    Row("f11_phys", "F11", R.PHYS_STAR, ref="f11_phys", note="Physical*+Swift (the table's cell)"),
    Row("f11_pp", "F11", R.PP, ref="f11_phys", note="PrioPlus+Swift (the table's cell)"),
    Row("f11_pp_queues", "F11", R.PP, PP_Q, "f11_phys",
        "PrioPlus, each level in its own strict-priority queue (as Physical*'s)"),
    Row("f11_pp_queues_a1", "F11", R.PP, PP_Q + ('transport.prioplus.fluctuation="1.2us"',), "f11_phys",
        "PrioPlus in per-level queues, A = 1.2 µs", "f11_pp_queues"),
    Row("f11_pp_queues_pfc", "F11", R.PP, PP_Q + (R.PER_PRIORITY_PFC,), "f11_phys",
        "PrioPlus in per-level queues, each its own PFC class (as Physical*'s)", "f11_pp_queues"),
    Row("f11_pp_queues_pfc_a1", "F11", R.PP, PP_Q + (R.PER_PRIORITY_PFC, 'transport.prioplus.fluctuation="1.2us"'),
        "f11_phys", "PrioPlus in per-level queues and PFC classes, A = 1.2 µs", "f11_pp_queues_pfc"),
    Row("f11_pp_a1", "F11", R.PP, ('transport.prioplus.fluctuation="1.2us"',), "f11_phys",
        "PrioPlus, A = 1.2 µs (channel spacing 4 → 2 µs)"),
    Row("f11_pp_nopace", "F11", R.PP, ("transport.prioplus.pacing=false",), "f11_phys", "PrioPlus, no pacing"),
    Row("f11_pp_dual", "F11", R.PP, ("transport.prioplus.dual_rtt=false",), "f11_phys",
        "PrioPlus, adaptive increase every round"),
    Row("f11_pp_nocap", "F11", R.PP, ("transport.prioplus.cwnd_cap=false",), "f11_phys", "PrioPlus, no window cap"),
    Row("f11_pp_nonoise", "F11", R.PP, ("transport.delay_noise.scale=0",), "f11_phys_nonoise",
        "PrioPlus, no NIC noise"),
    Row("f11_phys_nonoise", "F11", R.PHYS_STAR, ("transport.delay_noise.scale=0",), "f11_phys_nonoise",
        "Physical*, no NIC noise"),
    Row("f11_phys_acks_top", "F11", R.PHYS_STAR_ACKS_ON_TOP, (), "f11_phys_acks_top",
        "Physical*, ACKs on top (the table's ablation cell)"),
    # F14, 12 levels (H16, H17 / AC18)
    Row("f14_phys", "F14", R.PHYS_STAR, ref="f14_phys", note="Physical*+Swift (the table's cell)"),
    Row("f14_pp", "F14", R.PP, ref="f14_phys", note="PrioPlus+Swift (the table's cell)"),
    Row("f14_pp_noprobe", "F14", R.PP, ("transport.prioplus.direct_start_levels=12",), "f14_phys",
        "PrioPlus, no probe before start (every level starts at once)"),
    Row("f14_pp_restart", "F14", R.PP, ("transport.prioplus.restart_pkts=150",), "f14_phys",
        "PrioPlus, 150 packets (about 1 BDP) after a probe that sees a non-empty queue (default 1)"),
    Row("f14_pp_noprobe_queues", "F14", R.PP, ("transport.prioplus.direct_start_levels=12",) + PP_Q, "f14_phys",
        "PrioPlus without the probe before start, in per-level queues",
        "f14_pp_noprobe"),
    Row("f14_pp_ls1", "F14", R.PP, ("transport.prioplus.linear_step=1.0",), "f14_phys",
        "PrioPlus, W_LS = 1 BDP at every level"),
    Row("f14_pp_nopace", "F14", R.PP, ("transport.prioplus.pacing=false",), "f14_phys", "PrioPlus, no pacing"),
    Row("f14_pp_slack0", "F14", R.PP, ("transport.prioplus.countdown_slack=0",), "f14_phys",
        "PrioPlus, countdown slack 0"),
    Row("f14_pp_queues", "F14", R.PP, PP_Q, "f14_phys",
        "PrioPlus, each level in its own strict-priority queue (as Physical*'s)"),
    Row("f14_pp_nonoise", "F14", R.PP, ("transport.delay_noise.scale=0",), "f14_phys_nonoise",
        "PrioPlus, no NIC noise"),
    Row("f14_phys_nonoise", "F14", R.PHYS_STAR, ("transport.delay_noise.scale=0",), "f14_phys_nonoise",
        "Physical*, no NIC noise"),
    Row("f14_phys_acks_top", "F14", R.PHYS_STAR, ("switch.ack_priority=true",), "f14_phys_acks_top",
        "Physical*, ACKs on top"),
]
BY_KEY = {r.key: r for r in ROWS}


def harness_run(exp: str, variant: str) -> R.Run:
    point = POINT[exp]
    for run in R.EXPERIMENTS[exp].runs(False):
        if run.point == point and run.variant == variant:
            return run
    raise SystemExit(f"no {exp} {point} {variant} in the harness")


def scenario(row: Row, seed: int) -> tuple[dict[str, Any], Path]:
    """The harness's cell (build_cells: the run's overrides, then the seed), then the change."""
    run = harness_run(row.exp, row.variant)
    return load_scenario(EXP_DIR / R.EXPERIMENTS[row.exp].toml, [*run.overrides, f"seed={seed}", *row.change])


def check_base(row: Row, seed: int) -> None:
    """A base row's scenario is the harness's own cell."""
    if row.change:
        return
    cells = [c for c in R.build_cells([row.exp], seed, False, EXP_DIR, "x")
             if c.point == POINT[row.exp] and c.variant == row.variant and c.seed == seed]
    spec, _ = scenario(row, seed)
    assert len(cells) == 1 and cells[0].spec == spec, f"{row.key}: not the harness's cell"


def digest(spec: Any, columns: tuple[str, ...] = COLUMNS) -> str:
    """A stored run's key: the scenario, the flow-table columns kept and the compiled core, so
    a rebuilt core never reuses a run made by another."""
    return hashlib.sha256(json.dumps([spec, columns, _CORE], sort_keys=True, default=str).encode()).hexdigest()[:16]


_CORE = core_fingerprint()


def read_cached(path: Path, sha: str) -> Optional[dict[str, Any]]:
    """What `save` stored at `path`, if it was made from the scenario whose digest is `sha`."""
    if not path.is_file():
        return None
    with gzip.open(path, "rt") as fh:
        data = json.load(fh)
    return data if data.get("scenario_sha") == sha else None


def seeded_runs(exp: str, run: R.Run, seeds: tuple[int, ...], change: tuple[str, ...], key: str, raw: Path,
                columns: tuple[str, ...], harness_spec: Callable[[str, int], dict[str, Any]]) -> list[dict[str, Any]]:
    """One harness run of `exp` (its scenario file and overrides) over `seeds` with the
    overrides `change` added, each seed's record stored under `raw`: by `key` for a changed
    line, by the variant for the harness's own (which must equal the harness's scenario)."""
    out = []
    for seed in seeds:
        spec, root = load_scenario(EXP_DIR / R.EXPERIMENTS[exp].toml, [*run.overrides, f"seed={seed}", *change])
        if not change:
            assert harness_spec(run.variant, seed) == spec, f"{run.variant} seed {seed}: not the harness's scenario"
        sha = digest(spec, columns)
        base = "base_" + "".join(ch for ch in run.variant.lower() if ch.isalnum())
        path = raw / (key if change else base) / f"seed{seed}.json.gz"
        data = read_cached(path, sha)
        if data is None:
            rec = simulate(spec, str(root), columns, cap_us=R.CAP_US)
            if "error" in rec:
                raise SystemExit(f"{key} seed {seed}: {rec['error']}")
            rec = {"complete": rec["complete"], "wall_seconds": round(rec["wall_seconds"], 2),
                   "stats": {k: v for k, v in rec["stats"].items() if isinstance(v, (int, float))},
                   "flows": rec["flows"]}
            data = {"key": key, "variant": run.variant, "change": list(change), "seed": seed,
                    "scenario_sha": sha, "record": rec}
            save(path, data, allow_nan=True)
            print(f"{key:<14} {run.variant:<16} seed {seed}: {rec['wall_seconds']:5.1f} s, complete {rec['complete']}",
                  file=sys.stderr, flush=True)
        out.append({"seed": seed, **data["record"]})
    return out


def run_row(row: Row, seed: int, stream: Any = sys.stderr) -> dict[str, Any]:
    spec, root = scenario(row, seed)
    h = digest(spec)
    path = RAW / row.key / f"seed{seed}.json.gz"
    data = read_cached(path, h)
    if data is not None:
        return data
    check_base(row, seed)
    rec = simulate(spec, str(root), COLUMNS, cap_us=R.CAP_US)
    if "error" in rec:
        raise SystemExit(f"{row.key} seed {seed}: {rec['error']}")
    stats = rec["stats"]
    data = {"row": row.key, "exp": row.exp, "variant": row.variant, "change": list(row.change), "seed": seed,
            "scenario_sha": h, "complete": rec["complete"], "sim_time_us": rec["sim_time_us"],
            "wall_seconds": round(rec["wall_seconds"], 2),
            "stats": {k: stats[k] for k in sorted(stats) if isinstance(stats[k], (int, float))},
            "flows": {k: [round(v, 3) if isinstance(v, float) else v for v in vs] for k, vs in rec["flows"].items()}}
    save(path, data)
    print(f"{row.key:<20} seed {seed}: {rec['wall_seconds']:6.1f} s, complete {rec['complete']}", file=stream,
          flush=True)
    return data


def save(path: Path, data: dict[str, Any], allow_nan: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt") as fh:
        json.dump(data, fh, allow_nan=allow_nan)
    tmp.replace(path)


def pooled(data: list[dict[str, Any]]) -> tuple[list[float], list[float], list[str]]:
    sizes, fcts, tags = [], [], []
    for d in data:
        f = d["flows"]
        sizes += [float(s) for s in f["size"]]
        fcts += [float(x) if ok and x is not None else math.nan for x, ok in zip(f["fct_us"], f["finished"])]
        tags += [str(t) for t in f["tag"]]
    return sizes, fcts, tags


def cells_of(exp: str, data: list[dict[str, Any]]) -> dict[str, tuple[int, float, float]]:
    """F11: bucket → (flows, avg, p99); F14: "bucket/group" → (flows, avg, p99), the harness's cells."""
    sizes, fcts, tags = pooled(data)
    if exp == "F11":
        return {b: bucket_stats(sizes, fcts, lo, hi) for b, lo, hi in BUCKETS_F11}
    return {f"{b}/{g}": c for (b, g), c in f14_level_cells(sizes, fcts, tags).items()}


F11_COLS = [("small", 1), ("small", 2), ("middle", 1), ("middle", 2), ("large", 1), ("all", 1)]
F14_COLS = [f"{b}/{g}" for g, _ in GROUPS_F14 for b, _, _ in BUCKETS_F14]


def fmt(x: float, spec: str = ".0f") -> str:
    return "n/a" if x is None or not math.isfinite(x) else format(x, spec)


def mean(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return sum(xs) / len(xs) if xs else math.nan


# The per-flow traces of F11's and F14's largest flows (ablate_f11.py / ablate_f14.py --trace).
TRACE_US = 5.0
TRACE_SEEDS = (1, 2, 3)
TRACE_MTU = 1000.0
LINE_BYTES_PER_US = 100e9 / 8 / 1e6  # 100 Gbps


def delivered_series(sim: Any) -> dict[str, Any]:
    """The traced flows' delivered bytes and windows, and PrioPlus's stop counter and flow-count
    estimate where the algorithm has them."""
    from dcnsim._timeseries import select
    ts = sim.timeseries()
    t, ids, v = select(ts, "flow", "delivered_bytes")
    _, _, cwnd = select(ts, "flow", "cwnd_bytes")
    out = {"t": t, "id": [int(i) for i in ids], "bytes": v, "cwnd": cwnd, "stops": {}, "n_t": [], "n_id": [],
           "n_flow": []}
    try:
        _, sids, stops = select(ts, "flow", "cc.stops")
        out["stops"] = {str(int(i)): float(x) for i, x in zip(sids, stops)}
        nt, nids, nflow = select(ts, "flow", "cc.flow_estimate")
        out.update({"n_t": nt, "n_id": [int(i) for i in nids], "n_flow": nflow})
    except Exception:  # algorithms without PrioPlus's counters
        pass
    return out


def trace_flows(exp: str, run: R.Run, seed: int, change: tuple[str, ...], base_flows: dict[str, list[Any]],
                ids: list[int], cc_metrics: bool, path: Path, columns: tuple[str, ...], label: str) -> dict[str, Any]:
    """Experiment ``exp``'s run ``run`` with ``change`` on ``seed``, flows ``ids`` sampled every TRACE_US
    (kept at ``path``): per flow, its FCT split into intervals stopped (window 0 at the interval's start,
    waiting for a probe), with a window below one packet ("tiny", a trickle), delivering below half the
    line rate with a larger window ("slow") and the rest; with PrioPlus's stops and time-averaged
    flow-count estimate. ``same_fcts`` says whether tracing left the FCTs of ``base_flows`` unchanged."""
    metrics = ["cwnd", "cc"] if cc_metrics else ["cwnd"]
    obs = (f'observe={{ interval = "{TRACE_US}us", ports = "none", flows = {ids}, '
           f'metrics = {metrics} }}').replace("'", '"')
    spec, root = load_scenario(EXP_DIR / R.EXPERIMENTS[exp].toml, [*run.overrides, f"seed={seed}", *change, obs])
    sha = digest(spec, columns)
    cached = read_cached(path, sha)
    rec = cached["record"] if cached else None
    if rec is None:
        rec = simulate(spec, str(root), columns, cap_us=R.CAP_US, summarize=delivered_series)
        rec = {"flows": rec["flows"], "extra": rec["extra"]}
        save(path, {"scenario_sha": sha, "record": rec}, allow_nan=True)
        print(f"trace {label} seed {seed} done", file=sys.stderr, flush=True)
    f = base_flows
    e = rec["extra"]
    series: dict[int, list[tuple[float, float, float]]] = {}
    for t, i, b, w in zip(e["t"], e["id"], e["bytes"], e["cwnd"]):
        series.setdefault(i, []).append((t, b, w))
    nflow = {(i, t): x for t, i, x in zip(e.get("n_t", []), e.get("n_id", []), e.get("n_flow", []))}
    out = []
    for i in ids:
        s0, s1 = f["start_us"][i], f["finish_us"][i]
        pts = sorted(series.get(i, []))
        stopped = tiny = slow = 0.0
        n_sum = n_time = 0.0
        for (ta, ba, wa), (tb, bb, _) in zip(pts, pts[1:]):
            a, b = max(ta, s0), min(tb, s1)
            if b <= a:
                continue
            if (i, ta) in nflow:
                n_sum += nflow[(i, ta)] * (b - a)
                n_time += b - a
            rate = (bb - ba) / (tb - ta)
            if wa <= 0:
                stopped += b - a
            elif wa < TRACE_MTU:
                tiny += b - a
            elif rate < 0.5 * LINE_BYTES_PER_US:
                slow += b - a
        out.append({"prio": int(f["priority"][i]), "fct": f["fct_us"][i], "ideal": f["ideal_fct_us"][i],
                    "stopped": stopped, "tiny": tiny, "slow": slow, "stops": e["stops"].get(str(i), math.nan),
                    "n_flow": n_sum / n_time if n_time else math.nan})
    return {"same_fcts": rec["flows"]["fct_us"] == f["fct_us"], "flows": out}


def table(exp: str, rows: list[Row], res: dict[str, dict[str, tuple[int, float, float]]],
          meta: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    if exp == "F11":
        head = ["row", "change", "small avg", "small p99", "middle avg", "middle p99", "large avg", "all avg",
                "worse of small/middle (avg; p99)", "wall s/run", "timeouts", "pauses"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            c, ref = res[r.key], res[r.ref]
            cells = []
            for b, i in F11_COLS:
                ratio = c[b][i] / ref[b][i] if ref[b][i] else math.nan
                cells.append(f"{fmt(c[b][i])} ({fmt(ratio, '.2f')}x)")
            worst_avg = max(c[b][1] / ref[b][1] for b in ("small", "middle"))
            worst_p99 = max(c[b][2] / ref[b][2] for b in ("small", "middle"))
            m = meta[r.key]
            out.append("| " + " | ".join([r.key, (", ".join(r.change) or "—").replace("|", "\\|"), *cells,
                                          f"{worst_avg:.3f}; {worst_p99:.3f}", f"{m['wall']:.1f}",
                                          f"{m['timeouts']:.0f}", f"{m['pauses']:.0f}"]) + " |")
    else:
        head = ["row", "change", *F14_COLS, "worst cell / ref", "lvl-12 sub-RTT", "wall s/run", "timeouts",
                "pauses"]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            c, ref = res[r.key], res[r.ref]
            cells, ratios = [], []
            for k in F14_COLS:
                ratio = c[k][1] / ref[k][1] if ref[k][1] else math.nan
                ratios.append((ratio, k))
                cells.append(f"{fmt(c[k][1])} ({fmt(ratio, '.2f')}x)")
            worst = max(ratios)
            m = meta[r.key]
            out.append("| " + " | ".join([r.key, (", ".join(r.change) or "—").replace("|", "\\|"), *cells,
                                          f"{worst[0]:.3f} ({worst[1]})", fmt(c['sub-RTT/level 12'][1], '.1f'),
                                          f"{m['wall']:.1f}", f"{m['timeouts']:.0f}", f"{m['pauses']:.0f}"]) + " |")
    return out


def detail(exp: str, rows: list[Row], data: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Where the time of the small flows goes. F14: per level group, the sub-RTT flows'
    wait before their first packet (first_tx − start: PrioPlus's probe before start) and
    the rest of the FCT. F11: the small flows by size, avg FCT − ideal FCT (the time lost
    to queueing and to the start), and their p99 FCT."""
    out = []
    if exp == "F14":
        head = ["row"] + [f"{g}: wait; rest" for g, _ in GROUPS_F14]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            cells = []
            for g, levels in GROUPS_F14:
                w, rest = [], []
                for d in data[r.key]:
                    f = d["flows"]
                    for t, sz, st, ft, fct, ok in zip(f["tag"], f["size"], f["start_us"], f["first_tx_us"],
                                                      f["fct_us"], f["finished"]):
                        if ok and level_of(t) in levels and sz < 150 * KB:
                            w.append(ft - st)
                            rest.append(fct - (ft - st))
                cells.append(f"{sum(w) / len(w):.1f}; {sum(rest) / len(rest):.1f}")
            out.append("| " + " | ".join([r.key, *cells]) + " |")
    else:
        bins = ((0, 10 * KB), (10 * KB, 100 * KB), (100 * KB, 300 * KB))
        head = ["row", "small: levels; avg wait"] + [f"{lo / KB:.0f}-{hi / KB:.0f} KB: flows, excess avg, p99 FCT"
                                                     for lo, hi in bins]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in rows:
            lv, wait = set(), []
            for d in data[r.key]:
                f = d["flows"]
                for sz, p, st, ft in zip(f["size"], f["priority"], f["start_us"], f["first_tx_us"]):
                    if sz < 300 * KB:
                        lv.add(int(p))
                        wait.append(ft - st)
            cells = [f"{','.join(map(str, sorted(lv)))}; {sum(wait) / len(wait):.2f}"]
            for lo, hi in bins:
                ex, fc = [], []
                for d in data[r.key]:
                    f = d["flows"]
                    for sz, fct, ideal, ok in zip(f["size"], f["fct_us"], f["ideal_fct_us"], f["finished"]):
                        if ok and lo <= sz < hi:
                            ex.append(fct - ideal)
                            fc.append(fct)
                fc.sort()
                p99 = bucket_stats([0.0] * len(fc), fc, 0, 1)[2]
                cells.append(f"{len(fc)}, {sum(ex) / len(ex):.1f}, {p99:.0f}")
            out.append("| " + " | ".join([r.key, *cells]) + " |")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="F11, F14 or row keys, comma-separated")
    ap.add_argument("--seeds", type=int, default=9, help="seeds 1..N (default 9, the harness's)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        for r in ROWS:
            print(f"{r.key:<20} {r.exp} {r.variant:<30} {' '.join(r.change) or '-':<50} ref {r.ref}")
        return 0
    want = [w.strip() for w in a.only.split(",") if w.strip()]
    rows = [r for r in ROWS if not want or r.exp in want or r.key in want]
    need = {r.key for r in rows} | {r.ref for r in rows}
    todo = [r for r in ROWS if r.key in need]
    res, meta, raw = {}, {}, {}
    for r in todo:
        data = [run_row(r, s) for s in range(1, a.seeds + 1)]
        res[r.key] = cells_of(r.exp, data)
        raw[r.key] = data
        n = len(data)
        meta[r.key] = {"wall": sum(d["wall_seconds"] for d in data) / n,
                       "timeouts": sum(d["stats"].get("timeouts", 0) for d in data) / n,
                       "pauses": sum(d["stats"].get("pfc_pause_frames", 0) for d in data) / n,
                       "unfinished": sum(1 for d in data if not d["complete"])}
    sim_s = sum(m["wall"] for m in meta.values()) * a.seeds
    print(f"{len(todo)} rows x {a.seeds} seeds; the simulations took {sim_s / 60:.0f} min of one core (as stored)")
    for exp in ("F11", "F14"):
        ex = [r for r in rows if r.exp == exp]
        if ex:
            print(f"\n### {exp} ({POINT[exp]}), seeds 1..{a.seeds}, avg FCT in µs (ratio to the row's ref)\n")
            print("\n".join(table(exp, ex, res, meta)))
            print()
            for r in ex:
                print(f"- {r.key}: {r.note}; ref {r.ref}" + (f"; one setting changed from {r.base}" if r.base else "") + (f"; {meta[r.key]['unfinished']} runs unfinished"
                                                              if meta[r.key]["unfinished"] else ""))
            what = ("sub-RTT flows per level group: avg wait before the first packet (first_tx − start); avg rest "
                    "of the FCT" if exp == "F14" else "small flows: their levels and avg wait before the first packet; by size: "
                    "flows, avg FCT − ideal FCT, p99 FCT")
            print(f"\n{exp}, where the small flows' time goes, µs ({what})\n")
            print("\n".join(detail(exp, ex, raw)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
