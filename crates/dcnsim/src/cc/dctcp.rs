//! DCTCP, Alizadeh et al., SIGCOMM 2010, §3 (spec `dctcp-vs-swift.md` §2.2–2.3, RFC 8257).
//!
//! The sender keeps `alpha`, an EWMA (gain g) of the fraction of bytes whose ACK carried
//! ECN-echo, updated once per window of data (when the cumulative ACK passes the snapshot
//! of SND.NXT taken at the previous update), and on ECN-echo cuts
//! cwnd ← cwnd·(1 − alpha/2), at most once per window (CWR state until the cumulative
//! ACK passes the SND.NXT recorded at the cut). Otherwise it grows like TCP Reno.
//! The receiver side (the ECN-echo state machine) lives in the shared transport, since
//! its CE-state flush is needed whenever ACKs are coalesced.
//!
//! **D2TCP** (Vamanan et al., SIGCOMM 2012), the deadline-aware DCTCP PrioPlus compares
//! against (spec `prioplus.md` §3, "D2TCP details", as its artefact runs it), is the same
//! machine with three changes: the cut is cwnd·(1 − α^d/2) with the deadline imminence
//! d = T_c / D clipped to [0.5, 2] (T_c = remaining bytes / (0.75 · cwnd / RTT), the time
//! the flow needs at its current pace; D = time left to its deadline; d = 2 once it has
//! passed), growth is 0.01 BDP per RTT, and it starts at line rate (a window of one BDP).
//! A flow's deadline is start + factor × (base RTT + size / line rate), the factor running
//! linearly from 1.5 (highest priority) to 12 (lowest).

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

/// D2TCP parameters (`[transport.d2tcp]`); defaults from the PrioPlus artefact (spec
/// `prioplus.md` §3).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct D2tcpParams {
    /// Gain of the alpha EWMA (artefact: 1/256).
    pub g: f64,
    /// Additive increase per RTT, in BDPs of the flow's path (0.01).
    pub ai_bdp: f64,
    /// Deadline factor of the highest and of the lowest priority level (1.5 and 12); a
    /// flow without a priority gets the highest's.
    pub deadline_factor_high: f64,
    pub deadline_factor_low: f64,
}

impl Default for D2tcpParams {
    fn default() -> Self {
        D2tcpParams { g: 1.0 / 256.0, ai_bdp: 0.01, deadline_factor_high: 1.5, deadline_factor_low: 12.0 }
    }
}

impl D2tcpParams {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{}: allowed 0 < g <= 1", self.g)));
        }
        for (name, v) in [
            ("ai_bdp", self.ai_bdp),
            ("deadline_factor_high", self.deadline_factor_high),
            ("deadline_factor_low", self.deadline_factor_low),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err((name, format!("{v}: must be positive")));
            }
        }
        Ok(())
    }

    /// The deadline factor of priority `level` of `levels` (larger = more important).
    pub fn factor(&self, level: u8, levels: u8) -> f64 {
        if levels <= 1 || level == 0 {
            return self.deadline_factor_high;
        }
        let from_top = (levels - level.min(levels)) as f64 / (levels - 1) as f64;
        self.deadline_factor_high + (self.deadline_factor_low - self.deadline_factor_high) * from_top
    }
}

/// What makes a DCTCP a D2TCP.
struct Deadline {
    at: Time,
    /// Payload bytes of the flow and of one packet, to tell what remains from the ACKs.
    size: u64,
    payload: u64,
    /// Growth per RTT in bytes.
    ai: f64,
    /// Fractional growth carried between ACKs.
    carry: f64,
}

impl Deadline {
    /// d = T_c / D in [0.5, 2]; 2 once the deadline has passed.
    fn imminence(&self, now: Time, cum_ack: u32, cwnd: u64, rtt: Time) -> f64 {
        if now >= self.at {
            return 2.0;
        }
        let remaining = self.size.saturating_sub(cum_ack as u64 * self.payload) as f64;
        let pace = 0.75 * cwnd as f64 / rtt.as_secs_f64().max(1e-12);
        let needed = remaining / pace;
        (needed / (self.at - now).as_secs_f64()).clamp(0.5, 2.0)
    }
}

pub struct Dctcp {
    p: DctcpParams,
    deadline: Option<Deadline>,
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
            deadline: None,
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

    /// D2TCP for a flow of `size` payload bytes (spec `prioplus.md` §3): starts with one
    /// BDP, no slow start.
    pub fn d2tcp(p: &D2tcpParams, info: &super::FlowInfo, size: u64) -> Dctcp {
        let bdp = info.bottleneck.bytes_in(info.base_rtt);
        let dctcp = DctcpParams { g: p.g, alpha_init: 1.0, loss_response: LossResponse::Halve, min_cwnd_pkts: 2 };
        let mut c = Dctcp::new(&dctcp, info.mtu, (bdp as u64).max(info.mtu));
        c.ssthresh = c.cwnd;
        let payload = info.mtu - info.header;
        let ideal = info.base_rtt + info.bottleneck.serialization(size.min(u64::MAX / 16));
        let factor = p.factor(info.priority, info.levels);
        c.deadline = Some(Deadline {
            at: if size == u64::MAX { Time::MAX } else { info.start + ideal.mul_f64(factor) },
            size,
            payload,
            ai: p.ai_bdp * bdp,
            carry: 0.0,
        });
        c
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
        if self.deadline.is_some() {
            "d2tcp"
        } else {
            "dctcp"
        }
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
            let penalty = match &self.deadline {
                Some(d) => self.alpha.powf(d.imminence(a.now, a.cum_ack, self.cwnd, a.rtt)),
                None => self.alpha,
            };
            self.cut(1.0 - penalty / 2.0, a.snd_nxt);
        } else if !just_exited {
            match self.deadline.as_mut() {
                Some(d) => {
                    // ai bytes per window of ACKs, i.e. per RTT.
                    d.carry += d.ai * a.newly_acked as f64 / self.cwnd.max(1) as f64;
                    let whole = d.carry.floor();
                    d.carry -= whole;
                    self.cwnd += whole as u64;
                }
                None => reno_increase(&mut self.cwnd, self.ssthresh, self.mss, a.newly_acked, a.in_flight_before),
            }
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

    /// D2TCP: 100 Gbps, 12 µs base RTT (BDP 150 kB), a 1 MB flow of priority 8 of 8
    /// (deadline factor 1.5) starting at 0. Deadline = 1.5 × (12 µs + 80 µs) = 138 µs.
    fn d2tcp_flow(level: u8) -> Dctcp {
        let mut info = crate::cc::test_info(1500, 15_000, Time::from_us(12), 4, crate::Rate::gbps(100), 1 << 20);
        info.priority = level;
        info.levels = 8;
        Dctcp::d2tcp(&D2tcpParams::default(), &info, 1_000_000)
    }

    /// Deadline factors run linearly from 1.5 (level 8 of 8) to 12 (level 1).
    #[test]
    fn d2tcp_deadline_factors_span_the_priorities() {
        let p = D2tcpParams::default();
        assert_eq!(p.factor(8, 8), 1.5);
        assert_eq!(p.factor(1, 8), 12.0);
        assert!((p.factor(4, 8) - 7.5).abs() < 1e-12);
        assert_eq!(p.factor(0, 8), 1.5, "no priority: the most urgent");
        let c = d2tcp_flow(8);
        let at = c.deadline.as_ref().unwrap().at.as_us_f64();
        assert!((at - 138.0).abs() < 1e-6, "{at}");
        assert_eq!(c.cwnd(), 150_000, "starts at one BDP");
    }

    /// The cut is 1 − α^d/2 with d = T_c / D: 1 MB left, cwnd 150 kB, RTT 12 µs → pace
    /// 0.75 × 150 kB / 12 µs = 9.375 GB/s, T_c = 106.7 µs; at t = 58 µs, D = 80 µs, so
    /// d = 1.3333; with α = 1 (its start) the cut is a halving whatever d, so set α = 0.5:
    /// factor 1 − 0.5^1.3333 / 2 = 0.80157. Past the deadline d = 2: 1 − 0.25/2 = 0.875.
    #[test]
    fn d2tcp_cuts_by_alpha_to_the_imminence() {
        for (now_us, expected) in [(58.0, 1.0 - 0.5f64.powf(4.0 / 3.0) / 2.0), (200.0, 0.875)] {
            let mut c = d2tcp_flow(8);
            c.alpha = 0.5;
            c.window_end = Some(1000);
            let a = AckSample {
                now: Time::from_secs_f64(now_us * 1e-6),
                newly_acked: 1500,
                ece: true,
                rtt: Time::from_us(12),
                cum_ack: 0,
                snd_nxt: 100,
                in_flight: 0,
                in_flight_before: 150_000,
            };
            c.on_ack(&a);
            let got = c.cwnd() as f64 / 150_000.0;
            assert!((got - expected).abs() < 1e-4, "at {now_us} us: {got} vs {expected}");
        }
    }

    /// Growth: one window of unmarked ACKs adds 0.01 BDP (1500 B).
    #[test]
    fn d2tcp_grows_one_hundredth_of_a_bdp_per_rtt() {
        let mut c = d2tcp_flow(8);
        c.window_end = Some(u32::MAX);
        for i in 0..100 {
            c.on_ack(&ack(i, 1000, false));
        }
        assert!((c.cwnd() as i64 - 151_500).abs() <= 20, "{}", c.cwnd());
    }
}
