//! One run on many threads (issue 30): conservative parallel discrete-event simulation
//! over a partition of the fabric (`docs/models/parallel.md`).
//!
//! Each thread holds a whole `Simulation` built from the same scenario (a share) and
//! simulates only its part of the nodes: the ports that transmit from them, the sender
//! half of the flows that start at them and the receiver half of the flows that end at
//! them. A packet sent over a link whose far end lies in another share travels to that
//! share as a message, and so do a PFC frame, a sender giving up on a flow and the events
//! a waiting flow in another share waits for. Crossing any link takes at least the
//! fabric's smallest link latency (`Simulation::window`), so the shares run in windows of
//! that width on a fixed grid and swap messages at each window's end: nothing sent inside
//! a window can land inside it (the lookahead of Chandy-Misra-Bryant simulation).
//!
//! The flow table is the same bit for bit with any number of threads, because nothing a
//! node does depends on the order in which the shares run:
//! - simultaneous events are ordered by a hash of the time and the event, not by when
//!   they were scheduled (`engine::EventQueue::tie_key`);
//! - every random draw comes from a stream of the node that draws it
//!   (`engine::NodeStreams`);
//! - a run whose flows are all done ends at the end of the grid window in which the last
//!   one finished, one thread or many (`Simulation::ending`);
//! - packets arriving from other shares join the link's wire in the order they were
//!   sent, the only order one link has.
//!
//! Events that concern the whole run (flow starts, the end of a `duration`, a step of the
//! fault plan) are in every share's queue, and every share applies them to its own copy:
//! a link going down changes every share's ports and routing alike.
//!
//! What a share's structures hold for nodes and flows outside it is never read. The
//! tables merge the shares' columns: each flow's sender columns from the share of its
//! source, receiver columns from that of its destination, counters summed.

mod merge;

use self::merge::SplitView;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::*;
use crate::net::int::IntStack;
use crate::net::UecAck;

/// Which share each node belongs to, and this simulation's own.
pub(crate) struct Shard {
    pub(crate) me: u16,
    pub(crate) of_node: std::sync::Arc<Vec<u16>>,
    /// Messages for each share, in the order they were sent (for its own index: the
    /// events its own waiting flows hear of at the window's end).
    pub(crate) outbox: Vec<Vec<Message>>,
    /// Data bytes this share handed to others (the invariant checks' ledger).
    pub(crate) exported_data_bytes: u64,
    /// Messages this share sent to others.
    pub(crate) sent: u64,
    /// When this share's latest event happened.
    pub(crate) last_event: Time,
}

/// What crosses from one share to another at a window's end.
pub(crate) enum Message {
    /// A packet on the wire of `port`, reaching the far end at `at`, with its side lanes
    /// (and its telemetry records, for an HPCC packet that carries them).
    Packet { at: Time, port: u32, packet: Packet, stamp: u64, uec: UecAck, int: Option<Box<IntStack>> },
    /// An event of the receiving share (a PFC frame reaching its upstream port).
    Event { at: Time, event: Event },
    /// The sender of flow `f` gave up on it at `at` (`faults.give_up_after`): the
    /// receiver's share stops waiting for it, unless it is complete.
    GaveUp { f: u32, at: Time },
    /// One of the events flow `g` waits for (a delivery or an acknowledgement) happened at
    /// `at`; for a flow that starts at least a window after its last event.
    Waited { g: u32, at: Time },
}

/// Kept by the first share: the others, and the end of the window the run is in.
pub(crate) struct Parallel {
    others: Vec<Simulation>,
    window_end: Time,
    /// Windows run so far (each one barrier round).
    windows: u64,
    /// The time series sampler (`[observe]`), which reads every share at each sampling
    /// instant (`SplitView`); the shares keep none.
    observer: Option<Box<crate::observe::Observer>>,
    /// The next sampling instant, if sampling goes on.
    next_sample: Option<Time>,
    /// The latest event or sample so far: one simulation's clock at the end of a run.
    last_activity: Time,
}

/// Why a run of the shares' windows returned.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Halt {
    /// At the caller's limit (or a sampling instant), inside a window.
    Limit,
    /// The run is over.
    Over,
    /// Nothing is left to happen but a pending sample.
    Idle,
}

/// A barrier that spins before it yields: a window of a sparse run (an incast) is a few
/// microseconds of work, and a futex sleep and wake per window cost more than that.
struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(n: usize) -> SpinBarrier {
        SpinBarrier { n, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                // More threads than free cores: let the late one run.
                std::thread::yield_now();
            }
        }
    }
}

/// What a share tells the others after a window's messages are in.
#[derive(Clone, Copy, Default)]
struct Status {
    next: Option<Time>,
    flows_done: bool,
    stopped: bool,
}

/// Splits `n` ways: every node gets a share. Hosts go with the switch their NIC cables
/// to. Edge switches (those with hosts) are cut into `n` runs of consecutive ids holding
/// about as many hosts each (a fat tree's pods, a dragonfly's groups, in order); every
/// other switch then joins the share most of its already placed neighbours are in, in
/// rounds outward from the edge, ties going to the share with the fewest switches so far.
pub(crate) fn partition(ports: &[crate::net::Port], node_ports: &[Vec<u32>], n_hosts: u32, n: u16) -> Vec<u16> {
    const NONE: u16 = u16::MAX;
    let n_nodes = node_ports.len();
    let mut of = vec![NONE; n_nodes];
    let mut hosts_at = vec![0u32; n_nodes];
    for h in 0..n_hosts as usize {
        if let Some(&p) = node_ports[h].first() {
            hosts_at[ports[p as usize].peer as usize] += 1;
        }
    }
    let edge: Vec<usize> = (n_hosts as usize..n_nodes).filter(|&s| hosts_at[s] > 0).collect();
    let total: u64 = edge.iter().map(|&s| hosts_at[s] as u64).sum();
    let mut seen = 0u64;
    let mut count = vec![0u32; n as usize];
    for &s in &edge {
        // The share whose slice of the hosts this switch's first host falls in.
        let share = ((seen * n as u64) / total.max(1)).min(n as u64 - 1) as u16;
        of[s] = share;
        count[share as usize] += 1;
        seen += hosts_at[s] as u64;
    }
    loop {
        let mut placed = Vec::new();
        for s in n_hosts as usize..n_nodes {
            if of[s] != NONE {
                continue;
            }
            let mut votes = vec![0u32; n as usize];
            for &p in &node_ports[s] {
                let peer = ports[p as usize].peer as usize;
                if peer >= n_hosts as usize && of[peer] != NONE {
                    votes[of[peer] as usize] += 1;
                }
            }
            let best = *votes.iter().max().expect("n > 0");
            if best > 0 {
                placed.push((s, votes));
            }
        }
        if placed.is_empty() {
            break;
        }
        for (s, votes) in placed {
            let best = *votes.iter().max().expect("n > 0");
            let share =
                (0..n).filter(|&i| votes[i as usize] == best).min_by_key(|&i| (count[i as usize], i)).expect("a best");
            of[s] = share;
            count[share as usize] += 1;
        }
    }
    // Switches out of reach of every edge switch (none in a connected fabric) and hosts.
    for s in n_hosts as usize..n_nodes {
        if of[s] == NONE {
            of[s] = 0;
        }
    }
    for h in 0..n_hosts as usize {
        of[h] = node_ports[h].first().map_or(0, |&p| of[ports[p as usize].peer as usize]);
    }
    of
}

impl Simulation {
    /// Which share each node joins when the run is split `n` ways (`partition`).
    pub(crate) fn partition(&self, n: u16) -> Vec<u16> {
        partition(&self.ports, &self.node_ports, self.n_hosts, n)
    }

    /// Why this scenario cannot run split as `of_node` says, as (field, reason); `None`
    /// when it can.
    pub(crate) fn split_refusal(&self, of_node: &[u16]) -> Option<(&'static str, String)> {
        let unsupported = [
            (self.trace.is_some(), "trace", "packet traces ([trace])"),
            (self.laps.is_some(), "transport.lb", "LAPS"),
            (self.conga.is_some(), "transport.lb", "CONGA"),
            (self.conweave.is_some(), "transport.lb", "ConWeave"),
            (self.replies_held, "transport.delay_noise", "replies held at the receiver (noise at = \"receiver\")"),
        ];
        if let Some((_, field, what)) = unsupported.iter().find(|u| u.0) {
            return Some((field, format!("{what} cannot yet run on more than one thread; use threads = 1")));
        }
        // A flow that waits for another starts in the instant that one is delivered (or
        // acknowledged): the share where that happens must be the one it sends from.
        if !self.dependencies.is_empty() {
            let share = |node: u32| of_node[node as usize];
            let deps = &self.dependencies;
            let crossing = deps.edges().find(|&(f, acked, g)| {
                let starts_later = deps.gap(g) >= self.window;
                let (f, g) = (&self.flows[f as usize], &self.flows[g as usize]);
                !starts_later && share(if acked { f.src } else { f.dst }) != share(g.src)
            });
            if let Some((f, acked, g)) = crossing {
                let (f, g) = (&self.flows[f as usize], &self.flows[g as usize]);
                let at = if acked { f.src } else { f.dst };
                return Some((
                    "workload",
                    format!(
                        "flow {} (from host {}) waits for flow {} {} at host {}, in another thread's share of the fabric, and starts {} after it, less than the smallest link latency ({}); such a flow must send from the host (or a host of the same pod) where what it waits for happens; use threads = 1",
                        g.id,
                        g.src,
                        f.id,
                        if acked { "to be acknowledged" } else { "to be delivered" },
                        at,
                        self.dependencies.gap(g.id),
                        self.window
                    ),
                ));
            }
        }
        if self.window == Time::ZERO {
            return Some((
                "topology.link_latency",
                "a link without latency leaves the threads no window to run apart; use threads = 1".into(),
            ));
        }
        None
    }

    /// Makes `shares` (built from one scenario, the first being `self`'s future contents)
    /// one run split over `shares.len()` threads; returns the first share, which holds
    /// the others.
    pub(crate) fn split(mut shares: Vec<Simulation>, of_node: Vec<u16>) -> Simulation {
        let n = shares.len() as u16;
        let of_node = std::sync::Arc::new(of_node);
        for (i, sim) in shares.iter_mut().enumerate() {
            let me = i as u16;
            for port in sim.ports.iter_mut() {
                port.remote = of_node[port.node as usize] != of_node[port.peer as usize];
            }
            // Each share counts the finite flows whose completion it sees.
            sim.unfinished_finite = sim
                .flows
                .iter()
                .filter(|f| !f.is_infinite())
                .filter(|f| of_node[if sim.fct_at_sender { f.src } else { f.dst } as usize] == me)
                .count() as u32;
            sim.shard = Some(Box::new(Shard {
                me,
                of_node: of_node.clone(),
                outbox: (0..n).map(|_| Vec::new()).collect(),
                exported_data_bytes: 0,
                sent: 0,
                last_event: Time::ZERO,
            }));
        }
        let mut first = shares.remove(0);
        // The sampler moves out of the shares: their `Sample` events (built into every
        // queue) find no observer and do nothing.
        let observer = first.observer.take();
        for sim in shares.iter_mut() {
            sim.observer = None;
        }
        let next_sample = observer.as_ref().map(|_| Time::ZERO);
        first.parallel = Some(Box::new(Parallel {
            others: shares,
            window_end: Time::ZERO,
            windows: 0,
            observer,
            next_sample,
            last_activity: Time::ZERO,
        }));
        first
    }

    /// Whether flow `f` sends from this simulation's share (always, unsplit).
    #[inline]
    pub(super) fn sends_here(&self, f: u32) -> bool {
        match &self.shard {
            None => true,
            Some(s) => s.of_node[self.flows[f as usize].src as usize] == s.me,
        }
    }

    /// Whether flow `f`'s sender and receiver are both simulated here (always, unsplit).
    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub(crate) fn both_halves_here(&self, f: u32) -> bool {
        match &self.shard {
            None => true,
            Some(s) => {
                let flow = &self.flows[f as usize];
                s.of_node[flow.src as usize] == s.me && s.of_node[flow.dst as usize] == s.me
            }
        }
    }

    /// Whether flow `f`'s receiver is simulated here (always, unsplit).
    #[inline]
    pub(super) fn receives_here(&self, f: u32) -> bool {
        match &self.shard {
            None => true,
            Some(s) => s.of_node[self.flows[f as usize].dst as usize] == s.me,
        }
    }

    /// `give_up` of a flow whose receiver is in another share: it hears of it at the
    /// window's end (`hear_give_up`).
    #[cold]
    pub(super) fn give_up_across(&mut self, f: u32) {
        let shard = self.shard.as_mut().expect("only split runs have remote receivers");
        let to = shard.of_node[self.flows[f as usize].dst as usize];
        shard.outbox[to as usize].push(Message::GaveUp { f, at: self.events.now() });
    }

    /// Port `p` transmits packet `h` onto a link into another share.
    #[cold]
    #[inline(never)]
    pub(super) fn send_across(&mut self, p: u32, h: u32, at: Time) {
        let packet = *self.arena.get(h);
        let (stamp, uec) = (self.arena.stamp(h), self.arena.uec(h));
        let int = match &self.int {
            Some(t) if packet.has(crate::net::flags::INT) => Some(Box::new(t.stack(h))),
            _ => None,
        };
        let shard = self.shard.as_mut().expect("only split runs have remote ports");
        let to = shard.of_node[self.ports[p as usize].peer as usize];
        if packet.kind == PacketKind::Data {
            shard.exported_data_bytes += packet.size as u64;
        }
        shard.outbox[to as usize].push(Message::Packet { at, port: p, packet, stamp, uec, int });
        self.arena.free(h);
    }

    /// Schedules `event` at `at` in the share of `node` (another one).
    #[cold]
    pub(super) fn schedule_across(&mut self, node: u32, at: Time, event: Event) {
        let shard = self.shard.as_mut().expect("only split runs have remote ports");
        let to = shard.of_node[node as usize];
        shard.outbox[to as usize].push(Message::Event { at, event });
    }

    fn take_message(&mut self, m: Message) {
        match m {
            Message::Packet { at, port, packet, stamp, uec, int } => {
                let h = self.arena.alloc(packet);
                if let (Some(stack), Some(table)) = (int, self.int.as_mut()) {
                    table.set_stack(h, *stack);
                }
                self.arena.set_stamp(h, stamp);
                if self.cfg.ack_policy == AckPolicy::Uec {
                    self.arena.set_uec(h, uec);
                }
                let wire = &mut self.ports[port as usize].pipe;
                wire.push_back((at, h));
                if wire.len() == 1 {
                    self.events.schedule(at, Event::PipeArrive(port));
                }
            }
            Message::Event { at, event } => self.events.schedule(at, event),
            Message::Waited { .. } => unreachable!("taken in time order by `take_waits`"),
            Message::GaveUp { f, at } => self.hear_give_up(f, at),
        }
    }

    #[inline(never)]
    fn dispatch_in_share(&mut self, ev: Event) {
        self.dispatch(ev)
    }

    /// `release_dependents` in a split run. A waiting flow that starts at least a window
    /// after its last event (a training iteration's compute) hears of each event at the
    /// window's end, in its sender's share, wherever the event happened (`take_waits`);
    /// one that starts sooner waits only on events in its own share (`split_refusal`) and
    /// starts as in one simulation.
    pub(super) fn release_dependents_split(&mut self, f: u32, acked: bool) {
        let now = self.now();
        let mut dependencies = std::mem::take(&mut self.dependencies);
        for i in 0..dependencies.waiting_on(f, acked).len() {
            let g = dependencies.waiting_on(f, acked)[i];
            let gap = dependencies.gap(g);
            if gap >= self.window {
                let shard = self.shard.as_mut().expect("a share");
                let to = shard.of_node[self.flows[g as usize].src as usize];
                shard.outbox[to as usize].push(Message::Waited { g, at: now });
            } else if dependencies.count_one(g) {
                self.flows[g as usize].start = now + gap;
                if gap == Time::ZERO {
                    self.begin_flow(g);
                } else {
                    self.events.schedule(now + gap, Event::FlowBegins(g));
                }
            }
        }
        self.dependencies = dependencies;
    }

    /// The events this share's waiting flows heard of in the window just ended, taken in
    /// time order: a flow released by its k-th event starts its gap after that event's time,
    /// which lies after the window's end.
    fn take_waits(&mut self, mut waits: Vec<(Time, u32)>) {
        waits.sort_unstable();
        for (at, g) in waits {
            if self.dependencies.count_one(g) {
                let start = at + self.dependencies.gap(g);
                self.flows[g as usize].start = start;
                self.events.schedule(start, Event::FlowBegins(g));
            }
        }
    }

    /// Runs this share's events up to `last` (inclusive); a `Stop` may end it sooner.
    fn run_share(&mut self, last: Time) {
        while !self.done {
            if self.prefetch {
                self.prefetch_ahead();
            }
            match self.events.pop_until(last) {
                Some(ev) => {
                    invariant!(self.inv_before_event(ev));
                    self.shard.as_mut().expect("a share").last_event = self.events.now();
                    self.dispatch_in_share(ev)
                }
                None => {
                    self.events.advance_to(last);
                    break;
                }
            }
        }
    }

    /// `run_until` of a split run: every share runs on its own thread, window by window;
    /// between two sampling instants at most.
    pub(super) fn run_split(&mut self, limit: Time) -> bool {
        if self.done {
            return true;
        }
        let mut par = self.parallel.take().expect("a split run");
        loop {
            let stop_at = par.next_sample.map_or(limit, |s| s.min(limit));
            let stop = self.run_shares(&mut par, stop_at);
            par.last_activity = std::iter::once(&*self)
                .chain(par.others.iter())
                .filter_map(|s| s.shard.as_ref().map(|s| s.last_event))
                .fold(par.last_activity, Time::max);
            match (stop, par.next_sample) {
                (Halt::Over, _) => {
                    self.done = true;
                    break;
                }
                // A sample is due (as one simulation's `Sample` event, after everything
                // else at its instant); with nothing else left it is the run's last event.
                (Halt::Limit, Some(at)) if at == stop_at => self.sample_shares(&mut par, at),
                (Halt::Idle, Some(at)) if at <= limit => {
                    self.sample_shares(&mut par, at);
                    if par.next_sample.is_none() {
                        self.done = true;
                        break;
                    }
                }
                _ => break,
            }
            if stop_at >= limit {
                break;
            }
        }
        if self.done {
            // One simulation's closing sample (`sample_at_end`), at its clock's last reading.
            let end = par.last_activity;
            if let Some(o) = par.observer.as_mut().filter(|o| o.last_sample().is_some_and(|t| t < end)) {
                let view = SplitView::new(self, &par.others);
                o.sample(end, &view);
            }
            for sim in std::iter::once(&mut *self).chain(par.others.iter_mut()) {
                sim.done = true;
                invariant!(sim.inv_at_end());
            }
        }
        self.parallel = Some(par);
        self.done
    }

    /// Takes the time series' sample at `at` from every share, and decides the next one:
    /// none once nothing but sampling is left (no event in any queue, no message on its way).
    fn sample_shares(&mut self, par: &mut Parallel, at: Time) {
        let Some(o) = par.observer.as_mut() else { return };
        o.sample(at, &SplitView::new(self, &par.others));
        par.last_activity = par.last_activity.max(at);
        let shares = std::iter::once(&*self).chain(par.others.iter());
        let quiet = shares
            .into_iter()
            .all(|s| s.events.is_empty() && s.shard.as_ref().is_some_and(|d| d.outbox.iter().all(|o| o.is_empty())));
        par.next_sample = (!quiet).then(|| at + o.interval);
    }

    /// Runs every share on its own thread up to `limit` (inclusive) or the end of the run.
    fn run_shares(&mut self, par: &mut Parallel, limit: Time) -> Halt {
        let window = self.window;
        let n = 1 + par.others.len();
        let mail: Vec<Mutex<Vec<Message>>> = (0..n * n).map(|_| Mutex::new(Vec::new())).collect();
        let status: Vec<Mutex<Status>> = (0..n).map(|_| Mutex::new(Status::default())).collect();
        let barrier = SpinBarrier::new(n);
        let hold_open = par.next_sample.is_some();
        let start = if par.window_end == Time::ZERO {
            // The first window is the one holding the first event.
            let first = std::iter::once(&*self).chain(par.others.iter()).filter_map(|s| s.events.peek_time()).min();
            first.map_or(Time(window.0), |t| Time((t.0 / window.0 + 1) * window.0))
        } else {
            par.window_end
        };
        let outcome = std::thread::scope(|scope| {
            let (mail, status, barrier) = (&mail, &status, &barrier);
            let mut handles = Vec::new();
            for (i, sim) in par.others.iter_mut().enumerate() {
                handles
                    .push(scope.spawn(move || sim.windows(i + 1, n, start, limit, hold_open, mail, status, barrier)));
            }
            let mine = self.windows(0, n, start, limit, hold_open, mail, status, barrier);
            for h in handles {
                // A share that panicked has its message re-raised here, on the caller's thread.
                if let Err(e) = h.join() {
                    std::panic::resume_unwind(e);
                }
            }
            mine
        });
        par.window_end = outcome.0;
        par.windows += outcome.2;
        outcome.1
    }

    /// One share's loop: run a window, post its messages, take the others', agree on what
    /// comes next. Every share computes the same decision from the same statuses.
    /// Returns (the end of the window the run is in, why it stopped, windows run).
    #[allow(clippy::too_many_arguments)]
    fn windows(
        &mut self,
        me: usize,
        n: usize,
        mut window_end: Time,
        limit: Time,
        hold_open: bool,
        mail: &[Mutex<Vec<Message>>],
        status: &[Mutex<Status>],
        barrier: &SpinBarrier,
    ) -> (Time, Halt, u64) {
        let width = self.window.0;
        let mut windows = 0;
        loop {
            let last = Time(window_end.0 - 1).min(limit);
            self.run_share(last);
            if last < Time(window_end.0 - 1) {
                // The caller's limit falls inside the window: resume it on the next call.
                return (window_end, Halt::Limit, windows);
            }
            let shard = self.shard.as_mut().expect("a share");
            for (to, out) in shard.outbox.iter_mut().enumerate() {
                shard.sent += out.len() as u64;
                if !out.is_empty() {
                    mail[to * n + me].lock().expect("no share panicked").append(out);
                }
            }
            barrier.wait();
            windows += 1;
            let mut waits = Vec::new();
            for from in 0..n {
                let inbox = std::mem::take(&mut *mail[me * n + from].lock().expect("no share panicked"));
                for m in inbox {
                    match m {
                        Message::Waited { g, at } => waits.push((at, g)),
                        m => self.take_message(m),
                    }
                }
            }
            self.take_waits(waits);
            *status[me].lock().expect("no share panicked") =
                Status { next: self.events.peek_time(), flows_done: self.ending.is_some(), stopped: self.done };
            barrier.wait();
            // Nobody writes a status or a message again before every share has passed the
            // next window's first barrier, so these reads race with nothing.
            let all: Vec<Status> = status.iter().map(|s| *s.lock().expect("no share panicked")).collect();
            let over = all.iter().any(|s| s.stopped) || all.iter().all(|s| s.flows_done);
            let next = all.iter().filter_map(|s| s.next).min();
            match next {
                _ if over => return (window_end, Halt::Over, windows),
                Some(t) => window_end = Time((t.0 / width + 1) * width),
                None if hold_open => return (window_end, Halt::Idle, windows),
                None => return (window_end, Halt::Over, windows),
            }
        }
    }
}
