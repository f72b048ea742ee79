//! LAPS: latency-aware packet spraying and its rate control. Paper: seed 004 §3.5–§3.6
//! (Eq. 1, the AIMD with hyper increase); spec `laps.md` §2.5 and §2.7, with both the
//! paper's and the artefact's variants where they differ (spec §8), the artefact's by
//! default.
//!
//! These are the two decisions a LAPS sender makes per packet and per ACK, as state
//! machines of their own; the path latency table they read and the transport around
//! them are wired in elsewhere.

use crate::units::{Rate, Time};

/// How path latencies enter the softmax (spec laps.md §2.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

/// How often the rate may change (spec laps.md §2.7, "pacing of adjustments").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdjustmentGate {
    /// Two timers: an increase at most every 2T; a decrease at most every twice the
    /// largest current path latency. Increases step by at least `min_increase`.
    #[default]
    Artefact,
    /// One timer of 2T for every adjustment; an increase closes exactly half of the gap.
    Paper,
}

/// LAPS parameters with the defaults of spec laps.md §2.12.
#[derive(Clone, Debug, PartialEq)]
pub struct LapsParams {
    /// Softmax sharpness β (paper footnote 2: 1). 0 is uniform spraying (RPS).
    pub beta: f64,
    pub latency_scale: LatencyScale,
    pub gate: AdjustmentGate,
    /// Lowest pacing rate (artefact: 1 Gb/s).
    pub min_rate: Rate,
    /// Smallest increase step (artefact: 1 Gb/s; `AdjustmentGate::Artefact` only).
    pub min_increase: Rate,
    /// Hyper increase: the target rate doubles on every increase once this many
    /// increases in a row have happened (artefact: 5, compared with `>`).
    pub hyper_increase_after: u32,
}

impl Default for LapsParams {
    fn default() -> Self {
        LapsParams {
            beta: 1.0,
            latency_scale: LatencyScale::ByTarget,
            gate: AdjustmentGate::Artefact,
            min_rate: Rate::gbps(1),
            min_increase: Rate::gbps(1),
            hyper_increase_after: 5,
        }
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
/// latency (spec laps.md §2.7). One path at or below T means the flow can still be
/// served without queueing, so LAPS shifts load rather than slowing down.
pub fn congested(latencies: &[Time], target: Time) -> bool {
    latencies.iter().all(|&t| t > target)
}

/// The sender's pacing rate: AIMD on the congestion test above, with hyper increase
/// (spec laps.md §2.7). Rates in bits per second.
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
        let min = p.min_rate.bps() as f64;
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
            AdjustmentGate::Artefact => (self.current + p.min_increase.bps() as f64).max(half_gap),
            AdjustmentGate::Paper => half_gap,
        }
        .min(self.line);
        self.expected = self.expected.max(self.current);
        self.increases += 1;
        true
    }

    /// The bytes a flow may have in flight: W = 2·T·line rate (spec laps.md §2.7,
    /// artefact only; not scaled by the current rate).
    pub fn window_bytes(target: Time, line_rate: Rate) -> u64 {
        (2 * target.0 as u128 * line_rate.bps() as u128 / 8 / 1_000_000_000_000) as u64
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

    /// Spec laps.md §7 A3: idle rail fabric, a same-rail pair (one 4-link path at
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

    /// Spec laps.md §7 A4: the artefact's AIMD trace at 100 Gb/s.
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

    /// Spec laps.md §7 A5: no decrease while at least one path is at or below T,
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

    /// The window bound W = 2·T·line rate / 8 (spec §2.7): 204 KB for the dragonfly's
    /// inter-group T of 8162 ns at 100 Gb/s, 462 KB for the rail's 9244 ns at 200 Gb/s.
    #[test]
    fn window_is_two_target_latencies_of_line_rate() {
        assert_eq!(RateControl::window_bytes(ns(8162), Rate::gbps(100)), 204_050);
        assert_eq!(RateControl::window_bytes(ns(9244), Rate::gbps(200)), 462_200);
    }
}
