//! Swift (Kumar et al., SIGCOMM 2020, Algorithm 1; docs/models/swift.md, and the
//! DCTCP-vs-Swift study's and MSwift paper's readings of it) and the two variants of "Congestion Control for Spraying with
//! Congested Paths" (Gerstein, Silberstein, Keslassy; arXiv 2509.07907 v2, §III):
//!
//! - **Swift**: additive increase of `ai` packets per RTT while the delay is below the
//!   target; otherwise a multiplicative decrease 1 − β·(delay − target)/delay, at most
//!   `max_mdf`, at most once per RTT. Every SACK-detected loss also cuts by `max_mdf`
//!   (once per RTT), so reordering from spraying costs it throughput (the paper's Thm 3).
//! - **LSwift** (MSwift paper §III-B): a loss cuts only when it belongs to a run of at least `loss_run`
//!   consecutive lost packets (LTCP-U style), so isolated reordering is forgiven.
//! - **MSwift** (MSwift paper §III-A–C): LSwift deciding on a percentile (the median by default) of the
//!   last H delays, H = max(⌊cwnd/2⌋, 1) (the paper's Nyquist rule), so a minority of
//!   packets on a congested path does not trigger decreases (Thm 6).
//!
//! The window is kept in packets (f64) and reported in wire bytes. The target is
//! base_target + topology term + flow scaling fs(cwnd) = clamp(α/√cwnd + β', 0, fs_range),
//! with α, β' chosen so that fs(fs_min_cwnd) = fs_range and fs(fs_max_cwnd) = 0. Below one
//! packet of window the sender paces at one packet per srtt/cwnd. The fabric delay is the
//! whole RTT sample: dcnsim hosts add no endpoint delay, so Swift's endpoint window never
//! binds (docs/models/swift.md) and is not modelled.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use super::median::{nyquist_history, PercentileWindow};
use super::{AckSample, CongestionControl, FlowInfo, LossEvent, ReorderWindow};
use crate::cc::TransportProfile;
use crate::units::values::{NumberOrWord, TimeVal};
use crate::units::{parse_time, Rate, Time};

/// Which member of the family a flow runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Swift,
    LSwift,
    MSwift,
}

/// MSwift's history size: the paper's rule, or a fixed number of ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum History {
    Auto,
    Fixed(u32),
}

impl Serialize for History {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            History::Auto => s.serialize_str("auto"),
            History::Fixed(n) => s.serialize_u32(*n),
        }
    }
}

impl<'de> Deserialize<'de> for History {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumberOrWord::read(d, "allowed: \"auto\" or a number of ACKs >= 1")? {
            NumberOrWord::Word(s) if s == "auto" => Ok(History::Auto),
            NumberOrWord::Number(n) if (1..=100_000).contains(&n) => Ok(History::Fixed(n as u32)),
            _ => Err(de::Error::custom("allowed: \"auto\" or a number of ACKs from 1 to 100000")),
        }
    }
}

/// `SwiftParams::reorder_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReorderWait {
    Auto,
    Rack,
    Fixed(Time),
}

impl Serialize for ReorderWait {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ReorderWait::Auto => s.serialize_str("auto"),
            ReorderWait::Rack => s.serialize_str("rack"),
            ReorderWait::Fixed(t) => TimeVal(*t).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ReorderWait {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "allowed: \"auto\", \"rack\" or a time such as \"3us\"";
        match NumberOrWord::read(d, ALLOWED)? {
            NumberOrWord::Word(s) if s == "auto" => Ok(ReorderWait::Auto),
            NumberOrWord::Word(s) if s == "rack" => Ok(ReorderWait::Rack),
            NumberOrWord::Word(s) => {
                parse_time(&s).map(ReorderWait::Fixed).map_err(|e| de::Error::custom(format!("{e}; {ALLOWED}")))
            }
            NumberOrWord::Number(0) => Ok(ReorderWait::Fixed(Time::ZERO)),
            NumberOrWord::Number(_) => Err(de::Error::custom(ALLOWED)),
        }
    }
}

/// What makes a packet "late" for LSwift's run rule. The paper adopts LTCP-U, which "waits
/// for reordered packets and decreases the window only upon consecutive packet reordering"
/// (MSwift paper §VI; Zhang et al. 2015), without the mechanics; these are the two readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossEvidence {
    /// Declared lost by the SACK rule (after `reorder_wait`): the MSwift paper's LSwift
    /// as docs/reproductions/mswift-paper.md reads it. Under spraying, reordering alone
    /// produces such runs.
    Declared,
    /// Its retransmission arrived before the original: the sender waited a retransmission
    /// round trip and the packet had still not come, so reordering is ruled out.
    Confirmed,
}

/// Where Swift's delay target comes from (docs/models/swift.md; the DCTCP-vs-Swift study's
/// target modes, docs/reproductions/dctcp-vs-swift-paper.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetMode {
    /// The Swift paper's: base_target + topology term (or `fixed_target`).
    #[default]
    Formula,
    /// The smallest RTT this flow has measured, plus `min_rtt_offset`: the study's
    /// Swift(baseRTT) (offset 0) and Swift(baseRTT + ε) (offset 1 ms). With exact RTTs and
    /// offset 0 the delay is never below the target, so the window can only shrink
    /// (docs/reproductions/dctcp-vs-swift-paper.md, "Decisions and errata").
    MinRtt,
}

/// When the decrease clock (`t_last_decrease`) restarts, and what "once per RTT" measures
/// (`SwiftParams::last_decrease_update`; docs/models/swift.md, "Once per RTT").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastDecreaseUpdate {
    /// Only when an update left the window strictly smaller; a decrease waits one smoothed
    /// RTT after the last one (an erratum to Algorithm 1's `<=`, see `Swift::finish`).
    #[default]
    Lt,
    /// Algorithm 1 as written, as the DCTCP-vs-Swift study's ns-3 Swift runs it: the clock
    /// restarts whenever an update leaves the window at most its old value (a decrease, a
    /// decrease the clock blocked, an increase clamped at `max_cwnd_pkts`), and a decrease
    /// waits one RTT sample (the latest; on an ACK, that ACK's) after it. A flow whose ACKs
    /// arrive less than an RTT apart after a blocked decrease, or at `max_cwnd_pkts`, never
    /// decreases.
    Le,
    /// As `Lt`, the clock restarts only when the window fell, but the next decrease waits the
    /// RTT sample of the update that made the last one (the latest sample, at a loss or a
    /// timeout) rather than the smoothed RTT: the PrioPlus paper's artefact, whose Swift arms
    /// a timer for the decreasing ACK's delay (docs/reproductions/prioplus-paper.md). A
    /// decrease made before any sample waits the unloaded RTT until a sample arrives, then
    /// the latest sample.
    LtSample,
}

/// What a loss detected from selective ACKs starts (`SwiftParams::recovery`;
/// docs/models/swift.md, "Loss").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// Swift's: every loss cuts by `max_mdf` (at most once per RTT); the next ACKs act as usual.
    #[default]
    Swift,
    /// ns-3's classic recovery around Swift's cut (the DCTCP-vs-Swift study's build): the
    /// first loss of an episode remembers ssthresh = max(2, packets in flight / 2), cuts by
    /// `max_mdf` if the decrease clock allows, and sets the recovery point (the next new PSN);
    /// until the cumulative ACK reaches it no ACK increases the window (delay-driven decreases
    /// still apply) and further losses do nothing; the ACK that reaches it sets the window to
    /// ssthresh, then runs Swift's update. A timeout ends the episode without that exit and
    /// keeps Swift's timeout cut; until everything outstanding at the timeout is acknowledged
    /// (ns-3's Loss state) a loss starts no episode and does not cut.
    Ns3Classic,
}

/// Which RTT sets a sub-packet window's pacing gap (`SwiftParams::pacing_rtt`;
/// docs/models/swift.md). Below one packet of window the sender sends one packet per RTT / W.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PacingRtt {
    /// The smoothed RTT (Algorithm 1's pacing delay with the sender's RTT estimate). A flow
    /// whose smoothed RTT grew while strict priority starved it keeps a gap of milliseconds
    /// until new samples bring the average down.
    #[default]
    Smoothed,
    /// The path's unloaded RTT: the PrioPlus paper's artefact, whose Swift sets a sub-packet
    /// window's rate to W / BaseBdp of the line rate (docs/reproductions/prioplus-paper.md).
    Base,
}

/// Parameters of the Swift family. Defaults: the Swift paper and the htsim Swift the MSwift
/// paper builds on (docs/models/swift.md).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwiftParams {
    /// Additive increase, packets per RTT.
    pub ai: f64,
    /// Gain of the delay-based multiplicative decrease.
    pub beta: f64,
    /// Largest multiplicative decrease of one event (0.5 = halve; 1 lets one decrease take
    /// the window to `min_cwnd_pkts`, as the DCTCP-vs-Swift study's integer max_mdf does).
    pub max_mdf: f64,
    /// Consecutive timeouts (no ACK between) after which the window drops to `min_cwnd_pkts`.
    pub retx_reset_threshold: u32,
    /// Window bounds, in packets (fractions allowed: below 1 the sender paces).
    pub min_cwnd_pkts: f64,
    pub max_cwnd_pkts: f64,
    /// Queueing the target allows on top of the path's unloaded RTT.
    pub base_target: TimeVal,
    /// Topology term per link of the path; absent: the flow's own unloaded RTT (equal to
    /// hops × per-link RTT on uniform fabrics, and exact on any other).
    pub per_hop: Option<TimeVal>,
    /// A fixed target replacing base_target + topology term (flow scaling still adds).
    pub fixed_target: Option<TimeVal>,
    /// `base_target` per priority level, level 1 first (levels past the end take the last
    /// entry; flows without a level keep `base_target`): per-priority targets in one queue,
    /// the PrioPlus paper's "Swift" baseline and its motivation examples (§3;
    /// docs/models/swift.md). `fixed_target` wins over it.
    pub level_targets: Option<Vec<TimeVal>>,
    /// `formula` (default) or `min_rtt` (see `TargetMode`).
    pub target_mode: TargetMode,
    /// `min_rtt` mode: added to the smallest measured RTT.
    pub min_rtt_offset: TimeVal,
    /// Flow scaling: the target grows by up to `fs_range` as the window shrinks from
    /// `fs_max_cwnd` to `fs_min_cwnd` packets (0 turns it off).
    pub fs_range: TimeVal,
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Data packets carry ECT (marks are ignored; REPS and RED queues need it).
    pub ecn_capable: bool,
    /// LSwift/MSwift: consecutive lost packets that make a loss a congestion signal.
    pub loss_run: u32,
    /// How long a hole must stay unfilled before it counts as lost: a time, `"rack"` (RFC
    /// 8985's adaptive reorder window), or `"auto"`: 0 for Swift, whose paper form reacts
    /// to every SACK hole, and `"rack"` for LSwift/MSwift, because LTCP "waits more time for
    /// the disordered packet" (Zhang et al. 2015, the design LSwift adopts).
    pub reorder_wait: ReorderWait,
    /// LSwift/MSwift: which packets count towards a run of `loss_run` (see `LossEvidence`).
    pub loss_evidence: LossEvidence,
    /// MSwift: delays the decision looks at.
    pub history: History,
    /// MSwift: which percentile of them (50 = median; the paper also tries 10 and 90).
    pub percentile: u32,
    /// RTT samples are rounded down to a multiple of this, and one below it reads as 1 µs:
    /// the DCTCP-vs-Swift study's ns-3 build, whose timestamps are whole milliseconds
    /// (docs/reproductions/dctcp-vs-swift-paper.md, `ns3_study` profile). Absent: exact.
    pub rtt_resolution: Option<TimeVal>,
    /// `"lt"` (default): the decrease clock restarts on a real decrease and a decrease waits
    /// one smoothed RTT; `"le"`: Algorithm 1's literal clock, as the DCTCP-vs-Swift study's
    /// ns-3 Swift; `"lt_sample"`: as `"lt"`, waiting the last decrease's RTT sample, as the
    /// PrioPlus artefact's Swift (see `LastDecreaseUpdate`).
    pub last_decrease_update: LastDecreaseUpdate,
    /// `"swift"` (default): every loss cuts, once per RTT; `"ns3_classic"`: ns-3's classic
    /// recovery around the cut, as the DCTCP-vs-Swift study's build (see `Recovery`).
    pub recovery: Recovery,
    /// Below one packet of window the sender paces one packet per RTT / W: `"smoothed"`
    /// (default) divides the smoothed RTT, `"base"` the path's unloaded RTT, as the PrioPlus
    /// artefact's Swift (see `PacingRtt`).
    pub pacing_rtt: PacingRtt,
}

impl Default for SwiftParams {
    fn default() -> Self {
        SwiftParams {
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            retx_reset_threshold: 5,
            min_cwnd_pkts: 0.001,
            max_cwnd_pkts: 1000.0,
            base_target: TimeVal(Time::from_us(1)),
            per_hop: None,
            fixed_target: None,
            level_targets: None,
            target_mode: TargetMode::Formula,
            min_rtt_offset: TimeVal(Time::ZERO),
            fs_range: TimeVal(Time::from_us(5)),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ecn_capable: true,
            loss_run: 5,
            reorder_wait: ReorderWait::Auto,
            loss_evidence: LossEvidence::Confirmed,
            history: History::Auto,
            percentile: 50,
            rtt_resolution: None,
            last_decrease_update: LastDecreaseUpdate::Lt,
            recovery: Recovery::Swift,
            pacing_rtt: PacingRtt::Smoothed,
        }
    }
}

impl SwiftParams {
    /// Checks ranges; `Err` names the field and what is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let positive = [("ai", self.ai), ("beta", self.beta), ("min_cwnd_pkts", self.min_cwnd_pkts)];
        for (name, v) in positive {
            if !(v > 0.0 && v.is_finite()) {
                return Err((name, format!("{v}: must be positive")));
            }
        }
        if !(self.max_mdf > 0.0 && self.max_mdf <= 1.0) {
            return Err(("max_mdf", format!("{}: allowed 0 < max_mdf <= 1", self.max_mdf)));
        }
        if self.rtt_resolution.is_some_and(|r| r.0 == Time::ZERO) {
            return Err(("rtt_resolution", "must be positive (absent: exact RTTs)".into()));
        }
        if !(self.max_cwnd_pkts >= self.min_cwnd_pkts) {
            return Err(("max_cwnd_pkts", "must be at least min_cwnd_pkts".into()));
        }
        if !(self.fs_min_cwnd > 0.0 && self.fs_max_cwnd > self.fs_min_cwnd) {
            return Err(("fs_max_cwnd", "allowed 0 < fs_min_cwnd < fs_max_cwnd".into()));
        }
        if self.retx_reset_threshold == 0 || self.loss_run == 0 {
            return Err(("loss_run", "retx_reset_threshold and loss_run must be at least 1".into()));
        }
        if self.target_mode == TargetMode::MinRtt && (self.fixed_target.is_some() || self.per_hop.is_some()) {
            return Err(("target_mode", "\"min_rtt\" takes its target from measured RTTs; drop fixed_target and per_hop, or use target_mode = \"formula\"".into()));
        }
        if self.target_mode == TargetMode::Formula && self.min_rtt_offset.0 != Time::ZERO {
            return Err(("min_rtt_offset", "only used with target_mode = \"min_rtt\"".into()));
        }
        if self.level_targets.as_ref().is_some_and(|t| t.is_empty()) {
            return Err(("level_targets", "must list at least one target (level 1 first)".into()));
        }
        if !(1..=100).contains(&self.percentile) {
            return Err(("percentile", format!("{}: allowed 1 to 100", self.percentile)));
        }
        Ok(())
    }
}

pub struct Swift {
    p: SwiftParams,
    variant: Variant,
    mtu: u64,
    /// Target without flow scaling (`formula` mode).
    base: Time,
    /// Smallest RTT sample so far (`min_rtt` mode).
    min_rtt: Option<Time>,
    fs_alpha: f64,
    fs_beta: f64,
    cwnd: f64,
    srtt: Option<Time>,
    /// The latest RTT sample as measured (`LastDecreaseUpdate::Le`'s "once per RTT").
    last_rtt: Option<Time>,
    /// The path's unloaded RTT: the "once per RTT" of a decrease before any RTT sample.
    unloaded_rtt: Time,
    /// `LastDecreaseUpdate::LtSample`: the RTT sample at the last decrease.
    decrease_wait: Option<Time>,
    t_last_decrease: Time,
    retransmit_cnt: u32,
    /// `Recovery::Ns3Classic`: the recovery point (the next new PSN at the episode's first
    /// loss) while an episode lasts, and the window it ends at (packets).
    recover: Option<u32>,
    ssthresh: f64,
    /// `Recovery::Ns3Classic`: ns-3's Loss state after a timeout lasts until the cumulative
    /// ACK reaches this (the next new PSN at the timeout).
    loss_until: u32,
    /// LSwift/MSwift: the highest PSN of the last loss run already answered.
    handled_through: Option<u32>,
    window: Option<PercentileWindow>,
    last_decision_delay: Time,
    delay_md: u64,
    loss_md: u64,
    timeout_md: u64,
    loss_events: u64,
    /// LSwift/MSwift: runs of `loss_run` lost packets seen (each may cut, if allowed).
    long_runs: u64,
    /// Smallest gap between two decreases, in smoothed RTTs at the later one (docs/reproductions/dctcp-vs-swift-paper.md, B6).
    min_decrease_gap_rtts: f64,
}

impl Swift {
    pub fn new(p: &SwiftParams, variant: Variant, info: &FlowInfo) -> Swift {
        let topology = match p.per_hop {
            Some(h) => Time(h.0 .0 * info.hops as u64),
            None => info.base_rtt,
        };
        let base_target = match (&p.level_targets, info.priority) {
            (Some(t), level) if level >= 1 => t[(level as usize - 1).min(t.len() - 1)].0,
            _ => p.base_target.0,
        };
        let base = match p.target_mode {
            TargetMode::Formula => p.fixed_target.map(|t| t.0).unwrap_or(base_target + topology),
            // Stand-in until the first sample (see `target`).
            TargetMode::MinRtt => info.base_rtt,
        };
        let range = p.fs_range.0.as_secs_f64();
        let fs_alpha = range / (1.0 / p.fs_min_cwnd.sqrt() - 1.0 / p.fs_max_cwnd.sqrt());
        let window = (variant == Variant::MSwift).then(|| {
            PercentileWindow::new(match p.history {
                History::Auto => nyquist_history(p.max_cwnd_pkts),
                History::Fixed(n) => n as usize,
            })
        });
        Swift {
            p: p.clone(),
            variant,
            mtu: info.mtu,
            base,
            min_rtt: None,
            fs_alpha,
            fs_beta: -fs_alpha / p.fs_max_cwnd.sqrt(),
            cwnd: (info.initial_window as f64 / info.mtu as f64).clamp(p.min_cwnd_pkts, p.max_cwnd_pkts),
            srtt: None,
            last_rtt: None,
            unloaded_rtt: info.base_rtt,
            decrease_wait: None,
            t_last_decrease: Time::ZERO,
            retransmit_cnt: 0,
            recover: None,
            ssthresh: 0.0,
            loss_until: 0,
            handled_through: None,
            window,
            last_decision_delay: Time::ZERO,
            delay_md: 0,
            loss_md: 0,
            timeout_md: 0,
            loss_events: 0,
            long_runs: 0,
            min_decrease_gap_rtts: f64::INFINITY,
        }
    }

    /// Window in packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// Sets the window (packets, clamped to the bounds): for a wrapper that takes control
    /// of it, as PrioPlus does on stop, restart and linear start (`prioplus.rs`).
    pub fn set_cwnd_pkts(&mut self, w: f64) {
        self.cwnd = w.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
    }

    /// Sets the additive-increase step (packets per RTT): PrioPlus scales it by its flow
    /// count estimate and inflates it for adaptive increase.
    pub fn set_ai(&mut self, ai_pkts: f64) {
        self.p.ai = ai_pkts;
    }

    /// Flow-scaling term at window `w` packets.
    fn flow_scaling(&self, w: f64) -> Time {
        let range = self.p.fs_range.0;
        if range == Time::ZERO {
            return Time::ZERO;
        }
        if w <= 0.0 {
            return range;
        }
        let secs = (self.fs_alpha / w.sqrt() + self.fs_beta).clamp(0.0, range.as_secs_f64());
        Time::from_secs_f64(secs)
    }

    /// The delay target at window `w` packets. In `min_rtt` mode before any RTT sample,
    /// the path's unloaded RTT stands in for the minimum (only `observe` can ask then).
    pub fn target(&self, w: f64) -> Time {
        let base = match self.p.target_mode {
            TargetMode::Formula => self.base,
            TargetMode::MinRtt => self.min_rtt.unwrap_or(self.base) + self.p.min_rtt_offset.0,
        };
        base + self.flow_scaling(w)
    }

    fn track_min_rtt(&mut self, sample: Time) {
        if sample > Time::ZERO {
            self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
        }
    }

    /// At most one decrease per RTT (Swift's Algorithm 1). Before the first RTT sample the
    /// RTT is the path's unloaded one: a window's worth of NACKs or losses reported within
    /// the first round trip (a trimmed first burst) must cut once, not once per packet,
    /// which took a 276-packet window to the 0.001-packet floor in 4 µs (24 NACKs) and
    /// left the flow pacing one packet per 28 ms (SMaRTT E15, issue 4).
    /// (`t_last_decrease` zero: no decrease yet.) The RTT is the smoothed one, or under
    /// `LastDecreaseUpdate::Le` the latest sample (`sample`: the ACK's own, when there is one),
    /// under `LtSample` the sample at the last decrease.
    fn can_decrease(&self, now: Time, sample: Option<Time>) -> bool {
        let rtt = match self.p.last_decrease_update {
            LastDecreaseUpdate::Lt => self.srtt,
            LastDecreaseUpdate::Le => sample.or(self.last_rtt),
            LastDecreaseUpdate::LtSample => self.decrease_wait.or(self.last_rtt),
        };
        self.t_last_decrease == Time::ZERO || now >= self.t_last_decrease + rtt.unwrap_or(self.unloaded_rtt)
    }

    /// An RTT sample as the sender's clock reads it (`rtt_resolution`).
    fn measured(&self, rtt: Time) -> Time {
        match self.p.rtt_resolution {
            Some(r) if rtt > Time::ZERO => match rtt.0 / r.0 .0 {
                0 => Time::from_us(1),
                steps => Time(steps * r.0 .0),
            },
            _ => rtt,
        }
    }

    /// Clamps the window; records a decrease. `gate` is the RTT estimate the decision was
    /// gated on (the one known before this ACK's sample).
    fn finish(&mut self, before: f64, now: Time, gate: Option<Time>) {
        self.cwnd = self.cwnd.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
        // Strictly smaller: an ACK that could not decrease must not restart the clock
        // (an erratum to Algorithm 1's `<=`; docs/reproductions/dctcp-vs-swift-paper.md,
        // "Swift's decrease clock", and docs/reproductions/mswift-paper.md, "LSwift reading").
        // `LastDecreaseUpdate::Le` keeps Algorithm 1's `<=`.
        if self.cwnd < before {
            if let (Some(srtt), true) = (gate, self.t_last_decrease > Time::ZERO) {
                let gap = (now - self.t_last_decrease).as_secs_f64() / srtt.as_secs_f64();
                self.min_decrease_gap_rtts = self.min_decrease_gap_rtts.min(gap);
            }
            self.t_last_decrease = now;
            self.decrease_wait = self.last_rtt;
        } else if self.cwnd == before && self.p.last_decrease_update == LastDecreaseUpdate::Le {
            self.t_last_decrease = now;
        }
    }

    /// LSwift's trigger: some run reaches `loss_run` PSNs and is not one already answered
    /// (answered once, even when a recent decrease made it skip the cut).
    fn long_new_run(&mut self, runs: &[(u32, u32)]) -> bool {
        for &(lo, hi) in runs {
            let fresh = self.handled_through.is_none_or(|h| lo > h);
            if hi - lo + 1 >= self.p.loss_run && fresh {
                self.handled_through = Some(hi);
                self.long_runs += 1;
                return true;
            }
        }
        false
    }

    fn decision_delay(&mut self, sample: Time) -> Time {
        let Some(w) = self.window.as_mut() else { return sample };
        w.push(sample);
        let h = match self.p.history {
            History::Auto => nyquist_history(self.cwnd),
            History::Fixed(n) => n as usize,
        };
        w.percentile(h, self.p.percentile).unwrap_or(sample)
    }
}

impl CongestionControl for Swift {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Swift => "swift",
            Variant::LSwift => "lswift",
            Variant::MSwift => "mswift",
        }
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile {
            ecn_capable: self.p.ecn_capable,
            wants_confirmed_losses: self.variant != Variant::Swift && self.p.loss_evidence == LossEvidence::Confirmed,
            ..TransportProfile::default()
        }
    }

    fn reorder_window(&self) -> ReorderWindow {
        match (self.p.reorder_wait, self.variant) {
            (ReorderWait::Fixed(t), _) => ReorderWindow::Fixed(t),
            (ReorderWait::Rack, _) => ReorderWindow::Rack,
            (ReorderWait::Auto, Variant::Swift) => ReorderWindow::Fixed(Time::ZERO),
            (ReorderWait::Auto, _) => ReorderWindow::Rack,
        }
    }

    fn on_ack(&mut self, a: &AckSample) {
        // Gate on the RTT estimate from before this sample (as htsim's Swift does); under
        // `LastDecreaseUpdate::Le` on this ACK's sample (ns-3 takes it before the update).
        let gate = self.srtt;
        let rtt = self.measured(a.rtt);
        let can_decrease = self.can_decrease(a.now, (rtt > Time::ZERO).then_some(rtt));
        if rtt > Time::ZERO {
            self.srtt = Some(match self.srtt {
                None => rtt,
                Some(s) => Time((7 * s.0 + rtt.0) / 8),
            });
            self.last_rtt = Some(rtt);
        }
        self.retransmit_cnt = 0;
        // `Recovery::Ns3Classic`: the ACK that reaches the recovery point ends the episode at
        // ssthresh, then runs the update; before it, no increase.
        let mut in_recovery = false;
        if let Some(recover) = self.recover {
            if a.cum_ack >= recover {
                self.cwnd = self.ssthresh;
                self.recover = None;
            } else {
                in_recovery = true;
            }
        }
        let before = self.cwnd;
        let acked = a.newly_acked as f64 / self.mtu as f64;
        self.track_min_rtt(rtt);
        let target = self.target(self.cwnd);
        let delay = self.decision_delay(rtt);
        self.last_decision_delay = delay;
        if delay < target {
            if in_recovery {
                // ns-3 runs no window update in Recovery: nothing changes, the clock included.
                return;
            }
            self.cwnd += if self.cwnd >= 1.0 { self.p.ai * acked / self.cwnd } else { self.p.ai * acked };
        } else if can_decrease {
            let d = delay.as_secs_f64();
            let excess = (d - target.as_secs_f64()) / d;
            self.cwnd *= (1.0 - self.p.beta * excess).max(1.0 - self.p.max_mdf);
            self.delay_md += 1;
        }
        self.finish(before, a.now, gate);
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        self.loss_events += 1;
        self.retransmit_cnt = 0;
        if self.p.recovery == Recovery::Ns3Classic {
            // ns-3 enters recovery from its Open and Disorder states only: not while an
            // episode lasts, nor in the Loss state after a timeout.
            if self.recover.is_some() || ev.cum_ack < self.loss_until {
                return;
            }
            self.recover = Some(ev.snd_nxt);
            self.ssthresh = (ev.in_flight as f64 / self.mtu as f64 / 2.0).max(2.0);
        }
        let before = self.cwnd;
        let can_decrease = self.can_decrease(ev.now, None);
        let congestion = match (self.variant, self.p.loss_evidence) {
            (Variant::Swift, _) => true,
            (_, LossEvidence::Declared) => self.long_new_run(ev.runs),
            (_, LossEvidence::Confirmed) => false,
        };
        if congestion && can_decrease {
            self.cwnd *= 1.0 - self.p.max_mdf;
            self.loss_md += 1;
        }
        self.finish(before, ev.now, self.srtt);
    }

    fn on_loss_confirmed(&mut self, now: Time, runs: &[(u32, u32)]) {
        if self.variant == Variant::Swift || self.p.loss_evidence != LossEvidence::Confirmed {
            return;
        }
        let before = self.cwnd;
        if self.long_new_run(runs) && self.can_decrease(now, None) {
            self.cwnd *= 1.0 - self.p.max_mdf;
            self.loss_md += 1;
        }
        self.finish(before, now, self.srtt);
    }

    fn on_timeout(&mut self, now: Time, snd_nxt: u32) {
        self.retransmit_cnt += 1;
        if self.p.recovery == Recovery::Ns3Classic {
            // ns-3's RTO: the Loss state, which ends a recovery episode without its exit.
            self.recover = None;
            self.loss_until = snd_nxt;
        }
        let before = self.cwnd;
        if self.retransmit_cnt >= self.p.retx_reset_threshold {
            self.cwnd = self.p.min_cwnd_pkts;
        } else if self.can_decrease(now, None) {
            self.cwnd *= 1.0 - self.p.max_mdf;
        }
        self.timeout_md += 1;
        self.finish(before, now, self.srtt);
    }

    fn cwnd(&self) -> u64 {
        ((self.cwnd * self.mtu as f64) as u64).max(1)
    }

    fn pacing_rate(&self) -> Option<Rate> {
        if self.cwnd >= 1.0 {
            return None;
        }
        let rtt = match self.p.pacing_rtt {
            PacingRtt::Smoothed => self.srtt?,
            PacingRtt::Base => self.unloaded_rtt,
        };
        let gap = rtt.as_secs_f64() / self.cwnd;
        Some(Rate(((self.mtu * 8) as f64 / gap).floor().max(1.0) as u64))
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", self.cwnd);
        out("target_us", self.target(self.cwnd).as_us_f64());
        out("decision_delay_us", self.last_decision_delay.as_us_f64());
        out("delay_md", self.delay_md as f64);
        out("loss_md", self.loss_md as f64);
        out("timeout_md", self.timeout_md as f64);
        out("loss_events", self.loss_events as f64);
        out("long_runs", self.long_runs as f64);
        out("min_decrease_gap_rtts", self.min_decrease_gap_rtts);
    }
}

#[cfg(test)]
mod tests;
