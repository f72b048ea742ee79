//! DCTCP, Alizadeh et al., SIGCOMM 2010, §3 (spec `dctcp-vs-swift.md` §2.2–2.3, RFC 8257).
//!
//! The sender keeps `alpha`, an EWMA (gain g) of the fraction of bytes whose ACK carried
//! ECN-echo, updated once per window of data (when the cumulative ACK passes the snapshot
//! of SND.NXT taken at the previous update), and on ECN-echo cuts
//! cwnd ← cwnd·(1 − alpha/2), at most once per window (CWR state until the cumulative
//! ACK passes the SND.NXT recorded at the cut). Otherwise it grows like TCP Reno.
//! The receiver side (the ECN-echo state machine) lives in the shared transport, since
//! its CE-state flush is needed whenever ACKs are coalesced.

use super::{reno_increase, AckSample, CongestionControl, LossEvent};
use crate::units::Time;

/// How DCTCP reacts to a packet loss (spec §2.3 "Loss response").
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossResponse {
    /// Like standard TCP: halve (RFC 8257 §3.5; the `paper` profile).
    Halve,
    /// Cut by (1 − alpha/2) as for a mark (ns-3 TcpDctcp; the `ns3_study` profile).
    Alpha,
}

/// DCTCP parameters; defaults from the DCTCP paper and RFC 8257.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// Estimation gain g of the alpha EWMA (paper: 1/16).
    pub g: f64,
    /// Initial alpha (RFC 8257: 1, so the first reaction is a halving).
    pub alpha_init: f64,
    pub loss_response: LossResponse,
    /// Smallest window after a cut, in packets (Linux/RFC 8257: 2).
    pub min_cwnd_pkts: u32,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams { g: 1.0 / 16.0, alpha_init: 1.0, loss_response: LossResponse::Halve, min_cwnd_pkts: 2 }
    }
}

pub struct Dctcp {
    p: DctcpParams,
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    alpha: f64,
    acked_total: u64,
    acked_marked: u64,
    /// End of the current observation window (SND.NXT snapshot), once known.
    window_end: Option<u32>,
    /// In CWR/recovery until the cumulative ACK reaches `recover`: no cut, no growth.
    reduced: bool,
    recover: u32,
    /// After an RTO (Loss state) ECE on data sent before the timeout does not cut, while
    /// slow start proceeds.
    loss_until: u32,
}

impl Dctcp {
    pub fn new(p: &DctcpParams, mss: u64, initial_window: u64) -> Dctcp {
        Dctcp {
            p: p.clone(),
            mss,
            cwnd: initial_window,
            ssthresh: u64::MAX,
            alpha: p.alpha_init,
            acked_total: 0,
            acked_marked: 0,
            window_end: None,
            reduced: false,
            recover: 0,
            loss_until: 0,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    fn min_cwnd(&self) -> u64 {
        self.p.min_cwnd_pkts as u64 * self.mss
    }

    fn cut(&mut self, factor: f64, snd_nxt: u32) {
        self.ssthresh = ((self.cwnd as f64 * factor) as u64).max(self.min_cwnd());
        self.cwnd = self.ssthresh;
        self.reduced = true;
        self.recover = snd_nxt;
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn ecn_capable(&self) -> bool {
        true
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.acked_total += a.newly_acked;
        if a.ece {
            self.acked_marked += a.newly_acked;
        }
        let end = *self.window_end.get_or_insert(a.snd_nxt);
        if a.cum_ack >= end {
            let f = if self.acked_total == 0 { 0.0 } else { self.acked_marked as f64 / self.acked_total as f64 };
            self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
            self.acked_total = 0;
            self.acked_marked = 0;
            self.window_end = Some(a.snd_nxt);
        }
        let mut just_exited = false;
        if self.reduced {
            // The window of the cut is PSNs below `recover`: an ACK up to exactly `recover`
            // still acknowledges data sent before the cut, so its ECE belongs to the same
            // congestion episode (Linux ends CWR only once snd_una is past high_seq).
            if a.cum_ack <= self.recover {
                return;
            }
            // CWR exit: the window stays at the reduced value (spec A3); growth resumes
            // with the next ACK, a new mark may cut again at once.
            self.reduced = false;
            just_exited = true;
        }
        if a.ece && a.cum_ack >= self.loss_until {
            self.cut(1.0 - self.alpha / 2.0, a.snd_nxt);
        } else if !just_exited {
            reno_increase(&mut self.cwnd, self.ssthresh, self.mss, a.newly_acked, a.in_flight_before);
        }
    }

    fn on_loss(&mut self, ev: &LossEvent) {
        let (cum_ack, snd_nxt) = (ev.cum_ack, ev.snd_nxt);
        if self.reduced && cum_ack <= self.recover {
            return;
        }
        let factor = match self.p.loss_response {
            LossResponse::Halve => 0.5,
            LossResponse::Alpha => 1.0 - self.alpha / 2.0,
        };
        self.cut(factor, snd_nxt);
    }

    fn on_timeout(&mut self, _now: Time, snd_nxt: u32) {
        let factor = match self.p.loss_response {
            LossResponse::Halve => 0.5,
            LossResponse::Alpha => 1.0 - self.alpha / 2.0,
        };
        self.ssthresh = ((self.cwnd as f64 * factor) as u64).max(self.min_cwnd());
        self.cwnd = self.mss;
        self.reduced = false;
        self.recover = snd_nxt;
        self.loss_until = snd_nxt;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1500;

    fn ack(cum: u32, nxt: u32, ece: bool) -> AckSample {
        crate::cc::test_ack(cum, nxt, MSS, ece)
    }

    /// Spec §5 A2: alpha = 1, g = 1/16; a window with F = 0.5 gives 0.96875, a following
    /// window with F = 0 gives 0.908203125; one update per window.
    #[test]
    fn a2_alpha_ewma_once_per_window() {
        let mut c = Dctcp::new(&DctcpParams::default(), MSS, 1000 * MSS);
        // The first ACK sets the window end to SND.NXT = 4 and opens the first window.
        // Window 1: PSNs 0..4 acked, two of them with ECE (F = 0.5). Keep CWR out of the
        // way by giving the window a huge cwnd and counting only alpha.
        c.on_ack(&ack(1, 4, true));
        assert_eq!(c.alpha(), 1.0, "no update before the window ends");
        c.on_ack(&ack(2, 8, true));
        c.on_ack(&ack(3, 8, false));
        c.on_ack(&ack(4, 8, false)); // cum 4 >= end 4: F = 2/4
        assert_eq!(c.alpha(), 0.96875);
        for cum in 5..=8 {
            c.on_ack(&ack(cum, 12, false));
        }
        assert_eq!(c.alpha(), 0.908203125);
    }

    /// Spec §5 A3: cwnd = 100 MSS, alpha = 0.5, ECE -> 75 MSS; no second cut in the window;
    /// 75 MSS after CWR exit.
    #[test]
    fn a3_cut_once_per_window() {
        let p = DctcpParams { alpha_init: 0.5, g: 0.0, ..DctcpParams::default() };
        let mut c = Dctcp::new(&p, MSS, 100 * MSS);
        c.ssthresh = 0; // congestion avoidance
        c.on_ack(&ack(1, 100, true));
        assert_eq!(c.cwnd(), 75 * MSS);
        for cum in 2..100 {
            c.on_ack(&ack(cum, 100, true));
        }
        assert_eq!(c.cwnd(), 75 * MSS, "further marks in the same window do not cut");
        // An ACK up to exactly `recover` still belongs to the cut's window, even if marked.
        c.on_ack(&ack(100, 120, true));
        assert!(c.reduced);
        assert_eq!(c.cwnd(), 75 * MSS);
        // The first ACK past `recover` ends CWR; the window is still 75 MSS.
        c.on_ack(&ack(101, 120, false));
        assert!(!c.reduced);
        assert_eq!(c.cwnd(), 75 * MSS);
        // A mark in the next window cuts again.
        c.on_ack(&ack(102, 120, true));
        assert_eq!(c.cwnd(), (75 * MSS) * 3 / 4);
    }

    #[test]
    fn loss_halves_in_paper_mode_and_uses_alpha_in_ns3_mode() {
        let mut paper = Dctcp::new(&DctcpParams { alpha_init: 0.2, ..Default::default() }, MSS, 100 * MSS);
        paper.on_loss(&crate::cc::test_loss(0, 100));
        assert_eq!(paper.cwnd(), 50 * MSS);
        let p = DctcpParams { alpha_init: 0.2, loss_response: LossResponse::Alpha, ..Default::default() };
        let mut ns3 = Dctcp::new(&p, MSS, 100 * MSS);
        ns3.on_loss(&crate::cc::test_loss(0, 100));
        assert_eq!(ns3.cwnd(), 90 * MSS);
        ns3.on_timeout(Time::ZERO, 100);
        assert_eq!(ns3.cwnd(), MSS);
    }

    /// After a timeout, ECE on data sent before it belongs to the congestion already
    /// answered by the timeout: slow start must go on (spec §2.3 cuts only when OPEN).
    #[test]
    fn marks_on_pre_timeout_data_do_not_cut_after_a_timeout() {
        let mut c = Dctcp::new(&DctcpParams { alpha_init: 0.5, ..Default::default() }, MSS, 40 * MSS);
        c.on_timeout(Time::ZERO, 100);
        assert_eq!(c.cwnd(), MSS);
        let mut a = ack(1, 100, true);
        a.in_flight_before = MSS;
        c.on_ack(&a);
        for cum in 2..12 {
            let mut a = ack(cum, 101, false);
            a.in_flight_before = c.cwnd();
            c.on_ack(&a);
        }
        assert!(c.cwnd() >= 10 * MSS, "slow start stalled at {} MSS", c.cwnd() / MSS);
    }
}
