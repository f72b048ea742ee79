"""SMaRTT: the geometry and ideal times, the variants and experiments, the cells and the
per-run metrics.

Every (experiment, point, variant, seed) is one run of a scenario in
``experiments/smartt/`` with ``--set`` style overrides. The metric functions
(:func:`base_rtt_us`, :func:`wire_bytes`, the ``ideal_*`` bounds, :func:`spread`,
:func:`jain`, :func:`relative_performance`) are plain Python, unit-tested on
hand-computed inputs. The experiments and their ideal times are described in
docs/reproductions/smartt-paper.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim._timeseries import select
from dcnsim.repro import cells
from dcnsim.repro.core import find_experiments
from dcnsim.repro.papers.smartt.series import LATE_FLOWS, series_metrics, two_flow_ratios
from dcnsim.repro.stats import mean_sem
from dcnsim.repro.tables import select_keys
from dcnsim.repro.units import rate_bps, ser_us, size_bytes, time_us

KIB = 1024
MIB = 1024 * 1024

# ---------------------------------------------------------------------------------------
# Geometry and ideal times (docs/reproductions/smartt-paper.md)


def wire_bytes(size: int, mtu: int = 4160, header: int = 64) -> int:
    """Bytes a message of ``size`` payload bytes puts on the wire: whole packets of
    ``mtu − header`` payload bytes, each with its header (the last one may be short)."""
    payload = mtu - header
    return size + math.ceil(size / payload) * header


def base_rtt_us(links: int, switches: int, link_latency_us: float, switch_latency_us: float, mtu: int,
                ack: int, rate: float) -> float:
    """Unloaded RTT of a path of ``links`` store-and-forward links and ``switches``
    switches, a full data packet out and an ``ack``-byte ACK back (docs/reproductions/smartt-paper.md):
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
    """docs/reproductions/smartt-paper.md: ideal / actual, 1.0 = perfect; 0 for a run that did not finish
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
        k = int(topo.get("radix") or 0) or 2
        while k**3 // 4 < hosts:
            k += 2
        # A file's spec omits absent keys; the core's resolved scenario has them as None.
        tiers = topo.get("oversubscription_tiers") or [1, 1]
        return cls(rate_bps(topo.get("link_rate") or "100Gbps"), time_us(topo.get("link_latency") or "500ns"),
                   time_us(topo.get("switch_latency") or "0ns"), size_bytes(topo.get("mtu") or "4KiB"),
                   size_bytes((spec.get("transport") or {}).get("header") or "64B"), k, hosts, int(tiers[0]),
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
        setup). The ideals of docs/reproductions/smartt-paper.md add a base RTT because their FCT ends at the last ACK; ours
        ends when the last byte reaches the receiver, so our ideals add this instead."""
        return 6 * self.link_latency_us + 5 * self.switch_latency_us + 6 * ser_us(self.mtu, self.rate)

    @property
    def bdp_bytes(self) -> float:
        return self.rate * self.brtt_us * 1e-6 / 8

    @property
    def trtt_us(self) -> float:
        """The target RTT, 1.5 × the inter-pod base RTT (17.18 µs in the paper's setup):
        NSCC's default takes it from the fabric's largest unloaded RTT for every flow."""
        return 1.5 * self.brtt_us

    def path_brtt_us(self, src: int, dst: int) -> float:
        """Unloaded RTT between two hosts by where they sit: the same ToR (2 links, 1
        switch: 3.284 µs in the paper's setup), the same pod (4 links, 3 switches: 7.369
        µs) or different pods (:attr:`brtt_us`). Hosts fill ToRs in order, k/2 per ToR
        (docs/models/topologies.md)."""
        per_tor, per_pod = self.hosts_per_tor, self.hosts_per_pod
        if src // per_tor == dst // per_tor:
            links, switches = 2, 1
        elif src // per_pod == dst // per_pod:
            links, switches = 4, 3
        else:
            links, switches = 6, 5
        return base_rtt_us(links, switches, self.link_latency_us, self.switch_latency_us, self.mtu, self.header,
                           self.rate)

    def wire(self, size: int) -> int:
        return wire_bytes(size, self.mtu, self.header)


def ideal_flow_us(size: int, fabric: Fabric) -> float:
    """A core-crossing flow of a full permutation: its bytes at the fair share
    link rate / oversubscription, plus the one-way delay (docs/reproductions/smartt-paper.md adds a base RTT for an
    FCT that ends at the last ACK; see :attr:`Fabric.one_way_us`)."""
    return ser_us(fabric.wire(size) * fabric.oversubscription, fabric.rate) + fabric.one_way_us


def ideal_reclaim_us(small: int, large: int, fabric: Fabric) -> float:
    """The large flow of E14 (A4): at the fair share until the small flows are done
    (``small`` bytes), then alone at the full link rate for the rest, plus the one-way
    delay: 2.726 ms + 0.341 ms + 5.85 µs = 3.073 ms for 32/64 MiB on the 8:1 tree (≈ 3.07
    ms in docs/reproductions/smartt-paper.md)."""
    first = ser_us(fabric.wire(small) * fabric.oversubscription, fabric.rate)
    rest = ser_us(fabric.wire(large) - fabric.wire(small), fabric.rate)
    return first + rest + fabric.one_way_us


def ideal_incast_us(senders: int, size: int, fabric: Fabric) -> float:
    """N·bytes on the wire through the receiver's link, plus the one-way delay (docs/reproductions/smartt-paper.md:
    plus a base RTT, for an FCT to the last ACK)."""
    return ser_us(senders * fabric.wire(size), fabric.rate) + fabric.one_way_us


def ideal_uneven_incast_us(senders: int, size: int, fabric: Fabric) -> float:
    """E10's incast of ``senders`` flows into one host, all of ``size`` bytes but one of
    twice that: the long flow ends, at best, when the receiver's link has carried
    (senders + 1) messages of ``size``, plus the one-way delay."""
    return ser_us((senders + 1) * fabric.wire(size), fabric.rate) + fabric.one_way_us


def ideal_cwnd_bytes(senders: int, fabric: Fabric) -> float:
    """The window each of ``senders`` incast senders needs to fill the receiver's link
    at the target RTT, C · trtt / N (SMaRTT Fig. 5's "about 5 packets" at N = 80; Fig. 9's
    dotted line)."""
    return fabric.rate / 8 * fabric.trtt_us * 1e-6 / senders


def ideal_alltoall_us(size: int, fabric: Fabric) -> float:
    """The per-node bound of an all-to-all among every host (docs/reproductions/smartt-paper.md), plus the one-way delay:
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
# Variants (docs/reproductions/smartt-paper.md: SMaRTT, Swift and EQDS on REPS, MPRDMA on OPS, RoCEv2 on ECMP)


@dataclass(frozen=True)
class Variant:
    label: str
    overrides: tuple[str, ...]
    sender_based: bool = True


# REPS is fed as uet-htsim feeds it (docs/reproductions/smartt-paper.md, decisions): the
# receiver ACKs every 16 KiB (4 packets of 4 KiB) and at once on an ECN mark, so REPS
# recycles an entropy per coalesced ACK, not per packet. Every REPS variant carries these.
UEC_ACKS = ('transport.ack_policy="uec"', "transport.ack_ratio=4")


def on_lb(lb: str) -> tuple[str, ...]:
    """The overrides of a load balancer: ``transport.lb`` and, for REPS, UEC's ACKs."""
    return (f"transport.lb={lb}", *(UEC_ACKS if lb == "reps" else ()))


def nscc(*extra: str, lb: str = "reps") -> tuple[str, ...]:
    """NSCC (paper mode unless ``extra`` says otherwise) on ``lb``, plus ``extra``."""
    return ("transport.cc=nscc", *on_lb(lb), *extra)


SMARTT = Variant("SMaRTT", nscc())
SWIFT = Variant("Swift", ("transport.cc=swift", *on_lb("reps")))
MPRDMA = Variant("MPRDMA", ("transport.cc=mprdma", *on_lb("ops")))
# EQDS ignores ECN; its packets carry ECT (as every line-rate sender's do), so RED marks
# them like everyone else's and only a full queue trims them.
EQDS = Variant("EQDS", ("transport.cc=eqds", *on_lb("reps")), sender_based=False)
# NSCC as uet-htsim implements it (docs/models/nscc.md): its fair increase is about 5x the paper
# mode's default, which matters once QuickAdapt has cut the window. Reported beside the
# paper mode; the checks use the paper mode.
SMARTT_HTSIM = Variant("SMaRTT-htsim", nscc('transport.nscc.mode="nscc_htsim"'))
# docs/models/nscc.md: the paper never gives fi; the default is 1 (× the BDP scale), htsim's is about 5x.
SMARTT_FI5 = Variant("SMaRTT-fi5", nscc("transport.nscc.fi=5.0"))
# Fig. 17 (E16, docs/models/eqds.md): EQDS's pull credits with a sender window on top; a packet
# leaves only when both allow it.
EQDS_SMARTT = Variant("EQDS+SMaRTT", nscc("transport.receiver_credit=true"), sender_based=False)
EQDS_MPRDMA = Variant("EQDS+MPRDMA", ("transport.cc=mprdma", *on_lb("ops"), "transport.receiver_credit=true"),
                      sender_based=False)
EQDS_SMARTT_NOFI = Variant("EQDS+SMaRTT-noFI", nscc("transport.receiver_credit=true",
                                                    "transport.nscc.fast_increase=false"), sender_based=False)
SMARTT_NOFI = Variant("SMaRTT-noFI", nscc("transport.nscc.fast_increase=false"))
ROCE = Variant("RoCEv2", ("transport.cc=dcqcn", *on_lb("ecmp"), 'transport.loss_recovery="go_back_n"',
                          "switch.pfc={}"), sender_based=False)


def _case2(lb: str, mode: str) -> Variant:
    return Variant(f"{lb.upper()} {mode}", nscc(f'transport.nscc.case2="{mode}"', lb=lb))


E11_VARIANTS = (_case2("ops", "noop"), _case2("ops", "decrease"), _case2("reps", "noop"), _case2("reps", "decrease"))
# Fig. 3: SMaRTT under each load balancer (docs/models/ecmp.md, plb.md, reps.md).
E3_VARIANTS = tuple(Variant(lb.upper(), nscc(lb=lb)) for lb in ("ecmp", "plb", "ops", "reps"))
# Fig. 5: the signals NSCC's cases read (transport.nscc.signals).
E5_VARIANTS = (Variant("SMaRTT", nscc('transport.nscc.signals="both"')),
               Variant("ECN-only", nscc('transport.nscc.signals="ecn_only"')),
               Variant("delay-only", nscc('transport.nscc.signals="delay_only"')))
# Fig. 6 (A7 as the UEC fidelity issue restates it): Fair Decrease in both. Fair increase
# needs its constants scaled by each flow's own path BDP (scope "path"), with the queueing
# target shared: trtt = own base RTT + 0.5 x the network's (target_queue_rtt = the
# inter-pod base RTT, the same at 128 and 1024 hosts). Plain additive increase turns the
# scaling off and keeps the network-wide default (docs/models/nscc.md).
E6_NETWORK_RTT = "11.45344us"
E6_VARIANTS = (Variant("FI", nscc('transport.nscc.decrease="fair"', 'transport.nscc.scope="path"',
                                  f'transport.nscc.target_queue_rtt="{E6_NETWORK_RTT}"')),
               Variant("AI", nscc('transport.nscc.decrease="fair"', "transport.nscc.bdp_scaling=false")))
E8_VARIANTS = (Variant("QA on", nscc()), Variant("QA off", nscc("transport.nscc.quick_adapt=false")))
E9_VARIANTS = (Variant("ignore on", nscc()), Variant("ignore off", nscc("transport.nscc.qa_ignore=false")))
E10_VARIANTS = (Variant("FI on", nscc()), Variant("FI off", nscc("transport.nscc.fast_increase=false")))
# §III-G: the window adjusted on every ACK (the paper's default), on every 8th ACK with
# the bytes since the last, or with the increases accumulated over 8 MTU or one base RTT.
E17_VARIANTS = (Variant("per-packet", nscc()), Variant("sample-8", nscc('transport.nscc.adjustment="sample"')),
                Variant("accumulate", nscc('transport.nscc.adjustment="accumulate"')))

# ---------------------------------------------------------------------------------------
# Experiments


@dataclass(frozen=True)
class Point:
    label: str
    overrides: tuple[str, ...] = ()
    toml: str = ""  # a scenario file of its own (E17); empty: the experiment's


def size_label(nbytes: int) -> str:
    return f"{nbytes // MIB}MiB" if nbytes >= MIB else f"{nbytes // KIB}KiB"


def _incast_points(senders: Sequence[int], sizes: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(f"{n}x{size_label(s)}", (f"workload.0.senders={n}", f"workload.0.size={s}"))
                 for n in senders for s in sizes)


def _a2a_points(windows: Sequence[int], sizes: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(f"k{k} {size_label(s)}", (f"workload.0.window={k}", f"workload.0.size={s}"))
                 for s in sizes for k in windows)


def _oversub_points(ratios: Sequence[tuple[int, int]], sizes: Sequence[int]) -> tuple[Point, ...]:
    return tuple(Point(f"{t * a}:1 {size_label(s)}", (f"topology.oversubscription_tiers=[{t},{a}]",
                                                      f"workload.0.size={s}"))
                 for s in sizes for t, a in ratios)


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
    # What the run samples ([observe], docs/models/... observe): E5, E6, E8, E9, E10 read
    # windows, queues and trims over time; None: nothing.
    observe: Optional[dict[str, Any]] = None


QUICK_HOSTS = ("topology.hosts=128",)
E12_SENDERS = (8, 16, 32, 50)
E12_SIZES = (64 * KIB, 256 * KIB, 512 * KIB, MIB, 2 * MIB, 8 * MIB, 32 * MIB)
E12_QUICK_SENDERS = (8, 32)
E12_QUICK_SIZES = (64 * KIB, 512 * KIB, MIB, 16 * MIB)
E15_WINDOWS = (1, 2, 8, 16)
E15_SIZES = (128 * KIB, 512 * KIB, MIB)
E13_RATIOS = ((1, 1), (2, 1), (4, 1))  # ToR-tier thinning, as the 8:1 tree's first factor
E5_SENDERS = 80  # C · trtt / 80 = 5.2 packets of 4160 B (Fig. 5's "about 5 packets")
E10_SENDERS, E10_SIZE = 16, 2 * MIB  # the sizes in e10_*.csv

# Where the incast experiments look: the receiver's downlink (host 0 receives), and every
# flow's window; sampled every `interval`.
_RECEIVER_PORT = "*->h0"
INCAST_OBSERVE = {"interval": "1us", "ports": [_RECEIVER_PORT], "flows": "all", "metrics": ["cwnd", "queue", "trims"]}
E5_OBSERVE = {**INCAST_OBSERVE, "interval": "2us"}
E6_OBSERVE = {"interval": "2us", "ports": "none", "flows": "all", "metrics": ["cwnd"]}
E8_OBSERVE = {"interval": "1us", "ports": [_RECEIVER_PORT], "flows": [], "metrics": ["queue", "trims"]}
# E11 and E11b sample every flow's window (the paper's Fig. 11 plots their sum over time).
CWND_SAMPLING = {"sample_interval": "1us", "queues": "none", "cwnd": True}

EXPERIMENTS: dict[str, Experiment] = {
    e.key: e
    for e in [
        Experiment("E1", "e1_permutation_2mib.toml", "8:1 fat tree, permutation of 2 MiB flows crossing the core",
                   "A3, A5", (SMARTT, SWIFT, MPRDMA, EQDS, SMARTT_HTSIM, SMARTT_FI5, EQDS_SMARTT, EQDS_MPRDMA),
                   (Point("2MiB"),), (Point("2MiB"),), QUICK_HOSTS,
                   "128 hosts (k = 8, ToR 4:1 x aggregation 2:1)",
                   "SMaRTT best and fairest; Swift's slowest flow 65 % longer than its fastest (R2); EQDS fair "
                   "but slower"),
        Experiment("E3", "e3_load_balancers.toml",
                   "non-blocking fat tree, permutation of 8 MiB crossing the core, SMaRTT per load balancer",
                   "F3", E3_VARIANTS, (Point("8MiB"),), (Point("8MiB"),), QUICK_HOSTS, "128 hosts (k = 8)",
                   "Fig. 3: single-path ECMP and PLB suffer from collisions; spraying with REPS does best"),
        Experiment("E5", "e5_incast_signals.toml",
                   f"{E5_SENDERS}:1 incast (ideal window ≈ 5 packets), SMaRTT with both signals, ECN only, delay only",
                   "A8", E5_VARIANTS, (Point(f"{E5_SENDERS}x2MiB", ("workload.0.size=2MiB",)),),
                   (Point(f"{E5_SENDERS}x1MiB", ("workload.0.size=1MiB",)),), QUICK_HOSTS,
                   f"128 hosts (k = 8), {E5_SENDERS} x 1 MiB",
                   "Fig. 5: ECN-only oscillates and loses packets in steady state; delay-only and full are stable, "
                   "full slightly better (R19)", observe=E5_OBSERVE),
        Experiment("E6", "e6_rtt_fairness.toml",
                   "two long flows into one host, intra-rack vs inter-pod (3.5x base RTT), fair vs additive increase",
                   "A7", E6_VARIANTS, (Point("4ms"),), (Point("2ms", ('duration="2ms"',)),), QUICK_HOSTS,
                   "128 hosts (k = 8), 2 ms, measured over the second half",
                   "Fig. 6: fair increase gives windows proportional to the base RTT and about equal throughput; "
                   "additive increase gives equal windows, throughput ∝ 1/RTT (R20)", observe=E6_OBSERVE),
        Experiment("E8", "e8_incast_quickadapt.toml", "N:1 incast, QuickAdapt on vs off", "F8", E8_VARIANTS,
                   _incast_points((32, 64), (2 * MIB,)), _incast_points((32,), (MIB,)), QUICK_HOSTS,
                   "128 hosts (k = 8), 32 x 1 MiB",
                   "Fig. 8: QuickAdapt converges quickly in large incasts, curbs queue build-up and losses and "
                   "improves FCT", observe=E8_OBSERVE),
        Experiment("E9", "e9_incast_ignore.toml", "N:1 incast, QuickAdapt's ignore phase on vs off", "F9",
                   E9_VARIANTS, _incast_points((32,), (2 * MIB,)), _incast_points((32,), (MIB,)), QUICK_HOSTS,
                   "128 hosts (k = 8), 32 x 1 MiB",
                   "Fig. 9: without the ignore phase the windows undershoot the ideal again and again, with more "
                   "loss events", observe=INCAST_OBSERVE),
        Experiment("E10", "e10_uneven_incast.toml",
                   f"{E10_SENDERS}:1 incast of {size_label(E10_SIZE)}, one flow twice as long, FastIncrease on vs off",
                   "A4", E10_VARIANTS, (Point(f"{E10_SENDERS}x{size_label(E10_SIZE)}+1"),),
                   (Point(f"{E10_SENDERS}x{size_label(E10_SIZE)}+1"),), QUICK_HOSTS, "128 hosts (k = 8), same flows",
                   "Fig. 10: once the short flows finish, FastIncrease lets the long flow reclaim the link quickly",
                   observe=INCAST_OBSERVE),
        Experiment("E11", "e11_case2.toml", "non-blocking fat tree, permutation of 8 MiB, Case 2 no-op vs decrease",
                   "A10", E11_VARIANTS, (Point("8MiB"),), (Point("8MiB"),), QUICK_HOSTS, "128 hosts (k = 8)",
                   "Fig. 11a: the no-op gives a larger aggregate window, especially with OPS"),
        Experiment("E11b", "e11b_case2_oversubscribed.toml",
                   "8:1 fat tree, permutation of 8 MiB, Case 2 no-op vs decrease", "A10", E11_VARIANTS,
                   (Point("8MiB"),), (Point("8MiB"),), QUICK_HOSTS, "128 hosts (k = 8, ToR 4:1 x aggregation 2:1)",
                   "Fig. 11b: with oversubscription the no-op is comparable or slightly better"),
        Experiment("E12", "e12_incast.toml", "incast sweep on the non-blocking fat tree", "A11",
                   (EQDS, MPRDMA, SMARTT, SWIFT, ROCE), _incast_points(E12_SENDERS, E12_SIZES),
                   _incast_points(E12_QUICK_SENDERS, E12_QUICK_SIZES), QUICK_HOSTS,
                   "128 hosts (k = 8), N in {8, 32}, sizes 64 KiB / 512 KiB / 1 MiB / 16 MiB",
                   "EQDS ~ ideal; sender-based slightly worse, worst just below one BDP; MPRDMA slightly worse "
                   "than SMaRTT/Swift; small and large messages near ideal for all (R13)"),
        Experiment("E13", "e13_permutation_oversubscription.toml",
                   "fat trees 1:1, 2:1, 4:1, permutation crossing the core", "R14", (SMARTT, SWIFT, MPRDMA, EQDS),
                   _oversub_points(E13_RATIOS, (2 * MIB, 32 * MIB)), _oversub_points(E13_RATIOS, (2 * MIB,)),
                   QUICK_HOSTS, "128 hosts (k = 8), 2 MiB only",
                   "Figs. 13a-c: SMaRTT still best, by smaller margins at lower oversubscription (R14)"),
        Experiment("E14", "e14_permutation_32mib.toml",
                   "8:1 fat tree, permutation of 32 MiB flows and one 64 MiB flow", "A4, A5",
                   (SMARTT, SWIFT, MPRDMA, EQDS, SMARTT_NOFI, SMARTT_HTSIM), (Point("32+64MiB"),), (Point("32+64MiB"),),
                   QUICK_HOSTS, "128 hosts (k = 8, ToR 4:1 x aggregation 2:1), full sizes",
                   "SMaRTT almost 30 % better than the other sender-based (R3, FastIncrease); EQDS up to 155x "
                   "the trims of SMaRTT (R4)"),
        Experiment("E15", "e15_alltoall.toml", "128-host fat tree 4:1 at the aggregation tier, windowed all-to-all",
                   "A6", (SMARTT, SWIFT, MPRDMA, EQDS), _a2a_points(E15_WINDOWS, E15_SIZES),
                   _a2a_points((1, 8), (128 * KIB,)), (), "k in {1, 8}, 128 KiB",
                   "SMaRTT within 6 % of ideal (R5), up to 20 % better than the other sender-based (R6)"),
        Experiment("E16", "e14_permutation_32mib.toml",
                   "8:1 fat tree, 32 MiB flows and one 64 MiB flow, EQDS with and without a sender window", "F17, A4",
                   (EQDS, EQDS_MPRDMA, EQDS_SMARTT, SMARTT, EQDS_SMARTT_NOFI), (Point("32+64MiB"),),
                   (Point("32+64MiB"),), QUICK_HOSTS, "128 hosts (k = 8, ToR 4:1 x aggregation 2:1), full sizes",
                   "Fig. 17: SMaRTT improves EQDS; with 32/64 MiB FastIncrease is key for the large flow"),
        Experiment("E17", "e1_permutation_2mib.toml",
                   "window adjustment per packet, every 8th ACK, or accumulated (E1's permutation and a 32:1 incast)",
                   "A9", E17_VARIANTS,
                   (Point("perm 2MiB"), Point("32x2MiB", ("workload.0.senders=32", "workload.0.size=2MiB"),
                                              "e12_incast.toml")),
                   (Point("perm 2MiB"), Point("32x1MiB", ("workload.0.senders=32", "workload.0.size=1MiB"),
                                              "e12_incast.toml")),
                   QUICK_HOSTS, "128 hosts (k = 8); the incast 32 x 1 MiB",
                   "§III-G: sampling every 8 packets or accumulating over at most an RTT works as well (R11)"),
    ]
}


def experiments_dir() -> Path:
    return find_experiments("smartt", "e1_permutation_2mib.toml")


def parse_only(text: Optional[str]) -> list[str]:
    """``--only``: experiment ids, with or without the E, in any case ("e11b", "5")."""
    canonical = {k.upper(): k for k in EXPERIMENTS}

    def normalise(k: str) -> str:
        key = "E" + k.upper().removeprefix("E")
        return canonical.get(key, key)

    return select_keys(text, list(EXPERIMENTS), "experiment", normalise)


# ---------------------------------------------------------------------------------------
# Cells


def ideal_of(exp: str, spec: dict[str, Any]) -> float:
    """The experiment's ideal completion time for one scenario, µs, by its workload: the
    64 MiB flow's reclaim bound where a flow is tagged ``large`` beside a permutation (E14,
    E16); E10's uneven incast; an incast's; the all-to-all per-node bound (E15); else a
    permutation flow's at the tree's fair share (E1, E3, E11, E11b, E13, E17). NaN for E6,
    whose long flows run for the scenario's ``duration``."""
    fab = Fabric.of(spec)
    work = spec["workload"]
    kinds = [w["kind"] for w in work]
    if exp == "E6":
        return math.nan
    if exp == "E10":
        return ideal_uneven_incast_us(E10_SENDERS, E10_SIZE, fab)
    if "permutation" in kinds and any(w.get("tag") == "large" for w in work):
        return ideal_reclaim_us(size_bytes(work[kinds.index("permutation")]["size"]), E14_LARGE, fab)
    w = work[0]
    if w["kind"] == "incast":
        return ideal_incast_us(int(w["senders"]), size_bytes(w["size"]), fab)
    if w["kind"] == "all_to_all":
        return ideal_alltoall_us(size_bytes(w["size"]), fab)
    return ideal_flow_us(size_bytes(w["size"]), fab)


E14_LARGE = 64 * MIB  # the size in e14_large_flow_64mib.csv
CAP_FACTOR = 20  # a run stops unfinished at 20 x its ideal + 1 ms of simulated time
SUMMARY_VERSION = "series-5"  # bump when cwnd_summary changes, so cached runs are redone


@dataclass
class Cell(cells.Cell):
    """A run, with the experiment's ideal completion time for its scenario."""

    ideal_us: float = math.nan

    label_formats = ("<4", ">14", "<16")


def build_cells(exps: Sequence[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str) -> list[Cell]:
    """Every run of the selected experiments; each spec also gets ``duration`` =
    CAP_FACTOR × ideal + 1 ms, so a run that stalls ends as unfinished (E6, without an
    ideal, keeps its file's duration), and the experiment's sampling (``[output]`` for
    E11 and E11b, ``[observe]`` where the experiment has one)."""
    from dcnsim._scenario import load_scenario

    out = []
    for key in exps:
        e = EXPERIMENTS[key]
        for point in (e.quick_points if quick else e.points):
            for variant in e.variants:
                for seed in range(1, seeds + 1):
                    overrides = [*(e.quick_overrides if quick else ()), *variant.overrides, *point.overrides,
                                 f"seed={seed}"]
                    spec, _ = load_scenario(exp_dir / (point.toml or e.toml), overrides)
                    ideal = ideal_of(key, spec)
                    if math.isfinite(ideal):
                        spec["duration"] = f"{math.ceil(CAP_FACTOR * ideal + 1000)}us"
                    if key in ("E11", "E11b"):
                        spec["output"] = dict(CWND_SAMPLING)
                    if e.observe is not None:
                        spec["observe"] = dict(e.observe)
                    cell = Cell(key, point.label, variant.label, seed, spec, ideal_us=ideal)
                    out.append(cell.keyed(fingerprint, _FLOW_COLUMNS, SUMMARY_VERSION))
    return out


_FLOW_COLUMNS = ("tag", "src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us", "finished",
                 "retransmits", "trims")

# ---------------------------------------------------------------------------------------
# Per-run metrics


@dataclass
class RunResult(cells.RunResult[Cell]):
    metrics: dict[str, float]


METRICS = ("completion_us", "ideal_us", "rel_perf", "max_fct_us", "min_fct_us", "mean_fct_us", "spread", "jain",
           "large_fct_us", "agg_cwnd_mb", "trims", "drops", "nacks", "timeouts", "finished", "flows",
           "ss_nacks", "ss_cwnd_cv", "undershoot", "mean_queue_kb", "max_queue_kb",
           "brtt_ratio", "cwnd_short_kb", "cwnd_long_kb", "gbps_short", "gbps_long", "cwnd_ratio", "thr_ratio",
           "reps_recycle_ratio")

# The numbers cwnd_summary takes from the time series (NaN where a run has none).
SERIES_METRICS = ("agg_cwnd_mb", "ss_nacks", "ss_cwnd_cv", "undershoot", "mean_queue_kb", "max_queue_kb")
TWO_FLOW_METRICS = ("brtt_ratio", "cwnd_short_kb", "cwnd_long_kb", "gbps_short", "gbps_long", "cwnd_ratio",
                    "thr_ratio")
def cwnd_summary(sim: Any) -> dict[str, Any]:
    """What a run keeps of its time series (nothing without one): the mean aggregate
    window, MB (the sum of the sampled windows of the active flows at each sample time,
    averaged over the sample times; E11, E11b), and :func:`series_metrics` for the runs
    that sample a port or only a few flows (the ``[observe]`` of E5, E6, E8, E9, E10)."""
    import json

    ts = sim.timeseries()
    cwnd = select(ts, "flow", "cwnd_bytes")
    queue = select(ts, "port", "queue_bytes")
    trims = select(ts, "port", "trims")
    out: dict[str, Any] = {}
    if cwnd[0]:
        out["agg_cwnd_mb"] = mean_aggregate(cwnd[0], cwnd[2]) / 1e6
    flows = sim.flows()
    n = len(flows["id"])
    if not (queue[0] or trims[0]) and not (cwnd[0] and 0 < n <= LATE_FLOWS):
        return out
    fabric = Fabric.of(json.loads(sim.resolved_json()))
    done = [(float(f), int(i)) for i, f, ok in zip(flows["id"], flows["finish_us"], flows["finished"])
            if ok and f is not None]
    # Traced: flow 0 (E10's long flow) and the last to finish (an incast's first flows may
    # finish at once, their whole message inside the first window), or flow 1.
    last = max(done)[1] if done else 1
    out |= series_metrics(fabric.trtt_us, ideal_cwnd_bytes(max(n, 1), fabric), sim.now_ps / 1e6,
                          [f for f, _ in done], n, cwnd, select(ts, "flow", "delivered_bytes"), (queue[0], queue[2]),
                          (trims[0], trims[2]), (0, last if last != 0 else 1))
    return out


def mean_aggregate(times: Sequence[float], values: Sequence[float]) -> float:
    """Σ of ``values`` per distinct time, averaged over the distinct times."""
    sums: dict[float, float] = {}
    for t, v in zip(times, values):
        sums[float(t)] = sums.get(float(t), 0.0) + float(v)
    return sum(sums.values()) / len(sums) if sums else math.nan


def _number(x: Any) -> float:
    """A number of a record's ``extra`` as a float: the cache keeps NaN as None."""
    return math.nan if x is None else float(x)


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
    - ``agg_cwnd_mb`` (E11) and the other SERIES_METRICS: from ``extra``
      (:func:`cwnd_summary`), else NaN; the two-flow ratios of E6 are NaN here
      (:func:`evaluate` fills them).

    A run that stopped (at its ``duration`` cap) before every flow finished has
    completion, max and mean FCT, spread and (if the large flow is unfinished) the large
    FCT = inf, so it compares as slower than any finished run, relative performance 0,
    and Jain's index over the finished flows only. Counters:
    - ``trims``, ``drops``, ``nacks``, ``timeouts``: the run's counters;
      ``reps_recycle_ratio``: the share of REPS's entropy choices that reused a recycled
      entropy (NaN without REPS).
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
        **{m: _number(extra.get(m)) for m in SERIES_METRICS},
        **{m: math.nan for m in TWO_FLOW_METRICS},
        "trims": float(stats.get("trims") or 0),
        "drops": float(stats.get("drops") or 0),
        "nacks": float(stats.get("nacks") or 0),
        "timeouts": float(stats.get("timeouts") or 0),
        "reps_recycle_ratio": _number(stats.get("reps_recycle_ratio")),
        "finished": float(len(done)),
        "flows": float(n),
    }


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    if "error" in record:
        return RunResult(cell, record, {m: math.nan for m in METRICS} | {"ideal_us": cell.ideal_us})
    extra = record.get("extra") or {}
    metrics = run_metrics(record["flows"], record.get("stats", {}), cell.ideal_us, extra)
    if "late_cwnd_0" in extra and "late_cwnd_1" in extra:  # E6: the two flows' ratios
        fab, flows = Fabric.of(cell.spec), record["flows"]
        brtt = [fab.path_brtt_us(int(flows["src"][i]), int(flows["dst"][i])) for i in (0, 1)]
        metrics |= two_flow_ratios(brtt, [_number(extra.get(f"late_cwnd_{i}")) for i in (0, 1)],
                                   [_number(extra.get(f"late_gbps_{i}")) for i in (0, 1)])
    return RunResult(cell, record, metrics)


class Grid(cells.Grid[RunResult]):
    """One experiment's runs; means over seeds per (point, variant), the points and
    variants in the experiment's order. A failed run counts in :meth:`runs` (its NaNs make
    the mean NaN)."""

    exp: Experiment
    skip_errors = False

    def __init__(self, exp: Experiment, results: list[RunResult]) -> None:
        super().__init__(exp, results)
        self.points = [p.label for p in (*exp.points, *exp.quick_points)
                       if any(r.cell.point == p.label for r in results)]
        self.points = list(dict.fromkeys(self.points))
        self.variants = [v.label for v in exp.variants if any(r.cell.variant == v.label for r in results)]

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
        mine = [r for r in self.results if r.cell.variant in variants]
        long_flows = self.exp.key == "E6"  # its flows outlive the run by design
        bad = [r for r in mine if r.error or (not long_flows and r.metrics["finished"] < r.metrics["flows"])]
        if not bad:
            return "no data for it" if mine else "no runs"
        errs = sorted({r.cell.variant for r in bad if r.error})
        unfinished = sorted({r.cell.variant for r in bad if not r.error})
        parts = []
        if errs:
            parts.append("runs failed: " + ", ".join(errs))
        if unfinished:
            parts.append("unfinished: " + ", ".join(unfinished))
        return "; ".join(parts)
