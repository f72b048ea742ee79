//! `transport.nic_scheduler`: which of a host's ready flows its NIC serves next. Two flows
//! leave one host for two different receivers of a star, so the sender's NIC is the only
//! link they share; without congestion control each sends at line rate when served.

use crate::common;

/// FCTs (µs) of a 1 MB flow at level 2 and one at level 1, both from host 0 at time 0.
fn fcts(scheduler: &str) -> (f64, f64) {
    let toml = format!(
        r#"
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4096B"
        [transport]
        cc = "none"
        header = "64B"
        nic_scheduler = "{scheduler}"
        [[workload]]
        kind = "flows"
        file = "high.csv"
        priority = 2
        [[workload]]
        kind = "flows"
        file = "low.csv"
        priority = 1
        "#
    );
    let high = "src,dst,size,start\n0,1,1MB,0us\n";
    let low = "src,dst,size,start\n0,2,1MB,0us\n";
    let mut s = common::sim_with_files(&toml, &[("high.csv", high), ("low.csv", low)]);
    s.run();
    let fct = |i: usize| common::us(s.flows[i].receiver.finish.expect("finished") - s.flows[i].start);
    (fct(0), fct(1))
}

/// Time to put one flow's packets on a 100 Gb/s wire, computed outside the simulator:
/// 1,000,000 B in 4032-byte payloads is 249 packets (248 full, one of 64 B payload), each
/// with a 64 B header.
fn one_flow_on_the_wire_us() -> f64 {
    let packets = 1_000_000f64 / 4032.0;
    let wire_bytes = 1_000_000.0 + packets.ceil() * 64.0;
    wire_bytes * 8.0 / 100e9 * 1e6
}

#[test]
fn a_priority_nic_sends_the_higher_level_flow_first() {
    let t = one_flow_on_the_wire_us(); // 80.8 µs
    let (high, low) = fcts("priority");
    // The level-2 flow has the NIC to itself: its own bytes, plus the path's two link
    // latencies and one packet's store-and-forward at the switch (a few µs).
    assert!(high > t && high < t + 4.0, "high {high} µs, wire time {t} µs");
    // The level-1 flow waits for all of it, then sends its own.
    assert!(low > 2.0 * t && low < 2.0 * t + 4.0, "low {low} µs, wire time {t} µs");
}

#[test]
fn a_round_robin_nic_shares_its_line_between_levels() {
    let t = one_flow_on_the_wire_us();
    let (high, low) = fcts("round_robin");
    // Packets alternate, so both flows finish at about twice one flow's wire time.
    for fct in [high, low] {
        assert!(fct > 2.0 * t - 1.0 && fct < 2.0 * t + 4.0, "{fct} µs, wire time {t} µs");
    }
}

#[test]
fn an_unknown_nic_scheduler_is_refused_with_the_field_name() {
    let e = common::build_err(
        r#"
        [topology]
        kind = "star"
        hosts = 2
        [transport]
        nic_scheduler = "fair"
        [[workload]]
        kind = "permutation"
        size = "1MB"
        "#,
    );
    assert!(e.contains("nic_scheduler") && e.contains("round_robin") && e.contains("priority"), "{e}");
}
