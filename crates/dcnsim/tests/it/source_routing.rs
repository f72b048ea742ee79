//! Source-routed random packet spraying (`lb = "rps"`) over the LAPS fabrics' explicit
//! candidate paths (LAPS paper §2 and §4.1; docs/models/ecmp.md): data follows the path
//! the sender drew, the receiver's ACK follows the same path reversed (LAPS paper §3.5),
//! and on a topology without a path construction of its own it sprays over Yen's shortest
//! paths.

use crate::common;
use crate::common::rail::{edge, tx, RAIL_SWITCH};
use crate::common::*;

/// Rail fabric of the LAPS artefact (8 servers × 8 GPUs, 200G GPU links, 100G fabric),
/// buffers large enough that nothing is dropped, one flow from GPU (0, 2) to GPU (1, 2)
/// (and one packet from server 2 to server 3 at 5 ms).
fn rail_flow(packets: u32) -> dcnsim::Simulation {
    // A small flow between two other servers, started well after the first ends, keeps
    // the run going until the first flow's last ACKs are home.
    let flows = format!("src,dst,size,start\n2,10,{},0\n16,24,1000,5ms\n", packets * 1000);
    let preamble = common::rail::rail_preamble(3);
    sim_with_files(
        &format!(
            r#"
        {preamble}
        [switch]
        buffer = "16MB"
        ecn = {{ kmin = "200KB", kmax = "800KB" }}
        [transport]
        cc = "dctcp"
        lb = "rps"
        header = "48B"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#
        ),
        &[("flows.csv", &flows)],
    )
}

/// Each packet draws one of the 8 rail paths uniformly: the data packets each rail
/// switch forwards pass a χ² test against the uniform split (7 degrees of freedom,
/// critical value 24.32 at p = 0.001); and every packet arrives exactly once.
#[test]
fn rps_spreads_data_uniformly_over_the_candidate_paths() {
    let packets = 4000;
    let mut s = rail_flow(packets);
    s.run();
    assert_eq!(s.stats().iter().find(|(k, _)| *k == "drops").unwrap().1, 0.0);
    assert_eq!(s.flows_finished(), 2);
    let per_rail: Vec<u64> = (0..8).map(|r| tx(&s, RAIL_SWITCH + r, edge(1, r))).collect();
    let total: u64 = per_rail.iter().sum();
    assert_eq!(total, s.flows[0].sender.next_new as u64 + s.flows[0].sender.retransmits, "{per_rail:?}");
    let expected = total as f64 / 8.0;
    let chi2: f64 = per_rail.iter().map(|&n| (n as f64 - expected).powi(2) / expected).sum();
    assert!(chi2 < 24.32, "chi2 = {chi2:.1} over {per_rail:?}");
}

/// An ACK retraces its data packet's path: with one ACK per data packet and no loss, the
/// ACKs each rail switch carries back towards the sender's server equal the data packets
/// it carried forward (a conservation law per path), and the sender's NVLink switch
/// relays the ACKs of the 7 off-rail paths.
#[test]
fn acks_take_the_reverse_of_their_data_path() {
    let mut s = rail_flow(2000);
    s.run();
    for r in 0..8 {
        let data = tx(&s, RAIL_SWITCH + r, edge(1, r));
        let acks = tx(&s, RAIL_SWITCH + r, edge(0, r));
        assert_eq!(acks, data, "rail {r}");
    }
    let off_rail_acks: u64 = (0..8).filter(|&r| r != 2).map(|r| tx(&s, RAIL_SWITCH + r, edge(0, r))).sum();
    let nvlink0 = 64 + 8;
    assert_eq!(tx(&s, nvlink0, edge(0, 2)), off_rail_acks);
}

/// Elsewhere RPS sprays over Yen's shortest paths (`transport.candidate_paths`, issue 28).
/// k = 4 three-tier fat tree, one 4 MB flow from host 0 (pod 0) to host 4 (pod 1): its 4
/// candidate paths cross the 4 cores (2 per aggregation switch), so each core's link down
/// to pod 1 carries a binomial quarter of the flow's data packets (about 980: a quarter
/// ± 4 standard deviations is 0.19–0.31), and only data goes that way (ACKs go up).
#[test]
fn rps_sprays_over_the_shortest_paths_of_a_fat_tree() {
    let mut s = sim_with_files(
        r#"
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 16
        [transport]
        lb = "rps"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#,
        &[("flows.csv", "src,dst,size,start\n0,4,4MB,0\n")],
    );
    s.run();
    assert_eq!(s.flows_finished(), 1);
    // Hosts 0-15, ToRs 16-23, aggregation switches 24-31 (pod p: 24 + 2p, 25 + 2p), cores 32-35.
    let down: Vec<u64> = (32..36)
        .map(|core| {
            s.ports
                .iter()
                .filter(|p| p.node == core && (p.peer == 26 || p.peer == 27))
                .map(|p| p.stats.tx_packets)
                .sum()
        })
        .collect();
    let total: u64 = down.iter().sum();
    assert!(total >= 4_000_000 / 4096, "every data packet crosses a core: {down:?}");
    for (c, &n) in down.iter().enumerate() {
        let share = n as f64 / total as f64;
        assert!((0.19..=0.31).contains(&share), "core {c} carried {share:.3} of {total} packets");
    }
}

/// On the dragonfly, inter-group traffic also takes the Valiant paths: global links that
/// are on no minimal path between the two groups carry data.
#[test]
fn rps_on_the_dragonfly_uses_valiant_paths() {
    let mut s = sim_with_files(
        r#"
        seed = 1
        [topology]
        kind = "dragonfly"
        hosts = 144
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "1048B"
        [transport]
        cc = "dctcp"
        lb = "rps"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#,
        &[("flows.csv", "src,dst,size,start\n0,143,2MB,0\n")],
    );
    s.run();
    assert_eq!(s.flows_finished(), 1);
    // Host 0 is under switch 0 (group 0); host 143 under switch 35 (group 8). Their only
    // minimal global link joins groups 0 and 8; every other global link used by data is
    // on a Valiant path.
    let group = |node: u32| (node - 144) / 4;
    let other_globals_used = s
        .ports
        .iter()
        .filter(|p| p.node >= 144 && p.peer >= 144 && group(p.node) != group(p.peer))
        .filter(|p| !(group(p.node) == 0 && group(p.peer) == 8))
        .filter(|p| p.stats.tx_packets > 100)
        .count();
    // 7 Valiant paths, each with two global hops the minimal path does not use.
    assert!(other_globals_used >= 14, "{other_globals_used} other global links carried data");
}

/// ECMP, LetFlow and PLB on these fabrics use the pair's candidate paths hop by hop, as
/// the LAPS artefact's baselines do (docs/models/ecmp.md): from GPU (0, 2) to GPU (1, 2)
/// the edge switch splits evenly between its own rail and the NVLink relay, and the
/// NVLink switch evenly over the other 7 rails. So of 4000 one-packet ECMP flows (one
/// hash each) half cross rail 2 and 1/14 each other rail (±4σ: ±0.032 and ±0.016).
/// With `lb_paths = "shortest"`, every one crosses rail 2.
#[test]
fn flow_level_baselines_choose_hop_by_hop_among_the_candidate_paths() {
    let flows: String = (0..4000).map(|i| format!("2,10,1000,{}ns\n", 200 * i)).collect();
    let scenario = |lb_paths: &str| {
        format!(
            r#"
            seed = 9
            [topology]
            kind = "rail"
            hosts = 64
            link_rate = "100Gbps"
            link_latency = "1us"
            mtu = "1048B"
            [transport]
            cc = "dctcp"
            lb = "ecmp"
            lb_paths = "{lb_paths}"
            header = "48B"
            [[workload]]
            kind = "flows"
            file = "flows.csv"
            "#
        )
    };
    let mut s = sim_with_files(&scenario("candidates"), &[("flows.csv", &format!("src,dst,size,start\n{flows}"))]);
    s.run();
    assert_eq!(s.flows_finished(), 4000);
    let per_rail: Vec<f64> = (0..8).map(|r| tx(&s, RAIL_SWITCH + r, edge(1, r)) as f64 / 4000.0).collect();
    assert!((per_rail[2] - 0.5).abs() < 0.032, "{per_rail:?}");
    for r in (0..8).filter(|&r| r != 2) {
        assert!((per_rail[r] - 1.0 / 14.0).abs() < 0.016, "{per_rail:?}");
    }

    let mut s = sim_with_files(&scenario("shortest"), &[("flows.csv", &format!("src,dst,size,start\n{flows}"))]);
    s.run();
    assert_eq!(tx(&s, RAIL_SWITCH + 2, edge(1, 2)), 4000);
}
