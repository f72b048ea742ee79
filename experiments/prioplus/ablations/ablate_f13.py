"""Ablation runs behind H19 / AC19 (the PrioPlus paper's Fig. 13, F13) at B = 20 and 30 µs.

The check: with a non-congestive delay uniform in [0, R] and PrioPlus's tolerable noise B
(``transport.prioplus.noise``) = 10, 20, 30 µs, the smallest R whose normalised FCT gap to
Physical+Swift reaches 0.5 is 14 / 24 / 32 µs in the paper; the table has 0 / 0 / 0 µs.
``results_checks.md`` (this folder) showed the B = 10 point: without the probe before start
(``direct_start_levels = 6``) it is 14 µs. This script starts from that change ("direct") and
changes one more setting in PrioPlus's runs (or, where a line says so, in Physical+Swift's).

Every line runs the harness's full F13 sweep (``runs.f13_runs``: R = 0, 2, ..., 60 µs, the
delay held at the receiver, seeds 1..3) for B = 10, 20 and 30, with the harness's own
scenario file and overrides, and the harness's figures (``checks.f13_gaps``,
``metrics.first_break``). A sibling of ``ablate_checks.py``: same storage (``raw/checks/``,
not committed) and the same check that a base line's scenarios are the harness's.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f13.py          # every line
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f13.py --only direct,iw34

The table (markdown) goes to stdout; f13.md holds it.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import metrics as M  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

DIRECT = ("transport.prioplus.direct_start_levels=6",)
POINTS = tuple(f"R={r}" for r in R.F13_RS)


@dataclass(frozen=True)
class Line:
    key: str
    label: str
    pp: tuple[str, ...]         # PrioPlus's overrides (on top of the harness's)
    phys: tuple[str, ...] = ()  # Physical+Swift's overrides
    on_direct: bool = True      # on top of the probe change (direct_start_levels = 6)


LINES = [
    Line("table", "table (the harness's runs)", (), on_direct=False),
    Line("direct", "no probe before start (direct_start_levels = 6)", DIRECT, on_direct=False),
]


def cells(line: Line) -> list[AC.Cells]:
    phys = AC.Cells(f"f13_phys{'_' + line.key if line.phys else ''}", "F13", R.PHYS, POINTS, line.phys)
    pp = [AC.Cells(f"f13_pp{b}" if line.key == "table" else f"f13_pp{b}_{line.key}", "F13", f"{R.PP} B={b}",
                   POINTS, line.pp) for b in R.F13_BS]
    return [phys, *pp]


def figures(g: R.Grid) -> dict[str, float]:
    out = AC.f13_figures(g)
    gaps = C.f13_gaps(g)
    for b in R.F13_BS:
        d = dict(gaps.get(b, []))
        out[f"B={b} gaps"] = " ".join(f"{d.get(float(r), math.nan):.2f}" for r in range(0, 42, 4))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    rows = []
    for line in LINES:
        if only and line.key not in only:
            continue
        t = time.time()
        res = []
        for c in cells(line):
            res += AC.load(c, io.StringIO())
        f = figures(R.Grid(R.EXPERIMENTS["F13"], res))
        rows.append((line, f, len(res)))
        print(f"{line.key}: {len(res)} runs, {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    print("| line | change | on the probe change | " + " | ".join(
        f"B={b} gap at R=0 | B={b} smallest R | B={b} p6 / Physical at R=0" for b in R.F13_BS) + " | runs |")
    print("|---|---|---|" + "---|---|---|" * len(R.F13_BS) + "---|")
    for line, f, n in rows:
        change = ", ".join(f"`{x}`" for x in line.pp if x not in DIRECT) or "—"
        if line.phys:
            change += " (Physical: " + ", ".join(f"`{x}`" for x in line.phys) + ")"
        cols = []
        for b in R.F13_BS:
            cols += [f"{f[f'B={b} gap at R=0']:.2f}", f"{f[f'B={b} smallest R gap ≥ 0.5']:.0f}",
                     f"{f[f'B={b} p6 FCT / Physical' + chr(39) + 's at R=0']:.2f}"]
        print(f"| {line.label} | {change} | {'yes' if line.on_direct else 'no'} | " + " | ".join(cols) + f" | {n} |")
    print()
    print("Gap to Physical+Swift at R = 0, 4, ..., 40 µs (mean over seeds 1-3):")
    print()
    print("| line | " + " | ".join(f"B={b}" for b in R.F13_BS) + " |")
    print("|---|" + "---|" * len(R.F13_BS))
    for line, f, _ in rows:
        print(f"| {line.key} | " + " | ".join(f[f"B={b} gaps"] for b in R.F13_BS) + " |")


if __name__ == "__main__":
    main()
