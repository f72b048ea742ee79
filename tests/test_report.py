"""`dcnsim report` and `dcnsim run --report`: the page loads in headless Chromium without
errors or requests beyond its own file, and what its plots hold matches the Parquet files.

Expected values are computed here from flows.parquet, timeseries.parquet and
ports.parquet with plain pandas; the page's values are read back from the Plotly graphs in the browser
(``element.data``), i.e. what was actually drawn.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pytest

import dcnsim
from chromium import CHROMIUM, Chromium, LoadedPage

SCENARIO = """\
name = "report-test"
seed = 1
[topology]
kind = "fat_tree"
tiers = 2
hosts = 16
link_rate = "100Gbps"
link_latency = "500ns"
[transport]
cc = "dctcp"
[[workload]]
kind = "incast"
tag = "incast"
senders = 8
size = "256KB"
[[workload]]
kind = "permutation"
tag = "perm"
hosts = 12
size = "1MB"
start = "5us"
[output]
sample_interval = "2us"
queues = "all"
"""

SWEEP = """\
base = "scenario.toml"
[axes]
grid = { "transport.cc" = ["dctcp", "swift"] }
seeds = 2
"""

READY = "window.dcnsimReportReady === true"
# Every plot's traces as Plotly holds them once drawn, by section id; `drawn` counts the
# traces Plotly rendered (its full data), `svg` says whether it produced its SVG.
FIGURES = """
Object.fromEntries(window.dcnsimReport.sections.filter(s => s.figure).map(s => {
  const gd = document.getElementById("plot-" + s.id);
  return [s.id, {
    drawn: (gd._fullData || []).length, svg: gd.querySelector(".main-svg") !== null,
    traces: gd.data.map(t => ({name: t.name, meta: t.meta, x: t.x, y: t.y, z: t.z, customdata: t.customdata})),
  }];
}))
"""


def _cli(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dcnsim", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    if not Path(CHROMIUM).is_file() and os.environ.get("DCNSIM_ALLOW_SKIP") == "1":
        pytest.skip(f"{CHROMIUM} is not installed (DCNSIM_ALLOW_SKIP=1)")
    with Chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, child_env: dict[str, str]) -> Path:
    """A small sampled run, written by `dcnsim run --report`."""
    work = tmp_path_factory.mktemp("report-run")
    (work / "scenario.toml").write_text(SCENARIO)
    done = _cli(work, child_env, "run", "scenario.toml", "--out", "out", "--quiet", "--report")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["wrote out", f"wrote {Path('out') / 'report.html'}"]
    return work / "out"


@pytest.fixture(scope="module")
def run_page(browser: Chromium, run_dir: Path) -> LoadedPage:
    return browser.load(run_dir / "report.html", ready=READY)


@pytest.fixture(scope="module")
def figures(run_page: LoadedPage) -> dict[str, Any]:
    return run_page.evaluate(FIGURES)


def _by_meta(traces: list[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for trace in traces:
        grouped.setdefault(trace["meta"][key], []).append(trace)
    return grouped


def _queue(run_dir: Path) -> pd.DataFrame:
    """The queue samples as one table: ``time_us, port, node, peer, bytes``."""
    series = pd.read_parquet(run_dir / "timeseries.parquet")
    ports = pd.read_parquet(run_dir / "ports.parquet").set_index("port")
    queue = series[(series["kind"] == "port") & (series["metric"] == "queue_bytes")]
    queue = queue.rename(columns={"id": "port", "value": "bytes"})[["time_us", "port", "bytes"]]
    return queue.assign(node=queue["port"].map(ports["node"]), peer=queue["port"].map(ports["peer"]))


def _close(actual: Any, expected: Any) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=1e-12)


# ---------------------------------------------------------------------------------------
# The error capture itself


def test_a_thrown_error_and_console_error_are_caught(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('logged');"
                    "undefinedFunction();</script></body></html>")
    loaded = browser.load(page)
    assert any("logged" in e for e in loaded.errors), loaded.errors
    assert any("undefinedFunction is not defined" in e for e in loaded.errors), loaded.errors


def test_a_request_beyond_the_file_is_caught(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "fetches.html"
    page.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/plot.png"></body></html>')
    assert browser.load(page).foreign_requests() == ["http://127.0.0.1:9/plot.png"]


def test_a_clean_page_has_no_errors_and_no_requests(browser: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "clean.html"
    page.write_text("<!DOCTYPE html><html><body><script>window.ok = 1 + 1;</script></body></html>")
    loaded = browser.load(page, ready="window.ok === 2")
    assert loaded.errors == [] and loaded.foreign_requests() == []


# ---------------------------------------------------------------------------------------
# A run's page


@pytest.mark.core
def test_run_page_loads_cleanly_and_draws_every_plot(run_page: LoadedPage, tmp_path: Path) -> None:
    assert run_page.errors == []
    assert run_page.foreign_requests() == []  # self-contained: nothing fetched
    assert run_page.evaluate(READY)
    figures = run_page.evaluate(FIGURES)
    assert set(figures) == {"fct_cdf", "slowdown_by_size", "cct", "queue_heatmap", "cwnd", "utilisation", "topology"}
    for name, figure in figures.items():
        assert figure["svg"] and figure["drawn"] == len(figure["traces"]) > 0, name

    import matplotlib.image

    shot = run_page.screenshot(tmp_path / "report.png")
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[1] == 1280 and pixels.shape[0] > 1000
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200, "the screenshot is nearly blank"


@pytest.mark.core
def test_fct_cdf_is_the_flows_fct(run_dir: Path, figures: dict[str, Any]) -> None:
    flows = pd.read_parquet(run_dir / "flows.parquet")
    curves = _by_meta(figures["fct_cdf"]["traces"], "series")
    assert sorted(curves) == sorted(flows["tag"].unique())
    for tag, [curve] in curves.items():
        fct = np.sort(flows.loc[flows["tag"] == tag, "fct_us"].to_numpy())
        _close(curve["x"], fct)
        _close(curve["y"], np.arange(1, fct.size + 1) / fct.size)


@pytest.mark.core
def test_slowdown_by_size_is_the_flows_slowdown(run_dir: Path, figures: dict[str, Any]) -> None:
    flows = pd.read_parquet(run_dir / "flows.parquet")
    lines = _by_meta(figures["slowdown_by_size"]["traces"], "series")
    assert sorted(lines) == sorted(flows["tag"].unique())
    for tag, traces in lines.items():
        per_size = flows[flows["tag"] == tag].groupby("size")["slowdown"]
        stats = {t["meta"]["stat"]: t for t in traces}
        _close(stats["median"]["x"], per_size.median().index)
        _close(stats["median"]["y"], per_size.median())
        _close(stats["p99"]["y"], per_size.quantile(0.99))
        assert [c[0] for c in stats["median"]["customdata"]] == per_size.size().tolist()


@pytest.mark.core
def test_cct_is_last_finish_minus_first_start(run_dir: Path, figures: dict[str, Any]) -> None:
    flows = pd.read_parquet(run_dir / "flows.parquet")
    points = _by_meta(figures["cct"]["traces"], "series")
    for tag, group in flows.groupby("tag"):
        [trace] = points[tag]
        _close(trace["y"], [group["finish_us"].max() - group["start_us"].min()])


@pytest.mark.core
def test_queue_heatmap_is_the_queue_samples(run_dir: Path, figures: dict[str, Any]) -> None:
    queue = _queue(run_dir)
    [heatmap] = figures["queue_heatmap"]["traces"]
    ports = heatmap["meta"]["ports"]
    assert sorted(ports) == sorted(queue["port"].unique())
    expected = queue.pivot(index="port", columns="time_us", values="bytes").loc[ports]
    _close(heatmap["x"], expected.columns)
    _close(heatmap["z"], expected.to_numpy())
    names = pd.read_parquet(run_dir / "ports.parquet").set_index("port")["name"]
    assert heatmap["y"] == [names[p] for p in ports]
    first = queue[queue["port"] == ports[0]].iloc[0]
    assert first["node"] < 16, "host NICs (hop distance 0) come first"


@pytest.mark.core
def test_cwnd_traces_are_each_workloads_largest_windows(run_dir: Path, figures: dict[str, Any]) -> None:
    series = pd.read_parquet(run_dir / "timeseries.parquet")
    cwnd = series[series["metric"] == "cwnd_bytes"].rename(columns={"id": "flow", "value": "cwnd_bytes"})
    flows = pd.read_parquet(run_dir / "flows.parquet").set_index("id")
    traces = _by_meta(figures["cwnd"]["traces"], "flow")
    means = cwnd.groupby("flow")["cwnd_bytes"].mean()
    for tag in flows["tag"].unique():
        mine = means[means.index.map(flows["tag"]) == tag]
        assert {f for f, [t] in traces.items() if t["meta"]["tag"] == tag} == set(mine.nlargest(8).index)
    assert len(traces) == 16  # 8 of the 8 incast flows, 8 of the 12 permutation flows
    for flow, [trace] in traces.items():
        samples = cwnd[cwnd["flow"] == flow]
        _close(trace["x"], samples["time_us"])
        _close(trace["y"], samples["cwnd_bytes"])


@pytest.mark.core
def test_utilisation_per_tier_is_the_port_samples(run_dir: Path, figures: dict[str, Any]) -> None:
    series = pd.read_parquet(run_dir / "timeseries.parquet")
    ports = pd.read_parquet(run_dir / "ports.parquet").set_index("port")
    util = series[series["metric"] == "utilisation"].rename(columns={"id": "port"})
    # A 2-tier tree of 16 hosts: hosts, then leaves (which have hosts), then spines.
    leaves = set(ports.loc[ports["node"] < 16, "peer"])
    layer = lambda n: 0 if n < 16 else 1 if n in leaves else 2  # noqa: E731
    node, peer = util["port"].map(ports["node"]).map(layer), util["port"].map(ports["peer"]).map(layer)
    util = util.assign(tier=util["port"].map(ports["tier"]), direction=np.where(node < peer, "up", "down"))
    lines = {(t["meta"]["tier"], t["meta"]["direction"], t["meta"]["stat"]): t
             for t in figures["utilisation"]["traces"]}
    assert set(lines) == {(tier, way, stat) for tier in ("host", "tor_uplink") for way in ("up", "down")
                          for stat in ("mean", "max")}
    for (tier, way), group in util.groupby(["tier", "direction"]):
        per_time = group.groupby("time_us")["value"]
        assert lines[(tier, way, "mean")]["meta"]["ports"] == group["port"].nunique()
        _close(lines[(tier, way, "mean")]["x"], per_time.mean().index)
        _close(lines[(tier, way, "mean")]["y"], per_time.mean())
        _close(lines[(tier, way, "max")]["y"], per_time.max())
    assert 0.99 < max(lines[("host", "down", "max")]["y"]) <= 1 + 1e-9, "the incast saturates its receiver's link"


@pytest.mark.core
def test_host_downlinks_carry_every_delivered_byte(run_dir: Path) -> None:
    """Utilisation × capacity over the intervals of the switch → host links adds up to
    the data and ACK bytes the hosts received (flows.parquet's rx_bytes, 64-byte ACKs)."""
    series = pd.read_parquet(run_dir / "timeseries.parquet")
    ports = pd.read_parquet(run_dir / "ports.parquet").set_index("port")
    summary = json.loads((run_dir / "summary.json").read_text())
    flows = pd.read_parquet(run_dir / "flows.parquet")
    util = series[series["metric"] == "utilisation"].rename(columns={"id": "port"})
    down = util[util["port"].map(ports["peer"]) < 16].sort_values(["port", "time_us"])
    times = np.concatenate([[0.0], np.sort(series["time_us"].unique())])
    span_us = pd.Series(np.diff(times), index=times[1:])
    carried = (down["value"] * down["time_us"].map(span_us) * 1e-6 * 100e9 / 8).sum()
    received = flows["rx_bytes"].sum() + 64 * summary["stats"]["ack_packets"]
    # At the end, the last flows' final ACKs and any packet mid-transmission are not in.
    assert received - (16 * 4096 + 64 * len(flows)) <= carried <= received + 1e-3


@pytest.mark.core
def test_topology_has_every_sampled_link_with_its_mean_queue(run_dir: Path, figures: dict[str, Any]) -> None:
    queue = _queue(run_dir)
    depth = queue.groupby(["node", "peer"])["bytes"].mean()
    [hover] = [t for t in figures["topology"]["traces"] if t["meta"] and "links" in t["meta"]]
    drawn = {(a, b): (ab, ba) for a, b, ab, ba in hover["meta"]["links"]}
    assert set(drawn) == {(min(a, b), max(a, b)) for a, b in depth.index}
    assert sum(a < 16 for a, _ in drawn) == 16  # every host's link, both directions sampled (queues = "all")
    for (a, b), (ab, ba) in drawn.items():
        assert ab == pytest.approx(depth[(a, b)], rel=1e-12) and ba == pytest.approx(depth[(b, a)], rel=1e-12)


@pytest.mark.core
def test_page_carries_the_resolved_scenario(run_dir: Path, run_page: LoadedPage) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    assert run_page.evaluate("window.dcnsimReport.scenario") == summary["scenario"]


# ---------------------------------------------------------------------------------------
# Absent data, errors, a sweep


def _embedded(page: Path) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="dcnsim-data">(.*?)</script>', page.read_text(), re.S)
    assert match
    return json.loads(match.group(1))


@pytest.mark.core
def test_plots_without_data_become_notes(tmp_path: Path) -> None:
    (tmp_path / "scenario.toml").write_text(SCENARIO.split("[output]")[0])
    dcnsim.run(tmp_path / "scenario.toml", out=tmp_path / "out")
    sections = {s["id"]: s for s in _embedded(dcnsim.report(tmp_path / "out"))["sections"]}
    for name in ("queue_heatmap", "cwnd", "utilisation", "topology"):
        assert sections[name]["figure"] is None and "sample_interval" in sections[name]["note"], name
    for name in ("fct_cdf", "slowdown_by_size", "cct"):
        assert sections[name]["figure"] is not None and sections[name]["note"] is None, name


@pytest.mark.core
def test_a_sampler_turned_off_is_named_in_the_note(tmp_path: Path) -> None:
    (tmp_path / "scenario.toml").write_text(SCENARIO.replace('queues = "all"', 'queues = "none"\ncwnd = false'))
    dcnsim.run(tmp_path / "scenario.toml", out=tmp_path / "out")
    notes = {s["id"]: s["note"] for s in _embedded(dcnsim.report(tmp_path / "out"))["sections"]}
    assert 'queues = "none"' in notes["queue_heatmap"] and 'queues = "none"' in notes["topology"]
    assert "cwnd = false" in notes["cwnd"] and 'queues = "none"' in notes["utilisation"]


@pytest.mark.core
def test_dragonfly_routers_share_a_row_and_their_links_arc_above_it(tmp_path: Path) -> None:
    spec = {"topology": {"kind": "dragonfly", "hosts": 36, "groups": 9, "routers_per_group": 4},
            "workload": [{"kind": "permutation", "size": "64KB"}], "output": {"sample_interval": "5us"}}
    dcnsim.run(spec, out=tmp_path / "out")
    queue = _queue(tmp_path / "out")
    [topology] = [s for s in _embedded(dcnsim.report(tmp_path / "out"))["sections"] if s["id"] == "topology"]
    traces = topology["figure"]["data"]
    [nodes] = [t for t in traces if t["name"] == "nodes"]
    assert {y for n, y in zip(nodes["meta"]["nodes"], nodes["y"]) if n >= 36} == {1.0}  # one hop from a host
    [hover] = [t for t in traces if t["name"] == "links"]
    routers = [(a, b) for a, b, *_ in hover["meta"]["links"] if a >= 36]
    assert set(routers) == {(a, b) for a, b in zip(queue["node"], queue["peer"]) if 36 <= a < b}
    assert len(routers) == 9 * 6 + 9 * 8 / 2  # 6 local links per group, one global link per pair of groups
    heights = [y for (a, _, *_), y in zip(hover["meta"]["links"], hover["y"]) if a >= 36]
    assert min(heights) > 1.0


@pytest.mark.parametrize("files, message", [
    ((), "is not a result directory: it has no summary.json"),
    (("summary.json",), "looks like a run directory but lacks flows.parquet"),
    (("summary.parquet", "flows.parquet"), "looks like a sweep directory but lacks runs"),
])
def test_a_directory_that_is_not_a_result_is_a_clear_error(tmp_path: Path, child_env: dict[str, str],
                                                           files: tuple[str, ...], message: str) -> None:
    for name in files:
        (tmp_path / name).write_text("")
    done = _cli(tmp_path, child_env, "report", ".")
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.core
def test_sweep_page_compares_the_points(browser: Chromium, tmp_path: Path, child_env: dict[str, str]) -> None:
    (tmp_path / "scenario.toml").write_text(SCENARIO.split("[output]")[0])
    (tmp_path / "sweep.toml").write_text(SWEEP)
    done = _cli(tmp_path, child_env, "sweep", "sweep.toml", "--out", "sweep", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    done = _cli(tmp_path, child_env, "report", "sweep")
    assert done.returncode == 0, done.stderr

    page = browser.load(tmp_path / "sweep" / "report.html", ready=READY)
    assert page.errors == [] and page.foreign_requests() == []
    figures = page.evaluate(FIGURES)
    flows = pd.read_parquet(tmp_path / "sweep" / "flows.parquet")
    curves = _by_meta(figures["fct_cdf"]["traces"], "series")
    assert len(curves) == 4  # (dctcp, swift) x (incast, perm), the two seeds pooled in each
    for (cc, tag), group in flows.groupby(["transport.cc", "tag"]):
        [curve] = curves[f"cc={cc} / {tag}"]
        fct = np.sort(group["fct_us"].to_numpy())
        assert group["seed"].nunique() == 2
        _close(curve["x"], fct)
    dots = _by_meta(figures["cct"]["traces"], "series")
    for (cc, tag), group in flows.groupby(["transport.cc", "tag"]):
        [trace] = dots[f"cc={cc} / {tag}"]
        per_seed = group.groupby("seed").apply(lambda g: g["finish_us"].max() - g["start_us"].min())
        assert sorted(trace["y"]) == pytest.approx(sorted(per_seed))
