"""AC16 / H5 / H6 (F12AB, coflow CCT speedup PrioPlus+Swift − Physical+Swift; paper +0.12 ±
0.08 at 40 %, +0.21 ± 0.10 at 70 %) on the table whose physical schemes' NICs send by
priority: does H3's mechanism still carry it?

On the earlier, round-robin table, halving Physical+Swift's additive increase (0.09 packet per
RTT, not 0.18) lifted AC16 at 70 % from +0.088 to +0.113, the band's edge (results_checks.md).
That is H3's mechanism: Physical's low levels re-accelerate slowly after strict priority
starves them. Since the NICs send by priority, AC16 reads +0.027 (40 %) and −0.010 (70 %).
This line reruns Physical+Swift's F12AB runs with the halved increase; Swift without
priorities (the speedups' baseline) and PrioPlus keep their table runs. Seeds are the
harness's (3).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_ac16_nic.py --harness-cache OUT/cache

The table's runs are read from ``--harness-cache`` (a ``dcnsim reproduce prioplus --out OUT``
cache folder); the changed runs are simulated and stored under ``raw/ac16_nic/`` (gzipped
JSON, not committed). ac16_nic.md holds the output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells and the cached loader)
from ablate_checks import Cells  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "ac16_nic"

POINTS = ("40%", "70%")
AI_HALF = ("transport.swift.ai=0.09",)
CELLS = [
    Cells("f12ab_swift", "F12AB", R.SWIFT_FLAT, POINTS),
    Cells("f12ab_pp", "F12AB", R.PP, POINTS),
    Cells("f12ab_phys", "F12AB", R.PHYS, POINTS),
    Cells("f12ab_phys_ai_half", "F12AB", R.PHYS, POINTS, AI_HALF),
]
AC.BY_KEY = {c.key: c for c in CELLS}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harness-cache", type=Path, default=None)
    AC.HARNESS_CACHE = ap.parse_args(argv).harness_cache
    base = AC.load(AC.BY_KEY["f12ab_swift"]) + AC.load(AC.BY_KEY["f12ab_pp"])
    print("| line | 40 %: PrioPlus − Physical (high, low, all) | 70 %: (high, low, all) | AC16 (40 % +0.12 ± 0.08, 70 % +0.21 ± 0.10) |")
    print("|---|---|---|---|")
    for label, key in (("table (NIC by priority)", "f12ab_phys"),
                       ("Physical+Swift's additive increase 0.09 packet, not 0.18", "f12ab_phys_ai_half")):
        g = R.Grid(R.EXPERIMENTS["F12AB"], base + AC.load(AC.BY_KEY[key]))
        d = {p: C.f12ab_diff(g, p) for p in POINTS}
        ok = abs(d["40%"][2] - 0.12) <= 0.08 and abs(d["70%"][2] - 0.21) <= 0.10
        cells = [", ".join(f"{x:+.3f}" for x in d[p]) for p in POINTS]
        print(f"| {label} | {cells[0]} | {cells[1]} | {'holds' if ok else 'fails'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
