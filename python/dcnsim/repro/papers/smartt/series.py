"""SMaRTT: the numbers the checks read from a run's time series (windows, the receiver's
queue and trims, delivered bytes), as plain functions of the sampled values, unit-tested
on hand-computed series (docs/reproductions/smartt-paper.md, "Metrics")."""

from __future__ import annotations

import math
from typing import Any, Sequence

STEADY_TRTTS = 20  # A8: steady state starts 20 target RTTs into the run
LATE_FLOWS = 4  # runs of at most this many flows keep each flow's late window and throughput (E6)
TRACE_POINTS = 400  # samples kept of the traces the figures draw


def window(times: Sequence[float], values: Sequence[float], t0: float, t1: float) -> list[float]:
    """The values sampled at t0 < t ≤ t1 (an interval counter sampled at t covers the
    interval that ends at t)."""
    return [float(v) for t, v in zip(times, values) if t0 < t <= t1]


def per_flow(times: Sequence[float], ids: Sequence[int], values: Sequence[float], t0: float = -math.inf,
             t1: float = math.inf) -> dict[int, tuple[list[float], list[float]]]:
    """{flow id: (times, values)} of the samples at t0 < t ≤ t1, in sample order."""
    out: dict[int, tuple[list[float], list[float]]] = {}
    for t, i, v in zip(times, ids, values):
        if t0 < t <= t1:
            ts, vs = out.setdefault(int(i), ([], []))
            ts.append(float(t))
            vs.append(float(v))
    return out


def cv(values: Sequence[float]) -> float:
    """Coefficient of variation, population standard deviation / mean; NaN for fewer
    than two values or a mean of 0."""
    xs = [float(x) for x in values]
    if len(xs) < 2:
        return math.nan
    mean = sum(xs) / len(xs)
    if mean <= 0:
        return math.nan
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs)) / mean


def mean_cv(series: dict[int, tuple[list[float], list[float]]]) -> float:
    """A8's window variation: the mean over flows of each flow's :func:`cv` over time
    (flows without one left out); NaN when none has one."""
    cvs = [c for _, vs in series.values() for c in [cv(vs)] if not math.isnan(c)]
    return sum(cvs) / len(cvs) if cvs else math.nan


def share_below(values: Sequence[float], threshold: float) -> float:
    """The share of ``values`` below ``threshold`` (E9: windows under half the ideal); NaN
    for none."""
    xs = list(values)
    return sum(1 for x in xs if x < threshold) / len(xs) if xs else math.nan


def rate_gbps(times: Sequence[float], cumulative: Sequence[float]) -> float:
    """Throughput from a cumulative byte counter sampled at ``times`` (µs), Gbit/s: the
    bytes between the first and the last sample over the time between them."""
    if len(times) < 2 or times[-1] <= times[0]:
        return math.nan
    return (cumulative[-1] - cumulative[0]) * 8 / ((times[-1] - times[0]) * 1e3)


def downsample(times: Sequence[float], values: Sequence[float], points: int) -> tuple[list[float], list[float]]:
    """Every k-th sample, k the smallest stride that keeps at most ``points`` of them."""
    stride = max(1, math.ceil(len(times) / max(1, points)))
    return [float(t) for t in times[::stride]], [float(v) for v in values[::stride]]


def two_flow_ratios(brtt_us: Sequence[float], cwnd: Sequence[float], gbps: Sequence[float]) -> dict[str, float]:
    """A7's numbers for two flows of different base RTTs: the base-RTT ratio and the
    window ratio, longer-RTT flow over shorter; the throughput ratio, smaller over larger
    (≤ 1 whichever flow gets more); and each flow's window (KB) and throughput."""
    long, short = (0, 1) if brtt_us[0] > brtt_us[1] else (1, 0)
    hi = max(gbps[0], gbps[1])
    return {
        "brtt_ratio": brtt_us[long] / brtt_us[short],
        "cwnd_short_kb": cwnd[short] / 1e3, "cwnd_long_kb": cwnd[long] / 1e3,
        "gbps_short": gbps[short], "gbps_long": gbps[long],
        "cwnd_ratio": cwnd[long] / cwnd[short] if cwnd[short] > 0 else math.nan,
        "thr_ratio": min(gbps[0], gbps[1]) / hi if hi > 0 else math.nan,
    }


Series = tuple[Sequence[float], Sequence[int], Sequence[float]]


def series_metrics(trtt_us: float, ideal_cwnd: float, end_us: float, finish_us: Sequence[float], n_flows: int,
                   cwnd: Series, delivered: Series, queue: tuple[Sequence[float], Sequence[float]],
                   trims: tuple[Sequence[float], Sequence[float]], traced: Sequence[int] = (0, 1)) -> dict[str, Any]:
    """What the checks read from a run's time series (flow series as (times, ids, values)
    as :func:`dcnsim._timeseries.select` gives them, the observed port's as (times,
    values); empty when not sampled). The incast's active part ends when half its flows have
    finished (the lower median of ``finish_us``; else at ``end_us``): a sender whose whole
    message fits its first window may finish long before the others:

    - ``ss_nacks``: trims at the observed port in steady state, from STEADY_TRTTS target
      RTTs on (A8; every trimmed packet is NACKed); ``ss_cwnd_cv``: :func:`mean_cv` of the
      windows then (NaN if the incast ends before);
    - ``undershoot``: the share of window samples from the first trim on that lie below
      half of ``ideal_cwnd`` (E9: C · trtt / N, :func:`runs.ideal_cwnd_bytes`);
    - ``mean_queue_kb`` / ``max_queue_kb``: the observed port's queue while active (E8);
    - ``late_cwnd_<i>`` / ``late_gbps_<i>`` for runs of at most LATE_FLOWS flows: each
      flow's mean window and throughput over the second half of the run (E6);
    - ``trace_t<k>`` / ``trace_w<k>``: the window of flow ``traced[k]`` (``trace_flows``: the
      ids), and ``trace_tq`` / ``trace_q`` the port's queue until the last flow finishes, downsampled,
      for the figures.
    """
    out: dict[str, Any] = {}
    c_t, c_id, c_v = cwnd
    q_t, q_v = queue
    x_t, x_v = trims
    active = sorted(finish_us)[(len(finish_us) - 1) // 2] if finish_us else end_us
    steady = STEADY_TRTTS * trtt_us
    if x_t:
        out["ss_nacks"] = sum(window(x_t, x_v, steady, active)) if active > steady else math.nan
    if c_t:
        out["ss_cwnd_cv"] = mean_cv(per_flow(c_t, c_id, c_v, steady, active)) if active > steady else math.nan
        first_trim = next((t for t, v in zip(x_t, x_v) if v > 0), None)
        if first_trim is not None:
            out["undershoot"] = share_below(window(c_t, c_v, first_trim, active), 0.5 * ideal_cwnd)
        flows = per_flow(c_t, c_id, c_v)
        kept = [i for i in traced if i in flows]
        if kept:
            out["trace_flows"] = kept
        for k, i in enumerate(kept):
            out[f"trace_t{k}"], out[f"trace_w{k}"] = downsample(*flows[i], TRACE_POINTS)
    if q_t:
        busy = window(q_t, q_v, -math.inf, active)
        out["mean_queue_kb"] = sum(busy) / len(busy) / 1e3 if busy else math.nan
        out["max_queue_kb"] = max(busy) / 1e3 if busy else math.nan
        # Sampling goes on to the run's end; the trace stops when the last flow finishes.
        horizon = max(finish_us) if finish_us else end_us
        shown = [(t, v) for t, v in zip(q_t, q_v) if t <= horizon]
        out["trace_tq"], out["trace_q"] = downsample([t for t, _ in shown], [v for _, v in shown], TRACE_POINTS)
    if c_t and 0 < n_flows <= LATE_FLOWS:
        late = per_flow(c_t, c_id, c_v, end_us / 2, end_us)
        got = per_flow(*delivered, end_us / 2, end_us)
        for i in range(n_flows):
            if i in late:
                out[f"late_cwnd_{i}"] = sum(late[i][1]) / len(late[i][1])
            if i in got:
                out[f"late_gbps_{i}"] = rate_gbps(*got[i])
    return out
