//! Unit tests of the world: trimming's priority queue, adaptive routing.

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

/// docs/reproductions/smartt.md, U8 (switch part): a data packet arriving at a full data
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
