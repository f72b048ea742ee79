//! PrioPlus (Zhang et al., "Enabling Virtual Priority in Data Center Congestion Control",
//! EuroSys 2025, §4 and Algorithm 1; spec `prioplus.md` §2, errata §7) over Swift or, with
//! `underlying = "ledbat"`, over LEDBAT (spec §2.8).
//!
//! Many strict priority levels inside one physical queue, from the hosts alone. Level i
//! (1..=N, larger = higher) owns a delay channel [D_target^i, D_limit^i] (§4.3.2):
//! D_target^i = BaseRtt + i·(A + B), D_limit^i = D_target^i + A/2 + B, with A the wrapped
//! algorithm's delay fluctuation and B the measurement noise to tolerate (3.2 and 0.8 µs).
//! The flow runs Swift with target D_target^i and no target scaling; on top of it:
//!
//! - **stop** (cwnd = 0) after `filter` consecutive samples at or above D_limit^i: a higher
//!   level is active (§4.1; filter of 2 per §4.3.1 and erratum §7.2);
//! - **probes** while stopped: 64 B, sent after (delay − D_target) + U(0, BaseRtt), the
//!   collision-avoidance wait of §4.2.1 (negative first term clamped, erratum §7.6);
//! - **linear start** on an empty queue: +W_LS/#flow once per RTT (§4.2.2);
//! - **dual-RTT adaptive increase** below the target: every second round W_AI grows by
//!   min(cwnd/2, (D_target − d)/d · cwnd), spread over that round by Swift's AI (§4.2.3);
//! - **flow-cardinality estimation** #flow = max(#flow, d·LineRate/cwnd) at each stop,
//!   scaling W_AI and W_LS by 1/#flow, with a countdown of BaseBdp/W_LS empty-queue
//!   rounds after which #flow halves (§4.3.1; halving per erratum §7.1).
//!
//! The top level has no limit and starts at W_LS = BaseBdp (erratum §7.7). A stopped flow
//! answers any below-limit sample (a probe echo, or a late data ACK) like Algorithm 1's
//! NewProbeAck: linear start from W_LS/#flow on an empty queue, else one packet (§4.4).
//! Over LEDBAT (spec §2.8, from [A]; the paper gives no details): LEDBAT's target is
//! D_target − BaseRtt above a base fixed at BaseRtt, its per-ACK update uses the raw sample
//! (no current filter) with the off-target term scaled by s = min(1, 5/#flow), and the
//! adaptive-increase step W_AI_adapt is added per RTT; LEDBAT's linear controller replaces
//! Swift's AI/MD and the base W_AI. Stop, probe, linear start and cardinality are shared.
//! [A] runs it without the stop filter: set `filter = 1` for that (the default stays 2).
//!
//! [A] also stops (and probes after U(0, BaseRtt)) whenever Swift's decrease leaves the
//! window at or below 0.1 MTU, in place of Swift's minimum rate; that is `stop_below_pkts`,
//! off by default ([P] has no such stop, spec §2.10).
//!
//! Not modelled: OWD mode.

use serde::{Deserialize, Serialize};

use super::ledbat::{Ledbat, LedbatParams};
use super::swift::{Swift, SwiftParams, Variant};
use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::engine::Rng;
use crate::units::values::TimeVal;
use crate::units::{Rate, Time};

/// The delay-based algorithm PrioPlus wraps (the paper's "original CC", spec §2.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Underlying {
    /// Swift with target D_target and no target scaling (§4, spec §2.4).
    #[default]
    Swift,
    /// LEDBAT's linear controller (spec §2.8).
    Ledbat,
}

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
    /// the adaptive step is added (spec §2.8).
    fn set_increase(&mut self, _w_ai: f64, adaptive: f64, n_flow: f64) {
        Ledbat::set_increase(self, (5.0 / n_flow).min(1.0), adaptive)
    }
}

/// Parameters of PrioPlus; defaults are the paper's (§4.3.2, §4.4, spec §2.5).
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
    /// W_LS as a fraction of BaseBdp, the same for every level; absent: the paper's
    /// per-level preset (§4.4; [A] flow scheduling): 1.0 for the top quarter of levels,
    /// 0.25 up to 62.5 %, 0.125 below.
    pub linear_step: Option<f64>,
    /// Levels, counted from the top, that start at once (W_LS/#flow) instead of probing
    /// first; absent: the top eighth (at least the top level).
    pub direct_start_levels: Option<u32>,
    /// The top level has no delay limit and starts at line rate (erratum §7.7).
    pub top_unlimited: bool,
    /// Consecutive samples at or above D_limit that stop the flow (1 = no filter).
    pub filter: u32,
    /// "delay == BaseRtt" tolerance ε of the empty-queue test (erratum §7.3).
    pub empty_tolerance: TimeVal,
    /// Probe size on the wire.
    pub probe_bytes: u32,
    /// A probe with no echo after this long is presumed lost and sent again.
    pub probe_timeout: TimeVal,
    /// Window after a probe that saw BaseRtt < delay < D_limit, in packets ([P] 1, [A] 0.5).
    pub restart_pkts: f64,
    /// Cap cwnd at the in-flight bytes at the target delay, D_target·LineRate ([A]).
    pub cwnd_cap: bool,
    /// Pace at cwnd/BaseRtt ([A], recommended by spec §2.4).
    pub pacing: bool,
    /// Adaptive increase every other round (false: every round, the Fig. 10c ablation).
    pub dual_rtt: bool,
    /// Flow-cardinality estimation (false: #flow stays 1, the Fig. 10b ablation).
    pub cardinality: bool,
    /// The wrapped algorithm: `swift` (reads `[transport.swift]`) or `ledbat` (reads
    /// `[transport.ledbat]`'s gain; spec §2.8).
    pub underlying: Underlying,
    /// [A]'s stop at a tiny window: when the wrapped algorithm leaves cwnd at or below
    /// this many packets, stop and probe after U(0, BaseRtt) (no #flow estimate), instead
    /// of trickling at a sub-packet paced rate. Absent: never ([P]; [A] uses 0.1).
    pub stop_below_pkts: Option<f64>,
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
            top_unlimited: true,
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
        if let Some(w) = self.linear_step {
            if !(w > 0.0 && w <= 1.0) {
                return Err(("linear_step", format!("{w}: allowed 0 < fraction of BaseBdp <= 1")));
            }
        }
        if self.filter == 0 {
            return Err(("filter", "allowed 1 or more consecutive samples".into()));
        }
        if self.empty_tolerance.0 >= self.fluctuation.0 + self.noise.0 {
            return Err(("empty_tolerance", "must be below the channel spacing A + B (erratum §7.3)".into()));
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

/// Channel of level `i` of `n` (§4.3.2): (D_target, D_limit); the limit is `None` (never
/// stop) for the top level when `top_unlimited`.
pub fn channel(i: u32, n: u32, base_rtt: Time, a: Time, b: Time, top_unlimited: bool) -> (Time, Option<Time>) {
    channel_with_gap(i, n, base_rtt, a, b, Time(a.0 / 2 + b.0), top_unlimited)
}

/// [`channel`] with D_limit − D_target = `gap` instead of A/2 + B.
pub fn channel_with_gap(
    i: u32,
    n: u32,
    base_rtt: Time,
    a: Time,
    b: Time,
    gap: Time,
    top_unlimited: bool,
) -> (Time, Option<Time>) {
    let target = base_rtt + Time((a.0 + b.0) * i as u64);
    (target, if top_unlimited && i >= n { None } else { Some(target + gap) })
}

/// Worst-case delay fluctuation of n synchronised Swift flows (paper App. D, with Swift's
/// `min` cap, erratum §7.5): n·W_AI/LineRate + min(n·β·W_AI/(LineRate·Target), max_mdf)·Target.
pub fn swift_fluctuation(n: f64, w_ai_bytes: f64, rate: Rate, beta: f64, max_mdf: f64, target: Time) -> Time {
    let bytes_per_s = rate.0 as f64 / 8.0;
    let t = target.as_secs_f64();
    let rise = n * w_ai_bytes / bytes_per_s;
    Time::from_secs_f64(rise + (n * beta * w_ai_bytes / (bytes_per_s * t)).min(max_mdf) * t)
}

/// W_LS of level i of n as a fraction of BaseBdp: the paper's high / medium / low steps
/// (§4.4) with the [A] flow-scheduling split (spec §2.5).
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
    /// Bytes per second of the line (the sender's, taken as the bottleneck: erratum §7.8).
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
    /// The adaptive-increase part of `w_ai`, bytes (W_AI_adapt of spec §2.8).
    w_adapt: f64,
    n_flow: f64,
    count_down: u32,
    consec: u32,
    stopped: bool,
    cwnd_before_stop: f64,
    probe_at: Option<Time>,
    /// When the probe now in flight left (`None`: no probe in flight). A stopped flow has
    /// at most one probe out: the next is scheduled from its echo (spec §2.9 item 5).
    probe_sent_at: Option<Time>,
    snd_nxt: u32,
    rng: Rng,
    last_delay: Time,
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
        let (target, limit) = channel_with_gap(i, n, info.base_rtt, a, b, gap, p.top_unlimited);
        let line_bps = info.bottleneck.0 as f64 / 8.0;
        let base_bdp = line_bps * info.base_rtt.as_secs_f64();
        let mtu = info.mtu as f64;
        let is_top = limit.is_none();
        let step = if is_top { 1.0 } else { p.linear_step.unwrap_or_else(|| preset_linear_step(i, n)) };
        let w_ls = step * base_bdp;
        // Swift with target D_target, no flow scaling, W_AI as its AI step; the window
        // bounds are PrioPlus's (stopping is cwnd = 0, handled here).
        let sp = SwiftParams {
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
        let stopped = !(is_top || i + direct > n);
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
            // U(0, BaseRtt) (§2.6, on_flow_start).
            probe_at: None,
            probe_sent_at: None,
            snd_nxt: 0,
            rng: Rng::stream(info.seed, "prioplus"),
            last_delay: Time::ZERO,
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
            // In-flight bytes at this delay over our own share (erratum §7.8: the window
            // from before the stop). The share is at least one packet: a window below an
            // MTU still puts whole packets on the wire. Without that floor a flow restarted
            // at W_LS/#flow of a few bytes re-estimates #flow from that sliver, restarts
            // smaller still, and #flow runs away (to millions, with 240 flows in the
            // Fig. 10a staircase), leaving the level unable to send for milliseconds.
            let total = delay.as_secs_f64() * self.line_bps;
            self.n_flow = self.n_flow.max(total / self.cwnd_before_stop.max(self.mtu));
        }
        self.w_ai = self.p.ai_bytes / self.n_flow;
        self.w_adapt = 0.0;
        self.count_down = (self.base_bdp / self.w_ls).ceil() as u32;
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

    fn ecn_capable(&self) -> bool {
        self.inner.ecn_capable()
    }

    fn on_ack(&mut self, a: &AckSample) {
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

    fn uses_probes(&self) -> bool {
        true
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
mod tests {
    use super::*;

    const US: fn(u64) -> Time = Time::from_us;

    /// The spec's reference setting (§6): 100 Gbps, BaseRtt 12 µs, 1 KB packets.
    fn info(priority: u8, levels: u8) -> FlowInfo {
        FlowInfo {
            priority,
            levels,
            seed: 7,
            ..crate::cc::test_info(1000, 10_000, US(12), 2, Rate::gbps(100), 1 << 20)
        }
    }

    fn ack(now: Time, rtt: Time, cum_ack: u32, snd_nxt: u32) -> AckSample {
        AckSample {
            now,
            newly_acked: 1000,
            ece: false,
            rtt,
            cum_ack,
            snd_nxt,
            in_flight: 0,
            in_flight_before: u64::MAX / 4,
        }
    }

    /// AC1: N = 8, BaseRtt = 12 µs gives D_target^1 = 16 µs, D_limit^1 = 18.4 µs,
    /// D_target^8 = 44 µs and no limit at the top (spec §2.2 table); for any N the
    /// channels nest: D_limit^{i−1} < D_target^i < D_limit^i.
    #[test]
    fn ac1_channel_math() {
        let (a, b) = (Time::from_ns(3200), Time::from_ns(800));
        assert_eq!(channel(1, 8, US(12), a, b, true), (US(16), Some(Time::from_ns(18_400))));
        assert_eq!(channel(8, 8, US(12), a, b, true), (US(44), None));
        assert_eq!(channel(7, 8, US(12), a, b, true), (US(40), Some(Time::from_ns(42_400))));
        for n in 1..=40 {
            for i in 2..=n {
                let (_, lower_limit) = channel(i - 1, n, US(12), a, b, true);
                let (target, limit) = channel(i, n, US(12), a, b, true);
                assert!(lower_limit.unwrap() < target, "n {n} i {i}");
                assert!(limit.is_none_or(|l| target < l), "n {n} i {i}");
            }
        }
        // The PrioPlus flow takes its channel from its level and the scenario's levels.
        let f = PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(3, 8));
        assert_eq!(f.channel(), (US(24), Some(Time::from_ns(26_400))));
    }

    /// `limit_gap` replaces A/2 + B and keeps the spacing A + B: the artefact's Fig. 10d
    /// channel of width 10 KB and interval 20 KB at 100 Gbps (0.8 and 1.6 µs) at level 3 of
    /// 8 is target 3·2.4 = 7.2 µs over BaseRtt, limit 0.8 µs above it. A gap that reaches the
    /// next target is refused.
    #[test]
    fn limit_gap_overrides_a_half_plus_b() {
        let p = PrioPlusParams {
            fluctuation: TimeVal(Time::from_ns(2400)),
            noise: TimeVal(Time::ZERO),
            limit_gap: Some(TimeVal(Time::from_ns(800))),
            ..PrioPlusParams::default()
        };
        assert!(p.validate().is_ok());
        let f = PrioPlus::new(&p, &SwiftParams::default(), &info(3, 8));
        assert_eq!(f.channel(), (Time::from_ns(19_200), Some(Time::from_ns(20_000))));
        let wide = PrioPlusParams { limit_gap: Some(TimeVal(Time::from_ns(2400))), ..p.clone() };
        assert_eq!(wide.validate().unwrap_err().0, "limit_gap");
        // Absent, the gap is A/2 + B as before.
        let d = PrioPlusParams::default();
        let g = PrioPlus::new(&d, &SwiftParams::default(), &info(3, 8)).channel();
        assert_eq!(g.1.unwrap() - g.0, Time::from_ns(2400));
    }

    /// AC2: the fluctuation bound (App. D, `min` form, erratum §7.5) for n = 150,
    /// W_AI = 150 B, 100 G, β = 0.8, max_mdf = 0.5, target 4 µs is 3.24 µs ± 0.01; with the
    /// artefact's W_AI = 180 B it is 3.89 µs (spec §2.9 item 3).
    #[test]
    fn ac2_swift_fluctuation_formula() {
        let f = swift_fluctuation(150.0, 150.0, Rate::gbps(100), 0.8, 0.5, US(4));
        assert!((f.as_us_f64() - 3.24).abs() <= 0.01, "{f}");
        let f = swift_fluctuation(150.0, 180.0, Rate::gbps(100), 0.8, 0.5, US(4));
        assert!((f.as_us_f64() - 3.89).abs() <= 0.01, "{f}");
    }

    /// Potential backlog max_a ∫_a^{a+τ} [r(t) − r(a)] dt of a ramp r (rate before 0 is 0,
    /// after T it stays R), by midpoint sums.
    fn max_backlog(r: &dyn Fn(f64) -> f64, t_end: f64, tau: f64) -> f64 {
        let steps = 4000;
        let dt = tau / steps as f64;
        let mut best = 0.0f64;
        let mut a = -tau;
        while a <= t_end {
            let ra = r(a);
            let b: f64 = (0..steps).map(|k| r(a + (k as f64 + 0.5) * dt) - ra).sum::<f64>() * dt;
            best = best.max(b);
            a += tau / 50.0;
        }
        best
    }

    /// AC3 (Theorem 4.1 / C.1): among ramps from 0 to R over T = nτ, the linear ramp has
    /// the smallest worst-case potential backlog, R·τ²/(2T) = BDP/(2n); the doubling ramp
    /// and the step at start are worse. PrioPlus's linear start is that ramp: n = BaseBdp/W_LS
    /// rounds of +W_LS.
    #[test]
    fn ac3_linear_start_is_optimal() {
        let (rate, tau, n) = (1.0, 1.0, 8.0);
        let t_end = n * tau;
        let clamp = |t: f64, v: f64| {
            if t < 0.0 {
                0.0
            } else if t >= t_end {
                rate
            } else {
                v
            }
        };
        let linear = |t: f64| clamp(t, rate * t / t_end);
        let doubling = |t: f64| clamp(t, rate * 2f64.powf((t - t_end) / tau));
        let step = |t: f64| clamp(t, rate);
        let (bl, be, bs) =
            (max_backlog(&linear, t_end, tau), max_backlog(&doubling, t_end, tau), max_backlog(&step, t_end, tau));
        let bdp = rate * tau;
        assert!((bl - bdp / (2.0 * n)).abs() < 0.01 * bdp / (2.0 * n), "linear {bl}");
        assert!(bl < be && be < bs, "linear {bl}, doubling {be}, step {bs}");
        // W_LS = 0.125 BDP: 8 rounds to line rate (spec §2.7(b) example).
        let p = PrioPlusParams { linear_step: Some(0.125), ..PrioPlusParams::default() };
        let f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        assert!((f.base_bdp / f.w_ls - 8.0).abs() < 1e-9);
    }

    /// AC4: ScheduleProbe(delay) waits delay − D_target + U(0, BaseRtt): at delay =
    /// D_limit + 5 µs on level 1 of 8 the mean over 10⁴ draws is 7.4 + 6 µs (± 2 %) and
    /// every wait lies in [7.4, 19.4] µs.
    #[test]
    fn ac4_probe_timing() {
        let mut f = PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(1, 8));
        let delay = f.channel().1.unwrap() + US(5);
        let waits: Vec<f64> = (0..10_000).map(|_| f.probe_wait(delay).as_us_f64()).collect();
        let mean = waits.iter().sum::<f64>() / waits.len() as f64;
        assert!((mean - 13.4).abs() <= 0.02 * 13.4, "mean wait {mean} µs");
        assert!(waits.iter().all(|&w| (7.4 - 1e-9..=19.4 + 1e-9).contains(&w)));
        // Below the target the first term is clamped to 0 (erratum §7.6).
        assert!(f.probe_wait(US(12)) <= US(12));
    }

    /// The 2-sample filter (§4.3.1, erratum §7.2): one sample above D_limit does not stop
    /// the flow, two in a row do; the stop estimates #flow = delay·LineRate/cwnd (§4.3.1)
    /// and sets the countdown to BaseBdp/W_LS; a probe echo on an empty queue restarts it
    /// at W_LS/#flow.
    #[test]
    fn filter_stop_estimate_and_restart() {
        let p = PrioPlusParams { linear_step: Some(0.125), ..PrioPlusParams::default() };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.set_cwnd_bytes(25_000.0);
        let high = US(20); // above D_limit^1 = 18.4 µs
        f.on_ack(&ack(US(100), high, 1, 10));
        assert!(!f.is_stopped(), "one sample must not stop the flow");
        f.on_ack(&ack(US(101), US(17), 2, 10));
        f.on_ack(&ack(US(102), high, 3, 10));
        assert!(!f.is_stopped(), "the filter counts consecutive samples");
        let before = f.cwnd_bytes();
        f.on_ack(&ack(US(103), high, 4, 10));
        assert!(f.is_stopped());
        assert_eq!(f.cwnd(), 0);
        // 20 µs × 12.5 B/ns = 250 KB in flight over our window.
        let want = 250_000.0 / before;
        assert!((f.flow_estimate() - want).abs() < 1e-6 * want, "{} vs {want}", f.flow_estimate());
        assert_eq!(f.count_down, 8);
        let t = f.probe_at().unwrap();
        assert!(t >= US(103) + US(4) && t <= US(103) + US(16), "probe at {t}");
        // Echo still above the limit: the probe is rescheduled.
        f.on_probe_sent(t);
        f.on_probe_ack(t + US(20), US(19));
        assert!(f.is_stopped());
        // Echo on an empty queue: linear start from W_LS/#flow, one countdown round used.
        f.on_probe_sent(t + US(40));
        f.on_probe_ack(t + US(52), US(12));
        assert!(!f.is_stopped());
        let w_ls = 0.125 * 150_000.0;
        assert!((f.cwnd_bytes() - w_ls / want).abs() < 1.0);
        assert_eq!(f.count_down, 7);
        // A mid-range echo (BaseRtt < delay < D_limit) restarts at one packet (§4.4).
        f.on_ack(&ack(US(200), high, 5, 10));
        f.on_ack(&ack(US(201), high, 6, 10));
        assert!(f.is_stopped());
        f.on_probe_ack(US(250), US(15));
        assert!((f.cwnd_bytes() - 1000.0).abs() < 1e-6);
    }

    /// The cardinality estimate #flow = delay·LineRate/cwnd (§4.3.1) counts a flow's share
    /// as at least one packet: a flow restarted at W_LS/#flow below one MTU still sends
    /// whole packets. So the estimate never exceeds the packets in flight at that delay,
    /// delay·LineRate/MTU, and cannot feed on its own shrinking restarts.
    #[test]
    fn flow_estimate_counts_at_least_one_packet_per_flow() {
        // No filter: the first sample above D_limit^1 stops the flow, before Swift acts.
        let p = PrioPlusParams { linear_step: Some(0.125), filter: 1, ..PrioPlusParams::default() };
        let delay = US(44);
        let stop_at = |cwnd: f64| {
            let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
            f.stopped = false;
            f.set_cwnd_bytes(cwnd);
            f.on_ack(&ack(US(100), delay, 1, 10));
            assert!(f.is_stopped());
            f.flow_estimate()
        };
        // Linear start at W_LS/#flow = 18.75 KB / 50 = 375 B: 44 µs × 12.5 B/ns = 550 KB
        // in flight holds at most 550 one-packet flows (not 550 KB / 375 B = 1467).
        let n = stop_at(375.0);
        assert!((n - 550.0).abs() < 1e-6, "{n}");
        // A window above one packet is used as it is.
        let n = stop_at(5_000.0);
        assert!((n - 110.0).abs() < 1e-6, "{n}");
    }

    /// Spec §2.9 item 5 (and AC12): a stopped flow sends its next probe only after the
    /// previous probe's echo returns. ACKs of data still in flight that arrive above
    /// D_limit after a probe has left re-estimate #flow but must not schedule a second
    /// probe; the echo does. The loss guard (probe timeout) stays armed meanwhile.
    #[test]
    fn late_data_acks_do_not_send_a_second_probe() {
        let p = PrioPlusParams { linear_step: Some(0.125), filter: 1, ..PrioPlusParams::default() };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.set_cwnd_bytes(25_000.0);
        let high = US(30); // above D_limit^1 = 18.4 µs
        f.on_ack(&ack(US(100), high, 1, 30));
        assert!(f.is_stopped());
        let first = f.probe_at().unwrap();
        f.on_probe_sent(first);
        let guard = first + p.probe_timeout.0;
        assert_eq!(f.probe_at(), Some(guard));
        // Data sent before the stop is still being acknowledged, above the limit.
        let estimate = f.flow_estimate();
        f.on_ack(&ack(first + US(1), US(40), 2, 30));
        assert_eq!(f.probe_at(), Some(guard), "a probe is in flight: no new one before its echo");
        assert!(f.flow_estimate() > estimate, "the late ACK still re-estimates #flow");
        // The echo, still above the limit, schedules the next probe after the usual wait.
        let echo_at = first + US(30);
        f.on_probe_ack(echo_at, high);
        let next = f.probe_at().unwrap();
        assert!(next >= echo_at + (high - f.channel().0) && next <= echo_at + (high - f.channel().0) + US(12));
        // With no probe in flight, a high data ACK schedules one itself.
        f.on_ack(&ack(echo_at + US(1), high, 3, 30));
        assert!(f.probe_at().unwrap() < echo_at + US(1) + p.probe_timeout.0);
        // A probe left before a resume: if the flow stops again before the echo is back,
        // the echo (not the stop) schedules the next probe.
        let t = f.probe_at().unwrap();
        f.on_probe_sent(t);
        f.on_ack(&ack(t + US(1), US(15), 4, 30));
        assert!(!f.is_stopped(), "a below-limit data ACK resumes the flow");
        f.on_ack(&ack(t + US(2), high, 5, 31));
        assert!(f.is_stopped());
        assert_eq!(f.probe_at(), Some(t + p.probe_timeout.0));
        f.on_probe_ack(t + US(25), high);
        assert!(f.probe_at().unwrap() < t + US(25) + US(30));
    }

    /// Rounds (Algorithm 1 lines 2–4): a round ends when the PSN that was next at its start
    /// is acknowledged; the dual-RTT flag alternates, so adaptive increase acts in every
    /// other round. The countdown halves #flow only after BaseBdp/W_LS empty rounds.
    #[test]
    fn rounds_alternate_and_countdown_halves_the_estimate() {
        let mut r = Rounds::default();
        r.restart(10);
        assert!(!r.on_ack(10, 12), "PSN 10 not yet acknowledged");
        assert!(r.on_ack(11, 20) && r.dual_pass);
        assert!(!r.on_ack(15, 22));
        assert!(r.on_ack(21, 30) && !r.dual_pass);
        let p = PrioPlusParams { linear_step: Some(0.125), ..PrioPlusParams::default() };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.n_flow = 8.0;
        f.count_down = 2;
        f.count_empty_round();
        f.count_empty_round();
        assert_eq!(f.n_flow, 8.0);
        f.count_empty_round();
        assert_eq!(f.n_flow, 4.0, "halved (erratum §7.1), not doubled");
    }

    /// Start rules (§2.6, erratum §7.7): the top level never stops and starts at one
    /// BaseBdp; the top eighth starts at once; lower levels wait for a first probe within
    /// U(0, BaseRtt) of their start.
    #[test]
    fn start_rules_by_level() {
        let sp = SwiftParams::default();
        let top = PrioPlus::new(&PrioPlusParams::default(), &sp, &info(8, 8));
        assert_eq!(top.channel().1, None);
        assert!(!top.is_stopped());
        assert!((top.cwnd_bytes() - 150_000.0).abs() < 1.0);
        let low = PrioPlus::new(&PrioPlusParams::default(), &sp, &info(2, 8));
        assert!(low.is_stopped());
        assert_eq!(low.cwnd(), 0);
        assert!(low.probe_at().unwrap() < US(12));
        let direct = PrioPlusParams { direct_start_levels: Some(4), ..PrioPlusParams::default() };
        let mid = PrioPlus::new(&direct, &sp, &info(5, 8));
        assert!(!mid.is_stopped());
        assert!((mid.cwnd_bytes() - 0.25 * 150_000.0).abs() < 1.0, "W_LS preset 0.25 BDP at level 5 of 8");
    }
    /// [A]'s stop at a tiny window (`stop_below_pkts`, spec §2.10): off by default, Swift's
    /// decrease may leave a sub-packet window that trickles; with 0.1 packets, a decrease
    /// to or below 0.1 packets stops the flow (cwnd 0) without touching #flow, the probe
    /// goes out within U(0, BaseRtt), and an empty-queue echo restarts it at W_LS/#flow.
    #[test]
    fn stop_below_a_tiny_window_when_asked() {
        let run = |stop_below: Option<f64>| {
            let p =
                PrioPlusParams { linear_step: Some(0.125), stop_below_pkts: stop_below, ..PrioPlusParams::default() };
            let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
            f.stopped = false;
            f.n_flow = 4.0;
            f.set_cwnd_bytes(150.0); // 0.15 packets
                                     // 17 µs: above D_target^1 = 16 µs, below D_limit^1: Swift decreases by
                                     // min(0.8·1/17, 0.5) = 4.7 %, to 0.143 packets; then once per RTT again.
            let mut t = US(100);
            for k in 0..40u32 {
                f.on_ack(&ack(t, US(17), k + 1, k + 2));
                t = t + US(13);
                if f.is_stopped() {
                    break;
                }
            }
            (f, t)
        };
        let (f, _) = run(None);
        assert!(!f.is_stopped(), "[P]: no stop below the limit");
        assert!(f.cwnd_bytes() < 100.0 && f.cwnd() > 0, "{}", f.cwnd_bytes());
        let (mut f, t) = run(Some(0.1));
        assert!(f.is_stopped());
        assert_eq!(f.cwnd(), 0);
        assert_eq!(f.flow_estimate(), 4.0, "#flow untouched");
        assert!(f.cwnd_before_stop <= 100.0);
        let at = f.probe_at().unwrap();
        assert!(at <= t + US(12), "probe at {at}, stop before {t}");
        f.on_probe_sent(at);
        f.on_probe_ack(at + US(12), US(12));
        assert!(!f.is_stopped());
        assert!((f.cwnd_bytes() - 0.125 * 150_000.0 / 4.0).abs() < 1.0);
        let bad = PrioPlusParams { stop_below_pkts: Some(1.5), ..PrioPlusParams::default() };
        assert_eq!(bad.validate().unwrap_err().0, "stop_below_pkts");
    }

    /// Spec §2.8 (PrioPlus over LEDBAT, from [A]): per ACK
    /// cwnd += gain·(D_target − d)/(D_target − BaseRtt)·MTU/cwnd_pkts·s + W_AI_adapt/cwnd_pkts,
    /// s = min(1, 5/#flow). Level 1 of 8 (D_target 16 µs, BaseRtt 12 µs), #flow 10 (s = ½),
    /// cwnd 20 packets, d = 14 µs: the first ACK closes an adaptive round, so W_AI_adapt =
    /// min(cwnd/2, (16 − 14)/14·cwnd) = 20/7 packets, and the window grows by
    /// 2/4·1/20·½ + (20/7)/20 packets; the next ACK (no round end) by the same formula at the
    /// new window. The default stays Swift.
    #[test]
    fn ledbat_underlying_follows_the_spec_update() {
        let p = PrioPlusParams { underlying: Underlying::Ledbat, ..PrioPlusParams::default() };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        assert_eq!(f.inner.name(), "ledbat");
        assert_eq!(
            PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(1, 8)).inner.name(),
            "swift"
        );
        f.stopped = false;
        f.n_flow = 10.0;
        f.set_cwnd_bytes(20_000.0);
        f.on_ack(&ack(US(100), US(14), 1, 10));
        let adapt = 20.0 / 7.0;
        let want = 20.0 + 0.5 * (1.0 / 20.0) * 0.5 + adapt / 20.0;
        assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
        f.on_ack(&ack(US(101), US(14), 2, 10));
        let want = want + (0.5 * 0.5 + adapt) / want;
        assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
        // Above the target LEDBAT decreases, in proportion to (d − D_target)/(D_target − BaseRtt).
        let before = f.cwnd_bytes() / 1000.0;
        f.on_ack(&ack(US(102), US(18), 3, 10));
        let want = before + (-0.5 * 0.5 + adapt) / before;
        assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
        // Two samples at or above D_limit^1 = 18.4 µs stop it, as over Swift.
        f.on_ack(&ack(US(103), US(19), 4, 10));
        f.on_ack(&ack(US(104), US(19), 5, 10));
        assert!(f.is_stopped());
    }
}
