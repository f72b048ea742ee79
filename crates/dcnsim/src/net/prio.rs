//! Physical priority queues of a switch port: the baseline PrioPlus is compared against
//! ("Physical + Swift", "Physical* + Swift"; PrioPlus paper §6.2; docs/models/priority-queues.md).
//!
//! A port holds N FIFOs. A packet goes to the queue of its priority level (level 1 to
//! queue 0, level N to queue N − 1; levels above N share the top queue, packets without a
//! level use queue 0). The queues share the port's one buffer; ECN marks on the occupancy
//! of the packet's own queue. Service is strict priority (the highest non-empty queue
//! sends), or deficit round robin weighted per queue. The "ideal physical" mode is simply
//! as many queues as the scenario has levels.
//!
//! With per-priority PFC (`net/pfc/mod.rs`) a paused queue is passed over: `pop` serves only
//! the queues its `eligible` mask allows. PFC's thresholds are fixed per ingress link and
//! queue, or come from the dynamic-threshold shared buffer (`net/pfc/mod.rs`,
//! docs/models/pfc.md); the output queues here share the port's buffer without one.

use std::collections::VecDeque;

/// Most queues a port may have: non-empty queues are a bit mask.
pub const MAX_QUEUES: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub enum PrioService {
    /// The highest non-empty queue always sends first.
    Strict,
    /// Deficit round robin: each turn queue q may send `quantum × weights[q]` bytes.
    Drr { quantum: u64, weights: Vec<u64> },
}

#[derive(Clone, Debug)]
pub struct PrioQueues {
    queues: Vec<VecDeque<u32>>,
    /// Bytes waiting in each queue.
    pub bytes: Vec<u64>,
    /// Bit q set: queue q holds packets.
    nonempty: u64,
    service: PrioService,
    deficit: Vec<u64>,
    /// DRR: the queue whose turn it is, and whether its quantum was already granted.
    turn: usize,
    turn_open: bool,
}

impl PrioQueues {
    pub fn new(n: usize, service: PrioService) -> PrioQueues {
        assert!((1..=MAX_QUEUES).contains(&n), "1 to {MAX_QUEUES} queues");
        if let PrioService::Drr { weights, .. } = &service {
            assert_eq!(weights.len(), n, "one DRR weight per queue");
        }
        PrioQueues {
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            bytes: vec![0; n],
            nonempty: 0,
            service,
            deficit: vec![0; n],
            turn: 0,
            turn_open: false,
        }
    }

    pub fn len(&self) -> usize {
        self.queues.len()
    }

    /// Every packet waiting, queue by queue (issue 10's invariant recount).
    pub fn handles(&self) -> impl Iterator<Item = u32> + '_ {
        self.queues.iter().flat_map(|q| q.iter().copied())
    }

    pub fn is_empty(&self) -> bool {
        self.nonempty == 0
    }

    /// The queue of a packet with priority level `level`.
    #[inline]
    pub fn classify(&self, level: u8) -> usize {
        (level as usize).clamp(1, self.queues.len()) - 1
    }

    #[inline]
    pub fn push(&mut self, q: usize, h: u32, size: u64) {
        self.queues[q].push_back(h);
        self.bytes[q] += size;
        self.nonempty |= 1 << q;
    }

    /// The next packet to send and its queue, from the queues `eligible` allows (bit q:
    /// queue q; a PFC-paused queue is left out); `size` gives a packet's bytes.
    #[inline]
    pub fn pop(&mut self, eligible: u64, size: impl Fn(u32) -> u64) -> Option<(u32, usize)> {
        let ready = self.nonempty & eligible;
        if ready == 0 {
            return None;
        }
        let q = match &self.service {
            PrioService::Strict => 63 - ready.leading_zeros() as usize,
            PrioService::Drr { quantum, weights } => {
                let n = self.queues.len();
                loop {
                    let q = self.turn;
                    // A paused queue loses its turn like an empty one (and its deficit:
                    // DRR's rule for a queue with nothing to send).
                    if ready & (1 << q) == 0 {
                        self.deficit[q] = 0;
                        self.turn = (q + 1) % n;
                        self.turn_open = false;
                        continue;
                    }
                    if !self.turn_open {
                        self.deficit[q] += quantum * weights[q];
                        self.turn_open = true;
                    }
                    let head = size(*self.queues[q].front().expect("non-empty"));
                    if head <= self.deficit[q] {
                        self.deficit[q] -= head;
                        break q;
                    }
                    self.turn = (q + 1) % n;
                    self.turn_open = false;
                }
            }
        };
        let h = self.queues[q].pop_front().expect("non-empty");
        self.bytes[q] -= size(h);
        if self.queues[q].is_empty() {
            self.nonempty &= !(1 << q);
        }
        Some((h, q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strict priority: whatever arrived, the highest level's packets all leave first, and
    /// FIFO order holds inside a level.
    #[test]
    fn strict_priority_serves_the_highest_level_first() {
        let mut p = PrioQueues::new(4, PrioService::Strict);
        // (handle, level): interleaved arrivals of levels 1..4.
        let arrivals = [(0u32, 1u8), (1, 3), (2, 2), (3, 4), (4, 3), (5, 1), (6, 4)];
        for &(h, level) in &arrivals {
            let q = p.classify(level);
            p.push(q, h, 100);
        }
        let order: Vec<u32> = std::iter::from_fn(|| p.pop(u64::MAX, |_| 100).map(|(h, _)| h)).collect();
        assert_eq!(order, vec![3, 6, 1, 4, 2, 0, 5]);
        assert!(p.is_empty());
        assert_eq!(p.bytes, vec![0; 4]);
    }

    /// Levels map one to one onto queues; levels above the queue count share the top one;
    /// "no priority" (0) goes to the bottom.
    #[test]
    fn classification_clamps_to_the_queues() {
        let p = PrioQueues::new(8, PrioService::Strict);
        assert_eq!(p.classify(0), 0);
        assert_eq!(p.classify(1), 0);
        assert_eq!(p.classify(8), 7);
        assert_eq!(p.classify(20), 7);
    }

    /// A queue left out of `eligible` (paused by PFC) is passed over, and served again
    /// once allowed.
    #[test]
    fn ineligible_queues_are_passed_over() {
        for service in [PrioService::Strict, PrioService::Drr { quantum: 100, weights: vec![1, 1] }] {
            let mut p = PrioQueues::new(2, service);
            p.push(1, 10, 100);
            p.push(0, 20, 100);
            assert_eq!(p.pop(0b01, |_| 100), Some((20, 0)), "queue 1 paused");
            assert_eq!(p.pop(0b01, |_| 100), None, "only the paused queue holds packets");
            assert_eq!(p.pop(u64::MAX, |_| 100), Some((10, 1)));
        }
    }

    /// Weighted DRR over always-backlogged queues sends bytes in proportion to the weights.
    #[test]
    fn drr_shares_bytes_by_weight() {
        let weights = vec![1u64, 2, 5];
        let mut p = PrioQueues::new(3, PrioService::Drr { quantum: 1000, weights: weights.clone() });
        for i in 0..30_000u32 {
            p.push((i % 3) as usize, i, 1000);
        }
        let mut sent = [0u64; 3];
        for _ in 0..8000 {
            let (_, q) = p.pop(u64::MAX, |_| 1000).unwrap();
            sent[q] += 1000;
        }
        let total: u64 = sent.iter().sum();
        for q in 0..3 {
            let want = weights[q] as f64 / 8.0;
            let got = sent[q] as f64 / total as f64;
            assert!((got - want).abs() < 0.01, "queue {q}: {got} of the bytes, weight share {want}");
        }
    }
}
