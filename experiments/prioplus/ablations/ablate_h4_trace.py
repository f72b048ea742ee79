"""H4: replay one switch's packets to measure how often the PrioPlus artefact's PFC resume rule
would have held a pause that ours lifts (h4_pfc.md, "The resume rule").

Our rule (docs/models/pfc.md, ``net/pfc/mod.rs`` ``depart``): a paused ingress queue resumes once
its headroom is empty and its pool share is 0 **or** at least ``resume_offset`` (3 KiB)
below the threshold T = (pool − pool in use) / 4. The artefact's (``DcbPfcMmuQueue::
CheckShouldSendResume`` with the dynamic threshold) has no "share is 0" clause: with T below
3 KiB (free pool under 12 KiB) a queue stays paused however empty it is, until one of its own
packets leaves when T is larger again, or, if none is left, until the PAUSE's 65535 quanta
run out (``DcbPfcPort``, ``RESEND_PAUSE``: 335.5 µs at 100 Gbps). HPCC's switch MMU, which
ours follows, has the clause.

The core cannot run the artefact's rule, so this script measures its trigger instead: it runs
Physical+Swift's F11 scenario with the artefact's pool (``ablate_h4_pfc.artefact_buffer``),
finds the switch whose ingress links were paused most (or the ``--top`` most), reruns it
with a packet trace of that switch's six output ports and the six ports that feed it (``[trace]``; it does not change the
run: the PFC frame counts are checked equal), rebuilds every ingress queue's reserve, pool and
headroom bytes from the trace with our rule (checked against the frames our run sent on those
links), and at each of our RESUMEs asks whether the artefact's rule would also have sent it.

    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h4_trace.py            # N = 8 and 6, seeds 1-9
    PYTHONPATH=python python experiments/prioplus/ablations/ablate_h4_trace.py --n 8 --top 3   # the 3 most-paused switches
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate_checks as AC  # noqa: E402
import ablate_h4_pfc as H  # noqa: E402
from dcnsim._ext import core  # noqa: E402
from dcnsim._scenario import load_scenario, scenario_json  # noqa: E402
from dcnsim.repro.papers.prioplus import runs as R  # noqa: E402

SHIFT = 2  # α = 1/4
RESUME_OFFSET = 3 * 1024
PAUSE_QUANTA_US = 65535 * 512 / 100e9 * 1e6  # 335.5 µs: the artefact's PAUSE at 100 Gbps


def spec_of(n: int, seed: int, extra: tuple[str, ...] = ()) -> tuple[dict[str, Any], Path]:
    run = next(r for r in R.EXPERIMENTS["F11"].runs(False) if r.variant == R.PHYS and r.point == f"N={n}")
    toml = H.A.EXP_DIR / R.EXPERIMENTS["F11"].toml
    return load_scenario(toml, [*run.overrides, f"seed={seed}", *H._buffer(n), *extra])


def col(table: dict[str, Any], name: str) -> list[Any]:
    """A column of a core table; categorical ones come as (codes, categories)."""
    v = table[name]
    if isinstance(v, tuple):
        codes, cats = v
        return [cats[c] for c in codes]
    return list(v)


def run_sim(spec: dict[str, Any], root: Path) -> Any:
    sim = core().Simulation(scenario_json(spec), str(root))
    while not sim.run_until(sim.now_ps + 10**9):  # 1 ms steps
        pass
    return sim


def replay(n: int, seed: int, rank: int = 0) -> dict[str, Any]:
    """Replay the switch ranked ``rank`` (0: the most) by PAUSEs sent into it."""
    spec, root = spec_of(n, seed)
    sim = run_sim(spec, root)
    ports = sim.ports()
    ev = {k: col(sim.pfc_events(), k) for k in ("time_us", "port", "class", "event")}
    peer = dict(zip(ports["port"], ports["peer"]))
    node = dict(zip(ports["port"], ports["node"]))
    name = dict(zip(ports["port"], ports["name"]))
    pauses_into: dict[int, int] = {}
    for p, e in zip(ev["port"], ev["event"]):
        if e == "pause":
            pauses_into[int(peer[int(p)])] = pauses_into.get(int(peer[int(p)]), 0) + 1
    s = sorted(pauses_into, key=lambda k: (-pauses_into[k], k))[rank]
    outs = [int(p) for p in ports["port"] if int(node[int(p)]) == s]
    ins = [int(p) for p in ports["port"] if int(peer[int(p)]) == s]
    frames = sim.stats()["pfc_pause_frames"]
    tspec = dict(spec)
    tspec["trace"] = {"ports": [name[p] for p in outs + ins], "max_events": 20_000_000}
    sim = run_sim(tspec, root)
    assert sim.stats()["pfc_pause_frames"] == frames, "the trace changed the run"
    assert sim.stats().get("trace_events_lost", 0) == 0
    raw = sim.trace_events()
    tr = {k: col(raw, k) for k in ("time_us", "event", "port", "flow", "packet", "size")}
    del raw
    flows = sim.flows()
    level = [int(x) for x in flows["priority"]]
    # The ingress link of each (flow, packet kind) at s: one path per flow (ECMP).
    ingress: dict[tuple[int, str], int] = {}
    for ev_, p, f, k in zip(tr["event"], tr["port"], tr["flow"], tr["packet"]):
        p = int(p)
        if ev_ == "dequeue" and p in ins:
            key = (int(f), k)
            prev = ingress.setdefault(key, p)
            assert prev == p, "a flow on two ingress links"
    pool = H.pool_artefact(n)
    used = 0
    res: dict[tuple[int, int], int] = {}
    inpool: dict[tuple[int, int], int] = {}
    hdr: dict[tuple[int, int], int] = {}
    paused: set[tuple[int, int]] = set()
    t_lt_3k_since = None
    t_lt_3k_us = 0.0
    ours_pause = ours_resume = 0
    withheld = withheld_empty = 0
    first = last = None
    max_used = 0
    max_sharing = 0  # queues holding pool bytes at once
    used_half_us = 0.0  # time with more than half the pool in use
    prev_t = None
    outs_set = set(outs)
    for t, ev_, p, f, k, size in zip(tr["time_us"], tr["event"], tr["port"], tr["flow"], tr["packet"], tr["size"]):
        p = int(p)
        if p not in outs_set or ev_ not in ("enqueue", "dequeue"):
            continue
        t = float(t)
        first = t if first is None else first
        last = t
        if prev_t is not None and used * 2 > pool:
            used_half_us += t - prev_t
        prev_t = t
        f, size = int(f), int(size)
        q = (ingress[(f, k)], level[f])
        r0, p0, h0 = res.get(q, 0), inpool.get(q, 0), hdr.get(q, 0)
        if ev_ == "enqueue":
            # net/pfc/mod.rs arrive: the reserve first; what it cannot take goes to the pool if the
            # queue's share stays within T, else the whole packet goes to headroom.
            if r0 + size <= 4096:
                r0 += size
            elif p0 + (r0 + size - 4096) <= (pool - used) >> SHIFT:
                spill = r0 + size - 4096
                p0 += spill
                used += spill
                r0 = 4096
            else:
                h0 += size
            res[q], inpool[q], hdr[q] = r0, p0, h0
            max_used = max(max_used, used)
            max_sharing = max(max_sharing, sum(1 for v in inpool.values() if v > 0))
            if (h0 > 0 or p0 >= (pool - used) >> SHIFT) and q not in paused:
                paused.add(q)
                ours_pause += 1
        else:
            # net/pfc/mod.rs depart: headroom first, then pool, the rest from the reserve.
            from_h = min(h0, size)
            from_p = min(p0, size - from_h)
            h0 -= from_h
            p0 -= from_p
            used -= from_p
            r0 -= size - from_h - from_p
            res[q], inpool[q], hdr[q] = r0, p0, h0
            thr = (pool - used) >> SHIFT
            if q in paused and h0 == 0 and (p0 == 0 or p0 + RESUME_OFFSET <= thr):
                paused.discard(q)
                ours_resume += 1
                if not p0 + RESUME_OFFSET <= thr:  # the artefact's rule: no "share is 0" clause
                    withheld += 1
                    if r0 == 0:
                        withheld_empty += 1
        thr = (pool - used) >> SHIFT
        if thr < RESUME_OFFSET and t_lt_3k_since is None:
            t_lt_3k_since = t
        elif thr >= RESUME_OFFSET and t_lt_3k_since is not None:
            t_lt_3k_us += t - t_lt_3k_since
            t_lt_3k_since = None
    # Our frames on the links into s, for the check of the rebuild.
    frames_in = sum(1 for p, e in zip(ev["port"], ev["event"]) if e == "pause" and int(p) in ins)
    return {
        "n": n, "seed": seed, "rank": rank + 1, "switch": s, "pool": pool, "our pauses into s (frame log)": frames_in,
        "our pauses into s (rebuilt)": ours_pause, "our resumes (rebuilt)": ours_resume,
        "resumes the artefact withholds": withheld, "… with the queue empty (held 335.5 µs)": withheld_empty,
        "time T < 3 KiB µs": t_lt_3k_us, "most pool in use B": max_used,
        "most queues holding pool bytes": max_sharing, "time > half the pool in use µs": used_half_us,
        "span µs": (last or 0) - (first or 0),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", default="8,6")
    ap.add_argument("--seeds", default="1-9")
    ap.add_argument("--top", type=int, default=1, help="replay the TOP most-paused switches of each run")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    rows = []
    for n in (int(x) for x in a.n.split(",")):
        for seed in seeds:
            for rank in range(a.top):
                r = replay(n, seed, rank)
                print(r, file=sys.stderr, flush=True)
                rows.append(r)
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " | artefact: port-level µs held for want of a RESUME (empty × 335.5) |")
    print("|" + "---|" * (len(keys) + 1))
    for r in rows:
        print("| " + " | ".join(AC.fmtv(v) if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v)
                                for v in r.values())
              + f" | {r['… with the queue empty (held 335.5 µs)'] * PAUSE_QUANTA_US:,.0f} |")


if __name__ == "__main__":
    main()
