"""``dcnsim reproduce laps``: the simulated evaluation of the LAPS paper.

"LAPS: Joint Load Balancing and Congestion Control on Unequal-cost Multi-path Data Center
Networks" (Wan et al., NAIC '25; seed paper ``004``), following the spec ``laps.md``: §4
the fabrics, §5 the experiments, §6 the paper's numbers, §7 checks B1-B9, §8 the
conflicts between the paper and its artefact. This harness runs

- E1, E2 (Figs. 5, 6; B3, B4, B6): All2all on the 64-GPU rail fabric, DM and STR flow sizes,
  avg and P99 FCT against load;
- E3, E4 (Figs. 7, 8; B5, B6): All2all on the 144-host dragonfly, RPC and HDP;
- E5 (Table 1; B1, B2, B6, B9): the 63 -> 1 AllReduce incast of 64 MB flows, with and
  without 1e-6 random loss;
- E6 (Fig. 9; B7, B8, B9): LAPS's reordering and receiver OOO buffer under AllScatter
  (1 -> 63) and AllReduce, against RPS (LAPS with beta = 0) and a beta sweep of the
  artefact's softmax;
- AL: the artefact's load definition (spec §8.8: the x1/100 of its percent-scale CDFs,
  the dragonfly's 1.30 per-pair factor) on E2-E4 at nominal 0.8, against the paper's.

Schemes (spec §3): LAPS in the paper's variant (the default, as the issue asks wherever
paper and artefact conflict) and in the artefact's ("LAPS [A]"), ECMP, LetFlow and CONGA
and ConWeave over DCQCN, PLB over DCTCP, all five with go-back-N, and RPS in E5/E6. ECMP,
LetFlow and PLB route over the LAPS candidate paths hop by hop (``lb_paths =
"candidates"``, spec §3.1), CONGA picks one of the same candidate paths per flowlet at the
source (spec §3.4), ConWeave moves a flow to another of them when an RTT reply is late and
reorders at the destination (spec §3.5).

Every (experiment, point, scheme, seed) is one run of a scenario in ``experiments/laps/``
with ``--set`` style overrides; the pool, the cache and Ctrl-C handling are shared with
the other reproductions (``dcnsim._repro``). The LLM flow files (63 Poisson start times
per seed) are written by the harness into ``<out>/flows/``; a cell's cache key hashes the
file's content, not its path. Results: ``table.md`` (also printed), ``runs.csv`` and PNG
figures. The metric functions (:func:`p99_artefact`, :func:`median`, :func:`llm_flows`,
:func:`ideal_incast_ms`, :func:`growth`) are plain Python, unit-tested on hand-computed
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

from dcnsim._repro import (
    Headline,
    Outcome,
    Reproduction,
    drive,
    find_experiments,
    grouped_bars,
    headline_table,
    pad_rows,
    per_experiment,
    png,
    run_key,
    select_keys,
)

MB = 1_000_000
LLM_BYTES = 64 * MB  # LLaMA-2-7B gradient, 64,000,000 B per flow (spec §5.1)
LLM_WINDOW_US = 10_000.0  # the 63 start times: one Poisson process of rate 63 per 10 ms
HOST_GBPS_RAIL = 200.0  # GPU links (spec §4.2, §8.7)
PAYLOAD = 1000  # bytes per 1048-byte packet
HEADER = 48

# ---------------------------------------------------------------------------------------
# Metrics


def median(xs: Sequence[float]) -> float:
    """Median of the finite values (the spec's statistic over seeds); NaN for none."""
    v = [float(x) for x in xs if x is not None and math.isfinite(float(x))]
    return statistics.median(v) if v else math.nan


def p99_artefact(xs: Sequence[float]) -> float:
    """The artefact's P99: element floor(0.99 n) of the sorted values (spec §5.5); NaN for
    none. For 63 flows that is the largest."""
    v = sorted(float(x) for x in xs if x is not None and math.isfinite(float(x)))
    if not v:
        return math.nan
    return v[min(len(v) - 1, int(0.99 * len(v)))]


def growth(points: dict[float, float], lo: float = 0.5, hi: float = 1.0) -> float:
    """avgFCT(hi) − avgFCT(lo) (spec §5.5); NaN when either load is missing."""
    a, b = points.get(lo, math.nan), points.get(hi, math.nan)
    return b - a


def ideal_incast_ms(senders: int, size: int, gbps: float = HOST_GBPS_RAIL, wire: bool = False) -> float:
    """Time for ``senders`` flows of ``size`` payload bytes through one receiver link of
    ``gbps``: the spec's 63 x 64 MB x 8 / 200 Gb/s = 161.3 ms (payload), or with
    ``wire`` the 1048-byte packets of 1000 payload bytes."""
    nbytes = senders * size
    if wire:
        nbytes = senders * (math.ceil(size / PAYLOAD) * HEADER + size)
    return nbytes * 8 / (gbps * 1e9) * 1e3


def llm_flows(pattern: str, seed: int, size: int, window_us: float, gpus: int = 64, gpu: int = 0
              ) -> list[tuple[int, int, int, float]]:
    """The E5/E6 flows (src, dst, bytes, start µs): ``allreduce`` = every other GPU to
    ``gpu``, ``allscatter`` = ``gpu`` to every other; the start times one Poisson process
    of rate (gpus − 1) per ``window_us`` (spec §5.3), drawn from a generator seeded by the
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
# Schemes (spec §3; README "Schemes")

LAPS_P = "LAPS"  # the paper's variant (default)
LAPS_A = "LAPS [A]"  # the artefact's
ECMP = "ECMP"
LETFLOW = "LetFlow"
PLB = "PLB"
PLB_W = "PLB [window DCTCP]"
RPS = "RPS"
CONGA = "CONGA"
CONWEAVE = "ConWeave"
BASELINES = (ECMP, LETFLOW, CONGA, CONWEAVE, PLB)
LAPS_VARIANTS = (LAPS_P, LAPS_A)

# The paper's LAPS (spec §8.1-§8.5): Eq. 1 on raw latencies (in µs: in ns, beta = 1 is a
# strict argmin), one 2T gate and a half-gap step, per-path staleness 2 x its own latency
# with doubling while a probe is out, no window. The artefact's is the core's default.
PAPER_LAPS = '{ latency_scale = "raw_us", gate = "paper", probe = "paper", window = false }'
# CONGA with the artefact's parameters (spec §3.4): flowlet gap 10 µs, DRE period 200 µs,
# decay 0.2, 3-bit metric, feedback forgotten after 10 ms (the core's defaults, spelled out
# so that a change of default cannot move these numbers unnoticed).
CONGA_PARAMS = ('{ flowlet_timeout = "10us", dre_period = "200us", dre_decay = 0.2, metric_bits = 3, '
                'table_aging = "10ms" }')
# ConWeave with the artefact's parameters (spec §3.5), spelled out likewise: reply deadline
# the path's unloaded RTT + 80 ns, reorder queue released 32 µs after its TAIL was due (or
# after 200 µs when that is unknown), 10 µs inactivity expiry, 4 µs NOTIFY pause.
CONWEAVE_PARAMS = ('{ reply_deadline_extra = "80ns", voq_flush_slack = "32us", voq_wait = "200us", '
                   'tx_inactivity = "10us", path_pause = "4us" }')
# PLB's DCTCP (spec §3.8 [A]): the rate-based variant of the HPCC/ConWeave NIC code, g = 1/256,
# +1 Gb/s per batch, the NIC's 100 Mb/s minimum rate and the unified one-BDP in-flight window
# that the same NIC configuration applies to every rate-based algorithm (spec §3.7).
DCTCP_RATE = '{ g = 0.00390625, rate_ai = "1Gbps", min_rate = "100Mbps", window = "bdp" }'
# ECMP, LetFlow and PLB on the union of the LAPS candidate paths, chosen hop by hop (spec
# §3.1, the artefact's; the core's default, spelled out for the same reason).
CANDIDATES = "transport.lb_paths=candidates"
SCHEMES: dict[str, tuple[str, ...]] = {
    LAPS_P: ("transport.cc=laps", "transport.lb=laps", f"transport.laps={PAPER_LAPS}"),
    LAPS_A: ("transport.cc=laps", "transport.lb=laps", "transport.laps={}"),
    ECMP: ("transport.cc=dcqcn", "transport.lb=ecmp", CANDIDATES, "transport.loss_recovery=go_back_n"),
    LETFLOW: ("transport.cc=dcqcn", "transport.lb=letflow", CANDIDATES, "transport.loss_recovery=go_back_n"),
    CONGA: ("transport.cc=dcqcn", "transport.lb=conga", f"transport.conga={CONGA_PARAMS}",
            "transport.loss_recovery=go_back_n"),
    CONWEAVE: ("transport.cc=dcqcn", "transport.lb=conweave", f"transport.conweave={CONWEAVE_PARAMS}",
               "transport.loss_recovery=go_back_n"),
    PLB: ("transport.cc=dctcp", "transport.lb=plb", CANDIDATES, "transport.loss_recovery=go_back_n",
          "transport.dctcp.variant=rate", f"transport.dctcp.rate={DCTCP_RATE}"),
    # The pairing before 22 Nov 2026: dcnsim's window DCTCP (g = 1/256), which spec §3.8 [I]
    # allows; not in the default scheme lists, run it with ``schemes=``.
    PLB_W: ("transport.cc=dctcp", "transport.lb=plb", CANDIDATES, "transport.loss_recovery=go_back_n",
            "transport.dctcp.variant=window"),
    # RPS: the paper's LAPS with beta = 0, i.e. uniform spraying under the same CC (spec §3.9).
    RPS: ("transport.cc=laps", "transport.lb=laps", f"transport.laps={PAPER_LAPS[:-2]}, beta = 0 }}"),
}


def beta_variant(beta: float) -> tuple[str, tuple[str, ...]]:
    """LAPS [A] with softmax sharpness ``beta`` (the B7 sweep, spec §7 B7 caveat)."""
    return f"{LAPS_A} β={beta:g}", ("transport.cc=laps", "transport.lb=laps", f"transport.laps={{ beta = {beta} }}")


A2A_SCHEMES = (LAPS_P, LAPS_A, ECMP, LETFLOW, CONGA, CONWEAVE, PLB)
E5_SCHEMES = (LAPS_P, LAPS_A, ECMP, LETFLOW, CONGA, CONWEAVE, PLB, RPS)
BETAS = (2.0, 5.0, 10.0, 30.0)
QUICK_BETAS = (5.0,)

# ---------------------------------------------------------------------------------------
# Experiments

LOADS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # the paper's 11 points 0.50, 0.55, ... halved
QUICK_LOADS = (0.5, 0.8, 1.0)
LOSS = 1e-6  # the paper's 0.0001 %, here per switch-to-switch link crossed
# Spec §8.12: the artefact snapshot drops with probability about 1e-5 at every link receive
# (host links and ACKs included). Full E5 runs it as a third point, to see whether the
# artefact's heavier loss explains the baselines' B2 numbers.
LOSS_A = 1e-5
E5_POINT_A = f"drop {LOSS_A:g} every link [A]"
QUICK_LLM_BYTES = 8 * MB
ARTEFACT_PAIR_FACTOR = 0.0091 * 143  # the dragonfly's per-pair factor (spec §5.3, §8.8): 1.30
ARTEFACT_PERCENT_SCALE = 0.01  # the artefact's un-normalised percent-scale CDFs (spec §8.8)


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
    percent_cdf: bool = False  # the artefact's CDF file is percent-scale (spec §5.1)
    dragonfly: bool = False


EXPERIMENTS: dict[str, Experiment] = {e.key: e for e in [
    Experiment("E1", "rail_all2all.toml", "Rail, DM (VL2 data mining), All2all", "Fig. 5", "B3, B6",
               "../../workloads/datamining.cdf", "DM", 5_000.0, 500.0),
    Experiment("E2", "rail_all2all.toml", "Rail, STR (Alibaba storage 2019), All2all", "Fig. 6", "B4",
               "../../workloads/alistorage2019.cdf", "STR", 2_000.0, 200.0, percent_cdf=True),
    Experiment("E3", "dragonfly_all2all.toml", "Dragonfly, RPC (Google RPC 2008), All2all", "Fig. 7", "B5, B6",
               "../../workloads/googlerpc2008.cdf", "RPC", 500.0, 40.0, percent_cdf=True, dragonfly=True),
    Experiment("E4", "dragonfly_all2all.toml", "Dragonfly, HDP (Facebook Hadoop 2015), All2all", "Fig. 8", "B5, B6",
               "../../workloads/hadoop_fb2015.cdf", "HDP", 2_000.0, 200.0, percent_cdf=True, dragonfly=True),
    Experiment("E5", "rail_llm.toml", "Rail, LLM 64 MB, AllReduce (63 -> 1 incast)", "Table 1", "B1, B2, B6, B9"),
    Experiment("E6", "rail_llm.toml", "Rail, LLM 64 MB, AllScatter (1 -> 63) and AllReduce: reordering", "Fig. 9",
               "B7, B8, B9"),
    Experiment("AL", "rail_all2all.toml", "the artefact's load definition on E2-E4 at nominal 0.8", "spec §8.8",
               "(B4, B5 context)"),
]}
A2A = ("E1", "E2", "E3", "E4")
AL_LOAD = 0.8


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
    source: str = ""  # AL: which All2all experiment


def a2a_runs(e: Experiment, quick: bool) -> list[Run]:
    window = e.quick_window_us if quick else e.window_us
    out = []
    for load in (QUICK_LOADS if quick else LOADS):
        for s in A2A_SCHEMES:
            out.append(Run(f"load {load:.2f}", s, SCHEMES[s] + (
                f'workload.0.cdf="{e.cdf}"', f"workload.0.load={load}", f'workload.0.stop="{window:g}us"'), load))
    return out


def e5_runs(quick: bool) -> list[Run]:
    out = [Run(f"drop {loss:g}", s, SCHEMES[s] + (f"topology.loss_rate={loss}",), loss=loss, pattern="allreduce")
           for loss in (0.0, LOSS) for s in E5_SCHEMES]
    if not quick:
        out += [Run(E5_POINT_A, s, SCHEMES[s] + (f"topology.loss_rate={LOSS_A}", 'topology.loss_links="all"'),
                    loss=LOSS_A, pattern="allreduce") for s in E5_SCHEMES]
    return out


def e6_runs(quick: bool) -> list[Run]:
    out = []
    for pattern in ("allscatter", "allreduce"):
        variants = [(s, SCHEMES[s]) for s in (LAPS_P, LAPS_A, RPS)]
        if pattern == "allscatter":
            variants += [beta_variant(b) for b in (QUICK_BETAS if quick else BETAS)]
        for label, ov in variants:
            out.append(Run(pattern, label, ov + ("topology.loss_rate=0.0",), pattern=pattern))
    return out


def al_runs(quick: bool) -> list[Run]:
    """E2-E4 at nominal 0.8 under the artefact's load: x1/100 for the percent-scale CDFs,
    x1.30 on the dragonfly (two half workloads when it exceeds the core's load ≤ 1)."""
    out = []
    for key in ("E2", "E3", "E4"):
        e = EXPERIMENTS[key]
        window = e.quick_window_us if quick else e.window_us
        for s in A2A_SCHEMES:
            out.append(Run(f"{key} {e.workload} 0.80", s, SCHEMES[s] + (
                f'workload.0.cdf="{e.cdf}"', f'workload.0.stop="{window:g}us"'), AL_LOAD, source=key))
    return out


def artefact_load(e: Experiment, load: float) -> float:
    """The load the artefact actually offers at nominal ``load`` (spec §8.8)."""
    x = load
    if e.percent_cdf:
        x *= ARTEFACT_PERCENT_SCALE
    if e.dragonfly:
        x *= ARTEFACT_PAIR_FACTOR
    return x


@dataclass
class Cell:
    exp: str
    run: Run
    seed: int
    spec: dict[str, Any] = field(repr=False)
    key: str = ""

    @property
    def point(self) -> str:
        return self.run.point

    @property
    def scheme(self) -> str:
        return self.run.scheme

    def progress_label(self) -> str:
        return f"{self.exp:<2} {self.point:>16} {self.scheme:<14} seed {self.seed:<2}"

    def cache_meta(self) -> dict[str, Any]:
        return {"experiment": self.exp, "point": self.point, "scheme": self.scheme, "seed": self.seed}


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
    cells = []
    for key in exps:
        e = EXPERIMENTS[key]
        runs = {"E5": e5_runs, "E6": e6_runs, "AL": al_runs}.get(key)
        run_list = select_schemes(runs(quick) if runs else a2a_runs(e, quick), schemes)
        for run in run_list:
            toml = EXPERIMENTS[run.source].toml if run.source else e.toml
            for seed in range(1, seeds + 1):
                spec, _ = load_scenario(exp_dir / toml, [*run.overrides, f"seed={seed}"])
                key_spec = spec
                if run.source:
                    _workload_with_load(spec, artefact_load(EXPERIMENTS[run.source], run.load))
                    key_spec = spec
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
                cell = Cell(key, run, seed, spec)
                cell.key = run_key(key_spec, f"{fingerprint}|{','.join(_FLOW_COLUMNS)}|{SUMMARY_VERSION}")
                cells.append(cell)
    return cells


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class RunResult:
    cell: Cell
    record: dict[str, Any]

    @property
    def error(self) -> Optional[str]:
        return self.record.get("error")

    @property
    def flows(self) -> dict[str, list[Any]]:
        return self.record.get("flows") or {}

    @property
    def cell_size(self) -> int:
        """The largest flow's size (the LLM runs' flow size)."""
        return int(max((float(x) for x in self.flows.get("size", [])), default=0))

    def stat(self, name: str) -> float:
        v = (self.record.get("stats") or {}).get(name)
        return float(v) if v is not None else math.nan

    def finished(self) -> tuple[int, int]:
        f = self.flows.get("finished", [])
        return sum(1 for x in f if x), len(f)

    def fcts_us(self) -> list[float]:
        f = self.flows
        return [float(x) for x, done in zip(f.get("fct_us", []), f.get("finished", [])) if done and x is not None]

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
        if self.cell.scheme in (LETFLOW, CONGA):
            return max(0.0, self.stat(f"{self.cell.scheme.lower()}_flowlets") - n) / n
        if self.cell.scheme == CONWEAVE:
            return self.stat("conweave_reroutes") / n
        if self.cell.scheme in (PLB, PLB_W):
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


class Grid:
    def __init__(self, exp: Experiment, results: list[RunResult]) -> None:
        self.exp = exp
        self.results = results
        self.points = list(dict.fromkeys(r.cell.point for r in results))
        self.schemes = list(dict.fromkeys(r.cell.scheme for r in results))
        self.seeds = len({r.cell.seed for r in results})

    def runs(self, point: str, scheme: str) -> list[RunResult]:
        return [r for r in self.results if r.cell.point == point and r.cell.scheme == scheme and not r.error]

    def med(self, point: str, scheme: str, metric: Callable[[RunResult], float]) -> float:
        return median([metric(r) for r in self.runs(point, scheme)])

    def loads(self) -> list[float]:
        return sorted({r.cell.run.load for r in self.results if math.isfinite(r.cell.run.load)})

    def point_of_load(self, load: float) -> str:
        return f"load {load:.2f}"

    def by_load(self, scheme: str, metric: Callable[[RunResult], float]) -> dict[float, float]:
        return {x: self.med(self.point_of_load(x), scheme, metric) for x in self.loads()}


def _avg(r: RunResult) -> float:
    return r.avg_ms()


def _p99(r: RunResult) -> float:
    return r.p99_ms()


# ---------------------------------------------------------------------------------------
# Checks (spec §7 B1-B9)


@dataclass
class Check:
    id: str
    name: str
    ours: str
    target: str
    status: str  # holds / fails / not run
    why: str = ""


def _f(x: float, spec: str = ".3f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _status(ok: Optional[bool]) -> str:
    return "not run" if ok is None else ("holds" if ok else "fails")


def _finite(*xs: float) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def _missing(g: Optional[Grid], key: str) -> str:
    return f"{key} not selected" if g is None else "no finished runs"


def _e5_point(loss: float) -> str:
    return f"drop {loss:g}"


def checks_b1(g: Optional[Grid], laps: str, scale: float) -> list[Check]:
    """B1 with the paper's bands scaled by flow size / 64 MB (1 at full size)."""
    lo, hi = 155 * scale, 180 * scale
    names = (f"E5 {laps}: avg FCT in [{lo:.4g}, {hi:.4g}] ms; P99 ≤ 1.15 x avg",
             "E5 ECMP, LetFlow, CONGA, ConWeave: avg ≥ 2.5 x LAPS",
             "E5 PLB avg / LAPS avg in [1.1, 1.8]")
    if g is None:
        return [Check("B1", n, "-", "", "not run", "E5 not selected") for n in names]
    p = _e5_point(0.0)
    la, lp = g.med(p, laps, _avg), g.med(p, laps, _p99)
    ok = None if not _finite(la, lp) else (lo <= la <= hi and lp <= 1.15 * la)
    ideal = ideal_incast_ms(63, round(LLM_BYTES * scale))
    out = [Check("B1", names[0], f"avg {_f(la, '.2f')}, P99 {_f(lp, '.2f')} ms (ideal {ideal:.2f})",
                 f"paper {162 * scale:.4g} / {175 * scale:.4g} ms", _status(ok))]
    ratios = {b: g.med(p, b, _avg) / la if _finite(la) and la > 0 else math.nan
              for b in (ECMP, LETFLOW, CONGA, CONWEAVE)}
    ok = None if not all(_finite(x) for x in ratios.values()) else all(x >= 2.5 for x in ratios.values())
    out.append(Check("B1", names[1], ", ".join(f"{b} {_f(x, '.2f')}x" for b, x in ratios.items()),
                     "≥ 2.5x (paper 3.3-3.5x)", _status(ok)))
    r = g.med(p, PLB, _avg) / la if _finite(la) and la > 0 else math.nan
    out.append(Check("B1", names[2], f"{_f(r, '.2f')}x", "1.1-1.8x (paper 1.30x)",
                     _status(None if not _finite(r) else 1.1 <= r <= 1.8)))
    return out


def _change(g: Grid, scheme: str, metric: Callable[[RunResult], float]) -> float:
    a, b = g.med(_e5_point(0.0), scheme, metric), g.med(_e5_point(LOSS), scheme, metric)
    return b / a - 1 if _finite(a, b) and a > 0 else math.nan


def checks_b2(g: Optional[Grid], laps: str) -> list[Check]:
    names = (f"E5 {laps} with 1e-6 loss: avg and P99 change", "E5 go-back-N baselines with loss: avg change")
    if g is None:
        return [Check("B2", n, "-", "", "not run", "E5 not selected") for n in names]
    ca, cp = _change(g, laps, _avg), _change(g, laps, _p99)
    ok = None if not _finite(ca, cp) else (abs(ca) < 0.03 and abs(cp) < 0.03)
    out = [Check("B2", names[0], f"avg {ca * 100:+.2f} %, P99 {cp * 100:+.2f} %" if _finite(ca, cp) else "n/a",
                 "< 3 % each (paper +0 %)", _status(ok))]
    ch = {b: _change(g, b, _avg) for b in BASELINES}
    ok = None if not all(_finite(x) for x in ch.values()) else (
        all(x >= 0 for x in ch.values()) and any(x > 0.05 for x in ch.values()))
    out.append(Check("B2", names[1], ", ".join(f"{b} {x * 100:+.1f} %" for b, x in ch.items()),
                     "all ≥ 0 %, one > 5 % (paper ECMP +2.8, PLB +3.8, ConWeave +8.3 %)", _status(ok)))
    return out


def checks_b3(g: Optional[Grid], laps: str) -> list[Check]:
    names = (f"E1 {laps}: lowest avg FCT at every load", "E1 at 0.8: ECMP / LAPS and PLB / LAPS avg FCT",
             "E1 growth of avg FCT 0.5 -> 1.0: LAPS smallest and < 0.5 x ECMP's")
    if g is None:
        return [Check("B3", n, "-", "", "not run", "E1 not selected") for n in names]
    la = g.by_load(laps, _avg)
    base = {b: g.by_load(b, _avg) for b in BASELINES}
    lost = [x for x in g.loads() if not all(_finite(la[x], base[b][x]) and la[x] < base[b][x] for b in BASELINES)]
    ok = None if not g.loads() else not lost
    out = [Check("B3", names[0], "every load" if not lost else "not at " + ", ".join(f"{x:.2f}" for x in lost),
                 "every load 0.5-1.0", _status(ok),
                 "" if not lost else "best at those loads: " + ", ".join(
                     f"{x:.2f} {min(BASELINES, key=lambda b: base[b][x] if _finite(base[b][x]) else math.inf)}"
                     for x in lost))]
    r_e = base[ECMP].get(0.8, math.nan) / la.get(0.8, math.nan) if _finite(la.get(0.8, math.nan)) else math.nan
    r_p = base[PLB].get(0.8, math.nan) / la.get(0.8, math.nan) if _finite(la.get(0.8, math.nan)) else math.nan
    ok = None if not _finite(r_e, r_p) else (r_e >= 2.0 and r_p >= 1.2)
    out.append(Check("B3", names[1], f"ECMP {_f(r_e, '.2f')}x, PLB {_f(r_p, '.2f')}x",
                     "ECMP ≥ 2.0x (paper 3.3x), PLB ≥ 1.2x (paper 1.6x)", _status(ok)))
    gr = {s: growth(d) for s, d in [(laps, la)] + list(base.items())}
    ok = None if not all(_finite(x) for x in gr.values()) else (
        all(gr[laps] < gr[b] for b in BASELINES) and gr[laps] < 0.5 * gr[ECMP])
    out.append(Check("B3", names[2], ", ".join(f"{s} {_f(x, '+.3f')}" for s, x in gr.items()) + " ms",
                     "LAPS smallest, < 0.5 x ECMP (paper +0.64 vs +4.6 ms)", _status(ok)))
    return out


def checks_b4(g: Optional[Grid], laps: str) -> list[Check]:
    names = (f"E2 at 0.8: {laps} P99 lowest and ≤ 0.5 x every baseline's", f"E2 at 0.8: {laps} P99 / ideal FCT of "
             "the P99-size flow")
    if g is None or 0.8 not in g.loads():
        return [Check("B4", n, "-", "", "not run", _missing(g, "E2") if g is None else "no 0.8 point")
                for n in names]
    p = g.point_of_load(0.8)
    lp = g.med(p, laps, _p99)
    bp = {b: g.med(p, b, _p99) for b in BASELINES}
    ok = None if not _finite(lp, *bp.values()) else all(lp <= 0.5 * x for x in bp.values())
    out = [Check("B4", names[0], f"{laps} {_f(lp, '.3f')} ms; " + ", ".join(
        f"{b} {_f(x, '.3f')} ({_f(lp / x if _finite(x) and x else math.nan, '.2f')}x)" for b, x in bp.items()),
        "≤ 0.5x (paper 0.12 vs 0.48-0.85 ms, ≤ 0.25x)", _status(ok))]
    ideal = g.med(p, laps, lambda r: r.p99_size_ideal_us()) / 1e3
    r = lp / ideal if _finite(lp, ideal) and ideal > 0 else math.nan
    out.append(Check("B4", names[1], f"{_f(r, '.2f')}x (ideal {_f(ideal, '.3f')} ms)", "≤ 2x (paper 0.12 ms)",
                     _status(None if not _finite(r) else r <= 2.0)))
    return out


def checks_b5(grids: dict[str, Grid], laps: str) -> list[Check]:
    out = []
    for key in ("E3", "E4"):
        g = grids.get(key)
        name = f"{key} {laps}: lowest avg and P99 at all but ≤ 1 load; lowest mean over loads"
        if g is None:
            out.append(Check("B5", name, "-", "", "not run", f"{key} not selected"))
            continue
        loads = g.loads()
        wins = 0
        for x in loads:
            p = g.point_of_load(x)
            la, lp = g.med(p, laps, _avg), g.med(p, laps, _p99)
            if all(_finite(la, lp, g.med(p, b, _avg), g.med(p, b, _p99)) and la < g.med(p, b, _avg)
                   and lp < g.med(p, b, _p99) for b in BASELINES):
                wins += 1
        mean = {s: sum(g.by_load(s, _avg).values()) / len(loads) if loads else math.nan for s in (laps,) + BASELINES}
        ok_mean = _finite(*mean.values()) and all(mean[laps] < mean[b] for b in BASELINES)
        complete = bool(loads) and all(_finite(g.med(g.point_of_load(x), s, _avg)) for x in loads
                                       for s in (laps,) + BASELINES)
        ok = None if not complete else (wins >= len(loads) - 1 and ok_mean)
        out.append(Check("B5", name, f"lowest at {wins}/{len(loads)} loads; mean avg FCT " + ", ".join(
            f"{s} {_f(x, '.3f')}" for s, x in mean.items()) + " ms", "≥ 10 of 11 (ours: all but one of "
            f"{len(loads)}); lowest mean", _status(ok),
            "" if complete or not loads else f"{key} incomplete: not every scheme has runs at every load"))
    return out


def checks_b6(grids: dict[str, Grid]) -> list[Check]:
    ratios = []
    for key in A2A:
        g = grids.get(key)
        if g is None:
            continue
        for x in g.loads():
            p = g.point_of_load(x)
            a, b = g.med(p, LETFLOW, _avg), g.med(p, ECMP, _avg)
            if _finite(a, b) and b > 0:
                ratios.append((a / b, f"{key}@{x:.2f}"))
    g5 = grids.get("E5")
    if g5 is not None:
        a, b = g5.med(_e5_point(0.0), LETFLOW, _avg), g5.med(_e5_point(0.0), ECMP, _avg)
        if _finite(a, b) and b > 0:
            ratios.append((a / b, "E5"))
    out = []
    if ratios:
        lo, hi = min(ratios), max(ratios)
        ok = all(0.75 <= r <= 1.25 for r, _ in ratios)
        out.append(Check("B6", "LetFlow / ECMP avg FCT, every point of E1-E5", f"{lo[0]:.2f} ({lo[1]}) to "
                         f"{hi[0]:.2f} ({hi[1]})", "within 0.75-1.25", _status(ok)))
    else:
        out.append(Check("B6", "LetFlow / ECMP avg FCT", "-", "within 0.75-1.25", "not run", "no E1-E5 runs"))
    best = []
    g1 = grids.get("E1")
    if g1 is not None:
        for x in g1.loads():
            p = g1.point_of_load(x)
            vals = {b: g1.med(p, b, _avg) for b in BASELINES}
            best.append((f"E1@{x:.2f}", min(vals, key=lambda b: vals[b] if _finite(vals[b]) else math.inf)))
    if g5 is not None:
        vals = {b: g5.med(_e5_point(0.0), b, _avg) for b in BASELINES}
        best.append(("E5", min(vals, key=lambda b: vals[b] if _finite(vals[b]) else math.inf)))
    if best:
        not_plb = [f"{w}: {b}" for w, b in best if b != PLB]
        out.append(Check("B6", "PLB the best baseline (avg FCT) in E1 (every load) and E5",
                         "everywhere" if not not_plb else "not at " + ", ".join(not_plb),
                         "PLB best of ECMP, LetFlow, CONGA, ConWeave, PLB",
                         _status(not not_plb)))
    else:
        out.append(Check("B6", "PLB the best baseline in E1 and E5", "-", "PLB best", "not run", "E1, E5 not selected"))
    return out


def _one(g: Grid, point: str, scheme: str, metric: Callable[[RunResult], float]) -> float:
    return g.med(point, scheme, metric)


def checks_b7_b9(g6: Optional[Grid], g5: Optional[Grid], laps: str) -> list[Check]:
    out = []
    if g6 is None:
        return [Check(c, n, "-", "", "not run", "E6 not selected") for c, n in (
            ("B7", "AllScatter reordering"), ("B8", "AllReduce OOO buffer"), ("B9", "rate decreases"))]
    rr = _one(g6, "allscatter", laps, lambda r: r.reordered_ratio())
    oo = _one(g6, "allscatter", laps, lambda r: r.stat("ooo_buffer_mean_kb"))
    rr0 = _one(g6, "allscatter", RPS, lambda r: r.reordered_ratio())
    oo0 = _one(g6, "allscatter", RPS, lambda r: r.stat("ooo_buffer_mean_kb"))
    ok = None if not _finite(rr, oo, rr0, oo0) else (rr <= 0.02 and oo <= 1.0 and rr < rr0 and oo < oo0)
    why = ""
    if ok is False:
        passing = []
        for s in g6.schemes:
            a = _one(g6, "allscatter", s, lambda r: r.reordered_ratio())
            b = _one(g6, "allscatter", s, lambda r: r.stat("ooo_buffer_mean_kb"))
            if _finite(a, b) and a <= 0.02 and b <= 1.0:
                passing.append(s)
        why = ("variants that meet it: " + ", ".join(passing)) if passing else "no variant run meets it"
    out.append(Check("B7", f"E6 AllScatter {laps}: reordered ratio, mean OOO; vs RPS",
                     f"{_f(rr * 100, '.2f')} %, {_f(oo, '.3f')} KB; RPS {_f(rr0 * 100, '.2f')} %, {_f(oo0, '.3f')} KB",
                     "≤ 2 % and ≤ 1 KB, below RPS (paper 0.2 %, 0.003 KB)", _status(ok), why))
    mo = _one(g6, "allreduce", laps, lambda r: r.stat("ooo_buffer_mean_kb"))
    pa = _one(g6, "allreduce", laps, lambda r: r.stat("ooo_buffer_above_30kb"))
    ok = None if not _finite(mo, pa) else (mo < 16 and pa < 0.04)
    out.append(Check("B8", f"E6 AllReduce {laps}: mean OOO buffer, P(> 30 KB)", f"{_f(mo, '.2f')} KB, "
                     f"{_f(pa * 100, '.1f')} %", "< 16 KB and < 4 %", _status(ok)))
    dec_inc = _one(g6, "allreduce", laps, lambda r: r.stat("laps_rate_decreases"))
    dec_sc = _one(g6, "allscatter", laps, lambda r: r.stat("laps_rate_decreases") / max(1, r.finished()[1]))
    ok = None if not _finite(dec_inc, dec_sc) else (dec_inc > 0 and dec_sc < 1)
    out.append(Check("B9", f"{laps} rate decreases: AllReduce total; AllScatter per flow",
                     f"{_f(dec_inc, '.0f')}; {_f(dec_sc, '.2f')}", "> 0; < 1 per flow", _status(ok)))
    return out


def all_checks(grids: dict[str, Grid], quick: bool) -> list[tuple[str, list[Check]]]:
    """(LAPS variant, its checks B1-B9) for the paper's and the artefact's LAPS."""
    out = []
    g5 = grids.get("E5")
    scale = (g5.results[0].cell_size / LLM_BYTES) if g5 is not None and g5.results else (
        QUICK_LLM_BYTES / LLM_BYTES if quick else 1.0)
    for laps in LAPS_VARIANTS:
        cs = checks_b1(g5, laps, scale) + checks_b2(g5, laps) + checks_b3(grids.get("E1"), laps)
        cs += checks_b4(grids.get("E2"), laps) + checks_b5(grids, laps)
        if laps == LAPS_P:
            cs += checks_b6(grids)
        cs += checks_b7_b9(grids.get("E6"), g5, laps)
        out.append((laps, cs))
    return out


def checks_block(variant_checks: list[tuple[str, list[Check]]]) -> str:
    rows = [["check", "LAPS", "what", "ours", "target", "status"]]
    for laps, cs in variant_checks:
        for c in cs:
            rows.append([c.id, "paper" if laps == LAPS_P else "[A]", c.name, c.ours, c.target,
                         c.status + (f": {c.why}" if c.why else "")])
    return "\n".join(pad_rows(rows))


# ---------------------------------------------------------------------------------------
# Ours vs the paper (spec §6)

PAPER_E5 = {  # Table 1 (ms): (avg, P99) at drop 0 and 1e-6
    ECMP: ((564, 617), (580, 645)), LETFLOW: ((553, 589), (578, 633)), CONGA: ((540, 628), (547, 658)),
    CONWEAVE: ((563, 659), (610, 757)), PLB: ((211, 235), (219, 240)), LAPS_P: ((162, 175), (162, 175)),
}
PAPER_E1_RATIO = {ECMP: 3.3, LETFLOW: 2.8, PLB: 1.6, CONWEAVE: 4.8, CONGA: 6.1}
PAPER_E1_GROWTH = {LAPS_P: 0.64, ECMP: 4.6, LETFLOW: 4.3, PLB: 1.1, CONWEAVE: 5.2, CONGA: 5.6}
PAPER_E2_P99 = {LAPS_P: 0.12, ECMP: 0.67, LETFLOW: 0.70, PLB: 0.48, CONWEAVE: 0.80, CONGA: 0.85}


def headlines(grids: dict[str, Grid]) -> list[Headline]:
    out = []
    g = grids.get("E1")
    for s in (ECMP, LETFLOW, PLB, CONWEAVE, CONGA):  # the paper's order (§4.2)
        ours = "n/a"
        if g is not None and 0.8 in g.loads():
            p = g.point_of_load(0.8)
            vals = [g.med(p, s, _avg) / g.med(p, lv, _avg) for lv in LAPS_VARIANTS]
            ours = " / ".join(f"{_f(v, '.2f')}x" for v in vals) + " (LAPS / LAPS [A])"
        out.append(Headline("E1", f"Rail DM 0.8: {s} avg FCT / LAPS", f"{PAPER_E1_RATIO[s]}x", ours))
    for s, paper in PAPER_E1_GROWTH.items():
        ours = "n/a"
        if g is not None:
            ours = f"{_f(growth(g.by_load(s, _avg)), '+.2f')} ms"
            if s == LAPS_P:
                ours += f" ([A] {_f(growth(g.by_load(LAPS_A, _avg)), '+.2f')} ms)"
        out.append(Headline("E1", f"Rail DM: {s} avg FCT growth 0.5 -> 1.0", f"+{paper} ms", ours))
    g = grids.get("E2")
    for s, paper in PAPER_E2_P99.items():
        ours = "n/a"
        if g is not None and 0.8 in g.loads():
            ours = f"{_f(g.med(g.point_of_load(0.8), s, _p99), '.3f')} ms"
            if s == LAPS_P:
                ours += f" ([A] {_f(g.med(g.point_of_load(0.8), LAPS_A, _p99), '.3f')} ms)"
        out.append(Headline("E2", f"Rail STR 0.8: {s} P99 FCT", f"{paper} ms", ours))
    g = grids.get("E5")
    scale = g.results[0].cell_size / LLM_BYTES if g is not None and g.results else 1.0
    for s, ((a0, p0), (a1, p1)) in PAPER_E5.items():
        ours = "n/a"
        if g is not None:
            v = [g.med(_e5_point(x), s, m) / scale for x in (0.0, LOSS) for m in (_avg, _p99)]
            ours = " / ".join(_f(x, ".0f") for x in v)
            if s == LAPS_P:
                va = [g.med(_e5_point(x), LAPS_A, m) / scale for x in (0.0, LOSS) for m in (_avg, _p99)]
                ours += " ([A] " + " / ".join(_f(x, ".0f") for x in va) + ")"
        out.append(Headline("T1", f"AllReduce {s}: avg / P99 drop 0, avg / P99 drop 1e-6 (ms"
                            + (f", x{1 / scale:g} from {scale * 64:g} MB" if scale != 1 else "") + ")",
                            f"{a0} / {p0} / {a1} / {p1}", ours))
    g = grids.get("E6")
    if g is not None:
        rr = g.med("allscatter", LAPS_P, lambda r: r.reordered_ratio())
        oo = g.med("allscatter", LAPS_P, lambda r: r.stat("ooo_buffer_mean_kb"))
        rra = g.med("allscatter", LAPS_A, lambda r: r.reordered_ratio())
        ooa = g.med("allscatter", LAPS_A, lambda r: r.stat("ooo_buffer_mean_kb"))
        out.append(Headline("F9", "AllScatter: reordered packets, mean OOO buffer", "0.2 %, 0.003 KB",
                            f"{_f(rr * 100, '.2f')} %, {_f(oo, '.3f')} KB ([A] {_f(rra * 100, '.2f')} %, "
                            f"{_f(ooa, '.3f')} KB)"))
        mo = g.med("allreduce", LAPS_P, lambda r: r.stat("ooo_buffer_mean_kb"))
        pa = g.med("allreduce", LAPS_P, lambda r: r.stat("ooo_buffer_above_30kb"))
        out.append(Headline("F9", "AllReduce: mean OOO buffer, P(> 30 KB)", "< 16 KB, < 4 %",
                            f"{_f(mo, '.2f')} KB, {_f(pa * 100, '.1f')} %"))
    else:
        out.append(Headline("F9", "AllScatter / AllReduce reordering", "0.2 % / < 16 KB", "n/a"))
    out.append(Headline("T2", "FPGA resources (U280)", "33,808 LUT (2.51 %)", "not a simulation: not reproduced"))
    return out


# ---------------------------------------------------------------------------------------
# Output


def _cell(x: float, spec: str) -> str:
    return _f(x, spec)


def a2a_block(g: Grid) -> list[str]:
    lines = ["avg / P99 FCT in ms, median over seeds (P99: element floor(0.99 n) of the sorted FCTs); "
             "x = ratio to LAPS (paper variant)"]
    schemes = [s for s in A2A_SCHEMES if s in g.schemes]
    rows = [["load"] + [f"{s} avg" for s in schemes] + [f"{s} P99" for s in schemes] + ["flows"]]
    for x in g.loads():
        p = g.point_of_load(x)
        la, lp = g.med(p, LAPS_P, _avg), g.med(p, LAPS_P, _p99)
        row = [f"{x:.2f}"]
        for metric, ref in ((_avg, la), (_p99, lp)):
            for s in schemes:
                v = g.med(p, s, metric)
                row.append(_cell(v, ".3f") + (f" ({_f(v / ref, '.2f')}x)" if s != LAPS_P and _finite(v, ref) and ref
                                              else ""))
        row.append(_f(g.med(p, LAPS_P, lambda r: float(r.finished()[1])), ".0f"))
        rows.append(row)
    return lines + pad_rows(rows)


def e5_block(g: Grid, scale: float) -> list[str]:
    lines = [f"AllReduce 63 -> 1 of {scale * 64:g} MB flows, FCT in ms, median over seeds (ideal: every byte through "
             f"the 200 Gb/s receiver link, {ideal_incast_ms(63, round(LLM_BYTES * scale)):.2f} ms payload, "
             f"{ideal_incast_ms(63, round(LLM_BYTES * scale), wire=True):.2f} ms on the wire)"]
    wire = ideal_incast_ms(63, round(LLM_BYTES * scale), wire=True)
    lines.append(f"makespan = last finish − first start, drop 0; efficiency = {wire:.2f} ms on the wire / makespan")
    rows = [["scheme", "avg drop 0", "P99 drop 0", "avg drop 1e-6", "P99 drop 1e-6", "makespan", "efficiency",
             "retx drop 0", "retx drop 1e-6", "RTO timeouts drop 0", "drops", "PFC pauses", "rate cuts",
             "re-paths per flow"]]
    for s in list(dict.fromkeys([*E5_SCHEMES, *g.schemes])):
        if s not in g.schemes:
            continue
        p0, p1 = _e5_point(0.0), _e5_point(LOSS)
        rows.append([s, _f(g.med(p0, s, _avg), ".2f"), _f(g.med(p0, s, _p99), ".2f"), _f(g.med(p1, s, _avg), ".2f"),
                     _f(g.med(p1, s, _p99), ".2f"), _f(g.med(p0, s, lambda r: r.makespan_ms()), ".2f"),
                     _f(wire / g.med(p0, s, lambda r: r.makespan_ms()), ".3f"),
                     _f(g.med(p0, s, lambda r: r.stat("retransmits")), ".0f"),
                     _f(g.med(p1, s, lambda r: r.stat("retransmits")), ".0f"),
                     _f(g.med(p0, s, lambda r: r.stat("timeouts")), ".0f"),
                     _f(g.med(p1, s, lambda r: r.stat("drops")), ".0f"),
                     _f(g.med(p0, s, lambda r: r.stat("pfc_pause_frames")), ".0f"),
                     _f(g.med(p0, s, lambda r: r.stat("laps_rate_decreases")), ".0f"),
                     _f(g.med(p0, s, lambda r: r.repaths_per_flow()), ".2f")])
    lines += pad_rows(rows)
    if E5_POINT_A in g.points:
        lines += ["", f"the artefact's loss model (spec §8.12): {LOSS_A:g} at every link, host links and ACKs included; "
                  "avg / P99 in ms and the change of the avg against drop 0"]
        rows = [["scheme", "avg", "P99", "avg change", "drops", "retx", "RTO timeouts"]]
        for s in list(dict.fromkeys([*E5_SCHEMES, *g.schemes])):
            if not g.runs(E5_POINT_A, s):
                continue
            a0, a = g.med(_e5_point(0.0), s, _avg), g.med(E5_POINT_A, s, _avg)
            rows.append([s, _f(a, ".2f"), _f(g.med(E5_POINT_A, s, _p99), ".2f"),
                         f"{(a / a0 - 1) * 100:+.1f} %" if _finite(a, a0) and a0 > 0 else "n/a",
                         _f(g.med(E5_POINT_A, s, lambda r: r.stat("drops")), ".0f"),
                         _f(g.med(E5_POINT_A, s, lambda r: r.stat("retransmits")), ".0f"),
                         _f(g.med(E5_POINT_A, s, lambda r: r.stat("timeouts")), ".0f")])
        lines += pad_rows(rows)
    return lines


def e6_block(g: Grid) -> list[str]:
    lines = ["per pattern and variant, median over seeds: reordered = data packets arriving above the next "
             "expected one / data packets; OOO = receiver buffer above the next expected byte, sampled per ACK (core "
             "stats ooo_buffer_mean_kb, ooo_buffer_above_30kb); avg FCT in ms"]
    rows = [["pattern", "variant", "reordered %", "OOO mean KB", "OOO > 30 KB %", "rate cuts", "probes", "avg FCT",
             "P99 FCT"]]
    for p in g.points:
        for s in g.schemes:
            if not g.runs(p, s):
                continue
            rows.append([p, s, _f(g.med(p, s, lambda r: r.reordered_ratio() * 100), ".3f"),
                         _f(g.med(p, s, lambda r: r.stat("ooo_buffer_mean_kb")), ".3f"),
                         _f(g.med(p, s, lambda r: r.stat("ooo_buffer_above_30kb") * 100), ".2f"),
                         _f(g.med(p, s, lambda r: r.stat("laps_rate_decreases")), ".0f"),
                         _f(g.med(p, s, lambda r: r.stat("laps_probes")), ".0f"),
                         _f(g.med(p, s, _avg), ".2f"), _f(g.med(p, s, _p99), ".2f")])
    return lines + pad_rows(rows)


def al_block(g: Grid, grids: dict[str, Grid]) -> list[str]:
    lines = ["avg / P99 FCT in ms (median over seeds) at nominal load 0.8: the paper's definition (from E2-E4, when "
             "selected) and the artefact's (x1/100 on the percent-scale CDFs, x1.30 on the dragonfly: "
             "effective " + ", ".join(f"{k} {artefact_load(EXPERIMENTS[k], AL_LOAD):.4f}" for k in ("E2", "E3", "E4"))
             + ")"]
    rows = [["workload", "scheme", "paper avg", "artefact avg", "paper P99", "artefact P99"]]
    for p in g.points:
        src = next(r.cell.run.source for r in g.results if r.cell.point == p)
        ref = grids.get(src)
        rp = ref.point_of_load(AL_LOAD) if ref is not None and AL_LOAD in ref.loads() else None
        for s in g.schemes:
            pa = ref.med(rp, s, _avg) if rp else math.nan
            pp = ref.med(rp, s, _p99) if rp else math.nan
            rows.append([p, s, _f(pa, ".4f"), _f(g.med(p, s, _avg), ".4f"), _f(pp, ".4f"), _f(g.med(p, s, _p99), ".4f")])
    return lines + pad_rows(rows)


def run_notes(g: Grid) -> list[str]:
    res = g.results
    errors = [r for r in res if r.error]
    ok = [r for r in res if not r.error]
    tot = {k: sum(r.stat(k) for r in ok if math.isfinite(r.stat(k)))
           for k in ("drops", "retransmits", "timeouts", "laps_path_timeouts", "pfc_pause_frames")}
    notes = [f"runs: {len(res)}; " + ", ".join(f"{k} {v:.0f}" for k, v in tot.items()) + f"; errors {len(errors)}"]
    false_retx = [r for r in ok if r.cell.scheme in (LAPS_P, LAPS_A, RPS) and r.stat("drops") == 0
                  and r.stat("retransmits") > 0]
    if false_retx:
        notes.append(f"LAPS runs with retransmissions but no drop (spec A6: per-path RTO under PFC, or false loss "
                     f"inference): {len(false_retx)}, e.g. {false_retx[0].cell.progress_label().strip()} "
                     f"({false_retx[0].stat('retransmits'):.0f} retx, {false_retx[0].stat('laps_path_timeouts'):.0f} "
                     "path timeouts)")
    notes += dict.fromkeys(f"error ({r.cell.scheme}): {r.error}" for r in errors)
    for r in [r for r in ok if r.stalled()][:5]:
        done, n = r.finished()
        notes.append(f"STALLED (events ran out, {n - done} of {n} flows unfinished; PFC pauses "
                     f"{r.stat('pfc_pause_frames'):.0f}, resumes {r.stat('pfc_resume_frames'):.0f}, ports in a "
                     f"PFC deadlock {_f(r.stat('pfc_deadlocked_ports'), '.0f')}): {r.cell.progress_label().strip()}")
    for r in [r for r in ok if r.capped()][:5]:
        done, n = r.finished()
        notes.append(f"unfinished at the {CAP_US / 1e6:.0f} s cap ({n - done} of {n} flows): "
                     f"{r.cell.progress_label().strip()}")
    return notes


def experiment_block(g: Grid, grids: dict[str, Grid], quick: bool, scale: float) -> str:
    e = g.exp
    lines = [f"{e.key} — {e.paper} — {e.title} — checks {e.checks} — seeds {g.seeds}"]
    if e.key in A2A:
        w = e.quick_window_us if quick else e.window_us
        lines.append(f"arrivals for {w / 1000:g} ms (paper 10 ms); loads {', '.join(f'{x:.2f}' for x in g.loads())}")
    lines.append("")
    if e.key in A2A:
        lines += a2a_block(g)
    elif e.key == "E5":
        lines += e5_block(g, scale)
    elif e.key == "E6":
        lines += e6_block(g)
    else:
        lines += al_block(g, grids)
    lines += run_notes(g)
    return "\n".join(lines)


RUNS_COLUMNS = ("experiment", "point", "scheme", "seed", "key", "flows", "finished", "avg_fct_ms", "p99_fct_ms",
                "drops", "retransmits", "pfc_pause_frames", "pfc_resume_frames", "reordered_ratio",
                "ooo_buffer_mean_kb", "ooo_buffer_above_30kb", "laps_rate_decreases", "laps_probes",
                "laps_path_timeouts", "repaths_per_flow", "pfc_deadlocked_ports", "stalled", "complete", "sim_time_us",
                "wall_seconds", "error")


def run_row(r: RunResult) -> list[Any]:
    done, n = r.finished()
    return [r.cell.exp, r.cell.point, r.cell.scheme, r.cell.seed, r.cell.key, n, done, _f(r.avg_ms(), ".6f"),
            _f(r.p99_ms(), ".6f"), *(_f(r.stat(k), ".0f") for k in ("drops", "retransmits", "pfc_pause_frames",
                                                                    "pfc_resume_frames")),
            _f(r.reordered_ratio(), ".6f"), _f(r.stat("ooo_buffer_mean_kb"), ".4f"),
            _f(r.stat("ooo_buffer_above_30kb"), ".4f"),
            *(_f(r.stat(k), ".0f") for k in ("laps_rate_decreases", "laps_probes", "laps_path_timeouts")),
            _f(r.repaths_per_flow(), ".3f"), _f(r.stat("pfc_deadlocked_ports"), ".0f"), r.stalled(), r.record.get("complete", False), r.record.get("sim_time_us", ""),
            f"{r.record.get('wall_seconds', 0):.2f}", r.record.get("error", "")]


FIG_NAMES = {"E1": "fig5_rail_dm.png", "E2": "fig6_rail_str.png", "E3": "fig7_dragonfly_rpc.png",
             "E4": "fig8_dragonfly_hdp.png"}


def write_plots(out: Path, grids: dict[str, Grid]) -> list[Path]:
    written: list[Path] = []
    for key in A2A:
        g = grids.get(key)
        if g is None or not g.loads():
            continue
        with png(out / FIG_NAMES[key], written, (10, 3.6), ncols=2) as (fig, axes):
            for ax, (metric, name) in zip(axes, ((_avg, "avg FCT"), (_p99, "P99 FCT"))):
                for s in g.schemes:
                    pts = [(x, v) for x, v in g.by_load(s, metric).items() if _finite(v)]
                    if pts:
                        ax.plot(*zip(*pts), marker="o", label=s)
                ax.set_title(f"{key} ({EXPERIMENTS[key].paper}): {EXPERIMENTS[key].title}\n{name}", fontsize=8)
                ax.set_xlabel("load")
                ax.set_ylabel("ms")
                ax.set_yscale("log")
                ax.grid(alpha=0.3)
            axes[0].legend(fontsize=7)
    g = grids.get("E5")
    if g is not None:
        schemes = [s for s in E5_SCHEMES if s in g.schemes]
        with png(out / "table1_allreduce.png", written, (8, 3.6)) as (fig, ax):
            series = [(f"{m} drop {x:g}", [g.med(_e5_point(x), s, f) for s in schemes])
                      for x in (0.0, LOSS) for m, f in (("avg", _avg), ("P99", _p99))]
            grouped_bars(ax, series)
            ax.set_xticks(range(len(schemes)))
            ax.set_xticklabels(schemes, fontsize=8)
            ax.set_ylabel("FCT [ms]")
            ax.set_title("E5 (Table 1): AllReduce 63 -> 1", fontsize=9)
            ax.legend(fontsize=7)
    g = grids.get("E6")
    if g is not None:
        with png(out / "fig9_reordering.png", written, (10, 3.6), ncols=2) as (fig, axes):
            for ax, (metric, name) in zip(axes, ((lambda r: r.reordered_ratio() * 100, "reordered packets [%]"),
                                                 (lambda r: r.stat("ooo_buffer_mean_kb"), "mean OOO buffer [KB]"))):
                series = [(p, [g.med(p, s, metric) for s in g.schemes]) for p in g.points]
                grouped_bars(ax, series)
                ax.set_xticks(range(len(g.schemes)))
                ax.set_xticklabels(g.schemes, fontsize=6, rotation=20)
                ax.set_ylabel(name)
                ax.set_yscale("symlog", linthresh=0.01)
                ax.legend(fontsize=7)
            axes[0].set_title("E6 (Fig. 9): LAPS reordering", fontsize=8)
        curves = [(p, s, ooo_cdf(g.runs(p, s))) for p in g.points for s in g.schemes]
        curves = [(p, s, c) for p, s, c in curves if c[0]]
        if curves:
            with png(out / "fig9_ooo_cdf.png", written, (6, 3.6)) as (fig, ax):
                for p, s, (xs, ys) in curves:
                    ax.step(xs, ys, where="post", label=f"{p}: {s}")
                ax.axvline(30, color="grey", linestyle=":", linewidth=1)
                ax.set_xscale("symlog", linthresh=1)
                ax.set_xlabel("receiver out-of-order buffer [KB] (samples at data arrivals, seeds pooled)")
                ax.set_ylabel("CDF")
                ax.set_title("E6 (Fig. 9): LAPS reorder buffer; paper: P(> 30 KB) < 4 % in AllReduce", fontsize=8)
                ax.grid(alpha=0.3)
                ax.legend(fontsize=6)
    return written


# ---------------------------------------------------------------------------------------
# Entry point


def _llm_scale(outcome: Outcome[Cell, RunResult, Grid]) -> float:
    sizes = [r.cell_size for r in outcome.results if r.cell.run.pattern]
    return sizes[0] / LLM_BYTES if sizes else (QUICK_LLM_BYTES / LLM_BYTES if outcome.settings.quick else 1.0)


def _header(outcome: Outcome[Cell, RunResult, Grid]) -> list[str]:
    quick, n = outcome.settings.quick, outcome.settings.seeds
    scale = _llm_scale(outcome)
    windows = ", ".join(f"{k} {(EXPERIMENTS[k].quick_window_us if quick else EXPERIMENTS[k].window_us) / 1000:g} ms"
                        for k in A2A)
    return [
        f"# LAPS reproduction (dcnsim) — {'quick' if quick else 'full'} mode, seeds 1..{n}, medians over seeds",
        "",
        "Paper: \"LAPS: Joint Load Balancing and Congestion Control on Unequal-cost Multi-path Data Center "
        "Networks\" (NAIC '25); spec laps.md §4-§8. Setups, schemes and every deviation: experiments/laps/README.md.",
        "Fabrics: rail 8 x 8 GPUs (200G GPU links, 100G fabric) and dragonfly 9 x 4 x 4 (100G), 1 µs links, "
        "1048 B packets (1000 B payload), PFC on, 4 MB per port, ACKs at strict priority, RED 400/1600 KB/0.8.",
        "Schemes: LAPS = the paper's variant (softmax on raw µs latencies, one 2T gate, paper probing, no window; the "
        "default wherever paper and artefact conflict), LAPS [A] = the artefact's (latency / T, two timers, "
        "artefact probing, W = 2T x line rate); ECMP, LetFlow, CONGA, ConWeave = DCQCN (unified window: the largest one-way "
        "BDP of any path, spec §3.7) + go-back-N; PLB = rate-based DCTCP (spec §3.8, the same window) + go-back-N "
        "(re-path after 3 congested rounds with nothing in flight, or 12 in any case; none after an RTO; spec §3.6); RPS = LAPS with beta = 0. ECMP, LetFlow and PLB route over the LAPS candidate paths, chosen "
        "hop by hop (lb_paths = \"candidates\", spec §3.1); CONGA takes the least congested candidate path per "
        "flowlet (10 µs gap; DRE 200 µs, decay 0.2, 3 bits; spec §3.4); ConWeave moves a flow to another candidate "
        "path when an RTT reply misses the path's unloaded RTT + 80 ns, the destination holding the new path's "
        "packets until the old path's TAIL (32 µs slack, 200 µs default wait; spec §3.5).",
        f"Reductions ({'quick' if quick else 'full'}): All2all loads "
        f"{', '.join(f'{x:g}' for x in (QUICK_LOADS if quick else LOADS))} (paper 0.50-1.00 in 11 steps); arrival "
        f"windows {windows} (paper 10 ms); full flow-size CDFs; LLM flows of {scale * 64:g} MB"
        + (" with the start window scaled alike" if scale != 1 else " (the paper's)")
        + f"; loss 1e-6 per switch-to-switch link crossed; runs capped at {CAP_US / 1e6:g} s simulated.",
        "Checks are evaluated on medians over seeds; " + ("informational here (quick: toy sizes, 1 seed)."
                                                          if quick else "the spec asks for ≥ 3 seeds."),
    ]


def _block(key: str, outcome: Outcome[Cell, RunResult, Grid]) -> Optional[str]:
    g = outcome.grids.get(key)
    if g is None:
        return None
    return experiment_block(g, outcome.grids, outcome.settings.quick, _llm_scale(outcome))


def _checks(outcome: Outcome[Cell, RunResult, Grid]) -> list[tuple[str, str]]:
    return [("Checks B1-B9 (spec §7), for the paper's LAPS and the artefact's",
             checks_block(all_checks(outcome.grids, outcome.settings.quick))),
            ("Ours vs the paper (spec §6)", headline_table(headlines(outcome.grids)))]


def _evaluate(cell: Cell, record: dict[str, Any]) -> RunResult:
    return RunResult(cell, record)


def summarize(sim: Any) -> dict[str, Any]:
    """What a run keeps beyond its counters: LAPS's reorder-buffer histogram (samples by
    KB held, Fig. 9); nothing for the schemes without one."""
    h = sim.ooo_histogram_kb()
    return {"ooo_histogram_kb": list(h)} if h is not None else {}


def ooo_cdf(runs: Sequence[RunResult]) -> tuple[list[float], list[float]]:
    """The reorder-buffer occupancy's CDF over ``runs`` pooled (their histograms summed):
    (KB, P(buffer ≤ KB)) at each KB up to the largest seen; empty without histograms."""
    total: list[int] = []
    for r in runs:
        for kb, n in enumerate((r.record.get("extra") or {}).get("ooo_histogram_kb") or []):
            if kb >= len(total):
                total.extend([0] * (kb + 1 - len(total)))
            total[kb] += int(n)
    n = sum(total)
    if n == 0:
        return [], []
    xs, ys, acc = [], [], 0
    for kb, c in enumerate(total):
        acc += c
        xs.append(float(kb))
        ys.append(acc / n)
    return xs, ys


PAPER = Reproduction(
    "laps", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=_evaluate, cap_us=CAP_US,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=_header, block=_block, checks=_checks, checks_first=True, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots, summarize=summarize,
)


def reproduce_laps(*, quick: bool = False, seeds: Optional[int] = None, jobs: Optional[int] = None,
                   only: Optional[str] = None, out: Optional[str] = None, stream: Any = None,
                   dask: Optional[str] = None, llm_bytes: Optional[int] = None,
                   schemes: Optional[Sequence[str]] = None) -> tuple[int, str]:
    """``dcnsim reproduce laps``: (exit code, table text). The LLM flow files go to
    ``<out>/flows/``; ``llm_bytes`` overrides the LLM flow size (tests); ``schemes`` runs
    only those schemes (e.g. ``[PLB, PLB_W]``: PLB over the rate-based and over the window
    DCTCP)."""
    import sys

    out_dir = Path(out) if out else Path("results") / "reproduce-laps"
    repro = replace(PAPER, cells=lambda keys, n, q, exp_dir, fp: build_cells(
        keys, n, q, exp_dir, fp, flows_dir=out_dir / "flows", llm_bytes=llm_bytes, schemes=schemes))
    return drive(repro, quick=quick, seeds=seeds, jobs=jobs, only=only, out=str(out_dir),
                 stream=stream if stream is not None else sys.stderr, dask=dask)
