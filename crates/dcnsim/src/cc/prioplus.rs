//! PrioPlus (Zhang et al., "Enabling Virtual Priority in Data Center Congestion Control",
//! EuroSys 2025, §4 and Algorithm 1) over Swift or, with `underlying = "ledbat"`, over
//! LEDBAT. What is modelled and where each default comes from: `docs/models/prioplus.md`;
//! how the paper's errata are read ("erratum" below): `docs/reproductions/prioplus-paper.md`,
//! "Decisions and errata". [P] is the paper, [A] the PrioPlus authors' public ns-3
//! artefact.
//!
//! Many strict priority levels inside one physical queue, from the hosts alone. Level i
//! (1..=N, larger = higher) owns a delay channel [D_target^i, D_limit^i] (§4.3.2):
//! D_target^i = BaseRtt + i·(A + B), D_limit^i = D_target^i + A/2 + B, with A the wrapped
//! algorithm's delay fluctuation and B the measurement noise to tolerate (3.2 and 0.8 µs).
//! The flow runs Swift with target D_target^i and no target scaling; on top of it:
//!
//! - **stop** (cwnd = 0) after `filter` consecutive samples at or above D_limit^i: a higher
//!   level is active (§4.1; filter of 2 per §4.3.1 and the filter-count erratum);
//! - **probes** while stopped: 64 B, sent after (delay − D_target) + U(0, BaseRtt), the
//!   collision-avoidance wait of §4.2.1 (negative first term clamped;
//!   `docs/models/prioplus.md`);
//! - **linear start** on an empty queue: +W_LS/#flow once per RTT (§4.2.2);
//! - **dual-RTT adaptive increase** below the target: every second round W_AI grows by
//!   min(cwnd/2, (D_target − d)/d · cwnd), spread over that round by Swift's AI (§4.2.3);
//! - **flow-cardinality estimation** #flow = max(#flow, d·LineRate/cwnd) at each stop,
//!   scaling W_AI and W_LS by 1/#flow, with a countdown of BaseBdp/W_LS empty-queue
//!   rounds after which #flow halves (§4.3.1; halved, not doubled as Algorithm 1's listing
//!   has it: an erratum). [A] counts two rounds more (`countdown_slack`): the delay
//!   samples that show the queue filling lag the window by an RTT or more, so without
//!   them the estimate halves just as the link fills and same-level flows overshoot
//!   D_limit, stop and probe again and again.
//!
//! The top level (the top `unlimited_levels`) has no limit and starts at W_LS = BaseBdp
//! ([A]; the paper is silent). W_LS may differ per level (`linear_step` as a list). A
//! stopped flow answers any below-limit sample (a probe echo, or a late data ACK) like
//! Algorithm 1's NewProbeAck: linear start from W_LS/#flow on an empty queue, else one
//! packet (§4.4).
//!
//! Over LEDBAT (from [A]; the paper gives no details): LEDBAT's target is
//! D_target − BaseRtt above a base fixed at BaseRtt, its per-ACK update uses the raw sample
//! (no current filter) with the off-target term scaled by s = min(1, 5/#flow), and the
//! adaptive-increase step W_AI_adapt is added per RTT; LEDBAT's linear controller replaces
//! Swift's AI/MD and the base W_AI. Stop, probe, linear start and cardinality are shared.
//! [A] runs it without the stop filter: set `filter = 1` for that (the default stays 2).
//!
//! [A] also stops (and probes after U(0, BaseRtt)) whenever Swift's decrease leaves the
//! window at or below 0.1 MTU, in place of Swift's minimum rate; that is `stop_below_pkts`,
//! off by default ([P] has no such stop).
//!
//! **Delay signal** (`delay`): the RTT sample by default, as with Swift ([P] §4). With
//! `delay = "owd"` the sample is the one-way delay the receiver reads (synchronised
//! clocks), turned into an RTT-equivalent by adding BaseRtt − BaseOwd before any use, as
//! [A]'s micro-benchmarks do (`RttBased = false`): the channels, the flow-count estimate
//! and the adaptive increase then work unchanged, and queueing on the reverse path (ACKs
//! behind other data) no longer reads as congestion.

use serde::{Deserialize, Serialize};

use super::ledbat::{Ledbat, LedbatParams};
use super::swift::{Swift, SwiftParams, Variant};
use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::engine::Rng;
use crate::units::values::TimeVal;
use crate::units::{Rate, Time};

/// The delay-based algorithm PrioPlus wraps (the paper's "original CC").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Underlying {
    /// Swift with target D_target and no target scaling (§4).
    #[default]
    Swift,
    /// LEDBAT's linear controller ([A]'s PrioPlus + LEDBAT; `docs/models/ledbat.md`).
    Ledbat,
}

/// How a stop estimates the number of same-level flows (§4.3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowEstimate {
    /// The paper's: #flow = delay · LineRate / cwnd, the bytes in flight at this delay over
    /// this flow's window (at least one packet).
    #[default]
    Window,
    /// [A]'s: #flow = delay / (D_target · cwnd / BaseBdp), capped at 2000: the paper's
    /// estimate times BaseRtt / D_target, so 1.3 to 3.7 times smaller on the paper's levels.
    Target,
}

/// The delay PrioPlus acts on (`delay`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DelaySignal {
    /// The round-trip time of each ACK's data packet ([P], Swift's signal).
    #[default]
    Rtt,
    /// Its one-way delay plus BaseRtt − BaseOwd ([A]'s micro-benchmarks).
    Owd,
}

/// A per-level setting: one value for every level, or one per level listed from the top
/// level down (the artefact's presets are written that way).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerLevel {
    All(f64),
    FromTop(Vec<f64>),
}

impl PerLevel {
    /// The value of level `i` of `n` (1 = lowest); a list must have `n` entries (checked by
    /// [`PrioPlusParams::validate`] against `levels`).
    pub fn of(&self, i: u32, n: u32) -> f64 {
        match self {
            PerLevel::All(v) => *v,
            PerLevel::FromTop(v) => v[(n - i) as usize],
        }
    }
}

/// The artefact's cap on its flow-count estimate.
const TARGET_ESTIMATE_CAP: f64 = 2000.0;

/// What PrioPlus needs from the algorithm it wraps: its window, to set and read (stop,
/// restart, linear start), and its increase step. Its per-ACK update is the algorithm's own
/// `on_ack`, acting on the same delay sample.
pub trait DelayBased: CongestionControl {
    /// Window in packets.
    fn cwnd_pkts(&self) -> f64;
    /// Sets the window in packets.
    fn set_cwnd_pkts(&mut self, w: f64);
    /// The increase PrioPlus asks for, packets per RTT: `w_ai` is W_AI/#flow plus the
    /// adaptive step, `adaptive` that step alone; `n_flow` the flow-count estimate.
    fn set_increase(&mut self, w_ai: f64, adaptive: f64, n_flow: f64);
}

impl DelayBased for Swift {
    fn cwnd_pkts(&self) -> f64 {
        Swift::cwnd_pkts(self)
    }
    fn set_cwnd_pkts(&mut self, w: f64) {
        Swift::set_cwnd_pkts(self, w)
    }
    /// Swift's AI step is the whole W_AI.
    fn set_increase(&mut self, w_ai: f64, _adaptive: f64, _n_flow: f64) {
        self.set_ai(w_ai)
    }
}

impl DelayBased for Ledbat {
    fn cwnd_pkts(&self) -> f64 {
        Ledbat::cwnd_pkts(self)
    }
    fn set_cwnd_pkts(&mut self, w: f64) {
        Ledbat::set_cwnd_pkts(self, w)
    }
    /// LEDBAT's off-target term replaces the base W_AI, scaled by s = min(1, 5/#flow);
    /// the adaptive step is added ([A]; `docs/models/prioplus.md`).
    fn set_increase(&mut self, _w_ai: f64, adaptive: f64, n_flow: f64) {
        Ledbat::set_increase(self, (5.0 / n_flow).min(1.0), adaptive)
    }
}

/// Parameters of PrioPlus; defaults are the paper's (§4.3.2, §4.4;
/// `docs/models/prioplus.md`, "Parameters").
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrioPlusParams {
    /// A: the wrapped algorithm's peak-to-peak delay fluctuation (Swift with 150 flows).
    pub fluctuation: TimeVal,
    /// B: the delay-measurement noise to tolerate (p99.85 of NIC timestamp noise).
    pub noise: TimeVal,
    /// D_limit − D_target of every level; absent: A/2 + B (§4.3.2). With it the spacing
    /// stays A + B, so the artefact's channels (its Fig. 10d sweep: width w and interval
    /// v give spacing w + v and limit gap w) are `fluctuation` + `noise` = w + v and
    /// `limit_gap` = w.
    pub limit_gap: Option<TimeVal>,
    /// Number of virtual levels N; absent: the highest level of any flow in the scenario.
    pub levels: Option<u32>,
    /// W_AI before scaling, bytes per RTT (the paper's recommended ≈150 B).
    pub ai_bytes: f64,
    /// W_LS as a fraction of BaseBdp: one value for every level, or a list with one
    /// entry per level from the top down (needs `levels`); absent: the paper's per-level
    /// preset (§4.4; [A] flow scheduling): 1.0 for the top quarter of levels, 0.25 up to
    /// 62.5 %, 0.125 below. Unlimited levels always start at 1.0 (line rate).
    pub linear_step: Option<PerLevel>,
    /// Levels, counted from the top, that start at once (W_LS/#flow) instead of probing
    /// first; absent: the top eighth (at least the top level).
    pub direct_start_levels: Option<u32>,
    /// How many levels, from the top, have no delay limit and start at line rate without
    /// probing ([A]'s "high" levels: 1 in its flow-scheduling, coflow and training presets,
    /// 2 for PrioPlus + LEDBAT; the paper is silent). 0: every level has a limit.
    pub unlimited_levels: u32,
    /// Consecutive samples at or above D_limit that stop the flow (1 = no filter).
    pub filter: u32,
    /// "delay == BaseRtt" tolerance ε of the empty-queue test ([A]; the paper writes
    /// equality).
    pub empty_tolerance: TimeVal,
    /// Probe size on the wire.
    pub probe_bytes: u32,
    /// A probe with no echo after this long is presumed lost and sent again.
    pub probe_timeout: TimeVal,
    /// Window after a probe that saw BaseRtt < delay < D_limit, in packets ([P] 1, [A] 0.5).
    pub restart_pkts: f64,
    /// Cap cwnd at the in-flight bytes at the target delay, D_target·LineRate ([A]).
    pub cwnd_cap: bool,
    /// Pace at cwnd/BaseRtt ([A]).
    pub pacing: bool,
    /// Adaptive increase every other round (false: every round, the Fig. 10c ablation).
    pub dual_rtt: bool,
    /// Flow-cardinality estimation (false: #flow stays 1, the Fig. 10b ablation).
    pub cardinality: bool,
    /// The wrapped algorithm: `swift` (reads `[transport.swift]`) or `ledbat` (reads
    /// `[transport.ledbat]`'s gain).
    pub underlying: Underlying,
    /// [A]'s stop at a tiny window: when the wrapped algorithm leaves cwnd at or below
    /// this many packets, stop and probe after U(0, BaseRtt) (no #flow estimate), instead
    /// of trickling at a sub-packet paced rate. Absent: never ([P]; [A] uses 0.1).
    pub stop_below_pkts: Option<f64>,
    /// Empty-queue rounds the countdown adds to BaseBdp/W_LS before #flow halves ([A]: its
    /// countdown is 1/ratio + 2 with ratio = W_LS/BaseBdp; [P] gives BaseBdp/W_LS, i.e. 0).
    pub countdown_slack: u32,
    /// The flow-count formula: `window` ([P], the default) or `target` ([A]).
    pub flow_estimate: FlowEstimate,
    /// The delay signal: `rtt` ([P], the default) or `owd` ([A]'s micro-benchmarks).
    pub delay: DelaySignal,
}

impl Default for PrioPlusParams {
    fn default() -> Self {
        PrioPlusParams {
            fluctuation: TimeVal(Time::from_ns(3200)),
            noise: TimeVal(Time::from_ns(800)),
            limit_gap: None,
            levels: None,
            ai_bytes: 150.0,
            linear_step: None,
            direct_start_levels: None,
            unlimited_levels: 1,
            filter: 2,
            empty_tolerance: TimeVal(Time::from_us(1)),
            probe_bytes: 64,
            probe_timeout: TimeVal(Time::from_ms(1)),
            restart_pkts: 1.0,
            cwnd_cap: true,
            pacing: true,
            dual_rtt: true,
            cardinality: true,
            underlying: Underlying::Swift,
            stop_below_pkts: None,
            countdown_slack: 2,
            flow_estimate: FlowEstimate::Window,
            delay: DelaySignal::Rtt,
        }
    }
}

impl PrioPlusParams {
    /// Checks ranges; `Err` names the field and what is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.fluctuation.0 == Time::ZERO {
            return Err(("fluctuation", "must be positive".into()));
        }
        if let Some(g) = self.limit_gap {
            if g.0 == Time::ZERO || g.0 >= self.fluctuation.0 + self.noise.0 {
                return Err((
                    "limit_gap",
                    format!(
                        "{}: allowed 0 < gap < the channel spacing fluctuation + noise ({}), so that each \
                         limit stays below the next level's target",
                        g.0,
                        self.fluctuation.0 + self.noise.0
                    ),
                ));
            }
        }
        if let Some(n) = self.levels {
            if !(1..=64).contains(&n) {
                return Err(("levels", format!("{n}: allowed 1 to 64")));
            }
        }
        if !(self.ai_bytes > 0.0 && self.ai_bytes.is_finite()) {
            return Err(("ai_bytes", format!("{}: must be positive", self.ai_bytes)));
        }
        match &self.linear_step {
            Some(PerLevel::All(w)) => check_linear_step(*w)?,
            Some(PerLevel::FromTop(steps)) => {
                if self.levels != Some(steps.len() as u32) {
                    return Err((
                        "linear_step",
                        format!(
                            "a list of {} steps needs `levels` set to the same number (levels = {})",
                            steps.len(),
                            self.levels.map_or("absent".to_string(), |n| n.to_string())
                        ),
                    ));
                }
                for w in steps {
                    check_linear_step(*w)?;
                }
            }
            None => {}
        }
        if self.filter == 0 {
            return Err(("filter", "allowed 1 or more consecutive samples".into()));
        }
        if self.empty_tolerance.0 >= self.fluctuation.0 + self.noise.0 {
            return Err((
                "empty_tolerance",
                "must be below the channel spacing A + B (docs/models/prioplus.md)".into(),
            ));
        }
        if self.probe_bytes == 0 || self.probe_timeout.0 == Time::ZERO {
            return Err(("probe_bytes", "probe_bytes and probe_timeout must be positive".into()));
        }
        if !(self.restart_pkts > 0.0) {
            return Err(("restart_pkts", "must be positive".into()));
        }
        if let Some(x) = self.stop_below_pkts {
            if !(x > 0.0 && x < self.restart_pkts) {
                return Err((
                    "stop_below_pkts",
                    format!("{x}: allowed 0 < packets < restart_pkts ({})", self.restart_pkts),
                ));
            }
        }
        Ok(())
    }
}

fn check_linear_step(w: f64) -> Result<(), (&'static str, String)> {
    if w > 0.0 && w <= 1.0 {
        Ok(())
    } else {
        Err(("linear_step", format!("{w}: allowed 0 < fraction of BaseBdp <= 1")))
    }
}

/// Channel of level `i` of `n` (§4.3.2): (D_target, D_limit); the limit is `None` (never
/// stop) for the top `unlimited` levels.
pub fn channel(i: u32, n: u32, base_rtt: Time, a: Time, b: Time, unlimited: u32) -> (Time, Option<Time>) {
    channel_with_gap(i, n, base_rtt, a, b, Time(a.0 / 2 + b.0), unlimited)
}

/// [`channel`] with D_limit − D_target = `gap` instead of A/2 + B.
pub fn channel_with_gap(
    i: u32,
    n: u32,
    base_rtt: Time,
    a: Time,
    b: Time,
    gap: Time,
    unlimited: u32,
) -> (Time, Option<Time>) {
    let target = base_rtt + Time((a.0 + b.0) * i as u64);
    (target, if i + unlimited > n { None } else { Some(target + gap) })
}

/// Worst-case delay fluctuation of n synchronised Swift flows (paper App. D, with Swift's
/// `min` cap; the paper prints `max`, an erratum): n·W_AI/LineRate +
/// min(n·β·W_AI/(LineRate·Target), max_mdf)·Target.
pub fn swift_fluctuation(n: f64, w_ai_bytes: f64, rate: Rate, beta: f64, max_mdf: f64, target: Time) -> Time {
    let bytes_per_s = rate.0 as f64 / 8.0;
    let t = target.as_secs_f64();
    let rise = n * w_ai_bytes / bytes_per_s;
    Time::from_secs_f64(rise + (n * beta * w_ai_bytes / (bytes_per_s * t)).min(max_mdf) * t)
}

/// W_LS of level i of n as a fraction of BaseBdp: the paper's high / medium / low steps
/// (§4.4) with the [A] flow-scheduling split (`docs/models/prioplus.md`, `linear_step`).
pub fn preset_linear_step(i: u32, n: u32) -> f64 {
    let from_top = (n - i) as f64 / n as f64; // 0 for the top level
    if from_top < 0.25 {
        1.0
    } else if from_top < 0.625 {
        0.25
    } else {
        0.125
    }
}

/// Round-trip rounds as Algorithm 1 counts them: a round ends when the packet that was
/// next to send at its start is acknowledged, and the dual-RTT flag flips at each end.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rounds {
    /// PSN whose acknowledgement ends the current round (`rttEndSeq`).
    pub end_seq: u32,
    /// `dualRttPass`: adaptive increase may act in the round that just began.
    pub dual_pass: bool,
}

impl Rounds {
    /// Starts counting afresh (flow start, resume): the next round ends with `snd_nxt`.
    pub fn restart(&mut self, snd_nxt: u32) {
        self.end_seq = snd_nxt;
        self.dual_pass = false;
    }

    /// An ACK with cumulative ACK `cum_ack` (every PSN below it arrived): true when it
    /// closes a round, which then starts a new one ending with `snd_nxt`.
    pub fn on_ack(&mut self, cum_ack: u32, snd_nxt: u32) -> bool {
        if cum_ack > self.end_seq {
            self.end_seq = snd_nxt;
            self.dual_pass = !self.dual_pass;
            true
        } else {
            false
        }
    }
}

pub struct PrioPlus {
    p: PrioPlusParams,
    inner: Box<dyn DelayBased>,
    mtu: f64,
    base_rtt: Time,
    /// Bytes per second of the line (the sender's, taken as the bottleneck;
    /// `docs/models/prioplus.md`, "Known deviations").
    line_bps: f64,
    base_bdp: f64,
    target: Time,
    limit: Option<Time>,
    /// W_LS in bytes (before the 1/#flow scaling).
    w_ls: f64,
    /// Largest window, bytes, when `cwnd_cap`.
    cap: f64,
    rounds: Rounds,
    /// Current W_AI in bytes (scaled by 1/#flow, maybe inflated by adaptive increase).
    w_ai: f64,
    /// The adaptive-increase part of `w_ai`, bytes (W_AI_adapt).
    w_adapt: f64,
    n_flow: f64,
    count_down: u32,
    consec: u32,
    stopped: bool,
    cwnd_before_stop: f64,
    probe_at: Option<Time>,
    /// When the probe now in flight left (`None`: no probe in flight). A stopped flow has
    /// at most one probe out: the next is scheduled from its echo
    /// (`docs/reproductions/prioplus-paper.md`, AC12).
    probe_sent_at: Option<Time>,
    snd_nxt: u32,
    rng: Rng,
    last_delay: Time,
    /// `delay = "owd"`: BaseRtt − BaseOwd, added to each one-way sample, and the latest
    /// such RTT-equivalent sample (for the next `on_ack` / `on_probe_ack`).
    owd_offset: Time,
    owd_sample: Option<Time>,
    stops: u64,
    probes: u64,
    linear_steps: u64,
    adaptive_steps: u64,
    /// Stops by `stop_below_pkts` (also counted in `stops`).
    tiny_stops: u64,
}

impl PrioPlus {
    /// PrioPlus over `p.underlying`, LEDBAT (if chosen) with its default parameters.
    pub fn new(p: &PrioPlusParams, swift_params: &SwiftParams, info: &FlowInfo) -> PrioPlus {
        PrioPlus::with_params(p, swift_params, &LedbatParams::default(), info)
    }

    pub fn with_params(
        p: &PrioPlusParams,
        swift_params: &SwiftParams,
        ledbat_params: &LedbatParams,
        info: &FlowInfo,
    ) -> PrioPlus {
        let n = p.levels.unwrap_or(info.levels as u32).max(1);
        let i = (info.priority as u32).clamp(1, n);
        let (a, b) = (p.fluctuation.0, p.noise.0);
        let gap = p.limit_gap.map_or(Time(a.0 / 2 + b.0), |g| g.0);
        let (target, limit) = channel_with_gap(i, n, info.base_rtt, a, b, gap, p.unlimited_levels);
        let line_bps = info.bottleneck.0 as f64 / 8.0;
        let base_bdp = line_bps * info.base_rtt.as_secs_f64();
        let mtu = info.mtu as f64;
        let is_high = limit.is_none();
        let step = match &p.linear_step {
            _ if is_high => 1.0,
            Some(steps) => steps.of(i, n),
            None => preset_linear_step(i, n),
        };
        let w_ls = step * base_bdp;
        // Swift with target D_target, no flow scaling, W_AI as its AI step; the window
        // bounds are PrioPlus's (stopping is cwnd = 0, handled here). Its decreases wait one
        // smoothed RTT and it paces by PrioPlus's rule, whatever the scenario gives plain
        // Swift (`last_decrease_update`, `pacing_rtt`: the baselines' settings).
        let sp = SwiftParams {
            last_decrease_update: super::swift::LastDecreaseUpdate::Lt,
            pacing_rtt: super::swift::PacingRtt::Smoothed,
            ai: p.ai_bytes / mtu,
            fixed_target: Some(TimeVal(target)),
            level_targets: None,
            per_hop: None,
            target_mode: super::swift::TargetMode::Formula,
            min_rtt_offset: TimeVal(Time::ZERO),
            fs_range: TimeVal(Time::ZERO),
            min_cwnd_pkts: 0.001,
            max_cwnd_pkts: 1e9,
            ..swift_params.clone()
        };
        let mut inner: Box<dyn DelayBased> = match p.underlying {
            Underlying::Swift => Box::new(Swift::new(&sp, Variant::Swift, info)),
            Underlying::Ledbat => {
                // LEDBAT aims at D_target: a queueing target of D_target − BaseRtt over a
                // base fixed at BaseRtt; raw samples; the window is PrioPlus's to bound.
                let lp = LedbatParams {
                    target: Some(TimeVal(target - info.base_rtt)),
                    current_filter: 1,
                    allowed_increase: None,
                    min_cwnd_pkts: 0.001,
                    max_cwnd_pkts: 1e9,
                    start_at_bdp: false,
                    ..ledbat_params.clone()
                };
                let mut l = Ledbat::new(&lp, info);
                l.fix_base_delay(info.base_rtt);
                Box::new(l)
            }
        };
        let direct = p.direct_start_levels.unwrap_or_else(|| n.div_ceil(8));
        let stopped = !(is_high || i + direct > n);
        inner.set_cwnd_pkts(w_ls / mtu);
        PrioPlus {
            cap: if p.cwnd_cap { line_bps * target.as_secs_f64() } else { f64::INFINITY },
            inner,
            mtu,
            base_rtt: info.base_rtt,
            line_bps,
            base_bdp,
            target,
            limit,
            w_ls,
            rounds: Rounds::default(),
            w_ai: p.ai_bytes,
            w_adapt: 0.0,
            n_flow: 1.0,
            count_down: 0,
            consec: 0,
            stopped,
            cwnd_before_stop: w_ls,
            // A flow that probes before starting has no sample yet: first probe after
            // U(0, BaseRtt) (`docs/models/prioplus.md`, probe).
            probe_at: None,
            probe_sent_at: None,
            snd_nxt: 0,
            rng: Rng::stream(info.seed, "prioplus"),
            last_delay: Time::ZERO,
            owd_offset: info.base_rtt.saturating_sub(info.base_owd),
            owd_sample: None,
            stops: 0,
            probes: 0,
            linear_steps: 0,
            adaptive_steps: 0,
            tiny_stops: 0,
            p: p.clone(),
        }
        .with_first_probe(info.start)
    }

    fn with_first_probe(mut self, start: Time) -> Self {
        if self.stopped {
            self.probe_at = Some(start + self.jitter());
        }
        self
    }

    fn jitter(&mut self) -> Time {
        Time((self.rng.next_f64() * self.base_rtt.0 as f64) as u64)
    }

    /// The collision-avoidance wait before the next probe, after a sample `delay`
    /// (§4.2.1): (delay − D_target)⁺ + U(0, BaseRtt).
    pub fn probe_wait(&mut self, delay: Time) -> Time {
        delay.saturating_sub(self.target) + self.jitter()
    }

    pub fn channel(&self) -> (Time, Option<Time>) {
        (self.target, self.limit)
    }

    pub fn flow_estimate(&self) -> f64 {
        self.n_flow
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    fn cwnd_bytes(&self) -> f64 {
        self.inner.cwnd_pkts() * self.mtu
    }

    fn set_cwnd_bytes(&mut self, bytes: f64) {
        self.inner.set_cwnd_pkts(bytes.min(self.cap) / self.mtu);
    }

    fn is_empty_queue(&self, delay: Time) -> bool {
        delay < self.base_rtt + self.p.empty_tolerance.0
    }

    /// One empty-queue round: either count down, or (countdown over) halve #flow.
    fn count_empty_round(&mut self) {
        if self.count_down == 0 {
            self.n_flow = (self.n_flow / 2.0).max(1.0);
        } else {
            self.count_down -= 1;
        }
    }

    fn stop(&mut self, now: Time, delay: Time) {
        if !self.stopped {
            self.cwnd_before_stop = self.cwnd_bytes();
            self.stopped = true;
            self.stops += 1;
        }
        if self.p.cardinality {
            // In-flight bytes at this delay over our own share (the last non-zero window,
            // the one from before the stop; `docs/reproductions/prioplus-paper.md`, "Decisions
            // and errata"). The share is at least one packet: a window below an MTU still
            // puts whole packets on the wire. Without that floor a flow restarted at
            // W_LS/#flow of a few bytes re-estimates #flow from that sliver, restarts
            // smaller still, and #flow runs away (to millions, with 240 flows in the
            // Fig. 10a staircase), leaving the level unable to send for milliseconds.
            let total = delay.as_secs_f64() * self.line_bps;
            let estimate = match self.p.flow_estimate {
                FlowEstimate::Window => total / self.cwnd_before_stop.max(self.mtu),
                FlowEstimate::Target => {
                    let rtts = self.base_rtt.as_secs_f64() / self.target.as_secs_f64();
                    (total * rtts / self.cwnd_before_stop.max(1.0)).min(TARGET_ESTIMATE_CAP)
                }
            };
            self.n_flow = self.n_flow.max(estimate);
        }
        self.w_ai = self.p.ai_bytes / self.n_flow;
        self.w_adapt = 0.0;
        self.count_down = (self.base_bdp / self.w_ls).ceil() as u32 + self.p.countdown_slack;
        self.probe_at = match self.probe_sent_at {
            // A probe is in flight (sent before a resume, or after an earlier high ACK):
            // its echo schedules the next one, so only the loss guard stays armed.
            Some(sent) => Some(sent + self.p.probe_timeout.0),
            None => Some(now + self.probe_wait(delay)),
        };
    }

    /// [A]'s stop at a tiny window (`stop_below_pkts`): stop and probe as if the delay
    /// were the base RTT, i.e. after U(0, BaseRtt); #flow is left as it is.
    fn stop_tiny_window(&mut self, now: Time) {
        self.cwnd_before_stop = self.cwnd_bytes();
        self.stopped = true;
        self.stops += 1;
        self.tiny_stops += 1;
        self.w_adapt = 0.0;
        self.probe_at = Some(now + self.probe_wait(self.base_rtt));
    }

    /// A below-limit sample while stopped (Algorithm 1, NewProbeAck lines 28–35).
    fn resume(&mut self, delay: Time) {
        if self.is_empty_queue(delay) {
            self.set_cwnd_bytes(self.w_ls / self.n_flow);
            self.linear_steps += 1;
            self.count_empty_round();
        } else {
            self.set_cwnd_bytes(self.p.restart_pkts * self.mtu);
        }
        self.stopped = false;
        self.probe_at = None;
        self.consec = 0;
        self.rounds.restart(self.snd_nxt);
    }
}

impl CongestionControl for PrioPlus {
    fn name(&self) -> &'static str {
        "prioplus"
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile {
            ecn_capable: self.inner.profile().ecn_capable,
            uses_probes: true,
            one_way_delay: self.p.delay == DelaySignal::Owd,
            ..TransportProfile::default()
        }
    }

    fn on_one_way_delay(&mut self, _now: Time, owd: Time) {
        self.owd_sample = Some(owd + self.owd_offset);
    }

    fn on_ack(&mut self, a: &AckSample) {
        // In OWD mode the wrapped algorithm sees the same RTT-equivalent sample.
        let owd_ack;
        let a = match self.owd_sample.take() {
            Some(delay) => {
                owd_ack = AckSample { rtt: delay, ..*a };
                &owd_ack
            }
            None => a,
        };
        let delay = a.rtt;
        self.last_delay = delay;
        self.snd_nxt = a.snd_nxt;
        let round_end = self.rounds.on_ack(a.cum_ack, a.snd_nxt);
        if round_end && (!self.rounds.dual_pass || !self.p.dual_rtt) {
            // The adaptive-increase round is over (or, without dual-RTT, every round).
            self.w_ai = self.p.ai_bytes / self.n_flow;
            self.w_adapt = 0.0;
        }
        if self.limit.is_some_and(|l| delay >= l) {
            self.consec += 1;
            if self.consec >= self.p.filter {
                self.stop(a.now, delay);
                return;
            }
        } else {
            self.consec = 0;
            if self.stopped {
                self.resume(delay);
                return;
            }
        }
        if self.stopped {
            // One high sample so far: still stopped, nothing for Swift to act on.
            return;
        }
        if delay <= self.target && round_end {
            if self.is_empty_queue(delay) {
                self.set_cwnd_bytes(self.cwnd_bytes() + self.w_ls / self.n_flow);
                self.linear_steps += 1;
                self.count_empty_round();
            } else if self.rounds.dual_pass || !self.p.dual_rtt {
                let d = delay.as_secs_f64();
                let grow = (self.target.as_secs_f64() - d) / d * self.cwnd_bytes();
                let step = grow.min(self.cwnd_bytes() / 2.0);
                self.w_ai += step;
                self.w_adapt += step;
                self.adaptive_steps += 1;
            }
        }
        self.inner.set_increase(self.w_ai / self.mtu, self.w_adapt / self.mtu, self.n_flow);
        self.inner.on_ack(a);
        if self.cwnd_bytes() > self.cap {
            self.set_cwnd_bytes(self.cap);
        }
        if self.p.stop_below_pkts.is_some_and(|x| self.inner.cwnd_pkts() <= x) {
            self.stop_tiny_window(a.now);
        }
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        if !self.stopped {
            self.inner.on_loss(ev);
        }
    }

    fn on_timeout(&mut self, now: Time, snd_nxt: u32) {
        self.inner.on_timeout(now, snd_nxt);
        if self.stopped {
            // A lost probe or lost in-flight data while stopped: probe at once.
            self.probe_at = Some(now);
        }
    }

    fn cwnd(&self) -> u64 {
        if self.stopped {
            0
        } else {
            self.inner.cwnd()
        }
    }

    fn pacing_rate(&self) -> Option<Rate> {
        if self.stopped {
            return None;
        }
        if !self.p.pacing {
            return self.inner.pacing_rate();
        }
        let bps = self.cwnd_bytes() * 8.0 / self.base_rtt.as_secs_f64();
        Some(Rate((bps as u64).max(1)))
    }

    fn probe_at(&self) -> Option<Time> {
        if self.stopped {
            self.probe_at
        } else {
            None
        }
    }

    fn probe_bytes(&self) -> u32 {
        self.p.probe_bytes
    }

    fn on_probe_sent(&mut self, now: Time) {
        self.probes += 1;
        // At most one probe outstanding: the next one waits for this echo, or for the
        // timeout if it was lost.
        self.probe_sent_at = Some(now);
        self.probe_at = Some(now + self.p.probe_timeout.0);
    }

    fn on_probe_ack(&mut self, now: Time, rtt: Time) {
        let rtt = self.owd_sample.take().unwrap_or(rtt);
        self.probe_sent_at = None;
        if !self.stopped {
            return;
        }
        self.last_delay = rtt;
        if self.limit.is_some_and(|l| rtt >= l) {
            self.probe_at = Some(now + self.probe_wait(rtt));
            return;
        }
        self.resume(rtt);
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", if self.stopped { 0.0 } else { self.inner.cwnd_pkts() });
        out("target_us", self.target.as_us_f64());
        out("limit_us", self.limit.map_or(f64::INFINITY, |l| l.as_us_f64()));
        out("delay_us", self.last_delay.as_us_f64());
        out("flow_estimate", self.n_flow);
        out("stopped", self.stopped as u8 as f64);
        out("stops", self.stops as f64);
        out("probes", self.probes as f64);
        out("linear_steps", self.linear_steps as f64);
        out("adaptive_steps", self.adaptive_steps as f64);
        out("tiny_window_stops", self.tiny_stops as f64);
        out("ledbat_underlying", (self.p.underlying == Underlying::Ledbat) as u8 as f64);
    }
}

#[cfg(test)]
mod tests;
