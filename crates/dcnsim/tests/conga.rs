//! CONGA over the rail fabric's candidate paths (spec laps.md §3.4): each flowlet takes
//! the path whose congestion, the larger of its first uplink's rate estimator and the
//! feedback its ACKs brought, is least.

mod common;
use common::rail::{edge, tx, RAIL_SWITCH};
use common::*;

/// GPU (0, 2) first sends a long DCTCP flow to GPU (5, 2) on its shortest path, which
/// keeps its edge switch's uplink to rail switch 2 busy at line rate: after 2 ms that
/// uplink's estimator is at level 7 (of 0–7; settling to full scale at 1 − 0.8^10 ≈ 0.89
/// of it, above 7/8), its uplink to the NVLink switch at 0. Then 200 one-packet CONGA flows
/// from GPU (0, 2) to GPU (1, 2), 20 µs apart (each a flowlet), all avoid the direct path
/// over rail 2 and spread over the 7 relayed ones; RPS over the same candidate paths
/// sends about 1/8 of them over rail 2. The flowlet counter counts each probe once.
#[test]
fn new_flowlets_avoid_a_congested_uplink() {
    let probes: String = (0..200).map(|i| format!("2,10,1000,{}us\n", 2000 + 20 * i)).collect();
    let run = |lb: &str| {
        let toml = format!(
            r#"
            seed = 4
            [topology]
            kind = "rail"
            hosts = 64
            link_rate = "100Gbps"
            link_latency = "1us"
            mtu = "1048B"
            [switch]
            buffer = "8MB"
            [transport]
            cc = "dctcp"
            lb = "{lb}"
            lb_paths = "shortest"
            header = "48B"
            [[workload]]
            kind = "flows"
            file = "background.csv"
            lb = "ecmp"
            [[workload]]
            kind = "flows"
            file = "probes.csv"
            "#
        );
        let mut s = sim_with_files(
            &toml,
            &[
                ("background.csv", "src,dst,size,start\n2,42,80MB,0\n"),
                ("probes.csv", &format!("src,dst,size,start\n{probes}")),
            ],
        );
        s.run_until(dcnsim::Time::from_us(7000));
        assert_eq!(s.flows[1..].iter().filter(|f| f.receiver.finish.is_some()).count(), 200);
        s
    };
    let s = run("conga");
    let direct = tx(&s, RAIL_SWITCH + 2, edge(1, 2));
    let relayed: u64 = (0..8).filter(|&r| r != 2).map(|r| tx(&s, RAIL_SWITCH + r, edge(1, r))).sum();
    assert_eq!((direct, relayed), (0, 200));
    // Each one-packet flow is one flowlet; the ECMP background is not CONGA's.
    let flowlets = s.stats().into_iter().find(|(k, _)| *k == "conga_flowlets").map(|(_, v)| v);
    assert_eq!(flowlets, Some(200.0));

    let s = run("rps");
    let direct = tx(&s, RAIL_SWITCH + 2, edge(1, 2));
    assert!((10..=50).contains(&direct), "rps sent {direct} of 200 over rail 2 (1/8 expected)");
}

/// CONGA and ConWeave choose among a fabric's explicit candidate paths, which only the
/// dragonfly and the rail fabric define.
#[test]
fn conga_and_conweave_need_a_fabric_with_path_sets() {
    for lb in ["conga", "conweave"] {
        let e = build_err(&format!(
            r#"
            [topology]
            kind = "fat_tree"
            hosts = 16
            [transport]
            lb = "{lb}"
            [[workload]]
            kind = "permutation"
            size = "100KB"
            "#
        ));
        assert!(e.contains(&format!("\"{lb}\"")) && e.contains("dragonfly"), "{e}");
    }
}
