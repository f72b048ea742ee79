//! LEDBAT (RFC 6817, "Low Extra Delay Background Transport", §2.4 and the pseudo-code of
//! §2.4.2; docs/models/ledbat.md, and docs/models/prioplus.md for PrioPlus over LEDBAT).
//!
//! A linear controller on the queueing delay: per ACK,
//!
//! ```text
//! queuing_delay = min(last CURRENT_FILTER delays) − min(BASE_HISTORY interval minima)
//! off_target    = (TARGET − queuing_delay) / TARGET
//! cwnd         += GAIN · off_target · bytes_newly_acked · MSS / cwnd
//! cwnd          = min(cwnd, flightsize + ALLOWED_INCREASE · MSS);  cwnd ≥ MIN_CWND · MSS
//! ```
//!
//! so over one window of ACKs the window grows by GAIN·MSS when the queue is empty and
//! shrinks by GAIN·MSS·(q − TARGET)/TARGET when the queue is q > TARGET. A loss halves the
//! window (at most once per RTT, never below MIN_CWND); a retransmission timeout sets it to
//! one MSS (RFC 6817 §2.4.2, as TCP does).
//!
//! Delay signal: RFC 6817 uses one-way delay; dcnsim's ACK carries the round-trip time, so
//! the delay here is the RTT sample. Its minimum (the base) cancels the fixed part, so the
//! queueing delay is the forward plus reverse queueing, which equals the forward (OWD)
//! queueing delay whenever ACKs do not queue (per-packet ACKs at top priority, or an idle
//! reverse path, as in the PrioPlus reference setups).
//!
//! Datacenter parameters (PrioPlus paper §6.2; docs/models/ledbat.md): TARGET from 4 µs (lowest priority) to
//! 32 µs (highest) above the base, GAIN 1, MIN_CWND 2 packets, the window starting at one
//! BDP, a 4-sample current filter. RFC 6817's base history (10 one-minute minima) is kept;
//! at datacenter time scales it is the flow's minimum.

use serde::{Deserialize, Serialize};

use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::units::values::TimeVal;
use crate::units::Time;

/// Parameters of LEDBAT; defaults are RFC 6817's, with the datacenter TARGET and initial
/// window of the PrioPlus paper's LEDBAT baseline (docs/models/ledbat.md).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LedbatParams {
    /// TARGET: the queueing delay the controller aims at. Absent: by the flow's priority
    /// level i of N, evenly from `preset_low` (i = 1) to `preset_high` (i = N), as the
    /// paper's LEDBAT baseline sets 4…32 µs (§6.2); flows without a level get
    /// `preset_high`. (RFC 6817 caps TARGET at 100 ms, an Internet value.)
    pub target: Option<TimeVal>,
    /// TARGET of the lowest priority level when `target` is absent.
    pub preset_low: TimeVal,
    /// TARGET of the highest priority level (and of flows without one).
    pub preset_high: TimeVal,
    /// GAIN: window change per RTT, in MSS, at a queueing delay of zero (RFC: at most 1).
    pub gain: f64,
    /// CURRENT_FILTER: the current delay is the minimum of this many last samples.
    pub current_filter: u32,
    /// BASE_HISTORY: the base delay is the minimum over this many intervals.
    pub base_history: u32,
    /// Length of one base-history interval (RFC: one minute).
    pub base_interval: TimeVal,
    /// ALLOWED_INCREASE: the window may exceed the bytes in flight by at most this many
    /// packets (RFC 6817: 1). Absent: no cap.
    pub allowed_increase: Option<f64>,
    /// MIN_CWND, packets (RFC 6817 and the PrioPlus baseline: 2).
    pub min_cwnd_pkts: f64,
    /// Upper bound of the window, packets.
    pub max_cwnd_pkts: f64,
    /// Start at one BDP of the bottleneck (the PrioPlus artefact's); false: the transport's
    /// `initial_window`.
    pub start_at_bdp: bool,
    /// Data packets carry ECT (marks are ignored; RED queues then mark rather than drop).
    pub ecn_capable: bool,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams {
            target: None,
            preset_low: TimeVal(Time::from_us(4)),
            preset_high: TimeVal(Time::from_us(32)),
            gain: 1.0,
            current_filter: 4,
            base_history: 10,
            base_interval: TimeVal(Time::from_ms(60_000)),
            allowed_increase: Some(1.0),
            min_cwnd_pkts: 2.0,
            max_cwnd_pkts: 1e6,
            start_at_bdp: true,
            ecn_capable: true,
        }
    }
}

impl LedbatParams {
    /// Checks ranges; `Err` names the field and what is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.target.is_some_and(|t| t.0 == Time::ZERO) {
            return Err(("target", "must be positive".into()));
        }
        if self.preset_low.0 == Time::ZERO || self.preset_high.0 < self.preset_low.0 {
            return Err(("preset_high", "allowed 0 < preset_low <= preset_high".into()));
        }
        if !(self.gain > 0.0 && self.gain <= 1.0) {
            return Err(("gain", format!("{}: allowed 0 < gain <= 1 (RFC 6817 §2.4.2)", self.gain)));
        }
        if self.current_filter == 0 || self.base_history == 0 {
            return Err(("current_filter", "current_filter and base_history must be at least 1".into()));
        }
        if self.base_interval.0 == Time::ZERO {
            return Err(("base_interval", "must be positive".into()));
        }
        if let Some(a) = self.allowed_increase {
            if !(a > 0.0 && a.is_finite()) {
                return Err(("allowed_increase", format!("{a}: must be positive (or absent: no cap)")));
            }
        }
        if !(self.min_cwnd_pkts > 0.0 && self.max_cwnd_pkts >= self.min_cwnd_pkts) {
            return Err(("min_cwnd_pkts", "allowed 0 < min_cwnd_pkts <= max_cwnd_pkts".into()));
        }
        Ok(())
    }

    /// TARGET of level `i` of `n` (0: no level, treated as the highest).
    pub fn target_for(&self, i: u32, n: u32) -> Time {
        if let Some(t) = self.target {
            return t.0;
        }
        let (lo, hi) = (self.preset_low.0, self.preset_high.0);
        if i == 0 || n <= 1 || i >= n {
            return hi;
        }
        lo + Time((hi.0 - lo.0) * (i as u64 - 1) / (n as u64 - 1))
    }
}

pub struct Ledbat {
    p: LedbatParams,
    mtu: f64,
    target: Time,
    /// Window, packets.
    cwnd: f64,
    /// The last `current_filter` delay samples (ring).
    current: Vec<Time>,
    current_next: usize,
    /// Minimum delay of each of the last `base_history` intervals, oldest first, and the
    /// index of the newest interval.
    base: Vec<Time>,
    base_interval_idx: u64,
    /// A fixed base delay (set by a wrapper that knows the unloaded RTT); overrides `base`.
    fixed_base: Option<Time>,
    /// Multiplies the off-target term (PrioPlus's s = min(1, 5/#flow); 1 alone).
    scale: f64,
    /// Extra increase, packets per RTT (PrioPlus's adaptive step; 0 alone).
    extra_ai: f64,
    srtt: Option<Time>,
    t_last_decrease: Option<Time>,
    last_queueing: Time,
    losses: u64,
}

impl Ledbat {
    pub fn new(p: &LedbatParams, info: &FlowInfo) -> Ledbat {
        let mtu = info.mtu as f64;
        let bdp = info.bottleneck.0 as f64 / 8.0 * info.base_rtt.as_secs_f64();
        let start = if p.start_at_bdp { bdp } else { info.initial_window as f64 };
        Ledbat {
            target: p.target_for(info.priority as u32, info.levels as u32),
            cwnd: (start / mtu).clamp(p.min_cwnd_pkts, p.max_cwnd_pkts),
            current: Vec::with_capacity(p.current_filter as usize),
            current_next: 0,
            base: Vec::with_capacity(p.base_history as usize),
            base_interval_idx: 0,
            fixed_base: None,
            scale: 1.0,
            extra_ai: 0.0,
            srtt: None,
            t_last_decrease: None,
            last_queueing: Time::ZERO,
            losses: 0,
            mtu,
            p: p.clone(),
        }
    }

    pub fn target(&self) -> Time {
        self.target
    }

    /// Window in packets.
    pub fn cwnd_pkts(&self) -> f64 {
        self.cwnd
    }

    /// Sets the window (packets, clamped to the bounds).
    pub fn set_cwnd_pkts(&mut self, w: f64) {
        self.cwnd = w.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
    }

    /// Uses `base` as the base delay instead of measuring it.
    pub fn fix_base_delay(&mut self, base: Time) {
        self.fixed_base = Some(base);
    }

    /// PrioPlus's changes to the per-ACK update (docs/models/prioplus.md): the off-target term times
    /// `scale`, plus `extra_ai_pkts` per RTT.
    pub fn set_increase(&mut self, scale: f64, extra_ai_pkts: f64) {
        self.scale = scale;
        self.extra_ai = extra_ai_pkts;
    }

    /// RFC 6817 `update_base_delay`: the minimum of each interval, the last `base_history`.
    fn update_base_delay(&mut self, now: Time, delay: Time) {
        let idx = now.0 / self.p.base_interval.0 .0;
        if self.base.is_empty() || idx != self.base_interval_idx {
            if self.base.len() == self.p.base_history as usize {
                self.base.remove(0);
            }
            self.base.push(delay);
            self.base_interval_idx = idx;
        } else {
            let last = self.base.last_mut().unwrap();
            *last = (*last).min(delay);
        }
    }

    /// RFC 6817 `update_current_delay`: keep the last `current_filter` samples.
    fn update_current_delay(&mut self, delay: Time) {
        if self.current.len() < self.p.current_filter as usize {
            self.current.push(delay);
        } else {
            self.current[self.current_next] = delay;
            self.current_next = (self.current_next + 1) % self.current.len();
        }
    }

    /// The base delay: fixed, or the minimum of the interval minima.
    pub fn base_delay(&self) -> Time {
        self.fixed_base.unwrap_or_else(|| self.base.iter().copied().min().unwrap_or(Time::ZERO))
    }

    /// The filtered queueing delay (RFC 6817 `queuing_delay`).
    pub fn queueing_delay(&self) -> Time {
        let current = self.current.iter().copied().min().unwrap_or(Time::ZERO);
        current.saturating_sub(self.base_delay())
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile { ecn_capable: self.p.ecn_capable, ..TransportProfile::default() }
    }

    fn on_ack(&mut self, a: &AckSample) {
        if a.rtt > Time::ZERO {
            self.srtt = Some(match self.srtt {
                None => a.rtt,
                Some(s) => Time((7 * s.0 + a.rtt.0) / 8),
            });
            if self.fixed_base.is_none() {
                self.update_base_delay(a.now, a.rtt);
            }
            self.update_current_delay(a.rtt);
        }
        let q = self.queueing_delay();
        self.last_queueing = q;
        let off_target = (self.target.as_secs_f64() - q.as_secs_f64()) / self.target.as_secs_f64();
        // bytes_newly_acked · MSS / cwnd_bytes = packets acked / cwnd_pkts (packets).
        let acked = a.newly_acked as f64 / self.mtu;
        let per_window = acked / self.cwnd.max(1.0);
        self.cwnd += (self.p.gain * off_target * self.scale + self.extra_ai) * per_window;
        if let Some(k) = self.p.allowed_increase {
            let flight = a.in_flight_before as f64 / self.mtu;
            self.cwnd = self.cwnd.min(flight + k);
        }
        self.cwnd = self.cwnd.clamp(self.p.min_cwnd_pkts, self.p.max_cwnd_pkts);
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        self.losses += 1;
        // At most once per RTT (RFC 6817 §2.4.2, "on data loss").
        let rtt = self.srtt.unwrap_or(Time::ZERO);
        if self.t_last_decrease.is_some_and(|t| ev.now < t + rtt) {
            return;
        }
        self.t_last_decrease = Some(ev.now);
        self.cwnd = self.cwnd.min((self.cwnd / 2.0).max(self.p.min_cwnd_pkts));
    }

    fn on_timeout(&mut self, now: Time, _snd_nxt: u32) {
        // One MSS after a retransmission timeout (RFC 6817 §2.4.2), below MIN_CWND until
        // the next ACK.
        self.cwnd = 1.0f64.min(self.p.max_cwnd_pkts);
        self.t_last_decrease = Some(now);
    }

    fn cwnd(&self) -> u64 {
        ((self.cwnd * self.mtu) as u64).max(1)
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", self.cwnd);
        out("target_us", self.target.as_us_f64());
        out("queueing_delay_us", self.last_queueing.as_us_f64());
        out("base_delay_us", self.base_delay().as_us_f64());
        out("losses", self.losses as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{test_ack, test_info, test_loss};
    use crate::units::Rate;

    const MTU: u64 = 1000;
    const US: fn(u64) -> Time = Time::from_us;

    /// The PrioPlus micro-benchmarks' reference path: 100 Gbps, BaseRtt 12 µs, 1 KB packets (BDP 150 packets).
    fn info() -> FlowInfo {
        test_info(MTU, 10 * MTU, US(12), 2, Rate::gbps(100), 1 << 20)
    }

    fn ledbat(p: LedbatParams, cwnd: f64) -> Ledbat {
        let mut l = Ledbat::new(&p, &info());
        l.cwnd = cwnd;
        l
    }

    fn ack(now: Time, rtt: Time) -> AckSample {
        AckSample { now, rtt, ..test_ack(1, 10, MTU, false) }
    }

    fn fixed(target_us: u64, gain: f64) -> LedbatParams {
        LedbatParams { target: Some(TimeVal(US(target_us))), gain, ..LedbatParams::default() }
    }

    /// Feeds one window of ACKs (⌊cwnd⌋ packets) with RTT `rtt`; returns the window change.
    fn one_window(l: &mut Ledbat, now: &mut Time, rtt: Time) -> f64 {
        let before = l.cwnd_pkts();
        for _ in 0..before.floor() as u64 {
            *now = *now + Time::from_ns(80);
            l.on_ack(&ack(*now, rtt));
        }
        l.cwnd_pkts() - before
    }

    /// RFC 6817 §2.4.2: at zero queueing delay the window grows by GAIN·MSS per RTT
    /// (per ACK GAIN·bytes·MSS/cwnd). With 100 packets, the per-ACK steps over one window
    /// sum to GAIN·(1 − O(GAIN/cwnd)): within 1 %.
    #[test]
    fn grows_gain_mss_per_rtt_on_an_empty_queue() {
        for gain in [1.0, 0.5, 0.1] {
            let mut l = ledbat(fixed(16, gain), 100.0);
            let mut now = US(1);
            l.on_ack(&ack(now, US(12))); // base = 12 µs
            for _ in 0..3 {
                let grow = one_window(&mut l, &mut now, US(12));
                assert!((grow - gain).abs() <= 0.01 * gain, "gain {gain}: grew {grow} packets in one RTT");
            }
        }
    }

    /// RFC 6817 §2.4.2: off_target = (TARGET − q)/TARGET, so over one window the change is
    /// GAIN·MSS·(TARGET − q)/TARGET: −0.5 packets at q = 1.5·TARGET, −1 at 2·TARGET, −2 at
    /// 3·TARGET, +0.5 at TARGET/2, and nothing at q = TARGET.
    #[test]
    fn change_is_proportional_to_the_distance_from_target() {
        let target = 16u64;
        for (q_over_t, want) in [(1.5, -0.5), (2.0, -1.0), (3.0, -2.0), (0.5, 0.5), (1.0, 0.0)] {
            let mut l = ledbat(fixed(target, 1.0), 200.0);
            let mut now = US(1);
            l.on_ack(&ack(now, US(12)));
            let rtt = US(12) + Time::from_secs_f64(q_over_t * target as f64 * 1e-6);
            // Fill the 4-sample current filter so that it no longer holds the base sample.
            for _ in 0..4 {
                l.on_ack(&ack(now, rtt));
            }
            l.cwnd = 200.0;
            let change = one_window(&mut l, &mut now, rtt);
            assert!((change - want).abs() <= 0.02, "q = {q_over_t}·T: changed {change}, want {want}");
        }
    }

    /// RFC 6817 §2.4.2 / §3.4.2: the base delay is the minimum over BASE_HISTORY intervals,
    /// so a lower sample takes effect at once and an old minimum expires after BASE_HISTORY
    /// intervals (a route change); the current delay is the minimum of the last
    /// CURRENT_FILTER samples.
    #[test]
    fn base_delay_tracks_interval_minima_and_current_filter() {
        let p = LedbatParams { base_interval: TimeVal(US(100)), base_history: 3, ..fixed(16, 1.0) };
        let mut l = ledbat(p, 100.0);
        l.on_ack(&ack(US(1), US(20)));
        assert_eq!(l.base_delay(), US(20));
        l.on_ack(&ack(US(2), US(12)));
        assert_eq!(l.base_delay(), US(12));
        // Route change: every later sample is 30 µs. The 12 µs minimum of interval 0
        // stays for intervals 1 and 2 and is gone once interval 3 starts.
        for t in [150, 250] {
            l.on_ack(&ack(US(t), US(30)));
            assert_eq!(l.base_delay(), US(12), "t = {t} µs");
        }
        l.on_ack(&ack(US(350), US(30)));
        assert_eq!(l.base_delay(), US(30));
        // Current filter 4: one low sample among the last four wins.
        for (i, rtt) in [40u64, 33, 40, 40].iter().enumerate() {
            l.on_ack(&ack(US(360 + i as u64), US(*rtt)));
        }
        assert_eq!(l.queueing_delay(), US(3));
        for i in 0..4 {
            l.on_ack(&ack(US(370 + i), US(40)));
        }
        assert_eq!(l.queueing_delay(), US(10));
    }

    /// RFC 6817 §2.4.2: cwnd ≤ flightsize + ALLOWED_INCREASE·MSS and ≥ MIN_CWND·MSS; a loss
    /// halves the window once per RTT; the initial window is one BDP (the PrioPlus artefact's).
    #[test]
    fn caps_floor_loss_and_initial_window() {
        let l = Ledbat::new(&LedbatParams::default(), &info());
        assert!((l.cwnd_pkts() - 150.0).abs() < 1e-9, "BDP = 100 Gbps × 12 µs = 150 KB");
        let mut l = ledbat(fixed(16, 1.0), 50.0);
        l.on_ack(&AckSample { in_flight_before: 20 * MTU, ..ack(US(1), US(12)) });
        assert!((l.cwnd_pkts() - 21.0).abs() < 1e-9, "capped at flightsize + 1 MSS");
        let mut l2 = ledbat(LedbatParams { current_filter: 1, ..fixed(16, 1.0) }, 2.5);
        l2.on_ack(&ack(US(1), US(12)));
        l2.on_ack(&ack(US(2), US(200)));
        assert_eq!(l2.cwnd_pkts(), 2.0, "MIN_CWND = 2");
        let mut l = ledbat(fixed(16, 1.0), 40.0);
        l.on_ack(&ack(US(1), US(12)));
        let w = l.cwnd_pkts();
        l.on_loss(&LossEvent { now: US(2), ..test_loss(1, 10) });
        assert!((l.cwnd_pkts() - w / 2.0).abs() < 1e-9);
        l.on_loss(&LossEvent { now: US(3), ..test_loss(1, 10) });
        assert!((l.cwnd_pkts() - w / 2.0).abs() < 1e-9, "at most one halving per RTT");
        l.on_loss(&LossEvent { now: US(20), ..test_loss(1, 10) });
        assert!((l.cwnd_pkts() - w / 4.0).abs() < 1e-9);
    }

    /// PrioPlus paper §6.2 (docs/models/ledbat.md): the LEDBAT baseline's targets run from 4 µs (lowest priority)
    /// to 32 µs (highest) above the base: with 8 levels, 4·i µs.
    #[test]
    fn preset_targets_by_priority() {
        let p = LedbatParams::default();
        for i in 1..=8 {
            assert_eq!(p.target_for(i, 8), US(4 * i as u64));
        }
        assert_eq!(p.target_for(0, 0), US(32));
        assert_eq!(fixed(10, 1.0).target_for(3, 8), US(10));
    }
}
