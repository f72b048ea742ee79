//! EQDS receiver-driven credit: Olteanu et al., "An edge-queued datagram service for all
//! datacenter traffic", NSDI 2022, as the SMaRTT paper ran it (docs/models/eqds.md,
//! also for its combination with a sender window).
//!
//! A sender sends its first `speculative_window` packets at once and every later packet
//! (retransmissions included) only against a credit. Each receiving host runs one pull
//! pacer for all its flows: every data packet or trimmed header that arrives owes its
//! sender one pull, and the pacer sends the owed pulls round robin over the flows at
//! `pull_rate` × the host's link rate, one MTU per pull. The pacer is what keeps an incast
//! from queueing: the receiver's link is the scheduled resource, NDP-style.
//!
//! What this does not model: EQDS's "oversubscribed CC" add-on (not in the paper's
//! vanilla EQDS), and uet-htsim's rule that the sender's window caps the pull target (here
//! the receiver pulls for everything the flow still needs; the window still gates
//! sending).
//!
//! The receiver knows the flow's size and its speculative window (both ends agree on
//! them when the flow opens), so it never pulls for more packets than the flow still
//! needs: its size less the speculative window plus one per trimmed header. A packet lost
//! outright (no trimming) is not pulled for; the sender's timeout grants it credit for
//! what it then retransmits.
//!
//! Pulls are cumulative, so a lost pull is made good by the next one, except the last:
//! then the sender has everything acknowledged, data left, no credit and, without more,
//! no timer, while the receiver has pulled for everything it owes. Neither the EQDS paper nor the
//! SMaRTT paper says how EQDS leaves this state; NDP, which EQDS derives from, leaves it by the
//! sender's timeout. Here the sender keeps its retransmission timer running while it is
//! stalled for credit, and when it fires grants itself one speculative window (the
//! credit a flow starts with) for what is left. The receiver still pulls only up to
//! what the flow needs, so nothing is sent twice.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::units::values::InitialWindow;
use crate::units::{Rate, Time};

/// `[transport.eqds]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EqdsParams {
    /// Pull pacing rate as a fraction of the receiver's link rate (htsim: 0.99).
    pub pull_rate: f64,
    /// Packets a sender may send before its first credit: "bdp" (the flow's path BDP,
    /// the SMaRTT paper's "at most one BDP", docs/models/eqds.md) or a packet count.
    pub speculative_window: InitialWindow,
}

impl Default for EqdsParams {
    fn default() -> Self {
        EqdsParams { pull_rate: 0.99, speculative_window: InitialWindow::Bdp }
    }
}

impl EqdsParams {
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.pull_rate > 0.0 && self.pull_rate <= 1.0) {
            return Err(("pull_rate", format!("{}: allowed (0, 1], a fraction of the link rate", self.pull_rate)));
        }
        Ok(())
    }
}

/// The sender's side: how many packets it has been allowed and has sent.
#[derive(Clone, Debug, Default)]
pub struct SenderCredit {
    pub speculative: u32,
    /// The highest cumulative pull count received.
    pub pulled: u32,
    /// Credit the sender gave itself for retransmissions after a timeout.
    pub self_granted: u32,
    pub sent: u32,
    /// Everything sent is acknowledged, data is left and no credit: the retransmission
    /// timer runs as a stall timer.
    pub stalled: bool,
    /// Stall timers that fired (credit the sender granted itself after a lost pull).
    pub stall_timeouts: u32,
}

impl SenderCredit {
    pub fn new(speculative: u32) -> Self {
        SenderCredit { speculative, ..Self::default() }
    }
    #[inline]
    pub fn may_send(&self) -> bool {
        self.sent < self.speculative + self.pulled + self.self_granted
    }
    /// A pull carrying the receiver's cumulative count; returns whether it added credit.
    pub fn on_pull(&mut self, cumulative: u32) -> bool {
        let more = cumulative > self.pulled;
        self.pulled = self.pulled.max(cumulative);
        more
    }
    /// The stall timer fired with `unsent` packets left: grants credit for one
    /// speculative window of them (at least one packet).
    pub fn on_stall_timeout(&mut self, unsent: u32) {
        self.stalled = false;
        self.stall_timeouts += 1;
        let have = self.speculative + self.pulled + self.self_granted;
        let grant = self.speculative.max(1).min(unsent);
        self.self_granted += (self.sent + grant).saturating_sub(have);
    }
}

/// The receiver's bookkeeping for one flow.
#[derive(Clone, Debug, Default)]
struct FlowPulls {
    /// Packets that still need a pull: size − speculative + trimmed headers seen.
    need: u32,
    issued: u32,
    owed: u32,
    queued: bool,
    host: u32,
}

/// One receiving host's pacer.
#[derive(Clone, Debug)]
struct Pacer {
    /// Flows with pulls owed, served round robin.
    ready: VecDeque<u32>,
    /// Earliest time the next pull may leave.
    next_at: Time,
    /// An `Event::Pull` for this host is pending.
    scheduled: bool,
    interval: Time,
}

/// Every host's pull pacer and every credit flow's receiver state.
pub struct PullPacers {
    flows: Vec<FlowPulls>,
    pacers: Vec<Pacer>,
    pub pulls_sent: u64,
}

/// What the simulation should do after an arrival or a pacer tick.
#[derive(Debug, PartialEq, Eq)]
pub enum PacerAction {
    Nothing,
    /// Schedule `Event::Pull(host)` at this time.
    Schedule(Time),
}

impl PullPacers {
    /// `host_rates[h]`: host h's link rate; `mtu`: wire bytes of a full packet.
    pub fn new(n_flows: usize, host_rates: &[Rate], mtu: u64, pull_rate: f64) -> Self {
        let pacers = host_rates
            .iter()
            .map(|r| Pacer {
                ready: VecDeque::new(),
                next_at: Time::ZERO,
                scheduled: false,
                interval: r.serialization(mtu).mul_f64(1.0 / pull_rate),
            })
            .collect();
        PullPacers { flows: vec![FlowPulls::default(); n_flows], pacers, pulls_sent: 0 }
    }

    /// Registers flow `f` (received at `host`) as a credit flow of `n_pkts` packets.
    pub fn add_flow(&mut self, f: u32, host: u32, n_pkts: u32, speculative: u32) {
        self.flows[f as usize] = FlowPulls { need: n_pkts.saturating_sub(speculative), host, ..FlowPulls::default() };
    }

    /// A data packet (or, `trimmed`, a header) of flow `f` reached its receiver.
    pub fn on_arrival(&mut self, now: Time, f: u32, trimmed: bool) -> PacerAction {
        let fl = &mut self.flows[f as usize];
        if trimmed {
            fl.need += 1;
        }
        if fl.issued + fl.owed >= fl.need {
            return PacerAction::Nothing;
        }
        fl.owed += 1;
        let pacer = &mut self.pacers[fl.host as usize];
        if !fl.queued {
            fl.queued = true;
            pacer.ready.push_back(f);
        }
        if pacer.scheduled {
            return PacerAction::Nothing;
        }
        pacer.scheduled = true;
        PacerAction::Schedule(pacer.next_at.max(now))
    }

    /// The pacer of `host` may send one pull: returns (flow, its cumulative pull count) to
    /// send, if any, and whether to tick again. `finished(f)`: flow f needs nothing more.
    pub fn tick(&mut self, now: Time, host: u32, finished: impl Fn(u32) -> bool) -> (Option<(u32, u32)>, PacerAction) {
        let pacer = &mut self.pacers[host as usize];
        let mut sent = None;
        while let Some(f) = pacer.ready.pop_front() {
            let fl = &mut self.flows[f as usize];
            if finished(f) {
                fl.owed = 0;
                fl.queued = false;
                continue;
            }
            fl.owed -= 1;
            fl.issued += 1;
            if fl.owed > 0 {
                pacer.ready.push_back(f);
            } else {
                fl.queued = false;
            }
            sent = Some((f, fl.issued));
            break;
        }
        if sent.is_some() {
            self.pulls_sent += 1;
            pacer.next_at = now + pacer.interval;
        }
        if pacer.ready.is_empty() {
            pacer.scheduled = false;
            (sent, PacerAction::Nothing)
        } else {
            (sent, PacerAction::Schedule(pacer.next_at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two flows into host 0 at 100 Gbps, 4160 B packets: pulls leave one per
    /// 4160·8/(100 G·0.99) = 336.16 ns, alternating between the flows.
    #[test]
    fn pacer_alternates_flows_at_the_pull_rate() {
        let mut p = PullPacers::new(2, &[Rate::gbps(100), Rate::gbps(100)], 4160, 0.99);
        p.add_flow(0, 0, 100, 10);
        p.add_flow(1, 0, 100, 10);
        let t0 = Time::from_us(1);
        assert_eq!(p.on_arrival(t0, 0, false), PacerAction::Schedule(t0));
        assert_eq!(p.on_arrival(t0, 0, false), PacerAction::Nothing);
        assert_eq!(p.on_arrival(t0, 1, false), PacerAction::Nothing);
        let (s, a) = p.tick(t0, 0, |_| false);
        assert_eq!(s, Some((0, 1)));
        let gap = Rate::gbps(100).serialization(4160).mul_f64(1.0 / 0.99);
        assert!((gap.as_us_f64() - 0.33616).abs() < 1e-4, "{gap}");
        assert_eq!(a, PacerAction::Schedule(t0 + gap));
        let (s, _) = p.tick(t0 + gap, 0, |_| false);
        assert_eq!(s, Some((1, 1)), "round robin");
        let (s, a) = p.tick(t0 + gap + gap, 0, |_| false);
        assert_eq!(s, Some((0, 2)));
        assert_eq!(a, PacerAction::Nothing, "nothing more owed");
    }

    /// A sender of 17 packets with a speculative window of 4 that sent 11 and heard pulls
    /// up to 7 (the 8th, its last, was lost) grants itself 4 more; once those are sent,
    /// with 2 left, 2.
    #[test]
    fn a_stall_timeout_grants_one_speculative_window() {
        let mut c = SenderCredit::new(4);
        c.on_pull(7);
        c.sent = 11;
        assert!(!c.may_send());
        c.stalled = true;
        c.on_stall_timeout(6);
        assert_eq!((c.speculative + c.pulled + c.self_granted - c.sent, c.stalled), (4, false));
        c.sent = 15;
        c.stalled = true;
        c.on_stall_timeout(2);
        assert_eq!(c.speculative + c.pulled + c.self_granted - c.sent, 2);
        assert_eq!(c.stall_timeouts, 2);
    }

    /// A flow of 12 packets with 10 speculative needs 2 pulls, plus one per trimmed header.
    #[test]
    fn pulls_stop_at_what_the_flow_needs() {
        let mut p = PullPacers::new(1, &[Rate::gbps(100)], 4160, 1.0);
        p.add_flow(0, 0, 12, 10);
        let mut t = Time::ZERO;
        for _ in 0..10 {
            p.on_arrival(t, 0, false);
        }
        p.on_arrival(t, 0, true);
        let mut pulls = 0;
        loop {
            let (s, a) = p.tick(t, 0, |_| false);
            pulls += s.is_some() as u32;
            match a {
                PacerAction::Schedule(next) => t = next,
                PacerAction::Nothing => break,
            }
        }
        assert_eq!(pulls, 3);
        let mut c = SenderCredit::new(10);
        c.sent = 10;
        assert!(!c.may_send());
        assert!(c.on_pull(3));
        assert!(!c.on_pull(2), "an older cumulative count adds nothing");
        c.sent = 12;
        assert!(c.may_send());
    }
}
