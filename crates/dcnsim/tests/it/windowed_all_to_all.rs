//! Windowed all-to-all (SMaRTT paper Fig. 14, docs/reproductions/smartt-paper.md E15: each sender has at most k flows active)
//! and the core-crossing permutation, against hand-computed times on a star of 4 hosts
//! (100 Gbps, 1 µs links, 4160 B packets, line-rate senders: nothing queues).

use crate::common;

use dcnsim::Time;

/// 100 packets of 4096 B payload + 64 B header at 100 Gbps: 0.3328 µs each.
const PKT_US: f64 = 4160.0 * 8.0 / 100e9 * 1e6;

fn scenario(window: u32) -> String {
    format!(
        r#"
        [topology]
        kind = "star"
        hosts = 4
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4160B"
        [transport]
        cc = "none"
        header = "64B"
        [[workload]]
        kind = "all_to_all"
        size = 409600
        window = {window}
        "#
    )
}

/// 64 B ACKs at 100 Gbps.
const ACK_US: f64 = 64.0 * 8.0 / 100e9 * 1e6;

/// Window 1: in ring order every step sends host i → i+1+step with distinct receivers, so
/// each flow runs alone on its links: 100 packets + one more serialisation on the second
/// hop + 2 µs of links = 35.6128 µs, plus at most the 100 ACKs of the flow the host
/// receives meanwhile, which share its uplink (+0.512 µs). Each flow of a sender starts
/// the instant its previous one is delivered.
#[test]
fn window_one_runs_each_senders_flows_back_to_back() {
    let mut s = common::sim(&scenario(1));
    s.run();
    let (lo, hi) = (101.0 * PKT_US + 2.0, 101.0 * PKT_US + 2.0 + 100.0 * ACK_US);
    assert_eq!(s.flows.len(), 12);
    let mut by_src: Vec<Vec<(f64, f64)>> = vec![Vec::new(); 4];
    for f in &s.flows {
        let fin = f.receiver.finish.expect("every flow finishes");
        by_src[f.src as usize].push((f.start.as_us_f64(), fin.as_us_f64()));
    }
    for flows in &mut by_src {
        flows.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(flows.len(), 3);
        for w in flows.windows(2) {
            assert_eq!(w[1].0, w[0].1, "the next flow starts when the previous is delivered");
        }
        for (start, fin) in flows.iter() {
            assert!((lo..=hi).contains(&(fin - start)), "alone on its path: {} not in [{lo}, {hi}]", fin - start);
        }
    }
    let end = s.end_time().as_us_f64();
    assert!((3.0 * lo..=3.0 * hi).contains(&end), "{end}");
}

/// Window 3 (= all at once): every link carries 300 packets interleaved from three flows;
/// the last one leaves the receiver's port after 300 serialisations + one on the first hop
/// + 2 µs = 102.1728 µs, the per-node bound, plus at most 300 ACKs on the uplinks
/// (+1.536 µs); below window 1's ≥ 106.84 µs.
#[test]
fn full_window_reaches_the_per_node_bound() {
    let mut s = common::sim(&scenario(3));
    s.run();
    assert!(s.flows.iter().all(|f| f.start == Time::ZERO));
    let end = s.end_time().as_us_f64();
    let bound = 301.0 * PKT_US + 2.0;
    assert!((bound..=bound + 300.0 * ACK_US).contains(&end), "{end} vs {bound}");
}

#[test]
fn window_zero_is_refused() {
    let e = common::build_err(&scenario(0));
    assert!(e.contains("workload[0].window"), "{e}");
}

/// `cross_pod`: in a k = 8 fat tree (8 pods of 4 ToRs × 4 hosts) no flow stays in its pod.
#[test]
fn cross_pod_permutation_crosses_the_core() {
    let s = common::sim(
        r#"
        [topology]
        kind = "fat_tree"
        hosts = 128
        [[workload]]
        kind = "permutation"
        size = "1MB"
        cross_pod = true
        "#,
    );
    assert_eq!(s.flows.len(), 128);
    assert!(s.flows.iter().all(|f| f.src / 16 != f.dst / 16));
}
