"""E5 (Table 1, the 63 -> 1 AllReduce of 64 MB flows, no loss) with one setting changed at a
time, to find what makes the DCQCN baselines finish about 2 x sooner than the paper's
(ECMP 564 ms in the paper, about 280 ms in the harness; LAPS 162 ms against our 157 ms).

The cells are the harness's own (``dcnsim.repro.papers.laps.runs.build_cells``, E5 "drop 0");
each is run as the harness builds it and with each ablation below. Results go to
``raw/e5_baselines.jsonl`` (one line per run, kept between invocations: a run already there is
not repeated) and a markdown table is printed.

    PYTHONPATH=python python experiments/laps/ablations/e5_baselines.py [--seeds N] [--schemes ECMP,LAPS]

About 10 s of one core a run (90 runs for 3 seeds, 5 schemes and the 6 settings). Results:
``e5_results.md``.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import dcnsim
from dcnsim._scenario import apply_overrides
from dcnsim.repro.papers.laps import runs

ROOT = Path(__file__).resolve().parents[3]
RAW = Path(__file__).resolve().parent / "raw" / "e5_baselines.jsonl"

# name -> (the overrides, in `dcnsim run --set` form, applied to the cell's scenario; why)
ABLATIONS = {
    "base": ((), "the harness's cell"),
    "shared_buffer": (('switch.pfc.dynamic={ buffer_per_port = "1MB" }',),
                      "the LAPS artefact's shared buffer, 1 MB per port with dynamic thresholds, not 4 MB per port"),
    "buffer_1mb": (("switch.buffer=1MB",), "the artefact's 1 MB per port, as fixed PFC thresholds"),
    "no_window": (("transport.dcqcn.window=off",), "no in-flight window on the DCQCN baselines"),
    "red_by_rate": (("switch.ecn.reference_rate=100Gbps",),
                    "RED by port rate, as the LAPS artefact: 800 / 3200 KB on the 200 Gb/s GPU ports"),
    "flowlet_1s": (("transport.letflow.flowlet_timeout=1s",),
                   "LetFlow never sees a flowlet gap, so never re-paths (B6's LetFlow / ECMP)"),
    "window_2x": (("transport.dcqcn.window=214672B",),
                  "twice the unified window of 107,336 B: the round trip instead of the one-way delay"),
    "window_4x": (("transport.dcqcn.window=429344B",), "four times the unified window: the round trip at 200 Gb/s"),
}


def stats_of(r) -> dict:
    st = r.summary["stats"]
    fct = r.flows.fct_us
    return {
        "avg_ms": float(fct.mean()) / 1e3,
        "p99_ms": float(fct.quantile(0.99)) / 1e3,
        "last_ms": float(fct.max()) / 1e3,
        "finished": int(fct.notna().sum()),
        "ecn_marks": st.get("ecn_marks", 0),
        "pfc_pauses": st.get("pfc_pause_frames", 0),
        "timeouts": st.get("timeouts", 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--schemes", default="ECMP,LAPS")
    ap.add_argument("--ablations", default=",".join(ABLATIONS))
    args = ap.parse_args()
    schemes = args.schemes.split(",")
    names = args.ablations.split(",")
    done = {}
    if RAW.is_file():
        for line in RAW.read_text().splitlines():
            d = json.loads(line)
            done[(d["scheme"], d["seed"], d["ablation"])] = d
    RAW.parent.mkdir(parents=True, exist_ok=True)
    flows_dir = Path(tempfile.mkdtemp(prefix="laps-e5-flows-"))
    cells = runs.build_cells(["E5"], args.seeds, False, ROOT / "experiments" / "laps", "ablation",
                             flows_dir=flows_dir, schemes=schemes)
    cells = [c for c in cells if c.point == "drop 0" and c.scheme in schemes]
    for name in names:
        for c in cells:
            key = (c.scheme, c.seed, name)
            if key in done:
                continue
            spec = apply_overrides(c.spec, ABLATIONS[name][0])
            t0 = time.time()
            r = dcnsim.run(spec, allow_dirs=[flows_dir])
            d = {"scheme": c.scheme, "seed": c.seed, "ablation": name, "wall_s": round(time.time() - t0, 1),
                 **stats_of(r)}
            done[key] = d
            with RAW.open("a") as f:
                f.write(json.dumps(d) + "\n")
            print(d, flush=True)
    print("| scheme | seed | ablation | avg ms | P99 ms | last ms | finished | ECN marks | PFC pauses | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (scheme, seed, name), d in sorted(done.items()):
        print(f"| {scheme} | {seed} | {name} | {d['avg_ms']:.1f} | {d['p99_ms']:.1f} | {d['last_ms']:.1f} | "
              f"{d['finished']} | {d['ecn_marks']:,} | {d['pfc_pauses']:,} | {d['timeouts']:,} |")
    print()
    for name in names:
        overrides, why = ABLATIONS[name]
        print(f"- {name}: {', '.join(overrides) or 'no change'} ({why})")


if __name__ == "__main__":
    main()
