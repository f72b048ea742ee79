//! HPCC on one bottleneck (Li et al., SIGCOMM 2019, §3.3; the PrioPlus paper's baseline,
//! docs/models/hpcc.md). The PrioPlus micro-benchmarks' reference star: 100 Gbps, 3 µs links (base RTT
//! ≈ 12 µs), 1 KB packets, per-packet ACKs, no ECN.
//!
//! HPCC's fixed point (§3.3): each flow's window settles where the multiplicative step
//! and W_AI balance, `W·(1 − η/U) = W_AI`, so the bottleneck's normalised inflight is
//! U = η / (1 − W_AI/W) with W = η·BDP/N; for the paper's η = 0.95 and W_AI = 0.05 %
//! of a BDP that is 0.951 for N = 2 and 0.958 for N = 16. U < 1 leaves no standing queue:
//! the link runs at ≈ η and the queue stays near empty, HPCC's "near-zero queue" claim.
//! The windows are equal at the fixed point, so equal-RTT flows share evenly.

use crate::common;
use crate::common::LINE_100G as LINE;

use dcnsim::{Simulation, Time};

fn star(n: u32, extra: &str) -> Simulation {
    common::sim(&format!(
        r#"
        {star}
        [transport]
        cc = "hpcc"
        rto_min = "5ms"
        {extra}
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = {n}
        size = "infinite"
        "#,
        star = common::reference_star("seed = 3\nduration = \"6ms\"", n + 1, "20MB"),
    ))
}

/// Over [3, 6] ms: utilisation within 2 points of the fixed point's U (above), a mean
/// queue below 1 µs of the link (a tenth of the base RTT), Jain's index ≥ 0.99.
#[test]
fn hpcc_runs_the_bottleneck_at_eta_with_no_standing_queue_and_shares_it_evenly() {
    for n in [2u32, 16] {
        let mut s = star(n, "");
        let warm = Time::from_ms(3);
        let port = s.routing.host_down_port[0] as usize;
        s.run_until(warm);
        s.ports[port].reset_stats(warm);
        let before: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        s.run();
        let end = s.now();
        let p = &s.ports[port];
        let q_us = p.mean_queue_since(end, warm, 0) / LINE;
        let util = p.stats.tx_bytes as f64 / (LINE * (end - warm).as_us_f64());
        let goodputs: Vec<f64> = s.flows.iter().zip(&before).map(|(f, b)| (f.receiver.delivered - b) as f64).collect();
        let jain = common::jain(&goodputs);
        let bdp = LINE * s.flows[0].base_rtt.as_us_f64();
        let w = 0.95 * bdp / n as f64;
        let u_star = 0.95 / (1.0 - 0.0005 * bdp / w);
        eprintln!("N={n}: util {util:.4} (fixed point {u_star:.4}), mean queue {q_us:.3} us, jain {jain:.4}");
        assert!((util - u_star).abs() <= 0.02, "N = {n}: utilisation {util} vs {u_star}");
        assert!(q_us < 1.0, "N = {n}: mean queue {q_us} us");
        assert!(jain >= 0.99, "N = {n}: Jain {jain}");
    }
}

/// η is the knob: at η = 0.8 the link runs at ≈ 0.8 (the same fixed point, N = 4).
#[test]
fn the_target_utilization_sets_the_link_load() {
    let mut s = star(4, "[transport.hpcc]\ntarget_utilization = 0.8");
    let warm = Time::from_ms(3);
    let port = s.routing.host_down_port[0] as usize;
    s.run_until(warm);
    s.ports[port].reset_stats(warm);
    s.run();
    let end = s.now();
    let util = s.ports[port].stats.tx_bytes as f64 / (LINE * (end - warm).as_us_f64());
    let bdp = LINE * s.flows[0].base_rtt.as_us_f64();
    // W_AI = BDP·(1 − η)/100; W = η·BDP/4.
    let u_star = 0.8 / (1.0 - (0.2 / 100.0) * bdp / (0.8 * bdp / 4.0));
    eprintln!("eta 0.8: util {util:.4} (fixed point {u_star:.4})");
    assert!((util - u_star).abs() <= 0.02, "utilisation {util} vs {u_star}");
}

/// A 2-tier fat tree: the telemetry an ACK brings has one record per switch egress port
/// of the data's path (leaf up, spine down, leaf down: 3 for a flow between racks; 1
/// within a rack), and a bad parameter is refused naming its field.
#[test]
fn telemetry_has_one_record_per_switch_and_bad_parameters_are_named() {
    let toml = |extra: &str| {
        format!(
            r#"
            seed = 1
            [topology]
            kind = "fat_tree"
            tiers = 2
            hosts = 16
            link_rate = "100Gbps"
            [transport]
            cc = "hpcc"
            {extra}
            [[workload]]
            kind = "flows"
            file = "flows.csv"
            "#
        )
    };
    let flows = [("flows.csv", "src,dst,size,start\n0,1,200KB,0\n2,7,200KB,0\n")];
    let mut s = common::sim_with_files(&toml(""), &flows);
    assert_eq!(s.routing.host_edge[0], s.routing.host_edge[1]);
    assert_ne!(s.routing.host_edge[2], s.routing.host_edge[7]);
    s.run();
    assert!(s.flows.iter().all(|f| f.receiver.finish.is_some()));
    let hops: Vec<f64> = s.flows.iter().map(|f| common::observed(f, "int_hops")).collect();
    assert_eq!(hops, vec![1.0, 3.0]);
    let e = match common::build_with_files(&toml("[transport.hpcc]\ntarget_utilization = 1.5"), &flows) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("target_utilization = 1.5 accepted"),
    };
    assert!(e.contains("transport.hpcc.target_utilization") && e.contains("allowed"), "{e}");
}
