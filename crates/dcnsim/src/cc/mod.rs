//! The congestion-control interface. The shared transport (`transport.rs`) does reliable
//! delivery and hands each algorithm per-ACK samples and loss/timeout events; the
//! algorithm answers with a window (bytes on the wire) and optionally a pacing rate.
//! A new algorithm is a new module implementing `CongestionControl`, nothing more.

pub mod dcqcn;
pub mod dctcp;
pub mod hpcc;
pub mod laps;
pub mod ledbat;
pub mod median;
pub mod mprdma;
pub mod newreno;
pub mod nscc;
pub mod prioplus;
pub mod swift;
pub mod uncontrolled;

use serde::{Deserialize, Serialize};

use crate::units::{Rate, Time};

/// The registry: every congestion control a scenario can name (`transport.cc`) and every
/// algorithm parameter table under `[transport]`. A new algorithm is a module in this
/// folder plus its entry here; `CcName` (below), the scenario's `[transport.<table>]`
/// fields and the constructor (`scenario/transport.rs`) are generated from these lines,
/// so the two never disagree and neither module imports the other's types.
///
/// An algorithm entry is `Variant "name" |t, info| constructor`, where `t` is the
/// scenario's `TransportCfg` (its tables are `t.<table>`) and `info` the flow's
/// `FlowInfo`. The order of the algorithms is the order error messages list them in.
macro_rules! congestion_controls {
    ($then:path) => {
        $then! {
            tables {
                newreno: crate::cc::newreno::NewRenoParams,
                dctcp: crate::cc::dctcp::DctcpParams,
                swift: crate::cc::swift::SwiftParams,
                /// NSCC and MNSCC (`[transport.nscc]`).
                nscc: crate::cc::nscc::NsccParams,
                /// D2TCP (`[transport.d2tcp]`).
                d2tcp: crate::cc::dctcp::D2tcpParams,
                /// MPRDMA (`[transport.mprdma]`).
                mprdma: crate::cc::mprdma::MprdmaParams,
                /// DCQCN (`[transport.dcqcn]`).
                dcqcn: crate::cc::dcqcn::DcqcnParams,
                /// LEDBAT (`[transport.ledbat]`; also PrioPlus's when `prioplus.underlying = "ledbat"`).
                ledbat: crate::cc::ledbat::LedbatParams,
                /// HPCC (`[transport.hpcc]`).
                hpcc: crate::cc::hpcc::HpccParams,
                /// PrioPlus's own parameters; the Swift it wraps reads `swift` (docs/models/prioplus.md).
                prioplus: crate::cc::prioplus::PrioPlusParams,
            }
            algorithms {
                Newreno "newreno" |t, info| Box::new(crate::cc::newreno::NewReno::new(&t.newreno, info.mtu, info.initial_window)),
                Dctcp "dctcp" |t, info| match t.dctcp.variant {
                    crate::cc::dctcp::DctcpVariant::Window => Box::new(crate::cc::dctcp::Dctcp::new(&t.dctcp, info.mtu, info.initial_window)),
                    crate::cc::dctcp::DctcpVariant::Rate => Box::new(crate::cc::dctcp::DctcpRate::new(&t.dctcp.rate, info)),
                },
                Swift "swift" |t, info| Box::new(crate::cc::swift::Swift::new(&t.swift, crate::cc::swift::Variant::Swift, info)),
                Lswift "lswift" |t, info| Box::new(crate::cc::swift::Swift::new(&t.swift, crate::cc::swift::Variant::LSwift, info)),
                Mswift "mswift" |t, info| Box::new(crate::cc::swift::Swift::new(&t.swift, crate::cc::swift::Variant::MSwift, info)),
                Nscc "nscc" |t, info| Box::new(crate::cc::nscc::Nscc::new(&t.nscc, false, info)),
                Mnscc "mnscc" |t, info| Box::new(crate::cc::nscc::Nscc::new(&t.nscc, true, info)),
                /// PrioPlus over Swift (docs/models/prioplus.md): virtual priorities in one queue.
                Prioplus "prioplus" |t, info| Box::new(crate::cc::prioplus::PrioPlus::with_params(&t.prioplus, &t.swift, &t.ledbat, info)),
                /// No congestion control: line rate, window unbounded (lossless RoCEv2 without DCQCN).
                None "none" |_t, _info| Box::new(crate::cc::uncontrolled::Uncontrolled),
                /// DCQCN (rate based, CNPs), `cc/dcqcn.rs`.
                Dcqcn "dcqcn" |t, info| Box::new(crate::cc::dcqcn::Dcqcn::new(&t.dcqcn, info)),
                /// MP-RDMA's per-packet ECN window, `cc/mprdma.rs`.
                Mprdma "mprdma" |t, info| Box::new(crate::cc::mprdma::Mprdma::new(&t.mprdma, info)),
                /// LEDBAT (RFC 6817), `cc/ledbat.rs`.
                Ledbat "ledbat" |t, info| Box::new(crate::cc::ledbat::Ledbat::new(&t.ledbat, info)),
                /// EQDS: no sender window, receiver-driven credit (`eqds.rs`).
                Eqds "eqds" |_t, _info| Box::new(crate::cc::uncontrolled::Uncontrolled),
                /// D2TCP: DCTCP with deadline-aware cuts (`cc/dctcp.rs`).
                D2tcp "d2tcp" |t, info| Box::new(crate::cc::dctcp::Dctcp::d2tcp(&t.d2tcp, info, info.size)),
                /// LAPS's latency-driven rate control (`cc/laps.rs`); only with `lb = "laps"`.
                Laps "laps" |t, info| Box::new(crate::cc::laps::Laps::new(&t.laps, info)),
                /// HPCC, in-band telemetry driven (`cc/hpcc.rs`).
                Hpcc "hpcc" |t, info| Box::new(crate::cc::hpcc::Hpcc::new(&t.hpcc, info)),
            }
        }
    };
}
pub(crate) use congestion_controls;

/// Generates `CcName` from the registry's algorithm entries.
macro_rules! cc_names {
    (
        tables { $($tables:tt)* }
        algorithms { $( $(#[$doc:meta])* $variant:ident $name:literal |$t:ident, $info:ident| $make:expr ),* $(,)? }
    ) => {
        /// The congestion controls a scenario can name (`transport.cc`), from the registry above.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum CcName {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        impl CcName {
            /// Every algorithm, in the registry's order.
            pub const ALL: &'static [CcName] = &[$(CcName::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $( CcName::$variant => $name, )*
                }
            }
        }
    };
}
congestion_controls!(cc_names);

/// How long the transport lets a hole wait for a late original before declaring it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReorderWindow {
    Fixed(Time),
    /// RFC 8985 §6.2 (RACK): a quarter of the minimum RTT, widened by a quarter for each
    /// round trip in which a retransmission proved spurious (the original arrived first),
    /// capped at the smoothed RTT; back to a quarter after 16 loss recoveries.
    Rack,
}

/// What one ACK tells the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Wire bytes this ACK newly acknowledged, cumulatively or selectively.
    pub newly_acked: u64,
    /// ECN echo.
    pub ece: bool,
    /// Round-trip time of the data packet that triggered this ACK.
    pub rtt: Time,
    /// Cumulative ACK: every PSN below it has arrived.
    pub cum_ack: u32,
    /// The sender's next new PSN (one past the highest sent).
    pub snd_nxt: u32,
    /// Wire bytes in flight after this ACK.
    pub in_flight: u64,
    /// Wire bytes that were in flight when this ACK arrived (before it freed any).
    pub in_flight_before: u64,
}

/// Losses found on one ACK.
#[derive(Clone, Copy, Debug)]
pub struct LossEvent<'a> {
    pub now: Time,
    pub cum_ack: u32,
    pub snd_nxt: u32,
    /// Wire bytes in flight once these losses left the count (RFC 6675's pipe).
    pub in_flight: u64,
    /// PSNs declared lost on this ACK, ascending.
    pub newly_lost: &'a [u32],
    /// For the newly lost PSNs, the maximal runs (lo, hi inclusive) of consecutive PSNs
    /// that are lost and not yet acknowledged (LSwift reacts to long runs only).
    pub runs: &'a [(u32, u32)],
}

/// A NACK: a switch trimmed data packet `psn` to its header and the receiver reported
/// it (docs/models/trimming.md; SMaRTT paper §III-D). The transport has already marked it lost and queued
/// its retransmission.
#[derive(Clone, Copy, Debug)]
pub struct NackSample {
    pub now: Time,
    pub psn: u32,
    /// Wire bytes of the trimmed packet.
    pub bytes: u64,
    /// Round-trip time of the trimmed transmission (sent to NACK received).
    pub rtt: Time,
    pub cum_ack: u32,
    pub snd_nxt: u32,
    /// Wire bytes in flight after the trimmed packet left the count.
    pub in_flight: u64,
}

/// Which packets a retransmission timeout declares lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutPolicy {
    /// Every outstanding packet (RFC 6298 go-back style).
    AllOutstanding,
    /// Only packets outstanding for at least one RTO (htsim's UEC sender;
    /// docs/models/transport.md, "Timeout"): the timer is armed for the oldest transmission still out
    /// (its send time + RTO, not restarted by ACKs of others), each expired packet is
    /// reported on its own (`on_packet_expired`), and the timer is re-armed for the next.
    Expired,
}

/// What an algorithm may know about its flow's path when it is created.
#[derive(Clone, Copy, Debug)]
pub struct FlowInfo {
    /// Largest packet on the wire: one "packet" of window.
    pub mtu: u64,
    /// Initial window in wire bytes.
    pub initial_window: u64,
    /// Unloaded round-trip time of a full data packet and its ACK.
    pub base_rtt: Time,
    /// Unloaded one-way delay of a full data packet (the forward part of `base_rtt`): the
    /// base of one-way delay samples (`TransportProfile::one_way_delay`).
    pub base_owd: Time,
    /// Links on the forward path (hosts' included).
    pub hops: u32,
    /// Slowest link on the forward path.
    pub bottleneck: Rate,
    /// Header bytes of every packet (payload = mtu - header).
    pub header: u64,
    /// Bytes a switch output port can queue.
    pub switch_buffer: u64,
    /// Switches trim instead of dropping (NACKs will come).
    pub trimming: bool,
    /// The flow's priority level (1..=`levels`, larger = more important; 0: none).
    pub priority: u8,
    /// Highest priority level any flow of the scenario has (0: priorities unused).
    pub levels: u8,
    /// Seed of the flow's own random stream (PrioPlus's probe jitter), derived from the
    /// scenario seed and the flow id so that it does not shift other streams.
    pub seed: u64,
    /// When the flow starts.
    pub start: Time,
    /// Payload bytes of the flow (`u64::MAX`: unbounded).
    pub size: u64,
    /// Source-routed flows: the largest idle latency of the candidate paths (LAPS's
    /// target T, docs/models/laps.md; LAPS paper §3.4); zero otherwise.
    pub path_target: Time,
    /// Rate of the sending host's NIC.
    pub nic_rate: Rate,
    /// The largest one-way bandwidth-delay product (bytes) over every path of every flow
    /// of the scenario (DCQCN's unified window, docs/models/dcqcn.md); computed only when
    /// some flow runs DCQCN with `window = "bdp"` or the rate-based DCTCP with
    /// `rate.window = "bdp"`, zero otherwise.
    pub unified_bdp: u64,
    /// The fabric's largest unloaded RTT (a full data packet out, its ACK back) and the
    /// BDP of that path (bytes): NSCC's network-wide target and scaling
    /// (`docs/models/nscc.md`, "Network-wide constants"); computed only when some flow runs
    /// NSCC, zero otherwise.
    pub network_rtt: Time,
    pub network_bdp: u64,
}

/// What the shared transport reads from an algorithm once, when a flow is made: how its
/// losses are detected and recovered, what its packets carry and what its receiver sends
/// back (`CongestionControl::profile`). The defaults suit a window algorithm that reads
/// SACK holes as losses, as NewReno does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransportProfile {
    /// Data packets carry ECT, so RED queues mark them instead of dropping them.
    pub ecn_capable: bool,
    /// The transport keeps the set of losses proven by retransmission for
    /// `on_loss_confirmed` (else it stays empty).
    pub wants_confirmed_losses: bool,
    /// The transport declares holes lost from selective ACKs (`on_loss`); NSCC ignores
    /// reordering and recovers by NACK and timeout only.
    pub sack_loss_detection: bool,
    /// A fixed retransmission timeout replacing the transport's RTT estimator (no backoff).
    pub fixed_rto: Option<Time>,
    pub timeout_policy: TimeoutPolicy,
    /// The receiver sends this flow CNPs (congestion notification packets) for ECN-marked
    /// arrivals, at most this often (DCQCN's NP).
    pub cnp_interval: Option<Time>,
    /// The algorithm sends probes (the simulation then polls `probe_at`).
    pub uses_probes: bool,
    /// Data packets gather in-band telemetry (`net/int.rs`) for `on_int`.
    pub wants_int: bool,
    /// The algorithm carries a word of its own on every data packet (`stamp`), echoed back
    /// to it on the ACK (`on_echo`).
    pub wants_stamps: bool,
    /// The receiver stamps each reply with the one-way delay of the data packet (or probe)
    /// it answers, read with synchronised clocks, and the sender hands it to
    /// `on_one_way_delay` before `on_ack` / `on_probe_ack` (noise added as to RTT samples).
    /// Not with `wants_stamps`: both use the packet's side lane.
    pub one_way_delay: bool,
}

impl TransportProfile {
    /// uet-htsim's UEC sender (NSCC, and MPRDMA as htsim runs it): ECN-capable data, no
    /// loss from SACK holes (spraying reorders), a fixed `rto` after which each packet still
    /// outstanding is resent on its own (`docs/models/transport.md`, the timeout policies).
    pub fn uec_sender(rto: Time) -> TransportProfile {
        TransportProfile {
            ecn_capable: true,
            sack_loss_detection: false,
            fixed_rto: Some(rto),
            timeout_policy: TimeoutPolicy::Expired,
            ..TransportProfile::default()
        }
    }
}

impl Default for TransportProfile {
    fn default() -> Self {
        TransportProfile {
            ecn_capable: false,
            wants_confirmed_losses: false,
            sack_loss_detection: true,
            fixed_rto: None,
            timeout_policy: TimeoutPolicy::AllOutstanding,
            cnp_interval: None,
            uses_probes: false,
            wants_int: false,
            wants_stamps: false,
            one_way_delay: false,
        }
    }
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    /// The settings the transport reads once, when the flow is made (`TransportProfile`).
    fn profile(&self) -> TransportProfile {
        TransportProfile::default()
    }
    fn on_ack(&mut self, ack: &AckSample);
    /// Losses detected by the duplicate/selective-ACK rule (fast retransmit), once per ACK.
    fn on_loss(&mut self, ev: &LossEvent);
    /// Losses proven by retransmission (with `TransportProfile::wants_confirmed_losses`): on this ACK, each run (lo, hi inclusive) of
    /// consecutive PSNs whose retransmission arrived before the original grew to include a
    /// new PSN. Reordering never produces these; only real loss (or a delay longer than a
    /// retransmission round trip) does. Most algorithms react in `on_loss` instead.
    fn on_loss_confirmed(&mut self, _now: Time, _runs: &[(u32, u32)]) {}
    /// A NACK for a trimmed packet; by default, a loss of that one packet.
    fn on_nack(&mut self, n: &NackSample) {
        let lost = [n.psn];
        let runs = [(n.psn, n.psn)];
        self.on_loss(&LossEvent {
            now: n.now,
            cum_ack: n.cum_ack,
            snd_nxt: n.snd_nxt,
            in_flight: n.in_flight,
            newly_lost: &lost,
            runs: &runs,
        });
    }
    /// How long a hole must stay unfilled before it counts as lost (reordering tolerance).
    fn reorder_window(&self) -> ReorderWindow {
        ReorderWindow::Fixed(Time::ZERO)
    }
    /// Retransmission timeout.
    fn on_timeout(&mut self, now: Time, snd_nxt: u32);
    /// `TimeoutPolicy::Expired`: one packet of `bytes` wire bytes was outstanding for a
    /// whole RTO; it has left the bytes in flight and waits for retransmission. Called for
    /// each expired packet (htsim handles each as a timeout of its own;
    /// docs/models/transport.md, "Timeout"), before the one `on_timeout` of the timer event.
    fn on_packet_expired(&mut self, _now: Time, _bytes: u64) {}
    /// Congestion window in wire bytes.
    fn cwnd(&self) -> u64;
    /// Pacing rate; `None` sends as fast as the window allows.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// A CNP arrived (only if `TransportProfile::cnp_interval` asked for them).
    fn on_cnp(&mut self, _now: Time) {}
    /// Internal variables for time series and tests (e.g. DCTCP's alpha).
    fn observe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
    /// With `TransportProfile::uses_probes`: when the next probe should leave (`None`: no probe wanted). Polled after every
    /// callback; a changed answer reschedules the one timer (lazy invalidation).
    fn probe_at(&self) -> Option<Time> {
        None
    }
    /// A probe of `bytes` left at `now`.
    fn on_probe_sent(&mut self, _now: Time) {}
    /// Wire size of a probe.
    fn probe_bytes(&self) -> u32 {
        64
    }
    /// The echo of a probe came back with round-trip time `rtt`.
    fn on_probe_ack(&mut self, _now: Time, _rtt: Time) {}
    /// Source-routed flows that track their paths (LAPS): after each ACK, the latest
    /// one-way latency of every candidate path.
    fn on_path_latencies(&mut self, _now: Time, _latencies: &[Time]) {}
    /// With `TransportProfile::wants_int`: an ACK echoed the telemetry its data packet gathered, one record per switch egress
    /// port in path order; called before `on_ack` for the same ACK.
    fn on_int(&mut self, _now: Time, _cum_ack: u32, _snd_nxt: u32, _hops: &[crate::net::int::IntHop]) {}
    /// The word data packet `psn` carries (a send timestamp, a byte counter, a header
    /// field the algorithm defines); it lives in the packet arena's side lane, not in
    /// `Packet`, so no other field is re-used. Called only with `TransportProfile::wants_stamps`.
    fn stamp(&mut self, _now: Time, _psn: u32) -> u64 {
        0
    }
    /// An ACK echoed the word its data packet carried; called before `on_ack` for the
    /// same ACK, only with `TransportProfile::wants_stamps`.
    fn on_echo(&mut self, _now: Time, _cum_ack: u32, _echoed: u64) {}
    /// With `TransportProfile::one_way_delay`: the one-way delay of the data packet or probe
    /// the next `on_ack` / `on_probe_ack` answers.
    fn on_one_way_delay(&mut self, _now: Time, _owd: Time) {}
}

/// Standard TCP growth: slow start below `ssthresh`, else +1 MSS per window of
/// acknowledged bytes; but only while the window is what limits the sender (RFC 7661,
/// as Linux's `tcp_is_cwnd_limited`): a flow held back by its NIC or by having nothing to
/// send would otherwise inflate cwnd without bound and burst later. `in_flight` is the
/// bytes outstanding before this ACK.
#[inline]
pub(crate) fn reno_increase(cwnd: &mut u64, ssthresh: u64, mss: u64, newly_acked: u64, in_flight: u64) {
    if *cwnd < ssthresh {
        // Slow start may double what was actually in flight.
        if 2 * in_flight < *cwnd {
            return;
        }
        *cwnd += newly_acked.min(ssthresh - *cwnd).max(1);
    } else {
        if in_flight + mss < *cwnd {
            return;
        }
        *cwnd += (mss * newly_acked / (*cwnd).max(1)).max(1);
    }
}

/// An ACK sample for unit tests: `bytes` newly acknowledged, window fully used.
#[cfg(test)]
pub(crate) fn test_ack(cum_ack: u32, snd_nxt: u32, bytes: u64, ece: bool) -> AckSample {
    AckSample {
        now: Time::ZERO,
        newly_acked: bytes,
        ece,
        rtt: Time::ZERO,
        cum_ack,
        snd_nxt,
        in_flight: 0,
        in_flight_before: u64::MAX / 4,
    }
}

/// Path facts for unit tests: `base_rtt` (half of it one way), one bottleneck `rate`,
/// 64-byte headers, a buffer of `buffer` bytes, no trimming.
#[cfg(test)]
pub(crate) fn test_info(mtu: u64, initial_window: u64, base_rtt: Time, hops: u32, rate: Rate, buffer: u64) -> FlowInfo {
    FlowInfo {
        mtu,
        initial_window,
        base_rtt,
        base_owd: Time(base_rtt.0 / 2),
        hops,
        bottleneck: rate,
        header: 64,
        switch_buffer: buffer,
        trimming: false,
        priority: 0,
        levels: 0,
        seed: 0,
        start: Time::ZERO,
        size: u64::MAX,
        path_target: Time::ZERO,
        nic_rate: rate,
        unified_bdp: 0,
        network_rtt: Time::ZERO,
        network_bdp: 0,
    }
}

/// A loss event for unit tests.
#[cfg(test)]
pub(crate) fn test_loss(cum_ack: u32, snd_nxt: u32) -> LossEvent<'static> {
    LossEvent { now: Time::ZERO, cum_ack, snd_nxt, in_flight: 0, newly_lost: &[], runs: &[] }
}
