//! MP-RDMA's congestion control, Lu et al., "Multi-Path Transport for RDMA in
//! Datacenters", NSDI 2018, §3.2 (one ECN-driven window across all paths), as the SMaRTT
//! paper's baseline runs it (docs/models/mprdma.md):
//!
//! - per ACK, in packets: ECN echo → `cwnd −= 1/2`, otherwise `cwnd += 1/cwnd`; in bytes,
//!   `−acked/2` (MTU/2 for one packet) and `+MTU·acked/cwnd`;
//! - a NACK (trimmed packet) is an ECN-marked ACK for that packet, plus its
//!   retransmission (our reading for the SMaRTT baseline; docs/models/mprdma.md);
//! - the window lies in [1 MTU, `max_cwnd_bdp` × BDP], SMaRTT's bounds;
//! - multipath is the load balancer's job (`lb = "ops"` or `"reps"`), so the transport
//!   declares no loss from SACK holes (spraying reorders); losses without trimming are
//!   found by a fixed timeout, htsim's 15 µs + 6 buffer drains, as for NSCC.
//!
//! `variant = "htsim_dctcp"` is uet-htsim's close relative (`sender_cc_algo dctcp`):
//! ECN → `cwnd −= acked/3`, NACK → `cwnd −= nacked`.

use serde::{Deserialize, Serialize};

use super::{AckSample, CongestionControl, FlowInfo, LossEvent, NackSample};
use crate::cc::TransportProfile;
use crate::units::Time;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MprdmaVariant {
    /// −½ packet per marked packet (MP-RDMA).
    #[default]
    Mprdma,
    /// −⅓ of the marked bytes, −the NACKed bytes (uet-htsim's `dctcp` sender CC).
    HtsimDctcp,
}

/// How the window starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MprdmaInitial {
    /// The path's bandwidth-delay product: line rate from the first RTT (our choice; the
    /// papers give none).
    #[default]
    Bdp,
    /// The largest window (as NSCC's default).
    Maxwnd,
    /// `transport.initial_window`.
    Transport,
}

/// MPRDMA parameters (`[transport.mprdma]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MprdmaParams {
    pub variant: MprdmaVariant,
    /// Largest window in BDPs of the flow's path (SMaRTT's 1.5).
    pub max_cwnd_bdp: f64,
    /// Smallest window in MTUs (SMaRTT's 1).
    pub min_cwnd_pkts: f64,
    pub initial_cwnd: MprdmaInitial,
}

impl Default for MprdmaParams {
    fn default() -> Self {
        MprdmaParams {
            variant: MprdmaVariant::Mprdma,
            max_cwnd_bdp: 1.5,
            min_cwnd_pkts: 1.0,
            initial_cwnd: MprdmaInitial::Bdp,
        }
    }
}

impl MprdmaParams {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.min_cwnd_pkts > 0.0 && self.min_cwnd_pkts.is_finite()) {
            return Err(("min_cwnd_pkts", format!("{}: must be positive", self.min_cwnd_pkts)));
        }
        if !(self.max_cwnd_bdp > 0.0 && self.max_cwnd_bdp.is_finite()) {
            return Err(("max_cwnd_bdp", format!("{}: must be positive", self.max_cwnd_bdp)));
        }
        Ok(())
    }
}

pub struct Mprdma {
    variant: MprdmaVariant,
    mtu: f64,
    cwnd: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    rto: Time,
    marked_acks: u64,
    nacks: u64,
    timeouts: u64,
}

impl Mprdma {
    pub fn new(p: &MprdmaParams, info: &FlowInfo) -> Mprdma {
        let mtu = info.mtu as f64;
        let rate = info.bottleneck.bps() as f64 / 8.0;
        let bdp = rate * info.base_rtt.as_secs_f64();
        let min_cwnd = p.min_cwnd_pkts * mtu;
        let max_cwnd = (p.max_cwnd_bdp * bdp).max(min_cwnd);
        let drain = Time::from_secs_f64(info.switch_buffer as f64 / rate);
        let cwnd = match p.initial_cwnd {
            MprdmaInitial::Bdp => bdp,
            MprdmaInitial::Maxwnd => max_cwnd,
            MprdmaInitial::Transport => info.initial_window as f64,
        };
        Mprdma {
            variant: p.variant,
            mtu,
            cwnd: cwnd.clamp(min_cwnd, max_cwnd),
            min_cwnd,
            max_cwnd,
            rto: Time::from_us(15) + drain.mul_f64(6.0),
            marked_acks: 0,
            nacks: 0,
            timeouts: 0,
        }
    }

    /// The reaction to `bytes` of marked (or, for MP-RDMA, trimmed) data.
    fn decrease(&mut self, bytes: f64) {
        let cut = match self.variant {
            MprdmaVariant::Mprdma => bytes / 2.0,
            MprdmaVariant::HtsimDctcp => bytes / 3.0,
        };
        self.cwnd = (self.cwnd - cut).clamp(self.min_cwnd, self.max_cwnd);
    }

    pub fn cwnd_bytes(&self) -> f64 {
        self.cwnd
    }
}

impl CongestionControl for Mprdma {
    fn name(&self) -> &'static str {
        match self.variant {
            MprdmaVariant::Mprdma => "mprdma",
            MprdmaVariant::HtsimDctcp => "mprdma_htsim_dctcp",
        }
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile::uec_sender(self.rto)
    }

    fn on_ack(&mut self, a: &AckSample) {
        let acked = a.newly_acked as f64;
        if acked == 0.0 {
            return;
        }
        if a.ece {
            self.marked_acks += 1;
            self.decrease(acked);
        } else {
            self.cwnd = (self.cwnd + self.mtu * acked / self.cwnd).clamp(self.min_cwnd, self.max_cwnd);
        }
    }

    fn on_loss(&mut self, _: &LossEvent) {}

    fn on_nack(&mut self, n: &NackSample) {
        self.nacks += 1;
        match self.variant {
            MprdmaVariant::Mprdma => self.decrease(n.bytes as f64),
            MprdmaVariant::HtsimDctcp => {
                self.cwnd = (self.cwnd - n.bytes as f64).clamp(self.min_cwnd, self.max_cwnd);
            }
        }
    }

    /// A timeout is treated like a NACK of one packet (our choice; the papers give none).
    fn on_timeout(&mut self, _: Time, _: u32) {
        self.timeouts += 1;
        let mtu = self.mtu;
        match self.variant {
            MprdmaVariant::Mprdma => self.decrease(mtu),
            MprdmaVariant::HtsimDctcp => self.cwnd = (self.cwnd - mtu).clamp(self.min_cwnd, self.max_cwnd),
        }
    }

    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("cwnd_pkts", self.cwnd / self.mtu);
        out("marked_acks", self.marked_acks as f64);
        out("nacks", self.nacks as f64);
        out("timeouts", self.timeouts as f64);
        out("rto_us", self.rto.as_us_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    const MTU: u64 = 4160;

    /// 100 Gbps, 10 µs base RTT: BDP = 125 000 B ≈ 30 packets, max = 1.5 BDP.
    fn mprdma(variant: MprdmaVariant) -> Mprdma {
        let info = crate::cc::test_info(MTU, 10 * MTU, Time::from_us(10), 4, Rate::gbps(100), 1_000_000);
        Mprdma::new(&MprdmaParams { variant, ..MprdmaParams::default() }, &info)
    }

    fn ack(bytes: u64, ece: bool) -> AckSample {
        crate::cc::test_ack(0, 0, bytes, ece)
    }

    /// MP-RDMA paper §3.2: one marked ACK takes half a packet off the window; one unmarked ACK
    /// adds MTU²/cwnd, so a window's worth of unmarked ACKs adds ≈ 1 MTU per RTT.
    #[test]
    fn marked_ack_halves_a_packet_unmarked_adds_one_over_cwnd() {
        let mut m = mprdma(MprdmaVariant::Mprdma);
        m.cwnd = 20.0 * MTU as f64;
        m.on_ack(&ack(MTU, true));
        assert_eq!(m.cwnd_bytes(), 19.5 * MTU as f64);
        let w = m.cwnd_bytes();
        m.on_ack(&ack(MTU, false));
        assert!((m.cwnd_bytes() - (w + MTU as f64 * MTU as f64 / w)).abs() < 1e-6);
        let mut m = mprdma(MprdmaVariant::Mprdma);
        m.cwnd = 10.0 * MTU as f64;
        for _ in 0..10 {
            m.on_ack(&ack(MTU, false));
        }
        let gained = m.cwnd_bytes() / MTU as f64 - 10.0;
        assert!((gained - 1.0).abs() < 0.05, "≈ 1 MTU per window: {gained}");
    }

    /// A NACK is a marked ACK for its packet: −MTU/2 (MP-RDMA), −MTU (htsim's dctcp);
    /// a marked ACK in htsim's variant takes a third of the bytes.
    #[test]
    fn nack_and_variant_reactions() {
        let nack =
            NackSample { now: Time::ZERO, psn: 0, bytes: MTU, rtt: Time::ZERO, cum_ack: 0, snd_nxt: 1, in_flight: 0 };
        let mut m = mprdma(MprdmaVariant::Mprdma);
        m.cwnd = 20.0 * MTU as f64;
        m.on_nack(&nack);
        assert_eq!(m.cwnd_bytes(), 19.5 * MTU as f64);
        let mut h = mprdma(MprdmaVariant::HtsimDctcp);
        h.cwnd = 20.0 * MTU as f64;
        h.on_nack(&nack);
        assert_eq!(h.cwnd_bytes(), 19.0 * MTU as f64);
        h.on_ack(&ack(3 * MTU, true));
        assert_eq!(h.cwnd_bytes(), 18.0 * MTU as f64);
    }

    /// Bounds: never below 1 MTU, never above 1.5 BDP; starts at one BDP.
    #[test]
    fn window_bounds_and_initial_window() {
        let mut m = mprdma(MprdmaVariant::Mprdma);
        let bdp = 100e9 / 8.0 * 10e-6;
        assert!((m.cwnd_bytes() - bdp).abs() < 1.0);
        for _ in 0..1000 {
            m.on_ack(&ack(MTU, true));
        }
        assert_eq!(m.cwnd_bytes(), MTU as f64);
        for _ in 0..100_000 {
            m.on_ack(&ack(MTU, false));
        }
        assert!((m.cwnd_bytes() - 1.5 * bdp).abs() < 1.0);
    }
}
