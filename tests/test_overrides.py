"""``--set`` overrides and scenario loading: pure Python, no simulator needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import dcnsim
from dcnsim import ScenarioError, apply_overrides, load_scenario
from dcnsim._ext import dotted_paths
from dcnsim._scenario import set_path

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
        ("workload.2.size=1MB", "workload.2"),
        ("workload.first.size=1MB", "workload.first"),
        ("topology.hosts.x=1", "topology.hosts"),
        ("name.first=1", "name"),
        ("faults.link.0.at=1us", "faults.link"),
    ],
)
def test_path_through_a_value_or_a_missing_entry_is_an_error_naming_it(override: str, named: str) -> None:
    with pytest.raises(ScenarioError, match=named.replace(".", r"\.")):
        apply_overrides(BASE, [override])


def test_a_missing_table_is_created() -> None:
    # The sweep example's axis `switch.buffer` (docs/sweeps.md) on a scenario without [switch] (issue 29).
    spec = apply_overrides(BASE, ["switch.buffer=2MB", "switch.ecn.kmin=40KB", "transport.dctcp.g=0.1"])
    assert spec["switch"] == {"buffer": "2MB", "ecn": {"kmin": "40KB"}}
    assert spec["transport"] == {"cc": "dctcp", "dctcp": {"g": 0.1}}


def test_set_path_creates_missing_tables_too() -> None:
    # Sweep axes go through set_path.
    spec = {"topology": {"hosts": 16}}
    set_path(spec, "switch.buffer", "4MB")
    assert spec == {"topology": {"hosts": 16}, "switch": {"buffer": "4MB"}}


SWITCH = {**BASE, "switch": {"buffer": "1MB", "ecn": {"kmin": "60KB", "kmax": "60KB", "on": "dequeue"}}}


def test_an_inline_table_merges_into_the_table_there() -> None:
    # Issue 29: `switch={buffer="2MB"}` used to reset ECN kmin (60 KB -> the default).
    spec = apply_overrides(SWITCH, ['switch={ buffer = "2MB" }'])
    assert spec["switch"] == {"buffer": "2MB", "ecn": {"kmin": "60KB", "kmax": "60KB", "on": "dequeue"}}


def test_merging_reaches_every_depth_like_dotted_paths() -> None:
    inline = apply_overrides(SWITCH, ['switch={ ecn = { kmin = "40KB" }, pfc = {} }'])
    dotted = apply_overrides(SWITCH, ["switch.ecn.kmin=40KB", "switch.pfc={}"])
    assert inline == dotted
    assert inline["switch"] == {"buffer": "1MB", "pfc": {}, "ecn": {"kmin": "40KB", "kmax": "60KB", "on": "dequeue"}}


def test_an_inline_table_merges_into_an_array_entry() -> None:
    spec = apply_overrides(BASE, ['workload.1={ size = "1MB", senders = 4 }'])
    assert spec["workload"][1] == {"kind": "incast", "size": "1MB", "senders": 4}


@pytest.mark.parametrize("override", ['switch:={ buffer = "2MB" }', 'switch :={ buffer = "2MB" }'])
def test_colon_equals_replaces_a_table_whole(override: str) -> None:
    assert apply_overrides(SWITCH, [override])["switch"] == {"buffer": "2MB"}


def test_colon_equals_replaces_an_array_entry_and_creates_tables() -> None:
    spec = apply_overrides(BASE, ['workload.0:={ kind = "incast", senders = 2 }', "transport.dctcp:={ g = 0.5 }",
                                  "seed:=7"])
    assert spec["workload"][0] == {"kind": "incast", "senders": 2}
    assert spec["transport"]["dctcp"] == {"g": 0.5}
    assert spec["seed"] == 7


def test_arrays_and_values_are_replaced_not_merged() -> None:
    spec = apply_overrides(SWITCH, ['workload=[{ kind = "incast" }]', "switch.ecn=off"])
    assert spec["workload"] == [{"kind": "incast"}]
    assert spec["switch"]["ecn"] == "off"
    assert apply_overrides(BASE, ['topology.hosts={ a = 1 }'])["topology"]["hosts"] == {"a": 1}


@pytest.mark.parametrize("override", ["seed", "=3", ":=3", "topology..hosts=3", ".seed=3", "seed.:=3"])
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


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("workload[0].size: bad", "workload.0.size: bad"),
        ("faults.link[12]: no link", "faults.link.12: no link"),
        ("a[1][2].b: x; see workload[3]", "a.1.2.b: x; see workload.3"),
        ('workload[0].file: "flows[1].csv" not found', 'workload.0.file: "flows[1].csv" not found'),
        ('x: "say \\"q[0]\\"" then y[4]', 'x: "say \\"q[0]\\"" then y.4'),
        ("priority: allowed [1, 64] or [3]", "priority: allowed [1, 64] or [3]"),
        ("workload.0.size: already dotted", "workload.0.size: already dotted"),
    ],
)
def test_dotted_paths_spells_indices_as_set_does(message: str, expected: str) -> None:
    assert dotted_paths(message) == expected


@pytest.mark.core
def test_core_errors_name_fields_in_the_set_syntax(tiny_toml: Path) -> None:
    # The core writes workload[0].size; the message must read as `--set` takes it.
    with pytest.raises(ScenarioError, match=r"^workload\.0\.size: \"abc\""):
        dcnsim.run(tiny_toml, overrides=["workload.0.size=abc"], progress=False)
    with pytest.raises(ScenarioError, match=r"^faults\.drop\.0\.flow: "):
        dcnsim.run(tiny_toml, overrides=["faults.drop=[{ flow = 100000, psn = 0 }]"], progress=False)


@pytest.mark.core
def test_a_misspelt_table_is_still_refused_by_the_core(tiny_toml: Path) -> None:
    with pytest.raises(ScenarioError, match=r"^topolgy: unknown field `topolgy`, expected one of .*`topology`"):
        dcnsim.run(tiny_toml, overrides=["topolgy.hosts=128"], progress=False)
    with pytest.raises(ScenarioError, match=r"^transport\.cc_params: unknown field"):
        dcnsim.run(tiny_toml, overrides=["transport.cc_params.history=auto"], progress=False)


@pytest.mark.core
def test_cli_sets_a_field_of_a_table_the_scenario_lacks(tiny_toml: Path, dcnsim_cli: Any) -> None:
    import json

    out = tiny_toml.parent / "out"
    done = dcnsim_cli("run", str(tiny_toml), "--out", str(out), "--quiet",
                      "--set", "switch.buffer=2MB", "--set", 'switch={ ecn = { kmin = "60KB", kmax = "60KB" } }',
                      "--set", 'switch={ buffer = "3MB" }')
    assert done.returncode == 0, done.stderr
    switch = json.loads((out / "summary.json").read_text())["scenario"]["switch"]
    assert switch["buffer"] == 3_000_000
    assert switch["ecn"]["kmin"] == 60_000 and switch["ecn"]["kmax"] == 60_000


def test_a_sweep_axis_may_name_a_table_the_base_lacks() -> None:
    # docs/sweeps.md's example varies switch.buffer; most scenarios have no [switch].
    from dcnsim import _sweep

    points = _sweep.expand(BASE, {"zip": {"switch.buffer": ["1MB", "4MB"]}})
    assert [p.spec["switch"] for p in points] == [{"buffer": "1MB"}, {"buffer": "4MB"}]


@pytest.mark.core
def test_a_misspelt_sweep_axis_fails_before_any_run(tiny_toml: Path, tmp_path: Path) -> None:
    base, _ = load_scenario(tiny_toml)
    sweep = {"base": base, "axes": {"grid": {"topolgy.hosts": [16, 32]}}}
    with pytest.raises(ScenarioError, match=r"^sweep point 0 \(topolgy\.hosts=16\): topolgy: unknown field"):
        dcnsim.sweep(sweep, tmp_path / "out", jobs=1, progress=False)
    assert not (tmp_path / "out" / "runs").exists()


def test_a_sweep_axis_merges_tables_and_replaces_with_a_colon() -> None:
    from dcnsim import _sweep

    merged = _sweep.expand(SWITCH, {"grid": {"switch.ecn": [{"kmin": "10KB"}]}})[0].spec["switch"]["ecn"]
    replaced = _sweep.expand(SWITCH, {"grid": {"switch.ecn:": [{"kmin": "10KB"}]}})[0].spec["switch"]["ecn"]
    assert merged == {"kmin": "10KB", "kmax": "60KB", "on": "dequeue"}
    assert replaced == {"kmin": "10KB"}
