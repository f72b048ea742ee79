"""Ablation runs behind the DCTCP-vs-Swift checks that hold only in part under `ns3_study`.

experiments/dctcp-vs-swift/RESULTS-ns3_study.md, section "Why the partial checks fail:
ablations", quotes the numbers this script prints (ablations/results.md holds its output).
Each block starts from a harness cell run exactly as `dcnsim reproduce dctcp-vs-swift
--profile ns3_study` runs it (the same scenario file and the same overrides, built by the
harness's own `build_cells`: timeline, profile, variant, point, seed), then changes ONE
setting at a time. Rows print the study's metrics (runs.study_metrics) as the mean over the
seeds, with the per-seed values of the block's figure, plus drops and timeouts.

    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate.py            # every block
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate.py C7 C9
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate.py RED   # checks recounted
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate.py --list

Each run's numbers are kept in ablations/raw/runs.jsonl (a run already there is not rerun;
delete the file to rerun everything). A run takes 1-4 s (an E4 run 15-20 s); all of them,
about 320 runs, take about 16 minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from dcnsim._scenario import load_scenario
from dcnsim.repro.core import core_fingerprint, run_key, simulate
from dcnsim.repro.papers.dctcp_vs_swift import runs as R

HERE = Path(__file__).resolve().parent
EXP_DIR = HERE.parent
PROFILE = R.profile("ns3_study")


@dataclass(frozen=True)
class Case:
    label: str          # what differs from the block's first row
    exp: str            # E1..E6
    point: str          # the point's label (flows, target, min_cwnd)
    variant: str        # D250, Sb, Se, S25, or "Swift" (E1, E2)
    extra: tuple[str, ...] = ()   # the one change (--set overrides after the cell's own)


def overrides(c: Case, seed: int) -> list[str]:
    """The harness's overrides of the cell (runs.build_cells), then the case's change."""
    e = R.EXPERIMENTS[c.exp]
    point = next(p for p in e.points if p.label == c.point)
    variant = R.VARIANT[c.variant].overrides if c.variant in R.VARIANT else ()
    return [*R.timeline(e.t_seconds), *PROFILE.overrides, *variant, *point.overrides, f"seed={seed}", *c.extra]


def same_as_harness(c: Case, seed: int) -> None:
    """The base row's scenario is the harness's cell, byte for byte."""
    cells = R.build_cells([c.exp], seed, False, EXP_DIR, "x", "ns3_study")
    cell = next(x for x in cells if x.point == c.point and x.variant == c.variant and x.seed == seed)
    spec, _ = load_scenario(EXP_DIR / R.EXPERIMENTS[c.exp].toml, overrides(c, seed))
    assert json.dumps(spec, sort_keys=True, default=str) == json.dumps(cell.spec, sort_keys=True, default=str), c


def run(c: Case, seed: int) -> dict:
    spec, root = load_scenario(EXP_DIR / R.EXPERIMENTS[c.exp].toml, overrides(c, seed))
    rec = simulate(spec, str(root), R._FLOW_COLUMNS)
    if "error" in rec:
        raise SystemExit(f"{c}: {rec['error']}")
    m = R.study_metrics(rec["flows"])
    st = rec["stats"]
    return {**m, "drops": st.get("drops"), "timeouts": st.get("timeouts"), "ecn_marks": st.get("ecn_marks"),
            "wall_seconds": rec["wall_seconds"]}


@dataclass
class Check:
    note: str
    figure: str                      # the metric the block is about (thr_kbps, delay_ms, loss_pct)
    blocks: list[list[Case]]
    seeds: int = 1


K250 = ("switch.ecn.kmin=388500", "switch.ecn.kmax=388500")   # K = 250 packets: the NIC ring not folded in
PACE = ("transport.pacing=true",)                              # every window paced at cwnd / srtt
# The study used "the RED queue class for Swift's router buffers but disabled ECN marking";
# ns-3's RED then drops where it would mark. In dcnsim a port's RED drops the non-ECT data
# packets it would mark, so turning RED back on for the Swift cells (their packets are not
# ECT) drops them at the profile's K = 350 packets, instantaneous queue.
RED = ("switch.ecn.enabled=true",)
CAP1 = ('transport.inflight_cap="1554B"',)                   # one packet in flight whatever the window
EXACT = ("transport.swift.rtt_resolution=1us",)                # RTT samples (nearly) exact


def _set(label: str, *extra: str) -> tuple[str, tuple[str, ...]]:
    """One ablation: its label and its overrides."""
    return (label, extra)


RED_DROPS = _set("RED drops at K = 350 (ECN marking off, as the study)", *RED)
PACING = _set("pacing every window", *PACE)
EXACT_RTT = _set("exact RTT samples", *EXACT)
TARGET_50MS = _set("fixed target 50 ms (not 25 ms)", "transport.swift.fixed_target=50ms")
HALVE_ON_LOSS = _set("DCTCP halving on loss (not 1 - alpha/2)", 'transport.dctcp.loss_response="halve"')
K_250 = _set("K = 250 packets (the ring not folded in)", *K250)
ONE_IN_FLIGHT = _set("at most 1 packet in flight", *CAP1)


def _block(exp: str, point: str, variant: str, *ablations: tuple[str, tuple[str, ...]],
           base: str = "the harness's cell") -> list[Case]:
    """A cell as the harness runs it, then the same cell once per ablation."""
    return [Case(base, exp, point, variant), *(Case(label, exp, point, variant, extra) for label, extra in ablations)]


CHECKS: dict[str, Check] = {
    "C2": Check("E1 (k = 4, fixed hotspot, 610 flows): loss at low targets, throughput ties, delay at 0.25 s",
                "loss_pct", [
        _block("E1", "0", "Swift",
               RED_DROPS,
               _set("min_cwnd 2 packets (not 1.33)", "transport.swift.min_cwnd_pkts=2"),
               PACING,
               EXACT_RTT),
        _block("E1", "baseRTT", "Swift",
               RED_DROPS,
               _set("min_cwnd 2 packets (not 1.33)", "transport.swift.min_cwnd_pkts=2"),
               EXACT_RTT),
        _block("E1", "0.25", "Swift",
               RED_DROPS,
               PACING,
               _set("min RTO 200 ms (not 1 s)", "transport.rto_min=200ms"),
               _set("buffer 2666 packets (the ring not folded in)", "switch.buffer=4142964")),
    ], seeds=1),
    "C2b": Check("C2's throughput ties at E1 with RED drops for Swift: 3 seeds",
                "thr_kbps", [
        _block("E1", "0", "Swift", RED_DROPS),
        _block("E1", "0.00025", "Swift", RED_DROPS),
        _block("E1", "baseRTT", "Swift", RED_DROPS),
    ], seeds=3),
    "C3": Check("E2 (k = 4, fixed hotspot, 610 flows, target = min RTT): min_cwnd 0 / 2000 / 5000 B",
                "delay_ms", [
        _block("E2", "0", "Swift",
               _set("min_cwnd 1 packet (no sub-packet pacing)", "transport.swift.min_cwnd_pkts=1"),
               base="the harness's cell (0.001 packet, paced below 1)"),
        _block("E2", "5000", "Swift",
               RED_DROPS,
               _set("min_cwnd 4 packets (not 3.33)", "transport.swift.min_cwnd_pkts=4"),
               PACING,
               base="the harness's cell (3.33 packets)"),
    ], seeds=1),
    "C5": Check("S25 highest loss and delay: S25 against the others at scale",
                "delay_ms", [
        _block("E3", "2000", "S25", RED_DROPS, TARGET_50MS),
        _block("E3", "2000", "D250",
               _set("DCTCP min window 2 packets (not 1)", "transport.dctcp.min_cwnd_pkts=2"),
               K_250),
        _block("E6", "2500", "S25", TARGET_50MS),
        _block("E6", "2500", "D250"),
        _block("E5", "3000", "S25", TARGET_50MS),
        _block("E5", "3000", "D250"),
        _block("E6", "3000", "S25", TARGET_50MS),
        _block("E6", "3000", "D250"),
    ], seeds=3),
    "C5b": Check("S25 highest delay in random pairs (E4): fails at 100 flows",
                "delay_ms", [
        _block("E4", "100", "D250", K_250, PACING),
        _block("E4", "100", "S25", RED_DROPS),
    ], seeds=3),
    "C6": Check("loss Sb < D < Se < S25 at >= 1500 flows (E5, E6)",
                "loss_pct", [
        _block("E6", "2000", "Se",
               RED_DROPS,
               _set("target offset 0 (= Sb)", "transport.swift.min_rtt_offset=0ms"),
               _set("target offset 10 ms (not 1 ms)", "transport.swift.min_rtt_offset=10ms"),
               EXACT_RTT),
        _block("E6", "2000", "D250", HALVE_ON_LOSS, K_250, PACING),
        _block("E6", "2000", "S25", RED_DROPS),
        _block("E6", "2000", "Sb", RED_DROPS, PACING),
    ], seeds=1),
    "C7": Check("DCTCP lowest delay at low N (E3 <= 500) and at scale (E5, E6 >= 2000)",
                "delay_ms", [
        _block("E3", "100", "Sb",
               RED_DROPS,
               _set("RTT resolution 2 ms (not 1 ms)", "transport.swift.rtt_resolution=2ms"),
               _set("RTT resolution 4 ms (not 1 ms)", "transport.swift.rtt_resolution=4ms"),
               EXACT_RTT,
               PACING,
               _set("max_mdf 0.5 (not 1)", "transport.swift.max_mdf=0.5"),
               _set("min_cwnd 2 packets (not 1.33)", "transport.swift.min_cwnd_pkts=2"),
               _set("min_cwnd 3 packets (not 1.33)", "transport.swift.min_cwnd_pkts=3"),
               _set("min_cwnd 4 packets (not 1.33)", "transport.swift.min_cwnd_pkts=4")),
        _block("E3", "100", "D250", K_250, PACING),
        _block("E3", "500", "Sb",
               RED_DROPS,
               _set("RTT resolution 4 ms (not 1 ms)", "transport.swift.rtt_resolution=4ms"),
               PACING),
        _block("E3", "500", "D250", K_250),
        _block("E6", "2500", "D250", HALVE_ON_LOSS, K_250, PACING, ONE_IN_FLIGHT),
        _block("E6", "2500", "S25", TARGET_50MS),
    ], seeds=1),
    "C7b": Check("C7 at E6/2000 (D against Sb, 2 % apart): 3 seeds",
                "delay_ms", [
        _block("E6", "2000", "D250", ONE_IN_FLIGHT, PACING),
        _block("E6", "2000", "Sb", PACING),
        _block("E5", "2500", "S25", TARGET_50MS),
        _block("E5", "2500", "D250"),
    ], seeds=3),
    "C9": Check("Sb and Se throughput >= DCTCP at >= 250 flows (E3)",
                "thr_kbps", [
        _block("E3", "250", "D250",
               K_250,
               _set("send buffer 64 KiB (not 128 KiB)", "workload.0.app.send_buffer=\"64KiB\"")),
        _block("E3", "250", "Sb",
               RED_DROPS,
               _set("send buffer 64 KiB (not 128 KiB)", "workload.0.app.send_buffer=\"64KiB\"")),
        _block("E3", "1000", "D250", K_250),
        _block("E3", "1000", "Sb"),
        _block("E3", "250", "Se", RED_DROPS),
    ], seeds=3),
}


def key(c: Case, seed: int) -> str:
    """A stored run's key: the resolved scenario (the harness's profile included) and the
    compiled core, as the harness's own cache keys them (`run_key`), so a changed profile or a
    rebuilt core never reuses a stale run."""
    spec, _ = load_scenario(EXP_DIR / R.EXPERIMENTS[c.exp].toml, overrides(c, seed))
    return run_key(spec, _CORE)


_CORE = core_fingerprint()


RAW = HERE / "raw" / "runs.jsonl"


def _done(raw: Path = RAW) -> dict[str, dict]:
    """The runs already in the raw store ``raw`` (JSON lines), by key."""
    done = {}
    if raw.exists():
        for line in raw.read_text().splitlines():
            r = json.loads(line)
            done[r["key"]] = r
    return done


def result(c: Case, seed: int, done: dict[str, dict], raw: Path = RAW,
           runner: Optional[Callable[[Case, int], dict]] = None) -> dict:
    """The run's numbers: from the raw store, else run now (``runner``, default ``run``)
    and append it to ``raw``."""
    k = key(c, seed)
    if k not in done:
        r = (runner or run)(c, seed)
        done[k] = {"key": k, "case": [c.exp, c.point, c.variant, list(c.extra)], "seed": seed, **r}
        raw.parent.mkdir(exist_ok=True)
        with raw.open("a") as f:
            f.write(json.dumps(done[k]) + "\n")
        wall = f": {r['wall_seconds']:.1f} s" if "wall_seconds" in r else ""
        print(f"  ran {c.exp}/{c.point}/{c.variant} {c.label} seed {seed}{wall}", file=sys.stderr, flush=True)
    return done[k]


FMT = {"thr_kbps": ".0f", "delay_ms": ".2f", "loss_pct": ".2f"}


def run_check(name: str, ck: Check, out) -> None:
    done = _done()
    print(f"\n### {name}: {ck.note}\n", file=out)
    seeds = f"Mean over seeds 1-{ck.seeds}" if ck.seeds > 1 else "Seed 1"
    print(f"{seeds}; the per-seed values of {ck.figure} in brackets.\n", file=out)
    print("| cell | change | thr [Kbps] | delay [ms] | loss [%] | Jain | drops | timeouts | "
          f"{ck.figure} per seed |", file=out)
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |", file=out)
    for block in ck.blocks:
        same_as_harness(block[0], 1)
        for c in block:
            res = [result(c, seed, done) for seed in range(1, ck.seeds + 1)]
            mean = lambda m: statistics.mean(float(r[m]) for r in res)  # noqa: E731
            per = " ".join(f"{float(r[ck.figure]):{FMT[ck.figure]}}" for r in res)
            print(f"| {c.exp}/{c.point}/{c.variant} | {c.label} | {mean('thr_kbps'):.0f} | {mean('delay_ms'):.2f} | "
                  f"{mean('loss_pct'):.2f} | {mean('jain'):.3f} | {mean('drops'):.0f} | {mean('timeouts'):.0f} | "
                  f"[{per}] |", file=out, flush=True)


# ---------------------------------------------------------------------------------------
# The checks recounted with one change applied to every Swift cell of E1-E3, E5, E6

SWIFTS = ("Swift", "Sb", "Se", "S25")
RECOUNT_EXPS = ("E1", "E2", "E3", "E5", "E6")
RECOUNT_FACTS = ("C2", "C3", "C5 S25 has the highest loss and delay (E3", "C6", "C7", "C9")


def recount(change: tuple[str, ...], label: str, out, seeds: int = 1, raw: Path = RAW) -> None:
    """Every cell of RECOUNT_EXPS at seeds 1..seeds, as the harness builds it and with
    ``change`` on the Swift cells (DCTCP's cells are the same run), evaluated by the
    harness's own checks (checks.ordering_facts). Runs are kept in ``raw``."""
    from dcnsim.repro.papers.dctcp_vs_swift.checks import ordering_facts

    done = _done(raw)
    facts = {}
    for tag, extra in (("the harness's cells", ()), (label, change)):
        grids = {}
        for key_ in RECOUNT_EXPS:
            e = R.EXPERIMENTS[key_]
            results = []
            for p in e.points:
                for v in R.variants(e, PROFILE):
                    for seed in range(1, seeds + 1):
                        c = Case(tag, key_, p.label, v, extra if v in SWIFTS else ())
                        r = result(c, seed, done, raw=raw)
                        cell = R.Cell(key_, p.label, v, seed, {}, profile=PROFILE.name)
                        results.append(R.RunResult(cell, {}, {m: float(r[m]) for m in R.METRICS}))
            grids[key_] = R.Grid(e, results)
        facts[tag] = [f for f in ordering_facts(grids, True) if f.name.startswith(RECOUNT_FACTS)]
    print(f"\n### Every check recounted: {label} (seed{'s 1-' + str(seeds) if seeds > 1 else ' 1'}, "
          "E1-E3, E5, E6)\n", file=out)
    print(f"| check | the harness's cells | {label} |", file=out)
    print("| --- | --- | --- |", file=out)
    for a, b in zip(*facts.values()):
        print(f"| {a.name} | {a.ours} | {b.ours} |", file=out)


RECOUNTS = {"RED": (RED, "RED drops at K = 350 for Swift")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checks", nargs="*", help="C2 C3 C5 C6 C7 C7b C9, or RED (every check recounted; "
                    "default: all)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for n, ck in CHECKS.items():
            print(f"{n}: {ck.note}")
        return
    for n in a.checks or [*CHECKS, *RECOUNTS]:
        if n in RECOUNTS:
            recount(*RECOUNTS[n], sys.stdout)
        else:
            run_check(n, CHECKS[n], sys.stdout)


if __name__ == "__main__":
    main()
