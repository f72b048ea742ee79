"""``dcnsim reproduce smartt``: the simulated experiments of the SMaRTT paper (UEC NSCC).

"SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport" (Bonato et al.,
arXiv 2404.01630 v4; seed paper ``002``), following the spec ``smartt-nscc.md``: §4 the
experiments, §5 the headline numbers, §6.2 the scenario checks, §7 the decisions. This
harness runs five of them and evaluates six checks:

- E1 (Fig. 1a; A3, A5): 8:1 oversubscribed 1024-host tree, permutation of 2 MiB flows;
- E14 (Fig. 13d; A4, A5): the same tree, 32 MiB flows and one of 64 MiB;
- E11 (Fig. 11a; A10): non-blocking tree, permutation, NSCC's Case 2 no-op vs decrease;
- E12 (Fig. 12; A11): N:1 incasts, N × message size, five transports incl. RoCEv2;
- E15 (Fig. 14; A6): windowed all-to-all on a 128-host tree 4:1 at the aggregation tier.

Every (experiment, point, variant, seed) is one run of a scenario in
``experiments/smartt/`` with ``--set`` style overrides; the pool, the cache and Ctrl-C
handling are shared with the other reproductions (``dcnsim._repro``). Results:
``table.md`` (also printed), ``runs.csv`` and PNG figures.

The metric functions (:func:`base_rtt_us`, :func:`wire_bytes`, the ``ideal_*`` bounds,
:func:`spread`, :func:`jain`, :func:`relative_performance`) are plain Python, unit-tested
on hand-computed inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from dcnsim._repro import (
    Headline,
    Outcome,
    Reproduction,
    cdf,
    drive,
    find_experiments,
    grouped_bars,
    headline_table,
    mean_sem,
    pad_rows,
    per_experiment,
    png,
    rate_bps,
    run_key,
    select_keys,
    size_bytes,
    time_us,
)
from dcnsim._timeseries import select

KIB = 1024
MIB = 1024 * 1024

# ---------------------------------------------------------------------------------------
# Geometry and ideal times (spec §2.2, §4 "Ideal times")


def wire_bytes(size: int, mtu: int = 4160, header: int = 64) -> int:
    """Bytes a message of ``size`` payload bytes puts on the wire: whole packets of
    ``mtu − header`` payload bytes, each with its header (the last one may be short)."""
    payload = mtu - header
    return size + math.ceil(size / payload) * header


def ser_us(nbytes: float, rate: float) -> float:
    """Serialisation time of ``nbytes`` at ``rate`` bits/s, in microseconds."""
    return nbytes * 8 / rate * 1e6


def base_rtt_us(links: int, switches: int, link_latency_us: float, switch_latency_us: float, mtu: int,
                ack: int, rate: float) -> float:
    """Unloaded RTT of a path of ``links`` store-and-forward links and ``switches``
    switches, a full data packet out and an ``ack``-byte ACK back (spec §2.2):
    2·(links·latency + switches·switch latency) + links·(ser(mtu) + ser(ack))."""
    return (2 * (links * link_latency_us + switches * switch_latency_us)
            + links * (ser_us(mtu, rate) + ser_us(ack, rate)))


def spread(fcts: Sequence[float]) -> float:
    """(max − min) / min of the FCTs: how much longer the slowest flow took than the
    fastest (R2: 0.65 for Swift); NaN for no values."""
    xs = [float(x) for x in fcts if x is not None and math.isfinite(x)]
    if not xs or min(xs) <= 0:
        return math.nan
    return (max(xs) - min(xs)) / min(xs)


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n · Σx²); NaN for no values."""
    values = [float(x) for x in xs if x is not None and math.isfinite(x)]
    squares = sum(x * x for x in values)
    if not values or squares <= 0:
        return math.nan
    return sum(values) ** 2 / (len(values) * squares)


def relative_performance(ideal_us: float, actual_us: float) -> float:
    """Spec §7.20: ideal / actual, 1.0 = perfect; 0 for a run that did not finish
    (``actual_us`` = inf), NaN when unknown."""
    if math.isnan(ideal_us) or math.isnan(actual_us) or actual_us <= 0:
        return math.nan
    return ideal_us / actual_us


@dataclass(frozen=True)
class Fabric:
    """What the ideal times need from a 3-tier fat-tree scenario."""

    rate: float  # bits/s of every link
    link_latency_us: float
    switch_latency_us: float
    mtu: int
    header: int
    k: int
    hosts: int
    tor_ratio: int  # oversubscription_tiers[0]
    agg_ratio: int  # oversubscription_tiers[1]

    @classmethod
    def of(cls, spec: dict[str, Any]) -> Fabric:
        topo = spec["topology"]
        hosts = int(topo["hosts"])
        k = int(topo.get("radix", 0)) or 2
        while k**3 // 4 < hosts:
            k += 2
        tiers = topo.get("oversubscription_tiers", [1, 1])
        return cls(rate_bps(topo.get("link_rate", "100Gbps")), time_us(topo.get("link_latency", "500ns")),
                   time_us(topo.get("switch_latency", "0ns")), size_bytes(topo.get("mtu", "4KiB")),
                   size_bytes(spec.get("transport", {}).get("header", "64B")), k, hosts, int(tiers[0]),
                   int(tiers[1]))

    @property
    def payload(self) -> int:
        return self.mtu - self.header

    @property
    def oversubscription(self) -> int:
        """Core-crossing fair share = link rate / this (8 for the 8:1 tree)."""
        return self.tor_ratio * self.agg_ratio

    @property
    def hosts_per_tor(self) -> int:
        return self.k // 2

    @property
    def hosts_per_pod(self) -> int:
        return self.k * self.k // 4

    @property
    def brtt_us(self) -> float:
        """Inter-pod base RTT: 6 links, 5 switches (11.453 µs in the paper's setup)."""
        return base_rtt_us(6, 5, self.link_latency_us, self.switch_latency_us, self.mtu, self.header, self.rate)

    @property
    def one_way_us(self) -> float:
        """Inter-pod one-way delay of a data packet: the base RTT without the ACK's way back
        (6 links, 5 switches, 6 serialisations of a full frame: 5.850 µs in the paper's
        setup). The spec's ideals add a base RTT because its FCT ends at the last ACK; ours
        ends when the last byte reaches the receiver, so our ideals add this instead."""
        return 6 * self.link_latency_us + 5 * self.switch_latency_us + 6 * ser_us(self.mtu, self.rate)

    @property
    def bdp_bytes(self) -> float:
        return self.rate * self.brtt_us * 1e-6 / 8

    def wire(self, size: int) -> int:
        return wire_bytes(size, self.mtu, self.header)


def ideal_flow_us(size: int, fabric: Fabric) -> float:
    """A core-crossing flow of a full permutation: its bytes at the fair share
    link rate / oversubscription, plus the one-way delay (spec §4 adds a base RTT for an
    FCT that ends at the last ACK; see :attr:`Fabric.one_way_us`)."""
    return ser_us(fabric.wire(size) * fabric.oversubscription, fabric.rate) + fabric.one_way_us


def ideal_reclaim_us(small: int, large: int, fabric: Fabric) -> float:
    """The large flow of E14 (A4): at the fair share until the small flows are done
    (``small`` bytes), then alone at the full link rate for the rest, plus the one-way
    delay: 2.726 ms + 0.341 ms + 5.85 µs = 3.073 ms for 32/64 MiB on the 8:1 tree (the
    spec's ≈ 3.07 ms)."""
    first = ser_us(fabric.wire(small) * fabric.oversubscription, fabric.rate)
    rest = ser_us(fabric.wire(large) - fabric.wire(small), fabric.rate)
    return first + rest + fabric.one_way_us


def ideal_incast_us(senders: int, size: int, fabric: Fabric) -> float:
    """N·bytes on the wire through the receiver's link, plus the one-way delay (spec §4:
    plus a base RTT, for an FCT to the last ACK)."""
    return ser_us(senders * fabric.wire(size), fabric.rate) + fabric.one_way_us


def ideal_alltoall_us(size: int, fabric: Fabric) -> float:
    """The per-node bound of an all-to-all among every host (spec §4), plus the one-way delay:
    the largest of the host link's time for its N − 1 messages, the ToR uplinks' time for
    the N − hosts-per-ToR that leave the rack (at 1/tor_ratio of a link per host) and the
    aggregation uplinks' for the N − hosts-per-pod that leave the pod (at
    1/(tor_ratio·agg_ratio))."""
    n, w = fabric.hosts, fabric.wire(size)
    host = ser_us((n - 1) * w, fabric.rate)
    tor = ser_us(max(0, n - fabric.hosts_per_tor) * w * fabric.tor_ratio, fabric.rate)
    agg = ser_us(max(0, n - fabric.hosts_per_pod) * w * fabric.oversubscription, fabric.rate)
    return max(host, tor, agg) + fabric.one_way_us


# ---------------------------------------------------------------------------------------
# Variants (spec §3, §7.15: SMaRTT, Swift and EQDS on REPS, MPRDMA on OPS, RoCEv2 on ECMP)


@dataclass(frozen=True)
class Variant:
    label: str
    overrides: tuple[str, ...]
    sender_based: bool = True


SMARTT = Variant("SMaRTT", ("transport.cc=nscc", "transport.lb=reps"))
SWIFT = Variant("Swift", ("transport.cc=swift", "transport.lb=reps"))
MPRDMA = Variant("MPRDMA", ("transport.cc=mprdma", "transport.lb=ops"))
# EQDS ignores ECN; its packets carry ECT (as every line-rate sender's do), so RED marks
# them like everyone else's and only a full queue trims them.
EQDS = Variant("EQDS", ("transport.cc=eqds", "transport.lb=reps"), sender_based=False)
# NSCC as uet-htsim implements it (spec §2.17): its fair increase is about 5x the paper
# mode's default, which matters once QuickAdapt has cut the window. Reported beside the
# paper mode; the checks use the paper mode.
SMARTT_HTSIM = Variant("SMaRTT-htsim", ("transport.cc=nscc", "transport.lb=reps", 'transport.nscc.mode="nscc_htsim"'))
# Spec §7.2: the paper never gives fi; the default is 1 (× the BDP scale), htsim's is about 5x.
SMARTT_FI5 = Variant("SMaRTT-fi5", ("transport.cc=nscc", "transport.lb=reps", "transport.nscc.fi=5.0"))
# Fig. 17 (E16, spec §2.19): EQDS's pull credits with a sender window on top; a packet
# leaves only when both allow it.
EQDS_SMARTT = Variant("EQDS+SMaRTT", ("transport.cc=nscc", "transport.lb=reps", "transport.receiver_credit=true"),
                      sender_based=False)
EQDS_MPRDMA = Variant("EQDS+MPRDMA", ("transport.cc=mprdma", "transport.lb=ops", "transport.receiver_credit=true"),
                      sender_based=False)
SMARTT_NOFI = Variant("SMaRTT-noFI", ("transport.cc=nscc", "transport.lb=reps", "transport.nscc.fast_increase=false"))
ROCE = Variant("RoCEv2", ("transport.cc=dcqcn", "transport.lb=ecmp", 'transport.loss_recovery="go_back_n"',
                          "switch.pfc={}"), sender_based=False)


def _case2(lb: str, mode: str) -> Variant:
    return Variant(f"{lb.upper()} {mode}", ("transport.cc=nscc", f"transport.lb={lb}", f'transport.nscc.case2="{mode}"'))


E11_VARIANTS = (_case2("ops", "noop"), _case2("ops", "decrease"), _case2("reps", "noop"), _case2("reps", "decrease"))

# ---------------------------------------------------------------------------------------
# Experiments


@dataclass(frozen=True)
class Point:
    label: str
    overrides: tuple[str, ...] = ()


def _size_label(nbytes: int) -> str:
    return f"{nbytes // MIB}MiB" if nbytes >= MIB else f"{nbytes // KIB}KiB"


def _incast_points(senders: Sequence[int], sizes: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(f"{n}x{_size_label(s)}", (f"workload.0.senders={n}", f"workload.0.size={s}"))
                 for n in senders for s in sizes)


def _a2a_points(windows: Sequence[int], sizes: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(f"k{k} {_size_label(s)}", (f"workload.0.window={k}", f"workload.0.size={s}"))
                 for s in sizes for k in windows)


@dataclass(frozen=True)
class Experiment:
    key: str
    toml: str
    title: str
    checks: str
    variants: tuple[Variant, ...]
    points: tuple[Point, ...]
    quick_points: tuple[Point, ...]
    quick_overrides: tuple[str, ...]
    quick_note: str
    paper: str


QUICK_HOSTS = ("topology.hosts=128",)
E12_SENDERS = (8, 16, 32, 50)
E12_SIZES = (64 * KIB, 256 * KIB, 512 * KIB, MIB, 2 * MIB, 8 * MIB, 32 * MIB)
E12_QUICK_SENDERS = (8, 32)
E12_QUICK_SIZES = (64 * KIB, 512 * KIB, MIB, 16 * MIB)
E15_WINDOWS = (1, 2, 8, 16)
E15_SIZES = (128 * KIB, 512 * KIB, MIB)

EXPERIMENTS: dict[str, Experiment] = {
    e.key: e
    for e in [
        Experiment("E1", "e1_permutation_2mib.toml", "8:1 fat tree, permutation of 2 MiB flows crossing the core",
                   "A3, A5", (SMARTT, SWIFT, MPRDMA, EQDS, SMARTT_HTSIM, SMARTT_FI5, EQDS_SMARTT, EQDS_MPRDMA),
                   (Point("2MiB"),), (Point("2MiB"),), QUICK_HOSTS,
                   "128 hosts (k = 8, ToR 4:1 x aggregation 2:1)",
                   "SMaRTT best and fairest; Swift's slowest flow 65 % longer than its fastest (R2); EQDS fair "
                   "but slower"),
        Experiment("E14", "e14_permutation_32mib.toml",
                   "8:1 fat tree, permutation of 32 MiB flows and one 64 MiB flow", "A4, A5",
                   (SMARTT, SWIFT, MPRDMA, EQDS, SMARTT_NOFI, SMARTT_HTSIM), (Point("32+64MiB"),), (Point("32+64MiB"),),
                   QUICK_HOSTS, "128 hosts (k = 8, ToR 4:1 x aggregation 2:1), full sizes",
                   "SMaRTT almost 30 % better than the other sender-based (R3, FastIncrease); EQDS up to 155x "
                   "the trims of SMaRTT (R4)"),
        Experiment("E11", "e11_case2.toml", "non-blocking fat tree, permutation of 8 MiB, Case 2 no-op vs decrease",
                   "A10", E11_VARIANTS, (Point("8MiB"),), (Point("8MiB"),), QUICK_HOSTS, "128 hosts (k = 8)",
                   "Fig. 11a: the no-op gives a larger aggregate window, especially with OPS"),
        Experiment("E12", "e12_incast.toml", "incast sweep on the non-blocking fat tree", "A11",
                   (EQDS, MPRDMA, SMARTT, SWIFT, ROCE), _incast_points(E12_SENDERS, E12_SIZES),
                   _incast_points(E12_QUICK_SENDERS, E12_QUICK_SIZES), QUICK_HOSTS,
                   "128 hosts (k = 8), N in {8, 32}, sizes 64 KiB / 512 KiB / 1 MiB / 16 MiB",
                   "EQDS ~ ideal; sender-based slightly worse, worst just below one BDP; MPRDMA slightly worse "
                   "than SMaRTT/Swift; small and large messages near ideal for all (R13)"),
        Experiment("E15", "e15_alltoall.toml", "128-host fat tree 4:1 at the aggregation tier, windowed all-to-all",
                   "A6", (SMARTT, SWIFT, MPRDMA, EQDS), _a2a_points(E15_WINDOWS, E15_SIZES),
                   _a2a_points((1, 8), (128 * KIB,)), (), "k in {1, 8}, 128 KiB",
                   "SMaRTT within 6 % of ideal (R5), up to 20 % better than the other sender-based (R6)"),
    ]
}


def experiments_dir() -> Path:
    return find_experiments("smartt", "e1_permutation_2mib.toml")


def parse_only(text: Optional[str]) -> list[str]:
    return select_keys(text, list(EXPERIMENTS), "experiment", lambda k: "E" + k.upper().removeprefix("E"))


# ---------------------------------------------------------------------------------------
# Cells


def ideal_of(exp: str, spec: dict[str, Any]) -> float:
    """The experiment's ideal completion time for one scenario, µs: E1/E11 the ideal of a
    flow (E11 non-blocking), E14 the 64 MiB flow's reclaim bound, E12 the incast's, E15
    the all-to-all per-node bound."""
    fab = Fabric.of(spec)
    work = spec["workload"]
    if exp == "E14":
        return ideal_reclaim_us(size_bytes(work[1]["size"]), E14_LARGE, fab)
    w = work[0]
    if exp == "E12":
        return ideal_incast_us(int(w["senders"]), size_bytes(w["size"]), fab)
    if exp == "E15":
        return ideal_alltoall_us(size_bytes(w["size"]), fab)
    return ideal_flow_us(size_bytes(w["size"]), fab)


E14_LARGE = 64 * MIB  # the size in e14_large_flow_64mib.csv
CAP_FACTOR = 20  # a run stops unfinished at 20 x its ideal + 1 ms of simulated time
SUMMARY_VERSION = "cwnd-1"  # bump when cwnd_summary changes, so cached runs are redone


@dataclass
class Cell:
    exp: str
    point: str
    variant: str
    seed: int
    spec: dict[str, Any] = field(repr=False)
    ideal_us: float = math.nan
    key: str = ""

    def progress_label(self) -> str:
        return f"{self.exp:<3} {self.point:>10} {self.variant:<13} seed {self.seed:<2}"

    def cache_meta(self) -> dict[str, Any]:
        return {"experiment": self.exp, "point": self.point, "variant": self.variant, "seed": self.seed}


def build_cells(exps: Sequence[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str) -> list[Cell]:
    """Every run of the selected experiments; each spec also gets ``duration`` =
    CAP_FACTOR × ideal + 1 ms, so a run that stalls ends as unfinished."""
    from dcnsim._scenario import load_scenario

    cells = []
    for key in exps:
        e = EXPERIMENTS[key]
        for point in (e.quick_points if quick else e.points):
            for variant in e.variants:
                for seed in range(1, seeds + 1):
                    overrides = [*(e.quick_overrides if quick else ()), *variant.overrides, *point.overrides,
                                 f"seed={seed}"]
                    spec, _ = load_scenario(exp_dir / e.toml, overrides)
                    ideal = ideal_of(key, spec)
                    spec["duration"] = f"{math.ceil(CAP_FACTOR * ideal + 1000)}us"
                    if key == "E11":
                        spec["output"] = dict(CWND_SAMPLING)
                    cell = Cell(key, point.label, variant.label, seed, spec, ideal)
                    # The flow columns a record keeps are part of the key, so a cache
                    # written with fewer columns is not reused.
                    cell.key = run_key(spec, f"{fingerprint}|{','.join(_FLOW_COLUMNS)}|{SUMMARY_VERSION}")
                    cells.append(cell)
    return cells


_FLOW_COLUMNS = ("tag", "src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us", "finished",
                 "retransmits", "trims")

# ---------------------------------------------------------------------------------------
# Per-run metrics


@dataclass
class RunResult:
    cell: Cell
    record: dict[str, Any]
    metrics: dict[str, float]

    @property
    def error(self) -> Optional[str]:
        return self.record.get("error")

    def stat(self, name: str) -> float:
        v = self.record.get("stats", {}).get(name)
        return float(v) if v is not None else math.nan


METRICS = ("completion_us", "ideal_us", "rel_perf", "max_fct_us", "min_fct_us", "mean_fct_us", "spread", "jain",
           "large_fct_us", "agg_cwnd_mb", "trims", "drops", "nacks", "timeouts", "finished", "flows")

# E11 samples every flow's window (the paper's Fig. 11a plots their sum over time).
CWND_SAMPLING = {"sample_interval": "1us", "queues": "none", "cwnd": True}


def cwnd_summary(sim: Any) -> dict[str, float]:
    """The run's mean aggregate window, MB: the sum of the sampled windows of the active
    flows at each sample time, averaged over the sample times (none: no time series)."""
    times, _, cwnd = select(sim.timeseries(), "flow", "cwnd_bytes")
    if not times:
        return {}
    return {"agg_cwnd_mb": mean_aggregate(times, cwnd) / 1e6}


def mean_aggregate(times: Sequence[float], values: Sequence[float]) -> float:
    """Σ of ``values`` per distinct time, averaged over the distinct times."""
    sums: dict[float, float] = {}
    for t, v in zip(times, values):
        sums[float(t)] = sums.get(float(t), 0.0) + float(v)
    return sum(sums.values()) / len(sums) if sums else math.nan


def run_metrics(flows: dict[str, list[Any]], stats: dict[str, Any], ideal_us: float,
                extra: Optional[dict[str, Any]] = None) -> dict[str, float]:
    """One run's numbers from its flow table (``fct_us`` from start to the last byte's
    arrival) and counters:

    - ``completion_us``: from the first flow's start to the last flow's finish (the largest
      FCT when all start at 0; a windowed all-to-all starts flows as others finish);
      ``rel_perf`` = ideal / completion;
    - ``max/min/mean_fct_us``, ``spread`` = (max − min)/min and ``jain`` (of per-flow
      throughputs size/FCT);
    - ``large_fct_us``: the flow tagged ``large`` (E14);
    - ``agg_cwnd_mb``: from ``extra`` (:func:`cwnd_summary`, E11), else NaN.

    A run that stopped (at its ``duration`` cap) before every flow finished has
    completion, max and mean FCT, spread and (if the large flow is unfinished) the large
    FCT = inf, so it compares as slower than any finished run, relative performance 0,
    and Jain's index over the finished flows only. Counters:
    - ``trims``, ``drops``, ``nacks``, ``timeouts``: the run's counters.
    """
    n = len(flows["fct_us"])
    done = [i for i in range(n) if flows["finished"][i] and flows["fct_us"][i] is not None]
    fcts = [float(flows["fct_us"][i]) for i in done]
    thr = [float(flows["size"][i]) / float(flows["fct_us"][i]) for i in done if flows["fct_us"][i] > 0]
    complete = len(done) == n and n > 0
    completion = math.inf
    if complete:
        completion = max(float(x) for x in flows["finish_us"]) - min(float(x) for x in flows["start_us"])
    large = [float(flows["fct_us"][i]) if flows["finished"][i] else math.inf
             for i in range(n) if flows["tag"][i] == "large"]
    unfinished = math.inf if not complete else None
    extra = extra or {}
    return {
        "completion_us": completion,
        "ideal_us": ideal_us,
        "rel_perf": relative_performance(ideal_us, completion),
        "max_fct_us": unfinished or (max(fcts) if fcts else math.nan),
        "min_fct_us": min(fcts) if fcts else math.nan,
        "mean_fct_us": unfinished or (sum(fcts) / len(fcts) if fcts else math.nan),
        "spread": unfinished or spread(fcts),
        "jain": jain(thr),
        "large_fct_us": large[0] if large else math.nan,
        "agg_cwnd_mb": float(extra.get("agg_cwnd_mb", math.nan)),
        "trims": float(stats.get("trims") or 0),
        "drops": float(stats.get("drops") or 0),
        "nacks": float(stats.get("nacks") or 0),
        "timeouts": float(stats.get("timeouts") or 0),
        "finished": float(len(done)),
        "flows": float(n),
    }


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    if "error" in record:
        return RunResult(cell, record, {m: math.nan for m in METRICS} | {"ideal_us": cell.ideal_us})
    return RunResult(cell, record, run_metrics(record["flows"], record.get("stats", {}), cell.ideal_us,
                                               record.get("extra")))


class Grid:
    """One experiment's runs; means over seeds per (point, variant)."""

    def __init__(self, exp: Experiment, results: list[RunResult]) -> None:
        self.exp = exp
        self.results = results
        self.points = [p.label for p in (*exp.points, *exp.quick_points)
                       if any(r.cell.point == p.label for r in results)]
        self.points = list(dict.fromkeys(self.points))
        self.variants = [v.label for v in exp.variants if any(r.cell.variant == v.label for r in results)]
        self.seeds = len({r.cell.seed for r in results})

    def runs(self, point: str, variant: str) -> list[RunResult]:
        return [r for r in self.results if r.cell.point == point and r.cell.variant == variant]

    def mean(self, point: str, variant: str, metric: str) -> float:
        """Mean over the seeds; NaN if any seed lacks the value (an error), inf if one did
        not finish."""
        vals = [r.metrics[metric] for r in self.runs(point, variant)]
        if not vals or any(math.isnan(v) for v in vals):
            return math.nan
        return sum(vals) / len(vals)

    def sem(self, point: str, variant: str, metric: str) -> float:
        vals = [r.metrics[metric] for r in self.runs(point, variant)]
        return mean_sem(vals)[1] if vals and all(math.isfinite(v) for v in vals) else math.nan

    def errors(self, variant: Optional[str] = None) -> list[RunResult]:
        return [r for r in self.results if r.error and (variant is None or r.cell.variant == variant)]

    def why_missing(self, variants: Sequence[str]) -> str:
        """Why a check over ``variants`` has no data: their runs' errors, or unfinished."""
        bad = [r for r in self.results
               if r.cell.variant in variants and (r.error or r.metrics["finished"] < r.metrics["flows"])]
        if not bad:
            return "no runs"
        errs = sorted({r.cell.variant for r in bad if r.error})
        unfinished = sorted({r.cell.variant for r in bad if not r.error})
        parts = []
        if errs:
            parts.append("runs failed: " + ", ".join(errs))
        if unfinished:
            parts.append("unfinished: " + ", ".join(unfinished))
        return "; ".join(parts)


# ---------------------------------------------------------------------------------------
# Checks (spec §6.2) and the paper's numbers (spec §5)


@dataclass
class Check:
    name: str
    ours: str
    target: str
    status: str  # "holds", "fails", "n/a (why)"


def _f(x: float, spec: str = ".1f") -> str:
    if x is None or math.isnan(x):
        return "n/a"
    return "unfinished" if math.isinf(x) else format(x, spec)


def _pct(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    return "unfinished" if math.isinf(x) else f"{100 * x:.1f} %"


def _status(ok: Optional[bool], why: str = "") -> str:
    if ok is None:
        return f"n/a ({why})" if why else "n/a"
    return "holds" if ok else "fails"


def _finite(*xs: float) -> bool:
    """Known values: not NaN (a failed run). inf (an unfinished run) is known: slower
    than any finished one."""
    return all(x is not None and not math.isnan(x) for x in xs)


def _trim_ratio(g: Grid, point: str) -> float:
    eqds, smartt = g.mean(point, "EQDS", "trims"), g.mean(point, "SMaRTT", "trims")
    if not _finite(eqds, smartt):
        return math.nan
    if smartt == 0:
        return math.inf if eqds > 0 else math.nan
    return eqds / smartt


def _ratio_text(x: float) -> str:
    return "∞ (SMaRTT 0)" if x == math.inf else (f"{x:.1f}x" if math.isfinite(x) else "n/a")


def checks_e1(g: Grid) -> list[Check]:
    p = g.points[0]
    mx = {v: g.mean(p, v, "max_fct_us") for v in ("SMaRTT", "Swift", "MPRDMA", "EQDS")}
    sp = {v: g.mean(p, v, "spread") for v in ("SMaRTT", "Swift")}
    others = ("Swift", "MPRDMA", "EQDS")
    out = [Check("A3 SMaRTT max FCT < Swift's, MPRDMA's, EQDS's",
                 " / ".join(f"{v} {_f(mx[v])}" for v in mx) + " µs", "SMaRTT lowest",
                 _status(all(mx["SMaRTT"] < mx[o] for o in others) if _finite(*mx.values()) else None,
                         g.why_missing(list(mx)))),
           Check("A3 SMaRTT spread (max−min)/min < Swift's", f"{_pct(sp['SMaRTT'])} vs {_pct(sp['Swift'])}",
                 "SMaRTT lower", _status(sp["SMaRTT"] < sp["Swift"] if _finite(*sp.values()) else None,
                                          g.why_missing(["SMaRTT", "Swift"]))),
           Check("A3 Swift spread ≥ 30 %", _pct(sp["Swift"]), "≥ 30 % (paper 65 %)",
                 _status(sp["Swift"] >= 0.30 if _finite(sp["Swift"]) else None, g.why_missing(["Swift"])))]
    r = _trim_ratio(g, p)
    out.append(Check("A5 EQDS trims ≥ 10 × SMaRTT's (E1)",
                     f"{_f(g.mean(p, 'EQDS', 'trims'), '.0f')} vs {_f(g.mean(p, 'SMaRTT', 'trims'), '.0f')} "
                     f"= {_ratio_text(r)}", "≥ 10x (paper up to 155x)",
                     _status(r >= 10 if not math.isnan(r) else None, g.why_missing(["EQDS", "SMaRTT"]))))
    return out


def checks_e14(g: Grid) -> list[Check]:
    p = g.points[0]
    comp = {v: g.mean(p, v, "completion_us") for v in ("SMaRTT", "Swift", "MPRDMA")}
    best = min(comp["Swift"], comp["MPRDMA"]) if _finite(comp["Swift"], comp["MPRDMA"]) else math.nan
    gain = 1 - comp["SMaRTT"] / best if _finite(comp["SMaRTT"], best) else math.nan
    large = g.mean(p, "SMaRTT", "large_fct_us")
    nofi = g.mean(p, "SMaRTT-noFI", "large_fct_us")
    ideal = g.mean(p, "SMaRTT", "ideal_us")
    r = _trim_ratio(g, p)
    return [
        Check("A4 SMaRTT completion ≥ 15 % below the best of Swift/MPRDMA",
              " / ".join(f"{v} {_f(comp[v])}" for v in comp) + f" µs: {_pct(gain)} lower", "≥ 15 % (paper ≈ 30 %)",
              _status(gain >= 0.15 if not math.isnan(gain) else None, g.why_missing(list(comp)))),
        Check("A4 64 MiB flow ≤ 1.15 × ideal_reclaim", f"{_f(large)} µs = {_f(large / ideal, '.3f')} × "
              f"{_f(ideal)} µs", "≤ 1.15",
              _status(large <= 1.15 * ideal if _finite(large, ideal) else None, g.why_missing(["SMaRTT"]))),
        Check("A4 FastIncrease off: 64 MiB flow ≥ 10 % later", f"{_f(nofi)} vs {_f(large)} µs "
              f"(+{_pct(nofi / large - 1) if _finite(nofi, large) else 'n/a'})", "≥ +10 %",
              _status(nofi >= 1.10 * large if _finite(nofi, large) else None,
                      g.why_missing(["SMaRTT", "SMaRTT-noFI"]))),
        Check("A5 EQDS trims ≥ 10 × SMaRTT's (E14)",
              f"{_f(g.mean(p, 'EQDS', 'trims'), '.0f')} vs {_f(g.mean(p, 'SMaRTT', 'trims'), '.0f')} "
              f"= {_ratio_text(r)}", "≥ 10x (paper up to 155x)",
              _status(r >= 10 if not math.isnan(r) else None, g.why_missing(["EQDS", "SMaRTT"]))),
    ]


def checks_e11(g: Grid) -> list[Check]:
    """A10: with OPS the no-op has a higher mean aggregate window and a lower max FCT than
    the decrease; with REPS the differences are ≥ 0 (no-op − decrease for the window,
    decrease − no-op for the max FCT)."""
    p = g.points[0]
    out = []
    for lb, strict in (("OPS", True), ("REPS", False)):
        noop = {m: g.mean(p, f"{lb} noop", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        dec = {m: g.mean(p, f"{lb} decrease", m) for m in ("agg_cwnd_mb", "max_fct_us")}
        ok: Optional[bool] = None
        if _finite(*noop.values(), *dec.values()):
            if strict:
                ok = noop["agg_cwnd_mb"] > dec["agg_cwnd_mb"] and noop["max_fct_us"] < dec["max_fct_us"]
            else:
                ok = noop["agg_cwnd_mb"] - dec["agg_cwnd_mb"] >= 0 and dec["max_fct_us"] - noop["max_fct_us"] >= 0
        out.append(Check(
            f"A10 {lb}: no-op {'better than' if strict else 'at least as good as'} decrease (window, max FCT)",
            f"window {_f(noop['agg_cwnd_mb'], '.2f')} vs {_f(dec['agg_cwnd_mb'], '.2f')} MB, max FCT "
            f"{_f(noop['max_fct_us'])} vs {_f(dec['max_fct_us'])} µs",
            "no-op higher / lower" if strict else "differences ≥ 0",
            _status(ok, g.why_missing([f"{lb} noop", f"{lb} decrease"]))))
    return out


def _incast_size(point: str) -> int:
    return size_bytes(point.split("x", 1)[1])


def checks_e12(g: Grid) -> list[Check]:
    bdp = Fabric.of(g.results[0].cell.spec).bdp_bytes if g.results else math.nan
    rel = {(p, v): g.mean(p, v, "rel_perf") for p in g.points for v in g.variants}
    pairs = [(rel[(p, "EQDS")], rel[(p, "SMaRTT")]) for p in g.points
             if (p, "EQDS") in rel and (p, "SMaRTT") in rel and _finite(rel[(p, "EQDS")], rel[(p, "SMaRTT")])]
    ge = sum(e >= s for e, s in pairs)
    out = [Check("A11 EQDS relative performance ≥ SMaRTT's in most cells", f"{ge}/{len(pairs)} cells", "> half",
                 _status(ge > len(pairs) / 2 if pairs else None, g.why_missing(["EQDS", "SMaRTT"])))]
    edge = [p for p in g.points if _incast_size(p) >= 8 * bdp or _incast_size(p) <= 0.25 * bdp]
    vals = [(p, rel.get((p, "SMaRTT"), math.nan)) for p in edge]
    known = [(p, v) for p, v in vals if math.isfinite(v)]
    low = [f"{p} {v:.2f}" for p, v in known if v < 0.9]
    out.append(Check("A11 SMaRTT ≥ 0.9 of ideal for sizes ≥ 8 BDP and ≤ 0.25 BDP",
                     f"{len(known) - len(low)}/{len(known)} cells" + (f"; below: {', '.join(low)}" if low else "")
                     + f" (BDP {bdp / 1e6:.3f} MB)", "all ≥ 0.9",
                     _status(not low if known and len(known) == len(vals) else None, g.why_missing(["SMaRTT"]))))
    smartt = [(p, rel[(p, "SMaRTT")]) for p in g.points if math.isfinite(rel.get((p, "SMaRTT"), math.nan))]
    if smartt:
        worst_p, worst = min(smartt, key=lambda t: t[1])
        frac = _incast_size(worst_p) / bdp
        out.append(Check("A11 worst SMaRTT cell at ≈ 0.3–1 BDP", f"{worst_p}: {worst:.2f} (size {frac:.2f} BDP)",
                         "0.3–1 BDP", _status(0.3 <= frac <= 1.0)))
    else:
        out.append(Check("A11 worst SMaRTT cell at ≈ 0.3–1 BDP", "n/a", "0.3–1 BDP",
                         _status(None, g.why_missing(["SMaRTT"]))))
    roce = [r for r in g.results if r.cell.variant == "RoCEv2" and not r.error]
    if roce:
        trims, drops = sum(r.metrics["trims"] for r in roce), sum(r.metrics["drops"] for r in roce)
        out.append(Check("A11 lossless RoCEv2 shows no trims or drops",
                         f"{trims:.0f} trims, {drops:.0f} drops over {len(roce)} runs", "0, 0",
                         _status(trims == 0 and drops == 0)))
    else:
        out.append(Check("A11 lossless RoCEv2 shows no trims or drops", "n/a", "0, 0",
                         _status(None, g.why_missing(["RoCEv2"]))))
    return out


def checks_e15(g: Grid) -> list[Check]:
    within, best, texts = [], [], []
    for p in g.points:
        s, ideal = g.mean(p, "SMaRTT", "completion_us"), g.mean(p, "SMaRTT", "ideal_us")
        others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
        if _finite(s, ideal):
            within.append((p, s / ideal))
        if _finite(s, *others):
            best.append((p, s <= min(others)))
    bad = [f"{p} {x:.3f}" for p, x in within if x > 1.10]
    out = [Check("A6 SMaRTT ≤ 1.10 × ideal", f"{len(within) - len(bad)}/{len(within)} cells"
                 + (f"; above: {', '.join(bad)}" if bad else "")
                 + (f"; worst {max(x for _, x in within):.3f}" if within else ""), "≤ 1.10 (paper ≤ 1.06)",
                 _status(not bad if within and len(within) == len(g.points) else None, g.why_missing(["SMaRTT"])))]
    lose = [p for p, ok in best if not ok]
    out.append(Check("A6 SMaRTT ≤ Swift and ≤ MPRDMA", f"{len(best) - len(lose)}/{len(best)} cells"
                     + (f"; not at: {', '.join(lose)}" if lose else ""), "every cell",
                     _status(not lose if best and len(best) == len(g.points) else None,
                             g.why_missing(["SMaRTT", "Swift", "MPRDMA"]))))
    return out


CHECKS: dict[str, Callable[[Grid], list[Check]]] = {
    "E1": checks_e1, "E14": checks_e14, "E11": checks_e11, "E12": checks_e12, "E15": checks_e15,
}


def headlines(grids: dict[str, Grid]) -> list[Headline]:
    """Spec §5 R2-R6 beside our numbers."""
    out = []
    g = grids.get("E1")
    sp = g.mean(g.points[0], "Swift", "spread") if g else math.nan
    out.append(Headline("R2", "Swift, 2 MiB permutation, 8:1: slowest vs fastest flow (E1)", "65 % longer", _pct(sp)))
    g = grids.get("E14")
    gain, trims = math.nan, math.nan
    if g:
        p = g.points[0]
        s = g.mean(p, "SMaRTT", "completion_us")
        others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
        if _finite(s, *others):
            gain = 1 - s / min(others)
        trims = _trim_ratio(g, p)
    out.append(Headline("R3", "32 MiB + one 64 MiB: SMaRTT completion vs best other sender-based (E14)",
                        "almost 30 % better", f"{_pct(gain)} better" if math.isfinite(gain) else "n/a"))
    e1_trims = _trim_ratio(grids["E1"], grids["E1"].points[0]) if "E1" in grids else math.nan
    out.append(Headline("R4", "EQDS trims / SMaRTT trims (E14; E1)", "up to 155x",
                        f"{_ratio_text(trims)}; {_ratio_text(e1_trims)}"))
    g = grids.get("E15")
    r5, r6 = math.nan, math.nan
    if g:
        behind = [g.mean(p, "SMaRTT", "completion_us") / g.mean(p, "SMaRTT", "ideal_us") - 1 for p in g.points]
        behind = [x for x in behind if not math.isnan(x)]
        r5 = max(behind) if behind else math.nan
        better = []
        for p in g.points:
            s = g.mean(p, "SMaRTT", "completion_us")
            others = [g.mean(p, v, "completion_us") for v in ("Swift", "MPRDMA")]
            if _finite(s, *others) and math.isfinite(min(others)):
                better.append(1 - s / min(others))
        r6 = max(better) if better else math.nan
    out.append(Headline("R5", "all-to-all: SMaRTT behind ideal, worst cell (E15)", "≤ 6 %", _pct(r5)))
    out.append(Headline("R6", "all-to-all: SMaRTT vs best other sender-based, best cell (E15)", "up to 20 % better",
                        f"{_pct(r6)} better" if math.isfinite(r6) else "n/a"))
    return out


# ---------------------------------------------------------------------------------------
# Output


_COLUMNS = {
    "E1": (("max_fct_us", "max FCT µs", ".1f"), ("spread", "spread", ".3f"), ("jain", "Jain", ".3f"),
           ("trims", "trims", ".0f")),
    "E14": (("completion_us", "completion µs", ".1f"), ("large_fct_us", "64 MiB FCT µs", ".1f"),
            ("spread", "spread", ".3f"), ("jain", "Jain", ".3f"), ("trims", "trims", ".0f")),
    "E11": (("agg_cwnd_mb", "mean aggregate cwnd MB", ".2f"), ("max_fct_us", "max FCT µs", ".1f"),
            ("mean_fct_us", "mean FCT µs", ".1f"), ("trims", "trims", ".0f")),
    "E15": (("completion_us", "completion µs", ".1f"), ("rel_perf", "ideal/actual", ".3f"),
            ("trims", "trims", ".0f")),
}


def _variant_table(g: Grid) -> list[str]:
    cols = _COLUMNS[g.exp.key]
    lines = []
    for p in g.points:
        ideal = mean_sem([r.cell.ideal_us for r in g.results if r.cell.point == p])[0]
        lines.append(f"{p}: ideal {ideal:.1f} µs")
        rows = [["variant"] + [c[1] for c in cols]]
        for v in g.variants:
            if g.errors(v) and all(r.error for r in g.runs(p, v)):
                rows.append([v] + ["error"] + [""] * (len(cols) - 1))
                continue
            rows.append([v] + [_f(g.mean(p, v, m), spec) for m, _, spec in cols])
        lines += pad_rows(rows)
    return lines


def _incast_table(g: Grid) -> list[str]:
    lines = ["relative performance = ideal / completion (N·bytes on wire / 800G + one-way delay, over the last "
             "FCT); above 1 when senders closer than another pod finish sooner than the inter-pod bound"]
    rows = [["N x size"] + g.variants]
    for p in g.points:
        row = [p]
        for v in g.variants:
            runs = g.runs(p, v)
            rel = g.mean(p, v, "rel_perf")
            unfinished = any(r.metrics["finished"] < r.metrics["flows"] for r in runs if not r.error)
            row.append("error" if runs and all(r.error for r in runs) else
                       "unfinished" if unfinished else _f(rel, ".3f"))
        rows.append(row)
    return lines + pad_rows(rows)


def experiment_block(g: Grid, quick: bool) -> str:
    e = g.exp
    head = f"{e.key} — {e.title} — checks {e.checks} — mean over {g.seeds} seed{'s' if g.seeds != 1 else ''}"
    lines = [head]
    if quick:
        lines.append(f"quick: {e.quick_note}")
    lines.append("")
    lines += _incast_table(g) if e.key == "E12" else _variant_table(g)
    lines.append("")
    checks = CHECKS[e.key](g)
    lines += pad_rows([["check", "ours", "target", "status"]] + [[c.name, c.ours, c.target, c.status] for c in checks])
    lines.append("")
    lines.append(f"paper: {e.paper}")
    if e.key == "E15":
        lines.append("note: the per-node bound has no term for the wait between messages (a sender starts its next "
                     "message when one is delivered), which dominates at small k and small messages: at k = 1 each "
                     "of the 127 messages costs at least its one-way delay on top of its bytes")
    lines += run_notes(g)
    return "\n".join(lines)


def run_notes(g: Grid) -> list[str]:
    res = g.results
    notes = []
    errors = [r for r in res if r.error]
    unfinished = [r for r in res if not r.error and r.metrics["finished"] < r.metrics["flows"]]
    if res:
        tot = {k: sum(r.stat(k) for r in res if not r.error and math.isfinite(r.stat(k)))
               for k in ("trims", "drops", "nacks", "timeouts", "pfc_pause_frames")}
        notes.append(f"runs: {len(res)}; " + ", ".join(f"{k} {v:.0f}" for k, v in tot.items())
                     + f"; unfinished {len(unfinished)}; errors {len(errors)}")
    notes += dict.fromkeys(f"error ({r.cell.variant}): {r.error}" for r in errors)  # each message once
    for r in unfinished[:5]:
        notes.append(f"unfinished: {r.cell.progress_label().strip()}: {r.metrics['finished']:.0f}/"
                     f"{r.metrics['flows']:.0f} flows done at {r.record.get('sim_time_us', 0):.0f} µs "
                     f"(cap {CAP_FACTOR} x ideal + 1 ms)")
    return notes


RUNS_COLUMNS = ("experiment", "point", "variant", "seed", "key", *METRICS, "complete", "sim_time_us", "wall_seconds",
                "error")


def run_row(r: RunResult) -> list[Any]:
    """The run's line of runs.csv (RUNS_COLUMNS)."""
    return [r.cell.exp, r.cell.point, r.cell.variant, r.cell.seed, r.cell.key,
            *("" if math.isnan(r.metrics[m]) else f"{r.metrics[m]:.6g}" for m in METRICS),
            r.record.get("complete", False), r.record.get("sim_time_us", ""),
            f"{r.record.get('wall_seconds', 0):.2f}", r.record.get("error", "")]


def pooled_fcts(g: Grid, variant: str) -> list[float]:
    vals: list[float] = []
    for r in g.results:
        f = r.record.get("flows")
        if r.cell.variant != variant or not f:
            continue
        vals += [float(x) for x, done in zip(f["fct_us"], f["finished"]) if done and x is not None]
    return vals


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key in ("E1", "E14"):
        g = grids.get(key)
        if not g:
            continue
        with png(out / f"{key.lower()}_fct_cdf.png", written, (6.4, 4.2)) as (fig, ax):
            for v in g.variants:
                cdf(ax, pooled_fcts(g, v), v)
            ideal = mean_sem([r.cell.ideal_us for r in g.results])[0]
            ax.axvline(ideal, color="grey", linestyle=":", label="ideal" if key == "E1" else "ideal (64 MiB)")
            ax.set_xlabel("FCT [µs]")
            ax.set_ylabel("CDF of flows")
            ax.set_title(f"{key}: {g.exp.title}", fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    g = grids.get("E11")
    if g:
        with png(out / "e11_case2.png", written, (6.4, 4.0)) as (fig, ax):
            p = g.points[0]
            grouped_bars(ax, [(label, [g.mean(p, v, m) for v in g.variants])
                              for m, label in (("max_fct_us", "max FCT"), ("mean_fct_us", "mean FCT"))])
            ax.set_xticks(list(range(len(g.variants))))
            ax.set_xticklabels(g.variants)
            ax.set_ylabel("FCT [µs]")
            ax.set_title(f"E11: {g.exp.title}", fontsize=9)
            ax.legend(fontsize=8)
    g = grids.get("E12")
    if g:
        senders = sorted({int(p.split("x")[0]) for p in g.points})
        sizes = sorted({_incast_size(p) for p in g.points})
        with png(out / "e12_relperf.png", written, (3.2 * len(g.variants) + 1, 3.4), ncols=len(g.variants),
                 squeeze=False) as (fig, axes):
            axes = axes[0]
            image = None
            for ax, v in zip(axes, g.variants):
                grid = [[g.mean(f"{n}x{_size_label(s)}", v, "rel_perf") for s in sizes] for n in senders]
                grid = [[x if math.isfinite(x) else float("nan") for x in row] for row in grid]
                image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
                for i, row in enumerate(grid):
                    for j, x in enumerate(row):
                        ax.text(j, i, "-" if math.isnan(x) else f"{x:.2f}", ha="center", va="center", fontsize=7,
                                color="white" if not math.isnan(x) and x < 0.6 else "black")
                ax.set_xticks(range(len(sizes)))
                ax.set_xticklabels([_size_label(s) for s in sizes], rotation=45, fontsize=7)
                ax.set_yticks(range(len(senders)))
                ax.set_yticklabels([str(n) for n in senders])
                ax.set_title(v, fontsize=9)
            axes[0].set_ylabel("senders N")
            if image is not None:
                fig.colorbar(image, ax=list(axes), label="ideal / actual")
    g = grids.get("E15")
    if g:
        with png(out / "e15_alltoall.png", written, (max(6.4, 1.0 * len(g.points) + 2), 4.0)) as (fig, ax):
            grouped_bars(ax, [(v, [g.mean(p, v, "completion_us") / g.mean(p, v, "ideal_us") for p in g.points])
                              for v in g.variants])
            ax.axhline(1.0, color="grey", linestyle=":")
            ax.set_xticks(range(len(g.points)))
            ax.set_xticklabels(g.points, rotation=30, fontsize=8)
            ax.set_ylabel("completion / ideal")
            ax.set_title(f"E15: {g.exp.title}", fontsize=9)
            ax.legend(fontsize=8)
    return written

# ---------------------------------------------------------------------------------------
# Entry point


def _header(outcome: Outcome[Cell, RunResult, Grid]) -> list[str]:
    quick = outcome.settings.quick
    fab = Fabric.of(outcome.cells[0].spec) if outcome.cells else None
    return [
        f"# SMaRTT reproduction (dcnsim) — {'quick' if quick else 'full'} mode, seeds 1..{outcome.settings.seeds}",
        "",
        "Paper: \"SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport\" (arXiv 2404.01630 v4); "
        "spec smartt-nscc.md §4-§7.",
        "Setup: 3-tier fat trees, 800 Gbps links, 600 ns per link + 400 ns per switch, 4160 B frames (4096 B "
        "payload), 1-BDP buffer per port (276 packets), RED at dequeue 20 %/80 %, trimming, high-priority "
        "ACKs/NACKs/headers, per-packet ACKs. SMaRTT = NSCC in smartt_paper mode on REPS; Swift and EQDS on "
        "REPS; MPRDMA on OPS; RoCEv2 = DCQCN + PFC + go-back-N on ECMP."
        + (f" Inter-pod base RTT {fab.brtt_us:.3f} µs, BDP {fab.bdp_bytes:,.0f} B." if fab else ""),
        "FCT runs from a flow's start to its last byte's arrival at the receiver (the spec's is to the last ACK "
        "at the sender), so every ideal adds the inter-pod one-way delay where the spec adds a base RTT. Checks are evaluated on the mean over seeds; "
        + ("informational here (quick: smaller trees, 1 seed unless --seeds)." if quick
           else "the spec asks for ≥ 3 seeds."),
    ]


def _block(key: str, outcome: Outcome[Cell, RunResult, Grid]) -> Optional[str]:
    g = outcome.grids.get(key)
    return experiment_block(g, outcome.settings.quick) if g is not None else None


def _headlines(outcome: Outcome[Cell, RunResult, Grid]) -> list[tuple[str, str]]:
    return [("Ours vs the paper (spec §5)", headline_table(headlines(outcome.grids)))]


PAPER = Reproduction(
    "smartt", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=evaluate, summarize=cwnd_summary,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=_header, block=_block, checks=_headlines, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots,
)
# reproduce_smartt(quick=, seeds=, jobs=, only=, out=, stream=, dask=) -> (exit code, table text)
reproduce_smartt = partial(drive, PAPER)
