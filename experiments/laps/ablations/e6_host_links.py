"""E6 (Fig. 9) with one setting changed: the host links at 100 Gb/s (the paper's text, every
link 100 Gb/s) instead of the artefact's 200 Gb/s GPU links over the 100 Gb/s rail fabric.

The cells are the harness's own (``dcnsim.repro.papers.laps.runs.build_cells``: E6's
AllScatter, 1 GPU to 63, and E5's no-drop LLM run, which is the AllReduce that E6's check B8
reads), for LAPS (the headline, the artefact's rules) and RPS, seeds 1..3; each is run as the
harness builds it and again with ``topology.host_link_rate = "100Gbps"``. Prints a markdown
table: reordered packets, the receiver's mean out-of-order buffer and P(> 30 KB) (B7, B8),
ECN marks, PFC pauses and the last FCT.

    PYTHONPATH=python python experiments/laps/ablations/e6_host_links.py [--seeds N]

About 6 minutes of one core (24 runs of 10-20 s).
"""
from __future__ import annotations

import argparse
import copy
import tempfile
from pathlib import Path

import dcnsim
from dcnsim.repro.papers.laps import runs

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    flows_dir = Path(tempfile.mkdtemp(prefix="laps-e6-flows-"))
    cells = runs.build_cells(["E5", "E6"], args.seeds, False, ROOT / "experiments" / "laps", "ablation",
                             flows_dir=flows_dir, schemes=["LAPS", "RPS"])
    cells = [c for c in cells if (c.exp, c.point) in (("E6", "allscatter"), ("E5", "drop 0"))]
    rows = []
    for c in cells:
        for host in (None, "100Gbps"):
            spec = copy.deepcopy(c.spec)
            if host:
                spec["topology"]["host_link_rate"] = host
            r = dcnsim.run(spec, allow_dirs=[flows_dir])
            st = r.summary["stats"]
            pattern = "AllScatter" if c.exp == "E6" else "AllReduce"
            rows.append((pattern, c.scheme, c.seed, host or "200Gbps (artefact)",
                         st["reordered_packets"] / st["data_packets"], st["ooo_buffer_mean_kb"],
                         st["ooo_buffer_above_30kb"], st["ecn_marks"], st.get("pfc_pause_frames", 0),
                         float(r.flows.fct_us.max()) / 1e3))
            print(rows[-1], flush=True)
    print("| pattern | scheme | seed | host links | reordered | mean OOO KB | P(OOO > 30 KB) | ECN marks | PFC pauses "
          "| last FCT ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows):
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {100 * r[4]:.2f} % | {r[5]:.3f} | {100 * r[6]:.1f} % | {r[7]:,} "
              f"| {r[8]:,} | {r[9]:.2f} |")


if __name__ == "__main__":
    main()
