//! Invariants that must hold whatever the traffic: every byte of every finite flow is
//! delivered exactly once despite heavy loss, coalesced ACKs and failed links, and a
//! failed link never carries a packet.

use crate::common;

fn dumbbell_with_loss(loss: f64, ack_ratio: u32, cc: &str, lb: &str) -> dcnsim::Simulation {
    let mut s = common::sim(&format!(
        r#"
        seed = 9
        [topology]
        kind = "dumbbell"
        hosts = 16
        link_rate = "10Gbps"
        link_latency = "2us"
        loss_rate = {loss}
        [transport]
        cc = "{cc}"
        lb = "{lb}"
        ack_ratio = {ack_ratio}
        rto_min = "200us"
        [[workload]]
        kind = "permutation"
        size = "300KB"
        "#
    ));
    s.run();
    s
}

fn assert_all_delivered(s: &dcnsim::Simulation) {
    for f in &s.flows {
        assert!(f.receiver.finish.is_some(), "flow {} unfinished ({} of {} bytes)", f.id, f.receiver.delivered, f.size);
        assert_eq!(f.receiver.delivered, f.size, "flow {} delivered each byte once", f.id);
    }
    // The run ends when the last byte arrives, with some ACKs still on their way; every
    // packet the arena still holds must be in some queue or on some wire (no leak).
    let held = common::packets_held(s);
    assert_eq!(s.arena.live(), held, "packets neither queued nor on a wire leaked");
}

#[test]
fn heavy_loss_is_repaired_by_fast_retransmit_and_timeouts() {
    for cc in ["newreno", "dctcp"] {
        let s = dumbbell_with_loss(0.05, 1, cc, "ecmp");
        assert_all_delivered(&s);
        assert!(s.counters.drops > 0);
        let retx: u64 = s.flows.iter().map(|f| f.sender.retransmits).sum();
        assert!(retx >= s.counters.drops / 2, "{cc}: lost data is retransmitted");
    }
}

#[test]
fn coalesced_acks_deliver_everything() {
    for ratio in [2, 4] {
        let s = dumbbell_with_loss(0.01, ratio, "dctcp", "ecmp");
        assert_all_delivered(&s);
        assert!(s.counters.ack_packets < s.counters.data_packets, "ack_ratio {ratio} sends fewer ACKs than data");
    }
}

#[test]
fn failed_links_carry_nothing_and_traffic_still_completes() {
    let mut s = common::sim(
        r#"
        seed = 2
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 128
        failed_links = 0.2
        [transport]
        lb = "ops"
        [[workload]]
        kind = "permutation"
        size = "500KB"
        "#,
    );
    let down: Vec<usize> = (0..s.ports.len()).filter(|&p| !s.ports[p].up).collect();
    // 20% of the 256 switch-to-switch cables of a radix-8 tree, both directions.
    assert_eq!(down.len(), 2 * (0.2f64 * 256.0).round() as usize);
    s.run();
    assert_all_delivered(&s);
    for p in down {
        assert_eq!(s.ports[p].stats.tx_packets, 0, "failed port {p} transmitted");
    }
}

/// A retransmission timer never fires late: at any moment, a flow with data outstanding
/// has a deadline in the future (its deadline may move earlier, e.g. when an ACK ends a
/// backed-off timeout, and the timer must follow).
#[test]
fn retransmission_timer_never_fires_late() {
    let mut s = common::sim(
        r#"
        seed = 7
        [topology]
        kind = "dumbbell"
        hosts = 8
        link_rate = "100Gbps"
        link_latency = "1us"
        loss_rate = 0.3
        [switch]
        ecn = { enabled = false }
        [transport]
        cc = "newreno"
        rto_min = "100us"
        rto_max = "100ms"
        [[workload]]
        kind = "permutation"
        size = "200KB"
        "#,
    );
    let step = dcnsim::Time::from_us(1);
    let mut t = dcnsim::Time::ZERO;
    let mut overdue = 0;
    while !s.is_done() {
        t = t + step;
        s.run_until(t);
        for f in &s.flows {
            let d = f.sender.rto_deadline;
            if d != dcnsim::Time::MAX && !f.sender_done() && f.has_outstanding() && d + step < t {
                overdue += 1;
            }
        }
    }
    assert!(s.counters.timeouts > 0);
    assert_eq!(overdue, 0, "samples where an RTO deadline had passed without the timer firing");
    assert_all_delivered(&s);
}

/// Without `duration`, infinite flows stopping does not end the run while finite flows
/// are still going.
#[test]
fn finite_flows_outlive_the_infinite_flows_stop() {
    let toml = r#"
        [topology]
        kind = "star"
        hosts = 4
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 1
        size = "infinite"
        stop = "100us"
        [[workload]]
        kind = "flows"
        file = "f.csv"
        "#;
    let mut s = common::sim_with_files(toml, &[("f.csv", "src,dst,size,start\n2,3,10MB,0\n")]);
    s.run();
    let big = s.flows.iter().find(|f| !f.is_infinite()).unwrap();
    assert_eq!(big.receiver.delivered, 10_000_000);
    assert!(big.receiver.finish.is_some());
}

/// Every load balancer delivers every byte, with and without failed links.
#[test]
fn every_load_balancer_delivers_everything() {
    for lb in ["ecmp", "ops", "reps", "ar"] {
        let mut s = common::sim(&format!(
            r#"
            seed = 3
            [topology]
            kind = "fat_tree"
            tiers = 3
            hosts = 128
            failed_links = 0.05
            failure_model = "independent"
            [transport]
            lb = "{lb}"
            [[workload]]
            kind = "permutation"
            size = "300KB"
            "#
        ));
        s.run();
        assert_all_delivered(&s);
    }
}

/// Infinite flows without a stop are background traffic: the run ends when the finite
/// flows are done.
#[test]
fn background_flows_end_with_the_finite_ones() {
    let mut s = common::sim(
        r#"
        [topology]
        kind = "fat_tree"
        tiers = 2
        hosts = 16
        [[workload]]
        kind = "permutation"
        hosts = 4
        size = "infinite"
        lb = "ecmp"
        [[workload]]
        kind = "permutation"
        hosts = "remaining"
        size = "1MB"
        lb = "ops"
        "#,
    );
    s.run();
    let finite: Vec<_> = s.flows.iter().filter(|f| !f.is_infinite()).collect();
    let infinite: Vec<_> = s.flows.iter().filter(|f| f.is_infinite()).collect();
    assert_eq!((finite.len(), infinite.len()), (12, 4));
    let last = finite.iter().map(|f| f.receiver.finish.unwrap()).max().unwrap();
    assert_eq!(s.end_time(), last, "the run ends with the last finite flow");
    // "remaining": the two workloads use disjoint hosts.
    for f in &finite {
        assert!(infinite.iter().all(|g| g.src != f.src && g.dst != f.src && g.src != f.dst && g.dst != f.dst));
    }
    assert!(infinite.iter().all(|f| f.receiver.delivered > 0));
}

/// Independent failures: each of the 256 fabric cables of a radix-8 tree fails with
/// probability p, so the count is Binomial(256, p).
#[test]
fn independent_failures_follow_the_binomial() {
    let mut total = 0usize;
    for seed in 0..20 {
        let s = common::sim(&format!(
            "seed = {seed}\n[topology]\nkind = \"fat_tree\"\nhosts = 128\nfailed_links = 0.1\nfailure_model = \"independent\"\n[[workload]]\nkind = \"permutation\"\nsize = \"1MB\"\n"
        ));
        total += s.ports.iter().filter(|p| !p.up).count() / 2;
    }
    // Mean 20 × 25.6 = 512, sd sqrt(20 × 256 × 0.09) = 21.5: allow 4 sd.
    assert!((512 - 86..=512 + 86).contains(&total), "{total} failures over 20 seeds");
}

/// The HSDP ring step: GPU l of each server sends to GPU l of the next server, every host
/// sends once and receives once, and servers occupy whole blocks of 8 hosts.
#[test]
fn hsdp_ring_is_eight_rings_over_sixteen_servers() {
    let s = common::sim(
        r#"
        seed = 5
        [topology]
        kind = "fat_tree"
        hosts = 128
        [[workload]]
        kind = "hsdp_ring"
        servers = 16
        gpus_per_server = 8
        size = "13697024"
        "#,
    );
    assert_eq!(s.flows.len(), 128);
    let mut out = [0; 128];
    let mut inn = [0; 128];
    for f in &s.flows {
        out[f.src as usize] += 1;
        inn[f.dst as usize] += 1;
        assert_eq!(f.src % 8, f.dst % 8, "same local rank");
        assert_ne!(f.src / 8, f.dst / 8, "another server");
    }
    assert!(out.iter().chain(&inn).all(|&c| c == 1));
    // Following one rank's ring visits all 16 servers before returning.
    let next: std::collections::HashMap<u32, u32> = s.flows.iter().map(|f| (f.src, f.dst)).collect();
    let mut h = 3u32;
    for step in 1..=16 {
        h = next[&h];
        assert_eq!(h == 3, step == 16);
    }
}

/// Two-class DRR (switch.scheduler = "drr"): one ECMP flow (class 1) against three sprayed
/// flows (class 0) on one bottleneck gets half of it under equal weights, where a FIFO
/// gives it the per-flow fair share of a quarter.
#[test]
fn drr_gives_each_class_its_weighted_share() {
    let run = |scheduler: &str| {
        let toml = format!(
            r#"
            duration = "4ms"
            [topology]
            kind = "dumbbell"
            hosts = 8
            link_rate = "100Gbps"
            [switch]
            scheduler = "{scheduler}"
            [[workload]]
            kind = "flows"
            file = "ecmp.csv"
            lb = "ecmp"
            [[workload]]
            kind = "flows"
            file = "sprayed.csv"
            lb = "ops"
            "#
        );
        let files = [
            ("ecmp.csv", "src,dst,size,start\n0,4,1GB,0\n"),
            ("sprayed.csv", "src,dst,size,start\n1,5,1GB,0\n2,6,1GB,0\n3,7,1GB,0\n"),
        ];
        let mut s = common::sim_with_files(&toml, &files);
        s.run_until(dcnsim::Time::from_ms(1));
        let d0: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        s.run();
        let got: Vec<f64> = s.flows.iter().zip(&d0).map(|(f, d)| (f.receiver.delivered - d) as f64).collect();
        got[0] / got.iter().sum::<f64>()
    };
    let fifo = run("fifo");
    let drr = run("drr");
    eprintln!("ECMP flow's share: FIFO {fifo:.3}, DRR {drr:.3}");
    assert!((fifo - 0.25).abs() < 0.05, "FIFO share {fifo}");
    assert!((drr - 0.5).abs() < 0.05, "DRR share {drr}");
}

/// `topology.loss_links` and `loss_packets` (docs/models/faults.md; docs/reproductions/laps-paper.md, "Loss model"): on a 2-host star with
/// loss on every link, each port loses the packets crossing it with probability p
/// (binomial, checked within 4σ of p × its transmissions); with `loss_packets = "data"`
/// the ports that carry only ACKs lose nothing, and with the default `"all"` they lose
/// their share too. Every byte still arrives once.
#[test]
fn loss_on_every_link_and_for_data_only_hits_the_chosen_links_and_packets() {
    let p = 0.01;
    for packets in ["data", "all"] {
        let mut s = common::sim_with_files(
            &format!(
                r#"
            seed = 5
            [topology]
            kind = "star"
            hosts = 2
            link_rate = "10Gbps"
            loss_rate = {p}
            loss_links = "all"
            loss_packets = "{packets}"
            [transport]
            cc = "dctcp"
            rto_min = "200us"
            [[workload]]
            kind = "flows"
            file = "flows.csv"
            "#
            ),
            &[("flows.csv", "src,dst,size,start\n0,1,20MB,0\n")],
        );
        s.run();
        assert_all_delivered(&s);
        // Data crosses host 0's NIC and the switch's port to host 1; ACKs the other two.
        let data_ports = [s.routing.host_up_port[0], s.routing.host_down_port[1]];
        let ack_ports = [s.routing.host_up_port[1], s.routing.host_down_port[0]];
        for port in data_ports.iter().chain(if packets == "all" { &ack_ports[..] } else { &[] }) {
            let st = &s.ports[*port as usize].stats;
            let (n, k) = (st.tx_packets as f64, st.drops as f64);
            let sigma = (n * p * (1.0 - p)).sqrt();
            assert!(n > 2000.0, "port {port}: {n} packets");
            assert!(
                (k - n * p).abs() <= 4.0 * sigma,
                "{packets}: port {port} lost {k} of {n}, expected {:.1} ± {:.1}",
                n * p,
                4.0 * sigma
            );
        }
        if packets == "data" {
            for port in ack_ports {
                assert_eq!(s.ports[port as usize].stats.drops, 0, "ACK port {port} loses nothing");
            }
        }
    }
}

/// The memory estimate the builder checks before allocating the flows
/// (`build/memory.rs`) covers the per-flow state the run then holds, as the structures'
/// own sizes measure it (`Simulation::memory`, at the start and after the run), within a
/// factor of 3 (it bounds the boxed congestion-control state from above).
#[test]
fn the_memory_estimate_covers_the_flow_state_the_run_allocates() {
    for cc in ["dctcp", "nscc", "swift"] {
        let mut s = common::sim(&format!(
            r#"
            [topology]
            kind = "fat_tree"
            hosts = 16
            [transport]
            cc = "{cc}"
            [[workload]]
            kind = "all_to_all"
            size = "4KB"
            "#
        ));
        let flow_item = |s: &dcnsim::Simulation| {
            s.memory_estimate.iter().find(|i| i.name == "flow state").expect("a flow-state item").bytes
        };
        let estimated = flow_item(&s);
        let at_start = s.memory().flows;
        s.run();
        let after = s.memory().flows;
        eprintln!("{cc}: estimated {estimated} B for 240 flows; measured {at_start} B at the start, {after} B after");
        assert_eq!(s.flows.len(), 240);
        assert!(estimated >= after && estimated <= 3 * after, "{cc}: estimate {estimated}, measured {after}");
    }
}
