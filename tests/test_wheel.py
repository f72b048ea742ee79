"""The portable wheel (issue 29): `make wheel` builds it without CPU-specific code, it
installs into a fresh virtual environment, and the installed package runs a scenario
with the same results as the development build."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = """name = "wheel"
seed = 3
[topology]
kind = "fat_tree"
hosts = 16
[transport]
cc = "dctcp"
[[workload]]
kind = "permutation"
size = "200KB"
"""


def test_no_build_asks_for_the_building_machines_cpu() -> None:
    # .cargo/config.toml applies to every build, the wheel's included; target-cpu=native
    # there made a wheel die with an illegal instruction on an older CPU.
    config = (ROOT / ".cargo" / "config.toml").read_text()
    active = [line for line in config.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert not any("target-cpu" in line for line in active), active
    recipe = subprocess.run(["make", "-n", "wheel", "DIST=/tmp/x"], cwd=ROOT, capture_output=True, text=True)
    assert recipe.returncode == 0, recipe.stderr
    assert "maturin build --release" in recipe.stdout and "target-cpu" not in recipe.stdout
    native = subprocess.run(["make", "-n", "build", "NATIVE=1"], cwd=ROOT, capture_output=True, text=True)
    assert "-C target-cpu=native" in native.stdout, "NATIVE=1 keeps the native build available"


@pytest.mark.core
def test_the_wheel_installs_into_a_fresh_venv_and_runs_a_scenario(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = subprocess.run(["make", "wheel", f"DIST={dist}"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = list(dist.glob("dcnsim-*.whl"))
    assert len(wheels) == 1 and "abi3" in wheels[0].name, wheels

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                              str(wheels[0])], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    # The wheel's dependencies (numpy, pandas, pyarrow, ...) come from this test's own
    # environment, so that the test needs no network: a plain path in a .pth file adds
    # the directory without running the editable install of dcnsim that lives there.
    fresh_site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    Path(fresh_site, "deps-from-the-test.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "work"
    work.mkdir()
    (work / "wheel.toml").write_text(SCENARIO)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import dcnsim, dcnsim._core as c; print(dcnsim.__file__); print(c.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr
    assert all(line.startswith(fresh_site) for line in where.stdout.split()), where.stdout
    ran = subprocess.run([str(venv / "bin" / "dcnsim"), "run", "wheel.toml", "--out", "out", "--quiet"],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr

    import dcnsim

    here = dcnsim.run(work / "wheel.toml", out=tmp_path / "dev")
    installed = pd.read_parquet(work / "out" / "flows.parquet")
    assert len(installed) == 16 and installed.finished.all()
    # The same scenario and seed give the same flows whichever build runs them.
    pd.testing.assert_frame_equal(installed, pd.read_parquet(tmp_path / "dev" / "flows.parquet"))
