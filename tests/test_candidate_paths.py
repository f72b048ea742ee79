"""``Simulation.candidate_paths`` from Python (issue 28): a k = 4 three-tier fat tree
under CONGA gives host 0 -> host 4 (other pod) one path per (aggregation switch, core)
pair, 4 paths of 6 links, host 0 -> host 1 (same ToR) one path of 2 links; a flow id out
of range is refused with the field."""

from __future__ import annotations

import json

import pytest

SCENARIO = {
    "topology": {"kind": "fat_tree", "tiers": 3, "hosts": 16},
    "transport": {"cc": "dctcp", "lb": "conga"},
    "workload": [{"kind": "flows", "file": "flows.csv"}],
}


@pytest.mark.core
def test_candidate_paths_of_a_fat_tree(tmp_path):
    import dcnsim._core as core

    (tmp_path / "flows.csv").write_text("src,dst,size,start\n0,4,100KB,0\n0,1,100KB,0\n")
    sim = core.Simulation(json.dumps(SCENARIO), str(tmp_path))
    inter_pod = sim.candidate_paths(0)
    assert len(inter_pod) == 4 and {len(p) - 1 for p in inter_pod} == {6}
    assert all(p[0] == 0 and p[-1] == 4 for p in inter_pod)
    assert len({tuple(p) for p in inter_pod}) == 4
    assert [len(p) - 1 for p in sim.candidate_paths(1)] == [2]
    with pytest.raises(ValueError, match="flow"):
        sim.candidate_paths(2)
