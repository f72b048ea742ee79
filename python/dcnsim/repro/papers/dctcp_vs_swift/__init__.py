"""``dcnsim reproduce dctcp-vs-swift``: the DCTCP-vs-Swift study (experiments E1-E6).

"Data Center Congestion Control Comparison: DCTCP vs Swift" (Technion LCCN student
project, ns-3). We run the ``paper`` profile (exact RTTs, 1 ms min RTO, ECMP, DCTCP with
K = 20 and K = 250 packets, the Swift paper's constants); the study's numbers come from
its ns-3 profile (1 ms RTT quantisation, 1 s min RTO, no ECMP, the study's Swift
constants), so they are printed beside ours as context, tagged "study fact, profile
differs", and the orderings C4-C9 are printed, not asserted. The experiments, the study's
numbers and the orderings: docs/reproductions/dctcp-vs-swift-paper.md.

Results: ``table.md`` (also printed), ``runs.csv`` and ``e<N>.png``. The modules:
``runs`` (metrics, variants, experiments, cells), ``checks`` (the orderings), ``tables``
and ``figures``; their public names are importable from here.
"""

from __future__ import annotations

from functools import partial

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.dctcp_vs_swift.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.figures import write_plots
from dcnsim.repro.papers.dctcp_vs_swift.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.runs import (
    _FLOW_COLUMNS,
    EXPERIMENTS,
    Grid,
    build_cells,
    evaluate,
    experiments_dir,
    parse_only,
)
from dcnsim.repro.papers.dctcp_vs_swift.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.tables import RUNS_COLUMNS, block, header, orderings, run_row

PAPER = Reproduction(
    "dctcp-vs-swift", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=evaluate,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=header, block=block, checks=orderings, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots,
)


def reproduction() -> Reproduction:
    """The paper's evaluation, as :func:`dcnsim.repro.core.drive` runs it."""
    return PAPER


# reproduce(quick=, seeds=, jobs=, only=, out=, stream=, dask=) -> (exit code, table text)
reproduce = partial(drive, PAPER)
