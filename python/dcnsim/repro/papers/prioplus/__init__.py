"""``dcnsim reproduce prioplus``: the simulated evaluation of the PrioPlus paper.

"Enabling Virtual Priority in Data Center Congestion Control" (Zhang et al., EuroSys 2025).
The experiments, the paper's numbers and the acceptance checks are described in
docs/reproductions/prioplus-paper.md. This harness runs

- F11 (Fig. 11; AC15, H1-H4): flow scheduling on the k = 6 fat tree, WebSearch at 70 %,
  N = 2..8 size-based priorities (12 and 16 for the schemes that have that many queues);
  PrioPlus+Swift vs Physical+Swift (at most 8 queues, PFC headroom carved from the shared
  buffer) vs Physical*+Swift (one queue per level, headroom free), the Physical schemes
  with ACKs at their data's priority as in the artefact; at N = 8 also PrioPlus*+Swift
  (ACKs in the data queue; App. A.3, H11) and Physical*+Swift with ACKs on top (ablation);
- F14 (Fig. 14; AC18, H15-H18): 12 levels, each its own WebSearch at 1/12 of 50 %;
- F13 (Fig. 13; AC19, H19): the testbed's four-level staircase at 10 Gbps with a uniform
  non-congestive delay of range R added to every delay sample, tolerable noise B = 10, 20,
  30 µs; the normalised FCT gap to Physical+Swift;
- F10D (Fig. 10d; AC10, H20): five same-level flows under 1-4 x the NIC noise, sweeping the
  channel width; and the 2-sample filter against none;
- M1, M2, M4 (Fig. 3a, b, d; AC13, H24): D2TCP's and scaled Swift's weighted sharing,
  Swift's idle low flow at its minimum rate; PrioPlus in the M1 and M2 setups;
- AC14 (Fig. 9 analogue): PrioPlus vs plain Swift with a 5x additive increase;
- F12C (Fig. 12c; AC17, H8-H9): 4 ResNet and 4 VGG data-parallel jobs (ring all-reduce,
  one worker per leaf) on the artefact's 3-leaf, 1-spine, 4:1 fabric for 20 ms; training
  speedup = iterations completed relative to Swift without priorities;
- F12AB (Fig. 12a/b; AC16, H5-H7): coflows (FB2010-like MapReduce shuffles) and file
  requests (20 senders to 1) at a 1:1 load ratio, 8 size-based levels each, on the
  artefact's 320-host 5-pod fat tree at 40 % and 70 % load; CCT speedup per level over
  Swift without priorities, averaged over the high 4 and the low 4 levels, and overall
  (every coflow of every level pooled: the paper's "overall CCT speedup ratio").

Results: ``table.md`` (also printed), ``runs.csv`` and PNG figures. The modules:
``metrics`` (buffer model, metric functions, the run summary), ``runs`` (experiments,
cells, results), ``checks``, ``tables`` and ``figures``; their public names are
importable from here.
"""

from __future__ import annotations

from functools import partial

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.prioplus.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.prioplus.figures import write_plots
from dcnsim.repro.papers.prioplus.metrics import *  # noqa: F401,F403
from dcnsim.repro.papers.prioplus.metrics import summarize
from dcnsim.repro.papers.prioplus.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.prioplus.runs import (
    _FLOW_COLUMNS,
    CAP_US,
    EXPERIMENTS,
    Grid,
    RunResult,
    build_cells,
    experiments_dir,
    parse_only,
)
from dcnsim.repro.papers.prioplus.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.prioplus.tables import RUNS_COLUMNS, block, header, paper_checks, run_row

PAPER = Reproduction(
    "prioplus", seeds=9, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=RunResult, cap_us=CAP_US, summarize=summarize,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=header, block=block, checks=paper_checks, checks_first=True, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots,
)


def reproduction() -> Reproduction:
    """The paper's evaluation, as :func:`dcnsim.repro.core.drive` runs it."""
    return PAPER


# reproduce(quick=, seeds=, jobs=, only=, out=, stream=, dask=) -> (exit code, table text)
reproduce = partial(drive, PAPER)
