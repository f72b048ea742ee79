"""LAPS: the metric functions, the schemes and experiments, their runs and cells, the
per-run results and what a run keeps beyond its counters (:func:`summarize`).

Every (experiment, point, scheme, seed) is one run of a scenario in ``experiments/laps/``
with ``--set`` style overrides (docs/reproductions/laps-paper.md). The LLM flow files (63
Poisson start times per seed) are written by the harness into ``<out>/flows/``; a cell's
cache key hashes the file's content, not its path. The metric functions
(:func:`p99_artefact`, :func:`median`, :func:`llm_flows`, :func:`ideal_incast_ms`,
:func:`growth`) and the flow-table helpers (:func:`size_bucket`, :func:`in_window`,
:func:`window_fcts_us`, :func:`offered_load`) are plain Python, unit-tested on hand-computed
inputs.
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from dcnsim.repro import cells
from dcnsim.repro.core import find_experiments
from dcnsim.repro.tables import select_keys

MB = 1_000_000
LLM_BYTES = 64 * MB  # LLaMA-2-7B gradient, 64,000,000 B per flow (docs/reproductions/laps-paper.md)
LLM_WINDOW_US = 10_000.0  # the 63 start times: one Poisson process of rate 63 per 10 ms
HOST_GBPS_RAIL = 200.0  # GPU links (docs/reproductions/laps-paper.md, the fabrics)
PAYLOAD = 1000  # bytes per 1048-byte packet
HEADER = 48

# ---------------------------------------------------------------------------------------
# Metrics


def median(xs: Sequence[float]) -> float:
    """Median of the finite values (the statistic over seeds, docs/reproductions/laps-paper.md); NaN for none."""
    v = [float(x) for x in xs if x is not None and math.isfinite(float(x))]
    return statistics.median(v) if v else math.nan


def p99_artefact(xs: Sequence[float]) -> float:
    """The artefact's P99: element floor(0.99 n) of the sorted values (docs/reproductions/laps-paper.md); NaN for
    none. For 63 flows that is the largest."""
    v = sorted(float(x) for x in xs if x is not None and math.isfinite(float(x)))
    if not v:
        return math.nan
    return v[min(len(v) - 1, int(0.99 * len(v)))]


def growth(points: dict[float, float], lo: float = 0.5, hi: float = 1.0) -> float:
    """avgFCT(hi) − avgFCT(lo) (docs/reproductions/laps-paper.md); NaN when either load is missing."""
    a, b = points.get(lo, math.nan), points.get(hi, math.nan)
    return b - a


def ideal_incast_ms(senders: int, size: int, gbps: float = HOST_GBPS_RAIL, wire: bool = False) -> float:
    """Time for ``senders`` flows of ``size`` payload bytes through one receiver link of
    ``gbps``: 63 x 64 MB x 8 / 200 Gb/s = 161.3 ms (payload), or with
    ``wire`` the 1048-byte packets of 1000 payload bytes."""
    nbytes = senders * size
    if wire:
        nbytes = senders * (math.ceil(size / PAYLOAD) * HEADER + size)
    return nbytes * 8 / (gbps * 1e9) * 1e3


def llm_flows(pattern: str, seed: int, size: int, window_us: float, gpus: int = 64, gpu: int = 0
              ) -> list[tuple[int, int, int, float]]:
    """The E5/E6 flows (src, dst, bytes, start µs): ``allreduce`` = every other GPU to
    ``gpu``, ``allscatter`` = ``gpu`` to every other; the start times one Poisson process
    of rate (gpus − 1) per ``window_us`` (docs/reproductions/laps-paper.md, E5), drawn from a generator seeded by the
    pattern and seed (so a flow file is the same on every machine)."""
    rng = random.Random(f"laps-{pattern}-{seed}")
    n = gpus - 1
    rate = n / window_us
    t = 0.0
    out = []
    others = [h for h in range(gpus) if h != gpu]
    for h in others:
        t += rng.expovariate(rate)
        src, dst = (h, gpu) if pattern == "allreduce" else (gpu, h)
        out.append((src, dst, size, round(t, 3)))
    return out


def llm_csv(flows: Sequence[tuple[int, int, int, float]]) -> str:
    return "src,dst,size,start\n" + "".join(f"{s},{d},{b},{t:.3f}us\n" for s, d, b, t in flows)


# ---------------------------------------------------------------------------------------
# Schemes (docs/reproductions/laps-paper.md; experiments/laps/README.md "Schemes")

LAPS = "LAPS"  # the headline: the artefact's rules (the core's defaults)
LAPS_T = "LAPS [text]"  # the ablation: the paper's literal text
LAPS_NCC = "LAPS [no class change]"  # E4's ablation: the headline LAPS without the class change
ECMP = "ECMP"
LETFLOW = "LetFlow"
PLB = "PLB"
PLB_W = "PLB [window DCTCP]"
RPS = "RPS"
CONGA = "CONGA"
CONWEAVE = "ConWeave"
BASELINES = (ECMP, LETFLOW, CONGA, CONWEAVE, PLB)
LAPS_VARIANTS = (LAPS, LAPS_T)
DCQCN_SCHEMES = (ECMP, LETFLOW, CONGA, CONWEAVE)
DCQCN_PAPER = " [DCQCN paper]"  # E5's ablation suffix: the baseline on the DCQCN paper's rules

# The artefact's LAPS is the headline (issue 28: the paper alone does not fix these settings
# and points to the artefact): latency / T in the softmax, separate increase (2T) and
# decrease (2 x the largest current latency) timers, the artefact's probing, W = 2T x line
# rate in flight (docs/models/laps.md; the core's defaults, hence ``{}``).
# The literal text of the paper, the ablation "LAPS [text]" (docs/models/laps.md): Eq. 1 on raw
# latencies (in µs: in ns, beta = 1 is a strict argmin), one 2T gate and a half-gap step,
# per-path staleness 2 x its own latency with doubling while a probe is out, no window.
PAPER_LAPS = '{ latency_scale = "raw_us", gate = "paper", probe = "paper", window = false }'
# CONGA with the artefact's parameters (docs/models/conga.md): flowlet gap 10 µs, DRE period 200 µs,
# decay 0.2, 3-bit metric, feedback forgotten after 10 ms (the core's defaults, spelled out
# so that a change of default cannot move these numbers unnoticed).
CONGA_PARAMS = ('{ flowlet_timeout = "10us", dre_period = "200us", dre_decay = 0.2, metric_bits = 3, '
                'table_aging = "10ms" }')
# ConWeave with the artefact's parameters (docs/models/conweave.md), spelled out likewise: reply deadline
# the path's unloaded RTT + 80 ns, reorder queue released 32 µs after its TAIL was due (or
# after 200 µs when that is unknown), 10 µs inactivity expiry, 4 µs NOTIFY pause.
CONWEAVE_PARAMS = ('{ reply_deadline_extra = "80ns", voq_flush_slack = "32us", voq_wait = "200us", '
                   'tx_inactivity = "10us", path_pause = "4us" }')
# PLB's DCTCP (docs/models/dctcp.md): the rate-based variant of the HPCC/ConWeave NIC code, g = 1/256,
# +1 Gb/s per batch, the NIC's 100 Mb/s minimum rate and the unified one-BDP in-flight window
# that the same NIC configuration applies to every rate-based algorithm (docs/models/dcqcn.md).
DCTCP_RATE = '{ g = 0.00390625, rate_ai = "1Gbps", min_rate = "100Mbps", window = "bdp" }'
# ECMP, LetFlow and PLB on the union of the LAPS candidate paths, chosen hop by hop
# (docs/models/ecmp.md, the artefact's; the core's default, spelled out for the same reason).
CANDIDATES = "transport.lb_paths=candidates"
SCHEMES: dict[str, tuple[str, ...]] = {
    LAPS: ("transport.cc=laps", "transport.lb=laps", "transport.laps={}"),
    LAPS_T: ("transport.cc=laps", "transport.lb=laps", f"transport.laps={PAPER_LAPS}"),
    ECMP: ("transport.cc=dcqcn", "transport.lb=ecmp", CANDIDATES, "transport.loss_recovery=go_back_n"),
    LETFLOW: ("transport.cc=dcqcn", "transport.lb=letflow", CANDIDATES, "transport.loss_recovery=go_back_n"),
    CONGA: ("transport.cc=dcqcn", "transport.lb=conga", f"transport.conga={CONGA_PARAMS}",
            "transport.loss_recovery=go_back_n"),
    CONWEAVE: ("transport.cc=dcqcn", "transport.lb=conweave", f"transport.conweave={CONWEAVE_PARAMS}",
               "transport.loss_recovery=go_back_n"),
    PLB: ("transport.cc=dctcp", "transport.lb=plb", CANDIDATES, "transport.loss_recovery=go_back_n",
          "transport.dctcp.variant=rate", f"transport.dctcp.rate={DCTCP_RATE}"),
    # The pairing before 22 Nov 2026: dcnsim's window DCTCP (g = 1/256), which the issue
    # allows (docs/models/dctcp.md); not in the default scheme lists, run it with ``schemes=``.
    PLB_W: ("transport.cc=dctcp", "transport.lb=plb", CANDIDATES, "transport.loss_recovery=go_back_n",
            "transport.dctcp.variant=window"),
    # RPS: the headline LAPS with beta = 0, i.e. uniform spraying under the same CC (docs/models/laps.md).
    RPS: ("transport.cc=laps", "transport.lb=laps", "transport.laps={ beta = 0 }"),
}
# The DCQCN baselines run the artefact's Mellanox DCQCN (the scenario files' [transport.dcqcn]
# variant, docs/models/dcqcn.md); E5's ablation runs them on the DCQCN paper's rules.
for _s in DCQCN_SCHEMES:
    SCHEMES[_s + DCQCN_PAPER] = SCHEMES[_s] + ("transport.dcqcn.variant=paper",)
# E4's ablation: the dragonfly without the PFC class change (docs/models/pfc.md, "Deadlock").
SCHEMES[LAPS_NCC] = SCHEMES[LAPS] + ('switch.pfc.class_change="none"',)


def beta_variant(beta: float) -> tuple[str, tuple[str, ...]]:
    """The headline LAPS (the artefact's rules) with softmax sharpness ``beta`` (the B7
    sweep; docs/reproductions/laps-paper.md, B7)."""
    return f"{LAPS} β={beta:g}", ("transport.cc=laps", "transport.lb=laps", f"transport.laps={{ beta = {beta} }}")


A2A_SCHEMES = (LAPS, LAPS_T, ECMP, LETFLOW, CONGA, CONWEAVE, PLB)
E5_SCHEMES = (LAPS, LAPS_T, ECMP, LETFLOW, CONGA, CONWEAVE, PLB, RPS)
E5_ABLATIONS = tuple(s + DCQCN_PAPER for s in DCQCN_SCHEMES)
BETAS = (2.0, 5.0, 10.0, 30.0)
QUICK_BETAS = (5.0,)

# ---------------------------------------------------------------------------------------
# Experiments

LOADS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # the paper's 11 points 0.50, 0.55, ... halved
QUICK_LOADS = (0.5, 0.8, 1.0)
NCC_LOADS = (0.9, 1.0)  # E4's "LAPS [no class change]" ablation (full mode)
QUICK_NCC_LOADS = (1.0,)
LOSS = 1e-6  # the paper's 0.0001 %, here per switch-to-switch link crossed
# docs/reproductions/laps-paper.md: the artefact snapshot drops with probability about 1e-5 at every link receive
# (host links and ACKs included). Full E5 runs it as a third point, to see whether the
# artefact's heavier loss explains the baselines' B2 numbers.
LOSS_A = 1e-5
E5_POINT_A = f"drop {LOSS_A:g} every link [A]"
QUICK_LLM_BYTES = 8 * MB
ARTEFACT_PAIR_FACTOR = 0.0091 * 143  # the dragonfly's per-pair factor (docs/reproductions/laps-paper.md, AL): 1.30
ARTEFACT_PERCENT_SCALE = 0.01  # the artefact's un-normalised percent-scale CDFs (docs/reproductions/laps-paper.md, AL)
# Flow-size buckets of the FCT tables (dcnsim's, not the paper's): small < 100 KB, medium
# 100 KB to < 10 MB, large >= 10 MB.
SMALL_MAX = 100_000
LARGE_MIN = 10_000_000
BUCKETS = ("small", "medium", "large")
RAIL_100G = 'topology.host_link_rate="100Gbps"'  # the paper's text: every link 100 Gb/s


@dataclass(frozen=True)
class Experiment:
    key: str
    toml: str
    title: str
    paper: str  # the figure or table
    checks: str
    cdf: str = ""  # All2all: the workload file
    workload: str = ""  # its name in the paper
    window_us: float = 0.0  # All2all: arrival window, full mode
    quick_window_us: float = 0.0
    percent_cdf: bool = False  # the artefact's CDF file is percent-scale (docs/reproductions/laps-paper.md)
    dragonfly: bool = False
    # Steady state: FCTs count only for flows that start in [lo, hi) µs (full, quick); the
    # other flows still run and load the fabric, and every flow drains. None: every flow.
    measure_us: Optional[tuple[float, float]] = None
    quick_measure_us: Optional[tuple[float, float]] = None
    hosts: int = 64
    host_gbps: float = HOST_GBPS_RAIL  # the load is a fraction of this per host
    overrides: tuple[str, ...] = ()  # on top of the scheme's (E1H, E2H: the 100G host links)
    artefact_load: bool = False  # E2A-E4A: the load the artefact offers (artefact_load())

    def window(self, quick: bool) -> float:
        return self.quick_window_us if quick else self.window_us

    def measure(self, quick: bool) -> Optional[tuple[float, float]]:
        return self.quick_measure_us if quick else self.measure_us


def _a2a(key: str, base: Experiment, **kw: Any) -> Experiment:
    return replace(base, key=key, **kw)


_E1 = Experiment("E1", "rail_all2all.toml", "Rail, DM (VL2 data mining), All2all, steady state", "Fig. 5",
                 "B3, B6", "../../workloads/datamining.cdf", "DM", 10_000.0, 500.0,
                 measure_us=(1_000.0, 9_000.0), quick_measure_us=(100.0, 400.0))
_E2 = Experiment("E2", "rail_all2all.toml", "Rail, STR (Alibaba storage 2019), All2all", "Fig. 6", "B4",
                 "../../workloads/alistorage2019.cdf", "STR", 2_000.0, 200.0, percent_cdf=True)
_E3 = Experiment("E3", "dragonfly_all2all.toml", "Dragonfly, RPC (Google RPC 2008), All2all", "Fig. 7", "B5, B6",
                 "../../workloads/googlerpc2008.cdf", "RPC", 500.0, 40.0, percent_cdf=True, dragonfly=True,
                 hosts=144, host_gbps=100.0)
_E4 = Experiment("E4", "dragonfly_all2all.toml", "Dragonfly, HDP (Facebook Hadoop 2015), All2all", "Fig. 8",
                 "B5, B6", "../../workloads/hadoop_fb2015.cdf", "HDP", 2_000.0, 200.0, percent_cdf=True,
                 dragonfly=True, hosts=144, host_gbps=100.0)
# The artefact's load (E2A-E4A): about 1 % of the nominal, so the paper's 10 ms of arrivals
# are cheap; quick keeps the source's quick window.
_ART = dict(window_us=10_000.0, artefact_load=True)
EXPERIMENTS: dict[str, Experiment] = {e.key: e for e in [
    _E1,
    _a2a("E1H", _E1, title="All-100G rail, DM, All2all, steady state", paper="Fig. 5 (the text's 100G rail)",
         checks="B3", host_gbps=100.0, overrides=(RAIL_100G,)),
    _E2,
    _a2a("E2H", _E2, title="All-100G rail, STR, All2all", paper="Fig. 6 (the text's 100G rail)", checks="B4",
         host_gbps=100.0, overrides=(RAIL_100G,)),
    _E3,
    _E4,
    _a2a("E2A", _E2, title="Rail, STR, All2all, the artefact's load", paper="Fig. 6 (artefact load)", checks="B4",
         **_ART),
    _a2a("E3A", _E3, title="Dragonfly, RPC, All2all, the artefact's load", paper="Fig. 7 (artefact load)",
         checks="B5", **_ART),
    _a2a("E4A", _E4, title="Dragonfly, HDP, All2all, the artefact's load", paper="Fig. 8 (artefact load)",
         checks="B5", **_ART),
    Experiment("E5", "rail_llm.toml", "Rail, LLM 64 MB, AllReduce (63 -> 1 incast)", "Table 1", "B1, B2, B6, B9"),
    Experiment("E6", "rail_llm.toml", "Rail, LLM 64 MB, AllScatter (1 -> 63) and AllReduce: reordering", "Fig. 9",
               "B7, B8, B9"),
]}
A2A = ("E1", "E1H", "E2", "E2H", "E3", "E4", "E2A", "E3A", "E4A")  # every All2all experiment
PAPER_A2A = ("E1", "E2", "E3", "E4")  # the paper's figures at the paper's load


def experiments_dir() -> Path:
    return find_experiments("laps", "rail_all2all.toml")


def parse_only(text: Optional[str]) -> list[str]:
    return select_keys(text, list(EXPERIMENTS), "experiment")


@dataclass(frozen=True)
class Run:
    """One point of an experiment under one scheme."""

    point: str
    scheme: str
    overrides: tuple[str, ...]
    load: float = math.nan  # All2all: nominal load (fraction of the host link)
    loss: float = 0.0
    pattern: str = ""  # E5/E6: allreduce / allscatter
    measure: Optional[tuple[float, float]] = None  # All2all: the measurement window (µs), None = every flow
    window_us: float = 0.0  # All2all: the arrival window


def a2a_runs(e: Experiment, quick: bool) -> list[Run]:
    """Every load x scheme of an All2all experiment; E4 adds the ablation without the class
    change at its top loads. Under the artefact's load (E2A-E4A) :func:`build_cells` sets
    the load itself (it may split the workload)."""
    window = e.window(quick)
    out = []
    for load in (QUICK_LOADS if quick else LOADS):
        schemes = list(A2A_SCHEMES)
        if e.key == "E4" and load in (QUICK_NCC_LOADS if quick else NCC_LOADS):
            schemes.append(LAPS_NCC)
        for s in schemes:
            wl = (f'workload.0.cdf="{e.cdf}"', f'workload.0.stop="{window:g}us"')
            if not e.artefact_load:
                wl += (f"workload.0.load={load}",)
            out.append(Run(f"load {load:.2f}", s, SCHEMES[s] + e.overrides + wl, load,
                           measure=e.measure(quick), window_us=window))
    return out


def e5_runs(quick: bool) -> list[Run]:
    out = [Run(f"drop {loss:g}", s, SCHEMES[s] + (f"topology.loss_rate={loss}",), loss=loss, pattern="allreduce")
           for loss in (0.0, LOSS) for s in E5_SCHEMES + E5_ABLATIONS]
    if not quick:
        out += [Run(E5_POINT_A, s, SCHEMES[s] + (f"topology.loss_rate={LOSS_A}", 'topology.loss_links="all"'),
                    loss=LOSS_A, pattern="allreduce") for s in E5_SCHEMES]
    return out


def e6_runs(quick: bool) -> list[Run]:
    out = []
    for pattern in ("allscatter", "allreduce"):
        variants = [(s, SCHEMES[s]) for s in (LAPS, LAPS_T, RPS)]
        if pattern == "allscatter":
            variants += [beta_variant(b) for b in (QUICK_BETAS if quick else BETAS)]
        for label, ov in variants:
            out.append(Run(pattern, label, ov + ("topology.loss_rate=0.0",), pattern=pattern))
    return out


def artefact_load(e: Experiment, load: float) -> float:
    """The load the artefact actually offers at nominal ``load`` (docs/reproductions/laps-paper.md, AL):
    x1/100 for the percent-scale CDFs, x1.30 on the dragonfly."""
    x = load
    if e.percent_cdf:
        x *= ARTEFACT_PERCENT_SCALE
    if e.dragonfly:
        x *= ARTEFACT_PAIR_FACTOR
    return x


# ---------------------------------------------------------------------------------------
# Flow tables: the measurement window, the size buckets, the offered load


def size_bucket(size: float) -> str:
    """dcnsim's size bucket: small < 100 KB, medium 100 KB to < 10 MB, large >= 10 MB."""
    return "small" if size < SMALL_MAX else ("medium" if size < LARGE_MIN else "large")


def in_window(flows: dict[str, list[Any]], measure: Optional[tuple[float, float]]) -> list[int]:
    """The flows (row indices) that start in ``measure`` = [lo, hi) µs; every flow for None."""
    starts = flows.get("start_us", [])
    if measure is None:
        return list(range(max((len(v) for v in flows.values()), default=0)))
    lo, hi = measure
    return [i for i, t in enumerate(starts) if t is not None and lo <= float(t) < hi]


def window_fcts_us(flows: dict[str, list[Any]], measure: Optional[tuple[float, float]],
                   bucket: Optional[str] = None) -> list[float]:
    """FCTs (µs) of the finished flows that start in ``measure`` (of one size bucket, when given)."""
    fct, done, size = flows.get("fct_us", []), flows.get("finished", []), flows.get("size", [])
    return [float(fct[i]) for i in in_window(flows, measure)
            if done[i] and fct[i] is not None and (bucket is None or size_bucket(float(size[i])) == bucket)]


def offered_load(flows: dict[str, list[Any]], lo_us: float, hi_us: float, hosts: int, host_gbps: float) -> float:
    """Bytes of the flows that start in [lo, hi) µs / (hosts x host link rate x (hi − lo)):
    the load the window actually offers, against the nominal one."""
    if hi_us <= lo_us or hosts <= 0:
        return math.nan
    size = flows.get("size", [])
    nbytes = sum(float(size[i]) for i in in_window(flows, (lo_us, hi_us)))
    return nbytes * 8 / (hosts * host_gbps * 1e9 * (hi_us - lo_us) * 1e-6)


@dataclass
class Cell(cells.Cell):
    """A run of one experiment; ``point`` and ``variant`` (its scheme) are its :class:`Run`'s."""

    run: Run = field(default=Run("", "", ()), repr=False)

    label_formats = ("<2", ">16", "<14")
    variant_name = "scheme"

    @classmethod
    def of(cls, exp: str, run: Run, seed: int, spec: dict[str, Any]) -> Cell:
        return cls(exp, run.point, run.scheme, seed, spec, run=run)

    @property
    def scheme(self) -> str:
        return self.variant


_FLOW_COLUMNS = ("src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us", "finished", "retransmits",
                 "reordered")
CAP_US = 2_000_000.0  # a run stops unfinished after 2 s of simulated time (the artefact: 15 s)
SUMMARY_VERSION = "laps-2"  # 2: records keep the reorder-buffer histogram (summarize)


def _workload_with_load(spec: dict[str, Any], load: float) -> None:
    """Set the All2all load; above the core's limit of 1 the workload is split in equal
    halves on the same hosts (two independent Poisson processes add up)."""
    w = spec["workload"][0]
    if load <= 1.0:
        w["load"] = load
        return
    w["load"] = load / 2
    twin = copy.deepcopy(w)
    twin["tag"] = f"{w.get('tag', 'all2all')}_2"
    spec["workload"].append(twin)


def select_schemes(run_list: list[Run], schemes: Optional[Sequence[str]]) -> list[Run]:
    """The runs of ``schemes`` only (all when None). ``PLB_W`` (PLB over the window DCTCP,
    the pairing before the rate-based DCTCP) is in no default list: asking for it adds a
    twin of every PLB run with that pairing."""
    if schemes is None:
        return run_list
    allowed = [*SCHEMES, *(beta_variant(b)[0] for b in BETAS)]
    unknown = [s for s in schemes if s not in allowed]
    if unknown:
        raise ValueError(f"schemes: unknown {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")
    out = []
    for run in run_list:
        if run.scheme in schemes:
            out.append(run)
        if run.scheme == PLB and PLB_W in schemes:
            rest = run.overrides[len(SCHEMES[PLB]):]
            out.append(replace(run, scheme=PLB_W, overrides=SCHEMES[PLB_W] + rest))
    return out


def build_cells(exps: Sequence[str], seeds: int, quick: bool, exp_dir: Path, fingerprint: str,
                flows_dir: Optional[Path] = None, llm_bytes: Optional[int] = None,
                schemes: Optional[Sequence[str]] = None) -> list[Cell]:
    """Every run of the selected experiments for seeds 1..``seeds`` (of ``schemes`` only,
    when given: see :func:`select_schemes`). E5/E6 flow files go to ``flows_dir`` (default
    ``<exp_dir>/../../results/reproduce-laps/flows``)."""
    from dcnsim._scenario import load_scenario

    size = llm_bytes or (QUICK_LLM_BYTES if quick else LLM_BYTES)
    window = LLM_WINDOW_US * size / LLM_BYTES  # the same start spread relative to the drain
    flows_dir = flows_dir or Path("results") / "reproduce-laps" / "flows"
    out = []
    for key in exps:
        e = EXPERIMENTS[key]
        runs = {"E5": e5_runs, "E6": e6_runs}.get(key)
        run_list = select_schemes(runs(quick) if runs else a2a_runs(e, quick), schemes)
        for run in run_list:
            for seed in range(1, seeds + 1):
                spec, _ = load_scenario(exp_dir / e.toml, [*run.overrides, f"seed={seed}"])
                key_spec = spec
                if e.artefact_load:
                    _workload_with_load(spec, artefact_load(e, run.load))
                if run.pattern:
                    text = llm_csv(llm_flows(run.pattern, seed, size, window))
                    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                    path = flows_dir / f"{run.pattern}_{size // 1000}KB_seed{seed}_{digest}.csv"
                    if not path.is_file():
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_text(text)
                    spec["workload"][0]["file"] = str(path.resolve())
                    key_spec = copy.deepcopy(spec)
                    key_spec["workload"][0]["file"] = f"sha256:{digest}"
                cell = Cell.of(key, run, seed, spec)
                out.append(cell.keyed(fingerprint, _FLOW_COLUMNS, SUMMARY_VERSION, key_spec=key_spec))
    return out


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class RunResult(cells.RunResult[Cell]):
    @property
    def cell_size(self) -> int:
        """The largest flow's size (the LLM runs' flow size)."""
        return int(max((float(x) for x in self.flows.get("size", [])), default=0))

    def fcts_us(self, bucket: Optional[str] = None) -> list[float]:
        """FCTs of the finished flows that count: those that start in the run's measurement
        window (every flow without one), of one size bucket when given."""
        return window_fcts_us(self.flows, self.cell.run.measure, bucket)

    def bucket_avg_ms(self, bucket: str) -> float:
        xs = self.fcts_us(bucket)
        return sum(xs) / len(xs) / 1e3 if xs else math.nan

    def bucket_p99_ms(self, bucket: str) -> float:
        return p99_artefact(self.fcts_us(bucket)) / 1e3

    def measured(self) -> int:
        """Flows that start in the measurement window (finished or not)."""
        return len(in_window(self.flows, self.cell.run.measure))

    def offered_load(self) -> float:
        """The load offered in the measurement window (the arrival window without one),
        a fraction of the experiment's hosts x host link rate."""
        e = EXPERIMENTS.get(self.cell.exp)
        if e is None:
            return math.nan
        lo, hi = self.cell.run.measure or (0.0, self.cell.run.window_us)
        return offered_load(self.flows, lo, hi, e.hosts, e.host_gbps)

    def quiet(self) -> bool:
        """No congestion signal in the whole run: 0 ECN marks (core stat ``ecn_marks``)
        and 0 PFC pause frames (``pfc_pause_frames``)."""
        return self.stat("ecn_marks") == 0 and self.stat("pfc_pause_frames") == 0

    def avg_ms(self) -> float:
        xs = self.fcts_us()
        return sum(xs) / len(xs) / 1e3 if xs else math.nan

    def p99_ms(self) -> float:
        return p99_artefact(self.fcts_us()) / 1e3

    def makespan_ms(self) -> float:
        """Last finish − first start (NaN while a flow is unfinished): for the incast, the
        time the receiver link took for every byte."""
        f = self.flows
        if not f.get("finished") or not all(f["finished"]):
            return math.nan
        return (max(float(x) for x in f["finish_us"]) - min(float(x) for x in f["start_us"])) / 1e3

    def stalled(self) -> bool:
        """Events ran out with flows unfinished (not the time cap): a PFC deadlock."""
        done, n = self.finished()
        return not self.error and done < n and not self.record.get("capped")

    def capped(self) -> bool:
        done, n = self.finished()
        return not self.error and done < n and bool(self.record.get("capped"))

    def repaths_per_flow(self) -> float:
        """Path changes per flow of a flow-level balancer: LetFlow's and CONGA's flowlets
        after each flow's first, ConWeave's reroutes, PLB's re-paths; NaN for the others.
        A flow that never sent (a capped run) has no first flowlet, hence the floor at 0."""
        n = self.finished()[1]
        if not n:
            return math.nan
        scheme = self.cell.scheme.removesuffix(DCQCN_PAPER)
        if scheme in (LETFLOW, CONGA):
            return max(0.0, self.stat(f"{scheme.lower()}_flowlets") - n) / n
        if scheme == CONWEAVE:
            return self.stat("conweave_reroutes") / n
        if scheme in (PLB, PLB_W):
            return (self.stat("plb_idle_repaths") + self.stat("plb_forced_repaths")) / n
        return math.nan

    def reordered_ratio(self) -> float:
        d = self.stat("data_packets")
        return self.stat("reordered_packets") / d if d and d > 0 else math.nan

    def p99_size_ideal_us(self) -> float:
        """The ideal FCT of the P99-size flow (B4): of the flows whose size is closest to
        the 99th percentile of sizes, the core's ideal FCT."""
        sizes = [float(s) for s in self.flows.get("size", [])]
        ideals = self.flows.get("ideal_fct_us", [])
        if not sizes:
            return math.nan
        target = sorted(sizes)[min(len(sizes) - 1, int(0.99 * len(sizes)))]
        best = min(range(len(sizes)), key=lambda i: abs(sizes[i] - target))
        return float(ideals[best]) if ideals[best] is not None else math.nan


def evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    return RunResult(cell, record)


class Grid(cells.Grid[RunResult]):
    """One experiment's results; :meth:`runs` leaves out the failed ones."""

    exp: Experiment

    @property
    def schemes(self) -> list[str]:
        return self.variants

    def runs(self, point: str, variant: str) -> list[RunResult]:
        """The runs of (point, scheme) that neither failed nor stalled: a stalled run (a PFC
        deadlock) is counted by :meth:`stalled` and kept out of every median."""
        return [r for r in super().runs(point, variant) if not r.stalled()]

    def stalled(self, point: str, scheme: str) -> tuple[int, int]:
        """(stalled runs, runs without an error) of (point, scheme): the deadlocked seeds."""
        rs = [r for r in self.results if r.cell.point == point and r.cell.variant == scheme and not r.error]
        return sum(r.stalled() for r in rs), len(rs)

    def med(self, point: str, scheme: str, metric: Callable[[RunResult], float]) -> float:
        return median([metric(r) for r in self.runs(point, scheme)])

    def quiet(self, point: str, scheme: str) -> bool:
        """Median ECN marks and median PFC pauses over the seeds both 0: a cell without a
        congestion signal, which cannot judge a balancer."""
        rs = self.runs(point, scheme)
        return bool(rs) and median([r.stat("ecn_marks") for r in rs]) == 0 and median(
            [r.stat("pfc_pause_frames") for r in rs]) == 0

    def loads(self) -> list[float]:
        return sorted({r.cell.run.load for r in self.results if math.isfinite(r.cell.run.load)})

    def point_of_load(self, load: float) -> str:
        return f"load {load:.2f}"

    def by_load(self, scheme: str, metric: Callable[[RunResult], float]) -> dict[float, float]:
        return {x: self.med(self.point_of_load(x), scheme, metric) for x in self.loads()}


def avg_fct_ms(r: RunResult) -> float:
    return r.avg_ms()


def p99_fct_ms(r: RunResult) -> float:
    return r.p99_ms()


def summarize(sim: Any) -> dict[str, Any]:
    """What a run keeps beyond its counters: LAPS's reorder-buffer histogram (samples by
    KB held, Fig. 9); nothing for the schemes without one."""
    h = sim.ooo_histogram_kb()
    return {"ooo_histogram_kb": list(h)} if h is not None else {}


def _ooo_total(runs: Sequence[RunResult]) -> list[int]:
    total: list[int] = []
    for r in runs:
        for kb, n in enumerate((r.record.get("extra") or {}).get("ooo_histogram_kb") or []):
            if kb >= len(total):
                total.extend([0] * (kb + 1 - len(total)))
            total[kb] += int(n)
    return total


def ooo_histogram(runs: Sequence[RunResult]) -> tuple[list[float], list[float]]:
    """The reorder-buffer occupancy's histogram over ``runs`` pooled: (KB bucket, fraction
    of the samples in it) for every non-empty bucket; empty without histograms (Fig. 9)."""
    total = _ooo_total(runs)
    n = sum(total)
    if n == 0:
        return [], []
    pairs = [(float(kb), c / n) for kb, c in enumerate(total) if c]
    return [x for x, _ in pairs], [y for _, y in pairs]


def ooo_cdf(runs: Sequence[RunResult]) -> tuple[list[float], list[float]]:
    """The reorder-buffer occupancy's CDF over ``runs`` pooled (their histograms summed):
    (KB, P(buffer ≤ KB)) at each KB up to the largest seen; empty without histograms."""
    total = _ooo_total(runs)
    n = sum(total)
    if n == 0:
        return [], []
    xs, ys, acc = [], [], 0
    for kb, c in enumerate(total):
        acc += c
        xs.append(float(kb))
        ys.append(acc / n)
    return xs, ys
