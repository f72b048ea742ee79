"""``dcnsim reproduce mswift``: the evaluation of the MSwift paper (Fig. 4-14).

"Congestion Control for Spraying with Congested Paths" (arXiv 2509.07907 v2). Every
figure is a grid of (CCA, load balancer) cells over seeds; each cell runs one scenario of
``experiments/mswift/`` with ``--set`` style overrides (``transport.cc=...``,
``workload.<sprayed>.lb=...``, ``seed=...``). The results become (the experiments and
checks: docs/reproductions/mswift-paper.md):

- ``table.md``: one block per figure, CCT increase over the zero-queueing lower bound as
  mean +- SEM over seeds (in a full run, a cell whose SEM exceeds a third of its mean gets
  a second pass up to 10 seeds, :func:`more_cells`), rows = CCAs, columns = OPS / AR / REPS, then the paper's numbers
  beside ours and the Tier B checks;
- ``runs.csv``: one row per (figure, cell, seed) with drops, timeouts, retransmits;
- ``fig<N>.png``: bar charts with SEM error bars, and ``fig5_fct_cdf.png``.

The modules: ``runs`` (metrics, figures and rows, cells, results, E7's failed links),
``checks``, ``tables`` and ``figures``; their public names are importable from here.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Any, Optional

from dcnsim.repro.core import Reproduction, drive
from dcnsim.repro.papers.mswift.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.mswift.figures import write_plots
from dcnsim.repro.papers.mswift.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.mswift.runs import (
    _FLOW_COLUMNS,
    SIM_CAP_US,
    build_cells,
    evaluate,
    experiments_dir,
    figure_grids,
    more_cells,
    parse_only,
    repro_scale,
)
from dcnsim.repro.papers.mswift.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.mswift.tables import RUNS_COLUMNS, block, header, run_row


def reproduction() -> Reproduction:
    """The paper's evaluation, as :func:`dcnsim.repro.core.drive` runs it. Made per call:
    :func:`repro_scale` is read once, and the cells, the header and the status of the
    checks depend on it."""
    scale = repro_scale()
    return Reproduction(
        "mswift", seeds=5, quick_seeds=2, select=parse_only, experiments_dir=experiments_dir,
        cells=partial(build_cells, scale=scale), flow_columns=_FLOW_COLUMNS, evaluate=evaluate, grids=figure_grids,
        header=partial(header, scale=scale), block=partial(block, scale=scale), runs_columns=RUNS_COLUMNS,
        run_row=run_row, figures=write_plots, heading="Fig. {key}", cap_us=SIM_CAP_US, runs_noun="cell runs",
        more_cells=partial(more_cells, scale=scale),
    )


def reproduce(
    *, quick: bool = False, seeds: Optional[int] = None, jobs: Optional[int] = None, only: Optional[str] = None,
    out: Optional[str] = None, stream: Any = sys.stderr, dask: Optional[str] = None,
) -> tuple[int, str]:
    """Run the selected figures and write the results; return (exit code, table text)."""
    return drive(reproduction(), quick=quick, seeds=seeds, jobs=jobs, only=only, out=out, stream=stream, dask=dask)
