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
    /// The path's unloaded RTT: the "once per RTT" of a decrease before any RTT sample.
    unloaded_rtt: Time,
    t_last_decrease: Time,
    retransmit_cnt: u32,
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
            unloaded_rtt: info.base_rtt,
            t_last_decrease: Time::ZERO,
            retransmit_cnt: 0,
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
    /// (`t_last_decrease` zero: no decrease yet.)
    fn can_decrease(&self, now: Time) -> bool {
        self.t_last_decrease == Time::ZERO || now >= self.t_last_decrease + self.srtt.unwrap_or(self.unloaded_rtt)
    }

    /// Clamps the window; records a decrease. `gate` is the RTT estimate the decision was
    /// gated on (the one known before this ACK's sample).
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

    fn finish(&mut self, before: f64, now: Time, gate: Option<Time>) {
        self.cwnd = self.cwnd.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
        // Strictly smaller: an ACK that could not decrease must not restart the clock
        // (an erratum to Algorithm 1's `<=`; docs/reproductions/dctcp-vs-swift-paper.md,
        // "Swift's decrease clock", and docs/reproductions/mswift-paper.md, "LSwift reading").
        if self.cwnd < before {
            if let (Some(srtt), true) = (gate, self.t_last_decrease > Time::ZERO) {
                let gap = (now - self.t_last_decrease).as_secs_f64() / srtt.as_secs_f64();
                self.min_decrease_gap_rtts = self.min_decrease_gap_rtts.min(gap);
            }
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
        // Gate on the RTT estimate from before this sample (as htsim's Swift does).
        let gate = self.srtt;
        let can_decrease = self.can_decrease(a.now);
        let rtt = self.measured(a.rtt);
        if rtt > Time::ZERO {
            self.srtt = Some(match self.srtt {
                None => rtt,
                Some(s) => Time((7 * s.0 + rtt.0) / 8),
            });
        }
        self.retransmit_cnt = 0;
        let before = self.cwnd;
        let acked = a.newly_acked as f64 / self.mtu as f64;
        self.track_min_rtt(rtt);
        let target = self.target(self.cwnd);
        let delay = self.decision_delay(rtt);
        self.last_decision_delay = delay;
        if delay < target {
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
        let before = self.cwnd;
        let can_decrease = self.can_decrease(ev.now);
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
        if self.long_new_run(runs) && self.can_decrease(now) {
            self.cwnd *= 1.0 - self.p.max_mdf;
            self.loss_md += 1;
        }
        self.finish(before, now, self.srtt);
    }

    fn on_timeout(&mut self, now: Time, _snd_nxt: u32) {
        self.retransmit_cnt += 1;
        let before = self.cwnd;
        if self.retransmit_cnt >= self.p.retx_reset_threshold {
            self.cwnd = self.p.min_cwnd_pkts;
        } else if self.can_decrease(now) {
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
        let gap = self.srtt?.as_secs_f64() / self.cwnd;
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
mod tests {
    use super::*;
    use crate::cc::test_ack;

    const MTU: u64 = 1500;

    fn info() -> FlowInfo {
        crate::cc::test_info(MTU, 10 * MTU, Time::from_us(100), 2, Rate::gbps(1), 1_000_000)
    }

    fn swift(p: SwiftParams, cwnd: f64) -> Swift {
        let mut s = Swift::new(&p, Variant::Swift, &info());
        s.cwnd = cwnd;
        s
    }

    fn ack_at(now: Time, rtt: Time) -> AckSample {
        AckSample { now, rtt, ..test_ack(1, 10, MTU, false) }
    }

    fn fixed(target_us: u64) -> SwiftParams {
        SwiftParams {
            fixed_target: Some(TimeVal(Time::from_us(target_us))),
            fs_range: TimeVal(Time::ZERO),
            ..Default::default()
        }
    }

    /// `level_targets`: the base target by priority level (level 1 first, the last entry
    /// for higher levels), over the flow's unloaded RTT; no level keeps `base_target`;
    /// `fixed_target` still wins; an empty list is refused.
    #[test]
    fn level_targets_pick_the_base_target_by_priority() {
        let p = SwiftParams {
            fs_range: TimeVal(Time::ZERO),
            level_targets: Some(vec![TimeVal(Time::from_us(5)), TimeVal(Time::from_us(15))]),
            ..Default::default()
        };
        let at = |level: u8, p: &SwiftParams| {
            Swift::new(p, Variant::Swift, &FlowInfo { priority: level, levels: 2, ..info() }).target(1.0)
        };
        assert_eq!(at(1, &p), Time::from_us(105));
        assert_eq!(at(2, &p), Time::from_us(115));
        assert_eq!(at(3, &p), Time::from_us(115));
        assert_eq!(at(0, &p), Time::from_us(101), "no level: base_target (1 us)");
        let fixed = SwiftParams { fixed_target: Some(TimeVal(Time::from_us(40))), ..p.clone() };
        assert_eq!(at(2, &fixed), Time::from_us(40));
        let empty = SwiftParams { level_targets: Some(vec![]), ..p };
        assert_eq!(empty.validate().unwrap_err().0, "level_targets");
    }

    /// Once per RTT holds before the first RTT sample too, with the path's unloaded RTT
    /// (100 µs here): NACKs for every packet of a trimmed first window cut it once, and
    /// the next cut waits one unloaded RTT.
    #[test]
    fn losses_before_any_rtt_sample_cut_once_per_unloaded_rtt() {
        let mut s = swift(fixed(200), 64.0);
        for us in 1..=40 {
            s.on_loss(&crate::cc::LossEvent { now: Time::from_us(us), ..crate::cc::test_loss(0, 64) });
        }
        assert_eq!(s.cwnd_pkts(), 32.0, "40 losses within 40 us: one halving");
        s.on_loss(&crate::cc::LossEvent { now: Time::from_us(101), ..crate::cc::test_loss(0, 64) });
        assert_eq!(s.cwnd_pkts(), 16.0, "one unloaded RTT later: the next");
    }

    /// docs/reproductions/dctcp-vs-swift-paper.md, A5: ai = 1 gives 10 → 10.1 and 0.5 → 1.5 for one ACKed packet.
    #[test]
    fn a5_additive_increase() {
        let mut s = swift(fixed(200), 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(100)));
        assert!((s.cwnd_pkts() - 10.1).abs() < 1e-12);
        let mut s = swift(fixed(200), 0.5);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(100)));
        assert!((s.cwnd_pkts() - 1.5).abs() < 1e-12);
    }

    /// `rtt_resolution` (the DCTCP-vs-Swift study's millisecond timestamps): 0.7 ms reads
    /// as 1 µs, 2.3 ms as 2 ms; with max_mdf = 1 (the study's) a delay far above the
    /// target takes the window to `min_cwnd_pkts` in one step; max_mdf above 1 is refused.
    #[test]
    fn millisecond_rtts_and_a_whole_max_mdf() {
        let p = SwiftParams {
            rtt_resolution: Some(TimeVal(Time::from_ms(1))),
            max_mdf: 1.0,
            min_cwnd_pkts: 1.0,
            ..fixed(100)
        };
        assert!(p.validate().is_ok());
        let mut s = swift(p.clone(), 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(700)));
        assert_eq!(s.srtt, Some(Time::from_us(1)));
        assert!(s.cwnd_pkts() > 10.0, "a 1 us sample is below the 100 us target: increase");
        let mut s = swift(p.clone(), 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(2300)));
        assert_eq!(s.srtt, Some(Time::from_ms(2)));
        // (2000 - 100) / 2000 × β 0.8 = 0.76: × 0.24 = 2.4 packets, above max_mdf's floor.
        assert!((s.cwnd_pkts() - 2.4).abs() < 1e-9, "{}", s.cwnd_pkts());
        let mut s = swift(SwiftParams { beta: 4.0, ..p.clone() }, 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(2300)));
        assert_eq!(s.cwnd_pkts(), 1.0, "β 4: 1 - 3.04 < 0, capped by max_mdf = 1, then the 1-packet floor");
        assert_eq!(SwiftParams { max_mdf: 1.5, ..p }.validate().unwrap_err().0, "max_mdf");
    }

    /// A6: β = 0.8, max_mdf = 0.5: delay 2×target → ×0.6; 10×target → capped ×0.5; a
    /// second decrease within one RTT is suppressed.
    #[test]
    fn a6_multiplicative_decrease_once_per_rtt() {
        let mut s = swift(fixed(100), 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(200)));
        assert!((s.cwnd_pkts() - 6.0).abs() < 1e-9, "{}", s.cwnd_pkts());
        let mut s = swift(fixed(100), 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(1000)));
        assert!((s.cwnd_pkts() - 5.0).abs() < 1e-9);
        // srtt is now 1000 us: another high-delay ACK 500 us later may not decrease...
        s.on_ack(&ack_at(Time::from_us(501), Time::from_us(1000)));
        assert!((s.cwnd_pkts() - 5.0).abs() < 1e-9);
        // ...but one more than an RTT after the first decrease may.
        s.on_ack(&ack_at(Time::from_us(1100), Time::from_us(1000)));
        assert!(s.cwnd_pkts() < 5.0);
    }

    /// A7: flow scaling fs(w) = α/√w + β with fs(0.1) = range and fs(100) = 0; checked
    /// against the closed form for range = 100 us (the study's values).
    #[test]
    fn a7_target_flow_scaling() {
        let p = SwiftParams {
            fixed_target: Some(TimeVal(Time::from_us(50))),
            fs_range: TimeVal(Time::from_us(100)),
            ..Default::default()
        };
        let s = swift(p, 1.0);
        let alpha = 100.0 / (1.0 / 0.1f64.sqrt() - 1.0 / 100f64.sqrt());
        let beta = -alpha / 10.0;
        for (w, expect) in [
            (0.01, 100.0),
            (0.1, 100.0),
            (0.5, alpha / 0.5f64.sqrt() + beta),
            (1.0, alpha + beta),
            (10.0, alpha / 10f64.sqrt() + beta),
            (100.0, 0.0),
            (1000.0, 0.0),
        ] {
            let fs = s.target(w).as_us_f64() - 50.0;
            assert!((fs - expect).abs() < 1e-3, "fs({w}) = {fs}, expected {expect}");
        }
        // Spot values of the flow-scaling formula: fs(1) = 29.39 us, fs(10) = 7.06 us.
        assert!((s.target(1.0).as_us_f64() - 50.0 - 29.39).abs() < 0.01);
        assert!((s.target(10.0).as_us_f64() - 50.0 - 7.06).abs() < 0.01);
        // Without a fixed target: base_target + hops x per_hop.
        let p = SwiftParams {
            per_hop: Some(TimeVal(Time::from_us(10))),
            fs_range: TimeVal(Time::ZERO),
            ..Default::default()
        };
        assert_eq!(swift(p, 5.0).target(5.0), Time::from_us(1 + 2 * 10));
    }

    /// The study's min-RTT targets (the study's Swift(baseRTT) and Swift(baseRTT + ε),
    /// docs/reproductions/dctcp-vs-swift-paper.md): the target is the smallest
    /// RTT sample so far plus the offset. Offset 0 with exact RTTs never increases (a
    /// sample is never below its own minimum: the degenerate Swift(baseRTT) of docs/reproductions/dctcp-vs-swift-paper.md);
    /// offset 1 ms increases while the RTT stays below min + 1 ms.
    #[test]
    fn min_rtt_target_tracks_the_smallest_sample() {
        let base_rtt =
            SwiftParams { target_mode: TargetMode::MinRtt, fs_range: TimeVal(Time::ZERO), ..Default::default() };
        let mut s = swift(base_rtt.clone(), 10.0);
        for (i, rtt_us) in [300u64, 200, 250, 200].into_iter().enumerate() {
            s.on_ack(&ack_at(Time::from_ms(i as u64 + 1), Time::from_us(rtt_us)));
            assert!(s.cwnd_pkts() <= 10.0, "no increase at {rtt_us} us");
        }
        assert_eq!(s.target(10.0), Time::from_us(200));
        let eps = SwiftParams { min_rtt_offset: TimeVal(Time::from_ms(1)), ..base_rtt };
        let mut s = swift(eps, 10.0);
        s.on_ack(&ack_at(Time::from_us(1), Time::from_us(200)));
        assert_eq!(s.target(10.0), Time::from_us(1200));
        assert!((s.cwnd_pkts() - 10.1).abs() < 1e-12, "200 us < 1.2 ms: additive increase");
        // An RTT of 2.4 ms is twice the target: × (1 − 0.8 · 0.5) = × 0.6.
        s.on_ack(&ack_at(Time::from_ms(10), Time::from_us(2400)));
        assert!((s.cwnd_pkts() - 10.1 * 0.6).abs() < 1e-9, "{}", s.cwnd_pkts());
        let clash = SwiftParams {
            target_mode: TargetMode::MinRtt,
            fixed_target: Some(TimeVal(Time::from_ms(1))),
            ..Default::default()
        };
        assert_eq!(clash.validate().unwrap_err().0, "target_mode");
    }

    /// A8: cwnd 0.25 packets at an RTT of 100 us paces packets at least 400 us apart.
    #[test]
    fn a8_pacing_below_one_packet() {
        let mut s = swift(fixed(1000), 0.25);
        assert_eq!(s.pacing_rate(), None, "no RTT estimate yet");
        s.srtt = Some(Time::from_us(100));
        let gap = s.pacing_rate().unwrap().serialization(MTU);
        assert!(gap >= Time::from_us(400) && gap < Time::from_us(401), "{gap}");
        s.cwnd = 2.0;
        assert_eq!(s.pacing_rate(), None, "window mode above one packet");
    }

    /// A9: after retx_reset_threshold consecutive timeouts the window is min_cwnd; an ACK
    /// resets the count.
    #[test]
    fn a9_repeated_timeouts_reset_the_window() {
        let mut s = swift(fixed(1000), 100.0);
        for i in 0..4 {
            s.on_timeout(Time::from_ms(10 * (i + 1)), 0);
        }
        assert!(s.cwnd_pkts() > s.p.min_cwnd_pkts);
        s.on_ack(&ack_at(Time::from_ms(50), Time::from_us(100)));
        for i in 0..4 {
            s.on_timeout(Time::from_ms(60 + 10 * i), 0);
        }
        assert!(s.cwnd_pkts() > s.p.min_cwnd_pkts, "the ACK reset the count");
        s.on_timeout(Time::from_ms(200), 0);
        assert_eq!(s.cwnd_pkts(), s.p.min_cwnd_pkts);
    }

    fn loss(now: Time, runs: &[(u32, u32)]) -> LossEvent<'_> {
        LossEvent { now, cum_ack: 0, snd_nxt: 100, newly_lost: &[], runs }
    }

    /// With confirmed evidence, declared holes never cut; a confirmed run of `loss_run`
    /// does, once.
    #[test]
    fn lswift_confirmed_evidence_ignores_declared_holes() {
        let p = SwiftParams { loss_evidence: LossEvidence::Confirmed, ..SwiftParams::default() };
        let mut l = Swift::new(&p, Variant::LSwift, &info());
        l.cwnd = 100.0;
        l.on_loss(&loss(Time::from_us(100), &[(10, 30)]));
        assert_eq!(l.cwnd_pkts(), 100.0, "a declared run of 21 may be reordering");
        l.on_loss_confirmed(Time::from_us(100), &[(10, 13)]);
        assert_eq!(l.cwnd_pkts(), 100.0, "4 confirmed losses are not a run of 5");
        l.on_loss_confirmed(Time::from_us(100), &[(10, 14)]);
        assert_eq!(l.cwnd_pkts(), 50.0, "5 confirmed losses are congestion");
        l.on_loss_confirmed(Time::from_us(500), &[(10, 15)]);
        assert_eq!(l.cwnd_pkts(), 50.0, "the same run grown is not a new signal");
    }

    /// Swift cuts on any loss; LSwift (declared evidence, docs/reproductions/mswift-paper.md's reading) only on a run
    /// of `loss_run` consecutive losses, once.
    #[test]
    fn lswift_forgives_isolated_losses() {
        let mut s = swift(fixed(1000), 100.0);
        s.on_loss(&loss(Time::from_ms(1), &[(7, 7)]));
        assert_eq!(s.cwnd_pkts(), 50.0);
        let declared = SwiftParams { loss_evidence: LossEvidence::Declared, ..fixed(1000) };
        let mut l = Swift::new(&declared, Variant::LSwift, &info());
        l.cwnd = 100.0;
        l.on_loss(&loss(Time::from_ms(1), &[(7, 7), (9, 12)]));
        assert_eq!(l.cwnd_pkts(), 100.0, "runs of 1 and 4 are reordering");
        l.on_loss(&loss(Time::from_ms(2), &[(20, 24)]));
        assert_eq!(l.cwnd_pkts(), 50.0, "a run of 5 is congestion");
        l.on_loss(&loss(Time::from_ms(30), &[(20, 26)]));
        assert_eq!(l.cwnd_pkts(), 50.0, "the same run grown is not a new signal");
    }

    /// MSwift decides on the median of the last H = max(⌊cwnd/2⌋, 1) delays: a high delay
    /// on one ACK in four never decreases the window (docs/reproductions/mswift-paper.md, A6/A7).
    #[test]
    fn mswift_ignores_a_minority_of_slow_samples() {
        let mut m = Swift::new(&fixed(50), Variant::MSwift, &info());
        m.cwnd = 40.0;
        let mut swift_cuts = swift(fixed(50), 40.0);
        for i in 0..400u64 {
            let rtt = if i % 4 == 3 { Time::from_us(500) } else { Time::from_us(20) };
            let now = Time::from_us(25 * i + 1);
            m.on_ack(&ack_at(now, rtt));
            swift_cuts.on_ack(&ack_at(now, rtt));
        }
        assert_eq!(m.delay_md, 0);
        assert!(m.cwnd_pkts() > 40.0);
        assert!(swift_cuts.delay_md > 10 && swift_cuts.cwnd_pkts() < 40.0);
    }
}
