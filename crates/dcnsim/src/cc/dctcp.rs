//! DCTCP, Alizadeh et al., SIGCOMM 2010, §3 (docs/models/dctcp.md, RFC 8257).
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
//! against (as the PrioPlus artefact runs it; docs/models/dctcp.md), is the same
//! machine with three changes: the cut is cwnd·(1 − α^d/2) with the deadline imminence
//! d = T_c / D clipped to [0.5, 2] (T_c = remaining bytes / (0.75 · cwnd / RTT), the time
//! the flow needs at its current pace; D = time left to its deadline; d = 2 once it has
//! passed), growth is 0.01 BDP per RTT, and it starts at line rate (a window of one BDP).
//! A flow's deadline is start + factor × (base RTT + size / line rate), the factor running
//! linearly from 1.5 (highest priority) to 12 (lowest).
//!
//! **Rate-based DCTCP** (`dctcp.variant = "rate"`; docs/models/dctcp.md), the RDMA NIC
//! variant of the HPCC/ConWeave code bases that the LAPS artefact pairs with PLB: the same
//! alpha and CWR machine, acting on a pacing rate instead of a window ([`DctcpRate`]). The
//! rate reaches the transport as DCQCN's does (`pacing_rate`), with an optional in-flight
//! window (`cwnd`) of the same kinds as `dcqcn.window`.

use super::dcqcn::NO_WINDOW;
use super::{reno_increase, AckSample, CongestionControl, FlowInfo, LossEvent};
use crate::cc::TransportProfile;
use crate::units::values::RateVal;
use crate::units::values::WindowCap;
use crate::units::{Rate, Time};

/// How DCTCP reacts to a packet loss (RFC 8257 §3.5; docs/models/dctcp.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LossResponse {
    /// Like standard TCP: halve (RFC 8257 §3.5; the `paper` profile).
    Halve,
    /// Cut by (1 − alpha/2) as for a mark (ns-3 TcpDctcp; the `ns3_study` profile).
    Alpha,
}

/// What DCTCP does after a retransmission timeout (`dctcp.after_timeout`;
/// docs/models/dctcp.md, "After a timeout").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfterTimeout {
    /// Slow start from one packet; ECN echoes on data sent before the timeout do not cut
    /// (Linux's Loss state).
    #[default]
    SlowStart,
    /// The ns-3 TCP stack's path (the DCTCP-vs-Swift study's build): one packet, then the
    /// first echo on an ACK that advances the cumulative ACK enters CWR with a threshold of
    /// (1 − α/2) × the window, no floor, and proportional rate reduction (RFC 6937)
    /// forces one packet out; after that the window stays under one packet free and
    /// nothing is sent, even with nothing in flight, until the next timeout. While
    /// marks persist each timeout round repairs two lost packets.
    CwrPrr,
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
    /// "window" (the DCTCP paper, default) or "rate" (docs/models/dctcp.md; then `rate`
    /// holds its parameters and the four above are unused).
    pub variant: DctcpVariant,
    /// The rate-based variant's parameters (`[transport.dctcp.rate]`).
    pub rate: DctcpRateParams,
    /// What follows a retransmission timeout (`AfterTimeout`).
    pub after_timeout: AfterTimeout,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            loss_response: LossResponse::Halve,
            min_cwnd_pkts: 2,
            variant: DctcpVariant::Window,
            rate: DctcpRateParams::default(),
            after_timeout: AfterTimeout::SlowStart,
        }
    }
}

impl DctcpParams {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", format!("{}: allowed 0 < g <= 1", self.g)));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err(("alpha_init", format!("{}: allowed 0 <= alpha_init <= 1", self.alpha_init)));
        }
        let r = &self.rate;
        if !(r.g > 0.0 && r.g <= 1.0) {
            return Err(("rate.g", format!("{}: allowed 0 < g <= 1", r.g)));
        }
        if !(0.0..=1.0).contains(&r.alpha_init) {
            return Err(("rate.alpha_init", format!("{}: allowed 0 <= alpha_init <= 1", r.alpha_init)));
        }
        if r.min_rate.0.bps() == 0 {
            return Err(("rate.min_rate", "0: must be a positive rate such as \"100Mbps\"".into()));
        }
        Ok(())
    }
}

/// Which DCTCP (`dctcp.variant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DctcpVariant {
    /// The DCTCP paper's window algorithm (module comment above).
    #[default]
    Window,
    /// The rate-based RDMA NIC variant of the HPCC/ConWeave code bases that the LAPS
    /// artefact pairs with PLB (docs/models/dctcp.md; [`DctcpRate`], parameters in
    /// `dctcp.rate`).
    Rate,
}

/// Parameters of the rate-based variant (`[transport.dctcp.rate]`); defaults from the
/// LAPS artefact's configuration (docs/models/dctcp.md) and, for what it leaves open,
/// its NIC settings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpRateParams {
    /// Gain of the alpha EWMA (the LAPS artefact: 1/256).
    pub g: f64,
    /// Initial alpha (1, as the window variant and RFC 8257: the first cut halves).
    pub alpha_init: f64,
    /// Additive increase per batch (one alpha window) without a cut (the LAPS artefact: 1 Gb/s).
    pub rate_ai: RateVal,
    /// Lowest rate after a cut. The variant names a minRate without a value; 100 Mb/s is
    /// the NIC's single `MIN_RATE` in the LAPS artefact's configuration, which that code
    /// base applies to every rate-based algorithm.
    pub min_rate: RateVal,
    /// Cap on wire bytes in flight, as `dcqcn.window`: "off" (default: the LAPS
    /// artefact's DCTCP has no window), "bdp" (the unified one-way BDP of
    /// docs/models/dcqcn.md) or a size.
    pub window: WindowCap,
}

impl Default for DctcpRateParams {
    fn default() -> Self {
        DctcpRateParams {
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            rate_ai: RateVal(Rate::gbps(1)),
            min_rate: RateVal(Rate(100_000_000)),
            window: WindowCap::Off,
        }
    }
}

/// DCTCP's congestion estimate, shared by both variants: alpha, an EWMA (gain `g`) of the
/// fraction of ACKed bytes that echoed a mark, updated once per window of data (the
/// cumulative ACK reaching the SND.NXT snapshot of the previous update; RFC 8257 §3.3).
pub(crate) struct MarkedFraction {
    g: f64,
    pub(crate) alpha: f64,
    acked_total: u64,
    acked_marked: u64,
    /// End of the current observation window (SND.NXT snapshot), once known.
    pub(crate) window_end: Option<u32>,
}

impl MarkedFraction {
    fn new(g: f64, alpha_init: f64) -> MarkedFraction {
        MarkedFraction { g, alpha: alpha_init, acked_total: 0, acked_marked: 0, window_end: None }
    }

    /// Counts the ACK; returns whether it completed a window (and so updated alpha).
    #[inline]
    fn on_ack(&mut self, a: &AckSample) -> bool {
        self.acked_total += a.newly_acked;
        if a.ece {
            self.acked_marked += a.newly_acked;
        }
        let end = *self.window_end.get_or_insert(a.snd_nxt);
        if a.cum_ack < end {
            return false;
        }
        let f = if self.acked_total == 0 { 0.0 } else { self.acked_marked as f64 / self.acked_total as f64 };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        self.acked_total = 0;
        self.acked_marked = 0;
        self.window_end = Some(a.snd_nxt);
        true
    }
}

/// Rate-based DCTCP (docs/models/dctcp.md): the window variant's alpha and CWR machine acting
/// on a pacing rate instead of a window.
/// - alpha: the same EWMA of the marked fraction of ACKed bytes, once per batch (a window
///   of data: the cumulative ACK reaching the SND.NXT snapshot of the previous update);
/// - on an ECN echo outside CWR: rate ← max(min_rate, rate·(1 − alpha/2)), CWR until the
///   cumulative ACK passes SND.NXT as it was at the cut (the window variant's rule);
/// - otherwise, outside CWR, each completed batch adds `rate_ai`, up to the line rate.
///
/// It starts at the line rate of the sender's NIC (the rate such NICs pace at before any
/// feedback). Loss does not change the rate: as for DCQCN, recovery is the transport's
/// (go-back-N in the LAPS setups) and RoCE NICs do not slow down on it.
pub struct DctcpRate {
    line_rate: f64,
    min_rate: f64,
    ai: f64,
    rate: f64,
    marks: MarkedFraction,
    window: u64,
    cwr: bool,
    high_seq: u32,
    pub cuts: u64,
}

impl DctcpRate {
    pub fn new(p: &DctcpRateParams, info: &FlowInfo) -> DctcpRate {
        let mut d = DctcpRate::at_rate(p, info.nic_rate.bps() as f64);
        d.window = p.window.bytes(info);
        d
    }

    fn at_rate(p: &DctcpRateParams, line_rate: f64) -> DctcpRate {
        let min_rate = (p.min_rate.0.bps() as f64).min(line_rate);
        DctcpRate {
            line_rate,
            min_rate,
            ai: p.rate_ai.0.bps() as f64,
            rate: line_rate,
            marks: MarkedFraction::new(p.g, p.alpha_init),
            window: NO_WINDOW,
            cwr: false,
            high_seq: 0,
            cuts: 0,
        }
    }

    pub fn rate_bps(&self) -> f64 {
        self.rate
    }

    pub fn alpha(&self) -> f64 {
        self.marks.alpha
    }
}

impl CongestionControl for DctcpRate {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn profile(&self) -> TransportProfile {
        TransportProfile { ecn_capable: true, ..TransportProfile::default() }
    }

    fn on_ack(&mut self, a: &AckSample) {
        let new_batch = self.marks.on_ack(a);
        // CWR covers the PSNs below `high_seq` (as in the window variant).
        if self.cwr && a.cum_ack > self.high_seq {
            self.cwr = false;
        }
        if self.cwr {
            return;
        }
        if a.ece {
            self.rate = (self.rate * (1.0 - self.marks.alpha / 2.0)).max(self.min_rate);
            self.cwr = true;
            self.high_seq = a.snd_nxt;
            self.cuts += 1;
        } else if new_batch {
            self.rate = (self.rate + self.ai).min(self.line_rate);
        }
    }

    fn on_loss(&mut self, _: &LossEvent) {}

    fn on_timeout(&mut self, _: Time, _: u32) {}

    fn cwnd(&self) -> u64 {
        self.window
    }

    fn pacing_rate(&self) -> Option<Rate> {
        Some(Rate(self.rate as u64))
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("rate_gbps", self.rate / 1e9);
        out("alpha", self.marks.alpha);
        out("cuts", self.cuts as f64);
        if self.window != NO_WINDOW {
            out("window_bytes", self.window as f64);
        }
    }
}

/// D2TCP parameters (`[transport.d2tcp]`); defaults from the PrioPlus artefact
/// (docs/models/dctcp.md).
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
    marks: MarkedFraction,
    /// In CWR/recovery until the cumulative ACK reaches `recover`: no cut, no growth.
    reduced: bool,
    recover: u32,
    /// The Loss state after an RTO lasts until the cumulative ACK reaches this (everything
    /// outstanding at the timeout repaired). Under `AfterTimeout::SlowStart` an echo on
    /// data sent before the timeout does not cut meanwhile, while slow start proceeds;
    /// under `CwrPrr` an echo there enters CWR with proportional rate reduction.
    loss_until: u32,
    /// `AfterTimeout::CwrPrr`: the proportional rate reduction of a CWR entered after a
    /// timeout, while it lasts.
    prr: Option<Prr>,
    /// `AfterTimeout::CwrPrr`: the last cumulative ACK (an echo enters CWR only on an ACK
    /// that advances it).
    last_cum_ack: u32,
}

/// RFC 6937's state for one reduction (conservative reduction bound).
#[derive(Clone, Copy, Debug)]
struct Prr {
    ssthresh: u64,
    /// Bytes in flight when the reduction began (RecoverFS).
    flight_at_entry: u64,
    /// Bytes in flight just after the entering ACK plus the bytes it acknowledged: with the
    /// ACKs' in-flight figures, what was sent since follows from conservation (sent = in
    /// flight before an ACK + delivered before it − this).
    conservation_base: u64,
    delivered: u64,
    /// The window last granted; `cwnd()` reports 0 when it leaves less than a packet free
    /// with nothing in flight.
    window: u64,
    in_flight: u64,
}

impl Dctcp {
    pub fn new(p: &DctcpParams, mss: u64, initial_window: u64) -> Dctcp {
        Dctcp {
            p: p.clone(),
            deadline: None,
            mss,
            cwnd: initial_window,
            ssthresh: u64::MAX,
            marks: MarkedFraction::new(p.g, p.alpha_init),
            reduced: false,
            recover: 0,
            loss_until: 0,
            prr: None,
            last_cum_ack: 0,
        }
    }

    /// D2TCP for a flow of `size` payload bytes (docs/models/dctcp.md): starts with one
    /// BDP, no slow start.
    pub fn d2tcp(p: &D2tcpParams, info: &super::FlowInfo, size: u64) -> Dctcp {
        let bdp = info.bottleneck.bytes_in(info.base_rtt);
        let dctcp = DctcpParams {
            g: p.g,
            alpha_init: 1.0,
            loss_response: LossResponse::Halve,
            min_cwnd_pkts: 2,
            ..DctcpParams::default()
        };
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
        self.marks.alpha
    }

    fn min_cwnd(&self) -> u64 {
        self.p.min_cwnd_pkts as u64 * self.mss
    }

    /// `AfterTimeout::CwrPrr`'s part of an ACK; true when it handled the ACK whole.
    fn prr_on_ack(&mut self, a: &AckSample) -> bool {
        let advanced = a.cum_ack > self.last_cum_ack;
        self.last_cum_ack = self.last_cum_ack.max(a.cum_ack);
        if let Some(prr) = self.prr.as_mut() {
            // CWR lasts until everything sent before it is acknowledged (`recover` is the
            // next PSN at entry). Ending it there, not one packet later, matters here: with
            // nothing new sent and a window under one packet the flow would otherwise wait
            // with nothing in flight and no timer.
            if a.cum_ack < self.recover {
                // RFC 6937, conservative reduction bound. Sent since entry, by conservation
                // of the bytes in flight.
                let sent = (a.in_flight_before + prr.delivered).saturating_sub(prr.conservation_base);
                prr.delivered += a.newly_acked;
                let quota = if a.in_flight > prr.ssthresh {
                    let due =
                        (prr.delivered as u128 * prr.ssthresh as u128).div_ceil(prr.flight_at_entry.max(1) as u128);
                    (due as u64).saturating_sub(sent)
                } else {
                    (prr.ssthresh - a.in_flight).min(prr.delivered.saturating_sub(sent).max(a.newly_acked))
                };
                prr.window = a.in_flight + quota;
                prr.in_flight = a.in_flight;
                return true;
            }
            // CWR ends: the window is the threshold, at least the floor (a window under one
            // packet would leave the flow with nothing in flight and no timer; dcnsim's
            // assumption, docs/models/dctcp.md).
            self.cwnd = prr.ssthresh.max(self.min_cwnd());
            self.ssthresh = self.cwnd;
            self.prr = None;
            self.reduced = false;
            if a.cum_ack == self.recover {
                // This ACK covers only data sent before the reduction: its echo belongs to
                // the same episode and does not cut again (as on the default path).
                return true;
            }
        }
        if a.cum_ack >= self.loss_until {
            return false;
        }
        if a.ece && !advanced {
            // ns-3 enters CWR only on an ACK that advances the cumulative ACK; in the Loss
            // state an echo on any other ACK changes nothing.
            return true;
        }
        if !a.ece {
            return false;
        }
        // An echo in the Loss state: CWR with proportional rate reduction, which sends one
        // packet at once whatever the threshold.
        let ssthresh = (self.cwnd as f64 * (1.0 - self.marks.alpha / 2.0)) as u64;
        self.reduced = true;
        self.recover = a.snd_nxt;
        self.prr = Some(Prr {
            ssthresh,
            flight_at_entry: a.in_flight_before,
            conservation_base: a.in_flight + a.newly_acked,
            delivered: a.newly_acked,
            window: a.in_flight + self.mss,
            in_flight: a.in_flight,
        });
        true
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

    fn profile(&self) -> TransportProfile {
        TransportProfile { ecn_capable: true, ..TransportProfile::default() }
    }

    fn on_ack(&mut self, a: &AckSample) {
        self.marks.on_ack(a);
        if self.p.after_timeout == AfterTimeout::CwrPrr && self.prr_on_ack(a) {
            return;
        }
        let mut just_exited = false;
        if self.reduced {
            // The window of the cut is PSNs below `recover`: an ACK up to exactly `recover`
            // still acknowledges data sent before the cut, so its ECE belongs to the same
            // congestion episode (Linux ends CWR only once snd_una is past high_seq).
            if a.cum_ack <= self.recover {
                return;
            }
            // CWR exit: the window stays at the reduced value (docs/reproductions/dctcp-vs-swift-paper.md, A3); growth resumes
            // with the next ACK, a new mark may cut again at once.
            self.reduced = false;
            just_exited = true;
        }
        if a.ece && a.cum_ack >= self.loss_until {
            let penalty = match &self.deadline {
                Some(d) => self.marks.alpha.powf(d.imminence(a.now, a.cum_ack, self.cwnd, a.rtt)),
                None => self.marks.alpha,
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
        if self.p.after_timeout == AfterTimeout::CwrPrr && cum_ack < self.loss_until {
            // ns-3 acts on duplicate ACKs only in its Open and Disorder states, not in Loss.
            return;
        }
        let factor = match self.p.loss_response {
            LossResponse::Halve => 0.5,
            LossResponse::Alpha => 1.0 - self.marks.alpha / 2.0,
        };
        self.cut(factor, snd_nxt);
    }

    fn on_timeout(&mut self, _now: Time, snd_nxt: u32) {
        let factor = match self.p.loss_response {
            LossResponse::Halve => 0.5,
            LossResponse::Alpha => 1.0 - self.marks.alpha / 2.0,
        };
        self.ssthresh = ((self.cwnd as f64 * factor) as u64).max(self.min_cwnd());
        self.cwnd = self.mss;
        self.reduced = false;
        self.recover = snd_nxt;
        self.loss_until = snd_nxt;
        self.prr = None;
    }

    fn cwnd(&self) -> u64 {
        match &self.prr {
            // Less than a packet free: nothing leaves, even with nothing in flight (ns-3's
            // sender sends no segment through such a window); 0 tells the transport so.
            Some(prr) if prr.window < prr.in_flight + self.mss => {
                if prr.in_flight == 0 {
                    0
                } else {
                    prr.window
                }
            }
            Some(prr) => prr.window,
            None => self.cwnd,
        }
    }

    fn observe(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.marks.alpha);
    }
}

#[cfg(test)]
mod tests;
