"""One-setting ablations of the LAPS checks B1 (the LAPS half), B9, B2 and B5.

Each run is a harness cell (``dcnsim.repro.papers.laps.runs.build_cells``), as the harness
builds it ("base") or with one setting changed. Runs go to ``raw/ablate_checks.jsonl`` (one
line per run, kept between invocations: a run already there is not repeated); per-flow tables
of the B1 runs to ``raw/b1_flows/``. Results: ``results_checks.md``.

- b1: E5 LAPS (the 63 -> 1 AllReduce of 64 MB, no loss), seeds 1-3. Besides avg / P99 /
  last FCT it reports the 7 same-server senders (GPUs 1-7, whose only path to GPU 0 is the
  NVLink switch) apart from the 56 others, and the mean rate of the 7 before the last of the
  56 finished, as the flow table bounds it (at most 100 Gb/s through GPU 0's NVLink in-link
  after that).
- b9: E6 AllScatter LAPS, seeds 1-3: ``laps_rate_decreases`` per flow.
- b9r: E5's AllReduce (B9's other half), LAPS, seeds 1-3.
- b2: E5 go-back-N baselines, seeds 1-3: the loss model changed one setting at a time.
- b5: E3 / E4 (dragonfly RPC / Hadoop) LAPS at load 0.8, seed 1 (``--seeds 3`` for more).
- b5all: E4 LAPS with the paper's gate at every load, seeds 1-3 (the baselines: the harness's
  cached runs).

    PYTHONPATH=python python experiments/laps/ablations/ablate_checks.py b1 [--seeds 3]

E5 and E6 runs take 10-20 s of one core; E3 / E4 runs about 1-2 minutes.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import dcnsim
from dcnsim.repro.papers.laps import runs

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from e5_baselines import stats_of  # noqa: E402  (the E5 script's summary of a run)

ROOT = HERE.parents[2]
RAW = HERE / "raw" / "ablate_checks.jsonl"
FLOWS_OUT = HERE / "raw" / "b1_flows"


def laps(key, value):
    return lambda s: s["transport"].setdefault("laps", {}).update({key: value})


def host100(s):
    s["topology"]["host_link_rate"] = "100Gbps"


def same_start(s):
    """Every flow starts at 0 (no Poisson spread of the start times)."""
    src = Path(s["workload"][0]["file"])
    lines = src.read_text().splitlines()
    out = [lines[0]] + [",".join(l.split(",")[:3] + ["0.000us"]) for l in lines[1:]]
    dst = src.with_name(src.stem + "_start0.csv")
    dst.write_text("\n".join(out) + "\n")
    s["workload"][0]["file"] = str(dst)


def topo(key, value):
    return lambda s: s["topology"].update({key: value})


# check -> (experiments, cell filter, schemes, seeds, {ablation: (what, change)})
CHECKS = {
    "b1": (["E5"], lambda c: c.point == "drop 0", ["LAPS"], 3, {
        "base": ("the harness's cell", lambda s: None),
        "min_rate_10g": ('transport.laps.min_rate = "10Gbps" (default 1 Gb/s)', laps("min_rate", "10Gbps")),
        "min_rate_3g2": ('transport.laps.min_rate = "3.2Gbps" (200 Gb/s / 63, the fair share; default 1 Gb/s)',
                         laps("min_rate", "3.2Gbps")),
        "no_hyper": ("transport.laps.hyper_increase_after = 1000000 (no hyper increase; default 5)",
                     laps("hyper_increase_after", 1000000)),
        "gate_paper": ('transport.laps.gate = "paper" (one 2T gate)', laps("gate", "paper")),
        "no_window": ("transport.laps.window = false (no W = 2T x line rate)", laps("window", False)),
        "window_100g": ('transport.laps.window_rate = "100Gbps" (W sized at the fabric rate)',
                        laps("window_rate", "100Gbps")),
        "window_400g": ('transport.laps.window_rate = "400Gbps" (W twice the artefact\'s)',
                        laps("window_rate", "400Gbps")),
        "beta_2": ("transport.laps.beta = 2 (default 1)", laps("beta", 2.0)),
        "start_0": ("every flow starts at 0 (no 10 ms Poisson spread)", same_start),
    }),
    "b9": (["E6"], lambda c: c.point == "allscatter", ["LAPS"], 3, {
        "base": ("the harness's cell (200 Gb/s GPU links)", lambda s: None),
        "host_100g": ('topology.host_link_rate = "100Gbps" (the paper\'s text)', host100),
        "gate_paper": ('transport.laps.gate = "paper" (one 2T gate)', laps("gate", "paper")),
        "window_100g": ('transport.laps.window_rate = "100Gbps"', laps("window_rate", "100Gbps")),
    }),
    "b9r": (["E5"], lambda c: c.point == "drop 0", ["LAPS"], 3, {  # B9's AllReduce half (the E5 cell)
        "base": ("the harness's cell (200 Gb/s GPU links)", lambda s: None),
        "host_100g": ('topology.host_link_rate = "100Gbps" (the paper\'s text)', host100),
    }),
    "b5all": (["E4"], lambda c: c.point.startswith("load "), ["LAPS"], 3, {  # B5 on E4, every load
        "gate_paper": ('transport.laps.gate = "paper" (one 2T gate)', laps("gate", "paper")),
    }),
    "b2": (["E5"], lambda c: c.point == "drop 1e-06", ["ECMP", "PLB", "ConWeave", "LetFlow", "CONGA"], 3, {
        "base": ("the harness's cell: 1e-6 per switch-to-switch link", lambda s: None),
        "all_links": ('topology.loss_links = "all" (every link, host links and ACKs too; the artefact\'s)',
                      topo("loss_links", "all")),
        "rate_1e-5": ("topology.loss_rate = 1e-5 (switch-to-switch links)", topo("loss_rate", 1e-5)),
        "rate_1e-4": ("topology.loss_rate = 1e-4 (switch-to-switch links)", topo("loss_rate", 1e-4)),
        "no_window": ('transport.dcqcn.window = "off" (DCQCN baselines only; its no-loss runs are '
                      "e5_baselines.py's no_window rows)",
                      lambda s: s["transport"]["dcqcn"].update({"window": "off"})),
        "plb_no_window": ('transport.dctcp.rate.window = "off" (PLB only)',
                          lambda s: s["transport"]["dctcp"]["rate"].update({"window": "off"})),
        "plb_no_window_loss0": ("plb_no_window with topology.loss_rate = 0: its no-loss reference",
                                lambda s: (s["transport"]["dctcp"]["rate"].update({"window": "off"}),
                                           s["topology"].update({"loss_rate": 0.0}))),
    }),
    "b5": (["E3", "E4"], lambda c: c.point == "load 0.80", ["LAPS"], 1, {
        "base": ("the harness's cell", lambda s: None),
        "gate_paper": ('transport.laps.gate = "paper" (one 2T gate)', laps("gate", "paper")),
        "no_window": ("transport.laps.window = false", laps("window", False)),
        "probe_paper": ('transport.laps.probe = "paper"', laps("probe", "paper")),
        "raw_us": ('transport.laps.latency_scale = "raw_us"', laps("latency_scale", "raw_us")),
        "beta_0": ("transport.laps.beta = 0 (uniform spraying, LAPS's rate control)", laps("beta", 0.0)),
        "beta_5": ("transport.laps.beta = 5 (default 1)", laps("beta", 5.0)),
        "no_hyper": ("transport.laps.hyper_increase_after = 1000000 (no hyper increase)",
                     laps("hyper_increase_after", 1000000)),
    }),
}


def summarise(check, c, r) -> dict:
    st = r.summary["stats"]
    d = stats_of(r)
    d["p99_art_ms"] = runs.p99_artefact(list(r.flows.fct_us.dropna())) / 1e3  # the harness's P99
    d["rate_decreases"] = st.get("laps_rate_decreases", 0)
    d["decreases_per_flow"] = d["rate_decreases"] / max(1, d["finished"])
    d["drops"] = st.get("drops", 0)
    d["retransmits"] = st.get("retransmits", 0)
    f = r.flows
    if check == "b1":
        same = (f.src // 8) == (f.dst // 8)
        end = f.start_us + f.fct_us
        t56 = float(end[~same].max())
        wire = 64_000_000 / 1000 * 1048 * 8  # bits of one flow on the wire
        after = (float(end[same].max()) - t56) * 1e-6 * 100e9  # at most 100 Gb/s after t56
        before = max(0.0, 7 * wire - after)
        d.update({"same_avg_ms": float(f.fct_us[same].mean()) / 1e3,
                  "other_avg_ms": float(f.fct_us[~same].mean()) / 1e3,
                  "other_last_ms": t56 / 1e3, "same_first_ms": float(end[same].min()) / 1e3,
                  "same_rate_before_gbps": before / (t56 - float(f.start_us[same].mean())) / 1e3 / 7})
    if check in ("b5", "b5all"):
        small = f["size"] < runs.SMALL_MAX
        d["small_avg_ms"] = float(f.fct_us[small].mean()) / 1e3
        d["small_p99_ms"] = float(f.fct_us[small].quantile(0.99)) / 1e3
    return d


def rate_before(d: dict) -> str:
    """The bound is defined only when the 7 same-server flows finish after the 56 others."""
    return "– (the 7 finish first)" if d["other_last_ms"] >= d["last_ms"] else f"{d['same_rate_before_gbps']:.2f}"


COLUMNS = {  # check -> (header, per-run fields)
    "b1": ("avg ms | P99 (= last) ms | 56 others' avg / last ms | 7 same-server avg ms | 7's rate before "
           "the 56 finish, Gb/s a flow | rate decreases | ECN marks | PFC pauses",
           lambda d: f"{d['avg_ms']:.1f} | {d['last_ms']:.1f} ({d['last_ms'] / d['avg_ms']:.2f} x avg) | "
                     f"{d['other_avg_ms']:.1f} / {d['other_last_ms']:.1f} | {d['same_avg_ms']:.1f} | "
                     f"{rate_before(d)} | {d['rate_decreases']:,} | {d['ecn_marks']:,} | "
                     f"{d['pfc_pauses']:,}"),
    "b9": ("rate decreases | per flow | avg ms | last ms | ECN marks | PFC pauses",
           lambda d: f"{d['rate_decreases']:,} | {d['decreases_per_flow']:.1f} | {d['avg_ms']:.2f} | "
                     f"{d['last_ms']:.2f} | {d['ecn_marks']:,} | {d['pfc_pauses']:,}"),
    "b9r": ("rate decreases | per flow | avg ms | last ms | ECN marks | PFC pauses",
            lambda d: f"{d['rate_decreases']:,} | {d['decreases_per_flow']:.1f} | {d['avg_ms']:.2f} | "
                      f"{d['last_ms']:.2f} | {d['ecn_marks']:,} | {d['pfc_pauses']:,}"),
    "b5all": ("avg ms | P99 ms | small avg / P99 ms | rate decreases | ECN marks | PFC pauses",
              lambda d: f"{d['avg_ms']:.3f} | {d['p99_art_ms']:.3f} | {d['small_avg_ms']:.4f} / "
                        f"{d['small_p99_ms']:.3f} | {d['rate_decreases']:,} | {d['ecn_marks']:,} | {d['pfc_pauses']:,}"),
    "b2": ("avg ms | last ms | drops | retransmits | timeouts | PFC pauses",
           lambda d: f"{d['avg_ms']:.2f} | {d['last_ms']:.2f} | {d['drops']:,} | {d['retransmits']:,} | "
                     f"{d['timeouts']:,} | {d['pfc_pauses']:,}"),
    "b5": ("avg ms | P99 ms | small avg / P99 ms | rate decreases | ECN marks | PFC pauses",
           lambda d: f"{d['avg_ms']:.3f} | {d['p99_art_ms']:.3f} | {d['small_avg_ms']:.4f} / "
                     f"{d['small_p99_ms']:.3f} | {d['rate_decreases']:,} | {d['ecn_marks']:,} | {d['pfc_pauses']:,}"),
}


def table(check: str, done: dict) -> None:
    head, row = COLUMNS[check]
    print(f"| cell | scheme | seed | ablation | {head} |")
    print("|" + "---|" * (4 + head.count("|") + 1))
    order = {n: i for i, n in enumerate(CHECKS[check][4])}
    for k in sorted((k for k in done if k[0] == check),
                    key=lambda k: (k[1], k[2], k[3], order.get(k[5], 99), k[4])):
        print(f"| {k[1]} {k[2]} | {k[3]} | {k[4]} | {k[5]} | {row(done[k])} |")


MEDIAN_FIELDS = ("avg_ms", "last_ms", "p99_art_ms", "same_avg_ms", "other_last_ms", "decreases_per_flow",
                 "small_avg_ms", "ecn_marks", "pfc_pauses", "drops", "retransmits", "timeouts")


def medians(check: str, done: dict) -> None:
    """Medians over seeds per (exp, scheme, ablation), the harness's statistic."""
    groups: dict = {}
    for k, d in done.items():
        if k[0] == check:
            groups.setdefault((k[1], k[2], k[3], k[5]), []).append(d)
    for g, ds in sorted(groups.items()):
        vals = {f: statistics.median(d[f] for d in ds) for f in MEDIAN_FIELDS if all(f in d for d in ds)}
        print(f"median of {len(ds)} | {' | '.join(g)} | " + ", ".join(f"{f} {v:.4g}" for f, v in vals.items()))


def harness_medians(runs_csv: Path) -> dict:
    """(experiment, point, scheme) -> (median avg ms, median P99 ms) over seeds, from the runs.csv
    that ``dcnsim reproduce laps`` writes."""
    import csv
    groups: dict = {}
    with open(runs_csv) as f:
        for row in csv.DictReader(f):
            if row["avg_fct_ms"] and not row.get("error"):
                groups.setdefault((row["experiment"], row["point"], row["scheme"]), []).append(
                    (float(row["avg_fct_ms"]), float(row["p99_fct_ms"])))
    return {k: (statistics.median(a for a, _ in v), statistics.median(p for _, p in v)) for k, v in groups.items()}


def b2_summary(done: dict, harness: dict) -> None:
    """Median avg FCT and its change against the no-loss cell: the harness's E5 "drop 0" runs, or
    for the window-off rows e5_baselines.py's no_window runs (same cells, no loss)."""
    e5 = {}
    e5_raw = HERE / "raw" / "e5_baselines.jsonl"
    for line in e5_raw.read_text().splitlines():
        d = json.loads(line)
        e5.setdefault((d["scheme"], d["ablation"]), []).append(d["avg_ms"])
    groups: dict = {}
    for k, d in done.items():
        if k[0] == "b2":
            groups.setdefault((k[3], k[5]), []).append(d)
    print("| scheme | ablation | seeds | median avg ms | no-loss reference ms | change | drops | timeouts |")
    print("|---|---|---|---|---|---|---|---|")
    for (scheme, name), ds in sorted(groups.items()):
        avg = statistics.median(d["avg_ms"] for d in ds)
        if name == "no_window":
            ref = statistics.median(e5[(scheme, "no_window")])
        elif name == "plb_no_window":
            ref_ds = groups.get((scheme, "plb_no_window_loss0"))
            ref = statistics.median(d["avg_ms"] for d in ref_ds) if ref_ds else math.nan
        elif name == "plb_no_window_loss0":
            continue
        else:
            ref = harness[("E5", "drop 0", scheme)][0]
        print(f"| {scheme} | {name} | {len(ds)} | {avg:.2f} | {ref:.2f} | {100 * (avg / ref - 1):+.1f} % | "
              f"{statistics.median(d['drops'] for d in ds):.0f} | {statistics.median(d['timeouts'] for d in ds):.0f} |")


def b5all_summary(done: dict, harness: dict) -> None:
    """B5 on E4 with LAPS's gate = "paper": per load, the medians of LAPS (ablated) and of the
    harness's baselines; LAPS lowest in avg and P99 or not; the mean of the avg over loads."""
    groups: dict = {}
    for k, d in done.items():
        if k[0] == "b5all":
            groups.setdefault(k[2], []).append(d)
    print("| load | LAPS gate paper avg / P99 | LAPS (harness) avg / P99 | best baseline avg | best baseline P99 "
          "| lowest avg | lowest P99 |")
    print("|---|---|---|---|---|---|---|")
    means = {"LAPS gate paper": [], "LAPS": []}
    for point, ds in sorted(groups.items()):
        a = statistics.median(d["avg_ms"] for d in ds)
        p = statistics.median(d["p99_art_ms"] for d in ds)
        base = {s: harness[("E4", point, s)] for s in runs.BASELINES}
        for s, (ba, _) in base.items():
            means.setdefault(s, []).append(ba)
        means["LAPS gate paper"].append(a)
        means["LAPS"].append(harness[("E4", point, "LAPS")][0])
        ba = min(base.items(), key=lambda kv: kv[1][0])
        bp = min(base.items(), key=lambda kv: kv[1][1])
        la, lp = harness[("E4", point, "LAPS")]
        print(f"| {point[5:]} | {a:.3f} / {p:.3f} | {la:.3f} / {lp:.3f} | {ba[0]} {ba[1][0]:.3f} | {bp[0]} {bp[1][1]:.3f} "
              f"| {'yes' if a < ba[1][0] else 'no'} | {'yes' if p < bp[1][1] else 'no'} |")
    print()
    print("mean avg FCT over loads: " + ", ".join(f"{s} {statistics.mean(v):.3f}" for s, v in means.items() if v) + " ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("check", choices=sorted(CHECKS))
    ap.add_argument("--table", action="store_true", help="print the table of the stored runs only")
    ap.add_argument("--harness-runs", type=Path,
                    help="runs.csv of `dcnsim reproduce laps` (b2, b5all: the harness's cells as references)")
    ap.add_argument("--seeds", type=int)
    ap.add_argument("--ablations")
    ap.add_argument("--schemes")
    ap.add_argument("--exps")
    args = ap.parse_args()
    exps, keep, schemes, seeds, abls = CHECKS[args.check]
    exps = args.exps.split(",") if args.exps else exps
    schemes = args.schemes.split(",") if args.schemes else schemes
    names = args.ablations.split(",") if args.ablations else list(abls)
    done = {}
    if RAW.is_file():
        for line in RAW.read_text().splitlines():
            d = json.loads(line)
            done[(d["check"], d["exp"], d["point"], d["scheme"], d["seed"], d["ablation"])] = d
    if args.table:
        table(args.check, done)
        print()
        medians(args.check, done)
        if args.harness_runs and args.check in ("b2", "b5all"):
            print()
            {"b2": b2_summary, "b5all": b5all_summary}[args.check](done, harness_medians(args.harness_runs))
        return
    RAW.parent.mkdir(parents=True, exist_ok=True)
    flows_dir = Path(tempfile.mkdtemp(prefix="laps-checks-flows-"))
    cells = runs.build_cells(exps, args.seeds or seeds, False, ROOT / "experiments" / "laps", "ablation",
                             flows_dir=flows_dir, schemes=schemes)
    cells = [c for c in cells if keep(c) and c.scheme in schemes]
    for name in names:
        for c in cells:
            key = (args.check, c.exp, c.point, c.scheme, c.seed, name)
            if key in done:
                continue
            spec = copy.deepcopy(c.spec)
            abls[name][1](spec)
            t0 = time.time()
            r = dcnsim.run(spec, base_dir=ROOT / "experiments" / "laps", allow_dirs=[flows_dir])
            d = {"check": args.check, "exp": c.exp, "point": c.point, "scheme": c.scheme, "seed": c.seed,
                 "ablation": name, "wall_s": round(time.time() - t0, 1), **summarise(args.check, c, r)}
            if args.check == "b1":
                FLOWS_OUT.mkdir(parents=True, exist_ok=True)
                r.flows.to_csv(FLOWS_OUT / f"{c.scheme}_seed{c.seed}_{name}.csv", index=False)
            done[key] = d
            with RAW.open("a") as f:
                f.write(json.dumps(d) + "\n")
            print(json.dumps(d), flush=True)
    table(args.check, done)
    for name in names:
        print(f"- {name}: {abls[name][0]}")


if __name__ == "__main__":
    main()
