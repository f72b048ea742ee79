"""DCTCP's delay at scale under `ns3_study` (C7 at scale, bearing on C5/C6): why our D delay
sits near one packet per flow (E5/2500: 25.9 ms) where the study's is 9.4 ms; and the Swift
side of the checks that still fail (C2, C3, C5, C9; part 10 of the .md).

ablations/d_delay_at_scale.md holds this script's output and what it shows. Six parts:

1. `analytic`: the hotspot queue that N flows at a window floor of w packets give
   (N·w − BDP packets, 12.432 µs per 1554 B packet at 1 Gbps), against the study's D delay,
   and the fraction of flows that must be idle for the study's figure.
2. `measure`: harness cells (the same scenario and overrides as `dcnsim reproduce
   dctcp-vs-swift --profile ns3_study`, checked against the harness's own `build_cells` as in
   ablate.py) rerun with `[observe]` every 50 ms on every flow and on the hotspot's downlink:
   how many flows send, how many sit in a stall (no data sent for >= 300 ms while the flow
   still has data to send later: an RTO wait, since an active flow sends at least once per
   RTT, < 40 ms here), the hotspot queue, and the delay that queue predicts.
3. `ablate`: E5/2500 D with one setting changed per row, measured the same way (among them the
   ns-3 facts the profile can express: a 15-segment first window, ns-3's data-retries limit).
4. `ns3`: ns-3.43's path after an RTO (two lost segments repaired per 1 s round, see
   d_delay_at_scale.md), as arithmetic: applied by arithmetic (`repair_model`) to each
   flow's losses in the first ON second, measured by running the harness's cells to 3.2 s.
5. `cwr_prr`: that path run, now that DCTCP has it (`transport.dctcp.after_timeout =
   "cwr_prr"`, docs/models/dctcp.md), on the D cells at scale.
6. `swift` (part 10): the Swift side. The study's Swift recovery, as far as the options
   express it, on E1 at the 0.25 s target (C2); E2's 0 B point (C3); E3's D, Sb and Se
   under the current profile (C9); E5/2500's S25 against Sb (C5).
7. `swift_ns3` (part 11): the study's Swift clock and recovery, run now that Swift has them
   (`transport.swift.last_decrease_update = "le"`, `transport.swift.recovery = "ns3_classic"`,
   docs/models/swift.md), alone and together, on the cells of C2, C3, C5 and C6; then every
   check recounted with each option and with both (seed 1, `ablate.py`'s recount).

    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py          # all
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py analytic
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py measure ablate timeline
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py ns3 cwr_prr
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py swift
    PYTHONPATH=python python experiments/dctcp-vs-swift/ablations/ablate_d_delay.py swift_ns3

Each run's summary is kept in ablations/raw/d_delay.jsonl, the first-burst losses of part 4 in
raw/d_delay_burst.jsonl (both git-ignored; a run already there is not rerun; delete the file to
rerun). A run with the sampler takes 2-4 s (an E5 run about 8 s); all of them (66 runs, and 30
runs to 3.2 s) about 5 minutes on one shared core, part 10's 87 further runs about 4 minutes, and
part 11's 470 (most of them the seed-1 recounts, kept in raw/d_delay_recount.jsonl) about 16 minutes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

from dcnsim._ext import core
from dcnsim._scenario import load_scenario, scenario_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ablate as A  # noqa: E402  (the Case/overrides/harness check of the earlier ablations)

R = A.R
RAW = A.HERE / "raw" / "d_delay.jsonl"
PKT_BYTES = 1554                     # a full data packet on the wire
T_PKT_US = PKT_BYTES * 8 / 1e3       # 12.432 µs at 1 Gbps
LINK_US = 10.0
INTERVAL_MS = 50
STALL_MS = 300                       # a gap in sending this long is an RTO wait, not an RTT

# ---------------------------------------------------------------------------------------
# 1. Analytic


def unloaded_one_way_us(links: int = 6) -> float:
    """Host to host across pods of a 3-tier fat tree: 6 links, each 10 µs plus one packet's
    serialisation (store and forward)."""
    return links * (LINK_US + T_PKT_US)


def bdp_packets(links: int = 6) -> float:
    """Packets one flow keeps in flight at the unloaded RTT (data out, 54 B ACK back)."""
    rtt = unloaded_one_way_us(links) + links * (LINK_US + 54 * 8 / 1e3)
    return rtt / T_PKT_US


def floor_delay_ms(n: int, w: float, buffer_pkts: int = 2766) -> float:
    """Mean one-way delay when n flows keep w packets each in the network and every other
    queue is empty: the hotspot queue holds n·w minus what the path holds (about one BDP in
    all: the hotspot link is the bottleneck, so the flows share one BDP), capped by the buffer."""
    q = min(max(n * w - bdp_packets(), 0.0), buffer_pkts)
    return (unloaded_one_way_us() + q * T_PKT_US) / 1e3


def analytic(out) -> None:
    d0 = unloaded_one_way_us()
    print("\n## 1. Analytic: the hotspot queue at a window floor, against the study's D delay\n", file=out)
    print(f"One packet = {PKT_BYTES} B = {T_PKT_US:.3f} µs at 1 Gbps; unloaded one-way delay {d0:.1f} µs "
          f"(6 links); one BDP ≈ {bdp_packets():.1f} packets; buffer 2766 packets = "
          f"{2766 * T_PKT_US / 1e3:.2f} ms.\n", file=out)
    print("| cell | N | delay, all N at 1 packet [ms] | at 2 packets [ms] | ours (D, table) [ms] | study D [ms] "
          "| study's queue [packets] | flows the study's queue holds at 1 packet each | idle at 1 packet "
          "| idle at 2 packets |", file=out)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    # D250's 3-seed means in RESULTS-ns3_study.md's E5 and E6 tables (the harness's run)
    ours = {("E5", "1500"): 17.20, ("E5", "2000"): 21.81, ("E5", "2500"): 25.94, ("E5", "3000"): 27.01,
            ("E6", "2000"): 22.06, ("E6", "2500"): 25.63}
    for exp, point in [("E5", "1500"), ("E5", "2000"), ("E5", "2500"), ("E5", "3000"), ("E6", "2000"), ("E6", "2500")]:
        n = int(point)
        study = R.study_value(exp, point, "D", "delay_ms")
        q = (study * 1e3 - d0) / T_PKT_US
        active1 = q + bdp_packets()
        print(f"| {exp}/{point} | {n} | {floor_delay_ms(n, 1):.2f} | {floor_delay_ms(n, 2):.2f} | "
              f"{ours.get((exp, point), float('nan')):.2f} | {study:.1f} | {q:.0f} | {active1:.0f} | "
              f"{1 - active1 / n:.0%} | {1 - active1 / (2 * n):.0%} |", file=out)


# ---------------------------------------------------------------------------------------
# 2. One run with the sampler


def _decode(v):
    """A timeseries column: a plain list, or a categorical as [codes, labels]."""
    if len(v) == 2 and not isinstance(v[0], (int, float)):
        return np.asarray(list(v[1]), dtype=object)[np.asarray(v[0], dtype=int)]
    return np.asarray(v)


def hotspot_port(c: A.Case, seed: int) -> str:
    spec, root = load_scenario(A.EXP_DIR / R.EXPERIMENTS[c.exp].toml, A.overrides(c, seed))
    sim = core().Simulation(scenario_json(spec), str(root))
    dsts = sim.flows()["dst"]
    dst = max(set(dsts), key=dsts.count)
    return next(n for n in sim.ports()["name"] if n.endswith(f"->h{dst}"))


def observed(c: A.Case, seed: int) -> dict:
    """Run the cell with the sampler; the study's metrics plus the measured flow states."""
    port = hotspot_port(c, seed)
    obs = [f'observe.interval="{INTERVAL_MS}ms"', f'observe.ports=["{port}"]', 'observe.flows="all"',
           'observe.metrics=["cwnd","rate","queue","utilisation","drops"]']
    spec, root = load_scenario(A.EXP_DIR / R.EXPERIMENTS[c.exp].toml, [*A.overrides(c, seed), *obs])
    sim = core().Simulation(scenario_json(spec), str(root))
    while not sim.run_until(sim.now_ps + 10**12):
        pass
    flows = sim.flows()
    m = R.study_metrics({k: flows[k] for k in R._FLOW_COLUMNS})
    st = sim.stats()
    ts = {k: _decode(v) for k, v in sim.timeseries().items()}
    t_us = ts["time_us"].astype(float)
    kind, metric, ids, val = ts["kind"], ts["metric"], ts["id"].astype(int), ts["value"].astype(float)
    times = np.unique(t_us)
    ti = np.searchsorted(times, t_us)

    def port_series(name: str) -> np.ndarray:
        s = np.zeros(len(times))
        sel = (kind == "port") & (metric == name)
        s[ti[sel]] = val[sel]
        return s

    q = port_series("queue_bytes") / PKT_BYTES
    util = port_series("utilisation")
    drops = port_series("drops")
    nflows = len(flows["id"])
    sel = (kind == "flow") & (metric == "send_rate_gbps")
    send = np.zeros((len(times), nflows))
    send[ti[sel], ids[sel]] = val[sel]
    sel = (kind == "flow") & (metric == "cwnd_bytes")
    cwnd = np.full((len(times), nflows), np.nan)
    cwnd[ti[sel], ids[sel]] = val[sel] / PKT_BYTES
    sending = send > 0
    stall_gap = STALL_MS // INTERVAL_MS
    alive = np.zeros_like(sending)
    stalled = np.zeros_like(sending)
    stalls, stall_lengths = [], []
    for f in range(nflows):
        idx = np.flatnonzero(sending[:, f])
        if len(idx) == 0:
            continue
        alive[idx[0]:idx[-1] + 1, f] = True
        gaps = np.diff(idx) - 1
        n = 0
        for start, g in zip(idx[:-1], gaps):
            if g >= stall_gap:
                stalled[start + 1:start + 1 + g, f] = True
                stall_lengths.append(g * INTERVAL_MS / 1e3)
                n += 1
        stalls.append(n)
    n_alive, n_stalled, n_send = alive.sum(1), stalled.sum(1), sending.sum(1)
    w = util / util.sum() if util.sum() > 0 else util        # weight: packets through the hotspot
    lens = np.asarray(stall_lengths)
    burst = (times > 3.0e6) & (times <= 3.2e6)
    cw_active = np.where(sending, cwnd, np.nan)
    counted = np.isfinite(cw_active).sum(1)
    cw_mean = np.where(counted > 0, np.nansum(np.nan_to_num(cw_active), axis=1) / np.maximum(counted, 1), 0.0)
    rec = {
        **{k: m[k] for k in ("thr_kbps", "delay_ms", "loss_pct", "jain")},
        "drops": st.get("drops"), "timeouts": st.get("timeouts"), "flows": nflows,
        "q_pw": float((q * w).sum()),                                   # packet-weighted queue
        "delay_from_q_ms": (unloaded_one_way_us() + float((q * w).sum()) * T_PKT_US) / 1e3,
        "alive_pw": float((n_alive * w).sum()),
        "stalled_pw": float((n_stalled * w).sum()),
        "sending_pw": float((n_send * w).sum()),
        "stalled_frac_pw": float((np.where(n_alive > 0, n_stalled / np.maximum(n_alive, 1), 0) * w).sum()),
        "stall_time_frac": float(stalled.sum() / max(alive.sum(), 1)),
        "stalls_per_flow": float(np.mean(stalls)) if stalls else 0.0,
        "stalls_lt_1_5s": float((lens < 1.5).mean()) if len(lens) else 0.0,
        "stalls_1_5_3s": float(((lens >= 1.5) & (lens < 3)).mean()) if len(lens) else 0.0,
        "stalls_ge_3s": float((lens >= 3).mean()) if len(lens) else 0.0,
        "cwnd_sending_pw": float((cw_mean * w).sum()),
        # per flow: segments dropped, and the time it sent (alive and not stalled), for the
        # estimate of part 4
        "drops_per_flow": float(np.mean(flows["drops"])),
        "rounds_2_per_rto": float(np.mean(np.ceil(np.asarray(flows["drops"], dtype=float) / 2))),
        "active_s_per_flow": float((alive & ~stalled).sum(0).mean() * INTERVAL_MS / 1e3),
        "hotspot_drops": float(drops.sum()),
        "burst_drops": float(drops[burst].sum()),
        "timeline": [[round(float(times[i]) / 1e6, 3), round(float(q[i])), int(n_alive[i]), int(n_send[i]),
                      int(n_stalled[i]), round(float(util[i]), 3), int(drops[i])]
                     for i in range(len(times)) if times[i] <= 9.0e6],
    }
    return rec


def _done() -> dict[str, dict]:
    return A._done(RAW)


def result(c: A.Case, seed: int, done: dict[str, dict]) -> dict:
    return A.result(c, seed, done, raw=RAW, runner=observed)


COLS = [("thr [Kbps]", "thr_kbps", ".0f"), ("delay [ms]", "delay_ms", ".2f"), ("loss [%]", "loss_pct", ".2f"),
        ("timeouts", "timeouts", ".0f"), ("hotspot queue [pkts]", "q_pw", ".0f"),
        ("delay from that queue [ms]", "delay_from_q_ms", ".2f"), ("flows sending", "sending_pw", ".0f"),
        ("flows stalled", "stalled_pw", ".0f"), ("stalled share of flow time", "stall_time_frac", ".0%"),
        ("stalls per flow", "stalls_per_flow", ".2f"), ("stalls ≥ 1.5 s", "stalls_1_5_3s", ".0%"),
        ("cwnd of senders [pkts]", "cwnd_sending_pw", ".2f"), ("drops in [3.0, 3.2] s", "burst_drops", ".0f")]


def table(rows: list[tuple[A.Case, int]], out) -> None:
    done = _done()
    print("| cell | change | " + " | ".join(h for h, _, _ in COLS) + " | delay per seed |", file=out)
    print("| --- | --- | " + " | ".join("---:" for _ in COLS) + " | --- |", file=out)
    for c, seeds in rows:
        A.same_as_harness(A.Case("", c.exp, c.point, c.variant), 1)
        res = [result(c, s, done) for s in range(1, seeds + 1)]
        mean = lambda k: statistics.mean(float(r[k]) for r in res)  # noqa: E731
        # "stalls >= 1.5 s" reports the share of stalls of 1.5 s or more (doubled RTOs and beyond)
        cells = []
        for _, k, f in COLS:
            if k == "stalls_1_5_3s":
                cells.append(format(statistics.mean(float(r["stalls_1_5_3s"]) + float(r["stalls_ge_3s"]) for r in res), f))
            else:
                cells.append(format(mean(k), f))
        per = " ".join(f"{float(r['delay_ms']):.2f}" for r in res)
        print(f"| {c.exp}/{c.point}/{c.variant} | {c.label} | " + " | ".join(cells) + f" | [{per}] |",
              file=out, flush=True)


SEEDS = 3
MEASURE = [A.Case("the harness's cell", "E5", p, "D250") for p in ("1500", "2000", "2500", "3000")] + [
    A.Case("the harness's cell", "E6", "2000", "D250"), A.Case("the harness's cell", "E6", "2000", "Sb"),
    A.Case("the harness's cell", "E6", "2500", "D250")]

ABLATE = [
    A.Case("the harness's cell", "E5", "2500", "D250"),
    A.Case("min RTO 2 s (not 1 s): every RTO wait twice as long (a probe)", "E5", "2500", "D250",
           ("transport.rto_min=2s",)),
    A.Case("min RTO 200 ms (not 1 s): every RTO wait 5x shorter (a probe)", "E5", "2500", "D250",
           ("transport.rto_min=200ms",)),
    A.Case("send buffer 32 KiB (not 128 KiB): sources run dry in the OFF seconds", "E5", "2500", "D250",
           ('workload.0.app.send_buffer="32KiB"',)),
    A.Case("DCTCP min window 2 packets (not 1): N·w above the buffer", "E5", "2500", "D250",
           ("transport.dctcp.min_cwnd_pkts=2",)),
    A.Case("initial window 1 packet (not 10): no synchronised loss at the first ON", "E5", "2500", "D250",
           ("transport.initial_window=1",)),
    A.Case("no fast retransmit (dupack threshold 10^6): holes repaired by RTO only (a probe)", "E5", "2500",
           "D250", ("transport.dupack_threshold=1000000",)),
    A.Case("initial window 15 packets (a probe: ns-3 sends the 15,000 B first window as 15 segments of the "
           "application's 1000 B writes)", "E5", "2500", "D250", ("transport.initial_window=15",)),
    A.Case("a flow gives up after 7 timeouts in a row (ns-3's DataRetries = 6; our default 15)", "E5", "2500",
           "D250", ("faults.give_up_after=7",)),
]


C2 = [
    A.Case("the harness's cell", "E1", "0.25", "Swift"),
    A.Case("min RTO 2 s (not 1 s): every RTO wait twice as long (a probe)", "E1", "0.25", "Swift",
           ("transport.rto_min=2s",)),
    A.Case("initial window 1 packet (not 10)", "E1", "0.25", "Swift", ("transport.initial_window=1",)),
]


def c2(out) -> None:
    study = R.study_value("E1", "0.25", "Swift", "delay_ms")
    q = (study * 1e3 - unloaded_one_way_us(4)) / T_PKT_US
    print("\n## 5. C2's delay at a 0.25 s target (E1, Swift, 610 flows, k = 4)\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2. The study: {study:.1f} ms, a hotspot queue of about "
          f"{q:.0f} packets (4 links, unloaded {unloaded_one_way_us(4):.0f} µs); the buffer holds 2766 "
          f"({2766 * T_PKT_US / 1e3:.1f} ms).\n", file=out)
    table([(c, SEEDS) for c in C2], out)


C9 = [
    A.Case("the harness's cell", "E3", "250", "D250"),
    A.Case("initial window 15 packets (a probe: 15,000 B of first window sent as 1000 B segments)", "E3", "250", "D250",
           ("transport.initial_window=15",)),
    A.Case("the harness's cell", "E3", "250", "Sb"),
    A.Case("initial window 15 packets (a probe: 15,000 B of first window sent as 1000 B segments)", "E3", "250", "Sb",
           ("transport.initial_window=15",)),
]


def c9(out) -> None:
    print("\n## 6. C9 at 250 flows (E3, k = 4): does an RTO stall reach it?\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2. At 250 flows the sources run dry in every OFF "
          "second (128 KiB lasts about 0.4 s at a flow's share), so the stall columns count those idle "
          "seconds, not RTO waits: the timeouts column tells the RTOs.\n", file=out)
    table([(c, SEEDS) for c in C9], out)


def measure(out) -> None:
    print("\n## 2. Measured: flow states and the hotspot queue in the harness's cells\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}. Queue, flows sending and flows stalled are weighted by the hotspot link's "
          "use in each 50 ms sample (so they are what the delivered packets saw).\n", file=out)
    table([(c, SEEDS) for c in MEASURE], out)


def ablate(out) -> None:
    print("\n## 3. One change at a time: E5/2500 D250\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2.\n", file=out)
    table([(c, SEEDS) for c in ABLATE], out)


def estimate(out) -> None:
    """Arithmetic, not a simulation: the idle share and delay our D cells would have if every
    RTO round repaired only two of a flow's lost segments (the ns-3.43 path described in
    d_delay_at_scale.md: after an RTO the first ECN echo puts the flow in CWR with a
    window below one segment; PRR forces one segment out, then the window stays below a
    segment until the next RTO)."""
    done = _done()
    print("\n## 4. Estimate: two lost segments repaired per RTO round (arithmetic on the measured flows)\n",
          file=out)
    print(f"Mean over seeds 1-{SEEDS}. Rounds = mean over flows of ceil(segments the flow lost / 2), 1 s each "
          "(the 1 s minimum RTO; a new ACK resets the backoff); sending time = the time our flows spent "
          "sending (measured); idle = rounds / (rounds + sending time); queue = N × (1 − idle) − one BDP, "
          "one packet per sending flow.\n", file=out)
    print("| cell | segments lost per flow | RTO rounds per flow | sending time per flow [s] | idle, estimate | "
          "delay, estimate [ms] | ours [ms] | study [ms] | idle the study's delay needs |", file=out)
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    d0 = unloaded_one_way_us()
    for c in MEASURE:
        if c.variant != "D250":
            continue
        res = [result(c, s, done) for s in range(1, SEEDS + 1)]
        mean = lambda k: statistics.mean(float(r[k]) for r in res)  # noqa: E731
        n = int(c.point)
        rounds, active = mean("rounds_2_per_rto"), mean("active_s_per_flow")
        idle = rounds / (rounds + active)
        q = max(n * (1 - idle) - bdp_packets(), 0.0)
        study = R.study_value(c.exp, c.point, "D", "delay_ms")
        need = 1 - ((study * 1e3 - d0) / T_PKT_US + bdp_packets()) / n
        print(f"| {c.exp}/{c.point}/{c.variant} | {mean('drops_per_flow'):.1f} | {rounds:.2f} | {active:.2f} | "
              f"{idle:.0%} | {(d0 + q * T_PKT_US) / 1e3:.1f} | {mean('delay_ms'):.2f} | {study:.1f} | {need:.0%} |",
              file=out)


def timeline(out, c: A.Case | None = None, seed: int = 1) -> None:
    c = c or ABLATE[0]
    r = result(c, seed, _done())
    print(f"\n## 7. Timeline: {c.exp}/{c.point}/{c.variant}, {c.label}, seed {seed} (every 250 ms)\n", file=out)
    print("| t [s] | hotspot queue [pkts] | flows alive | sending | stalled | link use | drops in the 50 ms |",
          file=out)
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    for row in r["timeline"]:
        if 2.9 <= row[0] <= 9.0 and round(row[0] * 1000) % 250 == 0:
            print("| " + " | ".join(str(x) for x in row) + " |", file=out)


# ---------------------------------------------------------------------------------------
# 8. The ns-3.43 post-timeout path as arithmetic on our flows' first-burst losses

RAW_BURST = A.HERE / "raw" / "d_delay_burst.jsonl"
BURST_END_S = 3.2             # the first ON second starts at 3.0 s; its synchronised loss is over by 3.2 s
SEG_BUF = 131072 / 1500       # the 128 KiB send buffer in 1500 B segments (87.4)
LINE_PPS = 1e9 / (PKT_BYTES * 8)
K_PKTS, BUFFER_PKTS = 350, 2766
ON = ((3.0, 4.0), (5.0, 6.0))  # the ON seconds of the 7 s runs (sources stop at 6 s)


def burst_losses(c: A.Case, seed: int) -> dict:
    """The harness's cell run only to BURST_END_S: each flow's data packets dropped and sent so far."""
    spec, root = load_scenario(A.EXP_DIR / R.EXPERIMENTS[c.exp].toml, A.overrides(c, seed))
    sim = core().Simulation(scenario_json(spec), str(root))
    sim.run_until(int(BURST_END_S * 1e12))
    f = sim.flows()
    return {"lost": [int(x) for x in f["drops"]], "sent": [int(x) for x in f["tx_packets"]]}


def repair_model(lost, per_round: float, rto_s: float = 1.0, t_end: float = 17.0, dt: float = 1e-3) -> dict:
    """Flow states and delay if every flow that lost L packets in the first burst sits out
    ceil(L / per_round) RTO rounds of rto_s from 3.0 s (per_round = inf: one RTO repairs all),
    then sends at one packet per RTT until its data is gone. While ON, a sending flow's buffer
    stays full (SEG_BUF segments); after an ON second it drains at its share of the link. The
    link is full whenever a flow sends; the hotspot queue is one packet per sending flow less one
    BDP, and at least K (DCTCP's queue when few flows send, each above one packet), at most the buffer."""
    lost = np.asarray(lost, dtype=float)
    rounds = np.where(lost > 0, np.ceil(lost / per_round) if np.isfinite(per_round) else 1.0, 0.0)
    resume = 3.0 + rounds * rto_s
    left = np.full(len(lost), SEG_BUF)
    bdp, d0 = bdp_packets(), unloaded_one_way_us()
    pkts = delay = idle = 0.0
    for step in range(int(round((t_end - 3.0) / dt))):
        t = 3.0 + step * dt
        has_data = left > 0
        active = has_data & (resume <= t)
        n = int(active.sum())
        if n == 0:
            continue
        q = min(max(n - bdp, K_PKTS), BUFFER_PKTS)
        sent = LINE_PPS * dt
        if not any(a <= t < b for a, b in ON):
            left[active] = np.maximum(left[active] - sent / n, 0.0)
        pkts += sent
        delay += sent * (d0 + q * T_PKT_US)
        idle += sent * (1 - n / int(has_data.sum()))
    return {"delay_ms": delay / pkts / 1e3, "idle": idle / pkts}


BURST_CELLS = [A.Case("the harness's cell", "E5", p, "D250") for p in ("1500", "2000", "2500", "3000")] + [
    A.Case("the harness's cell", "E6", p, "D250") for p in ("2000", "2500")] + [
    A.Case("initial window 15 packets (probe)", "E5", p, "D250", ("transport.initial_window=15",))
    for p in ("1500", "2000", "2500", "3000")]


def ns3_path(out) -> None:
    done = A._done(RAW_BURST)
    print("\n## 8. The ns-3.43 post-timeout path, as arithmetic on our flows' first-burst losses\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}. Lost = data packets each flow lost by {BURST_END_S} s (the harness's cell "
          "run to that instant: the first ON second's synchronised loss). Model (`repair_model`): a flow that "
          "lost L packets sits out ceil(L/2) rounds of 1 s from 3.0 s (ns-3: two lost segments repaired per RTO "
          "round while marks persist), or one round (one RTO repairs everything: our DCTCP, as a check of the "
          "model), then sends one packet per RTT until its 128 KiB is gone (refilled while ON); the hotspot "
          "queue is one packet per sending flow less one BDP, at least K = 350, at most the buffer.\n", file=out)
    print("| cell | change | lost per flow by 3.2 s | flows with a loss | rounds per flow (ceil(L/2)) "
          "| idle, 2 per round | delay, 2 per round [ms] | idle, all in one round | delay, all in one round [ms] "
          "| ours, measured [ms] | study [ms] |", file=out)
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", file=out)
    measured = _done()
    for c in BURST_CELLS:
        res = [A.result(c, s, done, raw=RAW_BURST, runner=burst_losses) for s in range(1, SEEDS + 1)]
        lost = [np.asarray(r["lost"], dtype=float) for r in res]
        two = [repair_model(x, 2.0) for x in lost]
        one = [repair_model(x, float("inf")) for x in lost]
        ours = [A.key(c, s) in measured and float(measured[A.key(c, s)]["delay_ms"]) for s in range(1, SEEDS + 1)]
        ours_s = f"{statistics.mean(ours):.2f}" if all(ours) else "-"
        mean = lambda xs: statistics.mean(float(x) for x in xs)  # noqa: E731
        print(f"| {c.exp}/{c.point}/{c.variant} | {c.label} | {mean(x.mean() for x in lost):.1f} | "
              f"{mean((x > 0).mean() for x in lost):.0%} | {mean(np.ceil(x / 2).mean() for x in lost):.2f} | "
              f"{mean(m['idle'] for m in two):.0%} | {mean(m['delay_ms'] for m in two):.1f} | "
              f"{mean(m['idle'] for m in one):.0%} | {mean(m['delay_ms'] for m in one):.1f} | {ours_s} | "
              f"{R.study_value(c.exp, c.point, 'D', 'delay_ms'):.1f} |", file=out, flush=True)
    print("\nHow the estimate depends on the packets repaired per round (the harness's cells, the same "
          "losses; ns-3's PRR gives 2, its classic recovery 1):\n", file=out)
    rates = (1.0, 2.0, 3.0, 4.0)
    print("| cell | " + " | ".join(f"delay, {r:.0f} per round [ms]" for r in rates) + " | study [ms] |", file=out)
    print("| --- | " + " | ".join("---:" for _ in rates) + " | ---: |", file=out)
    for c in BURST_CELLS:
        if c.extra:
            continue
        lost = [np.asarray(A.result(c, s, done, raw=RAW_BURST, runner=burst_losses)["lost"], dtype=float)
                for s in range(1, SEEDS + 1)]
        cells = [statistics.mean(repair_model(x, r)["delay_ms"] for x in lost) for r in rates]
        print(f"| {c.exp}/{c.point}/{c.variant} | " + " | ".join(f"{d:.1f}" for d in cells) +
              f" | {R.study_value(c.exp, c.point, 'D', 'delay_ms'):.1f} |", file=out, flush=True)
    # The model against part 3's min RTO 2 s probe: same first-burst losses, one round of 2 s.
    probe = ABLATE[1]
    base = A.Case("", probe.exp, probe.point, probe.variant)
    lost = [np.asarray(A.result(base, s, done, raw=RAW_BURST, runner=burst_losses)["lost"], dtype=float)
            for s in range(1, SEEDS + 1)]
    model = statistics.mean(repair_model(x, float("inf"), rto_s=2.0)["delay_ms"] for x in lost)
    got = [float(measured[A.key(probe, s)]["delay_ms"]) for s in range(1, SEEDS + 1) if A.key(probe, s) in measured]
    late = [float(measured[A.key(c0, s)]["hotspot_drops"]) - float(measured[A.key(c0, s)]["burst_drops"])
            for c0 in (ABLATE[0], probe) for s in range(1, SEEDS + 1) if A.key(c0, s) in measured]
    if len(got) == SEEDS and len(late) == 2 * SEEDS:
        print(f"\nModel check against part 3's min RTO 2 s probe ({probe.exp}/{probe.point}, one round of 2 s on the "
              f"same first-burst losses): {model:.1f} ms against {statistics.mean(got):.2f} measured. Hotspot drops "
              f"after 3.2 s per run: {statistics.mean(late[:SEEDS]):.0f} in the harness's cell, "
              f"{statistics.mean(late[SEEDS:]):.0f} in the probe.", file=out)


PRR_CELLS = [(e, p) for e, p in (("E5", "1500"), ("E5", "2000"), ("E5", "2500"), ("E5", "3000"),
                                 ("E6", "2000"), ("E6", "2500"))]


def cwr_prr(out) -> None:
    """Part 9: the ns-3 post-timeout path of part 8, run (`transport.dctcp.after_timeout =
    "cwr_prr"`, docs/models/dctcp.md, "After a timeout") on the D cells at scale."""
    print("\n## 9. The ns-3 post-timeout path, run: `transport.dctcp.after_timeout = \"cwr_prr\"`\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2. Each cell: the profile as it was before acf8db4 "
          "(DCTCP slow-starts after a timeout), then the harness's cell, which since acf8db4 takes DCTCP's ns-3 "
          "path after a timeout (the first echo on an advancing ACK enters CWR with proportional rate reduction "
          "and no floor: two lost packets repaired per timeout round while marks persist). The study's delay is "
          "in the last column of part 8.\n", file=out)
    rows = []
    for e, p in PRR_CELLS:
        rows.append((A.Case("the profile before acf8db4: DCTCP slow-starts after a timeout (`slow_start`)", e, p,
                            "D250", ('transport.dctcp.after_timeout="slow_start"',)), SEEDS))
        rows.append((A.Case("the harness's cell: ns-3's CWR with PRR after a timeout (`cwr_prr`)", e, p, "D250"),
                     SEEDS))
    table(rows, out)


# ---------------------------------------------------------------------------------------
# 10. The Swift side: the study's Swift recovery against the profile's (C2, C3, C5)

# The study's Swift (its ns-3 code, docs/reproductions/dctcp-vs-swift-paper.md, "Profiles"):
# a fast recovery cuts by max_mdf only when its decrease clock allows, and that clock is
# restarted by every ACK that leaves the window unchanged, so a flow held at max_cwnd (E1's
# 0.25 s target: every ACK clamps) never cuts on entry; either way ns-3 sets the window to
# max(2 MSS, in flight / 2) when recovery ends. A timeout takes the window to min_cwnd. The
# profile cuts to min_cwnd on every loss. The lines below express what the options can:
# no cut on a loss, or a halving (the exit value), a timeout still to min_cwnd
# (retx_reset_threshold = 1: every timeout resets the window, as the study's zeroing cut
# does once its clock allows, which after a 1 s wait it always does). At a 0.25 s target no
# delay-driven decrease happens (the delay never reaches it), so max_mdf acts only on losses
# and timeouts there.
NO_LOSS_CUT = ("transport.swift.max_mdf=0.000001", "transport.swift.retx_reset_threshold=1")
HALVE_LOSS = ("transport.swift.max_mdf=0.5", "transport.swift.retx_reset_threshold=1")
SWIFT_LINES = [
    ("reset after 3 timeouts in a row (the study's ReTxThreshold; the profile keeps 5)",
     ("transport.swift.retx_reset_threshold=3",)),
    ("no cut on a fast recovery (the study's flows at max_cwnd: its clock blocks the cut); a timeout "
     "to min_cwnd", NO_LOSS_CUT),
    ("halving on a fast recovery (ns-3's exit at in flight / 2); a timeout to min_cwnd", HALVE_LOSS),
    ("halving on a fast recovery, a timeout to min_cwnd, every window paced (ns-3's pacing)",
     (*HALVE_LOSS, "transport.pacing=true")),
]
SWIFT_E1 = [A.Case("the harness's cell", "E1", "0.25", "Swift"),
            *(A.Case(label, "E1", "0.25", "Swift", extra) for label, extra in SWIFT_LINES)]
# E2's 0 B point: the study's window of 0 B sends nothing (ns-3 sends no segment through a
# window below one segment, and no timer re-arms with nothing sent); a window of 1e-12 packet
# is the nearest the options come: one more packet after the cut, then a pacing gap of
# srtt / 1e-12 (the pacing rate's floor of 1 bit/s: 12,432 s a packet), i.e. none.
SWIFT_E2 = [A.Case("the harness's cell (0.001 packet, paced below 1)", "E2", "0", "Swift"),
            A.Case("a window of 1e-12 packet: the flow stops (the study's 0 B)", "E2", "0", "Swift",
                   ("transport.swift.min_cwnd_pkts=0.000000000001",)),
            A.Case("the harness's cell", "E2", "2000", "Swift"),
            A.Case("the harness's cell", "E2", "5000", "Swift")]


def swift_side(out) -> None:
    """Part 10: the study's Swift recovery, as far as the options express it (see SWIFT_LINES)."""
    study = R.study_value("E1", "0.25", "Swift", "delay_ms")
    print("\n## 10. The Swift side: the study's Swift recovery (C2 at the 0.25 s target, C3's 0 B point)\n",
          file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2. E1/0.25: the study has {study:.1f} ms, "
          f"{R.study_value('E1', '0.25', 'Swift', 'thr_kbps'):.0f} Kbps, "
          f"{R.study_value('E1', '0.25', 'Swift', 'loss_pct'):.2f} % loss.\n", file=out)
    table([(c, SEEDS) for c in SWIFT_E1], out)
    recovery_freeze(out)
    print(f"\nE2 (target = minimum RTT; the study: 0 B {R.study_value('E2', '0', 'Swift', 'delay_ms'):.2f} ms, "
          f"2000 B {R.study_value('E2', '2000', 'Swift', 'delay_ms'):.2f} ms, "
          f"5000 B {R.study_value('E2', '5000', 'Swift', 'delay_ms'):.2f} ms):\n", file=out)
    table([(c, SEEDS) for c in SWIFT_E2], out)
    print("\nC9 (E3): DCTCP's cells now that the profile takes ns-3's path after a timeout (`cwr_prr`, since "
          "acf8db4; the table's D predates it), beside Sb's:\n", file=out)
    table([(A.Case("the harness's cell", "E3", p, v), SEEDS) for p in C9_POINTS for v in ("D250", "Sb", "Se")], out)
    print("\nC5 at scale (E5/2500): S25 against Sb, and Sb's delay against its stalled share (min RTO 2 s: a "
          "probe, as in part 3):\n", file=out)
    table([(c, SEEDS) for c in C5_CELLS], out)


C5_CELLS = [A.Case("the harness's cell", "E5", "2500", "S25"), A.Case("the harness's cell", "E5", "2500", "Sb"),
            A.Case("min RTO 2 s (not 1 s): every RTO wait twice as long (a probe)", "E5", "2500", "Sb",
                   ("transport.rto_min=2s",)),
            A.Case("the harness's cell", "E5", "2500", "D250")]


C9_POINTS = ("250", "500", "750", "1000", "1500", "2000")
RAW_CC = A.HERE / "raw" / "d_delay_swift_cc.jsonl"


def swift_counts(c: A.Case, seed: int) -> dict:
    """The harness's cell run with Swift's own counters sampled (`observe.metrics = ["cc"]`):
    per flow, the decreases on a loss (fast recovery), on a timeout and on delay, and the
    packets it lost."""
    obs = [f'observe.interval="{INTERVAL_MS}ms"', 'observe.flows="all"', 'observe.metrics=["cc"]']
    spec, root = load_scenario(A.EXP_DIR / R.EXPERIMENTS[c.exp].toml, [*A.overrides(c, seed), *obs])
    sim = core().Simulation(scenario_json(spec), str(root))
    while not sim.run_until(sim.now_ps + 10**12):
        pass
    ts = {k: _decode(v) for k, v in sim.timeseries().items()}
    metric, ids, val = ts["metric"], ts["id"].astype(int), ts["value"].astype(float)
    out = {}
    for name in ("loss_md", "timeout_md", "delay_md"):
        sel = metric == f"cc.{name}"
        last = np.zeros(len(sim.flows()["id"]))
        np.maximum.at(last, ids[sel], val[sel])         # the counters only grow
        out[name] = float(last.mean())
    out["drops_per_flow"] = float(np.mean(sim.flows()["drops"]))
    return out


def recovery_freeze(out) -> None:
    """Arithmetic: the study's window held at min_cwnd through a fast recovery (ns-3 calls no
    window increase in Recovery), against the window our senders hold."""
    done = _done()
    cc_done = A._done(RAW_CC)
    base = SWIFT_E1[0]
    res = [result(base, s, done) for s in range(1, SEEDS + 1)]
    cc = [A.result(base, s, cc_done, raw=RAW_CC, runner=swift_counts) for s in range(1, SEEDS + 1)]
    mean = lambda rs, k: statistics.mean(float(r[k]) for r in rs)  # noqa: E731
    study = R.study_value("E1", "0.25", "Swift", "delay_ms")
    q = (study * 1e3 - unloaded_one_way_us(4)) / T_PKT_US
    senders, w_out = mean(res, "sending_pw"), mean(res, "cwnd_sending_pw")
    w_need = q / senders
    f_need = (w_out - w_need) / (w_out - 1.0)
    rtt_s = mean(res, "delay_ms") / 1e3
    f_max = mean(res, "drops_per_flow") * rtt_s / mean(res, "active_s_per_flow")
    print(f"\nSwift's own counters in the harness's E1/0.25 cell (mean over seeds 1-{SEEDS}, per flow): "
          f"{mean(cc, 'loss_md'):.1f} decreases on a loss (fast recovery), {mean(cc, 'timeout_md'):.1f} on a "
          f"timeout, {mean(cc, 'delay_md'):.1f} on delay; {mean(cc, 'drops_per_flow'):.1f} packets lost.\n", file=out)
    print("| quantity | value |\n| --- | ---: |", file=out)
    print(f"| the study's hotspot queue (its {study:.1f} ms) [pkts] | {q:.0f} |", file=out)
    print(f"| our senders (flows sending, packet-weighted) | {senders:.0f} |", file=out)
    print(f"| window each would hold for the study's queue [pkts] | {w_need:.1f} |", file=out)
    print(f"| window our senders hold [pkts] | {w_out:.1f} |", file=out)
    print(f"| share of sending time at 1 packet that brings {w_out:.1f} down to {w_need:.1f} | "
          f"{f_need:.0%} |", file=out)
    print(f"| most of it a fast-recovery freeze can cover: every lost packet repaired in fast recovery, one "
          f"per RTT ({mean(res, 'drops_per_flow'):.0f} × {rtt_s * 1e3:.1f} ms over "
          f"{mean(res, 'active_s_per_flow'):.2f} s of sending) | {f_max:.0%} |", file=out)


# ---------------------------------------------------------------------------------------
# 11. The study's Swift clock and recovery, run (C2, C3, C5, C6)

LE = ('transport.swift.last_decrease_update="le"',)
NS3_CLASSIC = ('transport.swift.recovery="ns3_classic"',)
NS3_LINES = [
    ("the harness's cell", ()),
    ('the literal decrease clock (`last_decrease_update = "le"`)', LE),
    ('ns-3\'s classic recovery (`recovery = "ns3_classic"`)', NS3_CLASSIC),
    ("both", (*LE, *NS3_CLASSIC)),
]
# C3 (E2's three points, the 0 B point first), S25 at low flow counts, C2 at the 0.25 s target, C5
# at scale, and C6 at scale (the study's Se loses 1.5-2 times D's at E5 >= 1500 flows; ours less than D).
NS3_CELLS = [("E2", "0", "Swift"), ("E2", "2000", "Swift"), ("E2", "5000", "Swift"), ("E3", "100", "S25"),
             ("E1", "0.25", "Swift"),
             ("E5", "2500", "Sb"), ("E5", "2500", "S25"), ("E5", "2500", "Se")]
RAW_RECOUNT = A.HERE / "raw" / "d_delay_recount.jsonl"
NS3_COUNTED = [("E2", "0", "Swift"), ("E3", "100", "S25"), ("E1", "0.25", "Swift")]


def study_line(e: str, point: str, variant: str) -> str:
    v = {"Swift": "Swift", "Sb": "Sb", "Se": "Se", "S25": "S25", "D250": "D"}[variant]
    vals = [R.study_value(e, point, v, m) for m in ("thr_kbps", "delay_ms", "loss_pct")]
    return f"{e}/{point}/{variant}: the study has {vals[0]:.0f} Kbps, {vals[1]:.2f} ms, {vals[2]:.2f} % loss"


def swift_ns3(out) -> None:
    """Part 11: `last_decrease_update = "le"` and `recovery = "ns3_classic"` (docs/models/swift.md)
    on the cells part 10 left open, alone and together."""
    print("\n## 11. The study's Swift clock and recovery, run: `transport.swift.last_decrease_update = \"le\"`, "
          "`transport.swift.recovery = \"ns3_classic\"`\n", file=out)
    print(f"Mean over seeds 1-{SEEDS}; columns as in part 2. Each cell: the harness's cell (both options off, "
          "the profile's Swift), each option alone, then both. " +
          "; ".join(study_line(*c) for c in NS3_CELLS) + ".\n", file=out)
    rows = [(A.Case(label, e, p, v, extra), SEEDS) for e, p, v in NS3_CELLS for label, extra in NS3_LINES]
    rows.append((A.Case("the harness's cell (DCTCP: the options are Swift's)", "E5", "2500", "D250"), SEEDS))
    table(rows, out)
    cc_done = A._done(RAW_CC)
    print(f"\nSwift's own counters (mean over seeds 1-{SEEDS}, per flow): decreases on a loss (fast recovery), "
          "on a timeout and on delay, and packets lost.\n", file=out)
    print("| cell | change | loss decreases | timeout decreases | delay decreases | packets lost |", file=out)
    print("| --- | --- | ---: | ---: | ---: | ---: |", file=out)
    for e, p, v in NS3_COUNTED:
        for label, extra in NS3_LINES:
            c = A.Case(label, e, p, v, extra)
            cc = [A.result(c, s, cc_done, raw=RAW_CC, runner=swift_counts) for s in range(1, SEEDS + 1)]
            mean = lambda k: statistics.mean(float(r[k]) for r in cc)  # noqa: E731
            print(f"| {e}/{p}/{v} | {label} | {mean('loss_md'):.1f} | {mean('timeout_md'):.1f} | "
                  f"{mean('delay_md'):.1f} | {mean('drops_per_flow'):.1f} |", file=out, flush=True)
    for label, extra in NS3_LINES[1:]:
        A.recount(extra, label, out, raw=RAW_RECOUNT)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parts", nargs="*",
                    help="analytic, measure, ablate, estimate, c2, c9, timeline, ns3, cwr_prr, swift, swift_ns3 "
                    "(default: all)")
    a = ap.parse_args()
    parts = a.parts or ["analytic", "measure", "ablate", "estimate", "c2", "c9", "timeline", "ns3", "cwr_prr", "swift", "swift_ns3"]
    for p in parts:
        {"analytic": analytic, "measure": measure, "ablate": ablate, "estimate": estimate, "c2": c2, "c9": c9,
         "timeline": timeline, "ns3": ns3_path, "cwr_prr": cwr_prr, "swift": swift_side,
         "swift_ns3": swift_ns3}[p](sys.stdout)


if __name__ == "__main__":
    main()
