//! `transport.ack_policy = "uec"`: uet-htsim's coalescing receiver
//! (docs/models/transport.md). It ACKs the first packet, a marked one, one carrying the sender's ACK
//! request, a duplicate and the last at once, and otherwise every `ack_ratio` packets,
//! out-of-order ones included (the ACK's bitmap reports those).

use crate::common;

fn fabric(workload: &str, extra_transport: &str) -> String {
    format!(
        r#"
        seed = 5
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 16
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4160B"
        [switch]
        buffer = "1MB"
        [transport]
        cc = "nscc"
        nscc = {{ mode = "nscc_htsim" }}
        ack_ratio = 4
        ack_policy = "uec"
        header = "64B"
        {extra_transport}
        [[workload]]
        {workload}
        "#
    )
}

/// One flow alone on an inter-pod path. Its window (NSCC's initial 1.5 BDP) is never
/// full, so no packet asks for an ACK but the last: the receiver ACKs packet 0, then every
/// fourth of packets 1..n-1, and the last, 1 + ⌈(n − 1)/4⌉ ACKs in all; and the flow
/// still finishes within one MTU's serialisation of its ideal time.
#[test]
fn a_lone_flow_is_acked_every_fourth_packet() {
    let csv = "src,dst,size,start\n0,15,1MB,0\n";
    let mut s = common::sim_with_files(&fabric("kind = \"flows\"\nfile = \"flows.csv\"", ""), &[("flows.csv", csv)]);
    s.run();
    let n = 1_000_000u64.div_ceil(4160 - 64);
    assert_eq!(s.counters.data_packets, n);
    assert_eq!(s.counters.ack_packets, 1 + (n - 1).div_ceil(4), "n = {n}");
    assert_eq!(s.flows.iter().map(|f| f.sender.retransmits).sum::<u64>(), 0);
    let t = s.flow_table();
    let (fct, ideal) = (t.f64s("fct_us")[0], t.f64s("ideal_fct_us")[0]);
    let mtu_us = 4160.0 * 8.0 / 100e9 * 1e6;
    assert!(fct - ideal <= mtu_us, "fct {fct} us, ideal {ideal} us");
}

/// A paced flow (DCQCN's rate control, no window) waits for its next slot after every
/// packet; that is not a full window, so it asks for no ACK and gets the same
/// 1 + ⌈(n − 1)/4⌉ ACKs as a window-limited one.
#[test]
fn a_paced_flow_does_not_ask_for_every_ack() {
    let csv = "src,dst,size,start\n0,15,1MB,0\n";
    let text = fabric("kind = \"flows\"\nfile = \"flows.csv\"", "").replace("cc = \"nscc\"", "cc = \"dcqcn\"");
    let mut s = common::sim_with_files(&text, &[("flows.csv", csv)]);
    s.run();
    let n = 1_000_000u64.div_ceil(4160 - 64);
    assert_eq!(s.counters.data_packets, n);
    assert_eq!(s.counters.ack_packets, 1 + (n - 1).div_ceil(4), "n = {n}");
}

/// A sprayed permutation reorders packets all the time. With buffers large enough that
/// nothing is dropped or trimmed, coalescing must not make the sender resend anything
/// (every arrival it hid is in a later ACK's bitmap or cumulative ACK), every byte
/// arrives once, and at most one ACK per 2 data packets goes back, against one per packet
/// under the TCP policy (which ACKs each out-of-order arrival at once).
#[test]
fn sprayed_permutation_coalesces_without_spurious_resends() {
    let mut acks = Vec::new();
    for policy in ["uec", "tcp"] {
        let text = fabric("kind = \"permutation\"\nsize = \"1MB\"", "lb = \"ops\"")
            .replace("ack_policy = \"uec\"", &format!("ack_policy = \"{policy}\""));
        let mut s = common::sim(&text);
        s.run();
        assert_eq!(s.counters.drops + s.counters.trims, 0, "{policy}: the test wants a lossless run");
        assert_eq!(s.flows.iter().map(|f| f.sender.retransmits).sum::<u64>(), 0, "{policy}");
        assert!(s.flows.iter().all(|f| f.receiver.finish.is_some() && f.receiver.delivered == f.size));
        let packets = s.flows.len() as u64 * 1_000_000u64.div_ceil(4160 - 64);
        assert_eq!(s.counters.data_packets, packets, "{policy}: each packet sent once");
        assert!(
            s.flows.iter().map(|f| f.receiver.reordered).sum::<u64>() > packets / 10,
            "{policy}: spraying reorders"
        );
        acks.push(s.counters.ack_packets as f64 / packets as f64);
    }
    assert!(acks[0] <= 0.5, "uec: {:.3} ACKs per data packet", acks[0]);
    assert!(acks[1] > 0.5, "tcp: {:.3} ACKs per data packet", acks[1]);
}

/// The receiver's defaults (`Scenario::ack_settings`, docs/models/transport.md): unset, a
/// scenario whose flows run NSCC in `nscc_htsim` mode gets uet-htsim's receiver, the UEC
/// policy with an ACK per 16 KiB (4 packets of 4,096 payload bytes; 5 of 4,000); every
/// other scenario RFC 5681's rules with an ACK per packet; what is given stands.
#[test]
fn nscc_htsim_mode_brings_htsim_receiver_by_default() {
    use dcnsim::transport::AckPolicy;
    let base = |transport: &str, mtu: &str| {
        let toml = format!(
            "[topology]\nkind = \"star\"\nhosts = 3\nmtu = \"{mtu}\"\n[transport]\n{transport}\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = 2\nsize = \"1MB\""
        );
        let s = common::sim(&toml);
        (s.cfg.ack_policy, s.cfg.ack_ratio)
    };
    assert_eq!(base("cc = \"nscc\"\nnscc = { mode = \"nscc_htsim\" }", "4160B"), (AckPolicy::Uec, 4));
    assert_eq!(base("cc = \"nscc\"\nnscc = { mode = \"nscc_htsim\" }", "4064B"), (AckPolicy::Uec, 5));
    assert_eq!(base("cc = \"nscc\"", "4160B"), (AckPolicy::Tcp, 1));
    assert_eq!(base("cc = \"swift\"\nnscc = { mode = \"nscc_htsim\" }", "4160B"), (AckPolicy::Tcp, 1));
    assert_eq!(base("cc = \"swift\"\nack_policy = \"uec\"", "4160B"), (AckPolicy::Uec, 4));
    assert_eq!(base("cc = \"nscc\"\nnscc = { mode = \"nscc_htsim\" }\nack_ratio = 1", "4160B"), (AckPolicy::Uec, 1));
    assert_eq!(
        base("cc = \"nscc\"\nnscc = { mode = \"nscc_htsim\" }\nack_policy = \"tcp\"", "4160B"),
        (AckPolicy::Tcp, 1)
    );
}
