"""H11 (F11, N = 8): PrioPlus* (its ACKs in the one data queue, App. A.3) against PrioPlus
(ACKs in the strict-priority control queue). Paper: < 10 % worse; the table: avg 9 %, p99 12 %
worse.

PrioPlus reads the round-trip time from each ACK. With its ACKs behind data in the one FIFO
queue, the reverse path's queueing enters every sample, so PrioPlus* sees more delay than
PrioPlus for the same forward queues. The line gives PrioPlus* the one-way delay instead
(``transport.prioplus.delay = "owd"``: the data packet's one-way delay plus the flow's base
RTT minus its base one-way delay, docs/scenario.md), which leaves that queueing out. PrioPlus
keeps its table runs. Seeds are the harness's (9).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h11.py --harness-cache OUT/cache

With ``--harness-cache`` (a ``dcnsim reproduce prioplus --out OUT`` cache folder) the table's
runs are read from there; the changed runs are simulated and stored under ``raw/h11/``
(gzipped JSON, not committed). h11.md holds the output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells and the cached loader)
from ablate_checks import Cells  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "h11"

OWD = ('transport.prioplus.delay="owd"',)
CELLS = [
    Cells("f11_pp", "F11", R.PP, ("N=8",)),
    Cells("f11_pp_star", "F11", R.PP_STAR, ("N=8",)),
    Cells("f11_pp_star_owd", "F11", R.PP_STAR, ("N=8",), OWD),
]
AC.BY_KEY = {c.key: c for c in CELLS}


def h11(star_key: str) -> tuple[float, float]:
    runs = AC.load(AC.BY_KEY["f11_pp"]) + AC.load(AC.BY_KEY[star_key])
    st = C.f11_stats(R.Grid(R.EXPERIMENTS["F11"], runs))
    return tuple(C.f11_ratio(st, "N=8", R.PP_STAR, R.PP, "all", i) for i in (1, 2))  # type: ignore[return-value]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harness-cache", type=Path, default=None)
    AC.HARNESS_CACHE = ap.parse_args(argv).harness_cache
    print("| line | PrioPlus* / PrioPlus, avg FCT (all) | p99 FCT (all) | H11 (< 1.10) |")
    print("|---|---|---|---|")
    for label, key in (("table: PrioPlus* on round-trip times", "f11_pp_star"),
                       ("PrioPlus* on one-way delays (`delay = \"owd\"`)", "f11_pp_star_owd")):
        avg, p99 = h11(key)
        print(f"| {label} | {avg:.3f} | {p99:.3f} | {'holds' if max(avg, p99) < 1.10 else 'fails'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
