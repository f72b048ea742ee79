"""``--set`` overrides and scenario loading: pure Python, no simulator needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dcnsim import ScenarioError, apply_overrides, load_scenario

BASE: dict[str, Any] = {
    "name": "x",
    "seed": 1,
    "topology": {"kind": "fat_tree", "hosts": 16, "link_rate": "100Gbps"},
    "transport": {"cc": "dctcp"},
    "workload": [{"kind": "permutation", "size": "1MB"}, {"kind": "incast", "size": "64KB"}],
}


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("topology.hosts=1024", 1024),
        ("topology.hosts=1_024", 1024),
        ("topology.hosts=0.5", 0.5),
        ("topology.hosts=true", True),
        ("topology.hosts=false", False),
        ('topology.hosts="quoted"', "quoted"),
        ("topology.hosts=[1, 2]", [1, 2]),
        ('topology.hosts={ kmin = "40KB", on = "dequeue" }', {"kmin": "40KB", "on": "dequeue"}),
        ("topology.hosts=800Gbps", "800Gbps"),
        ("topology.hosts=4KiB", "4KiB"),
        ("topology.hosts=fat_tree", "fat_tree"),
        ("topology.hosts=", ""),
        ("topology.hosts = 64", 64),
        ("topology.hosts=a=b", "a=b"),
    ],
)
def test_value_is_toml_when_it_parses_else_a_string(override: str, expected: object) -> None:
    assert apply_overrides(BASE, [override])["topology"]["hosts"] == expected


def test_index_addresses_an_array_of_tables() -> None:
    spec = apply_overrides(BASE, ["workload.0.size=4MB", "workload.1.tag=incast"])
    assert spec["workload"][0]["size"] == "4MB"
    assert spec["workload"][1] == {"kind": "incast", "size": "64KB", "tag": "incast"}


def test_new_leaf_in_existing_table_and_top_level() -> None:
    spec = apply_overrides(BASE, ["topology.mtu=4KiB", "duration=1ms"])
    assert spec["topology"]["mtu"] == "4KiB"
    assert spec["duration"] == "1ms"


def test_whole_table_can_be_set() -> None:
    spec = apply_overrides(BASE, ['switch={ buffer = "1MB", ecn = { kmin = "40KB" } }'])
    assert spec["switch"] == {"buffer": "1MB", "ecn": {"kmin": "40KB"}}


def test_overrides_apply_in_order_and_leave_the_input_alone() -> None:
    spec = apply_overrides(BASE, ["seed=2", "seed=3", "workload.0.size=2MB"])
    assert spec["seed"] == 3
    assert BASE["seed"] == 1
    assert BASE["workload"][0]["size"] == "1MB"


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("topolgy.hosts=3", "topolgy"),
        ("transport.cc_params.history=auto", "transport.cc_params"),
        ("workload.2.size=1MB", "workload.2"),
        ("workload.first.size=1MB", "workload.first"),
        ("topology.hosts.x=1", "topology.hosts"),
        ("name.first=1", "name"),
    ],
)
def test_path_whose_parent_does_not_exist_is_an_error_naming_it(override: str, named: str) -> None:
    with pytest.raises(ScenarioError, match=named.replace(".", r"\.")):
        apply_overrides(BASE, [override])


@pytest.mark.parametrize("override", ["seed", "=3", "topology..hosts=3", ".seed=3"])
def test_malformed_override_is_an_error(override: str) -> None:
    with pytest.raises(ScenarioError, match="override"):
        apply_overrides(BASE, [override])


def test_a_single_string_is_not_taken_for_a_list_of_overrides() -> None:
    with pytest.raises(TypeError):
        apply_overrides(BASE, "seed=2")  # type: ignore[arg-type]


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(ScenarioError, ValueError)


def test_load_scenario_applies_overrides_and_returns_the_file_directory(tiny_toml: Path) -> None:
    spec, base_dir = load_scenario(tiny_toml, ["topology.hosts=128", "workload.0.size=4MB"])
    assert spec["name"] == "tiny"
    assert spec["topology"]["hosts"] == 128
    assert spec["workload"][0] == {"kind": "permutation", "size": "4MB", "tag": "perm"}
    assert base_dir == tiny_toml.parent.resolve()


def test_load_scenario_rejects_invalid_toml(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(ScenarioError, match="bad.toml"):
        load_scenario(bad)


def test_load_scenario_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_scenario(tmp_path / "missing.toml")


def test_values_json_cannot_carry_are_handled_before_the_core() -> None:
    from dcnsim._scenario import scenario_json

    assert '"start": "2024-01-02"' in scenario_json(apply_overrides(BASE, ["start=2024-01-02"]))
    with pytest.raises(ScenarioError, match=r"workload\.0\.size"):
        scenario_json(apply_overrides(BASE, ["workload.0.size=inf"]))
