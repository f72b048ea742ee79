"""``dcnsim reproduce mswift``: the evaluation of the MSwift paper (Fig. 4-14).

"Congestion Control for Spraying with Congested Paths" (arXiv 2509.07907 v2). Every
figure is a grid of (CCA, load balancer) cells over seeds; each cell runs one scenario of
``experiments/mswift/`` with ``--set`` style overrides (``transport.cc=...``,
``workload.<sprayed>.lb=...``, ``seed=...``). Runs go to a process pool, each finished run
is cached under ``<out>/cache/<key>.json`` (the key hashes the resolved scenario, the
dcnsim version and the compiled core), and the results become:

- ``table.md``: one block per figure, CCT increase over the zero-queueing lower bound as
  mean +- SEM over seeds, rows = CCAs, columns = OPS / AR / REPS, then the paper's numbers
  beside ours and the spec's Tier B checks;
- ``runs.csv``: one row per (figure, cell, seed) with drops, timeouts, retransmits;
- ``fig<N>.png``: bar charts with SEM error bars, and ``fig5_fct_cdf.png``.

The metric functions (:func:`cct_and_lb`, :func:`cct_increase`, :func:`mean_sem`,
:func:`incast_lb_us`) are plain Python and unit-tested against hand-computed numbers.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from dcnsim._repro import (
    Outcome,
    Reproduction,
    Settings,
    cdf,
    drive,
    find_experiments,
    grouped_bars,
    mean_sem,
    pad_rows,
    png,
    rate_bps,
    run_key,
    select_keys,
    size_bytes,
    time_us,
)

# The pool and the cache moved to dcnsim._repro, shared with the other reproductions;
# these names stay importable from here.
from dcnsim._repro import core_fingerprint, run_cells, simulate  # noqa: F401

# ---------------------------------------------------------------------------------------
# Metrics (digest §4.6)


def ser_us(nbytes: float, rate: float) -> float:
    """Serialisation time of ``nbytes`` at ``rate`` bits/s, in microseconds."""
    return nbytes * 8 / rate * 1e6


def cct_increase(cct_us: float, lb_us: float) -> float:
    """CCT increase over the lower bound, in percent: (CCT - LB) / LB * 100."""
    return (cct_us - lb_us) / lb_us * 100.0


def incast_lb_us(packets: Sequence[int], hops: Sequence[int], ser: float, latency: float) -> float:
    """Zero-queueing lower bound of an incast: the receiver's downlink carries every packet.

    ``(total packets - 1) * ser + min over flows of the one-packet ideal FCT``, where a
    one-packet flow over h store-and-forward links takes h * (ser + latency). ``ser`` is the
    serialisation time of one full packet and ``latency`` the per-link propagation, both in
    microseconds.
    """
    total = sum(int(n) for n in packets)
    first = min(int(h) for h in hops) * (ser + latency)
    return (total - 1) * ser + first


def hops_from_ideal(ideal_us: float, n_packets: int, ser: float, latency: float) -> int:
    """Links on a flow's path, from dcnsim's ideal FCT (n + h - 1) * ser + h * latency."""
    return round((ideal_us - (n_packets - 1) * ser) / (ser + latency))


@dataclass
class Geometry:
    """What the lower bound needs from the scenario."""

    ser_us: float  # one full packet on a link
    latency_us: float
    payload: int  # bytes of data per full packet

    @classmethod
    def of(cls, spec: dict[str, Any]) -> Geometry:
        topo = spec["topology"]
        rate = rate_bps(topo.get("link_rate", "100Gbps"))
        mtu = size_bytes(topo.get("mtu", "4KiB"))
        header = size_bytes(spec.get("transport", {}).get("header", "64B"))
        return cls(ser_us(mtu, rate), time_us(topo.get("link_latency", "500ns")), mtu - header)


def cct_and_lb(flows: dict[str, list[Any]], geometry: Geometry, incast: bool) -> tuple[float, float, int, int]:
    """CCT and zero-queueing lower bound of one run, in microseconds, and (finished, total).

    The collective is the flows tagged ``sprayed``, or every finite flow when no flow has
    that tag. CCT = the largest FCT among them (all start at 0), NaN unless all finished.
    LB = the largest ideal FCT (permutation, ring: every host sends and receives at most
    one flow), or :func:`incast_lb_us` for an incast.
    """
    tags = flows["tag"]
    chosen = [i for i, t in enumerate(tags) if t == "sprayed"]
    if not chosen:
        chosen = [i for i, s in enumerate(flows["size"]) if s is not None and s >= 0]
    finished = [i for i in chosen if flows["finished"][i]]
    if incast:
        packets = [max(1, math.ceil(flows["size"][i] / geometry.payload)) for i in chosen]
        hops = [
            hops_from_ideal(flows["ideal_fct_us"][i], n, geometry.ser_us, geometry.latency_us)
            for i, n in zip(chosen, packets)
        ]
        lb = incast_lb_us(packets, hops, geometry.ser_us, geometry.latency_us)
    else:
        lb = max(float(flows["ideal_fct_us"][i]) for i in chosen)
    if len(finished) < len(chosen):
        cct = math.nan
    else:
        cct = max(float(flows["fct_us"][i]) for i in chosen)
    return cct, lb, len(finished), len(chosen)


# ---------------------------------------------------------------------------------------
# The experiments

LBS = ("ops", "ar", "reps")
LB_LABEL = {"ops": "OPS", "ar": "AR", "reps": "REPS"}
BDP_PACKETS = 151  # dcnsim's initial_window = "bdp" on an inter-pod path (6.253 us at 800G)
MIB = 1024 * 1024
NOT_IMPLEMENTED = "not implemented (issue 4)"


@dataclass(frozen=True)
class Row:
    label: str
    cc: Optional[str]  # None: not available in dcnsim yet
    overrides: tuple[str, ...] = ()


SWIFT = Row("Swift", "swift")
LSWIFT = Row("LSwift", "lswift")
MSWIFT = Row("MSwift", "mswift")
# NSCC as the MSwift paper ran it: the uet-htsim reference code with the queueing-delay
# target set to Swift's (about 1 us), starting at the ideal window like every other CCA.
NSCC_AS_IN_PAPER = 'transport.nscc={ mode = "nscc_htsim", target_qdelay = "1us", initial_cwnd = "transport" }'
NSCC = Row("NSCC", "nscc", (NSCC_AS_IN_PAPER,))
MNSCC = Row("MNSCC", "mnscc", (NSCC_AS_IN_PAPER,))
C5 = (SWIFT, LSWIFT, MSWIFT, NSCC, MNSCC)
C4 = (LSWIFT, MSWIFT, NSCC, MNSCC)


@dataclass
class Figure:
    key: str
    exp: str
    title: str
    toml: Optional[str]
    rows: tuple[Row, ...] = C4
    overrides: tuple[str, ...] = ()
    quick_overrides: tuple[str, ...] = ()
    quick_seeds: Optional[int] = None  # at most this many seeds in --quick
    paper: str = ""  # the paper's statement, for the figure list
    not_run: Optional[str] = None


def _size_set(index: int, nbytes: int) -> str:
    return f"workload.{index}.size={nbytes}"


FIGURES: dict[str, Figure] = {
    f.key: f
    for f in [
        Figure("4", "E1", "baseline: 4 ECMP elephants + 124 sprayed x 8 MiB", "e1_baseline.toml", C5,
               quick_overrides=(_size_set(1, 4 * MIB),),
               paper="Swift ~13x higher CCTs; LSwift/MSwift up to 8.6x (REPS); best = MSwift+REPS; NSCC: AR < REPS"),
        Figure("5", "E1", "FCT CDFs of the sprayed flows (same runs as Fig. 4)", None, C4,
               paper="LSwift worst under every LB, very poor tail under REPS; MSwift best tail under REPS"),
        Figure("6", "E2", "permutation of all 128 hosts, 8 MiB, no elephants", "e2_permutation.toml",
               quick_overrides=(_size_set(0, 4 * MIB),),
               paper="all better than Fig. 4; LSwift < NSCC; MSwift <= LSwift, up to 1.7x; best = MSwift+REPS"),
        Figure("7", "E3", "HSDP Llama-3-70B ring step, 128 flows x 3344 packets", "e3_hsdp.toml",
               paper="REPS: LSwift/MSwift = 1.8, NSCC/MSwift = 2.3; MSwift best under every LB; MNSCC ~ NSCC"),
        Figure("8", "E4", "baseline on k = 10: 4 elephants + 246 sprayed x 8 MiB", "e4_k10.toml",
               quick_overrides=(_size_set(1, 4 * MIB),), quick_seeds=1,
               paper="MSwift best; MNSCC slightly better than NSCC"),
        Figure("9", "E5", "baseline with 16 MiB messages", "e5_16mib.toml",
               quick_overrides=(_size_set(1, 8 * MIB),),
               paper="max over LB LSwift/MSwift = 10.7 (8.6 at 8 MiB); LSwift and NSCC worse than at 8 MiB"),
        Figure("10", "E6", "baseline with 8 ECMP elephants + 120 sprayed", "e6_8elephants.toml",
               quick_overrides=(_size_set(1, 4 * MIB),),
               paper="similar to 4 elephants, not much worse"),
        Figure("11", "E7", "baseline + independent link failures, p = 0.01", "e7_failures.toml",
               quick_overrides=(_size_set(1, 4 * MIB),),
               paper="CCT higher than baseline, noisier; MSwift best under all three LBs"),
        Figure("12", "E8", "baseline, MSwift delay percentile P10 / P50 / P90", "e8_percentiles.toml",
               (LSWIFT, Row("MSwift-P10", "mswift", ("transport.swift.percentile=10",)), MSWIFT,
                Row("MSwift-P90", "mswift", ("transport.swift.percentile=90",))),
               quick_overrides=(_size_set(1, 4 * MIB),),
               paper="OPS: P10 beats MSwift; AR, REPS: neither P10 nor P90 beats the median"),
        Figure("13", "E9", "baseline with two-class DRR at every switch port", "e9_drr.toml",
               quick_overrides=(_size_set(1, 4 * MIB),),
               paper="Swift variants worse than FIFO, NSCC variants better; MSwift < LSwift; MNSCC ~ NSCC"),
        Figure("14", "E10", "incast 32 -> 1, 8 MiB, initial window ceil(BDP/32) = 5", "e10_incast.toml",
               quick_overrides=("workload.0.senders=8", _size_set(0, 2 * MIB),
                                f"transport.initial_window={math.ceil(BDP_PACKETS / 8)}"),
               paper="small CCT increase for all; median variants only slightly worse than their bases"),
        Figure("14b", "E10", "incast 32 -> 1, 8 MiB, initial window = BDP", "e10_incast.toml",
               overrides=('transport.initial_window="bdp"',),
               quick_overrides=("workload.0.senders=8", _size_set(0, 2 * MIB)),
               paper="(secondary setting of Fig. 14; the paper's initial window is 'the ideal value')"),
    ]
}
QUICK_NOTE = {
    "4": "4 MiB", "6": "4 MiB", "7": "full size", "8": "4 MiB, 1 seed", "9": "8 MiB", "10": "4 MiB",
    "11": "4 MiB", "12": "4 MiB", "13": "4 MiB", "14": "8 senders x 2 MiB, initial window 19", "14b": "8 senders x 2 MiB",
}


def parse_only(text: Optional[str]) -> list[str]:
    """Figure keys from ``--only`` ("4,6"); Fig. 5 comes with Fig. 4 and the other way round."""
    chosen = set(select_keys(text, list(FIGURES), "figure", lambda k: k.lower().removeprefix("fig").strip()))
    if chosen & {"4", "5"}:
        chosen |= {"4", "5"}
    return [k for k in FIGURES if k in chosen]


def experiments_dir() -> Path:
    """``experiments/mswift`` of the source tree (or $DCNSIM_EXPERIMENTS/mswift)."""
    return find_experiments("mswift", "e1_baseline.toml")


# ---------------------------------------------------------------------------------------
# Cells and runs


@dataclass
class Cell:
    fig: str
    row: Row
    lb: str
    seed: int
    spec: dict[str, Any] = field(repr=False)
    key: str = ""

    def progress_label(self) -> str:
        return f"fig {self.fig:<3} {self.row.label:<10} {LB_LABEL[self.lb]:<4} seed {self.seed:<2}"

    def cache_meta(self) -> dict[str, Any]:
        return {"figure": self.fig, "cca": self.row.label, "lb": self.lb, "seed": self.seed}


def _sprayed_index(spec: dict[str, Any]) -> int:
    workloads = spec.get("workload", [])
    for i, w in enumerate(workloads):
        if w.get("tag") == "sprayed":
            return i
    return len(workloads) - 1


def _scale_sizes(spec: dict[str, Any], scale: float, payload: int) -> None:
    """DCNSIM_REPRO_SCALE: shrink every finite flow size (whole packets, at least one)."""
    for w in spec.get("workload", []):
        size = w.get("size")
        if size is None or size == "infinite":
            continue
        packets = max(1, round(size_bytes(size) * scale / payload))
        w["size"] = packets * payload


# A run that has not finished by this simulated time is stopped and reported unfinished
# (the slowest expected runs, incasts, need about 3 ms).
SIM_CAP_US = 100_000.0
_FLOW_COLUMNS = ("tag", "src", "dst", "size", "fct_us", "ideal_fct_us", "finished", "retransmits", "drops")


def build_cells(
    figs: Iterable[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str, scale: float = 1.0
) -> list[Cell]:
    from dcnsim._scenario import load_scenario

    cells = []
    for key in figs:
        fig = FIGURES[key]
        if fig.toml is None or fig.not_run:
            continue
        n = seeds if not (quick and fig.quick_seeds) else min(seeds, fig.quick_seeds)
        sprayed = _sprayed_index(load_scenario(exp_dir / fig.toml)[0])
        for row in fig.rows:
            if row.cc is None:
                continue
            for lb in LBS:
                for seed in range(1, n + 1):
                    overrides = [
                        *fig.overrides,
                        *(fig.quick_overrides if quick else ()),
                        f"transport.cc={row.cc}",
                        *row.overrides,
                        f"workload.{sprayed}.lb={lb}",
                        f"seed={seed}",
                    ]
                    spec, _ = load_scenario(exp_dir / fig.toml, overrides)
                    if scale != 1.0:
                        _scale_sizes(spec, scale, Geometry.of(spec).payload)
                    cell = Cell(key, row, lb, seed, spec)
                    cell.key = run_key(spec, fingerprint)
                    cells.append(cell)
    return cells


# ---------------------------------------------------------------------------------------
# Results per cell


@dataclass
class RunResult:
    cell: Cell
    record: dict[str, Any]
    cct_us: float
    lb_us: float
    finished: int
    total: int

    @property
    def increase(self) -> float:
        return cct_increase(self.cct_us, self.lb_us) if math.isfinite(self.cct_us) else math.nan

    def stat(self, name: str) -> Any:
        return self.record.get("stats", {}).get(name)


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    if "error" in record:
        return RunResult(cell, record, math.nan, math.nan, 0, 0)
    incast = cell.spec["workload"][_sprayed_index(cell.spec)]["kind"] == "incast"
    cct, lb, fin, tot = cct_and_lb(record["flows"], Geometry.of(cell.spec), incast)
    return RunResult(cell, record, cct, lb, fin, tot)


@dataclass
class Stat:
    mean: float
    sem: float
    n: int  # seeds with a finished collective
    missing: int  # seeds whose run is absent (interrupted) or unfinished

    def fmt(self) -> str:
        if self.n == 0:
            return "no data" if self.missing else "-"
        sem = "-" if math.isnan(self.sem) else f"{self.sem:.1f}"
        star = "*" if self.missing else ""
        return f"{self.mean:.1f} ± {sem}{star}"


class Grid:
    """One figure's results: run results per (row label, lb)."""

    def __init__(self, fig: Figure, results: list[RunResult], seeds: int) -> None:
        self.fig = fig
        self.results = results
        self.seeds = seeds
        self.by: dict[tuple[str, str], list[RunResult]] = {}
        for r in results:
            self.by.setdefault((r.cell.row.label, r.cell.lb), []).append(r)

    def stat(self, row: str, lb: str) -> Stat:
        runs = self.by.get((row, lb), [])
        vals = [r.increase for r in runs if math.isfinite(r.increase)]
        mean, sem = mean_sem(vals)
        return Stat(mean, sem, len(vals), self.seeds - len(vals))

    def mean(self, row: str, lb: str) -> float:
        return self.stat(row, lb).mean

    def available_rows(self) -> list[str]:
        return [r.label for r in self.fig.rows if r.cc is not None]

    def lbs_us(self) -> list[float]:
        return [r.lb_us for r in self.results if math.isfinite(r.lb_us)]


# ---------------------------------------------------------------------------------------
# Checks (spec mswift-mnscc.md §5-6, digest §5.2-5.3)

TOL = 1.10  # "X <= Y" passes if mean(X) <= 1.10 * mean(Y)


@dataclass
class Check:
    label: str
    ours: str
    paper: str
    status: str = ""  # PASS, FAIL, INFO, needs NSCC, SKIP (...)


def _r(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{x:.2f}"


def _ratio(a: float, b: float) -> float:
    return a / b if math.isfinite(a) and math.isfinite(b) and b != 0 else math.nan


def _ok(cond: Optional[bool]) -> str:
    return "n/a" if cond is None else ("PASS" if cond else "FAIL")


def _best(grid: Grid, rows: Sequence[str]) -> tuple[str, str, float]:
    best = ("", "", math.inf)
    for row in rows:
        for lb in LBS:
            m = grid.mean(row, lb)
            if math.isfinite(m) and m < best[2]:
                best = (row, lb, m)
    return best


def _all_finite(*xs: float) -> bool:
    return all(math.isfinite(x) for x in xs)


def checks_for(key: str, grids: dict[str, Grid]) -> list[Check]:
    g = grids.get(key)
    if g is None:
        return []
    fn = _CHECKS.get(key)
    return fn(g, grids) if fn else []


def _checks_fig4(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    out = []
    ls, ms, sw = ({lb: g.mean(r, lb) for lb in LBS} for r in ("LSwift", "MSwift", "Swift"))
    reps_ratio = _ratio(ls["reps"], ms["reps"])
    ratios = {lb: _ratio(ls[lb], ms[lb]) for lb in LBS}
    max_lb = max(LBS, key=lambda lb: ratios[lb] if math.isfinite(ratios[lb]) else -1)
    out.append(Check("LSwift/MSwift @REPS", _r(reps_ratio), "8.6 (up to)"))
    out.append(Check("max_LB LSwift/MSwift", f"{_r(ratios[max_lb])} ({LB_LABEL[max_lb]})", "8.6"))
    others = [r for r in g.available_rows() if r != "Swift"]
    per_lb_best = {lb: min((g.mean(r, lb) for r in others), default=math.nan) for lb in LBS}
    out.append(Check("Swift / best other CCA, OPS/AR/REPS",
                     "/".join(_r(_ratio(sw[lb], per_lb_best[lb])) for lb in LBS), "~13 (base unclear)"))
    out.append(Check("Swift / MSwift, OPS/AR/REPS", "/".join(_r(_ratio(sw[lb], ms[lb])) for lb in LBS),
                     "~13 (base unclear)"))
    row, lb, _ = _best(g, g.available_rows())
    out.append(Check("best (CCA, LB) of the cells run", f"{row}+{LB_LABEL.get(lb, '?')}", "MSwift+REPS"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    b5 = ns["ar"] < ns["reps"] if _all_finite(ns["ar"], ns["reps"]) else None
    out.append(Check("B5 NSCC: AR < REPS", f"{_r(ns['ar'])} vs {_r(ns['reps'])}", "yes", _ok(b5)))
    # B1
    best_all = _best(g, g.available_rows())[2]
    b1a = reps_ratio >= 3 if math.isfinite(reps_ratio) else None
    b1b = ms["reps"] <= TOL * best_all if _all_finite(ms["reps"], best_all) else None
    n_cells = 3 * len(g.available_rows())
    out.append(Check(
        "B1 LSwift/MSwift@REPS >= 3; MSwift+REPS lowest (10%)",
        f"{_r(reps_ratio)}; MSwift+REPS {_r(ms['reps'])} vs lowest {_r(best_all)} ({n_cells} of 15 cells)",
        ">= 3; lowest", _ok(None if b1a is None or b1b is None else (b1a and b1b))))
    # B2: the minimum over a subset of CCAs is >= the minimum over all, so a pass on the
    # cells we have implies a pass with NSCC/MNSCC; a fail may not hold once they exist.
    fac = {lb: _ratio(sw[lb], per_lb_best[lb]) for lb in LBS}
    b2 = None if not all(math.isfinite(v) for v in fac.values()) else all(v >= 4 for v in fac.values())
    out.append(Check("B2 Swift >= 4 x best other CCA, every LB",
                     "/".join(_r(fac[lb]) for lb in LBS), ">= 4 (~13)", _ok(b2)))
    # B3
    b3 = None if not all(_all_finite(ms[lb], ls[lb]) for lb in LBS) else all(ms[lb] < ls[lb] for lb in LBS)
    out.append(Check("B3 MSwift < LSwift every LB (strict)",
                     "/".join(f"{_r(ms[lb])}<{_r(ls[lb])}" for lb in LBS), "yes", _ok(b3)))
    out.append(Check("B3 MSwift <= NSCC every LB", "OPS/AR/REPS " + _pairs(ms, ns), "yes",
                     _ok(_every_lb(ms, ns, lambda a, b: a <= TOL * b))))
    b4a = _every_lb(mn, ns, lambda a, b: a <= TOL * b)
    min_mn = min(mn.values()) if all(math.isfinite(v) for v in mn.values()) else math.nan
    b4b = ms["reps"] < min_mn if _all_finite(ms["reps"], min_mn) else None
    out.append(Check("B4 MNSCC <= NSCC every LB; MSwift+REPS < min MNSCC",
                     f"{_pairs(mn, ns)}; {_r(ms['reps'])} vs {_r(min_mn)}", "yes",
                     _ok(None if b4a is None or b4b is None else b4a and b4b)))
    return out


def _quantiles(values: Sequence[float], qs: Sequence[float]) -> list[float]:
    xs = sorted(values)
    if not xs:
        return [math.nan for _ in qs]
    out = []
    for q in qs:
        pos = q * (len(xs) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(xs) - 1)
        out.append(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo))
    return out


def pooled_fcts(g: Grid, row: str, lb: str) -> list[float]:
    vals: list[float] = []
    for r in g.by.get((row, lb), []):
        f = r.record.get("flows")
        if not f:
            continue
        for t, fct, fin in zip(f["tag"], f["fct_us"], f["finished"]):
            if t == "sprayed" and fin and fct is not None:
                vals.append(float(fct))
    return vals


def _checks_fig5(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    deciles = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99]
    worst: list[Optional[bool]] = []
    for lb in LBS:
        ql = _quantiles(pooled_fcts(g, "LSwift", lb), deciles)
        qm = _quantiles(pooled_fcts(g, "MSwift", lb), deciles)
        if not all(math.isfinite(x) for x in ql + qm):
            worst.append(None)
        else:
            worst.append(all(a >= b for a, b in zip(ql, qm)))
    p99 = {r: _quantiles(pooled_fcts(g, r, "reps"), [0.99])[0] for r in ("LSwift", "MSwift")}
    b6 = None if None in worst or not _all_finite(*p99.values()) else (all(worst) and p99["LSwift"] >= p99["MSwift"])
    return [Check(
        "B6 LSwift FCT CDF worst (deciles+p99) every LB; worst p99 @REPS",
        "OPS/AR/REPS " + "/".join({True: "yes", False: "no", None: "n/a"}[w] for w in worst)
        + f"; p99@REPS LSwift {_r(p99['LSwift'])} vs MSwift {_r(p99['MSwift'])} us (vs MSwift only)",
        "yes", _ok(b6))]


def _checks_fig6(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    out = []
    ls, ms = ({lb: g.mean(r, lb) for lb in LBS} for r in ("LSwift", "MSwift"))
    ratios = {lb: _ratio(ls[lb], ms[lb]) for lb in LBS}
    finite = [v for v in ratios.values() if math.isfinite(v)]
    mx = max(finite) if finite else math.nan
    out.append(Check("LSwift/MSwift, OPS/AR/REPS", "/".join(_r(ratios[lb]) for lb in LBS), "up to 1.7"))
    out.append(Check("max_LB LSwift/MSwift", _r(mx), "1.7"))
    row, lb, _ = _best(g, g.available_rows())
    out.append(Check("best (CCA, LB) of the cells run", f"{row}+{LB_LABEL.get(lb, '?')}", "MSwift+REPS"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    out.append(Check("MNSCC slightly < NSCC, OPS/AR/REPS", _pairs(mn, ns), "yes"))
    e1 = grids.get("4")
    if e1 is None:
        out.append(Check("B7 (E2 vs E1)", "-", "", "SKIP (needs Fig. 4 in --only)"))
        return out
    comps = [(r, lb, g.mean(r, lb), e1.mean(r, lb)) for r in ("LSwift", "MSwift", "NSCC", "MNSCC") for lb in LBS]
    better = [a < b for _, _, a, b in comps if _all_finite(a, b)]
    b71 = None if len(better) < len(comps) else all(better)
    out.append(Check("B7.1 every cell of Fig. 6 < its Fig. 4 value", f"{sum(better)}/{len(comps)} lower", "12/12",
                     _ok(b71)))
    below = [ls[lb] < ns[lb] for lb in LBS if _all_finite(ls[lb], ns[lb])]
    out.append(Check("B7.2 LSwift < NSCC under >= 2 LBs", f"{sum(below)}/3 LBs ({_pairs(ls, ns)})", "yes",
                     _ok(None if len(below) < 3 else sum(below) >= 2)))
    le = [ms[lb] <= TOL * ls[lb] for lb in LBS if _all_finite(ms[lb], ls[lb])]
    b73 = None if len(le) < 3 or not math.isfinite(mx) else (all(le) and 1.2 <= mx <= 3)
    out.append(Check("B7.3 MSwift <= LSwift every LB; max ratio in [1.2, 3]",
                     f"{sum(le)}/3 LBs; max {_r(mx)}", "1.7", _ok(b73)))
    b74 = (row, lb) == ("MSwift", "reps") if row else None
    out.append(Check("B7.4 lowest cell is MSwift+REPS", f"{row}+{LB_LABEL.get(lb, '?')} (of the cells run)",
                     "MSwift+REPS", _ok(b74)))
    return out


def _row(g: Grid, row: str) -> dict[str, float]:
    return {lb: g.mean(row, lb) for lb in LBS}


def _every_lb(a: dict[str, float], b: dict[str, float], test: Callable[[float, float], bool]) -> Optional[bool]:
    """``test(a[lb], b[lb])`` under every LB; None when a cell is missing."""
    if not all(_all_finite(a[lb], b[lb]) for lb in LBS):
        return None
    return all(test(a[lb], b[lb]) for lb in LBS)


def _pairs(a: dict[str, float], b: dict[str, float]) -> str:
    return "/".join(f"{_r(a[lb])} vs {_r(b[lb])}" for lb in LBS)


def _mswift_best(g: Grid) -> tuple[Optional[bool], str]:
    flags = []
    for lb in LBS:
        ms = g.mean("MSwift", lb)
        others = [g.mean(r, lb) for r in g.available_rows() if r != "MSwift"]
        if not _all_finite(ms, *others):
            return None, "n/a"
        flags.append(ms <= TOL * min(others))
    return all(flags), "/".join("yes" if f else "no" for f in flags)


def _checks_fig7(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    ratio = _ratio(g.mean("LSwift", "reps"), g.mean("MSwift", "reps"))
    best, text = _mswift_best(g)
    out = [
        Check("REPS LSwift/MSwift", _r(ratio), "1.8"),
        Check("REPS NSCC/MSwift", _r(_ratio(g.mean("NSCC", "reps"), g.mean("MSwift", "reps"))), "2.3"),
        Check("B8 MSwift lowest every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best)),
        Check("B8 REPS LSwift/MSwift in [1.3, 3]", _r(ratio), "1.8",
              _ok(None if not math.isfinite(ratio) else 1.3 <= ratio <= 3)),
    ]
    nr = _ratio(g.mean("NSCC", "reps"), g.mean("MSwift", "reps"))
    ns, mn = _row(g, "NSCC"), _row(g, "MNSCC")
    close = _every_lb(mn, ns, lambda a, b: abs(a - b) <= 0.15 * b)
    out.append(Check("B8 REPS NSCC/MSwift in [1.5, 4]; |MNSCC-NSCC| <= 15% every LB",
                     f"{_r(nr)}; {_pairs(mn, ns)}", "2.3",
                     _ok(None if close is None or not math.isfinite(nr) else 1.5 <= nr <= 4 and close)))
    return out


def _checks_fig8(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    best, text = _mswift_best(g)
    return [Check("B9 MSwift best every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best)),
            Check("B9 MNSCC <= NSCC every LB", _pairs(_row(g, "MNSCC"), _row(g, "NSCC")), "yes",
                  _ok(_every_lb(_row(g, "MNSCC"), _row(g, "NSCC"), lambda a, b: a <= TOL * b)))]


def _max_ratio(g: Grid) -> float:
    vals = [_ratio(g.mean("LSwift", lb), g.mean("MSwift", lb)) for lb in LBS]
    vals = [v for v in vals if math.isfinite(v)]
    return max(vals) if vals else math.nan


def _checks_fig9(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    m16 = _max_ratio(g)
    out = [Check("max_LB LSwift/MSwift at 16 MiB", _r(m16), "10.7")]
    e1 = grids.get("4")
    if e1 is None:
        out.append(Check("B10 (E5 vs E1)", "-", "", "SKIP (needs Fig. 4 in --only)"))
        return out
    m8 = _max_ratio(e1)
    out.append(Check("B10 max ratio at 16 MiB > at 8 MiB", f"{_r(m16)} vs {_r(m8)}", "10.7 vs 8.6",
                     _ok(None if not _all_finite(m16, m8) else m16 > m8)))
    up = [g.mean("LSwift", lb) > e1.mean("LSwift", lb) for lb in LBS
          if _all_finite(g.mean("LSwift", lb), e1.mean("LSwift", lb))]
    out.append(Check("B10 LSwift higher at 16 MiB (per LB)", f"{sum(up)}/3", "yes",
                     _ok(None if len(up) < 3 else all(up))))
    out.append(Check("B10 NSCC higher at 16 MiB (every LB)", _pairs(_row(g, "NSCC"), _row(e1, "NSCC")), "yes",
                     _ok(_every_lb(_row(g, "NSCC"), _row(e1, "NSCC"), lambda a, b: a > b))))
    return out


def _versus_e1(g: Grid, grids: dict[str, Grid], label: str, test: Callable[[float, float], bool],
               paper: str) -> Check:
    e1 = grids.get("4")
    if e1 is None:
        return Check(label, "-", paper, "SKIP (needs Fig. 4 in --only)")
    rows = [r for r in g.available_rows() if r in e1.available_rows()]
    comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in rows for lb in LBS]
    ok = [test(a, b) for a, b in comps if _all_finite(a, b)]
    return Check(label, f"{sum(ok)}/{len(comps)} cells", paper, _ok(None if len(ok) < len(comps) else all(ok)))


def _checks_fig10(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    return [_versus_e1(g, grids, "B11 every cell <= 1.5 x its Fig. 4 value", lambda a, b: a <= 1.5 * b,
                       "not much worse")]


def _checks_fig11(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    best, text = _mswift_best(g)
    return [_versus_e1(g, grids, "B12 every cell >= its Fig. 4 value (10%)", lambda a, b: b <= TOL * a,
                       "higher than baseline"),
            Check("B12 MSwift best every LB (vs LSwift)", f"OPS/AR/REPS {text}", "yes", _ok(best))]


def _checks_fig12(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    p10, med, p90 = ({lb: g.mean(r, lb) for lb in LBS} for r in ("MSwift-P10", "MSwift", "MSwift-P90"))
    ops = None if not _all_finite(p10["ops"], med["ops"]) else p10["ops"] < med["ops"]
    rest = [med[lb] <= TOL * p10[lb] and med[lb] <= TOL * p90[lb] for lb in ("ar", "reps")
            if _all_finite(med[lb], p10[lb], p90[lb])]
    return [
        Check("B13 OPS: P10 < MSwift", f"{_r(p10['ops'])} vs {_r(med['ops'])}", "yes", _ok(ops)),
        Check("B13 AR, REPS: MSwift <= P10 and <= P90",
              "; ".join(f"{LB_LABEL[lb]} {_r(med[lb])} vs {_r(p10[lb])}/{_r(p90[lb])}" for lb in ("ar", "reps")),
              "yes", _ok(None if len(rest) < 2 else all(rest))),
    ]


def _checks_fig13(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    e1 = grids.get("4")
    if e1 is None:
        up = Check("B14 LSwift and MSwift higher than Fig. 4", "-", "worse", "SKIP (needs Fig. 4 in --only)")
    else:
        comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in ("LSwift", "MSwift") for lb in LBS]
        ok = [a > b for a, b in comps if _all_finite(a, b)]
        up = Check("B14 LSwift and MSwift higher than Fig. 4", f"{sum(ok)}/{len(comps)} cells", "worse",
                   _ok(None if len(ok) < len(comps) else all(ok)))
    less = [g.mean("MSwift", lb) < g.mean("LSwift", lb) for lb in LBS
            if _all_finite(g.mean("MSwift", lb), g.mean("LSwift", lb))]
    return [
        up,
        Check("B14 MSwift < LSwift every LB",
              "/".join(_r(_ratio(g.mean("LSwift", lb), g.mean("MSwift", lb))) for lb in LBS) + " (LSwift/MSwift)",
              "yes", _ok(None if len(less) < 3 else all(less))),
        _nscc_better_under_drr(g, e1),
        Check("B14 |MNSCC-NSCC| <= 10% every LB", _pairs(_row(g, "MNSCC"), _row(g, "NSCC")), "yes",
              _ok(_every_lb(_row(g, "MNSCC"), _row(g, "NSCC"), lambda a, b: abs(a - b) <= 0.10 * b))),
    ]


def _nscc_better_under_drr(g: Grid, e1: Optional[Grid]) -> Check:
    if e1 is None:
        return Check("B14 NSCC and MNSCC lower than Fig. 4", "-", "better", "SKIP (needs Fig. 4 in --only)")
    comps = [(g.mean(r, lb), e1.mean(r, lb)) for r in ("NSCC", "MNSCC") for lb in LBS]
    ok = [a < b for a, b in comps if _all_finite(a, b)]
    return Check("B14 NSCC and MNSCC lower than Fig. 4", f"{sum(ok)}/{len(comps)} cells", "better",
                 _ok(None if len(ok) < len(comps) else all(ok)))


def _checks_fig14(g: Grid, grids: dict[str, Grid]) -> list[Check]:
    le = [g.mean("MSwift", lb) <= 1.25 * g.mean("LSwift", lb) for lb in LBS
          if _all_finite(g.mean("MSwift", lb), g.mean("LSwift", lb))]
    return [
        Check("B15 MSwift <= 1.25 x LSwift every LB",
              "MSwift/LSwift " + "/".join(_r(_ratio(g.mean("MSwift", lb), g.mean("LSwift", lb))) for lb in LBS)
              + " (" + ", ".join(f"{_r(g.mean('MSwift', lb))} vs {_r(g.mean('LSwift', lb))}" for lb in LBS) + " %)",
              "only slightly worse", _ok(None if len(le) < 3 else all(le))),
        Check("B15 MNSCC <= 1.25 x NSCC every LB", _pairs(_row(g, "MNSCC"), _row(g, "NSCC")), "only slightly worse",
              _ok(_every_lb(_row(g, "MNSCC"), _row(g, "NSCC"), lambda a, b: a <= 1.25 * b))),
        _versus_e1(g, grids, "B15 every incast cell < its Fig. 4 value", lambda a, b: a < b, "small increase"),
    ]


_CHECKS: dict[str, Callable[[Grid, dict[str, Grid]], list[Check]]] = {
    "4": _checks_fig4, "5": _checks_fig5, "6": _checks_fig6, "7": _checks_fig7, "8": _checks_fig8,
    "9": _checks_fig9, "10": _checks_fig10, "11": _checks_fig11, "12": _checks_fig12, "13": _checks_fig13,
    "14": _checks_fig14,
    "14b": _checks_fig14,
}


def _finalise_status(check: Check, tier_b_binding: bool, fig: str) -> Check:
    """Outside the Tier B conditions (>= 5 seeds, full sizes, the primary setting), a pass
    or fail is informational."""
    informational = not tier_b_binding or fig == "14b"
    if check.status in ("PASS", "FAIL") and informational:
        check.status = f"INFO ({check.status.lower()})"
    elif check.status == "n/a":
        check.status = "INFO (no data)"
    elif not check.status:
        check.status = "INFO"
    return check


# ---------------------------------------------------------------------------------------
# Failed links of E7, as the core draws them (its RNG replicated here)

_M64 = (1 << 64) - 1


def _splitmix64(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _M64


def _fnv1a(name: str) -> int:
    h = 0xCBF29CE484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001B3) & _M64
    return h


def failed_link_count(seed: int, p: float, cables: int) -> int:
    """How many of ``cables`` switch-to-switch cables fail under ``failure_model =
    "independent"`` (dcnsim's ``failures`` stream: xoshiro256** seeded by splitmix64)."""
    x = _splitmix64((seed ^ _rotl(_fnv1a("failures"), 17)) & _M64)
    s = []
    for _ in range(4):
        x = _splitmix64(x)
        s.append(x)
    n = 0
    for _ in range(cables):
        result = (_rotl((s[1] * 5) & _M64, 7) * 9) & _M64
        t = (s[1] << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        if (result >> 11) * (1.0 / (1 << 53)) < p:
            n += 1
    return n


def _fabric_cables(spec: dict[str, Any]) -> int:
    hosts = int(spec["topology"]["hosts"])
    k = 2
    while k**3 // 4 < hosts:
        k += 2
    return k**3 // 2  # k pods x k/2 ToRs x k/2 uplinks, and as many Agg-core cables


# ---------------------------------------------------------------------------------------
# Output: table.md, runs.csv, figures


def figure_block(fig: Figure, grid: Optional[Grid], grids: dict[str, Grid], quick: bool, seeds: int,
                 tier_b_binding: bool) -> str:
    head = f"Fig {fig.key} — {fig.exp} {fig.title}"
    if fig.not_run:
        return "\n".join([head, f"  {fig.not_run}", f"  paper: {fig.paper}"])
    if grid is None:
        return "\n".join([head, "  no runs"])
    lines = []
    lbs = grid.lbs_us()
    lb_text = "n/a"
    if lbs:
        lo, hi = min(lbs), max(lbs)
        lb_text = f"{lo:.3f} µs" if abs(hi - lo) < 5e-4 else f"{lo:.3f}-{hi:.3f} µs (per seed)"
    n_seeds = grid.seeds
    if fig.key == "5":
        lines.append(f"{head}, {n_seeds} seed{'s' if n_seeds != 1 else ''} pooled — FCT of the sprayed flows [µs]: p50 / p90 / p99 / max")
        rows = [["CCA"] + [LB_LABEL[lb] for lb in LBS]]
        for row in fig.rows:
            if row.cc is None:
                rows.append([row.label] + [NOT_IMPLEMENTED] * 3)
                continue
            cells = []
            for lb in LBS:
                q = _quantiles(pooled_fcts(grid, row.label, lb), [0.5, 0.9, 0.99, 1.0])
                cells.append(" / ".join("n/a" if not math.isfinite(v) else f"{v:.0f}" for v in q))
            rows.append([row.label] + cells)
        lines += pad_rows(rows)
    else:
        size_note = f" [quick: {QUICK_NOTE.get(fig.key, '')}]" if quick else ""
        lines.append(f"{head}{size_note} — CCT increase over zero-queueing LB [%], mean ± SEM over "
                     f"{n_seeds} seed{'s' if n_seeds != 1 else ''} (LB = {lb_text})")
        rows = [["CCA"] + [LB_LABEL[lb] for lb in LBS]]
        for row in fig.rows:
            if row.cc is None:
                rows.append([row.label] + [NOT_IMPLEMENTED] * 3)
            else:
                rows.append([row.label] + [grid.stat(row.label, lb).fmt() for lb in LBS])
        lines += pad_rows(rows)
        if any(grid.stat(r, lb).missing for r in grid.available_rows() for lb in LBS):
            lines.append("  * some seeds missing (interrupted) or unfinished; mean over the rest")
    checks = [_finalise_status(c, tier_b_binding, fig.key) for c in checks_for(fig.key, grids)]
    if checks:
        lines.append("")
        crow = [["check", "ours", "paper", "status"]] + [[c.label, c.ours, c.paper, c.status] for c in checks]
        lines += pad_rows(crow)
    lines.append("")
    lines.append(f"paper: {fig.paper}")
    if fig.key != "5":
        lines += _run_notes(fig, grid)
    return "\n".join(lines)


def _run_notes(fig: Figure, grid: Grid) -> list[str]:
    res = grid.results
    notes = []
    errors = [r for r in res if "error" in r.record]
    unfinished = [r for r in res if "error" not in r.record and not math.isfinite(r.cct_us)]
    drops = [int(r.stat("drops") or 0) for r in res]
    tos = [int(r.stat("timeouts") or 0) for r in res]
    rtx = [int(r.stat("retransmits") or 0) for r in res]
    data = [int(r.stat("data_packets") or 0) for r in res]
    if res:
        notes.append(
            f"runs: {len(res)}; drops total {sum(drops)} (max {max(drops)}/run); timeouts total {sum(tos)} "
            f"(max {max(tos)}/run); retransmitted {100 * sum(rtx) / max(1, sum(data)):.1f}% of data packets; "
            f"unfinished {len(unfinished)}; errors {len(errors)}"
        )
    for r in errors[:3]:
        notes.append(f"error ({r.cell.row.label} {LB_LABEL[r.cell.lb]} seed {r.cell.seed}): {r.record['error']}")
    for r in unfinished[:5]:
        notes.append(f"unfinished: {r.cell.row.label} {LB_LABEL[r.cell.lb]} seed {r.cell.seed}: "
                     f"{r.finished}/{r.total} sprayed flows done at {r.record.get('sim_time_us', 0):.0f} µs")
    if fig.exp == "E7" and res:
        spec = res[0].cell.spec
        p = float(spec["topology"].get("failed_links", 0))
        counts = {s: failed_link_count(s, p, _fabric_cables(spec)) for s in sorted({r.cell.seed for r in res})}
        notes.append("failed links per seed: " + ", ".join(f"{s}: {n}" for s, n in counts.items())
                     + f" (of {_fabric_cables(spec)})")
    return notes


RUNS_COLUMNS = ("figure", "experiment", "cca", "cc", "lb", "seed", "key", "cct_us", "lb_us", "cct_increase_pct",
                "sprayed_flows", "sprayed_finished", "complete", "sim_time_us", "wall_seconds", "drops", "timeouts",
                "retransmits", "data_packets", "ecn_marks", "failed_links", "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    c = r.cell
    failed: Any = ""
    if FIGURES[c.fig].exp == "E7":
        failed = failed_link_count(c.seed, float(c.spec["topology"].get("failed_links", 0)), _fabric_cables(c.spec))
    return [
        c.fig, FIGURES[c.fig].exp, c.row.label, c.row.cc, c.lb, c.seed, c.key, _csv_num(r.cct_us), _csv_num(r.lb_us),
        _csv_num(r.increase), r.total, r.finished, r.record.get("complete", False),
        r.record.get("sim_time_us", ""), f"{r.record.get('wall_seconds', 0):.2f}", r.stat("drops"),
        r.stat("timeouts"), r.stat("retransmits"), r.stat("data_packets"), r.stat("ecn_marks"), failed,
        r.record.get("error", ""),
    ]


def _csv_num(x: float) -> str:
    return "" if not math.isfinite(x) else f"{x:.4f}"


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key, g in grids.items():
        fig = g.fig
        avail = g.available_rows()
        if key == "5":
            with png(out / "fig5_fct_cdf.png", written, (13, 3.8), tight=True, ncols=3, sharey=True) as (f, axes):
                for ax, lb in zip(axes, LBS):
                    for row in avail:
                        cdf(ax, pooled_fcts(g, row, lb), row)
                    ax.set_title(f"({'abc'[LBS.index(lb)]}) {LB_LABEL[lb]}")
                    ax.set_xlabel("FCT [µs]")
                    ax.grid(alpha=0.3)
                axes[0].set_ylabel("CDF of sprayed flows")
                axes[0].legend()
                f.suptitle("Fig. 5 — FCT CDFs, E1 baseline (NSCC, MNSCC not implemented)", fontsize=10)
            continue
        if not avail:
            continue
        with png(out / f"fig{key}.png", written, (7, 3.8), tight=True) as (f, ax):
            stats = [[g.stat(row, lb) for lb in LBS] for row in avail]
            grouped_bars(ax, [(row, [s.mean for s in st]) for row, st in zip(avail, stats)],
                         [[s.sem for s in st] for st in stats])
            ax.set_xticks(range(len(LBS)))
            ax.set_xticklabels([LB_LABEL[lb] for lb in LBS])
            ax.set_ylabel("CCT increase over LB [%]")
            missing = [r.label for r in fig.rows if r.cc is None]
            note = f" ({', '.join(missing)}: not implemented)" if missing else ""
            ax.set_title(f"Fig. {key} — {fig.exp} {fig.title}{note}", fontsize=9)
            ax.legend(fontsize=8)
            ax.grid(axis="y", alpha=0.3)
    return written


# ---------------------------------------------------------------------------------------
# Entry point


def repro_scale() -> float:
    """``DCNSIM_REPRO_SCALE``: every message size times this (CI runs the quick figures
    smaller); 1 is the paper's setting."""
    scale = float(os.environ.get("DCNSIM_REPRO_SCALE", "1") or 1)
    if not scale > 0:
        raise ValueError("DCNSIM_REPRO_SCALE must be positive")
    return scale


def figure_grids(settings: Settings, results: list[RunResult]) -> dict[str, Grid]:
    """A grid per selected figure with runs: Fig. 5 reads Fig. 4's runs (its CCAs only),
    and a figure with fewer seeds in --quick expects only those."""
    grids: dict[str, Grid] = {}
    for key in settings.keys:
        fig = FIGURES[key]
        src = "4" if key == "5" else key
        res = [r for r in results if r.cell.fig == src]
        n = settings.seeds if not (settings.quick and fig.quick_seeds) else min(settings.seeds, fig.quick_seeds)
        if fig.not_run or not res:
            continue
        if key == "5":
            res = [r for r in res if r.cell.row.label in {x.label for x in fig.rows}]
        grids[key] = Grid(fig, res, n)
    return grids


def _tier_b_binding(outcome: Outcome[Cell, RunResult, Grid], scale: float) -> bool:
    """The spec's Tier B checks bind only with >= 5 seeds of full-size, complete runs."""
    s = outcome.settings
    return not s.quick and s.seeds >= 5 and scale == 1.0 and not outcome.interrupted


def _header(outcome: Outcome[Cell, RunResult, Grid], scale: float) -> list[str]:
    quick, n_seeds = outcome.settings.quick, outcome.settings.seeds
    tier_b_binding = _tier_b_binding(outcome, scale)
    mode = "quick" if quick else "full"
    header = [
        f"# MSwift reproduction (dcnsim) — {mode} mode, seeds 1..{n_seeds}",
        "",
        "Paper: \"Congestion Control for Spraying with Congested Paths\" (arXiv 2509.07907 v2).",
        "Setup: 3-tier fat tree (k = 8, 128 hosts; k = 10 for Fig. 8), 800 Gbps, 0.5 µs links, 4160 B packets, "
        "800 KB buffers, ECN step 40 KB at dequeue, per-packet ACKs, initial window = BDP.",
        "CCT increase = (CCT − LB) / LB · 100 per seed, LB = zero-queueing lower bound "
        "(max ideal FCT; for the incast the receiver link's bound).",
        "Tier B: " + ("binding (≥ 5 seeds, full sizes)" if tier_b_binding else
                      "informational (" + ("--quick" if quick else f"{n_seeds} seeds" if n_seeds < 5 else
                                           "scaled sizes" if scale != 1 else "interrupted") + ")")
        + "; '≤' allows 10% (mean(X) ≤ 1.10 · mean(Y)), '<' is strict.",
    ]
    if scale != 1.0:
        header.append(f"DCNSIM_REPRO_SCALE = {scale}: every message size scaled down (not a paper setting).")
    return header


def _block(key: str, outcome: Outcome[Cell, RunResult, Grid], scale: float) -> str:
    grids = outcome.grids
    seeds = grids[key].seeds if key in grids else outcome.settings.seeds
    return figure_block(FIGURES[key], grids.get(key), grids, outcome.settings.quick, seeds,
                        _tier_b_binding(outcome, scale))


def reproduce_mswift(
    *, quick: bool = False, seeds: Optional[int] = None, jobs: Optional[int] = None, only: Optional[str] = None,
    out: Optional[str] = None, stream: Any = sys.stderr, dask: Optional[str] = None,
) -> tuple[int, str]:
    """Run the selected figures and write the results; return (exit code, table text).

    The hooks are made per call: :func:`repro_scale` is read once, and the cells, the
    header and the status of the checks depend on it."""
    scale = repro_scale()
    paper = Reproduction(
        "mswift", seeds=5, quick_seeds=2, select=parse_only, experiments_dir=experiments_dir,
        cells=partial(build_cells, scale=scale), flow_columns=_FLOW_COLUMNS, evaluate=evaluate, grids=figure_grids,
        header=partial(_header, scale=scale), block=partial(_block, scale=scale), runs_columns=RUNS_COLUMNS,
        run_row=run_row, figures=write_plots, heading="Fig. {key}", cap_us=SIM_CAP_US, runs_noun="cell runs",
    )
    return drive(paper, quick=quick, seeds=seeds, jobs=jobs, only=only, out=out, stream=stream, dask=dask)
