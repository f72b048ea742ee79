//! Priority flow control (IEEE 802.1Qbb), the switch feature that makes RoCEv2 lossless:
//! docs/models/pfc.md (the SMaRTT paper's "lossless RoCEv2" baseline, §IV-b) and
//! the DCQCN paper (Zhu et al., SIGCOMM'15) §2, which describes the mechanism and its
//! head-of-line blocking.
//!
//! Model. A switch counts, per ingress link and per priority class, the bytes that arrived
//! on that link and still sit in one of its output queues. When a lossless class's count
//! rises above `xoff`, the switch sends a PAUSE for that class back over the link; the
//! upstream port (a switch's output port or a host NIC) then stops starting packets of
//! that class, finishing the one on the wire. When the count falls to `xon`, a RESUME
//! follows. The bytes that still arrive after PAUSE was decided (the frame's trip back
//! plus what the upstream already had on the wire) land in `headroom`; a lossless packet
//! is never refused by the output buffer, so the class never drops. What bounds it is
//! `xoff + headroom` per ingress link, which the scenario checks are large enough for.
//!
//! Classes follow the port's queues: `DATA` (the data FIFO or both DRR classes) and
//! `CONTROL` (the priority queue of ACKs, NACKs and trimmed headers). With
//! `per_priority` (802.1Qbb proper: a PAUSE names one priority, as the
//! PrioPlus artefact's switches do) and physical priority queues, data of queue q travels in class
//! `PRIORITY_BASE + q` instead of `DATA`, so a switch pauses only the level whose
//! ingress count crossed `xoff`: the upstream port keeps serving the other queues, and a
//! host's NIC keeps sending its flows of other levels. Without it every data packet shares
//! `DATA`, and a PAUSE stops all levels of a link at once.
//!
//! ACKs at the data's priority (`switch.ack_priority = false`; the PrioPlus paper's App. A.3
//! "PrioPlus*", and its artefact's Physical schemes). Control packets then wait in the data
//! queues, so they also travel in the data's class: `DATA`, or with `per_priority` the class
//! of their level (an ACK carries its flow's level). A PAUSE of a level then holds back that
//! level's ACKs with its data, and an ACK's bytes count against the ingress like data. A
//! host NIC sends its ACKs ahead of its data in either case (`Simulation::port_start`),
//! skipping ACKs of a paused level.
//!
//! Class change at every hop (`ClassChange::PerHop`, docs/models/pfc.md, "Deadlock"): the
//! standard remedy for the cyclic buffer dependencies of multi-hop lossless routing (as in
//! Dally and Seitz's virtual channels, and a dragonfly's class change at the Valiant
//! group). A data packet that a switch sends on to another switch moves one level up (to
//! the top queue at most): the switch counts it at its ingress in the class it arrived in,
//! queues it at the egress in the new class, and the next switch counts and pauses that
//! class. So the ingress room of class c at a switch waits only for room in class c + 1
//! downstream: as long as no path needs more levels than there are queues, the
//! dependencies cannot form a cycle. `ClassChange::PerGlobalHop` does the same over a
//! dragonfly's global links only.
//!
//! Dynamic threshold (`SharedBuffer`, docs/models/pfc.md, "Dynamic threshold";
//! Choudhury & Hahne's DT as the PrioPlus artefact's switches use it).
//! Instead of a fixed `xoff` per link, all lossless ingress queues (link, class) of a
//! switch draw on one pool: the switch buffer less a small reserve per queue and, unless
//! the headroom is free ("ideal" switches), the PFC headroom of every queue. A queue's
//! bytes fill its reserve first, then the pool while its pool share stays within
//! `T = (pool − pool bytes in use) / 2^shift`; a packet that would take the share past `T`
//! goes to the queue's headroom. It is paused once it
//! spills into headroom or its pool share reaches `T`, and resumed when its headroom is
//! empty and its pool share is 0 or at least `resume_offset` below `T`. Departures take
//! headroom bytes first, then pool bytes (bytes of a queue are interchangeable). So one
//! congested queue may hold about α/(1 + α) of the pool (α = 2^−shift), and k congested
//! queues of one switch α/(1 + kα) each: the more levels back up at a switch, the sooner
//! each pauses, which a fixed `xoff` cannot show. As in the artefact, a queue's condition
//! is checked when its own bytes arrive or leave, not when another queue moves `T`.
//!
//! How a pause ends (`DynamicResume`). By default (`OffsetOrEmpty`, the rule of the HPCC
//! simulator's switch MMU) a queue also resumes once its pool share is 0, so a queue that
//! drains always resumes. The PrioPlus artefact's switches (`OffsetOrExpiry`) have no such
//! clause: a queue resumes only at `share + resume_offset <= T`, so once the free pool is
//! under `2^shift × resume_offset` (12 KiB at α = 1/4) an emptied queue cannot resume by
//! departures. Its PAUSE then ends as 802.1Qbb's do: it holds for 65535 quanta of 512 bit
//! times at the upstream port's rate (335.5 µs at 100 Gb/s), and shortly before that the
//! switch sends another PAUSE if the queue still should be paused (headroom in use or
//! share above `T`); otherwise the pause runs out. That rule also pauses only at a share
//! strictly above `T`. docs/models/pfc.md, "How a pause ends".
//!
//! Simplifications, each on purpose: a frame is sent as soon as the reverse port finishes
//! the packet it is serialising (802.1Qbb lets MAC control frames jump the queue) and its
//! 64 bytes do not take bandwidth from data; except under `DynamicResume::OffsetOrExpiry`,
//! PAUSE holds until RESUME (a quanta of 0xFFFF refreshed while the count stays high is
//! equivalent). Under `OffsetOrExpiry` the switch's renewal is checked one link latency
//! before the pause would run out (the artefact checks two latencies before and sends a
//! PAUSE that takes one to arrive), and a pause that runs out is delivered as a RESUME
//! arriving then; a renewal sends no frame (the upstream stays paused without a gap).

use serde::{Deserialize, Serialize};

use crate::net::Packet;
use crate::units::Time;

/// `switch.pfc.class_change` (module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassChange {
    /// A packet keeps its flow's level end to end.
    #[default]
    None,
    /// One level up at every switch reached from a switch.
    PerHop,
    /// One level up at every switch reached over a dragonfly global link: the class change
    /// at the Valiant intermediate group (and at the destination group), the dragonfly's
    /// standard remedy (module header).
    PerGlobalHop,
}

/// `switch.pfc.dynamic.resume` (module header, "How a pause ends").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DynamicResume {
    /// Resume when the headroom is empty and the pool share is 0 or `resume_offset` below
    /// the threshold; PAUSE holds until RESUME (the HPCC simulator's switch MMU).
    #[default]
    OffsetOrEmpty,
    /// The PrioPlus artefact's switches: resume only at `resume_offset` below the
    /// threshold, pause above it (not at it), and a PAUSE lasts 65535 quanta unless the
    /// switch renews it.
    OffsetOrExpiry,
}

/// What a pause's renewal check found (`Pfc::recheck`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Recheck {
    /// The pause ended since (or was renewed for another time): nothing to do.
    Stale,
    /// The queue still should be paused: check again one pause duration later.
    Renew,
    /// The pause runs out: deliver this RESUME.
    Expire(PfcFrame),
}

/// A PAUSE's duration in bytes of the upstream port's line: 65535 quanta of 512 bits, the
/// most 802.1Qbb allows and what the PrioPlus artefact's switches send.
pub const PAUSE_QUANTA_BYTES: u32 = 65_535 * 512 / 8;

/// Data packets (the port's data queue).
pub const DATA: usize = 0;
/// ACKs, NACKs, trimmed headers, CNPs (the port's priority queue).
pub const CONTROL: usize = 1;
/// `per_priority`: data of physical priority queue q travels in class `PRIORITY_BASE + q`.
pub const PRIORITY_BASE: usize = 2;
/// Most classes: masks are `u64`.
pub const MAX_CLASSES: usize = 64;

/// A PAUSE or RESUME to deliver to an upstream output port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcFrame {
    /// The upstream output port that must stop (or may restart) serving `class`.
    pub port: u32,
    pub class: u8,
    pub pause: bool,
}

/// Ports a PFC network may have: a frame packs its port into the 25 bits `encode` leaves.
pub const MAX_PORTS: usize = 1 << 25;

impl PfcFrame {
    /// The frame packed into one `u32` event payload (port, 6-bit class, pause bit), so
    /// the event type stays 8 bytes. Ports are fewer than `MAX_PORTS` (checked when PFC is
    /// built).
    #[inline]
    pub fn encode(self) -> u32 {
        self.port << 7 | (self.class as u32) << 1 | self.pause as u32
    }

    #[inline]
    pub fn decode(v: u32) -> PfcFrame {
        PfcFrame { port: v >> 7, class: ((v >> 1) & 63) as u8, pause: v & 1 != 0 }
    }
}

/// Thresholds of one ingress link, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcThresholds {
    pub xoff: u64,
    pub xon: u64,
    pub headroom: u64,
}

/// A PAUSE or RESUME that reached the upstream port `port` at `time`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcEvent {
    pub time: Time,
    pub port: u32,
    pub class: u8,
    pub pause: bool,
}

/// Counters of one port seen as the upstream end of a link: PAUSE/RESUME frames it
/// received.
#[derive(Clone, Debug, Default)]
pub struct PfcPortStats {
    pub pause_frames: u64,
    pub resume_frames: u64,
    /// Largest ingress count of any lossless class at the far switch, in bytes.
    pub max_ingress: u64,
}

const NOT_HELD: u32 = u32::MAX;
/// `held` packs the ingress port (below `MAX_PORTS` = 2^25) with the class the packet was
/// counted in (bits 25..31, classes < `MAX_CLASSES` = 64), which a class change may
/// make differ from the packet's class when it leaves.
const HELD_CLASS_SHIFT: u32 = 25;
const HELD_INGRESS_MASK: u32 = (1 << HELD_CLASS_SHIFT) - 1;

/// The dynamic-threshold shared buffer of every switch (module header).
#[derive(Clone, Debug)]
pub struct SharedBuffer {
    /// Per port (the link it carries into a switch): that switch's index here.
    switch_of: Vec<u32>,
    /// Per switch: bytes of the pool (buffer less reserves and carved headroom).
    pool: Vec<u64>,
    /// Per switch: pool bytes in use.
    used: Vec<u64>,
    /// α = 2^−shift.
    shift: u32,
    /// Bytes each ingress queue holds before it draws on the pool.
    reserve: u64,
    /// A paused queue resumes once its pool share is this far below the threshold.
    resume_offset: u64,
    resume: DynamicResume,
    /// Per (port, class): pool bytes, headroom bytes (the rest of the count is reserve).
    in_pool: Vec<u64>,
    in_headroom: Vec<u64>,
    /// `OffsetOrExpiry`, per (port, class): when the pause in force is due its renewal
    /// check (the one `Event::PfcRecheck` that is not stale).
    recheck_at: Vec<Time>,
}

impl SharedBuffer {
    /// `switch_of[p]`: the switch port p's link enters (ports into hosts: any value, they
    /// carry no thresholds); `pool[s]`: switch s's pool in bytes.
    pub fn new(
        switch_of: Vec<u32>,
        pool: Vec<u64>,
        shift: u32,
        reserve: u64,
        resume_offset: u64,
        resume: DynamicResume,
    ) -> SharedBuffer {
        let switches = pool.len();
        SharedBuffer {
            switch_of,
            pool,
            used: vec![0; switches],
            shift,
            reserve,
            resume_offset,
            resume,
            in_pool: Vec::new(),
            in_headroom: Vec::new(),
            recheck_at: Vec::new(),
        }
    }

    /// Whether queue `slot` of switch `s` should be paused: headroom in use, or a pool
    /// share at the threshold (above it under `OffsetOrExpiry`).
    /// `DynamicResume::OffsetOrExpiry`: pauses run out unless renewed.
    #[inline]
    fn pauses_expire(&self) -> bool {
        self.resume == DynamicResume::OffsetOrExpiry
    }

    #[inline]
    fn over(&self, slot: usize, s: usize) -> bool {
        let (share, t) = (self.in_pool[slot], self.threshold(s));
        self.in_headroom[slot] > 0 || if self.pauses_expire() { share > t } else { share >= t }
    }

    /// Whether paused queue `slot` of switch `s` may resume (module header).
    #[inline]
    fn may_resume(&self, slot: usize, s: usize) -> bool {
        let share = self.in_pool[slot];
        self.in_headroom[slot] == 0
            && ((share == 0 && !self.pauses_expire()) || share + self.resume_offset <= self.threshold(s))
    }

    /// The pool share a queue of switch `s` may hold now.
    #[inline]
    fn threshold(&self, s: usize) -> u64 {
        self.pool[s].saturating_sub(self.used[s]) >> self.shift
    }

    /// Pool bytes in use at switch `s`.
    pub fn used(&self, s: usize) -> u64 {
        self.used[s]
    }

    /// Switch `s`'s pool: its buffer less what is set aside.
    pub fn pool(&self, s: usize) -> u64 {
        self.pool[s]
    }

    /// The switch port `p`'s link enters.
    pub fn switch_of(&self, p: u32) -> usize {
        self.switch_of[p as usize] as usize
    }
}

pub struct Pfc {
    /// Bit c set: class c is lossless (accounted and paused).
    lossless: u64,
    /// Classes per port: 2, or `PRIORITY_BASE` + the priority queues with `per_priority`.
    classes: usize,
    /// `per_priority`: the switches' priority queue count (data of level l goes to class
    /// `PRIORITY_BASE + clamp(l, 1, n) − 1`); 0 without.
    priority_queues: usize,
    /// Per port p (the link p carries into a switch): its thresholds; `None` when p's far
    /// end is a host (hosts never pause anyone).
    thresholds: Vec<Option<PfcThresholds>>,
    /// Per ingress port and class (`classes` per port): bytes in the far switch that
    /// arrived over it.
    ingress_bytes: Vec<u64>,
    /// Per ingress port: classes for which a PAUSE was sent and no RESUME yet.
    pause_sent: Vec<u64>,
    /// Per output port: classes it may not start serving (a PAUSE arrived).
    paused: Vec<u64>,
    /// Per output port and class: when the pause in force began, and the time paused
    /// before it.
    paused_since: Vec<Time>,
    paused_total: Vec<Time>,
    /// Per ingress port: when the reverse direction of its link has finished sending the
    /// last PAUSE/RESUME for it, so that the next one leaves after it (`frame_departs`).
    frames_free_at: Vec<Time>,
    /// Per packet handle: the ingress port its bytes are counted against.
    held: Vec<u32>,
    pub stats: Vec<PfcPortStats>,
    /// Every PAUSE and RESUME as it reached its upstream port, in time order (the HPCC
    /// simulator's `pfc.txt` keeps the same log; `pfc_events.parquet`).
    pub events: Vec<PfcEvent>,
    /// Scratch for a host NIC's flows of paused levels (`Simulation::host_pull_unpaused`).
    pub(crate) held_flows: Vec<u32>,
    /// Lossless bytes that arrived beyond `xoff + headroom` (with `shared`: beyond the
    /// queue's headroom): the headroom was too small.
    pub headroom_overflows: u64,
    /// Dynamic thresholds; `None`: each link's fixed `xoff` / `xon`.
    shared: Option<SharedBuffer>,
    /// Control packets travel in the data's class (module header, "ACKs at the data's
    /// priority"); `CONTROL` is then never used.
    control_in_data: bool,
    /// `ClassChange` (module header): whether a packet arriving over the link of upstream
    /// port p moves one level up (`raises_class[p]`); empty when levels never change.
    raises_class: Vec<bool>,
}

impl Pfc {
    /// `lossless`: bit `DATA` and/or `CONTROL`; with `priority_queues` > 0 (per-priority
    /// PFC) a lossless `DATA` makes every priority class lossless.
    pub fn new(lossless: u8, priority_queues: usize, thresholds: Vec<Option<PfcThresholds>>) -> Pfc {
        assert!(PRIORITY_BASE + priority_queues <= MAX_CLASSES, "at most {} priority classes", MAX_CLASSES - 2);
        let n = thresholds.len();
        let classes = PRIORITY_BASE + priority_queues;
        let mut mask = lossless as u64;
        if mask & (1 << DATA) != 0 {
            for q in 0..priority_queues {
                mask |= 1 << (PRIORITY_BASE + q);
            }
        }
        Pfc {
            lossless: mask,
            classes,
            priority_queues,
            thresholds,
            ingress_bytes: vec![0; n * classes],
            pause_sent: vec![0; n],
            paused: vec![0; n],
            paused_since: vec![Time::ZERO; n * classes],
            paused_total: vec![Time::ZERO; n * classes],
            frames_free_at: vec![Time::ZERO; n],
            held: Vec::new(),
            stats: vec![PfcPortStats::default(); n],
            events: Vec::new(),
            held_flows: Vec::new(),
            headroom_overflows: 0,
            shared: None,
            control_in_data: false,
            raises_class: Vec::new(),
        }
    }

    /// Class change: data arriving over the link of upstream port p moves one level up
    /// where `raises[p]` (the builder marks the links of the chosen `ClassChange`).
    pub fn with_class_change(mut self, raises: Vec<bool>) -> Pfc {
        self.raises_class = if raises.contains(&true) { raises } else { Vec::new() };
        self
    }

    /// The level a data packet of `level` takes after a link that raises its class: one
    /// up (from the bottom queue for a packet without a level), capped at the top queue.
    #[inline]
    pub fn level_after_hop(&self, level: u8) -> u8 {
        (level.max(1) as usize + 1).min(self.priority_queues) as u8
    }

    /// Whether a packet sent by upstream port `p` changes class on arrival.
    #[inline]
    pub fn raises_class_from(&self, p: u32) -> bool {
        self.raises_class.get(p as usize).copied().unwrap_or(false)
    }

    /// Control packets travel in the class of their data (module header): for switches
    /// whose ACKs wait in the data queues (`switch.ack_priority = false`).
    pub fn with_control_in_data_classes(mut self) -> Pfc {
        self.control_in_data = true;
        self
    }

    /// Whether control packets travel in the data's classes.
    #[inline]
    pub fn control_in_data(&self) -> bool {
        self.control_in_data
    }

    /// Pause by dynamic threshold over `shared` instead of each link's `xoff` / `xon`
    /// (which are then not used; `headroom` still bounds what a queue may take past its
    /// pause).
    pub fn with_shared_buffer(mut self, mut shared: SharedBuffer) -> Pfc {
        assert_eq!(shared.switch_of.len(), self.thresholds.len(), "a switch per port");
        shared.in_pool = vec![0; self.ingress_bytes.len()];
        shared.in_headroom = vec![0; self.ingress_bytes.len()];
        if shared.pauses_expire() {
            shared.recheck_at = vec![Time::ZERO; self.ingress_bytes.len()];
        }
        self.shared = Some(shared);
        self
    }

    pub fn shared_buffer(&self) -> Option<&SharedBuffer> {
        self.shared.as_ref()
    }

    /// With a shared buffer: the bytes of ingress queue (`port`, `class`) in the pool and
    /// in headroom (the rest of its count is in its reserve).
    pub fn shared_split(&self, port: u32, class: usize) -> Option<(u64, u64)> {
        let slot = port as usize * self.classes + class;
        self.shared.as_ref().map(|sb| (sb.in_pool[slot], sb.in_headroom[slot]))
    }

    /// Classes that lossless data or control can travel in: with `per_priority`, the
    /// priority classes (and `CONTROL` if lossless), never `DATA`.
    pub fn lossless_classes_in_use(&self) -> usize {
        (0..self.classes).filter(|&c| self.is_lossless(c) && !(c == DATA && self.per_priority())).count()
    }

    #[inline]
    pub fn is_lossless(&self, class: usize) -> bool {
        self.lossless & (1 << class) != 0
    }

    /// Which class a packet travels in.
    #[inline]
    pub fn class_of(&self, pkt: &Packet) -> usize {
        if pkt.is_control() && !self.control_in_data {
            CONTROL
        } else if self.priority_queues > 0 {
            self.priority_class(pkt.priority)
        } else {
            DATA
        }
    }

    /// `per_priority`: the class of data at priority `level` (the switches' queue of that
    /// level, as `PrioQueues::classify` picks it).
    #[inline]
    pub fn priority_class(&self, level: u8) -> usize {
        PRIORITY_BASE + (level as usize).clamp(1, self.priority_queues) - 1
    }

    /// Whether data is paused per priority (then `DATA` is never paused).
    #[inline]
    pub fn per_priority(&self) -> bool {
        self.priority_queues > 0
    }

    /// Classes output port `p` may not serve, as a bit mask.
    #[inline]
    pub fn paused_mask(&self, p: u32) -> u64 {
        self.paused[p as usize]
    }

    #[inline]
    pub fn is_paused(&self, p: u32, class: usize) -> bool {
        self.paused[p as usize] & (1 << class) != 0
    }

    /// Whether packet `h` is counted against an ingress link (a lossless packet inside a
    /// switch).
    #[inline]
    pub fn holds(&self, h: u32) -> bool {
        self.held.get(h as usize).is_some_and(|&i| i != NOT_HELD)
    }

    /// Packet `h` of `class` and `size` bytes arrived at a switch over port `ingress`.
    /// Returns the PAUSE to send if this crosses `xoff`.
    pub fn arrive(&mut self, ingress: u32, h: u32, class: usize, size: u64) -> Option<PfcFrame> {
        if !self.is_lossless(class) {
            return None;
        }
        let th = self.thresholds[ingress as usize]?;
        if self.held.len() <= h as usize {
            self.held.resize(h as usize + 1, NOT_HELD);
        }
        self.held[h as usize] = ingress | (class as u32) << HELD_CLASS_SHIFT;
        let i = ingress as usize;
        let slot = i * self.classes + class;
        let count = &mut self.ingress_bytes[slot];
        let before = *count;
        *count += size;
        let after = *count;
        let st = &mut self.stats[i];
        st.max_ingress = st.max_ingress.max(after);
        let bit = 1u64 << class;
        if let Some(sb) = self.shared.as_mut() {
            let s = sb.switch_of[i] as usize;
            let reserved = before - sb.in_pool[slot] - sb.in_headroom[slot];
            if reserved + size > sb.reserve {
                // What the reserve cannot take goes to the pool if the queue's share stays
                // within the threshold; otherwise the whole packet lands in headroom.
                let spill = reserved + size - sb.reserve;
                if sb.in_pool[slot] + spill <= sb.threshold(s) {
                    sb.in_pool[slot] += spill;
                    sb.used[s] += spill;
                } else {
                    let h = sb.in_headroom[slot];
                    sb.in_headroom[slot] = h + size;
                    if h + size > th.headroom {
                        self.headroom_overflows += h + size - th.headroom.max(h);
                    }
                }
            }
            if sb.over(slot, s) && self.pause_sent[i] & bit == 0 {
                self.pause_sent[i] |= bit;
                return Some(PfcFrame { port: ingress, class: class as u8, pause: true });
            }
            return None;
        }
        let limit = th.xoff + th.headroom;
        if after > limit {
            self.headroom_overflows += after - limit.max(before);
        }
        if after > th.xoff && self.pause_sent[i] & bit == 0 {
            self.pause_sent[i] |= bit;
            return Some(PfcFrame { port: ingress, class: class as u8, pause: true });
        }
        None
    }

    /// Packet `h` (`size` bytes) left its switch (transmitted or, for a lossy class,
    /// dropped); it is uncounted from the class it was counted in on arrival. Returns the
    /// RESUME to send if the count fell to `xon`.
    pub fn depart(&mut self, h: u32, size: u64) -> Option<PfcFrame> {
        let slot = self.held.get_mut(h as usize)?;
        let held = std::mem::replace(slot, NOT_HELD);
        if held == NOT_HELD {
            return None;
        }
        let (ingress, class) = (held & HELD_INGRESS_MASK, (held >> HELD_CLASS_SHIFT) as usize);
        let i = ingress as usize;
        let slot = i * self.classes + class;
        let count = &mut self.ingress_bytes[slot];
        *count -= size;
        let bit = 1u64 << class;
        if let Some(sb) = self.shared.as_mut() {
            let s = sb.switch_of[i] as usize;
            let from_headroom = sb.in_headroom[slot].min(size);
            sb.in_headroom[slot] -= from_headroom;
            let from_pool = sb.in_pool[slot].min(size - from_headroom);
            sb.in_pool[slot] -= from_pool;
            sb.used[s] -= from_pool;
            if self.pause_sent[i] & bit != 0 && sb.may_resume(slot, s) {
                self.pause_sent[i] &= !bit;
                return Some(PfcFrame { port: ingress, class: class as u8, pause: false });
            }
            return None;
        }
        let th = self.thresholds[i].expect("held packets have thresholds");
        if self.pause_sent[i] & bit != 0 && *count <= th.xon {
            self.pause_sent[i] &= !bit;
            return Some(PfcFrame { port: ingress, class: class as u8, pause: false });
        }
        None
    }

    /// Whether a PAUSE sent now runs out unless renewed (`DynamicResume::OffsetOrExpiry`).
    pub fn pauses_expire(&self) -> bool {
        self.shared.as_ref().is_some_and(SharedBuffer::pauses_expire)
    }

    /// `OffsetOrExpiry`: the pause of (`port`, `class`) just sent is due its renewal check
    /// at `at`; an earlier check still pending becomes stale.
    pub fn arm_recheck(&mut self, port: u32, class: u8, at: Time) {
        let slot = port as usize * self.classes + class as usize;
        if let Some(sb) = self.shared.as_mut() {
            sb.recheck_at[slot] = at;
        }
    }

    /// `OffsetOrExpiry`: the renewal check of the pause of (`port`, `class`) scheduled for
    /// `now`. Renews it while the queue should still be paused (the caller schedules the
    /// next check one pause duration on, `arm_recheck`), else ends it.
    pub fn recheck(&mut self, port: u32, class: u8, now: Time) -> Recheck {
        let (i, bit) = (port as usize, 1u64 << class);
        let slot = i * self.classes + class as usize;
        let Some(sb) = self.shared.as_mut() else { return Recheck::Stale };
        if self.pause_sent[i] & bit == 0 || sb.recheck_at[slot] != now {
            return Recheck::Stale;
        }
        if sb.over(slot, sb.switch_of[i] as usize) {
            return Recheck::Renew;
        }
        self.pause_sent[i] &= !bit;
        Recheck::Expire(PfcFrame { port, class, pause: false })
    }

    /// When a frame for `port` that is ready at `ready` (the reverse port's current packet
    /// finished) leaves, given that it takes `serialization`: after the previous frame
    /// for the same link. Frames on one link must arrive in the order they were sent: a
    /// PAUSE and the RESUME that follows it within one packet time of the reverse port
    /// would otherwise arrive at the same instant, in the order of the seeded tie-break,
    /// and a RESUME applied before its PAUSE leaves the upstream paused for good (the
    /// switch, having sent the RESUME, never sends another).
    pub fn frame_departs(&mut self, port: u32, ready: Time, serialization: Time) -> Time {
        let free = &mut self.frames_free_at[port as usize];
        let depart = ready.max(*free);
        *free = depart + serialization;
        depart
    }

    /// A frame reached its upstream port at `now`. Returns whether the port may now have
    /// work it was holding back (a RESUME of a paused class).
    pub fn apply(&mut self, f: PfcFrame, now: Time) -> bool {
        let p = f.port as usize;
        let c = f.class as usize;
        let bit = 1u64 << c;
        let slot = p * self.classes + c;
        self.events.push(PfcEvent { time: now, port: f.port, class: f.class, pause: f.pause });
        let st = &mut self.stats[p];
        // A switch alternates PAUSE and RESUME per link and class, and they arrive in order
        // (`frame_departs`), so each frame finds the opposite state; anything else would
        // leave a port paused with no RESUME to come, a silent hang.
        assert!(
            (self.paused[p] & bit == 0) == f.pause,
            "PFC: a {} for port {p} class {c} arrived at {now:?} while that class was {}: frames out of order",
            if f.pause { "PAUSE" } else { "RESUME" },
            if f.pause { "already paused" } else { "not paused" },
        );
        if f.pause {
            st.pause_frames += 1;
            if self.paused[p] & bit == 0 {
                self.paused[p] |= bit;
                self.paused_since[slot] = now;
            }
            false
        } else {
            st.resume_frames += 1;
            if self.paused[p] & bit != 0 {
                self.paused[p] &= !bit;
                self.paused_total[slot] = self.paused_total[slot] + (now - self.paused_since[slot]);
                return true;
            }
            false
        }
    }

    /// How long port `p` has held back `class` in all, up to `now` (a pause still in
    /// force counts until `now`).
    pub fn paused_time(&self, p: u32, class: usize, now: Time) -> Time {
        let slot = p as usize * self.classes + class;
        let done = self.paused_total[slot];
        if self.paused[p as usize] & (1 << class) != 0 {
            done + (now - self.paused_since[slot])
        } else {
            done
        }
    }

    /// How long port `p` has held back data, up to `now`: `DATA`'s paused time, or with
    /// `per_priority` the priority classes' paused times summed (two levels paused for
    /// 1 µs count 2 µs).
    pub fn data_paused_time(&self, p: u32, now: Time) -> Time {
        if self.per_priority() {
            (PRIORITY_BASE..self.classes).fold(Time::ZERO, |t, c| t + self.paused_time(p, c, now))
        } else {
            self.paused_time(p, DATA, now)
        }
    }

    /// Bytes currently counted against ingress port `p` for `class`.
    pub fn ingress_bytes(&self, p: u32, class: usize) -> u64 {
        self.ingress_bytes[p as usize * self.classes + class]
    }

    pub fn thresholds(&self, p: u32) -> Option<PfcThresholds> {
        self.thresholds[p as usize]
    }

    pub fn total_pause_frames(&self) -> u64 {
        self.stats.iter().map(|s| s.pause_frames).sum()
    }

    pub fn total_resume_frames(&self) -> u64 {
        self.stats.iter().map(|s| s.resume_frames).sum()
    }

    /// The ingress port and the class packet `h`'s bytes are counted against, if any.
    pub fn held_at(&self, h: u32) -> Option<(u32, usize)> {
        let held = self.held.get(h as usize).copied().filter(|&i| i != NOT_HELD)?;
        Some((held & HELD_INGRESS_MASK, (held >> HELD_CLASS_SHIFT) as usize))
    }

    /// Whether the switch at the far end of port `p` holds `class` paused with no RESUME
    /// sent yet (a paused port whose RESUME is on its way is about to move). Under
    /// `DynamicResume::OffsetOrExpiry` a pause the switch would not renew runs out, so it
    /// counts only while the queue still should be paused.
    pub fn pause_in_force(&self, p: u32, class: usize) -> bool {
        let held = self.paused[p as usize] & self.pause_sent[p as usize] & (1 << class) != 0;
        match self.shared.as_ref() {
            Some(sb) if held && sb.pauses_expire() => {
                sb.over(p as usize * self.classes + class, sb.switch_of[p as usize] as usize)
            }
            _ => held,
        }
    }

    /// Classes per port (`node` = port × classes + class in `stuck_nodes`).
    pub fn classes(&self) -> usize {
        self.classes
    }
}

/// PFC deadlock: of `n` nodes, those stuck for good. A node is a paused (port, class);
/// an edge (a, b) says bytes counted against a's link wait in b's queue. A node with no
/// edge can move (it sends, or it holds nothing and its RESUME is due), and so can any
/// node with some bytes in a queue that can move, as they may bring its count down to
/// `xon`. Whatever is left has every byte that holds its pause behind nodes that are left
/// too: a cycle of pauses, or nodes waiting only on one, that no traffic can undo (only a
/// pause watchdog, which PFC here does not have, would break it). A conservative count:
/// a node whose bytes are partly free is not counted, though they might not suffice.
pub fn stuck_nodes(n: usize, edges: &[(u32, u32)]) -> Vec<bool> {
    let mut has_out = vec![false; n];
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        has_out[a as usize] = true;
        preds[b as usize].push(a);
    }
    let mut stuck = has_out.clone();
    let mut free: Vec<u32> = (0..n as u32).filter(|&v| !has_out[v as usize]).collect();
    while let Some(v) = free.pop() {
        for &a in &preds[v as usize] {
            if stuck[a as usize] {
                stuck[a as usize] = false;
                free.push(a);
            }
        }
    }
    stuck
}

#[cfg(test)]
mod tests;
