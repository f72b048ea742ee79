//! A 32 × 1 MB incast into one host of a 128-host fat tree at 100 Gbps with DCTCP (the
//! scenario defaults: 1 MB port buffers, K = 100 KB, initial window 10 packets). The
//! receiver's link is the bottleneck, so no schedule can finish before
//! 32 MB / link rate + base RTT; DCTCP must come within 1.3× of that, and share the
//! link: no sender may be starved while the others finish.

use crate::common;

#[test]
fn dctcp_incast_32_to_1_finishes_near_the_bound_without_starvation() {
    let mut s = common::sim(
        r#"
        seed = 4
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 128
        link_rate = "100Gbps"
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "incast"
        senders = 32
        receiver = 0
        size = "1MB"
        "#,
    );
    s.run();
    let t = s.flow_table();
    let fct = t.f64s("fct_us");
    assert!(fct.iter().all(|x| x.is_finite()), "every flow finishes");
    let base_rtt_us = s.flows.iter().map(|f| f.base_rtt.as_us_f64()).fold(0.0, f64::max);
    let bound_us = 32.0 * 1e6 * 8.0 / 100e9 * 1e6 + base_rtt_us;
    let last = fct.iter().cloned().fold(0.0, f64::max);
    let first = fct.iter().cloned().fold(f64::INFINITY, f64::min);
    let drops = s.counters.drops;
    eprintln!(
        "last {last:.1} us, first {first:.1} us, bound {bound_us:.1} us, ratio {:.3}, drops {drops}",
        last / bound_us
    );
    assert!(last <= 1.3 * bound_us, "last flow {last} us vs bound {bound_us} us");
    // Starvation: under a fair share all flows finish together; a starved sender would
    // finish long after the first ones.
    assert!(first >= 0.5 * last, "first flow done at {first} us, last at {last} us: the share was not fair");
}
