//! Unit tests of Swift, LSwift and MSwift (docs/models/swift.md), against figures worked by hand.

use super::*;
use crate::cc::test_ack;

const MTU: u64 = 1500;

fn info() -> FlowInfo {
    crate::cc::test_info(MTU, 10 * MTU, Time::from_us(100), 2, Rate::gbps(1), 1_000_000)
}

fn swift(p: SwiftParams, cwnd: f64) -> Swift {
    let mut s = Swift::new(&p, Variant::Swift, &info());
    s.cwnd = cwnd;
    s
}

fn ack_at(now: Time, rtt: Time) -> AckSample {
    AckSample { now, rtt, ..test_ack(1, 10, MTU, false) }
}

fn fixed(target_us: u64) -> SwiftParams {
    SwiftParams {
        fixed_target: Some(TimeVal(Time::from_us(target_us))),
        fs_range: TimeVal(Time::ZERO),
        ..Default::default()
    }
}

/// `level_targets`: the base target by priority level (level 1 first, the last entry
/// for higher levels), over the flow's unloaded RTT; no level keeps `base_target`;
/// `fixed_target` still wins; an empty list is refused.
#[test]
fn level_targets_pick_the_base_target_by_priority() {
    let p = SwiftParams {
        fs_range: TimeVal(Time::ZERO),
        level_targets: Some(vec![TimeVal(Time::from_us(5)), TimeVal(Time::from_us(15))]),
        ..Default::default()
    };
    let at = |level: u8, p: &SwiftParams| {
        Swift::new(p, Variant::Swift, &FlowInfo { priority: level, levels: 2, ..info() }).target(1.0)
    };
    assert_eq!(at(1, &p), Time::from_us(105));
    assert_eq!(at(2, &p), Time::from_us(115));
    assert_eq!(at(3, &p), Time::from_us(115));
    assert_eq!(at(0, &p), Time::from_us(101), "no level: base_target (1 us)");
    let fixed = SwiftParams { fixed_target: Some(TimeVal(Time::from_us(40))), ..p.clone() };
    assert_eq!(at(2, &fixed), Time::from_us(40));
    let empty = SwiftParams { level_targets: Some(vec![]), ..p };
    assert_eq!(empty.validate().unwrap_err().0, "level_targets");
}

/// Once per RTT holds before the first RTT sample too, with the path's unloaded RTT
/// (100 µs here): NACKs for every packet of a trimmed first window cut it once, and
/// the next cut waits one unloaded RTT.
#[test]
fn losses_before_any_rtt_sample_cut_once_per_unloaded_rtt() {
    let mut s = swift(fixed(200), 64.0);
    for us in 1..=40 {
        s.on_loss(&crate::cc::LossEvent { now: Time::from_us(us), ..crate::cc::test_loss(0, 64) });
    }
    assert_eq!(s.cwnd_pkts(), 32.0, "40 losses within 40 us: one halving");
    s.on_loss(&crate::cc::LossEvent { now: Time::from_us(101), ..crate::cc::test_loss(0, 64) });
    assert_eq!(s.cwnd_pkts(), 16.0, "one unloaded RTT later: the next");
}

/// docs/reproductions/dctcp-vs-swift-paper.md, A5: ai = 1 gives 10 → 10.1 and 0.5 → 1.5 for one ACKed packet.
#[test]
fn a5_additive_increase() {
    let mut s = swift(fixed(200), 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(100)));
    assert!((s.cwnd_pkts() - 10.1).abs() < 1e-12);
    let mut s = swift(fixed(200), 0.5);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(100)));
    assert!((s.cwnd_pkts() - 1.5).abs() < 1e-12);
}

/// `rtt_resolution` (the DCTCP-vs-Swift study's millisecond timestamps): 0.7 ms reads
/// as 1 µs, 2.3 ms as 2 ms; with max_mdf = 1 (the study's) a delay far above the
/// target takes the window to `min_cwnd_pkts` in one step; max_mdf above 1 is refused.
#[test]
fn millisecond_rtts_and_a_whole_max_mdf() {
    let p =
        SwiftParams { rtt_resolution: Some(TimeVal(Time::from_ms(1))), max_mdf: 1.0, min_cwnd_pkts: 1.0, ..fixed(100) };
    assert!(p.validate().is_ok());
    let mut s = swift(p.clone(), 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(700)));
    assert_eq!(s.srtt, Some(Time::from_us(1)));
    assert!(s.cwnd_pkts() > 10.0, "a 1 us sample is below the 100 us target: increase");
    let mut s = swift(p.clone(), 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(2300)));
    assert_eq!(s.srtt, Some(Time::from_ms(2)));
    // (2000 - 100) / 2000 × β 0.8 = 0.76: × 0.24 = 2.4 packets, above max_mdf's floor.
    assert!((s.cwnd_pkts() - 2.4).abs() < 1e-9, "{}", s.cwnd_pkts());
    let mut s = swift(SwiftParams { beta: 4.0, ..p.clone() }, 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(2300)));
    assert_eq!(s.cwnd_pkts(), 1.0, "β 4: 1 - 3.04 < 0, capped by max_mdf = 1, then the 1-packet floor");
    assert_eq!(SwiftParams { max_mdf: 1.5, ..p }.validate().unwrap_err().0, "max_mdf");
}

/// A6: β = 0.8, max_mdf = 0.5: delay 2×target → ×0.6; 10×target → capped ×0.5; a
/// second decrease within one RTT is suppressed.
#[test]
fn a6_multiplicative_decrease_once_per_rtt() {
    let mut s = swift(fixed(100), 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(200)));
    assert!((s.cwnd_pkts() - 6.0).abs() < 1e-9, "{}", s.cwnd_pkts());
    let mut s = swift(fixed(100), 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(1000)));
    assert!((s.cwnd_pkts() - 5.0).abs() < 1e-9);
    // srtt is now 1000 us: another high-delay ACK 500 us later may not decrease...
    s.on_ack(&ack_at(Time::from_us(501), Time::from_us(1000)));
    assert!((s.cwnd_pkts() - 5.0).abs() < 1e-9);
    // ...but one more than an RTT after the first decrease may.
    s.on_ack(&ack_at(Time::from_us(1100), Time::from_us(1000)));
    assert!(s.cwnd_pkts() < 5.0);
}

/// A7: flow scaling fs(w) = α/√w + β with fs(0.1) = range and fs(100) = 0; checked
/// against the closed form for range = 100 us (the study's values).
#[test]
fn a7_target_flow_scaling() {
    let p = SwiftParams {
        fixed_target: Some(TimeVal(Time::from_us(50))),
        fs_range: TimeVal(Time::from_us(100)),
        ..Default::default()
    };
    let s = swift(p, 1.0);
    let alpha = 100.0 / (1.0 / 0.1f64.sqrt() - 1.0 / 100f64.sqrt());
    let beta = -alpha / 10.0;
    for (w, expect) in [
        (0.01, 100.0),
        (0.1, 100.0),
        (0.5, alpha / 0.5f64.sqrt() + beta),
        (1.0, alpha + beta),
        (10.0, alpha / 10f64.sqrt() + beta),
        (100.0, 0.0),
        (1000.0, 0.0),
    ] {
        let fs = s.target(w).as_us_f64() - 50.0;
        assert!((fs - expect).abs() < 1e-3, "fs({w}) = {fs}, expected {expect}");
    }
    // Spot values of the flow-scaling formula: fs(1) = 29.39 us, fs(10) = 7.06 us.
    assert!((s.target(1.0).as_us_f64() - 50.0 - 29.39).abs() < 0.01);
    assert!((s.target(10.0).as_us_f64() - 50.0 - 7.06).abs() < 0.01);
    // Without a fixed target: base_target + hops x per_hop.
    let p =
        SwiftParams { per_hop: Some(TimeVal(Time::from_us(10))), fs_range: TimeVal(Time::ZERO), ..Default::default() };
    assert_eq!(swift(p, 5.0).target(5.0), Time::from_us(1 + 2 * 10));
}

/// The study's min-RTT targets (the study's Swift(baseRTT) and Swift(baseRTT + ε),
/// docs/reproductions/dctcp-vs-swift-paper.md): the target is the smallest
/// RTT sample so far plus the offset. Offset 0 with exact RTTs never increases (a
/// sample is never below its own minimum: the degenerate Swift(baseRTT) of docs/reproductions/dctcp-vs-swift-paper.md);
/// offset 1 ms increases while the RTT stays below min + 1 ms.
#[test]
fn min_rtt_target_tracks_the_smallest_sample() {
    let base_rtt = SwiftParams { target_mode: TargetMode::MinRtt, fs_range: TimeVal(Time::ZERO), ..Default::default() };
    let mut s = swift(base_rtt.clone(), 10.0);
    for (i, rtt_us) in [300u64, 200, 250, 200].into_iter().enumerate() {
        s.on_ack(&ack_at(Time::from_ms(i as u64 + 1), Time::from_us(rtt_us)));
        assert!(s.cwnd_pkts() <= 10.0, "no increase at {rtt_us} us");
    }
    assert_eq!(s.target(10.0), Time::from_us(200));
    let eps = SwiftParams { min_rtt_offset: TimeVal(Time::from_ms(1)), ..base_rtt };
    let mut s = swift(eps, 10.0);
    s.on_ack(&ack_at(Time::from_us(1), Time::from_us(200)));
    assert_eq!(s.target(10.0), Time::from_us(1200));
    assert!((s.cwnd_pkts() - 10.1).abs() < 1e-12, "200 us < 1.2 ms: additive increase");
    // An RTT of 2.4 ms is twice the target: × (1 − 0.8 · 0.5) = × 0.6.
    s.on_ack(&ack_at(Time::from_ms(10), Time::from_us(2400)));
    assert!((s.cwnd_pkts() - 10.1 * 0.6).abs() < 1e-9, "{}", s.cwnd_pkts());
    let clash = SwiftParams {
        target_mode: TargetMode::MinRtt,
        fixed_target: Some(TimeVal(Time::from_ms(1))),
        ..Default::default()
    };
    assert_eq!(clash.validate().unwrap_err().0, "target_mode");
}

/// A8: cwnd 0.25 packets at an RTT of 100 us paces packets at least 400 us apart.
#[test]
fn a8_pacing_below_one_packet() {
    let mut s = swift(fixed(1000), 0.25);
    assert_eq!(s.pacing_rate(), None, "no RTT estimate yet");
    s.srtt = Some(Time::from_us(100));
    let gap = s.pacing_rate().unwrap().serialization(MTU);
    assert!(gap >= Time::from_us(400) && gap < Time::from_us(401), "{gap}");
    s.cwnd = 2.0;
    assert_eq!(s.pacing_rate(), None, "window mode above one packet");
}

/// `pacing_rtt = "base"` (the PrioPlus artefact's): below one packet, one packet per unloaded
/// RTT / W, whatever the smoothed RTT. Unloaded RTT 100 µs, MTU 1500 B: W = 0.25 packet sends
/// one packet per 400 µs (30 Mb/s), also before any sample and with a starved flow's smoothed
/// RTT of 6 ms, where the default waits 6 ms / 0.25 = 24 ms; from one packet up, no pacing.
#[test]
fn base_pacing_rtt_ignores_the_smoothed_rtt() {
    let mut s = swift(SwiftParams { pacing_rtt: PacingRtt::Base, ..fixed(1000) }, 0.25);
    assert_eq!(s.pacing_rate(), Some(Rate(30_000_000)), "before any RTT sample");
    s.srtt = Some(Time::from_ms(6));
    assert_eq!(s.pacing_rate(), Some(Rate(30_000_000)), "a starved flow's smoothed RTT of 6 ms");
    let gap = s.pacing_rate().unwrap().serialization(MTU);
    assert!(gap >= Time::from_us(400) && gap < Time::from_us(401), "{gap}");
    s.cwnd = 1.0;
    assert_eq!(s.pacing_rate(), None, "window mode from one packet");
    let mut d = swift(fixed(1000), 0.25);
    d.srtt = Some(Time::from_ms(6));
    let gap = d.pacing_rate().unwrap().serialization(MTU);
    assert!(gap >= Time::from_ms(24) && gap < Time::from_us(24_001), "{gap}");
}

/// `last_decrease_update = "lt_sample"` (the PrioPlus artefact's): after a decrease the next one
/// waits that ACK's RTT sample, not the smoothed RTT and not the latest sample. Fixed target
/// 20 µs; ten ACKs of 10 µs (increases) make the smoothed RTT 10 µs; an ACK of 60 µs at 100 µs
/// decreases, and the smoothed RTT becomes (7·10 + 60)/8 = 16.25 µs. A 10 µs ACK at 120 µs
/// increases (smoothed RTT (7·16.25 + 10)/8 = 15.47 µs). A 60 µs ACK at 130 µs: "lt" decreases
/// (30 µs ≥ 15.47), and so would a gate on the latest sample (30 ≥ 10); "lt_sample" does not
/// (30 < 60). At 161 µs "lt_sample" does (61 ≥ 60).
#[test]
fn lt_sample_waits_the_decreasing_acks_rtt() {
    let run = |clock: LastDecreaseUpdate| {
        let mut s = swift(SwiftParams { last_decrease_update: clock, ..fixed(20) }, 10.0);
        for us in 1..=10 {
            s.on_ack(&ack_at(Time::from_us(us), Time::from_us(10)));
        }
        let w0 = s.cwnd;
        s.on_ack(&ack_at(Time::from_us(100), Time::from_us(60)));
        let w1 = s.cwnd;
        assert!(w1 < w0, "{clock:?}: the 60 µs ACK decreases");
        assert_eq!(s.srtt, Some(Time(16_250_000)));
        s.on_ack(&ack_at(Time::from_us(120), Time::from_us(10)));
        let w1 = s.cwnd;
        s.on_ack(&ack_at(Time::from_us(130), Time::from_us(60)));
        let w2 = s.cwnd;
        s.on_ack(&ack_at(Time::from_us(161), Time::from_us(60)));
        (w1, w2, s.cwnd)
    };
    let (w1, w2, w3) = run(LastDecreaseUpdate::Lt);
    assert!(w2 < w1 && w3 < w2, "lt: {w1} {w2} {w3}");
    let (w1, w2, w3) = run(LastDecreaseUpdate::LtSample);
    assert!(w2 == w1 && w3 < w2, "lt_sample: {w1} {w2} {w3}");
}

/// `"lt_sample"` before any RTT sample: a loss cuts, and while no sample has arrived the next
/// decrease waits the path's unloaded RTT (100 µs here), as "once per RTT" does before the
/// first sample.
#[test]
fn lt_sample_before_any_sample_waits_the_unloaded_rtt() {
    let mut s = swift(SwiftParams { last_decrease_update: LastDecreaseUpdate::LtSample, ..fixed(20) }, 64.0);
    s.on_loss(&crate::cc::LossEvent { now: Time::from_us(1), ..crate::cc::test_loss(0, 64) });
    let w1 = s.cwnd;
    assert!(w1 < 64.0);
    s.on_loss(&crate::cc::LossEvent { now: Time::from_us(100), ..crate::cc::test_loss(1, 64) });
    assert_eq!(s.cwnd, w1, "99 µs after the cut: blocked");
    s.on_loss(&crate::cc::LossEvent { now: Time::from_us(101), ..crate::cc::test_loss(2, 64) });
    assert!(s.cwnd < w1, "100 µs after the cut: allowed");
}

/// A9: after retx_reset_threshold consecutive timeouts the window is min_cwnd; an ACK
/// resets the count.
#[test]
fn a9_repeated_timeouts_reset_the_window() {
    let mut s = swift(fixed(1000), 100.0);
    for i in 0..4 {
        s.on_timeout(Time::from_ms(10 * (i + 1)), 0);
    }
    assert!(s.cwnd_pkts() > s.p.min_cwnd_pkts);
    s.on_ack(&ack_at(Time::from_ms(50), Time::from_us(100)));
    for i in 0..4 {
        s.on_timeout(Time::from_ms(60 + 10 * i), 0);
    }
    assert!(s.cwnd_pkts() > s.p.min_cwnd_pkts, "the ACK reset the count");
    s.on_timeout(Time::from_ms(200), 0);
    assert_eq!(s.cwnd_pkts(), s.p.min_cwnd_pkts);
}

fn loss(now: Time, runs: &[(u32, u32)]) -> LossEvent<'_> {
    LossEvent { now, cum_ack: 0, snd_nxt: 100, in_flight: 0, newly_lost: &[], runs }
}

/// With confirmed evidence, declared holes never cut; a confirmed run of `loss_run`
/// does, once.
#[test]
fn lswift_confirmed_evidence_ignores_declared_holes() {
    let p = SwiftParams { loss_evidence: LossEvidence::Confirmed, ..SwiftParams::default() };
    let mut l = Swift::new(&p, Variant::LSwift, &info());
    l.cwnd = 100.0;
    l.on_loss(&loss(Time::from_us(100), &[(10, 30)]));
    assert_eq!(l.cwnd_pkts(), 100.0, "a declared run of 21 may be reordering");
    l.on_loss_confirmed(Time::from_us(100), &[(10, 13)]);
    assert_eq!(l.cwnd_pkts(), 100.0, "4 confirmed losses are not a run of 5");
    l.on_loss_confirmed(Time::from_us(100), &[(10, 14)]);
    assert_eq!(l.cwnd_pkts(), 50.0, "5 confirmed losses are congestion");
    l.on_loss_confirmed(Time::from_us(500), &[(10, 15)]);
    assert_eq!(l.cwnd_pkts(), 50.0, "the same run grown is not a new signal");
}

/// Swift cuts on any loss; LSwift (declared evidence, docs/reproductions/mswift-paper.md's reading) only on a run
/// of `loss_run` consecutive losses, once.
#[test]
fn lswift_forgives_isolated_losses() {
    let mut s = swift(fixed(1000), 100.0);
    s.on_loss(&loss(Time::from_ms(1), &[(7, 7)]));
    assert_eq!(s.cwnd_pkts(), 50.0);
    let declared = SwiftParams { loss_evidence: LossEvidence::Declared, ..fixed(1000) };
    let mut l = Swift::new(&declared, Variant::LSwift, &info());
    l.cwnd = 100.0;
    l.on_loss(&loss(Time::from_ms(1), &[(7, 7), (9, 12)]));
    assert_eq!(l.cwnd_pkts(), 100.0, "runs of 1 and 4 are reordering");
    l.on_loss(&loss(Time::from_ms(2), &[(20, 24)]));
    assert_eq!(l.cwnd_pkts(), 50.0, "a run of 5 is congestion");
    l.on_loss(&loss(Time::from_ms(30), &[(20, 26)]));
    assert_eq!(l.cwnd_pkts(), 50.0, "the same run grown is not a new signal");
}

/// MSwift decides on the median of the last H = max(⌊cwnd/2⌋, 1) delays: a high delay
/// on one ACK in four never decreases the window (docs/reproductions/mswift-paper.md, A6/A7).
#[test]
fn mswift_ignores_a_minority_of_slow_samples() {
    let mut m = Swift::new(&fixed(50), Variant::MSwift, &info());
    m.cwnd = 40.0;
    let mut swift_cuts = swift(fixed(50), 40.0);
    for i in 0..400u64 {
        let rtt = if i % 4 == 3 { Time::from_us(500) } else { Time::from_us(20) };
        let now = Time::from_us(25 * i + 1);
        m.on_ack(&ack_at(now, rtt));
        swift_cuts.on_ack(&ack_at(now, rtt));
    }
    assert_eq!(m.delay_md, 0);
    assert!(m.cwnd_pkts() > 40.0);
    assert!(swift_cuts.delay_md > 10 && swift_cuts.cwnd_pkts() < 40.0);
}

/// The DCTCP-vs-Swift study's Swift in packets of 1500 B (docs/reproductions/dctcp-vs-swift-paper.md,
/// "Profiles"): ai 2, β 4, max_mdf 1, windows 2000 B to 60000 B, here with a 0.25 s target, so
/// every ACK asks for an increase.
fn study(last_decrease_update: LastDecreaseUpdate, recovery: Recovery) -> SwiftParams {
    SwiftParams {
        ai: 2.0,
        beta: 4.0,
        max_mdf: 1.0,
        min_cwnd_pkts: 2000.0 / 1500.0,
        max_cwnd_pkts: 40.0,
        last_decrease_update,
        recovery,
        ..fixed(250_000)
    }
}

fn loss_at(now: Time, cum_ack: u32, snd_nxt: u32, in_flight_pkts: u64) -> LossEvent<'static> {
    LossEvent { now, cum_ack, snd_nxt, in_flight: in_flight_pkts * MTU, newly_lost: &[], runs: &[] }
}

fn ack_cum(now: Time, cum_ack: u32, snd_nxt: u32) -> AckSample {
    AckSample { now, rtt: Time::from_ms(1), ..test_ack(cum_ack, snd_nxt, MTU, false) }
}

/// `last_decrease_update = "le"`: a flow at max_cwnd (40 packets) gets an ACK every 25 µs,
/// 1/40 of its 1 ms RTT, for 2 ms. Each one's increase is clamped back to 40, which restarts
/// the clock, so a loss 25 µs after the last ACK finds the clock 25 µs old, under the 1 ms
/// sample: no cut, and the blocked cut restarts the clock again (a second loss 0.5 ms later is
/// blocked too). Once 1 ms passes with no update, a loss cuts: 40 × (1 − max_mdf) = 0, clamped
/// to 2000 B. Under "lt" (the default) the clock never started, so the first loss cuts.
#[test]
fn le_clock_at_max_cwnd_blocks_the_loss_cut() {
    let mut s = swift(study(LastDecreaseUpdate::Le, Recovery::Swift), 40.0);
    let mut lt = swift(study(LastDecreaseUpdate::Lt, Recovery::Swift), 40.0);
    for i in 1..=80u64 {
        let a = ack_cum(Time::from_us(25 * i), i as u32, 200);
        s.on_ack(&a);
        lt.on_ack(&a);
    }
    assert_eq!(s.cwnd_pkts(), 40.0);
    assert_eq!(s.t_last_decrease, Time::from_us(2000), "the clamped increase restarted the clock");
    assert_eq!(lt.t_last_decrease, Time::ZERO, "lt: no decrease, no clock");
    s.on_loss(&loss_at(Time::from_us(2025), 80, 200, 119));
    lt.on_loss(&loss_at(Time::from_us(2025), 80, 200, 119));
    assert_eq!(s.cwnd_pkts(), 40.0, "le: 25 us since the last update, under the 1 ms sample: no cut");
    assert_eq!(s.loss_md, 0);
    assert!((lt.cwnd_pkts() - 2000.0 / 1500.0).abs() < 1e-12, "lt: the loss cuts to min_cwnd");
    s.on_loss(&loss_at(Time::from_us(2525), 80, 200, 118));
    assert_eq!(s.cwnd_pkts(), 40.0, "the blocked cut restarted the clock at 2025 us");
    s.on_loss(&loss_at(Time::from_us(3525), 80, 200, 117));
    assert!((s.cwnd_pkts() - 2000.0 / 1500.0).abs() < 1e-12, "1 ms after the last update: cut to min_cwnd");
    assert_eq!(s.loss_md, 1);
}

/// `recovery = "ns3_classic"` with the "le" clock, worked by hand. A flow at max_cwnd (40
/// packets, ACKs 25 µs apart, PSNs 0-139 sent) loses PSN 100: the loss finds 40 in flight less
/// the lost one, so ssthresh = max(2, 39 / 2) = 19.5 packets, and the recovery point is PSN 140.
/// The clock blocks the cut (W stays 40). Through the recovery the ACKs, all below the target,
/// increase nothing, and a second loss starts nothing. The ACK that brings the cumulative ACK
/// to 140 sets W = 19.5, then runs Swift's update: + ai × 1 packet / W = 2 / 19.5, so
/// W = 19.5 + 0.102564... = 19.602564. The next ACK adds 2 / 19.602564 as usual.
#[test]
fn ns3_classic_recovery_ends_at_half_the_flight() {
    let mut s = swift(study(LastDecreaseUpdate::Le, Recovery::Ns3Classic), 40.0);
    for i in 1..=80u64 {
        s.on_ack(&ack_cum(Time::from_us(25 * i), 100, 140));
    }
    s.on_loss(&loss_at(Time::from_us(2025), 100, 140, 39));
    assert_eq!((s.recover, s.ssthresh), (Some(140), 19.5));
    assert_eq!(s.cwnd_pkts(), 40.0, "le: the clock blocks the cut");
    for i in 1..=20u64 {
        s.on_ack(&ack_cum(Time::from_us(2025 + 25 * i), 100, 140));
    }
    s.on_loss(&loss_at(Time::from_us(2600), 100, 140, 30));
    s.on_ack(&ack_cum(Time::from_us(3100), 139, 140));
    assert_eq!(s.cwnd_pkts(), 40.0, "no increase in recovery");
    assert_eq!((s.recover, s.ssthresh), (Some(140), 19.5), "a loss in recovery starts nothing");
    s.on_ack(&ack_cum(Time::from_us(3125), 140, 140));
    assert_eq!(s.recover, None);
    assert!((s.cwnd_pkts() - (19.5 + 2.0 / 19.5)).abs() < 1e-12, "{}", s.cwnd_pkts());
    assert!((s.cwnd_pkts() - 19.602564).abs() < 1e-6);
    let w = s.cwnd_pkts();
    s.on_ack(&ack_cum(Time::from_us(3150), 141, 160));
    assert!((s.cwnd_pkts() - (w + 2.0 / w)).abs() < 1e-12);
}

/// `recovery = "ns3_classic"` with the default clock: the first loss (20 in flight, one lost:
/// ssthresh = 19 / 2 = 9.5) cuts to min_cwnd (2000 B), which holds through the recovery
/// (the default path would add 2 / 1.333 = 1.5 packets on the next ACK), and the recovery point
/// sets 9.5 + 2 / 9.5. A delay above the target still decreases in recovery. A timeout ends
/// the episode without the exit, and until the cumulative ACK reaches the next new PSN at the
/// timeout (ns-3's Loss state) a loss neither starts an episode nor cuts.
#[test]
fn ns3_classic_holds_the_cut_window_and_timeouts_end_the_episode() {
    let min = 2000.0 / 1500.0;
    let mut s = swift(study(LastDecreaseUpdate::Lt, Recovery::Ns3Classic), 20.0);
    let mut swift_path = swift(study(LastDecreaseUpdate::Lt, Recovery::Swift), 20.0);
    s.on_loss(&loss_at(Time::from_ms(1), 10, 30, 19));
    swift_path.on_loss(&loss_at(Time::from_ms(1), 10, 30, 19));
    assert!((s.cwnd_pkts() - min).abs() < 1e-12);
    s.on_ack(&ack_cum(Time::from_us(1100), 11, 30));
    swift_path.on_ack(&ack_cum(Time::from_us(1100), 11, 30));
    assert!((s.cwnd_pkts() - min).abs() < 1e-12, "held at min_cwnd in recovery");
    assert!((swift_path.cwnd_pkts() - (min + 1.5)).abs() < 1e-12, "swift: 1.333 + 2 / 1.333");
    s.on_ack(&ack_cum(Time::from_ms(3), 30, 30));
    assert!((s.cwnd_pkts() - (9.5 + 2.0 / 9.5)).abs() < 1e-12, "{}", s.cwnd_pkts());

    // A delay above the target decreases in recovery: a target of 0.5 ms against 1 ms samples.
    let mut d = swift(
        SwiftParams {
            fixed_target: Some(TimeVal(Time::from_us(500))),
            ..study(LastDecreaseUpdate::Lt, Recovery::Ns3Classic)
        },
        20.0,
    );
    d.t_last_decrease = Time::from_us(1);
    d.srtt = Some(Time::from_ms(1));
    d.on_loss(&loss_at(Time::from_us(2), 10, 30, 19));
    assert_eq!(d.cwnd_pkts(), 20.0, "the clock (1 ms) blocks the loss cut");
    d.on_ack(&ack_cum(Time::from_ms(2), 11, 30));
    assert!((d.cwnd_pkts() - min).abs() < 1e-12, "1 - 4 × 0.5 / 1 < 0: a delay cut to min_cwnd");

    // A timeout in recovery: no exit at ssthresh; Swift's timeout cut as usual.
    let mut t = swift(study(LastDecreaseUpdate::Lt, Recovery::Ns3Classic), 20.0);
    t.on_loss(&loss_at(Time::from_ms(1), 10, 30, 19));
    t.on_timeout(Time::from_ms(1001), 35);
    assert_eq!(t.recover, None);
    t.on_ack(&ack_cum(Time::from_ms(1002), 31, 36));
    assert!((t.cwnd_pkts() - (min + 1.5)).abs() < 1e-12, "no exit at 9.5: Swift's increase from min_cwnd");
    t.on_loss(&loss_at(Time::from_ms(1003), 32, 36, 3));
    assert_eq!(t.recover, None, "the Loss state: no episode before the cumulative ACK reaches 35");
    assert_eq!(t.loss_md, 1, "and no cut");
    t.on_ack(&ack_cum(Time::from_ms(1004), 35, 40));
    t.on_loss(&loss_at(Time::from_ms(1005), 35, 40, 4));
    assert_eq!((t.recover, t.ssthresh), (Some(40), 2.0), "out of Loss: an episode, ssthresh max(2, 4 / 2)");
}

/// Both options default to today's behaviour.
#[test]
fn clock_and_recovery_default_to_swift() {
    let p = SwiftParams::default();
    assert_eq!((p.last_decrease_update, p.recovery), (LastDecreaseUpdate::Lt, Recovery::Swift));
}
