"""PrioPlus's flow-count estimate on H8 / AC17 (F12C) and AC16 (F12AB, 70 %).

f14.md and f11.md found that the estimate of the paper's Algorithm 1, line 9
(#flow = delay·LineRate/cwnd at a stop), stays high for the low levels' flows and keeps
their windows under one packet for hundreds of µs. This script tests the same setting on
two other failing checks. Each line is the harness's runs of the check (the scenario file,
overrides and seeds of ``runs.build_cells``: 9 seeds for F12C [A], 3 for F12AB 70 %), with
one setting changed in PrioPlus's runs only; the baseline (Swift in one queue) and
Physical+Swift keep the table's runs. The figures are the harness's (``checks.f12c_speedups``,
``checks.f12ab_diff``), through ``ablate_checks.py``'s loader and figure functions.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12_nflow.py
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12_nflow.py --only F12C
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12_nflow.py --only F12AB \\
        --harness-cache OUT/cache

``--raw DIR`` stores the runs in DIR instead (with no ``--harness-cache``, a fresh DIR
simulates the table's runs again). ``--harness-cache`` reads base runs (no change) from a ``dcnsim reproduce prioplus`` cache
when their scenario equals the one ``build_cells`` builds. Runs are stored under
``raw/f12_nflow/`` (gzipped JSON, not committed). The tables go to stdout; f12_nflow.md
holds them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402
from ablate_checks import Cells, Line, Study  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "f12_nflow"

NFLOW1 = ("transport.prioplus.cardinality=false",)
TARGET = ('transport.prioplus.flow_estimate="target"',)
WIDE = ('transport.prioplus.fluctuation="7.2us"',)

CELLS = (
    Cells("f12c_swift", "F12C", R.SWIFT_FLAT, (R.F12C_A,)),
    Cells("f12c_pp", "F12C", R.PP, (R.F12C_A,)),
    Cells("f12c_pp_nflow1", "F12C", R.PP, (R.F12C_A,), NFLOW1),
    Cells("f12c_pp_target", "F12C", R.PP, (R.F12C_A,), TARGET),
    Cells("f12c_pp_wide", "F12C", R.PP, (R.F12C_A,), WIDE),
    Cells("f12ab_swift", "F12AB", R.SWIFT_FLAT, ("70%",)),
    Cells("f12ab_pp", "F12AB", R.PP, ("70%",)),
    Cells("f12ab_phys", "F12AB", R.PHYS, ("70%",)),
    Cells("f12ab_pp_nflow1", "F12AB", R.PP, ("70%",), NFLOW1),
    Cells("f12ab_pp_target", "F12AB", R.PP, ("70%",), TARGET),
    Cells("f12ab_pp_wide", "F12AB", R.PP, ("70%",), WIDE),
)

L_NFLOW1 = "PrioPlus: no flow-count estimate (#flow = 1)"
L_TARGET = "PrioPlus: the artefact's flow-count estimate (\"target\"), not the paper's"
L_WIDE = "PrioPlus: A 7.2 µs, not 3.2 µs (level spacing 8 µs, not 4 µs)"

STUDIES = [
    Study("F12C", "H8 / AC17", "F12C [A]: PrioPlus+Swift training speedup ResNet / VGG / total",
          "1.12 / 1.15 / 1.13 (± 0.05)", (
              Line("table", ("f12c_swift", "f12c_pp")),
              Line(L_NFLOW1, ("f12c_swift", "f12c_pp_nflow1")),
              Line(L_TARGET, ("f12c_swift", "f12c_pp_target")),
              Line(L_WIDE, ("f12c_swift", "f12c_pp_wide")),
          ), AC.f12c_figures, AC.f12c_meets, "each within ± 0.05"),
    Study("F12AB", "AC16", "F12AB 70 %: coflow CCT speedup PrioPlus − Physical (ratio of means)", "+0.21 ± 0.10", (
        Line("table", ("f12ab_swift", "f12ab_pp", "f12ab_phys")),
        Line(L_NFLOW1, ("f12ab_swift", "f12ab_pp_nflow1", "f12ab_phys")),
        Line(L_TARGET, ("f12ab_swift", "f12ab_pp_target", "f12ab_phys")),
        Line(L_WIDE, ("f12ab_swift", "f12ab_pp_wide", "f12ab_phys")),
    ), AC.f12ab_figures, lambda f: f["PrioPlus − Physical, all"] >= 0.11, "≥ +0.11"),
]

AC.STUDIES = STUDIES
AC.BY_KEY = {c.key: c for c in CELLS}


def main(argv: list[str]) -> int:
    # --raw DIR: store the runs there instead (a fresh folder with no --harness-cache
    # simulates the table's runs again on the current core).
    if "--raw" in argv:
        i = argv.index("--raw")
        AC.RAW = Path(argv[i + 1]).resolve()
        argv = argv[:i] + argv[i + 2:]
    return AC.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
