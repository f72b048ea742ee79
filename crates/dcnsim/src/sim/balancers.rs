//! The path-aware and switch-assisted balancers' hooks into the world: LAPS (per-path
//! state, probes, path timers), CONGA (leaf-to-leaf feedback) and ConWeave (reroutes and
//! the destination's reorder queue). `docs/models/laps.md`, `conga.md`, `conweave.md`.

use super::*;

impl Simulation {
    /// LAPS: a probe for flow `f`'s pair, if one of its paths is due one (LAPS paper
    /// §3.4; docs/models/laps.md): a header and a 1-byte payload on that path.
    #[cold]
    #[inline(never)]
    pub(super) fn laps_probe(&mut self, f: u32) -> Option<u32> {
        let now = self.now();
        let (first, n) = self.source_routes.paths_of(f);
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        let u = self.rng_spray.next_f64();
        let path = table.probe_due(first, n, now, u, table.params.probe)?;
        let flow = &self.flows[f as usize];
        let size = self.cfg.header_bytes + 1;
        let probe = Packet {
            flow: f,
            psn: 0,
            sacked_psn: 0,
            size,
            dst: flow.dst,
            entropy: path,
            sent_at: now,
            kind: PacketKind::Data,
            flags: flags::PROBE | flags::SOURCE_ROUTED,
            priority: flow.priority,
            hop: 0,
            ext: 0,
        };
        self.counters.probe_packets += 1;
        self.counters.probe_bytes += size as u64;
        Some(self.arena.alloc(probe))
    }

    /// LAPS: the path (index in flow `f`'s set) of its next data packet, by softmax over
    /// the paths' latest latencies (Eq. 1).
    #[cold]
    #[inline(never)]
    pub(super) fn laps_pick(&mut self, f: u32) -> u32 {
        let (first, n) = self.source_routes.paths_of(f);
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        let mut latencies = std::mem::take(&mut table.scratch_latencies);
        table.latencies(first, n, &mut latencies);
        let target = table.target(first, n);
        let path = crate::laps::pick_path(&latencies, target, &table.params, self.rng_spray.next_f64());
        table.scratch_latencies = latencies;
        path as u32
    }

    /// LAPS: data packet `pkt` left; it joins its path's outstanding list.
    #[cold]
    #[inline(never)]
    pub(super) fn laps_sent(&mut self, pkt: &Packet) {
        let (first, _) = self.source_routes.paths_of(pkt.flow);
        let path = first + pkt.entropy;
        let in_flight = self.flows[pkt.flow as usize].sender.in_flight;
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        let sent = Outstanding { flow: pkt.flow, psn: pkt.psn, sent_at: pkt.sent_at };
        table.on_sent(path, sent, table.params.path_rto.0);
        table.peak_in_flight = table.peak_in_flight.max(in_flight);
        self.arm_path_rto(path);
    }

    /// LAPS receiver: every data packet is acknowledged at once with its one-way latency
    /// in place of the cumulative ACK (docs/models/laps.md); the reorder buffer is sampled.
    #[cold]
    #[inline(never)]
    pub(super) fn laps_received(&mut self, f: u32, pkt: &Packet, acks: &mut [Option<AckToSend>; 2]) {
        let latency = one_way_ns(self.now(), pkt.sent_at);
        for a in acks.iter_mut().flatten() {
            a.cum = latency;
        }
        let held = self.flows[f as usize].receiver.ooo_held as u64 * self.cfg.payload() as u64;
        self.laps.as_mut().expect("LAPS flows have a path table").sample_ooo(held);
    }

    /// LAPS sender: an ACK or a probe's echo updates its path's latency; an ACK also
    /// declares lost what was sent before it on that path (docs/models/laps.md), acknowledges
    /// its packet, and drives the rate (LAPS paper §3.6).
    #[cold]
    #[inline(never)]
    pub(super) fn laps_ack(&mut self, pkt: &Packet) {
        let now = self.now();
        let f = pkt.flow;
        let (first, n) = self.source_routes.paths_of(f);
        let path = first + pkt.entropy;
        let latency = Time::from_ns(pkt.psn as u64);
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        table.measured(path, now, latency);
        if pkt.has(flags::PROBE) {
            return;
        }
        let ack_delay = now.saturating_sub(pkt.sent_at + latency);
        table.ack_delay = (table.ack_delay.0.min(ack_delay), table.ack_delay.1.max(ack_delay));
        let mut lost = std::mem::take(&mut table.scratch_lost);
        table.on_ack(path, pkt.sent_at, now, table.params.path_rto.0, &mut lost);
        self.arm_path_rto(path);
        self.resend(&mut lost);
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        table.scratch_lost = lost;
        let mut latencies = std::mem::take(&mut table.scratch_latencies);
        table.measured_latencies(first, n, &mut latencies);
        let flow = &mut self.flows[f as usize];
        if !flow.sender_done() {
            let out = flow.on_ack(now, pkt, &self.cfg);
            flow.sender.cc.on_path_latencies(now, &latencies);
            if out.may_send {
                self.make_ready(f);
            }
            if out.sender_done {
                self.sender_heard_all(f);
            }
        }
        self.laps.as_mut().expect("LAPS flows have a path table").scratch_latencies = latencies;
    }

    /// Queues the retransmission of each transmission in `lost` (emptied).
    pub(super) fn resend(&mut self, lost: &mut Vec<Outstanding>) {
        for o in lost.drain(..) {
            if self.flows[o.flow as usize].declare_lost(o.psn, o.sent_at) {
                self.make_ready(o.flow);
            }
        }
    }

    /// Keeps one `PathRto` event pending no later than the path's deadline (lazily, as
    /// `arm_rto` does for flows).
    pub(super) fn arm_path_rto(&mut self, path: u32) {
        let now = self.now();
        let p = &mut self.laps.as_mut().expect("LAPS flows have a path table").paths[path as usize];
        if p.rto_deadline != Time::MAX && p.rto_deadline < p.rto_event_at {
            p.rto_event_at = p.rto_deadline.max(now);
            self.events.schedule(p.rto_event_at, Event::PathRto(path));
        }
    }

    /// A LAPS path's timer: if its deadline has passed, all that is outstanding on the
    /// path is lost (the artefact's 8 ms, whatever the RTT; docs/models/laps.md).
    #[cold]
    #[inline(never)]
    pub(super) fn path_rto_fired(&mut self, path: u32) {
        let now = self.now();
        let table = self.laps.as_mut().expect("LAPS flows have a path table");
        let p = &mut table.paths[path as usize];
        if now != p.rto_event_at {
            return;
        }
        p.rto_event_at = Time::MAX;
        if p.rto_deadline == Time::MAX {
            return;
        }
        if p.rto_deadline > now {
            return self.arm_path_rto(path);
        }
        let mut lost = std::mem::take(&mut table.scratch_lost);
        table.on_timeout(path, &mut lost);
        self.resend(&mut lost);
        self.laps.as_mut().expect("LAPS flows have a path table").scratch_lost = lost;
    }

    /// What a switch does with packet `h`, arrived over `ingress` and leaving by
    /// `egress`, before queueing it, beyond routing: CONGA's rate estimators count every
    /// packet, PFC charges the ingress link.
    #[cold]
    #[inline(never)]
    pub(super) fn on_forward(&mut self, ingress: u32, egress: u32, h: u32) {
        if self.conga.is_some() {
            self.conga_forward(egress, h);
        }
        if self.pfc.is_some() {
            self.pfc_admit(ingress, egress, h);
        }
    }

    /// CONGA: the path of flow `f`'s next packet: its current one, or, if the packet
    /// starts a flowlet, the least congested candidate path (docs/models/conga.md).
    #[cold]
    #[inline(never)]
    pub(super) fn conga_pick(&mut self, f: u32) -> u32 {
        let now = self.now();
        let conga = self.conga.as_mut().expect("CONGA flows have CONGA state");
        let gap = crate::lb::LetflowParams { flowlet_timeout: conga.params.flowlet_timeout };
        let flow = &mut self.flows[f as usize];
        let mut best = flow.entropy;
        if flow.flowlets.starts_new(now, &gap) {
            let (first, n) = self.source_routes.paths_of(f);
            let metrics: Vec<u8> = (first..first + n)
                .map(|p| {
                    let uplink = self.source_routes.first_egress(p);
                    conga.path_metric(p, uplink, self.ports[uplink as usize].rate, now)
                })
                .collect();
            best = crate::conga::least_congested(&metrics, self.rng_spray.next_f64()) as u32;
        }
        flow.flowlets.next(now, &mut flow.entropy, best, &gap)
    }

    /// CONGA: packet `h` leaves a switch by `port`, which counts it; a data packet's
    /// path metric grows to the port's congestion if that is larger.
    #[cold]
    #[inline(never)]
    pub(super) fn conga_forward(&mut self, port: u32, h: u32) {
        let now = self.now();
        let rate = self.ports[port as usize].rate;
        let conga = self.conga.as_mut().expect("checked by the caller");
        let pkt = self.arena.get_mut(h);
        let level = conga.on_forward(port, rate, pkt.size, now) as u16;
        if pkt.kind == PacketKind::Data {
            let carried = (pkt.flags & flags::PATH_METRIC) >> flags::PATH_METRIC_SHIFT;
            pkt.flags = pkt.flags & !flags::PATH_METRIC | carried.max(level) << flags::PATH_METRIC_SHIFT;
        }
    }

    /// CONGA: an ACK brings back the metric its data packet gathered on its path.
    #[cold]
    #[inline(never)]
    pub(super) fn conga_feedback(&mut self, pkt: &Packet) {
        let (first, _) = self.source_routes.paths_of(pkt.flow);
        let metric = ((pkt.flags & flags::PATH_METRIC) >> flags::PATH_METRIC_SHIFT) as u8;
        let now = self.now();
        self.conga.as_mut().expect("CONGA flows have CONGA state").on_feedback(first + pkt.entropy, metric, now);
    }

    /// ConWeave: the path and header of flow `f`'s next data packet (docs/models/conweave.md).
    #[cold]
    #[inline(never)]
    pub(super) fn conweave_pick(&mut self, f: u32) -> (u32, u16) {
        let now = self.now();
        let (first, n) = self.source_routes.paths_of(f);
        // A new flow starts on the path its hash picks, uniformly among the candidates.
        let (initial, _) = self.source_routes.route(f, self.flows[f as usize].entropy, false);
        let rng = &mut self.rng_spray;
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        cw.on_send(f, now, first, n, initial, || rng.next_f64())
    }

    /// ConWeave's destination: answers RTT requests, reports ECN marks, and hands `pkt`
    /// to the receiver now, or holds it until its old path's TAIL (docs/models/conweave.md).
    #[cold]
    #[inline(never)]
    pub(super) fn conweave_receive(&mut self, pkt: &Packet, h: u32) {
        use crate::conweave::{header, Arrival};
        let now = self.now();
        let f = pkt.flow;
        self.conweave_answer(pkt);
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        if pkt.has(flags::CE) && cw.notify_due(f, now) {
            self.conweave_send_control(pkt, header::NOTIFY | (pkt.ext & header::EPOCH));
        }
        let cw = self.conweave.as_mut().expect("checked above");
        match cw.on_arrive(f, pkt, now) {
            Arrival::Deliver => self.accept_data(pkt, h),
            Arrival::DeliverAndRelease { epoch } => {
                self.accept_data(pkt, h);
                self.conweave_send_control(pkt, header::CLEAR | epoch as u16);
                self.conweave_release(pkt, None);
            }
            Arrival::Hold { release_at } => {
                if let Some(at) = release_at {
                    self.events.schedule(at, Event::VoqRelease(f));
                }
            }
        }
    }

    /// ConWeave's destination answers an RTT request at once, echoing its epoch and id.
    pub(super) fn conweave_answer(&mut self, pkt: &Packet) {
        use crate::conweave::header;
        if pkt.ext & header::RTT_REQUEST != 0 {
            self.conweave_send_control(pkt, header::REPLY | (pkt.ext & (header::EPOCH | header::REQUEST_ID)));
        }
    }

    /// ConWeave: the header of a trimmed data packet reached the destination. It still
    /// carries its RTT request, and if it is its epoch's TAIL, that epoch is over.
    #[cold]
    #[inline(never)]
    pub(super) fn conweave_header(&mut self, pkt: &Packet) {
        self.conweave_answer(pkt);
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        if let Some(epoch) = cw.on_trimmed(pkt.flow, pkt) {
            self.conweave_send_control(pkt, crate::conweave::header::CLEAR | epoch as u16);
            self.conweave_release(pkt, None);
        }
    }

    /// ConWeave: what the reorder queue of `via`'s flow lets go now (`timer`: the release
    /// timer that fired), delivered in order, each epoch that ended CLEARed over `via`'s
    /// path, and the next timer armed.
    pub(super) fn conweave_release(&mut self, via: &Packet, timer: Option<Time>) {
        let now = self.now();
        let f = via.flow;
        let r = self.conweave.as_mut().expect("ConWeave flows have ConWeave state").release(f, now, timer);
        for p in &r.packets {
            // The slot was freed on arrival, so any telemetry records are gone.
            let pkt = Packet { flags: p.flags & !flags::INT, ..*p };
            self.accept_data(&pkt, u32::MAX);
        }
        for epoch in r.cleared {
            self.conweave_send_control(via, crate::conweave::header::CLEAR | epoch as u16);
        }
        if let Some(at) = r.release_at {
            self.events.schedule(at, Event::VoqRelease(f));
        }
    }

    /// ConWeave: flow `f`'s reorder queue timer; if it is still current, the next epoch's
    /// held packets go to the receiver without the TAIL before them.
    pub(super) fn conweave_timer(&mut self, f: u32) {
        let now = self.now();
        let Some(first) = self.conweave.as_ref().expect("ConWeave timers only with ConWeave state").first_held(f)
        else {
            return;
        };
        self.conweave_release(&first, Some(now));
    }

    /// ConWeave: a header-sized control message `ext` from the destination of data packet
    /// `data` back to its source, on the reverse of its path at the control priority.
    pub(super) fn conweave_send_control(&mut self, data: &Packet, ext: u16) {
        let flow = &self.flows[data.flow as usize];
        let msg = Packet {
            psn: 0,
            sacked_psn: 0,
            size: self.cfg.header_bytes,
            dst: flow.src,
            kind: PacketKind::Ack,
            flags: flags::CONWEAVE | (data.flags & (flags::CLASS1 | flags::SOURCE_ROUTED)),
            hop: 0,
            ext,
            ..*data
        };
        let port = self.routing.host_up_port[flow.dst as usize];
        self.conweave.as_mut().expect("ConWeave flows have ConWeave state").control_packets += 1;
        let h = self.arena.alloc(msg);
        self.enqueue(port, h);
    }

    /// ConWeave: a control message reached the source.
    #[cold]
    #[inline(never)]
    pub(super) fn conweave_feedback(&mut self, pkt: &Packet) {
        let (first, _) = self.source_routes.paths_of(pkt.flow);
        let now = self.now();
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        cw.on_control(pkt.flow, first, pkt.entropy, pkt.ext, now);
    }
}
