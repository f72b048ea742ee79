"""``dcnsim reproduce smartt``: the simulated experiments of the SMaRTT paper (UEC NSCC).

"SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport" (Bonato et al.,
arXiv 2404.01630 v4). This harness runs five of its experiments and evaluates six checks
(docs/reproductions/smartt-paper.md):

- E1 (Fig. 1a; A3, A5): 8:1 oversubscribed 1024-host tree, permutation of 2 MiB flows;
- E14 (Fig. 13d; A4, A5): the same tree, 32 MiB flows and one of 64 MiB;
- E11 (Fig. 11a; A10): non-blocking tree, permutation, NSCC's Case 2 no-op vs decrease;
- E12 (Fig. 12; A11): N:1 incasts, N × message size, five transports incl. RoCEv2;
- E15 (Fig. 14; A6): windowed all-to-all on a 128-host tree 4:1 at the aggregation tier.

Results: ``table.md`` (also printed), ``runs.csv`` and PNG figures. The modules: ``runs``
(geometry, ideal times, variants, experiments, cells, metrics), ``checks``, ``tables``
and ``figures``; their public names are importable from here.
"""

from __future__ import annotations

from functools import partial

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.smartt.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.figures import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.figures import write_plots
from dcnsim.repro.papers.smartt.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.runs import (
    _FLOW_COLUMNS,
    EXPERIMENTS,
    Grid,
    build_cells,
    cwnd_summary,
    evaluate,
    experiments_dir,
    parse_only,
)
from dcnsim.repro.papers.smartt.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.tables import RUNS_COLUMNS, block, header, paper_numbers, run_row

PAPER = Reproduction(
    "smartt", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=evaluate, summarize=cwnd_summary,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=header, block=block, checks=paper_numbers, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots,
)


def reproduction() -> Reproduction:
    """The paper's evaluation, as :func:`dcnsim.repro.core.drive` runs it."""
    return PAPER


# reproduce(quick=, seeds=, jobs=, only=, out=, stream=, dask=) -> (exit code, table text)
reproduce = partial(drive, PAPER)
