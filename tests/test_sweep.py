"""Sweeps (`dcnsim sweep`, `dcnsim.sweep`): expansion, validation before running, the local
pool against a real Dask LocalCluster, resuming after a kill, and failing points."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dcnsim
from dcnsim import _sweep

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "examples" / "sweep_tiny.toml"


def _tiny_dict() -> dict[str, Any]:
    base, axes, _ = _sweep.load_sweep(TINY)
    base = copy.deepcopy(base)
    base["workload"][0]["cdf"] = str(ROOT / "workloads" / "websearch.cdf")
    return {"base": base, "axes": axes}


def test_grid_zip_and_seeds_expand_to_their_product() -> None:
    base = {"seed": 1, "topology": {"hosts": 16, "link_rate": "1Gbps"}, "transport": {"cc": "dctcp"},
            "workload": [{"kind": "permutation", "size": "1MB"}]}
    axes = {"grid": {"transport.cc": ["dctcp", "swift"], "workload.0.size": ["1MB", "2MB", "4MB"]},
            "zip": {"topology.hosts": [16, 32], "topology.link_rate": ["1Gbps", "10Gbps"]},
            "seeds": 2}
    points = _sweep.expand(base, axes)
    assert len(points) == 2 * 3 * 2 * 2
    # zip walks in step: hosts and rate always pair up as listed.
    assert {(p.spec["topology"]["hosts"], p.spec["topology"]["link_rate"]) for p in points} == {
        (16, "1Gbps"), (32, "10Gbps")}
    assert {p.spec["seed"] for p in points} == {1, 2}
    assert len({p.key for p in points}) == len(points), "every point is a distinct scenario"
    assert base["transport"]["cc"] == "dctcp", "the base is not modified"


@pytest.mark.parametrize("axes, words", [
    ({"zip": {"seed": [1, 2], "topology.hosts": [16]}}, ["zip", "same length"]),
    ({"grid": {"transport.cc": []}}, ["transport.cc", "non-empty list"]),
    ({"seeds": 0}, ["seeds", ">= 1"]),
    ({"grids": {}}, ["grids", "grid, zip, seeds"]),
    ({"grid": {"topology.hosts.x": [16]}}, ["point 0", "topology.hosts"]),
])
def test_malformed_axes_are_rejected_with_the_field(axes: dict[str, Any], words: list[str]) -> None:
    base = {"topology": {"hosts": 16}, "transport": {"cc": "dctcp"}}
    with pytest.raises(dcnsim.ScenarioError) as info:
        _sweep.expand(base, axes)
    for w in words:
        assert w in str(info.value)


def test_an_invalid_axis_key_fails_the_sweep_before_any_run(tmp_path: Path) -> None:
    sweep = _tiny_dict()
    sweep["axes"] = {"grid": {"transport.congestion": ["dctcp", "swift"]}, "seeds": 2}
    with pytest.raises(dcnsim.ScenarioError) as info:
        dcnsim.sweep(sweep, tmp_path / "out", jobs=1, progress=False)
    message = str(info.value)
    assert "point 0" in message and "congestion" in message and "cc" in message, message
    assert not (tmp_path / "out" / "runs").exists(), "nothing ran"


def test_an_invalid_point_fails_the_sweep_before_any_run(tmp_path: Path) -> None:
    sweep = _tiny_dict()
    sweep["axes"] = {"grid": {"transport.cc": ["dctcp", "cubic"]}}
    with pytest.raises(dcnsim.ScenarioError) as info:
        dcnsim.sweep(sweep, tmp_path / "out", jobs=1, progress=False)
    message = str(info.value)
    assert "point 1" in message and "transport.cc=cubic" in message and "dctcp" in message
    assert not (tmp_path / "out" / "runs").exists(), "nothing ran"


def test_local_pool_and_dask_localcluster_merge_identical_tables(tmp_path: Path) -> None:
    import distributed  # noqa: F401  (installed by make/CI; the test must not silently skip)

    local = dcnsim.sweep(TINY, tmp_path / "local", jobs=2, progress=False)
    dask = dcnsim.sweep(TINY, tmp_path / "dask", jobs=2, dask="local", progress=False)
    assert len(local.summary) == 12 and local.complete and dask.complete
    assert set(local.summary["transport.cc"]) == {"dctcp", "newreno", "swift"}
    key = ["point", "id"]
    pd.testing.assert_frame_equal(local.flows.sort_values(key).reset_index(drop=True),
                                  dask.flows.sort_values(key).reset_index(drop=True))
    same = [c for c in local.summary.columns if c != "wall_seconds"]
    pd.testing.assert_frame_equal(local.summary[same], dask.summary[same])
    on_disk = pd.read_parquet(tmp_path / "local" / "flows.parquet")
    assert len(on_disk) == len(local.flows) and {"transport.cc", "workload.0.load", "seed"} <= set(on_disk.columns)
    # Conservation: every flow of every point is in the merged table exactly once.
    per_point = sum(len(pd.read_parquet(p)) for p in (tmp_path / "local" / "runs").glob("*/flows.parquet"))
    assert per_point == len(local.flows)


def test_a_killed_sweep_resumes_with_only_the_missing_points(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "dcnsim", "sweep", str(TINY), "--out", str(out), "--jobs", "1"]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 120
        while len(list(out.glob("runs/*/done.json"))) < 3:
            assert child.poll() is None, "the sweep ended before it could be killed"
            assert time.time() < deadline, "no progress"
            time.sleep(0.05)
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    finished = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("runs/*/done.json")}
    assert 3 <= len(finished) < 12
    result = dcnsim.sweep(TINY, out, jobs=2, progress=False)
    assert result.complete and len(result.summary) == 12
    for name, mtime in finished.items():
        assert (out / "runs" / name / "done.json").stat().st_mtime_ns == mtime, f"point {name} ran again"
    assert len(list(out.glob("runs/*/done.json"))) == 12


_REAL_RUN_POINT = _sweep.run_point


def _raise_or_crash(spec: dict[str, Any], base_dir: str, run_dir: str, timeout: Any) -> dict[str, Any]:
    if spec["transport"]["cc"] == "swift" and spec["seed"] == 2:
        raise RuntimeError("injected failure")
    if spec["transport"]["cc"] == "newreno" and spec["seed"] == 2 and spec["workload"][0]["load"] == 0.6:
        os._exit(3)  # a worker dying the way a native crash would
    return _REAL_RUN_POINT(spec, base_dir, run_dir, timeout)


def test_failing_points_are_reported_and_the_others_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sweep, "run_point", _raise_or_crash)
    result = dcnsim.sweep(TINY, tmp_path / "out", jobs=2, progress=False)
    s = result.summary
    failed = s[s["status"] != "ok"]
    assert len(failed) == 3 and not result.complete
    raised = failed[failed["transport.cc"] == "swift"]
    assert len(raised) == 2 and raised["error"].str.contains("injected failure").all()
    crashed = failed[failed["transport.cc"] == "newreno"]
    assert len(crashed) == 1 and crashed["error"].str.contains("died").all()
    assert (s[s["status"] == "ok"]["flows_finished"] > 0).all() and (s["status"] == "ok").sum() == 9
    record = json.loads((tmp_path / "out" / "runs" / raised["point"].iloc[0] / "done.json").read_text())
    assert record["status"] == "error"


def test_a_point_over_its_timeout_is_recorded_and_keeps_what_it_simulated(tmp_path: Path) -> None:
    sweep = _tiny_dict()
    sweep["axes"] = {"seeds": 2}
    result = dcnsim.sweep(sweep, tmp_path / "out", jobs=1, timeout=0.001, progress=False)
    s = result.summary
    assert list(s["status"]) == ["timeout", "timeout"] and not result.complete
    assert s["error"].str.contains("timeout after 0.001 s").all()
    assert (s["complete"] == False).all()  # noqa: E712
    assert (s["sim_time_us"] < 2000).all(), "stopped before the scenario's 2 ms"
    # A timed-out point is tried again on the next run of the sweep.
    again = dcnsim.sweep(sweep, tmp_path / "out", jobs=1, progress=False)
    assert again.complete and (again.summary["sim_time_us"] == 2000).all()


def _panic_on_seed_2(spec: dict[str, Any], base_dir: str, run_dir: str, timeout: Any) -> dict[str, Any]:
    # Runs in a spawned worker: the core's test hook makes this point's run panic at 100 us.
    from dcnsim._ext import core

    if spec["seed"] != 2:
        return _REAL_RUN_POINT(spec, base_dir, run_dir, timeout)
    module = core()
    real = module.Simulation

    def hooked(*args: Any) -> Any:
        sim = real(*args)
        sim._panic_at_for_test(100_000_000)
        return sim

    module.Simulation = hooked
    try:
        return _REAL_RUN_POINT(spec, base_dir, run_dir, timeout)
    finally:
        module.Simulation = real


def test_a_core_panic_fails_its_point_not_the_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyo3's own PanicException is a BaseException: run_point's `except Exception` would
    # miss it and the whole sweep would stop; dcnsim.SimulationPanic is an Exception.
    monkeypatch.setattr(_sweep, "run_point", _panic_on_seed_2)
    sweep = _tiny_dict()
    sweep["axes"] = {"seeds": 2}
    result = dcnsim.sweep(sweep, tmp_path / "out", jobs=1, progress=False)
    s = result.summary.set_index("seed")
    assert s.loc[1, "status"] == "ok" and s.loc[2, "status"] == "error" and not result.complete
    error = s.loc[2, "error"]
    assert error.startswith("SimulationPanic: simulator panic while running scenario"), error
    assert "(seed 2) at sim time 100000000 ps" in error and "_panic_at_for_test" in error
