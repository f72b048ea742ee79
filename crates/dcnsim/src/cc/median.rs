//! The windowed percentile filter of "Congestion Control for Spraying with Congested
//! Paths" (Gerstein, Silberstein, Keslassy; arXiv 2509.07907 v2, §III;
//! docs/models/swift.md). A congestion control keeps its last H per-ACK congestion
//! signals here and decides on their median (or another percentile) instead of the
//! latest one, so a minority of packets on congested paths cannot trigger its reaction.
//! MSwift and MNSCC share it; H comes from the paper's Nyquist rule, `nyquist_history`.

use crate::units::Time;

/// Ring buffer of the most recent samples, queried by nearest-rank percentile.
#[derive(Clone, Debug)]
pub struct PercentileWindow {
    ring: Vec<Time>,
    head: usize,
    len: usize,
    scratch: Vec<Time>,
}

impl PercentileWindow {
    /// A window that can remember up to `capacity` samples (≥ 1).
    pub fn new(capacity: usize) -> PercentileWindow {
        let capacity = capacity.max(1);
        PercentileWindow { ring: vec![Time::ZERO; capacity], head: 0, len: 0, scratch: Vec::with_capacity(capacity) }
    }

    pub fn capacity(&self) -> usize {
        self.ring.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, sample: Time) {
        self.ring[self.head] = sample;
        self.head = (self.head + 1) % self.ring.len();
        self.len = (self.len + 1).min(self.ring.len());
    }

    /// The `pct`-th percentile (1..=100, nearest rank) of the last `h` samples (fewer if
    /// fewer exist, and at most the capacity). For 50 and an even count this is the lower
    /// median (docs/models/swift.md). The rank is computed in integers: in floating point,
    /// ⌈0.1 × 30⌉ = 4. `None` before the first sample.
    pub fn percentile(&mut self, h: usize, pct: u32) -> Option<Time> {
        let m = h.max(1).min(self.len);
        if m == 0 {
            return None;
        }
        let cap = self.ring.len();
        self.scratch.clear();
        for i in 0..m {
            self.scratch.push(self.ring[(self.head + cap - 1 - i) % cap]);
        }
        let k = ((pct as usize * m).div_ceil(100)).clamp(1, m) - 1;
        let (_, kth, _) = self.scratch.select_nth_unstable(k);
        Some(*kth)
    }

    pub fn median(&mut self, h: usize) -> Option<Time> {
        self.percentile(h, 50)
    }
}

/// The paper's history rule (Eq. 7–9): when the window grows by about one packet every
/// `k` packets, decide on the last H = max(⌊k/2⌋, 1) signals, so that a persistent
/// one-in-`k` congested path is a minority of the window. MSwift uses k = cwnd in packets
/// (Swift adds one packet per RTT); MNSCC uses k = min(cwnd, 8).
pub fn nyquist_history(packets_per_increment: f64) -> usize {
    ((packets_per_increment / 2.0).floor() as usize).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Time {
        Time::from_us(v)
    }

    #[test]
    fn median_of_the_last_h_samples() {
        let mut w = PercentileWindow::new(8);
        assert_eq!(w.median(3), None);
        for v in [5, 1, 9, 7, 3] {
            w.push(us(v));
        }
        // Last 3: 9, 7, 3 -> median 7. Last 4: 1, 9, 7, 3 -> lower median 3.
        assert_eq!(w.median(3), Some(us(7)));
        assert_eq!(w.median(4), Some(us(3)));
        // All 5: 1 3 5 7 9 -> 5. Asking for more than exist uses what exists.
        assert_eq!(w.median(100), Some(us(5)));
        assert_eq!(w.percentile(5, 10), Some(us(1)));
        assert_eq!(w.percentile(5, 90), Some(us(9)));
        // Nearest rank of 30 samples: P10 is the 3rd smallest (⌈0.1·30⌉ = 3, not 4).
        let mut w = PercentileWindow::new(30);
        for v in 1..=30 {
            w.push(us(v));
        }
        assert_eq!(w.percentile(30, 10), Some(us(3)));
        assert_eq!(w.percentile(30, 90), Some(us(27)));
    }

    #[test]
    fn old_samples_fall_out_of_the_ring() {
        let mut w = PercentileWindow::new(3);
        for v in [100, 100, 100, 1, 2, 3] {
            w.push(us(v));
        }
        assert_eq!(w.len(), 3);
        assert_eq!(w.median(10), Some(us(2)));
    }

    /// Theorem 6's premise: with fewer than half the samples inflated, the median is
    /// always an uncongested one, wherever the congested samples fall in the window.
    #[test]
    fn a_minority_of_congested_samples_never_moves_the_median() {
        let h = 9;
        let mut w = PercentileWindow::new(h);
        for i in 0..1000u64 {
            let congested = i % 3 == 0; // q = 1/3 of packets on a slow path, H = 9: 3 of 9
            w.push(if congested { us(500) } else { us(10 + i % 2) });
            if w.len() == h {
                assert!(w.median(h).unwrap() <= us(11), "at {i}");
            }
        }
    }

    #[test]
    fn history_rule() {
        assert_eq!(nyquist_history(1.0), 1);
        assert_eq!(nyquist_history(3.0), 1);
        assert_eq!(nyquist_history(150.0), 75);
        assert_eq!(nyquist_history(8.0f64.min(150.0)), 4);
    }
}
