//! The fabric's per-packet work: a port starting its next packet (queue disciplines, ECN,
//! trimming), the wire, arrival at the next node (forwarding, adaptive routing), admission
//! (PFC, drops), and the trace hooks on the way. `docs/architecture.md`, "The way of a packet".

use super::*;

impl Simulation {
    /// Makes sure a `PortFree` event is pending for when the port's serialiser frees (one
    /// pending event per port at most).
    ///
    /// The test is inlined and the scheduling is not: most calls (a packet joining a
    /// queue whose port already waits to free) find the event pending, and they paid the
    /// whole out-of-line function's register saves for that one load.
    #[inline(always)]
    pub(super) fn wake_when_free(&mut self, p: u32) {
        if !self.ports[p as usize].wake_pending {
            self.schedule_port_free(p);
        }
    }

    #[inline(never)]
    pub(super) fn schedule_port_free(&mut self, p: u32) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        port.wake_pending = true;
        self.events.schedule(port.busy_until.max(now), Event::PortFree(p));
    }

    /// Makes sure an idle port starts, or a busy one wakes when it frees.
    #[inline]
    pub(super) fn kick(&mut self, p: u32) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        if port.wake_pending {
            return;
        }
        if port.is_idle(now) {
            self.port_start(p);
        } else {
            self.wake_when_free(p);
        }
    }

    /// Whether `pkt` is a first transmission `[faults] drop` names; if so it is lost
    /// (counted as a drop) and the NIC moves on to the next packet.
    #[cold]
    #[inline(never)]
    pub(super) fn drop_injected(&mut self, pkt: &Packet) -> bool {
        if pkt.has(flags::RETX) {
            return false;
        }
        let id = crate::scenario::PacketId { flow: pkt.flow, psn: pkt.psn };
        let Ok(i) = self.injected_drops.binary_search(&id) else { return false };
        self.injected_drops.remove(i);
        if let Some(t) = self.trace.as_mut() {
            let now = self.events.now();
            let nic = self.routing.host_up_port[self.flows[pkt.flow as usize].src as usize];
            if t.wants(nic, pkt.flow) {
                t.record(now, TraceEvent::new(now, EventKind::Drop, nic, pkt, 0, false));
            }
        }
        self.counters.drops += 1;
        self.flows[pkt.flow as usize].drops += 1;
        true
    }

    /// Starts serialising the next packet on an idle port, if there is one.
    pub(super) fn port_start(&mut self, p: u32) {
        let now = self.now();
        let n_hosts = self.n_hosts;
        // Classes a PFC PAUSE holds back (never any without PFC).
        let (paused, control_in_data) = match &self.pfc {
            Some(f) => (f.paused_mask(p), f.control_in_data()),
            None => (0, false),
        };
        let port = &mut self.ports[p as usize];
        if !port.is_idle(now) {
            self.wake_when_free(p);
            return;
        }
        let from_host = port.node < n_hosts;
        // A host port's FIFO holds only its receivers' ACKs and NACKs (data comes from the
        // NIC's flows); a switch port's holds data.
        let queue_class = if from_host { pfc::CONTROL } else { pfc::DATA };
        let data_paused = paused & (1 << pfc::DATA) != 0;
        let arena = &self.arena;
        let ctrl_next = if paused & (1 << pfc::CONTROL) == 0 { port.ctrl.pop_front() } else { None };
        let handle = if let Some(h) = ctrl_next {
            h
        } else if let Some(d) = port.drr.as_mut().filter(|_| !data_paused) {
            let Some((h, class)) = d.pop(|h| arena.get(h).size as u64) else { return };
            let class_left = d.bytes[class];
            let size = arena.get(h).size;
            port.change_occupancy(now, -(size as i64));
            if port.aqm.as_ref().is_some_and(|a| a.point() == MarkPoint::Dequeue) && self.mark(p, h, class_left) {
                self.drop_packet(p, h);
                return self.port_start(p);
            }
            h
        } else if let Some(pq) = port.prio.as_mut().filter(|_| !data_paused) {
            // Physical priority queues: ECN at dequeue sees the packet's own queue.
            // Per-priority PFC: bit q of `paused >> PRIORITY_BASE` holds back queue q.
            let Some((h, q)) = pq.pop(!(paused >> pfc::PRIORITY_BASE), |h| arena.get(h).size as u64) else { return };
            let queue_left = pq.bytes[q];
            let size = arena.get(h).size;
            port.change_occupancy(now, -(size as i64));
            if port.aqm.as_ref().is_some_and(|a| a.point() == MarkPoint::Dequeue) && self.mark(p, h, queue_left) {
                self.drop_packet(p, h);
                return self.port_start(p);
            }
            h
        } else if let Some(h) = if paused == 0 {
            port.queue.pop_front()
        } else if from_host && control_in_data {
            // ACKs at their data's priority: a host sends those of unpaused levels.
            let pfc = self.pfc.as_deref().expect("a paused class comes from PFC");
            let i = port.queue.iter().position(|&h| paused & (1 << pfc.class_of(arena.get(h))) == 0);
            i.and_then(|i| port.queue.remove(i))
        } else if paused & (1 << queue_class) == 0 {
            port.queue.pop_front()
        } else {
            None
        } {
            let size = self.arena.get(h).size;
            port.change_occupancy(now, -(size as i64));
            if port.aqm.as_ref().is_some_and(|a| a.point() == MarkPoint::Dequeue) {
                let queued = port.queued_bytes;
                if self.mark(p, h, queued) {
                    // A non-ECT packet RED would mark is dropped instead.
                    self.drop_packet(p, h);
                    return self.port_start(p);
                }
            }
            h
        } else if from_host && !data_paused {
            let node = port.node;
            let pulled = if paused == 0 { self.host_pull(node) } else { self.host_pull_unpaused(node, paused) };
            match pulled {
                Some(h) => h,
                None => return,
            }
        } else {
            return;
        };
        self.transmit(p, handle);
        let port = &self.ports[p as usize];
        if port.has_queued() || (port.node < n_hosts && !self.host_ready[port.node as usize].is_empty()) {
            self.wake_when_free(p);
        }
    }

    /// Asks the port's AQM about packet `h` at occupancy `queued`. Returns true if the
    /// packet must be dropped (the AQM would mark it but it is not ECN-capable).
    #[inline]
    pub(super) fn mark(&mut self, p: u32, h: u32, queued: u64) -> bool {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        let aqm = port.aqm.as_mut().expect("asked only where the port has an AQM");
        let sojourn = if aqm.wants_sojourn() && aqm.point() == MarkPoint::Dequeue {
            now.saturating_sub(self.arena.entered(h))
        } else {
            Time::ZERO
        };
        let hit = match aqm.decide(queued, sojourn, now) {
            MarkDecision::No => false,
            MarkDecision::Yes => true,
            MarkDecision::Ramp(prob) => self.rng_red.next_f64(port.node) < prob,
        };
        if !hit {
            return false;
        }
        let pkt = self.arena.get_mut(h);
        if pkt.has(flags::ECT) {
            if !pkt.has(flags::CE) {
                pkt.flags |= flags::CE;
                self.ports[p as usize].stats.ecn_marks += 1;
                self.counters.ecn_marks += 1;
                if self.trace.is_some() {
                    self.trace_at(p, h, EventKind::Mark, queued);
                }
            }
            false
        } else {
            // A lossless (PFC) packet is never dropped; it just goes unmarked.
            pkt.kind == PacketKind::Data && !self.pfc.as_ref().is_some_and(|f| f.holds(h))
        }
    }

    // Always inlined: it sits on every packet's path, and the (cold) PFC call in it must
    // not make the compiler keep it out of line.
    #[inline(always)]
    pub(super) fn transmit(&mut self, p: u32, h: u32) {
        let now = self.now();
        let size = self.arena.get(h).size;
        if self.packet_hooks {
            self.transmit_hooks(p, h);
        }
        let port = &mut self.ports[p as usize];
        port.busy_until = now + port.serialization(size);
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += size as u64;
        let arrival = port.busy_until + port.latency;
        if port.remote {
            return self.send_across(p, h, arrival);
        }
        let was_empty = port.pipe.is_empty();
        port.pipe.push_back((arrival, h));
        if was_empty {
            self.events.schedule(arrival, Event::PipeArrive(p));
        }
    }

    pub(super) fn pipe_arrive(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let (_, h) = port.pipe.pop_front().expect("arrival without a packet");
        if let Some(&(next, _)) = port.pipe.front() {
            self.events.schedule(next, Event::PipeArrive(p));
        }
        let loss = port.loss_rate;
        let node = port.peer;
        // A dead link (`fault.rs`) has a loss rate of 1, so this one branch covers it.
        if loss > 0.0 && self.lost_on_wire(p, h, loss) {
            return;
        }
        if node < self.n_hosts {
            self.deliver(h);
        } else {
            let pkt = *self.arena.get(h);
            let out = if pkt.flags & (flags::ADAPTIVE | flags::ROUND_ROBIN | flags::SOURCE_ROUTED) == 0 {
                self.routing.forward(node, pkt.dst, pkt.entropy)
            } else if pkt.has(flags::SOURCE_ROUTED) {
                self.arena.get_mut(h).hop += 1;
                self.source_routes.egress(&pkt)
            } else if pkt.has(flags::ADAPTIVE) && pkt.size as u64 >= self.ar.min_size {
                self.adaptive_port(node, pkt.dst)
            } else if pkt.has(flags::ROUND_ROBIN) {
                let c = self.routing.candidates(node, pkt.dst);
                c[pkt.entropy as usize % c.len()]
            } else {
                self.routing.forward(node, pkt.dst, pkt.entropy)
            };
            if self.forward_hooks {
                self.on_forward(p, out, h);
            }
            self.enqueue(out, h);
        }
    }

    /// Whether packet `h` is lost on port `p`'s wire, whose loss rate is `loss` (> 0);
    /// if so it is dropped.
    #[inline(never)]
    pub(super) fn lost_on_wire(&mut self, p: u32, h: u32, loss: f64) -> bool {
        if !self.ports[p as usize].up {
            // Not a buffer drop, so even a lossless (PFC) packet may be lost here.
            self.counters.fault_drops += 1;
            self.discard(p, h, false, true);
            return true;
        }
        if self.loss_data_only && self.arena.get(h).kind != PacketKind::Data {
            return false;
        }
        // Drawn at the receiving end, whose node takes the packet in.
        if self.rng_loss.next_f64(self.ports[p as usize].peer) < loss {
            self.drop_packet(p, h);
            return true;
        }
        false
    }

    /// Adaptive routing: the equal-cost port with the lowest quantised queue level, ties
    /// broken at random. Levels are re-read at most once per `refresh` per port, as a
    /// switch's load information is periodically sampled, not exact.
    pub(super) fn adaptive_port(&mut self, switch: u32, dst: u32) -> u32 {
        let now = self.now();
        let candidates = self.routing.candidates(switch, dst);
        if candidates.len() == 1 {
            return candidates[0];
        }
        let mut best_level = u8::MAX;
        let mut ties = 0u32;
        let mut choice = candidates[0];
        for &p in candidates {
            let port = &mut self.ports[p as usize];
            if port.ar_at == Time::ZERO || now - port.ar_at > self.ar.refresh {
                port.ar_at = now;
                let occupancy = port.queued_bytes as f64 / port.buffer as f64;
                port.ar_level = self.ar.levels.iter().filter(|&&b| occupancy >= b).count() as u8;
            }
            let level = port.ar_level;
            if level < best_level {
                best_level = level;
                choice = p;
                ties = 1;
            } else if level == best_level {
                // Reservoir sampling: a uniform pick among the tied ports in one pass.
                ties += 1;
                if self.rng_ar.below(switch, ties as u64) == 0 {
                    choice = p;
                }
            }
        }
        choice
    }

    /// Hands packet `h` to port `p`: control packets (ACKs, NACKs, trimmed headers) to the
    /// priority queue when the port has one, data through buffer admission and ECN (per
    /// class under DRR); data that does not fit is dropped, or trimmed to its header and
    /// sent on as control when the port trims. Sent at once if the port is quiet, else
    /// queued until the serialiser frees.
    pub(super) fn enqueue(&mut self, p: u32, h: u32) {
        let now = self.now();
        let pkt = self.arena.get(h);
        let mut size = pkt.size as u64;
        let mut priority = pkt.is_control() && self.ports[p as usize].ack_priority;
        // With two-class scheduling, buffer and ECN act on the packet's class alone.
        let class = pkt.has(flags::CLASS1) as usize;
        let level = pkt.priority;
        // PFC: a lossless packet's room was reserved at the ingress (xoff + headroom), so
        // the output buffer never refuses it; a paused class waits for RESUME, which kicks
        // the port.
        let (lossless, held_back) = if self.packet_hooks { self.enqueue_hooks(p, h) } else { (false, false) };
        if !priority {
            let port = &self.ports[p as usize];
            let (occupancy, capacity) = match &port.drr {
                Some(d) => (d.bytes[class], d.class_buffer[class]),
                None => (port.queued_bytes, port.buffer),
            };
            if occupancy + size > capacity && !lossless {
                // Trimming ports always have a priority queue (validated).
                if !port.trimming {
                    self.refuse(p, h);
                    return;
                }
                let tail = port.trim_tail && port.drr.is_none() && port.prio.is_none();
                if !(tail && self.rng_trim.next_u64(port.node) & 1 == 1 && self.trim_queue_tail(p, size)) {
                    size = self.trim(p, h);
                    priority = true;
                }
            } else if port.aqm.as_ref().is_some_and(|a| a.point() == MarkPoint::Enqueue) {
                // Priority queues share the buffer but mark on their own occupancy.
                let marked_on = match &port.prio {
                    Some(pq) => pq.bytes[pq.classify(level)],
                    None => occupancy,
                };
                if self.mark(p, h, marked_on) {
                    self.refuse(p, h);
                    return;
                }
            }
        }
        let port = &mut self.ports[p as usize];
        if port.is_quiet(now) && !held_back {
            self.transmit(p, h);
            return;
        }
        if priority {
            port.ctrl.push_back(h);
        } else {
            match port.drr.as_mut() {
                Some(d) => d.push(class, h, size),
                None => match port.prio.as_mut() {
                    Some(pq) => {
                        let q = pq.classify(level);
                        pq.push(q, h, size);
                    }
                    None => port.queue.push_back(h),
                },
            }
            port.change_occupancy(now, size as i64);
            let records_entry = port.aqm.as_ref().is_some_and(|a| a.wants_sojourn());
            invariant!(self.inv_queued(p, h, class, lossless));
            if records_entry {
                self.arena.set_entered(h, now);
            }
        }
        if !held_back {
            self.wake_when_free(p);
        }
    }

    /// PFC's and the trace's part of `enqueue`: (the packet is lossless, its class is
    /// paused at `p`).
    #[inline]
    pub(super) fn enqueue_hooks(&mut self, p: u32, h: u32) -> (bool, bool) {
        if self.trace.as_ref().is_some_and(|t| t.wants(p, self.arena.get(h).flow)) {
            self.trace_enqueue(p, h);
        }
        match &self.pfc {
            Some(f) => (f.holds(h), f.is_paused(p, f.class_of(self.arena.get(h)))),
            None => (false, false),
        }
    }

    /// Cuts data packet `h` to its header at port `p` (docs/models/trimming.md: the
    /// arriving packet is the one trimmed). Returns its new size.
    pub(super) fn trim(&mut self, p: u32, h: u32) -> u64 {
        let header = self.cfg.header_bytes;
        if self.trace.is_some() {
            self.trace_refused(p, h, EventKind::Trim);
        }
        invariant!(self.inv_trimmed((self.arena.get(h).size - header) as u64));
        let pkt = self.arena.get_mut(h);
        pkt.size = header;
        pkt.flags |= flags::TRIMMED;
        let f = pkt.flow;
        self.flows[f as usize].trims += 1;
        self.ports[p as usize].stats.trims += 1;
        self.counters.trims += 1;
        if self.trace.is_some() {
            self.trace_at(p, h, EventKind::Enqueue, self.ports[p as usize].queued_bytes);
        }
        header as u64
    }

    /// uet-htsim's other trim victim (after NDP): cut the last data packet queued at port
    /// `p` to its header and move it to the priority queue, so that an arrival of
    /// `arriving` bytes fits. False (nothing cut) when no queued packet would make room.
    #[cold]
    fn trim_queue_tail(&mut self, p: u32, arriving: u64) -> bool {
        let now = self.now();
        let port = &self.ports[p as usize];
        let Some(&tail) = port.queue.back() else { return false };
        let tail_size = self.arena.get(tail).size as u64;
        if self.arena.get(tail).has(flags::TRIMMED) || port.queued_bytes + arriving > port.buffer + tail_size {
            return false;
        }
        let port = &mut self.ports[p as usize];
        port.queue.pop_back();
        port.change_occupancy(now, -(tail_size as i64));
        self.trim(p, tail);
        self.counters.tail_trims += 1;
        self.ports[p as usize].ctrl.push_back(tail);
        true
    }

    /// Packet `h` is lost at port `p` (RED at dequeue, a lossy link).
    pub(super) fn drop_packet(&mut self, p: u32, h: u32) {
        self.discard(p, h, false, false);
    }

    /// Port `p`'s buffer (or RED at enqueue) turns packet `h` away as it arrives.
    pub(super) fn refuse(&mut self, p: u32, h: u32) {
        self.discard(p, h, true, false);
    }

    /// Drops packet `h` at port `p`; `link_dead` says a failed link lost it, which even
    /// a lossless class cannot prevent.
    #[inline]
    pub(super) fn discard(&mut self, p: u32, h: u32, refused: bool, link_dead: bool) {
        invariant!(self.inv_dropped(p, h, link_dead));
        if self.packet_hooks {
            if let Some(f) = self.pfc.as_mut().filter(|_| !link_dead) {
                // The PFC guarantee: nothing in a lossless class is ever dropped in a switch.
                assert!(!f.holds(h), "PFC: a lossless packet was dropped at port {p}");
            }
            if self.trace.is_some() {
                if refused {
                    self.trace_refused(p, h, EventKind::Drop);
                } else {
                    self.trace_at(p, h, EventKind::Drop, self.ports[p as usize].queued_bytes);
                }
            }
        }
        let pkt = self.arena.get(h);
        if pkt.kind == PacketKind::Data {
            self.flows[pkt.flow as usize].drops += 1;
        }
        self.ports[p as usize].stats.drops += 1;
        self.counters.drops += 1;
        self.arena.free(h);
    }

    /// PFC: packet `h` entered a switch over port `ingress` and will leave by `egress`;
    /// count it in its class, and PAUSE the upstream port if the count crossed `xoff`.
    /// A class change (net/pfc/mod.rs) then moves it one class up when `egress` is a link that
    /// raises it: it waits in the egress queue of its new class, which the next switch
    /// counts and pauses, while this switch uncounts it from the class it arrived in.
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_admit(&mut self, ingress: u32, egress: u32, h: u32) {
        let Some(pfc) = self.pfc.as_mut() else { return };
        let pkt = self.arena.get(h);
        let (class, size) = (pfc.class_of(pkt), pkt.size as u64);
        if let Some(frame) = pfc.arrive(ingress, h, class, size) {
            self.send_pfc_frame(frame);
        }
        let pfc = self.pfc.as_ref().expect("checked above");
        if pfc.raises_class_from(egress) {
            let pkt = self.arena.get_mut(h);
            if !pkt.is_control() {
                pkt.priority = pfc.level_after_hop(pkt.priority);
            }
        }
    }

    /// PFC: packet `h` leaves its switch on port `p`; uncount it, and RESUME the upstream
    /// port if the count fell to `xon`.
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_release(&mut self, _p: u32, h: u32) {
        let size = self.arena.get(h).size as u64;
        let Some(pfc) = self.pfc.as_mut() else { return };
        if let Some(frame) = pfc.depart(h, size) {
            self.send_pfc_frame(frame);
        }
    }

    /// Sends a PAUSE/RESUME back over the link `frame.port` carries: it leaves once the
    /// reverse port finishes its current packet and the link's previous frame is out, and
    /// takes a 64-byte serialisation and the reverse link's latency to arrive.
    #[cold]
    #[inline(never)]
    pub(super) fn send_pfc_frame(&mut self, frame: PfcFrame) {
        let now = self.now();
        // Ports come in pairs, one per direction of a cable (builder.rs).
        let reverse = &self.ports[(frame.port ^ 1) as usize];
        let (ready, serialization, latency) = (reverse.busy_until.max(now), reverse.serialization(64), reverse.latency);
        let pfc = self.pfc.as_mut().expect("PFC frames come from PFC");
        let at = pfc.frame_departs(frame.port, ready, serialization) + serialization + latency;
        if frame.pause && pfc.pauses_expire() {
            // The pause runs out a full pause after it reaches the upstream; the switch
            // checks one link latency before, so that a RESUME it sends then arrives as
            // the pause ends (net/pfc/mod.rs, "How a pause ends").
            self.schedule_pause_recheck(frame, at - latency);
        }
        // The frame goes to the upstream port, across the link: to another thread's share
        // when the link crosses shares.
        let upstream = &self.ports[frame.port as usize];
        if upstream.remote {
            return self.schedule_across(upstream.node, at, Event::Pfc(frame.encode()));
        }
        self.events.schedule(at, Event::Pfc(frame.encode()));
    }

    /// `switch.pfc.dynamic.resume = "offset_or_expiry"`: the switch's check before the
    /// PAUSE it sent for `frame` runs out (net/pfc/mod.rs, "How a pause ends").
    #[cold]
    #[inline(never)]
    pub(super) fn pfc_recheck(&mut self, frame: PfcFrame) {
        let now = self.now();
        let Some(pfc) = self.pfc.as_mut() else { return };
        match pfc.recheck(frame.port, frame.class, now) {
            Recheck::Stale => {}
            Recheck::Renew => self.schedule_pause_recheck(frame, now),
            Recheck::Expire(resume) => self.send_pfc_frame(resume),
        }
    }

    /// The next check of the pause `frame` (one pause duration at the upstream port's
    /// rate after `from`), which makes any earlier one stale.
    fn schedule_pause_recheck(&mut self, frame: PfcFrame, from: Time) {
        let at = from + self.ports[frame.port as usize].serialization(PAUSE_QUANTA_BYTES);
        if let Some(pfc) = self.pfc.as_mut() {
            pfc.arm_recheck(frame.port, frame.class, at);
        }
        self.events.schedule(at, Event::PfcRecheck(frame.encode()));
    }

    #[cold]
    #[inline(never)]
    pub(super) fn pfc_frame_arrives(&mut self, frame: PfcFrame) {
        let now = self.now();
        let resumed = self.pfc.as_mut().is_some_and(|f| f.apply(frame, now));
        if resumed {
            self.kick(frame.port);
        }
    }

    /// PFC's and the trace's part of `transmit`.
    #[cold]
    #[inline(never)]
    pub(super) fn transmit_hooks(&mut self, p: u32, h: u32) {
        if self.pfc.is_some() {
            self.pfc_release(p, h);
        }
        if self.int.is_some() {
            self.int_transmit(p, h);
        }
        if self.trace.as_ref().is_some_and(|t| t.wants(p, self.arena.get(h).flow)) {
            self.trace_transmit(p, h);
        }
    }

    /// INT: a telemetry-gathering data packet starts its transmission on port `p`; a
    /// switch port appends its record, the sender's NIC starts the packet's stack.
    #[cold]
    #[inline(never)]
    pub(super) fn int_transmit(&mut self, p: u32, h: u32) {
        let pkt = self.arena.get(h);
        if pkt.kind != PacketKind::Data || !pkt.has(flags::INT) {
            return;
        }
        let size = pkt.size as u64;
        let port = &self.ports[p as usize];
        let int = self.int.as_mut().expect("checked by the caller");
        if port.node < self.n_hosts {
            int.start(h);
        } else {
            let hop = crate::net::int::IntHop {
                qlen: port.queued_bytes,
                tx_bytes: port.stats.tx_bytes + size,
                ts: self.events.now(),
                rate: port.rate,
            };
            int.push(h, hop);
        }
    }

    /// Trace: traced packet `h` arrives at port `p`'s queue (settled by `trace_refused`
    /// if the buffer turns it away).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_enqueue(&mut self, p: u32, h: u32) {
        let now = self.now();
        let ev =
            TraceEvent::new(now, EventKind::Enqueue, p, self.arena.get(h), self.ports[p as usize].queued_bytes, false);
        self.trace.as_mut().expect("trace hooks run with a trace").record_enqueue(now, ev, h);
    }

    /// Trace: an event of packet `h` at port `p` now, with `queued` bytes waiting there.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_at(&mut self, p: u32, h: u32, event: EventKind, queued: u64) {
        let now = self.now();
        let pkt = *self.arena.get(h);
        let t = self.trace.as_mut().expect("trace hooks run with a trace");
        if t.wants(p, pkt.flow) {
            t.record(now, TraceEvent::new(now, event, p, &pkt, queued, false));
        }
    }

    /// Trace: port `p`'s buffer refuses packet `h` as it arrives (`Drop` or `Trim`): the
    /// `enqueue` just recorded for it becomes that event (or, if that one found the log
    /// full, the event is recorded on its own).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_refused(&mut self, p: u32, h: u32, event: EventKind) {
        let now = self.now();
        let t = self.trace.as_mut().expect("trace hooks run with a trace");
        if !t.settle(h, p, now, event) {
            self.trace_at(p, h, event, self.ports[p as usize].queued_bytes);
        }
    }

    /// Trace: traced packet `h` starts its transmission on port `p`: a `dequeue`, and if
    /// the link ends at a host, the `deliver` or `ack` at its arrival (known now: host
    /// links never lose packets). Captured for the pcap: at a traced port, every
    /// transmission; for a traced flow, its data leaving the sender's NIC and its replies
    /// reaching the sender.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_transmit(&mut self, p: u32, h: u32) {
        let now = self.now();
        let pkt = *self.arena.get(h);
        let port = &self.ports[p as usize];
        let (queued, peer) = (port.queued_bytes, port.peer);
        let arrival = now + port.serialization(pkt.size) + port.latency;
        let sender_nic = self.routing.host_up_port[self.flows[pkt.flow as usize].src as usize];
        let t = self.trace.as_mut().expect("trace hooks run with a trace");
        let (flow_traced, port_traced) = (t.flow_traced(pkt.flow), t.port_traced(p));
        let data = pkt.kind == PacketKind::Data;
        let captured = port_traced || (flow_traced && data && p == sender_nic);
        t.record(now, TraceEvent::new(now, EventKind::Dequeue, p, &pkt, queued, captured));
        if peer < self.n_hosts {
            let event = if data { EventKind::Deliver } else { EventKind::Ack };
            t.record(now, TraceEvent::new(arrival, event, p, &pkt, 0, flow_traced && !data));
        }
    }
}
