//! Invariants that must hold whatever the traffic: every byte of every finite flow is
//! delivered exactly once despite heavy loss, coalesced ACKs and failed links, and a
//! failed link never carries a packet.

mod common;

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
    let held: usize = s.ports.iter().map(|p| p.queue.len() + p.pipe.len()).sum();
    assert_eq!(s.arena.live(), held, "packets neither queued nor on a wire leaked");
}

#[test]
fn heavy_loss_is_repaired_by_fast_retransmit_and_timeouts() {
    for cc in ["newreno", "dctcp"] {
        let s = dumbbell_with_loss(0.05, 1, cc, "ecmp");
        assert_all_delivered(&s);
        assert!(s.counters.drops > 0);
        assert!(s.counters.timeouts > 0, "{cc}: 5% loss should cost some tail-loss timeouts");
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
    let dir = std::env::temp_dir().join(format!("dcnsim-stop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("f.csv"), "src,dst,size,start\n2,3,10MB,0\n").unwrap();
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
    let mut s = dcnsim::from_toml(toml, &dir).unwrap();
    s.run();
    let big = s.flows.iter().find(|f| !f.is_infinite()).unwrap();
    assert_eq!(big.receiver.delivered, 10_000_000);
    assert!(big.receiver.finish.is_some());
}
