//! The simulation: the world (ports, routing, hosts, flows) and the event loop that moves
//! packets through it. Components stay small (port = queue + serialiser + pipe, flow =
//! sender + receiver, routing = tables); this module only wires them together.

pub(crate) mod invariants;

use std::collections::VecDeque;

use crate::engine::{Event, EventQueue, Rng};
use self::invariants::invariant;
use crate::laps::{Outstanding, PathTable};
use crate::net::pfc::{self, Pfc, PfcFrame};
use crate::net::{flags, MarkDecision, MarkPoint, Packet, PacketArena, PacketKind, Port};
use crate::observe::Observer;
use crate::routing::Routing;
use crate::scenario::LbName;
use crate::stats::{Column, FlowMonitor, Table};
use crate::topology::Tier;
use crate::trace::{EventKind, Trace, TraceEvent};
use crate::transport::{AckPolicy, AckToSend, DelayedAck, Flow, SendState, TransportConfig};
use crate::units::Time;

/// Adaptive-routing settings resolved for the hot path.
#[derive(Clone, Debug)]
pub struct ArRule {
    /// Level boundaries as fractions of a port's buffer, ascending.
    pub levels: Vec<f64>,
    pub refresh: Time,
    pub min_size: u64,
}

/// Aggregate counters of a run.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub drops: u64,
    pub ecn_marks: u64,
    pub data_packets: u64,
    /// Receiver-to-sender packets: ACKs, NACKs, CNPs and EQDS pulls.
    pub ack_packets: u64,
    /// Retransmission-timer expiries that declared packets lost. NSCC and MPRDMA arm the
    /// timer for their oldest transmission (spec smartt-nscc.md §2.9), so a burst of
    /// losses counts about one per expired packet, not one per flow.
    pub timeouts: u64,
    /// Data packets cut to their header by a switch (trimming).
    pub trims: u64,
    /// NACKs the receivers sent for trimmed headers.
    pub nacks: u64,
    /// Congestion notification packets the receivers sent (DCQCN).
    pub cnps: u64,
    /// PrioPlus probes sent (and their bytes on the wire).
    pub probe_packets: u64,
    pub probe_bytes: u64,
    /// Packets lost on a link that was down (`fault.rs`); also counted in `drops`.
    pub fault_drops: u64,
    /// Times routing recomputed its tables after a link went down or came back.
    pub reroutes: u64,
    /// Flows given up after `faults.give_up_after` timeouts in a row.
    pub failed_flows: u64,
}

/// Bytes by part of the simulation (see `Simulation::memory`).
#[derive(Clone, Copy, Debug)]
pub struct MemoryReport {
    /// Per-flow state: transport, algorithm, monitor.
    pub flows: u64,
    /// Per-packet state: arena slots, queue and pipe handles, the flows' per-PSN records.
    pub packets: u64,
    /// The ports themselves.
    pub ports: u64,
    pub routing: u64,
    pub events: u64,
    pub n_flows: u64,
    pub peak_packets: u64,
}

impl MemoryReport {
    pub fn total(&self) -> u64 {
        self.flows + self.packets + self.ports + self.routing + self.events
    }
    /// Flow state (transport, algorithm, monitor) per flow.
    pub fn per_flow(&self) -> f64 {
        self.flows as f64 / self.n_flows.max(1) as f64
    }
    /// Per-packet state per packet at the run's peak in flight.
    pub fn per_packet(&self) -> f64 {
        self.packets as f64 / self.peak_packets.max(1) as f64
    }
}

pub struct Simulation {
    pub events: EventQueue,
    pub ports: Vec<Port>,
    pub node_ports: Vec<Vec<u32>>,
    pub routing: Routing,
    pub n_hosts: u32,
    pub arena: PacketArena,
    pub flows: Vec<Flow>,
    /// FlowMonitor-style counters, one per flow (index = flow id).
    pub monitors: Vec<FlowMonitor>,
    pub cfg: TransportConfig,
    pub counters: Counters,
    pub tags: Vec<String>,
    pub description: String,
    pub resolved_json: String,
    pub seed: u64,
    pub duration: Option<Time>,
    pub(crate) host_ready: Vec<VecDeque<u32>>,
    pub(crate) start_order: Vec<u32>,
    pub(crate) next_start: usize,
    /// Flows that start when others are delivered (windowed all-to-all, training).
    pub(crate) dependencies: crate::workload::Dependencies,
    /// Each flow's group (`FlowSpec::group`), for the flow table; empty when no workload
    /// groups its flows.
    pub(crate) groups: Vec<u32>,
    /// EQDS pull pacers, when any flow runs on receiver credit.
    pub(crate) pulls: Option<crate::eqds::PullPacers>,
    pub(crate) unfinished_finite: u32,
    pub(crate) finished_flows: u32,
    /// Infinite flows with a stop time keep the run going until the last such stop;
    /// background infinite flows (no stop) do not.
    pub(crate) infinite_until: Time,
    pub(crate) rng_spray: Rng,
    pub(crate) rng_loss: Rng,
    pub(crate) rng_red: Rng,
    pub(crate) rng_ar: Rng,
    pub(crate) ar: ArRule,
    /// `[observe]`: the time-series sampler, driven by `Sample` events only.
    pub(crate) observer: Option<Box<Observer>>,
    /// Priority flow control (`[switch.pfc]`); `None` keeps every PFC check off the hot path.
    pub pfc: Option<Box<Pfc>>,
    /// `[trace]`: the packet trace of chosen flows and ports.
    pub(crate) trace: Option<Box<Trace>>,
    /// In-band telemetry (`net/int.rs`), when some flow runs HPCC.
    pub(crate) int: Option<Box<crate::net::int::IntTable>>,
    /// PFC, a trace or INT is on. The per-packet work either needs (at enqueue and at
    /// transmission) sits behind this one flag, so a run with neither pays the single
    /// predictable branch that PFC alone cost before traces existed.
    pub(crate) packet_hooks: bool,
    /// Tier of each port (that of its cable), for `ports_table` and port selections.
    pub(crate) port_tiers: Vec<Tier>,
    /// Whether `run_until` prefetches what coming events touch (`prefetch_ahead`): only
    /// when the ports alone outgrow a core's L2 cache; below that everything stays in
    /// cache and the hints only cost instructions (+10 % on a 128-host fat tree).
    pub(crate) prefetch: bool,
    /// Explicit routes of the source-routed flows (`lb = "rps"` or `"laps"`); empty otherwise.
    pub(crate) source_routes: crate::paths::SourceRoutes,
    /// LAPS's path table, when any flow runs LAPS.
    pub(crate) laps: Option<Box<PathTable>>,
    /// CONGA's rate estimators and feedback, when any flow runs CONGA.
    pub(crate) conga: Option<Box<crate::conga::Conga>>,
    /// ConWeave's path monitors and reorder queues, when any flow runs ConWeave.
    pub(crate) conweave: Option<Box<crate::conweave::Conweave>>,
    /// Whether a packet a switch forwards has anything to do besides being queued (PFC's
    /// ingress accounting, CONGA's estimators): one test on the hot path for both.
    pub(crate) forward_hooks: bool,
    /// `topology.loss_packets = "data"`: random link loss spares replies.
    pub(crate) loss_data_only: bool,
    /// `[faults] drop`: data packets whose first transmission is lost, sorted.
    pub(crate) injected_drops: Vec<crate::scenario::PacketId>,
    pub(crate) faults: Option<Box<crate::fault::FaultPlan>>,
    pub(crate) give_up_after: u32,
    pub(crate) done: bool,
    /// Issue 10's invariant checks (`invariants.rs`): only in debug and test builds.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(crate) inv: crate::sim::invariants::Checker,
}

/// A packet's one-way latency in whole nanoseconds, as a LAPS ACK carries it (spec
/// laps.md §2.3: the receiver computes it; clocks are synchronised). Saturates at 4.3 s.
fn one_way_ns(now: Time, sent_at: Time) -> u32 {
    (now.saturating_sub(sent_at).0 / 1000).min(u32::MAX as u64) as u32
}

/// Bytes of port state above which prefetching pays: about one core's L2 cache.
pub(crate) const PREFETCH_ABOVE_PORT_BYTES: usize = 1 << 20;

impl Simulation {
    #[inline]
    pub fn now(&self) -> Time {
        self.events.now()
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    /// Data and ACK packets created so far.
    pub fn packets(&self) -> u64 {
        self.arena.allocated_total()
    }

    /// LAPS's receiver reorder buffers, sampled at every data arrival: element k counts
    /// the samples that found k KB (rounded down) held (the LAPS paper's Fig. 9). `None`
    /// when no flow runs LAPS.
    pub fn ooo_histogram_kb(&self) -> Option<&[u64]> {
        self.laps.as_ref().map(|t| t.ooo_kb.as_slice())
    }

    pub fn flows_finished(&self) -> u32 {
        self.finished_flows
    }

    /// Runs until simulated time `limit` or the end of the scenario, whichever is first.
    /// Returns true once the scenario has ended.
    pub fn run_until(&mut self, limit: Time) -> bool {
        while !self.done {
            if self.prefetch {
                self.prefetch_ahead();
            }
            match self.events.pop_until(limit) {
                Some(ev) => {
                    invariant!(self.inv_before_event(ev));
                    self.dispatch(ev)
                }
                None => {
                    if self.events.is_empty() {
                        // Nothing left can ever happen (e.g. every flow is stuck or done).
                        self.done = true;
                    } else {
                        self.events.advance_to(limit);
                    }
                    break;
                }
            }
        }
        if self.done {
            self.sample_at_end();
            invariant!(self.inv_at_end());
        }
        self.done
    }

    /// Runs to the end of the scenario.
    pub fn run(&mut self) {
        self.run_until(Time::MAX);
    }

    /// Asks the cache for what the next few port events will touch, in three steps so
    /// that each address is computed from memory the previous step already fetched: the
    /// port, then its pipe's or queue's head entry, then the packet. Most events of a
    /// large fabric miss the cache on all three (thousands of ports, tens of thousands
    /// of packets in flight); the current slot's sorted batch says which ones come next.
    #[inline(always)]
    fn prefetch_ahead(&self) {
        use crate::prefetch::prefetch;
        const PORT_AHEAD: usize = 8;
        const ENTRY_AHEAD: usize = 4;
        const PACKET_AHEAD: usize = 2;
        if let Some(Event::PipeArrive(p) | Event::PortFree(p)) = self.events.peek_batch(PORT_AHEAD) {
            prefetch(&self.ports[p as usize]);
        }
        match self.events.peek_batch(ENTRY_AHEAD) {
            Some(Event::PipeArrive(p)) => {
                if let Some(e) = self.ports[p as usize].pipe.as_slices().0.first() {
                    prefetch(e);
                }
            }
            Some(Event::PortFree(p)) => {
                if let Some(e) = self.ports[p as usize].queue.as_slices().0.first() {
                    prefetch(e);
                }
            }
            _ => {}
        }
        match self.events.peek_batch(PACKET_AHEAD) {
            Some(Event::PipeArrive(p)) => {
                if let Some(&(_, h)) = self.ports[p as usize].pipe.front() {
                    prefetch(self.arena.get(h));
                }
            }
            Some(Event::PortFree(p)) => {
                if let Some(&h) = self.ports[p as usize].queue.front() {
                    prefetch(self.arena.get(h));
                }
            }
            _ => {}
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::PortFree(p) => {
                self.ports[p as usize].wake_pending = false;
                self.port_start(p);
            }
            Event::PipeArrive(p) => self.pipe_arrive(p),
            Event::FlowStarts => self.start_flows(),
            Event::FlowWake(f) => {
                self.flows[f as usize].wake_pending = false;
                self.make_ready(f);
            }
            Event::Rto(f) => self.rto_fired(f),
            Event::DelayedAck(f) => {
                match self.flows[f as usize].on_delayed_ack(self.events.now(), self.cfg.delayed_ack_timeout) {
                    DelayedAck::Send(a) => self.send_ack(f, a),
                    DelayedAck::At(due) => self.events.schedule(due, Event::DelayedAck(f)),
                    DelayedAck::Idle => {}
                }
            }
            Event::Sample => self.sample(),
            Event::Pfc(v) => self.pfc_frame_arrives(PfcFrame::decode(v)),
            Event::Probe(f) => self.probe_fired(f),
            Event::Pull(host) => self.pull_tick(host),
            Event::PathRto(path) => self.path_rto_fired(path),
            Event::FlowBegins(f) => self.begin_waiting_flow(f),
            Event::Fault(i) => self.apply_fault(i),
            Event::VoqRelease(f) => self.conweave_timer(f),
            Event::Stop => match self.duration {
                Some(d) if self.now() >= d => self.done = true,
                // The last infinite flow stopped: the run ends once finite flows are done.
                _ => self.check_done(),
            },
        }
    }

    fn start_flows(&mut self) {
        let now = self.now();
        while self.next_start < self.start_order.len() {
            let f = self.start_order[self.next_start];
            if self.flows[f as usize].start > now {
                self.events.schedule(self.flows[f as usize].start, Event::FlowStarts);
                return;
            }
            self.next_start += 1;
            self.begin_flow(f);
        }
        self.check_done();
    }

    /// Flow `f` was delivered: the flows waiting on it whose predecessors are now all
    /// delivered start, at once or after their gap (a training iteration's compute).
    #[inline(never)]
    fn release_dependents(&mut self, f: u32) {
        let now = self.now();
        // Out of `self` while the released flows begin (which never touches it), so no
        // list of them is collected first.
        let mut dependencies = std::mem::take(&mut self.dependencies);
        dependencies.delivered(f, |g, gap| {
            self.flows[g as usize].start = now + gap;
            if gap == Time::ZERO {
                self.begin_flow(g);
            } else {
                self.events.schedule(now + gap, Event::FlowBegins(g));
            }
        });
        self.dependencies = dependencies;
    }

    /// Rare (once per waiting flow), so kept out of the event loop's inlined body.
    #[inline(never)]
    fn begin_waiting_flow(&mut self, f: u32) {
        self.begin_flow(f);
    }

    fn begin_flow(&mut self, f: u32) {
        self.flows[f as usize].started = true;
        if self.flows[f as usize].uses_probes {
            self.arm_probe(f);
        }
        self.make_ready(f);
    }

    fn check_done(&mut self) {
        if self.unfinished_finite == 0
            && self.now() >= self.infinite_until
            && self.next_start == self.start_order.len()
            && self.duration.is_none()
        {
            self.done = true;
        }
    }

    /// Puts a flow on its host's ready list if it can send, or arranges to wake it.
    fn make_ready(&mut self, f: u32) {
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

    /// Makes sure a `PortFree` event is pending for when the port's serialiser frees (one
    /// pending event per port at most).
    ///
    /// The test is inlined and the scheduling is not: most calls (a packet joining a
    /// queue whose port already waits to free) find the event pending, and they paid the
    /// whole out-of-line function's register saves for that one load.
    #[inline(always)]
    fn wake_when_free(&mut self, p: u32) {
        if !self.ports[p as usize].wake_pending {
            self.schedule_port_free(p);
        }
    }

    #[inline(never)]
    fn schedule_port_free(&mut self, p: u32) {
        let now = self.now();
        let port = &mut self.ports[p as usize];
        port.wake_pending = true;
        self.events.schedule(port.busy_until.max(now), Event::PortFree(p));
    }

    /// Makes sure an idle port starts, or a busy one wakes when it frees.
    #[inline]
    fn kick(&mut self, p: u32) {
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

    /// Takes a flow that cannot send now off its host's ready list; if pacing is what
    /// holds it back, it is woken when it may send again.
    fn park(&mut self, f: u32, state: SendState) {
        let flow = &mut self.flows[f as usize];
        flow.in_ready = false;
        if let SendState::PacedUntil(t) = state {
            if !flow.wake_pending {
                flow.wake_pending = true;
                self.events.schedule(t, Event::FlowWake(f));
            }
        }
    }

    /// PFC holds back some classes at `host`'s NIC (`paused`, a class mask without `DATA`):
    /// with per-priority PFC, the next packet of a flow of a level not paused. The
    /// held-back flows keep their places at the head of the round robin.
    #[cold]
    #[inline(never)]
    fn host_pull_unpaused(&mut self, host: u32, paused: u64) -> Option<u32> {
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
    fn host_pull(&mut self, host: u32) -> Option<u32> {
        let now = self.now();
        while let Some(f) = self.host_ready[host as usize].pop_front() {
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
                    let fresh = if flow.needs_fresh_entropy(now) { self.rng_spray.next_u64() as u32 } else { 0 };
                    let entropy = flow.next_entropy(now, fresh, &self.cfg);
                    self.source_routes.route(f, entropy, !flow.lb.sprays())
                }
            };
            let mut pkt = self.flows[f as usize].emit(now, entropy);
            pkt.flags |= routed;
            pkt.ext = ext;
            if self.int.is_some() && self.flows[f as usize].sender.cc.wants_int() {
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
            return Some(self.arena.alloc(pkt));
        }
        None
    }

    /// Whether `pkt` is a first transmission `[faults] drop` names; if so it is lost
    /// (counted as a drop) and the NIC moves on to the next packet.
    #[cold]
    #[inline(never)]
    fn drop_injected(&mut self, pkt: &Packet) -> bool {
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
    fn port_start(&mut self, p: u32) {
        let now = self.now();
        let n_hosts = self.n_hosts;
        // Classes a PFC PAUSE holds back (never any without PFC).
        let paused = match &self.pfc {
            Some(f) => f.paused_mask(p),
            None => 0,
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
            if let Some(ecn) = port.ecn {
                if ecn.at == MarkPoint::Dequeue && self.mark(p, h, class_left) {
                    self.drop_packet(p, h);
                    return self.port_start(p);
                }
            }
            h
        } else if let Some(pq) = port.prio.as_mut().filter(|_| !data_paused) {
            // Physical priority queues: ECN at dequeue sees the packet's own queue.
            // Per-priority PFC: bit q of `paused >> PRIORITY_BASE` holds back queue q.
            let Some((h, q)) = pq.pop(!(paused >> pfc::PRIORITY_BASE), |h| arena.get(h).size as u64) else { return };
            let queue_left = pq.bytes[q];
            let size = arena.get(h).size;
            port.change_occupancy(now, -(size as i64));
            if let Some(ecn) = port.ecn {
                if ecn.at == MarkPoint::Dequeue && self.mark(p, h, queue_left) {
                    self.drop_packet(p, h);
                    return self.port_start(p);
                }
            }
            h
        } else if let Some(h) = if paused & (1 << queue_class) == 0 { port.queue.pop_front() } else { None } {
            let size = self.arena.get(h).size;
            port.change_occupancy(now, -(size as i64));
            if let Some(ecn) = port.ecn {
                if ecn.at == MarkPoint::Dequeue {
                    let queued = port.queued_bytes;
                    if self.mark(p, h, queued) {
                        // A non-ECT packet RED would mark is dropped instead.
                        self.drop_packet(p, h);
                        return self.port_start(p);
                    }
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

    /// Applies the port's ECN policy to packet `h` at occupancy `queued`. Returns true if
    /// the packet must be dropped (RED would mark it but it is not ECN-capable).
    #[inline]
    fn mark(&mut self, p: u32, h: u32, queued: u64) -> bool {
        let ecn = self.ports[p as usize].ecn.unwrap();
        let hit = match ecn.decide(queued) {
            MarkDecision::No => false,
            MarkDecision::Yes => true,
            MarkDecision::Ramp(prob) => self.rng_red.next_f64() < prob,
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
    fn transmit(&mut self, p: u32, h: u32) {
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
        let was_empty = port.pipe.is_empty();
        port.pipe.push_back((arrival, h));
        if was_empty {
            self.events.schedule(arrival, Event::PipeArrive(p));
        }
    }

    fn pipe_arrive(&mut self, p: u32) {
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
    fn lost_on_wire(&mut self, p: u32, h: u32, loss: f64) -> bool {
        if !self.ports[p as usize].up {
            // Not a buffer drop, so even a lossless (PFC) packet may be lost here.
            self.counters.fault_drops += 1;
            self.discard(p, h, false, true);
            return true;
        }
        if self.loss_data_only && self.arena.get(h).kind != PacketKind::Data {
            return false;
        }
        if self.rng_loss.next_f64() < loss {
            self.drop_packet(p, h);
            return true;
        }
        false
    }

    /// Applies step `i` of the fault plan.
    #[cold]
    #[inline(never)]
    fn apply_fault(&mut self, i: u32) {
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
    /// nothing more and counts as failed, so the run can end without it.
    #[cold]
    #[inline(never)]
    fn give_up(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.failed = true;
        let delivered = flow.receiver.finish.is_some();
        // A stopped flow sends nothing (`Flow::send_state`).
        flow.stopped = true;
        flow.sender.rto_deadline = Time::MAX;
        if delivered {
            // Every byte arrived; only the acknowledgements were lost. It finished.
            flow.failed = false;
            return;
        }
        self.counters.failed_flows += 1;
        if !flow.is_infinite() {
            self.unfinished_finite -= 1;
        }
        self.check_done();
    }

    /// Adaptive routing: the equal-cost port with the lowest quantised queue level, ties
    /// broken at random. Levels are re-read at most once per `refresh` per port, as a
    /// switch's load information is periodically sampled, not exact.
    fn adaptive_port(&mut self, switch: u32, dst: u32) -> u32 {
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
                if self.rng_ar.below(ties as u64) == 0 {
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
    fn enqueue(&mut self, p: u32, h: u32) {
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
                size = self.trim(p, h);
                priority = true;
            } else if let Some(ecn) = port.ecn {
                // Priority queues share the buffer but mark on their own occupancy.
                let marked_on = match &port.prio {
                    Some(pq) => pq.bytes[pq.classify(level)],
                    None => occupancy,
                };
                if ecn.at == MarkPoint::Enqueue && self.mark(p, h, marked_on) {
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
            invariant!(self.inv_queued(p, h, class, lossless));
        }
        if !held_back {
            self.wake_when_free(p);
        }
    }

    /// PFC's and the trace's part of `enqueue`: (the packet is lossless, its class is
    /// paused at `p`).
    #[inline]
    fn enqueue_hooks(&mut self, p: u32, h: u32) -> (bool, bool) {
        if self.trace.as_ref().is_some_and(|t| t.wants(p, self.arena.get(h).flow)) {
            self.trace_enqueue(p, h);
        }
        match &self.pfc {
            Some(f) => (f.holds(h), f.is_paused(p, f.class_of(self.arena.get(h)))),
            None => (false, false),
        }
    }

    /// Cuts data packet `h` to its header at port `p` (spec smartt-nscc.md §2.16: the
    /// arriving packet is the one trimmed). Returns its new size.
    fn trim(&mut self, p: u32, h: u32) -> u64 {
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

    /// Packet `h` is lost at port `p` (RED at dequeue, a lossy link).
    fn drop_packet(&mut self, p: u32, h: u32) {
        self.discard(p, h, false, false);
    }

    /// Port `p`'s buffer (or RED at enqueue) turns packet `h` away as it arrives.
    fn refuse(&mut self, p: u32, h: u32) {
        self.discard(p, h, true, false);
    }

    /// Drops packet `h` at port `p`; `link_dead` says a failed link lost it, which even
    /// a lossless class cannot prevent.
    #[inline]
    fn discard(&mut self, p: u32, h: u32, refused: bool, link_dead: bool) {
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

    /// PFC: packet `h` entered a switch over port `ingress`; count it, and PAUSE the
    /// upstream port if the count crossed `xoff`.
    #[cold]
    #[inline(never)]
    fn pfc_admit(&mut self, ingress: u32, h: u32) {
        let pkt = self.arena.get(h);
        let Some(pfc) = self.pfc.as_mut() else { return };
        let (class, size) = (pfc.class_of(pkt), pkt.size as u64);
        if let Some(frame) = pfc.arrive(ingress, h, class, size) {
            self.send_pfc_frame(frame);
        }
    }

    /// PFC: packet `h` leaves its switch on port `p`; uncount it, and RESUME the upstream
    /// port if the count fell to `xon`.
    #[cold]
    #[inline(never)]
    fn pfc_release(&mut self, _p: u32, h: u32) {
        let pkt = self.arena.get(h);
        let Some(pfc) = self.pfc.as_mut() else { return };
        let (class, size) = (pfc.class_of(pkt), pkt.size as u64);
        if let Some(frame) = pfc.depart(h, class, size) {
            self.send_pfc_frame(frame);
        }
    }

    /// Sends a PAUSE/RESUME back over the link `frame.port` carries: it leaves once the
    /// reverse port finishes its current packet and the link's previous frame is out, and
    /// takes a 64-byte serialisation and the reverse link's latency to arrive.
    #[cold]
    #[inline(never)]
    fn send_pfc_frame(&mut self, frame: PfcFrame) {
        let now = self.now();
        // Ports come in pairs, one per direction of a cable (builder.rs).
        let reverse = &self.ports[(frame.port ^ 1) as usize];
        let (ready, serialization, latency) = (reverse.busy_until.max(now), reverse.serialization(64), reverse.latency);
        let pfc = self.pfc.as_mut().expect("PFC frames come from PFC");
        let at = pfc.frame_departs(frame.port, ready, serialization) + serialization + latency;
        self.events.schedule(at, Event::Pfc(frame.encode()));
    }

    #[cold]
    #[inline(never)]
    fn pfc_frame_arrives(&mut self, frame: PfcFrame) {
        let now = self.now();
        let resumed = self.pfc.as_mut().is_some_and(|f| f.apply(frame, now));
        if resumed {
            self.kick(frame.port);
        }
    }

    /// PFC's and the trace's part of `transmit`.
    #[cold]
    #[inline(never)]
    fn transmit_hooks(&mut self, p: u32, h: u32) {
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
    fn int_transmit(&mut self, p: u32, h: u32) {
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
    fn trace_enqueue(&mut self, p: u32, h: u32) {
        let now = self.now();
        let ev =
            TraceEvent::new(now, EventKind::Enqueue, p, self.arena.get(h), self.ports[p as usize].queued_bytes, false);
        self.trace.as_mut().expect("trace hooks run with a trace").record_enqueue(now, ev, h);
    }

    /// Trace: an event of packet `h` at port `p` now, with `queued` bytes waiting there.
    #[cold]
    #[inline(never)]
    fn trace_at(&mut self, p: u32, h: u32, event: EventKind, queued: u64) {
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
    fn trace_refused(&mut self, p: u32, h: u32, event: EventKind) {
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
    fn trace_transmit(&mut self, p: u32, h: u32) {
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

    fn deliver(&mut self, h: u32) {
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
    fn receive_data(&mut self, pkt: &Packet, h: u32) {
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
    fn accept_data(&mut self, pkt: &Packet, h: u32) {
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
        for a in out.acks.into_iter().flatten() {
            let reply = self.make_reply(f, a, PacketKind::Ack, echo);
            if echo & flags::INT != 0 {
                self.int.as_mut().expect("INT packets only with the table").copy(h, reply);
            }
            self.enqueue(self.routing.host_up_port[self.flows[f as usize].dst as usize], reply);
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
            } else if !flow.is_infinite() {
                self.unfinished_finite -= 1;
            }
            if !self.dependencies.is_empty() {
                self.release_dependents(f);
            }
            self.check_done();
        }
    }

    /// A trimmed header reached its receiver: NACK it (or ACK it, if the PSN arrived anyway).
    fn receive_trimmed(&mut self, pkt: &Packet) {
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

    fn receive_nack(&mut self, pkt: &Packet) {
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
    fn owe_pull(&mut self, f: u32, trimmed: bool) {
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
    fn pull_tick(&mut self, host: u32) {
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
            };
            self.send_reply(f, pull, PacketKind::Pull, 0);
        }
    }

    #[cold]
    #[inline(never)]
    fn receive_pull(&mut self, pkt: &Packet) {
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
    fn receive_cnp(&mut self, pkt: &Packet) {
        let now = self.now();
        let flow = &mut self.flows[pkt.flow as usize];
        if !flow.sender_done() {
            flow.sender.cc.on_cnp(now);
        }
    }

    fn send_ack(&mut self, f: u32, a: AckToSend) {
        self.send_reply(f, a, PacketKind::Ack, 0);
    }

    /// An ACK, NACK, CNP or pull from flow `f`'s receiver back to its sender, with
    /// `extra` flags.
    fn send_reply(&mut self, f: u32, a: AckToSend, kind: PacketKind, extra: u16) {
        let h = self.make_reply(f, a, kind, extra);
        self.enqueue(self.routing.host_up_port[self.flows[f as usize].dst as usize], h);
    }

    /// The packet `send_reply` sends, not yet queued at the receiver's NIC.
    #[inline]
    fn make_reply(&mut self, f: u32, a: AckToSend, kind: PacketKind, extra: u16) -> u32 {
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
            ext: a.sack_bits,
        };
        self.counters.ack_packets += 1;
        self.arena.alloc(pkt)
    }

    /// ACK `pkt` (freed slot `h`) reached its sender.
    fn receive_ack(&mut self, pkt: &Packet, h: u32) {
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
        if pkt.has(flags::PROBE) {
            let rtt = flow.measured_delay(now.saturating_sub(pkt.sent_at));
            flow.sender.cc.on_probe_ack(now, rtt);
            self.arm_probe(f);
            self.make_ready(f);
            return;
        }
        let out = flow.on_ack(now, pkt, &self.cfg);
        if flow.uses_probes {
            self.arm_probe(f);
        }
        self.arm_rto(f);
        if out.may_send {
            self.make_ready(f);
        }
        invariant!(self.inv_flow(f));
    }

    /// The receiver answers a probe at once with a header-sized echo carrying its send
    /// time; the flow's PSN space and receive state are untouched (spec prioplus.md §2.6).
    fn echo_probe(&mut self, probe: &Packet) {
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
        let h = self.arena.alloc(echo);
        self.enqueue(port, h);
    }

    /// Keeps one `Probe` event pending no later than the time the algorithm wants its
    /// next probe (an earlier wish schedules a new event; the stale one is ignored).
    fn arm_probe(&mut self, f: u32) {
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
    fn probe_fired(&mut self, f: u32) {
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
            let ect = if cc.ecn_capable() { flags::ECT } else { 0 };
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
    fn arm_rto(&mut self, f: u32) {
        let s = &mut self.flows[f as usize].sender;
        if s.rto_deadline != Time::MAX && s.rto_deadline < s.rto_event_at {
            let at = s.rto_deadline.max(self.events.now());
            s.rto_event_at = at;
            self.events.schedule(at, Event::Rto(f));
        }
    }

    fn rto_fired(&mut self, f: u32) {
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

    /// LAPS: a probe for flow `f`'s pair, if one of its paths is due one (spec laps.md
    /// §2.4): a header and a 1-byte payload on that path.
    #[cold]
    #[inline(never)]
    fn laps_probe(&mut self, f: u32) -> Option<u32> {
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
    fn laps_pick(&mut self, f: u32) -> u32 {
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
    fn laps_sent(&mut self, pkt: &Packet) {
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
    /// in place of the cumulative ACK (spec §2.3, §2.6); the reorder buffer is sampled.
    #[cold]
    #[inline(never)]
    fn laps_received(&mut self, f: u32, pkt: &Packet, acks: &mut [Option<AckToSend>; 2]) {
        let latency = one_way_ns(self.now(), pkt.sent_at);
        for a in acks.iter_mut().flatten() {
            a.cum = latency;
        }
        let held = self.flows[f as usize].receiver.ooo_held as u64 * self.cfg.payload() as u64;
        self.laps.as_mut().expect("LAPS flows have a path table").sample_ooo(held);
    }

    /// LAPS sender: an ACK or a probe's echo updates its path's latency; an ACK also
    /// declares lost what was sent before it on that path (spec §2.8), acknowledges its
    /// packet, and drives the rate (§2.7).
    #[cold]
    #[inline(never)]
    fn laps_ack(&mut self, pkt: &Packet) {
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
        table.latencies(first, n, &mut latencies);
        let flow = &mut self.flows[f as usize];
        if !flow.sender_done() {
            let out = flow.on_ack(now, pkt, &self.cfg);
            flow.sender.cc.on_path_latencies(now, &latencies);
            if out.may_send {
                self.make_ready(f);
            }
        }
        self.laps.as_mut().expect("LAPS flows have a path table").scratch_latencies = latencies;
    }

    /// Queues the retransmission of each transmission in `lost` (emptied).
    fn resend(&mut self, lost: &mut Vec<Outstanding>) {
        for o in lost.drain(..) {
            if self.flows[o.flow as usize].declare_lost(o.psn, o.sent_at) {
                self.make_ready(o.flow);
            }
        }
    }

    /// Keeps one `PathRto` event pending no later than the path's deadline (lazily, as
    /// `arm_rto` does for flows).
    fn arm_path_rto(&mut self, path: u32) {
        let now = self.now();
        let p = &mut self.laps.as_mut().expect("LAPS flows have a path table").paths[path as usize];
        if p.rto_deadline != Time::MAX && p.rto_deadline < p.rto_event_at {
            p.rto_event_at = p.rto_deadline.max(now);
            self.events.schedule(p.rto_event_at, Event::PathRto(path));
        }
    }

    /// A LAPS path's timer: if its deadline has passed, all that is outstanding on the
    /// path is lost (spec §2.8: 8 ms, whatever the RTT).
    #[cold]
    #[inline(never)]
    fn path_rto_fired(&mut self, path: u32) {
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
    fn on_forward(&mut self, ingress: u32, egress: u32, h: u32) {
        if self.conga.is_some() {
            self.conga_forward(egress, h);
        }
        if self.pfc.is_some() {
            self.pfc_admit(ingress, h);
        }
    }

    /// CONGA: the path of flow `f`'s next packet: its current one, or, if the packet
    /// starts a flowlet, the least congested candidate path (spec laps.md §3.4).
    #[cold]
    #[inline(never)]
    fn conga_pick(&mut self, f: u32) -> u32 {
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
    fn conga_forward(&mut self, port: u32, h: u32) {
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
    fn conga_feedback(&mut self, pkt: &Packet) {
        let (first, _) = self.source_routes.paths_of(pkt.flow);
        let metric = ((pkt.flags & flags::PATH_METRIC) >> flags::PATH_METRIC_SHIFT) as u8;
        let now = self.now();
        self.conga.as_mut().expect("CONGA flows have CONGA state").on_feedback(first + pkt.entropy, metric, now);
    }

    /// ConWeave: the path and header of flow `f`'s next data packet (spec laps.md §3.5).
    #[cold]
    #[inline(never)]
    fn conweave_pick(&mut self, f: u32) -> (u32, u16) {
        let now = self.now();
        let (first, n) = self.source_routes.paths_of(f);
        // A new flow starts on the path its hash picks, uniformly among the candidates.
        let (initial, _) = self.source_routes.route(f, self.flows[f as usize].entropy, false);
        let rng = &mut self.rng_spray;
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        cw.on_send(f, now, first, n, initial, || rng.next_f64())
    }

    /// ConWeave's destination: answers RTT requests, reports ECN marks, and hands `pkt`
    /// to the receiver now, or holds it until its old path's TAIL (spec laps.md §3.5).
    #[cold]
    #[inline(never)]
    fn conweave_receive(&mut self, pkt: &Packet, h: u32) {
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
    fn conweave_answer(&mut self, pkt: &Packet) {
        use crate::conweave::header;
        if pkt.ext & header::RTT_REQUEST != 0 {
            self.conweave_send_control(pkt, header::REPLY | (pkt.ext & (header::EPOCH | header::REQUEST_ID)));
        }
    }

    /// ConWeave: the header of a trimmed data packet reached the destination. It still
    /// carries its RTT request, and if it is its epoch's TAIL, that epoch is over.
    #[cold]
    #[inline(never)]
    fn conweave_header(&mut self, pkt: &Packet) {
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
    fn conweave_release(&mut self, via: &Packet, timer: Option<Time>) {
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
    fn conweave_timer(&mut self, f: u32) {
        let now = self.now();
        let Some(first) = self.conweave.as_ref().expect("ConWeave timers only with ConWeave state").first_held(f)
        else {
            return;
        };
        self.conweave_release(&first, Some(now));
    }

    /// ConWeave: a header-sized control message `ext` from the destination of data packet
    /// `data` back to its source, on the reverse of its path at the control priority.
    fn conweave_send_control(&mut self, data: &Packet, ext: u16) {
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
    fn conweave_feedback(&mut self, pkt: &Packet) {
        let (first, _) = self.source_routes.paths_of(pkt.flow);
        let now = self.now();
        let cw = self.conweave.as_mut().expect("ConWeave flows have ConWeave state");
        cw.on_control(pkt.flow, first, pkt.entropy, pkt.ext, now);
    }

    /// PFC: ports with a paused class whose pause can never lift, in or behind a cycle of
    /// pauses (`net::pfc::stuck_nodes`), judged from the packets queued now. At the end of
    /// a run with unfinished flows, a count above 0 says a PFC deadlock stopped them.
    pub fn pfc_deadlocked_ports(&self) -> u64 {
        let Some(pfc) = self.pfc.as_ref() else { return 0 };
        let classes = pfc.classes();
        let n = self.ports.len() * classes;
        // One more node stands for every queue that is free to send.
        let free = n as u32;
        let mut edges = Vec::new();
        for (q, port) in self.ports.iter().enumerate() {
            for h in port.waiting() {
                let Some(a) = pfc.held_ingress(h) else { continue };
                let class = pfc.class_of(self.arena.get(h));
                if !pfc.pause_in_force(a, class) {
                    continue;
                }
                let to = if pfc.pause_in_force(q as u32, class) { (q * classes + class) as u32 } else { free };
                edges.push(((a as usize * classes + class) as u32, to));
            }
        }
        if edges.is_empty() {
            return 0;
        }
        let stuck = pfc::stuck_nodes(n + 1, &edges);
        stuck[..n].chunks(classes).filter(|port| port.iter().any(|&s| s)).count() as u64
    }

    /// ConWeave's counters, when some flow runs it.
    fn conweave_stats(&self) -> Vec<(&'static str, f64)> {
        let Some(cw) = self.conweave.as_ref() else { return Vec::new() };
        vec![
            ("conweave_rtt_requests", cw.rtt_requests as f64),
            ("conweave_reroutes", cw.reroutes as f64),
            ("conweave_reroutes_refused", cw.reroutes_refused as f64),
            ("conweave_held_packets", cw.held_packets as f64),
            ("conweave_tail_releases", cw.tail_releases as f64),
            ("conweave_timeout_releases", cw.timeout_releases as f64),
            ("conweave_control_packets", cw.control_packets as f64),
            ("conweave_max_voq_packets", cw.max_voq_packets as f64),
        ]
    }

    /// PLB's congestion re-paths by kind, summed over its flows (spec laps.md §3.6); only
    /// when some flow runs PLB.
    fn plb_stats(&self) -> Vec<(&'static str, f64)> {
        let plb: Vec<_> = self.flows.iter().filter(|f| f.lb == LbName::Plb).map(|f| &f.plb).collect();
        if plb.is_empty() {
            return Vec::new();
        }
        vec![
            ("plb_idle_repaths", plb.iter().map(|p| p.idle_repaths as f64).sum()),
            ("plb_forced_repaths", plb.iter().map(|p| p.forced_repaths as f64).sum()),
        ]
    }

    /// Flowlets LetFlow's and CONGA's flows started (each one a fresh path decision; a
    /// flow's first counts), summed per balancer; only for those some flow runs.
    fn flowlet_stats(&self) -> Vec<(&'static str, f64)> {
        let sum = |lb: LbName| -> Option<f64> {
            let mut flows = self.flows.iter().filter(|f| f.lb == lb).peekable();
            flows.peek()?;
            Some(flows.map(|f| f.flowlets.flowlets as f64).sum())
        };
        [("letflow_flowlets", LbName::Letflow), ("conga_flowlets", LbName::Conga)]
            .into_iter()
            .filter_map(|(name, lb)| sum(lb).map(|v| (name, v)))
            .collect()
    }

    fn laps_stats(&self, t: &PathTable) -> Vec<(&'static str, f64)> {
        let mut decreases = 0.0;
        for f in self.flows.iter().filter(|f| f.lb == LbName::Laps) {
            f.sender.cc.observe(&mut |name, v| {
                if name == "rate_decreases" {
                    decreases += v;
                }
            });
        }
        let (ooo_mean_kb, ooo_above_30kb) = t.ooo_summary(30);
        let (ack_min, ack_max) = if t.ack_delay.0 == Time::MAX { (Time::ZERO, Time::ZERO) } else { t.ack_delay };
        vec![
            ("laps_probes", t.probes as f64),
            ("laps_path_timeouts", t.path_timeouts as f64),
            ("laps_rate_decreases", decreases),
            ("laps_peak_in_flight_bytes", t.peak_in_flight as f64),
            ("laps_ack_delay_min_us", ack_min.as_us_f64()),
            ("laps_ack_delay_max_us", ack_max.as_us_f64()),
            ("ooo_buffer_mean_kb", ooo_mean_kb),
            ("ooo_buffer_above_30kb", ooo_above_30kb),
        ]
    }

    fn sample(&mut self) {
        let now = self.now();
        let Some(o) = self.observer.as_mut() else {
            return;
        };
        o.sample(now, &self.ports, &self.flows, &self.monitors, self.pfc.as_deref());
        // If sampling is all that is left, nothing can ever change again: stop sampling so
        // that `run_until` sees the empty queue and ends the run.
        if !self.events.is_empty() {
            self.events.schedule_last(now + o.interval, Event::Sample);
        }
    }

    /// A last sample when the run ends between two ticks, so that the interval metrics
    /// cover the whole run (their sums are the run's totals).
    fn sample_at_end(&mut self) {
        let now = self.now();
        if let Some(o) = self.observer.as_mut() {
            if o.last_sample().is_some_and(|t| t < now) {
                o.sample(now, &self.ports, &self.flows, &self.monitors, self.pfc.as_deref());
            }
        }
    }

    /// One row per flow (see README, "Results").
    pub fn flow_table(&self) -> Table {
        let n = self.flows.len();
        let mut id = Vec::with_capacity(n);
        let mut tag = Vec::with_capacity(n);
        let mut src = Vec::with_capacity(n);
        let mut dst = Vec::with_capacity(n);
        let mut size = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n);
        let mut finish = Vec::with_capacity(n);
        let mut fct = Vec::with_capacity(n);
        let mut ideal = Vec::with_capacity(n);
        let mut slowdown = Vec::with_capacity(n);
        let mut delivered = Vec::with_capacity(n);
        let mut retx = Vec::with_capacity(n);
        let mut drops = Vec::with_capacity(n);
        let mut finished = Vec::with_capacity(n);
        let mut failed = Vec::with_capacity(n);
        let mut cc = Vec::with_capacity(n);
        let mut lb = Vec::with_capacity(n);
        let us_or_nan = |t: Option<Time>| t.map(|t| t.as_us_f64()).unwrap_or(f64::NAN);
        let m = &self.monitors;
        let tx_packets = m.iter().map(|c| c.tx_packets as i64).collect();
        let rx_packets = m.iter().map(|c| c.rx_packets as i64).collect();
        let rx_bytes = m.iter().map(|c| c.rx_bytes as i64).collect();
        let delay_sum = m.iter().map(|c| c.delay_sum.as_us_f64()).collect();
        let first_tx = m.iter().map(|c| us_or_nan(c.first_tx)).collect();
        let last_rx = m.iter().map(|c| us_or_nan(c.last_rx)).collect();
        for f in &self.flows {
            id.push(f.id as i64);
            tag.push(self.tags[f.tag as usize].clone());
            src.push(f.src as i64);
            dst.push(f.dst as i64);
            size.push(if f.is_infinite() { -1 } else { f.size as i64 });
            // A flow that never began (its predecessors or its start time lay beyond the
            // end of the run) has no start.
            start.push(if f.started { f.start.as_us_f64() } else { f64::NAN });
            let ideal_us = if f.is_infinite() { f64::NAN } else { f.ideal_fct.as_us_f64() };
            ideal.push(ideal_us);
            match f.receiver.finish {
                Some(t) if !f.is_infinite() => {
                    let fct_us = (t - f.start).as_us_f64();
                    finish.push(t.as_us_f64());
                    fct.push(fct_us);
                    slowdown.push(fct_us / ideal_us);
                    finished.push(true);
                }
                _ => {
                    finish.push(f64::NAN);
                    fct.push(f64::NAN);
                    slowdown.push(f64::NAN);
                    finished.push(false);
                }
            }
            delivered.push(f.receiver.delivered as i64);
            retx.push(f.sender.retransmits as i64);
            drops.push(f.drops as i64);
            failed.push(f.failed);
            cc.push(f.sender.cc.name().to_string());
            lb.push(f.lb.as_str().to_string());
        }
        let mut t = Table::default();
        t.push("id", Column::I64(id));
        t.push("tag", Column::Str(tag));
        t.push("src", Column::I64(src));
        t.push("dst", Column::I64(dst));
        t.push("size", Column::I64(size));
        t.push("start_us", Column::F64(start));
        t.push("finish_us", Column::F64(finish));
        t.push("fct_us", Column::F64(fct));
        t.push("ideal_fct_us", Column::F64(ideal));
        t.push("slowdown", Column::F64(slowdown));
        t.push("delivered", Column::I64(delivered));
        t.push("retransmits", Column::I64(retx));
        t.push("drops", Column::I64(drops));
        t.push("finished", Column::Bool(finished));
        t.push("cc", Column::Str(cc));
        t.push("lb", Column::Str(lb));
        t.push("tx_packets", Column::I64(tx_packets));
        t.push("rx_packets", Column::I64(rx_packets));
        t.push("rx_bytes", Column::I64(rx_bytes));
        t.push("delay_sum_us", Column::F64(delay_sum));
        t.push("first_tx_us", Column::F64(first_tx));
        t.push("last_rx_us", Column::F64(last_rx));
        t.push("trims", Column::I64(self.flows.iter().map(|f| f.trims as i64).collect()));
        t.push("reordered", Column::I64(self.flows.iter().map(|f| f.receiver.reordered as i64).collect()));
        let group = |f: usize| match self.groups.get(f) {
            Some(&g) if g != crate::workload::NO_GROUP => g as i64,
            _ => -1,
        };
        t.push("group", Column::I64((0..self.flows.len()).map(group).collect()));
        // 0: none; larger = more important (per-priority results, e.g. coflow CCT by level).
        t.push("priority", Column::I64(self.flows.iter().map(|f| f.priority as i64).collect()));
        t.push("failed", Column::Bool(failed));
        t
    }

    /// The sampled time series in long form (`observe.rs`), if the run samples any.
    pub fn timeseries(&self) -> Option<Table> {
        self.observer.as_ref().map(|o| o.table())
    }

    /// One row per port: `port, name, node, peer, tier, rate_bps, up` (the key of the
    /// time series' and the trace's port ids).
    pub fn ports_table(&self) -> Table {
        let names = crate::observe::port_names(&self.ports, self.n_hosts);
        let ports = &self.ports;
        let mut t = Table::default();
        t.push("port", Column::I64((0..ports.len() as i64).collect()));
        t.push("name", Column::Str(names));
        t.push("node", Column::I64(ports.iter().map(|p| p.node as i64).collect()));
        t.push("peer", Column::I64(ports.iter().map(|p| p.peer as i64).collect()));
        t.push("tier", Column::Str(self.port_tiers.iter().map(|t| t.name().to_string()).collect()));
        t.push("rate_bps", Column::I64(ports.iter().map(|p| p.rate.bps() as i64).collect()));
        t.push("up", Column::Bool(ports.iter().map(|p| p.up).collect()));
        t
    }

    /// The trace's event log (`trace.rs`), if the run traces.
    pub fn trace_table(&self) -> Option<Table> {
        self.trace.as_ref().map(|t| t.table(&self.ports))
    }

    /// The trace's capture as a pcap file, if the run traces.
    pub fn pcap(&self) -> Option<Vec<u8>> {
        let flows = &self.flows;
        self.trace.as_ref().map(|t| t.pcap(|f| (flows[f as usize].src, flows[f as usize].dst)))
    }

    /// Run counters as (name, value) pairs.
    /// Where the run's memory is (issue 5, item 3), from the structures' own sizes and
    /// their containers' high-water capacities: per flow, per packet slot, and the fixed
    /// fabric (ports, routing, event queue).
    pub fn memory(&self) -> MemoryReport {
        let flows: u64 = self.flows.iter().map(|f| f.fixed_bytes()).sum::<u64>()
            + (self.monitors.capacity() * std::mem::size_of::<FlowMonitor>()) as u64
            + (self.host_ready.iter().map(|q| q.capacity()).sum::<usize>() * 4) as u64;
        let packets = self.arena.heap_bytes()
            + self.ports.iter().map(|p| p.packet_bytes()).sum::<u64>()
            + self.flows.iter().map(|f| f.packet_bytes()).sum::<u64>();
        MemoryReport {
            flows,
            packets,
            ports: self.ports.iter().map(|p| p.fixed_bytes()).sum(),
            routing: self.routing.heap_bytes()
                + self.source_routes.heap_bytes()
                + self.laps.as_ref().map_or(0, |t| t.heap_bytes())
                + self.conweave.as_ref().map_or(0, |c| c.heap_bytes()),
            events: self.events.heap_bytes(),
            n_flows: self.flows.len() as u64,
            peak_packets: self.arena.peak_live() as u64,
        }
    }

    pub fn stats(&self) -> Vec<(&'static str, f64)> {
        let c = &self.counters;
        let mem = self.memory();
        vec![
            ("events", self.events_processed() as f64),
            ("packets", self.packets() as f64),
            ("data_packets", c.data_packets as f64),
            ("ack_packets", c.ack_packets as f64),
            ("drops", c.drops as f64),
            ("ecn_marks", c.ecn_marks as f64),
            ("timeouts", c.timeouts as f64),
            ("trims", c.trims as f64),
            ("nacks", c.nacks as f64),
            ("cnps", c.cnps as f64),
            ("probe_packets", c.probe_packets as f64),
            ("probe_bytes", c.probe_bytes as f64),
            ("pulls", self.pulls.as_ref().map_or(0, |p| p.pulls_sent) as f64),
            (
                "pull_stalls",
                self.flows.iter().filter_map(|f| f.sender.credit.as_ref()).map(|c| c.stall_timeouts as u64).sum::<u64>()
                    as f64,
            ),
            ("retransmits", self.flows.iter().map(|f| f.sender.retransmits).sum::<u64>() as f64),
            ("peak_packets_in_flight", self.arena.peak_live() as f64),
            ("sim_time_us", self.now().as_us_f64()),
            ("flows", self.flows.len() as f64),
            ("flows_finished", self.finished_flows as f64),
            ("flows_failed", c.failed_flows as f64),
            ("memory_bytes", mem.total() as f64),
            ("memory_per_flow_bytes", mem.per_flow()),
            ("memory_per_packet_bytes", mem.per_packet()),
        ]
        .into_iter()
        .chain(std::iter::once((
            "reordered_packets",
            self.flows.iter().map(|f| f.receiver.reordered).sum::<u64>() as f64,
        )))
        .chain(self.observer.iter().map(|o| ("timeseries_rows", o.rows() as f64)))
        .chain(self.trace.iter().flat_map(|t| [("trace_events", t.len() as f64), ("trace_events_lost", t.lost as f64)]))
        .chain(self.laps.iter().flat_map(|t| self.laps_stats(t)))
        .chain(self.plb_stats())
        .chain(self.flowlet_stats())
        .chain(self.conweave_stats())
        .chain(
            self.faults.iter().flat_map(|_| [("fault_drops", c.fault_drops as f64), ("reroutes", c.reroutes as f64)]),
        )
        .chain(self.pfc.iter().flat_map(|f| {
            [
                ("pfc_pause_frames", f.total_pause_frames() as f64),
                ("pfc_resume_frames", f.total_resume_frames() as f64),
                ("pfc_headroom_overflow_bytes", f.headroom_overflows as f64),
                ("pfc_deadlocked_ports", self.pfc_deadlocked_ports() as f64),
            ]
        }))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::Time;

    fn leaf_spine() -> super::Simulation {
        let toml = r#"
            [topology]
            kind = "leaf_spine"
            hosts = 16
            radix = 8
            [[workload]]
            kind = "permutation"
            size = "1MB"
            lb = "ar"
        "#;
        crate::from_toml(toml, std::path::Path::new(".")).unwrap()
    }

    /// Spec smartt-nscc.md §6.1 U8 (switch part): a data packet arriving at a full data
    /// queue of a trimming port becomes exactly one 64-byte header in the priority queue,
    /// the data queue unchanged; headers and ACKs leave before queued data.
    #[test]
    fn u8_trimming_puts_one_header_in_the_priority_queue_and_it_overtakes_data() {
        use crate::net::{flags, Packet, PacketKind};
        let toml = r#"
            [topology]
            kind = "star"
            hosts = 3
            mtu = "4160B"
            [switch]
            buffer = "12480B"
            trimming = true
            [transport]
            cc = "nscc"
            [[workload]]
            kind = "incast"
            receiver = 0
            senders = 2
            size = "1MB"
        "#;
        let mut s = crate::from_toml(toml, std::path::Path::new(".")).unwrap();
        let p = s.routing.host_down_port[0];
        s.ports[p as usize].busy_until = Time::from_us(1);
        let data = |psn| Packet::test_data(0, psn, 4160);
        for psn in 0..3 {
            let h = s.arena.alloc(data(psn));
            s.enqueue(p, h);
        }
        assert_eq!((s.ports[p as usize].queue.len(), s.ports[p as usize].queued_bytes), (3, 3 * 4160));
        let h = s.arena.alloc(data(3));
        s.enqueue(p, h);
        let port = &s.ports[p as usize];
        assert_eq!((port.queue.len(), port.queued_bytes, port.ctrl.len()), (3, 3 * 4160, 1));
        let header = s.arena.get(port.ctrl[0]);
        assert_eq!((header.psn, header.size), (3, 64));
        assert!(header.has(flags::TRIMMED) && header.is_control());
        assert_eq!((s.counters.trims, s.counters.drops, s.flows[0].trims), (1, 0, 1));
        let ack = Packet { kind: PacketKind::Ack, size: 64, psn: 9, ..data(0) };
        let h = s.arena.alloc(ack);
        s.enqueue(p, h);
        // Serve the port: the header, then the ACK, then the data in order.
        let mut order = Vec::new();
        for _ in 0..5 {
            let t = s.ports[p as usize].busy_until;
            s.events.advance_to(t);
            s.port_start(p);
            let &(_, h) = s.ports[p as usize].pipe.back().unwrap();
            let pkt = s.arena.get(h);
            order.push((pkt.kind, pkt.psn));
        }
        assert_eq!(
            order,
            vec![
                (PacketKind::Data, 3),
                (PacketKind::Ack, 9),
                (PacketKind::Data, 0),
                (PacketKind::Data, 1),
                (PacketKind::Data, 2)
            ]
        );
    }

    /// Adaptive routing picks the port with the lowest quantised level, and spreads
    /// evenly among equal ones.
    #[test]
    fn adaptive_routing_avoids_the_fuller_queue_and_spreads_ties() {
        let mut s = leaf_spine();
        let leaf = s.routing.host_edge[0];
        let candidates = s.routing.candidates(leaf, 15).to_vec();
        assert_eq!(candidates.len(), 4, "radix 8 leaf-spine: 4 spines");
        let mut count = std::collections::HashMap::new();
        for i in 0..4000u64 {
            s.events.advance_to(Time::from_ns(200 * (i + 1)));
            *count.entry(s.adaptive_port(leaf, 15)).or_insert(0) += 1;
        }
        for p in &candidates {
            let n = count[p];
            assert!((800..=1200).contains(&n), "port {p} chosen {n} of 4000 times");
        }
        // Fill one uplink past the first level (5 % of 1 MB): it is never chosen again.
        let full = candidates[2];
        s.ports[full as usize].queued_bytes = 60_000;
        for i in 0..1000u64 {
            s.events.advance_to(Time::from_us(1000 + i));
            assert_ne!(s.adaptive_port(leaf, 15), full);
        }
    }
}
