//! LAPS: latency-aware packet spraying and its rate control. Paper: LAPS paper §3.5–§3.6
//! (Eq. 1, the AIMD with hyper increase); docs/models/laps.md, with both the paper's and
//! the artefact's variants where they differ (docs/reproductions/laps-paper.md, "Decisions and
//! errata"), the artefact's by default.
//!
//! The decisions a LAPS sender makes per packet and per ACK (`pick_path`, `congested`,
//! `RateControl`) are state machines of their own; `PathTable` is the source NIC's path
//! table (PIT, §2.1) they read, with the per-path outstanding lists that infer loss
//! (§2.8) and the probing rule (§2.4). The simulation (`sim.rs`) wires them to packets.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::units::values::{RateVal, TimeVal};
use crate::units::{Rate, Time};

/// How path latencies enter the softmax (LAPS paper §3.5, Eq. 1; docs/models/laps.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyScale {
    /// x = latency / T, the flow's target latency (the artefact's form).
    #[default]
    ByTarget,
    /// x = latency in microseconds.
    RawUs,
    /// x = latency in nanoseconds (the paper's Eq. 1 taken literally: with β = 1 it
    /// is an argmin).
    RawNs,
}

/// How often the rate may change (LAPS paper §3.6; docs/models/laps.md, "Modes").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjustmentGate {
    /// Two timers: an increase at most every 2T; a decrease at most every twice the
    /// largest current path latency. Increases step by at least `min_increase`.
    #[default]
    Artefact,
    /// One timer of 2T for every adjustment; an increase closes exactly half of the gap.
    Paper,
}

/// When a path is probed (LAPS paper §3.4; docs/models/laps.md, "Modes").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeRule {
    /// At a data send, the paths not updated for twice the flow's largest path latency
    /// are stale; those with nothing sent on them for twice the largest stale latency are
    /// eligible, and one of them, drawn uniformly, gets a probe. Latencies stay as they are.
    #[default]
    Artefact,
    /// A path not updated for twice its own latency gets a probe; while it is out, the
    /// path's latency is doubled (so softmax steers away from it) and counts as updated.
    Paper,
}

/// LAPS parameters (`[transport.laps]`) with the defaults of docs/models/laps.md.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LapsParams {
    /// Softmax sharpness β (paper footnote 2: 1). 0 is uniform spraying (RPS).
    pub beta: f64,
    pub latency_scale: LatencyScale,
    pub gate: AdjustmentGate,
    /// Lowest pacing rate (artefact: 1 Gb/s).
    pub min_rate: RateVal,
    /// Smallest increase step (artefact: 1 Gb/s; `AdjustmentGate::Artefact` only).
    pub min_increase: RateVal,
    /// Hyper increase: the target rate doubles on every increase once this many
    /// increases in a row have happened (artefact: 5, compared with `>`).
    pub hyper_increase_after: u32,
    pub probe: ProbeRule,
    /// Per-path retransmission timeout, fixed (artefact: 8 ms; docs/models/laps.md).
    pub path_rto: TimeVal,
    /// Cap in-flight bytes at W = 2·T·line rate (artefact only; the paper has no window).
    pub window: bool,
    /// The rate W is sized at: none (the default, the artefact's): the NIC's line rate; a
    /// rate, e.g. the fabric's where hosts are faster than the fabric (an ablation).
    pub window_rate: Option<RateVal>,
}

impl Default for LapsParams {
    fn default() -> Self {
        LapsParams {
            beta: 1.0,
            latency_scale: LatencyScale::ByTarget,
            gate: AdjustmentGate::Artefact,
            min_rate: RateVal(Rate::gbps(1)),
            min_increase: RateVal(Rate::gbps(1)),
            hyper_increase_after: 5,
            probe: ProbeRule::Artefact,
            path_rto: TimeVal(Time::from_ms(8)),
            window: true,
            window_rate: None,
        }
    }
}

impl LapsParams {
    /// The first setting out of range, as (field, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err(("beta", format!("{}: allowed a finite number >= 0 (0 is uniform spraying)", self.beta)));
        }
        if self.min_rate.0.bps() == 0 {
            return Err(("min_rate", "0: allowed a positive rate such as \"1Gbps\"".into()));
        }
        if self.path_rto.0 == Time::ZERO {
            return Err(("path_rto", "0: allowed a positive time such as \"8ms\"".into()));
        }
        if self.window_rate.is_some_and(|r| r.0.bps() == 0) {
            return Err(("window_rate", "0: allowed a positive rate such as \"100Gbps\"".into()));
        }
        Ok(())
    }
}

/// The path a packet takes: index i with probability exp(−β·x_i) / Σ_j exp(−β·x_j)
/// (Eq. 1), sampled as the artefact does from one uniform draw `u` in [0, 1): the first
/// path whose cumulative probability exceeds `u`, the last one if rounding leaves none.
pub fn pick_path(latencies: &[Time], target: Time, p: &LapsParams, u: f64) -> usize {
    debug_assert!(!latencies.is_empty());
    let x = |t: Time| match p.latency_scale {
        LatencyScale::ByTarget => t.0 as f64 / target.0 as f64,
        LatencyScale::RawUs => t.as_us_f64(),
        LatencyScale::RawNs => t.0 as f64 / 1000.0,
    };
    // Shifting every exponent by the smallest x leaves the probabilities as they are and
    // keeps exp() from underflowing to 0/0 when β·x is large.
    let least = latencies.iter().map(|&t| x(t)).fold(f64::INFINITY, f64::min);
    let weight = |t: Time| (-p.beta * (x(t) - least)).exp();
    let total: f64 = latencies.iter().map(|&t| weight(t)).sum();
    let mut cumulative = 0.0;
    for (i, &t) in latencies.iter().enumerate() {
        cumulative += weight(t) / total;
        if u < cumulative {
            return i;
        }
    }
    latencies.len() - 1
}

/// Whether an ACK calls for a decrease: every candidate path is above the target
/// latency (LAPS paper §3.6; docs/models/laps.md). One path at or below T means the flow can still be
/// served without queueing, so LAPS shifts load rather than slowing down.
pub fn congested(latencies: &[Time], target: Time) -> bool {
    latencies.iter().all(|&t| t > target)
}

/// The sender's pacing rate: AIMD on the congestion test above, with hyper increase
/// (LAPS paper §3.6; docs/models/laps.md). Rates in bits per second.
#[derive(Clone, Debug)]
pub struct RateControl {
    pub current: f64,
    /// The rate before the last cut, which an increase closes in on ("expRate").
    pub expected: f64,
    /// Increases in a row since the last decrease.
    pub increases: u32,
    line: f64,
    next_increase: Time,
    next_decrease: Time,
}

impl RateControl {
    /// Starts at line rate, like the artefact.
    pub fn new(line_rate: Rate) -> RateControl {
        let line = line_rate.bps() as f64;
        RateControl {
            current: line,
            expected: line,
            increases: 0,
            line,
            next_increase: Time::ZERO,
            next_decrease: Time::ZERO,
        }
    }

    /// One ACK's worth of control, `target` being the flow's T and `largest_latency`
    /// the largest latency its paths now show. Returns whether the rate changed.
    pub fn on_ack(&mut self, now: Time, congested: bool, target: Time, largest_latency: Time, p: &LapsParams) -> bool {
        let min = p.min_rate.0.bps() as f64;
        let gate = Time(2 * target.0);
        if congested {
            if now <= self.next_decrease {
                return false;
            }
            self.next_decrease = now
                + match p.gate {
                    AdjustmentGate::Artefact => Time(2 * largest_latency.0),
                    AdjustmentGate::Paper => gate,
                };
            if p.gate == AdjustmentGate::Paper {
                self.next_increase = self.next_decrease;
            }
            self.expected = self.current.max(min);
            self.current = (self.current / 2.0).max(min);
            self.increases = 0;
            return true;
        }
        if now <= self.next_increase {
            return false;
        }
        self.next_increase = now + gate;
        if p.gate == AdjustmentGate::Paper {
            self.next_decrease = self.next_increase;
        }
        if self.increases > p.hyper_increase_after {
            self.expected = (2.0 * self.expected).min(self.line).max(min);
        }
        let half_gap = (self.current + self.expected) / 2.0;
        self.current = match p.gate {
            AdjustmentGate::Artefact => (self.current + p.min_increase.0.bps() as f64).max(half_gap),
            AdjustmentGate::Paper => half_gap,
        }
        .min(self.line);
        self.expected = self.expected.max(self.current);
        self.increases += 1;
        true
    }

    /// The bytes a flow may have in flight: W = 2·T·line rate (docs/models/laps.md,
    /// artefact only; not scaled by the current rate).
    pub fn window_bytes(target: Time, line_rate: Rate) -> u64 {
        (2 * target.0 as u128 * line_rate.bps() as u128 / 8 / 1_000_000_000_000) as u64
    }
}

/// One data transmission waiting for its ACK on a path (§2.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outstanding {
    pub flow: u32,
    pub psn: u32,
    /// When it left: tells this transmission from another of the same PSN.
    pub sent_at: Time,
}

/// What the source NIC knows of one candidate path (a PIT entry, LAPS paper §3.3).
#[derive(Clone, Debug)]
pub struct PathState {
    /// Baseline latency `idleVal` (§2.4).
    pub idle: Time,
    /// Latest one-way latency measured ("realVal"; no smoothing).
    pub latency: Time,
    /// When `latency` was last set.
    pub updated: Time,
    /// When data or a probe last left on this path.
    pub last_sent: Time,
    /// Data sent on this path and not yet acknowledged, in send order.
    pub outstanding: VecDeque<Outstanding>,
    /// Per-path retransmission timer: its deadline (`Time::MAX`: off) and the pending
    /// `PathRto` event (`Time::MAX`: none), checked lazily like a flow's.
    pub rto_deadline: Time,
    pub rto_event_at: Time,
    /// `ProbeRule::Paper`: a probe is out and `latency` is its doubled stand-in.
    pub probe_out: bool,
}

/// The PIT of every source-routed host pair: paths indexed as in `SourceRoutes` (pairs
/// share them, as in the artefact; docs/reproductions/laps-paper.md, "Per-pair state"), so a flow's paths are
/// `first..first + n` from `SourceRoutes::paths_of`.
pub struct PathTable {
    pub params: LapsParams,
    pub paths: Vec<PathState>,
    /// Probes sent and per-path timeouts fired.
    pub probes: u64,
    pub path_timeouts: u64,
    /// Smallest and largest one-way delay of an ACK (docs/reproductions/laps-paper.md, A9).
    pub ack_delay: (Time, Time),
    /// Most bytes any LAPS flow had in flight (docs/reproductions/laps-paper.md, A10).
    pub peak_in_flight: u64,
    /// Receiver out-of-order buffer, sampled at every data arrival: arrivals by bytes
    /// held above the next expected byte, in whole KB (LAPS paper Fig. 9).
    pub ooo_kb: Vec<u64>,
    /// Reused buffers (no allocation per ACK).
    pub scratch_latencies: Vec<Time>,
    pub scratch_lost: Vec<Outstanding>,
}

impl PathTable {
    /// A table for paths whose idle latencies are `idle` and whose latencies start at
    /// `initial` (the artefact: propagation and serialisation only, and "updated" at 0, so
    /// every path is probed soon after the first send).
    pub fn new(params: &LapsParams, idle: &[Time], initial: &[Time]) -> PathTable {
        let paths = idle
            .iter()
            .zip(initial)
            .map(|(&idle, &latency)| PathState {
                idle,
                latency,
                updated: Time::ZERO,
                last_sent: Time::ZERO,
                outstanding: VecDeque::new(),
                rto_deadline: Time::MAX,
                rto_event_at: Time::MAX,
                probe_out: false,
            })
            .collect();
        PathTable {
            params: params.clone(),
            paths,
            probes: 0,
            path_timeouts: 0,
            ack_delay: (Time::MAX, Time::ZERO),
            peak_in_flight: 0,
            ooo_kb: Vec::new(),
            scratch_latencies: Vec::new(),
            scratch_lost: Vec::new(),
        }
    }

    fn range(&self, first: u32, n: u32) -> &[PathState] {
        &self.paths[first as usize..(first + n) as usize]
    }

    /// The flow's target latency T: the largest idle latency of its paths (LAPS paper §3.6).
    pub fn target(&self, first: u32, n: u32) -> Time {
        self.range(first, n).iter().map(|p| p.idle).max().unwrap_or(Time::ZERO)
    }

    /// Latencies of paths `first..first + n`, into `out`.
    pub fn latencies(&self, first: u32, n: u32, out: &mut Vec<Time>) {
        out.clear();
        out.extend(self.range(first, n).iter().map(|p| p.latency));
    }

    /// The latencies the rate control judges congestion by: as [`Self::latencies`], but a
    /// path whose paper-rule probe is out shows its last measurement, not the doubled
    /// stand-in that only steers the softmax away from it (a probe is no sign of a
    /// queue, so it must not count as "above T").
    pub fn measured_latencies(&self, first: u32, n: u32, out: &mut Vec<Time>) {
        out.clear();
        out.extend(self.range(first, n).iter().map(|p| if p.probe_out { Time(p.latency.0 / 2) } else { p.latency }));
    }

    /// The path a probe should take before the data packet sent at `now`, if any, drawn
    /// with `u` in [0, 1) among the eligible ones (§2.4, `ProbeRule`). Records the probe.
    pub fn probe_due(&mut self, first: u32, n: u32, now: Time, u: f64, rule: ProbeRule) -> Option<u32> {
        let paths = self.range(first, n);
        let pick = match rule {
            ProbeRule::Artefact => {
                let largest = paths.iter().map(|p| p.latency).max()?;
                let stale = |p: &PathState| now.saturating_sub(p.updated) > Time(2 * largest.0);
                let cooldown = paths.iter().filter(|p| stale(p)).map(|p| p.latency).max()?;
                let eligible = |p: &PathState| stale(p) && now.saturating_sub(p.last_sent) > Time(2 * cooldown.0);
                let count = paths.iter().filter(|p| eligible(p)).count();
                if count == 0 {
                    return None;
                }
                let k = ((u * count as f64) as usize).min(count - 1);
                paths.iter().enumerate().filter(|(_, p)| eligible(p)).nth(k).map(|(i, _)| i)?
            }
            ProbeRule::Paper => {
                // Uniform among the stale paths, as the artefact's rule draws (the first
                // stale path alone would probe low-numbered paths more often).
                let stale = |p: &PathState| now.saturating_sub(p.updated) > Time(2 * p.latency.0);
                let count = paths.iter().filter(|p| stale(p)).count();
                if count == 0 {
                    return None;
                }
                let k = ((u * count as f64) as usize).min(count - 1);
                paths.iter().enumerate().filter(|(_, p)| stale(p)).nth(k).map(|(i, _)| i)?
            }
        };
        let path = &mut self.paths[first as usize + pick];
        path.last_sent = now;
        if rule == ProbeRule::Paper {
            path.updated = now;
            path.latency = Time(2 * path.latency.0);
            path.probe_out = true;
        }
        self.probes += 1;
        Some(pick as u32)
    }

    /// Data (`flow`, `psn`) left at `now` on path `path`; the path's timer restarts.
    pub fn on_sent(&mut self, path: u32, sent: Outstanding, rto: Time) {
        let p = &mut self.paths[path as usize];
        p.last_sent = sent.sent_at;
        p.outstanding.push_back(sent);
        p.rto_deadline = sent.sent_at + rto;
    }

    /// A latency sample for `path` (from an ACK or a probe's echo).
    pub fn measured(&mut self, path: u32, now: Time, latency: Time) {
        let p = &mut self.paths[path as usize];
        p.latency = latency;
        p.updated = now;
        p.probe_out = false;
    }

    /// The ACK of the transmission sent at `sent_at` came back on `path`: paths are FIFO
    /// both ways, so whatever was sent on it earlier and is still outstanding was lost
    /// (§2.8); those go to `lost`. The acknowledged entry leaves the list, and the timer
    /// restarts if anything is left (off otherwise).
    pub fn on_ack(&mut self, path: u32, sent_at: Time, now: Time, rto: Time, lost: &mut Vec<Outstanding>) {
        let p = &mut self.paths[path as usize];
        while let Some(&front) = p.outstanding.front() {
            if front.sent_at > sent_at {
                break;
            }
            p.outstanding.pop_front();
            if front.sent_at < sent_at {
                lost.push(front);
            }
        }
        p.rto_deadline = if p.outstanding.is_empty() { Time::MAX } else { now + rto };
    }

    /// `path`'s timer expired: everything outstanding on it is lost.
    pub fn on_timeout(&mut self, path: u32, lost: &mut Vec<Outstanding>) {
        let p = &mut self.paths[path as usize];
        lost.extend(p.outstanding.drain(..));
        p.rto_deadline = Time::MAX;
        self.path_timeouts += 1;
    }

    /// A data arrival found `bytes` held in its flow's reorder buffer.
    pub fn sample_ooo(&mut self, bytes: u64) {
        let kb = (bytes / 1024) as usize;
        if self.ooo_kb.len() <= kb {
            self.ooo_kb.resize(kb + 1, 0);
        }
        self.ooo_kb[kb] += 1;
    }

    /// Mean reorder-buffer occupancy in KB, and the fraction of samples above `above_kb`.
    pub fn ooo_summary(&self, above_kb: usize) -> (f64, f64) {
        let n: u64 = self.ooo_kb.iter().sum();
        if n == 0 {
            return (0.0, 0.0);
        }
        let mean = self.ooo_kb.iter().enumerate().map(|(kb, &c)| kb as f64 * c as f64).sum::<f64>() / n as f64;
        let above: u64 = self.ooo_kb.iter().skip(above_kb + 1).sum();
        (mean, above as f64 / n as f64)
    }

    /// Bytes the table holds.
    pub fn heap_bytes(&self) -> u64 {
        (self.paths.capacity() * std::mem::size_of::<PathState>()
            + self.paths.iter().map(|p| p.outstanding.capacity() * std::mem::size_of::<Outstanding>()).sum::<usize>())
            as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Rng;

    fn ns(v: u64) -> Time {
        Time::from_ns(v)
    }

    fn shares(latencies: &[Time], target: Time, p: &LapsParams, draws: usize) -> Vec<f64> {
        let mut rng = Rng::stream(7, "laps-test");
        let mut counts = vec![0usize; latencies.len()];
        for _ in 0..draws {
            counts[pick_path(latencies, target, p, rng.next_f64())] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    /// docs/reproductions/laps-paper.md, A3: idle rail fabric, a same-rail pair (one 4-link path at
    /// 4580 ns, seven 8-link paths at T = 9244 ns), β = 1, latencies over T: the short
    /// path takes 0.191 ± 0.005 of 10⁵ packets and each long one 0.116 ± 0.004.
    /// (By hand: e^−0.4955 / (e^−0.4955 + 7e^−1) = 0.1914; e^−1 / (…) = 0.1155.)
    #[test]
    fn a3_softmax_shares_on_an_idle_rail_pair() {
        let target = ns(9244);
        let mut latencies = vec![ns(9244); 8];
        latencies[2] = ns(4580);
        let s = shares(&latencies, target, &LapsParams::default(), 100_000);
        assert!((s[2] - 0.191).abs() <= 0.005, "{s:?}");
        for (i, share) in s.iter().enumerate().filter(|&(i, _)| i != 2) {
            assert!((share - 0.116).abs() <= 0.004, "path {i}: {s:?}");
        }
    }

    /// A3: β = 0 is uniform (χ² with 7 degrees of freedom below 18.48, p = 0.01), and
    /// β = 10⁶ always takes the lowest-latency path.
    #[test]
    fn a3_beta_zero_is_uniform_and_huge_beta_is_argmin() {
        let target = ns(9244);
        let latencies = [ns(9244), ns(6912), ns(9244), ns(9244), ns(9244), ns(6912), ns(9244), ns(9000)];
        let draws = 100_000;
        let uniform = LapsParams { beta: 0.0, ..LapsParams::default() };
        let expected = draws as f64 / 8.0;
        let chi2: f64 = shares(&latencies, target, &uniform, draws)
            .iter()
            .map(|s| (s * draws as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi2 < 18.48, "chi2 = {chi2}");
        let argmin = LapsParams { beta: 1e6, ..LapsParams::default() };
        let mut rng = Rng::stream(1, "argmin");
        for _ in 0..1000 {
            // Ties between the two 6912 ns paths go to either of them.
            let i = pick_path(&latencies, target, &argmin, rng.next_f64());
            assert!(i == 1 || i == 5, "{i}");
        }
        let distinct = [ns(9244), ns(6912), ns(9000)];
        assert!((0..1000).all(|_| pick_path(&distinct, target, &argmin, rng.next_f64()) == 1));
    }

    /// docs/reproductions/laps-paper.md, A4: the artefact's AIMD trace at 100 Gb/s.
    #[test]
    fn a4_rate_trace() {
        let p = LapsParams::default();
        let line = Rate::gbps(100);
        let t = ns(8162);
        let mut rc = RateControl::new(line);
        let gbps = |rc: &RateControl| (rc.current / 1e9, rc.expected / 1e9);
        // One ACK with every path above T halves the rate.
        assert!(rc.on_ack(ns(1), true, t, ns(9000), &p));
        assert_eq!((gbps(&rc), rc.increases), ((50.0, 100.0), 0));
        // Non-congested ACKs more than 2T apart close half the gap each time...
        let mut now = ns(1);
        let mut step = |rc: &mut RateControl| {
            now = now + Time(2 * t.0 + 1);
            assert!(rc.on_ack(now, false, t, t, &p));
            rc.current / 1e9
        };
        for expected in [75.0, 87.5, 93.75, 96.875, 98.4375] {
            assert_eq!(step(&mut rc), expected);
        }
        // ...the 6th takes the +1 Gb/s floor over the half-gap step (99.22)...
        assert_eq!(step(&mut rc), 99.4375);
        assert_eq!(rc.increases, 6);
        // ...and on the 7th the target doubles (capped at line rate), so the rate reaches it.
        assert_eq!(step(&mut rc), 100.0);
        // Increases closer than 2T apart are ignored.
        let mut rc = RateControl::new(line);
        rc.on_ack(ns(1), true, t, ns(9000), &p);
        assert!(rc.on_ack(ns(2 * 8162 + 2), false, t, t, &p));
        assert!(!rc.on_ack(ns(2 * 8162 + 3), false, t, t, &p));
        assert!(!rc.on_ack(ns(4 * 8162 + 2), false, t, t, &p));
        assert!(rc.on_ack(ns(4 * 8162 + 3), false, t, t, &p));
    }

    /// A4: with line rate out of the way (a 1 Tb/s NIC and a flow whose target started
    /// at 200 Gb/s), the target doubles on every increase from the 7th on; and the rate
    /// never leaves [1 Gb/s, line rate] however many cuts or increases come.
    #[test]
    fn a4_hyper_increase_doubles_and_the_rate_stays_in_bounds() {
        let p = LapsParams::default();
        let t = ns(1000);
        let mut rc = RateControl::new(Rate::gbps(1000));
        rc.current = 100e9;
        rc.expected = 200e9;
        let mut now = Time::ZERO;
        let mut targets = Vec::new();
        for _ in 0..9 {
            now = now + ns(2001);
            rc.on_ack(now, false, t, t, &p);
            targets.push(rc.expected / 1e9);
        }
        assert_eq!(targets[6], 2.0 * targets[5], "{targets:?}");
        assert_eq!(targets[7], 2.0 * targets[6], "{targets:?}");
        assert_eq!(targets[8], 1000.0, "doubling stops at line rate: {targets:?}");

        let mut rc = RateControl::new(Rate::gbps(100));
        let mut now = Time::ZERO;
        for i in 0..400u64 {
            now = now + ns(100_000);
            rc.on_ack(now, i % 50 < 30, t, ns(2000), &p);
            assert!(rc.current >= 1e9 && rc.current <= 100e9, "{}", rc.current);
        }
    }

    /// A4, paper mode: an increase closes exactly half of the gap (no 1 Gb/s floor), and
    /// one 2T gate holds every adjustment, a cut included.
    #[test]
    fn a4_paper_mode() {
        let p = LapsParams { gate: AdjustmentGate::Paper, ..LapsParams::default() };
        let t = ns(8162);
        let mut rc = RateControl::new(Rate::gbps(100));
        rc.on_ack(ns(1), true, t, ns(9000), &p);
        let mut now = ns(1);
        for _ in 0..6 {
            now = now + Time(2 * t.0 + 1);
            rc.on_ack(now, false, t, t, &p);
        }
        assert_eq!(rc.current / 1e9, 100.0 - 50.0 / 64.0);
        // Right after an increase, a congested ACK waits out the same 2T.
        assert!(!rc.on_ack(now + ns(1), true, t, ns(9000), &p));
        assert!(rc.on_ack(now + Time(2 * t.0 + 1), true, t, ns(9000), &p));
    }

    /// docs/reproductions/laps-paper.md, A5: no decrease while at least one path is at or below T,
    /// whatever the others show.
    #[test]
    fn a5_no_decrease_while_one_path_is_within_target() {
        let t = ns(9244);
        let p = LapsParams::default();
        let mut rc = RateControl::new(Rate::gbps(100));
        let mut now = Time::ZERO;
        for far in [ns(9245), ns(50_000), ns(8_000_000)] {
            let latencies = [far, far, ns(9244), far];
            assert!(!congested(&latencies, t));
            now = now + ns(100_000);
            rc.on_ack(now, congested(&latencies, t), t, far, &p);
            assert_eq!(rc.current, 100e9);
        }
        assert!(congested(&[ns(9245); 4], t));
    }

    /// The window bound W = 2·T·line rate / 8 (docs/models/laps.md): 204 KB for the dragonfly's
    /// inter-group T of 8162 ns at 100 Gb/s, 462 KB for the rail's 9244 ns at 200 Gb/s.
    #[test]
    fn window_is_two_target_latencies_of_line_rate() {
        assert_eq!(RateControl::window_bytes(ns(8162), Rate::gbps(100)), 204_050);
        assert_eq!(RateControl::window_bytes(ns(9244), Rate::gbps(200)), 462_200);
    }

    fn table(latencies_ns: &[u64]) -> PathTable {
        let t: Vec<Time> = latencies_ns.iter().map(|&v| ns(v)).collect();
        PathTable::new(&LapsParams::default(), &t, &t)
    }

    /// The artefact's probing rule (docs/models/laps.md): at a send at 10 µs, paths 0 and 1 (updated at 9.5 and 9 µs)
    /// are fresh and path 2 (updated at 0) is stale, as it has waited more than twice the
    /// largest latency (3 µs); it was last sent on at 2 µs, more than twice its own
    /// latency ago, so it is probed, and not again right after (cooldown).
    #[test]
    fn a8_artefact_probes_a_stale_path_once_per_cooldown() {
        let mut t = table(&[1000, 2000, 3000]);
        t.measured(0, ns(9500), ns(1000));
        t.measured(1, ns(9000), ns(2000));
        t.paths[2].last_sent = ns(2000);
        assert_eq!(t.probe_due(0, 3, ns(10_000), 0.99, ProbeRule::Artefact), Some(2));
        assert_eq!(t.paths[2].latency, ns(3000), "the artefact does not double");
        assert_eq!(t.probe_due(0, 3, ns(10_100), 0.0, ProbeRule::Artefact), None);
        // Before 2 × 3 µs have passed since the last update, nothing is stale.
        let mut t = table(&[1000, 2000, 3000]);
        assert_eq!(t.probe_due(0, 3, ns(6000), 0.5, ProbeRule::Artefact), None);
        assert_eq!(t.probes, 0);
    }

    /// The paper's probing rule (LAPS paper §3.4): a path idle for more than twice its own latency is probed,
    /// and until the echo its latency counts double and it counts as updated.
    #[test]
    fn a8_paper_probe_doubles_the_latency_until_the_echo() {
        let mut t = table(&[1000, 5000]);
        t.measured(1, ns(2500), ns(5000));
        assert_eq!(t.probe_due(0, 2, ns(2500), 0.0, ProbeRule::Paper), Some(0));
        assert_eq!((t.paths[0].latency, t.paths[0].updated), (ns(2000), ns(2500)));
        // The rate control sees the measurement, not the stand-in: with T = 1.5 µs the
        // doubled 2 µs would make both paths "above T" and cut the rate.
        let mut out = Vec::new();
        t.measured_latencies(0, 2, &mut out);
        assert_eq!(out, [ns(1000), ns(5000)]);
        assert!(!congested(&out, ns(1500)));
        t.measured(0, ns(3000), ns(1100));
        assert_eq!(t.paths[0].latency, ns(1100));
        t.measured_latencies(0, 2, &mut out);
        assert_eq!(out, [ns(1100), ns(5000)]);
    }

    /// With several stale paths the paper's rule draws one uniformly (as the artefact's
    /// does), not always the first: three paths stale at once, u picks each third.
    #[test]
    fn a8_paper_probe_draws_among_the_stale_paths() {
        for (u, want) in [(0.0, 0), (0.4, 1), (0.9, 2)] {
            let mut t = table(&[1000, 1000, 1000]);
            assert_eq!(t.probe_due(0, 3, ns(2500), u, ProbeRule::Paper), Some(want), "u = {u}");
        }
    }

    /// Loss inference (LAPS paper §3.7; docs/models/laps.md): an ACK for the transmission
    /// sent at t on path p proves lost whatever was sent on p before t and is still
    /// outstanding, and nothing sent after; the timer runs while anything is left. A timeout loses the rest.
    #[test]
    fn a7_fifo_loss_inference_and_the_path_timer() {
        let mut t = table(&[1000, 1000]);
        let rto = Time::from_ms(8);
        let sent = |flow, psn, at| Outstanding { flow, psn, sent_at: ns(at) };
        for (i, e) in [sent(0, 0, 10), sent(1, 7, 20), sent(0, 1, 30), sent(0, 2, 40)].into_iter().enumerate() {
            t.on_sent(0, e, rto);
            assert_eq!(t.paths[0].rto_deadline, ns(10 + 10 * i as u64) + rto);
        }
        t.on_sent(1, sent(0, 3, 35), rto);
        let mut lost = Vec::new();
        t.on_ack(0, ns(30), ns(100), rto, &mut lost);
        assert_eq!(lost, vec![sent(0, 0, 10), sent(1, 7, 20)]);
        assert_eq!(t.paths[0].outstanding, [sent(0, 2, 40)]);
        assert_eq!(t.paths[0].rto_deadline, ns(100) + rto);
        lost.clear();
        t.on_ack(0, ns(40), ns(110), rto, &mut lost);
        assert!(lost.is_empty());
        assert_eq!(t.paths[0].rto_deadline, Time::MAX);
        assert_eq!(t.paths[1].outstanding.len(), 1, "other paths are untouched");
        t.on_timeout(1, &mut lost);
        assert_eq!((lost, t.path_timeouts), (vec![sent(0, 3, 35)], 1));
    }
}
