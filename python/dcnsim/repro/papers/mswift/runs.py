"""MSwift: the metrics (CCT, the zero-queueing lower bound), the figures and their rows,
the cells and the per-run results.

Every figure is a grid of (CCA, load balancer) cells over seeds; each cell runs one
scenario of ``experiments/mswift/`` with ``--set`` style overrides (``transport.cc=...``,
``workload.<sprayed>.lb=...``, ``seed=...``). The metric functions (:func:`cct_and_lb`,
:func:`cct_increase`, :func:`incast_lb_us`) are plain Python and unit-tested against
hand-computed numbers; the metrics are described in docs/reproductions/mswift-paper.md.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from dcnsim.repro import cells
from dcnsim.repro.core import Settings, find_experiments
from dcnsim.repro.stats import mean_sem
from dcnsim.repro.tables import select_keys
from dcnsim.repro.units import rate_bps, ser_us, size_bytes, time_us

# ---------------------------------------------------------------------------------------
# Metrics (docs/reproductions/mswift-paper.md)


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
# REPS is fed as uet-htsim's receiver feeds it (docs/reproductions/mswift-paper.md,
# "REPS feedback"): an ACK per 4 packets (16 KiB), at once on an ECN-marked packet, so
# REPS recycles one entropy per ACK. The OPS and AR cells keep per-packet ACKs.
REPS_ACKS = ('transport.ack_policy="uec"', "transport.ack_ratio=4")


def lb_overrides(lb: str) -> tuple[str, ...]:
    """The transport settings a load balancer's cells add: the UEC receiver for REPS."""
    return REPS_ACKS if lb == "reps" else ()


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
class Cell(cells.Cell):
    """A run of one figure: ``exp`` is the figure's key ("4"), ``point`` the load
    balancer and ``variant`` the CCA row's label."""

    row: Row = field(default=Row("", None), repr=False)

    @classmethod
    def of(cls, fig: str, row: Row, lb: str, seed: int, spec: dict[str, Any]) -> Cell:
        return cls(fig, lb, row.label, seed, spec, row=row)

    @property
    def fig(self) -> str:
        return self.exp

    @property
    def lb(self) -> str:
        return self.point

    def progress_label(self) -> str:
        return f"fig {self.fig:<3} {self.row.label:<10} {LB_LABEL[self.lb]:<4} seed {self.seed:<2}"

    def cache_meta(self) -> dict[str, Any]:
        return {"figure": self.fig, "cca": self.row.label, "lb": self.lb, "seed": self.seed}


def sprayed_index(spec: dict[str, Any]) -> int:
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


def make_cell(key: str, row: Row, lb: str, seed: int, quick: bool, exp_dir: Path, fingerprint: str,
              scale: float = 1.0) -> Cell:
    """One run of figure ``key``: its scenario file plus the overrides of the figure (and of
    --quick), the CCA row, the load balancer and the seed."""
    from dcnsim._scenario import load_scenario

    fig = FIGURES[key]
    assert fig.toml is not None
    sprayed = sprayed_index(load_scenario(exp_dir / fig.toml)[0])
    overrides = [
        *fig.overrides,
        *(fig.quick_overrides if quick else ()),
        f"transport.cc={row.cc}",
        *row.overrides,
        *lb_overrides(lb),
        f"workload.{sprayed}.lb={lb}",
        f"seed={seed}",
    ]
    spec, _ = load_scenario(exp_dir / fig.toml, overrides)
    if scale != 1.0:
        _scale_sizes(spec, scale, Geometry.of(spec).payload)
    return Cell.of(key, row, lb, seed, spec).keyed(fingerprint)


def build_cells(
    figs: Iterable[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str, scale: float = 1.0
) -> list[Cell]:
    out = []
    for key in figs:
        fig = FIGURES[key]
        if fig.toml is None or fig.not_run:
            continue
        n = seeds if not (quick and fig.quick_seeds) else min(seeds, fig.quick_seeds)
        for row in fig.rows:
            if row.cc is None:
                continue
            for lb in LBS:
                for seed in range(1, n + 1):
                    out.append(make_cell(key, row, lb, seed, quick, exp_dir, fingerprint, scale))
    return out


# ---------------------------------------------------------------------------------------
# More seeds for noisy cells (full runs only; docs/reproductions/mswift-paper.md, "Noisy
# cells")

NOISY_SEEDS = 10  # seeds of a noisy cell in a full run


def is_noisy(increases: Sequence[float]) -> bool:
    """Whether a cell is noisy: the SEM of its finite CCT increases exceeds a third of
    their mean (at least two values)."""
    mean, sem = mean_sem([x for x in increases if math.isfinite(x)])
    return math.isfinite(sem) and math.isfinite(mean) and sem > abs(mean) / 3


def cell_seeds(first: Sequence[float], seeds: int, quick: bool) -> int:
    """The seeds a cell runs: ``seeds``, or in a full run NOISY_SEEDS when the CCT
    increases of its first ``seeds`` seeds (``first``) are noisy."""
    if quick or seeds >= NOISY_SEEDS or not is_noisy(first):
        return seeds
    return NOISY_SEEDS


def more_cells(settings: Settings, results: list[RunResult], exp_dir: Path, fingerprint: str,
               scale: float = 1.0) -> list[Cell]:
    """The second pass of a full run: seeds ``settings.seeds + 1 .. NOISY_SEEDS`` for every
    (figure, CCA, LB) cell whose first seeds are noisy (:func:`cell_seeds`). Nothing in
    --quick, so quick runs are what they were."""
    if settings.quick:
        return []
    first: dict[tuple[str, str, str], list[float]] = {}
    rows: dict[tuple[str, str, str], Row] = {}
    for r in results:
        c = r.cell
        if c.seed <= settings.seeds:
            first.setdefault((c.fig, c.row.label, c.lb), []).append(r.increase)
            rows[(c.fig, c.row.label, c.lb)] = c.row
    out = []
    for (key, label, lb), vals in first.items():
        n = cell_seeds(vals, settings.seeds, settings.quick)
        for seed in range(settings.seeds + 1, n + 1):
            out.append(make_cell(key, rows[(key, label, lb)], lb, seed, False, exp_dir, fingerprint, scale))
    return out


# ---------------------------------------------------------------------------------------
# Results per cell


@dataclass
class RunResult(cells.RunResult[Cell]):
    """A run's CCT and lower bound, and how many of its sprayed flows finished
    (``done`` of ``total``)."""

    cct_us: float
    lb_us: float
    done: int
    total: int

    @property
    def increase(self) -> float:
        return cct_increase(self.cct_us, self.lb_us) if math.isfinite(self.cct_us) else math.nan

    def stat(self, name: str) -> Any:
        """A counter as the record has it (None when absent)."""
        return self.record.get("stats", {}).get(name)

    @property
    def recycle_ratio(self) -> float:
        """REPS's recycle ratio: the share of its entropy choices that reused a recycled
        entropy (the core's ``reps_recycle_ratio``); NaN when the run has none (another
        balancer, a failed run, or a core that does not report it)."""
        return finite_or_nan(self.stat("reps_recycle_ratio"))


def finite_or_nan(value: Any) -> float:
    """``value`` as a float, or NaN when it is absent or not a finite number."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) else math.nan


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    if "error" in record:
        return RunResult(cell, record, math.nan, math.nan, 0, 0)
    incast = cell.spec["workload"][sprayed_index(cell.spec)]["kind"] == "incast"
    cct, lb, fin, tot = cct_and_lb(record["flows"], Geometry.of(cell.spec), incast)
    return RunResult(cell, record, cct, lb, fin, tot)


@dataclass
class Stat:
    mean: float
    sem: float
    n: int  # seeds with a finished collective
    missing: int  # seeds whose run is absent (interrupted) or unfinished
    seeds: int = 0  # seeds the cell runs

    def fmt(self, base_seeds: int = 0) -> str:
        """``mean ± SEM``; ``*`` when seeds are missing, ``[n]`` when the cell runs n seeds
        instead of the figure's ``base_seeds`` (a noisy cell)."""
        if self.n == 0:
            return "no data" if self.missing else "-"
        sem = "-" if math.isnan(self.sem) else f"{self.sem:.1f}"
        star = "*" if self.missing else ""
        more = f" [{self.seeds}]" if base_seeds and self.seeds > base_seeds else ""
        return f"{self.mean:.1f} ± {sem}{star}{more}"


class Grid(cells.Grid[RunResult]):
    """One figure's results: run results per (row label, lb); ``seeds`` is the number
    each cell expects."""

    def __init__(self, fig: Figure, results: list[RunResult], seeds: int, quick: bool = True) -> None:
        super().__init__(fig, results)
        self.fig = fig
        self.seeds = seeds
        self.quick = quick
        self.by: dict[tuple[str, str], list[RunResult]] = {}
        for r in results:
            self.by.setdefault((r.cell.row.label, r.cell.lb), []).append(r)

    def expected(self, row: str, lb: str) -> int:
        """The seeds a cell runs: ``seeds``, or NOISY_SEEDS for a noisy cell of a full run."""
        first = [r.increase for r in self.by.get((row, lb), []) if r.cell.seed <= self.seeds]
        return cell_seeds(first, self.seeds, self.quick)

    def stat(self, row: str, lb: str) -> Stat:
        runs = self.by.get((row, lb), [])
        vals = [r.increase for r in runs if math.isfinite(r.increase)]
        mean, sem = mean_sem(vals)
        return Stat(mean, sem, len(vals), max(0, self.expected(row, lb) - len(vals)), self.expected(row, lb))

    def mean(self, row: str, lb: str) -> float:
        return self.stat(row, lb).mean

    def excess_us(self, row: str, lb: str) -> float:
        """Mean over the finished seeds of the absolute inflation CCT - LB, in microseconds."""
        runs = self.by.get((row, lb), [])
        return mean_sem([r.cct_us - r.lb_us for r in runs if math.isfinite(r.increase)])[0]

    def recycle_ratio(self, row: str, lb: str = "reps") -> float:
        """Mean over seeds of REPS's recycle ratio in a cell; NaN when no run reports it."""
        vals = [r.recycle_ratio for r in self.by.get((row, lb), [])]
        return mean_sem([v for v in vals if math.isfinite(v)])[0]

    def available_rows(self) -> list[str]:
        return [r.label for r in self.fig.rows if r.cc is not None]

    def lbs_us(self) -> list[float]:
        return [r.lb_us for r in self.results if math.isfinite(r.lb_us)]


def quantiles(values: Sequence[float], qs: Sequence[float]) -> list[float]:
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


def fabric_cables(spec: dict[str, Any]) -> int:
    hosts = int(spec["topology"]["hosts"])
    k = 2
    while k**3 // 4 < hosts:
        k += 2
    return k**3 // 2  # k pods x k/2 ToRs x k/2 uplinks, and as many Agg-core cables


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
        grids[key] = Grid(fig, res, n, settings.quick)
    return grids
