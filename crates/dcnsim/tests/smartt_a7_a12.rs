//! Spec `smartt-nscc.md` §6.2 A7 (RTT fairness, the paper's Fig. 6) and A12 (steady-state
//! queue target), NSCC in `smartt_paper` mode.
//!
//! Scaled for CI as `common/smartt.rs` describes (radix-6 fat tree with the paper's links
//! and buffers): long flows run 2 ms and are measured over the second millisecond; one
//! seed (the spec's ≥ 3 seeds belong to `dcnsim reproduce smartt`).

mod common;
use common::smartt::*;
use common::*;

use dcnsim::{Simulation, Time};

/// Runs to 1 ms, then to 2 ms; returns each flow's goodput over the second millisecond
/// (Gbps) and the receiver-0 downlink's mean queue over it (bytes).
fn second_millisecond(s: &mut Simulation) -> (Vec<f64>, f64) {
    let half = Time::from_ms(1);
    s.run_until(half);
    let before: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    let p = s.routing.host_down_port[0] as usize;
    let port = &s.ports[p];
    let integral = port.stats.queue_integral + port.queued_bytes as u128 * (half.0 - port.stats.last_change.0) as u128;
    let end = Time::from_ms(2);
    s.run_until(end);
    let gbps = s.flows.iter().zip(&before).map(|(f, b)| (f.receiver.delivered - b) as f64 * 8.0 / 1e-3 / 1e9).collect();
    (gbps, s.ports[p].mean_queue_since(end, half, integral))
}

/// A7: two long flows into host 0, one from host 1 (same rack: base RTT 3.284 µs) and one
/// from host 53 (another pod: 11.453 µs), a 3.5× RTT ratio. With Fair Increase (the
/// increase constants scaled by each path's BDP) the throughput ratio lies in
/// [0.75, 1.33]; with plain additive increase (`bdp_scaling = false`) the short-RTT flow
/// gets at least twice the long one's (the spec's bounds; Fig. 6: FI ≈ equal, AI ∝ 1/RTT).
///
/// Does not hold, so the test is ignored (run it with `--ignored`). Measured (seed 1):
/// with FI the short-RTT flow gets 10.7 Gbps and the long one 777 Gbps (ratio 0.01);
/// without scaling 7.8 vs 780. The cause is not the increase rule but the per-path target
/// (spec §2.12, paper mode: trtt = 1.5 × the flow's own base RTT): the long flow holds the
/// shared queue near its target, 0.5 × 11.45 = 5.7 µs of queueing, which puts the short
/// flow's RTT (3.28 + 5.7 µs) above its own target (4.93 µs) on every ACK, so it only
/// ever decreases. FI can equalise throughput only among flows that aim at the same
/// queueing delay. With an absolute target (`nscc_htsim`, network RTT 11.453 µs for both)
/// the short flow is not starved but the ratio is 0.67 (315.8 vs 471.9 Gbps) either way,
/// as htsim's increase constants are network-wide. Which target the paper's Fig. 6 used
/// is not stated; spec §7.3 should decide. A shared queueing target in paper mode
/// (`target_queue_rtt = "11.453us"` for both: each aims at 5.73 µs of queueing) does not
/// equalise either: 146 vs 642 Gbps (0.23) with FI, 235 vs 552 (0.43) without scaling.
/// Under FI both windows grow by the same bytes per second, but MD may cut once per
/// *own* base RTT, so the short flow is cut 3.5× as often.
///
/// What the paper's Fig. 6 claim needs (a fluid reading, 2026-11-25): AIMD settles where
/// each flow's increase per second equals its decrease per second. FI adds fi·MTU per own
/// RTT with fi ∝ the path's BDP, i.e. ∝ brtt_i/RTT_i bytes per second; if both flows are cut
/// by the same fraction once per own RTT, the cuts remove ∝ cwnd_i/RTT_i per second, so
/// cwnd_i ∝ brtt_i ("cwnds proportional to their base RTTs", §III-C) and throughput_i ∝
/// brtt_i/(brtt_i + q) for a shared queueing delay q. Plain AI gives equal windows and
/// throughput ∝ 1/RTT_i, as the paper says. So the claim holds only if (1) both flows see
/// the same cut fraction, which a per-path target (trtt_i = 1.5·brtt_i) breaks for any
/// shared q (the short flow's fraction is larger, down to starvation, as measured), and
/// (2) the cuts come once per own RTT, not per base RTT; and even then the ratio reaches
/// the spec's [0.75, 1.33] at this 3.5× RTT ratio only for q below about 1.8 µs, well under
/// the target queueing of either mode (5.7 µs paper, 8.6 µs htsim). The spec's bound needs
/// a decision on the target and the MD cadence before this test can hold.
#[test]
#[ignore = "spec A7 does not hold with per-path targets; see the doc comment"]
fn a7_fair_increase_equalises_throughput_across_rtts() {
    let flows = [("flows.csv", "src,dst,size,start\n1,0,10GB,0\n53,0,10GB,0\n")];
    let mut ratios = Vec::new();
    for scaling in [true, false] {
        let toml = scenario(
            true,
            &format!("nscc = {{ bdp_scaling = {scaling} }}"),
            "[[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"",
            "2ms",
        );
        let mut s = sim_with_files(&toml, &flows);
        let brtt: Vec<f64> = s.flows.iter().map(|f| f.base_rtt.as_us_f64()).collect();
        assert!((brtt[0] - BRTT_INTRA_RACK_US).abs() < 0.01 && (brtt[1] - BRTT_INTER_POD_US).abs() < 0.01, "{brtt:?}");
        let (gbps, _) = second_millisecond(&mut s);
        let ratio = gbps[0] / gbps[1];
        eprintln!(
            "A7 bdp_scaling = {scaling}: short-RTT {:.1} Gbps, long-RTT {:.1} Gbps, ratio {ratio:.2}",
            gbps[0], gbps[1]
        );
        ratios.push(ratio);
    }
    assert!((0.75..=1.33).contains(&ratios[0]), "Fair Increase: ratio {:.2}", ratios[0]);
    assert!(ratios[1] >= 2.0, "plain additive increase: ratio {:.2}", ratios[1]);
}

/// A12: one long-lived 8:1 incast from hosts in other pods (all at the inter-pod base RTT,
/// 11.453 µs). SMaRTT aims its RTT at 1.5 × base RTT, so the bottleneck should hold
/// trtt − brtt = 5.73 µs of queueing (a half-full 1-BDP queue); the spec's bound is ±30 %.
#[test]
fn a12_queue_sits_at_the_target_delay() {
    let senders = [9, 15, 20, 27, 33, 40, 45, 52];
    let csv: String = std::iter::once("src,dst,size,start".to_string())
        .chain(senders.iter().map(|h| format!("{h},0,10GB,0")))
        .collect::<Vec<_>>()
        .join("\n");
    let toml = scenario(true, "", "[[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"", "2ms");
    let mut s = sim_with_files(&toml, &[("flows.csv", &csv)]);
    assert!(s.flows.iter().all(|f| (f.base_rtt.as_us_f64() - BRTT_INTER_POD_US).abs() < 0.01));
    let (gbps, mean_queue) = second_millisecond(&mut s);
    let delay_us = mean_queue * 8.0 / LINK_BPS * 1e6;
    let target_us = 0.5 * BRTT_INTER_POD_US;
    eprintln!(
        "A12: mean queueing delay {delay_us:.2} us vs trtt - brtt = {target_us:.2} us; total {:.1} Gbps",
        gbps.iter().sum::<f64>()
    );
    assert!((delay_us - target_us).abs() <= 0.3 * target_us, "queueing delay {delay_us:.2} us");
}
