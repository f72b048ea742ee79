"""F12AB at 70 %: does the PrioPlus artefact's shared pool make Physical w/o CC as slow as the
paper's (H13, Fig. 18: average speedup 0.03 / 0.24 / 0.03, high 4 / low 4 / overall)?

ablate_h4_pfc.py found for F11 that the artefact sets aside the 4 KiB reserve of all 32 queues
of every port (``numQueuePerPort``), used or not, and the PFC headroom (3 x rate x link delay)
of its N lossless ones, which leaves F11's 6-port 2.64 MB switch a pool of 53,568 B at N = 8.
This script does the same for the coflow fabric (the harness's ``fig12ab_coflow.toml``: 2 MiB
per port, ``[switch.pfc.dynamic]`` defaults, dcnsim's own headroom rule), in two parts:

1. The pool arithmetic per switch kind (ToR: 16 x 100 G + 4 x 400 G ports; aggregation: 8 x
   400 G; core: 5 x 400 G; read from the topology file) for N = 1 (the one-queue schemes: the
   baseline Swift without priorities, PrioPlus+Swift, HPCC) and N = 8 (Physical+Swift,
   Physical w/o CC): ours against the artefact's, and the ``buffer_per_port`` of the line.
2. The lines: the baseline and Physical w/o CC at 70 %, seed 3, with the table's settings and
   with the artefact's pool (``buffer_per_port`` of part 1 for the scheme's N), and with the
   artefact's resume rule too (``switch.pfc.dynamic.resume = "offset_or_expiry"``). Figures:
   ``ablate_checks.f12ab_nocc`` (the level averages) and the pooled overall ratio of
   ``ablate_f12ab_70.overall`` (the harness's "all").

3. H6 / AC16 and H12 (``--h6``): at 70 %, the harness's 3 seeds, the four schemes the checks
   compare (the baseline, PrioPlus+Swift and HPCC at N = 1, Physical+Swift at N = 8), each with
   the artefact's pool for its N, and with the resume rule too. Figures: PrioPlus+Swift −
   Physical+Swift as the pooled overall ratio (AC16) and as the level-averaged high 4 / low 4
   (H6's split, ``checks.f12ab_diff``), HPCC's CCT over PrioPlus+Swift's (H12, pooled, avg and
   p99, as ``ablate_f12ab_70.all_readings``), and PAUSE frames per run per scheme.

One ``buffer_per_port`` cannot give every switch kind the artefact's pool: our headroom is
rate x 2 µs + 3128 B (28,128 B at 100 G, 103,128 B at 400 G), the artefact's 3 x rate x 1 µs
(37,500 / 150,000 B), and the ToRs mix the two rates. The line's value gives the all-400 G
switches (aggregation, core) the artefact's pool to the byte and the ToRs less than the
artefact's (part 1 prints by how much), so it errs towards more pausing, the hypothesis's
side.

The base cells (the table's settings) are run on this core: the harness cache this was written
against (``--harness-cache``) holds the same scenarios under another core's keys. With
``--harness-cache`` its seed-3 runs are printed as one more line, read from the cache only.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_pool.py --pools
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_pool.py \
        [--only-lines table,apool] [--harness-cache OUT/cache]
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_f12ab_pool.py --h6 \
        [--only-lines h6_table,h6_apool,h6_arule] [--harness-cache OUT/cache]

Runs are stored under ``raw/f12ab_pool/`` (gzipped JSON, not committed). f12ab_70.md (its last
section) holds the output.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells, loader, table printer, H13's figures)
import ablate_f12ab_70 as F70  # noqa: E402  (the pooled overall ratio)
from ablate_checks import Cells, Line, Study  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "f12ab_pool"  # after F70's import, which points it at its own folder

# --- Part 1: the pools ----------------------------------------------------------------------

PER_PORT = 2 * 1024 * 1024  # fig12ab_coflow.toml's [switch.pfc.dynamic] buffer_per_port, the artefact's 2 MiB
RESERVE = 4096  # [switch.pfc.dynamic] reserve (default), the artefact's ReserveSize
ARTEFACT_QUEUES = 32  # the artefact's numQueuePerPort (its Fig. 11 configs; assumed the same here)
LINK_US = 1.0  # every link of the coflow fabric
MTU = 1000
ONE_MB = 1_000_000  # results_checks.md's line "PFC pool 1 MB per port, not 2 MiB" (buffer_per_port="1MB")
N_ONE, N_PHYS = 1, 8  # lossless queues per port: one-queue schemes, the Physical schemes


def port_rates() -> dict[str, tuple[int, ...]]:
    """Each switch's port rates in Gb/s, from the topology file (every link 1 µs)."""
    rates: dict[str, list[int]] = {}
    with open(AC.A.EXP_DIR / "fig12ab_fat_tree_320.csv") as fh:
        for row in csv.DictReader(line for line in fh if not line.startswith("#")):
            assert row["latency"] == f"{LINK_US:g}us"
            g = int(re.fullmatch(r"(\d+)Gbps", row["rate"])[1])
            for end in (row["a"], row["b"]):
                if end.startswith("s"):
                    rates.setdefault(end, []).append(g)
    return {s: tuple(sorted(r)) for s, r in rates.items()}


def headroom_ours(gbps: int) -> int:
    """dcnsim's default headroom per lossless queue of a link (build_pfc): rate x (forward +
    reverse latency + a 64 B frame's serialisation) + 3 MTU + 64 B."""
    return int(gbps / 8 * 2 * LINK_US * 1000) + 64 + 3 * MTU + 64


def headroom_artefact(gbps: int) -> int:
    """The artefact's headroom per queue and port: 3 x rate x link delay."""
    return int(3 * gbps / 8 * LINK_US * 1000)


def pool_ours(ports: tuple[int, ...], n: int, per_port: int = PER_PORT) -> int:
    """Our pool: the switch's buffer less reserve + headroom for each of its N lossless queues
    per port (build/switch.rs, shared_buffer)."""
    return len(ports) * per_port - n * sum(RESERVE + headroom_ours(g) for g in ports)


def pool_artefact(ports: tuple[int, ...], n: int) -> int:
    """The artefact's pool: reserve + headroom set aside for all 32 queues of every port, the
    headroom of the 32 − N lossy ones given back."""
    return len(ports) * PER_PORT - sum(ARTEFACT_QUEUES * RESERVE + n * headroom_artefact(g) for g in ports)


def artefact_per_port(n: int, gbps: int = 400) -> int:
    """``buffer_per_port`` that gives a switch of `gbps` ports only the artefact's pool at N:
    2 MiB less the reserve of the 32 − N unused queues, less N x the artefact's extra headroom."""
    b = PER_PORT - (ARTEFACT_QUEUES - n) * RESERVE - n * (headroom_artefact(gbps) - headroom_ours(gbps))
    assert pool_ours((gbps,) * 8, n, b) == pool_artefact((gbps,) * 8, n)
    return b


def kinds() -> dict[tuple[int, ...], list[str]]:
    out: dict[tuple[int, ...], list[str]] = {}
    for s, r in port_rates().items():
        out.setdefault(r, []).append(s)
    return out


def pool_table() -> str:
    rows = ["| switch kind (count) | ports | N | ours: pool | artefact: pool | artefact / ours "
            "| the line (buffer_per_port) | the line: pool | the line / artefact "
            "| results_checks.md's 1 MB per port: pool |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    names = {20: "ToR", 8: "aggregation", 5: "core"}
    for ports, ss in sorted(kinds().items(), key=lambda kv: -len(kv[0])):
        desc = " + ".join(f"{c} x {g} G" for g, c in sorted(Counter(ports).items()))
        for n in (N_ONE, N_PHYS):
            po, pa, b = pool_ours(ports, n), pool_artefact(ports, n), artefact_per_port(n)
            pl = pool_ours(ports, n, b)
            rows.append(f"| {names.get(len(ports), '?')} ({len(ss)}) | {desc} | {n} | {po:,} | {pa:,} | {pa / po:.3f} "
                        f"| {b:,} | {pl:,} | {pl / pa:.3f} | {pool_ours(ports, n, ONE_MB):,} |")
    return "\n".join(rows)


# --- Part 2: the lines ----------------------------------------------------------------------


def apool(n: int) -> tuple[str, ...]:
    return (f'switch.pfc.dynamic.buffer_per_port="{artefact_per_port(n)}B"',)


ARULE = ('switch.pfc.dynamic.resume="offset_or_expiry"',)
S3 = (3,)
CELLS = [
    Cells("s3_swift", "F12AB", R.SWIFT_FLAT, ("70%",), (), S3),
    Cells("s3_nocc", "F12AB", R.PHYS8_NOCC, ("70%",), (), S3),
    Cells("s3_swift_apool", "F12AB", R.SWIFT_FLAT, ("70%",), apool(N_ONE), S3),
    Cells("s3_nocc_apool", "F12AB", R.PHYS8_NOCC, ("70%",), apool(N_PHYS), S3),
    Cells("s3_swift_arule", "F12AB", R.SWIFT_FLAT, ("70%",), apool(N_ONE) + ARULE, S3),
    Cells("s3_nocc_arule", "F12AB", R.PHYS8_NOCC, ("70%",), apool(N_PHYS) + ARULE, S3),
]


def h13_figures(g: R.Grid) -> dict[str, float]:
    out = AC.f12ab_nocc(g)
    ov = F70.overall(g.results, "70%", R.PHYS8_NOCC)
    out["avg all pooled (the harness's all)"] = ov["means"]
    out["p99 all pooled"] = ov["p99"]
    base = [r for r in g.results if r.cell.variant == R.SWIFT_FLAT]
    out["baseline pauses/run"] = sum(r.stat("pfc_pause_frames") for r in base) / max(len(base), 1)
    return out


LINES = {
    "table": Line("table (seed 3, this core)", ("s3_swift", "s3_nocc")),
    "apool": Line("the artefact's pool, both schemes", ("s3_swift_apool", "s3_nocc_apool")),
    "apool_nocc": Line("the artefact's pool for Physical w/o CC only (the table's baseline)",
                       ("s3_swift", "s3_nocc_apool")),
    "arule": Line("the artefact's pool and resume rule, both schemes", ("s3_swift_arule", "s3_nocc_arule")),
}


# --- Part 3: H6 / AC16 and H12 at 70 %, the harness's 3 seeds, every scheme with its pool ------
#
# The checks' four schemes, each with the artefact's pool for its own N (and, as a second line,
# its resume rule too): the baseline, PrioPlus+Swift and HPCC at N = 1, Physical+Swift at N = 8.

N_OF = {R.SWIFT_FLAT: N_ONE, R.PP: N_ONE, R.PHYS: N_PHYS, R.HPCC: N_ONE}
H6_SCHEMES = (("swift", R.SWIFT_FLAT), ("pp", R.PP), ("phys", R.PHYS), ("hpcc", R.HPCC))
H6_CHANGES = (("", lambda n: ()), ("_apool", apool), ("_arule", lambda n: apool(n) + ARULE))
H6_CELLS = [Cells(f"s70_{k}{suf}", "F12AB", v, ("70%",), change(N_OF[v]))
            for suf, change in H6_CHANGES for k, v in H6_SCHEMES]
H6_LINES = {
    "h6_table": Line("table (3 seeds, this core)", tuple(f"s70_{k}" for k, _ in H6_SCHEMES)),
    "h6_apool": Line("the artefact's pool, every scheme at its N", tuple(f"s70_{k}_apool" for k, _ in H6_SCHEMES)),
    "h6_apool_phys": Line("the artefact's pool for Physical+Swift only (the table's other schemes)",
                          ("s70_swift", "s70_pp", "s70_phys_apool", "s70_hpcc")),
    "h6_arule": Line("the artefact's pool and resume rule, every scheme",
                     tuple(f"s70_{k}_arule" for k, _ in H6_SCHEMES)),
}


def h6_h12_figures(g: R.Grid) -> dict[str, float]:
    """AC16 / H6: PrioPlus+Swift − Physical+Swift, the pooled overall ratio (the harness's
    "all") and the level-averaged high 4 / low 4; H12: HPCC's CCT over PrioPlus+Swift's − 1
    (pooled, avg and p99, ``ablate_f12ab_70.compare``); PAUSE frames per run per scheme."""
    ov = {v: F70.overall(g.results, "70%", v) for v in (R.PP, R.PHYS, R.HPCC)}
    hi, lo, _ = C.f12ab_diff(g, "70%")
    out = {"AC16: PP − Phys, all pooled": ov[R.PP]["means"] - ov[R.PHYS]["means"],
           "H6 high (level avg)": hi, "H6 low (level avg)": lo,
           "PP all pooled": ov[R.PP]["means"], "Phys all pooled": ov[R.PHYS]["means"],
           "H12: HPCC avg % worse": F70.compare(ov[R.HPCC]["means"], ov[R.PP]["means"], True) * 100,
           "H12: HPCC p99 % worse": F70.compare(ov[R.HPCC]["p99"], ov[R.PP]["p99"], True) * 100}
    for k, v in H6_SCHEMES:
        rs = [r for r in g.results if r.cell.variant == v]
        out[f"{k} pauses/run"] = sum(r.stat("pfc_pause_frames") for r in rs) / max(len(rs), 1)
    return out


def h6_study(keys: list[str]) -> Study:
    return Study("H6", "H6 / AC16, H12", "F12AB 70 %, 3 seeds: PrioPlus+Swift − Physical+Swift and HPCC "
                 "against PrioPlus+Swift, the artefact's pool for every scheme",
                 "AC16 +0.21 ± 0.10 overall; H12: HPCC 24 % (avg) / 15 % (p99) worse",
                 tuple(H6_LINES[k] for k in keys), h6_h12_figures,
                 lambda f: abs(f["AC16: PP − Phys, all pooled"] - 0.21) <= 0.10,
                 "AC16 all pooled within +0.21 ± 0.10")


def study(keys: list[str]) -> Study:
    return Study("H13", "H13", "F12AB 70 %, seed 3: Physical w/o CC speedup over Swift without priorities",
                 "avg 0.03 / 0.24 / 0.03 (high / low / overall), p99 0.27 / 0.48 / 0.39 (Fig. 18's labels)",
                 tuple(LINES[k] for k in keys), h13_figures,
                 lambda f: f["avg all pooled (the harness's all)"] <= 0.05, "avg overall ≤ 0.05")


def cache_line(cache: Path, base: list[Cells], figures=h13_figures, what: str = "seed-3 cells") -> None:
    """The table's cells (``base``) as the harness cache holds them (another core): read only."""
    AC.HARNESS_CACHE = cache

    def refuse(*_a: object, **_k: object) -> dict[str, str]:
        return {"error": "not in the harness cache"}

    AC.simulate = refuse  # AC.load simulates a cell it finds nowhere; here that is an error
    cells = [Cells(f"hc_{c.key}", c.exp, c.variant, c.points, c.change, c.seeds) for c in base]
    runs = [r for c in cells for r in AC.load(c)]
    f = figures(R.Grid(R.EXPERIMENTS["F12AB"], runs))
    print(f"\n### The same {what} from the harness cache (its core)\n")
    print("| line | " + " | ".join(f) + " | runs |")
    print("|---|" + "---|" * (len(f) + 1))
    print(f"| table ({what.split(' cells')[0]}, the harness cache) | " + " | ".join(AC.fmtv(x) for x in f.values())
          + f" | {len(runs)} |")
    print("\n(wall s as stored: " + ", ".join(f"{r.cell.variant} {r.record['wall_seconds']:.0f}" for r in runs) + ")")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pools", action="store_true", help="part 1 only (no runs)")
    ap.add_argument("--h6", action="store_true", help="H6 / AC16 and H12 (part 3), not H13")
    ap.add_argument("--only-lines", default="", help="of: " + ", ".join([*LINES, *H6_LINES])
                    + " (default: every line of the study)")
    ap.add_argument("--harness-cache", type=Path, default=None)
    a = ap.parse_args()
    print("### The shared pool per switch, F12AB's fabric (2 MiB per port, 4 KiB reserve, α = 1/4)\n")
    print(pool_table())
    if a.pools:
        return 0
    keys = [k.strip() for k in a.only_lines.split(",") if k.strip()] or list(H6_LINES if a.h6 else LINES)
    AC.STUDIES = [h6_study(keys) if a.h6 else study(keys)]
    AC.BY_KEY = {c.key: c for c in [*CELLS, *H6_CELLS]}
    rc = AC.main([])  # no harness cache: the base cells run on this core
    used = dict.fromkeys(k for ln in AC.STUDIES[0].lines for k in ln.cells)
    print("\n(wall s a run, this machine, as stored: " + ", ".join(
        f"{k} {r.record['wall_seconds']:.0f}" for k in used for r in AC.load(AC.BY_KEY[k])) + ")")
    if a.harness_cache:
        if a.h6:
            cache_line(a.harness_cache, H6_CELLS[:len(H6_SCHEMES)], h6_h12_figures, "3-seed cells")
        else:
            cache_line(a.harness_cache, CELLS[:2])
    return rc


if __name__ == "__main__":
    sys.exit(main())
