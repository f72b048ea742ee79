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
