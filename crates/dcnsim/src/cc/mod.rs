//! The congestion-control interface. The shared transport (`transport.rs`) does reliable
//! delivery and hands each algorithm per-ACK samples and loss/timeout events; the
//! algorithm answers with a window (bytes on the wire) and optionally a pacing rate.
//! A new algorithm is a new module implementing `CongestionControl`, nothing more.

pub mod dctcp;
pub mod median;
pub mod newreno;

use crate::units::{Rate, Time};

/// What one ACK tells the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Wire bytes this ACK newly acknowledged, cumulatively or selectively.
    pub newly_acked: u64,
    /// ECN echo.
    pub ece: bool,
    /// Round-trip time of the data packet that triggered this ACK.
    pub rtt: Time,
    /// Cumulative ACK: every PSN below it has arrived.
    pub cum_ack: u32,
    /// The sender's next new PSN (one past the highest sent).
    pub snd_nxt: u32,
    /// Wire bytes in flight after this ACK.
    pub in_flight: u64,
    /// Wire bytes that were in flight when this ACK arrived (before it freed any).
    pub in_flight_before: u64,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    /// Whether data packets carry ECT (and so get marked, not dropped, by RED queues).
    fn ecn_capable(&self) -> bool {
        false
    }
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by the duplicate/selective-ACK threshold (fast retransmit).
    fn on_loss(&mut self, now: Time, cum_ack: u32, snd_nxt: u32);
    /// Retransmission timeout.
    fn on_timeout(&mut self, now: Time, snd_nxt: u32);
    /// Congestion window in wire bytes.
    fn cwnd(&self) -> u64;
    /// Pacing rate; `None` sends as fast as the window allows.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }
    /// Internal variables for time series and tests (e.g. DCTCP's alpha).
    fn observe(&self, _out: &mut dyn FnMut(&'static str, f64)) {}
}

/// Standard TCP growth: slow start below `ssthresh`, else +1 MSS per window of
/// acknowledged bytes; but only while the window is what limits the sender (RFC 7661,
/// as Linux's `tcp_is_cwnd_limited`): a flow held back by its NIC or by having nothing to
/// send would otherwise inflate cwnd without bound and burst later. `in_flight` is the
/// bytes outstanding before this ACK.
#[inline]
pub(crate) fn reno_increase(cwnd: &mut u64, ssthresh: u64, mss: u64, newly_acked: u64, in_flight: u64) {
    if *cwnd < ssthresh {
        // Slow start may double what was actually in flight.
        if 2 * in_flight < *cwnd {
            return;
        }
        *cwnd += newly_acked.min(ssthresh - *cwnd).max(1);
    } else {
        if in_flight + mss < *cwnd {
            return;
        }
        *cwnd += (mss * newly_acked / (*cwnd).max(1)).max(1);
    }
}

/// Builds the congestion control a flow runs, from the scenario's parameters.
pub fn make(
    name: crate::scenario::CcName,
    t: &crate::scenario::TransportCfg,
    mss: u64,
    initial_window: u64,
) -> Box<dyn CongestionControl> {
    use crate::scenario::CcName;
    match name {
        CcName::Newreno => Box::new(newreno::NewReno::new(&t.newreno, mss, initial_window)),
        CcName::Dctcp => Box::new(dctcp::Dctcp::new(&t.dctcp, mss, initial_window)),
    }
}

/// An ACK sample for unit tests: `bytes` newly acknowledged, window fully used.
#[cfg(test)]
pub(crate) fn test_ack(cum_ack: u32, snd_nxt: u32, bytes: u64, ece: bool) -> AckSample {
    AckSample {
        now: Time::ZERO,
        newly_acked: bytes,
        ece,
        rtt: Time::ZERO,
        cum_ack,
        snd_nxt,
        in_flight: 0,
        in_flight_before: u64::MAX / 4,
    }
}
