"""F11 and F14 with the physical-priority schemes' host NICs sending by priority.

dcnsim's host NIC serves its ready flows round robin whatever their levels; the PrioPlus
artefact's hosts dequeue their physical priority queues in strict order (h18_d2tcp.md, the
sender-NIC rows). ``transport.nic_scheduler = "priority"`` gives dcnsim's NIC that order
(docs/models/priority-queues.md). This script reruns every F11 and F14 run of the
physical-priority schemes (Physical+Swift, Physical*+Swift, Physical*+Swift with ACKs on
top, Physical* w/o CC) with it, keeps every other scheme's runs as the harness runs them
(one data queue: a NIC has nothing to order them by), and prints the harness's own F11 and
F14 checks (``checks_f11``, ``checks_f14``) and headlines H1-H4, H10, H11, H16-H18 for the
table's runs and for the changed ones, side by side. Seeds are the harness's (9 each).

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_nic_priority.py \\
        --harness-cache OUT/cache

With ``--harness-cache`` (a ``dcnsim reproduce prioplus --out OUT`` cache folder) the
table's runs are read from there when their scenario is there; every changed run is
simulated and stored under ``raw/nic_priority/`` (gzipped JSON, not committed).
nic_priority.md holds the output.
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

AC.RAW = AC.A.RAW / "nic_priority"

NIC = ("transport.nic_scheduler=priority",)
# The schemes with physical priority queues: their NIC would order flows by level.
PHYSICAL = (R.PHYS, R.PHYS_STAR, R.PHYS_STAR_ACKS_ON_TOP, R.PHYS_NOCC)
HEADLINES = ("H1", "H2", "H3", "H4", "H10", "H11", "H16", "H17", "H18")


def variants(exp: str) -> list[str]:
    return sorted({r.variant for r in R.EXPERIMENTS[exp].runs(False)})


def key(exp: str, variant: str, changed: bool) -> str:
    return f"{exp.lower()}_{''.join(ch if ch.isalnum() else '_' for ch in variant)}{'_nic' if changed else ''}"


CELLS = [Cells(key(e, v, c), e, v, (), NIC if c else ())
         for e in ("F11", "F14") for v in variants(e) for c in ((False, True) if v in PHYSICAL else (False,))]
AC.BY_KEY = {c.key: c for c in CELLS}


def grid(exp: str, changed: bool) -> R.Grid:
    runs = []
    for v in variants(exp):
        runs += AC.load(AC.BY_KEY[key(exp, v, changed and v in PHYSICAL)])
    return R.Grid(R.EXPERIMENTS[exp], runs)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--harness-cache", type=Path, default=None)
    a = ap.parse_args(argv)
    AC.HARNESS_CACHE = a.harness_cache
    table = {e: grid(e, False) for e in ("F11", "F14")}
    nic = {e: grid(e, True) for e in ("F11", "F14")}
    print("### The harness's F11 and F14 checks\n")
    print("| check | what | target | table (NIC round robin) | status | physical schemes' NIC by priority | status |")
    print("|---|---|---|---|---|---|---|")
    for f in (C.checks_f11, C.checks_f14):
        exp = "F11" if f is C.checks_f11 else "F14"
        for t, n in zip(f(table[exp]), f(nic[exp])):
            print(f"| {t.id} | {t.name} | {t.target} | {t.ours} | {t.status} | {n.ours} | {n.status} |")
    print("\n### Headlines\n")
    print("| # | result | paper | table (NIC round robin) | physical schemes' NIC by priority |")
    print("|---|---|---|---|---|")
    for t, n in zip(C.headlines(table), C.headlines(nic)):
        if t.id in HEADLINES:
            print(f"| {t.id} | {t.what} | {t.paper} | {t.ours} | {n.ours} |")
    changed = sum(1 for g in nic.values() for r in g.results if r.cell.variant in PHYSICAL)
    print(f"\n({changed} runs with the NIC by priority; every other run is the table's.)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
