"""Scenario and sweep files are data: nothing in them is executed, the files they name must
lie in the allowed directories (after symlinks), the result directory a file's ``name``
picks stays under ``results/``, and sizes are bounded. Every refusal names the field."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

import dcnsim
from dcnsim import _inputs, _sweep
from dcnsim._scenario import load_scenario, tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "dcnsim"
Cli = Callable[..., subprocess.CompletedProcess]

FLOWS_SCENARIO = """\
name = "flows"
[topology]
kind = "fat_tree"
tiers = 2
hosts = 16
link_rate = "100Gbps"
[transport]
cc = "dctcp"
[[workload]]
kind = "flows"
file = "{file}"
"""
FLOWS_CSV = "src,dst,size,start\n0,1,20KB,0\n2,3,1500,1us\n"


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """``proj/scenario.toml`` next to ``proj/flows.csv``; ``secret/flows.csv`` outside."""
    proj, secret = tmp_path / "proj", tmp_path / "secret"
    proj.mkdir()
    secret.mkdir()
    (proj / "flows.csv").write_text(FLOWS_CSV)
    (secret / "flows.csv").write_text(FLOWS_CSV)
    return {"proj": proj, "secret": secret}


def _scenario(layout: dict[str, Path], file: str) -> Path:
    path = layout["proj"] / "scenario.toml"
    path.write_text(FLOWS_SCENARIO.format(file=file))
    return path


def test_the_package_never_evaluates_or_unpickles() -> None:
    # Scenario and sweep files reach only tomllib and json; this keeps it that way.
    forbidden_calls = {"eval", "exec", "compile", "__import__"}
    forbidden_modules = {"pickle", "marshal", "shelve", "yaml", "dill", "cloudpickle"}
    found = []
    for source in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(source.read_text(), str(source))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in forbidden_calls:
                found.append(f"{source.name}:{node.lineno} {node.func.id}()")
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{source.name}:{node.lineno} import {n}" for n in names
                      if n.split(".")[0] in forbidden_modules]
    assert not found, found


def test_every_scenario_and_sweep_in_the_repository_passes_the_path_rule() -> None:
    files = [p for d in ("examples", "benches", "experiments") for p in (ROOT / d).rglob("*.toml")]
    assert len(files) > 40
    for path in files:
        text = tomllib.loads(path.read_text())
        if "axes" in text or "base" in text:
            base, axes, root = _sweep.load_sweep(path)
            for point in _sweep.expand(base, axes):
                _inputs.check_inputs(point.spec, root)
        else:
            spec, root = load_scenario(path)
            _inputs.check_inputs(spec, root)


@pytest.mark.core
def test_a_file_inside_the_scenario_tree_is_read(layout: dict[str, Path]) -> None:
    result = dcnsim.run(_scenario(layout, "flows.csv"))
    assert result.complete and len(result.flows) == 2


@pytest.mark.parametrize("reference", ["../secret/flows.csv", "{secret}/flows.csv", "/etc/passwd"])
def test_a_file_outside_the_allowed_directories_is_refused_before_running(
    layout: dict[str, Path], tmp_path: Path, reference: str
) -> None:
    scenario = _scenario(layout, reference.format(secret=layout["secret"]))
    with pytest.raises(dcnsim.ScenarioError) as info:
        dcnsim.run(scenario, out=tmp_path / "out")
    message = str(info.value)
    assert message.startswith("workload.0.file: "), message
    assert "outside the directories" in message and "--allow-dir" in message
    assert not (tmp_path / "out").exists(), "refused before anything ran"


def test_a_symlink_out_of_the_tree_is_refused(layout: dict[str, Path], tmp_path: Path) -> None:
    (layout["proj"] / "link.csv").symlink_to(layout["secret"] / "flows.csv")
    with pytest.raises(dcnsim.ScenarioError, match=r"workload\.0\.file: 'link\.csv' resolves to .*secret"):
        dcnsim.run(_scenario(layout, "link.csv"), out=tmp_path / "out")


@pytest.mark.core
def test_allow_dirs_and_the_environment_variable_let_a_directory_in(
    layout: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = _scenario(layout, "../secret/flows.csv")
    assert dcnsim.run(scenario, allow_dirs=[layout["secret"]]).complete
    monkeypatch.setenv("DCNSIM_ALLOW_DIRS", os.pathsep.join(["/nonexistent", str(layout["secret"])]))
    assert dcnsim.run(scenario).complete


@pytest.mark.core
def test_the_command_refuses_with_exit_2_and_allow_dir_lets_it_run(
    layout: dict[str, Path], dcnsim_cli: Cli, tmp_path: Path
) -> None:
    scenario = _scenario(layout, "../secret/flows.csv")
    done = dcnsim_cli("run", str(scenario), "--quiet", "--out", "out")
    assert done.returncode == 2 and done.stderr.startswith("error: workload.0.file: "), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()
    done = dcnsim_cli("run", str(scenario), "--quiet", "--out", "out", "--allow-dir", str(layout["secret"]))
    assert done.returncode == 0, done.stderr


def test_an_override_cannot_point_a_path_outside(layout: dict[str, Path]) -> None:
    with pytest.raises(dcnsim.ScenarioError, match=r"^workload\.0\.file: '/etc/hostname'"):
        dcnsim.run(_scenario(layout, "flows.csv"), overrides=['workload.0.file="/etc/hostname"'])


def test_a_noise_cdf_and_a_topology_file_are_checked_too(layout: dict[str, Path]) -> None:
    scenario = _scenario(layout, "flows.csv")
    for override, field in (('transport.delay_noise={ cdf = "/etc/passwd" }', "transport.delay_noise.cdf"),
                            ('topology.file="../secret/flows.csv"', "topology.file")):
        with pytest.raises(dcnsim.ScenarioError) as info:
            dcnsim.run(scenario, overrides=[override])
        assert str(info.value).startswith(f"{field}: ") and "outside the directories" in str(info.value), info.value


@pytest.mark.core
def test_a_name_that_escapes_results_is_refused_as_the_default_directory(
    layout: dict[str, Path], dcnsim_cli: Cli, tmp_path: Path
) -> None:
    scenario = _scenario(layout, "flows.csv")
    scenario.write_text(scenario.read_text().replace('name = "flows"', 'name = "../../escaped"'))
    done = dcnsim_cli("run", str(scenario), "--quiet")
    assert done.returncode == 2 and done.stderr.startswith("error: name: '../../escaped'"), done.stderr
    assert not list(tmp_path.parent.glob("escaped")) and not (tmp_path / "results").exists()
    done = dcnsim_cli("run", str(scenario), "--quiet", "--out", "chosen")
    assert done.returncode == 0 and (tmp_path / "chosen" / "summary.json").is_file(), done.stderr


def test_sweep_base_and_swept_paths_are_checked_before_any_point_runs(
    layout: dict[str, Path], tmp_path: Path
) -> None:
    _scenario(layout, "flows.csv")
    sweep_file = layout["proj"] / "sweep.toml"
    sweep_file.write_text(f'base = "{layout["secret"]}/base.toml"\n[axes]\nseeds = 2\n')
    with pytest.raises(dcnsim.ScenarioError, match=r"^sweep\.base: "):
        dcnsim.sweep(sweep_file, tmp_path / "out", jobs=1, progress=False)
    sweep_file.write_text('base = "scenario.toml"\n[axes]\ngrid = { "workload.0.file" = ["flows.csv", '
                          '"../secret/flows.csv"] }\n')
    with pytest.raises(dcnsim.ScenarioError, match=r"^sweep point 1 \(workload\.0\.file=\.\./secret/flows\.csv\): "
                                                   r"workload\.0\.file: "):
        dcnsim.sweep(sweep_file, tmp_path / "out", jobs=1, progress=False)
    assert not (tmp_path / "out").exists()


def test_oversized_scenario_and_sweep_files_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text('name = "big"\n' + "# padding\n" * (_inputs.MAX_SPEC_FILE_BYTES // 10 + 1))
    with pytest.raises(dcnsim.ScenarioError, match="1,048,576-byte limit of a scenario file"):
        load_scenario(big)
    with pytest.raises(dcnsim.ScenarioError, match="1,048,576-byte limit of a sweep file"):
        _sweep.load_sweep(big)


def test_a_sweep_over_the_point_limit_is_refused_before_expanding() -> None:
    base = {"topology": {"hosts": 16}, "transport": {"cc": "dctcp"}}
    axes = {"grid": {"transport.cc": ["dctcp", "swift"]}, "seeds": 5001}
    with pytest.raises(dcnsim.ScenarioError, match="10,002 points, over the limit of 10,000"):
        _sweep.expand(base, axes)
    assert len(_sweep.expand(base, {"grid": {"transport.cc": ["dctcp", "swift"]}, "seeds": 5000})) == 10_000


def test_an_oversized_data_file_is_refused(layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_inputs, "MAX_DATA_FILE_BYTES", len(FLOWS_CSV) - 1)
    size = len(FLOWS_CSV)
    with pytest.raises(dcnsim.ScenarioError,
                       match=rf"^workload\.0\.file: .*flows\.csv: {size} bytes, over the {size - 1}-byte"):
        dcnsim.run(_scenario(layout, "flows.csv"))



@pytest.mark.core
def test_a_run_larger_than_the_memory_available_is_refused_before_allocating(
    tmp_path: Path, child_env: dict[str, str]
) -> None:
    # A 16-host all-to-all (240 flows) against a 100 KB allowance: the flow state alone is
    # over it, so the build stops with the estimate and its largest items, exit 2.
    scenario = tmp_path / "a2a.toml"
    scenario.write_text('[topology]\nkind = "fat_tree"\nhosts = 16\n[[workload]]\nkind = "all_to_all"\nsize = "4KB"\n')
    env = {**child_env, "DCNSIM_MEMORY_LIMIT": "100KB"}
    done = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(scenario), "--quiet", "--out", "out"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert message.startswith("error: workload: the run needs an estimated ") and "\n" not in message, message
    assert "flow state" in message and "240 flows" in message and "100.0 KB is available (DCNSIM_MEMORY_LIMIT)" in message
    assert not (tmp_path / "out").exists()
    env["DCNSIM_MEMORY_LIMIT"] = "lots"
    done = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(scenario), "--quiet", "--out", "out"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "DCNSIM_MEMORY_LIMIT" in done.stderr and "Traceback" not in done.stderr
