//! Reliable delivery shared by every congestion control: packet sequence numbers,
//! per-packet (optionally coalesced) ACKs carrying a cumulative ACK and the PSN that
//! triggered them (selective-ACK information), loss detection by a duplicate-ACK
//! threshold (RFC 6675 style: a packet is lost once a PSN `dupack_threshold` beyond it is
//! acknowledged) and by retransmission timeout (RFC 6298 estimator, exponential backoff),
//! retransmission, receive reordering, RTT samples from echoed send times, ECN echo, and
//! the path entropy echoed back.
//!
//! The receiver's ECN-echo follows DCTCP's two-state machine (DCTCP paper §3.1;
//! `docs/models/dctcp.md`): with ACK coalescing, a change of the CE state first flushes
//! an ACK for the packets received under the old state, so the sender sees the exact
//! marked byte count.
//!
//! Windows and in-flight counts are in wire bytes (payload + header).

pub mod app;
mod feedback;
mod receive;
mod send;

use std::collections::{BTreeSet, VecDeque};

use self::app::OnOffApp;
use crate::cc::{AckSample, CongestionControl, LossEvent, NackSample, ReorderWindow, TimeoutPolicy};
use crate::eqds::SenderCredit;
use crate::lb::LbName;
use crate::lb::{AnyPathPolicy, Flowlets, PathPolicy, Plb, PlbParams, Reps, RepsParams};
use crate::net::{flags, Packet, PacketKind, UecAck};
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
    /// UEC, as uet-htsim's receiver (`docs/models/transport.md`, ACK policies): at once on
    /// an ECN-marked packet, one carrying the sender's ACK request, the first packet, a
    /// duplicate and the last packet; otherwise every `ack_ratio` packets, out-of-order
    /// ones included. An ACK reports the 64 PSNs above its cumulative ACK in a bitmap, so
    /// the sender's hole counting sees the arrivals coalescing held back (whether one was a
    /// resend it does not learn: only the ACK's own packet says). Meant for UEC transports:
    /// the ACK of a marked packet also covers the unmarked ones pending before it, which an
    /// algorithm counting marked bytes (DCTCP) would count as marked.
    Uec,
}

/// How a host NIC picks which of its ready flows sends the next packet.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NicScheduler {
    /// Every ready flow in turn, whatever its priority level.
    #[default]
    RoundRobin,
    /// The ready flows of the highest priority level first, in turn among themselves: a
    /// NIC with a queue per level served in strict order, as the PrioPlus artefact's hosts
    /// serve their physical priority queues (docs/models/priority-queues.md).
    Priority,
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
    /// The algorithm's choices, read once from its `TransportProfile`: SACK-hole loss detection, fixed RTO, timeout scope,
    /// and whether it wants the runs of confirmed losses (else `confirmed` stays empty).
    sack_loss: bool,
    confirms_losses: bool,
    /// The algorithm stamps its data packets and reads the ACKs' echo (`CongestionControl::stamp`).
    pub stamps: bool,
    /// The receiver stamps replies with one-way delays (`TransportProfile::one_way_delay`).
    pub one_way_delay: bool,
    /// Its data packets gather in-band telemetry (`TransportProfile::wants_int`).
    pub int: bool,
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
    /// UEC ACKs (`docs/models/transport.md`, "The received-bytes counter"): the largest
    /// receiver byte count heard, and the wire bytes the sender has itself identified as
    /// acknowledged (PSN by PSN); the difference, reported but not yet named by an ACK
    /// (coalescing, a lost ACK, a bitmap too short), is out of the network for the window.
    recvd_heard: u64,
    acked_identified: u64,
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
    /// When the ACK that completed the flow reached the sender (`output.fct = "sender"`).
    pub done_at: Option<Time>,
    pub timeouts: u64,
    /// NACKs that marked a packet lost.
    pub nacks: u64,
    /// EQDS: packets may leave only against credit (`None`: no credit needed).
    pub credit: Option<SenderCredit>,
    /// Data packets carry ECT (the algorithm reads ECN, or `ect_always`).
    ect: bool,
}

impl Sender {
    /// The bytes in flight as the window sees them: less those the receiver's count (UEC
    /// ACKs) reports but no ACK has named yet.
    #[inline]
    fn window_in_flight(&self) -> u64 {
        self.in_flight.saturating_sub(self.recvd_heard.saturating_sub(self.acked_identified))
    }

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
    /// Wire bytes of the distinct data packets taken in (duplicates not counted): the
    /// counter UEC ACKs carry, uet-htsim's `recvd_bytes`.
    pub recvd_bytes: u64,
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
    /// Bit j set iff PSN `base + j` has arrived (every PSN below `rcv_next` has).
    fn sack_bits_from(&self, base: u32) -> u64 {
        let below = self.rcv_next.saturating_sub(base).min(64) as usize;
        let mut bits = if below == 64 { u64::MAX } else { (1u64 << below) - 1 };
        let skip = base.saturating_sub(self.rcv_next) as usize;
        for (j, &got) in self.ooo.iter().skip(skip).take(64 - below).enumerate() {
            bits |= (got as u64) << (j + below);
        }
        bits
    }

    /// The base of a UEC ACK's bitmap triggered by PSN `psn`: the 64 PSNs ending at the
    /// trigger, but never the cumulative ACK's PSN or below (which the ACK already covers).
    /// uet-htsim's rule, except that uet-htsim bases the bitmap at the trigger itself when
    /// it was ECN-marked or asked for the ACK; dcnsim keeps the packets coalesced below
    /// such a trigger named too (with uet-htsim's exception the trimming conservation test
    /// of `nscc_htsim` mode saw a needless timeout; docs/models/transport.md).
    fn uec_sack_base(&self, psn: u32) -> u32 {
        psn.saturating_sub(63).max(self.rcv_next + 1)
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
    /// The registry path policy the flow runs (`lb.rs`, `PathPolicy`); `None` for the
    /// built-in balancers (`lb` says which).
    pub policy: Option<AnyPathPolicy>,
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
    /// Noise the receiving host holds each reply for (`noise::NoiseAt::Receiver`).
    pub reply_hold: Option<Box<crate::noise::DelayNoise>>,
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
    /// Which PSNs from `sack_base` on have arrived: a UEC ACK carries 64 (uet-htsim's 64-bit
    /// SACK bitmap, in the arena's side lane), another ACK the 16 above `cum` (`Packet::ext`).
    pub sack_bits: u64,
    /// The PSN of `sack_bits`' bit 0: `cum + 1` except on UEC ACKs (`UecAck::sack_base`).
    pub sack_base: u32,
    /// The receiver's count of the wire bytes of distinct data packets it has taken in
    /// (UEC ACKs carry it; `Receiver::recvd_bytes`).
    pub recvd: u64,
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
        let profile = cc.profile();
        let sack_loss = profile.sack_loss_detection && !go_back_n;
        let confirms_losses = profile.wants_confirmed_losses;
        let (stamps, int) = (profile.wants_stamps, profile.wants_int);
        debug_assert!(!(stamps && profile.one_way_delay), "stamps and one-way delays share the side lane");
        let one_way_delay = profile.one_way_delay;
        let (fixed_rto, timeout_policy, cnp_interval) =
            (profile.fixed_rto, profile.timeout_policy, profile.cnp_interval);
        let ect = profile.ecn_capable;
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
            policy: None,
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
                stamps,
                one_way_delay,
                int,
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
                recvd_heard: 0,
                acked_identified: 0,
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
                done_at: None,
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
                recvd_bytes: 0,
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
            reply_hold: None,
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
}

#[cfg(test)]
mod tests;
