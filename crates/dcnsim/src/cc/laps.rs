//! LAPS's congestion control as a sender algorithm: a pacing rate from `laps::RateControl`
//! (AIMD with hyper increase, driven by the latencies of the flow's candidate paths) and
//! the artefact's fixed window W = 2·T·line rate. Paper: LAPS paper §3.6;
//! docs/models/laps.md. Loss is not this module's concern: the simulation infers it per
//! path (§3.7) and the transport resends what it is told is lost, so SACK-hole detection
//! is off.

use super::{AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::laps::{congested, LapsParams, RateControl};
use crate::units::{Rate, Time};

pub struct Laps {
    params: LapsParams,
    rate: RateControl,
    /// T: the largest idle latency of the flow's paths.
    target: Time,
    window: u64,
    /// Rate cuts so far (docs/reproductions/laps-paper.md, B9: they should happen under incast, not under asymmetry).
    pub decreases: u64,
}

impl Laps {
    pub fn new(p: &LapsParams, info: &FlowInfo) -> Laps {
        let window_rate = p.window_rate.map_or(info.nic_rate, |r| r.0);
        let window = if p.window { RateControl::window_bytes(info.path_target, window_rate) } else { u64::MAX / 4 };
        Laps {
            params: p.clone(),
            rate: RateControl::new(info.nic_rate),
            target: info.path_target,
            window,
            decreases: 0,
        }
    }
}

impl CongestionControl for Laps {
    fn name(&self) -> &'static str {
        "laps"
    }
    fn profile(&self) -> TransportProfile {
        TransportProfile {
            // Data carry ECT so that RED queues mark them rather than drop them; LAPS itself
            // reads no marks (docs/models/laps.md: no ECN processing).
            ecn_capable: true,
            sack_loss_detection: false,
            ..TransportProfile::default()
        }
    }

    fn on_ack(&mut self, _: &AckSample) {}
    fn on_loss(&mut self, _: &LossEvent) {}
    fn on_timeout(&mut self, _: Time, _: u32) {}
    fn on_path_latencies(&mut self, now: Time, latencies: &[Time]) {
        let largest = latencies.iter().copied().max().unwrap_or(Time::ZERO);
        let congested = congested(latencies, self.target);
        let before = self.rate.current;
        if self.rate.on_ack(now, congested, self.target, largest, &self.params) && self.rate.current < before {
            self.decreases += 1;
        }
    }
    fn cwnd(&self) -> u64 {
        self.window
    }
    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate((self.rate.current as u64).max(1)))
    }
    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("rate_gbps", self.rate.current / 1e9);
        out("rate_decreases", self.decreases as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_info;
    use crate::units::values::RateVal;

    fn info(target: Time, nic: Rate) -> FlowInfo {
        FlowInfo { path_target: target, nic_rate: nic, ..test_info(1048, 10 * 1048, target, 4, nic, 1 << 20) }
    }

    /// docs/models/laps.md: W = 2·T·line rate / 8; for T = 9244 ns at 200 Gb/s that is
    /// 462,200 bytes. The flow starts paced at line rate.
    #[test]
    fn window_and_initial_rate() {
        let cc = Laps::new(&LapsParams::default(), &info(Time::from_ns(9244), Rate::gbps(200)));
        assert_eq!(cc.cwnd(), 462_200);
        assert_eq!(cc.pacing_rate(), Some(Rate::gbps(200)));
        let off = Laps::new(
            &LapsParams { window: false, ..LapsParams::default() },
            &info(Time::from_ns(9244), Rate::gbps(200)),
        );
        assert!(off.cwnd() > 1 << 60);
        // Sized at a 100 Gb/s fabric instead of the 200 Gb/s NIC: half, 231,100 bytes; the
        // flow still starts at the NIC's rate.
        let fabric = Laps::new(
            &LapsParams { window_rate: Some(RateVal(Rate::gbps(100))), ..LapsParams::default() },
            &info(Time::from_ns(9244), Rate::gbps(200)),
        );
        assert_eq!((fabric.cwnd(), fabric.pacing_rate()), (231_100, Some(Rate::gbps(200))));
    }

    /// One path at or below T keeps the rate; all above T halves it (A4's first step).
    #[test]
    fn feedback_from_the_paths_drives_the_rate() {
        let t = Time::from_ns(1000);
        let mut cc = Laps::new(&LapsParams::default(), &info(t, Rate::gbps(100)));
        cc.on_path_latencies(Time::from_ns(10), &[Time::from_ns(5000), t]);
        assert_eq!(cc.pacing_rate(), Some(Rate::gbps(100)));
        cc.on_path_latencies(Time::from_ns(20), &[Time::from_ns(5000), Time::from_ns(1001)]);
        assert_eq!(cc.pacing_rate(), Some(Rate::gbps(50)));
        assert_eq!(cc.decreases, 1);
    }
}
