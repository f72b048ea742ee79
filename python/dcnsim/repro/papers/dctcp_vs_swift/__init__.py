"""``dcnsim reproduce dctcp-vs-swift``: the DCTCP-vs-Swift study (experiments E1-E6).

"Data Center Congestion Control Comparison: DCTCP vs Swift" (Technion LCCN student
project, ns-3). Two profiles (``--profile``): ``paper`` (the default: exact RTTs, 1 ms min
RTO, ECMP, DCTCP with K = 20 and K = 250 packets, the Swift paper's constants), where the
study's numbers are printed beside ours as context, tagged "study fact, profile differs";
and ``ns3_study``, the study's own ns-3 build as far as dcnsim models it (1 ms RTT
quantisation, 1 s min RTO, one path per destination, per-packet ACKs, the NIC ring folded
into the ports, loss feeding DCTCP's α, the study's Swift constants), where the study's
numbers and its checks C4-C9 are directly comparable. The orderings are printed, never
turned into an exit code. The experiments, the study's numbers, the profiles and the
orderings: docs/reproductions/dctcp-vs-swift-paper.md.

Results: ``table.md`` (also printed), ``runs.csv`` and ``e<N>.png``, by default under
``results/reproduce-dctcp-vs-swift`` (``paper``) or ``...-ns3_study``. The modules:
``runs`` (metrics, variants, profiles, experiments, cells), ``checks`` (the orderings),
``tables`` and ``figures``; their public names are importable from here.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Any, Optional

from dcnsim.repro.core import Reproduction, drive, per_experiment
from dcnsim.repro.papers.dctcp_vs_swift.checks import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.figures import write_plots
from dcnsim.repro.papers.dctcp_vs_swift.runs import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.runs import (
    _FLOW_COLUMNS,
    EXPERIMENTS,
    PROFILES,
    Grid,
    build_cells,
    evaluate,
    experiments_dir,
    parse_only,
    profile,
)
from dcnsim.repro.papers.dctcp_vs_swift.tables import *  # noqa: F401,F403
from dcnsim.repro.papers.dctcp_vs_swift.tables import RUNS_COLUMNS, block, header, orderings, run_row


def _reproduction(name: str) -> Reproduction:
    prof = profile(name)
    return Reproduction(
        "dctcp-vs-swift", seeds=3, quick_seeds=1, select=parse_only, experiments_dir=experiments_dir,
        cells=partial(build_cells, profile_name=prof.name), flow_columns=_FLOW_COLUMNS, evaluate=evaluate,
        grids=per_experiment(lambda key, runs: Grid(EXPERIMENTS[key], runs)),
        header=partial(header, prof=prof), block=partial(block, prof=prof), checks=partial(orderings, prof=prof),
        runs_columns=RUNS_COLUMNS, run_row=run_row, figures=write_plots,
    )


_BY_PROFILE = {name: _reproduction(name) for name in PROFILES}
PAPER = _BY_PROFILE["paper"]


def reproduction(profile: str = "paper") -> Reproduction:
    """The paper's evaluation under ``profile`` (``paper`` or ``ns3_study``), as
    :func:`dcnsim.repro.core.drive` runs it."""
    if profile not in _BY_PROFILE:
        raise ValueError(f"profile {profile!r}: allowed {', '.join(_BY_PROFILE)}")
    return _BY_PROFILE[profile]


def reproduce(*, profile: str = "paper", quick: bool = False, seeds: Optional[int] = None,
              jobs: Optional[int] = None, only: Optional[str] = None, out: Optional[str] = None,
              stream: Any = sys.stderr, dask: Optional[str] = None) -> tuple[int, str]:
    """Run the selected experiments under ``profile`` and return (exit code, table text).
    The default output directory names the profile, except ``paper``'s (unchanged)."""
    repro = reproduction(profile)
    if out is None and profile != "paper":
        out = f"results/reproduce-{repro.paper}-{profile}"
    return drive(repro, quick=quick, seeds=seeds, jobs=jobs, only=only, out=out, stream=stream, dask=dask)
