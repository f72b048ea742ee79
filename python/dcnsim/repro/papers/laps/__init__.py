"""``dcnsim reproduce laps``: the simulated evaluation of the LAPS paper.

"LAPS: Joint Load Balancing and Congestion Control on Unequal-cost Multi-path Data Center
Networks" (Wan et al., NAIC '25). The fabrics, the experiments, the paper's numbers,
checks B1-B9 and the conflicts between the paper and its artefact are described in
docs/reproductions/laps-paper.md. This harness runs

- E1, E2 (Figs. 5, 6; B3, B4, B6): All2all on the 64-GPU rail fabric, DM and STR flow sizes,
  avg and P99 FCT against load; E1 in a steady state (10 ms of arrivals, FCTs of the flows
  that start in [1, 9) ms), both by size bucket with the ECN marks, PFC pauses and offered
  load beside each cell;
- E1H, E2H (B3, B4): E1 and E2 on the all-100G rail of the paper's text;
- E3, E4 (Figs. 7, 8; B5, B6): All2all on the 144-host dragonfly, RPC and HDP, with the PFC
  class change at global links for every scheme and, in E4, an ablation without it;
- E2A, E3A, E4A (Figs. 6-8 under the artefact's load; B4, B5): E2-E4 at every load under
  the artefact's load definition (the x1/100 of its percent-scale CDFs, the dragonfly's
  1.30 per-pair factor);
- E5 (Table 1; B1, B2, B6, B9): the 63 -> 1 AllReduce incast of 64 MB flows, with and
  without 1e-6 random loss, and the DCQCN baselines on the DCQCN paper's rules as an
  ablation;
- E6 (Fig. 9; B7, B8, B9): LAPS's reordering and receiver OOO buffer under AllScatter
  (1 -> 63) and AllReduce, against RPS (LAPS with beta = 0) and a beta sweep of the
  softmax.

Schemes (docs/models/laps.md and the balancers' docs): LAPS, the headline, with the
artefact's rules (the paper alone does not fix them and points to its artefact), and the
ablation "LAPS [text]" with the paper's literal rules; ECMP, LetFlow, CONGA and ConWeave
over the artefact's Mellanox DCQCN, PLB over DCTCP, all five with go-back-N, and RPS in
E5/E6. ECMP, LetFlow and PLB route over the LAPS candidate paths hop by hop
(``lb_paths = "candidates"``, docs/models/ecmp.md), CONGA picks one of the same candidate
paths per flowlet at the source (docs/models/conga.md), ConWeave moves a flow to another
of them when an RTT reply is late and reorders at the destination
(docs/models/conweave.md).

Results: ``table.md`` (also printed), ``runs.csv`` and PNG figures. The modules: ``runs``
(metrics, schemes, experiments, cells, results), ``checks``, ``tables`` and
``figures``; their public names are importable from here.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.laps.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.laps.figures import *  # noqa: F401,F403
from dcnsim.repro.papers.laps.figures import write_plots
from dcnsim.repro.papers.laps.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.laps.runs import (
    _FLOW_COLUMNS,
    CAP_US,
    EXPERIMENTS,
    Grid,
    build_cells,
    evaluate,
    experiments_dir,
    parse_only,
    summarize,
)
from dcnsim.repro.papers.laps.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.laps.tables import RUNS_COLUMNS, block, header, paper_checks, run_row

PAPER = Reproduction(
    "laps", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
    cells=build_cells, flow_columns=_FLOW_COLUMNS, evaluate=evaluate, cap_us=CAP_US,
    grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
    header=header, block=block, checks=paper_checks, checks_first=True, runs_columns=RUNS_COLUMNS, run_row=run_row,
    figures=write_plots, summarize=summarize,
)


def reproduction() -> Reproduction:
    """The paper's evaluation, as :func:`dcnsim.repro.core.drive` runs it (the LLM flow
    files go to ``results/reproduce-laps/flows``; :func:`reproduce` puts them under its
    ``out``)."""
    return PAPER


def reproduce(*, quick: bool = False, seeds: Optional[int] = None, jobs: Optional[int] = None,
              only: Optional[str] = None, out: Optional[str] = None, stream: Any = None,
              dask: Optional[str] = None, llm_bytes: Optional[int] = None,
              schemes: Optional[Sequence[str]] = None) -> tuple[int, str]:
    """``dcnsim reproduce laps``: (exit code, table text). The LLM flow files go to
    ``<out>/flows/``; ``llm_bytes`` overrides the LLM flow size (tests); ``schemes`` runs
    only those schemes (e.g. ``[PLB, PLB_W]``: PLB over the rate-based and over the window
    DCTCP)."""
    out_dir = Path(out) if out else Path("results") / "reproduce-laps"
    repro = replace(PAPER, cells=lambda keys, n, q, exp_dir, fp: build_cells(
        keys, n, q, exp_dir, fp, flows_dir=out_dir / "flows", llm_bytes=llm_bytes, schemes=schemes))
    return drive(repro, quick=quick, seeds=seeds, jobs=jobs, only=only, out=str(out_dir),
                 stream=stream if stream is not None else sys.stderr, dask=dask)
