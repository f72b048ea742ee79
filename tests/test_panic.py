"""A panic in the Rust core reaches Python as ``dcnsim.SimulationPanic``: an ordinary
``Exception`` (pyo3's own PanicException is a BaseException) whose message says what was
running, and the interpreter goes on to run other simulations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import dcnsim
from dcnsim._ext import core
from dcnsim._scenario import load_scenario, scenario_json

pytestmark = pytest.mark.core


def _simulation(path: Path) -> object:
    spec, base_dir = load_scenario(path)
    return core().Simulation(scenario_json(spec), str(base_dir))


def test_a_core_panic_is_a_catchable_exception_with_its_context(tiny_toml: Path) -> None:
    assert issubclass(dcnsim.SimulationPanic, RuntimeError)
    sim = _simulation(tiny_toml)
    sim._panic_at_for_test(3_000_000)  # 3 us, well before the 1 MB flows finish
    with pytest.raises(Exception) as info:
        sim.run_until(10**12)
    assert type(info.value) is dcnsim.SimulationPanic
    message = str(info.value)
    for part in ('scenario "tiny"', "seed 1", "at sim time 3000000 ps", "events",
                 "test panic requested by _panic_at_for_test(3000000)"):
        assert part in message, message
    # What it simulated before the panic can still be read...
    assert sim.now_ps == 3_000_000 and sim.events > 0
    assert len(sim.flows()["size"]) == 16
    # ...but it is not advanced from a half-updated state.
    with pytest.raises(dcnsim.SimulationPanic, match="a previous call panicked"):
        sim.run_until(10**12)


def test_the_interpreter_runs_another_simulation_after_a_panic(tiny_toml: Path) -> None:
    sim = _simulation(tiny_toml)
    sim._panic_at_for_test(1_000_000)
    with pytest.raises(dcnsim.SimulationPanic):
        sim.run_until(10**12)
    result = dcnsim.run(tiny_toml)
    assert result.complete and result.summary["all"]["finished"] == 16


def test_the_command_reports_a_panic_with_exit_code_3(tiny_toml: Path, tmp_path: Path,
                                                       child_env: dict[str, str]) -> None:
    # A child process, so that a panic turning into an abort would show as a signal
    # exit code rather than take the test run down.
    code = (
        "import sys, dcnsim._run as r\n"
        "real = r.drive\n"
        "def drive(sim, progress=False):\n"
        "    sim._panic_at_for_test(2_000_000)\n"
        "    real(sim, progress=progress)\n"
        "r.drive = drive\n"
        "from dcnsim.cli import main\n"
        f"sys.exit(main(['run', {str(tiny_toml)!r}, '--quiet', '--out', 'out']))\n"
    )
    child = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=child_env,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 3, child.stderr
    assert "error: simulator panic while running scenario \"tiny\"" in child.stderr
    assert "Traceback" not in child.stderr
