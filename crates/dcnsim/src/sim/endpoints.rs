//! Transport endpoints: data, trimmed headers, NACKs, pulls and CNPs arriving at a host;
//! the ACKs and replies it sends; probes and retransmission timers.

use super::*;
use crate::net::UecAck;

impl Simulation {
    pub(super) fn deliver(&mut self, h: u32) {
        invariant!(self.inv_delivered(h));
        let pkt: Packet = *self.arena.get(h);
        // The slot's INT records (`net/int.rs`) outlive the free: nothing is allocated
        // before the receiver's reply or the sender's `on_int` reads them.
        self.arena.free(h);
        match pkt.kind {
            PacketKind::Data if pkt.has(flags::TRIMMED) => self.receive_trimmed(&pkt),
            PacketKind::Data => self.receive_data(&pkt, h),
            PacketKind::Ack => self.receive_ack(&pkt, h),
            PacketKind::Nack => self.receive_nack(&pkt),
            PacketKind::Cnp => self.receive_cnp(&pkt),
            PacketKind::Pull => self.receive_pull(&pkt),
        }
    }

    /// Data packet `pkt` (freed slot `h`) reached its receiver.
    pub(super) fn receive_data(&mut self, pkt: &Packet, h: u32) {
        let f = pkt.flow;
        if pkt.has(flags::PROBE) {
            return self.echo_probe(pkt);
        }
        if self.flows[f as usize].lb == LbName::Conweave {
            return self.conweave_receive(pkt, h);
        }
        self.accept_data(pkt, h);
    }

    /// Data packet `pkt` (freed slot `h`) goes to its receiver's transport.
    pub(super) fn accept_data(&mut self, pkt: &Packet, h: u32) {
        let now = self.now();
        let f = pkt.flow;
        self.monitors[f as usize].on_rx(now, pkt.sent_at, pkt.size);
        self.owe_pull(f, false);
        let mut out = self.flows[f as usize].on_data(now, pkt, &self.cfg);
        if self.flows[f as usize].lb == LbName::Laps {
            self.laps_received(f, pkt, &mut out.acks);
        }
        // CONGA's path metric goes back with the ACK (nothing where CONGA is off).
        // INT records likewise: each reply gets a copy of the data packet's.
        let echo = pkt.flags & (flags::PATH_METRIC | flags::INT);
        // The algorithm's own word (`CongestionControl::stamp`), read before a reply may
        // take slot `h` over.
        let sender = &self.flows[f as usize].sender;
        let stamp = if sender.one_way_delay {
            // Synchronised clocks: the receiver reads the data packet's one-way delay.
            Some(now.saturating_sub(pkt.sent_at).0)
        } else {
            sender.stamps.then(|| self.arena.stamp(h))
        };
        for a in out.acks.into_iter().flatten() {
            let reply = self.make_reply(f, a, PacketKind::Ack, echo);
            if echo & flags::INT != 0 {
                self.int.as_mut().expect("INT packets only with the table").copy(h, reply);
            }
            if let Some(word) = stamp {
                self.arena.set_stamp(reply, word);
            }
            self.queue_reply(f, reply);
        }
        if pkt.has(flags::CE) && self.flows[f as usize].cnp_due(now) {
            let cnp = AckToSend {
                cum: 0,
                sacked_psn: pkt.psn,
                ece: true,
                sent_at: pkt.sent_at,
                entropy: pkt.entropy,
                retx: false,
                sack_bits: 0,
                sack_base: 0,
                recvd: 0,
            };
            self.counters.cnps += 1;
            self.send_reply(f, cnp, PacketKind::Cnp, 0);
        }
        if out.arm_delayed_ack {
            self.flows[f as usize].receiver.delayed_ack_pending = true;
            self.events.schedule(now + self.cfg.delayed_ack_timeout, Event::DelayedAck(f));
        }
        if out.finished_now {
            invariant!(self.inv_flow(f));
            self.finished_flows += 1;
            let flow = &mut self.flows[f as usize];
            if flow.failed {
                // Its last bytes were already on their way when the sender gave up; it
                // was counted out of `unfinished_finite` then.
                flow.failed = false;
                self.counters.failed_flows -= 1;
            } else if !flow.is_infinite() && !self.fct_at_sender {
                self.count_out(now);
            }
            if !self.dependencies.is_empty() {
                self.release_dependents(f, false);
            }
            self.check_done();
        }
    }

    /// A trimmed header reached its receiver: NACK it (or ACK it, if the PSN arrived anyway).
    pub(super) fn receive_trimmed(&mut self, pkt: &Packet) {
        if self.flows[pkt.flow as usize].lb == LbName::Conweave {
            self.conweave_header(pkt);
        }
        self.owe_pull(pkt.flow, true);
        let (reply, nack) = self.flows[pkt.flow as usize].on_trimmed(pkt);
        if nack {
            self.counters.nacks += 1;
            self.send_reply(pkt.flow, reply, PacketKind::Nack, 0);
        } else {
            self.send_reply(pkt.flow, reply, PacketKind::Ack, 0);
        }
    }

    pub(super) fn receive_nack(&mut self, pkt: &Packet) {
        let now = self.now();
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        if flow.sender_done() {
            return;
        }
        if flow.on_nack(now, pkt) {
            self.make_ready(f);
        }
    }

    /// EQDS: an arrival of a credit flow owes its sender a pull.
    #[inline]
    pub(super) fn owe_pull(&mut self, f: u32, trimmed: bool) {
        let now = self.now();
        let Some(pulls) = self.pulls.as_mut() else { return };
        if self.flows[f as usize].sender.credit.is_none() {
            return;
        }
        if let crate::eqds::PacerAction::Schedule(at) = pulls.on_arrival(now, f, trimmed) {
            self.events.schedule(at, Event::Pull(self.flows[f as usize].dst));
        }
    }

    /// A receiving host's pull pacer sends one pull (`psn` = the flow's cumulative count)
    /// in the control queue of its uplink.
    #[cold]
    #[inline(never)]
    pub(super) fn pull_tick(&mut self, host: u32) {
        let now = self.now();
        let flows = &self.flows;
        let pulls = self.pulls.as_mut().expect("pull events only with pacers");
        let (sent, next) = pulls.tick(now, host, |f| flows[f as usize].receiver.finish.is_some());
        if let crate::eqds::PacerAction::Schedule(at) = next {
            self.events.schedule(at, Event::Pull(host));
        }
        if let Some((f, cumulative)) = sent {
            // A source-routed flow's replies carry a path index, not the hash entropy.
            let flow = &self.flows[f as usize];
            let (entropy, _) = self.source_routes.route(f, flow.entropy, !flow.lb.sprays());
            let pull = AckToSend {
                cum: cumulative,
                sacked_psn: 0,
                ece: false,
                sent_at: now,
                entropy,
                retx: false,
                sack_bits: 0,
                sack_base: 0,
                recvd: 0,
            };
            self.send_reply(f, pull, PacketKind::Pull, 0);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn receive_pull(&mut self, pkt: &Packet) {
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        if flow.sender_done() {
            return;
        }
        if flow.sender.credit.as_mut().is_some_and(|c| c.on_pull(pkt.psn)) {
            self.make_ready(f);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn receive_cnp(&mut self, pkt: &Packet) {
        let now = self.now();
        let flow = &mut self.flows[pkt.flow as usize];
        if !flow.sender_done() {
            flow.sender.cc.on_cnp(now);
        }
    }

    pub(super) fn send_ack(&mut self, f: u32, a: AckToSend) {
        self.send_reply(f, a, PacketKind::Ack, 0);
    }

    /// An ACK, NACK, CNP or pull from flow `f`'s receiver back to its sender, with
    /// `extra` flags.
    pub(super) fn send_reply(&mut self, f: u32, a: AckToSend, kind: PacketKind, extra: u16) {
        let h = self.make_reply(f, a, kind, extra);
        self.queue_reply(f, h);
    }

    /// Queues reply `h` of flow `f` at its receiver's NIC, after the host holds it for a
    /// draw of the scenario's delay noise when that noise is at the receiver (`noise.rs`).
    #[inline]
    pub(super) fn queue_reply(&mut self, f: u32, h: u32) {
        // One flag of the simulation, not a field of the flow: a run without held replies
        // must not touch another cache line of the flow per ACK.
        if self.replies_held && self.hold_reply(f, h) {
            return;
        }
        self.enqueue(self.routing.host_up_port[self.flows[f as usize].dst as usize], h);
    }

    /// Holds reply `h` of flow `f` for a draw of its noise; false when the draw is 0 (or
    /// the flow holds none), so the caller queues it at once.
    #[cold]
    #[inline(never)]
    fn hold_reply(&mut self, f: u32, h: u32) -> bool {
        let Some(hold) = self.flows[f as usize].reply_hold.as_mut() else { return false };
        let wait = hold.sample();
        if wait == Time::ZERO {
            return false;
        }
        self.held_replies += 1;
        self.events.schedule(self.now() + wait, Event::ReplyHeld(h));
        true
    }

    /// A held reply's time is up: its host's NIC queues it.
    #[cold]
    pub(super) fn release_reply(&mut self, h: u32) {
        self.held_replies -= 1;
        let f = self.arena.get(h).flow;
        self.enqueue(self.routing.host_up_port[self.flows[f as usize].dst as usize], h);
    }

    /// The packet `send_reply` sends, not yet queued at the receiver's NIC.
    #[inline]
    pub(super) fn make_reply(&mut self, f: u32, a: AckToSend, kind: PacketKind, extra: u16) -> u32 {
        let flow = &self.flows[f as usize];
        let pkt = Packet {
            flow: f,
            psn: a.cum,
            sacked_psn: a.sacked_psn,
            size: self.cfg.header_bytes,
            dst: flow.src,
            entropy: a.entropy,
            sent_at: a.sent_at,
            kind,
            flags: extra
                | if a.ece { flags::ECE } else { 0 }
                | if a.retx { flags::RETX } else { 0 }
                | if flow.lb.sprays() { 0 } else { flags::CLASS1 }
                | if self.source_routes.n_paths(f) > 0 { flags::SOURCE_ROUTED } else { 0 },
            priority: flow.priority,
            hop: 0,
            // UEC ACKs carry their bitmap in the side lane (below), others 16 bits here.
            ext: if self.cfg.ack_policy == AckPolicy::Uec { 0 } else { a.sack_bits as u16 },
        };
        self.counters.ack_packets += 1;
        let stamps = flow.sender.stamps;
        let h = self.arena.alloc(pkt);
        if stamps {
            // A reply echoes no word unless its data packet's is copied in (`accept_data`).
            self.arena.set_stamp(h, 0);
        }
        if kind == PacketKind::Ack && self.cfg.ack_policy == AckPolicy::Uec {
            self.arena.set_uec(h, UecAck { recvd: a.recvd, sack_bits: a.sack_bits, sack_base: a.sack_base });
        }
        h
    }

    /// ACK `pkt` (freed slot `h`) reached its sender.
    pub(super) fn receive_ack(&mut self, pkt: &Packet, h: u32) {
        let now = self.now();
        let f = pkt.flow;
        // The path state LAPS and CONGA learn from ACKs is the host pair's: it is kept
        // up to date after the flow itself is done.
        match self.flows[f as usize].lb {
            LbName::Laps => return self.laps_ack(pkt),
            LbName::Conga => self.conga_feedback(pkt),
            LbName::Conweave if pkt.has(flags::CONWEAVE) => return self.conweave_feedback(pkt),
            _ => {}
        }
        let flow = &mut self.flows[f as usize];
        if flow.sender_done() {
            return;
        }
        if pkt.has(flags::INT) {
            let int = self.int.as_ref().expect("INT packets only with the table");
            flow.sender.cc.on_int(now, pkt.psn, flow.sender.next_new, int.hops(h));
        }
        if flow.sender.stamps {
            flow.sender.cc.on_echo(now, pkt.psn, self.arena.stamp(h));
        }
        if flow.sender.one_way_delay {
            let owd = flow.measured_delay(Time(self.arena.stamp(h)));
            flow.sender.cc.on_one_way_delay(now, owd);
        }
        if pkt.has(flags::PROBE) {
            let rtt = flow.measured_delay(now.saturating_sub(pkt.sent_at));
            flow.sender.cc.on_probe_ack(now, rtt);
            self.arm_probe(f);
            self.make_ready(f);
            return;
        }
        let uec = (self.cfg.ack_policy == AckPolicy::Uec).then(|| self.arena.uec(h));
        let out = flow.on_ack_counted(now, pkt, uec, &self.cfg);
        if out.sender_done {
            self.sender_heard_all(f);
        }
        let flow = &mut self.flows[f as usize];
        if flow.uses_probes {
            self.arm_probe(f);
        }
        self.arm_rto(f);
        if out.may_send {
            self.make_ready(f);
        }
        invariant!(self.inv_flow(f));
    }

    /// Flow `f`'s sender has every byte acknowledged: its completion at the sender
    /// (`output.fct = "sender"`, where it also counts the flow as complete).
    pub(super) fn sender_heard_all(&mut self, f: u32) {
        let now = self.now();
        let flow = &mut self.flows[f as usize];
        if flow.sender.done_at.is_some() {
            return;
        }
        flow.sender.done_at = Some(now);
        // A flow given up (`stopped`) was counted out then.
        if self.fct_at_sender && !flow.is_infinite() && !flow.failed && !flow.stopped {
            self.count_out(now);
        }
        if self.dependencies.waits_on_ack(f) {
            self.release_dependents(f, true);
        }
        if self.fct_at_sender {
            self.check_done();
        }
    }

    /// The receiver answers a probe at once with a header-sized echo carrying its send
    /// time; the flow's PSN space and receive state are untouched (docs/models/prioplus.md).
    pub(super) fn echo_probe(&mut self, probe: &Packet) {
        let flow = &self.flows[probe.flow as usize];
        let echo = Packet {
            psn: if flow.lb == LbName::Laps { one_way_ns(self.events.now(), probe.sent_at) } else { 0 },
            sacked_psn: 0,
            size: self.cfg.header_bytes,
            dst: flow.src,
            kind: PacketKind::Ack,
            flags: flags::PROBE | (probe.flags & (flags::CLASS1 | flags::SOURCE_ROUTED)),
            hop: 0,
            ext: 0,
            ..*probe
        };
        let port = self.routing.host_up_port[flow.dst as usize];
        let one_way = flow.sender.one_way_delay.then(|| self.events.now().saturating_sub(probe.sent_at));
        let h = self.arena.alloc(echo);
        if let Some(owd) = one_way {
            self.arena.set_stamp(h, owd.0);
        }
        self.enqueue(port, h);
    }

    /// Keeps one `Probe` event pending no later than the time the algorithm wants its
    /// next probe (an earlier wish schedules a new event; the stale one is ignored).
    pub(super) fn arm_probe(&mut self, f: u32) {
        let now = self.now();
        let flow = &mut self.flows[f as usize];
        if let Some(t) = flow.sender.cc.probe_at() {
            let at = t.max(now);
            if at < flow.probe_event_at {
                flow.probe_event_at = at;
                self.events.schedule(at, Event::Probe(f));
            }
        }
    }

    /// A probe timer: sends the probe if it is (still) due, then re-arms.
    pub(super) fn probe_fired(&mut self, f: u32) {
        let now = self.now();
        let flow = &mut self.flows[f as usize];
        if now != flow.probe_event_at {
            return;
        }
        flow.probe_event_at = Time::MAX;
        if flow.sender_done() {
            return;
        }
        if flow.sender.cc.probe_at().is_some_and(|t| t <= now) {
            let cc = &mut flow.sender.cc;
            let size = cc.probe_bytes();
            let ect = if cc.profile().ecn_capable { flags::ECT } else { 0 };
            cc.on_probe_sent(now);
            let (entropy, routed) = self.source_routes.route(f, flow.entropy, !flow.lb.sprays());
            let pkt = Packet {
                flow: f,
                psn: 0,
                sacked_psn: 0,
                size,
                dst: flow.dst,
                entropy,
                sent_at: now,
                kind: PacketKind::Data,
                flags: flags::PROBE | ect | routed | if flow.lb.sprays() { 0 } else { flags::CLASS1 },
                priority: flow.priority,
                hop: 0,
                ext: 0,
            };
            let port = self.routing.host_up_port[flow.src as usize];
            self.counters.probe_packets += 1;
            self.counters.probe_bytes += size as u64;
            let h = self.arena.alloc(pkt);
            self.enqueue(port, h);
        }
        self.arm_probe(f);
    }

    /// Makes sure an `Rto` event is pending no later than the flow's deadline. A later
    /// deadline reuses the pending event (re-armed when it fires early); an earlier one
    /// schedules a new event, and the old one is ignored when it fires.
    pub(super) fn arm_rto(&mut self, f: u32) {
        let s = &mut self.flows[f as usize].sender;
        if s.rto_deadline != Time::MAX && s.rto_deadline < s.rto_event_at {
            let at = s.rto_deadline.max(self.events.now());
            s.rto_event_at = at;
            self.events.schedule(at, Event::Rto(f));
        }
    }

    pub(super) fn rto_fired(&mut self, f: u32) {
        let now = self.now();
        let flow = &mut self.flows[f as usize];
        if now != flow.sender.rto_event_at {
            return;
        }
        flow.sender.rto_event_at = Time::MAX;
        let deadline = flow.sender.rto_deadline;
        if deadline == Time::MAX || flow.sender_done() || flow.failed {
            return;
        }
        if deadline > now {
            self.arm_rto(f);
            return;
        }
        if !flow.has_outstanding() {
            flow.sender.rto_deadline = Time::MAX;
            if flow.on_credit_stall() {
                self.make_ready(f);
            }
            return;
        }
        if flow.on_timeout(now, &self.cfg) {
            self.counters.timeouts += 1;
            if self.give_up_after > 0 && flow.sender.timeouts_in_a_row >= self.give_up_after {
                return self.give_up(f);
            }
        }
        if flow.uses_probes {
            self.arm_probe(f);
        }
        self.arm_rto(f);
        self.make_ready(f);
    }
}
