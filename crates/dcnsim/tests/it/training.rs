//! `kind = "training"`: data-parallel training as docs/reproductions/prioplus-paper.md (F12C)
//! models it,
//! iterations of compute followed by a ring all-reduce in which every worker sends
//! 2(n − 1)/n × the gradient to its ring successor, the next iteration computing once every
//! transfer is delivered. Checked against hand-computed times on a star of 3 hosts
//! (100 Gbps, 1 µs links, 4160 B packets, line-rate senders: nothing queues).

use crate::common;

use dcnsim::stats::Column;

/// One 4096 B payload + 64 B header at 100 Gbps: 0.3328 µs.
const PKT_US: f64 = 4160.0 * 8.0 / 100e9 * 1e6;
/// A 64 B ACK at 100 Gbps.
const ACK_US: f64 = 64.0 * 8.0 / 100e9 * 1e6;
/// 2 × (3 − 1)/3 × 307,200 B = 409,600 B = 100 full packets per worker and iteration.
const GRADIENT: u64 = 307_200;
const COMPUTE_US: f64 = 50.0;

/// A transfer runs alone on its links (the three go to distinct receivers): 100 packets,
/// one more serialisation on the second hop and 2 µs of links, plus at most the ACKs of
/// the transfer its sender receives meanwhile, which share its uplink.
const TRANSFER_US: (f64, f64) = (101.0 * PKT_US + 2.0, 101.0 * PKT_US + 2.0 + 100.0 * ACK_US);

fn scenario(extra: &str, workload: &str) -> String {
    format!(
        r#"
        {extra}
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4160B"
        [transport]
        cc = "none"
        header = "64B"
        [[workload]]
        kind = "training"
        hosts = [0, 1, 2]
        size = {GRADIENT}
        compute = "{COMPUTE_US}us"
        {workload}
        "#
    )
}

fn groups(s: &dcnsim::Simulation) -> Vec<i64> {
    match s.flow_table().column("group") {
        Some(Column::I64(g)) => g.clone(),
        other => panic!("no integer group column: {other:?}"),
    }
}

#[test]
fn each_iteration_computes_then_all_reduces_around_the_ring() {
    let mut s = common::sim(&scenario("", "start = \"10us\"\niterations = 4"));
    s.run();
    assert_eq!(s.flows.len(), 12, "3 workers × 4 iterations");
    let group = groups(&s);
    let mut previous_end = 10.0;
    for it in 0..4 {
        let flows: Vec<_> = s.flows.iter().filter(|f| group[f.id as usize] == it).collect();
        assert_eq!(flows.len(), 3);
        let mut ends = Vec::new();
        for f in &flows {
            assert_eq!((f.dst + 3 - f.src) % 3, 1, "to the ring successor");
            assert_eq!(f.size, 409_600, "2(n − 1)/n of the gradient");
            let start = f.start.as_us_f64();
            assert!(
                (start - (previous_end + COMPUTE_US)).abs() < 1e-6,
                "iteration {it} starts one compute after the previous all-reduce: {start} vs {previous_end} + {COMPUTE_US}"
            );
            let end = f.receiver.finish.expect("every iteration finishes").as_us_f64();
            let took = end - start;
            assert!((TRANSFER_US.0..=TRANSFER_US.1).contains(&took), "alone on its path: {took} µs");
            ends.push(end);
        }
        previous_end = ends.iter().cloned().fold(f64::MIN, f64::max);
    }
}

/// Without `iterations`, every iteration whose compute could begin before `duration` is
/// generated; those that the run ends before never start. An iteration takes 50 µs of
/// compute plus one transfer (85.6–86.1 µs), so by 500 µs five are complete, the sixth is
/// under way (it started at ≈ 480 µs) and the other four never began.
#[test]
fn a_run_of_fixed_duration_completes_the_iterations_that_fit() {
    let mut s = common::sim(&scenario("duration = \"500us\"", ""));
    s.run();
    assert_eq!(s.flows.len(), 30, "⌊500 / 50⌋ = 10 iterations generated");
    let period = (COMPUTE_US + TRANSFER_US.0, COMPUTE_US + TRANSFER_US.1);
    let complete = (500.0 / period.1).floor() as i64;
    assert_eq!(complete, (500.0 / period.0).floor() as i64, "the bound is tight at this duration");
    let group = groups(&s);
    let done = |it: i64| s.flows.iter().filter(|f| group[f.id as usize] == it).all(|f| f.receiver.finish.is_some());
    let completed = (0..10).filter(|&it| done(it)).count() as i64;
    assert_eq!(completed, complete);
    let started = s.flows.iter().filter(|f| f.started).count() as i64;
    assert_eq!(started, 3 * (complete + 1), "the next iteration is under way, no later one began");
}

#[test]
fn bad_training_input_names_the_field() {
    let e = common::build_err(&scenario("", "iterations = 0"));
    assert!(e.contains("workload[0].iterations") && e.contains("1 or more"), "{e}");
    let e = common::build_err(&scenario("", "").replace("compute = \"50us\"", ""));
    assert!(e.contains("workload[0].compute") && e.contains("required"), "{e}");
    let e = common::build_err(&scenario("", ""));
    assert!(e.contains("workload[0].iterations") && e.contains("duration"), "{e}");
    let e = common::build_err(&scenario("", "iterations = 2\nwindow = 2"));
    assert!(e.contains("workload[0].window") && e.contains("compute, iterations"), "{e}");
}
