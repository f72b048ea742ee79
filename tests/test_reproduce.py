"""``dcnsim reproduce mswift``: the metric code against hand-computed numbers, and a
reduced quick Fig. 4 end to end (table structure, files, cache)."""

from __future__ import annotations

import csv
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dcnsim.repro.papers import mswift as rp

SER = 4160 * 8 / 800e9 * 1e6  # one 4160 B packet at 800 Gbps: 0.0416 us
LAT = 0.5


# --- metrics -------------------------------------------------------------------------


def test_cct_increase_is_percent_over_the_bound() -> None:
    assert rp.cct_increase(100.0, 80.0) == pytest.approx(25.0)
    assert rp.cct_increase(88.4048, 88.4048) == 0.0
    # E1-like: CCT 260.609 us over LB 88.405 us
    assert rp.cct_increase(260.60928, 88.4048) == pytest.approx(194.7909, abs=1e-3)  # 172.20448 / 88.4048


def test_mean_sem_uses_sample_stdev_over_sqrt_n() -> None:
    mean, sem = rp.mean_sem([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    # stdev(ddof=1) = sqrt(5/3) = 1.290994; / sqrt(4)
    assert sem == pytest.approx(0.6454972, abs=1e-6)
    mean, sem = rp.mean_sem([10.0, 14.0])
    assert (mean, sem) == (12.0, pytest.approx(2.0))  # stdev 2*sqrt(2), / sqrt(2)
    mean, sem = rp.mean_sem([5.0])
    assert mean == 5.0 and math.isnan(sem)
    assert all(math.isnan(x) for x in rp.mean_sem([]))


def test_serialisation_and_geometry_of_the_paper_setup() -> None:
    assert rp.ser_us(4160, 800e9) == pytest.approx(0.0416)
    spec = {"topology": {"link_rate": "800Gbps", "link_latency": "500ns", "mtu": "4160B"},
            "transport": {"header": "64B"}}
    g = rp.Geometry.of(spec)
    assert g.ser_us == pytest.approx(SER) and g.latency_us == pytest.approx(0.5) and g.payload == 4096


def test_hops_from_ideal_fct() -> None:
    # docs/reproductions/mswift-paper.md: 8 MiB ideal FCT inter-pod 88.405, intra-pod 87.322, intra-ToR 86.238 us
    assert rp.hops_from_ideal(88.4048, 2048, SER, LAT) == 6
    assert rp.hops_from_ideal(87.3216, 2048, SER, LAT) == 4
    assert rp.hops_from_ideal(86.2384, 2048, SER, LAT) == 2


def test_incast_lower_bound() -> None:
    # 32 x 8 MiB = 65536 packets through the receiver's link: 65535 * 0.0416 us, plus the
    # first packet of the closest sender (same ToR, 2 links: 2 * (0.0416 + 0.5) = 1.0832 us)
    lb = rp.incast_lb_us([2048] * 32, [2] + [6] * 31, SER, LAT)
    assert lb == pytest.approx(65535 * 0.0416 + 1.0832)
    assert lb == pytest.approx(2727.3392, abs=1e-4)
    # all inter-pod: 6 links for the first packet
    assert rp.incast_lb_us([2048] * 32, [6] * 32, SER, LAT) == pytest.approx(2729.5056, abs=1e-4)
    # two one-packet flows: the second packet follows the first on the last link
    assert rp.incast_lb_us([1, 1], [2, 2], SER, LAT) == pytest.approx(SER + 2 * (SER + LAT))


def _flows(rows: list[tuple]) -> dict[str, list]:
    cols = ("tag", "size", "fct_us", "ideal_fct_us", "finished")
    return {c: [r[i] for r in rows] for i, c in enumerate(cols)}


def test_cct_and_lb_take_the_sprayed_flows_only() -> None:
    g = rp.Geometry(SER, LAT, 4096)
    flows = _flows([
        ("elephants", -1, None, None, False),
        ("sprayed", 8388608, 120.0, 88.4048, True),
        ("sprayed", 8388608, 250.5, 87.3216, True),
        ("sprayed", 8388608, 100.0, 86.2384, True),
    ])
    cct, lb, fin, tot = rp.cct_and_lb(flows, g, incast=False)
    assert (cct, lb, fin, tot) == (250.5, 88.4048, 3, 3)
    # an unfinished sprayed flow: no CCT
    flows["finished"][2] = False
    cct, _, fin, tot = rp.cct_and_lb(flows, g, incast=False)
    assert math.isnan(cct) and (fin, tot) == (2, 3)
    # no "sprayed" tag: every finite flow is the collective
    plain = _flows([("perm", 4096, 3.0, 2.0, True), ("perm", 8192, 5.0, 4.0, True), ("bg", -1, None, None, False)])
    assert rp.cct_and_lb(plain, g, incast=False)[:2] == (5.0, 4.0)


def test_cct_and_lb_of_an_incast() -> None:
    g = rp.Geometry(SER, LAT, 4096)
    ideal = {2: (2048 + 1) * SER + 2 * LAT, 6: (2048 + 5) * SER + 6 * LAT}
    rows = [("sprayed", 8388608, 2800.0, ideal[6], True)] * 31 + [("sprayed", 8388608, 2750.0, ideal[2], True)]
    cct, lb, _, _ = rp.cct_and_lb(_flows(rows), g, incast=True)
    assert cct == 2800.0
    assert lb == pytest.approx(2727.3392, abs=1e-4)


def test_failed_link_count_is_a_bernoulli_draw() -> None:
    counts = [rp.failed_link_count(seed, 0.01, 256) for seed in range(1, 401)]
    assert all(0 <= c <= 12 for c in counts)
    assert 2.2 < sum(counts) / len(counts) < 2.9  # expected 2.56
    assert rp.failed_link_count(1, 0.0, 256) == 0 and rp.failed_link_count(1, 0.999999, 256) == 256
    assert rp.fabric_cables({"topology": {"hosts": 128}}) == 256
    assert rp.fabric_cables({"topology": {"hosts": 250}}) == 500


def test_parse_only() -> None:
    assert rp.parse_only("4") == ["4", "5"]
    assert rp.parse_only("6, 12") == ["6", "12"]
    assert rp.parse_only("fig5") == ["4", "5"]
    assert rp.parse_only(None) == list(rp.FIGURES)
    with pytest.raises(ValueError, match="unknown figure 3"):
        rp.parse_only("3")


def test_every_scenario_file_loads_and_names_its_sprayed_workload() -> None:
    import dcnsim

    exp = rp.experiments_dir()
    for fig in rp.FIGURES.values():
        if fig.toml is None:
            continue
        spec, _ = dcnsim.load_scenario(exp / fig.toml)
        assert spec["workload"][rp.sprayed_index(spec)]["tag"] == "sprayed", fig.toml
        assert spec["switch"]["ecn"]["kmin"] == "35840B"


# --- end to end ------------------------------------------------------------------------


@pytest.mark.core
def test_failed_link_count_matches_the_core() -> None:
    """The replicated draw says seed 12 fails no cable and seed 3 fails five: E7 with seed 12
    is then exactly E1, and with seed 3 it is not."""
    import dcnsim

    assert rp.failed_link_count(12, 0.01, 256) == 0 and rp.failed_link_count(3, 0.01, 256) == 5
    exp = rp.experiments_dir()

    def fcts(toml: str, seed: int) -> list[float]:
        small = ["workload.1.size=262144", "transport.cc=mswift", "workload.1.lb=ops", f"seed={seed}"]
        flows = dcnsim.run(exp / toml, overrides=small).flows
        return list(flows[flows["tag"] == "sprayed"]["fct_us"])

    assert fcts("e7_failures.toml", 12) == fcts("e1_baseline.toml", 12)
    assert fcts("e7_failures.toml", 3) != fcts("e1_baseline.toml", 3)


@pytest.mark.core
def test_quick_fig4_table_structure(tmp_path: Path, child_env: dict[str, str]) -> None:
    # DCNSIM_REPRO_SCALE shrinks the quick 4 MiB messages to 1 MiB, for CI.
    env = {**child_env, "DCNSIM_REPRO_SCALE": "0.25"}
    cmd = [sys.executable, "-m", "dcnsim", "reproduce", "mswift", "--quick", "--only", "4", "--seeds", "1",
           "--jobs", "2"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "results" / "reproduce-mswift"
    table = (out / "table.md").read_text()
    assert proc.stdout.strip() == table.strip()
    for name in ("runs.csv", "fig4.png", "fig5_fct_cdf.png"):
        assert (out / name).is_file(), name
    assert "15 to run" in proc.stderr and "[  15/15]" in proc.stderr

    block = table.split("## Fig. 4")[1].split("## Fig. 5")[0]
    assert "(LB = 13.858 µs)" in block  # 1 MiB = 256 packets, inter-pod: (256 + 6 - 1) * 0.0416 + 6 * 0.5 us
    number = re.compile(r"^-?\d+\.\d ± -$")
    rows = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]]
            for line in block.splitlines() if line.count("|") == 3}
    assert rows["CCA"] == ["OPS", "AR", "REPS"]
    for cca in ("Swift", "LSwift", "MSwift", "NSCC", "MNSCC"):
        assert len(rows[cca]) == 3 and all(number.match(c) for c in rows[cca]), rows[cca]
    assert "B1 " in block and "B2 " in block and "B3 " in block and "B4 " in block and "B5 " in block
    assert "needs NSCC" not in block and "INFO" in block and "PASS" not in block.replace("INFO (pass)", "")
    assert "unfinished 0; errors 0" in block
    assert "## Fig. 5" in table and "B6.1 " in table and "B6.2 " in table

    with (out / "runs.csv").open() as f:
        runs = list(csv.DictReader(f))
    assert len(runs) == 15
    assert {(r["cc"], r["lb"]) for r in runs} == {(c, lb) for c in ("swift", "lswift", "mswift", "nscc", "mnscc")
                                                  for lb in ("ops", "ar", "reps")}
    for r in runs:
        assert r["complete"] == "True" and r["sprayed_flows"] == r["sprayed_finished"] == "124"
        assert float(r["cct_increase_pct"]) > 0
        assert r["drops"] != "" and r["timeouts"] != "" and r["retransmits"] != ""

    # again: everything comes from the cache, and the table is identical
    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "15 cached, 0 to run" in again.stderr
    assert again.stdout == proc.stdout
