//! SMaRTT / UEC NSCC (Bonato et al., "SMaRTT: Sender-based Marked Rapidly-adapting Trimmed
//! & Timed Transport", arXiv 2404.01630 v4, §III, Algorithms 1–4, Eqs. 1–3) and MNSCC
//! ("Congestion Control for Spraying with Congested Paths", Gerstein, Silberstein,
//! Keslassy, arXiv 2509.07907 v2, §III-B). What is modelled, the parameters with their
//! sources and the known deviations: `docs/models/nscc.md`.
//!
//! One window (bytes) covers every path of a sprayed flow. Each ACK is sorted by its ECN
//! echo and its delay against a target (SMaRTT §III-I, Algorithm 1):
//!
//! | ECN | delay ≥ target | reaction |
//! |-----|----------------|----------|
//! | yes | yes | multiplicative decrease from the averaged delay, once per base RTT |
//! | yes | no  | none: the load balancer (REPS) drops the entropy (the transport does that) |
//! | no  | yes | fair increase: about `fi` MTU per RTT whatever the window |
//! | no  | no  | proportional increase (≤ 1 MTU per RTT unscaled), then fair increase |
//!
//! On top: **QuickAdapt** (§III-E) sets the window to the bytes actually delivered in the
//! last target RTT after a trim (NACK), or after a very high delay when switches do not
//! trim, then ignores the feedback of the packets already in flight; **FastIncrease**
//! (§III-F) adds 2 MTU per ACK once a window's worth of bytes came back uncongested.
//! Increase constants scale with the network BDP (or the path's) over a reference BDP (§III-J).
//!
//! Two modes (`docs/models/nscc.md`, "Modes and variants"): `smartt_paper` (default)
//! follows the paper's pseudocode with dcnsim's readings of what it leaves open
//! (`docs/reproductions/smartt-paper.md`, "Decisions and errata"); `nscc_htsim` follows the UEC
//! NSCC of uet-htsim (queueing-delay target, batched increases, η, htsim's QuickAdapt
//! gate and ignore rule). MNSCC is either mode deciding on the median of the last H
//! delays, H = max(min(⌊W/2⌋, 4), 1) (MSwift paper Eq. 9).
//!
//! NSCC tolerates reordering: it never declares a loss from SACK holes (the transport
//! asks `sack_loss_detection`); recovery is by NACK (trimming) and a fixed RTO that only
//! retransmits packets outstanding for a whole RTO (`TimeoutPolicy::Expired`).

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use super::median::{nyquist_history, PercentileWindow};
use super::swift::History;
use super::{AckSample, CongestionControl, FlowInfo, LossEvent, NackSample, TimeoutPolicy};
use crate::cc::TransportProfile;
use crate::units::values::{scalar, NumberOrWord, Scalar, TimeVal};
use crate::units::{parse_bytes, parse_time, Time};

/// htsim's reference round trip for its scaling constants (uet-htsim's NSCC: 100 Gbps,
/// 12 µs), and the BDP of that reference.
const REFERENCE_RTT: Time = Time::from_us(12);
const HTSIM_REFERENCE_BDP: f64 = 150_000.0;

/// Which description of the algorithm a flow follows (`docs/models/nscc.md`, "Modes and
/// variants").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NsccMode {
    /// The paper's Algorithms 1–4 (RTT against trtt = target_ratio × base RTT).
    #[default]
    SmarttPaper,
    /// uet-htsim's NSCC: queueing delay against an absolute target, batched increases.
    NsccHtsim,
}

/// A time derived from the flow's path unless given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoTime {
    Auto,
    Fixed(Time),
}

impl AutoTime {
    fn or(self, auto: Time) -> Time {
        match self {
            AutoTime::Auto => auto,
            AutoTime::Fixed(t) => t,
        }
    }
}

impl Serialize for AutoTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AutoTime::Auto => s.serialize_str("auto"),
            AutoTime::Fixed(t) => TimeVal(*t).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for AutoTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "allowed: \"auto\" or a time such as \"1us\"";
        match NumberOrWord::read(d, ALLOWED)? {
            NumberOrWord::Word(s) if s == "auto" => Ok(AutoTime::Auto),
            NumberOrWord::Word(s) => {
                parse_time(&s).map(AutoTime::Fixed).map_err(|e| de::Error::custom(format!("{e}; {ALLOWED}")))
            }
            NumberOrWord::Number(_) => Err(de::Error::custom(ALLOWED)),
        }
    }
}

/// Where the window starts (`docs/models/nscc.md`: not in the paper; htsim starts at
/// the largest window, i.e. line rate from the first RTT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialCwnd {
    #[default]
    Maxwnd,
    Bdp,
    /// `transport.initial_window`.
    Transport,
}

/// When the paper mode applies its increases (SMaRTT §III-G: hardware-friendly
/// variants that must behave like the per-packet update; `docs/reproductions/smartt-paper.md`,
/// A9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjustment {
    /// Every ACK (the paper's default).
    #[default]
    PerPacket,
    /// Variant (a): add up the per-ACK increases and apply them once `adjustment_packets`
    /// MTUs have been acknowledged or a base RTT has passed. Decreases act at once.
    Accumulate,
    /// Variant (b): only every `adjustment_packets`-th ACK drives the ECN × delay cases,
    /// with the bytes acknowledged since the previous one (the reaction scaled by n).
    Sample,
}

/// What Case 2 (an ECN mark with the RTT below target) does to the window (SMaRTT
/// §III-I1, the Fig. 11 ablation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Case2 {
    /// The paper: leave the window alone and let the load balancer move the path.
    #[default]
    Noop,
    /// The ablation: take half a packet off per marked packet (MPRDMA's −MTU/2, scaled
    /// by the acknowledged bytes; dcnsim's reading of the ablation, `docs/models/nscc.md`).
    Decrease,
}

/// Where the target and the BDP-scaled constants come from (`docs/models/nscc.md`,
/// "Network-wide constants").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// The fabric's largest unloaded RTT and its BDP, the same for every flow (uet-htsim
    /// sets them once per network; SMaRTT §III-J ties 1.5 × base RTT to half-full queues,
    /// which holds for the network's BDP).
    #[default]
    Network,
    /// Each flow's own path: trtt = 1.5 × its base RTT, constants scaled by its path BDP.
    Path,
}

/// What an ECN-marked ACK with a high delay does (paper mode; `docs/models/nscc.md`,
/// "Fair Decrease").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decrease {
    /// Eq. 1: W ×= max(1 − β·(avg − trtt)/avg, 1 − max_mdf), at most once per base RTT.
    #[default]
    Multiplicative,
    /// The pre-v4 SMaRTT's Fair Decrease (the v4 paper's §I: FI "increased or decreased more
    /// conservatively, proportionally to the acknowledged packet size"; the MSwift paper's
    /// appendix models it with fd = 0.8 and wait-to-decrease): on every ECN-marked ACK,
    /// W −= `fair_decrease_gain` · W · acked / BDP (the scope's), while the moving average of the
    /// marked share exceeds `wait_to_decrease`.
    Fair,
}

/// Which congestion signals drive the core cases (SMaRTT Fig. 5's ablation;
/// `docs/models/nscc.md`, "Signal variants").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signals {
    /// ECN and delay together (Algorithm 1).
    #[default]
    Both,
    /// ECN alone: a marked ACK takes half its bytes off the window (MPRDMA's −MTU/2 per
    /// marked packet), an unmarked one increases as if the RTT were the base RTT.
    EcnOnly,
    /// Delay alone: RTT ≥ trtt decreases (Eq. 1), below it increases (Eq. 3 then Eq. 2).
    DelayOnly,
}

/// A size derived from the fabric unless given (`bdp_ref`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoBytes {
    Auto,
    Fixed(u64),
}

impl Serialize for AutoBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AutoBytes::Auto => s.serialize_str("auto"),
            AutoBytes::Fixed(b) => s.serialize_u64(*b),
        }
    }
}

impl<'de> Deserialize<'de> for AutoBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "allowed: \"auto\" or a size such as \"150KB\"";
        match scalar(d, ALLOWED)? {
            Scalar::Str(s) if s == "auto" => Ok(AutoBytes::Auto),
            Scalar::Str(s) => {
                parse_bytes(&s).map(AutoBytes::Fixed).map_err(|e| de::Error::custom(format!("{e}; {ALLOWED}")))
            }
            Scalar::Int(v) if v >= 0 => Ok(AutoBytes::Fixed(v as u64)),
            Scalar::UInt(v) => Ok(AutoBytes::Fixed(v)),
            _ => Err(de::Error::custom(ALLOWED)),
        }
    }
}

/// Parameters of NSCC and MNSCC. Defaults: the SMaRTT paper where it gives a value, else
/// uet-htsim's value or a dcnsim choice (`docs/models/nscc.md`, "Parameters";
/// `docs/reproductions/smartt-paper.md`, "Decisions and errata").
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NsccParams {
    pub mode: NsccMode,
    /// Where the target and the scaling constants come from: `network` (the fabric's
    /// largest unloaded RTT and BDP, every flow alike; the default) or `path` (each flow's
    /// own; `docs/models/nscc.md`, "Network-wide constants").
    pub scope: Scope,
    /// Paper: target RTT = `target_ratio` × base RTT (1.5, §III-J).
    pub target_ratio: f64,
    /// Paper mode: the RTT whose (`target_ratio` − 1) share is the queueing the flow aims
    /// at, trtt = base RTT + (target_ratio − 1) × this. `auto`: the network RTT (`scope =
    /// "network"`: every flow aims at the same queueing) or the flow's own base RTT
    /// (`scope = "path"`: the paper's trtt = 1.5 × brtt).
    pub target_queue_rtt: AutoTime,
    /// htsim: queueing-delay target; `auto` = 0.75 × network RTT with trimming, 1 × without.
    pub target_qdelay: AutoTime,
    /// htsim: the network RTT its constants scale with; `auto` = the fabric's largest
    /// unloaded RTT (`scope = "network"`) or the flow's own (`scope = "path"`).
    pub network_rtt: AutoTime,
    /// Largest window, in BDPs of the flow's path (1.5, §III-J; Alg. 4 says 1).
    pub max_cwnd_bdp: f64,
    /// Smallest window, in MTUs (1, §III-J).
    pub min_cwnd_pkts: f64,
    pub initial_cwnd: InitialCwnd,
    /// Multiplicative decrease gain (0.8, Eq. 1) and largest cut (0.5).
    pub beta: f64,
    pub max_mdf: f64,
    /// Paper: fair-increase constant, MTU per RTT before BDP scaling (not in the paper;
    /// `docs/models/nscc.md`).
    pub fi: f64,
    /// Paper: proportional-increase constant; absent = base RTT / (target − base RTT) (Eq. 3).
    pub pi: Option<f64>,
    /// Paper: the fair increase also follows the proportional increase (§III-I4; htsim removed it).
    pub fi_after_pi: bool,
    /// BDP the increase constants are scaled against. `auto`: in paper mode the network
    /// BDP (so the network's own paths get the paper's unscaled constants: fi MTU per RTT),
    /// in htsim mode uet-htsim's reference, 100 Gbps × 12 µs = 150 KB.
    pub bdp_ref: AutoBytes,
    /// Paper: scale fi and pi by the path's BDP (§III-J, Fair Increase); `false` leaves
    /// them unscaled, so FI is plain additive increase, +MTU²/cwnd per packet at fi = 1
    /// (the SMaRTT paper's Fig. 6 ablation).
    pub bdp_scaling: bool,
    /// Gain of the averaged RTT (paper) or queueing delay (htsim); the paper gives none,
    /// the default is uet-htsim's (`docs/models/nscc.md`).
    pub ewma_gain: f64,
    pub fast_increase: bool,
    /// Case 2's reaction: `noop` (paper) or `decrease` (Fig. 11's alternative).
    pub case2: Case2,
    /// Paper mode: Eq. 1's `multiplicative` decrease or the per-ACK `fair` decrease.
    pub decrease: Decrease,
    /// Fair Decrease's gain fd (0.8: the MSwift paper's appendix, after SMaRTT's authors).
    pub fair_decrease_gain: f64,
    /// Wait-to-decrease: Fair Decrease acts only while the moving average of the marked
    /// share of acknowledged bytes exceeds this (0.25: the MSwift paper's appendix).
    pub wait_to_decrease: f64,
    /// Paper mode: `both` signals, `ecn_only` or `delay_only` (Fig. 5).
    pub signals: Signals,
    /// Paper: FastIncrease step, MTU per ACK (2, §III-F).
    pub fast_increase_k: f64,
    /// "RTT ≈ base RTT" for FastIncrease: RTT − base RTT below this (uet-htsim's threshold;
    /// `docs/models/nscc.md`).
    pub fast_increase_delay: TimeVal,
    pub quick_adapt: bool,
    /// QuickAdapt's window = delivered bytes × this (1, §III-E).
    pub qa_scaling: f64,
    /// After QuickAdapt, ignore the feedback of the bytes then in flight (Fig. 9).
    pub qa_ignore: bool,
    /// Without trimming, QuickAdapt fires when the delay (RTT − base RTT) exceeds this many
    /// target queueing delays (htsim's 4; `docs/models/nscc.md`)...
    pub qa_delay_factor: f64,
    /// ...and fewer than maxwnd / 2^qa_gate bytes arrived in the window (htsim's 3).
    pub qa_gate: u32,
    /// Paper mode: Algorithm 4 exactly during the ignore phase (a NACK still takes its
    /// bytes off the window, still arms QuickAdapt, and the QuickAdapt window does not roll)
    /// instead of §III-E's text, which uet-htsim follows: ignore all the feedback of the
    /// bytes in flight at the cut (`docs/models/nscc.md`, "QuickAdapt").
    pub qa_literal: bool,
    /// Fixed retransmission timeout; `auto` = 15 µs + 6 × one switch buffer's drain time at
    /// the bottleneck rate (htsim's formula, ≈ 84 µs in the paper, §III-D).
    pub rto: AutoTime,
    /// MNSCC: delays the decision looks at; `auto` = max(min(⌊cwnd/2⌋, 4), 1).
    pub history: History,
    /// Paper mode: when increases are applied (`per_packet`, `accumulate`, `sample`).
    pub adjustment: Adjustment,
    /// The n of `accumulate` (MTUs acknowledged) and `sample` (every n-th ACK): 8.
    pub adjustment_packets: u32,
    /// MNSCC: which percentile of them (50 = median).
    pub percentile: u32,
    /// MNSCC: the averaged delay is fed the median too (an option: the MSwift paper speaks
    /// of the decision signal only).
    pub median_feeds_ewma: bool,
}

impl Default for NsccParams {
    fn default() -> Self {
        NsccParams {
            mode: NsccMode::SmarttPaper,
            scope: Scope::Network,
            target_ratio: 1.5,
            target_queue_rtt: AutoTime::Auto,
            target_qdelay: AutoTime::Auto,
            network_rtt: AutoTime::Auto,
            max_cwnd_bdp: 1.5,
            min_cwnd_pkts: 1.0,
            initial_cwnd: InitialCwnd::Maxwnd,
            beta: 0.8,
            max_mdf: 0.5,
            fi: 1.0,
            pi: None,
            fi_after_pi: true,
            bdp_ref: AutoBytes::Auto,
            bdp_scaling: true,
            ewma_gain: 0.0125,
            fast_increase: true,
            fast_increase_k: 2.0,
            fast_increase_delay: TimeVal(Time::from_us(1)),
            quick_adapt: true,
            case2: Case2::Noop,
            decrease: Decrease::Multiplicative,
            fair_decrease_gain: 0.8,
            wait_to_decrease: 0.25,
            signals: Signals::Both,
            qa_scaling: 1.0,
            qa_ignore: true,
            qa_delay_factor: 4.0,
            qa_gate: 3,
            qa_literal: false,
            rto: AutoTime::Auto,
            history: History::Auto,
            adjustment: Adjustment::PerPacket,
            adjustment_packets: 8,
            percentile: 50,
            median_feeds_ewma: false,
        }
    }
}

impl NsccParams {
    /// Checks ranges; `Err` names the field and what is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let positive = [
            ("max_cwnd_bdp", self.max_cwnd_bdp),
            ("min_cwnd_pkts", self.min_cwnd_pkts),
            ("beta", self.beta),
            ("qa_scaling", self.qa_scaling),
            ("qa_delay_factor", self.qa_delay_factor),
        ];
        for (name, v) in positive {
            if !(v > 0.0 && v.is_finite()) {
                return Err((name, format!("{v}: must be positive")));
            }
        }
        let non_negative = [
            ("fi", self.fi),
            ("fast_increase_k", self.fast_increase_k),
            ("fair_decrease_gain", self.fair_decrease_gain),
        ];
        for (name, v) in non_negative {
            if !(v >= 0.0 && v.is_finite()) {
                return Err((name, format!("{v}: must be 0 or more")));
            }
        }
        if !(self.target_ratio > 1.0 && self.target_ratio.is_finite()) {
            return Err((
                "target_ratio",
                format!("{}: allowed above 1 (the target RTT exceeds the base RTT)", self.target_ratio),
            ));
        }
        if !(self.max_mdf > 0.0 && self.max_mdf < 1.0) {
            return Err(("max_mdf", format!("{}: allowed 0 < max_mdf < 1", self.max_mdf)));
        }
        if !(self.ewma_gain > 0.0 && self.ewma_gain <= 1.0) {
            return Err(("ewma_gain", format!("{}: allowed 0 < ewma_gain <= 1", self.ewma_gain)));
        }
        if let Some(pi) = self.pi {
            if !(pi >= 0.0 && pi.is_finite()) {
                return Err(("pi", format!("{pi}: must be 0 or more")));
            }
        }
        if self.bdp_ref == AutoBytes::Fixed(0) {
            return Err(("bdp_ref", "must be positive (or \"auto\")".into()));
        }
        if !(0.0..1.0).contains(&self.wait_to_decrease) {
            return Err(("wait_to_decrease", format!("{}: allowed 0 <= wait_to_decrease < 1", self.wait_to_decrease)));
        }
        if self.qa_gate > 30 {
            return Err(("qa_gate", format!("{}: allowed 0 to 30", self.qa_gate)));
        }
        let times = [
            ("target_qdelay", self.target_qdelay),
            ("network_rtt", self.network_rtt),
            ("rto", self.rto),
            ("target_queue_rtt", self.target_queue_rtt),
        ];
        for (name, t) in times {
            if t == AutoTime::Fixed(Time::ZERO) {
                return Err((name, "must be positive (or \"auto\")".into()));
            }
        }
        if !(1..=100).contains(&self.percentile) {
            return Err(("percentile", format!("{}: allowed 1 to 100", self.percentile)));
        }
        if self.adjustment_packets == 0 {
            return Err(("adjustment_packets", "0: allowed 1 or more".into()));
        }
        Ok(())
    }
}

pub struct Nscc {
    p: NsccParams,
    /// MNSCC: decides on a percentile of recent delays.
    window: Option<PercentileWindow>,
    mtu: f64,
    /// Bottleneck rate of the path, bytes per second.
    rate: f64,
    trimming: bool,
    /// Unloaded RTT; lowered by any smaller sample (`docs/models/nscc.md`).
    brtt: Time,
    /// The fabric's largest unloaded RTT and its BDP (bytes): the network-wide scope's
    /// target and scaling (the flow's own path when the fabric's is unknown).
    net_rtt: Time,
    net_bdp: f64,
    /// The BDP the paper mode's increase constants are scaled against (`bdp_ref`).
    bdp_ref: f64,
    /// Fair Decrease's denominator, bytes: the network BDP (`scope = "network"`) or the
    /// path's, bottleneck rate × base RTT (`scope = "path"`).
    decrease_bdp: f64,
    /// Fair Decrease's wait-to-decrease: moving average of the marked share of the ACKs
    /// over about one network RTT, when it last moved, and the decreases it let through.
    ecn_share: f64,
    ecn_share_at: Time,
    fair_decreases: u64,
    // Derived from `brtt` (`set_base_rtt`).
    trtt: Time,
    maxwnd: f64,
    scale: f64,
    pi: f64,
    // htsim constants (`docs/models/nscc.md`, `nscc_htsim` mode), fixed per flow.
    network_rtt: Time,
    target_q: Time,
    h_alpha: f64,
    h_fi: f64,
    h_eta: f64,
    h_fi_scale: f64,
    min_cwnd: f64,
    cwnd: f64,
    /// The transport's bytes in flight at the latest ACK/NACK (the paper's `unacked`).
    in_flight_now: f64,
    rto: Time,
    /// Averaged RTT (paper) or queueing delay (htsim), seconds; `None` before a sample.
    avg: Option<f64>,
    last_md: Option<Time>,
    /// QuickAdapt: bytes delivered in the current window, which ends at `qa_end` (0: none yet).
    acked: f64,
    qa_end: Time,
    trigger_qa: bool,
    bytes_to_ignore: f64,
    bytes_ignored: f64,
    /// FastIncrease: uncongested bytes in a row, and whether it is on.
    fi_count: f64,
    increasing: bool,
    // htsim batching (SMaRTT §III-G's accumulate variant).
    inc_bytes: f64,
    received: f64,
    last_adjust: Time,
    last_decision_delay: Time,
    md_count: u64,
    qa_count: u64,
    fast_increase_acks: u64,
    ignored_acks: u64,
    nacks: u64,
    timeouts: u64,
    /// `Adjustment::Accumulate`: increases not yet applied, bytes acknowledged since the
    /// last application and when that was. `Sample`: ACKs and bytes since the last sample.
    pending_increase: f64,
    pending_bytes: f64,
    pending_since: Time,
    pending_acks: u32,
}

impl Nscc {
    /// `median`: MNSCC.
    pub fn new(p: &NsccParams, median: bool, info: &FlowInfo) -> Nscc {
        let mtu = info.mtu as f64;
        let rate = info.bottleneck.bps() as f64 / 8.0;
        let (net_rtt, net_bdp) = if info.network_rtt > Time::ZERO {
            (info.network_rtt, info.network_bdp as f64)
        } else {
            (info.base_rtt, rate * info.base_rtt.as_secs_f64())
        };
        let network_wide = p.scope == Scope::Network;
        let network_rtt = p.network_rtt.or(if network_wide { net_rtt } else { info.base_rtt });
        let bdp_ref = match (p.bdp_ref, p.mode) {
            (AutoBytes::Fixed(b), _) => b as f64,
            (AutoBytes::Auto, NsccMode::SmarttPaper) => net_bdp,
            (AutoBytes::Auto, NsccMode::NsccHtsim) => HTSIM_REFERENCE_BDP,
        };
        let auto_q = if info.trimming { network_rtt.mul_f64(0.75) } else { network_rtt };
        let target_q = p.target_qdelay.or(auto_q);
        let mss = (info.mtu - info.header.min(info.mtu - 1)) as f64;
        let sa = rate * network_rtt.as_secs_f64() / bdp_ref;
        let sb = target_q.as_secs_f64() / REFERENCE_RTT.as_secs_f64();
        let drain = Time::from_secs_f64(info.switch_buffer as f64 / rate);
        let window = median.then(|| {
            PercentileWindow::new(match p.history {
                History::Auto => 4,
                History::Fixed(n) => n as usize,
            })
        });
        let mut n = Nscc {
            p: p.clone(),
            window,
            mtu,
            rate,
            trimming: info.trimming,
            brtt: info.base_rtt,
            net_rtt,
            net_bdp,
            bdp_ref,
            decrease_bdp: 0.0,
            ecn_share: 0.0,
            ecn_share_at: Time::ZERO,
            fair_decreases: 0,
            trtt: Time::ZERO,
            maxwnd: 0.0,
            scale: 0.0,
            pi: 0.0,
            network_rtt,
            target_q,
            h_alpha: 4.0 * mss * sa * sb / target_q.as_secs_f64(),
            h_fi: 5.0 * mss * sa,
            h_eta: 0.15 * mss * sa,
            h_fi_scale: 0.25 * sa,
            min_cwnd: p.min_cwnd_pkts * mtu,
            cwnd: 0.0,
            in_flight_now: 0.0,
            rto: p.rto.or(Time::from_us(15) + drain.mul_f64(6.0)),
            avg: None,
            last_md: None,
            acked: 0.0,
            qa_end: Time::ZERO,
            trigger_qa: false,
            bytes_to_ignore: 0.0,
            bytes_ignored: 0.0,
            fi_count: 0.0,
            increasing: false,
            inc_bytes: 0.0,
            received: 0.0,
            last_adjust: Time::ZERO,
            last_decision_delay: Time::ZERO,
            md_count: 0,
            qa_count: 0,
            fast_increase_acks: 0,
            ignored_acks: 0,
            pending_increase: 0.0,
            pending_bytes: 0.0,
            pending_since: Time::ZERO,
            pending_acks: 0,
            nacks: 0,
            timeouts: 0,
        };
        n.set_base_rtt(info.base_rtt);
        n.cwnd = match p.initial_cwnd {
            InitialCwnd::Maxwnd => n.maxwnd,
            InitialCwnd::Bdp => n.rate * n.brtt.as_secs_f64(),
            InitialCwnd::Transport => info.initial_window as f64,
        };
        n.clamp();
        n
    }

    /// Recomputes what depends on the base RTT: target, BDP-scaled constants, largest window.
    fn set_base_rtt(&mut self, brtt: Time) {
        self.brtt = brtt;
        let bdp = self.rate * brtt.as_secs_f64();
        let network_wide = self.p.scope == Scope::Network;
        let queue_rtt = self.p.target_queue_rtt.or(if network_wide { self.net_rtt } else { brtt });
        self.trtt = brtt + queue_rtt.mul_f64(self.p.target_ratio - 1.0);
        self.maxwnd = (self.p.max_cwnd_bdp * bdp).max(self.min_cwnd);
        let scaled = if network_wide { self.net_bdp } else { bdp };
        self.decrease_bdp = scaled;
        self.scale = if self.p.bdp_scaling { scaled / self.bdp_ref } else { 1.0 };
        let headroom = (self.trtt - brtt).as_secs_f64();
        self.pi = self.p.pi.unwrap_or(if headroom > 0.0 { brtt.as_secs_f64() / headroom } else { 0.0 });
    }

    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd
    }

    pub fn max_cwnd(&self) -> f64 {
        self.maxwnd
    }

    pub fn target_rtt(&self) -> Time {
        self.trtt
    }

    fn clamp(&mut self) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.maxwnd);
    }

    fn ignoring(&self) -> bool {
        self.bytes_ignored < self.bytes_to_ignore
    }

    /// The RTT the decisions use: the sample itself, or (MNSCC) a percentile of the last H
    /// samples, H = max(min(⌊W/2⌋, 4), 1) with W the window in packets
    /// (MSwift paper Eq. 9).
    fn decision_rtt(&mut self, sample: Time) -> Time {
        let h = self.history_len();
        let Some(w) = self.window.as_mut() else { return sample };
        w.push(sample);
        w.percentile(h, self.p.percentile).unwrap_or(sample)
    }

    /// MNSCC's H: NSCC adds about one packet per 8 packets or per RTT, whichever is first,
    /// so K = min(W, 8) and H = max(⌊K/2⌋, 1) (MSwift paper Eq. 7–9).
    fn history_len(&self) -> usize {
        match self.p.history {
            History::Auto => nyquist_history((self.cwnd / self.mtu).min(8.0)),
            History::Fixed(n) => n as usize,
        }
    }

    fn ewma(&mut self, x: f64) {
        let g = self.p.ewma_gain;
        self.avg = Some(match self.avg {
            None => x,
            Some(a) => g * x + (1.0 - g) * a,
        });
    }

    /// Eq. 1, at most once per base RTT; a no-op while the average is at or below target.
    fn multiplicative_decrease(&mut self, now: Time, target: f64) {
        if self.last_md.is_some_and(|t| now - t < self.brtt) {
            return;
        }
        let Some(avg) = self.avg.filter(|&a| a > target) else { return };
        self.cwnd *= (1.0 - self.p.beta * (avg - target) / avg).max(1.0 - self.p.max_mdf);
        self.last_md = Some(now);
        self.md_count += 1;
    }

    // ---- smartt_paper ------------------------------------------------------------------

    /// Algorithm 2. `delay_trigger`: without trimming, the high-delay condition of §III-E-a.
    fn quick_adapt(&mut self, now: Time, delay_trigger: bool) -> bool {
        if !self.p.quick_adapt || now < self.qa_end {
            return false;
        }
        let mut adapted = false;
        if self.qa_end != Time::ZERO && (self.trigger_qa || delay_trigger) {
            self.trigger_qa = false;
            adapted = true;
            self.cwnd = (self.acked * self.p.qa_scaling).max(self.mtu);
            if self.p.qa_ignore {
                self.bytes_to_ignore = self.in_flight_now;
            }
            self.bytes_ignored = 0.0;
            self.qa_count += 1;
        }
        self.qa_end = now + self.trtt;
        self.acked = 0.0;
        adapted
    }

    /// Algorithm 3.
    fn fast_increase(&mut self, rtt: Time, ece: bool, newly: f64) -> bool {
        if !self.p.fast_increase {
            return false;
        }
        if rtt.saturating_sub(self.brtt) < self.p.fast_increase_delay.0 && !ece {
            self.fi_count += newly;
            if self.fi_count > self.cwnd || self.increasing {
                self.cwnd += self.p.fast_increase_k * self.mtu;
                self.increasing = true;
                self.fast_increase_acks += 1;
                return true;
            }
        } else {
            self.fi_count = 0.0;
            self.increasing = false;
        }
        false
    }

    /// Algorithm 1 / Eqs. 1–3, or one signal alone (`signals`, Fig. 5).
    fn core_cases(&mut self, now: Time, rtt: Time, ece: bool, newly: f64) {
        let trtt = self.trtt.as_secs_f64();
        if ece && self.p.decrease == Decrease::Fair && self.p.signals != Signals::DelayOnly {
            self.fair_decrease(newly);
            return;
        }
        match self.p.signals {
            Signals::Both => match (ece, rtt >= self.trtt) {
                (true, true) => self.multiplicative_decrease(now, trtt),
                // Case 2: the window stays; REPS does not recycle a marked entropy.
                (true, false) => {
                    if self.p.case2 == Case2::Decrease {
                        self.cwnd -= newly / 2.0;
                    }
                }
                (false, true) => self.increase(self.fair_step(newly)),
                (false, false) => self.proportional_then_fair(rtt, newly),
            },
            Signals::EcnOnly if ece => self.cwnd -= newly / 2.0,
            Signals::EcnOnly => self.proportional_then_fair(self.brtt, newly),
            Signals::DelayOnly if rtt >= self.trtt => self.multiplicative_decrease(now, trtt),
            Signals::DelayOnly => self.proportional_then_fair(rtt, newly),
        }
    }

    /// Eq. 2: about `fi` × scale MTU per window of acknowledged bytes.
    fn fair_step(&self, newly: f64) -> f64 {
        newly / self.cwnd * self.mtu * self.p.fi * self.scale
    }

    /// Case 4: Eq. 3 (at most one MTU per RTT before scaling), then (`fi_after_pi`) Eq. 2.
    fn proportional_then_fair(&mut self, rtt: Time, newly: f64) {
        let trtt = self.trtt.as_secs_f64();
        let r = rtt.as_secs_f64().max(1e-12);
        let proportional = (trtt - r) / r * (newly / self.cwnd) * self.mtu * self.pi * self.scale;
        // Both terms are computed on the window before either is added.
        let fair = self.fair_step(newly);
        self.increase(proportional.min(newly));
        if self.p.fi_after_pi {
            self.increase(fair);
        }
    }

    /// Fair Decrease (`decrease = "fair"`): W −= fd · W · acked / BDP, once the marked
    /// share has passed the wait-to-decrease threshold. The BDP is a constant of the
    /// network in the MSwift paper's model of it (its appendix), so the scope's: the
    /// network's, or with `scope = "path"` the path's, as the increase constants are.
    fn fair_decrease(&mut self, newly: f64) {
        if self.ecn_share <= self.p.wait_to_decrease {
            return;
        }
        self.cwnd -= self.p.fair_decrease_gain * self.cwnd * newly / self.decrease_bdp.max(self.mtu);
        self.fair_decreases += 1;
    }

    /// Wait-to-decrease's moving average of the marked share, over time: each ACK moves it
    /// towards 1 (marked) or 0 by the time since the previous ACK over the network RTT,
    /// so every flow averages over the same span whatever its own RTT or window (an
    /// average over a flow's own window would let a short-RTT flow cross the threshold
    /// more often than a long one on the same queue).
    fn track_ecn_share(&mut self, now: Time, ece: bool) {
        let span = self.net_rtt.as_secs_f64().max(1e-12);
        let gain = (now.saturating_sub(self.ecn_share_at).as_secs_f64() / span).min(1.0);
        self.ecn_share_at = now;
        let marked = if ece { 1.0 } else { 0.0 };
        self.ecn_share += gain * (marked - self.ecn_share);
    }

    fn on_ack_paper(&mut self, a: &AckSample, rtt: Time, raw: Time) {
        let newly = a.newly_acked as f64;
        let feed = if self.p.median_feeds_ewma { rtt } else { raw };
        self.ewma(feed.as_secs_f64());
        if self.p.decrease == Decrease::Fair {
            self.track_ecn_share(a.now, a.ece);
        }
        self.acked += newly;
        self.bytes_ignored += newly;
        if self.ignoring() {
            self.ignored_acks += 1;
            // dcnsim's reading of Algorithm 4 (`docs/models/nscc.md`, `qa_literal`): the
            // measurement window keeps rolling so QuickAdapt never measures
            // over more than one target RTT; it just cannot fire.
            if !self.p.qa_literal && a.now >= self.qa_end && self.qa_end != Time::ZERO {
                self.qa_end = a.now + self.trtt;
                self.acked = 0.0;
            }
            return;
        }
        let delay_trigger = !self.trimming && self.delay_is_extreme(rtt) && self.acked_is_low();
        let adapted = self.quick_adapt(a.now, delay_trigger);
        let fast = self.fast_increase(rtt, a.ece, newly);
        if !(adapted || fast) {
            if let Some(bytes) = self.sampled(newly) {
                self.core_cases(a.now, rtt, a.ece, bytes);
            }
        }
        self.apply_accumulated(a.now, newly);
        self.clamp();
    }

    /// An increase of the window, now or (`Accumulate`) at the next application.
    fn increase(&mut self, bytes: f64) {
        match self.p.adjustment {
            Adjustment::Accumulate => self.pending_increase += bytes,
            _ => self.cwnd += bytes,
        }
    }

    /// `Sample`: whether this ACK is the n-th, and the bytes acknowledged since the last
    /// one; otherwise every ACK counts with its own bytes.
    fn sampled(&mut self, newly: f64) -> Option<f64> {
        if self.p.adjustment != Adjustment::Sample {
            return Some(newly);
        }
        self.pending_acks += 1;
        self.pending_bytes += newly;
        if self.pending_acks < self.p.adjustment_packets {
            return None;
        }
        let bytes = self.pending_bytes;
        self.pending_acks = 0;
        self.pending_bytes = 0.0;
        Some(bytes)
    }

    /// `Accumulate`: applies the pending increases once `adjustment_packets` MTUs have been
    /// acknowledged or a base RTT has passed since the last application.
    fn apply_accumulated(&mut self, now: Time, newly: f64) {
        if self.p.adjustment != Adjustment::Accumulate {
            return;
        }
        self.pending_bytes += newly;
        if self.pending_bytes >= self.p.adjustment_packets as f64 * self.mtu || now - self.pending_since >= self.brtt {
            self.cwnd += self.pending_increase;
            self.pending_increase = 0.0;
            self.pending_bytes = 0.0;
            self.pending_since = now;
        }
    }

    /// Without trimming (§III-E-a, thresholds from uet-htsim; `docs/models/nscc.md`): the
    /// queueing delay exceeds `qa_delay_factor` target queueing delays.
    fn delay_is_extreme(&self, rtt: Time) -> bool {
        let allowed = (self.trtt - self.brtt).mul_f64(self.p.qa_delay_factor);
        rtt.saturating_sub(self.brtt) > allowed
    }

    fn acked_is_low(&self) -> bool {
        self.acked < self.maxwnd / (1u64 << self.p.qa_gate) as f64
    }

    fn on_nack_paper(&mut self, now: Time, bytes: f64) {
        // §III-E: the feedback of the bytes in flight at a QuickAdapt cut is ignored, a
        // NACK's included (uet-htsim skips the decrease too); Algorithm 4's line 16
        // subtracts it anyway (`qa_literal`).
        let pre_cut = self.ignoring();
        self.bytes_ignored += bytes;
        if !pre_cut || self.p.qa_literal {
            self.cwnd -= bytes;
        }
        if !self.ignoring() {
            self.trigger_qa = true;
            self.quick_adapt(now, false);
        } else if self.p.qa_literal {
            self.trigger_qa = true;
        }
        self.clamp();
    }

    // ---- nscc_htsim --------------------------------------------------------------------

    /// The averaged queueing delay; stale high delay without ECN pulls it towards brtt/4
    /// (uet-htsim's NSCC; `docs/models/nscc.md`, `nscc_htsim` mode).
    fn htsim_avg_delay(&mut self, delay: Time, ecn: bool) {
        let x = if !ecn && delay > self.target_q { self.brtt.mul_f64(0.25) } else { delay };
        self.ewma(x.as_secs_f64());
    }

    /// htsim's QuickAdapt. Returns true when the rest of the ACK must be skipped (it fired,
    /// or this is marked feedback of the ignored bytes).
    fn htsim_quick_adapt(&mut self, now: Time, is_loss: bool, ecn: bool, delay: Time) -> bool {
        if !self.p.quick_adapt {
            return false;
        }
        let mut done = false;
        if self.ignoring() && ecn {
            self.ignored_acks += 1;
            done = true;
        } else if now > self.qa_end {
            let threshold = self.target_q.mul_f64(self.p.qa_delay_factor);
            let triggered = self.trigger_qa || is_loss || delay > threshold;
            if self.qa_end != Time::ZERO && triggered && self.acked_is_low() {
                self.cwnd = (self.acked * self.p.qa_scaling).max(self.min_cwnd);
                if self.p.qa_ignore {
                    self.bytes_to_ignore = self.in_flight_now;
                }
                self.bytes_ignored = 0.0;
                self.trigger_qa = false;
                self.qa_count += 1;
                done = true;
            }
            self.acked = 0.0;
            self.qa_end = now + self.brtt + self.target_q;
        }
        if done {
            self.inc_bytes = 0.0;
            self.received = 0.0;
        }
        done
    }

    fn on_ack_htsim(&mut self, a: &AckSample, rtt: Time, raw: Time) {
        let now = a.now;
        let newly = a.newly_acked as f64;
        self.acked += newly;
        self.received += newly;
        self.bytes_ignored += newly;
        let delay = rtt.saturating_sub(self.brtt);
        let feed = if self.p.median_feeds_ewma { delay } else { raw.saturating_sub(self.brtt) };
        self.htsim_avg_delay(feed, a.ece);
        if self.htsim_quick_adapt(now, false, a.ece, delay) {
            self.clamp();
            return;
        }
        let target = self.target_q;
        match (a.ece, delay >= target) {
            (false, true) => self.inc_bytes += self.h_fi * newly,
            (false, false) => {
                let mut fast = false;
                if self.p.fast_increase && delay < self.p.fast_increase_delay.0 {
                    self.fi_count += newly;
                    if self.fi_count > self.cwnd || self.increasing {
                        self.cwnd += newly * self.h_fi_scale;
                        self.increasing = true;
                        self.fast_increase_acks += 1;
                        fast = true;
                    }
                } else {
                    self.fi_count = 0.0;
                    self.increasing = false;
                }
                if !fast {
                    self.inc_bytes += self.h_alpha * newly * (target - delay).as_secs_f64();
                }
            }
            (true, true) => {
                self.fi_count = 0.0;
                self.increasing = false;
                self.multiplicative_decrease(now, target.as_secs_f64());
            }
            (true, false) => {}
        }
        self.clamp();
        if self.received > 8.0 * self.mtu || now - self.last_adjust > self.network_rtt {
            self.cwnd += self.inc_bytes / self.cwnd;
            if now - self.last_adjust >= self.network_rtt {
                self.cwnd += self.h_eta;
                self.last_adjust = now;
            }
            self.inc_bytes = 0.0;
            self.received = 0.0;
        }
        self.clamp();
    }

    fn on_nack_htsim(&mut self, now: Time, bytes: f64) {
        self.bytes_ignored += bytes;
        // A trim stands for a full queue: feed the average a marked sample of one network RTT.
        self.htsim_avg_delay(self.network_rtt, true);
        self.trigger_qa = true;
        let skipped = self.htsim_quick_adapt(now, true, true, self.network_rtt);
        if !skipped {
            self.cwnd -= bytes;
        }
        self.clamp();
    }
}

impl CongestionControl for Nscc {
    fn name(&self) -> &'static str {
        if self.window.is_some() {
            "mnscc"
        } else {
            "nscc"
        }
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile {
            ecn_capable: true,
            sack_loss_detection: false,
            fixed_rto: Some(self.rto),
            timeout_policy: TimeoutPolicy::Expired,
            ..TransportProfile::default()
        }
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.in_flight_now = a.in_flight as f64;
        let raw = a.rtt;
        if raw > Time::ZERO && raw < self.brtt {
            self.set_base_rtt(raw);
        }
        let rtt = self.decision_rtt(raw);
        self.last_decision_delay = rtt;
        match self.p.mode {
            NsccMode::SmarttPaper => self.on_ack_paper(a, rtt, raw),
            NsccMode::NsccHtsim => self.on_ack_htsim(a, rtt, raw),
        }
    }

    /// Never called: NSCC turns SACK-hole loss detection off.
    fn on_loss(&mut self, _ev: &LossEvent) {}

    fn on_nack(&mut self, n: &NackSample) {
        self.nacks += 1;
        self.in_flight_now = n.in_flight as f64;
        match self.p.mode {
            NsccMode::SmarttPaper => self.on_nack_paper(n.now, n.bytes as f64),
            NsccMode::NsccHtsim => self.on_nack_htsim(n.now, n.bytes as f64),
        }
    }

    /// The reaction is per expired packet (`on_packet_expired`).
    fn on_timeout(&mut self, _now: Time, _snd_nxt: u32) {}

    /// `docs/models/nscc.md`, "Timeout": each expired packet is a timeout of its own,
    /// `cwnd = max(cwnd − size, MTU)`. Paper mode: a packet sent before a QuickAdapt cut
    /// takes nothing more off the window (§III-E-a), and, like a NACK, its bytes count as
    /// feedback of the ignore phase (Alg. 4 counts every feedback packet's bytes;
    /// `bytes_to_ignore` is the `unacked` of the cut, which timed-out packets leave), or a
    /// flow whose in-flight bytes at the cut were mostly lost would ignore its ACKs until
    /// it ends.
    fn on_packet_expired(&mut self, _now: Time, bytes: u64) {
        self.timeouts += 1;
        let bytes = bytes as f64;
        if self.p.mode == NsccMode::SmarttPaper {
            let pre_cut = self.ignoring();
            self.bytes_ignored += bytes;
            if pre_cut {
                return;
            }
        }
        self.cwnd = (self.cwnd - bytes).max(self.mtu);
        self.clamp();
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd as u64).max(1)
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", self.cwnd / self.mtu);
        out("maxwnd_pkts", self.maxwnd / self.mtu);
        out("base_rtt_us", self.brtt.as_us_f64());
        out(
            "target_us",
            match self.p.mode {
                NsccMode::SmarttPaper => self.trtt.as_us_f64(),
                NsccMode::NsccHtsim => self.target_q.as_us_f64(),
            },
        );
        out("avg_us", self.avg.unwrap_or(0.0) * 1e6);
        out("decision_delay_us", self.last_decision_delay.as_us_f64());
        out("md", self.md_count as f64);
        out("fair_decreases", self.fair_decreases as f64);
        out("quick_adapt", self.qa_count as f64);
        out("fast_increase_acks", self.fast_increase_acks as f64);
        out("ignored_acks", self.ignored_acks as f64);
        out("nacks", self.nacks as f64);
        out("timeouts", self.timeouts as f64);
        out("rto_us", self.rto.as_us_f64());
    }
}

#[cfg(test)]
mod tests;
