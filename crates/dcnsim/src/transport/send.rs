//! The sending side of a flow: whether it may send now (window, pacing, credit, its
//! application), which path the next packet takes (the sender-side balancers), and the
//! packet itself. `docs/models/transport.md`.

use super::*;

impl Flow {
    pub(super) fn has_new_data(&self, now: Time) -> bool {
        let s = &self.sender;
        s.next_new < s.n_pkts && (s.n_pkts != u32::MAX || now < s.stop_at)
    }

    pub(super) fn next_retx(&mut self) -> Option<u32> {
        let s = &mut self.sender;
        while let Some(&p) = s.retx.front() {
            if p >= s.cum_acked && s.state[(p - s.cum_acked) as usize] == LOST {
                return Some(p);
            }
            s.retx.pop_front();
        }
        None
    }

    /// May this flow hand its NIC a packet now?
    pub fn send_state(&mut self, now: Time) -> SendState {
        if !self.started || self.stopped {
            return SendState::Blocked;
        }
        let psn = match self.next_retx() {
            Some(p) => p,
            None if self.has_new_data(now) => {
                // An application-limited flow sends only whole packets its app has written.
                if let Some(app) = self.app.as_mut() {
                    let acked = self.sender.cum_acked as u64 * self.payload as u64;
                    let need = (self.sender.next_new as u64 + 1) * self.payload as u64;
                    if let Some(wait) = app.wait_for(now, acked, need) {
                        return wait;
                    }
                }
                self.sender.next_new
            }
            None => return SendState::Blocked,
        };
        let size = self.wire_size(psn) as u64;
        let s = &self.sender;
        let cwnd = s.cc.cwnd().min(s.inflight_cap);
        // Always allow one packet when nothing is in flight, so a window below one packet
        // still makes progress; a window of exactly 0 is an algorithm that has stopped
        // (PrioPlus above its delay limit) and sends nothing until it restarts.
        // UEC ACKs: bytes the receiver's counter reports are out of the network even
        // before an ACK names their PSNs.
        let in_flight = s.window_in_flight();
        if cwnd == 0 || in_flight > 0 && in_flight + size > cwnd {
            return SendState::Blocked;
        }
        if s.credit.as_ref().is_some_and(|c| !c.may_send()) {
            return SendState::Blocked;
        }
        if now < s.next_send_at && s.pacing_rate().is_some() {
            return SendState::PacedUntil(s.next_send_at);
        }
        SendState::Ready
    }

    /// Whether choosing the next packet's entropy needs a fresh random value.
    pub fn needs_fresh_entropy(&self, now: Time) -> bool {
        match self.lb {
            LbName::Ecmp | LbName::Rr => false,
            LbName::Reps => self.reps.needs_fresh(now),
            LbName::Plb => self.plb.repath_pending,
            // LetFlow decides per packet whether a flowlet starts; a draw is cheap.
            LbName::Ops | LbName::Ar | LbName::Rps => true,
            // The simulation draws LAPS's and CONGA's paths from their tables.
            LbName::Laps | LbName::Conga | LbName::Conweave => false,
            #[allow(unreachable_patterns)]
            _ => self.policy.as_ref().is_none_or(|p| p.needs_fresh(now)),
        }
    }

    /// The entropy value for this flow's next data packet: fixed for ECMP; the packet's
    /// PSN for round robin (so exactly one packet in `paths` takes each path, and a
    /// retransmission retraces its original: the MSwift models' q is a fraction of
    /// packets); REPS and PLB as `lb.rs` decides; otherwise `fresh`.
    pub fn next_entropy(&mut self, now: Time, fresh: u32, cfg: &TransportConfig) -> u32 {
        match self.lb {
            LbName::Ecmp | LbName::Conga | LbName::Conweave => self.entropy,
            LbName::Rr => self.next_retx().unwrap_or(self.sender.next_new),
            LbName::Reps => self.reps.next(now, cfg.reps.draw(self.id, fresh), &cfg.reps),
            LbName::Plb => self.plb.next(&mut self.entropy, fresh),
            LbName::Ops | LbName::Ar | LbName::Rps | LbName::Laps => fresh,
            #[allow(unreachable_patterns)]
            _ => match self.policy.as_mut() {
                Some(p) => p.next(now, fresh, &mut self.entropy),
                None => fresh,
            },
        }
    }

    /// Builds the next data packet (a retransmission first) on path `entropy`. Call only
    /// when `send_state` said `Ready`.
    pub fn emit(&mut self, now: Time, entropy: u32) -> Packet {
        let (psn, retx) = match self.next_retx() {
            Some(p) => {
                self.sender.retx.pop_front();
                (p, true)
            }
            None => {
                let p = self.sender.next_new;
                self.sender.next_new += 1;
                self.sender.state.push_back(SENT);
                self.sender.sent_at.push_back(now);
                (p, false)
            }
        };
        let size = self.wire_size(psn);
        let s = &mut self.sender;
        if retx {
            s.state[(psn - s.cum_acked) as usize] = RESENT;
            s.sent_at[(psn - s.cum_acked) as usize] = now;
            s.retransmits += 1;
        }
        s.in_flight += size as u64;
        if let Some(c) = s.credit.as_mut() {
            c.sent += 1;
            if c.stalled {
                // Credit came: the stall timer becomes this packet's retransmission timer.
                c.stalled = false;
                s.rto_deadline = Time::MAX;
            }
        }
        if let Some(rate) = s.pacing_rate() {
            s.next_send_at = now + rate.serialization(size as u64);
        }
        if s.rto_deadline == Time::MAX {
            s.rto_deadline = now + s.rto;
        }
        let mut f = 0;
        if s.ect {
            f |= flags::ECT;
        }
        if retx {
            f |= flags::RETX;
        }
        match self.lb {
            LbName::Ar => f |= flags::ADAPTIVE,
            LbName::Rr => f |= flags::ROUND_ROBIN,
            LbName::Ecmp | LbName::Plb | LbName::Conga | LbName::Conweave => f |= flags::CLASS1,
            // Source routing (Rps) is flagged by the simulation, which knows the paths.
            LbName::Ops | LbName::Reps | LbName::Rps | LbName::Laps => {}
            #[allow(unreachable_patterns)]
            other => {
                if !other.sprays() {
                    f |= flags::CLASS1
                }
            }
        }
        Packet {
            flow: self.id,
            psn,
            sacked_psn: 0,
            size,
            dst: self.dst,
            entropy,
            sent_at: now,
            kind: PacketKind::Data,
            flags: f,
            priority: self.priority,
            hop: 0,
            ext: 0,
        }
    }

    pub fn pacing_rate(&self) -> Option<Rate> {
        self.sender.cc.pacing_rate()
    }
}
