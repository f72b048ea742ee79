"""The sections of a report page, each a Plotly figure (``data`` + ``layout``) built from
a result directory's tables, or a note saying why it has none.

Everything a plot shows is computed here, in Python, and embedded in the page as JSON;
the page's script only hands the figures to Plotly. So the numbers on the page come
from the same pandas/numpy code paths as the rest of dcnsim, and a test can compare
what Plotly drew with the Parquet files. A plot whose data the directory does not hold
(no time series sampled, no flow finished) becomes a note; nothing is estimated.

Every trace carries ``meta``: what it is in machine-readable form (its series, flow,
statistic), for readers of ``window.dcnsimReport`` and for the tests.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Optional

import numpy as np
import pandas as pd

from dcnsim._buckets import size_buckets
from dcnsim._scales import (IDLE_COLOUR, PARTIAL_COLOUR, QUEUE_COLORMAP, QUEUE_COLOURS, QUEUE_LABEL, port_labels,
                            queue_colorscale, queue_colour)

# Node colours of the topology drawing by hop distance from the hosts: no yellow, orange or
# red, which would read as queue depth.
_NODE_COLOURS = ("#636efa", "#00cc96", "#ab63fa", "#19d3f3", "#555555")
# Plotly's default qualitative palette, so median and p99 of one series share a colour.
_PALETTE = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a",
            "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52")
# Bounds that keep a page of a long or large run a few MB and quick to draw. Thinning
# keeps exact values (every k-th rank or sample), and the section says so.
_MAX_CDF_POINTS = 2000
_MAX_TRACE_POINTS = 2000
_MAX_HEATMAP_COLUMNS = 400
_MAX_HEATMAP_CELLS = 250_000
_CWND_FLOWS_PER_TAG = 8
# Load classes of the topology drawing's links above idle: equal ranges up to the largest
# mean queue, each drawn in the queue scale's colour at its upper end (at its middle, the
# lowest class would be a yellow too pale to see on white).
_LOAD_CLASSES = 5
# What the queue-depth figures say about their colour scale (in each trace's ``meta``).
_SCALE_META = {"colormap": QUEUE_COLORMAP, "low": QUEUE_COLOURS[0], "high": QUEUE_COLOURS[-1], "label": QUEUE_LABEL}
_ARC_POINTS = 17  # an odd count, so an arc has a point at its top for the hover marker


@dataclass
class Section:
    """One block of the page: a figure, or a note saying why there is none."""

    id: str
    title: str
    caption: str
    figure: Optional[dict[str, Any]] = None
    note: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# The [observe] metric whose series a plot shows, and whether it is a port's or a flow's.
_PLOTTED = {"queue": ("queue", "ports"), "utilisation": ("utilisation", "ports"), "cwnd": ("cwnd", "flows")}


def why_absent(scenario: dict[str, Any], plot: str) -> str:
    """Why a run has no series for ``plot`` (``"queue"``, ``"utilisation"`` or
    ``"cwnd"``), from its resolved ``[observe]`` settings or their older spelling in
    ``[output]``."""
    observe, output = scenario.get("observe"), scenario.get("output") or {}
    if not observe and not output.get("sample_interval"):
        return ("set [observe] interval in the scenario to sample time series "
                "([output] sample_interval is its older spelling)")
    metric, selection = _PLOTTED[plot]
    if not observe:
        if selection == "ports":
            return f'this run sampled no ports ([output] queues = "{output.get("queues")}")'
        return "this run sampled no windows ([output] cwnd = false)"
    chosen = json.dumps(observe.get(selection))
    return (f"this run sampled no {metric} series ([observe] {selection} = {chosen}, "
            f"metrics = {json.dumps(observe.get('metrics'))})")


def mark_partial(sections: list[Section], mark: Optional[str]) -> None:
    """Title every figure with ``mark`` (``"partial run: stopped at T us"``), so that a
    plot saved or shared alone still says that its run did not finish."""
    if mark is None:
        return
    for section in sections:
        if section.figure is not None:
            layout = section.figure["layout"]
            layout["title"] = {"text": mark, "font": {"color": PARTIAL_COLOUR, "size": 13}, "x": 0.01,
                               "xanchor": "left", "y": 0.99, "yanchor": "top"}
            layout["margin"] = {**layout.get("margin", {}), "t": 44}


def colour(i: int) -> str:
    return _PALETTE[i % len(_PALETTE)]


def _layout(x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "template": "plotly_white",
        "height": 440,
        "margin": {"l": 70, "r": 20, "t": 20, "b": 60},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
        "legend": {"font": {"size": 11}},
        "hovermode": "closest",
    }
    for key, value in extra.items():
        layout[key] = {**layout.get(key, {}), **value} if isinstance(value, dict) else value
    return layout


def _numbers(values: Any) -> list[Optional[float]]:
    """A column as a JSON list: numbers, with null for NaN (which JSON cannot hold)."""
    array = np.asarray(values, dtype=float)
    return [None if not np.isfinite(v) else float(v) for v in array]


def _by_label(flows: pd.DataFrame, labels: pd.Series) -> Iterator[tuple[int, str, pd.DataFrame]]:
    """Groups of flows per series label, in order of first appearance, with their index."""
    for i, (label, group) in enumerate(flows.groupby(labels.loc[flows.index], sort=False)):
        yield i, str(label), group


def _thin(n: int, limit: int) -> np.ndarray:
    """Indices of at most ``limit`` of ``n`` ordered values, evenly spread, first and last kept."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(int))


def _finished(flows: pd.DataFrame) -> pd.DataFrame:
    fct = flows["fct_us"].to_numpy(dtype=float)
    return flows[flows["finished"].astype(bool).to_numpy() & np.isfinite(fct) & (fct > 0)]


# ---------------------------------------------------------------------------------------
# Flow completion


def fct_cdf(flows: pd.DataFrame, labels: pd.Series, per: str) -> Section:
    """CDF of the FCT of finished flows, one curve per series (log x axis)."""
    section = Section("fct_cdf", "FCT CDF", f"Flow completion time of the finished flows, one curve per {per}.")
    done = _finished(flows)
    if done.empty:
        section.note = "No flow finished."
        return section
    traces, thinned = [], False
    for i, label, group in _by_label(done, labels):
        fct = np.sort(group["fct_us"].to_numpy(dtype=float))
        keep = _thin(fct.size, _MAX_CDF_POINTS)
        thinned |= keep.size < fct.size
        traces.append({
            "type": "scatter", "mode": "lines", "line": {"shape": "hv", "color": colour(i)},
            "name": f"{label} ({fct.size} flows)", "meta": {"series": label},
            "x": _numbers(fct[keep]), "y": _numbers((keep + 1) / fct.size),
            "hovertemplate": "FCT %{x:.4g} us<br>%{y:.4f} of flows<extra>%{fullData.name}</extra>",
        })
    if thinned:
        section.caption += f" Curves of more flows show {_MAX_CDF_POINTS} evenly spaced ranks."
    section.figure = {"data": traces, "layout": _layout("flow completion time (us)", "fraction of flows",
                                                         xaxis={"type": "log"}, yaxis={"range": [0, 1.02]})}
    return section


def slowdown_by_size(flows: pd.DataFrame, labels: pd.Series, per: str) -> Section:
    """Median and p99 slowdown per flow-size bucket, per series."""
    section = Section("slowdown_by_size", "Slowdown by flow size",
                      f"FCT over ideal FCT of the finished flows, median (solid) and p99 (dashed) per flow-size "
                      f"bucket (one per size when there are at most 12 sizes, else 12 log-spaced), per {per}.")
    done = _finished(flows)
    slowdown = done["slowdown"].to_numpy(dtype=float)
    done = done[(done["size"].to_numpy() > 0) & np.isfinite(slowdown) & (slowdown > 0)]
    if done.empty:
        section.note = "No finished flow of finite size."
        return section
    buckets = size_buckets(done["size"].to_numpy(dtype=float))
    which = pd.Series(buckets.which, index=done.index)
    traces = []
    for i, label, group in _by_label(done, labels):
        stats = group["slowdown"].groupby(which.loc[group.index]).agg(
            median="median", p99=lambda s: float(np.percentile(s, 99)), flows="size")
        custom = [[int(n), float(buckets.lower[b]), float(buckets.upper[b])] for b, n in stats["flows"].items()]
        for stat, dash, symbol in (("median", "solid", "circle"), ("p99", "dash", "triangle-up")):
            traces.append({
                "type": "scatter", "mode": "lines+markers", "name": f"{label} {stat}",
                "legendgroup": label, "meta": {"series": label, "stat": stat},
                "line": {"color": colour(i), "dash": dash}, "marker": {"symbol": symbol},
                "x": _numbers(buckets.centres[stats.index]), "y": _numbers(stats[stat]), "customdata": custom,
                "hovertemplate": "%{customdata[1]:,.0f} to %{customdata[2]:,.0f} bytes, %{customdata[0]} flows"
                                 f"<br>{stat} slowdown %{{y:.4g}}<extra>{label}</extra>",
            })
    log_y = slowdown.max() > 20 * slowdown.min()
    section.figure = {"data": traces, "layout": _layout("flow size (bytes)", "slowdown (FCT / ideal FCT)",
                                                         xaxis={"type": "log"},
                                                         yaxis={"type": "log" if log_y else "linear"})}
    return section


def cct(flows: pd.DataFrame, labels: pd.Series, groups: list[str], per: str) -> Section:
    """Collective completion time (last finish minus first start) of each group of flows
    (a workload tag of a run, or of a sweep point), placed under its series."""
    section = Section("cct", "Collective completion time",
                      f"Last finish minus first start of each workload, per {per}; a workload counts only once "
                      "every one of its flows finished.")
    rows = []
    for key, group in flows.groupby(groups, sort=False):
        if group["finished"].astype(bool).all():
            key = key if isinstance(key, tuple) else (key,)
            value = float(group["finish_us"].max() - group["start_us"].min())
            rows.append((str(labels.loc[group.index[0]]), value, ", ".join(map(str, key))))
    if not rows:
        section.note = "No workload had all of its flows finished."
        return section
    table = pd.DataFrame(rows, columns=["series", "cct_us", "group"])
    traces = []
    for i, (label, part) in enumerate(table.groupby("series", sort=False)):
        traces.append({
            "type": "scatter", "mode": "markers", "name": label, "meta": {"series": label},
            "marker": {"color": colour(i), "size": 11},
            "x": [label] * len(part), "y": _numbers(part["cct_us"]), "customdata": list(part["group"]),
            "hovertemplate": "%{customdata}<br>CCT %{y:.4g} us<extra></extra>",
        })
    section.figure = {"data": traces, "layout": _layout("", "CCT (us)", showlegend=False,
                                                         xaxis={"type": "category"}, yaxis={"rangemode": "tozero"})}
    return section


# ---------------------------------------------------------------------------------------
# Time series of one run


def hop_tiers(edges: pd.DataFrame, hosts: int) -> dict[int, int]:
    """Each node's hop distance from the nearest host (hosts are nodes 0..hosts-1): 1 for
    ToRs/leaves, 2 for aggregation switches, 3 for cores of a fat tree, and a meaningful
    layering for any other fabric too, which only its links are needed for."""
    neighbours: dict[int, set[int]] = {}
    for a, b in zip(edges["node"].tolist(), edges["peer"].tolist()):
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    tier = {n: 0 for n in neighbours if n < hosts}
    queue = deque(tier)
    while queue:
        n = queue.popleft()
        for m in neighbours[n]:
            if m not in tier:
                tier[m] = tier[n] + 1
                queue.append(m)
    unreachable = max(tier.values(), default=0) + 1
    return {n: tier.get(n, unreachable) for n in neighbours}


def _node_name(node: int, hosts: int) -> str:
    return f"host {node}" if node < hosts else f"switch {node}"


def queue_heatmap(queue: Optional[pd.DataFrame], hosts: int, absent: str) -> Section:
    """Queue depth of every sampled port over time, ports ordered by tier then node, rows
    labelled with the ports' names (``queue``'s ``name`` column, from ports.parquet)."""
    section = Section("queue_heatmap", "Queue depth by port over time",
                      "Bytes queued at each sampled output port (rows: the port's name, sender\u2192receiver, "
                      "in groups by the sending node's hop distance from the hosts; hover for every row's name). "
                      "Colours: the queue-depth scale of the whole page, light for an empty queue, dark red for "
                      "the fullest.")
    if queue is None or queue.empty:
        section.note = f"No queue time series in this directory: {absent}."
        return section
    if not _any_nonzero(queue["bytes"]):
        section.note = f"Left out: every sampled queue held 0 bytes at every sample ({_ports(queue)})."
        return section
    ports = queue.drop_duplicates("port").set_index("port")
    tiers = hop_tiers(ports[["node", "peer"]], hosts)
    order = sorted(ports.index, key=lambda p: (tiers[ports.at[p, "node"]], ports.at[p, "node"], ports.at[p, "peer"]))
    wide = queue.pivot(index="port", columns="time_us", values="bytes").loc[order]
    columns = min(wide.shape[1], _MAX_HEATMAP_COLUMNS)
    if len(order) * columns > _MAX_HEATMAP_CELLS:
        rows = _MAX_HEATMAP_CELLS // columns
        keep = set(wide.mean(axis=1).nlargest(rows).index)
        wide = wide.loc[[p for p in order if p in keep]]
        section.caption += f" Only the {rows} ports with the largest mean queue of {len(order)} are shown."
    times = wide.columns.to_numpy(dtype=float)
    if wide.shape[1] > columns:
        bins = np.arange(wide.shape[1]) * columns // wide.shape[1]
        wide = wide.T.groupby(bins).max().T
        times = pd.Series(times).groupby(bins).max().to_numpy()
        section.caption += (f" The {len(bins)} sample times are merged into {columns} columns, each showing "
                            "the largest sample of its time span (labelled with its last time).")
    names = port_labels(ports.reset_index() if "name" in ports else None, wide.index)
    trace = {
        "type": "heatmap", "x": _numbers(times), "y": names, "z": [_numbers(row) for row in wide.to_numpy()],
        "meta": {"ports": [int(p) for p in wide.index], "scale": _SCALE_META},
        "colorscale": queue_colorscale(), "zmin": 0, "zmax": max(1.0, float(np.nanmax(wide.to_numpy(dtype=float)))),
        "colorbar": {"title": {"text": QUEUE_LABEL}},
        "hovertemplate": "%{y}<br>t = %{x} us<br>%{z:,} bytes queued<extra></extra>",
    }
    height = int(min(1400, max(360, 100 + 14 * len(names))))
    # A label every `step` rows, so that labels never overlap (about 13 px each); the
    # hover names every row.
    step = max(1, math.ceil(13 / ((height - 80) / len(names))))
    groups = [tiers[ports.at[p, "node"]] for p in wide.index]
    layout = _layout("time (us)", "", height=height,
                     yaxis={"autorange": "reversed", "type": "category", "tickmode": "array",
                            "tickvals": names[::step], "ticktext": names[::step], "tickfont": {"size": 10},
                            "automargin": True})
    layout["shapes"], layout["annotations"] = _group_marks(groups)
    if step > 1:
        section.caption += f" With {len(names)} rows, every {_ordinal(step)} row is labelled."
    section.figure = {"data": [trace], "layout": layout}
    return section


def _any_nonzero(values: Any) -> bool:
    array = np.asarray(values, dtype=float)
    return bool(np.any(np.isfinite(array) & (array != 0)))


def _ports(series: pd.DataFrame) -> str:
    count = series["port"].nunique()
    return f"{count} port{'s' if count != 1 else ''}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _group_name(hops: int) -> str:
    return "host NICs" if hops == 0 else f"switches {hops} hop{'s' if hops > 1 else ''} from a host"


def _group_marks(groups: list[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A line between the heatmap's row groups (the sending node's hop distance from the
    hosts) and each group's name at its first row."""
    shapes, annotations = [], []
    starts = [i for i, g in enumerate(groups) if i == 0 or g != groups[i - 1]]
    for k, first in enumerate(starts):
        count = (starts[k + 1] if k + 1 < len(starts) else len(groups)) - first
        annotations.append({"xref": "paper", "yref": "y", "x": 0.005, "y": first - 0.5, "xanchor": "left",
                            "yanchor": "top", "showarrow": False, "font": {"size": 10},
                            "bgcolor": "rgba(255,255,255,0.75)",
                            "text": f"{_group_name(groups[first])}: {count} ports"})
        if first > 0:
            shapes.append({"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": first - 0.5,
                           "y1": first - 0.5, "line": {"color": "#333", "width": 1}})
    return shapes, annotations


def cwnd_traces(cwnd: Optional[pd.DataFrame], flows: pd.DataFrame, absent: str) -> Section:
    """Window over time of the flows of each workload with the largest mean window."""
    section = Section("cwnd", "Congestion windows",
                      f"Congestion window over time of the {_CWND_FLOWS_PER_TAG} flows of each workload with the "
                      "largest mean window (click a legend entry to hide a flow).")
    if cwnd is None or cwnd.empty:
        section.note = f"No window time series in this directory: {absent}."
        return section
    if not _any_nonzero(cwnd["cwnd_bytes"]):
        count = cwnd["flow"].nunique()
        section.note = f"Left out: every sampled window was 0 bytes ({count} flow{'s' if count != 1 else ''})."
        return section
    tag_of = flows.set_index("id")["tag"]
    means = cwnd.groupby("flow")["cwnd_bytes"].mean()
    tags = means.index.map(tag_of)
    traces, thinned = [], False
    for i, tag in enumerate(pd.unique(tags)):
        for flow in means[tags == tag].nlargest(_CWND_FLOWS_PER_TAG).index:
            samples = cwnd[cwnd["flow"] == flow]
            keep = _thin(len(samples), _MAX_TRACE_POINTS)
            thinned |= keep.size < len(samples)
            traces.append({
                "type": "scatter", "mode": "lines", "name": f"flow {flow} ({tag})", "legendgroup": str(tag),
                "meta": {"flow": int(flow), "tag": str(tag)}, "line": {"width": 1.2, "color": colour(i)},
                "x": _numbers(samples["time_us"].to_numpy()[keep]),
                "y": _numbers(samples["cwnd_bytes"].to_numpy()[keep]),
                "hovertemplate": "t = %{x} us<br>cwnd %{y:,} bytes<extra>%{fullData.name}</extra>",
            })
    if thinned:
        section.caption += f" Longer traces show {_MAX_TRACE_POINTS} evenly spaced samples."
    section.figure = {"data": traces, "layout": _layout("time (us)", "cwnd (bytes)")}
    return section


def _directions(ports: pd.DataFrame, hosts: int) -> pd.Series:
    """Each port's direction by hop distance from the hosts: ``up`` (towards the core),
    ``down`` (towards the hosts) or ``across`` (within a layer, as a dragonfly's links)."""
    tiers = hop_tiers(ports, hosts)
    node = ports["node"].map(tiers)
    peer = ports["peer"].map(tiers)
    return pd.Series(np.where(node < peer, "up", np.where(node > peer, "down", "across")), index=ports.index)


def link_utilisation(util: Optional[pd.DataFrame], ports: Optional[pd.DataFrame], hosts: int,
                     absent: str) -> Section:
    """Utilisation over time per tier and direction: the mean over the sampled ports of
    the group, and its busiest port."""
    section = Section("utilisation", "Link utilisation per tier",
                      "Fraction of each sampling interval that a link spent transmitting (the [observe] metric "
                      "\u201cutilisation\u201d), by tier and direction (up: towards the core; down: towards the "
                      "hosts): the mean over the group's sampled ports (solid) and its busiest port (dotted). Hover "
                      "for the number of ports.")
    if util is None or ports is None or util.empty:
        section.note = f"No utilisation time series in this directory: {absent}."
        return section
    if not _any_nonzero(util["utilisation"]):
        section.note = f"Left out: no sampled link transmitted anything ({_ports(util)}, utilisation 0 throughout)."
        return section
    direction = _directions(ports, hosts)
    util = util.assign(direction=util["port"].map(pd.Series(direction.to_numpy(), index=ports["port"])))
    traces, thinned = [], False
    for i, ((tier, way), group) in enumerate(util.groupby(["tier", "direction"], sort=True)):
        per_time = group.groupby("time_us", sort=True)["utilisation"]
        stats = per_time.agg(["mean", "max"])
        keep = _thin(len(stats), _MAX_TRACE_POINTS)
        thinned |= keep.size < len(stats)
        links = int(group["port"].nunique())
        x = _numbers(stats.index.to_numpy()[keep])
        for stat, dash in (("mean", "solid"), ("max", "dot")):
            name = f"{tier} {way}, {'mean' if stat == 'mean' else 'busiest'}"
            traces.append({
                "type": "scatter", "mode": "lines", "name": name, "legendgroup": f"{tier} {way}",
                "meta": {"tier": str(tier), "direction": str(way), "stat": stat, "ports": links},
                "line": {"color": colour(i), "dash": dash}, "x": x, "y": _numbers(stats[stat].to_numpy()[keep]),
                "hovertemplate": f"interval ending %{{x}} us<br>%{{y:.1%}}<extra>{name} of {links} ports</extra>",
            })
    if thinned:
        section.caption += f" Longer series show {_MAX_TRACE_POINTS} evenly spaced samples."
    section.figure = {"data": traces, "layout": _layout("time (us)", "utilisation", yaxis={"tickformat": ".0%"})}
    return section


def topology(queue: Optional[pd.DataFrame], hosts: int, absent: str) -> Section:
    """The fabric drawn in tiers from the links the queue sampler saw, each link coloured
    by the mean queue depth of its busier direction."""
    section = Section("topology", "Topology and link load",
                      "Nodes in rows by hop distance from the hosts (hosts at the bottom), drawn from the sampled "
                      "ports. A link's colour is the mean queue depth over the run of its busier sampled direction, "
                      "on the heatmap's colour scale (light: little queue, dark red: the most; grey: idle), in five "
                      "equal ranges up to the largest mean, each in the colour of its upper end (the utilisation plot "
                      "gives the load). Links within a row "
                      "are drawn as arcs. Hover over a link's middle for both directions.")
    if queue is None or queue.empty:
        section.note = f"The topology is drawn from the queue time series, which this directory lacks: {absent}."
        return section
    depth = queue.groupby(["node", "peer"])["bytes"].mean()
    edges = depth.index.to_frame(index=False)
    tiers = hop_tiers(edges, hosts)
    place = _positions(edges, tiers)
    links = _links(depth)
    top = max((load for *_, load in links), default=0.0)
    if top <= 0:
        section.caption += " Every link stayed idle: no sampled queue held a byte."
    traces = _link_traces(links, place, top) + [_link_hover(links, place, top), _node_trace(place, tiers, hosts)]
    layout = _layout("", "", height=560, xaxis={"visible": False}, yaxis={"visible": False},
                     legend={"title": {"text": f"mean {QUEUE_LABEL}, busier direction "}, "orientation": "h",
                             "yanchor": "top", "y": -0.02, "x": 0})
    section.figure = {"data": traces, "layout": layout}
    return section


def _positions(edges: pd.DataFrame, tiers: dict[int, int]) -> dict[int, tuple[float, float]]:
    """Row = tier; within a row, nodes in the order of their lower neighbours' mean
    position (hosts by id), so that a fat tree comes out without crossings in its pods."""
    below: dict[int, list[int]] = {}
    for a, b in zip(edges["node"].tolist(), edges["peer"].tolist()):
        for x, y in ((a, b), (b, a)):
            if tiers[y] == tiers[x] - 1:
                below.setdefault(x, []).append(y)
    place: dict[int, tuple[float, float]] = {}
    for tier in sorted(set(tiers.values())):
        row = [n for n in tiers if tiers[n] == tier]
        row.sort(key=lambda n: (np.mean([place[m][0] for m in below.get(n, [])]) if below.get(n) else n, n))
        for i, n in enumerate(row):
            place[n] = ((i + 0.5) / len(row), float(tier))
    return place


def _links(depth: pd.Series) -> list[tuple[int, int, Optional[float], Optional[float], float]]:
    """Undirected links (a < b) with the mean depth of a→b and b→a (None if unsampled)
    and the larger of the two."""
    means = {(int(a), int(b)): float(v) for (a, b), v in depth.items()}
    pairs = sorted({(min(a, b), max(a, b)) for a, b in means})
    links = []
    for a, b in pairs:
        ab, ba = means.get((a, b)), means.get((b, a))
        links.append((a, b, ab, ba, max(v for v in (ab, ba) if v is not None)))
    return links


def _link_traces(links: list[tuple[int, int, Optional[float], Optional[float], float]],
                 place: dict[int, tuple[float, float]], top: float) -> list[dict[str, Any]]:
    """One trace per load class (idle, then five equal ranges up to the largest), the
    links of a class drawn as one polyline broken by nulls."""
    classes = _LOAD_CLASSES
    xs: dict[int, list[Optional[float]]] = {}
    ys: dict[int, list[Optional[float]]] = {}
    for a, b, _, _, load in links:
        k = 0 if load <= 0 else min(classes, 1 + int(load / top * classes))
        path_x, path_y = _link_path(place[a], place[b])
        xs.setdefault(k, []).extend([*path_x, None])
        ys.setdefault(k, []).extend([*path_y, None])
    traces = []
    for k in sorted(xs):
        low, high = (k - 1) * top / classes, k * top / classes
        name = "idle" if k == 0 else f"{low:,.0f} to {high:,.0f} bytes"
        shade = IDLE_COLOUR if k == 0 else queue_colour(k / classes)
        traces.append({"type": "scatter", "mode": "lines", "name": name, "hoverinfo": "skip",
                       "meta": {"load_class": k, "low": 0.0 if k == 0 else low, "high": 0.0 if k == 0 else high},
                       "x": xs[k], "y": ys[k], "line": {"color": shade, "width": 1 + 0.6 * k}})
    return traces


def _link_path(a: tuple[float, float], b: tuple[float, float]) -> tuple[list[float], list[float]]:
    """The points of a link's line: straight between rows, an arc above the row between
    two nodes of the same row (a dragonfly's routers all sit one hop from their hosts),
    higher the farther apart they are, so that such links do not overlap."""
    if a[1] != b[1]:
        return [a[0], b[0]], [a[1], b[1]]
    t = np.linspace(0.0, 1.0, _ARC_POINTS)
    height = 1.5 * abs(b[0] - a[0])
    return (a[0] + t * (b[0] - a[0])).tolist(), (a[1] + height * 4 * t * (1 - t)).tolist()


def _link_hover(links: list[tuple[int, int, Optional[float], Optional[float], float]],
                place: dict[int, tuple[float, float]], top: float) -> dict[str, Any]:
    """Invisible markers at the links' midpoints that carry the hover text, and the
    colour bar of the queue scale (the heatmap's, from 0 to the largest mean)."""
    def depth(v: Optional[float]) -> str:
        return "not sampled" if v is None else f"{v:,.0f} bytes"

    middles = [_middle(*_link_path(place[a], place[b])) for a, b, *_ in links]
    return {
        "type": "scatter", "mode": "markers", "name": "links", "showlegend": False,
        "x": [x for x, _ in middles], "y": [y for _, y in middles],
        "marker": {"size": 8, "opacity": 0, "color": [load for *_, load in links], "colorscale": queue_colorscale(),
                   "cmin": 0, "cmax": top if top > 0 else 1, "showscale": True,
                   "colorbar": {"title": {"text": f"mean {QUEUE_LABEL}"}}},
        "hoverinfo": "text",
        "text": [f"{a}\u2192{b}: {depth(ab)}<br>{b}\u2192{a}: {depth(ba)}" for a, b, ab, ba, _ in links],
        "meta": {"links": [[a, b, ab, ba] for a, b, ab, ba, _ in links], "scale": _SCALE_META},
    }


def _middle(xs: list[float], ys: list[float]) -> tuple[float, float]:
    if len(xs) == 2:
        return (xs[0] + xs[1]) / 2, (ys[0] + ys[1]) / 2
    return xs[len(xs) // 2], ys[len(ys) // 2]


def _node_trace(place: dict[int, tuple[float, float]], tiers: dict[int, int], hosts: int) -> dict[str, Any]:
    nodes = sorted(place)
    return {
        "type": "scatter", "mode": "markers", "name": "nodes", "showlegend": False,
        "x": [place[n][0] for n in nodes], "y": [place[n][1] for n in nodes],
        "marker": {"size": [5 if n < hosts else 9 for n in nodes],
                   "color": [_NODE_COLOURS[tiers[n] % len(_NODE_COLOURS)] for n in nodes],
                   "line": {"width": 0.5, "color": "#333"}},
        "hoverinfo": "text", "meta": {"nodes": nodes},
        "text": [f"{_node_name(n, hosts)}, {tiers[n]} hops from a host" if n >= hosts else _node_name(n, hosts)
                 for n in nodes],
    }
