//! ConWeave, in-network rerouting with reordering at the destination (Song et al., SIGCOMM
//! 2023), as the LAPS paper evaluates it (LAPS paper §4; docs/models/conweave.md, defaults
//! from the LAPS artefact). The source keeps one path per flow and watches it: one data packet
//! per round carries an RTT request, which the destination answers at once. A reply that
//! misses its deadline (the path's unloaded RTT plus a small extra) moves the flow to
//! another candidate path: the packet that decides it goes last on the old path, marked
//! TAIL, and the packets after it carry the next epoch. The destination holds packets of a
//! newer epoch in a queue of their own (a VOQ) until the old epoch's TAIL arrives, then
//! releases them behind it, so the receiver sees the flow in order; if the TAIL is late
//! (lost, or stuck behind a long queue) the queue is released at a deadline. The
//! destination confirms each TAIL (CLEAR) and, while a reroute is unconfirmed, the source
//! does not reroute again (unless the CLEAR seems lost; the destination then releases the
//! epochs it holds one after the other). Paths the destination saw ECN marks on (NOTIFY) are left out of
//! the choice for a short pause.
//!
//! What differs from ConWeave in switches: its source and destination are the ToRs. Here
//! the source logic runs at the sending host and the reorder queue at the receiving host,
//! one link further on, with tables per host pair over the pair's LAPS candidate paths
//! (`paths.rs`): on the rail fabric every GPU has its own edge switch, so the pair's paths
//! are the ToR pair's; on the dragonfly hosts under one router keep separate tables. A held
//! packet has already crossed the last link, so it takes its downlink time before its wait
//! rather than after it (a ToR holds it before that link); and the replies, CLEARs and NOTIFYs (header-sized, at the control priority,
//! on the reverse of the path that triggered them) travel one host link more each way. The
//! reply deadline counts that in: it is the path's unloaded host-to-host RTT plus the
//! extra. ConWeave's VOQs are a scarce switch resource; here every flow may hold one.

use serde::{Deserialize, Serialize};

use crate::net::Packet;
use crate::units::values::TimeVal;
use crate::units::Time;

/// ConWeave parameters (`[transport.conweave]`; the LAPS artefact's, docs/models/conweave.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConweaveParams {
    /// An RTT reply is due this long after the path's unloaded RTT; a later one (or none)
    /// reroutes the flow.
    pub reply_deadline_extra: TimeVal,
    /// A reorder queue is released this long after the old path's TAIL was due (its send
    /// time plus the old path's last one-way delay) if the TAIL has not come.
    pub voq_flush_slack: TimeVal,
    /// ... or after this long, when the old path's delay is not known.
    pub voq_wait: TimeVal,
    /// A flow that sent nothing for this long forgets its pending RTT request: its path
    /// has drained (ConWeave's flowlet-like expiry).
    pub tx_inactivity: TimeVal,
    /// A path the destination reported ECN marks on is not rerouted to for this long.
    pub path_pause: TimeVal,
}

impl Default for ConweaveParams {
    fn default() -> Self {
        ConweaveParams {
            reply_deadline_extra: TimeVal(Time::from_ns(80)),
            voq_flush_slack: TimeVal(Time::from_us(32)),
            voq_wait: TimeVal(Time::from_us(200)),
            tx_inactivity: TimeVal(Time::from_us(10)),
            path_pause: TimeVal(Time::from_us(4)),
        }
    }
}

impl ConweaveParams {
    /// The first setting out of range, as (field, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (field, v) in [("voq_wait", self.voq_wait), ("tx_inactivity", self.tx_inactivity)] {
            if v.0 == Time::ZERO {
                return Err((field, "0: allowed a positive time such as \"10us\"".into()));
            }
        }
        Ok(())
    }
}

/// The ConWeave header of a data packet, in `Packet::ext`: the epoch (mod 256) and two
/// flags. Control messages (ACK kind, `flags::CONWEAVE`) carry their kind and the epoch
/// they answer in the same word.
pub mod header {
    pub const EPOCH: u16 = 0xff;
    /// The last packet on the old path of a reroute.
    pub const TAIL: u16 = 1 << 8;
    /// The destination is to answer with an RTT reply.
    pub const RTT_REQUEST: u16 = 1 << 9;
    /// Control: the answer to an RTT request.
    pub const REPLY: u16 = 1 << 10;
    /// Control: the TAIL of the epoch named arrived, or its reorder queue was released
    /// without it.
    pub const CLEAR: u16 = 1 << 11;
    /// Control: the destination saw an ECN mark on the packet's path.
    pub const NOTIFY: u16 = 1 << 12;
    /// Alternates from one RTT request to the next and is echoed by the reply, so a late
    /// reply to an earlier request does not answer the current one.
    pub const REQUEST_ID: u16 = 1 << 13;
}

/// The sending side of one flow.
#[derive(Clone, Copy, Debug)]
struct Source {
    /// Candidate path (index within the flow's set) the flow sends on.
    path: u32,
    epoch: u8,
    /// The reply deadline of the RTT request out on `path`, if one is.
    reply_due: Option<Time>,
    /// The `REQUEST_ID` bit of the latest request.
    request_id: bool,
    /// No new reroute before this (the last one's CLEAR lifts it).
    reroute_blocked_until: Time,
    last_tx: Option<Time>,
}

/// The receiving side of one flow.
#[derive(Clone, Debug, Default)]
struct Dest {
    /// The epoch being delivered; packets of later ones wait in `voq`.
    epoch: u8,
    voq: Vec<Packet>,
    /// When `voq` is released without the TAIL (none while it is empty).
    release_at: Option<Time>,
    /// One-way delay of the latest packet of `epoch`.
    owd: Option<Time>,
    /// Last NOTIFY sent (they are rate-limited to one per path pause).
    last_notify: Option<Time>,
}

/// What the destination does with an arriving data packet.
#[derive(Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Hand it to the receiver.
    Deliver,
    /// Hand it to the receiver: it is the TAIL of `epoch`, so CLEAR that epoch and then
    /// `release` what waited for it.
    DeliverAndRelease { epoch: u8 },
    /// Keep it in the reorder queue; if `release_at` is given, the queue was empty and
    /// a release timer is due then.
    Hold { release_at: Option<Time> },
}

/// What a release hands back.
#[derive(Debug, Default)]
pub struct Released {
    /// Held packets to deliver now, in arrival order.
    pub packets: Vec<Packet>,
    /// Epochs that ended here (a held TAIL, or the timer): CLEAR each.
    pub cleared: Vec<u8>,
    /// Packets of still later epochs wait on: their release timer.
    pub release_at: Option<Time>,
}

/// ConWeave's state for a run.
pub struct Conweave {
    pub params: ConweaveParams,
    src: Vec<Option<Source>>,
    dst: Vec<Dest>,
    /// Per source-routed path: the end of its NOTIFY pause.
    paused_until: Vec<Time>,
    /// Per source-routed path: its unloaded host-to-host RTT (data out, control back).
    base_rtt: Vec<Time>,
    pub rtt_requests: u64,
    pub reroutes: u64,
    /// Reroutes wanted but not made: no other path was free of a NOTIFY pause.
    pub reroutes_refused: u64,
    pub held_packets: u64,
    pub tail_releases: u64,
    pub timeout_releases: u64,
    pub control_packets: u64,
    pub max_voq_packets: usize,
}

impl Conweave {
    /// State for `flows` flows over paths with unloaded RTTs `base_rtt`.
    pub fn new(params: &ConweaveParams, flows: usize, base_rtt: Vec<Time>) -> Conweave {
        Conweave {
            params: params.clone(),
            src: vec![None; flows],
            dst: vec![Dest::default(); flows],
            paused_until: vec![Time::ZERO; base_rtt.len()],
            base_rtt,
            rtt_requests: 0,
            reroutes: 0,
            reroutes_refused: 0,
            held_packets: 0,
            tail_releases: 0,
            timeout_releases: 0,
            control_packets: 0,
            max_voq_packets: 0,
        }
    }

    /// The path (index within the flow's `n` candidates, whose first is path `first`) and
    /// header of flow `f`'s next data packet at `now`. `initial` is the path a new flow
    /// starts on; `draw` gives uniform numbers in [0, 1) for the reroute choice.
    pub fn on_send(
        &mut self,
        f: u32,
        now: Time,
        first: u32,
        n: u32,
        initial: u32,
        mut draw: impl FnMut() -> f64,
    ) -> (u32, u16) {
        let p = &self.params;
        let s = self.src[f as usize].get_or_insert(Source {
            path: initial,
            epoch: 0,
            reply_due: None,
            request_id: false,
            reroute_blocked_until: Time::ZERO,
            last_tx: None,
        });
        if s.last_tx.is_some_and(|t| now.saturating_sub(t) > p.tx_inactivity.0) {
            s.reply_due = None;
        }
        s.last_tx = Some(now);
        let mut hdr = s.epoch as u16;
        if s.reply_due.is_some_and(|due| now > due) && now >= s.reroute_blocked_until {
            let paused = &self.paused_until;
            let free: Vec<u32> = (0..n).filter(|&i| i != s.path && paused[(first + i) as usize] <= now).collect();
            if free.is_empty() {
                // Nowhere better to go: watch the path for another round.
                self.reroutes_refused += 1;
                s.reply_due = None;
            } else {
                let next = free[((draw() * free.len() as f64) as usize).min(free.len() - 1)];
                let old = s.path;
                s.path = next;
                s.epoch = s.epoch.wrapping_add(1);
                s.reply_due = None;
                // Until the CLEAR; the fallback, should the CLEAR be lost, is the default
                // wait of the destination's queue plus a round trip. A destination still
                // holding this epoch then (its timer follows the old path's delay, which
                // has no bound) keeps each later epoch apart and releases them in order.
                s.reroute_blocked_until = now + p.voq_wait.0 + self.base_rtt[(first + old) as usize];
                self.reroutes += 1;
                return (old, hdr | header::TAIL);
            }
        }
        if s.reply_due.is_none() {
            s.reply_due = Some(now + self.base_rtt[(first + s.path) as usize] + p.reply_deadline_extra.0);
            s.request_id = !s.request_id;
            self.rtt_requests += 1;
            hdr |= header::RTT_REQUEST | if s.request_id { header::REQUEST_ID } else { 0 };
        }
        (s.path, hdr)
    }

    /// A control message `ext` for flow `f` (whose first path is `first`) came back over
    /// candidate path `path`.
    pub fn on_control(&mut self, f: u32, first: u32, path: u32, ext: u16, now: Time) {
        let Some(s) = self.src[f as usize].as_mut() else { return };
        let epoch = (ext & header::EPOCH) as u8;
        // A late reply changes nothing: the next packet reroutes (ConWeave's timer fires at
        // the deadline; here the next send looks at it).
        let same_request = (ext & header::REQUEST_ID != 0) == s.request_id;
        if ext & header::REPLY != 0
            && epoch == s.epoch
            && path == s.path
            && same_request
            && s.reply_due.is_some_and(|d| now <= d)
        {
            s.reply_due = None;
        }
        if ext & header::CLEAR != 0 && epoch.wrapping_add(1) == s.epoch {
            s.reroute_blocked_until = now;
        }
        if ext & header::NOTIFY != 0 {
            self.paused_until[(first + path) as usize] = now + self.params.path_pause.0;
        }
    }

    /// Data packet `pkt` of flow `f` reached the destination at `now`.
    pub fn on_arrive(&mut self, f: u32, pkt: &Packet, now: Time) -> Arrival {
        let d = &mut self.dst[f as usize];
        let epoch = (pkt.ext & header::EPOCH) as u8;
        let ahead = epoch.wrapping_sub(d.epoch);
        if (1..128).contains(&ahead) {
            // A newer epoch than the one being delivered: its TAIL is still out.
            let release_at = if d.voq.is_empty() {
                let at = match d.owd {
                    // The TAIL left just before this packet; it takes the old path's delay.
                    Some(owd) => (pkt.sent_at + owd + self.params.voq_flush_slack.0).max(now),
                    None => now + self.params.voq_wait.0,
                };
                d.release_at = Some(at);
                Some(at)
            } else {
                None
            };
            d.voq.push(*pkt);
            self.held_packets += 1;
            self.max_voq_packets = self.max_voq_packets.max(d.voq.len());
            return Arrival::Hold { release_at };
        }
        if ahead != 0 {
            // An older epoch, after its queue was released without the TAIL: as it comes.
            return Arrival::Deliver;
        }
        d.owd = Some(now.saturating_sub(pkt.sent_at));
        if pkt.ext & header::TAIL == 0 {
            return Arrival::Deliver;
        }
        d.epoch = epoch.wrapping_add(1);
        d.owd = None;
        self.tail_releases += 1;
        Arrival::DeliverAndRelease { epoch }
    }

    /// A trimmed data packet of flow `f` reached the destination: only its header did, but
    /// a TAIL among them still ends its epoch (the return value; CLEAR it, then `release`).
    pub fn on_trimmed(&mut self, f: u32, pkt: &Packet) -> Option<u8> {
        let d = &mut self.dst[f as usize];
        let epoch = (pkt.ext & header::EPOCH) as u8;
        if epoch != d.epoch || pkt.ext & header::TAIL == 0 {
            return None;
        }
        d.epoch = epoch.wrapping_add(1);
        d.owd = None;
        self.tail_releases += 1;
        Some(epoch)
    }

    /// What flow `f`'s reorder queue lets go at `now`: after a TAIL (`timer` None) the
    /// packets of the epoch now delivered, or, at a release timer that is still current,
    /// those of the next epoch, its TAIL taken as lost. A held TAIL ends its epoch in turn,
    /// so epochs go one after the other, each in arrival order; packets of later epochs
    /// wait on under a new timer (the default wait: their old path's delay is not known).
    pub fn release(&mut self, f: u32, now: Time, timer: Option<Time>) -> Released {
        let d = &mut self.dst[f as usize];
        let mut out = Released::default();
        if let Some(at) = timer {
            if d.release_at != Some(at) || d.voq.is_empty() {
                return out;
            }
            self.timeout_releases += 1;
            out.cleared.push(d.epoch);
            d.epoch = d.epoch.wrapping_add(1);
            d.owd = None;
        }
        d.release_at = None;
        while !d.voq.is_empty() {
            let epoch = d.epoch;
            let (ready, later): (Vec<Packet>, Vec<Packet>) =
                d.voq.drain(..).partition(|p| (p.ext & header::EPOCH) as u8 == epoch);
            d.voq = later;
            let ended = ready.iter().any(|p| p.ext & header::TAIL != 0);
            out.packets.extend(ready);
            if !ended {
                break;
            }
            out.cleared.push(epoch);
            self.tail_releases += 1;
            d.epoch = epoch.wrapping_add(1);
        }
        if !d.voq.is_empty() {
            let at = now + self.params.voq_wait.0;
            d.release_at = Some(at);
            out.release_at = Some(at);
        }
        out
    }

    /// The first packet flow `f`'s reorder queue holds, if any.
    pub fn first_held(&self, f: u32) -> Option<Packet> {
        self.dst[f as usize].voq.first().copied()
    }

    /// Whether the destination of flow `f` should NOTIFY the source of an ECN mark now.
    pub fn notify_due(&mut self, f: u32, now: Time) -> bool {
        let d = &mut self.dst[f as usize];
        if d.last_notify.is_some_and(|t| now.saturating_sub(t) < self.params.path_pause.0) {
            return false;
        }
        d.last_notify = Some(now);
        true
    }

    /// Bytes of the tables.
    pub fn heap_bytes(&self) -> u64 {
        (self.src.capacity() * std::mem::size_of::<Option<Source>>()
            + self.dst.capacity() * std::mem::size_of::<Dest>()
            + self.dst.iter().map(|d| d.voq.capacity() * std::mem::size_of::<Packet>()).sum::<usize>()
            + self.paused_until.capacity() * 8
            + self.base_rtt.capacity() * 8) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn us(v: u64) -> Time {
        Time::from_us(v)
    }

    /// Three candidate paths with a 10 µs unloaded RTT each.
    fn three_paths() -> Conweave {
        Conweave::new(&ConweaveParams::default(), 1, vec![us(10); 3])
    }

    fn data(psn: u32, ext: u16, sent_at: Time) -> Packet {
        Packet { psn, ext, sent_at, kind: PacketKind::Data, ..Packet::test_data(0, psn, 1048) }
    }

    fn psns(packets: &[Packet]) -> Vec<u32> {
        packets.iter().map(|p| p.psn).collect()
    }

    fn nothing(r: Released) -> bool {
        r.packets.is_empty() && r.cleared.is_empty() && r.release_at.is_none()
    }

    const FIRST_REQUEST: u16 = header::RTT_REQUEST | header::REQUEST_ID;

    /// One request per round; a reply that misses the deadline (10 µs + 80 ns) moves the
    /// flow: the deciding packet goes last on the old path as its TAIL, the next one opens
    /// epoch 1 on the new path with a request of its own. No second reroute before the
    /// CLEAR of epoch 0, however late the new path's reply.
    #[test]
    fn a_late_reply_reroutes_once_until_the_clear() {
        let mut c = three_paths();
        let send = |c: &mut Conweave, t: Time| c.on_send(0, t, 0, 3, 0, || 0.7);
        assert_eq!(send(&mut c, us(0)), (0, FIRST_REQUEST));
        assert_eq!(send(&mut c, us(5)), (0, 0));
        assert_eq!(send(&mut c, Time::from_ns(10_080)), (0, 0), "the deadline itself is in time");
        assert_eq!(send(&mut c, Time::from_ns(10_081)), (0, header::TAIL));
        let (path, hdr) = send(&mut c, Time::from_ns(10_100));
        assert!(path == 1 || path == 2, "{path}");
        assert_eq!(hdr, 1 | header::RTT_REQUEST);
        assert_eq!(send(&mut c, us(15)), (path, 1));
        assert_eq!(send(&mut c, us(21)), (path, 1), "late, but the CLEAR has not come");
        c.on_control(0, 0, path, header::CLEAR, us(22));
        assert_eq!(send(&mut c, us(23)).1, 1 | header::TAIL);
        assert_eq!((c.reroutes, c.rtt_requests), (2, 2));
    }

    /// A reply in time (of the current epoch, over the current path, to the current
    /// request) lets the next packet ask again; any other does not count.
    #[test]
    fn a_reply_in_time_keeps_the_path() {
        let mut c = three_paths();
        c.on_send(0, us(0), 0, 3, 2, || 0.0);
        c.on_control(0, 0, 1, header::REPLY | header::REQUEST_ID, us(9));
        assert_eq!(c.on_send(0, us(9), 0, 3, 2, || 0.0), (2, 0), "a reply over another path is stale");
        c.on_control(0, 0, 2, header::REPLY, us(9));
        assert_eq!(c.on_send(0, us(9), 0, 3, 2, || 0.0), (2, 0), "a reply to another request is stale");
        c.on_control(0, 0, 2, header::REPLY | header::REQUEST_ID, us(9));
        assert_eq!(c.on_send(0, us(9), 0, 3, 2, || 0.0), (2, header::RTT_REQUEST), "the second request");
        assert_eq!(c.on_send(0, us(15), 0, 3, 2, || 0.0), (2, 0));
        assert_eq!(c.reroutes, 0);
    }

    /// A NOTIFY keeps its path out of the choice for the path pause (4 µs); with every
    /// other path paused the flow stays and watches its path for another round.
    #[test]
    fn notified_paths_are_not_chosen_while_paused() {
        for draw in [0.0, 0.99] {
            let mut c = three_paths();
            c.on_send(0, us(0), 0, 3, 0, || draw);
            c.on_send(0, us(6), 0, 3, 0, || draw);
            c.on_control(0, 0, 1, header::NOTIFY, us(9));
            assert_eq!(c.on_send(0, us(11), 0, 3, 0, || draw).1, header::TAIL);
            assert_eq!(c.on_send(0, us(11), 0, 3, 0, || draw).0, 2, "draw {draw}");
        }
        let mut c = three_paths();
        c.on_send(0, us(0), 0, 3, 0, || 0.5);
        c.on_send(0, us(6), 0, 3, 0, || 0.5);
        c.on_control(0, 0, 1, header::NOTIFY, us(8));
        c.on_control(0, 0, 2, header::NOTIFY, us(9));
        assert_eq!(c.on_send(0, us(11), 0, 3, 0, || 0.5), (0, header::RTT_REQUEST));
        assert_eq!(c.reroutes_refused, 1);
    }

    /// A flow idle for longer than the inactivity expiry (10 µs) forgets its request: its
    /// old path has drained, so a missing reply says nothing about it.
    #[test]
    fn inactivity_forgets_the_request() {
        let mut c = three_paths();
        c.on_send(0, us(0), 0, 3, 0, || 0.5);
        assert_eq!(c.on_send(0, us(21), 0, 3, 0, || 0.5), (0, header::RTT_REQUEST));
        assert_eq!(c.reroutes, 0);
    }

    /// Packets of epoch 1 that overtake epoch 0's TAIL wait; the TAIL releases them behind
    /// it in arrival order, and later epoch-1 packets pass straight through. The release
    /// timer: the first held packet's send time + the old path's last one-way delay (5 µs)
    /// + the 32 µs slack.
    #[test]
    fn the_destination_holds_a_newer_epoch_until_the_tail() {
        let mut c = three_paths();
        assert_eq!(c.on_arrive(0, &data(0, header::RTT_REQUEST, us(0)), us(5)), Arrival::Deliver);
        assert_eq!(c.on_arrive(0, &data(1, 0, us(1)), us(6)), Arrival::Deliver);
        assert_eq!(c.on_arrive(0, &data(3, 1, us(3)), us(7)), Arrival::Hold { release_at: Some(us(40)) });
        assert_eq!(c.on_arrive(0, &data(4, 1, us(4)), us(8)), Arrival::Hold { release_at: None });
        assert_eq!(c.on_arrive(0, &data(2, header::TAIL, us(2)), us(30)), Arrival::DeliverAndRelease { epoch: 0 });
        let r = c.release(0, us(30), None);
        assert_eq!((psns(&r.packets), r.cleared, r.release_at), (vec![3, 4], vec![], None));
        assert_eq!(c.on_arrive(0, &data(5, 1, us(31)), us(33)), Arrival::Deliver);
        assert!(nothing(c.release(0, us(40), Some(us(40)))), "the timer of a released queue");
        assert_eq!((c.held_packets, c.tail_releases, c.timeout_releases, c.max_voq_packets), (2, 1, 0, 2));
    }

    /// Two reroutes outstanding (the source's fallback ran out before the CLEAR): epochs 1
    /// and 2 both wait for epoch 0's TAIL, and then come out one epoch after the other,
    /// epoch 1 ending at its own held TAIL (CLEARed), epoch 2 after it.
    #[test]
    fn held_epochs_come_out_in_epoch_order() {
        let mut c = three_paths();
        assert!(matches!(c.on_arrive(0, &data(10, 1, us(1)), us(3)), Arrival::Hold { .. }));
        assert!(matches!(c.on_arrive(0, &data(20, 2, us(2)), us(4)), Arrival::Hold { .. }));
        assert!(matches!(c.on_arrive(0, &data(11, 1 | header::TAIL, us(1)), us(5)), Arrival::Hold { .. }));
        assert_eq!(c.on_arrive(0, &data(9, header::TAIL, us(0)), us(6)), Arrival::DeliverAndRelease { epoch: 0 });
        let r = c.release(0, us(6), None);
        assert_eq!((psns(&r.packets), r.cleared, r.release_at), (vec![10, 11, 20], vec![1], None));
        assert_eq!(c.on_arrive(0, &data(21, 2, us(7)), us(9)), Arrival::Deliver);
        // Epoch 3 held again behind epoch 2: a timer, which takes epoch 2's TAIL as lost.
        let Arrival::Hold { release_at: Some(at) } = c.on_arrive(0, &data(30, 3, us(8)), us(10)) else { panic!() };
        let r = c.release(0, at, Some(at));
        assert_eq!((psns(&r.packets), r.cleared, r.release_at), (vec![30], vec![2], None));
        assert_eq!(c.tail_releases, 2);
    }

    /// A TAIL that does not come: the queue goes at its timer (the default wait when the
    /// old path's delay is unknown), the destination CLEARs epoch 0, moves to epoch 1, and
    /// the TAIL, if it comes after all, is delivered as it comes. A trimmed TAIL (its
    /// header) ends its epoch like a whole one.
    #[test]
    fn a_missing_tail_releases_the_queue_at_its_timer() {
        let mut c = three_paths();
        assert_eq!(c.on_arrive(0, &data(3, 1, us(3)), us(7)), Arrival::Hold { release_at: Some(us(207)) });
        assert!(nothing(c.release(0, us(100), Some(us(100)))), "a stale timer");
        let r = c.release(0, us(207), Some(us(207)));
        assert_eq!((psns(&r.packets), r.cleared), (vec![3], vec![0]));
        assert_eq!(c.on_arrive(0, &data(2, header::TAIL, us(2)), us(300)), Arrival::Deliver);
        assert_eq!(c.on_arrive(0, &data(4, 1, us(301)), us(305)), Arrival::Deliver);
        assert_eq!(c.timeout_releases, 1);
        assert!(matches!(c.on_arrive(0, &data(7, 2, us(310)), us(312)), Arrival::Hold { .. }));
        assert_eq!(c.on_trimmed(0, &data(6, 2 | header::TAIL, us(309))), None, "not the current epoch's");
        assert_eq!(c.on_trimmed(0, &data(6, 1 | header::TAIL, us(309))), Some(1));
        assert_eq!(psns(&c.release(0, us(313), None).packets), vec![7]);
    }
}
