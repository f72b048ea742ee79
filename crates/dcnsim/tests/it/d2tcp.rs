//! D2TCP (Vamanan et al., SIGCOMM 2012; docs/models/dctcp.md): of two flows sharing one
//! 100 Gbps bottleneck, the one with the nearer deadline (higher priority: deadline factor
//! 1.5 against 12) cuts less on the same marks, so it carries more; plain DCTCP, which has
//! no deadlines, splits the link evenly. Both are conservation-checked against the link.

use crate::common;

fn two_flows(cc: &str) -> (f64, f64) {
    let toml = format!(
        r#"
        seed = 3
        duration = "2ms"
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "1500B"
        [switch]
        buffer = "4MB"
        ecn = {{ kmin = "20KB", kmax = "80KB", pmax = 0.2, on = "enqueue" }}
        [transport]
        cc = "{cc}"
        header = "48B"
        initial_window = "bdp"
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 0
        size = "40MB"
        priority = 2
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 0
        size = "40MB"
        priority = 1
        "#
    );
    let mut s = common::sim(&toml);
    assert_ne!(s.flows[0].src, s.flows[1].src, "two different senders");
    s.run();
    let gbps = |i: usize| s.flows[i].receiver.delivered as f64 * 8.0 / 2e-3 / 1e9;
    let (hi, lo) = (gbps(0), gbps(1));
    // Both fit in the receiver's link (payload share of 100 Gbps).
    assert!(hi + lo <= 100.0 * 1452.0 / 1500.0 + 0.5, "{hi} + {lo}");
    (hi, lo)
}

#[test]
fn the_nearer_deadline_takes_the_larger_share() {
    let (hi, lo) = two_flows("d2tcp");
    eprintln!("D2TCP: near deadline {hi:.1} Gbps, far {lo:.1} Gbps");
    assert!(hi > 1.2 * lo, "near {hi:.1} vs far {lo:.1}");
    let (a, b) = two_flows("dctcp");
    eprintln!("DCTCP: {a:.1} / {b:.1} Gbps");
    assert!((a / b - 1.0).abs() < 0.15, "DCTCP without deadlines: {a:.1} vs {b:.1}");
}
