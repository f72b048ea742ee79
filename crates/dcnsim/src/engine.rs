//! The event engine: a priority queue of small `Copy` events, and deterministic random
//! streams derived from the scenario seed by name.
//!
//! Events are ordered by (time, tie key), where the tie key is a seeded bijective hash of
//! the insertion counter. DESIGN.md suggests breaking ties by plain insertion order; we
//! deviate on purpose. With equal link rates and latencies, packets from different inputs
//! reach a queue at exactly the same picosecond all the time, and insertion order then
//! always favours the same sender: two DCTCP flows on one bottleneck settled at a
//! persistent 55:45 split (Jain 0.989) purely from that. Hashing the counter models the
//! switch's arbitration between simultaneous arrivals as a fair coin, and is still
//! deterministic: same seed, same order, bit for bit.

use crate::units::Time;

/// Everything that can happen. Payloads are dense indices into the simulation's tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A port finished serialising a packet and may start the next one.
    PortFree(u32),
    /// The packet at the head of a port's propagation pipe reaches the far end.
    PipeArrive(u32),
    /// One or more flows (sorted by start time) begin.
    FlowStarts,
    /// A paced flow may send again.
    FlowWake(u32),
    /// A flow's retransmission timer may have expired (checked lazily).
    Rto(u32),
    /// A receiver's delayed-ACK timer.
    DelayedAck(u32),
    /// Time-series sampling tick.
    Sample,
    /// A PFC PAUSE or RESUME reaches its upstream port (`net::pfc::PfcFrame::encode`).
    Pfc(u32),
    /// Scenario `duration` reached.
    Stop,
    /// A flow's probe timer (PrioPlus; checked lazily against what the algorithm wants).
    Probe(u32),
    /// A receiving host's EQDS pull pacer may send its next pull.
    Pull(u32),
}

/// An event waiting in a radix bucket: it still needs its time.
#[derive(Copy, Clone)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

/// An event due at exactly `EventQueue::last`: only the tie key is left to order by.
#[derive(Copy, Clone)]
struct Tie {
    seq: u64,
    event: Event,
}

/// A radix heap on time, with the events due at the current instant kept apart in a small
/// min-heap on the tie key.
///
/// Why a radix heap: simulated time never goes backwards (nothing is scheduled before
/// `now`), which is exactly the monotone case radix heaps exist for. Bucket `b` holds the
/// events whose time first differs from `last` (the time most recently reached) in bit
/// `b`; scheduling is a push onto a `Vec`, and an event is only touched again when its
/// bucket becomes the lowest non-empty one and gets spread over the buckets below, which
/// happens a few times per event rather than the ~log4(n) compare-and-move levels of a
/// heap pop. On the 128-host htsim benchmarks the 4-ary heap's pop was about 40 % of all
/// instructions.
///
/// Why the separate `ties` heap: events are ordered by (time, seq), and an event may be
/// scheduled at exactly `now` with a seq lower than that of an event already popped at
/// `now`, so the full 128-bit key is not monotone and a radix heap on it would be wrong.
/// Time alone is monotone: the buckets order by time, and everything due at `last` waits
/// in `ties`, ordered by seq, which is usually only one or a few events.
///
/// `last` only moves to a time that is popped at once, so `last <= now` and every event
/// ever scheduled (at or after `now`) has a time at or after `last`.
pub struct EventQueue {
    /// Binary min-heap on `seq` of the events due at `last`.
    ties: Vec<Tie>,
    /// `buckets[level * RADIX + digit]`, see `bucket_of`.
    buckets: Vec<Vec<Entry>>,
    /// Bit `digit` of `occupied[level]` is set iff that bucket is not empty.
    occupied: [u64; LEVELS],
    /// Bit `level` set iff `occupied[level] != 0`.
    levels: u64,
    last: u64,
    len: usize,
    seq: u64,
    tie_salt: u64,
    now: Time,
    processed: u64,
}

impl EventQueue {
    /// A queue whose simultaneous events are ordered by a hash salted with `tie_seed`.
    pub fn new(tie_seed: u64) -> Self {
        EventQueue {
            ties: Vec::with_capacity(64),
            buckets: (0..LEVELS * RADIX).map(|_| Vec::new()).collect(),
            occupied: [0; LEVELS],
            levels: 0,
            last: 0,
            len: 0,
            seq: 0,
            tie_salt: splitmix64(tie_seed ^ 0x7469_6562_7265_616b),
            now: Time::ZERO,
            processed: 0,
        }
    }

    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events handed out by `pop_until` so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        // splitmix64 is a bijection: distinct counters give distinct keys, a total order.
        let seq = splitmix64(self.seq ^ self.tie_salt);
        self.seq += 1;
        self.len += 1;
        if at.0 == self.last {
            tie_push(&mut self.ties, Tie { seq, event });
        } else {
            let (level, digit) = bucket_of(at.0, self.last);
            self.buckets[level * RADIX + digit].push(Entry { time: at.0, seq, event });
            self.occupied[level] |= 1 << digit;
            self.levels |= 1 << level;
        }
    }

    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: Event) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        if !self.ties.is_empty() {
            return Some(Time(self.last));
        }
        if self.levels == 0 {
            return None;
        }
        self.buckets[self.first_bucket()].iter().map(|e| e.time).min().map(Time)
    }

    /// Removes and returns the next event if it is due at or before `limit`, advancing `now`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<Event> {
        if self.ties.is_empty() && !self.refill(limit.0) {
            return None;
        }
        if self.last > limit.0 {
            return None;
        }
        let top = tie_pop(&mut self.ties);
        self.len -= 1;
        self.now = Time(self.last);
        self.processed += 1;
        Some(top.event)
    }

    /// The lowest non-empty bucket (there must be one).
    #[inline(always)]
    fn first_bucket(&self) -> usize {
        let level = self.levels.trailing_zeros() as usize;
        level * RADIX + self.occupied[level].trailing_zeros() as usize
    }

    /// Moves the events due at the earliest pending time into `ties`, unless there are none
    /// or that time is after `limit` (then nothing changes, keeping `last <= now`).
    #[inline(never)]
    fn refill(&mut self, limit: u64) -> bool {
        if self.levels == 0 {
            return false;
        }
        let b = self.first_bucket();
        let (lower, upper) = self.buckets.split_at_mut(b);
        let src = &mut upper[0];
        let min = src.iter().map(|e| e.time).min().unwrap();
        if min > limit {
            return false;
        }
        // All events in bucket (level, digit) agree with `last` above that level and have
        // `digit` in it; as every lower bucket is empty, `min` is among them, so they all
        // agree with `min` down to that level and land in lower levels (or in `ties`). The
        // other buckets keep their place: they differ from `min` where they differed from
        // `last`.
        let (level, digit) = (b / RADIX, b % RADIX);
        self.last = min;
        self.occupied[level] &= !(1 << digit);
        if self.occupied[level] == 0 {
            self.levels &= !(1 << level);
        }
        for e in src.drain(..) {
            if e.time == min {
                tie_push(&mut self.ties, Tie { seq: e.seq, event: e.event });
            } else {
                let (l, d) = bucket_of(e.time, min);
                lower[l * RADIX + d].push(e);
                self.occupied[l] |= 1 << d;
                self.levels |= 1 << l;
            }
        }
        true
    }

    /// Moves the clock forward to `t` when no event is left before it.
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

/// Bits of time per bucket level: each level has `RADIX` buckets, one per value of its
/// digit, so an event moves down at most `LEVELS` times and, in practice, once or twice
/// (radix 2 measured about three moves per event; see the commit log for the numbers).
const RADIX_BITS: u32 = 4;
const RADIX: usize = 1 << RADIX_BITS;
const LEVELS: usize = (64 + RADIX_BITS as usize - 1) / RADIX_BITS as usize;

/// The bucket of an event at `time` when the queue has reached `last` (`time > last`):
/// the level is the highest `RADIX_BITS`-bit digit in which they differ, and the digit is
/// `time`'s value there.
#[inline(always)]
fn bucket_of(time: u64, last: u64) -> (usize, usize) {
    let level = (63 - (time ^ last).leading_zeros()) / RADIX_BITS;
    (level as usize, ((time >> (level * RADIX_BITS)) as usize) & (RADIX - 1))
}

#[inline]
fn tie_push(h: &mut Vec<Tie>, t: Tie) {
    h.push(t);
    let h = &mut h[..];
    let mut i = h.len() - 1;
    while i > 0 {
        let parent = (i - 1) / 2;
        if t.seq < h[parent].seq {
            h[i] = h[parent];
            i = parent;
        } else {
            break;
        }
    }
    h[i] = t;
}

/// Pops the least seq from a non-empty tie heap.
#[inline]
fn tie_pop(h: &mut Vec<Tie>) -> Tie {
    let last = h.pop().unwrap();
    let h = &mut h[..];
    if h.is_empty() {
        return last;
    }
    let top = h[0];
    let n = h.len();
    let mut i = 0;
    loop {
        let l = 2 * i + 1;
        if l >= n {
            break;
        }
        let c = if l + 1 < n && h[l + 1].seq < h[l].seq { l + 1 } else { l };
        if h[c].seq < last.seq {
            h[i] = h[c];
            i = c;
        } else {
            break;
        }
    }
    h[i] = last;
    top
}

/// SplitMix64 step: used to derive stream seeds and as a fast hash.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(name: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// A deterministic random stream (xoshiro256**). Each named stream is seeded from the root
/// seed and its name only, so adding a new stream never shifts the numbers of another.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn stream(root_seed: u64, name: &str) -> Rng {
        let mut x = splitmix64(root_seed ^ fnv1a(name).rotate_left(17));
        let mut s = [0u64; 4];
        for v in s.iter_mut() {
            x = splitmix64(x);
            *v = x;
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 for our n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut EventQueue) -> Vec<(u64, Event)> {
        let mut got = vec![];
        while let Some(e) = q.pop_until(Time::MAX) {
            got.push((q.now().0, e));
        }
        got
    }

    fn filled(seed: u64) -> EventQueue {
        let mut q = EventQueue::new(seed);
        q.schedule(Time(10), Event::FlowWake(1));
        q.schedule(Time(5), Event::FlowWake(0));
        for i in 2..6 {
            q.schedule(Time(10), Event::FlowWake(i));
        }
        q
    }

    #[test]
    fn ties_break_reproducibly_and_fairly() {
        let a = drain(&mut filled(1));
        assert_eq!(a, drain(&mut filled(1)), "same seed, same order");
        assert_eq!(a[0], (5, Event::FlowWake(0)), "time comes first");
        assert!(a[1..].iter().all(|(t, _)| *t == 10));
        // The first-inserted of two simultaneous events wins about half the time over
        // many seeds (a fair arbiter), not always.
        let mut first_wins = 0;
        for seed in 0..1000 {
            let mut q = EventQueue::new(seed);
            q.schedule(Time(1), Event::FlowWake(0));
            q.schedule(Time(1), Event::FlowWake(1));
            if q.pop_until(Time::MAX) == Some(Event::FlowWake(0)) {
                first_wins += 1;
            }
        }
        assert!((400..=600).contains(&first_wins), "{first_wins} of 1000");
        assert_eq!(q_len(filled(3)), 6);
    }

    /// The queue against a model that just sorts by (time, seq) with the documented seq
    /// values, over random mixes of schedules (many at the same instant, many at exactly
    /// `now`, some far ahead), pops with and without a limit, and `advance_to` past the
    /// next event as `Simulation::run_until` does when it stops at a limit.
    #[test]
    fn pops_in_reference_order() {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        for seed in 0..40u64 {
            let mut rng = Rng::stream(seed, "evq-reference");
            let mut q = EventQueue::new(seed);
            let salt = splitmix64(seed ^ 0x7469_6562_7265_616b);
            let mut model: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
            let mut counter = 0u64;
            let mut popped = 0u64;
            for _ in 0..3000 {
                for _ in 0..rng.below(4) {
                    let delay = match rng.below(6) {
                        0 => 0,
                        1 => rng.below(3),
                        2 => rng.below(1000),
                        3 => 80_000 * rng.below(4),
                        4 => rng.below(1 << 24),
                        _ => rng.below(1 << 45),
                    };
                    let at = q.now().0 + delay;
                    q.schedule(Time(at), Event::FlowWake(counter as u32));
                    model.push(Reverse((at, splitmix64(counter ^ salt), counter as u32)));
                    counter += 1;
                }
                let limit = match rng.below(4) {
                    0 => q.now().0 + rng.below(100_000),
                    _ => u64::MAX,
                };
                for _ in 0..rng.below(4) {
                    let want = model.peek().map(|r| r.0).filter(|k| k.0 <= limit);
                    let got = q.pop_until(Time(limit));
                    match want {
                        Some((t, _, id)) => {
                            model.pop();
                            popped += 1;
                            assert_eq!(got, Some(Event::FlowWake(id)), "seed {seed}");
                            assert_eq!(q.now().0, t);
                        }
                        None => {
                            assert_eq!(got, None, "seed {seed}");
                            if limit != u64::MAX {
                                q.advance_to(Time(limit));
                            }
                            break;
                        }
                    }
                }
                assert_eq!(q.len(), model.len());
                assert_eq!(q.peek_time(), model.peek().map(|r| Time(r.0 .0)));
            }
            while let Some(Reverse((t, _, id))) = model.pop() {
                assert_eq!(q.pop_until(Time::MAX), Some(Event::FlowWake(id)));
                assert_eq!(q.now().0, t);
                popped += 1;
            }
            assert!(q.is_empty() && q.pop_until(Time::MAX).is_none());
            assert_eq!(q.processed(), popped);
        }
    }

    /// A burst of events at one instant, with more scheduled at that instant while it
    /// drains (a switch hearing from many inputs in the same picosecond): each pop must be
    /// the least seq still pending, including the ones added after the instant began.
    #[test]
    fn same_instant_events_scheduled_while_draining() {
        let mut q = EventQueue::new(5);
        let salt = splitmix64(5 ^ 0x7469_6562_7265_616b);
        let mut pending = vec![];
        for i in 0..100u64 {
            q.schedule(Time(1000), Event::PortFree(i as u32));
            pending.push((splitmix64(i ^ salt), i as u32));
        }
        for i in 100..300u64 {
            pending.sort();
            let (_, want) = pending.remove(0);
            assert_eq!(q.pop_until(Time::MAX), Some(Event::PortFree(want)));
            assert_eq!(q.now(), Time(1000));
            if i < 200 {
                q.schedule(q.now(), Event::PortFree(i as u32));
                pending.push((splitmix64(i ^ salt), i as u32));
            }
        }
        assert!(q.is_empty());
    }

    fn q_len(q: EventQueue) -> usize {
        q.len()
    }

    #[test]
    fn heap_orders_many_random_events() {
        let mut rng = Rng::stream(7, "test");
        let mut q = EventQueue::new(9);
        let mut times: Vec<u64> = (0..5000).map(|_| rng.below(1000)).collect();
        for (i, t) in times.iter().enumerate() {
            q.schedule(Time(*t), Event::FlowWake(i as u32));
        }
        times.sort();
        for t in times {
            assert!(q.pop_until(Time::MAX).is_some());
            assert_eq!(q.now().0, t);
        }
        assert!(q.is_empty());
        assert_eq!(q.processed(), 5000);
    }

    #[test]
    fn run_until_stops_at_limit() {
        let mut q = EventQueue::new(0);
        q.schedule(Time(100), Event::Sample);
        assert!(q.pop_until(Time(99)).is_none());
        assert!(q.pop_until(Time(100)).is_some());
    }

    #[test]
    fn named_streams_are_independent_and_reproducible() {
        let draw = |seed, name| -> Vec<u64> {
            let mut r = Rng::stream(seed, name);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(draw(1, "workload"), draw(1, "workload"));
        assert_ne!(draw(1, "workload"), draw(1, "spray"));
        assert_ne!(draw(1, "workload"), draw(2, "workload"));
        let mut r = Rng::stream(3, "u");
        let mean: f64 = (0..100_000).map(|_| r.next_f64()).sum::<f64>() / 1e5;
        assert!((mean - 0.5).abs() < 0.01);
    }
}
