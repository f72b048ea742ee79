"""Time series (``[observe]``), issue 9 item 1: the long-form table is checked against
figures that follow from the setting (a saturated bottleneck, the buffer bound, the run's
counters).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dcnsim

pytestmark = pytest.mark.core

DUMBBELL = {
    "name": "dumbbell", "duration": "1ms",
    "topology": {"kind": "dumbbell", "hosts": 2, "link_rate": "100Gbps", "bottleneck_rate": "10Gbps",
                 "link_latency": "1us", "mtu": "4096B"},
    "switch": {"buffer": "100KB", "ecn": {"kmin": "30KB", "kmax": "30KB"}},
    "transport": {"cc": "dctcp"},
    "workload": [{"kind": "permutation", "size": "infinite"}],
}


def test_long_form_time_series_of_a_dumbbell_meet_the_analytic_figures(tmp_path: Path) -> None:
    spec = {**DUMBBELL, "observe": {"interval": "10us", "ports": "switch"}}
    dcnsim.run(spec, out=tmp_path / "out")
    ts = pd.read_parquet(tmp_path / "out" / "timeseries.parquet")
    ports = pd.read_parquet(tmp_path / "out" / "ports.parquet")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert list(ts.columns) == ["time_us", "kind", "id", "metric", "value"]

    # The documented pivot: one column per port, one row per sample time.
    util = ts[ts["metric"] == "utilisation"].pivot(index="time_us", columns="id", values="value")
    util.columns = ports.set_index("port")["name"][util.columns]
    assert list(util.index) == pytest.approx(np.arange(10, 1001, 10.0)), "none at time 0"
    # Both hosts send (a permutation of 2): each direction of the 10 Gbps link is saturated
    # after slow start, by one flow's data and the other's ACKs; a host's 100 Gbps
    # downlink carries what crossed the bottleneck towards it.
    steady = util[util.index > 100]
    assert steady[["s0->s1", "s1->s0"]].min().min() > 0.999
    assert steady[["s0->s1", "s1->s0"]].max().max() <= 1 + 1e-9
    downlink = steady["s1->h1"].mean()
    assert downlink == pytest.approx(0.1, rel=2e-3), "10 of 100 Gbps"

    queue = ts[ts["metric"] == "queue_bytes"]["value"]
    assert queue.between(0, 100_000).all() and queue.max() > 0
    marks = ts[ts["metric"] == "ecn_marks"]["value"].sum()
    assert marks > 0 and marks == summary["stats"]["ecn_marks"]
    flows = ts[ts["kind"] == "flow"]
    assert {"cwnd_bytes", "in_flight_bytes", "delivered_bytes", "send_rate_gbps", "goodput_gbps", "srtt_us",
            "cc.alpha"} <= set(flows["metric"].astype(str))
    goodput = flows[(flows["metric"] == "goodput_gbps") & (flows["time_us"] > 100)]["value"]
    # Per 4096-byte data packet of one flow the link also carries a 64-byte ACK of the
    # other; 4032 of the 4096 bytes are payload.
    assert goodput.mean() == pytest.approx(10 * 4032 / (4096 + 64), rel=5e-3)


def test_output_sample_interval_is_the_older_spelling_of_observe(tmp_path: Path) -> None:
    old = dcnsim.run({**DUMBBELL, "output": {"sample_interval": "50us", "queues": "all", "cwnd": False}})
    new = dcnsim.run({**DUMBBELL, "observe": {"interval": "50us", "ports": "all", "flows": []}})
    pd.testing.assert_frame_equal(old.timeseries, new.timeseries)
    assert old.summary["scenario"]["output"] == {"sample_interval": "50us", "queues": "all", "cwnd": False}
    assert "observe" not in old.summary["scenario"]
    assert new.summary["scenario"]["observe"]["metrics"] == "all"


def test_observation_off_writes_no_series_and_bad_selections_are_clear_errors(tmp_path: Path,
                                                                              child_env: dict[str, str]) -> None:
    plain = dcnsim.run(DUMBBELL, out=tmp_path / "plain")
    assert plain.timeseries.empty and plain.ports is None
    assert not list((tmp_path / "plain").glob("timeseries*")) and not (tmp_path / "plain" / "ports.parquet").exists()

    (tmp_path / "bad.toml").write_text(
        '[topology]\nkind = "star"\nhosts = 4\n[[workload]]\nkind = "permutation"\nsize = "1MB"\n'
        '[observe]\ninterval = "1us"\nports = ["s0->h9"]\n')
    done = subprocess.run([sys.executable, "-m", "dcnsim", "run", "bad.toml", "--quiet"], cwd=tmp_path,
                          env=child_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith('error: observe.ports: "s0->h9": there is no node "h9"'), done.stderr
    with pytest.raises(dcnsim.ScenarioError, match=r'^observe.flows: 5 is out of range: the workloads make 2 flows'):
        dcnsim.run({**DUMBBELL, "observe": {"interval": "1us", "flows": [5]}})
    with pytest.raises(dcnsim.ScenarioError, match=r'^observe.metrics: "bytes" is not a metric; allowed'):
        dcnsim.run({**DUMBBELL, "observe": {"interval": "1us", "metrics": ["queue", "bytes"]}})
