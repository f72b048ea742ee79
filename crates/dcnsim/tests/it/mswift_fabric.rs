//! Tier A checks of docs/reproductions/mswift-paper.md on the MSwift paper's fabric (§IV-A): a 3-tier fat tree at
//! 800 Gbps with 0.5 us links and 4160-byte packets (4096 B payload).

use crate::common;

use dcnsim::{Simulation, Time};

fn fabric(hosts: u32, workloads: &str, seed: u64) -> Simulation {
    fabric_with(hosts, "mswift", "", workloads, seed)
}

/// The fabric with congestion control `cc` and extra `[transport.swift]` lines.
fn fabric_with(hosts: u32, cc: &str, swift: &str, workloads: &str, seed: u64) -> Simulation {
    common::sim(&format!(
        r#"
        seed = {seed}
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = {hosts}
        link_rate = "800Gbps"
        link_latency = "500ns"
        mtu = "4160B"
        [transport]
        header = "64B"
        cc = "{cc}"
        [transport.swift]
        {swift}
        {workloads}
        "#
    ))
}

/// A1: k = 8 gives 128 hosts and 80 switches with 16 equal-cost inter-pod paths; k = 10
/// holds 250 hosts; the unloaded inter-pod RTT is 6·(0.5 + 0.0416) + 6·(0.5 + 0.00064)
/// = 6.25344 us (±1 %).
#[test]
fn a1_fabric_shape_and_unloaded_rtt() {
    let s = fabric(128, "[[workload]]\nkind = \"permutation\"\nsize = \"1MB\"", 1);
    assert_eq!(s.node_ports.len() as u32 - s.n_hosts, 32 + 32 + 16);
    // Equal-cost choices along the way up from host 0 to host 127 (pods 0 and 7).
    let (mut paths, mut node) = (1, s.ports[s.routing.host_up_port[0] as usize].peer);
    while node >= s.n_hosts {
        let c = s.routing.candidates(node, 127);
        paths *= c.len();
        node = s.ports[c[0] as usize].peer;
    }
    assert_eq!(paths, 16);
    let inter_pod = s.flows.iter().find(|f| f.src / 16 != f.dst / 16).expect("an inter-pod flow");
    let rtt = inter_pod.base_rtt.as_us_f64();
    assert!((rtt - 6.25344).abs() <= 0.01 * 6.25344, "inter-pod RTT {rtt} us");
    let k10 = fabric(250, "[[workload]]\nkind = \"permutation\"\nsize = \"1MB\"", 1);
    assert_eq!(k10.n_hosts, 250);
    assert_eq!(k10.node_ports.len() as u32 - 250, 50 + 50 + 25);
}

/// A2: in the baseline workload (4 ECMP elephants among random hosts, a sprayed
/// permutation among the other 124), a sprayed packet on a uniformly random path crosses
/// on average 0.092 directed switch-to-switch links used by an elephant, and at least one
/// with probability 0.078 (both ±0.005, over ≥ 1000 draws).
#[test]
fn a2_elephant_exposure_of_sprayed_packets() {
    let workloads = "[[workload]]\nkind = \"permutation\"\nhosts = 4\nsize = \"infinite\"\nlb = \"ecmp\"\ntag = \"elephants\"\n\
                     [[workload]]\nkind = \"permutation\"\nhosts = \"remaining\"\nsize = \"8MiB\"\nlb = \"ops\"\ntag = \"sprayed\"";
    let (mut links, mut exposed, mut samples) = (0.0, 0.0, 0.0);
    for seed in 0..1000 {
        let s = fabric(128, workloads, seed);
        let fabric_port = |p: u32| s.ports[p as usize].node >= s.n_hosts && s.ports[p as usize].peer >= s.n_hosts;
        let mut busy = vec![false; s.ports.len()];
        for f in s.flows.iter().filter(|f| f.is_infinite()) {
            let mut node = s.ports[s.routing.host_up_port[f.src as usize] as usize].peer;
            while node >= s.n_hosts {
                let p = s.routing.forward(node, f.dst, f.entropy);
                busy[p as usize] = fabric_port(p);
                node = s.ports[p as usize].peer;
            }
        }
        for f in s.flows.iter().filter(|f| !f.is_infinite()) {
            // Every equal-cost path is equally likely under uniform spraying in a fat tree.
            let mut stack = vec![(s.ports[s.routing.host_up_port[f.src as usize] as usize].peer, 0u32, 1.0f64)];
            let (mut mean, mut p_any) = (0.0, 0.0);
            while let Some((node, hits, weight)) = stack.pop() {
                if node < s.n_hosts {
                    mean += weight * hits as f64;
                    p_any += if hits > 0 { weight } else { 0.0 };
                    continue;
                }
                let c = s.routing.candidates(node, f.dst);
                for &p in c {
                    stack.push((s.ports[p as usize].peer, hits + busy[p as usize] as u32, weight / c.len() as f64));
                }
            }
            links += mean;
            exposed += p_any;
            samples += 1.0;
        }
    }
    let (links, exposed) = (links / samples, exposed / samples);
    eprintln!("elephant links per sprayed packet {links:.4}, P(>= 1) {exposed:.4}");
    assert!((links - 0.092).abs() <= 0.005, "{links}");
    assert!((exposed - 0.078).abs() <= 0.005, "{exposed}");
}

/// A8 (design goal iv): on a single path, with no spraying, MSwift behaves like LSwift:
/// goodput within 5 % and mean queueing delay within 0.2 us (one flow, 800 Gbps hosts, a
/// 400 Gbps bottleneck).
#[test]
fn a8_on_one_path_mswift_is_lswift() {
    let run = |cc: &str| {
        let mut s = common::sim(&format!(
            r#"
            duration = "2ms"
            [topology]
            kind = "dumbbell"
            hosts = 2
            link_rate = "800Gbps"
            bottleneck_rate = "400Gbps"
            link_latency = "500ns"
            mtu = "4160B"
            [switch]
            buffer = "800KB"
            ecn = {{ enabled = false }}
            [transport]
            cc = "{cc}"
            header = "64B"
            initial_window = "bdp"
            [[workload]]
            kind = "incast"
            senders = 1
            receiver = 1
            size = "infinite"
            "#
        ));
        let warm = Time::from_us(500);
        s.run_until(warm);
        let port = s.routing.candidates(s.routing.host_edge[0], 1)[0] as usize;
        s.ports[port].reset_stats(warm);
        let d0 = s.flows[0].receiver.delivered;
        s.run();
        let secs = (s.now() - warm).as_secs_f64();
        let goodput = (s.flows[0].receiver.delivered - d0) as f64 * 8.0 / secs;
        let queue_delay_us = s.ports[port].mean_queue_since(s.now(), warm, 0) * 8.0 / 400e9 * 1e6;
        (goodput, queue_delay_us)
    };
    let (g_l, q_l) = run("lswift");
    let (g_m, q_m) = run("mswift");
    eprintln!("LSwift {:.1} Gbps, queue {q_l:.3} us; MSwift {:.1} Gbps, queue {q_m:.3} us", g_l / 1e9, g_m / 1e9);
    assert!(g_l > 0.9 * 400e9 * 4096.0 / 4160.0, "the bottleneck is used: {g_l}");
    assert!((g_m / g_l - 1.0).abs() <= 0.05);
    assert!((q_m - q_l).abs() <= 0.2);
}

/// A9 (reordering handling), E2 with OPS: a permutation of all 128 hosts, each flow sprayed
/// over 16 paths, so every flow sees reordering (2 MiB per flow instead of 8 to stay quick).
/// - Swift answers SACK holes: more than 0 loss-triggered decreases per flow on average.
/// - LSwift in docs/reproductions/mswift-paper.md's reading (declared holes, no reorder wait) forgives most loss
///   events, and each loss cut answers a run of at least 5 consecutive lost PSNs.
/// - LSwift as shipped (confirmed losses, RACK window), on the same reordering: no packet
///   is dropped in this run, so no loss is ever confirmed and no window shrinks on loss.
#[test]
fn a9_reordering_handling() {
    let permutation = "[[workload]]\nkind = \"permutation\"\nsize = \"2MiB\"\nlb = \"ops\"";
    let total = |s: &Simulation, name: &str| s.flows.iter().map(|f| common::observed(f, name)).sum::<f64>();

    let mut swift = fabric_with(128, "swift", "", permutation, 1);
    swift.run();
    let per_flow = total(&swift, "loss_md") / swift.flows.len() as f64;
    assert!(per_flow > 0.0, "Swift: {per_flow} loss-triggered decreases per flow");

    let mut spec = fabric_with(128, "lswift", "loss_evidence = \"declared\"\nreorder_wait = \"0ns\"", permutation, 1);
    spec.run();
    let (events, cuts, runs) = (total(&spec, "loss_events"), total(&spec, "loss_md"), total(&spec, "long_runs"));
    assert!(cuts <= runs, "LSwift cut {cuts} times on {runs} runs of 5");
    assert!(cuts < 0.5 * events, "LSwift cut on {cuts} of {events} loss events");

    let mut shipped = fabric_with(128, "lswift", "", permutation, 1);
    shipped.run();
    assert_eq!(shipped.counters.drops, 0, "the premise: nothing dropped");
    assert_eq!(total(&shipped, "loss_md"), 0.0, "a loss cut without a lost packet");
}
