"""DCTCP vs Swift: the study's metrics, the variants and experiments, the study's own
numbers, and the cells and per-run results.

Every (experiment, point, variant, seed) is one run of a scenario in
``experiments/dctcp-vs-swift/`` with ``--set`` style overrides. The metric functions
(:func:`flow_throughput_kbps`, :func:`study_metrics`, :func:`jain`) are plain Python,
unit-tested on hand-computed inputs. The experiments and the study's numbers are listed in
docs/reproductions/dctcp-vs-swift-paper.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim.repro import cells
from dcnsim.repro.core import find_experiments
from dcnsim.repro.stats import mean_sem
from dcnsim.repro.tables import select_keys

# ---------------------------------------------------------------------------------------
# Metrics (the study's ns-3 FlowMonitor numbers)


def flow_throughput_kbps(rx_bytes: float, start_us: float, last_rx_us: float) -> float:
    """The study's per-flow throughput: rx bytes (headers included) · 8 over the time from
    the flow's first transmission to its last reception, divided by 1024 ("Kbps", really
    Kibit/s). FlowMonitor's first transmission is the SYN, sent when the source starts, so
    ``start_us`` is the flow's start (not its first data packet, which waits an OFF second)."""
    seconds = (last_rx_us - start_us) * 1e-6
    if not seconds > 0:
        return math.nan
    return rx_bytes * 8 / seconds / 1024


def jain(xs: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n · Σx²); NaN for no values."""
    values = [float(x) for x in xs if not math.isnan(x)]
    if not values:
        return math.nan
    squares = sum(x * x for x in values)
    return sum(values) ** 2 / (len(values) * squares) if squares > 0 else math.nan


def study_metrics(flows: dict[str, list[Any]], link_gbps: float = 1.0) -> dict[str, float]:
    """The study's numbers for one run, from the flow table's FlowMonitor columns.

    - ``thr_kbps``: mean over flows that received something of :func:`flow_throughput_kbps`;
    - ``delay_ms``: Σ one-way delays / Σ received packets (the study's "delay"/"RTT");
    - ``loss_pct``: mean over flows that sent something of (tx − rx) / tx · 100;
    - ``jain``: Jain's index of the per-flow throughputs;
    - ``agg_gbps``: the aggregate throughput, mean Kbps · 1.024 · flows (Gbit/s);
    - ``hotspot_gbps``: bytes into the busiest receiver · 8 over its window (first start to
      last reception), which cannot exceed its link (``link_gbps``): a conservation check.
    """
    n = len(flows["tx_packets"])
    sent = [i for i in range(n) if (flows["tx_packets"][i] or 0) > 0]
    got = [i for i in sent if (flows["rx_packets"][i] or 0) > 0]
    thr = [flow_throughput_kbps(flows["rx_bytes"][i], flows["start_us"][i], flows["last_rx_us"][i]) for i in got]
    thr = [x for x in thr if not math.isnan(x)]
    rx_packets = sum(flows["rx_packets"][i] for i in got)
    delay_us = sum(flows["delay_sum_us"][i] for i in got)
    loss = [(flows["tx_packets"][i] - flows["rx_packets"][i]) / flows["tx_packets"][i] * 100 for i in sent]
    mean_thr = sum(thr) / len(thr) if thr else math.nan
    by_dst: dict[int, list[int]] = {}
    for i in got:
        by_dst.setdefault(flows["dst"][i], []).append(i)
    hotspot = math.nan
    if by_dst:
        dst = max(by_dst, key=lambda d: len(by_dst[d]))
        members = by_dst[dst]
        window_s = (max(flows["last_rx_us"][i] for i in members) - min(flows["start_us"][i] for i in members)) * 1e-6
        hotspot = sum(flows["rx_bytes"][i] for i in members) * 8 / window_s / 1e9 if window_s > 0 else math.nan
    return {
        "flows": float(len(sent)),
        "thr_kbps": mean_thr,
        "delay_ms": delay_us / rx_packets / 1e3 if rx_packets else math.nan,
        "loss_pct": sum(loss) / len(loss) if loss else math.nan,
        "jain": jain(thr),
        "agg_gbps": mean_thr * 1.024 * len(thr) / 1e6 if thr else math.nan,
        "hotspot_gbps": hotspot,
        "hotspot_ok": float(not hotspot > link_gbps * 1.0001),
    }


# ---------------------------------------------------------------------------------------
# Variants (experiments/dctcp-vs-swift/README.md, docs/reproductions/dctcp-vs-swift-paper.md)

_SWIFT = ("transport.cc=swift", "transport.ack_ratio=1", "switch.ecn.enabled=false")
K20_BYTES = 20 * 1554


@dataclass(frozen=True)
class Variant:
    label: str
    overrides: tuple[str, ...]
    study: Optional[str]  # the study's column it stands beside, if any
    about: str


VARIANTS = (
    Variant("D250", (), "D", "DCTCP, K = 250 packets (the study's K)"),
    Variant("D20", (f"switch.ecn.kmin={K20_BYTES}", f"switch.ecn.kmax={K20_BYTES}"), None,
            "DCTCP, K = 20 packets (the DCTCP paper's K at 1 Gbps)"),
    Variant("Sb", _SWIFT + ('transport.swift.target_mode="min_rtt"',), "Sb", "Swift, target = min RTT"),
    Variant("Se", _SWIFT + ('transport.swift.target_mode="min_rtt"', "transport.swift.min_rtt_offset=1ms"), "Se",
            "Swift, target = min RTT + 1 ms"),
    Variant("S25", _SWIFT + ('transport.swift.target_mode="formula"', "transport.swift.fixed_target=25ms"), "S25",
            "Swift, fixed target 25 ms"),
    Variant("Sf", _SWIFT + ('transport.swift.target_mode="formula"', "transport.swift.base_target=25us",
                            "transport.swift.fs_range=100us"), None,
            "Swift, the paper's target: unloaded RTT + 25 us + flow scaling up to 100 us"),
)
VARIANT = {v.label: v for v in VARIANTS}

# ---------------------------------------------------------------------------------------
# Experiments (docs/reproductions/dctcp-vs-swift-paper.md)


@dataclass(frozen=True)
class Point:
    label: str
    overrides: tuple[str, ...]


def _flows(counts: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(str(n), (f"workload.0.flows={n}",)) for n in counts)


def _target(label: str, value: Optional[str]) -> Point:
    if value is None:
        return Point(label, ('transport.swift.target_mode="min_rtt"',))
    return Point(label, ('transport.swift.target_mode="formula"', f"transport.swift.fixed_target={value}"))


def _min_cwnd(study_bytes: int) -> Point:
    # The study's min_cwnd is bytes of 1500 B segments; 0 becomes the paper's 0.001 packets.
    packets = max(study_bytes / 1500, 0.001)
    return Point(str(study_bytes), (f"transport.swift.min_cwnd_pkts={packets:.6g}",))


@dataclass(frozen=True)
class Experiment:
    key: str
    toml: str
    title: str
    x_name: str
    points: tuple[Point, ...]
    quick_points: tuple[str, ...]
    variants: tuple[str, ...]  # labels of VARIANTS; empty: the file's own Swift (E1, E2)
    t_seconds: int
    hotspot: bool


K4_FLOWS = (100, 250, 500, 750, 1000, 1500, 2000)
K12_FLOWS = (100, 250, 500, 1000, 1500, 2000, 2500, 3000)
ALL_VARIANTS = tuple(v.label for v in VARIANTS)
QUICK_T = 5

EXPERIMENTS: dict[str, Experiment] = {
    e.key: e
    for e in [
        Experiment("E1", "e1_swift_target.toml", "Swift target sweep: k = 4, fixed hotspot (mode 0), 650 flows (610)",
                   "target [s]",
                   (_target("0", "0"), _target("0.00025", "250us"), _target("0.0025", "2500us"),
                    _target("0.025", "25ms"), _target("0.25", "250ms"), _target("5", "5s"), _target("baseRTT", None)),
                   ("0.00025", "0.025", "baseRTT"), (), 15, True),
        Experiment("E2", "e2_swift_min_cwnd.toml", "Swift(min RTT) min_cwnd sweep: k = 4, mode 0, 650 flows (610)",
                   "min_cwnd [B]", (_min_cwnd(0), _min_cwnd(2000), _min_cwnd(5000)), ("0", "2000"), (), 15, True),
        Experiment("E3", "e3_k4_random_hotspot.toml", "k = 4, random hotspot (mode 1)", "flows", _flows(K4_FLOWS),
                   ("100", "1000"), ALL_VARIANTS, 15, True),
        Experiment("E4", "e4_k4_random_pairs.toml", "k = 4, random pairs (mode 2)", "flows", _flows(K4_FLOWS),
                   ("100", "1000"), ALL_VARIANTS, 15, False),
        Experiment("E5", "e5_k12_random_hotspot.toml", "k = 12, random hotspot (mode 1)", "flows", _flows(K12_FLOWS),
                   ("100", "1000"), ALL_VARIANTS, 7, True),
        Experiment("E6", "e6_k12_fixed_hotspot.toml", "k = 12, fixed hotspot (mode 0)", "flows", _flows(K12_FLOWS),
                   ("100", "1000"), ALL_VARIANTS, 7, True),
    ]
}

# ---------------------------------------------------------------------------------------
# Profiles (docs/reproductions/dctcp-vs-swift-paper.md, "Profiles")

PACKET = 1554  # bytes on the wire of a full segment (MSS 1500)
# The study's Swift window bounds are bytes of 1500 B segments; written as E2's points are,
# so the study's default (E1, and E2 at 2000 B) is one run, as in the study's tables.
STUDY_MIN_CWND = f"{2000 / 1500:.6g}"
STUDY_MAX_CWND = f"{60000 / 1500:.6g}"
# The 100-packet NIC ring below each RED queue, folded into the port: the ring is full
# whenever the RED queue holds anything, so RED's K = 250 and 2666-packet limit are a total
# backlog of 350 and 2766 packets (see the doc for why this is honest and where it is not).
NIC_RING = 100
STUDY_K = (250 + NIC_RING) * PACKET
STUDY_BUFFER = (2666 + NIC_RING) * PACKET


@dataclass(frozen=True)
class Profile:
    name: str
    overrides: tuple[str, ...]  # --set overrides on every file, before the variant's and the point's
    variants: tuple[str, ...]  # the E3-E6 columns
    study_profile: bool  # the study's numbers come from this profile: directly comparable
    about: str  # one line for the table's header


PROFILES: dict[str, Profile] = {p.name: p for p in [
    Profile("paper", (), tuple(v.label for v in VARIANTS), False,
            "exact RTTs, min RTO 1 ms, ECMP, 2666-packet ports, DCTCP with delayed ACKs (m = 2), K = 250 "
            "packets (and K = 20), minimum window 2, halving on loss; Swift with the Swift paper's constants "
            "(ai 1, β 0.8, max_mdf 0.5, min_cwnd 0.001 packet with pacing, max_cwnd 64 packets)"),
    Profile("ns3_study", (
        'transport.lb="single_path"',
        "transport.rto_min=1s",
        "transport.rto_max=60s",
        "transport.ack_ratio=1",
        f"switch.buffer={STUDY_BUFFER}",
        f"switch.ecn.kmin={STUDY_K}",
        f"switch.ecn.kmax={STUDY_K}",
        'switch.ecn.mark_if=">="',
        'transport.dctcp.loss_response="alpha"',
        "transport.dctcp.min_cwnd_pkts=1",
        'transport.dctcp.after_timeout="cwr_prr"',
        "transport.swift.rtt_resolution=1ms",
        "transport.swift.ai=2",
        "transport.swift.beta=4",
        "transport.swift.max_mdf=1",
        f"transport.swift.min_cwnd_pkts={STUDY_MIN_CWND}",
        f"transport.swift.max_cwnd_pkts={STUDY_MAX_CWND}",
    ), ("D250", "Sb", "Se", "S25"), True,
        "the study's ns-3 build: RTT samples in whole ms (below 1 ms: 1 µs), min RTO 1 s (doubling up to 60 s), "
        "one fixed path per destination, per-packet ACKs, the 100-packet NIC ring folded into each port (K = 250 "
        "+ 100 packets marked at ≥, 2666 + 100 packets of buffer), DCTCP cutting by (1 − α/2) on loss with a "
        "1-packet floor and ns-3's CWR with PRR after a timeout; Swift with ai 2, β 4, max_mdf 1, min_cwnd 2000 B, max_cwnd 60000 B (1500 B MSS)"),
]}


def profile(name: str) -> Profile:
    """The profile called ``name``; ValueError naming the choices if none."""
    if name not in PROFILES:
        raise ValueError(f"profile {name!r}: allowed {', '.join(PROFILES)}")
    return PROFILES[name]


# ---------------------------------------------------------------------------------------
# The study's numbers (docs/reproductions/dctcp-vs-swift-paper.md). E1/E2 exact; E3-E6 read from charts (±5-10 %).
# Per experiment: {point: {study column: (throughput Kbps, delay ms, loss %)}}.

STUDY_EXACT = {
    "E1": {"0": (931.568, 6.75792, 3.13449), "0.00025": (991.893, 8.1513, 3.61618),
           "0.0025": (970.33, 6.81673, 3.66038), "0.025": (935.998, 20.8005, 9.88285),
           "0.25": (895.223, 16.6009, 10.8708), "5": (895.223, 16.6009, 10.8708),
           "baseRTT": (1027.01, 9.28047, 3.26633)},
    "E2": {"0": (753.614, 4.21358, 18.8132), "2000": (1027.01, 9.28047, 3.26633),
           "5000": (916.074, 15.6578, 9.08512)},
}


def _chart(text: str) -> dict[str, dict[str, tuple[float, float, float]]]:
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for line in text.strip().splitlines():
        flows, rest = line.split(":", 1)
        parts = [p.strip() for p in rest.split("|")]
        cols = [[(math.nan if v.strip() == "-" else float(v)) for v in part.split(",")] for part in parts]
        while len(cols) < 3:
            cols.append([math.nan] * 4)
        out[flows.strip()] = {c: (cols[0][j], cols[1][j], cols[2][j]) for j, c in enumerate(("D", "Sb", "Se", "S25"))}
    return out


STUDY_CHART = {
    "E3": _chart("""
100 : 5150,5300,5300,5000 | 3.8,4.3,3.8,16.0 | 0,0,0,1.9
250 : 2200,2400,2400,2200 | 3.4,6.2,10.3,16.6 | 0,0,0,3.9
500 : 1330,1450,1440,1320 | 4.7,11.6,9.9,21.0 | 0.5,0.3,0.8,5.5
750 : 1010,1105,1100,960  | 7.1,11.7,12.6,22.9 | 0.9,0.5,0.8,6.8
1000: 790,890,885,755     | 9.6,13.4,14.3,23.9 | 1.4,0.7,1.0,8.5
1500: 580,595,585,555     | 15.2,16.5,16.3,25.1 | 2.2,1.7,2.0,9.2
2000: 445,455,445,420     | 15.0,16.9,16.7,25.7 | 3.5,2.9,3.6,10.4
"""),
    "E4": _chart("""
100 : 43700,45200,43200,47000 | 2.1,0.5,1.1,3.1 | 0,0,0,0
250 : 25000,21800,23600,21700 | 2.3,0.6,1.2,5.8 | 0,0,0,0.08
500 : 13300,12000,12800,12600 | 2.6,0.9,1.4,6.9 | 0,0,0,0.29
750 : 9800,8650,8950,8700     | 2.7,1.2,1.7,7.9 | 0,0,0,0.44
1000: 7450,6600,7000,6900     | 2.9,1.5,2.0,8.5 | 0,0,0,0.45
1500: 5100,4750,4900,4850     | 3.1,1.9,2.6,9.5 | 0.01,0.01,0.02,0.71
2000: 3900,3750,3650,3750     | 3.3,2.4,3.2,10.5 | 0.03,0.05,0.06,1.17
"""),
    "E5": _chart("""
100 : 5100,5250,5200,4900 | 3.7,3.3,4.7,17.5 | 0.2,0.1,0.1,2.0
250 : 2300,2350,2300,2250 | 4.0,5.5,6.8,23.5 | 0.3,0.3,0.3,2.2
500 : 1300,1350,1300,1250 | 4.9,7.5,8.0,23.7 | 4.5,2.2,3.0,5.7
1000: 790,770,750,690     | 10.8,11.7,12.6,24.3 | 4.2,3.9,5.0,13.0
1500: 548,530,508,505     | 13.7,14.8,14.6,24.9 | 6.6,6.0,9.5,16.5
2000: 433,420,395,390     | 8.8,16.0,15.3,23.2 | 10.3,7.4,15.0,24.0
2500: 350,350,337,322     | 9.4,18.9,16.0,23.7 | 12.4,8.7,20.5,33.5
3000: 297,290,310,283     | 10.9,21.2,15.7,22.7 | 14.7,10.1,24.5,36.0
"""),
    "E6": _chart("""
100 : 5125,5250,5200,5000 | 2.7,6.2,8.2,12.5 | 0.2,0.1,0.2,3.9
250 : 2300,2350,2300,2200 | 3.5,3.0,4.4,12.1 | 0.9,0.5,0.5,10.4
500 : 1300,1350,1300,1270 | 5.4,7.2,7.8,21.5 | 2.8,2.0,2.5,7.0
1000: 785,770,755,705     | 10.8,11.8,12.3,24.4 | 4.2,3.8,4.8,15.2
1500: 550,525,500,505     | 13.3,14.6,14.3,24.7 | 6.7,6.0,10.2,15.5
2000: 470,420,415,390     | 11.6,15.6,14.7,23.0 | 9.6,7.8,13.1,26.3
2500: -,-,-,-             | 10.9,21.1,15.5,21.8 | 14.1,10.2,24.2,36.3
3000: 300,295,300,288     | -,-,-,- | -,-,-,-
"""),
}

# ---------------------------------------------------------------------------------------
# Cells


@dataclass
class Cell(cells.Cell):
    """``variant`` is a VARIANTS label, or "Swift" for E1/E2; ``profile`` a PROFILES name."""

    profile: str = "paper"

    label_formats = ("", ">7", "<5")

    def cache_meta(self) -> dict[str, Any]:
        return {**super().cache_meta(), "profile": self.profile}


def experiments_dir() -> Path:
    return find_experiments("dctcp-vs-swift", "e3_k4_random_hotspot.toml")


def timeline(t_seconds: int) -> tuple[str, ...]:
    """Sources stop at T − 1 s; the measurement ends at T + 10 s (the study's timeline)."""
    return (f"duration={t_seconds + 10}s", f"workload.0.stop={t_seconds - 1}s")


def parse_only(text: Optional[str]) -> list[str]:
    return select_keys(text, list(EXPERIMENTS), "experiment", lambda k: "E" + k.upper().removeprefix("E"))


def variants(exp: Experiment, prof: Profile) -> tuple[str, ...]:
    """The columns of ``exp`` under ``prof``: its own Swift for E1/E2, else the profile's
    variants in the experiment's order."""
    return tuple(v for v in exp.variants if v in prof.variants) or ("Swift",)


def build_cells(exps: Sequence[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str,
                profile_name: str = "paper") -> list[Cell]:
    """The runs of ``exps``: each point × variant × seed, the profile's overrides first,
    then the variant's and the point's (so E2's min_cwnd and D20's K win over the profile)."""
    from dcnsim._scenario import load_scenario

    prof = profile(profile_name)
    out = []
    for key in exps:
        e = EXPERIMENTS[key]
        t = QUICK_T if quick else e.t_seconds
        n_seeds = 1 if quick else seeds
        points = [p for p in e.points if not quick or p.label in e.quick_points]
        for point in points:
            for label in variants(e, prof):
                variant_overrides = VARIANT[label].overrides if label in VARIANT else ()
                for seed in range(1, n_seeds + 1):
                    overrides = [*timeline(t), *prof.overrides, *variant_overrides, *point.overrides, f"seed={seed}"]
                    spec, _ = load_scenario(exp_dir / e.toml, overrides)
                    out.append(Cell(key, point.label, label, seed, spec, profile=prof.name).keyed(fingerprint))
    return out


_FLOW_COLUMNS = ("src", "dst", "start_us", "tx_packets", "rx_packets", "rx_bytes", "delay_sum_us", "first_tx_us",
                 "last_rx_us", "retransmits", "drops")
METRICS = ("thr_kbps", "delay_ms", "loss_pct", "jain", "agg_gbps", "hotspot_gbps")


@dataclass
class RunResult(cells.RunResult[Cell]):
    metrics: dict[str, float]


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    if "error" in record:
        return RunResult(cell, record, {m: math.nan for m in METRICS})
    return RunResult(cell, record, study_metrics(record["flows"]))


class Grid(cells.Grid[RunResult]):
    """Mean over seeds per (point, variant): the points and variants in the experiment's
    order, seeds 1..the largest seed run."""

    exp: Experiment

    def __init__(self, exp: Experiment, results: list[RunResult]) -> None:
        super().__init__(exp, results)
        self.points = [p.label for p in exp.points if any(r.cell.point == p.label for r in results)]
        self.variants = [v for v in (exp.variants or ("Swift",)) if any(r.cell.variant == v for r in results)]
        self.seeds = max((r.cell.seed for r in results), default=0)

    def mean(self, point: str, variant: str, metric: str) -> float:
        return mean_sem([r.metrics[metric] for r in self.results
                         if r.cell.point == point and r.cell.variant == variant])[0]


# ---------------------------------------------------------------------------------------
# The table


STUDY_INDEX = {"thr_kbps": 0, "delay_ms": 1, "loss_pct": 2}


def study_value(exp: str, point: str, column: str, metric: str) -> float:
    """The study's number for ``metric`` at ``point`` (its ``column``: D, Sb, Se, S25 on
    the charts of E3-E6); NaN where it has none."""
    if metric not in STUDY_INDEX:
        return math.nan
    if exp in STUDY_EXACT:
        row = STUDY_EXACT[exp].get(point)
        return row[STUDY_INDEX[metric]] if row else math.nan
    row = STUDY_CHART.get(exp, {}).get(point)
    return row[column][STUDY_INDEX[metric]] if row else math.nan
