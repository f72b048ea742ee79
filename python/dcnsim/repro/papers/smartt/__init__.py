"""``dcnsim reproduce smartt``: the simulated experiments of the SMaRTT paper (UEC NSCC).

"SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport" (Bonato et al.,
arXiv 2404.01630 v4). This harness runs fifteen of its experiments and evaluates their
checks (docs/reproductions/smartt-paper.md):

- E1 (Fig. 1a; A3, A5): 8:1 oversubscribed 1024-host tree, permutation of 2 MiB flows;
- E3 (Fig. 3; F3): non-blocking tree, permutation, SMaRTT on ECMP, PLB, OPS and REPS;
- E5 (Fig. 5; A8): 80:1 incast, SMaRTT reading both signals, ECN only, delay only;
- E6 (Fig. 6; A7): two long flows with a 3.5x base-RTT ratio, fair vs additive increase;
- E8, E9 (Figs. 8, 9; F8, F9): incasts with QuickAdapt, and its ignore phase, on and off;
- E10 (Fig. 10; A4): an uneven incast, FastIncrease on and off;
- E11, E11b (Fig. 11a, b; A10): non-blocking and 8:1 trees, Case 2 no-op vs decrease;
- E12 (Fig. 12; A11): N:1 incasts, N × message size, five transports incl. RoCEv2;
- E13 (Figs. 13a-c; R14): permutations on 1:1, 2:1 and 4:1 trees;
- E14 (Fig. 13d; A4, A5): the 8:1 tree, 32 MiB flows and one of 64 MiB;
- E15 (Fig. 14; A6): windowed all-to-all on a 128-host tree 4:1 at the aggregation tier;
- E16 (Fig. 17 at 32/64 MiB; F17, A4): E14's scenario, EQDS with and without a sender window;
- E17 (§III-G; A9): window adjustment per packet, every 8th ACK or accumulated.

Results: ``table.md`` (also printed), ``runs.csv`` and PNG figures. The modules: ``runs``
(geometry, ideal times, variants, experiments, cells, metrics), ``series`` (the numbers
taken from time series), ``checks``, ``tables`` and ``figures``; their public names are importable from here.
"""

from __future__ import annotations

from functools import partial

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.smartt.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.figures import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.figures import write_plots
from dcnsim.repro.papers.smartt.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.smartt.series import *  # noqa: F401,F403
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
