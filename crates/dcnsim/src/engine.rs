//! The event engine: a priority queue of small `Copy` events, and deterministic random
//! streams derived from the scenario seed by name.
//!
//! Events are ordered by (time, tie key), where the tie key is a seeded hash of the time
//! and the event itself (`EventQueue::tie_key`). Breaking ties by plain insertion order
//! would be the obvious choice (docs/architecture.md); we deviate on purpose. With equal link rates and latencies, packets from different inputs
//! reach a queue at exactly the same picosecond all the time, and insertion order then
//! always favours the same sender: two DCTCP flows on one bottleneck settled at a
//! persistent 55:45 split (Jain 0.989) purely from that. Hashing models the switch's
//! arbitration between simultaneous arrivals as a fair coin, and is still deterministic:
//! same seed, same order, bit for bit. The key hashes what happens and when, never a
//! global insertion counter, so that a run split over threads (`sim/parallel/`) orders
//! each component's events exactly as one thread does (an earlier version hashed the
//! counter).

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
    /// A LAPS path's retransmission timer (`laps::PathTable`; checked lazily).
    PathRto(u32),
    /// A flow that waited for others begins (after its gap, `workload::Dependencies`).
    FlowBegins(u32),
    /// Step `i` of the fault plan (`fault::FaultPlan`) is due.
    Fault(u32),
    /// ConWeave: flow `f`'s reorder queue may be due for release without its TAIL
    /// (checked lazily).
    VoqRelease(u32),
    /// Reply packet `h`, held by its receiving host (`noise::NoiseAt::Receiver`), goes to
    /// the host's NIC.
    ReplyHeld(u32),
    /// A switch checks whether to renew the PAUSE it sent (an encoded `PfcFrame`) before it
    /// runs out (`switch.pfc.dynamic.resume = "offset_or_expiry"`; checked lazily).
    PfcRecheck(u32),
}

impl Event {
    /// The event as one number: its kind above bit 32, its payload below. Distinct events
    /// have distinct codes.
    #[inline(always)]
    pub fn code(self) -> u64 {
        let (kind, payload): (u64, u32) = match self {
            Event::PortFree(p) => (0, p),
            Event::PipeArrive(p) => (1, p),
            Event::FlowStarts => (2, 0),
            Event::FlowWake(f) => (3, f),
            Event::Rto(f) => (4, f),
            Event::DelayedAck(f) => (5, f),
            Event::Sample => (6, 0),
            Event::Pfc(v) => (7, v),
            Event::Stop => (8, 0),
            Event::Probe(f) => (9, f),
            Event::Pull(h) => (10, h),
            Event::PathRto(p) => (11, p),
            Event::FlowBegins(f) => (12, f),
            Event::Fault(i) => (13, i),
            Event::VoqRelease(f) => (14, f),
            Event::ReplyHeld(h) => (15, h),
            Event::PfcRecheck(v) => (16, v),
        };
        kind << 32 | payload as u64
    }
}

#[derive(Copy, Clone)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl Entry {
    /// (time, tie) as one 128-bit integer: a branch-free comparison, which profiling
    /// showed matters (the heap's compares were the hottest lines of a 1024-host run).
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
}

/// Width of a wheel slot: 2^10 ps, about 1 ns.
const SLOT_BITS: u32 = 10;
/// Slots in the wheel: 4096 of them span 4.2 us ahead of the current slot.
const WHEEL: usize = 1 << 12;
/// A batch takes in the slots after its first while it holds fewer events than this and
/// they lie within `BATCH_SPAN` slots of the first. Where events are sparse (an incast's
/// one packet per slot) a batch per slot cost a refill per event; where they are dense (a
/// permutation's 9 per slot) one slot already fills it.
const BATCH_MIN: usize = 8;
/// 256 slots, about 262 ns: less than a link's latency and a full packet's serialisation
/// at 100 Gb/s, so few new events land inside a batch's span (where they go to `near`).
/// Measured on the 127:1 incast (callgrind): 64 slots -5.8 % instructions, 256 -7.5 %,
/// 512 and 1024 the same as 256; a batch of at least 16 or 32 events cost the permutations.
const BATCH_SPAN: u64 = 256;

/// A timing wheel of unsorted slots in front of a sorted batch and two small heaps.
///
/// Almost every event is scheduled a little ahead of `now`: a port frees up one
/// serialisation time later (333 ns for 4 KiB at 100 Gb/s), a packet arrives one link
/// latency later (about 1 us). So the wheel files each event in O(1) into the ~1 ns slot
/// of its time, and only the events of the current slot (with the next few slots' where
/// it holds few) are sorted on the full (time, seq) key when it comes up: the `batch`.
/// Events filed into the batch's slots after that (at `now` or a few ns on) go to
/// `near`, a binary heap, and each pop takes the lesser of the two. The 4-ary heap this replaces paid ~log4(n)
/// compare-and-move levels per pop over a queue of thousands. Events beyond the wheel's
/// reach (timeouts, sampling ticks, the end of the run) wait in `far`, a 4-ary heap, and
/// join the batch when their slot comes up.
///
/// Order is exactly (time, seq): the batch and `near` together hold every event up to
/// slot `cur`, each in order; every other event is in a later slot. So an event
/// scheduled at exactly `now` with a seq lower than one already popped simply pops next,
/// as it should.
///
/// The slot width and reach are fixed, sized for 100-800 Gb/s links with sub-10 us
/// latencies. Outside that the structure degrades, it does not break: slower or longer
/// links send more events to `far` (the old heap), much faster ones put more events in
/// each slot's batch. A radix heap on the time (same `near` idea for ties) measured
/// between the tuned 4-ary heap and this wheel; see the commit log for the numbers.
pub struct EventQueue {
    /// The events of the slots up to `cur` as they were when they came up, sorted by key; the ones
    /// before `batch_next` are popped. A 1024-host fabric with equal links puts
    /// hundreds of events in one slot, and one sort of them is far cheaper than a heap
    /// pop per event.
    batch: Vec<Entry>,
    batch_next: usize,
    /// Binary min-heap of the events filed at or before slot `cur` after it came up.
    near: Vec<Entry>,
    /// `heads[k % WHEEL]` is the first node of the list of slot k's events (unsorted),
    /// for `cur < k < cur + WHEEL`; `NIL` when the slot is empty. Fixed-size arrays
    /// (here and `occupied`): indices taken modulo `WHEEL` then need no bounds check on
    /// the per-event insert.
    heads: Box<[u32; WHEEL]>,
    /// The wheel's events live in one pool of list nodes rather than a `Vec` per slot:
    /// per-slot buffers each kept the capacity of the largest burst that ever fell in
    /// them, 45 MB of a 1024-host run's 56 MB of state, where the pool holds only the
    /// events pending at the peak (and its recently freed nodes are the ones reused,
    /// so they are still in cache).
    nodes: Vec<Node>,
    /// Head of the list of free nodes in `nodes`.
    free: u32,
    /// Bit k % WHEEL set iff that wheel slot is not empty.
    occupied: Box<[u64; WHEEL / 64]>,
    /// 4-ary min-heap of the events at or after slot `cur + WHEEL` when scheduled.
    far: Vec<Entry>,
    /// Absolute number (time >> SLOT_BITS) of the slot `near` holds.
    cur: u64,
    len: usize,
    tie_salt: u64,
    now: Time,
    processed: u64,
}

/// A wheel event and the next node of its slot's (or the free) list.
#[derive(Copy, Clone)]
struct Node {
    entry: Entry,
    next: u32,
}

const NIL: u32 = u32::MAX;

impl EventQueue {
    /// A queue whose simultaneous events are ordered by a hash salted with `tie_seed`.
    pub fn new(tie_seed: u64) -> Self {
        EventQueue {
            batch: Vec::with_capacity(64),
            batch_next: 0,
            near: Vec::with_capacity(64),
            heads: Box::new([NIL; WHEEL]),
            nodes: Vec::new(),
            free: NIL,
            occupied: Box::new([0; WHEEL / 64]),
            far: Vec::new(),
            cur: 0,
            len: 0,
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

    /// Bytes the queue holds at its high-water mark.
    pub fn heap_bytes(&self) -> u64 {
        let entry = std::mem::size_of::<Entry>();
        ((self.batch.capacity() + self.near.capacity() + self.far.capacity()) * entry
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.heads.len() * 4
            + self.occupied.len() * 8) as u64
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    ///
    /// Always inlined: it runs for nearly every event, and the common case (a slot
    /// within the wheel's reach) is a few stores; the rest is out of line.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let e = Entry { time: at.0, seq: self.tie_key(at, event), event };
        self.insert(e);
    }

    /// The tie key of `event` at `at`: a seeded hash of the time and the event itself,
    /// never of when it was scheduled, so that a component's events keep their order
    /// however the run is split over threads (`sim/parallel/`). For a fixed time the hash
    /// is a bijection of the event's code, so distinct events never tie; equal events
    /// (a lazy timer scheduled twice for the same instant) do the same thing in either
    /// order. The time in the hash makes the coin between two simultaneous arrivals a
    /// fresh one at every instant, not the same winner every time.
    #[inline(always)]
    fn tie_key(&self, at: Time, event: Event) -> u64 {
        // One mixing round: the odd multiple spreads the time over every bit before the
        // XOR, and splitmix64 of (code XOR a constant of the instant) is a bijection of
        // the code.
        splitmix64(event.code() ^ at.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.tie_salt)
    }

    /// Schedules an observer's event (a sampling tick) so that it changes nothing it
    /// observes: it takes no number from the tie-breaking sequence, so every other
    /// event keeps the order it has without it, and it comes after the other events of
    /// its instant, so it sees that instant's final state.
    pub fn schedule_last(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.insert(Entry { time: at.0, seq: u64::MAX, event });
    }

    #[inline(always)]
    fn insert(&mut self, e: Entry) {
        self.len += 1;
        let slot = e.time >> SLOT_BITS;
        // One compare for cur < slot < cur + WHEEL.
        if slot.wrapping_sub(self.cur).wrapping_sub(1) < (WHEEL - 1) as u64 {
            let i = slot as usize % WHEEL;
            let node = Node { entry: e, next: self.heads[i] };
            // The free list's head, if any: `get_mut(NIL)` is `None` (the pool never holds
            // u32::MAX nodes), so one bounds check stands for the test and the indexing.
            let n = if let Some(free) = self.nodes.get_mut(self.free as usize) {
                let n = self.free;
                self.free = free.next;
                *free = node;
                n
            } else {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            };
            self.heads[i] = n;
            self.occupied[i / 64] |= 1 << (i % 64);
        } else {
            self.schedule_off_wheel(e, slot);
        }
    }

    /// An event in the current slot (or before it) goes to `near`, one beyond the
    /// wheel's reach to `far`.
    #[inline(never)]
    fn schedule_off_wheel(&mut self, e: Entry, slot: u64) {
        if slot <= self.cur {
            heap_push::<2>(&mut self.near, e);
        } else {
            heap_push::<4>(&mut self.far, e);
        }
    }

    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: Event) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(t) = self.current_first() {
            return Some(Time(t));
        }
        let wheel = self.next_wheel_slot().map(|k| {
            let (mut n, mut min) = (self.heads[k as usize % WHEEL], u64::MAX);
            while n != NIL {
                min = min.min(self.nodes[n as usize].entry.time);
                n = self.nodes[n as usize].next;
            }
            min
        });
        let far = self.far.first().map(|e| e.time);
        match (wheel, far) {
            (Some(w), Some(f)) => Some(Time(w.min(f))),
            (w, f) => w.or(f).map(Time),
        }
    }

    /// Removes and returns the next event if it is due at or before `limit`, advancing `now`.
    #[inline(always)]
    pub fn pop_until(&mut self, limit: Time) -> Option<Event> {
        loop {
            let from_batch = match (self.batch.get(self.batch_next), self.near.first()) {
                (Some(b), Some(n)) => b.key() < n.key(),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => {
                    if !self.refill() {
                        return None;
                    }
                    continue;
                }
            };
            let top = if from_batch { self.batch[self.batch_next] } else { self.near[0] };
            if top.time > limit.0 {
                return None;
            }
            if from_batch {
                self.batch_next += 1;
            } else {
                near_pop(&mut self.near);
            }
            self.len -= 1;
            self.now = Time(top.time);
            self.processed += 1;
            return Some(top.event);
        }
    }

    /// The event `ahead` places after the next in the current slot's batch, if there is
    /// one: what the simulation will touch soon, to prefetch. (An event filed into the
    /// slot since it came up may pop before it; that only makes the hint early.)
    #[inline(always)]
    pub fn peek_batch(&self, ahead: usize) -> Option<Event> {
        self.batch.get(self.batch_next + ahead).map(|e| e.event)
    }

    /// Time of the first event of slot `cur` not yet popped, if any.
    #[inline]
    fn current_first(&self) -> Option<u64> {
        let b = self.batch.get(self.batch_next).map(|e| e.time);
        let n = self.near.first().map(|e| e.time);
        match (b, n) {
            (Some(b), Some(n)) => Some(b.min(n)),
            (b, n) => b.or(n),
        }
    }

    /// The absolute number of the first occupied wheel slot after `cur`, if any.
    #[inline]
    fn next_wheel_slot(&self) -> Option<u64> {
        // Usually within the same 64 slots (64 ns).
        let from = (self.cur + 1) as usize % WHEEL;
        let (w0, b0) = (from / 64, from % 64);
        let bits = self.occupied[w0] >> b0;
        if bits != 0 {
            return Some(self.cur + 1 + bits.trailing_zeros() as u64);
        }
        self.next_wheel_slot_far(from)
    }

    #[cold]
    fn next_wheel_slot_far(&self, from: usize) -> Option<u64> {
        let words = WHEEL / 64;
        let (w0, b0) = (from / 64, from % 64);
        // The first word's bits from `from` on are known empty; its bits below `from`
        // (slots that wrapped around) come last.
        for step in 1..=words {
            let w = (w0 + step) % words;
            let mut bits = self.occupied[w];
            if step == words {
                bits &= !(!0u64 << b0);
            }
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                let ahead = (i + WHEEL - from) % WHEEL;
                return Some(self.cur + 1 + ahead as u64);
            }
        }
        None
    }

    /// Makes the earliest non-empty slot the batch, with the slots after it while the
    /// batch is short (see `BATCH_MIN`); false if the queue is empty.
    ///
    /// This may run ahead of `limit` (when `pop_until` then finds the first event too
    /// late) and `advance_to` may leave `now` in a slot before `cur`; that is fine, as
    /// `schedule` files any event at or before slot `cur` into `near`, and `pop_until`
    /// takes the lesser of the batch's and `near`'s first.
    #[inline(never)]
    fn refill(&mut self) -> bool {
        let far = self.far.first().map(|e| e.time >> SLOT_BITS);
        let slot = match (self.next_wheel_slot(), far) {
            (Some(w), Some(f)) => w.min(f),
            (Some(w), None) => w,
            (None, Some(f)) => f,
            (None, None) => return false,
        };
        // Wheel events all lie in (cur, cur + WHEEL) and at or after `slot`, so they stay
        // within reach of the new `cur`.
        self.cur = slot;
        debug_assert!(self.near.is_empty() && self.batch_next == self.batch.len());
        self.batch.clear();
        self.batch_next = 0;
        self.take_slot(slot);
        while self.batch.len() < BATCH_MIN {
            match self.next_wheel_slot_before(slot + BATCH_SPAN) {
                Some(next) => {
                    self.cur = next;
                    self.take_slot(next);
                }
                None => break,
            }
        }
        if self.far.first().is_some_and(|e| e.time >> SLOT_BITS <= self.cur) {
            self.far_to_batch();
        }
        if self.batch.len() > 1 {
            self.batch.sort_unstable_by_key(Entry::key);
        }
        true
    }

    /// Appends the events of wheel slot `slot` to the batch and frees their nodes.
    #[inline(always)]
    fn take_slot(&mut self, slot: u64) {
        let i = slot as usize % WHEEL;
        // (The slot may be empty when `far` alone has events in it.)
        let first = std::mem::replace(&mut self.heads[i], NIL);
        if first != NIL {
            self.occupied[i / 64] &= !(1 << (i % 64));
            // The slot's list joins the batch and is prepended to the free list whole.
            let mut n = first;
            loop {
                let node = self.nodes[n as usize];
                self.batch.push(node.entry);
                if node.next == NIL {
                    self.nodes[n as usize].next = self.free;
                    break;
                }
                n = node.next;
            }
            self.free = first;
        }
    }

    /// The first occupied wheel slot after `cur` and before `end` (a few words ahead).
    #[inline(always)]
    fn next_wheel_slot_before(&self, end: u64) -> Option<u64> {
        let mut s = self.cur + 1;
        while s < end {
            let i = s as usize % WHEEL;
            let bits = self.occupied[i / 64] >> (i % 64);
            if bits != 0 {
                let found = s + bits.trailing_zeros() as u64;
                return (found < end).then_some(found);
            }
            s += (64 - i % 64) as u64;
        }
        None
    }

    /// Moves the `far` events of the slots up to `cur` into the batch.
    #[cold]
    fn far_to_batch(&mut self) {
        while self.far.first().is_some_and(|e| e.time >> SLOT_BITS <= self.cur) {
            self.batch.push(far_pop(&mut self.far));
        }
    }

    /// Moves the clock forward to `t` when no event is left before it.
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

/// Pushes `e` onto a min-heap of arity `ARITY` (2 for `near`, 4 for `far`).
#[inline]
fn heap_push<const ARITY: usize>(h: &mut Vec<Entry>, e: Entry) {
    h.push(e);
    let h = &mut h[..];
    let k = e.key();
    let mut i = h.len() - 1;
    while i > 0 {
        let parent = (i - 1) / ARITY;
        if k < h[parent].key() {
            h[i] = h[parent];
            i = parent;
        } else {
            break;
        }
    }
    h[i] = e;
}

/// Pops the least key from a non-empty binary heap.
#[inline]
fn near_pop(h: &mut Vec<Entry>) -> Entry {
    let last = h.pop().unwrap();
    if h.is_empty() {
        return last;
    }
    let top = h[0];
    near_sift_down(h, 0, last);
    top
}

/// Fills the hole at `i` with `e` or, if a child is smaller, with that child and so on.
#[inline]
fn near_sift_down(h: &mut [Entry], mut i: usize, e: Entry) {
    let (n, k) = (h.len(), e.key());
    loop {
        let l = 2 * i + 1;
        if l >= n {
            break;
        }
        let c = if l + 1 < n && h[l + 1].key() < h[l].key() { l + 1 } else { l };
        if h[c].key() < k {
            h[i] = h[c];
            i = c;
        } else {
            break;
        }
    }
    h[i] = e;
}

/// Pops the least key from a non-empty 4-ary heap.
fn far_pop(h: &mut Vec<Entry>) -> Entry {
    let last = h.pop().unwrap();
    let h = &mut h[..];
    if h.is_empty() {
        return last;
    }
    let top = h[0];
    let (n, k) = (h.len(), last.key());
    let mut i = 0;
    loop {
        let first = 4 * i + 1;
        if first >= n {
            break;
        }
        let mut best = first;
        for c in first + 1..(first + 4).min(n) {
            if h[c].key() < h[best].key() {
                best = c;
            }
        }
        if h[best].key() < k {
            h[i] = h[best];
            i = best;
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

/// One random stream per node (switch or host), for the decisions a node takes as
/// packets pass: RED's coin, a lossy link's coin at the receiving end, trimming's victim,
/// adaptive routing's tie-break, a NIC's fresh spraying entropy. Per node rather than one
/// stream for the run, so that a node's draws depend on nothing but its own events and
/// stay the same however the fabric is split over threads (`sim/parallel/`). Each is a
/// SplitMix64 sequence (8 bytes a node) whose start is drawn from the root seed, the
/// stream's name and the node.
#[derive(Clone, Debug)]
pub struct NodeStreams {
    state: Vec<u64>,
}

impl NodeStreams {
    pub fn new(root_seed: u64, name: &str, n_nodes: usize) -> NodeStreams {
        let base = splitmix64(root_seed ^ fnv1a(name).rotate_left(17));
        NodeStreams { state: (0..n_nodes as u64).map(|n| splitmix64(base ^ splitmix64(n))).collect() }
    }

    #[inline]
    pub fn next_u64(&mut self, node: u32) -> u64 {
        let s = &mut self.state[node as usize];
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        // splitmix64 adds the constant itself; this is its output function on the state.
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self, node: u32) -> f64 {
        (self.next_u64(node) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n), n > 0.
    #[inline]
    pub fn below(&mut self, node: u32, n: u64) -> u64 {
        ((self.next_u64(node) as u128 * n as u128) >> 64) as u64
    }

    pub fn heap_bytes(&self) -> u64 {
        (self.state.capacity() * 8) as u64
    }
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

    /// An exponential interval (seconds) of a Poisson process with `per_second` events per
    /// second. 1 − u is in (0, 1], so the logarithm is finite.
    #[inline]
    pub fn exponential(&mut self, per_second: f64) -> f64 {
        -(1.0 - self.next_f64()).ln() / per_second
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
        // And with one seed, over many instants: the same two components meeting again
        // and again get a fresh coin each time (the key hashes the time), not a fixed
        // winner that would favour one input port for the whole run.
        let mut q = EventQueue::new(7);
        let mut zero_wins = 0;
        for t in 1..=1000u64 {
            q.schedule(Time(t * 1000), Event::PipeArrive(1));
            q.schedule(Time(t * 1000), Event::PipeArrive(0));
            zero_wins += (q.pop_until(Time::MAX) == Some(Event::PipeArrive(0))) as u32;
            q.pop_until(Time::MAX);
        }
        assert!((400..=600).contains(&zero_wins), "{zero_wins} of 1000");
        assert_eq!(q_len(filled(3)), 6);
    }

    /// The documented tie key: a hash of the time and the event's code (kind above bit 32).
    fn reference_key(salt: u64, at: u64, kind: u64, payload: u32) -> u64 {
        splitmix64((kind << 32 | payload as u64) ^ at.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt)
    }

    /// The queue against a model that just sorts by (time, tie key) with the documented
    /// keys, over random mixes of schedules (many at the same instant, many at exactly
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
                    model.push(Reverse((at, reference_key(salt, at, 3, counter as u32), counter as u32)));
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
    /// the least key still pending, including the ones added after the instant began.
    #[test]
    fn same_instant_events_scheduled_while_draining() {
        let mut q = EventQueue::new(5);
        let salt = splitmix64(5 ^ 0x7469_6562_7265_616b);
        let mut pending = vec![];
        for i in 0..100u64 {
            q.schedule(Time(1000), Event::PortFree(i as u32));
            pending.push((reference_key(salt, 1000, 0, i as u32), i as u32));
        }
        for i in 100..300u64 {
            pending.sort();
            let (_, want) = pending.remove(0);
            assert_eq!(q.pop_until(Time::MAX), Some(Event::PortFree(want)));
            assert_eq!(q.now(), Time(1000));
            if i < 200 {
                q.schedule(q.now(), Event::PortFree(i as u32));
                pending.push((reference_key(salt, 1000, 0, i as u32), i as u32));
            }
        }
        assert!(q.is_empty());
    }

    /// Events just inside and just outside the wheel's reach, across several turns of it,
    /// with `cur` at every offset within a bitmap word: the wrapped-around search and the
    /// far heap must hand them over in time order.
    #[test]
    fn wheel_wraps_around() {
        let slot = 1u64 << SLOT_BITS;
        let reach = WHEEL as u64 * slot;
        for start in 0..130u64 {
            let mut q = EventQueue::new(start);
            let t0 = start * slot + 7;
            q.schedule(Time(t0), Event::Sample);
            assert_eq!(q.pop_until(Time::MAX), Some(Event::Sample));
            let mut times = vec![];
            for (i, d) in
                [reach - slot, reach, reach + 1, 2 * reach - 1, slot, 64 * slot, 63 * slot].into_iter().enumerate()
            {
                q.schedule(Time(t0 + d), Event::FlowWake(i as u32));
                times.push(t0 + d);
            }
            times.sort();
            for t in times {
                assert!(q.pop_until(Time::MAX).is_some());
                assert_eq!(q.now().0, t, "start {start}");
            }
            assert!(q.is_empty());
        }
    }

    /// A tick scheduled with `schedule_last` leaves the other events' order as it is
    /// without it, and comes after every other event of its instant.
    #[test]
    fn an_observers_tick_changes_no_other_order() {
        let order = |with_tick: bool| {
            let mut q = EventQueue::new(3);
            let mut out = vec![];
            for i in 0..50u32 {
                if with_tick && i % 7 == 0 {
                    q.schedule_last(Time(1000 * (i as u64 % 3)), Event::Sample);
                }
                q.schedule(Time(1000 * (i as u64 % 3)), Event::FlowWake(i));
            }
            while let Some(e) = q.pop_until(Time::MAX) {
                out.push((q.now().0, e));
            }
            out
        };
        let (plain, ticked) = (order(false), order(true));
        let without: Vec<_> = ticked.iter().filter(|(_, e)| *e != Event::Sample).copied().collect();
        assert_eq!(without, plain);
        for (i, (t, e)) in ticked.iter().enumerate() {
            if *e == Event::Sample {
                assert!(ticked[i + 1..].iter().all(|(u, f)| u > t || *f == Event::Sample), "tick at {t}");
            }
        }
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
