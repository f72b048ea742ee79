//! Issue 10, "invariants": the simulator's own bookkeeping checked while it runs, in
//! debug builds and in every test run (`make test` turns on the `invariants` feature in
//! its release build), compiled to nothing otherwise so the release hot path is the same
//! instructions as without this module.
//!
//! What is checked, and where:
//! - **Byte conservation.** Every data byte created (`PacketArena::alloc`) is delivered to
//!   its receiver (`Simulation::deliver`), dropped (`discard`), cut off by trimming
//!   (`trim`), or in flight. The difference "created − delivered − dropped − trimmed"
//!   is the in-flight count; it must never be negative (checked before every event), and
//!   every so often it is recounted from scratch: the data bytes of every packet handle
//!   in every port's queues and on every wire must equal it, and the number of those
//!   handles must equal the arena's live packets (nothing leaked, nothing lost track of).
//!   The recount costs O(ports + packets in flight), so it runs after a number of events
//!   proportional to its last cost (at most ~1/8 extra work) and at the end of the run:
//!   "at any instant" is the cheap identity every event, the full one amortised.
//! - **Queue bounds.** A queue never holds more than its buffer (the port's buffer, a DRR
//!   class's share): at every enqueue (`enqueue`), and at each recount for every port,
//!   where a port's byte occupancy must also equal the bytes of the packets it holds.
//!   Lossless (PFC) packets are exempt: their room is the ingress headroom, not the
//!   output buffer (`net/pfc/mod.rs`).
//! - **Time.** Simulated time never goes backwards: each popped event is at or after the
//!   previous one.
//! - **PFC.** A packet of a lossless class is never dropped (`discard`).
//! - **Flow completion.** A flow completes (the receiver's `finish`) only when every one
//!   of its bytes arrived exactly once (`delivered == size`), and a sender never sees
//!   all its data acknowledged before the receiver has it all (`receive_ack`).
//!
//! A violation panics naming the invariant, the event after which it was found, the
//! port/node and flow concerned, and the simulated time.

#[cfg(any(debug_assertions, feature = "invariants"))]
use crate::{engine::Event, net::PacketKind, sim::Simulation, units::Time};

/// Expands to its statements only where invariants are checked.
macro_rules! invariant {
    ($($t:tt)*) => {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        {
            $($t)*
        }
    };
}
pub(crate) use invariant;

#[cfg(any(debug_assertions, feature = "invariants"))]
/// Fewest events between two full recounts (small runs recount often).
const MIN_RECOUNT_GAP: u64 = 64;
#[cfg(any(debug_assertions, feature = "invariants"))]
/// A recount that visited `w` ports and packets waits `w × this` events for the next.
const RECOUNT_GAP_PER_ITEM: u64 = 8;

#[cfg(any(debug_assertions, feature = "invariants"))]
/// The ledger of data bytes by fate, and where the run is.
#[derive(Clone, Debug, Default)]
pub struct Checker {
    pub delivered: u64,
    pub dropped: u64,
    pub trimmed: u64,
    last_time: Time,
    /// The event being (or last) handled, for messages.
    event: Option<Event>,
    events_to_recount: u64,
}

#[cfg(any(debug_assertions, feature = "invariants"))]
impl Simulation {
    fn violation(&self, what: &str, detail: std::fmt::Arguments) -> ! {
        panic!(
            "invariant violated: {what}: {detail} (at t = {} ps, during or after event #{} {:?})",
            self.now().0,
            self.events_processed(),
            self.inv.event
        );
    }

    /// Data bytes in flight by the ledger; a negative count is a violation.
    pub(crate) fn inv_in_flight(&self) -> u64 {
        let i = &self.inv;
        let exported = self.shard.as_ref().map_or(0, |s| s.exported_data_bytes);
        let gone = i.delivered as u128 + i.dropped as u128 + i.trimmed as u128 + exported as u128;
        let created = self.arena.data_bytes_created();
        if gone > created as u128 {
            self.violation(
                "in-flight data bytes never negative",
                format_args!(
                    "created {created} < delivered {} + dropped {} + trimmed {}",
                    i.delivered, i.dropped, i.trimmed
                ),
            );
        }
        (created as u128 - gone) as u64
    }

    /// Before event `ev` (just popped, so `now` is its time): the state the previous event
    /// left is checked, then `ev` becomes the event named in messages.
    pub(crate) fn inv_before_event(&mut self, ev: Event) {
        let now = self.now();
        if now < self.inv.last_time {
            self.violation(
                "time never goes backwards",
                format_args!("event {ev:?} at {} ps after one at {} ps", now.0, self.inv.last_time.0),
            );
        }
        self.inv.last_time = now;
        self.inv_in_flight();
        if self.inv.events_to_recount == 0 {
            let visited = self.inv_recount();
            self.inv.events_to_recount = (visited * RECOUNT_GAP_PER_ITEM).max(MIN_RECOUNT_GAP);
        }
        self.inv.events_to_recount -= 1;
        self.inv.event = Some(ev);
    }

    /// The full check: every port's queues and wire, every flow. Returns the number of
    /// ports, packets and flows visited.
    pub(crate) fn inv_recount(&self) -> u64 {
        let pfc_data_lossless = self.pfc.as_ref().is_some_and(|f| f.is_lossless(crate::net::pfc::DATA));
        let (mut packets, mut data_bytes) = (0u64, 0u64);
        for (p, port) in self.ports.iter().enumerate() {
            let mut count = |h: u32| {
                let pkt = self.arena.get(h);
                packets += 1;
                if pkt.kind == PacketKind::Data {
                    data_bytes += pkt.size as u64;
                }
                pkt.size as u64
            };
            let mut queued: u64 = port.queue.iter().map(|&h| count(h)).sum();
            port.ctrl.iter().for_each(|&h| {
                count(h);
            });
            port.pipe.iter().for_each(|&(_, h)| {
                count(h);
            });
            if let Some(d) = &port.drr {
                for c in 0..2 {
                    let bytes: u64 = d.queues[c].iter().map(|&h| count(h)).sum();
                    if bytes != d.bytes[c] || (bytes > d.class_buffer[c] && !pfc_data_lossless) {
                        self.violation(
                            "a queue never exceeds its buffer",
                            format_args!(
                                "port {p} (node {} -> {}) DRR class {c} holds {bytes} bytes, counts {}, share {}",
                                port.node, port.peer, d.bytes[c], d.class_buffer[c]
                            ),
                        );
                    }
                    queued += bytes;
                }
            }
            if let Some(pq) = &port.prio {
                queued += pq.handles().map(&mut count).sum::<u64>();
            }
            if queued != port.queued_bytes || (queued > port.buffer && !pfc_data_lossless) {
                self.violation(
                    "a queue never exceeds its buffer",
                    format_args!(
                        "port {p} (node {} -> {}) holds {queued} bytes, counts {}, buffer {}",
                        port.node, port.peer, port.queued_bytes, port.buffer
                    ),
                );
            }
        }
        packets += self.held_replies;
        let live = self.arena.live() as u64;
        let in_flight = self.inv_in_flight();
        if packets != live || data_bytes != in_flight {
            self.violation(
                "every data byte is delivered, dropped, trimmed or in flight",
                format_args!(
                    "queues and wires hold {packets} packets with {data_bytes} data bytes; the arena has {live} live, \
                     the ledger {in_flight} bytes in flight (created {}, delivered {}, dropped {}, trimmed {})",
                    self.arena.data_bytes_created(),
                    self.inv.delivered,
                    self.inv.dropped,
                    self.inv.trimmed
                ),
            );
        }
        for f in 0..self.flows.len() as u32 {
            self.inv_flow(f);
        }
        self.ports.len() as u64 + packets + self.flows.len() as u64
    }

    /// Flow `f`'s completion state is consistent: finished iff every byte delivered once;
    /// the sender done only once the receiver finished.
    pub(crate) fn inv_flow(&self, f: u32) {
        let flow = &self.flows[f as usize];
        let r = &flow.receiver;
        let infinite = flow.is_infinite();
        let bad = if r.delivered > flow.size && !infinite {
            Some("more bytes delivered than the flow has")
        } else if r.finish.is_some() && r.delivered != flow.size {
            Some("finished without every byte delivered")
        } else if flow.sender_done() && r.finish.is_none() && self.both_halves_here(f) {
            Some("the sender saw every byte acknowledged before the receiver had them all")
        } else {
            None
        };
        if let Some(why) = bad {
            self.violation(
                "a flow completes only when all its bytes are acknowledged",
                format_args!(
                    "flow {f} ({} -> {}): {why}: delivered {} of {} bytes, {} of {} packets acknowledged, finish {:?}",
                    flow.src,
                    flow.dst,
                    r.delivered,
                    flow.size,
                    flow.sender.cum_acked,
                    flow.n_pkts(),
                    r.finish
                ),
            );
        }
    }

    /// Packet `h` is dropped at port `p`: counted, and never a lossless one.
    /// `link_dead`: a failed link lost it (`fault.rs`), which no class is spared.
    pub(crate) fn inv_dropped(&mut self, p: u32, h: u32, link_dead: bool) {
        let pkt = *self.arena.get(h);
        if !link_dead && self.pfc.as_ref().is_some_and(|f| f.holds(h)) {
            self.violation(
                "PFC never drops a lossless class",
                format_args!(
                    "port {p} (node {} -> {}) dropped a lossless {:?} packet of flow {} psn {}",
                    self.ports[p as usize].node, self.ports[p as usize].peer, pkt.kind, pkt.flow, pkt.psn
                ),
            );
        }
        if pkt.kind == PacketKind::Data {
            self.inv.dropped += pkt.size as u64;
        }
    }

    pub(crate) fn inv_delivered(&mut self, h: u32) {
        let pkt = self.arena.get(h);
        if pkt.kind == PacketKind::Data {
            self.inv.delivered += pkt.size as u64;
        }
    }

    pub(crate) fn inv_trimmed(&mut self, cut: u64) {
        self.inv.trimmed += cut;
    }

    /// Packet `h` was just queued at port `p` (DRR class `class`); unless it is lossless,
    /// the queue it joined is within its buffer.
    pub(crate) fn inv_queued(&self, p: u32, h: u32, class: usize, lossless: bool) {
        let port = &self.ports[p as usize];
        let (held, capacity) = match &port.drr {
            Some(d) => (d.bytes[class], d.class_buffer[class]),
            None => (port.queued_bytes, port.buffer),
        };
        if held > capacity && !lossless {
            let pkt = self.arena.get(h);
            self.violation(
                "a queue never exceeds its buffer",
                format_args!(
                    "port {p} (node {} -> {}) holds {held} bytes > {capacity} after queueing flow {} psn {}",
                    port.node, port.peer, pkt.flow, pkt.psn
                ),
            );
        }
    }

    /// The run ended: the last full check.
    pub(crate) fn inv_at_end(&self) {
        self.inv_in_flight();
        self.inv_recount();
    }
}

#[cfg(all(test, any(debug_assertions, feature = "invariants")))]
mod tests {
    //! Each invariant fires on deliberately corrupted state, so none of them is vacuous.
    use crate::net::{Packet, PacketKind};
    use crate::Time;

    fn star(extra: &str) -> crate::Simulation {
        let toml = format!(
            r#"
            [topology]
            kind = "star"
            hosts = 4
            {extra}
            [[workload]]
            kind = "incast"
            receiver = 0
            senders = 3
            size = "200KB"
            "#
        );
        crate::from_toml(&toml, std::path::Path::new(".")).unwrap()
    }

    fn data(flow: u32, size: u32) -> Packet {
        Packet::test_data(flow, 0, size)
    }

    /// An uncorrupted run passes every check, at the end too.
    #[test]
    fn a_clean_run_passes() {
        let mut s = star("");
        s.run();
        assert_eq!(s.flows_finished(), 3);
        assert!(s.inv.delivered >= 3 * 200_000);
        s.inv_at_end();
    }

    #[test]
    #[should_panic(expected = "every data byte is delivered, dropped, trimmed or in flight")]
    fn a_packet_that_vanishes_breaks_conservation() {
        let mut s = star("");
        s.run_until(Time::from_us(5));
        // A data packet taken off a wire without being delivered or dropped.
        let is_data = |s: &crate::Simulation, h: u32| s.arena.get(h).kind == PacketKind::Data;
        let p = s.ports.iter().position(|p| p.pipe.back().is_some_and(|&(_, h)| is_data(&s, h))).unwrap();
        let (_, h) = s.ports[p].pipe.pop_back().unwrap();
        s.arena.free(h);
        s.inv_recount();
    }

    #[test]
    #[should_panic(expected = "every data byte is delivered, dropped, trimmed or in flight")]
    fn a_leaked_packet_breaks_conservation() {
        let mut s = star("");
        s.run_until(Time::from_us(5));
        s.arena.alloc(data(0, 1000));
        s.run();
    }

    #[test]
    #[should_panic(expected = "in-flight data bytes never negative")]
    fn a_double_delivery_makes_in_flight_negative() {
        let mut s = star("");
        s.run();
        s.inv.delivered += 1;
        s.inv_in_flight();
    }

    #[test]
    #[should_panic(expected = "time never goes backwards")]
    fn time_going_backwards_is_caught() {
        let mut s = star("");
        s.run_until(Time::from_us(5));
        s.inv.last_time = Time::from_us(100);
        s.run();
    }

    #[test]
    #[should_panic(expected = "a queue never exceeds its buffer")]
    fn a_queue_over_its_buffer_is_caught_at_enqueue() {
        let mut s = star("");
        let p = s.routing.host_down_port[0];
        s.ports[p as usize].busy_until = Time::from_us(1);
        s.ports[p as usize].buffer = 500;
        // Past the admission test (which read the real buffer) the occupancy is checked.
        s.ports[p as usize].queued_bytes = 1000;
        let h = s.arena.alloc(data(0, 1000));
        s.inv_queued(p, h, 0, false);
    }

    #[test]
    #[should_panic(expected = "a queue never exceeds its buffer")]
    fn an_occupancy_that_disagrees_with_the_queue_is_caught() {
        let mut s = star("");
        s.run_until(Time::from_us(3));
        let p = s.ports.iter().position(|p| !p.queue.is_empty()).expect("the incast queues");
        s.ports[p].queued_bytes += 1;
        s.inv_recount();
    }

    #[test]
    #[should_panic(expected = "PFC never drops a lossless class")]
    fn a_lossless_drop_is_caught() {
        let mut s = star("[switch.pfc]\nenabled = true\n[transport]\ncc = \"none\"");
        s.run_until(Time::from_us(5));
        let pfc = s.pfc.as_ref().unwrap();
        let p = s.ports.iter().position(|p| p.queue.iter().any(|&h| pfc.holds(h))).expect("a lossless packet");
        let h = s.ports[p].queue.pop_back().unwrap();
        s.inv_dropped(p as u32, h, false);
    }

    #[test]
    #[should_panic(expected = "finished without every byte delivered")]
    fn finishing_early_is_caught() {
        let mut s = star("");
        s.run_until(Time::from_us(5));
        s.flows[1].receiver.finish = Some(s.now());
        s.inv_flow(1);
    }

    #[test]
    #[should_panic(expected = "the sender saw every byte acknowledged")]
    fn acknowledging_undelivered_bytes_is_caught() {
        let mut s = star("");
        s.run_until(Time::from_us(5));
        let n = s.flows[1].n_pkts();
        s.flows[1].sender.cum_acked = n;
        s.inv_flow(1);
    }
}
