"""The Python API against the compiled simulator: determinism and the Result's shape."""

from __future__ import annotations

from pathlib import Path

import pytest

import dcnsim

pytestmark = pytest.mark.core

FLOW_COLUMNS = [
    "id", "tag", "src", "dst", "size", "start_us", "finish_us", "fct_us", "ideal_fct_us",
    "slowdown", "delivered", "retransmits", "drops", "finished", "cc", "lb",
]


def test_same_scenario_and_seed_give_identical_flows_parquet(tiny_toml: Path, tmp_path: Path) -> None:
    dcnsim.run(tiny_toml, out=tmp_path / "a")
    dcnsim.run(tiny_toml, out=tmp_path / "b")
    dcnsim.run(tiny_toml, overrides=["seed=2"], out=tmp_path / "c")
    a, b, c = ((tmp_path / d / "flows.parquet").read_bytes() for d in "abc")
    assert a == b
    assert a != c


def test_run_returns_flows_as_a_dataframe(tiny_toml: Path) -> None:
    result = dcnsim.run(tiny_toml)
    assert result.complete
    flows = result.flows
    assert list(flows.columns[: len(FLOW_COLUMNS)]) == FLOW_COLUMNS
    assert len(flows) > 0 and flows["finished"].all()
    assert flows["id"].is_monotonic_increasing
    assert set(flows["tag"]) == {"perm"}
    assert (flows["size"] > 0).all() and flows["size"].nunique() == 1
    assert (flows["finish_us"] > flows["start_us"]).all()
    summary = result.summary
    assert summary["name"] == "tiny" and summary["seed"] == 1
    assert summary["version"] == dcnsim.__version__
    assert summary["scenario"]["topology"]["hosts"] == 16
    perm = summary["workloads"]["perm"]
    assert perm["flows"] == perm["finished"] == len(flows)
    assert perm["fct_us"]["max"] == pytest.approx(flows["fct_us"].max())
    assert perm["cct_us"] > 0
    # Nothing sampled: an empty long-form table.
    assert result.timeseries.empty and list(result.timeseries.columns) == ["time_us", "kind", "id", "metric", "value"]


def test_a_scenario_dict_and_overrides_work_like_a_file(tiny_toml: Path) -> None:
    spec, base_dir = dcnsim.load_scenario(tiny_toml)
    from_dict = dcnsim.run(spec, overrides=["seed=5"], base_dir=base_dir)
    from_file = dcnsim.run(tiny_toml, overrides=["seed=5"])
    assert from_dict.flows.equals(from_file.flows)
    assert from_dict.summary["seed"] == 5


def test_invalid_scenario_raises_scenario_error_naming_the_field(tiny_toml: Path) -> None:
    with pytest.raises(dcnsim.ScenarioError, match=r"transport\.cc"):
        dcnsim.run(tiny_toml, overrides=["transport.cc=no_such_algorithm"])
