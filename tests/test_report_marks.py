"""The report page and the PNG plots read alike: one colour scale for queue depth, ports
by name, all-zero panels left out with a note, and a partial run marked.

Expected values come from the result directory's Parquet files and summary.json, read
with plain pandas, and the colour scale is checked against matplotlib's own "YlOrRd".
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dcnsim
from dcnsim import _plots, _sweep
from dcnsim import _report_figures as fig
from dcnsim._ext import core
from dcnsim._result import Result
from dcnsim._scenario import scenario_json

SPEC: dict[str, Any] = {
    "name": "marks", "seed": 1,
    "topology": {"kind": "fat_tree", "tiers": 2, "hosts": 16, "link_rate": "100Gbps", "link_latency": "500ns"},
    "transport": {"cc": "dctcp"},
    "workload": [{"kind": "incast", "tag": "incast", "senders": 6, "size": "64KB"}],
    "observe": {"interval": "1us"},
}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("marks") / "run"
    dcnsim.run(SPEC, out=out)
    dcnsim.report(out)
    return out


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Result:
    """The same run stopped after 10 us of simulated time, as Ctrl-C leaves it."""
    sim = core().Simulation(scenario_json(SPEC), str(tmp_path_factory.getbasetemp()))
    assert not sim.run_until(10_000_000)
    return Result.from_simulation(sim, 0.1)


def _embedded(page: Path) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="dcnsim-data">(.*?)</script>', page.read_text(), re.S)
    assert match
    return json.loads(match.group(1))


def _sections(page: Path) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in _embedded(page)["sections"]}


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255


def _luminance(colour: str) -> float:
    """WCAG relative luminance: 1 for white, 0 for black."""
    c = _rgb(colour)
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def _result(run_dir: Path) -> Result:
    return Result(pd.read_parquet(run_dir / "flows.parquet"), pd.read_parquet(run_dir / "timeseries.parquet"),
                  json.loads((run_dir / "summary.json").read_text()), pd.read_parquet(run_dir / "ports.parquet"))


# ---------------------------------------------------------------------------------------
# One colour scale for queue depth


@pytest.mark.core
def test_heatmap_and_fabric_drawing_share_one_light_to_dark_queue_scale(run_dir: Path) -> None:
    import matplotlib

    sections = _sections(run_dir / "report.html")
    [heatmap] = sections["queue_heatmap"]["figure"]["data"]
    [bar] = [t for t in sections["topology"]["figure"]["data"] if t.get("marker", {}).get("showscale")]
    scales = [heatmap["colorscale"], bar["marker"]["colorscale"]]
    assert scales[0] == scales[1], "one scale in both figures"
    assert heatmap["meta"]["scale"]["colormap"] == bar["meta"]["scale"]["colormap"] == "YlOrRd"
    assert not heatmap.get("reversescale") and not bar["marker"].get("reversescale")
    assert heatmap["zmin"] == 0 and bar["marker"]["cmin"] == 0
    # The named colormap is what is drawn: matplotlib's YlOrRd at each stop of the scale.
    ylorrd = matplotlib.colormaps["YlOrRd"]
    for position, colour in scales[0]:
        np.testing.assert_allclose(_rgb(colour), ylorrd(position)[:3], atol=2 / 255)
    # Low = light, high = dark, on both.
    assert _luminance(scales[0][0][1]) > 0.9 > 0.1 > _luminance(scales[0][-1][1])
    for trace in (heatmap, bar):
        title = (trace.get("colorbar") or trace["marker"]["colorbar"])["title"]["text"]
        assert "queue depth (bytes)" in title
    # The links get darker with their load class, in the scale's colours.
    classes = sorted((t["meta"]["load_class"], t["line"]["color"]) for t in sections["topology"]["figure"]["data"]
                     if "load_class" in (t.get("meta") or {}) and t["meta"]["load_class"] > 0)
    assert len(classes) >= 2
    lum = [_luminance(c) for _, c in classes]
    assert lum == sorted(lum, reverse=True)
    for k, colour in classes:
        np.testing.assert_allclose(_rgb(colour), ylorrd(k / 5)[:3], atol=2 / 255)


@pytest.mark.core
def test_png_queue_panel_uses_the_same_label(run_dir: Path) -> None:
    figure = _plots.figures(_result(run_dir))["timeseries_port.png"]
    labels = [ax.get_ylabel() for ax in figure.axes]
    assert "queue depth (bytes)" in labels and "queue_bytes" not in labels


# ---------------------------------------------------------------------------------------
# Ports by name


@pytest.mark.core
def test_heatmap_rows_are_the_ports_names(run_dir: Path) -> None:
    ports = pd.read_parquet(run_dir / "ports.parquet").set_index("port")
    [heatmap] = _sections(run_dir / "report.html")["queue_heatmap"]["figure"]["data"]
    assert heatmap["y"] == [ports.at[p, "name"] for p in heatmap["meta"]["ports"]]
    assert "%{y}" in heatmap["hovertemplate"]
    layout = _sections(run_dir / "report.html")["queue_heatmap"]["figure"]["layout"]
    assert layout["yaxis"].get("showticklabels") is not False
    assert set(layout["yaxis"]["ticktext"]) <= set(ports["name"]) and layout["yaxis"]["ticktext"]


def test_a_heatmap_of_hundreds_of_ports_labels_a_readable_subset() -> None:
    """400 ports (200 NICs, 200 ToR ports): every row has its name for hover, a spread
    subset is labelled with at least 13 px between labels, and the two groups are named."""
    n, hosts = 400, 200
    port = np.arange(n)
    node = np.where(port < hosts, port, hosts + port % 10)
    peer = np.where(port < hosts, hosts + port % 10, port - hosts)
    times = [1.0, 2.0]
    queue = pd.DataFrame({"time_us": np.repeat(times, n), "port": np.tile(port, 2), "node": np.tile(node, 2),
                          "peer": np.tile(peer, 2), "bytes": np.tile(port * 100.0, 2),
                          "name": np.tile([f"link-{p}" for p in port], 2)})
    section = fig.queue_heatmap(queue, hosts, "")
    assert section.figure is not None
    [trace], layout = section.figure["data"], section.figure["layout"]
    assert sorted(trace["y"]) == sorted(f"link-{p}" for p in port)
    ticks = layout["yaxis"]["ticktext"]
    rows_per_px = n / (layout["height"] - 80)
    step = trace["y"].index(ticks[1]) - trace["y"].index(ticks[0])
    assert step / rows_per_px >= 13 and len(ticks) >= n / step - 1 and len(ticks) >= 40
    assert layout["yaxis"]["tickvals"] == ticks == trace["y"][::step]
    groups = [a["text"] for a in layout["annotations"]]
    assert groups == ["host NICs: 200 ports", "switches 1 hop from a host: 200 ports"]


@pytest.mark.core
def test_png_legends_name_the_ports(run_dir: Path) -> None:
    ports = pd.read_parquet(run_dir / "ports.parquet")
    figure = _plots.figures(_result(run_dir))["timeseries_port.png"]
    texts = [t.get_text() for ax in figure.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert texts and set(texts) <= set(ports["name"])
    assert not [t for t in texts if re.fullmatch(r"port \d+", t)]


# ---------------------------------------------------------------------------------------
# All-zero panels


@pytest.mark.core
def test_all_zero_png_panels_and_lines_are_left_out_with_a_note(run_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    series = pd.read_parquet(run_dir / "timeseries.parquet")
    ports = series[series["kind"] == "port"]
    nonzero = ports.groupby("metric", observed=True)["value"].apply(lambda v: bool((v.fillna(0) != 0).any()))
    zero = sorted(nonzero.index[~nonzero])
    assert "trims" in zero, "nothing trims packets in this scenario"
    figure = _plots.figures(_result(run_dir))["timeseries_port.png"]
    drawn = [ax.get_ylabel().replace("queue depth (bytes)", "queue_bytes") for ax in figure.axes]
    assert sorted(drawn) == sorted(nonzero.index[nonzero])
    note = [line for line in capsys.readouterr().err.splitlines() if "timeseries_port.png" in line]
    assert len(note) == 1 and all(m in note[0] for m in zero), note
    assert all(m in figure.get_supxlabel() for m in zero)
    for ax in figure.axes:  # no line of a port that stayed at 0
        for line in ax.get_lines():
            assert np.any(np.asarray(line.get_ydata(), dtype=float) != 0), (ax.get_ylabel(), line.get_label())


@pytest.mark.core
def test_all_zero_report_panels_become_a_note(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "zero"
    shutil.copytree(run_dir, copy)
    series = pd.read_parquet(copy / "timeseries.parquet")
    series.loc[series["metric"].isin(["queue_bytes", "utilisation"]), "value"] = 0.0
    series.to_parquet(copy / "timeseries.parquet", index=False)
    sections = _sections(dcnsim.report(copy))
    for name in ("queue_heatmap", "utilisation"):
        assert sections[name]["figure"] is None and sections[name]["note"].startswith("Left out:"), name
    assert "0 bytes" in sections["queue_heatmap"]["note"]
    assert sections["cwnd"]["figure"] is not None and sections["topology"]["figure"] is not None


# ---------------------------------------------------------------------------------------
# A partial run


@pytest.mark.core
def test_a_partial_run_marks_its_page_and_every_plot(partial: Result, tmp_path: Path) -> None:
    out = partial.write(tmp_path / "partial")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    mark = f"partial run: stopped at {summary['sim_time_us']:,.1f} us"
    assert mark == "partial run: stopped at 10.0 us"
    page = dcnsim.report(out)
    text = page.read_text()
    [h1] = re.findall(r"<h1>(.*?)</h1>", text, re.S)
    assert mark in h1
    assert f"<b>P{mark[1:]}</b>" in text
    figures = [s["figure"] for s in _sections(page).values() if s["figure"] is not None]
    assert figures and all(f["layout"]["title"]["text"] == mark for f in figures)
    pngs = _plots.figures(partial)
    assert pngs and all(f.get_suptitle() == mark for f in pngs.values())


@pytest.mark.core
def test_a_complete_run_is_not_marked(run_dir: Path) -> None:
    text = (run_dir / "report.html").read_text()
    assert "partial run" not in text.split('id="dcnsim-data"')[0]
    assert all(not f.get_suptitle() for f in _plots.figures(_result(run_dir)).values())


# A sweep with points that did not finish

_RUN_POINT = _sweep.run_point


def _swift_fails(spec: dict, base_dir: str, run_dir: str, timeout: object) -> dict:
    if spec["transport"]["cc"] == "swift":
        raise RuntimeError("injected failure")
    return _RUN_POINT(spec, base_dir, run_dir, timeout)


@pytest.mark.core
def test_a_sweep_with_unfinished_points_is_marked_partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"name": "two", "topology": {"kind": "fat_tree", "hosts": 16},
            "workload": [{"kind": "permutation", "size": "50KB"}]}
    sweep = {"base": base, "axes": {"grid": {"transport.cc": ["dctcp", "swift"]}}}
    monkeypatch.setattr(_sweep, "run_point", _swift_fails)
    with pytest.warns(dcnsim.SweepIncompleteWarning):
        dcnsim.sweep(sweep, tmp_path / "partial", jobs=1, progress=False)
    mark = "partial sweep: 1 of 2 points did not finish"
    text = dcnsim.report(tmp_path / "partial").read_text()
    [h1] = re.findall(r"<h1>(.*?)</h1>", text, re.S)
    assert mark in h1 and f"<b>P{mark[1:]}</b>" in text and "running the same sweep again" in text
    figures = [s["figure"] for s in _sections(tmp_path / "partial" / "report.html").values() if s["figure"] is not None]
    assert figures and all(f["layout"]["title"]["text"] == mark for f in figures)

    monkeypatch.setattr(_sweep, "run_point", _RUN_POINT)
    dcnsim.sweep(sweep, tmp_path / "whole", jobs=1, progress=False)
    assert "partial sweep" not in dcnsim.report(tmp_path / "whole").read_text().split('id="dcnsim-data"')[0]
