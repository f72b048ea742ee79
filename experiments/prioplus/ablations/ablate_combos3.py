"""Combination ablations of H8 / AC17 (F12C [A], PrioPlus+Swift training speedup ResNet / VGG /
total, paper 1.12 / 1.15 / 1.13 ± 0.05) and H13 (F12AB 70 %, seed 3, Physical w/o CC speedup
over Swift, paper avg 0.03 / 0.24 / 0.03).

combos.md showed that two or three settings changed together can show a mechanism that no
single setting shows (H10). Here the same is tried on two checks the one-setting rounds
(results_checks.md, f12_nflow.md) left not isolated:

- H8: the settings whose one-setting line moved ResNet down at all (the ResNet levels' W_LS
  0.25 as before 7b03fbe, A = 7.2 µs, no NIC noise) and the one that brought VGG
  into its band (the artefact's flow-count estimate), in PrioPlus's runs; one line also turns
  the noise off in the baseline's runs (Swift in one queue), as results_checks.md's
  "no NIC noise for both" did.
- H13: the PFC settings that moved it (one PFC class for all data, the 1 MB pool per port) and
  H4's (α = 1/8), changed together in Physical w/o CC's runs, seed 3 only.

The cells, loader and figures are ``ablate_checks.py``'s (``Cells``, ``Line``, ``Study``,
``load``, ``f12c_figures``, ``f12ab_nocc``; the harness's ``checks.f12c_speedups`` and
``checks.f12ab_speedups``); a base cell is asserted to be the harness's own scenario. The
one-setting changes are taken from ``ablate_checks.py`` and ``ablate_f12_nflow.py``; the
reference line (Physical+Swift, the harness's runs) reads Physical's speedups from the same
``checks.f12c_speedups``. H13s1 runs the table and the one-class line on seed 1 as well. Runs are
stored under ``raw/combos3/`` (gzipped JSON, not committed), apart from the earlier scripts'
folders, so that every line, the table line included, is simulated on the current core.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos3.py --only F12C
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos3.py --only H13
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos3.py --only H13s1   # seed 1
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_combos3.py --list

The tables (markdown) go to stdout; combos3.md holds them.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402  (cells, loader, figures, table printer)
import ablate_f12_nflow as NF  # noqa: E402  (its settings; importing it repoints AC.RAW, reset below)
from ablate_checks import Cells, Line, Study, flat  # noqa: E402
from dcnsim.repro.papers.prioplus import checks as C  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

AC.RAW = AC.A.RAW / "combos3"

# The one-setting changes of the earlier rounds (each a tuple of overrides).
NOISE = AC.NOISE_OFF                      # no NIC noise (transport.delay_noise.scale=0)
WLS_RN = AC.F12C_OLD_WLS_RESNET           # ResNet levels 6 and 5 at W_LS 0.25 (as before 7b03fbe)
WIDE = NF.WIDE                            # A = 7.2 µs, not 3.2 µs
TARGET = NF.TARGET                        # the artefact's flow-count estimate ("target")
# Beyond the tables: every ResNet level (8 to 5) at W_LS 0.25, the VGG levels kept at 0.2.
WLS_RN_ALL = ("transport.prioplus.linear_step=[0.25, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]",)

SHORT = {NOISE: "no NIC noise", WLS_RN: "ResNet levels 6, 5 at W_LS 0.25", WIDE: "A = 7.2 µs",
         TARGET: "artefact's #flow estimate", WLS_RN_ALL: "ResNet levels 8-5 at W_LS 0.25"}

# key → settings changed together in PrioPlus's F12C runs
F12C_PP: dict[str, tuple[tuple[str, ...], ...]] = {
    "wls_wide": (WLS_RN, WIDE),
    "wls_noise": (WLS_RN, NOISE),
    "noise_target": (NOISE, TARGET),
    "wls_target": (WLS_RN, TARGET),
    "wls_wide_noise": (WLS_RN, WIDE, NOISE),
    "wls_noise_target": (WLS_RN, NOISE, TARGET),
    "wide_target": (WIDE, TARGET),
    "wls_wide_target": (WLS_RN, WIDE, TARGET),
    "wlsall_noise_target": (WLS_RN_ALL, NOISE, TARGET),
    # the one-setting lines, rerun on this core for the comparison
    "wls": (WLS_RN,),
    "wide": (WIDE,),
    "noise": (NOISE,),
    "target": (TARGET,),
    # as wls_noise_target, with the baseline's runs (Swift in one queue) without the noise too
    "wls_noise_target_both": (WLS_RN, NOISE, TARGET),
}
# lines whose baseline runs without the NIC noise as well
BASE_NOISE_OFF = {"wls_noise_target_both"}


def label(settings: tuple[tuple[str, ...], ...]) -> str:
    return " + ".join(SHORT[s] for s in settings)


# H13: Physical w/o CC's runs, seed 3
ONE_CLASS = ("switch.pfc.per_priority=false",)
BUF1M = ('switch.pfc.dynamic.buffer_per_port="1MB"',)
ALPHA8 = ("switch.pfc.dynamic.alpha_shift=3",)
ACK_TOP = ("switch.ack_priority=true",)
SHORT.update({ONE_CLASS: "one PFC class", BUF1M: "PFC pool 1 MB per port", ALPHA8: "α = 1/8",
              ACK_TOP: "ACKs at the top priority"})
H13_NOCC: dict[str, tuple[tuple[str, ...], ...]] = {
    "oneclass_buf1m": (ONE_CLASS, BUF1M),
    "oneclass_alpha8": (ONE_CLASS, ALPHA8),
    "oneclass_buf1m_alpha8": (ONE_CLASS, BUF1M, ALPHA8),
    "oneclass_acktop": (ONE_CLASS, ACK_TOP),
    "oneclass": (ONE_CLASS,),
}

CELLS = [
    Cells("f12c_swift", "F12C", R.SWIFT_FLAT, (R.F12C_A,)),
    Cells("f12c_swift_nonoise", "F12C", R.SWIFT_FLAT, (R.F12C_A,), NOISE),
    Cells("f12c_pp", "F12C", R.PP, (R.F12C_A,)),
    Cells("f12c_phys", "F12C", R.PHYS, (R.F12C_A,)),
    *[Cells(f"f12c_pp_{k}", "F12C", R.PP, (R.F12C_A,), flat(v)) for k, v in F12C_PP.items()],
    Cells("f12ab_swift_s3", "F12AB", R.SWIFT_FLAT, ("70%",), (), (3,)),
    Cells("f12ab_nocc_s3", "F12AB", R.PHYS8_NOCC, ("70%",), (), (3,)),
    *[Cells(f"f12ab_nocc_s3_{k}", "F12AB", R.PHYS8_NOCC, ("70%",), flat(v), (3,)) for k, v in H13_NOCC.items()],
    # another seed (1) of the harness's three, for the table and the one-class line
    Cells("f12ab_swift_s1", "F12AB", R.SWIFT_FLAT, ("70%",), (), (1,)),
    Cells("f12ab_nocc_s1", "F12AB", R.PHYS8_NOCC, ("70%",), (), (1,)),
    Cells("f12ab_nocc_s1_oneclass", "F12AB", R.PHYS8_NOCC, ("70%",), ONE_CLASS, (1,)),
]


def f12c_line(k: str) -> Line:
    base = "f12c_swift_nonoise" if k in BASE_NOISE_OFF else "f12c_swift"
    what = label(F12C_PP[k]) + (" (PrioPlus and the baseline without the noise)" if k in BASE_NOISE_OFF else "")
    if len(F12C_PP[k]) == 1:
        what += " (one setting, rerun)"
    return Line(what, (base, f"f12c_pp_{k}"))


def f12c_figures(g: R.Grid) -> dict[str, float]:
    """``ablate_checks.f12c_figures`` (PrioPlus+Swift's speedups); on the reference line, which
    has no PrioPlus runs, Physical+Swift's, from the same ``checks.f12c_speedups``."""
    if R.PP in g.variants:
        return AC.f12c_figures(g)
    sp = C.f12c_speedups(g).get(R.PHYS, {})
    return {k: sp[k]["primary"] if k in sp else math.nan for k in ("ResNet", "VGG", "total")}


def f12c_meets(f: dict[str, float]) -> bool:
    return AC.f12c_meets(f)


STUDIES = [
    Study("F12C", "H8 / AC17", "F12C [A]: PrioPlus+Swift training speedup ResNet / VGG / total",
          "1.12 / 1.15 / 1.13 (± 0.05)",
          (Line("table", ("f12c_swift", "f12c_pp")), *[f12c_line(k) for k in F12C_PP],
           Line("reference: Physical+Swift (the harness's runs; its paper figures are 1.16 / 0.82 / 1.09, "
                "the bar column applies PrioPlus's)", ("f12c_swift", "f12c_phys"))),
          f12c_figures, f12c_meets, "each within ± 0.05"),
    Study("H13", "H13", "F12AB 70 %, seed 3: Physical w/o CC speedup over Swift (ratio of means)",
          "avg 0.03 / 0.24 / 0.03 (high / low / all)",
          (Line("table (seed 3)", ("f12ab_swift_s3", "f12ab_nocc_s3")),
           *[Line(label(v) + (" (one setting, rerun)" if len(v) == 1 else ""), ("f12ab_swift_s3", f"f12ab_nocc_s3_{k}"))
             for k, v in H13_NOCC.items()]),
          AC.f12ab_nocc, lambda f: f["avg all"] <= 0.05, "avg all ≤ 0.05"),
    Study("H13s1", "H13, seed 1", "F12AB 70 %, seed 1 (not the harness's H13 seed): Physical w/o CC speedup over Swift",
          "avg 0.03 / 0.24 / 0.03 (high / low / all)",
          (Line("table (seed 1)", ("f12ab_swift_s1", "f12ab_nocc_s1")),
           Line("one PFC class (seed 1)", ("f12ab_swift_s1", "f12ab_nocc_s1_oneclass"))),
          AC.f12ab_nocc, lambda f: f["avg all"] <= 0.05, "avg all ≤ 0.05"),
]

AC.STUDIES = STUDIES
AC.BY_KEY = {c.key: c for c in CELLS}


if __name__ == "__main__":
    # --lines K1,K2: only those F12C / H13 line keys (plus the table lines), in that order
    argv = sys.argv[1:]
    if "--lines" in argv:
        i = argv.index("--lines")
        want = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
        for s in STUDIES:
            keep = [ln for ln in s.lines if ln.label.startswith("table")
                    or any(c in (f"f12c_pp_{w}", f"f12ab_nocc_s3_{w}") for w in want for c in ln.cells[1:])]
            AC.STUDIES[AC.STUDIES.index(s)] = Study(s.key, s.check, s.what, s.paper, tuple(keep), s.figures, s.meets, s.bar)
    sys.exit(AC.main(argv))
