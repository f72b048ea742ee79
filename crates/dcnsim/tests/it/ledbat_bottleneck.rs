//! LEDBAT on one bottleneck (RFC 6817 §2.4; docs/models/ledbat.md). The PrioPlus
//! micro-benchmarks' reference star: 100 Gbps, 3 µs links (base RTT ≈ 12 µs), 1 KB packets, per-packet
//! ACKs, a deep buffer, no ECN. LEDBAT's fixed point is off_target = 0, i.e. a queueing
//! delay equal to TARGET, with the link full; checked for the PrioPlus baseline's lowest and
//! highest datacenter targets (4 and 32 µs, PrioPlus paper §6.2) and 16 µs.

use crate::common;
use crate::common::LINE_100G as LINE;

use dcnsim::{Simulation, Time};

fn star(n: u32, target_us: u64) -> Simulation {
    common::sim(&format!(
        r#"
        {star}
        [transport]
        cc = "ledbat"
        rto_min = "5ms"
        [transport.ledbat]
        target = "{target_us}us"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = {n}
        size = "infinite"
        "#,
        star = common::reference_star("seed = 5\nduration = \"20ms\"", n + 1, "20MB"),
    ))
}

/// N ≥ 2 long flows into one host (with one sender the queue would sit in its own NIC,
/// which is as fast as the switch port): over [10, 20] ms the mean queueing delay at the bottleneck is
/// TARGET within max(10 %, 1 µs), and utilisation is ≥ 95 % (tolerances ours).
#[test]
fn ledbat_holds_the_queue_at_its_target() {
    for (n, target) in [(2u32, 16u64), (4, 4), (4, 16), (8, 32)] {
        let mut s = star(n, target);
        let warm = Time::from_ms(10);
        let port = s.routing.host_down_port[0] as usize;
        s.run_until(warm);
        s.ports[port].reset_stats(warm);
        s.run();
        let end = s.now();
        let p = &s.ports[port];
        let q_us = p.mean_queue_since(end, warm, 0) / LINE;
        let util = p.stats.tx_bytes as f64 / (LINE * (end - warm).as_us_f64());
        let goodputs: Vec<f64> = s.flows.iter().map(|f| f.receiver.delivered as f64).collect();
        let base = s.flows[0].base_rtt.as_us_f64();
        eprintln!(
            "N={n} TARGET {target} us: mean queue {q_us:.2} us, util {util:.4}, base RTT {base:.2} us, jain {:.4}",
            common::jain(&goodputs)
        );
        let t = target as f64;
        assert!((q_us - t).abs() <= (0.1 * t).max(1.0), "N = {n}: queue {q_us} us vs TARGET {t}");
        assert!(util >= 0.95, "N = {n}: utilisation {util}");
    }
}

/// PrioPlus over LEDBAT (docs/models/prioplus.md) on the reference star with 8 levels, AC7's
/// two-level setup: 10 low flows (level 2) from 0, 10 high flows (level 4) from 1 ms to
/// 3 ms. AC7 (a): from 2 ms to 3 ms the high aggregate is ≥ 95 % of the link and the low
/// one (data plus probes) ≤ 2 %; (c) the low flows are back to ≥ 95 % within 0.5 ms of the
/// high flows stopping. docs/reproductions/prioplus-paper.md states AC7 for PrioPlus over Swift;
/// the paper integrates LEDBAT the same way (§4, §6.2), so the same bounds are asked of it.
#[test]
fn prioplus_over_ledbat_preempts_strictly() {
    let mut s = common::sim(
        &(common::reference_star("seed = 3", 21, "20MB")
            + r#"
        [transport]
        cc = "prioplus"
        rto_min = "5ms"
        [transport.prioplus]
        levels = 8
        underlying = "ledbat"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 10
        size = "infinite"
        stop = "4ms"
        priority = 2
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 10
        size = "infinite"
        start = "1ms"
        stop = "3ms"
        priority = 4
        "#),
    );
    assert_eq!(common::observed(&s.flows[0], "ledbat_underlying"), 1.0);
    let high: Vec<bool> = s.flows.iter().map(|f| f.priority == 4).collect();
    let mut last: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    let step = 50u64; // µs
    let payload_fraction = (1000 - s.cfg.header_bytes) as f64 / 1000.0;
    let line = LINE * step as f64 * payload_fraction;
    let mut probe_bytes = 0u64;
    let mut back_at: Option<u64> = None;
    for t in (step..=3900).step_by(step as usize) {
        s.run_until(Time::from_us(t));
        let now: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        let d: Vec<f64> = now.iter().zip(&last).map(|(a, b)| (a - b) as f64).collect();
        last = now;
        let hi: f64 = d.iter().zip(&high).filter(|(_, &h)| h).map(|(b, _)| b).sum::<f64>() / line;
        let probes = s.counters.probe_bytes - probe_bytes;
        probe_bytes = s.counters.probe_bytes;
        let lo = d.iter().zip(&high).filter(|(_, &h)| !h).map(|(b, _)| b).sum::<f64>() / line
            + probes as f64 / (LINE * step as f64);
        eprintln!("t {t} µs: high {hi:.3}, low {lo:.4}");
        if t - step >= 2000 && t <= 3000 {
            assert!(hi >= 0.95, "t {t} µs: high share {hi:.3}");
            assert!(lo <= 0.02, "t {t} µs: low share {lo:.4}");
        }
        if t > 3000 && back_at.is_none() && lo >= 0.95 {
            back_at = Some(t);
        }
    }
    let back = back_at.expect("low flows never came back");
    assert!(back <= 3500, "low flows back at {back} µs, more than 0.5 ms after the high flows stopped");
}
