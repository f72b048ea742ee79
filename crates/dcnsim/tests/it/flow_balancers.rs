//! The flow- and flowlet-level load balancers the LAPS paper compares against, in one
//! test binary (docs/models/letflow.md, conga.md, conweave.md):
//! - LetFlow (`lb = "letflow"`): a flow changes path only across a sending gap longer than
//!   the flowlet timeout;
//! - CONGA (`lb = "conga"`), over the rail fabric's candidate paths: each flowlet takes the
//!   path whose congestion, the larger of its first uplink's rate estimator and the
//!   feedback its ACKs brought, is least;
//! - ConWeave (`lb = "conweave"`), over the same paths: a flow whose RTT replies come late
//!   moves to another path, and the destination holds the packets that overtake the old
//!   path's TAIL, so the receiver sees the flow in order.

use crate::common;
use crate::common::rail::{edge, tx, RAIL_SWITCH};
use crate::common::*;

use dcnsim::Time;

/// The 64-GPU rail fabric at 100 Gb/s (1 µs links, 1048-byte packets, 8 MB buffers)
/// under DCTCP: `background` flows (CSV rows) pinned by ECMP to their shortest paths, and
/// `measured` flows under `lb` over the candidate paths; `topology` and `switch` add lines
/// to those tables.
fn rail_run(seed: u64, lb: &str, topology: &str, switch: &str, background: &str, measured: &str) -> dcnsim::Simulation {
    let preamble = common::rail::rail_preamble(seed);
    let toml = format!(
        r#"
        {preamble}
        {topology}
        [switch]
        buffer = "8MB"
        {switch}
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
        file = "measured.csv"
        "#
    );
    let header = "src,dst,size,start\n";
    sim_with_files(
        &toml,
        &[("background.csv", &format!("{header}{background}")), ("measured.csv", &format!("{header}{measured}"))],
    )
}

/// A 16-host leaf-spine fabric (radix 8: four leaves of four hosts) under DCTCP, seed 2;
/// `transport` and `workload` add lines to the `[transport]` table and after it.
fn leaf_spine_16(transport: &str, workload: &str) -> String {
    format!(
        r#"
        seed = 2
        [topology]
        kind = "leaf_spine"
        hosts = 16
        radix = 8
        [transport]
        cc = "dctcp"
        {transport}
        {workload}
        "#
    )
}

// ---- LetFlow ----------------------------------------------------------------

fn one_flow(timeout: &str) -> dcnsim::Simulation {
    let mut s = sim(&leaf_spine_16(
        &format!("lb = \"letflow\"\nletflow = {{ flowlet_timeout = \"{timeout}\" }}"),
        "[[workload]]\nkind = \"incast\"\nsenders = 1\nreceiver = 15\nsize = \"1MB\"",
    ));
    s.run();
    assert_eq!(s.flows_finished(), 1);
    s
}

/// A lone flow on an idle fabric never pauses for 10 µs (its RTT is about 5 µs), so it
/// is one flowlet on one path, like ECMP. With a 1 ns timeout every packet is a flowlet
/// of its own: the NIC spaces packets by at least one serialisation time (330 ns).
#[test]
fn flowlets_follow_the_sending_gaps() {
    let flowlets = |s: &dcnsim::Simulation| {
        s.stats().into_iter().find(|(k, _)| *k == "letflow_flowlets").map(|(_, v)| v as u64).unwrap()
    };
    let s = one_flow("10us");
    assert_eq!(flowlets(&s), 1);
    let s = one_flow("1ns");
    let sent = s.flows[0].sender.next_new as u64 + s.flows[0].sender.retransmits;
    assert_eq!(flowlets(&s), sent);
}

// ---- single path -------------------------------------------------------------

/// `lb = "single_path"` (docs/models/ecmp.md): four flows from the hosts of one leaf to
/// the hosts of another cross the spine layer on exactly one path each way, so exactly
/// four switch-to-switch ports carry packets (leaf → spine → leaf for the data, and
/// back for the ACKs). Per-flow ECMP with the same seed spreads them over more.
#[test]
fn single_path_pins_every_flow_to_one_path() {
    let busy_fabric_ports = |lb: &str| {
        let toml = leaf_spine_16(&format!("lb = \"{lb}\""), "[[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"");
        let flows = "src,dst,size,start\n0,12,200KB,0\n1,13,200KB,0\n2,14,200KB,0\n3,15,200KB,0\n";
        let mut s = sim_with_files(&toml, &[("flows.csv", flows)]);
        s.run();
        assert_eq!(s.flows_finished(), 4);
        let hosts = 16;
        s.ports.iter().filter(|p| p.node >= hosts && p.peer >= hosts && p.stats.tx_packets > 0).count()
    };
    assert_eq!(busy_fabric_ports("single_path"), 4);
    let ecmp = busy_fabric_ports("ecmp");
    assert!(ecmp > 4, "ECMP used {ecmp} fabric ports");
}

// ---- CONGA ------------------------------------------------------------------

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
        let mut s = rail_run(4, lb, "", "", "2,42,80MB,0\n", &probes);
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

// ---- ConWeave ---------------------------------------------------------------

fn stat(s: &dcnsim::Simulation, name: &str) -> f64 {
    s.stats().into_iter().find(|(k, _)| *k == name).unwrap_or_else(|| panic!("no stat {name}")).1
}

/// GPU (0, 2) sends 20 MB to GPU (5, 2) under ConWeave; every link runs at 100 Gb/s, the
/// GPUs' own included, so a flow alone on a path builds no queue. Its eight candidate paths cross
/// rail switches 0–7, and every one but rail 2's goes on from rail switch r to edge (5, r)
/// and over server 5's NVLink switch. Seven long ECMP flows, GPU (1, r) → GPU (5, r) for
/// r ≠ 2, keep each of those rail-switch → edge (5, r) links busy with a queue of their
/// own, so only the direct path over rail 2 is free.
///
/// - Any path with a queue delays the RTT reply past its deadline (the unloaded RTT plus
///   80 ns, under one packet's serialisation at 100 Gb/s), so the flow leaves it; on rail 2
///   the replies come in time, so it stays: nearly all its packets (≥ 90 %) cross rail 2.
/// - A reroute from a queued path to a free one lets the new path's packets overtake the
///   TAIL; the destination holds them (held packets > 0) and the receiver sees no packet
///   out of order while every TAIL arrives (no timeout releases).
/// - Alone on the fabric, the flow never reroutes: no queue, so every reply is in time.
/// - Random spraying over the same paths (RPS) delivers out of order and sends about 1/8
///   of its packets over rail 2 (measured over what it delivered in the same 6 ms).
#[test]
fn a_flow_leaves_queued_paths_and_arrives_in_order() {
    let background: String = (0..8).filter(|&r| r != 2).map(|r| format!("{},{},400MB,0\n", 8 + r, 40 + r)).collect();
    let run = |lb: &str, background: &str| {
        let mut s = rail_run(
            3,
            lb,
            "host_link_rate = \"100Gbps\"",
            "ecn = { kmin = \"100KB\", kmax = \"400KB\", pmax = 0.2 }",
            background,
            "2,42,20MB,200us\n",
        );
        s.run_until(Time::from_ms(6));
        s
    };
    let s = run("conweave", "");
    assert_eq!((stat(&s, "conweave_reroutes"), stat(&s, "conweave_held_packets")), (0.0, 0.0), "alone");
    let s = run("conweave", &background);
    let flow = s.flows.last().unwrap();
    assert!(flow.receiver.finish.is_some(), "the 20 MB flow did not finish by 6 ms");
    let packets = flow.receiver.delivered.div_ceil(1000);
    let direct = tx(&s, RAIL_SWITCH + 2, edge(5, 2));
    let (reroutes, held, timeouts) =
        (stat(&s, "conweave_reroutes"), stat(&s, "conweave_held_packets"), stat(&s, "conweave_timeout_releases"));
    eprintln!(
        "conweave: {direct} of ≈{packets} packets over rail 2; {reroutes} reroutes, {held} held, {timeouts} timeout releases, {} reordered",
        flow.receiver.reordered
    );
    assert!(direct as f64 >= 0.9 * packets as f64, "{direct} of {packets} packets over rail 2");
    assert!(reroutes >= 1.0 && held > 0.0, "reroutes {reroutes}, held {held}");
    assert_eq!((timeouts, flow.receiver.reordered), (0.0, 0));

    let s = run("rps", &background);
    let flow = s.flows.last().unwrap();
    let direct = tx(&s, RAIL_SWITCH + 2, edge(5, 2)) as f64 / flow.receiver.delivered.div_ceil(1000) as f64;
    assert!(flow.receiver.reordered > 0, "rps delivered in order");
    assert!((0.05..=0.25).contains(&direct), "rps sent {direct:.3} of its packets over rail 2 (1/8 expected)");
}

/// A setting out of range is refused, naming it (the fabric check is with CONGA's, above).
#[test]
fn conweave_settings_are_checked() {
    let e = build_err(
        r#"
        [topology]
        kind = "rail"
        hosts = 64
        [transport]
        lb = "conweave"
        conweave = { voq_wait = "0us" }
        [[workload]]
        kind = "permutation"
        size = "100KB"
        "#,
    );
    assert!(e.contains("transport.conweave.voq_wait"), "{e}");
}
