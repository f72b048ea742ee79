//! Swift (Kumar et al., SIGCOMM 2020, Algorithm 1; spec `dctcp-vs-swift.md` §2.4 and
//! `mswift-mnscc.md` §2.3) and the two variants of "Congestion Control for Spraying with
//! Congested Paths" (Gerstein, Silberstein, Keslassy; arXiv 2509.07907 v2, §III):
//!
//! - **Swift**: additive increase of `ai` packets per RTT while the delay is below the
//!   target; otherwise a multiplicative decrease 1 − β·(delay − target)/delay, at most
//!   `max_mdf`, at most once per RTT. Every SACK-detected loss also cuts by `max_mdf`
//!   (once per RTT), so reordering from spraying costs it throughput (the paper's Thm 3).
//! - **LSwift** (§2.4): a loss cuts only when it belongs to a run of at least `loss_run`
//!   consecutive lost packets (LTCP-U style), so isolated reordering is forgiven.
//! - **MSwift** (§2.6): LSwift deciding on a percentile (the median by default) of the
//!   last H delays, H = max(⌊cwnd/2⌋, 1) (the paper's Nyquist rule), so a minority of
//!   packets on a congested path does not trigger decreases (Thm 6).
//!
//! The window is kept in packets (f64) and reported in wire bytes. The target is
//! base_target + topology term + flow scaling fs(cwnd) = clamp(α/√cwnd + β', 0, fs_range),
//! with α, β' chosen so that fs(fs_min_cwnd) = fs_range and fs(fs_max_cwnd) = 0. Below one
//! packet of window the sender paces at one packet per srtt/cwnd. The fabric delay is the
//! whole RTT sample: dcnsim hosts add no endpoint delay, so Swift's endpoint window never
//! binds (spec §2.4.1) and is not modelled.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use super::median::{nyquist_history, PercentileWindow};
use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::scenario::TimeVal;
use crate::units::{Rate, Time};

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
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            S(String),
        }
        match Raw::deserialize(d).map_err(|_| de::Error::custom("allowed: \"auto\" or a number of ACKs >= 1"))? {
            Raw::S(s) if s == "auto" => Ok(History::Auto),
            Raw::N(n) if (1..=100_000).contains(&n) => Ok(History::Fixed(n as u32)),
            _ => Err(de::Error::custom("allowed: \"auto\" or a number of ACKs from 1 to 100000")),
        }
    }
}

/// Parameters of the Swift family. Defaults: the Swift paper and the htsim Swift the MSwift
/// paper builds on (spec `mswift-mnscc.md` §2.3).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwiftParams {
    /// Additive increase, packets per RTT.
    pub ai: f64,
    /// Gain of the delay-based multiplicative decrease.
    pub beta: f64,
    /// Largest multiplicative decrease of one event (0.5 = halve).
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
    /// Flow scaling: the target grows by up to `fs_range` as the window shrinks from
    /// `fs_max_cwnd` to `fs_min_cwnd` packets (0 turns it off).
    pub fs_range: TimeVal,
    pub fs_min_cwnd: f64,
    pub fs_max_cwnd: f64,
    /// Data packets carry ECT (marks are ignored; REPS and RED queues need it).
    pub ecn_capable: bool,
    /// LSwift/MSwift: consecutive lost packets that make a loss a congestion signal.
    pub loss_run: u32,
    /// How long a hole must stay unfilled before it counts as lost.
    pub reorder_wait: TimeVal,
    /// MSwift: delays the decision looks at.
    pub history: History,
    /// MSwift: which percentile of them (50 = median; the paper also tries 10 and 90).
    pub percentile: u32,
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
            fs_range: TimeVal(Time::from_us(5)),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ecn_capable: true,
            loss_run: 5,
            reorder_wait: TimeVal(Time::ZERO),
            history: History::Auto,
            percentile: 50,
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
        if !(self.max_mdf > 0.0 && self.max_mdf < 1.0) {
            return Err(("max_mdf", format!("{}: allowed 0 < max_mdf < 1", self.max_mdf)));
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
    /// Target without flow scaling.
    base: Time,
    fs_alpha: f64,
    fs_beta: f64,
    cwnd: f64,
    srtt: Option<Time>,
    t_last_decrease: Time,
    retransmit_cnt: u32,
    /// LSwift/MSwift: the highest PSN of the last loss run already answered.
    handled_through: Option<u32>,
    window: Option<PercentileWindow>,
    last_decision_delay: Time,
    delay_md: u64,
    loss_md: u64,
    timeout_md: u64,
}

impl Swift {
    pub fn new(p: &SwiftParams, variant: Variant, info: &FlowInfo) -> Swift {
        let topology = match p.per_hop {
            Some(h) => Time(h.0 .0 * info.hops as u64),
            None => info.base_rtt,
        };
        let base = p.fixed_target.map(|t| t.0).unwrap_or(p.base_target.0 + topology);
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
            fs_alpha,
            fs_beta: -fs_alpha / p.fs_max_cwnd.sqrt(),
            cwnd: (info.initial_window as f64 / info.mtu as f64).clamp(p.min_cwnd_pkts, p.max_cwnd_pkts),
            srtt: None,
            t_last_decrease: Time::ZERO,
            retransmit_cnt: 0,
            handled_through: None,
            window,
            last_decision_delay: Time::ZERO,
            delay_md: 0,
            loss_md: 0,
            timeout_md: 0,
        }
    }

    /// Window in packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
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

    /// The delay target at window `w` packets.
    pub fn target(&self, w: f64) -> Time {
        self.base + self.flow_scaling(w)
    }

    fn can_decrease(&self, now: Time) -> bool {
        self.srtt.is_none_or(|r| now >= self.t_last_decrease + r)
    }

    fn finish(&mut self, before: f64, now: Time) {
        self.cwnd = self.cwnd.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
        // Strictly smaller: an ACK that could not decrease must not restart the clock
        // (the specs' erratum to Algorithm 1's `<=`, mswift-mnscc.md §7).
        if self.cwnd < before {
            self.t_last_decrease = now;
        }
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

    fn ecn_capable(&self) -> bool {
        self.p.ecn_capable
    }

    fn reorder_wait(&self) -> Time {
        self.p.reorder_wait.0
    }

    fn on_ack(&mut self, a: &AckSample) {
        // Gate on the RTT estimate from before this sample (as htsim's Swift does).
        let can_decrease = self.can_decrease(a.now);
        if a.rtt > Time::ZERO {
            self.srtt = Some(match self.srtt {
                None => a.rtt,
                Some(s) => Time((7 * s.0 + a.rtt.0) / 8),
            });
        }
        self.retransmit_cnt = 0;
        let before = self.cwnd;
        let acked = a.newly_acked as f64 / self.mtu as f64;
        let target = self.target(self.cwnd);
        let delay = self.decision_delay(a.rtt);
        self.last_decision_delay = delay;
        if delay < target {
            self.cwnd += if self.cwnd >= 1.0 { self.p.ai * acked / self.cwnd } else { self.p.ai * acked };
        } else if can_decrease {
            let d = delay.as_secs_f64();
            let excess = (d - target.as_secs_f64()) / d;
            self.cwnd *= (1.0 - self.p.beta * excess).max(1.0 - self.p.max_mdf);
            self.delay_md += 1;
        }
        self.finish(before, a.now);
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        self.retransmit_cnt = 0;
        let before = self.cwnd;
        let can_decrease = self.can_decrease(ev.now);
        let congestion = match self.variant {
            Variant::Swift => true,
            Variant::LSwift | Variant::MSwift => {
                let mut long_run = false;
                for &(lo, hi) in ev.runs {
                    let fresh = self.handled_through.is_none_or(|h| lo > h);
                    if hi - lo + 1 >= self.p.loss_run && fresh {
                        // Answered once, even when a recent decrease already covered it.
                        self.handled_through = Some(hi);
                        long_run = true;
                        break;
                    }
                }
                long_run
            }
        };
        if congestion && can_decrease {
            self.cwnd *= 1.0 - self.p.max_mdf;
            self.loss_md += 1;
        }
        self.finish(before, ev.now);
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
        self.finish(before, now);
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
    }
}
