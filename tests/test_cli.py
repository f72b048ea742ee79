"""The ``dcnsim`` command: ``run``, errors and ``--version``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pandas as pd
import pytest

Cli = Callable[..., "subprocess.CompletedProcess[str]"]

SUMMARY_KEYS = {
    "name", "version", "seed", "complete", "sim_time_us", "wall_seconds", "events", "packets",
    "events_per_second", "stats", "scenario", "workloads", "all",
}
GROUP_KEYS = {"flows", "finished", "cct_us", "fct_us", "slowdown"}
DISTRIBUTION_KEYS = {"mean", "p50", "p90", "p99", "p999", "max"}


def test_version(dcnsim_cli: Cli) -> None:
    done = dcnsim_cli("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("dcnsim ")


def test_missing_scenario_file_is_a_clear_error(dcnsim_cli: Cli) -> None:
    done = dcnsim_cli("run", "no_such_file.toml")
    assert done.returncode == 2
    assert "error: " in done.stderr and "no_such_file.toml" in done.stderr
    assert "Traceback" not in done.stderr


def test_override_of_a_misspelt_table_is_an_error_naming_it(dcnsim_cli: Cli, tiny_toml: Path) -> None:
    # --set creates missing tables; the scenario check then refuses the unknown one.
    done = dcnsim_cli("run", str(tiny_toml), "--set", "topolgy.hosts=32")
    assert done.returncode == 2
    assert done.stderr.startswith("error: topolgy: unknown field `topolgy`, expected one of")
    assert "`topology`" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.core
def test_run_writes_the_result_directory(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    done = dcnsim_cli("run", str(tiny_toml), "--set", "seed=3")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "results" / "tiny"  # default: results/<scenario name>
    for name in ("flows.parquet", "flows.csv", "summary.json"):
        assert (out / name).is_file(), name
    assert not list(out.glob("*.png")), "plots are drawn only with --plots"
    assert f"wrote {Path('results') / 'tiny'}" in done.stdout
    assert "perm" in done.stdout and "slowdown p99" in done.stdout

    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= set(summary)
    assert summary["complete"] is True and summary["seed"] == 3
    assert list(summary["workloads"]) == ["perm"]
    for group in (summary["workloads"]["perm"], summary["all"]):
        assert GROUP_KEYS <= set(group)
        assert set(group["fct_us"]) == set(group["slowdown"]) == DISTRIBUTION_KEYS
        assert group["finished"] == group["flows"] > 0
        assert group["cct_us"] > 0

    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == summary["all"]["flows"]
    assert len(pd.read_csv(out / "flows.csv")) == len(flows)


@pytest.mark.core
def test_run_plots_draws_the_pngs(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    done = dcnsim_cli("run", str(tiny_toml), "--out", "out", "--quiet", "--plots")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == ["fct_cdf.png", "slowdown_by_size.png"]
    # A later plain run into the same directory leaves no plot of the earlier one.
    assert dcnsim_cli("run", str(tiny_toml), "--out", "out", "--quiet").returncode == 0
    assert not list((tmp_path / "out").glob("*.png"))


# What a child interpreter has imported after some dcnsim code: the heavy libraries only.
_HEAVY = {"pandas", "matplotlib", "plotly", "numpy", "pyarrow"}
_IMPORTED = f"import sys; print(sorted({{m.split('.')[0] for m in sys.modules}} & {_HEAVY!r}))"


def _imported_after(code: str, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-c", f"{code}\n{_IMPORTED}"], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_import_and_help_load_no_heavy_library(child_env: dict[str, str], tmp_path: Path) -> None:
    assert _imported_after("import dcnsim", child_env, tmp_path) == "[]"
    help_run = ("import contextlib, io, dcnsim.cli\n"
                "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
                "    dcnsim.cli.main(['run', '--help'])")
    assert _imported_after(help_run, child_env, tmp_path) == "[]"


@pytest.mark.core
def test_a_plain_run_loads_no_heavy_library(child_env: dict[str, str], tiny_toml: Path, tmp_path: Path) -> None:
    # pandas, matplotlib, numpy and pyarrow each take longer to import than a small
    # simulation takes to run; a run without [observe] or [trace] needs none of them.
    run = f"import dcnsim.cli\nassert dcnsim.cli.main(['run', {str(tiny_toml)!r}, '--out', 'out', '--quiet']) == 0"
    assert _imported_after(run, child_env, tmp_path) == "[]"
    assert (tmp_path / "out" / "flows.parquet").is_file()


@pytest.mark.core
def test_run_with_out_and_quiet(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    done = dcnsim_cli("run", str(tiny_toml), "--out", "elsewhere", "--quiet")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "elsewhere" / "summary.json").is_file()
    assert done.stdout.strip() == "wrote elsewhere"


@pytest.mark.core
def test_invalid_scenario_exits_2_naming_the_field(dcnsim_cli: Cli, tiny_toml: Path) -> None:
    done = dcnsim_cli("run", str(tiny_toml), "--set", "transport.cc=no_such_algorithm")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert "transport.cc" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.core
def test_run_threads_writes_the_same_flow_table(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    """`--threads N` splits the run (docs/models/parallel.md); flows.parquet is the same,
    byte for byte in its values, as one thread's."""
    tables = {}
    for threads in (1, 2, 3):
        out = tmp_path / f"t{threads}"
        done = dcnsim_cli("run", str(tiny_toml), "--threads", str(threads), "--out", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        tables[threads] = pd.read_parquet(out / "flows.parquet")
        summary = json.loads((out / "summary.json").read_text())
        assert summary["scenario"]["threads"] == threads
    for threads in (2, 3):
        pd.testing.assert_frame_equal(tables[1], tables[threads], check_exact=True)
    bad = dcnsim_cli("run", str(tiny_toml), "--set", "threads=0", "--quiet")
    assert bad.returncode == 2 and "threads" in bad.stderr and "1 to 256" in bad.stderr, bad.stderr
