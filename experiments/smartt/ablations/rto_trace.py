"""Which packets time out in SMaRTT's E1 quick cell under UEC ACKs, and why.

Runs the harness's quick E1 cell (128 hosts, NSCC smartt_paper, REPS, ack_policy = "uec",
ack_ratio = 4, fixed 84 us RTO) with a packet trace of every flow and a 1 us window sample,
then reports:

- the retransmissions that no NACK caused (the timeouts' resends), whether the transmission
  that expired had been delivered intact, and how far it lay above the receiver's
  cumulative ACK when its timer fired;
- for every transmission delivered intact, when the sender first heard its PSN named (the
  cumulative ACK passing it, the ACK's own PSN, or a bitmap bit), with dcnsim's bitmap
  (cum+1 .. cum+64) and with uet-htsim's (sackBitmapBase: max(q-63, cum+1) .. q, where q is
  the PSN that triggered the ACK; q .. q+63 for an ECN echo);
- the sender's window and in-flight bytes at the timers' deadlines.

Usage: PYTHONPATH=python python experiments/smartt/ablations/rto_trace.py [OVERRIDE ...]
(extra overrides are appended to the cell's, e.g. transport.cc=mprdma).
"""

import struct
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import dcnsim

RTO_US = 84.0
MTU = 4160
CELL = ["topology.hosts=128", "transport.cc=nscc", "transport.lb=reps", 'transport.ack_policy="uec"',
        "transport.ack_ratio=4", "seed=1"]
SCENARIO = Path(__file__).resolve().parents[1] / "e1_permutation_2mib.toml"


def ns(x):
    return np.floor(np.asarray(x, dtype=float) * 1000 + 1e-6).astype(np.int64)


def read_pcap(raw: bytes) -> pd.DataFrame:
    off, rows = 24, []
    while off < len(raw):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", raw, off)
        off += 16
        kind, _, flags, flow, psn, sacked = struct.unpack_from(">BBHIII", raw, off + 42)
        sent = int.from_bytes(raw[off + 58:off + 64], "big")
        off += incl
        rows.append((sec * 1e6 + nsec / 1e3, kind, flags, flow, psn, sacked, sent))
    return pd.DataFrame(rows, columns=["t", "kind", "flags", "flow", "psn", "sacked", "sent_ns"])


def main(extra):
    spec, base = dcnsim.load_scenario(SCENARIO, CELL + list(extra))
    spec["trace"] = {"flows": "all", "max_events": 20_000_000}
    spec["observe"] = {"interval": "1us", "ports": "none", "flows": "all", "metrics": ["cwnd", "cc"]}
    res = dcnsim.run(spec, base_dir=base)
    st = res.summary["stats"]
    print("overrides:", " ".join(CELL + list(extra)))
    print(f"timeouts {st['timeouts']}  drops {st['drops']}  trims {st['trims']}  nacks {st['nacks']}  "
          f"data {st['data_packets']}  acks+nacks {st['ack_packets']}  trace lost {st.get('trace_events_lost')}")

    tr, cap = res.trace, read_pcap(res.pcap)
    intact = tr[(tr.event == "deliver") & (tr.packet == "data") & ((tr["flags"] & 128) == 0)].copy()
    intact["sent_ns"] = ns(intact.sent_at_us)
    deliver_at = dict(zip(zip(intact.flow, intact.psn, intact.sent_ns), intact.time_us))

    data = cap[cap.kind == 0].sort_values("t").copy()
    nacked = set(zip(cap[cap.kind == 2].flow, cap[cap.kind == 2].psn, cap[cap.kind == 2].sent_ns))
    data["nacked"] = [k in nacked for k in zip(data.flow, data.psn, data.sent_ns)]
    grp = data.groupby(["flow", "psn"])
    data["prev_ns"], data["prev_nacked"], data["nth"] = grp.sent_ns.shift(1), grp.nacked.shift(1), grp.cumcount()
    resends = data[data.prev_ns.notna()]
    to = resends[resends.prev_nacked == False].copy()  # noqa: E712
    to["prev_ns"] = to.prev_ns.astype(np.int64)
    to["due"] = to.prev_ns / 1e3 + RTO_US
    to["deliv"] = [deliver_at.get(k) for k in zip(to.flow, to.psn, to.prev_ns)]
    print(f"resends {len(resends)}: after a NACK {(resends.prev_nacked == True).sum()}, "  # noqa: E712
          f"after a timeout {len(to)}")
    if len(to) == 0:
        return
    print(f"  expired transmission delivered intact before its deadline: {(to.deliv < to.due).sum()}, "
          f"lag send->delivery p50 {np.nanmedian(to.deliv - to.prev_ns / 1e3):.1f} us, "
          f"max {np.nanmax(to.deliv - to.prev_ns / 1e3):.1f} us")
    print(f"  expired transmission was the PSN's first send: {(to.nth == 1).sum()}, a resend: {(to.nth > 1).sum()}")
    first = intact.sort_values("time_us").drop_duplicates(["flow", "psn"])
    gaps, passed = [], []
    for r in to.itertuples():
        fa = first[(first.flow == r.flow) & (first.time_us <= r.due)]
        got = set(fa.psn)
        cum = 0
        while cum in got:
            cum += 1
        gaps.append(r.psn - cum)
        if cum > r.psn:
            below = fa[fa.psn <= r.psn]
            passed.append(r.due - below.time_us.max())
    gaps = np.array(gaps)
    if len(gaps):
        print(f"  PSN minus the receiver's cumulative ACK at the deadline: p25 {np.percentile(gaps, 25):.0f}, "
              f"p50 {np.median(gaps):.0f}, above 64: {(gaps > 64).sum()}, at or below 0: {(gaps <= 0).sum()}")
        if passed:
            print(f"  where the receiver's cumulative ACK had passed it: it did so {np.median(passed):.1f} us "
                  f"(p50; max {np.max(passed):.1f}) before the deadline, the ACK saying so still on its way")

    acks = cap[cap.kind == 1].copy()
    acks["made"] = [deliver_at.get(k, np.nan) for k in zip(acks.flow, acks.sacked, acks.sent_ns)]
    acks["ece"] = (acks["flags"] & 4) != 0
    rows = []
    for f, g in intact.groupby("flow"):
        a = acks[acks.flow == f].sort_values("t")
        at, cum, q, made, ece = a.t.values, a.psn.values, a.sacked.values, a.made.values, a.ece.values
        for p, d, s in zip(g.psn.values, g.time_us.values, g.sent_at_us.values):
            past = (at >= s) & (cum > p)
            after = made >= d
            own = after & (q == p)
            dc = past | own | (after & (p - cum >= 1) & (p - cum <= 64))
            lo = np.maximum(q - 63, cum + 1)
            ht = past | own | (after & (((p >= lo) & (p <= q) & ~ece) | (ece & (p >= q) & (p <= q + 63))))
            rows.append((at[dc][0] - s if dc.any() else np.inf, at[ht][0] - s if ht.any() else np.inf))
    named = pd.DataFrame(rows, columns=["dcnsim", "htsim"])
    print(f"intact deliveries {len(named)}; first naming of the PSN at the sender, us after the send "
          "(deliveries the run's end left unnamed excluded):")
    for c in named:
        x = named[c][np.isfinite(named[c])]
        print(f"  {c:6s} bitmap: later than the {RTO_US:.0f} us RTO: {(x > RTO_US).sum():5d}   "
              f"p50 {x.median():.1f}  p99 {x.quantile(.99):.1f}  max {x.max():.1f}")

    ts = res.timeseries
    w = ts[ts.metric.isin(["cwnd_bytes", "in_flight_bytes"])].pivot_table(index=["id", "time_us"], columns="metric",
                                                                           values="value")
    keys = [(f, np.floor(d)) for f, d in zip(to.flow, to.due) if (f, np.floor(d)) in w.index]
    if keys:
        s = w.loc[keys] / MTU
        print(f"at the deadlines (sample <= 1 us before): cwnd p50 {s.cwnd_bytes.median():.1f} pkts "
              f"(min {s.cwnd_bytes.min():.1f}), sender's in-flight count p50 {s.in_flight_bytes.median():.1f} pkts "
              f"(includes the delivered-but-unnamed packets the received-bytes counter discounts)")
    cc = ts[ts.metric == "cc.cwnd_pkts"]
    if len(cc):
        print(f"smallest window of any flow over the run: {cc.value.min():.1f} pkts")


if __name__ == "__main__":
    main(sys.argv[1:])
