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
        assert!(
            f.receiver.finish.is_some(),
            "flow {} unfinished ({} of {} bytes)",
            f.id,
            f.receiver.delivered,
            f.size
        );
        assert_eq!(
            f.receiver.delivered, f.size,
            "flow {} delivered each byte once",
            f.id
        );
    }
    // The run ends when the last byte arrives, with some ACKs still on their way; every
    // packet the arena still holds must be in some queue or on some wire (no leak).
    let held: usize = s.ports.iter().map(|p| p.queue.len() + p.pipe.len()).sum();
    assert_eq!(
        s.arena.live(),
        held,
        "packets neither queued nor on a wire leaked"
    );
}

#[test]
fn heavy_loss_is_repaired_by_fast_retransmit_and_timeouts() {
    for cc in ["newreno", "dctcp"] {
        let s = dumbbell_with_loss(0.05, 1, cc, "ecmp");
        assert_all_delivered(&s);
        assert!(s.counters.drops > 0);
        assert!(
            s.counters.timeouts > 0,
            "{cc}: 5% loss should cost some tail-loss timeouts"
        );
        let retx: u64 = s.flows.iter().map(|f| f.sender.retransmits).sum();
        assert!(
            retx >= s.counters.drops / 2,
            "{cc}: lost data is retransmitted"
        );
    }
}

#[test]
fn coalesced_acks_deliver_everything() {
    for ratio in [2, 4] {
        let s = dumbbell_with_loss(0.01, ratio, "dctcp", "ecmp");
        assert_all_delivered(&s);
        assert!(
            s.counters.ack_packets < s.counters.data_packets,
            "ack_ratio {ratio} sends fewer ACKs than data"
        );
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
        assert_eq!(
            s.ports[p].stats.tx_packets, 0,
            "failed port {p} transmitted"
        );
    }
}
