//! PrioPlus acceptance checks AC6, AC8 and AC12 (docs/reproductions/prioplus-paper.md): dual-RTT
//! observability (the paper's Fig. 6), the eight-level staircase (Fig. 10a, micro-benchmark
//! S1) and the probe overhead while seven levels are stopped (PrioPlus paper §4.2.1). The
//! network is the micro-benchmarks' reference star: 100 Gbps, 3 µs links (base RTT ≈ 12 µs), 1 KB packets,
//! per-packet ACKs at top priority, a deep buffer, no ECN. Every bound asserted below is
//! docs/reproductions/prioplus-paper.md's or follows from arithmetic on the setting; none is read off our own output.

use crate::common;
use crate::common::LINE_100G as LINE;

use std::sync::{Arc, Mutex};

use dcnsim::cc::prioplus::Rounds;
use dcnsim::cc::{AckSample, CongestionControl, LossEvent};
use dcnsim::{Simulation, Time};

/// Wire bytes of one data packet (the MTU, header included).
const MTU: u64 = 1000;
/// Serialisation time of one data packet at 100 Gbps: 1000 B × 8 / 100 Gbps.
const PKT_NS: f64 = 80.0;

/// A round-closing ACK as PrioPlus counts rounds (`Rounds`, Algorithm 1 lines 2–4).
#[derive(Clone, Copy, Debug)]
struct RoundEnd {
    /// Rounds closed so far, this one included.
    index: u32,
    /// Delay sample of the ACK that closed the round.
    rtt: Time,
    /// `dualRttPass` of the round this ACK opens.
    dual_pass: bool,
}

/// A window fixed at `pkts` packets that grows by one packet at the round boundary that
/// opens round `grow_at` (the boundary closing round `grow_at − 1`), and logs every
/// round-closing ACK. Rounds are counted by PrioPlus's own `Rounds`, so the log shows
/// what PrioPlus's decisions at those boundaries would see.
struct SteppedWindow {
    pkts: u64,
    rounds: Rounds,
    closed: u32,
    grow_at: Option<u32>,
    log: Arc<Mutex<Vec<RoundEnd>>>,
}

impl CongestionControl for SteppedWindow {
    fn name(&self) -> &'static str {
        "stepped-window"
    }
    fn on_ack(&mut self, a: &AckSample) {
        if self.rounds.on_ack(a.cum_ack, a.snd_nxt) {
            self.closed += 1;
            self.log.lock().unwrap().push(RoundEnd {
                index: self.closed,
                rtt: a.rtt,
                dual_pass: self.rounds.dual_pass,
            });
            // This ACK opens round `closed + 1`.
            if self.grow_at == Some(self.closed + 1) {
                self.pkts += 1;
            }
        }
    }
    fn on_loss(&mut self, _: &LossEvent) {
        panic!("the deep buffer must not drop");
    }
    fn on_timeout(&mut self, _: Time, _: u32) {
        panic!("no timeout expected");
    }
    fn cwnd(&self) -> u64 {
        self.pkts * MTU
    }
}

/// docs/reproductions/prioplus-paper.md, AC6 (dual-RTT observability, the paper's Fig. 6 and §4.2.3):
/// with a standing queue, growing cwnd by one packet at the boundary that starts round k
/// leaves the sample closing round k unchanged and makes the sample closing round k+1
/// larger by one packet's serialisation time, 80 ns at 100 G / 1 KB.
///
/// Set-up: on a star, flow A (the observed one) keeps 20 packets in flight and flow B 200,
/// both window-limited and unpaced, so together they hold 220 packets against a BDP of
/// about 152: a standing queue of about 68 packets. With the bottleneck always busy and a
/// constant number of packets in the loop, every packet's RTT is the loop size times the
/// serialisation time (Little's law on a loop served at one packet per 80 ns): 220 × 80 ns
/// = 17.6 µs before the step and 221 × 80 ns after it. The step is taken at a boundary
/// where PrioPlus's `dualRttPass` turns true, i.e. where it makes an adaptive increase; the
/// check that follows is that the next boundary with `dualRttPass` true (two boundaries
/// later) is the first whose sample shows the step, which is why PrioPlus increases only
/// every other round.
#[test]
fn ac6_dual_rtt_observability() {
    let mut s = common::sim(
        &(common::reference_star("seed = 1", 3, "20MB")
            + r#"
        [transport]
        cc = "none"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 2
        size = "infinite"
        stop = "3ms"
        "#),
    );
    const OBSERVED_PKTS: u64 = 20;
    const STANDING_PKTS: u64 = 200;
    // Round 60 opens about 1 ms in, long after the start-up burst has settled. An even
    // round opens with `dualRttPass` true: Rounds starts false and flips at each boundary
    // (asserted below rather than assumed).
    const K: u32 = 60;
    let log = Arc::new(Mutex::new(Vec::new()));
    let window = |pkts, grow_at, log| -> Box<dyn CongestionControl> {
        Box::new(SteppedWindow { pkts, rounds: Rounds::default(), closed: 0, grow_at, log })
    };
    s.flows[0].sender.cc = window(OBSERVED_PKTS, Some(K), log.clone());
    s.flows[1].sender.cc = window(STANDING_PKTS, None, Arc::new(Mutex::new(Vec::new())));
    s.run_until(Time::from_us(1500));
    let log = log.lock().unwrap();
    let at = |k: u32| *log.iter().find(|r| r.index == k).unwrap_or_else(|| panic!("round {k} never closed"));
    let before = PKT_NS * (OBSERVED_PKTS + STANDING_PKTS) as f64;
    let ns = |r: RoundEnd| r.rtt.as_us_f64() * 1000.0;
    // Tolerance: a small fraction of the 80 ns effect; the loop argument makes the
    // samples exact up to the simulator's time resolution.
    let tol = 5.0;
    for k in K - 5..K {
        let r = at(k);
        assert!((ns(r) - before).abs() <= tol, "round {k} (steady state): sample {:.1} ns, want {before} ns", ns(r));
    }
    let opening = at(K - 1);
    assert!(opening.dual_pass, "the step must be taken where PrioPlus increases (dualRttPass true)");
    let closing_k = at(K);
    let closing_k1 = at(K + 1);
    println!(
        "samples closing rounds {}, {}, {}: {:.1}, {:.1}, {:.1} ns",
        K - 1,
        K,
        K + 1,
        ns(opening),
        ns(closing_k),
        ns(closing_k1)
    );
    assert!(
        (ns(closing_k) - ns(opening)).abs() <= tol,
        "the sample closing round k moved by {:.1} ns; it must be unchanged",
        ns(closing_k) - ns(opening)
    );
    assert!(
        (ns(closing_k1) - ns(opening) - PKT_NS).abs() <= tol,
        "the sample closing round k+1 grew by {:.1} ns, want one packet's serialisation, {PKT_NS} ns",
        ns(closing_k1) - ns(opening)
    );
    // PrioPlus's next increase decision is the next boundary with dualRttPass true: the
    // one closing round k+1, the first whose sample shows the step.
    assert!(!closing_k.dual_pass && closing_k1.dual_pass, "dualRttPass must alternate");
    // And the step persists: the queue holds one more packet from then on.
    let later = at(K + 4);
    assert!((ns(later) - before - PKT_NS).abs() <= tol, "round {}: {:.1} ns", K + 4, ns(later));
}

const LEVELS: u32 = 8;
const FLOWS_PER_LEVEL: u32 = 30;
/// Schedule granularity (micro-benchmark S1) and the settling time AC8 ignores after each change.
const WINDOW_US: u64 = 5_000;
const SETTLE_US: u64 = 500;
/// Meter bin: fine enough to show how long a transition lasts.
const BIN_US: u64 = 100;

/// Counts a flow's probes in flight exactly, event by event, from the simulator's calls
/// (a probe sent, an echo received); every callback is passed on unchanged to the
/// algorithm the flow runs.
struct ProbeAudit {
    inner: Box<dyn CongestionControl>,
    audit: Arc<Mutex<Audit>>,
}

#[derive(Default, Debug)]
struct Audit {
    outstanding: u32,
    /// Most probes in flight at once, and when that first happened.
    max_outstanding: u32,
    max_at: Time,
}

impl CongestionControl for ProbeAudit {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn profile(&self) -> dcnsim::cc::TransportProfile {
        dcnsim::cc::TransportProfile {
            ecn_capable: self.inner.profile().ecn_capable,
            sack_loss_detection: self.inner.profile().sack_loss_detection,
            fixed_rto: self.inner.profile().fixed_rto,
            timeout_policy: self.inner.profile().timeout_policy,
            cnp_interval: self.inner.profile().cnp_interval,
            uses_probes: self.inner.profile().uses_probes,
            ..dcnsim::cc::TransportProfile::default()
        }
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.inner.on_ack(a)
    }
    fn on_loss(&mut self, ev: &LossEvent) {
        self.inner.on_loss(ev)
    }
    fn on_loss_confirmed(&mut self, now: Time, runs: &[(u32, u32)]) {
        self.inner.on_loss_confirmed(now, runs)
    }
    fn on_nack(&mut self, n: &dcnsim::cc::NackSample) {
        self.inner.on_nack(n)
    }
    fn reorder_window(&self) -> dcnsim::cc::ReorderWindow {
        self.inner.reorder_window()
    }
    fn on_timeout(&mut self, now: Time, snd_nxt: u32) {
        self.inner.on_timeout(now, snd_nxt)
    }
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn pacing_rate(&self) -> Option<dcnsim::Rate> {
        self.inner.pacing_rate()
    }
    fn on_cnp(&mut self, now: Time) {
        self.inner.on_cnp(now)
    }
    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        self.inner.observe(out)
    }
    fn probe_at(&self) -> Option<Time> {
        self.inner.probe_at()
    }
    fn probe_bytes(&self) -> u32 {
        self.inner.probe_bytes()
    }
    fn on_probe_sent(&mut self, now: Time) {
        let mut a = self.audit.lock().unwrap();
        a.outstanding += 1;
        if a.outstanding > a.max_outstanding {
            a.max_outstanding = a.outstanding;
            a.max_at = now;
        }
        drop(a);
        self.inner.on_probe_sent(now)
    }
    fn on_probe_ack(&mut self, now: Time, rtt: Time) {
        let mut a = self.audit.lock().unwrap();
        a.outstanding = a.outstanding.saturating_sub(1);
        drop(a);
        self.inner.on_probe_ack(now, rtt)
    }
}

/// Start and stop of level `i` (1 = lowest) in µs, per the Fig. 10a schedule
/// (micro-benchmark S1): level i starts at 5(i − 1) ms and stops at 80 − 5(i − 1) ms, so the top level runs
/// from 35 to 45 ms and the lowest from 0 to 80 ms.
fn schedule_us(i: u32) -> (u64, u64) {
    (WINDOW_US * (i as u64 - 1), 16 * WINDOW_US - WINDOW_US * (i as u64 - 1))
}

/// The Fig. 10a scenario: 8 levels × 30 long flows into one receiver (host 0), with the
/// micro-benchmark settings of S1 (from the PrioPlus artefact's fig10a configuration):
/// channels per PrioPlus paper §4.3.2, W_LS = 0.125 BDP, W_AI = 0.0012 BDP = 180 B, filter
/// off (1 sample). As in the artefact, the top level starts at once at line rate and the
/// others probe before starting (the default `direct_start_levels`, the top eighth). Each of the 30 sender hosts carries one flow of
/// every level (in the artefact each flow has a host of its own; here the NICs are never the
/// bottleneck: at most 100 Gbps leave all 30 hosts together).
fn staircase() -> Simulation {
    let mut workloads = String::new();
    for i in 1..=LEVELS {
        let (start, stop) = schedule_us(i);
        workloads += &format!(
            r#"
            [[workload]]
            tag = "level{i}"
            kind = "incast"
            receiver = 0
            senders = {FLOWS_PER_LEVEL}
            size = "infinite"
            start = "{start}us"
            stop = "{stop}us"
            priority = {i}
            "#
        );
    }
    common::sim(&format!(
        r#"
        {star}
        [transport]
        cc = "prioplus"
        rto_min = "5ms"
        [transport.prioplus]
        levels = {LEVELS}
        linear_step = 0.125
        ai_bytes = 180
        filter = 1
        {workloads}
        "#,
        star = common::reference_star("seed = 11", FLOWS_PER_LEVEL + 1, "100MB"),
    ))
}

/// One 5 ms window of the schedule, measured after its first 0.5 ms.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    /// Bytes of the highest active level, of the lower levels (data and probes) and of
    /// everything, that left the bottleneck port.
    top: f64,
    lower: f64,
    total: f64,
    /// Worst 100 µs bin: lowest utilisation and top-level share, highest lower share.
    worst_util: f64,
    worst_top: f64,
    worst_lower: f64,
}

impl Window {
    fn top_share(&self) -> f64 {
        self.top / self.total
    }
    fn lower_share(&self) -> f64 {
        self.lower / self.total
    }
    fn utilisation(&self) -> f64 {
        self.total / (LINE * (WINDOW_US - SETTLE_US) as f64)
    }
}

struct Staircase {
    windows: Vec<Window>,
    /// Probe bytes (wire) sent while only the top level is scheduled, 35 to 45 ms.
    top_only_probe_bytes: u64,
    /// The flows' base RTT.
    base_rtt: Time,
    /// Per flow: level and most probes in flight at once (with when).
    probes_in_flight: Vec<(u32, u32, Time)>,
}

/// Runs the Fig. 10a schedule and meters, per 100 µs bin, the bytes each level delivers
/// (in wire bytes: payload scaled by MTU / payload), the bottleneck's transmitted bytes and
/// the probe bytes; and counts every flow's probes in flight.
fn run_staircase() -> Staircase {
    let mut s = staircase();
    let audits: Vec<Arc<Mutex<Audit>>> = (0..s.flows.len())
        .map(|f| {
            let audit = Arc::new(Mutex::new(Audit::default()));
            let inner = std::mem::replace(&mut s.flows[f].sender.cc, Box::new(dcnsim::cc::uncontrolled::Uncontrolled));
            s.flows[f].sender.cc = Box::new(ProbeAudit { inner, audit: audit.clone() });
            audit
        })
        .collect();
    let level: Vec<u32> = s.flows.iter().map(|f| f.priority as u32).collect();
    let port = s.routing.host_down_port[0] as usize;
    let wire_per_payload = MTU as f64 / (MTU - s.cfg.header_bytes as u64) as f64;
    let mut delivered: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    let (mut tx_before, mut probe_before) = (0u64, 0u64);
    let n_windows = (schedule_us(1).1 / WINDOW_US) as usize;
    let mut windows = vec![Window { worst_util: f64::MAX, worst_top: f64::MAX, ..Window::default() }; n_windows];
    let (top_start, top_stop) = schedule_us(LEVELS);
    let mut top_only_probe_bytes = 0;
    for end in (BIN_US..=schedule_us(1).1).step_by(BIN_US as usize) {
        s.run_until(Time::from_us(end));
        let start = end - BIN_US;
        let mut per_level = [0f64; LEVELS as usize + 1];
        for (f, flow) in s.flows.iter().enumerate() {
            per_level[level[f] as usize] += (flow.receiver.delivered - delivered[f]) as f64 * wire_per_payload;
            delivered[f] = flow.receiver.delivered;
        }
        let tx = s.ports[port].stats.tx_bytes;
        let total = (tx - tx_before) as f64;
        tx_before = tx;
        let probes = s.counters.probe_bytes - probe_before;
        probe_before = s.counters.probe_bytes;
        if start >= top_start && end <= top_stop {
            top_only_probe_bytes += probes;
        }
        if start % WINDOW_US < SETTLE_US {
            continue;
        }
        let top = (1..=LEVELS)
            .filter(|&i| {
                let (a, b) = schedule_us(i);
                start >= a && end <= b
            })
            .max()
            .expect("some level runs in every window of the schedule");
        let lower = per_level[1..top as usize].iter().sum::<f64>() + probes as f64;
        let w = &mut windows[(start / WINDOW_US) as usize];
        w.top += per_level[top as usize];
        w.lower += lower;
        w.total += total;
        w.worst_util = w.worst_util.min(total / (LINE * BIN_US as f64));
        w.worst_top = w.worst_top.min(per_level[top as usize] / total);
        w.worst_lower = w.worst_lower.max(lower / total);
    }
    for (k, w) in windows.iter().enumerate() {
        println!(
            "{:2}-{:2} ms: top {:.4} lower {:.4} utilisation {:.4} | worst 100 µs bin: top {:.3} lower {:.3} utilisation {:.3}",
            k * 5,
            k * 5 + 5,
            w.top_share(),
            w.lower_share(),
            w.utilisation(),
            w.worst_top,
            w.worst_lower,
            w.worst_util
        );
    }
    let probes_in_flight = audits
        .iter()
        .enumerate()
        .map(|(f, a)| {
            let a = a.lock().unwrap();
            (level[f], a.max_outstanding, a.max_at)
        })
        .collect();
    Staircase { windows, top_only_probe_bytes, base_rtt: s.flows[0].base_rtt, probes_in_flight }
}

/// docs/reproductions/prioplus-paper.md, AC8 (eight-level staircase, Fig. 10a; schedule of S1), the
/// utilisation bullet: in every 5 ms window, ignoring the first 0.5 ms after the change that
/// opens it, the bottleneck carries ≥ 95 % of its capacity (a flow is active in every
/// window). Measured over each window's last 4.5 ms. The run takes about 0.7 s (release).
#[test]
fn ac8_staircase_keeps_the_link_busy() {
    let run = run_staircase();
    for (k, w) in run.windows.iter().enumerate() {
        assert!(w.utilisation() >= 0.95, "{}-{} ms: utilisation {:.4}", k * 5, k * 5 + 5, w.utilisation());
    }
}

/// docs/reproductions/prioplus-paper.md, AC8 (eight-level staircase, Fig. 10a; schedule of S1): in every
/// 5 ms window, ignoring the first 0.5 ms after the change that opens it, the highest
/// active level carries ≥ 95 % of the link's throughput and all lower levels together
/// (data and probes) ≤ 3 %. Measured over each window's last 4.5 ms.
///
/// Fails in one window. Measured (seed 11): the shares hold in 15 of the 16 windows (top
/// 0.972–1.000, lower 0.000–0.028), but in 30–35 ms, when level 7 starts over level 6,
/// the top share is 0.927 and the lower levels carry 0.073; 100 µs bins show the takeover
/// lasting until about 31.5 ms (0.5 ms ignored, 1 ms more). Cause, traced per flow: level
/// 6 is pushed above its limit and stops, its bytes leave the queue, and the queue falls
/// below the limits of levels 3–5, whose probes then restart them at one packet; level 7's
/// dual-RTT adaptive increase, sized as if all of the queue were its own (PrioPlus paper §4.2.3),
/// adds about half its window at once, the stale samples hide the returning lower levels,
/// and with the filter off (S1) one sample above D_limit^7 stops all 30 level-7 flows
/// together; the queue then empties and every level restarts. The same collective
/// overshoot is AC7(b)'s known shortfall (tests/prioplus_bottleneck.rs). The other
/// transitions settle within about 0.5–1 ms at 100 µs resolution (printed per window).
#[test]
#[ignore = "AC8 shares fail in 30-35 ms: top 0.927 < 0.95, lower 0.073 > 0.03 (collective overshoot of level 7's own limit); see doc comment"]
fn ac8_staircase_highest_level_takes_the_link() {
    let run = run_staircase();
    for (k, w) in run.windows.iter().enumerate() {
        assert!(w.top_share() >= 0.95, "{}-{} ms: highest level's share {:.4}", k * 5, k * 5 + 5, w.top_share());
        assert!(w.lower_share() <= 0.03, "{}-{} ms: lower levels' share {:.4}", k * 5, k * 5 + 5, w.lower_share());
    }
}

/// docs/reproductions/prioplus-paper.md, AC12 (probe overhead), in the AC8 run: while only the top level is
/// scheduled (35–45 ms; the 210 flows of levels 1–7 are stopped and probing) probe traffic
/// is ≈ 1.6 % of the link (PrioPlus paper §4.2.1) and < 2.5 %; and a stopped flow never has
/// more than one probe in flight (checked over the whole run, every flow, event by event).
///
/// The prediction is recomputed here from the probe-cost model of PrioPlus paper §4.2.1
/// with this path's base RTT: the queue sits at the top level's target, so a probe of level i sees delay D_target^8,
/// waits (D_target^8 − D_target^i) + BaseRtt/2 on average and spends D_target^8 in flight;
/// 30 flows per level send 64 B per such period. AC12 gives no tolerance for "≈"; 20 %
/// is allowed for the delay fluctuating around D_target^8 and for the top level's start-up
/// (its line-rate start lifts the delay far above D_target^8 for a few hundred µs, which
/// lengthens the probe waits).
#[test]
fn ac12_probe_overhead() {
    let run = run_staircase();
    let base = run.base_rtt.as_us_f64();
    let target = |i: u32| base + 4.0 * i as f64; // D_target^i, µs (PrioPlus paper §4.3.2)
    let predicted: f64 = (1..LEVELS)
        .map(|i| {
            let period = target(LEVELS) + (target(LEVELS) - target(i)) + base / 2.0;
            FLOWS_PER_LEVEL as f64 * 64.0 / period
        })
        .sum::<f64>()
        / LINE;
    let (start, stop) = schedule_us(LEVELS);
    let measured = run.top_only_probe_bytes as f64 / (LINE * (stop - start) as f64);
    println!("probe share 35-45 ms: {:.4} (predicted {predicted:.4})", measured);
    assert!(measured < 0.025, "probe traffic {:.4} of the link", measured);
    assert!(
        (measured - predicted).abs() <= 0.2 * predicted,
        "probe traffic {measured:.4} of the link, predicted {predicted:.4}"
    );
    for (f, &(level, most, at)) in run.probes_in_flight.iter().enumerate() {
        assert!(most <= 1, "flow {f} (level {level}) had {most} probes in flight at {at}");
    }
}
