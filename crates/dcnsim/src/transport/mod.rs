//! Reliable delivery shared by every congestion control: packet sequence numbers,
//! per-packet (optionally coalesced) ACKs carrying a cumulative ACK and the PSN that
//! triggered them (selective-ACK information), loss detection by a duplicate-ACK
//! threshold (RFC 6675 style: a packet is lost once a PSN `dupack_threshold` beyond it is
//! acknowledged) and by retransmission timeout (RFC 6298 estimator, exponential backoff),
//! retransmission, receive reordering, RTT samples from echoed send times, ECN echo, and
//! the path entropy echoed back.
//!
//! The receiver's ECN-echo follows DCTCP's two-state machine (DCTCP paper §3.1; spec
//! `dctcp-vs-swift.md` §2.2): with ACK coalescing, a change of the CE state first flushes
//! an ACK for the packets received under the old state, so the sender sees the exact
//! marked byte count.
//!
//! Windows and in-flight counts are in wire bytes (payload + header).

pub mod app;

use std::collections::{BTreeSet, VecDeque};

use self::app::OnOffApp;
use crate::cc::{AckSample, CongestionControl, LossEvent, NackSample, ReorderWindow, TimeoutPolicy};
use crate::eqds::SenderCredit;
use crate::lb::{Flowlets, LetflowParams, Plb, PlbParams, Reps, RepsParams};
use crate::net::{flags, Packet, PacketKind};
use crate::lb::LbName;
use crate::units::{Rate, Time};

/// Transport settings shared by all flows of a scenario.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    pub header_bytes: u32,
    pub mtu: u32,
    pub ack_ratio: u32,
    pub ack_policy: AckPolicy,
    pub delayed_ack_timeout: Time,
    pub dupack_threshold: u32,
    pub loss_rule: LossRule,
    pub loss_recovery: LossRecovery,
    /// Pace every flow at one window per smoothed RTT.
    pub pace_window: bool,
    pub rto_min: Time,
    pub rto_max: Time,
    pub rto_initial: Time,
    /// REPS (freezing only where switches trim) and PLB settings.
    pub reps: RepsParams,
    pub plb: PlbParams,
    pub letflow: LetflowParams,
    /// Every data packet carries ECT, whatever the algorithm (htsim's queues mark all).
    pub ect_always: bool,
}

impl TransportConfig {
    pub fn payload(&self) -> u32 {
        self.mtu - self.header_bytes
    }
}

/// When a hole in the acknowledged PSNs counts as a loss (see `Flow::detect_losses`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossRule {
    /// `dupack_threshold` PSNs above it acknowledged (RFC 6675's duplicate count).
    Count,
    /// The PSN `dupack_threshold` above it acknowledged (FACK-like).
    Distance,
}

/// When the receiver acknowledges at once rather than waiting for `ack_ratio` packets.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// RFC 5681 §4.2: at once on an out-of-order packet, a gap fill, a duplicate and the
    /// last packet (and, DCTCP's receiver, pending ACKs are flushed when the CE state
    /// changes).
    #[default]
    Tcp,
    /// UEC, as uet-htsim's receiver (spec `smartt-nscc.md` §2.15 [H]): at once on an
    /// ECN-marked packet, one carrying the sender's ACK request, the first packet, a
    /// duplicate and the last packet; otherwise every `ack_ratio` packets, out-of-order
    /// ones included. An ACK reports the 16 PSNs above its cumulative ACK in a bitmap, so
    /// the sender's hole counting sees the arrivals coalescing held back (whether one was a
    /// resend it does not learn: only the ACK's own packet says). Meant for UEC transports:
    /// the ACK of a marked packet also covers the unmarked ones pending before it, which
    /// an algorithm counting marked bytes (DCTCP) would count as marked.
    Uec,
}

/// How lost packets are recovered.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossRecovery {
    /// The receiver keeps out-of-order packets and acknowledges them selectively; the
    /// sender resends only what is missing.
    #[default]
    Sack,
    /// RoCEv2 (InfiniBand RC): the receiver discards every out-of-sequence packet and
    /// sends one NAK for the PSN it expects; the sender then resends everything from that
    /// PSN on. A timeout also resends everything outstanding.
    GoBackN,
}

const SENT: u8 = 0;
const ACKED: u8 = 1;
const LOST: u8 = 2;
const RESENT: u8 = 3;

/// Why a flow cannot hand a packet to its NIC right now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SendState {
    Ready,
    /// Window full or nothing to send; an ACK or timeout will wake it.
    Blocked,
    /// Pacing: may send at this time.
    PacedUntil(Time),
}

pub struct Sender {
    pub cc: Box<dyn CongestionControl>,
    n_pkts: u32,
    /// PSNs `cum_acked..next_new` and their state.
    state: VecDeque<u8>,
    /// When each of those PSNs was last transmitted (ages for `TimeoutPolicy::Expired`,
    /// and telling a NACK of an old transmission from one of the current).
    sent_at: VecDeque<Time>,
    /// The algorithm's choices, read once: SACK-hole loss detection, fixed RTO, timeout scope,
    /// and whether it wants the runs of confirmed losses (else `confirmed` stays empty).
    sack_loss: bool,
    confirms_losses: bool,
    /// Go-back-N recovery (`LossRecovery::GoBackN`): a NAK resends from its PSN on.
    go_back_n: bool,
    fixed_rto: Option<Time>,
    timeout_policy: TimeoutPolicy,
    pub next_new: u32,
    pub cum_acked: u32,
    highest_acked: u32,
    loss_scan: u32,
    /// Holes waiting out the reorder window: (PSN, when it became a hole).
    holes: VecDeque<(u32, Time)>,
    newly_lost: Vec<u32>,
    runs: Vec<(u32, u32)>,
    /// PSNs recently confirmed lost: their retransmission, not the original, arrived.
    confirmed: BTreeSet<u32>,
    /// Runs of consecutive confirmed-lost PSNs grown on the current ACK.
    confirmed_runs: Vec<(u32, u32)>,
    retx: VecDeque<u32>,
    pub in_flight: u64,
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    /// RFC 8985 §6.2 reorder-window state: multiplier of min_RTT/4, the PSN that ends the
    /// round in which it last grew, recoveries left before it resets, and the PSN that
    /// ends the current loss recovery (if one is under way).
    reo_wnd_mult: u32,
    reo_grown_until: u32,
    reo_wnd_persist: u32,
    recovery_until: Option<u32>,
    pub rto: Time,
    backoff: u32,
    /// Timeouts since the receiver was last heard from (an ACK or NACK): a flow whose
    /// receiver answers is not cut off, however slowly it progresses.
    pub timeouts_in_a_row: u32,
    timeout_counted_at: Time,
    pub rto_deadline: Time,
    /// Time of the pending `Rto` event (`Time::MAX`: none). A deadline that moves
    /// earlier gets a new event; stale ones are ignored when they fire.
    pub rto_event_at: Time,
    next_send_at: Time,
    pace_window: bool,
    /// `transport.inflight_cap` in wire bytes (`u64::MAX`: none), on top of the window.
    pub inflight_cap: u64,
    pub stop_at: Time,
    pub retransmits: u64,
    pub timeouts: u64,
    /// NACKs that marked a packet lost.
    pub nacks: u64,
    /// EQDS: packets may leave only against credit (`None`: no credit needed).
    pub credit: Option<SenderCredit>,
    /// Data packets carry ECT (the algorithm reads ECN, or `ect_always`).
    ect: bool,
}

impl Sender {
    /// Frees the per-PSN buffers of a sender with every packet acked; empty collections
    /// allocate nothing.
    #[cold]
    fn release_buffers(&mut self) {
        self.state = VecDeque::new();
        self.sent_at = VecDeque::new();
        self.holes = VecDeque::new();
        self.newly_lost = Vec::new();
        self.runs = Vec::new();
        self.confirmed = BTreeSet::new();
        self.confirmed_runs = Vec::new();
        self.retx = VecDeque::new();
    }

    /// EQDS: after a timeout (or a go-back-N rewind) the sender may resend what it
    /// declared lost without waiting for pulls (a packet lost outright was never pulled
    /// for).
    fn grant_retransmissions(&mut self) {
        if let Some(c) = self.credit.as_mut() {
            let want = c.sent + self.retx.len() as u32;
            let have = c.speculative + c.pulled + c.self_granted;
            c.self_granted += want.saturating_sub(have);
        }
    }

    /// How long a hole waits for its original before it counts as lost.
    fn reorder_wait(&self) -> Time {
        match self.cc.reorder_window() {
            ReorderWindow::Fixed(t) => t,
            ReorderWindow::Rack if self.min_rtt == Time::MAX => Time::ZERO,
            ReorderWindow::Rack => {
                let widened = Time(self.min_rtt.0 / 4 * self.reo_wnd_mult as u64);
                widened.min(self.srtt.unwrap_or(widened))
            }
        }
    }

    /// RFC 8985 §6.2 step 4 (the DSACK case): widen the reorder window by min_RTT/4, at
    /// most once per round trip.
    fn premature_loss(&mut self) {
        if self.cum_acked >= self.reo_grown_until {
            self.reo_grown_until = self.next_new;
            self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(1024);
            self.reo_wnd_persist = 16;
        }
    }

    /// `psn`'s retransmission arrived before its original: the original was lost, or late by
    /// more than a retransmission round trip, which no reordering explains. Records it and
    /// the run of consecutive confirmed PSNs it now belongs to.
    fn confirm_lost(&mut self, psn: u32) {
        // Runs longer than this are answered anyway; older PSNs cannot join a new run.
        const MEMORY: u32 = 4096;
        if self.confirmed.len() as u32 >= MEMORY {
            let floor = psn.saturating_sub(MEMORY);
            self.confirmed.retain(|&p| p >= floor);
        }
        self.confirmed.insert(psn);
        let (mut lo, mut hi) = (psn, psn);
        while lo > 0 && self.confirmed.contains(&(lo - 1)) {
            lo -= 1;
        }
        while self.confirmed.contains(&(hi + 1)) {
            hi += 1;
        }
        self.confirmed_runs.push((lo, hi));
    }

    /// The algorithm's own pacing rate, else (with `pace_window`) one window per smoothed
    /// RTT, which spreads packets evenly instead of sending each window as a line-rate burst.
    fn pacing_rate(&self) -> Option<Rate> {
        if let Some(r) = self.cc.pacing_rate() {
            return Some(r);
        }
        let srtt = self.srtt.filter(|_| self.pace_window)?;
        let bps = self.cc.cwnd() as u128 * 8 * 1_000_000_000_000 / srtt.0.max(1) as u128;
        Some(Rate((bps as u64).max(1)))
    }
}

pub struct Receiver {
    pub rcv_next: u32,
    /// Out-of-order arrivals: index i is PSN rcv_next + i.
    ooo: VecDeque<bool>,
    /// Packets held in `ooo` (received above `rcv_next`).
    pub ooo_held: u32,
    /// New data packets that arrived above `rcv_next` (reordered or after a loss).
    pub reordered: u64,
    pub delivered: u64,
    ce_state: bool,
    pending: u32,
    /// Arrival of the oldest packet `pending` counts: the delayed ACK is due a timeout
    /// after it (RFC 1122 §4.2.3.2), not after whichever packet armed the timer.
    pending_since: Time,
    last_psn: u32,
    last_sent_at: Time,
    last_entropy: u32,
    last_retx: bool,
    pub delayed_ack_pending: bool,
    pub finish: Option<Time>,
    /// Go-back-N: the expected PSN a NAK was already sent for (one NAK per gap).
    nak_sent_for: Option<u32>,
    /// CNPs: the algorithm's minimum gap between two, and when the last one left.
    cnp_interval: Option<Time>,
    last_cnp: Option<Time>,
}

impl Receiver {
    /// Bit j set iff PSN `rcv_next + 1 + j` has arrived (`rcv_next` itself has not).
    fn sack_bits(&self) -> u16 {
        self.ooo.iter().skip(1).take(16).enumerate().fold(0, |bits, (j, &got)| bits | (got as u16) << j)
    }
}

/// One flow: both its ends.
pub struct Flow {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    /// Payload bytes; `u64::MAX` for an infinite flow.
    pub size: u64,
    pub start: Time,
    pub tag: u16,
    /// Per-flow ECMP entropy (used when `lb` is ECMP).
    pub entropy: u32,
    pub lb: LbName,
    /// REPS: entropies whose ACKs came back unmarked, oldest first, to be reused.
    pub reps: Reps,
    pub plb: Plb,
    pub flowlets: Flowlets,
    pub ideal_fct: Time,
    pub base_rtt: Time,
    payload: u32,
    last_payload: u32,
    header: u32,
    pub sender: Sender,
    pub receiver: Receiver,
    /// Data packets of this flow dropped anywhere (ACK drops count only at the ports).
    pub drops: u64,
    /// Data packets of this flow trimmed to their header anywhere.
    pub trims: u64,
    /// Scheduling flags used by the host NIC.
    pub in_ready: bool,
    pub wake_pending: bool,
    pub started: bool,
    /// Given up (`faults.give_up_after` timeouts in a row): it sends nothing more. A flag
    /// of its own, so that the flow table still shows when the flow began.
    pub stopped: bool,
    /// Given up after `faults.give_up_after` timeouts in a row (`Simulation::give_up`).
    pub failed: bool,
    /// The application feeding this flow (`app.rs`); `None`: all data is there at start.
    pub app: Option<OnOffApp>,
    /// Priority level carried by every packet (0: none; larger = more important).
    pub priority: u8,
    /// The algorithm sends probes while stopped (PrioPlus), so the simulation keeps a
    /// probe timer for it; `probe_event_at` is the pending one (`Time::MAX`: none).
    pub uses_probes: bool,
    pub probe_event_at: Time,
    /// Noise added to every delay sample the algorithm sees (`noise.rs`).
    pub noise: Option<Box<crate::noise::DelayNoise>>,
}

pub struct AckOutcome {
    /// Every byte is acknowledged: the sender is done.
    pub sender_done: bool,
    /// The window may have opened.
    pub may_send: bool,
}

/// An ACK the receiver wants sent.
#[derive(Copy, Clone, Debug)]
pub struct AckToSend {
    pub cum: u32,
    pub sacked_psn: u32,
    pub ece: bool,
    pub sent_at: Time,
    pub entropy: u32,
    /// The packet acknowledged was a retransmission (its original never arrived first).
    pub retx: bool,
    /// `Packet::sack_bits`: which of the 16 PSNs above `cum` have arrived (UEC policy).
    pub sack_bits: u16,
}

/// What a delayed-ACK timer's firing calls for.
#[derive(Debug)]
pub enum DelayedAck {
    /// Nothing is pending (an ACK since covered it all).
    Idle,
    /// Send this ACK.
    Send(AckToSend),
    /// The oldest pending packet is not yet a timeout old: fire again then.
    At(Time),
}

#[derive(Default)]
pub struct DataOutcome {
    pub acks: [Option<AckToSend>; 2],
    pub arm_delayed_ack: bool,
    pub finished_now: bool,
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        src: u32,
        dst: u32,
        size: u64,
        start: Time,
        stop_at: Time,
        tag: u16,
        cc: Box<dyn CongestionControl>,
        cfg: &TransportConfig,
        entropy: u32,
        lb: LbName,
        reps_capacity: usize,
    ) -> Flow {
        let payload = cfg.payload();
        let (n_pkts, last_payload) = if size == u64::MAX {
            (u32::MAX, payload)
        } else {
            let n = size.div_ceil(payload as u64).max(1);
            let last = size - (n - 1) * payload as u64;
            (n as u32, last as u32)
        };
        let go_back_n = cfg.loss_recovery == LossRecovery::GoBackN;
        // Go-back-N receivers never report out-of-order arrivals, so there are no holes.
        let sack_loss = cc.sack_loss_detection() && !go_back_n;
        let confirms_losses = cc.wants_confirmed_losses();
        let (fixed_rto, timeout_policy, cnp_interval) = (cc.fixed_rto(), cc.timeout_policy(), cc.cnp_interval());
        let ect = cc.ecn_capable();
        Flow {
            id,
            src,
            dst,
            size,
            start,
            tag,
            entropy,
            lb,
            reps: Reps::new(if lb == LbName::Reps { reps_capacity } else { 0 }),
            plb: Plb::default(),
            flowlets: Flowlets::default(),
            ideal_fct: Time::ZERO,
            base_rtt: Time::ZERO,
            payload,
            last_payload,
            header: cfg.header_bytes,
            sender: Sender {
                cc,
                n_pkts,
                state: VecDeque::new(),
                sent_at: VecDeque::new(),
                sack_loss,
                confirms_losses,
                go_back_n,
                fixed_rto,
                timeout_policy,
                next_new: 0,
                cum_acked: 0,
                highest_acked: 0,
                loss_scan: 0,
                holes: VecDeque::new(),
                newly_lost: Vec::new(),
                runs: Vec::new(),
                confirmed: BTreeSet::new(),
                confirmed_runs: Vec::new(),
                retx: VecDeque::new(),
                in_flight: 0,
                srtt: None,
                rttvar: Time::ZERO,
                min_rtt: Time::MAX,
                reo_wnd_mult: 1,
                reo_grown_until: 0,
                reo_wnd_persist: 0,
                recovery_until: None,
                rto: fixed_rto.unwrap_or(cfg.rto_initial),
                backoff: 0,
                timeouts_in_a_row: 0,
                timeout_counted_at: Time::ZERO,
                rto_deadline: Time::MAX,
                rto_event_at: Time::MAX,
                next_send_at: Time::ZERO,
                pace_window: cfg.pace_window,
                inflight_cap: u64::MAX,
                stop_at,
                retransmits: 0,
                timeouts: 0,
                nacks: 0,
                credit: None,
                ect: cfg.ect_always || ect,
            },
            receiver: Receiver {
                rcv_next: 0,
                ooo: VecDeque::new(),
                ooo_held: 0,
                reordered: 0,
                delivered: 0,
                ce_state: false,
                pending: 0,
                pending_since: Time::ZERO,
                last_psn: 0,
                last_sent_at: Time::ZERO,
                last_entropy: 0,
                last_retx: false,
                delayed_ack_pending: false,
                finish: None,
                nak_sent_for: None,
                cnp_interval,
                last_cnp: None,
            },
            drops: 0,
            trims: 0,
            in_ready: false,
            wake_pending: false,
            started: false,
            stopped: false,
            failed: false,
            app: None,
            priority: 0,
            uses_probes: false,
            probe_event_at: Time::MAX,
            noise: None,
        }
    }

    /// A delay sample as the algorithm sees it: the true one plus measurement noise.
    #[inline]
    pub fn measured_delay(&mut self, true_delay: Time) -> Time {
        match self.noise.as_mut() {
            Some(n) => true_delay + n.sample(),
            None => true_delay,
        }
    }

    /// Makes the flow an EQDS credit flow with `speculative` packets before the first pull.
    pub fn use_credit(&mut self, speculative: u32) {
        self.sender.credit = Some(SenderCredit::new(speculative));
    }

    pub fn is_infinite(&self) -> bool {
        self.size == u64::MAX
    }

    /// Bytes of the flow's own state: the struct, its algorithm's and its application's.
    pub fn fixed_bytes(&self) -> u64 {
        use std::mem::size_of;
        size_of::<Flow>() as u64
            + std::mem::size_of_val(&*self.sender.cc) as u64
            + self.reps.heap_bytes()
            + self.app.as_ref().map_or(0, |_| size_of::<OnOffApp>() as u64)
    }

    /// Bytes of its per-packet containers at their high-water capacity: a state byte and a
    /// send time per outstanding PSN, loss bookkeeping, the receiver's reorder map.
    pub fn packet_bytes(&self) -> u64 {
        use std::mem::size_of;
        let s = &self.sender;
        let bytes = |len: usize, each: usize| (len * each) as u64;
        bytes(s.state.capacity(), 1)
            + bytes(s.sent_at.capacity(), size_of::<Time>())
            + bytes(s.holes.capacity(), size_of::<(u32, Time)>())
            + bytes(s.retx.capacity(), 4)
            + bytes(s.newly_lost.capacity() + s.runs.capacity() * 2 + s.confirmed_runs.capacity() * 2, 4)
            // A BTreeSet node holds up to 11 keys; a node per key is an upper bound.
            + bytes(s.confirmed.len(), 4 + 8)
            + bytes(self.receiver.ooo.capacity(), 1)
    }

    pub fn n_pkts(&self) -> u32 {
        self.sender.n_pkts
    }

    /// Wire size of a data packet.
    #[inline]
    pub fn wire_size(&self, psn: u32) -> u32 {
        if psn + 1 == self.sender.n_pkts {
            self.last_payload + self.header
        } else {
            self.payload + self.header
        }
    }

    #[inline]
    fn payload_of(&self, psn: u32) -> u32 {
        if psn + 1 == self.sender.n_pkts {
            self.last_payload
        } else {
            self.payload
        }
    }

    /// The sender's smoothed RTT (RFC 6298), once it has a sample.
    pub fn srtt(&self) -> Option<Time> {
        self.sender.srtt
    }

    pub fn sender_done(&self) -> bool {
        self.sender.cum_acked >= self.sender.n_pkts
    }

    fn has_new_data(&self, now: Time) -> bool {
        let s = &self.sender;
        s.next_new < s.n_pkts && (s.n_pkts != u32::MAX || now < s.stop_at)
    }

    fn next_retx(&mut self) -> Option<u32> {
        let s = &mut self.sender;
        while let Some(&p) = s.retx.front() {
            if p >= s.cum_acked && s.state[(p - s.cum_acked) as usize] == LOST {
                return Some(p);
            }
            s.retx.pop_front();
        }
        None
    }

    /// May this flow hand its NIC a packet now?
    pub fn send_state(&mut self, now: Time) -> SendState {
        if !self.started || self.stopped {
            return SendState::Blocked;
        }
        let psn = match self.next_retx() {
            Some(p) => p,
            None if self.has_new_data(now) => {
                // An application-limited flow sends only whole packets its app has written.
                if let Some(app) = self.app.as_mut() {
                    let acked = self.sender.cum_acked as u64 * self.payload as u64;
                    let need = (self.sender.next_new as u64 + 1) * self.payload as u64;
                    if let Some(wait) = app.wait_for(now, acked, need) {
                        return wait;
                    }
                }
                self.sender.next_new
            }
            None => return SendState::Blocked,
        };
        let size = self.wire_size(psn) as u64;
        let s = &self.sender;
        let cwnd = s.cc.cwnd().min(s.inflight_cap);
        // Always allow one packet when nothing is in flight, so a window below one packet
        // still makes progress; a window of exactly 0 is an algorithm that has stopped
        // (PrioPlus above its delay limit) and sends nothing until it restarts.
        if cwnd == 0 || s.in_flight > 0 && s.in_flight + size > cwnd {
            return SendState::Blocked;
        }
        if s.credit.as_ref().is_some_and(|c| !c.may_send()) {
            return SendState::Blocked;
        }
        if now < s.next_send_at && s.pacing_rate().is_some() {
            return SendState::PacedUntil(s.next_send_at);
        }
        SendState::Ready
    }

    /// Whether choosing the next packet's entropy needs a fresh random value.
    pub fn needs_fresh_entropy(&self, now: Time) -> bool {
        match self.lb {
            LbName::Ecmp | LbName::Rr => false,
            LbName::Reps => self.reps.needs_fresh(now),
            LbName::Plb => self.plb.repath_pending,
            // LetFlow decides per packet whether a flowlet starts; a draw is cheap.
            LbName::Ops | LbName::Ar | LbName::Rps | LbName::Letflow => true,
            // The simulation draws LAPS's and CONGA's paths from their tables.
            LbName::Laps | LbName::Conga | LbName::Conweave => false,
        }
    }

    /// The entropy value for this flow's next data packet: fixed for ECMP; the packet's
    /// PSN for round robin (so exactly one packet in `paths` takes each path, and a
    /// retransmission retraces its original: the MSwift models' q is a fraction of
    /// packets); REPS and PLB as `lb.rs` decides; otherwise `fresh`.
    pub fn next_entropy(&mut self, now: Time, fresh: u32, cfg: &TransportConfig) -> u32 {
        match self.lb {
            LbName::Ecmp | LbName::Conga | LbName::Conweave => self.entropy,
            LbName::Rr => self.next_retx().unwrap_or(self.sender.next_new),
            LbName::Reps => self.reps.next(now, cfg.reps.draw(self.id, fresh), &cfg.reps),
            LbName::Plb => self.plb.next(&mut self.entropy, fresh),
            LbName::Letflow => self.flowlets.next(now, &mut self.entropy, fresh, &cfg.letflow),
            LbName::Ops | LbName::Ar | LbName::Rps | LbName::Laps => fresh,
        }
    }

    /// Builds the next data packet (a retransmission first) on path `entropy`. Call only
    /// when `send_state` said `Ready`.
    pub fn emit(&mut self, now: Time, entropy: u32) -> Packet {
        let (psn, retx) = match self.next_retx() {
            Some(p) => {
                self.sender.retx.pop_front();
                (p, true)
            }
            None => {
                let p = self.sender.next_new;
                self.sender.next_new += 1;
                self.sender.state.push_back(SENT);
                self.sender.sent_at.push_back(now);
                (p, false)
            }
        };
        let size = self.wire_size(psn);
        let s = &mut self.sender;
        if retx {
            s.state[(psn - s.cum_acked) as usize] = RESENT;
            s.sent_at[(psn - s.cum_acked) as usize] = now;
            s.retransmits += 1;
        }
        s.in_flight += size as u64;
        if let Some(c) = s.credit.as_mut() {
            c.sent += 1;
            if c.stalled {
                // Credit came: the stall timer becomes this packet's retransmission timer.
                c.stalled = false;
                s.rto_deadline = Time::MAX;
            }
        }
        if let Some(rate) = s.pacing_rate() {
            s.next_send_at = now + rate.serialization(size as u64);
        }
        if s.rto_deadline == Time::MAX {
            s.rto_deadline = now + s.rto;
        }
        let mut f = 0;
        if s.ect {
            f |= flags::ECT;
        }
        if retx {
            f |= flags::RETX;
        }
        match self.lb {
            LbName::Ar => f |= flags::ADAPTIVE,
            LbName::Rr => f |= flags::ROUND_ROBIN,
            LbName::Ecmp | LbName::Plb | LbName::Letflow | LbName::Conga | LbName::Conweave => f |= flags::CLASS1,
            // Source routing (Rps) is flagged by the simulation, which knows the paths.
            LbName::Ops | LbName::Reps | LbName::Rps | LbName::Laps => {}
        }
        Packet {
            flow: self.id,
            psn,
            sacked_psn: 0,
            size,
            dst: self.dst,
            entropy,
            sent_at: now,
            kind: PacketKind::Data,
            flags: f,
            priority: self.priority,
            hop: 0,
            ext: 0,
        }
    }

    /// A UEC ACK's bitmap: PSN `cum + 1 + j` arrived for each bit j. Returns the wire
    /// bytes it newly acknowledges. (Whether an arrival was an original or its resend is
    /// not in the bitmap, so unlike the ACK's own PSN it teaches loss detection nothing.)
    #[cold]
    fn sack_bitmap(&mut self, cum: u32, bits: u16) -> u64 {
        let mut newly = 0;
        let mut rest = bits;
        while rest != 0 {
            let psn = cum + 1 + rest.trailing_zeros();
            rest &= rest - 1;
            let base = self.sender.cum_acked;
            if psn < base || psn >= self.sender.next_new {
                continue;
            }
            self.sender.highest_acked = self.sender.highest_acked.max(psn + 1);
            newly += self.mark_acked(psn, (psn - base) as usize);
        }
        newly
    }

    /// PSN `psn` (index `i` above `cum_acked`) is acknowledged: out of the bytes in flight
    /// unless already counted out as lost. Returns the wire bytes it newly acknowledges.
    #[inline]
    fn mark_acked(&mut self, psn: u32, i: usize) -> u64 {
        let st = self.sender.state[i];
        if st == ACKED {
            return 0;
        }
        let sz = self.wire_size(psn) as u64;
        if st != LOST {
            self.sender.in_flight -= sz;
        }
        self.sender.state[i] = ACKED;
        sz
    }

    fn update_rtt(&mut self, sample: Time, cfg: &TransportConfig) {
        let s = &mut self.sender;
        s.min_rtt = s.min_rtt.min(sample);
        match s.srtt {
            None => {
                s.srtt = Some(sample);
                s.rttvar = Time(sample.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(sample.0);
                s.rttvar = Time((3 * s.rttvar.0 + err) / 4);
                s.srtt = Some(Time((7 * srtt.0 + sample.0) / 8));
            }
        }
        let base = s.srtt.unwrap().0 + 4 * s.rttvar.0;
        s.rto = s.fixed_rto.unwrap_or(Time(base).max(cfg.rto_min).min(cfg.rto_max));
    }

    /// Processes an ACK at the sender.
    pub fn on_ack(&mut self, now: Time, ack: &Packet, cfg: &TransportConfig) -> AckOutcome {
        // LAPS's ACKs carry a one-way latency where others carry the cumulative ACK
        // (spec laps.md §2.6); its sender advances over the PSNs acknowledged in a row.
        let laps = self.lb == LbName::Laps;
        self.sender.timeouts_in_a_row = 0;
        let mut cum = ack.psn;
        let sacked = ack.sacked_psn;
        // The app's writing up to now was capped by the send buffer before this ACK frees it.
        if let Some(app) = self.app.as_mut() {
            app.written(now, self.sender.cum_acked as u64 * self.payload as u64);
        }
        // A flow paced at one window per RTT is limited by its window by construction,
        // though pacing keeps a little less than a window in flight (RFC 7661's test).
        let in_flight_before = if self.sender.pace_window {
            self.sender.in_flight.max(self.sender.cc.cwnd())
        } else {
            self.sender.in_flight
        };
        // PLB's round: the smoothed RTT before this ACK's sample (PLB acts further down,
        // once this ACK has settled what is in flight).
        let mut plb_round = None;
        match self.lb {
            LbName::Reps => self.reps.on_ack(ack.entropy, !ack.has(flags::ECE)),
            LbName::Plb => plb_round = Some(self.sender.srtt.unwrap_or(self.base_rtt)),
            _ => {}
        }
        let mut newly = 0u64;
        let mut progressed = false;
        self.sender.confirmed_runs.clear();
        // Go-back-N: the receiver took only in-order packets, so an ACK whose triggering
        // PSN is at or above its cumulative ACK is a NAK: that packet was discarded.
        let nak = self.sender.go_back_n && sacked >= cum;
        if !self.sender.go_back_n {
            let base = self.sender.cum_acked;
            if sacked >= base && sacked < self.sender.next_new {
                let i = (sacked - base) as usize;
                let st = self.sender.state[i];
                if st == RESENT && ack.has(flags::RETX) {
                    if self.sender.confirms_losses {
                        self.sender.confirm_lost(sacked);
                    }
                } else if st == RESENT || st == LOST {
                    // The original arrived after all: the hole was declared too early.
                    self.sender.premature_loss();
                }
                newly += self.mark_acked(sacked, i);
            }
        }
        if ack.ext != 0 {
            newly += self.sack_bitmap(cum, ack.ext);
        }
        if laps {
            let s = &self.sender;
            cum = s.cum_acked + s.state.iter().take_while(|&&st| st == ACKED).count() as u32;
        }
        while self.sender.cum_acked < cum.min(self.sender.next_new) {
            let p = self.sender.cum_acked;
            let st = self.sender.state.pop_front().unwrap();
            self.sender.sent_at.pop_front();
            if st != ACKED {
                let sz = self.wire_size(p) as u64;
                if st != LOST {
                    self.sender.in_flight -= sz;
                }
                newly += sz;
            }
            self.sender.cum_acked += 1;
            progressed = true;
        }
        let s = &mut self.sender;
        s.highest_acked = s.highest_acked.max(sacked + 1).max(s.cum_acked);
        if progressed {
            s.backoff = 0;
            if s.recovery_until.is_some_and(|end| s.cum_acked >= end) {
                s.recovery_until = None;
                s.reo_wnd_persist = s.reo_wnd_persist.saturating_sub(1);
                if s.reo_wnd_persist == 0 {
                    s.reo_wnd_mult = 1;
                }
            }
        }
        self.update_rtt(now.saturating_sub(ack.sent_at), cfg);

        if self.sender.sack_loss {
            self.detect_losses(now, cfg);
        }
        if self.sender.go_back_n {
            self.sender.newly_lost.clear();
            self.sender.runs.clear();
            if nak {
                self.go_back(cum);
            }
        }
        if let Some(round) = plb_round {
            // After this ACK (and a go-back-N NAK) has settled what is in flight: PLB's
            // idle re-path needs nothing outstanding (spec laps.md §3.6).
            self.plb.on_ack(now, ack.has(flags::ECE), round, self.sender.in_flight, &cfg.plb);
        }
        let lost_any = !self.sender.newly_lost.is_empty();
        let rtt = self.measured_delay(now.saturating_sub(ack.sent_at));
        let s = &mut self.sender;

        let sample = AckSample {
            now,
            newly_acked: newly,
            ece: ack.has(flags::ECE),
            rtt,
            cum_ack: s.cum_acked,
            snd_nxt: s.next_new,
            in_flight: s.in_flight,
            in_flight_before,
        };
        s.cc.on_ack(&sample);
        if lost_any {
            s.cc.on_loss(&LossEvent {
                now,
                cum_ack: s.cum_acked,
                snd_nxt: s.next_new,
                newly_lost: &s.newly_lost,
                runs: &s.runs,
            });
        }
        if !s.confirmed_runs.is_empty() {
            s.cc.on_loss_confirmed(now, &s.confirmed_runs);
        }
        let done = s.cum_acked >= s.n_pkts;
        if done && s.sent_at.capacity() != 0 {
            // Nothing is sent or recovered once everything is acked, but the buffers keep
            // the capacity of the flow's largest window: in a long run, a few hundred
            // bytes for every flow that ever finished (`dcnsim soak`'s RSS growth).
            s.release_buffers();
        }
        if done || s.cum_acked == s.next_new && s.retx.is_empty() {
            // EQDS: a sender stalled for credit keeps its timer (eqds.rs: a lost last pull).
            let stalled = !done && s.credit.as_ref().is_some_and(|c| !c.may_send());
            if let Some(c) = s.credit.as_mut() {
                c.stalled = stalled;
            }
            s.rto_deadline = if stalled { now + s.rto } else { Time::MAX };
        } else if (progressed || lost_any) && s.timeout_policy != TimeoutPolicy::Expired {
            // RFC 6298 (5.3): restart on new data acknowledged. `Expired` keeps the timer
            // on the oldest transmission still out (spec smartt-nscc.md §2.9): a deadline
            // that ACKs made too early finds nothing expired and re-arms for the next.
            s.rto_deadline = now + s.rto;
        }
        AckOutcome { sender_done: done, may_send: !done }
    }

    /// Go-back-N after a NAK for `from`: every outstanding PSN from there on is lost and
    /// is sent again, in order, before new data.
    #[cold]
    #[inline(never)]
    fn go_back(&mut self, from: u32) {
        let (header, payload, last_payload) = (self.header, self.payload, self.last_payload);
        let s = &mut self.sender;
        if from < s.cum_acked || from >= s.next_new {
            return;
        }
        for i in (from - s.cum_acked) as usize..s.state.len() {
            if s.state[i] == SENT || s.state[i] == RESENT {
                let psn = s.cum_acked + i as u32;
                s.state[i] = LOST;
                let sz = if psn + 1 == s.n_pkts { last_payload + header } else { payload + header };
                s.in_flight -= sz as u64;
                s.newly_lost.push(psn);
            }
        }
        s.retx.clear();
        for (i, &st) in s.state.iter().enumerate() {
            if st == LOST {
                s.retx.push_back(s.cum_acked + i as u32);
            }
        }
        s.grant_retransmissions();
        if !s.newly_lost.is_empty() {
            s.runs.push((from, s.next_new - 1));
        }
    }

    /// Declares holes lost. A PSN is a hole once `dupack_threshold` PSNs above it have been
    /// acknowledged (`LossRule::Count`, RFC 6675) or once the PSN that far above it has
    /// been (`LossRule::Distance`); it is lost when it has been a hole for the algorithm's
    /// `reorder_wait` (zero: at once). Each PSN becomes a hole at most once; a lost
    /// retransmission is left to the timer. Fills `newly_lost` and, for each, the maximal
    /// run of consecutive lost PSNs it belongs to (`runs`).
    fn detect_losses(&mut self, now: Time, cfg: &TransportConfig) {
        let s = &mut self.sender;
        let wait = s.reorder_wait();
        s.newly_lost.clear();
        s.runs.clear();
        let base = s.cum_acked;
        let from = s.loss_scan.max(base);
        let limit = match cfg.loss_rule {
            LossRule::Distance => s.highest_acked.saturating_sub(cfg.dupack_threshold),
            LossRule::Count => {
                // The lowest PSN x with `dupack_threshold` acknowledged PSNs at or above it:
                // everything below x has at least that many acknowledged above it.
                let mut seen = 0;
                let mut x = s.highest_acked;
                while x > from && seen < cfg.dupack_threshold {
                    x -= 1;
                    if s.state[(x - base) as usize] == ACKED {
                        seen += 1;
                    }
                }
                if seen < cfg.dupack_threshold {
                    from
                } else {
                    x
                }
            }
        };
        let mut p = from;
        while p < limit {
            if s.state[(p - base) as usize] == SENT {
                s.holes.push_back((p, now));
            }
            p += 1;
        }
        s.loss_scan = s.loss_scan.max(limit);
        while let Some(&(p, since)) = s.holes.front() {
            if now < since + wait {
                break;
            }
            s.holes.pop_front();
            if p < base || s.state[(p - base) as usize] != SENT {
                continue;
            }
            s.state[(p - base) as usize] = LOST;
            s.retx.push_back(p);
            if s.recovery_until.is_none() {
                s.recovery_until = Some(s.next_new);
            }
            let sz = if p + 1 == s.n_pkts { self.last_payload + self.header } else { self.payload + self.header };
            s.in_flight -= sz as u64;
            s.newly_lost.push(p);
        }
        let outstanding = |st: u8| st == LOST || st == RESENT;
        for &p in &s.newly_lost {
            if s.runs.last().is_some_and(|&(_, hi)| p <= hi) {
                continue;
            }
            let (mut lo, mut hi) = (p, p);
            while lo > base && outstanding(s.state[(lo - 1 - base) as usize]) {
                lo -= 1;
            }
            while hi + 1 < s.next_new && outstanding(s.state[(hi + 1 - base) as usize]) {
                hi += 1;
            }
            s.runs.push((lo, hi));
        }
        // EQDS: the receiver never saw these, so it owes no pulls for their resending.
        if let Some(c) = s.credit.as_mut() {
            c.self_granted += s.newly_lost.len() as u32;
        }
    }

    /// The retransmission timer fired at `now` (and its deadline has passed): every
    /// outstanding packet not yet acknowledged is presumed lost (or, under
    /// `TimeoutPolicy::Expired`, those outstanding for a whole RTO). Returns whether this
    /// was a timeout (something was declared lost).
    pub fn on_timeout(&mut self, now: Time, cfg: &TransportConfig) -> bool {
        let timed_out = self.declare_timeout(now, cfg);
        if timed_out {
            // Timers that expire packets one by one (`TimeoutPolicy::Expired`) fire in
            // bursts; a burst within one RTO is one timeout here.
            let s = &mut self.sender;
            if now >= s.timeout_counted_at + s.rto {
                s.timeouts_in_a_row += 1;
                s.timeout_counted_at = now;
            }
            match self.lb {
                LbName::Reps => self.reps.on_timeout(now, &cfg.reps),
                LbName::Plb => self.plb.on_timeout(now, &cfg.plb),
                _ => {}
            }
        }
        timed_out
    }

    fn declare_timeout(&mut self, now: Time, cfg: &TransportConfig) -> bool {
        if self.sender.timeout_policy == TimeoutPolicy::Expired {
            return self.timeout_expired(now);
        }
        let s = &mut self.sender;
        s.timeouts += 1;
        s.retx.clear();
        for (i, st) in s.state.iter_mut().enumerate() {
            if *st != ACKED {
                *st = LOST;
                s.retx.push_back(s.cum_acked + i as u32);
            }
        }
        s.in_flight = 0;
        s.loss_scan = s.next_new;
        s.holes.clear();
        s.grant_retransmissions();
        s.cc.on_timeout(now, s.next_new);
        s.backoff = (s.backoff + 1).min(16);
        let backed_off = Time(s.rto.0.saturating_mul(1 << s.backoff)).min(cfg.rto_max);
        s.rto_deadline = now + backed_off;
        true
    }

    /// `TimeoutPolicy::Expired`: declares lost only the packets outstanding for a whole RTO,
    /// telling the algorithm of each, then re-arms the timer for the oldest packet still
    /// out. A timer that finds nothing expired (the packets it was armed for were
    /// acknowledged since) only re-arms. The RTO is fixed by the algorithm, so there is no
    /// backoff.
    fn timeout_expired(&mut self, now: Time) -> bool {
        let (header, payload, last_payload) = (self.header, self.payload, self.last_payload);
        let s = &mut self.sender;
        let mut next = Time::MAX;
        let mut expired = false;
        for i in 0..s.state.len() {
            let st = s.state[i];
            if st != SENT && st != RESENT {
                continue;
            }
            let due = s.sent_at[i] + s.rto;
            if due > now {
                next = next.min(due);
                continue;
            }
            let psn = s.cum_acked + i as u32;
            s.state[i] = LOST;
            s.retx.push_back(psn);
            let sz = if psn + 1 == s.n_pkts { last_payload + header } else { payload + header };
            s.in_flight -= sz as u64;
            s.cc.on_packet_expired(now, sz as u64);
            expired = true;
        }
        if expired {
            s.timeouts += 1;
            s.grant_retransmissions();
            s.cc.on_timeout(now, s.next_new);
        }
        // Retransmissions re-arm the timer when they leave (`emit`).
        s.rto_deadline = next;
        expired
    }

    /// A NACK arrived: the transmission of `pkt.psn` sent at `pkt.sent_at` was trimmed.
    /// Marks it lost, queues its retransmission and tells the algorithm. Returns whether
    /// anything changed (a NACK of an older transmission, or of a packet since
    /// acknowledged, is stale).
    pub fn on_nack(&mut self, now: Time, pkt: &Packet) -> bool {
        self.sender.timeouts_in_a_row = 0;
        let psn = pkt.psn;
        let Some(size) = self.mark_lost(psn, pkt.sent_at) else { return false };
        let rtt = self.measured_delay(now.saturating_sub(pkt.sent_at));
        let s = &mut self.sender;
        s.nacks += 1;
        let nack = NackSample {
            now,
            psn,
            bytes: size,
            rtt,
            cum_ack: s.cum_acked,
            snd_nxt: s.next_new,
            in_flight: s.in_flight,
        };
        s.cc.on_nack(&nack);
        true
    }

    /// The transmission of `psn` sent at `sent_at` is lost: unless the PSN was
    /// acknowledged or sent again since, it is queued for retransmission. Returns its wire
    /// size if it was marked.
    fn mark_lost(&mut self, psn: u32, sent_at: Time) -> Option<u64> {
        let s = &self.sender;
        if psn < s.cum_acked || psn >= s.next_new {
            return None;
        }
        let i = (psn - s.cum_acked) as usize;
        if !(s.state[i] == SENT || s.state[i] == RESENT) || s.sent_at[i] != sent_at {
            return None;
        }
        let size = self.wire_size(psn) as u64;
        let s = &mut self.sender;
        s.state[i] = LOST;
        s.retx.push_back(psn);
        s.in_flight -= size;
        Some(size)
    }

    /// LAPS's per-path inference (spec laps.md §2.8) found this transmission lost: it is
    /// resent before new data. Returns whether that changed anything.
    pub fn declare_lost(&mut self, psn: u32, sent_at: Time) -> bool {
        self.mark_lost(psn, sent_at).is_some()
    }

    /// A trimmed header of this flow reached the receiver: the reply is a NACK echoing its
    /// PSN, send time and entropy (`true`), or, if that PSN already arrived, a plain ACK.
    pub fn on_trimmed(&mut self, pkt: &Packet) -> (AckToSend, bool) {
        let r = &self.receiver;
        let psn = pkt.psn;
        let have = psn < r.rcv_next || r.ooo.get((psn - r.rcv_next) as usize) == Some(&true);
        let reply = AckToSend {
            cum: if have { r.rcv_next } else { psn },
            sacked_psn: psn,
            ece: pkt.has(flags::CE),
            sent_at: pkt.sent_at,
            entropy: pkt.entropy,
            retx: false,
            sack_bits: 0,
        };
        (reply, !have)
    }

    /// EQDS: the timer fired while the sender was stalled for credit with nothing
    /// outstanding; it grants itself credit (`SenderCredit::on_stall_timeout`). Returns
    /// whether it was such a stall.
    pub fn on_credit_stall(&mut self) -> bool {
        let s = &mut self.sender;
        let unsent = s.n_pkts - s.next_new;
        match s.credit.as_mut() {
            Some(c) if c.stalled => {
                c.on_stall_timeout(unsent);
                s.rto_deadline = Time::MAX;
                true
            }
            _ => false,
        }
    }

    /// Outstanding data exists (the timer matters).
    pub fn has_outstanding(&self) -> bool {
        let s = &self.sender;
        s.cum_acked < s.next_new
    }

    /// Processes a data packet at the receiver.
    pub fn on_data(&mut self, now: Time, pkt: &Packet, cfg: &TransportConfig) -> DataOutcome {
        let payload = self.payload_of(pkt.psn) as u64;
        let n_pkts = self.sender.n_pkts;
        let r = &mut self.receiver;
        let mut out = DataOutcome::default();
        let ce = pkt.has(flags::CE);
        let psn = pkt.psn;

        if cfg.loss_recovery == LossRecovery::GoBackN && psn > r.rcv_next {
            // RoCE receiver: an out-of-sequence packet is discarded; the first one after
            // the expected PSN draws a NAK (an ACK for the expected PSN echoing this one),
            // the rest are dropped silently until the expected PSN arrives.
            if r.nak_sent_for != Some(r.rcv_next) {
                r.nak_sent_for = Some(r.rcv_next);
                r.pending = 0;
                out.acks[1] = Some(AckToSend {
                    cum: r.rcv_next,
                    sacked_psn: psn,
                    ece: ce,
                    sent_at: pkt.sent_at,
                    entropy: pkt.entropy,
                    retx: false,
                    sack_bits: 0,
                });
            }
            return out;
        }
        let uec = cfg.ack_policy == AckPolicy::Uec;
        let first = r.delivered == 0;
        // RFC 5681 §4.2: a segment that fills (part of) a gap is ACKed at once.
        let had_gap = !r.ooo.is_empty();
        let mut duplicate = psn < r.rcv_next;
        let in_order = psn == r.rcv_next;
        if !duplicate {
            let i = (psn - r.rcv_next) as usize;
            if r.ooo.len() <= i {
                r.ooo.resize(i + 1, false);
            }
            if r.ooo[i] {
                duplicate = true;
            } else {
                r.ooo[i] = true;
                r.delivered += payload;
                r.ooo_held += 1;
                if !in_order {
                    r.reordered += 1;
                }
                while r.ooo.front() == Some(&true) {
                    r.ooo.pop_front();
                    r.rcv_next += 1;
                    r.ooo_held -= 1;
                }
            }
        }
        // DCTCP receiver state machine: flush pending ACKs under the old CE state first.
        // (UEC acknowledges a marked packet at once, covering what is pending with it.)
        if ce != r.ce_state {
            if r.pending > 0 && !uec {
                out.acks[0] = Some(AckToSend {
                    cum: if in_order { psn } else { r.rcv_next },
                    sacked_psn: r.last_psn,
                    ece: r.ce_state,
                    sent_at: r.last_sent_at,
                    entropy: r.last_entropy,
                    retx: r.last_retx,
                    sack_bits: 0,
                });
                r.pending = 0;
            }
            r.ce_state = ce;
        }
        if r.pending == 0 {
            r.pending_since = now;
        }
        r.pending += 1;
        r.last_psn = psn;
        r.last_sent_at = pkt.sent_at;
        r.last_entropy = pkt.entropy;
        r.last_retx = pkt.has(flags::RETX) && !duplicate;
        let complete = r.rcv_next >= n_pkts;
        if complete && r.finish.is_none() {
            r.finish = Some(now);
            out.finished_now = true;
            // Everything arrived, so nothing is out of order any more: give back the
            // reorder buffer's capacity (see `Sender::release_buffers`).
            r.ooo = VecDeque::new();
        }
        let at_once =
            if uec { ce || first || pkt.has(flags::ACK_REQUEST) } else { !in_order || had_gap || !r.ooo.is_empty() };
        if r.pending >= cfg.ack_ratio || duplicate || complete || at_once {
            out.acks[1] = Some(AckToSend {
                cum: r.rcv_next,
                sacked_psn: psn,
                ece: r.ce_state,
                sent_at: pkt.sent_at,
                entropy: pkt.entropy,
                retx: r.last_retx,
                sack_bits: if uec { r.sack_bits() } else { 0 },
            });
            r.pending = 0;
        } else if !r.delayed_ack_pending {
            out.arm_delayed_ack = true;
        }
        out
    }

    /// Whether a CNP should go back for an ECN-marked arrival at `now` (DCQCN's NP: at
    /// most one per the algorithm's interval); records it if so.
    pub fn cnp_due(&mut self, now: Time) -> bool {
        let r = &mut self.receiver;
        let Some(interval) = r.cnp_interval else { return false };
        if r.last_cnp.is_some_and(|t| now < t + interval) {
            return false;
        }
        r.last_cnp = Some(now);
        true
    }

    /// The delayed-ACK timer fired at `now`: acknowledge what is pending if its oldest
    /// packet has waited `timeout`, else say when it will have (the timer armed by a
    /// packet an ACK has since covered fires early).
    pub fn on_delayed_ack(&mut self, now: Time, timeout: Time) -> DelayedAck {
        let r = &mut self.receiver;
        if r.pending == 0 {
            r.delayed_ack_pending = false;
            return DelayedAck::Idle;
        }
        let due = r.pending_since + timeout;
        if now < due {
            return DelayedAck::At(due);
        }
        r.delayed_ack_pending = false;
        r.pending = 0;
        DelayedAck::Send(AckToSend {
            cum: r.rcv_next,
            sacked_psn: r.last_psn,
            ece: r.ce_state,
            sent_at: r.last_sent_at,
            entropy: r.last_entropy,
            retx: r.last_retx,
            sack_bits: r.sack_bits(),
        })
    }

    pub fn pacing_rate(&self) -> Option<Rate> {
        self.sender.cc.pacing_rate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::newreno::{NewReno, NewRenoParams};

    fn cfg(ack_ratio: u32) -> TransportConfig {
        TransportConfig {
            header_bytes: 64,
            mtu: 1064,
            ack_ratio,
            ack_policy: AckPolicy::Tcp,
            delayed_ack_timeout: Time::from_us(10),
            dupack_threshold: 3,
            loss_rule: LossRule::Count,
            loss_recovery: LossRecovery::Sack,
            pace_window: false,
            rto_min: Time::from_ms(1),
            rto_max: Time::from_ms(100),
            rto_initial: Time::from_ms(1),
            reps: RepsParams::default(),
            plb: PlbParams::default(),
            letflow: LetflowParams::default(),
            ect_always: false,
        }
    }

    fn flow(size: u64, c: &TransportConfig) -> Flow {
        let cc = Box::new(NewReno::new(&NewRenoParams::default(), c.mtu as u64, 100 * c.mtu as u64));
        let mut f = Flow::new(0, 0, 1, size, Time::ZERO, Time::MAX, 0, cc, c, 7, LbName::Ecmp, 8);
        f.started = true;
        f
    }

    fn data(psn: u32, ce: bool) -> Packet {
        Packet {
            flow: 0,
            psn,
            sacked_psn: 0,
            size: 1064,
            dst: 1,
            entropy: 0,
            sent_at: Time::ZERO,
            kind: PacketKind::Data,
            flags: flags::ECT | if ce { flags::CE } else { 0 },
            priority: 0,
            hop: 0,
            ext: 0,
        }
    }

    /// Spec dctcp-vs-swift.md §5 A4: with m = 2 and CE pattern 0,0,1,1,0 the sender
    /// reconstructs exactly two marked packets.
    #[test]
    fn a4_receiver_echo_state_machine_with_coalescing() {
        let c = cfg(2);
        let mut f = flow(5 * 1000, &c);
        let mut marked = 0u32;
        let mut acked_to = 0u32;
        for (psn, ce) in [false, false, true, true, false].into_iter().enumerate() {
            let out = f.on_data(Time::ZERO, &data(psn as u32, ce), &c);
            let mut acks: Vec<AckToSend> = out.acks.iter().flatten().copied().collect();
            if out.arm_delayed_ack && psn == 4 {
                if let DelayedAck::Send(a) = f.on_delayed_ack(Time::from_us(10), c.delayed_ack_timeout) {
                    acks.push(a);
                }
            }
            for a in acks {
                if a.ece {
                    marked += a.cum - acked_to;
                }
                acked_to = a.cum;
            }
        }
        assert_eq!(acked_to, 5);
        assert_eq!(marked, 2);
    }

    /// The flush ACK matters: CE pattern 0,1 with m = 2 must report packet 0 unmarked and
    /// packet 1 marked, though neither alone fills the coalescing count.
    #[test]
    fn state_change_flushes_pending_ack() {
        let c = cfg(2);
        let mut f = flow(10 * 1000, &c);
        let o0 = f.on_data(Time::ZERO, &data(0, false), &c);
        assert!(o0.acks.iter().all(|a| a.is_none()));
        let o1 = f.on_data(Time::ZERO, &data(1, true), &c);
        let flush = o1.acks[0].expect("flush ack");
        assert_eq!((flush.cum, flush.ece), (1, false));
    }

    #[test]
    fn reorders_and_reports_duplicates() {
        let c = cfg(1);
        let mut f = flow(4 * 1000, &c);
        let a = f.on_data(Time::ZERO, &data(1, false), &c).acks[1].unwrap();
        assert_eq!((a.cum, a.sacked_psn), (0, 1));
        let a = f.on_data(Time::ZERO, &data(0, false), &c).acks[1].unwrap();
        assert_eq!(a.cum, 2);
        assert_eq!(f.receiver.delivered, 2000);
        f.on_data(Time::ZERO, &data(1, false), &c);
        assert_eq!(f.receiver.delivered, 2000, "a duplicate delivers nothing");
    }

    #[test]
    fn sack_threshold_detects_a_single_loss_and_retransmits_it() {
        let c = cfg(1);
        let mut f = flow(10 * 1000, &c);
        let sent: Vec<Packet> = (0..10).map(|_| f.emit(Time::ZERO, 0)).collect();
        assert_eq!(f.sender.in_flight, 10 * 1064);
        // Packet 2 is lost; 0, 1, 3, 4, 5 arrive.
        for p in [0, 1, 3, 4, 5] {
            let a = f.on_data(Time(1), &sent[p], &c).acks[1].unwrap();
            let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[p] };
            f.on_ack(Time(2), &ack, &c);
        }
        assert_eq!(f.sender.cum_acked, 2);
        assert_eq!(f.send_state(Time(2)), SendState::Ready);
        let r = f.emit(Time(2), 0);
        assert_eq!(r.psn, 2);
        assert!(r.has(flags::RETX));
        assert_eq!(f.sender.retransmits, 1);
    }

    /// NSCC turns SACK-hole loss detection off (spec mswift-mnscc §2.8 and §6 A9): a
    /// packet overtaken by many others is never retransmitted while it is only late.
    #[test]
    fn nscc_never_retransmits_on_reordering() {
        let c = cfg(1);
        let info = crate::cc::test_info(1064, 1 << 20, Time::from_us(10), 2, Rate::gbps(100), 1 << 20);
        let cc = Box::new(crate::cc::nscc::Nscc::new(&Default::default(), false, &info));
        let mut f = Flow::new(0, 0, 1, 20 * 1000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Ops, 8);
        f.started = true;
        let sent: Vec<Packet> = (0..20).map(|_| f.emit(Time::ZERO, 0)).collect();
        for p in (0..20).filter(|&p| p != 2) {
            round_trip(&mut f, &sent[p], &c);
        }
        assert_eq!(f.sender.cum_acked, 2);
        assert_eq!(f.send_state(Time(3)), SendState::Blocked, "nothing to retransmit, nothing new");
        round_trip(&mut f, &sent[2], &c);
        assert!(f.sender_done());
        assert_eq!(f.sender.retransmits, 0);
    }

    /// `TimeoutPolicy::Expired` (spec smartt-nscc.md §2.9): the timer is armed for the
    /// oldest transmission still out, whatever ACKs of others arrive; each packet out for a
    /// whole RTO leaves the bytes in flight and is reported on its own; resends then go
    /// only as the window allows. RTO 100 µs; packets 0..3 leave at 0, 1, 2, 3 µs; 0 is
    /// acknowledged at 50 µs. The first timeout is due at 1 + 100 = 101 µs (RFC 6298's
    /// restart would make it 50 + 100 = 150 µs). The window is 4 packets less one per
    /// expired packet: after 1, 2, 3 expire it is 1 packet, so one resend leaves.
    #[test]
    fn expired_policy_times_out_each_packet_an_rto_after_it_left() {
        struct Htsim(std::sync::Arc<std::sync::Mutex<(u64, u64, u32)>>);
        impl CongestionControl for Htsim {
            fn name(&self) -> &'static str {
                "htsim-like"
            }
            fn on_ack(&mut self, _: &AckSample) {}
            fn on_loss(&mut self, _: &LossEvent) {}
            fn on_timeout(&mut self, _: Time, _: u32) {
                self.0.lock().unwrap().2 += 1;
            }
            fn on_packet_expired(&mut self, _: Time, bytes: u64) {
                let mut g = self.0.lock().unwrap();
                g.0 += 1;
                g.1 += bytes;
            }
            fn cwnd(&self) -> u64 {
                (4 - self.0.lock().unwrap().0.min(3)) * 1064
            }
            fn fixed_rto(&self) -> Option<Time> {
                Some(Time::from_us(100))
            }
            fn timeout_policy(&self) -> TimeoutPolicy {
                TimeoutPolicy::Expired
            }
            fn sack_loss_detection(&self) -> bool {
                false
            }
        }
        let c = cfg(1);
        let seen = std::sync::Arc::new(std::sync::Mutex::new((0, 0, 0)));
        let mut f = Flow::new(
            0,
            0,
            1,
            4 * 1000,
            Time::ZERO,
            Time::MAX,
            0,
            Box::new(Htsim(seen.clone())),
            &c,
            7,
            LbName::Ops,
            8,
        );
        f.started = true;
        let us = Time::from_us;
        let sent: Vec<Packet> = (0..4).map(|k| f.emit(us(k), 0)).collect();
        for a in f.on_data(us(49), &sent[0], &c).acks.into_iter().flatten() {
            let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, ..sent[0] };
            f.on_ack(us(50), &ack, &c);
        }
        assert_eq!((f.sender.cum_acked, f.sender.in_flight), (1, 3 * 1064));
        assert!(f.sender.rto_deadline <= us(101), "not restarted by the ACK: {}", f.sender.rto_deadline);
        // A timer armed for packet 0 finds nothing expired and re-arms for packet 1.
        if f.sender.rto_deadline < us(101) {
            assert!(!f.on_timeout(f.sender.rto_deadline, &c));
        }
        assert_eq!(f.sender.rto_deadline, us(101));
        assert!(f.on_timeout(us(101), &c));
        assert_eq!(*seen.lock().unwrap(), (1, 1064, 1));
        assert_eq!((f.sender.in_flight, f.sender.rto_deadline), (2 * 1064, us(102)));
        assert!(f.on_timeout(us(103), &c), "packets 2 and 3 are due at 102 and 103 µs");
        assert_eq!(*seen.lock().unwrap(), (3, 3 * 1064, 2));
        assert_eq!(f.sender.in_flight, 0);
        assert_eq!(f.send_state(us(103)), SendState::Ready);
        assert_eq!(f.emit(us(103), 0).psn, 1);
        assert_eq!(f.send_state(us(103)), SendState::Blocked, "a window of one packet");
        assert_eq!(f.sender.rto_deadline, us(203));
    }

    /// Records what the transport reports as confirmed losses.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Vec<(u32, u32)>>>);
    impl CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn on_ack(&mut self, _: &AckSample) {}
        fn on_loss(&mut self, _: &LossEvent) {}
        fn on_loss_confirmed(&mut self, _: Time, runs: &[(u32, u32)]) {
            self.0.lock().unwrap().extend_from_slice(runs);
        }
        fn wants_confirmed_losses(&self) -> bool {
            true
        }
        fn on_timeout(&mut self, _: Time, _: u32) {}
        fn cwnd(&self) -> u64 {
            1 << 30
        }
    }

    /// Delivers `pkt` to the receiver and its ACK back to the sender, as `sim.rs` does.
    fn round_trip(f: &mut Flow, pkt: &Packet, c: &TransportConfig) {
        for a in f.on_data(Time(1), pkt, c).acks.into_iter().flatten() {
            let fl = if a.retx { flags::RETX } else { 0 };
            let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: fl, ..*pkt };
            f.on_ack(Time(2), &ack, c);
        }
    }

    /// Five packets go missing and are retransmitted. If the retransmissions are what
    /// arrives, the five are one confirmed run; if the late originals arrive first (pure
    /// reordering), nothing is confirmed, however the copies land afterwards.
    #[test]
    fn only_retransmissions_that_arrive_first_confirm_a_loss() {
        for originals_arrive in [false, true] {
            let c = cfg(1);
            let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let cc = Box::new(Recorder(seen.clone()));
            let mut f = Flow::new(0, 0, 1, 12 * 1000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Ecmp, 8);
            f.started = true;
            let sent: Vec<Packet> = (0..12).map(|_| f.emit(Time::ZERO, 0)).collect();
            for p in [0, 1, 7, 8, 9, 10, 11] {
                round_trip(&mut f, &sent[p], &c);
            }
            let copies: Vec<Packet> = (0..5).map(|_| f.emit(Time(3), 0)).collect();
            assert_eq!(copies.iter().map(|p| p.psn).collect::<Vec<_>>(), vec![2, 3, 4, 5, 6]);
            let (first, second) =
                if originals_arrive { (&sent[2..7], &copies[..]) } else { (&copies[..], &sent[2..7]) };
            for p in first.iter().chain(second) {
                round_trip(&mut f, p, &c);
            }
            assert!(f.sender_done());
            let runs = seen.lock().unwrap().clone();
            if originals_arrive {
                assert!(runs.is_empty(), "reordering confirmed {runs:?}");
            } else {
                assert_eq!(runs, vec![(2, 2), (2, 3), (2, 4), (2, 5), (2, 6)]);
            }
        }
    }

    /// RFC 8985 §6.2: the window starts at min_RTT/4, grows by min_RTT/4 at most once per
    /// round trip in which an original turned up after its hole was declared, never beyond
    /// SRTT, and falls back to min_RTT/4 after 16 loss recoveries without such evidence.
    #[test]
    fn rack_reorder_window_widens_on_premature_losses_and_decays() {
        struct Rack;
        impl CongestionControl for Rack {
            fn name(&self) -> &'static str {
                "rack"
            }
            fn on_ack(&mut self, _: &AckSample) {}
            fn on_loss(&mut self, _: &LossEvent) {}
            fn on_timeout(&mut self, _: Time, _: u32) {}
            fn cwnd(&self) -> u64 {
                1 << 30
            }
            fn reorder_window(&self) -> ReorderWindow {
                ReorderWindow::Rack
            }
        }
        let c = cfg(1);
        let mut f = Flow::new(0, 0, 1, 1000 * 1000, Time::ZERO, Time::MAX, 0, Box::new(Rack), &c, 7, LbName::Ecmp, 8);
        f.started = true;
        let us = Time::from_us;
        let s = &mut f.sender;
        s.min_rtt = us(8);
        s.srtt = Some(us(10));
        assert_eq!(s.reorder_wait(), us(2));
        s.next_new = 100;
        s.premature_loss();
        assert_eq!(s.reorder_wait(), us(4));
        s.premature_loss();
        assert_eq!(s.reorder_wait(), us(4), "once per round trip");
        s.cum_acked = 100;
        s.next_new = 200;
        s.premature_loss();
        s.cum_acked = 200;
        s.next_new = 300;
        s.premature_loss();
        assert_eq!(s.reorder_wait(), us(8));
        s.cum_acked = 300;
        s.premature_loss();
        assert_eq!(s.reorder_wait(), us(10), "capped at SRTT");
        assert_eq!(s.reo_wnd_persist, 16);
        // 16 loss recoveries: the window returns to min_RTT/4.
        for k in 0..16 {
            let s = &mut f.sender;
            s.recovery_until = Some(s.cum_acked + 1);
            let seq = s.cum_acked;
            f.sender.state.clear();
            f.sender.state.push_back(SENT);
            f.sender.next_new = seq + 1;
            let ack = Packet { psn: seq + 1, sacked_psn: seq, kind: PacketKind::Ack, ..data(seq, false) };
            f.on_ack(Time::from_us(100 + k), &ack, &c);
        }
        assert_eq!(f.sender.reo_wnd_mult, 1);
    }

    /// A pacing rate spaces packets by their serialisation time at that rate.
    #[test]
    fn pacing_spaces_packets_at_the_pacing_rate() {
        struct Paced;
        impl CongestionControl for Paced {
            fn name(&self) -> &'static str {
                "paced"
            }
            fn on_ack(&mut self, _: &AckSample) {}
            fn on_loss(&mut self, _: &LossEvent) {}
            fn on_timeout(&mut self, _: Time, _: u32) {}
            fn cwnd(&self) -> u64 {
                1 << 30
            }
            fn pacing_rate(&self) -> Option<Rate> {
                Some(Rate::gbps(1))
            }
        }
        let c = cfg(1);
        let mut f = Flow::new(0, 0, 1, 100_000, Time::ZERO, Time::MAX, 0, Box::new(Paced), &c, 7, LbName::Ecmp, 8);
        f.started = true;
        assert_eq!(f.send_state(Time::ZERO), SendState::Ready);
        f.emit(Time::ZERO, 0);
        // 1064 wire bytes at 1 Gbps = 8.512 us.
        assert_eq!(f.send_state(Time(1)), SendState::PacedUntil(Time(8_512_000)));
        assert_eq!(f.send_state(Time(8_512_000)), SendState::Ready);
    }

    /// RFC 5681 §4.2: the packet that fills a gap is acknowledged at once, even when ACKs
    /// are coalesced, or a sender blocked by a small window waits for the delayed-ACK timer.
    #[test]
    fn a_gap_filling_packet_is_acked_at_once() {
        let c = cfg(2);
        let mut f = flow(10 * 1000, &c);
        for psn in [0, 2, 3] {
            f.on_data(Time::ZERO, &data(psn, false), &c);
        }
        let out = f.on_data(Time::ZERO, &data(1, false), &c);
        let ack = out.acks[1].expect("immediate ACK for the hole fill");
        assert_eq!(ack.cum, 4);
        assert!(!out.arm_delayed_ack);
    }

    fn uec(ack_ratio: u32) -> TransportConfig {
        TransportConfig { ack_policy: AckPolicy::Uec, ..cfg(ack_ratio) }
    }

    /// Spec smartt-nscc.md §2.15 [H]: with 4 packets per ACK the first packet is ACKed at
    /// once, then every fourth; out-of-order arrivals wait like in-order ones, and the ACK
    /// that ends the wait lists them in its bitmap. Arrival order 0, 1, 3, 4, 2, 5, 6, 7, 8:
    /// ACKs at 0 (first), at 2 (the 4th since: 1, 3, 4, 2) and at 8 (5, 6, 7, 8).
    #[test]
    fn uec_policy_coalesces_out_of_order_packets_and_reports_them() {
        let c = uec(4);
        let mut f = flow(20 * 1000, &c);
        let mut acks = Vec::new();
        for psn in [0, 1, 3, 4, 2, 5, 6, 7, 8] {
            acks.extend(f.on_data(Time::ZERO, &data(psn, false), &c).acks.into_iter().flatten().map(|a| (psn, a)));
        }
        let at: Vec<(u32, u32)> = acks.iter().map(|&(psn, a)| (psn, a.cum)).collect();
        assert_eq!(at, [(0, 1), (2, 5), (8, 9)]);
        // Under the TCP policy 3 and 4 (out of order) and 2 (the gap fill) go at once too.
        let t = cfg(4);
        let mut g = flow(20 * 1000, &t);
        let n = [0, 1, 3, 4, 2, 5, 6, 7, 8]
            .iter()
            .filter(|&&psn| g.on_data(Time::ZERO, &data(psn, false), &t).acks[1].is_some())
            .count();
        assert_eq!(n, 4, "TCP: 3, 4, 2 and 8 (the last of 9 packets: 9 * 1000 B is not the flow's end)");
    }

    /// The bitmap: with 1 missing, the ACK of 5 (ECN-marked: at once) reports 2..5 as bits
    /// 0..3 above the cumulative ACK 1, and 7 arriving later sets bit 5.
    #[test]
    fn uec_bitmap_lists_the_arrivals_above_the_hole() {
        let c = uec(4);
        let mut f = flow(20 * 1000, &c);
        for psn in [0, 2, 3, 4] {
            f.on_data(Time::ZERO, &data(psn, false), &c);
        }
        let a = f.on_data(Time::ZERO, &data(5, true), &c).acks[1].expect("a marked packet is ACKed at once");
        assert_eq!((a.cum, a.sacked_psn, a.sack_bits, a.ece), (1, 5, 0b1111, true));
        f.on_data(Time::ZERO, &data(7, false), &c);
        let DelayedAck::Send(late) = f.on_delayed_ack(Time::from_us(10), c.delayed_ack_timeout) else {
            panic!("pending ACK")
        };
        assert_eq!((late.cum, late.sack_bits), (1, 0b10_1111));
    }

    /// A sender reading a coalesced ACK: 8 packets out, 1 lost; one ACK (cum 1, for 5,
    /// bits for 2..5) and one (cum 1, for 7, bits 2..7) leave exactly packet 1 in flight,
    /// and the hole counts as a loss (RFC 6675: 3 PSNs above it acknowledged), so 1 is
    /// resent and nothing else.
    #[test]
    fn sender_takes_the_bitmap_as_acknowledgement() {
        let c = uec(4);
        let mut f = flow(8 * 1000, &c);
        let sent: Vec<Packet> = (0..8).map(|_| f.emit(Time::ZERO, 0)).collect();
        let ack = |cum: u32, sacked: u32, bits: u16| Packet {
            psn: cum,
            sacked_psn: sacked,
            ext: bits,
            kind: PacketKind::Ack,
            flags: 0,
            ..sent[sacked as usize]
        };
        f.on_ack(Time(1), &ack(1, 0, 0), &c);
        f.on_ack(Time(2), &ack(1, 5, 0b1111), &c);
        f.on_ack(Time(3), &ack(1, 7, 0b11_1111), &c);
        assert_eq!(f.sender.cum_acked, 1);
        assert_eq!(f.sender.in_flight, 0, "1 is lost, 0 and 2..7 acknowledged");
        let r = f.emit(Time(3), 0);
        assert_eq!((r.psn, r.has(flags::RETX)), (1, true));
        assert_eq!(f.send_state(Time(3)), SendState::Blocked, "nothing else to resend");
    }

    /// Go-back-N (RoCEv2): packet 2 of 8 is lost. The receiver accepts 0 and 1, discards
    /// 3..7 and sends exactly one NAK (for PSN 2, at the arrival of 3); the sender then
    /// resends 2, 3, ..., 7 in order (6 retransmissions, N = 6), and the flow completes
    /// with every byte delivered once.
    #[test]
    fn go_back_n_discards_out_of_order_and_resends_from_the_hole() {
        let mut c = cfg(1);
        c.loss_recovery = LossRecovery::GoBackN;
        let mut f = flow(8 * 1000, &c);
        let sent: Vec<Packet> = (0..8).map(|_| f.emit(Time::ZERO, 0)).collect();
        let mut naks = 0;
        for p in (0..8).filter(|&p| p != 2) {
            let out = f.on_data(Time(1), &sent[p], &c);
            for a in out.acks.into_iter().flatten() {
                if a.sacked_psn >= a.cum {
                    naks += 1;
                    assert_eq!(a.cum, 2);
                }
                let ack = Packet { psn: a.cum, sacked_psn: a.sacked_psn, kind: PacketKind::Ack, flags: 0, ..sent[p] };
                f.on_ack(Time(2), &ack, &c);
            }
        }
        assert_eq!(naks, 1, "one NAK per gap");
        assert_eq!(f.receiver.rcv_next, 2);
        assert_eq!(f.receiver.delivered, 2000, "out-of-order packets are not kept");
        assert_eq!(f.sender.in_flight, 0, "everything from the hole on is resent");
        let resent: Vec<u32> = (0..6).map(|_| f.emit(Time(3), 0).psn).collect();
        assert_eq!(resent, vec![2, 3, 4, 5, 6, 7]);
        assert_eq!(f.send_state(Time(3)), SendState::Blocked);
        for p in 2..8 {
            let mut pkt = sent[p];
            pkt.flags |= flags::RETX;
            round_trip(&mut f, &pkt, &c);
        }
        assert!(f.sender_done());
        assert_eq!((f.receiver.delivered, f.sender.retransmits), (8000, 6));
    }

    /// REPS (UEC, spec smartt-nscc.md §2.14): an entropy whose ACK came back unmarked is
    /// reused, oldest first; a marked one is forgotten; the buffer keeps the newest ones.
    #[test]
    fn reps_recycles_unmarked_entropies_and_forgets_marked_ones() {
        let c = cfg(1);
        let cc = Box::new(NewReno::new(&NewRenoParams::default(), c.mtu as u64, 100 * c.mtu as u64));
        let mut f = Flow::new(0, 0, 1, 100_000, Time::ZERO, Time::MAX, 0, cc, &c, 7, LbName::Reps, 2);
        f.started = true;
        assert_eq!(f.next_entropy(Time::ZERO, 111, &c), 111, "nothing to recycle yet: a fresh entropy");
        let sent: Vec<Packet> = [10, 20, 30, 40].iter().map(|&e| f.emit(Time::ZERO, e)).collect();
        let ack = |p: &Packet, ece: bool| Packet {
            psn: p.psn + 1,
            sacked_psn: p.psn,
            kind: PacketKind::Ack,
            flags: if ece { flags::ECE } else { 0 },
            ..*p
        };
        f.on_ack(Time(1), &ack(&sent[0], false), &c);
        f.on_ack(Time(1), &ack(&sent[1], true), &c);
        f.on_ack(Time(1), &ack(&sent[2], false), &c);
        f.on_ack(Time(1), &ack(&sent[3], false), &c);
        // 20 was marked; the buffer holds 2, so 10 (oldest) made room for 40.
        assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 30);
        assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 40);
        assert_eq!(f.next_entropy(Time::ZERO, 999, &c), 999);
    }
}
