//! Priority flow control (IEEE 802.1Qbb), the switch feature that makes RoCEv2 lossless:
//! spec `smartt-nscc.md` §3.3 (the SMaRTT paper's "lossless RoCEv2" baseline, §IV-b) and
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
//! Classes follow the port's two queues: `DATA` (the data FIFO or both DRR classes) and
//! `CONTROL` (the priority queue of ACKs, NACKs and trimmed headers). Real PFC has eight
//! priorities carried in the VLAN tag; two suffice for every scenario here, and a finer
//! mapping only has to change `class_of`.
//!
//! Simplifications, each on purpose: a frame is sent as soon as the reverse port finishes
//! the packet it is serialising (802.1Qbb lets MAC control frames jump the queue) and its
//! 64 bytes do not take bandwidth from data; PAUSE holds until RESUME (a quanta of 0xFFFF
//! refreshed while the count stays high is equivalent); no pause-duration timer.

use crate::net::Packet;
use crate::units::Time;

/// Number of PFC priority classes modelled.
pub const CLASSES: usize = 2;
/// Data packets (the port's data queue).
pub const DATA: usize = 0;
/// ACKs, NACKs, trimmed headers, CNPs (the port's priority queue).
pub const CONTROL: usize = 1;

/// Which priority class a packet travels in.
#[inline]
pub fn class_of(pkt: &Packet) -> usize {
    if pkt.is_control() {
        CONTROL
    } else {
        DATA
    }
}

/// A PAUSE or RESUME to deliver to an upstream output port.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcFrame {
    /// The upstream output port that must stop (or may restart) serving `class`.
    pub port: u32,
    pub class: u8,
    pub pause: bool,
}

impl PfcFrame {
    /// The frame packed into one `u32` event payload (port, class bit, pause bit), so the
    /// event type stays 8 bytes. Ports are fewer than 2^30 (checked when PFC is built).
    #[inline]
    pub fn encode(self) -> u32 {
        self.port << 2 | (self.class as u32) << 1 | self.pause as u32
    }

    #[inline]
    pub fn decode(v: u32) -> PfcFrame {
        PfcFrame { port: v >> 2, class: ((v >> 1) & 1) as u8, pause: v & 1 != 0 }
    }
}

/// Thresholds of one ingress link, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcThresholds {
    pub xoff: u64,
    pub xon: u64,
    pub headroom: u64,
}

/// Counters of one port seen as the upstream end of a link: PAUSE/RESUME frames it
/// received and how long each class was held.
#[derive(Clone, Debug, Default)]
pub struct PfcPortStats {
    pub pause_frames: u64,
    pub resume_frames: u64,
    pub paused_time: [Time; CLASSES],
    /// Largest ingress count of any lossless class at the far switch, in bytes.
    pub max_ingress: u64,
}

const NOT_HELD: u32 = u32::MAX;

pub struct Pfc {
    /// Bit c set: class c is lossless (accounted and paused).
    lossless: u8,
    /// Per port p (the link p carries into a switch): its thresholds; `None` when p's far
    /// end is a host (hosts never pause anyone).
    thresholds: Vec<Option<PfcThresholds>>,
    /// Per ingress port and class: bytes in the far switch that arrived over it.
    ingress_bytes: Vec<[u64; CLASSES]>,
    /// Per ingress port: classes for which a PAUSE was sent and no RESUME yet.
    pause_sent: Vec<u8>,
    /// Per output port: classes it may not start serving (a PAUSE arrived).
    paused: Vec<u8>,
    paused_since: Vec<[Time; CLASSES]>,
    /// Per ingress port: when the reverse direction of its link has finished sending the
    /// last PAUSE/RESUME for it, so that the next one leaves after it (`frame_departs`).
    frames_free_at: Vec<Time>,
    /// Per packet handle: the ingress port its bytes are counted against.
    held: Vec<u32>,
    pub stats: Vec<PfcPortStats>,
    /// Lossless bytes that arrived beyond `xoff + headroom`: the headroom was too small.
    pub headroom_overflows: u64,
}

impl Pfc {
    pub fn new(lossless: u8, thresholds: Vec<Option<PfcThresholds>>) -> Pfc {
        let n = thresholds.len();
        Pfc {
            lossless,
            thresholds,
            ingress_bytes: vec![[0; CLASSES]; n],
            pause_sent: vec![0; n],
            paused: vec![0; n],
            paused_since: vec![[Time::ZERO; CLASSES]; n],
            frames_free_at: vec![Time::ZERO; n],
            held: Vec::new(),
            stats: vec![PfcPortStats::default(); n],
            headroom_overflows: 0,
        }
    }

    #[inline]
    pub fn is_lossless(&self, class: usize) -> bool {
        self.lossless & (1 << class) != 0
    }

    /// Classes output port `p` may not serve, as a bit mask.
    #[inline]
    pub fn paused_mask(&self, p: u32) -> u8 {
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
        self.held[h as usize] = ingress;
        let i = ingress as usize;
        let count = &mut self.ingress_bytes[i][class];
        let before = *count;
        *count += size;
        let after = *count;
        let st = &mut self.stats[i];
        st.max_ingress = st.max_ingress.max(after);
        let limit = th.xoff + th.headroom;
        if after > limit {
            self.headroom_overflows += after - limit.max(before);
        }
        let bit = 1u8 << class;
        if after > th.xoff && self.pause_sent[i] & bit == 0 {
            self.pause_sent[i] |= bit;
            return Some(PfcFrame { port: ingress, class: class as u8, pause: true });
        }
        None
    }

    /// Packet `h` (`size` bytes of `class`) left its switch (transmitted or, for a lossy
    /// class, dropped). Returns the RESUME to send if the count fell to `xon`.
    pub fn depart(&mut self, h: u32, class: usize, size: u64) -> Option<PfcFrame> {
        let slot = self.held.get_mut(h as usize)?;
        let ingress = std::mem::replace(slot, NOT_HELD);
        if ingress == NOT_HELD {
            return None;
        }
        let i = ingress as usize;
        let count = &mut self.ingress_bytes[i][class];
        *count -= size;
        let bit = 1u8 << class;
        let th = self.thresholds[i].expect("held packets have thresholds");
        if self.pause_sent[i] & bit != 0 && *count <= th.xon {
            self.pause_sent[i] &= !bit;
            return Some(PfcFrame { port: ingress, class: class as u8, pause: false });
        }
        None
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
        let bit = 1u8 << c;
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
                self.paused_since[p][c] = now;
            }
            false
        } else {
            st.resume_frames += 1;
            if self.paused[p] & bit != 0 {
                self.paused[p] &= !bit;
                st.paused_time[c] = st.paused_time[c] + (now - self.paused_since[p][c]);
                return true;
            }
            false
        }
    }

    /// How long port `p` has held back `class` in all, up to `now` (a pause still in
    /// force counts until `now`).
    pub fn paused_time(&self, p: u32, class: usize, now: Time) -> Time {
        let done = self.stats[p as usize].paused_time[class];
        if self.paused[p as usize] & (1 << class) != 0 {
            done + (now - self.paused_since[p as usize][class])
        } else {
            done
        }
    }

    /// Bytes currently counted against ingress port `p` for `class`.
    pub fn ingress_bytes(&self, p: u32, class: usize) -> u64 {
        self.ingress_bytes[p as usize][class]
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_link(xoff: u64, xon: u64, headroom: u64) -> Pfc {
        Pfc::new(1 << DATA, vec![Some(PfcThresholds { xoff, xon, headroom })])
    }

    /// PAUSE exactly when the count first exceeds xoff, once; RESUME exactly when it first
    /// falls to xon or below, once (the 802.1Qbb hysteresis).
    #[test]
    fn pause_above_xoff_resume_at_xon_once_each() {
        let mut pfc = one_link(10_000, 6_000, 5_000);
        let mut frames = Vec::new();
        for h in 0..4u32 {
            frames.push(pfc.arrive(0, h, DATA, 3_000));
        }
        // 3k, 6k, 9k: nothing; 12k > 10k: pause.
        assert_eq!(frames, vec![None, None, None, Some(PfcFrame { port: 0, class: 0, pause: true })]);
        assert_eq!(pfc.arrive(0, 4, DATA, 3_000), None, "already paused");
        // 15k -> 12k -> 9k -> 6k: resume at 6k (= xon).
        let out: Vec<_> = (0..3u32).map(|h| pfc.depart(h, DATA, 3_000)).collect();
        assert_eq!(out, vec![None, None, Some(PfcFrame { port: 0, class: 0, pause: false })]);
        assert_eq!(pfc.depart(3, DATA, 3_000), None);
        assert_eq!(pfc.headroom_overflows, 0, "15k <= xoff + headroom");
    }

    /// A lossy class is neither counted nor paused; an ingress link from a host's side
    /// (no thresholds) is not counted either.
    #[test]
    fn lossy_classes_are_not_accounted() {
        let mut pfc = one_link(1, 0, 0);
        assert_eq!(pfc.arrive(0, 0, CONTROL, 100_000), None);
        assert!(!pfc.holds(0));
        let mut hostward = Pfc::new(1, vec![None]);
        assert_eq!(hostward.arrive(0, 0, DATA, 100_000), None);
    }

    /// Frames for one link leave one serialisation apart even when both are ready at once
    /// (a PAUSE and its RESUME within one packet time of the reverse port), so they arrive
    /// in the order sent; frames for other links do not wait for them.
    #[test]
    fn frames_on_one_link_keep_their_order() {
        let mut pfc = Pfc::new(1 << DATA, vec![Some(PfcThresholds { xoff: 1, xon: 0, headroom: 1 }); 2]);
        let ser = Time::from_ps(5_120); // 64 B at 100 Gb/s
        let ready = Time::from_ns(1_000);
        assert_eq!(pfc.frame_departs(0, ready, ser), ready);
        assert_eq!(pfc.frame_departs(0, ready, ser), ready + ser);
        assert_eq!(pfc.frame_departs(1, ready, ser), ready, "another link's frames are independent");
        let later = Time::from_ns(2_000);
        assert_eq!(pfc.frame_departs(0, later, ser), later, "an idle link sends at once");
    }

    /// Bytes beyond xoff + headroom are reported, so a test can assert the headroom held.
    #[test]
    fn headroom_overflow_is_counted() {
        let mut pfc = one_link(1_000, 0, 1_000);
        pfc.arrive(0, 0, DATA, 1_500);
        pfc.arrive(0, 1, DATA, 1_000);
        assert_eq!(pfc.headroom_overflows, 500);
    }

    #[test]
    fn frames_survive_the_event_encoding() {
        for f in [PfcFrame { port: 0, class: 1, pause: true }, PfcFrame { port: (1 << 30) - 1, class: 0, pause: false }]
        {
            assert_eq!(PfcFrame::decode(f.encode()), f);
        }
    }

    /// Paused time accumulates from PAUSE to RESUME.
    #[test]
    fn paused_time_is_measured() {
        let mut pfc = one_link(1, 0, 0);
        let f = PfcFrame { port: 0, class: 0, pause: true };
        assert!(!pfc.apply(f, Time::from_us(1)));
        assert!(pfc.is_paused(0, DATA));
        assert!(pfc.apply(PfcFrame { pause: false, ..f }, Time::from_us(4)));
        assert!(!pfc.is_paused(0, DATA));
        assert_eq!(pfc.stats[0].paused_time[DATA], Time::from_us(3));
        assert_eq!((pfc.stats[0].pause_frames, pfc.stats[0].resume_frames), (1, 1));
        assert_eq!(pfc.paused_time(0, DATA, Time::from_us(9)), Time::from_us(3));
        pfc.apply(f, Time::from_us(10));
        assert_eq!(pfc.paused_time(0, DATA, Time::from_us(12)), Time::from_us(5), "a pause in force counts");
    }
}
