//! htsim's connection-matrix triggers (docs/formats.md, "htsim connection matrices"): a
//! triggered connection starts at the instant its trigger fires, which is the instant a
//! firing connection's sender hears its last acknowledgement (`send_done_trigger`) or its
//! receiver gets its last byte (`recv_done_trigger`); a barrier of N fires at the N-th such
//! event and a multishot trigger starts its k-th connection at the k-th.

use crate::common::sim_with_files;

const TOML: &str = r#"
    [topology]
    kind = "fat_tree"
    hosts = 16
    [transport]
    cc = "dctcp"
    [[workload]]
    kind = "htsim_cm"
    file = "m.cm"
"#;

#[test]
fn triggered_connections_start_when_their_trigger_fires() {
    // 0: fires oneshot 1 when its sender is done; 1 and 2 fire barrier 2 on delivery and
    // multishot 3 when acknowledged (different sizes, so the order of their events is
    // set by the run, not by the file).
    let cm = "Nodes 16\nConnections 7\nTriggers 3\n\
        0->1 id 1 start 0 size 300000 send_done_trigger 1\n\
        2->3 id 2 start 0 size 900000 recv_done_trigger 2 send_done_trigger 3\n\
        4->5 id 3 start 0 size 100000 recv_done_trigger 2 send_done_trigger 3\n\
        6->7 id 4 trigger 1 size 50000\n\
        8->9 id 5 trigger 2 size 50000\n\
        10->11 id 6 trigger 3 size 50000\n\
        12->13 id 7 trigger 3 size 50000\n\
        trigger id 1 oneshot\ntrigger id 2 barrier 2\ntrigger id 3 multishot\n";
    let mut s = sim_with_files(TOML, &[("m.cm", cm)]);
    s.run();
    assert_eq!(s.flows_finished(), 7);
    let acked = |f: usize| s.flows[f].sender.done_at.expect("sender done");
    let delivered = |f: usize| s.flows[f].receiver.finish.expect("delivered");
    let start = |f: usize| s.flows[f].start;
    assert_eq!(start(3), acked(0), "oneshot: at connection 0's last acknowledgement");
    assert!(delivered(0) < acked(0), "an acknowledgement comes after the delivery it acknowledges");
    assert_eq!(start(4), delivered(1).max(delivered(2)), "barrier 2: at the later delivery");
    let (first, second) = (acked(1).min(acked(2)), acked(1).max(acked(2)));
    assert!(first < second);
    assert_eq!((start(5), start(6)), (first, second), "multishot: one connection per firing, in file order");
}

/// htsim's link-failure lines: `failure switch_type AGG switch_id S link_id L` takes down
/// the L-th core uplink of aggregation switch S. On the 16-host k = 4 fat tree (Al-Fares
/// layout: hosts 0..15, 8 ToRs 16..23, 8 aggregation switches 24..31 with two per pod,
/// 4 cores 32..35, aggregation switch j of a pod wired to cores 2j and 2j + 1), switch 1
/// is pod 0's second one, node 25, and its uplink 0 goes to core 2, node 34.
#[test]
fn failure_lines_take_down_the_named_aggregation_uplink() {
    // Every host of pod 0 sends to pod 2 (each with several flows, so ECMP spreads
    // them over all four cores of the pod when no link is down).
    let flows: Vec<String> =
        (0..16u32).map(|i| format!("{}->{} id {} start 0 size 200000", i % 4, 8 + (i % 4), i + 1)).collect();
    let header = |failures: u32| format!("Nodes 16\nConnections 16\nFailures {failures}\n{}\n", flows.join("\n"));
    let link_bytes = |cm: &str| {
        let mut s = sim_with_files(TOML, &[("m.cm", cm)]);
        s.run();
        assert_eq!(s.flows_finished(), 16, "the fabric stays connected: every flow finishes");
        let port = |from: u32, to: u32| {
            s.ports.iter().find(|p| p.node == from && p.peer == to).expect("the fat tree has this cable")
        };
        let (up, down) = (port(25, 34), port(34, 25));
        (up.up && down.up, up.stats.tx_bytes + down.stats.tx_bytes, port(25, 35).stats.tx_bytes)
    };
    let (up, bytes, _) = link_bytes(&header(0));
    assert!(up && bytes > 0, "without failures the cable is up and carries traffic");
    let (up, bytes, sibling) = link_bytes(&format!("{}failure switch_type AGG switch_id 1 link_id 0\n", header(1)));
    assert!(!up, "the named cable is down in both directions");
    assert_eq!(bytes, 0, "routing avoids it");
    assert!(sibling > 0, "the switch's other uplink still carries traffic");

    // A failure the fabric does not have is refused before the run, naming the line.
    let bad = format!("{}failure switch_type AGG switch_id 8 link_id 0\n", header(1));
    let Err(e) = crate::common::build_with_files(TOML, &[("m.cm", bad.as_str())]) else { panic!("accepted") };
    assert!(e.0.contains("line 20: switch_id 8: the fat tree has aggregation switches 0..7"), "{}", e.0);

    // Failing all four core uplinks of pod 0 cuts it off: refused before the run.
    let cut = (0..2u32)
        .flat_map(|a| (0..2u32).map(move |l| format!("failure switch_type AGG switch_id {a} link_id {l}\n")))
        .collect::<String>();
    let cm = format!("Nodes 16\nConnections 16\nFailures 4\n{}\n{cut}", flows.join("\n"));
    let Err(e) = crate::common::build_with_files(TOML, &[("m.cm", cm.as_str())]) else { panic!("accepted") };
    assert!(e.0.contains("the htsim failure lines") && e.0.contains("disconnect switch"), "{}", e.0);
}
