//! No congestion control: an unbounded window, so a flow sends as fast as its NIC lets it.
//! This is the SMaRTT paper's simulated "lossless RoCEv2" sender (SMaRTT paper
//! §IV-b; docs/reproductions/smartt-paper.md: the sender transmits at line rate, PFC keeps the fabric lossless), and with
//! `[switch.pfc]` the building block of PFC tests. Losses, if any, are left to the
//! transport's retransmission.

use super::{AckSample, CongestionControl, LossEvent};
use crate::cc::TransportProfile;
use crate::units::Time;

pub struct Uncontrolled;

impl CongestionControl for Uncontrolled {
    fn name(&self) -> &'static str {
        "none"
    }
    fn profile(&self) -> TransportProfile {
        TransportProfile {
            // A line-rate sender ignores marks; carrying ECT keeps RED from dropping its packets
            // (a lossless fabric must not lose them to marking, and EQDS relies on trimming).
            ecn_capable: true,
            ..TransportProfile::default()
        }
    }

    fn on_ack(&mut self, _: &AckSample) {}
    fn on_loss(&mut self, _: &LossEvent) {}
    fn on_timeout(&mut self, _: Time, _: u32) {}
    fn cwnd(&self) -> u64 {
        // Large enough never to bind, small enough that in_flight + size cannot overflow.
        u64::MAX / 4
    }
}
