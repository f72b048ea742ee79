//! Timed faults (issue 10, item 3; `fault.rs`): links and switches that fail and recover
//! mid-run, flapping links, loss bursts and degraded rates. Flows survive a fault (every
//! byte delivered exactly once, the flows it hit slower than without it), routing stops
//! using a dead link once it has detected it, and a flow cut off for good is reported as
//! failed instead of keeping the run going.

use crate::common;

use dcnsim::{Simulation, Time};

/// A 2-tier fat tree of 16 hosts with a permutation of 2 MB flows; `faults` is appended.
fn fat_tree(cc: &str, lb: &str, trimming: bool, faults: &str) -> String {
    format!(
        r#"
        seed = 4
        [topology]
        kind = "fat_tree"
        tiers = 2
        hosts = 16
        link_rate = "100Gbps"
        [switch]
        trimming = {trimming}
        [transport]
        cc = "{cc}"
        lb = "{lb}"
        rto_min = "100us"
        [[workload]]
        kind = "permutation"
        size = "2MB"
        {faults}
        "#
    )
}

/// The leaf-to-spine cable that carries host 0's first packets, as `("s<leaf>", "s<spine>")`,
/// and that port's id: a link the permutation certainly uses.
fn busy_uplink(s: &Simulation) -> (String, String, u32) {
    let leaf = s.routing.host_edge[0];
    let dst = s.flows.iter().find(|f| f.src == 0).unwrap().dst;
    let port = s.routing.candidates(leaf, dst)[0];
    let n = s.n_hosts;
    let name = |node: u32| format!("s{}", node - n);
    (name(leaf), name(s.ports[port as usize].peer), port)
}

fn assert_every_byte_delivered_once(s: &Simulation) {
    for f in &s.flows {
        assert!(!f.failed, "flow {} given up", f.id);
        assert!(f.receiver.finish.is_some(), "flow {} unfinished ({} of {} bytes)", f.id, f.receiver.delivered, f.size);
        assert_eq!(f.receiver.delivered, f.size, "flow {} delivered each byte once", f.id);
    }
    let held = common::packets_held(s);
    assert_eq!(s.arena.live(), held, "packets neither queued nor on a wire leaked");
}

const ONE_FLOW: &str = "src,dst,size,start\n0,1,4MB,0\n";

/// `hosts` hosts on one 100 Gbps switch running the flows of `flows_csv`, with
/// `transport` and `faults` (TOML table bodies) added.
fn star(hosts: u32, transport: &str, flows_csv: &str, faults: &str) -> Simulation {
    common::sim_with_files(
        &format!(
            "[topology]\nkind = \"star\"\nhosts = {hosts}\nlink_rate = \"100Gbps\"\n\
             [transport]\n{transport}\n[[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"\n{faults}"
        ),
        &[("flows.csv", flows_csv)],
    )
}

fn fct(s: &Simulation, f: usize) -> Time {
    s.flows[f].receiver.finish.unwrap() - s.flows[f].start
}

/// The acceptance test of issue 10: a fabric link fails mid-transfer and recovers. Every
/// flow completes with each byte once, the flows that lost packets on it finish later than
/// without the fault, and once routing has detected the failure the dead link carries
/// nothing until it is back.
fn link_failure_and_recovery(cc: &str, lb: &str, trimming: bool) {
    let mut clean = common::sim(&fat_tree(cc, lb, trimming, ""));
    let (a, b, port) = busy_uplink(&clean);
    clean.run();
    assert_every_byte_delivered_once(&clean);

    let (down, detect, up) = (Time::from_us(40), Time::from_us(50), Time::from_us(140));
    let faults = format!(
        r#"
        [faults]
        detection_delay = "10us"
        [[faults.link]]
        between = ["{a}", "{b}"]
        at = "40us"
        until = "140us""#
    );
    let mut s = common::sim(&fat_tree(cc, lb, trimming, &faults));
    s.run_until(detect);
    assert!(!s.ports[port as usize].up && !s.ports[(port ^ 1) as usize].up, "both directions are down");
    // What was queued for the link when routing moved away drains into it meanwhile.
    s.run_until(detect + Time::from_us(10));
    let sent_at_detection = s.ports[port as usize].stats.tx_packets;
    s.run_until(up - Time::from_ns(1));
    assert_eq!(
        s.ports[port as usize].stats.tx_packets, sent_at_detection,
        "{cc}/{lb}: rerouted traffic avoids the dead link"
    );
    s.run_until(up + Time::from_us(20));
    assert!(s.ports[port as usize].up);
    s.run();
    assert_every_byte_delivered_once(&s);
    let stats: std::collections::HashMap<_, _> = s.stats().into_iter().collect();
    assert!(stats["fault_drops"] > 0.0, "{cc}/{lb}: the link died with packets on it");
    assert_eq!(stats["reroutes"], 2.0, "routing reacted to the failure and to the recovery");
    assert_eq!(stats["flows_failed"], 0.0);
    let hit: Vec<usize> = (0..s.flows.len()).filter(|&f| s.flows[f].drops > 0).collect();
    assert!(!hit.is_empty());
    for &f in &hit {
        assert!(fct(&s, f) > fct(&clean, f), "{cc}/{lb}: flow {f}, which lost packets, is slower");
    }
    assert!(down < detect);
}

#[test]
fn link_failure_and_recovery_dctcp_ecmp() {
    link_failure_and_recovery("dctcp", "ecmp", false);
}

#[test]
fn link_failure_and_recovery_nscc_reps() {
    link_failure_and_recovery("nscc", "reps", true);
}

/// Receiver-driven credit: the dead link also swallows pulls (here each lost pull is made
/// good by a later cumulative one; `eqds.rs::a_lost_last_pull_does_not_stall_the_flow`
/// covers a lost last pull).
#[test]
fn link_failure_and_recovery_eqds_ops() {
    link_failure_and_recovery("eqds", "ops", true);
}

/// A flapping link: three down/up windows, each followed by routing after the detection
/// delay; flows ride it out.
#[test]
fn a_flapping_link_is_rerouted_around_each_time() {
    let probe = common::sim(&fat_tree("dctcp", "ecmp", false, ""));
    let (a, b, _) = busy_uplink(&probe);
    let faults = format!(
        r#"
        [faults]
        detection_delay = "5us"
        [[faults.link]]
        between = ["{a}", "{b}"]
        at = "20us"
        until = "40us"
        repeat = 3
        every = "60us""#
    );
    let mut s = common::sim(&fat_tree("dctcp", "ecmp", false, &faults));
    s.run();
    assert_every_byte_delivered_once(&s);
    let stats: std::collections::HashMap<_, _> = s.stats().into_iter().collect();
    assert_eq!(stats["reroutes"], 6.0);
    assert!(stats["fault_drops"] > 0.0);
}

/// A spine switch fails for a while: every one of its links is down, traffic moves to the
/// other spines after detection, and everything is delivered.
#[test]
fn a_failed_switch_is_routed_around_and_recovers() {
    let probe = common::sim(&fat_tree("dctcp", "ecmp", false, ""));
    let (_, spine, _) = busy_uplink(&probe);
    let spine_node = probe.n_hosts + spine[1..].parse::<u32>().unwrap();
    let faults = format!(
        r#"
        [faults]
        detection_delay = "10us"
        [[faults.switch]]
        switch = "{spine}"
        at = "30us"
        until = "200us""#
    );
    let mut s = common::sim(&fat_tree("dctcp", "ecmp", false, &faults));
    let spine_ports: Vec<usize> = (0..s.ports.len()).filter(|&p| s.ports[p].node == spine_node).collect();
    let tx = |s: &Simulation| -> u64 { spine_ports.iter().map(|&p| s.ports[p].stats.tx_packets).sum() };
    s.run_until(Time::from_us(31));
    assert!(spine_ports.iter().all(|&p| !s.ports[p].up && !s.ports[p ^ 1].up));
    // By 10 us after detection the packets routed to the spine before it have arrived and
    // its queues have drained into the dead links; from then on it sends nothing.
    s.run_until(Time::from_us(50));
    let drained = tx(&s);
    s.run_until(Time::from_us(199));
    assert_eq!(tx(&s), drained, "the failed spine carries nothing once routing knows");
    s.run();
    assert_every_byte_delivered_once(&s);
}

/// A degraded host link: the sender's NIC runs at half rate for a window while an
/// uncontrolled flow (always at line rate) crosses it, so the flow takes its ideal time
/// plus half the window (the window moved half the bytes it would have), to within a
/// packet's serialisation at each rate change.
#[test]
fn a_degraded_link_slows_a_flow_by_the_bytes_it_could_not_send() {
    let mut s = star(
        2,
        "cc = \"none\"",
        ONE_FLOW,
        "[[faults.link]]\nbetween = [\"h0\", \"s0\"]\nat = \"100us\"\nuntil = \"200us\"\nrate = \"50Gbps\"",
    );
    s.run();
    assert_every_byte_delivered_once(&s);
    let f = &s.flows[0];
    let expected = f.ideal_fct + Time::from_us(50);
    let got = fct(&s, 0);
    let mtu_at_half = Time::from_ns((s.cfg.mtu as u64 * 8).div_ceil(50));
    let off = if got > expected { got - expected } else { expected - got };
    assert!(off <= mtu_at_half + mtu_at_half, "FCT {got} vs ideal + half the window {expected}");
    assert_eq!(s.ports[0].rate, dcnsim::Rate::gbps(100), "the rate is restored after the window");
}

/// A loss burst on the sender's link: packets are lost only inside the window, and the
/// flow recovers every one of them.
#[test]
fn a_loss_burst_loses_packets_only_inside_its_window() {
    let mut s = star(
        2,
        "cc = \"dctcp\"\nrto_min = \"50us\"",
        ONE_FLOW,
        "[[faults.link]]\nbetween = [\"h0\", \"s0\"]\nat = \"100us\"\nuntil = \"130us\"\nloss_rate = 0.2",
    );
    s.run_until(Time::from_us(100));
    assert_eq!(s.counters.drops, 0);
    // Packets already on the 1 us wire at the window's end may still be lost.
    s.run_until(Time::from_us(132));
    let in_window = s.counters.drops;
    assert!(in_window > 0);
    s.run();
    assert_eq!(s.counters.drops, in_window, "no loss after the burst");
    assert_every_byte_delivered_once(&s);
}

/// A host whose only link fails for good: its flow times out `give_up_after` times in a
/// row and is reported failed; every other flow completes and the run ends.
#[test]
fn a_flow_cut_off_for_good_is_reported_failed_and_the_run_ends() {
    let mut s = star(
        4,
        "cc = \"dctcp\"\nrto_min = \"50us\"\nrto_max = \"1ms\"",
        "src,dst,size,start\n0,1,4MB,0\n2,3,4MB,0\n",
        "[faults]\ngive_up_after = 5\n[[faults.link]]\nbetween = [\"h0\", \"s0\"]\nat = \"50us\"",
    );
    s.run();
    assert!(s.is_done());
    assert!(s.flows[0].failed && s.flows[0].receiver.finish.is_none());
    assert_eq!(s.flows[0].sender.timeouts, 5, "given up at the fifth timeout in a row");
    assert!(!s.flows[1].failed && s.flows[1].receiver.delivered == s.flows[1].size);
    let table = s.flow_table();
    let failed = table.columns.iter().find(|(n, _)| n == "failed").expect("a failed column");
    assert!(matches!(&failed.1, dcnsim::stats::Column::Bool(v) if v == &vec![true, false]));
    // A flow given up did begin: its row keeps its start (both start at 0).
    assert_eq!(table.f64s("start_us"), vec![0.0, 0.0]);
}

#[test]
fn bad_faults_are_refused_before_the_run_names_the_field() {
    let base = fat_tree("dctcp", "ecmp", false, "");
    let m = common::build_err(&format!("{base}\n[[faults.link]]\nbetween = [\"s0\", \"s99\"]\nat = \"1us\""));
    assert!(m.starts_with("faults.link[0].between: \"s99\" names no node"), "{m}");
    let m = common::build_err(&format!("{base}\n[[faults.link]]\nbetween = [\"h0\", \"h1\"]\nat = \"1us\""));
    assert!(m.contains("no link joins h0 and h1"), "{m}");
    let m = common::build_err(&format!("{base}\n[[faults.switch]]\nswitch = \"s0\"\nat = \"1us\"\nuntil = \"1us\""));
    assert!(m.starts_with("faults.switch[0].until"), "{m}");
    let m = common::build_err(&format!("{base}\n[[faults.link]]\nbetween = [\"h0\", \"s0\"]\nat = \"1us\"\nflap = 3"));
    assert!(m.contains("flap"), "{m}");
}

/// `examples/link_failure.toml` does what its comment says: the link it fails joins leaf 0
/// (host 0's edge switch) to a spine, it carried traffic when it failed, and every flow
/// still completes.
#[test]
fn the_link_failure_example_fails_a_busy_leaf_to_spine_link() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(dir.join("link_failure.toml")).unwrap();
    let mut s = dcnsim::from_toml(&text, &dir).unwrap();
    let n = s.n_hosts;
    assert_eq!(s.routing.host_edge[0], n, "s0 is host 0's leaf");
    let spine = n + 8;
    assert!(s.routing.host_edge.iter().all(|&e| e != spine), "s8 has no hosts: a spine");
    s.run();
    assert_every_byte_delivered_once(&s);
    let stats: std::collections::HashMap<_, _> = s.stats().into_iter().collect();
    assert!(stats["fault_drops"] > 0.0);
}
