//! HPCC, high precision congestion control (Li et al., SIGCOMM 2019, §3.3 Algorithm 1;
//! the PrioPlus paper's baseline, App. A.3/A.4; docs/models/hpcc.md).
//!
//! A window controller driven by in-band telemetry (`net/int.rs`): every ACK brings, for
//! each switch egress port on the path, its queue length, transmitted bytes, time and
//! rate. Against the previous ACK's records the sender computes each link's normalised
//! inflight bytes
//!
//! ```text
//! u_i = min(qlen_i, qlen_i') / (B_i · T) + txRate_i / B_i,   txRate_i = Δtx_bytes_i / Δts_i
//! ```
//!
//! takes the most loaded link (u, and τ = its Δts, at most T) and smooths it:
//! `U ← (1 − τ/T)·U + (τ/T)·u`. The window then follows
//!
//! ```text
//! U ≥ η or incStage ≥ maxStage:  W = Wc / (U/η) + W_AI   (multiplicative, to η·capacity)
//! otherwise:                     W = Wc + W_AI           (additive)
//! ```
//!
//! where `Wc`, the reference window, is updated (and `incStage` counted) only on the first
//! ACK of each round, one whose sequence passes the `snd_nxt` of the last update; the ACKs
//! in between react from `Wc` without moving it (§3.3, "fast reaction without
//! overreaction"). The sending rate is `W / T`.
//!
//! Defaults are the HPCC paper's: η = 0.95, maxStage = 5, T = the flow's base RTT, the
//! window starting at one BDP of the NIC (line rate), and `W_AI = W_init·(1 − η)/N` with
//! N = 100 expected concurrent flows per link, i.e. an additive step of 0.05 % of a BDP
//! per round (50 Mbps at 100 Gbps, the rate step of HPCC's ns-3 configuration).
//!
//! Losses: HPCC's algorithm has no loss reaction (it runs on lossless fabrics, or with
//! IRN's selective retransmission); the transport retransmits and the window stays.

use serde::{Deserialize, Serialize};

use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::net::int::IntHop;
use crate::units::values::RateVal;
use crate::units::{Rate, Time};

/// Parameters of HPCC; defaults from the HPCC paper (§3.3, §5.1).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HpccParams {
    /// η, the target utilisation of the most loaded link (paper: 0.95).
    pub target_utilization: f64,
    /// maxStage: rounds of additive increase before a multiplicative step toward η even
    /// when the path is under-used (paper: 5).
    pub max_stage: u32,
    /// W_AI as a rate: the window grows by `additive_increase × T` per step. Absent: the
    /// paper's `W_init·(1 − η)/expected_flows`.
    pub additive_increase: Option<RateVal>,
    /// N of the paper's W_AI rule: the number of concurrent flows a link is sized for.
    pub expected_flows: f64,
    /// Lowest sending rate.
    pub min_rate: RateVal,
    /// Data packets carry ECT, so RED queues mark them rather than drop them; HPCC ignores
    /// the marks.
    pub ecn_capable: bool,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            target_utilization: 0.95,
            max_stage: 5,
            additive_increase: None,
            expected_flows: 100.0,
            min_rate: RateVal(Rate(100_000_000)),
            ecn_capable: true,
        }
    }
}

impl HpccParams {
    /// Checks ranges; `Err` names the field and what is allowed.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let eta = self.target_utilization;
        if !(eta > 0.0 && eta <= 1.0) {
            return Err(("target_utilization", format!("{eta}: allowed 0 < target_utilization <= 1")));
        }
        if !(self.expected_flows >= 1.0 && self.expected_flows.is_finite()) {
            return Err(("expected_flows", format!("{}: allowed a number >= 1", self.expected_flows)));
        }
        if self.additive_increase.is_some_and(|r| r.0 .0 == 0) {
            return Err(("additive_increase", "must be positive (or absent: the paper's rule)".into()));
        }
        if self.min_rate.0 .0 == 0 {
            return Err(("min_rate", "must be positive".into()));
        }
        Ok(())
    }
}

pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    /// T, seconds.
    t: f64,
    /// Window bounds and the additive step, bytes.
    w_max: f64,
    w_min: f64,
    w_ai: f64,
    mtu: f64,
    /// Window and reference window, bytes.
    w: f64,
    wc: f64,
    /// Smoothed normalised inflight of the most loaded link.
    u: f64,
    inc_stage: u32,
    last_update_seq: u32,
    /// The previous ACK's records (`prev_len` used).
    prev: [IntHop; crate::net::int::MAX_HOPS],
    prev_len: usize,
    /// The last round's raw u (for `observe`).
    last_u: f64,
    ecn_capable: bool,
}

impl Hpcc {
    pub fn new(p: &HpccParams, info: &FlowInfo) -> Hpcc {
        let t = info.base_rtt.as_secs_f64();
        let w_init = info.nic_rate.0 as f64 / 8.0 * t;
        let w_ai = match p.additive_increase {
            Some(r) => r.0 .0 as f64 / 8.0 * t,
            None => w_init * (1.0 - p.target_utilization) / p.expected_flows,
        };
        Hpcc {
            eta: p.target_utilization,
            max_stage: p.max_stage,
            t,
            w_max: w_init,
            w_min: (p.min_rate.0 .0 as f64 / 8.0 * t).min(w_init),
            w_ai,
            mtu: info.mtu as f64,
            w: w_init,
            wc: w_init,
            u: 1.0,
            inc_stage: 0,
            last_update_seq: 0,
            prev: [IntHop::default(); crate::net::int::MAX_HOPS],
            prev_len: 0,
            last_u: 0.0,
            ecn_capable: p.ecn_capable,
        }
    }

    /// MeasureInflight (Algorithm 1, lines 1-12): the smoothed U after this ACK's records,
    /// or `None` when there is nothing to compare them with (the first ACK, or a path of
    /// another length).
    fn measure_inflight(&mut self, hops: &[IntHop]) -> Option<f64> {
        let comparable = self.prev_len == hops.len() && !hops.is_empty();
        let mut measured = None;
        if comparable {
            let mut u = 0.0f64;
            let mut tau = 0.0f64;
            for (now, before) in hops.iter().zip(&self.prev[..self.prev_len]) {
                let dt = now.ts.saturating_sub(before.ts).as_secs_f64();
                if dt <= 0.0 || now.tx_bytes < before.tx_bytes {
                    continue;
                }
                let b = now.rate.0 as f64 / 8.0; // bytes per second
                let tx_rate = (now.tx_bytes - before.tx_bytes) as f64 / dt;
                let u_link = now.qlen.min(before.qlen) as f64 / (b * self.t) + tx_rate / b;
                if u_link > u {
                    u = u_link;
                    tau = dt;
                }
            }
            if tau > 0.0 {
                let tau = tau.min(self.t);
                self.u = (1.0 - tau / self.t) * self.u + tau / self.t * u;
                self.last_u = u;
                measured = Some(self.u);
            }
        }
        self.prev[..hops.len()].copy_from_slice(hops);
        self.prev_len = hops.len();
        measured
    }

    /// ComputeWind (Algorithm 1, lines 13-22).
    fn compute_wind(&mut self, u: f64, update_wc: bool) -> f64 {
        let w = if u >= self.eta || self.inc_stage >= self.max_stage {
            let w = self.wc / (u / self.eta) + self.w_ai;
            if update_wc {
                self.inc_stage = 0;
                self.wc = w.clamp(self.w_min, self.w_max);
            }
            w
        } else {
            let w = self.wc + self.w_ai;
            if update_wc {
                self.inc_stage += 1;
                self.wc = w.clamp(self.w_min, self.w_max);
            }
            w
        };
        w.clamp(self.w_min, self.w_max)
    }

    /// Window, bytes (may be below one packet: the rate then paces).
    pub fn window(&self) -> f64 {
        self.w
    }

    pub fn utilization(&self) -> f64 {
        self.u
    }
}

impl CongestionControl for Hpcc {
    fn name(&self) -> &'static str {
        "hpcc"
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile { ecn_capable: self.ecn_capable, wants_int: true, ..TransportProfile::default() }
    }

    /// NewAck (Algorithm 1, lines 23-31).
    fn on_int(&mut self, _now: Time, cum_ack: u32, snd_nxt: u32, hops: &[IntHop]) {
        let Some(u) = self.measure_inflight(hops) else { return };
        if cum_ack > self.last_update_seq {
            self.w = self.compute_wind(u, true);
            self.last_update_seq = snd_nxt;
        } else {
            self.w = self.compute_wind(u, false);
        }
    }

    fn on_ack(&mut self, _a: &AckSample) {}

    fn on_loss(&mut self, _ev: &LossEvent) {}

    fn on_timeout(&mut self, _now: Time, _snd_nxt: u32) {}

    /// At least one packet, so that a window below a packet still lets the rate pace.
    fn cwnd(&self) -> u64 {
        self.w.max(self.mtu) as u64
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate((self.w / self.t * 8.0).max(1.0) as u64))
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("window_bytes", self.w);
        out("reference_window_bytes", self.wc);
        out("utilization", self.u);
        out("last_link_utilization", self.last_u);
        out("inc_stage", self.inc_stage as f64);
        out("int_hops", self.prev_len as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_info;

    const MTU: u64 = 1000;

    /// 100 Gbps, T = 10 µs: W_init = 125,000 B.
    fn hpcc() -> Hpcc {
        let info = test_info(MTU, 10 * MTU, Time::from_us(10), 2, Rate::gbps(100), 1 << 20);
        Hpcc::new(&HpccParams::default(), &info)
    }

    fn hop(qlen: u64, tx_bytes: u64, ts_ns: u64) -> IntHop {
        IntHop { qlen, tx_bytes, ts: Time::from_ns(ts_ns), rate: Rate::gbps(100) }
    }

    #[test]
    fn the_additive_step_is_the_papers_w_init_times_one_minus_eta_over_n() {
        let h = hpcc();
        assert!((h.w - 125_000.0).abs() < 1e-6);
        // 125,000 · 0.05 / 100 = 62.5 B per step: 50 Mbps over 10 µs.
        assert!((h.w_ai - 62.5).abs() < 1e-9, "{}", h.w_ai);
    }

    /// Hand-worked Algorithm 1: a link sending at 100 % with a standing queue of 62,500 B
    /// (half a BDP) has u = 0.5 + 1.0 = 1.5. With τ = T the EWMA takes u whole, and the
    /// round's window is Wc·η/U + W_AI = 125,000 · 0.95/1.5 + 62.5 = 79,229.17 B.
    #[test]
    fn a_full_link_with_a_queue_cuts_the_window_to_eta_of_its_capacity() {
        let mut h = hpcc();
        h.on_int(Time::ZERO, 1, 10, &[hop(62_500, 0, 0)]);
        // Δts = 10 µs = T; 125,000 B sent in it: 100 Gbps.
        h.on_int(Time::ZERO, 2, 20, &[hop(62_500, 125_000, 10_000)]);
        assert!((h.u - 1.5).abs() < 1e-9, "U = {}", h.u);
        let expect = 125_000.0 * 0.95 / 1.5 + 62.5;
        assert!((h.w - expect).abs() < 1e-6, "W = {}", h.w);
        assert!((h.wc - expect).abs() < 1e-6, "the round's first ACK moves Wc");
        assert_eq!(h.last_update_seq, 20);
    }

    /// The queue term takes the smaller of the two samples, and τ < T smooths: a link at
    /// 50 % for 2 µs (τ/T = 0.2) with queues 10,000 then 40,000 B gives
    /// u = 10,000/125,000 + 0.5 = 0.58 and U = 0.8·1 + 0.2·0.58 = 0.916 < η. An ACK inside
    /// the round (cum_ack not past the last update) reacts from Wc without moving it.
    #[test]
    fn within_a_round_the_window_reacts_but_the_reference_stays() {
        let mut h = hpcc();
        h.last_update_seq = 100;
        h.on_int(Time::ZERO, 1, 10, &[hop(10_000, 0, 0)]);
        h.on_int(Time::ZERO, 2, 20, &[hop(40_000, 12_500, 2_000)]);
        assert!((h.u - 0.916).abs() < 1e-9, "U = {}", h.u);
        // U < η and incStage 0 < maxStage: additive, W = Wc + W_AI, Wc unchanged.
        assert!((h.w - 125_000.0).abs() < 1e-6, "clamped to W_init: {}", h.w);
        assert_eq!(h.inc_stage, 0);
        assert_eq!(h.last_update_seq, 100);
    }

    /// Below η the window climbs by W_AI per round for maxStage rounds, then takes one
    /// multiplicative step to η/U (Algorithm 1, line 14's `incStage ≥ maxStage`).
    #[test]
    fn after_max_stage_additive_rounds_a_multiplicative_step_follows() {
        let mut h = hpcc();
        h.wc = 50_000.0;
        h.w = 50_000.0;
        // A link at 40 %, no queue, τ = T: u = U = 0.4 every round.
        let mut tx = 0;
        let mut ts = 0;
        h.on_int(Time::ZERO, 1, 1, &[hop(0, tx, ts)]);
        for round in 0..5u32 {
            tx += 50_000;
            ts += 10_000;
            h.on_int(Time::ZERO, 10 * (round + 1) + 1, 10 * (round + 2), &[hop(0, tx, ts)]);
            assert!((h.u - 0.4).abs() < 1e-9);
            assert!((h.wc - (50_000.0 + 62.5 * (round + 1) as f64)).abs() < 1e-6, "round {round}: {}", h.wc);
        }
        assert_eq!(h.inc_stage, 5);
        tx += 50_000;
        ts += 10_000;
        h.on_int(Time::ZERO, 71, 80, &[hop(0, tx, ts)]);
        let expect = (50_000.0 + 5.0 * 62.5) / (0.4 / 0.95) + 62.5;
        assert!((h.w - expect).abs() < 1e-6, "W = {} vs {expect}", h.w);
        assert_eq!(h.inc_stage, 0);
    }

    #[test]
    fn the_first_ack_and_a_changed_path_only_record() {
        let mut h = hpcc();
        let w_init = h.w;
        h.on_int(Time::ZERO, 1, 10, &[hop(1_000_000, 0, 0)]);
        assert_eq!(h.w, w_init);
        h.on_int(Time::ZERO, 2, 20, &[hop(1_000_000, 125_000, 10_000), hop(0, 0, 10_000)]);
        assert_eq!(h.w, w_init, "two hops where there was one: nothing to compare");
        assert_eq!(h.prev_len, 2);
    }

    #[test]
    fn the_rate_is_the_window_over_t_and_never_below_the_floor() {
        let close = |r: Option<Rate>, bps: f64| (r.unwrap().0 as f64 - bps).abs() <= 1.0;
        let mut h = hpcc();
        assert!(close(h.pacing_rate(), 100e9), "{:?}", h.pacing_rate());
        h.w = h.compute_wind(1e9, true);
        // 100 Mbps floor over 10 µs = 125 B.
        assert!((h.w - 125.0).abs() < 1e-6);
        assert_eq!(h.cwnd(), MTU);
        assert!(close(h.pacing_rate(), 100e6), "{:?}", h.pacing_rate());
    }
}
