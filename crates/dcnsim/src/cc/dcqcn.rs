//! DCQCN, Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
//! §3 (the CP/NP/RP algorithm); parameters as the SMaRTT paper's RoCEv2 baseline uses them
//! (the paper's defaults plus common NIC values; docs/models/dcqcn.md). With `[switch.pfc]` and
//! `transport.loss_recovery = "go_back_n"` it is the SMaRTT paper's RoCEv2 baseline.
//!
//! - CP (switch): RED/ECN marking, the switch's `ecn` settings.
//! - NP (receiver): a CNP back to the sender for an ECN-marked arrival, at most one per
//!   `cnp_interval` per flow (the shared transport sends it; `cnp_interval` here).
//! - RP (sender), rate based, paced at the current rate `rc`:
//!   - on a CNP: target `rt = rc`, `rc ← rc·(1 − α/2)`, `α ← (1 − g)·α + g`, and the
//!     increase timer, byte counter and both stage counts restart;
//!   - every `alpha_timer` without a CNP: `α ← (1 − g)·α`;
//!   - an increase event each `increase_timer` and each `byte_counter` bytes, counted
//!     separately as T and BC. With both at most F (`fast_recovery_stages`): fast recovery,
//!     `rc ← (rt + rc)/2`; with both above F: hyper increase, `rt += i·R_HAI` with
//!     i = min(T, BC) − F, then `rc ← (rt + rc)/2`; otherwise additive increase,
//!     `rt += R_AI`, then `rc ← (rt + rc)/2`. Rates stay within [`min_rate`, line rate].
//!
//! Optional in-flight window (`window`, off by default: the DCQCN paper's RP is purely
//! rate based). The HPCC/ConWeave NIC model that the LAPS artefact runs its DCQCN
//! baselines on also stops sending while the bytes in flight reach a fixed window; the
//! LAPS artefact's configuration sets it "on, unified: the max BDP over all paths
//! (one-way delay × bottleneck)", variable window off. `window = "bdp"` is that value: the largest, over
//! every path any flow of the scenario may take (its candidate paths when it has them),
//! of one-way delay × the path's slowest link, computed once by the builder
//! (`FlowInfo::unified_bdp`). The same window for every flow, hence "unified". The
//! transport enforces it through `cwnd()`, as for every window-based algorithm.
//!
//! The artefact's NIC variant (`variant = "mellanox"`): the DCQCN of the HPCC/ConWeave
//! simulator family, whose Mellanox-NIC model the LAPS artefact runs its DCQCN baselines
//! on (docs/models/dcqcn.md, "Variants"); its reaction point is `dcqcn/mellanox.rs`. The
//! two variants share the rate state (`RateState`) and differ in what drives it (`Rules`).
//!
//! Two modelling choices: timers are evaluated when the sender next hears from the
//! network (an ACK or CNP; one per packet while it sends), which only delays an increase
//! by well under a timer period; and the byte counter counts acknowledged bytes (the
//! transport tells the algorithm about ACKs, not sends), which lags bytes sent by the
//! bytes in flight, a fraction of the 10 MB counter.

use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::units::values::{RateVal, TimeVal, WindowCap};
use crate::units::{Rate, Time};

mod mellanox;

/// DCQCN parameters (`[transport.dcqcn]`); defaults in docs/models/dcqcn.md.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DcqcnParams {
    /// NP: shortest gap between two CNPs of one flow (paper: 50 µs).
    pub cnp_interval: TimeVal,
    /// Gain of the α EWMA (paper: 1/256).
    pub g: f64,
    /// Initial α (paper: 1).
    pub alpha_init: f64,
    /// α decays by (1 − g) after each such period without a CNP (paper: 55 µs).
    pub alpha_timer: TimeVal,
    /// Rate-increase timer period (paper: 55 µs).
    pub increase_timer: TimeVal,
    /// Rate-increase byte counter (paper: 10 MB).
    pub byte_counter: crate::units::values::BytesVal,
    /// Increase events of fast recovery before additive increase (paper: F = 5).
    pub fast_recovery_stages: u32,
    /// Additive-increase step R_AI (5 Mbps, the NIC default; ×8 for 800G if desired).
    pub rate_ai: RateVal,
    /// Hyper-increase step R_HAI (50 Mbps).
    pub rate_hai: RateVal,
    /// Lowest sending rate (our choice: 10 Mbps; the paper gives none).
    pub min_rate: RateVal,
    /// Cap on bytes in flight: "off" (the DCQCN paper: rate only), "bdp" (the LAPS
    /// artefact's unified window, docs/models/dcqcn.md) or a size.
    pub window: WindowCap,
    /// Which reaction point: the DCQCN paper's or the LAPS artefact's NIC model (module header).
    pub variant: DcqcnVariant,
    /// `variant = "mellanox"`: the shortest gap between two rate cuts (the HPCC/ConWeave
    /// simulators' default rate-decrease interval, 4 µs).
    pub rate_decrease_interval: TimeVal,
}

/// `dcqcn.variant` (module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DcqcnVariant {
    /// Zhu et al. §3: α and the rate react to each CNP; timer and byte-counter increases.
    #[default]
    Paper,
    /// The Mellanox-NIC model of the HPCC/ConWeave simulator family (the LAPS artefact's).
    Mellanox,
}

impl Default for DcqcnParams {
    fn default() -> Self {
        DcqcnParams {
            cnp_interval: TimeVal(Time::from_us(50)),
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_timer: TimeVal(Time::from_us(55)),
            increase_timer: TimeVal(Time::from_us(55)),
            byte_counter: crate::units::values::BytesVal(10_000_000),
            fast_recovery_stages: 5,
            rate_ai: RateVal(Rate(5_000_000)),
            rate_hai: RateVal(Rate(50_000_000)),
            min_rate: RateVal(Rate(10_000_000)),
            window: WindowCap::Off,
            variant: DcqcnVariant::Paper,
            rate_decrease_interval: TimeVal(Time::from_us(4)),
        }
    }
}

impl DcqcnParams {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{}: allowed 0 < g <= 1", self.g)));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(("alpha_init", format!("{}: allowed 0 <= alpha_init <= 1", self.alpha_init)));
        }
        for (name, t) in [
            ("cnp_interval", self.cnp_interval),
            ("alpha_timer", self.alpha_timer),
            ("increase_timer", self.increase_timer),
            ("rate_decrease_interval", self.rate_decrease_interval),
        ] {
            if t.0 == Time::ZERO {
                return Err((name, "must be positive".into()));
            }
        }
        if self.byte_counter.0 == 0 {
            return Err(("byte_counter", "must be positive".into()));
        }
        Ok(())
    }
}

/// `cwnd()` without a window: large, and safe to add packet sizes to.
pub(crate) const NO_WINDOW: u64 = u64::MAX / 4;

impl WindowCap {
    /// The window in wire bytes for a flow (`NO_WINDOW` when off); shared by DCQCN and
    /// the rate-based DCTCP, which take the same setting.
    pub(crate) fn bytes(self, info: &FlowInfo) -> u64 {
        match self {
            WindowCap::Off => NO_WINDOW,
            // The builder computes the unified BDP whenever this mode is on; 0 would
            // mean it did not, and then one packet at a time is the safe reading.
            WindowCap::Bdp => info.unified_bdp.max(1),
            WindowCap::Bytes(b) => b,
        }
    }
}

/// Which increase rule an increase event applied (for tests and time series).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    FastRecovery,
    Additive,
    Hyper,
}

/// The reaction point's rates, α and increase timer, which both variants drive.
pub(crate) struct RateState {
    p: DcqcnParams,
    line_rate: f64,
    /// Current rate rc and target rate rt, bits per second.
    rc: f64,
    rt: f64,
    alpha: f64,
    /// Next α tick and next timer-driven increase.
    next_alpha_decay: Time,
    next_timer_increase: Time,
    /// Timer increase events (T) since the last cut.
    timer_stage: u32,
    /// A CNP has cut the rate at least once (before that there is nothing to recover).
    cut_once: bool,
    cnps: u64,
    last_stage: Option<Stage>,
}

impl RateState {
    /// The increase timer's next event after one at `at`: none once both rates are back
    /// at line rate (further increases change nothing until a CNP).
    fn rearm_increase(&mut self, at: Time) {
        self.next_timer_increase = if self.rc >= self.line_rate && self.rt >= self.line_rate {
            Time::MAX
        } else {
            at + self.p.increase_timer.0
        };
    }

    /// Applies an increase stage: the target grows by `hyper_steps` × R_HAI (hyper) or
    /// R_AI (additive), then rc moves halfway to it.
    fn apply_increase(&mut self, stage: Stage, hyper_steps: u32) {
        match stage {
            Stage::FastRecovery => {}
            Stage::Additive => self.rt += self.p.rate_ai.0.bps() as f64,
            Stage::Hyper => self.rt += hyper_steps as f64 * self.p.rate_hai.0.bps() as f64,
        }
        self.rt = self.rt.min(self.line_rate);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line_rate);
        self.last_stage = Some(stage);
    }

    /// rc ← rc·(1 − α/2), not below `min_rate`.
    fn cut(&mut self) {
        self.rc = (self.rc * (1.0 - self.alpha / 2.0)).max(self.p.min_rate.0.bps() as f64);
    }
}

/// What drives the rate state: the DCQCN paper's RP (its byte counter here) or the
/// Mellanox NIC's timers (`mellanox.rs`).
enum Rules {
    Paper(PaperCounter),
    Mellanox(mellanox::Ticks),
}

/// The paper RP's byte counter: increase events (BC) since the last CNP, and the
/// acknowledged bytes towards the next.
#[derive(Default)]
struct PaperCounter {
    byte_stage: u32,
    bytes_counted: u64,
}

pub struct Dcqcn {
    rp: RateState,
    rules: Rules,
    /// Wire bytes allowed in flight (`NO_WINDOW`: no window).
    window: u64,
}

impl Dcqcn {
    pub fn new(p: &DcqcnParams, info: &FlowInfo) -> Dcqcn {
        // The NIC's rate: the first link, which bounds the flow from its first packet.
        let line_rate = info.bottleneck.bps() as f64;
        let mut d = Dcqcn::at_rate(p, line_rate);
        d.window = p.window.bytes(info);
        d
    }

    fn at_rate(p: &DcqcnParams, line_rate: f64) -> Dcqcn {
        let rules = match p.variant {
            DcqcnVariant::Paper => Rules::Paper(PaperCounter::default()),
            DcqcnVariant::Mellanox => Rules::Mellanox(mellanox::Ticks::default()),
        };
        Dcqcn {
            rp: RateState {
                p: p.clone(),
                line_rate,
                rc: line_rate,
                rt: line_rate,
                alpha: p.alpha_init,
                // The Mellanox α timer starts with the first CNP, which sets α = 1 anyway.
                next_alpha_decay: if p.variant == DcqcnVariant::Mellanox { Time::MAX } else { p.alpha_timer.0 },
                next_timer_increase: Time::MAX,
                timer_stage: 0,
                cut_once: false,
                cnps: 0,
                last_stage: None,
            },
            rules,
            window: NO_WINDOW,
        }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rp.rc
    }

    pub fn target_bps(&self) -> f64 {
        self.rp.rt
    }

    pub fn alpha(&self) -> f64 {
        self.rp.alpha
    }

    pub fn cnps(&self) -> u64 {
        self.rp.cnps
    }

    /// Which increase rule the last increase event applied.
    pub fn last_stage(&self) -> Option<Stage> {
        self.rp.last_stage
    }

    /// Applies the timers that expired up to `now`, in time order.
    fn advance(&mut self, now: Time) {
        match &mut self.rules {
            Rules::Paper(c) => c.advance(&mut self.rp, now),
            Rules::Mellanox(t) => t.advance(&mut self.rp, now),
        }
    }

    /// A CNP reached the sender.
    pub fn cnp(&mut self, now: Time) {
        match &mut self.rules {
            Rules::Paper(c) => c.cnp(&mut self.rp, now),
            Rules::Mellanox(t) => t.cnp(&mut self.rp, now),
        }
    }
}

impl PaperCounter {
    /// The α decay and increase timers up to `now` (paper §3.1).
    fn advance(&mut self, rp: &mut RateState, now: Time) {
        let one_minus_g = 1.0 - rp.p.g;
        loop {
            let next = rp.next_alpha_decay.min(rp.next_timer_increase);
            if next > now {
                return;
            }
            if rp.next_alpha_decay == next {
                rp.alpha *= one_minus_g;
                rp.next_alpha_decay = next + rp.p.alpha_timer.0;
            }
            if rp.next_timer_increase == next {
                rp.timer_stage += 1;
                self.increase(rp);
                rp.rearm_increase(next);
            }
            if rp.next_timer_increase == Time::MAX && rp.alpha < 1e-12 {
                // Nothing left for the timers to change.
                rp.next_alpha_decay = Time::MAX;
            }
        }
    }

    /// One increase event, with the stage picked from the two counts (paper §3.1).
    fn increase(&self, rp: &mut RateState) {
        let f = rp.p.fast_recovery_stages;
        let (t, bc) = (rp.timer_stage, self.byte_stage);
        let stage = if t.max(bc) <= f {
            Stage::FastRecovery
        } else if t.min(bc) > f {
            Stage::Hyper
        } else {
            Stage::Additive
        };
        rp.apply_increase(stage, t.min(bc).saturating_sub(f));
    }

    /// A CNP: cut the rate and restart the increase timer and both counts (paper §3.1,
    /// RP algorithm).
    fn cnp(&mut self, rp: &mut RateState, now: Time) {
        self.advance(rp, now);
        rp.cnps += 1;
        rp.cut_once = true;
        rp.rt = rp.rc;
        rp.cut();
        rp.alpha = (1.0 - rp.p.g) * rp.alpha + rp.p.g;
        rp.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes_counted = 0;
        rp.next_alpha_decay = now + rp.p.alpha_timer.0;
        rp.next_timer_increase = now + rp.p.increase_timer.0;
    }

    /// Acknowledged bytes: an increase event per `byte_counter` bytes, once the rate was
    /// cut and while it is below line rate.
    fn acked(&mut self, rp: &mut RateState, bytes: u64) {
        if !rp.cut_once || rp.next_timer_increase == Time::MAX {
            return;
        }
        self.bytes_counted += bytes;
        while self.bytes_counted >= rp.p.byte_counter.0 {
            self.bytes_counted -= rp.p.byte_counter.0;
            self.byte_stage += 1;
            self.increase(rp);
        }
    }
}

impl CongestionControl for Dcqcn {
    fn name(&self) -> &'static str {
        "dcqcn"
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile {
            ecn_capable: true,
            cnp_interval: Some(self.rp.p.cnp_interval.0),
            ..TransportProfile::default()
        }
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.advance(a.now);
        // The Mellanox NIC has no byte counter: its increases come from the timer alone.
        if let Rules::Paper(c) = &mut self.rules {
            c.acked(&mut self.rp, a.newly_acked);
        }
    }

    /// RoCE NICs do not slow down on loss; recovery is the transport's (go-back-N).
    fn on_loss(&mut self, _: &LossEvent) {}

    fn on_timeout(&mut self, _: Time, _: u32) {}

    fn on_cnp(&mut self, now: Time) {
        self.cnp(now);
    }

    fn cwnd(&self) -> u64 {
        // Rate based; the optional window is a constant, so the transport's per-send
        // check costs one load.
        self.window
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.rp.rc as u64))
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("rate_gbps", self.rp.rc / 1e9);
        out("target_gbps", self.rp.rt / 1e9);
        out("alpha", self.rp.alpha);
        out("cnps", self.rp.cnps as f64);
        if self.window != NO_WINDOW {
            out("window_bytes", self.window as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GBPS: f64 = 1e9;

    fn dcqcn() -> Dcqcn {
        Dcqcn::at_rate(&DcqcnParams::default(), 100.0 * GBPS)
    }

    fn us(v: u64) -> Time {
        Time::from_us(v)
    }

    fn byte_stage(d: &Dcqcn) -> u32 {
        match &d.rules {
            Rules::Paper(c) => c.byte_stage,
            Rules::Mellanox(_) => unreachable!(),
        }
    }

    /// Paper §3.1: the first CNP, with α = 1, halves the rate, remembers the old rate as
    /// the target, and moves α to (1 − g)·1 + g = 1. The second, 1 µs later (no timer in
    /// between), cuts by α/2 again: 25 Gbps, target 50 Gbps.
    #[test]
    fn cnp_cuts_by_alpha_over_two_and_updates_alpha() {
        let mut d = dcqcn();
        d.cnp(us(1));
        assert_eq!((d.rate_bps(), d.target_bps(), d.alpha()), (50.0 * GBPS, 100.0 * GBPS, 1.0));
        d.cnp(us(2));
        assert_eq!((d.rate_bps(), d.target_bps()), (25.0 * GBPS, 50.0 * GBPS));
    }

    /// α decays by (1 − g) per 55 µs without CNP: after 10 periods α = (1 − 1/256)^10,
    /// and the next CNP cuts by that α/2 and sets α = (1 − g)·α + g.
    #[test]
    fn alpha_decays_per_timer_period() {
        let mut d = dcqcn();
        d.cnp(Time::ZERO);
        // Keep the rate timer out of the way to isolate α.
        d.rp.next_timer_increase = Time::MAX;
        let g = 1.0 / 256.0;
        d.advance(us(10 * 55));
        let expect = (1.0f64 - g).powi(10);
        assert!((d.alpha() - expect).abs() < 1e-12);
        let before = d.rate_bps();
        d.cnp(us(10 * 55));
        assert!((d.rate_bps() - before * (1.0 - expect / 2.0)).abs() < 1.0);
        assert!((d.alpha() - ((1.0 - g) * expect + g)).abs() < 1e-12);
    }

    /// Fast recovery: the first F = 5 timer events halve the gap to the target each time,
    /// so after k events rc = rt − (rt − rc0)/2^k; the 6th is additive (rt += 5 Mbps).
    #[test]
    fn fast_recovery_halves_the_gap_then_additive_increase() {
        let mut d = dcqcn();
        d.cnp(Time::ZERO); // rc = 50, rt = 100
        for k in 1..=5u64 {
            d.advance(us(55 * k));
            assert_eq!(d.last_stage(), Some(Stage::FastRecovery));
            let expect = 100.0 * GBPS - 50.0 * GBPS / 2f64.powi(k as i32);
            assert!((d.rate_bps() - expect).abs() < 1.0, "event {k}: {} vs {expect}", d.rate_bps());
            assert_eq!(d.target_bps(), 100.0 * GBPS);
        }
        // Cut again well below line rate so the additive step is visible.
        d.cnp(us(5 * 55));
        let (rc, rt) = (d.rate_bps(), d.target_bps());
        for k in 1..=5u64 {
            d.advance(us(5 * 55 + 55 * k));
        }
        let rc5 = rt - (rt - rc) / 32.0;
        assert!((d.rate_bps() - rc5).abs() < 1.0);
        d.advance(us(5 * 55 + 55 * 6));
        assert_eq!(d.last_stage(), Some(Stage::Additive), "timer count 6 > F, byte count 0");
        assert!((d.target_bps() - (rt + 5e6)).abs() < 1e-3);
        assert!((d.rate_bps() - (rt + 5e6 + rc5) / 2.0).abs() < 1.0);
    }

    /// Hyper increase needs both counts above F: with the byte counter also past F, the
    /// target grows by i·R_HAI, i = min(T, BC) − F.
    #[test]
    fn hyper_increase_when_both_counters_pass_f() {
        let mut d = dcqcn();
        d.cnp(Time::ZERO);
        d.cnp(Time::from_ns(1));
        d.cnp(Time::from_ns(2)); // rc = 12.5 Gbps, far from line rate
        d.rp.timer_stage = 6;
        let rt = d.target_bps();
        let Rules::Paper(c) = &mut d.rules else { unreachable!() };
        c.byte_stage = 7;
        c.increase(&mut d.rp);
        // T = 6, BC = 7, F = 5: hyper with i = 1.
        assert_eq!(d.last_stage(), Some(Stage::Hyper));
        assert!((d.target_bps() - (rt + 50e6)).abs() < 1e-3);
    }

    /// The byte counter drives increase events too: 10 MB of ACKed data is one event.
    #[test]
    fn byte_counter_counts_acked_bytes() {
        let mut d = dcqcn();
        d.cnp(Time::ZERO);
        let mut a = crate::cc::test_ack(0, 0, 5_000_000, false);
        a.now = Time::from_us(1);
        d.on_ack(&a);
        assert_eq!(byte_stage(&d), 0);
        d.on_ack(&a);
        assert_eq!(byte_stage(&d), 1);
        assert!((d.rate_bps() - 75.0 * GBPS).abs() < 1.0, "one fast-recovery step");
    }

    /// The rate never leaves [min_rate, line rate].
    #[test]
    fn rate_stays_between_min_and_line_rate() {
        let mut d = dcqcn();
        for i in 0..100u64 {
            d.cnp(Time::from_ns(i));
        }
        assert_eq!(d.rate_bps(), 10e6);
        d.advance(Time::from_ms(2000));
        assert!(d.rate_bps() <= 100.0 * GBPS && d.rate_bps() > 99.0 * GBPS);
    }

    /// The LAPS artefact's NIC settings (experiments/laps/*.toml: F = 1, increase timer
    /// 300 µs, cuts at most every 4 µs) with α's timer period `alpha_timer` (the artefact:
    /// 1 µs; 1 s keeps α = 1 for tests of the rate rules alone).
    fn mellanox_with(alpha_timer: Time) -> Dcqcn {
        let p = DcqcnParams {
            variant: DcqcnVariant::Mellanox,
            alpha_timer: TimeVal(alpha_timer),
            increase_timer: TimeVal(us(300)),
            fast_recovery_stages: 1,
            ..DcqcnParams::default()
        };
        Dcqcn::at_rate(&p, 100.0 * GBPS)
    }

    fn mellanox() -> Dcqcn {
        mellanox_with(us(1))
    }

    /// A flow that ran 1 ms unmarked: the paper's RP has decayed α to (1 − g)^1000 ≈ 0.02
    /// with a 1 µs timer, so its first cut takes 1 %; the Mellanox NIC resets α = 1 on
    /// the first CNP and halves.
    #[test]
    fn mellanox_first_cnp_sets_alpha_to_one_and_halves() {
        let mut paper =
            Dcqcn::at_rate(&DcqcnParams { alpha_timer: TimeVal(us(1)), ..DcqcnParams::default() }, 100.0 * GBPS);
        paper.cnp(us(1000));
        let a = (1.0f64 - 1.0 / 256.0).powi(1000);
        assert!((paper.rate_bps() - 100.0 * GBPS * (1.0 - a / 2.0)).abs() < 1.0);
        let mut m = mellanox();
        m.cnp(us(1000));
        assert_eq!((m.rate_bps(), m.target_bps(), m.alpha()), (50.0 * GBPS, 100.0 * GBPS, 1.0));
    }

    /// Cuts come at most once per 4 µs tick, and back-to-back cuts (no increase event in
    /// between) keep the target: CNPs at 0, 1, 2 µs give one cut at 0; the CNPs in (0, 4]
    /// give the second cut at the 4 µs tick, to 25 Gbps with the target still 100 Gbps
    /// (the paper's RP would have cut three times and moved the target to 25 Gbps).
    #[test]
    fn mellanox_cuts_once_per_interval_and_keeps_the_target_back_to_back() {
        let mut m = mellanox_with(Time::from_ms(1000));
        for t in [0, 1, 2] {
            m.cnp(us(t));
        }
        assert_eq!(m.rate_bps(), 50.0 * GBPS);
        m.advance(us(4));
        assert_eq!((m.rate_bps(), m.target_bps()), (25.0 * GBPS, 100.0 * GBPS));
        // No CNP in (4, 8]: no cut at 8 µs, and the decrease timer idles.
        m.advance(us(20));
        assert_eq!(m.rate_bps(), 25.0 * GBPS);
        assert_eq!(m.cnps(), 3);
    }

    /// α on its timer: a CNP in the period moves it up, a quiet period decays it; 10 quiet
    /// ticks after the first update give (1 − g)^10.
    #[test]
    fn mellanox_alpha_follows_its_timer() {
        let g: f64 = 1.0 / 256.0;
        let mut m = mellanox();
        m.cnp(us(0));
        m.advance(us(1)); // tick at 1 µs saw the CNP: α = (1 − g) + g = 1
        assert_eq!(m.alpha(), 1.0);
        m.advance(us(11));
        assert!((m.alpha() - (1.0 - g).powi(10)).abs() < 1e-12);
        m.cnp(Time::from_ns(11_500));
        m.advance(us(12));
        assert!((m.alpha() - ((1.0 - g) * (1.0 - g).powi(10) + g)).abs() < 1e-12);
    }

    /// Increase with F = 1, timer only: after a cut to 50 Gbps (target 100) the first
    /// 300 µs event is fast recovery, the next additive (+5 Mbps), the next hyper (+50 Mbps,
    /// one R_HAI, not i·R_HAI). α stays 1 (a 1 s α timer) so every cut halves.
    #[test]
    fn mellanox_increase_stages_by_timer_events_since_the_cut() {
        let mut m = mellanox_with(Time::from_ms(1000));
        m.cnp(us(0));
        m.cnp(us(4)); // the second cut, at the 4 µs tick: back to back, the target stays
        assert_eq!((m.rate_bps(), m.target_bps()), (25.0 * GBPS, 100.0 * GBPS));
        m.advance(us(304));
        assert_eq!((m.last_stage(), m.rate_bps()), (Some(Stage::FastRecovery), 62.5 * GBPS));
        // A cut after an increase event moves the target to the current rate.
        m.cnp(us(305));
        m.advance(us(308));
        assert_eq!((m.rate_bps(), m.target_bps()), (31.25 * GBPS, 62.5 * GBPS));
        m.advance(us(608)); // event 0 after the cut: fast recovery
        assert_eq!((m.last_stage(), m.rate_bps()), (Some(Stage::FastRecovery), 46.875 * GBPS));
        m.advance(us(908)); // event 1 = F: additive
        assert_eq!(m.last_stage(), Some(Stage::Additive));
        assert!((m.target_bps() - (62.5 * GBPS + 5e6)).abs() < 1e-3);
        m.advance(us(1208)); // event 2 > F: hyper, one R_HAI
        assert_eq!(m.last_stage(), Some(Stage::Hyper));
        assert!((m.target_bps() - (62.5 * GBPS + 5e6 + 50e6)).abs() < 1e-3);
        // The byte counter plays no part.
        let mut a = crate::cc::test_ack(0, 0, 50_000_000, false);
        a.now = us(1208);
        m.on_ack(&a);
        assert_eq!(m.last_stage(), Some(Stage::Hyper));
        assert!((m.target_bps() - (62.5 * GBPS + 5e6 + 50e6)).abs() < 1e-3);
    }
}
