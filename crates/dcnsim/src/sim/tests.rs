//! Unit tests of the world: trimming's priority queue, adaptive routing.

use crate::Time;

pub(crate) fn leaf_spine() -> super::Simulation {
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

/// docs/reproductions/smartt-paper.md, U8 (switch part): a data packet arriving at a full data
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

/// The side lane of the packet arena carries an algorithm's own word end to end: with
/// per-packet ACKs on one lossless FIFO path, the ACKs echo the data packets' words
/// unchanged and in sending order, one each; only the ACKs still in flight when the
/// receiver has everything (at most a window) are missing. A conservation check of
/// `CongestionControl::stamp`/`on_echo`.
#[test]
fn every_stamp_is_echoed_once_and_unchanged() {
    use crate::cc::{AckSample, CongestionControl, LossEvent};
    use std::sync::{Arc, Mutex};

    const MAGIC: u64 = 0x9e37_79b9_7f4a_7c15;
    struct Stamper {
        echoed: Arc<Mutex<Vec<u64>>>,
    }
    impl CongestionControl for Stamper {
        fn name(&self) -> &'static str {
            "stamper"
        }
        fn on_ack(&mut self, _: &AckSample) {}
        fn on_loss(&mut self, _: &LossEvent) {}
        fn on_timeout(&mut self, _: Time, _: u32) {}
        fn cwnd(&self) -> u64 {
            16 * 1500
        }
        fn profile(&self) -> crate::cc::TransportProfile {
            crate::cc::TransportProfile { wants_stamps: true, ..crate::cc::TransportProfile::default() }
        }

        fn stamp(&mut self, _now: Time, psn: u32) -> u64 {
            (psn as u64).wrapping_mul(MAGIC) ^ 0x5a5a
        }
        fn on_echo(&mut self, _now: Time, _cum_ack: u32, echoed: u64) {
            self.echoed.lock().unwrap().push(echoed);
        }
    }

    let toml = r#"
        [topology]
        kind = "star"
        hosts = 2
        [transport]
        cc = "none"
        ack_ratio = 1
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 1
        size = "200KB"
    "#;
    let mut s = crate::from_toml(toml, std::path::Path::new(".")).unwrap();
    let echoed = Arc::new(Mutex::new(Vec::new()));
    let packets = s.flows[0].n_pkts();
    s.flows[0].sender.cc = Box::new(Stamper { echoed: echoed.clone() });
    s.flows[0].sender.stamps = true;
    s.run();
    assert!(s.flows[0].receiver.finish.is_some(), "the flow finished");
    let got: Vec<u64> = echoed.lock().unwrap().clone();
    let want: Vec<u64> = (0..packets).map(|psn| (psn as u64).wrapping_mul(MAGIC) ^ 0x5a5a).collect();
    assert_eq!(s.counters.data_packets, packets as u64, "no retransmissions");
    assert!(got.len() + 16 >= packets as usize, "{} echoes of {} packets", got.len(), packets);
    assert_eq!(got[..], want[..got.len()], "each ACK echoes its data packet's word, in order");
}
