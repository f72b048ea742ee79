//! NSCC's and MNSCC's parameters (`[transport.nscc]`): the modes, the variants and their
//! defaults with sources (`docs/models/nscc.md`, "Parameters").

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::cc::swift::History;
use crate::units::values::{scalar, NumberOrWord, Scalar, TimeVal};
use crate::units::{parse_bytes, parse_time, Time};

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
    pub(super) fn or(self, auto: Time) -> Time {
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
    /// Largest window, in BDPs of the flow's path (1.5, §III-J; Alg. 4 says 1); in
    /// `nscc_htsim` mode with `scope = "network"`, of the network BDP, as uet-htsim caps
    /// every flow alike.
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
