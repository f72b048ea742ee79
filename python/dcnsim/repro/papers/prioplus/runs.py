"""PrioPlus: the experiments, their runs and cells, and the per-run results.

Every (experiment, point, variant, seed) is one run of a scenario in
``experiments/prioplus/`` with ``--set`` style overrides (docs/reproductions/prioplus-paper.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim.repro import cells
from dcnsim.repro.core import find_experiments
from dcnsim.repro.papers.prioplus.metrics import KB, dt_pfc, series_by_flow
from dcnsim.repro.tables import select_keys

# ---------------------------------------------------------------------------------------
# Experiments and their cells


@dataclass(frozen=True)
class Run:
    """One point of an experiment: its labels, overrides and parameters."""

    point: str
    variant: str
    overrides: tuple[str, ...]
    params: tuple[tuple[str, Any], ...] = ()
    seeded: bool = True
    # Most seeds this run takes (the F10D and F13 sweeps: the artefact's 3 for Fig. 10d).
    max_seeds: Optional[int] = None

    def param(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)


PP = "PrioPlus+Swift"
PP_P = "PrioPlus+Swift [P]"  # without the artefact's stop below 0.1 packet
PP_NO_NOISE = "PrioPlus+Swift, no noise"
PHYS = "Physical+Swift"
PHYS_STAR = "Physical*+Swift"
PHYS_NOCC = "Physical* w/o CC"
# App. A.4 / Fig. 18 (H13): line-rate senders on the 8 physical queues of Physical+Swift.
PHYS8_NOCC = "Physical w/o CC"
# App. A.3 / Fig. 16 (H11): PrioPlus with its ACKs in the data queue, at the data's priority.
PP_STAR = "PrioPlus*+Swift"
# Ablation of the Physical* baseline: its ACKs in the top (control) queue, as before 2026-11-26.
PHYS_STAR_ACKS_ON_TOP = "Physical*+Swift, ACKs on top"
D2TCP = "D2TCP"
# docs/models/dctcp.md: D2TCP marks with RED at 400 / 1600 KiB, pmax 0.2 (F14 and F12AB).
D2TCP_ECN = 'switch.ecn={ enabled = true, kmin = "400KiB", kmax = "1600KiB", pmax = 0.2 }'
SWIFT = "Swift"
HPCC = "HPCC"
# Physical priority queues are each lossless on their own ("per-queue PFC", docs/models/pfc.md): a
# PAUSE stops one level of a link, not all (docs/scenario.md, switch.pfc.per_priority).
PER_PRIORITY_PFC = "switch.pfc.per_priority=true"
# The artefact's Physical schemes send an ACK at its data's priority: it waits behind higher
# levels and pauses with its level (docs/models/pfc.md, docs/reproductions/prioplus-paper.md).
ACKS_WITH_DATA = "switch.ack_priority=false"
# Physical priority queues in the switches and in the hosts: the artefact's hosts dequeue their
# priority queues in strict order, so a NIC sends its highest-level flows first
# (docs/models/priority-queues.md, experiments/prioplus/ablations/nic_priority.md).
PHYSICAL_QUEUES = ('switch.scheduler="priority"', 'transport.nic_scheduler="priority"')

F11_NS = (2, 4, 6, 8)
F11_NS_MORE = (12, 16)  # PrioPlus and Physical* only (Physical has 8 queues)


def _prio(n: int) -> tuple[str, ...]:
    return (f'workload.0.priority={{ levels = {n}, max = "30MB" }}', f"transport.prioplus.levels={n}")


def f11_runs(quick: bool) -> list[Run]:
    stop = ("workload.0.stop=500us",) if quick else ()
    pp_p = ("transport.cc=prioplus", dt_pfc())
    pp = pp_p + ("transport.prioplus.stop_below_pkts=0.1",)
    out: list[Run] = []
    ns = (8,) if quick else F11_NS + F11_NS_MORE
    for n in ns:
        # As many queues as levels (at most 8), each lossless with its headroom carved.
        phys = ("transport.cc=swift", *PHYSICAL_QUEUES, f"switch.priority.queues={min(n, 8)}",
                dt_pfc(per_priority=True), ACKS_WITH_DATA)
        star_acks_on_top = ("transport.cc=swift", *PHYSICAL_QUEUES, 'switch.priority.queues="ideal"',
                            dt_pfc(headroom_carved=False, per_priority=True))
        star = star_acks_on_top + (ACKS_WITH_DATA,)
        params = (("n", n),)
        out.append(Run(f"N={n}", PP, stop + pp + _prio(n), params))
        if n <= 8:
            out.append(Run(f"N={n}", PHYS, stop + phys + _prio(n), params))
        out.append(Run(f"N={n}", PHYS_STAR, stop + star + _prio(n), params))
        if n == 8:
            # App. A.3 / Fig. 16 (H10): HPCC in the one lossless queue PrioPlus uses.
            out.append(Run(f"N={n}", HPCC, stop + _prio(n) + (
                "transport.cc=hpcc", dt_pfc()), params))
        if n == 8:
            out.append(Run(f"N={n}", PP_STAR, stop + pp + _prio(n) + (ACKS_WITH_DATA,), params))
        if n == 8 and not quick:
            out.append(Run(f"N={n}", PHYS_STAR_ACKS_ON_TOP, stop + star_acks_on_top + _prio(n), params))
            out.append(Run(f"N={n}", PP_P, stop + pp_p + _prio(n), params))
            # Every run carries the paper's NIC noise; the artefact's Fig. 11 configs have none.
            out.append(Run(f"N={n}", PP_NO_NOISE, stop + pp + _prio(n) + ("transport.delay_noise.scale=0",), params))
            out.append(Run(f"N={n}", PHYS_NOCC, stop + _prio(n) + (
                "transport.cc=none", *PHYSICAL_QUEUES, 'switch.priority.queues="ideal"',
                dt_pfc(headroom_carved=False, per_priority=True), ACKS_WITH_DATA), params))
    return out


def f14_runs(quick: bool) -> list[Run]:
    stop = tuple(f"workload.{i}.stop=500us" for i in range(12)) if quick else ()
    star = (*PHYSICAL_QUEUES, 'switch.priority.queues="ideal"',
            dt_pfc(headroom_carved=False, per_priority=True), ACKS_WITH_DATA)
    return [
        Run("12 levels", PP, stop + ("transport.cc=prioplus",)),
        Run("12 levels", PHYS_STAR, stop + ("transport.cc=swift",) + star),
        Run("12 levels", D2TCP, stop + ("transport.cc=d2tcp", D2TCP_ECN)),
        Run("12 levels", PHYS_NOCC, stop + ("transport.cc=none",) + star),
    ]


MICRO_SEEDS = 3  # the F13 and F10D sweeps: seeds 1..3 (fewer if --seeds is smaller)
F13_BS = (10, 20, 30)
F13_RS = tuple(range(0, 62, 2))
F13_QUICK_RS = (0, 8, 16, 24)
# Quick: the staircase at 1 ms instead of 4 ms (a quarter of each size and start).
F13_QUICK = tuple(
    f"workload.{i}.file=fig13_quick_p{lvl}.csv" for i, lvl in enumerate((3, 4, 5, 6)))


# The ablation of where the non-congestive delay goes: on the delay samples only (before
# 2026-11-26), for B = 10 us at every other R of the quick sweep's range and beyond.
F13_SAMPLES_RS = (0, 8, 12, 16, 20, 24, 32, 40)
F13_SAMPLES = " [delay on samples only]"


def f13_runs(quick: bool) -> list[Run]:
    """The paper's non-congestive delay is "introduced at the bottleneck" (§6.3): the
    receiving host holds each reply for a uniform draw in [0, R] (``delay_noise.at =
    "receiver"``), so every scheme's RTT, ACK clock and samples carry it. The full run adds
    the ablation with the delay on the samples only (``at = "samples"``)."""
    base = F13_QUICK if quick else ()
    rs = F13_QUICK_RS if quick else F13_RS
    bs = (10,) if quick else F13_BS
    places = (("receiver", "", rs, bs),) if quick else (("receiver", "", rs, bs),
                                                        ("samples", F13_SAMPLES, F13_SAMPLES_RS, (10,)))
    out = []
    for at, suffix, points, b_values in places:
        for r in points:
            noise = f"transport.delay_noise={{ uniform = \"{r}us\", at = \"{at}\" }}"
            out.append(Run(f"R={r}", PHYS + suffix, base + ("transport.cc=swift", *PHYSICAL_QUEUES, noise),
                           (("r", r), ("at", at)), max_seeds=MICRO_SEEDS))
            for b in b_values:
                out.append(Run(f"R={r}", f"{PP} B={b}{suffix}",
                               base + ("transport.cc=prioplus", f'transport.prioplus.noise="{b}us"', noise),
                               (("r", r), ("b", b), ("at", at)), max_seeds=MICRO_SEEDS))
    return out


F10D_WIDTHS_KB = (10, 12.5, 15, 17.5, 20, 22.5, 25, 27.5, 30, 32.5, 35, 37.5, 40)
F10D_QUICK_WIDTHS_KB = (10, 20, 30)
F10D_SCALES = (1, 2, 3, 4)
F10D_INTERVAL_KB = 20.0
LINE_B_PER_US = 12_500.0  # 100 Gbps


def _kb_us(kb: float) -> float:
    return kb * KB / LINE_B_PER_US


def f10d_runs(quick: bool) -> list[Run]:
    dur = ("duration=3ms",) if quick else ()
    widths = F10D_QUICK_WIDTHS_KB if quick else F10D_WIDTHS_KB
    scales = (1, 2) if quick else F10D_SCALES
    out = []
    for s in scales:
        for w in widths:
            gap = _kb_us(w)
            spacing = _kb_us(w + F10D_INTERVAL_KB)
            out.append(Run(f"x{s} w={w:g}KB", f"{PP} filter 2", dur + (
                f"transport.delay_noise.scale={s}", f'transport.prioplus.fluctuation="{spacing * 1000:.0f}ns"',
                f'transport.prioplus.limit_gap="{gap * 1000:.0f}ns"'),
                (("scale", s), ("w_kb", w), ("spacing_us", spacing), ("filter", 2)), max_seeds=MICRO_SEEDS))
    # The filter off on the narrowest channel at 1x, where the noise can reach the limit
    # (beside the filter-2 run of the sweep).
    w = widths[0]
    out.append(Run(f"x1 w={w:g}KB", f"{PP} filter 1", dur + (
        "transport.delay_noise.scale=1", f'transport.prioplus.fluctuation="{_kb_us(w + F10D_INTERVAL_KB) * 1000:.0f}ns"',
        f'transport.prioplus.limit_gap="{_kb_us(w) * 1000:.0f}ns"', "transport.prioplus.filter=1"),
        (("scale", 1), ("w_kb", w), ("spacing_us", _kb_us(w + F10D_INTERVAL_KB)), ("filter", 1)),
        max_seeds=MICRO_SEEDS))
    # The filter: the default channel (docs/models/prioplus.md) (4 us spacing, 2.4 us gap) at 1x, with and without.
    for filt in (1, 2):
        out.append(Run("x1 default channel", f"{PP} filter {filt}", dur + (
            "transport.delay_noise.scale=1", 'transport.prioplus.fluctuation="4us"',
            'transport.prioplus.limit_gap="2.4us"', f"transport.prioplus.filter={filt}"),
            (("scale", 1), ("filter", filt), ("default", True)), max_seeds=MICRO_SEEDS))
    return out


def m1_runs(quick: bool) -> list[Run]:
    size = ("workload.0.file=m1_quick_high.csv", "workload.1.file=m1_quick_low.csv") if quick else ()
    return [Run("2 x 200 MB" if not quick else "2 x 20 MB", D2TCP, size, seeded=False),
            Run("2 x 200 MB" if not quick else "2 x 20 MB", PP, size + (
                "transport.cc=prioplus", "switch.ecn:={ enabled = false }", "transport.prioplus.stop_below_pkts=0.1"),
                seeded=False)]


def m2_runs(quick: bool) -> list[Run]:
    return [Run("4 x 5 MB", "Swift+scaling", (), seeded=False),
            Run("4 x 5 MB", PP, ("transport.cc=prioplus", "transport.prioplus.stop_below_pkts=0.1"), seeded=False)]


def m4_runs(quick: bool) -> list[Run]:
    return [Run("4 x 3 MB", "Swift min rate", (), seeded=False)]


def ac14_runs(quick: bool) -> list[Run]:
    dur = ("duration=4ms",) if quick else ()
    return [Run("4 flows", PP, dur, seeded=False),
            Run("4 flows", "Swift (same target)", dur + ("transport.cc=swift", 'transport.swift.base_target="24us"'),
                seeded=False)]


SWIFT_FLAT = "Swift (no priorities)"
F12C_MODELS = {"ResNet": ("resnet1", "resnet2", "resnet3", "resnet4"), "VGG": ("vgg1", "vgg2", "vgg3", "vgg4")}
F12C_MODELS_ALL = {**F12C_MODELS, "total": F12C_MODELS["ResNet"] + F12C_MODELS["VGG"]}
# docs/reproductions/prioplus-paper.md, H8/H9 (Fig. 12c): speedup vs Swift without priorities, ResNet / VGG / total.
F12C_PAPER = {PP: (1.12, 1.15, 1.13), PHYS: (1.16, 0.82, 1.09)}
F12C_TOLERANCE = 0.05  # AC17


F12C_A = "[A] 200G 4:1"  # the default: the artefact's fabric (docs/reproductions/prioplus-paper.md, F12C)
F12C_P = "[P] 100G 2:1"  # the paper's rates, oversubscription and 32 MB on the same 3 x 8 layout
F12C_P_FABRIC = ('topology.file="fig12c_leaf_spine_p.csv"', 'switch.buffer="32MB"',
                 'switch.pfc.dynamic:={ buffer = "32MB" }')  # per switch, shared by dynamic threshold


def f12c_runs(quick: bool) -> list[Run]:
    """The baseline (Swift in one FIFO queue: the jobs' priorities unused), PrioPlus+Swift
    in one queue, Physical+Swift on 8 strict-priority queues, on the [A] fabric; the full
    run repeats them on the [P]-like one. Quick: [A] only (one seed), the runs take seconds."""
    schemes = ((SWIFT_FLAT, ("transport.cc=swift",)), (PP, ("transport.cc=prioplus",)),
               (PHYS, ("transport.cc=swift", *PHYSICAL_QUEUES, "switch.priority.queues=8", PER_PRIORITY_PFC,
                       ACKS_WITH_DATA)))
    fabrics = ((F12C_A, ()),) if quick else ((F12C_A, ()), (F12C_P, F12C_P_FABRIC))
    return [Run(point, v, extra + o) for point, extra in fabrics for v, o in schemes]


# Total load and arrival window (docs/reproductions/prioplus-paper.md, F12AB, [A]).
F12AB_LOADS = {"40%": (0.4, "10ms"), "70%": (0.7, "5ms")}
F12AB_QUICK_STOP = "0.3ms"
# Seeds of the full run: the artefact runs one (8259); more average the few coflows of the
# lowest levels, but a 40 % run moves 16 GB (about 10^8 events), so at most 3.
F12AB_SEEDS = 3
# docs/reproductions/prioplus-paper.md, H5/H6 (Fig. 12a/b): PrioPlus+Swift minus Physical+Swift speedup, (high 4, low 4,
# overall); at 70 % the paper states only the overall difference.
F12AB_PAPER_DIFF = {"40%": (0.09, 0.15, 0.12), "70%": (math.nan, math.nan, 0.21)}
F12AB_TOLERANCE = {"40%": 0.08, "70%": 0.10}  # AC16
# App. A.5 / Fig. 17 (H14): the 70 % point on a lossy fabric with IRN's loss recovery
# (docs/reproductions/prioplus-paper.md, "IRN variant"): PFC off, so a full 2 MiB port drops; selective retransmission (the
# transport's SACK recovery); in-flight bytes capped at the flow's BDP (IRN's BDP-FC); and
# IRN's RTO_high of 320 us as the timer's floor (its RTO_low for tiny windows is not modelled).
F12AB_IRN = "70% IRN"
IRN_OVERRIDES = ("switch.pfc.enabled=false", 'transport.inflight_cap="bdp"', 'transport.loss_recovery="sack"',
                 'transport.rto_min="320us"')


SWIFT_LEVELS = "Swift (per-level targets)"
LEDBAT = "LEDBAT"
PP_LEDBAT = "PrioPlus+LEDBAT"
# docs/reproductions/prioplus-paper.md: the single-queue Swift baseline's targets, 4 ... 32 us over the base RTT from the
# lowest level to the highest, target scaling off; LEDBAT's are the same (its defaults).
F12AB_SWIFT_LEVEL_TARGETS_US = tuple(4 + 4 * i for i in range(8))


def f12ab_runs(quick: bool) -> list[Run]:
    """Swift (no priorities: one FIFO queue), PrioPlus+Swift (one queue), Physical+Swift (8
    strict-priority queues), at 40 % (arrivals for 10 ms) and 70 % (5 ms); each workload
    (coflows, file requests) carries half the load. Quick: arrivals for 0.3 ms.

    The full run adds Fig. 12's other bars (docs/reproductions/prioplus-paper.md), each in one queue: Swift with
    per-level targets, D2TCP (deadlines 1.5x the ideal FCT at the top level to 12x at the
    lowest), LEDBAT with per-level targets, and PrioPlus over LEDBAT (the artefact's
    ``filter = 1``, the top 2 levels "high": unlimited and starting at once; its W_LS preset
    1 / 1 / 0.25 x 3 / 0.125 x 3 is the default one for 8 levels)."""
    targets = ", ".join(f'"{t}us"' for t in F12AB_SWIFT_LEVEL_TARGETS_US)
    schemes = [(SWIFT_FLAT, ("transport.cc=swift",)), (PP, ("transport.cc=prioplus",)),
               (PHYS, ("transport.cc=swift", *PHYSICAL_QUEUES, "switch.priority.queues=8", PER_PRIORITY_PFC,
                       ACKS_WITH_DATA))]
    if not quick:
        schemes += [
            (SWIFT_LEVELS, ("transport.cc=swift", f"transport.swift.level_targets=[{targets}]",
                            'transport.swift.fs_range="0us"')),
            (D2TCP, ("transport.cc=d2tcp", D2TCP_ECN)),
            (LEDBAT, ("transport.cc=ledbat",)),
            (PP_LEDBAT, ("transport.cc=prioplus", 'transport.prioplus.underlying="ledbat"',
                         "transport.prioplus.filter=1", "transport.prioplus.direct_start_levels=2",
                         "transport.prioplus.unlimited_levels=2")),
        ]
    out = []
    for point, (load, stop) in F12AB_LOADS.items():
        stop = F12AB_QUICK_STOP if quick else stop
        traffic = tuple(f"workload.{i}.{k}={v}" for i in (0, 1) for k, v in (("load", load / 2), ("stop", stop)))
        # App. A.4 / Fig. 18 (H12, H13): HPCC in one queue, and Physical without congestion
        # control, at 70 % only (the paper's point).
        extra = [(HPCC, ("transport.cc=hpcc",)),
                 (PHYS8_NOCC, ("transport.cc=none", *PHYSICAL_QUEUES, "switch.priority.queues=8",
                               PER_PRIORITY_PFC, ACKS_WITH_DATA))] if point == "70%" and not quick else []
        out += [Run(point, v, traffic + o, (("load", load),), max_seeds=F12AB_SEEDS) for v, o in schemes + extra]
        if point == "70%" and not quick:
            out += [Run(F12AB_IRN, v, traffic + o + IRN_OVERRIDES, (("load", load),), max_seeds=F12AB_SEEDS)
                    for v, o in schemes[:3]]
    return out


# T1 (Fig. 8, §5, the testbed; H21): the F13 staircase at R = 0 with the channels of §4.3.2,
# PrioPlus+Swift against Swift in the same FIFO with a fixed target per level equal to
# D_target (fig8_staircase.toml's [transport.swift] level_targets, no target scaling).
T1_SWIFT = "Swift (targets = D_target)"
T1_QUICK = F13_QUICK  # the staircase at 1 ms steps (a quarter of each size and start)


def t1_runs(quick: bool) -> list[Run]:
    base = T1_QUICK if quick else ()
    return [Run("staircase", PP, base + ("transport.cc=prioplus",), seeded=False),
            Run("staircase", T1_SWIFT, base + ("transport.cc=swift",), seeded=False)]


@dataclass(frozen=True)
class Experiment:
    key: str
    toml: str
    title: str
    checks: str
    runs: Any  # Callable[[bool], list[Run]]
    quick_note: str


EXPERIMENTS: dict[str, Experiment] = {e.key: e for e in [
    Experiment("F11", "fig11_flow_scheduling.toml", "flow scheduling, k = 6 fat tree, WebSearch 70 %, N size groups",
               "AC15", f11_runs, "N = 8 only, arrivals for 0.5 ms instead of 2 ms"),
    Experiment("F14", "fig14_twelve_levels.toml", "12 levels, each its own WebSearch at 1/12 of 50 %", "AC18",
               f14_runs, "arrivals for 0.5 ms instead of 2 ms"),
    Experiment("F13", "fig13_noncongestive.toml", "four-level staircase at 10 Gbps with non-congestive delay", "AC19",
               f13_runs, "B = 10 us only, R in {0, 8, 16, 24} us, the staircase at 1 ms steps instead of 4 ms"),
    Experiment("F10D", "fig10d_noise.toml", "five same-level flows under NIC delay noise, channel width sweep",
               "AC10", f10d_runs, "noise x1, x2; widths 10, 20, 30 KB; 3 ms instead of 100 ms"),
    Experiment("M1", "m1_d2tcp.toml", "motivation M1: two D2TCP flows, deadlines 1x / 2x", "AC13", m1_runs,
               "20 MB flows instead of 200 MB"),
    Experiment("M2", "m2_swift_scaling.toml", "motivation M2: Swift with target scaling, 2 high + 2 low", "AC13",
               m2_runs, "as the full run"),
    Experiment("M4", "m4_min_rate.toml", "motivation M4: Swift at a 100 Mbps minimum rate", "AC13", m4_runs,
               "as the full run"),
    Experiment("AC14", "ac14_inflated_ai.toml", "four flows with a 5x additive increase: PrioPlus vs Swift", "AC14",
               ac14_runs, "4 ms instead of 10 ms"),
    Experiment("F12C", "fig12c_training.toml", "ML training: 4 ResNet + 4 VGG ring all-reduce jobs, 3 leaves x 8 "
               "hosts, 1 spine, 20 ms", "AC17", f12c_runs, "the [A] fabric only, one seed"),
    Experiment("F12AB", "fig12ab_coflow.toml", "coflows + file requests (1:1), 8 levels each, 320-host fat tree, "
               "40 % and 70 % load", "AC16", f12ab_runs, f"arrivals for {F12AB_QUICK_STOP} instead of 10 / 5 ms, "
               "one seed"),
    Experiment("T1", "fig8_staircase.toml", "testbed Fig. 8: four-level staircase at 10 Gbps, time to yield and to "
               "refill", "H21", t1_runs, "the staircase at 1 ms steps instead of 4 ms"),
]}


def experiments_dir() -> Path:
    return find_experiments("prioplus", "fig11_flow_scheduling.toml")


def parse_only(text: Optional[str]) -> list[str]:
    return select_keys(text, list(EXPERIMENTS), "experiment")


@dataclass
class Cell(cells.Cell):
    """A run of one experiment; ``point`` and ``variant`` are its :class:`Run`'s."""

    run: Run = field(default=Run("", "", ()), repr=False)

    label_formats = ("<4", ">18", "<24")

    @classmethod
    def of(cls, exp: str, run: Run, seed: int, spec: dict[str, Any]) -> Cell:
        return cls(exp, run.point, run.variant, seed, spec, run=run)


_FLOW_COLUMNS = ("tag", "src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us", "finished",
                 "retransmits", "drops")
CAP_US = 200_000.0  # a run stops unfinished after 200 ms of simulated time
SUMMARY_VERSION = "pp-2"  # bump when summarize changes, so cached runs are redone


def build_cells(exps: Sequence[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str) -> list[Cell]:
    """Every run of the selected experiments: F11, F14 and F12C for seeds 1..``seeds``, the F13
    and F10D sweeps for seeds 1..min(``seeds``, 3) (the artefact runs Fig. 10d with 3),
    F12AB for 1..min(``seeds``, F12AB_SEEDS), M1, M2, M4, AC14 and T1 once (seed 1)."""
    from dcnsim._scenario import load_scenario

    out = []
    for key in exps:
        e = EXPERIMENTS[key]
        for run in e.runs(quick):
            n = min(seeds, run.max_seeds or seeds) if run.seeded else 1
            for seed in range(1, n + 1):
                spec, _ = load_scenario(exp_dir / e.toml, [*run.overrides, f"seed={seed}"])
                out.append(Cell.of(key, run, seed, spec).keyed(fingerprint, _FLOW_COLUMNS, SUMMARY_VERSION))
    return out


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class RunResult(cells.RunResult[Cell]):
    def fcts(self) -> list[float]:
        """FCT per flow, NaN when unfinished."""
        f = self.flows
        return [float(x) if (done and x is not None) else math.nan for x, done in zip(f.get("fct_us", []),
                                                                                       f.get("finished", []))]

    def delivered(self) -> dict[int, list[tuple[float, float]]]:
        e = self.extra
        return series_by_flow(e.get("d_t", []), e.get("d_flow", []), e.get("d_bytes", []))


def pooled(results: Sequence[RunResult]) -> tuple[list[float], list[float], list[str]]:
    """Sizes, FCTs (NaN unfinished) and tags of every flow of the runs, pooled over seeds."""
    sizes: list[float] = []
    fcts: list[float] = []
    tags: list[str] = []
    for r in results:
        if r.error:
            continue
        sizes += [float(s) for s in r.flows.get("size", [])]
        fcts += r.fcts()
        tags += [str(t) for t in r.flows.get("tag", [])]
    return sizes, fcts, tags


class Grid(cells.Grid[RunResult]):
    """One experiment's results; :meth:`runs` leaves out the failed ones."""

    exp: Experiment

    def one(self, point: str, variant: str, seed: Optional[int] = None) -> Optional[RunResult]:
        rs = [r for r in self.runs(point, variant) if seed is None or r.cell.seed == seed]
        return rs[0] if rs else None
