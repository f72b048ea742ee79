//! LetFlow (`lb = "letflow"`, spec laps.md §3.3): a flow changes path only across a
//! sending gap longer than the flowlet timeout.

mod common;
use common::*;

fn one_flow(timeout: &str) -> dcnsim::Simulation {
    let mut s = sim(&format!(
        r#"
        seed = 2
        [topology]
        kind = "leaf_spine"
        hosts = 16
        radix = 8
        [transport]
        cc = "dctcp"
        lb = "letflow"
        letflow = {{ flowlet_timeout = "{timeout}" }}
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 15
        size = "1MB"
        "#
    ));
    s.run();
    assert_eq!(s.flows_finished(), 1);
    s
}

/// A lone flow on an idle fabric never pauses for 10 µs (its RTT is about 5 µs), so it
/// is one flowlet on one path, like ECMP. With a 1 ns timeout every packet is a flowlet
/// of its own: the NIC spaces packets by at least one serialisation time (330 ns).
#[test]
fn flowlets_follow_the_sending_gaps() {
    let s = one_flow("10us");
    assert_eq!(s.flows[0].flowlets.flowlets, 1);
    let s = one_flow("1ns");
    let sent = s.flows[0].sender.next_new as u64 + s.flows[0].sender.retransmits;
    assert_eq!(s.flows[0].flowlets.flowlets as u64, sent);
}
