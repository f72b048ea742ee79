//! Delay noise (PrioPlus paper §4.3.2 and §6; docs/models/noise.md) reaches the algorithm, not the network: one
//! Swift flow alone on a 100 Gbps link runs at line rate without noise; with 20 µs of
//! uniform noise on every sample (far above Swift's ~1 µs of target headroom here) the
//! measured delay always looks congested, so the flow throttles itself although no queue
//! ever builds; and a bad noise section is refused with its field.

use crate::common;

fn run(noise: &str) -> (f64, u64) {
    let mut s = common::sim(&format!(
        r#"
        duration = "1ms"
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "1us"
        [transport]
        cc = "swift"
        initial_window = "bdp"
        {noise}
        [[workload]]
        kind = "permutation"
        hosts = [0, 1]
        size = "infinite"
        "#
    ));
    s.run();
    let gbps = s.flows[0].receiver.delivered as f64 * 8.0 / 1e-3 / 1e9;
    let max_queue = s.ports.iter().map(|p| p.stats.max_queue).max().unwrap();
    (gbps, max_queue)
}

#[test]
fn noise_slows_a_delay_based_sender_without_any_queue() {
    let (clean, _) = run("");
    let (noisy, queue) = run("delay_noise = { uniform = \"20us\" }");
    eprintln!("Swift alone: {clean:.1} Gbps clean, {noisy:.1} Gbps with 20 us noise (max queue {queue} B)");
    assert!(clean > 90.0, "{clean}");
    assert!(noisy < 0.5 * clean, "{noisy} vs {clean}");
}

#[test]
fn a_noise_section_without_a_source_is_refused() {
    let e = common::build_err(
        r#"
        [topology]
        kind = "star"
        hosts = 2
        [transport]
        delay_noise = { scale = 2.0 }
        [[workload]]
        kind = "permutation"
        size = "1MB"
        "#,
    );
    assert!(e.contains("transport.delay_noise.cdf"), "{e}");
}
