//! An output port: the queue at one end of a unidirectional link, its serialiser, and the
//! propagation pipe to the far end. (Design: htsim's queue + pipe, fused so that one port
//! needs at most one pending "free" event and one pending "arrive" event.)
//!
//! What a port does to packets of a long queue (ECN marking, RED) is its AQM (`net/aqm/`).

use std::collections::VecDeque;

use crate::units::{serialization_q16, Rate, Time};

use super::aqm::AnyAqm;

/// Deficit round robin between two traffic classes (Shreedhar & Varghese 1995), as in the
/// MSwift paper's fair-scheduling experiment (§IV, Fig. 13): each class has its own FIFO
/// and share of the buffer, and each turn a class may send up to `quantum × weight` bytes
/// (carrying the remainder over). Work-conserving: an empty class gives up its turn.
#[derive(Clone, Debug)]
pub struct Drr {
    pub quantum: u64,
    pub weights: [u64; 2],
    pub class_buffer: [u64; 2],
    pub queues: [VecDeque<u32>; 2],
    pub bytes: [u64; 2],
    deficit: [u64; 2],
    active: VecDeque<usize>,
    turn_open: bool,
}

impl Drr {
    pub fn new(quantum: u64, weights: [u64; 2], buffer: u64) -> Drr {
        let total = weights[0] + weights[1];
        Drr {
            quantum,
            weights,
            class_buffer: [buffer * weights[0] / total, buffer * weights[1] / total],
            queues: [VecDeque::new(), VecDeque::new()],
            bytes: [0, 0],
            deficit: [0, 0],
            active: VecDeque::with_capacity(2),
            turn_open: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.active.is_empty()
    }

    pub fn push(&mut self, class: usize, h: u32, size: u64) {
        if self.queues[class].is_empty() {
            self.active.push_back(class);
        }
        self.queues[class].push_back(h);
        self.bytes[class] += size;
    }

    /// The next packet to send and its class; `size` gives a packet's bytes.
    pub fn pop(&mut self, size: impl Fn(u32) -> u64) -> Option<(u32, usize)> {
        while let Some(&c) = self.active.front() {
            if !self.turn_open {
                self.deficit[c] += self.quantum * self.weights[c];
                self.turn_open = true;
            }
            let h = *self.queues[c].front().expect("active classes are non-empty");
            let bytes = size(h);
            if bytes <= self.deficit[c] {
                self.deficit[c] -= bytes;
                self.queues[c].pop_front();
                self.bytes[c] -= bytes;
                if self.queues[c].is_empty() {
                    self.deficit[c] = 0;
                    self.active.pop_front();
                    self.turn_open = false;
                }
                return Some((h, c));
            }
            self.active.rotate_left(1);
            self.turn_open = false;
        }
        None
    }
}

/// Counters of one port. `queue_integral` is byte-picoseconds, so the time-average queue
/// over an interval is its increase divided by the interval's length.
#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    /// Data packets cut to their header here.
    pub trims: u64,
    pub ecn_marks: u64,
    pub max_queue: u64,
    pub queue_integral: u128,
    pub last_change: Time,
}

/// Fields are laid out by how often the per-packet path touches them (`repr(C)` keeps
/// that order): the first cache line holds everything enqueue, transmit and arrival
/// read; counters and configuration used once per packet follow; the rest is cold.
#[repr(C)]
pub struct Port {
    /// Bytes waiting in `queue`.
    pub queued_bytes: u64,
    /// Byte capacity of the queue (not counting the packet being serialised).
    pub buffer: u64,
    /// The serialiser is busy until this time.
    pub busy_until: Time,
    ps_per_byte_q16: u64,
    /// Propagation latency plus the far node's forwarding latency (folded in so that a
    /// switch's processing delay costs no event).
    pub latency: Time,
    /// Node at the far end.
    pub peer: u32,
    /// Node that transmits on this port.
    pub node: u32,
    /// A `PortFree` event is pending.
    pub wake_pending: bool,
    /// A failed link carries nothing; routing avoids it.
    pub up: bool,
    /// The far node belongs to another thread's share of the fabric (`sim/parallel/`):
    /// what this port transmits travels there as a message, not into `pipe`.
    pub remote: bool,
    pub queue: VecDeque<u32>,
    /// ACKs, NACKs and trimmed headers when `ack_priority` is on: served before `queue`,
    /// outside its buffer and ECN.
    pub ctrl: VecDeque<u32>,
    /// Packets on the wire, oldest first, with their arrival times at the far end.
    pub pipe: VecDeque<(Time, u32)>,
    /// The port's queue management (switch ports with ECN or `[switch.aqm]`).
    pub aqm: Option<AnyAqm>,
    /// Two-class scheduling instead of one FIFO (switch ports with `scheduler = "drr"`).
    pub drr: Option<Box<Drr>>,
    /// Physical priority queues instead of one FIFO (`net/prio.rs`).
    pub prio: Option<Box<super::prio::PrioQueues>>,
    pub ack_priority: bool,
    /// Data that does not fit is trimmed to its header instead of dropped.
    pub trimming: bool,
    /// Trimming cuts the arrival or, with equal odds, the last data packet queued
    /// (`switch.trim_victim`, `docs/models/trimming.md`).
    pub trim_tail: bool,
    /// Adaptive routing: the quantised queue level and when it was last read.
    pub ar_level: u8,
    pub ar_at: Time,
    /// Probability that a packet is lost on this link (fault injection).
    pub loss_rate: f64,
    pub stats: PortStats,
    pub rate: Rate,
}

impl Port {
    /// Every packet waiting at the port, whichever of its queues holds it (the one being
    /// serialised has left them).
    pub fn waiting(&self) -> impl Iterator<Item = u32> + '_ {
        let drr = self.drr.iter().flat_map(|d| d.queues.iter().flat_map(|q| q.iter().copied()));
        let prio = self.prio.iter().flat_map(|p| p.handles());
        self.queue.iter().chain(&self.ctrl).copied().chain(drr).chain(prio)
    }

    /// Bytes of the port itself (struct and scheduler state), apart from its packets.
    pub fn fixed_bytes(&self) -> u64 {
        use std::mem::size_of;
        (size_of::<Port>()
            + self.drr.as_ref().map_or(0, |_| size_of::<Drr>())
            + self.prio.as_ref().map_or(0, |_| size_of::<super::prio::PrioQueues>())) as u64
    }

    /// Bytes of its queues' and pipe's capacities: a 4-byte handle per queued packet, 12
    /// bytes per packet on the wire.
    pub fn packet_bytes(&self) -> u64 {
        ((self.queue.capacity() + self.ctrl.capacity()) * 4 + self.pipe.capacity() * std::mem::size_of::<(Time, u32)>())
            as u64
    }

    pub fn new(node: u32, peer: u32, rate: Rate, latency: Time, buffer: u64) -> Port {
        Port {
            queued_bytes: 0,
            buffer,
            busy_until: Time::ZERO,
            ps_per_byte_q16: rate.ps_per_byte_q16(),
            latency,
            peer,
            node,
            wake_pending: false,
            up: true,
            remote: false,
            queue: VecDeque::new(),
            ctrl: VecDeque::new(),
            pipe: VecDeque::new(),
            aqm: None,
            drr: None,
            prio: None,
            ack_priority: false,
            trimming: false,
            trim_tail: false,
            ar_level: 0,
            ar_at: Time::ZERO,
            loss_rate: 0.0,
            stats: PortStats::default(),
            rate,
        }
    }

    /// Serialises at `rate` from now on (a degraded link, `fault.rs`).
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = rate;
        self.ps_per_byte_q16 = rate.ps_per_byte_q16();
    }

    #[inline]
    pub fn serialization(&self, bytes: u32) -> Time {
        serialization_q16(bytes as u64, self.ps_per_byte_q16)
    }

    #[inline]
    pub fn is_idle(&self, now: Time) -> bool {
        now >= self.busy_until
    }

    /// Packets wait in any of the port's queues.
    #[inline]
    pub fn has_queued(&self) -> bool {
        !self.queue.is_empty()
            || !self.ctrl.is_empty()
            || self.drr.as_ref().is_some_and(|d| !d.is_empty())
            || self.prio.as_ref().is_some_and(|q| !q.is_empty())
    }

    /// Nothing in service, waiting, or about to be woken: a new packet can go at once.
    #[inline]
    pub fn is_quiet(&self, now: Time) -> bool {
        self.is_idle(now) && !self.wake_pending && !self.has_queued()
    }

    /// Adds `delta` bytes (may be negative) to the occupancy, keeping the time integral.
    #[inline]
    pub fn change_occupancy(&mut self, now: Time, delta: i64) {
        let s = &mut self.stats;
        s.queue_integral += self.queued_bytes as u128 * (now.0 - s.last_change.0) as u128;
        s.last_change = now;
        self.queued_bytes = (self.queued_bytes as i64 + delta) as u64;
        if self.queued_bytes > s.max_queue {
            s.max_queue = self.queued_bytes;
        }
    }

    /// Zeroes the counters (e.g. at the end of a warm-up), keeping the queue.
    pub fn reset_stats(&mut self, now: Time) {
        self.stats = PortStats { last_change: now, max_queue: self.queued_bytes, ..PortStats::default() };
    }

    /// Mean occupancy in bytes over [since, now], given the integral observed at `since`.
    pub fn mean_queue_since(&self, now: Time, since: Time, integral_then: u128) -> f64 {
        let integral_now =
            self.stats.queue_integral + self.queued_bytes as u128 * (now.0 - self.stats.last_change.0) as u128;
        (integral_now - integral_then) as f64 / (now.0 - since.0).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::aqm::red::Red as EcnPolicy;
    use crate::net::aqm::{MarkDecision, MarkIf, MarkPoint};

    fn step(k: u64, mark_if: MarkIf) -> EcnPolicy {
        EcnPolicy { kmin: k, kmax: k, pmax: 1.0, at: MarkPoint::Enqueue, mark_if }
    }

    /// docs/reproductions/dctcp-vs-swift-paper.md, A1: with K = 250 packets an arriving ECT packet is marked
    /// iff q > K (paper) or q >= K (ns-3 mode).
    #[test]
    fn a1_step_marker_threshold() {
        let pkt = 1500;
        let k = 250 * pkt;
        let paper = step(k, MarkIf::Above);
        let ns3 = step(k, MarkIf::AtOrAbove);
        for q in [0u64, 100, 249, 250, 251, 2665] {
            let is = |d: MarkDecision| matches!(d, MarkDecision::Yes);
            assert_eq!(is(paper.decide_at(q * pkt)), q > 250, "paper mode, q = {q}");
            assert_eq!(is(ns3.decide_at(q * pkt)), q >= 250, "ns-3 mode, q = {q}");
        }
    }

    /// Two always-backlogged classes with weights 1:1 and 4160-byte packets against a
    /// 4096-byte quantum share the bytes equally; with 3:1, three to one.
    #[test]
    fn drr_shares_by_weight() {
        for (weights, expect) in [([1u64, 1], 1.0), ([3, 1], 3.0)] {
            let mut d = Drr::new(4096, weights, 1 << 30);
            for i in 0..20_000u32 {
                d.push((i % 2) as usize, i, 4160);
            }
            let mut sent = [0u64; 2];
            for _ in 0..4000 {
                let (_, c) = d.pop(|_| 4160).unwrap();
                sent[c] += 4160;
            }
            let ratio = sent[0] as f64 / sent[1] as f64;
            assert!((ratio - expect).abs() / expect < 0.01, "weights {weights:?}: ratio {ratio}");
        }
    }

    /// docs/reproductions/smartt-paper.md, U8 (RED part) with the paper's Kmin = 20 %, Kmax = 80 % of
    /// a 1-BDP queue (276 packets of 4160 B) and htsim's ramp to 1 at Kmax: the marked
    /// fraction over 10⁵ dequeues is 0 at or below Kmin, 0.5 ± 0.02 at the midpoint and 1
    /// above Kmax.
    #[test]
    fn u8_red_dequeue_mark_probability() {
        let q = 276 * 4160u64;
        let red = EcnPolicy { kmin: q / 5, kmax: q * 4 / 5, pmax: 1.0, at: MarkPoint::Dequeue, mark_if: MarkIf::Above };
        let mut rng = crate::engine::Rng::stream(1, "red");
        let mut fraction = |queued: u64| {
            let marked = (0..100_000)
                .filter(|_| match red.decide_at(queued) {
                    MarkDecision::No => false,
                    MarkDecision::Yes => true,
                    MarkDecision::Ramp(p) => rng.next_f64() < p,
                })
                .count();
            marked as f64 / 100_000.0
        };
        assert_eq!(fraction(q / 5), 0.0);
        assert!((fraction(q / 2) - 0.5).abs() < 0.02);
        assert_eq!(fraction(q * 4 / 5 + 1), 1.0);
    }

    #[test]
    fn red_ramp_is_linear_between_thresholds() {
        let red = EcnPolicy { kmin: 100, kmax: 300, pmax: 0.5, at: MarkPoint::Dequeue, mark_if: MarkIf::Above };
        assert!(matches!(red.decide_at(100), MarkDecision::No));
        match red.decide_at(200) {
            MarkDecision::Ramp(p) => assert!((p - 0.25).abs() < 1e-12),
            _ => panic!("expected the ramp"),
        }
        assert!(matches!(red.decide_at(301), MarkDecision::Yes));
    }
}
