//! The simulation: the world (ports, routing, hosts, flows) and the event loop that moves
//! packets through it. Components stay small (port = queue + serialiser + pipe, flow =
//! sender + receiver, routing = tables); this module only wires them together.

mod balancers;
mod endpoints;
mod hosts;
pub(crate) mod invariants;
pub(crate) mod parallel;
mod ports;
mod tables;

use std::collections::VecDeque;

use self::invariants::invariant;
use crate::engine::{Event, EventQueue, NodeStreams, Rng};
use crate::laps::{Outstanding, PathTable};
use crate::lb::PathPolicy;
use crate::net::pfc::{self, Pfc, PfcFrame, Recheck, PAUSE_QUANTA_BYTES};
use crate::net::{flags, Aqm, MarkDecision, MarkPoint, Packet, PacketArena, PacketKind, Port};
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
    /// timer for their oldest transmission (`docs/models/transport.md`, the timeout
    /// policies), so a burst of losses counts about one per expired packet, not one per
    /// flow.
    pub timeouts: u64,
    /// Data packets cut to their header by a switch (trimming).
    pub trims: u64,
    /// Of those, the trims that cut the queue's tail for an arrival (`switch.trim_victim`).
    pub tail_trims: u64,
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
    pub n_ports: u64,
    pub n_hosts: u64,
}

/// One line of the memory estimate the builder checks before allocating the flows
/// (`build/memory.rs`).
#[derive(Clone, Debug)]
pub struct MemoryItem {
    pub name: &'static str,
    pub bytes: u64,
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
    /// The ports' own state (queue, serialiser, pipe, AQM) per port, hosts' included.
    pub fn per_port(&self) -> f64 {
        self.ports as f64 / self.n_ports.max(1) as f64
    }
    /// Routing state per host: what a fabric's size costs beyond its ports.
    pub fn routing_per_host(&self) -> f64 {
        self.routing as f64 / self.n_hosts.max(1) as f64
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
    /// What the builder expected the run to need before it allocated the flows
    /// (`build/memory.rs`), item by item.
    pub memory_estimate: Vec<MemoryItem>,
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
    /// Finite flows not yet complete: at their receiver, or (`fct_at_sender`) at their
    /// sender.
    pub(crate) unfinished_finite: u32,
    pub(crate) fct_at_sender: bool,
    pub(crate) finished_flows: u32,
    /// Infinite flows with a stop time keep the run going until the last such stop;
    /// background infinite flows (no stop) do not.
    pub(crate) infinite_until: Time,
    /// The source-routing balancers' draws (LAPS, CONGA, ConWeave: one thread only).
    pub(crate) rng_spray: Rng,
    /// A NIC's fresh entropy for a sprayed packet, per host.
    pub(crate) rng_entropy: NodeStreams,
    pub(crate) rng_loss: NodeStreams,
    pub(crate) rng_red: NodeStreams,
    /// `switch.trim_victim`'s coin: the arrival or the queue's tail.
    pub(crate) rng_trim: NodeStreams,
    pub(crate) rng_ar: NodeStreams,
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
    /// `transport.nic_scheduler = "priority"`: a NIC sends its highest-level flows first.
    pub(crate) nic_by_priority: bool,
    /// `[faults] drop`: data packets whose first transmission is lost, sorted.
    pub(crate) injected_drops: Vec<crate::scenario::PacketId>,
    pub(crate) faults: Option<Box<crate::fault::FaultPlan>>,
    pub(crate) give_up_after: u32,
    /// Replies their receiving hosts hold (`Event::ReplyHeld`), in no queue or wire.
    pub(crate) held_replies: u64,
    /// Some flow's receiver holds its replies (`noise::NoiseAt::Receiver`).
    pub(crate) replies_held: bool,
    pub(crate) done: bool,
    /// The width of the run's window grid: the smallest latency of any link, which is the
    /// least time anything takes to cross from one node to another. A run whose flows are
    /// all done ends at the end of the window in which the last one finished
    /// (`ending`), so that one thread and many (`sim/parallel/`, which swaps packets at
    /// window ends) stop after the same events. Zero (a link without latency): the run
    /// ends at once.
    pub(crate) window: Time,
    /// Set once the run's flows are all done: events before this time still happen,
    /// none at or after it.
    pub(crate) ending: Option<Time>,
    /// When the run's flows were all done (what set `ending`).
    pub(crate) completed_at: Option<Time>,
    /// When the latest finite flow was counted out of `unfinished_finite`.
    pub(crate) counted_out_at: Time,
    /// This simulation's share of a run split over threads (`sim/parallel/`).
    pub(crate) shard: Option<Box<parallel::Shard>>,
    /// On the first share of a split run: the other shares, and where the run stands.
    pub(crate) parallel: Option<Box<parallel::Parallel>>,
    /// Issue 10's invariant checks (`invariants.rs`): only in debug and test builds.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(crate) inv: crate::sim::invariants::Checker,
}

/// A packet's one-way latency in whole nanoseconds, as a LAPS ACK carries it (LAPS
/// paper §3.2, `docs/models/laps.md`: the receiver computes it; clocks are synchronised).
/// Saturates at 4.3 s.
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

    /// When the run ended: the instant its last flow finished, if that is what ended it
    /// (the clock, `now`, has gone on to the end of that window: see `window`); otherwise,
    /// and while it runs, `now`. A split run's is the latest of its shares'.
    pub fn end_time(&self) -> Time {
        if self.done && self.shares().all(|s| s.completed_at.is_some()) {
            return self.shares().filter_map(|s| s.completed_at).max().expect("a share");
        }
        match self.split_last_activity() {
            Some(t) if self.done => t,
            _ => self.now(),
        }
    }

    /// Flow `f`'s candidate paths (source-routed balancers: `rps`, `laps`, `conga`,
    /// `conweave`), each as its nodes from source host to destination host; empty for a
    /// flow that is not source-routed.
    pub fn candidate_paths(&self, f: u32) -> Vec<Vec<u32>> {
        self.source_routes.nodes_of(f)
    }

    pub fn events_processed(&self) -> u64 {
        self.shares().map(|s| s.events.processed()).sum()
    }

    /// Data and ACK packets created so far.
    pub fn packets(&self) -> u64 {
        self.shares().map(|s| s.arena.allocated_total()).sum()
    }

    /// LAPS's receiver reorder buffers, sampled at every data arrival: element k counts
    /// the samples that found k KB (rounded down) held (the LAPS paper's Fig. 9). `None`
    /// when no flow runs LAPS.
    pub fn ooo_histogram_kb(&self) -> Option<&[u64]> {
        self.laps.as_ref().map(|t| t.ooo_kb.as_slice())
    }

    pub fn flows_finished(&self) -> u32 {
        self.shares().map(|s| s.finished_flows).sum()
    }

    /// Runs until simulated time `limit` or the end of the scenario, whichever is first.
    /// Returns true once the scenario has ended.
    pub fn run_until(&mut self, limit: Time) -> bool {
        if self.parallel.is_some() {
            return self.run_split(limit);
        }
        while !self.done {
            if self.prefetch {
                self.prefetch_ahead();
            }
            let last = match self.ending {
                Some(end) => limit.min(Time(end.0 - 1)),
                None => limit,
            };
            match self.events.pop_until(last) {
                Some(ev) => {
                    invariant!(self.inv_before_event(ev));
                    self.dispatch(ev)
                }
                None => {
                    // Nothing left can ever happen (e.g. every flow is stuck or done), or
                    // the window in which the flows finished is over.
                    if self.events.is_empty() || last < limit {
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

    // Always inlined into `run_until`, the event loop: out of line it cost +8 %
    // instructions. A split run's loop calls it through `dispatch_in_share`, so that the
    // compiler inlines the handlers into one loop only, as before there were two.
    #[inline(always)]
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
            Event::DelayedAck(f) => match self.flows[f as usize].on_delayed_ack(self.events.now(), &self.cfg) {
                DelayedAck::Send(a) => self.send_ack(f, a),
                DelayedAck::At(due) => self.events.schedule(due, Event::DelayedAck(f)),
                DelayedAck::Idle => {}
            },
            Event::Sample => self.sample(),
            Event::Pfc(v) => self.pfc_frame_arrives(PfcFrame::decode(v)),
            Event::PfcRecheck(v) => self.pfc_recheck(PfcFrame::decode(v)),
            Event::Probe(f) => self.probe_fired(f),
            Event::Pull(host) => self.pull_tick(host),
            Event::PathRto(path) => self.path_rto_fired(path),
            Event::FlowBegins(f) => self.begin_waiting_flow(f),
            Event::Fault(i) => self.apply_fault(i),
            Event::VoqRelease(f) => self.conweave_timer(f),
            Event::ReplyHeld(h) => self.release_reply(h),
            Event::Stop => match self.duration {
                Some(d) if self.now() >= d => self.done = true,
                // The last infinite flow stopped: the run ends once finite flows are done.
                _ => self.check_done(),
            },
        }
    }
}

#[cfg(test)]
mod tests;
