"""``dcnsim report``: one self-contained HTML page for a run or a sweep directory.

The page carries everything it needs: Plotly's JavaScript (from the ``plotly`` Python
package) and the figures as JSON, so it opens from a file, offline, years later, and can
be mailed. The figures are built in Python (:mod:`dcnsim._report_figures`) from the
directory's files alone; the page's own script only draws them and exposes them as
``window.dcnsimReport`` (``window.dcnsimReportReady`` turns true once every plot is drawn).

This module imports only the standard library at the top, so that ``import dcnsim``
stays light; pandas, numpy and plotly are loaded when a report is written.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from dcnsim import _timeseries
from dcnsim._scales import PARTIAL_COLOUR, partial_mark, partial_sweep_mark
from dcnsim._scenario import StrPath

if TYPE_CHECKING:
    import pandas as pd

    from dcnsim._report_figures import Section

_RUN_FILES = ("summary.json", "flows.parquet")
_SWEEP_FILES = ("summary.parquet", "flows.parquet", "runs")


class ReportError(ValueError):
    """The directory is not a result directory; the message says what is missing."""


def write_report(result_dir: StrPath, out: Optional[StrPath] = None) -> Path:
    """Write the report page of a run or sweep directory and return its path
    (default ``result_dir/report.html``).

    >>> import dcnsim
    >>> dcnsim.report("results/quickstart")  # doctest: +SKIP
    PosixPath('results/quickstart/report.html')
    """
    from dcnsim._outdir import check_out_file

    source = Path(result_dir)
    kind = _kind(source)
    # An existing file is replaced only when it is a page written before.
    path = check_out_file(Path(out) if out is not None else source / "report.html", "--out" if out else "report",
                          replaces="<title>dcnsim ")
    page = _sweep_page(source) if kind == "sweep" else _run_page(source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_html(page), encoding="utf-8")
    return path


def _kind(source: Path) -> str:
    """``"run"`` or ``"sweep"``: the directory's ``dcnsim-result.json``, else the files
    that `dcnsim run` and `dcnsim sweep` write (:func:`dcnsim._outdir.kind_of`)."""
    from dcnsim._outdir import OutputError, kind_of

    if not source.is_dir():
        raise ReportError(f"{source}: {'not a directory' if source.exists() else 'no such directory'}")
    try:
        kind = kind_of(source)
    except OutputError as exc:
        raise ReportError(f"cannot draw a report: {exc}") from None
    if kind == "reproduction":
        raise ReportError(f"{source} holds a reproduction (`dcnsim reproduce`), which `dcnsim report` does not "
                          "draw: its table.md, runs.csv and PNG figures are the results; report draws run and "
                          "sweep directories")
    if kind == "run":
        missing = [name for name in _RUN_FILES if not (source / name).exists()]
    elif kind == "sweep":
        missing = [name for name in _SWEEP_FILES if not (source / name).exists()]
    else:
        raise ReportError(f"{source} is not a result directory: it has no summary.json (written by `dcnsim run`) "
                          "and no summary.parquet (written by `dcnsim sweep`)")
    if missing:
        raise ReportError(f"{source} looks like a {kind} directory but lacks {', '.join(missing)}")
    return kind


# ---------------------------------------------------------------------------------------
# The two kinds of page


def _run_page(source: Path) -> dict[str, Any]:
    import pandas as pd

    from dcnsim import _report_figures as fig

    summary = json.loads((source / "summary.json").read_text())
    flows = pd.read_parquet(source / "flows.parquet")

    def table(name: str) -> Optional[pd.DataFrame]:
        path = source / f"{name}.parquet"
        return pd.read_parquet(path) if path.is_file() else None

    series, ports = table("timeseries"), table("ports")
    hosts = int(summary["scenario"]["topology"]["hosts"])
    scenario = summary["scenario"]
    queue = _timeseries.port_series(series, ports, "queue_bytes", name="bytes")
    if queue is not None and ports is not None and "name" in ports:
        queue["name"] = queue["port"].map(ports.set_index("port")["name"]).to_numpy()
    utilisation = _timeseries.port_series(series, ports, "utilisation", name="utilisation")
    cwnd = _timeseries.flow_series(series, "cwnd_bytes")
    labels = flows["tag"].astype(str)
    sections = [
        fig.fct_cdf(flows, labels, "workload"),
        fig.slowdown_by_size(flows, labels, "workload"),
        fig.cct(flows, labels, ["tag"], "workload"),
        fig.queue_heatmap(queue, hosts, fig.why_absent(scenario, "queue")),
        fig.cwnd_traces(cwnd, flows, fig.why_absent(scenario, "cwnd")),
        fig.link_utilisation(utilisation, ports, hosts, fig.why_absent(scenario, "utilisation")),
        fig.topology(queue, hosts, fig.why_absent(scenario, "queue")),
    ]
    mark = partial_mark(summary)
    fig.mark_partial(sections, mark)
    state = "complete" if summary.get("complete") else "interrupted (partial result)"
    facts = [
        ("dcnsim", summary.get("version")), ("seed", summary.get("seed")), ("run", state),
        ("simulated", f"{summary['sim_time_us']:,.1f} us"), ("wall", f"{summary['wall_seconds']:.2f} s"),
        ("events", f"{summary['events']:,}"), ("packets", f"{summary['packets']:,}"),
    ]
    groups = list(summary["workloads"].items()) + ([("all", summary["all"])] if len(summary["workloads"]) > 1 else [])
    return {
        "kind": "run", "title": str(summary.get("name")), "source": str(source), "facts": facts,
        "table": _run_table(groups), "sections": sections, "scenario": summary["scenario"], "scenario_note": "",
        "partial": mark,
    }


def _run_table(groups: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[list[str]]]:
    header = ["workload", "flows", "finished", "CCT (us)", "FCT p50 (us)", "FCT p99 (us)",
              "slowdown p50", "slowdown p99"]
    rows = [[tag, str(g["flows"]), str(g["finished"]), _num(g["cct_us"]), _num(g["fct_us"]["p50"]),
             _num(g["fct_us"]["p99"]), _num(g["slowdown"]["p50"], 3), _num(g["slowdown"]["p99"], 3)]
            for tag, g in groups]
    return header, rows


def _sweep_page(source: Path) -> dict[str, Any]:
    import pandas as pd

    from dcnsim import _report_figures as fig

    summary = pd.read_parquet(source / "summary.parquet")
    flows = pd.read_parquet(source / "flows.parquet")
    axes = sweep_axes(summary)
    by = "point group" if "seed" in axes and len(axes) > 1 else "point"
    sections: list[Section]
    if flows.empty:
        sections = []
    else:
        labels = sweep_labels(flows, axes)
        sections = [fig.fct_cdf(flows, labels, by), fig.slowdown_by_size(flows, labels, by),
                    fig.cct(flows, labels, ["point", "tag"], by)]
    sections.append(fig.Section(
        "per_point", "Time series of each point",
        "Queue heatmaps, window traces, link utilisation and the topology are per run: "
        f"`dcnsim report {source}/runs/POINT` writes a point's own page (POINT from the table above).",
        note=None if not flows.empty else "No point finished, so there is nothing to compare."))
    ok = int((summary["status"] == "ok").sum())
    mark = partial_sweep_mark(summary["complete"] if "complete" in summary else [False] * len(summary))
    fig.mark_partial(sections, mark)
    facts = [("points", len(summary)), ("ok", ok), ("failed or not run", len(summary) - ok),
             ("axes", ", ".join(axes) or "none"), ("flows", f"{len(flows):,}")]
    if by == "point group":
        facts.append(("seeds", "pooled: each curve holds every seed of its point group"))
    first = _first_scenario(source, summary)
    return {
        "kind": "sweep", "title": str(first[1].get("name")) if first else source.resolve().name,
        "source": str(source), "facts": facts, "table": _sweep_table(summary, axes), "sections": sections,
        "scenario": first[1] if first else None,
        "scenario_note": f"of point {first[0]}: the base scenario with that point's axis values" if first else "",
        "partial": mark,
    }


def sweep_axes(summary: pd.DataFrame) -> list[str]:
    """The axis columns of a sweep's summary.parquet: ``_sweep.merge`` writes ``point``,
    ``index``, the axis values, then the point's status and counters from ``status`` on."""
    columns = list(summary.columns)
    return columns[columns.index("index") + 1:columns.index("status")]


def sweep_labels(flows: pd.DataFrame, axes: list[str]) -> pd.Series:
    """A series label per flow: its point's axis values, seeds pooled when other axes
    vary (so a curve is a configuration, not one random draw), plus the workload tag when
    the points run several workloads."""
    import pandas as pd

    varied = [a for a in axes if a != "seed"] or axes
    short = {a: a.rsplit(".", 1)[-1] for a in varied}
    if len(set(short.values())) < len(short):
        short = {a: a for a in varied}
    if varied:
        labels = flows[varied].astype(str).apply(
            lambda row: ", ".join(f"{short[a]}={row[a]}" for a in varied), axis=1)
    else:
        labels = pd.Series("base scenario", index=flows.index)
    if flows["tag"].nunique() > 1:
        labels = labels + " / " + flows["tag"].astype(str)
    return labels


def _sweep_table(summary: pd.DataFrame, axes: list[str]) -> tuple[list[str], list[list[str]]]:
    header = ["index", *axes, "status", "flows finished", "CCT (us)", "FCT p50 (us)", "FCT p99 (us)",
              "slowdown p50", "slowdown p99", "wall (s)", "point", "error"]
    rows = []
    for _, r in summary.iterrows():
        finished = "-" if _missing(r.get("flows")) else f"{int(r['flows_finished'])}/{int(r['flows'])}"
        rows.append([str(r["index"]), *(str(r[a]) for a in axes), str(r["status"]), finished,
                     _num(r.get("cct_us")), _num(r.get("fct_p50_us")), _num(r.get("fct_p99_us")),
                     _num(r.get("slowdown_p50"), 3), _num(r.get("slowdown_p99"), 3),
                     _num(r.get("wall_seconds"), 2), f"runs/{r['point']}", "" if _missing(r.get("error")) else str(r["error"])])
    return header, rows


def _first_scenario(source: Path, summary: pd.DataFrame) -> Optional[tuple[int, dict[str, Any]]]:
    """The index and resolved scenario of the first point that wrote one (the sweep's
    base with that point's axis values; a sweep directory keeps no other)."""
    for index, point in zip(summary["index"], summary["point"]):
        path = source / "runs" / str(point) / "summary.json"
        if path.is_file():
            return int(index), json.loads(path.read_text())["scenario"]
    return None


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _num(value: Any, digits: int = 1) -> str:
    return "-" if _missing(value) else f"{float(value):,.{digits}f}"


# ---------------------------------------------------------------------------------------
# HTML

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1240px; padding: 0 20px 40px; color: #222; }
h1 { margin: 24px 0 4px; } h2 { margin: 32px 0 4px; border-bottom: 1px solid #ddd; }
.facts span { margin-right: 18px; white-space: nowrap; } .facts b { font-weight: 600; }
nav a { margin-right: 14px; } .caption { color: #555; margin: 4px 0 8px; max-width: 1000px; }
.note { background: #f6f6f6; border-left: 4px solid #bbb; padding: 8px 12px; }
table { border-collapse: collapse; font-size: 13px; } td, th { padding: 3px 10px; border-bottom: 1px solid #eee; }
td { text-align: right; } td:first-child, th:first-child { text-align: left; }
pre { background: #f8f8f8; padding: 10px; overflow: auto; max-height: 640px; font-size: 12px; }
""" + (f".partial {{ color: {PARTIAL_COLOUR}; }} p.partial {{ border-left: 4px solid {PARTIAL_COLOUR}; "
       "padding: 8px 12px; background: #fff4f5; }\n")

# Draws the embedded figures. Kept to the minimum: the figures are complete already.
_SCRIPT = """
(function () {
  "use strict";
  var report = JSON.parse(document.getElementById("dcnsim-data").textContent);
  window.dcnsimReport = report;
  var drawn = report.sections.filter(function (s) { return s.figure; }).map(function (s) {
    var config = { responsive: true, displaylogo: false, scrollZoom: true };
    return Plotly.newPlot("plot-" + s.id, s.figure.data, s.figure.layout, config);
  });
  Promise.all(drawn).then(function () { window.dcnsimReportReady = true; });
})();
"""


def _html(page: dict[str, Any]) -> str:
    from plotly.offline import get_plotlyjs

    plotly_js = get_plotlyjs()
    if "</script" in plotly_js.lower():  # would end the inline <script> early
        raise RuntimeError("the plotly package's plotly.min.js cannot be inlined: it contains '</script'")
    sections = page["sections"]
    partial = page.get("partial")
    data = {"kind": page["kind"], "title": page["title"], "sections": [s.to_json() for s in sections],
            "scenario": page["scenario"], "partial": partial}
    esc = html.escape
    marked = f' <span class="partial">({esc(partial)})</span>' if partial else ""
    nav = "".join(f'<a href="#{s.id}">{esc(s.title)}</a>' for s in sections)
    facts = "".join(f"<span>{esc(k)}: <b>{esc(str(v))}</b></span>" for k, v in page["facts"])
    body = "\n".join(_section_html(s) for s in sections)
    scenario = ('<p class="note">No point wrote a resolved scenario.</p>' if page["scenario"] is None else
                f"<details><summary>every field, defaults filled in {esc(page['scenario_note'])}</summary><pre>"
                f"{esc(json.dumps(page['scenario'], indent=2))}</pre></details>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>dcnsim {page['kind']}: {esc(page['title'])}{esc(f" ({partial})") if partial else ""}</title>
<style>{_STYLE}</style>
<script>{plotly_js}</script>
</head><body>
<h1>dcnsim {page['kind']}: {esc(page['title'])}{marked}</h1>
<p class="facts">{facts}</p>{_partial_html(partial, page['kind'])}
<p class="caption">From <code>{esc(page['source'])}</code>. Plots: drag to zoom, double-click to reset, click a
legend entry to hide it, hover for values.</p>
<nav><a href="#summary">Summary</a>{nav}<a href="#scenario">Scenario</a></nav>
<h2 id="summary">Summary</h2>
{_table_html(*page['table'])}
{body}
<h2 id="scenario">Resolved scenario</h2>
{scenario}
<script type="application/json" id="dcnsim-data">{_script_json(data)}</script>
<script>{_SCRIPT}</script>
</body></html>
"""


# What a partial page's numbers cover, by page kind.
_PARTIAL_MEANS = {
    "run": "the run was interrupted before its end, so every plot and number below covers only the time "
           "simulated until then; flows still running count as unfinished.",
    "sweep": "the plots and numbers below pool only the flows of the points that ran; the table says which points "
             "failed or did not run, and running the same sweep again completes them.",
}


def _partial_html(partial: Optional[str], kind: str) -> str:
    if not partial:
        return ""
    return f'\n<p class="partial"><b>{html.escape(partial[0].upper() + partial[1:])}</b>: {_PARTIAL_MEANS[kind]}</p>'


def _section_html(section: Section) -> str:
    esc = html.escape
    content = (f'<p class="note">{esc(section.note)}</p>' if section.note is not None else
               f'<div class="plot" id="plot-{section.id}"></div>' if section.figure is not None else "")
    return f'<h2 id="{section.id}">{esc(section.title)}</h2>\n<p class="caption">{esc(section.caption)}</p>\n{content}'


def _table_html(header: list[str], rows: list[list[str]]) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _script_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no '<' can start '</script>' or
    '<!--' (JSON allows '<' only inside strings, where '\\u003c' means the same)."""
    return json.dumps(data, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")
