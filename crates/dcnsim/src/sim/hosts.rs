//! Hosts: flows starting (and waiting on others), the NIC's pull loop that picks which
//! flow sends next, flows ending or given up, and scheduled faults.

use super::*;

impl Simulation {
    pub(super) fn start_flows(&mut self) {
        let now = self.now();
        while self.next_start < self.start_order.len() {
            let f = self.start_order[self.next_start];
            if self.flows[f as usize].start > now {
                self.events.schedule(self.flows[f as usize].start, Event::FlowStarts);
                return;
            }
            self.next_start += 1;
            if self.sends_here(f) {
                self.begin_flow(f);
            }
        }
        self.check_done();
    }

    /// Flow `f` was delivered (or, `acked`, its sender heard every byte acknowledged):
    /// the flows waiting on it that now have every event they wait for start, at once or
    /// after their gap (a training iteration's compute).
    #[inline(never)]
    pub(super) fn release_dependents(&mut self, f: u32, acked: bool) {
        if self.shard.is_some() {
            return self.release_dependents_split(f, acked);
        }
        let now = self.now();
        // Out of `self` while the released flows begin (which never touches it), so no
        // list of them is collected first.
        let mut dependencies = std::mem::take(&mut self.dependencies);
        let mut start = |g: u32, gap: Time| {
            self.flows[g as usize].start = now + gap;
            if gap == Time::ZERO {
                self.begin_flow(g);
            } else {
                self.events.schedule(now + gap, Event::FlowBegins(g));
            }
        };
        if acked {
            dependencies.acked(f, &mut start);
        } else {
            dependencies.delivered(f, &mut start);
        }
        self.dependencies = dependencies;
    }

    /// Rare (once per waiting flow), so kept out of the event loop's inlined body.
    #[inline(never)]
    pub(super) fn begin_waiting_flow(&mut self, f: u32) {
        self.begin_flow(f);
    }

    pub(super) fn begin_flow(&mut self, f: u32) {
        self.flows[f as usize].started = true;
        if self.flows[f as usize].uses_probes {
            self.arm_probe(f);
        }
        self.make_ready(f);
    }

    /// Finite flow completion (or a give-up) at `at`: one flow fewer for the run to wait
    /// for.
    pub(super) fn count_out(&mut self, at: Time) {
        self.unfinished_finite -= 1;
        self.counted_out_at = self.counted_out_at.max(at);
    }

    pub(super) fn check_done(&mut self) {
        if self.unfinished_finite == 0
            && self.now() >= self.infinite_until
            && self.next_start == self.start_order.len()
            && self.duration.is_none()
            && self.ending.is_none()
        {
            // The run ends with the window the last flow finished in (`window`). The
            // instant is the latest of what it waited for (the last flow counted out, the
            // last start, the last infinite flow's stop), which is now, except in a split
            // run's share hearing of a give-up at a window's end (`hear_give_up`).
            let last_start = self.start_order.last().map_or(Time::ZERO, |&f| self.flows[f as usize].start);
            self.completed_at = Some(self.counted_out_at.max(last_start).max(self.infinite_until));
            let w = self.window.0;
            if w == 0 {
                self.done = true;
            } else {
                self.ending = Some(Time((self.now().0 / w + 1) * w));
            }
        }
    }

    /// Puts a flow on its host's ready list if it can send, or arranges to wake it.
    pub(super) fn make_ready(&mut self, f: u32) {
        let now = self.now();
        let flow = &mut self.flows[f as usize];
        if flow.in_ready {
            return;
        }
        match flow.send_state(now) {
            SendState::Ready => {
                flow.in_ready = true;
                let host = flow.src;
                self.host_ready[host as usize].push_back(f);
                let port = self.routing.host_up_port[host as usize];
                self.kick(port);
            }
            other => self.park(f, other),
        }
    }

    /// Takes a flow that cannot send now off its host's ready list; if pacing is what
    /// holds it back, it is woken when it may send again.
    pub(super) fn park(&mut self, f: u32, state: SendState) {
        let flow = &mut self.flows[f as usize];
        flow.in_ready = false;
        if let SendState::PacedUntil(t) = state {
            if !flow.wake_pending {
                flow.wake_pending = true;
                self.events.schedule(t, Event::FlowWake(f));
            }
        }
    }

    /// `nic_scheduler = "priority"`: takes the first ready flow of the highest priority
    /// level off `host`'s list. A flow that sends goes back to the end of the list, so
    /// flows of one level still take turns.
    #[cold]
    #[inline(never)]
    fn pop_highest_level(&mut self, host: u32) -> Option<u32> {
        let ready = &self.host_ready[host as usize];
        let flows = &self.flows;
        let mut best: Option<(usize, u8)> = None;
        for (i, &f) in ready.iter().enumerate() {
            let level = flows[f as usize].priority;
            if best.is_none_or(|(_, top)| level > top) {
                best = Some((i, level));
            }
        }
        self.host_ready[host as usize].remove(best?.0)
    }

    /// PFC holds back some classes at `host`'s NIC (`paused`, a class mask without `DATA`):
    /// with per-priority PFC, the next packet of a flow of a level not paused. The
    /// held-back flows keep their places at the head of the round robin.
    #[cold]
    #[inline(never)]
    pub(super) fn host_pull_unpaused(&mut self, host: u32, paused: u64) -> Option<u32> {
        let paused_queues = paused >> pfc::PRIORITY_BASE;
        if paused_queues == 0 {
            return self.host_pull(host);
        }
        // The held-back flows go to PFC's scratch list, so a pause allocates nothing per packet.
        let mut held = std::mem::take(&mut self.pfc.as_mut().expect("per-priority pauses come from PFC").held_flows);
        held.clear();
        let pfc = self.pfc.as_ref().expect("checked above");
        let flows = &self.flows;
        self.host_ready[host as usize].retain(|&f| {
            let paused =
                paused_queues & (1 << (pfc.priority_class(flows[f as usize].priority) - pfc::PRIORITY_BASE)) != 0;
            if paused {
                held.push(f);
            }
            !paused
        });
        let h = self.host_pull(host);
        for &f in held.iter().rev() {
            self.host_ready[host as usize].push_front(f);
        }
        self.pfc.as_mut().expect("checked above").held_flows = held;
        h
    }

    /// The next data packet from the host's flows, round robin. Always inlined: the hot
    /// call is `port_start`'s, and the cold one in `host_pull_unpaused` must not make the
    /// compiler keep it out of line.
    #[inline(always)]
    pub(super) fn host_pull(&mut self, host: u32) -> Option<u32> {
        let now = self.now();
        while let Some(f) =
            if self.nic_by_priority { self.pop_highest_level(host) } else { self.host_ready[host as usize].pop_front() }
        {
            let state = self.flows[f as usize].send_state(now);
            if state != SendState::Ready {
                self.park(f, state);
                continue;
            }
            let laps = self.flows[f as usize].lb == LbName::Laps;
            if laps {
                if let Some(probe) = self.laps_probe(f) {
                    // The data packet follows right behind its probe.
                    self.host_ready[host as usize].push_front(f);
                    return Some(probe);
                }
            }
            let mut ext = 0;
            let (entropy, routed) = match self.flows[f as usize].lb {
                LbName::Laps => (self.laps_pick(f), flags::SOURCE_ROUTED),
                LbName::Conga => (self.conga_pick(f), flags::SOURCE_ROUTED),
                LbName::Conweave => {
                    let (path, header) = self.conweave_pick(f);
                    ext = header;
                    (path, flags::SOURCE_ROUTED)
                }
                _ => {
                    let flow = &mut self.flows[f as usize];
                    let fresh = if flow.needs_fresh_entropy(now) { self.rng_entropy.next_u64(host) as u32 } else { 0 };
                    let entropy = flow.next_entropy(now, fresh, &self.cfg);
                    self.source_routes.route(f, entropy, !flow.lb.sprays())
                }
            };
            let mut pkt = self.flows[f as usize].emit(now, entropy);
            pkt.flags |= routed;
            pkt.ext = ext;
            if self.int.is_some() && self.flows[f as usize].sender.int {
                pkt.flags |= flags::INT;
            }
            if laps {
                self.laps_sent(&pkt);
            }
            self.monitors[f as usize].on_tx(now, pkt.size);
            match self.flows[f as usize].send_state(now) {
                SendState::Ready => self.host_ready[host as usize].push_back(f),
                other => {
                    // The window is full, nothing is left to send (or EQDS credit is spent):
                    // ask for an ACK at once rather than one a coalescing receiver would hold
                    // back. Not for a paced flow merely waiting for its next slot.
                    if other == SendState::Blocked && self.cfg.ack_policy == AckPolicy::Uec {
                        pkt.flags |= flags::ACK_REQUEST;
                    }
                    self.park(f, other)
                }
            }
            if !laps {
                self.arm_rto(f);
            }
            self.counters.data_packets += 1;
            if !self.injected_drops.is_empty() && self.drop_injected(&pkt) {
                continue;
            }
            let h = self.arena.alloc(pkt);
            let sender = &mut self.flows[f as usize].sender;
            if sender.stamps {
                let word = sender.cc.stamp(now, pkt.psn);
                self.arena.set_stamp(h, word);
            }
            return Some(h);
        }
        None
    }

    /// Applies step `i` of the fault plan.
    #[cold]
    #[inline(never)]
    pub(super) fn apply_fault(&mut self, i: u32) {
        use crate::fault::FaultAction;
        let plan = self.faults.as_mut().expect("fault events come from a plan");
        let step = plan.steps[i as usize];
        let (a, b) = (2 * step.cable as usize, 2 * step.cable as usize + 1);
        match step.action {
            FaultAction::Down => {
                if plan.take_down(step.cable) {
                    // Remember the loss rate it has while up before hiding it.
                    plan.loss_when_up(step.cable, self.ports[a].loss_rate, None);
                    for p in [a, b] {
                        self.ports[p].up = false;
                        self.ports[p].loss_rate = 1.0;
                    }
                }
            }
            FaultAction::Up => {
                if plan.bring_up(step.cable) {
                    let loss = plan.loss_when_up(step.cable, self.ports[a].loss_rate, None);
                    for p in [a, b] {
                        self.ports[p].up = true;
                        self.ports[p].loss_rate = loss;
                    }
                }
            }
            FaultAction::Loss(rate) => {
                let up = self.ports[a].up;
                let own = self.ports[a].loss_rate;
                let loss = plan.loss_when_up(step.cable, own, Some(rate));
                if up {
                    self.ports[a].loss_rate = loss;
                    self.ports[b].loss_rate = loss;
                }
            }
            FaultAction::Rate(rate) => {
                self.ports[a].set_rate(rate);
                self.ports[b].set_rate(rate);
            }
            FaultAction::Reroute => {
                self.routing = self.routing.recompute(&self.ports, &self.node_ports);
                self.counters.reroutes += 1;
            }
        }
    }

    /// Flow `f` timed out `give_up_after` times in a row without progress: it sends
    /// nothing more and counts as failed, so the run can end without it. The sender stops
    /// here; its receiver hears of it at once, or, in another share of a split run, at the
    /// window's end (`sim/parallel/`).
    #[cold]
    #[inline(never)]
    pub(super) fn give_up(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.failed = true;
        // A stopped flow sends nothing (`Flow::send_state`).
        flow.stopped = true;
        flow.sender.rto_deadline = Time::MAX;
        // Where completion is the sender's (`output.fct = "sender"`), the sender is done
        // waiting for it: it can hear nothing more.
        if self.fct_at_sender && !flow.is_infinite() {
            self.count_out(self.now());
            self.check_done();
        }
        if self.receives_here(f) {
            self.hear_give_up(f, self.now());
        } else {
            self.give_up_across(f);
        }
    }

    /// Flow `f`'s receiver learns that its sender gave up: the flow failed unless every
    /// byte arrived (only the acknowledgements were lost), and the run stops waiting for it
    /// as of `at`, when the sender gave up.
    pub(super) fn hear_give_up(&mut self, f: u32, at: Time) {
        let flow = &mut self.flows[f as usize];
        if flow.receiver.finish.is_some() {
            flow.failed = false;
            return;
        }
        flow.failed = true;
        self.counters.failed_flows += 1;
        if !self.fct_at_sender && !flow.is_infinite() {
            self.count_out(at);
            self.check_done();
        }
    }
}
