"""PrioPlus: the buffer model, the metric functions and what a run keeps from its time
series (:func:`summarize`, which runs in the pool's workers).

The metric functions (:func:`bucket_stats`, :func:`fct_gap`, :func:`first_break`,
:func:`smallest_passing`, :func:`linear_r2`, :func:`window_shares`, :func:`utilisation`,
:func:`gap_across`, :func:`completed_groups`, :func:`training_speedups`,
:func:`group_ccts`, :func:`coflow_speedups`) are plain Python, unit-tested on
hand-computed inputs.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from dcnsim._timeseries import select

KB = 1000
# The tags of the F12AB flows whose collectives (coflows, file requests) have a CCT.
COFLOW_TAGS = ("coflow", "file_request")

# ---------------------------------------------------------------------------------------
# Buffer model (docs/models/pfc.md; experiments/prioplus/README.md "Network model")

SWITCH_BUFFER = 2_640_000  # 4.4 MB per Tbps of a 6 x 100 Gbps switch
HEADROOM = 37_500  # [A]: 3 x rate x link delay per lossless queue per port (100G, 1 us)


def dt_pfc(headroom_carved: bool = True, per_priority: bool = False) -> str:
    """``switch.pfc`` of the flow-scheduling runs (F11, F14): lossless data whose ingress
    queues share each switch's 2.64 MB by dynamic threshold (``[switch.pfc.dynamic]`` with
    its defaults, the artefact's: α = 1/4, 4 KiB reserved per queue, resume 3 KiB below the
    threshold), with 37.5 KB of PFC headroom per lossless queue and port, set aside from the
    buffer unless ``headroom_carved`` is false (the ideal Physical*). ``per_priority``:
    each physical queue of a link is its own PFC class."""
    dynamic = f'{{ buffer = "{SWITCH_BUFFER}B", carve_headroom = {str(headroom_carved).lower()} }}'
    return (f'switch.pfc={{ dynamic = {dynamic}, headroom = "{HEADROOM}B", '
            f'per_priority = {str(per_priority).lower()} }}')


# ---------------------------------------------------------------------------------------
# Metrics


BUCKETS_F11 = (("all", 0, math.inf), ("small", 0, 300 * KB), ("middle", 300 * KB, 6_000 * KB),
               ("large", 6_000 * KB, math.inf))
BUCKETS_F14 = (("sub-RTT", 0, 150 * KB), ("middle", 150 * KB, 6_000 * KB), ("large", 6_000 * KB, math.inf))
GROUPS_F14 = (("high", (12,)), ("middle", (7, 8, 9, 10, 11)), ("low", (1, 2, 3, 4, 5, 6)))


def quantile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (numpy's default) of ``xs``; NaN for none."""
    v = sorted(float(x) for x in xs)
    if not v:
        return math.nan
    pos = (len(v) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def bucket_stats(sizes: Sequence[float], fcts: Sequence[float], lo: float, hi: float) -> tuple[int, float, float]:
    """(count, mean, p99) of the FCTs of flows with lo ≤ size < hi (finished flows only:
    pass ``fct = None`` or NaN for the unfinished, which are left out)."""
    xs = [float(f) for s, f in zip(sizes, fcts)
          if lo <= s < hi and f is not None and math.isfinite(float(f))]
    if not xs:
        return 0, math.nan, math.nan
    return len(xs), sum(xs) / len(xs), quantile(xs, 0.99)


def level_of(tag: str) -> int:
    """The priority level of a flow tagged ``pN`` (the F14 workloads), 0 for any other tag."""
    return int(tag[1:]) if tag.startswith("p") and tag[1:].isdigit() else 0


def f14_level_cells(sizes: Sequence[float], fcts: Sequence[float],
                    tags: Sequence[str]) -> dict[tuple[str, str], tuple[int, float, float]]:
    """F14's cells from pooled flows: (size bucket, level group) → (flows, avg, p99) for every
    bucket of :data:`BUCKETS_F14` and group of :data:`GROUPS_F14`, then ("sub-RTT", "level 12")."""
    out = {}
    for group, levels in GROUPS_F14:
        idx = [i for i, t in enumerate(tags) if level_of(t) in levels]
        for b, lo, hi in BUCKETS_F14:
            out[(b, group)] = bucket_stats([sizes[i] for i in idx], [fcts[i] for i in idx], lo, hi)
    idx = [i for i, t in enumerate(tags) if level_of(t) == 12]
    out[("sub-RTT", "level 12")] = bucket_stats([sizes[i] for i in idx], [fcts[i] for i in idx], 0, 150 * KB)
    return out


def fct_gap(prioplus: Sequence[float], physical: Sequence[float]) -> float:
    """The paper's normalised FCT gap (PrioPlus paper §6.3): Σ over flows of |FCT_PrioPlus − FCT_Physical|
    / FCT_Physical, flows matched by position; an unfinished flow (None/NaN/inf) on the
    PrioPlus side makes it infinite."""
    total = 0.0
    for a, b in zip(prioplus, physical):
        if a is None or b is None or not math.isfinite(float(a)) or not math.isfinite(float(b)):
            return math.inf
        total += abs(float(a) - float(b)) / float(b)
    return total


def first_break(points: Sequence[tuple[float, float]], limit: float) -> float:
    """The smallest x whose value is at or above ``limit``, with every value for a smaller
    x below it... precisely: the first x (ascending) with value ≥ limit; NaN if none."""
    for x, v in sorted(points):
        if not (v < limit):
            return x
    return math.nan


def smallest_passing(points: Sequence[tuple[float, float]], threshold: float) -> float:
    """The smallest x from which on every value is ≥ ``threshold`` (x ascending): the
    channel width that reaches the target utilisation and keeps it; NaN if none."""
    pts = sorted(points)
    best = math.nan
    for x, v in reversed(pts):
        if v >= threshold:
            best = x
        else:
            break
    return best


def linear_r2(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(slope, R²) of the least-squares line through (xs, ys); NaN when undefined."""
    pts = [(float(x), float(y)) for x, y in zip(xs, ys) if math.isfinite(float(x)) and math.isfinite(float(y))]
    n = len(pts)
    if n < 2:
        return math.nan, math.nan
    mx = sum(x for x, _ in pts) / n
    my = sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    syy = sum((y - my) ** 2 for _, y in pts)
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    if sxx == 0:
        return math.nan, math.nan
    slope = sxy / sxx
    r2 = 1.0 if syy == 0 else sxy * sxy / (sxx * syy)
    return slope, r2


def series_by_flow(t: Sequence[float], flow: Sequence[int], value: Sequence[float]) -> dict[int, list[tuple[float, float]]]:
    out: dict[int, list[tuple[float, float]]] = {}
    for ti, fi, vi in zip(t, flow, value):
        out.setdefault(int(fi), []).append((float(ti), float(vi)))
    for v in out.values():
        v.sort()
    return out


def value_at(series: Sequence[tuple[float, float]], at: float) -> float:
    """The last sampled value at or before ``at`` (0 before the first sample: a flow is
    sampled from its start, with nothing delivered yet)."""
    best = 0.0
    for t, v in series:
        if t <= at + 1e-9:
            best = v
        else:
            break
    return best


def window_shares(series: dict[int, list[tuple[float, float]]], groups: dict[str, Sequence[int]], t0: float,
                  t1: float) -> dict[str, float]:
    """Each group's share of the bytes delivered between t0 and t1 (delivered-bytes
    series per flow); NaN when nothing was delivered or the window is empty."""
    got = {g: sum(value_at(series.get(f, []), t1) - value_at(series.get(f, []), t0) for f in fl)
           for g, fl in groups.items()}
    total = sum(got.values())
    if not (t1 > t0) or total <= 0:
        return {g: math.nan for g in groups}
    return {g: v / total for g, v in got.items()}


def utilisation(series: dict[int, list[tuple[float, float]]], t0: float, t1: float, payload_bytes_per_us: float
                ) -> float:
    """Delivered payload of every flow between t0 and t1 over what the line carries in
    payload in that time."""
    got = sum(value_at(s, t1) - value_at(s, t0) for s in series.values())
    return got / (payload_bytes_per_us * (t1 - t0)) if t1 > t0 else math.nan


def gap_across(series: Sequence[tuple[float, float]], at: float) -> float:
    """Length of the delivery gap of one flow that spans ``at``: from the last sample
    before (or at) ``at`` where its delivered bytes changed to the first after ``at``
    where they change again; NaN if it never delivers after ``at``."""
    last_change = math.nan
    prev = None
    for t, v in series:
        if prev is not None and v != prev:
            if t <= at:
                last_change = t
            else:
                return t - last_change if math.isfinite(last_change) else math.nan
        prev = v
    return math.nan


def completed_groups(tags: Sequence[str], groups: Sequence[int], finished: Sequence[bool]) -> dict[str, int]:
    """Per tag, the collectives (``group`` ≥ 0, e.g. training iterations) whose every flow
    finished: summary.json's ``groups.complete``. Tags with no group are left out."""
    done: dict[tuple[str, int], bool] = {}
    for t, g, f in zip(tags, groups, finished):
        if g is None or int(g) < 0:
            continue
        k = (str(t), int(g))
        done[k] = done.get(k, True) and bool(f)
    out: dict[str, int] = {}
    for (t, _), ok in done.items():
        out[t] = out.get(t, 0) + (1 if ok else 0)
    return out


def training_speedups(base: Sequence[dict[str, int]], scheme: Sequence[dict[str, int]],
                      models: dict[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Training speedup per model type (docs/reproductions/prioplus-paper.md, F12C) from {tag: iterations
    completed} per seed (``base`` and ``scheme`` in the same seed order). Per type:

    - ``jobs``: per job (tag; each job has its own priority level), Σ_seeds scheme /
      Σ_seeds base (the ratio of the means), then the mean over the type's jobs ("per
      priority, then across priorities");
    - ``pooled``: Σ over the type's jobs and seeds of the scheme's iterations / the
      baseline's (jobs that iterate more weigh more);
    - ``per_seed``: the mean over jobs and seeds of the per-seed ratios.

    NaN where the baseline completed nothing."""
    out = {}
    for name, tags in models.items():
        jobs, per_seed = [], []
        sb = ss = 0
        for t in tags:
            b = [d.get(t, 0) for d in base]
            s = [d.get(t, 0) for d in scheme]
            sb, ss = sb + sum(b), ss + sum(s)
            jobs.append(sum(s) / sum(b) if sum(b) else math.nan)
            per_seed += [y / x if x else math.nan for x, y in zip(b, s)]
        out[name] = {"jobs": sum(jobs) / len(jobs) if jobs else math.nan,
                     "pooled": ss / sb if sb else math.nan,
                     "per_seed": sum(per_seed) / len(per_seed) if per_seed else math.nan}
    return out


def group_ccts(tags: Sequence[str], groups: Sequence[int], priorities: Sequence[int], starts: Sequence[float],
               finishes: Sequence[float], finished: Sequence[bool]) -> list[tuple[str, int, int, float]]:
    """Per group (``group`` ≥ 0, e.g. a coflow) of a flow table's columns, in group order:
    (tag, group, priority, CCT µs), CCT = the last delivery − the earliest start (a
    coflow's arrival), NaN unless every flow of the group finished."""
    acc: dict[int, list[Any]] = {}
    for t, g, p, s, f, done in zip(tags, groups, priorities, starts, finishes, finished):
        if g is None or int(g) < 0:
            continue
        a = acc.setdefault(int(g), [str(t), int(p), math.inf, -math.inf, True])
        a[2] = min(a[2], float(s)) if s is not None and math.isfinite(float(s)) else a[2]
        ok = bool(done) and f is not None and math.isfinite(float(f))
        a[3] = max(a[3], float(f)) if ok else a[3]
        a[4] = a[4] and ok
    return [(a[0], g, a[1], a[3] - a[2] if a[4] and math.isfinite(a[2]) else math.nan)
            for g, a in sorted(acc.items())]


def coflow_speedups(base: Sequence[Sequence[tuple[str, int, int, float]]],
                    scheme: Sequence[Sequence[tuple[str, int, int, float]]],
                    levels: Sequence[int] = tuple(range(1, 9))) -> dict[str, dict[Any, float]]:
    """CCT speedup of a scheme over the baseline (docs/reproductions/prioplus-paper.md, F12AB) from per-seed lists
    of :func:`group_ccts` rows (``base`` and ``scheme`` in the same seed order; the same
    seed gives both the same coflows, matched by (tag, group)). Per level p, pooling the
    seeds and every tag:

    - ``means``: mean baseline CCT / mean scheme CCT (ratio of means; the primary reading);
    - ``ratios``: the mean over coflows of baseline CCT / scheme CCT (mean of ratios);
    - ``p99``: the 99th-percentile CCT of the baseline over the scheme's (tail, Fig. 15).

    Each reading also has ``high`` (mean over the top half of ``levels``), ``low`` (the
    bottom half) and ``all`` (the mean over every level: the mean of ``high`` and ``low``),
    and ``overall``: the same reading over every coflow of every level and seed pooled
    (for ``means`` the baseline's mean CCT over all of them / the scheme's). ``overall`` is
    the paper's "overall CCT speedup ratio" (PrioPlus paper §6.2), which its own labels
    show is not the mean of the high 4 and the low 4 (Fig. 18, App. A.2;
    docs/reproductions/prioplus-paper.md, "decision" under the coflow figures). A coflow
    unfinished in either run is left out (NaN CCT); a level with no coflow in both is NaN
    and left out of the averages."""
    pairs: dict[int, list[tuple[float, float]]] = {p: [] for p in levels}
    for b_rows, s_rows in zip(base, scheme):
        s_by = {(t, g): c for t, g, _, c in s_rows}
        for t, g, p, c in b_rows:
            d = s_by.get((t, g), math.nan)
            if p in pairs and math.isfinite(c) and math.isfinite(d) and c > 0 and d > 0:
                pairs[p].append((c, d))
    out: dict[str, dict[Any, float]] = {"means": {}, "ratios": {}, "p99": {}, "count": {}}
    for p, xs in pairs.items():
        out["count"][p] = float(len(xs))
        for k, v in _cct_readings(xs).items():
            out[k][p] = v
    ordered = sorted(levels, reverse=True)
    half = len(ordered) // 2
    for k in ("means", "ratios", "p99"):
        for name, ls in (("high", ordered[:half]), ("low", ordered[half:]), ("all", ordered)):
            vals = [out[k][p] for p in ls if math.isfinite(out[k][p])]
            out[k][name] = sum(vals) / len(vals) if vals else math.nan
    pooled = [x for xs in pairs.values() for x in xs]
    out["count"]["overall"] = float(len(pooled))
    for k, v in _cct_readings(pooled).items():
        out[k]["overall"] = v
    return out


def _cct_readings(xs: Sequence[tuple[float, float]]) -> dict[str, float]:
    """The three readings of :func:`coflow_speedups` over (baseline CCT, scheme CCT) pairs;
    NaN for none."""
    if not xs:
        return {"means": math.nan, "ratios": math.nan, "p99": math.nan}
    return {"means": sum(b for b, _ in xs) / sum(s for _, s in xs),
            "ratios": sum(b / s for b, s in xs) / len(xs),
            "p99": quantile([b for b, _ in xs], 0.99) / quantile([s for _, s in xs], 0.99)}


# ---------------------------------------------------------------------------------------
# What a run keeps from its time series (module level: it runs in the pool's workers)


def summarize(sim: Any) -> dict[str, Any]:
    """Compact time-series extracts: delivered bytes per flow and sample, the sum over
    flows of PrioPlus's final stop counters, and the queue samples of the port with the
    largest peak; where flows form collectives (training), the completed ones per tag."""
    ts = sim.timeseries()
    out: dict[str, Any] = {}
    flows = sim.flows()
    if "group" in flows and any(int(g) >= 0 for g in flows["group"]):
        out["iterations"] = completed_groups(list(flows["tag"]), list(flows["group"]), list(flows["finished"]))
        if "priority" in flows and any(t in COFLOW_TAGS for t in flows["tag"]):
            # JSON has no NaN: an unfinished coflow's CCT is kept as null (`cct_rows` reads it back).
            out["ccts"] = [[t, g, p, c if math.isfinite(c) else None]
                           for t, g, p, c in group_ccts(flows["tag"], flows["group"], flows["priority"],
                                                        flows["start_us"], flows["finish_us"], flows["finished"])]
    times, flows, delivered = select(ts, "flow", "delivered_bytes")
    if times:
        out["d_t"] = [round(float(x), 3) for x in times]
        out["d_flow"] = [int(x) for x in flows]
        out["d_bytes"] = [int(x) for x in delivered]
    if ts and any(m.startswith("cc.") for m in ts["metric"][1]):  # the algorithms report variables
        for key, variable in (("stops", "cc.stops"), ("tiny_stops", "cc.tiny_window_stops")):
            _, flows, values = select(ts, "flow", variable)
            last = dict(zip(flows, values))  # each flow's latest sample
            out[key] = sum(float(v) for v in last.values())
    times, ports, depth = select(ts, "port", "queue_bytes")
    if times:
        peak: dict[int, float] = {}
        for p, b in zip(ports, depth):
            peak[int(p)] = max(peak.get(int(p), 0.0), float(b))
        busiest = max(peak, key=lambda p: peak[p])
        out["q_t"] = [round(float(t), 3) for t, p in zip(times, ports) if int(p) == busiest]
        out["q_bytes"] = [int(b) for b, p in zip(depth, ports) if int(p) == busiest]
    return out


# ---------------------------------------------------------------------------------------
# T1 (Fig. 8): time to yield and to refill on the four-level staircase


class Delivered:
    """Delivered bytes of a set of flows, read at any time by bisection over each flow's
    samples (times ascending)."""

    def __init__(self, series: dict[int, list[tuple[float, float]]]):
        self.times = {f: [t for t, _ in s] for f, s in series.items()}
        self.values = {f: [v for _, v in s] for f, s in series.items()}

    def at(self, flows: Sequence[int], t: float) -> float:
        import bisect

        total = 0.0
        for f in flows:
            ts = self.times.get(f, [])
            i = bisect.bisect_right(ts, t + 1e-9)
            total += self.values[f][i - 1] if i > 0 else 0.0
        return total

    def rate(self, flows: Sequence[int], t0: float, t1: float) -> float:
        """Bytes per µs the flows delivered between t0 and t1."""
        return (self.at(flows, t1) - self.at(flows, t0)) / (t1 - t0) if t1 > t0 else math.nan


def first_crossing(d: Delivered, flows: Sequence[int], t0: float, t1: float, window: float, step: float,
                   below: Optional[float] = None, above: Optional[float] = None) -> float:
    """The first t in t0, t0 + step, … (t ≤ t1) at which the flows' delivery rate over
    [t, t + window] is below ``below`` (or at least ``above``), in bytes per µs; minus t0,
    i.e. the time it took. NaN if it never happens by t1."""
    n = int(math.floor((t1 - t0) / step + 1e-9))
    for k in range(n + 1):
        t = t0 + k * step
        r = d.rate(flows, t, t + window)
        if (below is not None and r < below) or (above is not None and r >= above):
            return t - t0
    return math.nan


def staircase_transitions(series: dict[int, list[tuple[float, float]]], levels: Sequence[int],
                          starts: Sequence[float], finishes: Sequence[float], line: float, window: float = 100.0,
                          step: float = 10.0, low: float = 0.05, high: float = 0.95
                          ) -> list[tuple[str, int, float, float]]:
    """The transitions of a priority staircase (PrioPlus paper §5, Fig. 8), from each flow's
    delivered-bytes samples (``series``, by flow id = position in ``levels``, ``starts``
    and ``finishes``). A level starts at its first flow's start and stops at its last
    flow's finish. Rows (kind, level, event time, time taken), in time order:

    - ``("yield", p, t_s, x)``: level p starts at t_s; x = the time from t_s until the flows
      of the lower levels active then deliver less than ``low`` × ``line`` over the next
      ``window`` µs (every ``step`` µs from t_s, until the next event);
    - ``("refill", p, t_e, x)``: level p stops at t_e, with lower levels still active; x =
      the time from t_e until their flows deliver at least ``high`` × ``line`` over the
      next ``window`` (until the next event).

    NaN where it does not happen before the next event (a start or a stop of any level)."""
    by_level: dict[int, list[int]] = {}
    for f, p in enumerate(levels):
        by_level.setdefault(int(p), []).append(f)
    start = {p: min(float(starts[f]) for f in fl) for p, fl in by_level.items()}
    stop = {p: max(float(finishes[f]) for f in fl) for p, fl in by_level.items()}
    events = sorted({*start.values(), *stop.values()})

    def next_event(t: float) -> float:
        later = [x for x in events if x > t + 1e-9]
        return later[0] if later else t

    d = Delivered(series)
    out = []
    for p in sorted(by_level):
        ts = start[p]
        lower = [f for q in by_level if q < p and start[q] < ts < stop[q] for f in by_level[q]]
        if lower:
            x = first_crossing(d, lower, ts, next_event(ts) - window, window, step, below=low * line)
            out.append(("yield", p, ts, x))
        te = stop[p]
        rest = [f for q in by_level if q < p and start[q] < te < stop[q] for f in by_level[q]]
        if rest:
            x = first_crossing(d, rest, te, next_event(te) - window, window, step, above=high * line)
            out.append(("refill", p, te, x))
    return sorted(out, key=lambda r: r[2])


def level_rates(series: dict[int, list[tuple[float, float]]], levels: Sequence[int], t0: float, t1: float,
                bin_us: float) -> tuple[list[float], dict[int, list[float]]]:
    """Per level, the delivery rate (bytes per µs) in consecutive bins of ``bin_us`` from t0
    to t1: (bin centres, {level: rates})."""
    d = Delivered(series)
    by_level: dict[int, list[int]] = {}
    for f, p in enumerate(levels):
        by_level.setdefault(int(p), []).append(f)
    n = int(math.floor((t1 - t0) / bin_us))
    centres = [t0 + (k + 0.5) * bin_us for k in range(n)]
    return centres, {p: [d.rate(fl, t0 + k * bin_us, t0 + (k + 1) * bin_us) for k in range(n)]
                     for p, fl in sorted(by_level.items())}
