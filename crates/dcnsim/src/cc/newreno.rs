//! TCP NewReno (RFC 6582 / RFC 5681): slow start, additive increase of one MSS per RTT,
//! and on loss ssthresh = cwnd / 2, at most once per window of data (until the cumulative
//! ACK passes the highest PSN sent when the loss was detected). Retransmission itself is
//! the shared transport's job (SACK-based, so one window can repair several holes).
//! The MSwift paper (§II) uses it as the analytical baseline (Mathis et al. 1997);
//! docs/models/newreno.md.

use super::{reno_increase, AckSample, CongestionControl, LossEvent};
use crate::units::Time;

/// NewReno parameters.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NewRenoParams {
    /// Smallest window after a loss, in packets (RFC 5681: 2).
    pub min_cwnd_pkts: u32,
}

impl Default for NewRenoParams {
    fn default() -> Self {
        NewRenoParams { min_cwnd_pkts: 2 }
    }
}

pub struct NewReno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    min_cwnd: u64,
    /// No further cut until the cumulative ACK reaches this PSN.
    recover: u32,
    in_recovery: bool,
}

impl NewReno {
    pub fn new(p: &NewRenoParams, mss: u64, initial_window: u64) -> NewReno {
        NewReno {
            mss,
            cwnd: initial_window,
            ssthresh: u64::MAX,
            min_cwnd: p.min_cwnd_pkts as u64 * mss,
            recover: 0,
            in_recovery: false,
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, a: &AckSample) {
        if self.in_recovery {
            if a.cum_ack >= self.recover {
                self.in_recovery = false;
            } else {
                return;
            }
        }
        reno_increase(&mut self.cwnd, self.ssthresh, self.mss, a.newly_acked, a.in_flight_before);
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        let (cum_ack, snd_nxt) = (ev.cum_ack, ev.snd_nxt);
        if self.in_recovery || cum_ack < self.recover {
            return;
        }
        self.ssthresh = (self.cwnd / 2).max(self.min_cwnd);
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
        self.recover = snd_nxt;
    }

    fn on_timeout(&mut self, _now: Time, snd_nxt: u32) {
        self.ssthresh = (self.cwnd / 2).max(self.min_cwnd);
        self.cwnd = self.mss;
        self.in_recovery = false;
        self.recover = snd_nxt;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("ssthresh", self.ssthresh.min(u32::MAX as u64) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(cum: u32, nxt: u32, bytes: u64) -> AckSample {
        crate::cc::test_ack(cum, nxt, bytes, false)
    }

    #[test]
    fn halves_once_per_window_then_grows_one_mss_per_window() {
        let mss = 1000;
        let mut c = NewReno::new(&NewRenoParams::default(), mss, 20 * mss);
        c.on_loss(&crate::cc::test_loss(0, 20));
        assert_eq!(c.cwnd(), 10 * mss);
        c.on_loss(&crate::cc::test_loss(5, 20)); // same window: no second cut
        assert_eq!(c.cwnd(), 10 * mss);
        c.on_ack(&ack(20, 30, mss)); // recovery ends, congestion avoidance
        let start = c.cwnd();
        for i in 0..10 {
            c.on_ack(&ack(21 + i, 40, mss));
        }
        let grown = c.cwnd() - start;
        assert!((mss * 9 / 10..=mss * 11 / 10).contains(&grown), "grew {grown}");
    }

    /// RFC 7661: an application- or NIC-limited sender does not grow its window.
    #[test]
    fn window_grows_only_when_it_limits_the_sender() {
        let mss = 1000;
        let mut c = NewReno::new(&NewRenoParams::default(), mss, 10 * mss);
        let limited = AckSample { in_flight_before: 2 * mss, ..ack(1, 10, mss) };
        c.on_ack(&limited);
        assert_eq!(c.cwnd(), 10 * mss, "slow start needs at least half the window in flight");
        let full = AckSample { in_flight_before: 10 * mss, ..ack(2, 10, mss) };
        c.on_ack(&full);
        assert_eq!(c.cwnd(), 11 * mss);
    }
}
