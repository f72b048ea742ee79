"""The papers ``dcnsim reproduce`` knows: the name on the command line, the package that
reproduces it and a one-line description. The command's choices, its dispatch and
``dcnsim reproduce --list`` all read :data:`PAPERS`.

A paper's package (``dcnsim.repro.papers.<name>``) provides ``reproduction()``, the
:class:`dcnsim.repro.core.Reproduction` that describes its evaluation, and
``reproduce(*, quick, seeds, jobs, only, out, stream, dask)``, which runs it and returns
(exit code, table text). A paper with more than one profile (``Paper.profiles``, the first
the default) also takes ``profile`` there and in ``reproduction(profile)``; ``dcnsim
reproduce --profile`` passes it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Paper:
    name: str  # on the command line
    module: str  # the package that reproduces it
    description: str  # one line, for --list
    profiles: tuple[str, ...] = ()  # the settings it can run (--profile), the default first; () = one


PAPERS: dict[str, Paper] = {p.name: p for p in [
    Paper("mswift", "dcnsim.repro.papers.mswift",
          "Congestion Control for Spraying with Congested Paths (MSwift, MNSCC): Fig. 4-14"),
    Paper("dctcp-vs-swift", "dcnsim.repro.papers.dctcp_vs_swift",
          "Data Center Congestion Control Comparison: DCTCP vs Swift: experiments E1-E6",
          profiles=("paper", "ns3_study")),
    Paper("smartt", "dcnsim.repro.papers.smartt",
          "SMaRTT: Sender-based Marked Rapidly-adapting Trimmed & Timed Transport (UEC NSCC)"),
    Paper("prioplus", "dcnsim.repro.papers.prioplus",
          "Enabling Virtual Priority in Data Center Congestion Control (PrioPlus)"),
    Paper("laps", "dcnsim.repro.papers.laps",
          "LAPS: Joint Load Balancing and Congestion Control on Unequal-cost Multi-path Networks"),
]}


def load(name: str) -> ModuleType:
    """The package of the paper called ``name`` on the command line (KeyError if none)."""
    return importlib.import_module(PAPERS[name].module)


def listing() -> str:
    """The papers, one a line: name and description (``dcnsim reproduce --list``)."""
    width = max(len(n) for n in PAPERS)
    return "\n".join(f"{p.name:<{width}}  {p.description}" for p in PAPERS.values())
