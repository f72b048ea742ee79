//! A flow alone in the fabric, with an initial window of at least one BDP, must finish in
//! its computed ideal FCT (to within one MTU serialisation time): this pins the
//! zero-queueing model that every slowdown figure divides by. The ideal is recomputed here
//! from first principles (bytes over the bottleneck plus store-and-forward of one packet
//! per extra hop plus propagation), not read from the simulator.

use crate::common;

/// A 128-host 3-tier fat tree of 100 Gbps, 500 ns links and 200 ns switches, DCTCP
/// starting at one BDP, the flows of `flows.csv`, and `extra` TOML lines.
fn fabric(extra: &str) -> String {
    format!(
        r#"
        seed = 3
        {extra}
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 128
        link_rate = "100Gbps"
        link_latency = "500ns"
        switch_latency = "200ns"
        mtu = "4KiB"
        [transport]
        cc = "dctcp"
        initial_window = "bdp"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#
    )
}

fn run_pair(src: u32, dst: u32, size: &str, expect_hops: usize) {
    let toml = fabric("");
    let csv = format!("src,dst,size,start\n{src},{dst},{size},0\n");
    let mut s = common::sim_with_files(&toml, &[("flows.csv", &csv)]);
    s.run();
    let t = s.flow_table();
    let fct = t.f64s("fct_us")[0];
    let ideal = t.f64s("ideal_fct_us")[0];

    // First principles: n packets of 4096 B wire (4032 B payload + 64 B header), links at
    // 100 Gbps (80 ps per byte), each hop = 500 ns cable + 200 ns switch when it enters a switch.
    let bytes = dcnsim::units::parse_bytes(size).unwrap();
    let payload = 4096u64 - 64;
    let n = bytes.div_ceil(payload);
    let wire_total = bytes + n * 64;
    let first_wire = if n > 1 { 4096 } else { wire_total };
    let links = expect_hops as f64;
    let ser = |b: u64| b as f64 * 8.0 / 100e9 * 1e6; // us
                                                     // All bytes through the (equal-rate) bottleneck, one packet store-and-forwarded at each
                                                     // further link, 500 ns per cable and 200 ns per switch traversed.
    let analytic = ser(wire_total) + (links - 1.0) * ser(first_wire) + links * 0.5 + (links - 1.0) * 0.2;
    let mtu_ser = ser(4096);
    assert!((ideal - analytic).abs() <= mtu_ser, "ideal {ideal} vs first-principles {analytic}");
    assert!(fct >= ideal - 1e-6, "faster than ideal: {fct} < {ideal}");
    assert!(fct - ideal <= mtu_ser, "{src}->{dst} {size}: fct {fct} us, ideal {ideal} us (limit +{mtu_ser} us)");
}

// Radix 8: 4 hosts per ToR, 16 hosts per pod.
#[test]
fn intra_rack_single_flow_meets_ideal() {
    run_pair(0, 1, "2MB", 2);
    run_pair(0, 1, "1000", 2);
}

#[test]
fn intra_pod_single_flow_meets_ideal() {
    run_pair(0, 5, "2MB", 4);
    run_pair(3, 14, "777777", 4);
}

#[test]
fn inter_pod_single_flow_meets_ideal() {
    run_pair(0, 100, "2MB", 6);
    run_pair(17, 127, "10MB", 6);
}

/// `output.fct = "sender"` stamps completion when the ACK of the last byte reaches the
/// sender, as htsim does. Alone on an inter-pod path (6 links, 5 switches), that ACK is a
/// 64-byte header crossing the same 6 links back: the sender's FCT exceeds the receiver's
/// by 6 × (500 ns + 64 B at 100 Gbps) + 5 × 200 ns = 4,003.84 ns exactly.
#[test]
fn fct_at_the_sender_adds_the_last_ack_s_return() {
    let fct = |at: &str| {
        let toml = fabric(&format!("[output]\nfct = \"{at}\""));
        let mut s = common::sim_with_files(&toml, &[("flows.csv", "src,dst,size,start\n0,127,2MB,0\n")]);
        s.run();
        let t = s.flow_table();
        (t.f64s("fct_us")[0], s.end_time().as_us_f64())
    };
    let (receiver, end_r) = fct("receiver");
    let (sender, end_s) = fct("sender");
    let back_us = 6.0 * (0.5 + 64.0 * 8.0 / 100e9 * 1e6) + 5.0 * 0.2;
    assert!((sender - receiver - back_us).abs() < 1e-6, "{sender} - {receiver} vs {back_us}");
    assert!(end_s >= end_r + back_us - 1e-6, "the run lasts until the sender has heard: {end_s} vs {end_r}");
}
