//! Unit tests of `nscc`.

use super::*;
use crate::cc::test_ack;
use crate::units::Rate;

const MTU: u64 = 4160;

/// The SMaRTT paper's inter-pod path (`docs/reproductions/smartt-paper.md`, "Common setup"):
/// 11.453 µs at 800 Gbps, 1-BDP buffers.
fn paper_info(trimming: bool) -> FlowInfo {
    FlowInfo {
        trimming,
        ..crate::cc::test_info(MTU, 10 * MTU, Time::from_ps(11_453_000), 6, Rate::gbps(800), 276 * MTU)
    }
}

fn nscc(p: NsccParams, trimming: bool) -> Nscc {
    Nscc::new(&p, false, &paper_info(trimming))
}

fn ack(now: Time, rtt: Time, ece: bool) -> AckSample {
    AckSample { now, rtt, in_flight: 50 * MTU, ..test_ack(1, 10, MTU, ece) }
}

fn nack(now: Time, in_flight: u64) -> NackSample {
    NackSample { now, psn: 3, bytes: MTU, rtt: Time::from_us(12), cum_ack: 0, snd_nxt: 100, in_flight }
}

fn pkts(n: &Nscc) -> f64 {
    n.cwnd / MTU as f64
}

fn us(v: f64) -> Time {
    Time::from_secs_f64(v * 1e-6)
}

/// Increase constants at scale 1 (the reference BDP is the path's).
fn unscaled() -> NsccParams {
    NsccParams { bdp_ref: AutoBytes::Fixed((800e9 / 8.0 * 11.453e-6) as u64), ..NsccParams::default() }
}

/// The paper setup's derived quantities (`docs/reproductions/smartt-paper.md`, "Common setup"):
/// trtt = 1.5 brtt = 17.18 µs, maxwnd = 1.5 BDP ≈ 1.72 MB ≈ 413 packets, mincwnd = 1 MTU,
/// initial window = maxwnd; scale = 1 against the network's own BDP (the default
/// reference), BDP / 150 000 B ≈ 7.64 against htsim's (SMaRTT §III-J).
#[test]
fn derived_quantities_of_the_paper_setup() {
    let n = nscc(NsccParams::default(), true);
    assert!((n.trtt.as_us_f64() - 17.18).abs() < 0.01);
    assert!((n.maxwnd - 1.5 * 1_145_300.0).abs() < 1.5 * 100.0, "{}", n.maxwnd);
    assert!((n.maxwnd / MTU as f64 - 413.0).abs() < 1.0);
    assert_eq!(n.cwnd, n.maxwnd);
    assert!((n.scale - 1.0).abs() < 1e-9, "{}", n.scale);
    let htsim_ref = nscc(NsccParams { bdp_ref: AutoBytes::Fixed(150_000), ..NsccParams::default() }, true);
    assert!((htsim_ref.scale - 7.636).abs() < 0.001, "{}", htsim_ref.scale);
    assert!((n.pi - 2.0).abs() < 1e-9, "Eq. 3: brtt / (trtt - brtt) = 2");
    // U9: htsim's RTO, 15 µs + 6 × (276 × 4160 B at 800 Gbps) = 83.9 µs.
    assert!((n.rto.as_us_f64() - 83.9).abs() < 0.05, "{}", n.rto);
}

/// The adjustment variants of SMaRTT §III-G against the per-packet update: 16 unmarked ACKs
/// of one MTU at RTT = brtt (Case 4). `sample` (n = 8) reacts on the 8th and 16th with 8
/// MTUs each, `accumulate` applies after every 8 MTUs; both end within 2 % of per-packet
/// (the increments, ∝ 1/cwnd, differ only by the window they were computed on, which grows
/// 2.4 % here), and neither changes the window between its applications.
#[test]
fn adjustment_variants_follow_the_per_packet_update() {
    let run = |adjustment: Adjustment| {
        let p = NsccParams { adjustment, fast_increase: false, ..NsccParams::default() };
        let mut n = nscc(p, true);
        n.cwnd = 100.0 * MTU as f64;
        n.on_ack(&ack(us(0.5), us(11.453), false));
        let start = n.cwnd;
        let mut trace = Vec::new();
        for i in 0..16 {
            n.on_ack(&ack(us(1.0 + 0.01 * i as f64), us(11.453), false));
            trace.push(n.cwnd);
        }
        (start, trace)
    };
    let (s0, per_packet) = run(Adjustment::PerPacket);
    for v in [Adjustment::Sample, Adjustment::Accumulate] {
        let (s, trace) = run(v);
        let grown = |t: &[f64], s: f64| t[15] - s;
        let (a, b) = (grown(&trace, s), grown(&per_packet, s0));
        assert!((a / b - 1.0).abs() < 0.02, "{v:?}: {a} vs {b}");
        let mut changes = 0;
        let mut last = s;
        for &w in &trace {
            changes += (w != last) as u32;
            last = w;
        }
        assert_eq!(changes, 2, "{v:?}: the window moves once per 8 ACKs: {trace:?}");
    }
}

/// `target_queue_rtt`: trtt = brtt + 0.5 × the given RTT, so a 3.284 µs intra-rack flow
/// aims at the same 5.7265 µs of queueing as an inter-pod one; pi = brtt / headroom.
#[test]
fn a_shared_queue_target_sets_trtt_from_the_given_rtt() {
    let p = NsccParams { target_queue_rtt: AutoTime::Fixed(us(11.453)), ..NsccParams::default() };
    let mut n = nscc(p, true);
    n.set_base_rtt(us(3.284));
    assert!((n.trtt.as_us_f64() - (3.284 + 5.7265)).abs() < 1e-3, "{}", n.trtt);
    assert!((n.pi - 3.284 / 5.7265).abs() < 1e-3, "{}", n.pi);
}

/// U1: the four (ECN, delay) cases invoke MD / nothing / FI / PI + FI, and case 2
/// leaves the window bit-identical.
#[test]
fn u1_case_routing() {
    let p = NsccParams { fast_increase: false, ..NsccParams::default() };
    let trtt = 1.5 * 11.453;
    let fresh = || {
        let mut n = nscc(p.clone(), true);
        n.cwnd = 100.0 * MTU as f64;
        n.on_ack(&ack(us(1.0), us(trtt + 5.0), false)); // opens the QA window, adds FI
        n.cwnd = 100.0 * MTU as f64;
        n
    };
    let (hi, lo) = (us(2.0 * trtt), us(12.0));
    let mut n = fresh();
    n.on_ack(&ack(us(2.0), hi, true));
    assert_eq!(n.md_count, 1, "case 1: MD");
    let mut n = fresh();
    let before = n.cwnd.to_bits();
    n.on_ack(&ack(us(2.0), lo, true));
    assert_eq!(n.cwnd.to_bits(), before, "case 2: no change");
    // The Fig. 11 ablation: a marked packet of one MTU takes half an MTU off.
    let mut n = {
        let mut n = nscc(NsccParams { case2: Case2::Decrease, ..p.clone() }, true);
        n.cwnd = 100.0 * MTU as f64;
        n.on_ack(&ack(us(1.0), us(trtt + 5.0), false));
        n.cwnd = 100.0 * MTU as f64;
        n
    };
    n.on_ack(&ack(us(2.0), lo, true));
    assert_eq!(n.cwnd, 99.5 * MTU as f64, "case 2 with decrease: -MTU/2");
    let mut n = fresh();
    n.on_ack(&ack(us(2.0), hi, false));
    let fi = MTU as f64 / n_cwnd0() * MTU as f64 * n.scale;
    assert!((n.cwnd - 100.0 * MTU as f64 - fi).abs() < 1e-6, "case 3: FI only");
    let mut n = fresh();
    n.on_ack(&ack(us(2.0), lo, false));
    let pi = ((trtt - 12.0) / 12.0 * MTU as f64 / n_cwnd0() * MTU as f64 * 2.0 * n.scale).min(MTU as f64);
    assert!(
        (n.cwnd - 100.0 * MTU as f64 - pi - fi).abs() < 1e-6,
        "case 4: PI + FI: {} vs {pi} + {fi}",
        n.cwnd - 100.0 * MTU as f64
    );
}

fn n_cwnd0() -> f64 {
    100.0 * MTU as f64
}

/// U2: cwnd 100 MTU with avg_rtt = 2·trtt → 60 MTU; again within brtt: unchanged; one
/// brtt later: cut again; avg_rtt = 10·trtt: floored at half.
#[test]
fn u2_multiplicative_decrease() {
    let mut n = nscc(NsccParams::default(), true);
    n.cwnd = 100.0 * MTU as f64;
    let high = n.trtt.mul_f64(2.0);
    n.on_ack(&ack(us(1.0), high, true));
    assert!((pkts(&n) - 60.0).abs() < 1e-9, "{}", pkts(&n));
    n.on_ack(&ack(us(1.0 + 11.0), high, true));
    assert!((pkts(&n) - 60.0).abs() < 1e-9, "within one brtt");
    n.on_ack(&ack(us(1.0 + 11.453), high, true));
    assert!((pkts(&n) - 36.0).abs() < 1e-9, "one brtt later: {}", pkts(&n));
    let mut n = nscc(NsccParams::default(), true);
    n.cwnd = 100.0 * MTU as f64;
    n.on_ack(&ack(us(1.0), n.trtt.mul_f64(10.0), true));
    assert!((pkts(&n) - 50.0).abs() < 1e-9);
}

/// Feeds `count` unmarked ACKs of one MTU at `rtt`, 10 ns apart, returns the increase.
fn window_of_acks(n: &mut Nscc, count: usize, rtt: Time) -> f64 {
    let start = n.cwnd;
    for i in 0..count {
        n.on_ack(&ack(us(1.0 + 0.01 * i as f64), rtt, false));
    }
    n.cwnd - start
}

/// U3: unscaled pi = 2 adds 1 MTU per window at rtt = brtt, 0.4 MTU at 1.25·brtt.
#[test]
fn u3_proportional_increase_bound() {
    for (rtt_factor, expect) in [(1.0, 1.0), (1.25, 0.4)] {
        let p = NsccParams { fast_increase: false, fi_after_pi: false, ..unscaled() };
        let mut n = nscc(p, true);
        n.cwnd = 100.0 * MTU as f64;
        let rtt = Time::from_ps(11_453_000).mul_f64(rtt_factor);
        n.on_ack(&ack(us(0.5), rtt, false));
        n.cwnd = 100.0 * MTU as f64;
        let start = n.cwnd;
        for i in 0..100 {
            n.on_ack(&ack(us(1.0 + 0.01 * i as f64), rtt, false));
        }
        let gained = (n.cwnd - start) / MTU as f64;
        assert!((gained - expect).abs() <= 0.01 * expect, "rtt {rtt_factor} brtt: {gained} MTU");
    }
}

/// U4: FI adds (size/cwnd)·mtu·fi·scale per ACK, so about fi·scale MTU per window
/// whatever the window (checked at 10 and 200 MTU with scale 1). As dW/dn = MTU²/W, a
/// window of n = W0/MTU ACKs ends at √(W0² + 2n·MTU²): 0.954 MTU gained from 10, 0.9975
/// from 200.
#[test]
fn u4_fair_increase_is_independent_of_the_window() {
    let high = Time::from_us(30);
    let mut n = nscc(NsccParams::default(), true);
    n.on_ack(&ack(us(0.5), high, false));
    n.cwnd = 10.0 * MTU as f64;
    n.on_ack(&ack(us(1.0), high, false));
    let per_ack = 1.0 / 10.0 * MTU as f64 * 1.0 * n.scale;
    assert!((n.cwnd - 10.0 * MTU as f64 - per_ack).abs() < 1e-6);
    for w in [10.0f64, 200.0] {
        let mut n = nscc(unscaled(), true);
        n.on_ack(&ack(us(0.5), high, false));
        n.cwnd = w * MTU as f64;
        let gained = window_of_acks(&mut n, w as usize, high) / MTU as f64;
        let model = (w * w + 2.0 * w).sqrt() - w;
        assert!((gained - model).abs() <= 0.01 * model, "window {w}: {gained} MTU, model {model}");
    }
}

/// U5: no FastIncrease until more than cwnd uncongested bytes; then exactly 2 MTU per
/// ACK; one ECN or high-RTT ACK resets it.
#[test]
fn u5_fast_increase() {
    let base = Time::from_ps(11_453_000);
    let mut n = nscc(NsccParams::default(), true);
    n.on_ack(&ack(us(0.5), base, false));
    n.cwnd = 10.0 * MTU as f64;
    n.fi_count = 0.0;
    let mut t = 1.0;
    let mut next = |n: &mut Nscc, rtt: Time, ece: bool| {
        t += 0.01;
        let before = n.cwnd;
        n.on_ack(&ack(us(t), rtt, ece));
        n.cwnd - before
    };
    while n.fi_count + MTU as f64 <= n.cwnd {
        next(&mut n, base, false);
        assert_eq!(n.fast_increase_acks, 0, "count {} <= cwnd {}", n.fi_count, n.cwnd);
    }
    for _ in 0..5 {
        assert_eq!(next(&mut n, base, false), 2.0 * MTU as f64);
    }
    next(&mut n, base, true);
    assert!(n.fi_count == 0.0 && !n.increasing, "ECN resets");
    assert!(next(&mut n, base, false) < 2.0 * MTU as f64);
    n.increasing = true;
    next(&mut n, Time::from_us(20), false);
    assert!(n.fi_count == 0.0 && !n.increasing, "high RTT resets");
}

/// U6: QuickAdapt sets the window to the bytes delivered in the last trtt at the first
/// feedback after the window ends, ignores the bytes then in flight, fires at most once
/// per trtt and never in the first window.
#[test]
fn u6_quick_adapt() {
    let p = NsccParams { fast_increase: false, ..NsccParams::default() };
    // A NACK as the very first feedback opens the first window but cannot fire.
    let mut n = nscc(p.clone(), true);
    n.on_nack(&nack(us(1.0), 300 * MTU));
    assert_eq!(n.qa_count, 0);
    assert!(n.qa_end > Time::ZERO);
    let mut n = nscc(p, true);
    let trtt = n.trtt.as_us_f64();
    n.on_ack(&ack(us(1.0), Time::from_us(20), false));
    // A window later: deliver A bytes, then a NACK arms QuickAdapt.
    let start = 1.0 + trtt;
    let delivered = 20;
    for i in 0..delivered {
        n.on_ack(&ack(us(start + 0.1 * i as f64), Time::from_us(20), false));
    }
    let a = n.acked;
    n.on_nack(&nack(us(start + 5.0), 300 * MTU));
    assert!(n.trigger_qa && n.qa_count == 0, "armed, window not over");
    let end = n.qa_end.as_us_f64();
    n.on_nack(&nack(us(end + 0.1), 280 * MTU));
    assert_eq!(n.qa_count, 1);
    assert_eq!(n.cwnd, a.max(MTU as f64));
    assert_eq!(n.bytes_to_ignore, 280.0 * MTU as f64);
    // Feedback for fewer bytes than were in flight changes nothing.
    let (cwnd, qa_end) = (n.cwnd, n.qa_end);
    for i in 0..200 {
        n.on_ack(&ack(us(end + 0.2 + 0.01 * i as f64), Time::from_us(40), i % 2 == 0));
    }
    assert_eq!((n.cwnd, n.qa_end, n.qa_count, n.trigger_qa), (cwnd, qa_end, 1, false));
    // After the ignore phase, a NACK within trtt of the cut arms but cannot fire.
    n.bytes_ignored = n.bytes_to_ignore;
    n.on_nack(&nack(us(end + 3.0), 10 * MTU));
    assert_eq!(n.qa_count, 1);
    n.on_nack(&nack(qa_end + us(0.1), 10 * MTU));
    assert_eq!(n.qa_count, 2, "fires at the next window's end");
}

/// U7: after any event MTU ≤ cwnd ≤ maxwnd (a pseudo-random mix of ACKs and NACKs
/// in both modes).
#[test]
fn u7_window_bounds_hold_after_every_event() {
    for mode in [NsccMode::SmarttPaper, NsccMode::NsccHtsim] {
        for median in [false, true] {
            let mut n = Nscc::new(&NsccParams { mode, ..NsccParams::default() }, median, &paper_info(true));
            let mut x = 12345u64;
            for i in 0..20_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let now = Time::from_ns(10 * i + 10);
                let rtt = Time::from_ns(11_453 + (x >> 40) % 40_000);
                match (x >> 20) % 10 {
                    0 => n.on_nack(&nack(now, (x >> 8) % (400 * MTU))),
                    1 => n.on_packet_expired(now, MTU),
                    k => n.on_ack(&ack(now, rtt, k < 5)),
                }
                assert!(n.cwnd >= MTU as f64 && n.cwnd <= n.maxwnd, "{mode:?} {median}: {}", n.cwnd);
            }
        }
    }
}

/// `docs/models/nscc.md`, "Timeout": every expired packet takes its own size off the window
/// (floor 1 MTU), in both modes. Paper mode after a QuickAdapt cut (§III-E-a): packets sent
/// before the cut take nothing off, and their timeouts count towards the bytes to ignore,
/// so the ignore phase ends once every byte that was in flight at the cut is accounted for.
#[test]
fn each_expired_packet_is_a_timeout_and_ends_the_ignore_phase_like_a_nack() {
    let mtu = MTU as f64;
    for mode in [NsccMode::SmarttPaper, NsccMode::NsccHtsim] {
        let mut n = Nscc::new(&NsccParams { mode, ..NsccParams::default() }, false, &paper_info(false));
        // The window starts at maxwnd = 1.5 × 800 Gbps × 11.453 µs = 1,717,950 B.
        let c0 = 1.5 * 100e9 * 11.453e-6;
        assert!((n.cwnd - c0).abs() < 1e-3, "{}", n.cwnd);
        for i in 0..40 {
            n.on_packet_expired(us(84.0 + 0.04 * i as f64), MTU);
        }
        assert!((n.cwnd - (c0 - 40.0 * mtu)).abs() < 1e-3, "{mode:?}: {}", n.cwnd);
        // A smaller last packet takes only its size.
        n.on_packet_expired(us(90.0), 1000);
        assert!((n.cwnd - (c0 - 40.0 * mtu - 1000.0)).abs() < 1e-3, "{mode:?}: {}", n.cwnd);
        // Never below one MTU.
        n.cwnd = 3.0 * mtu;
        for _ in 0..5 {
            n.on_packet_expired(us(91.0), MTU);
        }
        assert_eq!(n.cwnd, mtu, "{mode:?}");
    }
    // Paper mode: a cut with 10 packets in flight; 9 of them time out (no reduction,
    // still ignoring), the 10th ends the phase; the 11th (sent after the cut) cuts.
    let mut n = Nscc::new(&NsccParams::default(), false, &paper_info(false));
    n.cwnd = 20.0 * mtu;
    n.bytes_to_ignore = 10.0 * mtu;
    n.bytes_ignored = 0.0;
    for _ in 0..9 {
        n.on_packet_expired(us(100.0), MTU);
    }
    assert!(n.ignoring());
    assert_eq!(n.cwnd, 20.0 * mtu);
    n.on_packet_expired(us(100.0), MTU);
    assert!(!n.ignoring());
    assert_eq!(n.cwnd, 20.0 * mtu);
    n.on_packet_expired(us(100.0), MTU);
    assert_eq!(n.cwnd, 19.0 * mtu);
}

/// uet-htsim's NSCC constants (formulas in `docs/models/nscc.md`, `nscc_htsim` mode) for
/// the SMaRTT paper's network with trimming (network RTT 11.453 µs):
/// target 8.59 µs, sa 7.636, sb 0.716, fi ≈ 156.4 KB, η ≈ 4.69 KB, fi_scale 1.91,
/// QA threshold 34.4 µs; and for the MSwift paper's network (6.253 µs, 1 µs
/// target, no trimming): fi ≈ 85.4 KB, η ≈ 2.56 KB, fi_scale ≈ 1.04, α·target ≈ 5.7 KB.
#[test]
fn htsim_constants_match_the_spec_tables() {
    let htsim = NsccParams { mode: NsccMode::NsccHtsim, ..NsccParams::default() };
    let n = nscc(htsim.clone(), true);
    assert!((n.target_q.as_us_f64() - 8.59).abs() < 0.01);
    assert!((n.h_fi - 156_400.0).abs() < 200.0, "{}", n.h_fi);
    assert!((n.h_eta - 4_690.0).abs() < 10.0, "{}", n.h_eta);
    assert!((n.h_fi_scale - 1.91).abs() < 0.01);
    let sa: f64 = 7.636;
    let sb: f64 = 8.59 / 12.0;
    assert!((sb - 0.716).abs() < 0.001);
    assert!((n.h_alpha * n.target_q.as_secs_f64() - 4.0 * 4096.0 * sa * sb).abs() < 50.0);
    assert!((n.target_q.mul_f64(n.p.qa_delay_factor).as_us_f64() - 34.4).abs() < 0.05);
    let info = FlowInfo {
        trimming: false,
        ..crate::cc::test_info(MTU, MTU, Time::from_ps(6_253_440), 6, Rate::gbps(800), 800_000)
    };
    let p = NsccParams { target_qdelay: AutoTime::Fixed(Time::from_us(1)), ..htsim };
    let m = Nscc::new(&p, false, &info);
    assert!((m.h_fi - 85_400.0).abs() < 100.0, "{}", m.h_fi);
    assert!((m.h_eta - 2_560.0).abs() < 10.0, "{}", m.h_eta);
    assert!((m.h_fi_scale - 1.04).abs() < 0.005);
    assert!((m.h_alpha * 1e-6 - 5_700.0).abs() < 50.0, "{}", m.h_alpha * 1e-6);
    // maxwnd = 1.5 × BDP(6.253 µs) ≈ 938 KB (`docs/models/nscc.md`, "Bounds").
    assert!((m.maxwnd - 938_000.0).abs() < 500.0);
    // ≈ 63 µs RTO for 800 KB buffers.
    assert!((m.rto.as_us_f64() - 63.0).abs() < 0.1, "{}", m.rto);
}

/// htsim mode's MD acts on the averaged queueing delay: avg = 2 × target → × 0.6.
#[test]
fn htsim_multiplicative_decrease_on_queueing_delay() {
    let mut n = nscc(NsccParams { mode: NsccMode::NsccHtsim, ..NsccParams::default() }, true);
    n.cwnd = 100.0 * MTU as f64;
    let q = n.target_q.mul_f64(2.0);
    n.avg = Some(q.as_secs_f64());
    n.qa_end = Time::from_ms(1); // keep QuickAdapt out of it
    n.on_ack(&ack(us(1.0), n.brtt + q, true));
    assert!((pkts(&n) - 60.0).abs() < 1e-6, "{}", pkts(&n));
}

/// `docs/reproductions/mswift-paper.md`, A6: H_MNSCC = max(min(⌊W/2⌋, 4), 1).
#[test]
fn mnscc_history_rule() {
    let mut m = Nscc::new(&NsccParams::default(), true, &paper_info(true));
    for (w, h) in [(150.0, 4), (9.0, 4), (7.0, 3), (1.5, 1), (0.2, 1)] {
        m.cwnd = w * MTU as f64;
        assert_eq!(m.history_len(), h, "W = {w}");
    }
}

/// MNSCC: one marked, delayed ACK in four has a low median delay, so it is case 2
/// (no cut); NSCC cuts on it.
#[test]
fn mnscc_ignores_a_minority_of_delayed_samples() {
    let p = NsccParams {
        mode: NsccMode::NsccHtsim,
        target_qdelay: AutoTime::Fixed(Time::from_us(4)),
        quick_adapt: false,
        ..NsccParams::default()
    };
    let mut m = Nscc::new(&p, true, &paper_info(true));
    let mut n = Nscc::new(&p, false, &paper_info(true));
    for i in 0..400u64 {
        let slow = i % 4 == 3;
        let rtt = if slow { Time::from_us(40) } else { Time::from_us(12) };
        let a = ack(Time::from_us(i + 1), rtt, slow);
        m.on_ack(&a);
        n.on_ack(&a);
    }
    assert_eq!(m.md_count, 0);
    assert!(n.md_count > 0);
}

/// A flow on a 3.284 µs intra-rack path of a fabric whose largest unloaded RTT is the
/// 11.453 µs inter-pod one (BDP 1,145,300 B at 800 Gbps).
fn intra_rack_info() -> FlowInfo {
    FlowInfo { network_rtt: us(11.453), network_bdp: 1_145_300, ..paper_info(true) }.with_base_rtt(us(3.284))
}

impl FlowInfo {
    fn with_base_rtt(self, base_rtt: Time) -> FlowInfo {
        FlowInfo { base_rtt, ..self }
    }
}

/// Network-wide constants (the default): the intra-rack flow aims at the fabric's queueing
/// target, trtt = 3.284 + 0.5 × 11.453 = 9.0105 µs, and its increase constants are
/// scaled by the network BDP over the reference (the network BDP itself: scale 1), while
/// its largest window stays 1.5 × its own BDP (1.5 × 800 Gbps × 3.284 µs = 492,600 B).
/// Per path: trtt = 1.5 × 3.284 = 4.926 µs, scale = 3.284 / 11.453.
#[test]
fn network_scope_gives_every_path_the_fabric_target() {
    let n = Nscc::new(&NsccParams::default(), false, &intra_rack_info());
    assert!((n.trtt.as_us_f64() - 9.0105).abs() < 1e-3, "{}", n.trtt);
    assert!((n.scale - 1.0).abs() < 1e-6, "{}", n.scale);
    assert!((n.maxwnd - 492_600.0).abs() < 1.0, "{}", n.maxwnd);
    let p = NsccParams { scope: Scope::Path, ..NsccParams::default() };
    let n = Nscc::new(&p, false, &intra_rack_info());
    assert!((n.trtt.as_us_f64() - 4.926).abs() < 1e-3, "{}", n.trtt);
    assert!((n.scale - 3.284 / 11.453).abs() < 1e-4, "{}", n.scale);
    // htsim mode: target 0.75 × 11.453 = 8.59 µs with trimming, sa = 1,145,300 / 150,000.
    let h = NsccParams { mode: NsccMode::NsccHtsim, ..NsccParams::default() };
    let n = Nscc::new(&h, false, &intra_rack_info());
    assert!((n.target_q.as_us_f64() - 8.58975).abs() < 1e-3, "{}", n.target_q);
    assert!((n.h_fi_scale - 0.25 * 1_145_300.0 / 150_000.0).abs() < 1e-3, "{}", n.h_fi_scale);
    // ...and, as uet-htsim, caps every flow's window at 1.5 × the network BDP (1,717,950 B).
    assert!((n.maxwnd - 1_717_950.0).abs() < 1.0, "{}", n.maxwnd);
    let n = Nscc::new(&NsccParams { scope: Scope::Path, ..h }, false, &intra_rack_info());
    assert!((n.target_q.as_us_f64() - 0.75 * 3.284).abs() < 1e-3, "{}", n.target_q);
    assert!((n.maxwnd - 492_600.0).abs() < 1.0, "{}", n.maxwnd);
}

/// Puts a flow in QuickAdapt's ignore phase: a window of 20 delivered MTUs, then NACKs
/// that fire QuickAdapt with 280 MTUs in flight. Returns the window after the cut.
fn in_ignore_phase(n: &mut Nscc) -> f64 {
    let trtt = n.trtt.as_us_f64();
    n.on_ack(&ack(us(1.0), Time::from_us(20), false));
    let start = 1.0 + trtt;
    for i in 0..20 {
        n.on_ack(&ack(us(start + 0.1 * i as f64), Time::from_us(20), false));
    }
    n.on_nack(&nack(us(start + 5.0), 300 * MTU));
    let end = n.qa_end.as_us_f64();
    n.on_nack(&nack(us(end + 0.1), 280 * MTU));
    assert_eq!(n.qa_count, 1);
    assert!(n.ignoring());
    n.cwnd
}

/// §III-E: during the ignore phase the NACKs of the packets that were in flight at the cut
/// change nothing; Algorithm 4 read literally (`qa_literal`) takes each one's 4,160 bytes
/// off the window. After 10 such NACKs: the window of the cut, or 10 MTUs less.
#[test]
fn ignore_phase_nacks_leave_the_window_alone() {
    for (literal, cut) in [(false, 0.0), (true, 10.0 * MTU as f64)] {
        let p = NsccParams { fast_increase: false, qa_literal: literal, ..NsccParams::default() };
        let mut n = nscc(p, true);
        let w = in_ignore_phase(&mut n);
        let t = n.qa_end.as_us_f64();
        for i in 0..10 {
            n.on_nack(&nack(us(t - 5.0 + 0.1 * i as f64), 270 * MTU));
        }
        assert!(n.ignoring());
        assert_eq!(n.cwnd, (w - cut).max(MTU as f64), "qa_literal = {literal}");
    }
}

/// Fair Decrease's per-ACK step, W −= 0.8 · W · acked / path BDP, once the marked share
/// passes 25 %. The share is a moving average over the network RTT (11.453 µs here): an
/// ACK every 1 µs moves it by 1/11.453 towards 1 when marked, so after n marked ACKs it is
/// 1 − (1 − 1/11.453)^n: 0.240 at n = 3, 0.306 at n = 4. The first 3 wait; the 4th cuts
/// 0.8 × 416,000 × 4,160 / 1,145,300 = 1,208.8 bytes off W = 100 MTU.
#[test]
fn fair_decrease_per_ack_step_after_the_wait() {
    let p = NsccParams { decrease: Decrease::Fair, fast_increase: false, quick_adapt: false, ..unscaled() };
    let mut n = nscc(p, true);
    let bdp = 800e9 / 8.0 * 11.453e-6;
    n.cwnd = 100.0 * MTU as f64;
    let high = us(20.0);
    for i in 1..=3 {
        n.on_ack(&ack(us(i as f64), high, true));
        assert_eq!(n.cwnd, 100.0 * MTU as f64, "ACK {i}: waiting (share {})", n.ecn_share);
    }
    assert!((n.ecn_share - 0.240).abs() < 1e-3, "{}", n.ecn_share);
    let w = n.cwnd;
    n.on_ack(&ack(us(4.0), high, true));
    let expected = w - 0.8 * w * MTU as f64 / bdp;
    assert!((n.cwnd - expected).abs() < 1e-6, "{} vs {expected}", n.cwnd);
    assert!((w - n.cwnd - 1208.8).abs() < 0.5, "{}", w - n.cwnd);
    assert_eq!(n.fair_decreases, 1);
    // A marked ACK below the target RTT decreases too (every marked ACK), and Eq. 1's MD
    // never acts.
    let w = n.cwnd;
    n.on_ack(&ack(us(5.0), us(12.0), true));
    assert!((n.cwnd - (w - 0.8 * w * MTU as f64 / bdp)).abs() < 1e-6);
    assert_eq!(n.md_count, 0);
}

/// Fig. 5's single-signal variants: ECN alone takes half a packet off per marked ACK
/// whatever the RTT and treats an unmarked ACK as RTT = brtt; delay alone ignores ECN.
#[test]
fn single_signal_variants_route_on_one_signal() {
    let quiet = NsccParams { fast_increase: false, quick_adapt: false, ..unscaled() };
    let w0 = 100.0 * MTU as f64;
    let mut n = nscc(NsccParams { signals: Signals::EcnOnly, ..quiet.clone() }, true);
    n.cwnd = w0;
    n.on_ack(&ack(us(1.0), us(12.0), true));
    assert_eq!(n.cwnd, w0 - MTU as f64 / 2.0, "ECN-only: marked at low RTT still cuts");
    n.cwnd = w0;
    n.on_ack(&ack(us(1.1), us(40.0), false));
    // PI at rtt = brtt: (trtt − brtt)/brtt · (MTU/W) · MTU · pi = 0.5 · 41.6 · 2 = 41.6 B, then FI 41.6 B.
    assert!((n.cwnd - w0 - 2.0 * MTU as f64 / 100.0).abs() < 0.01, "{}", n.cwnd - w0);
    let mut n = nscc(NsccParams { signals: Signals::DelayOnly, ..quiet }, true);
    n.cwnd = w0;
    n.on_ack(&ack(us(1.0), us(12.0), true));
    assert!(n.cwnd > w0, "delay-only: a marked ACK below target increases");
    n.cwnd = w0;
    // The sample equals the average, so the EWMA stays at 2 × trtt: factor 1 − 0.8 × 0.5.
    n.avg = Some(2.0 * n.trtt.as_secs_f64());
    n.on_ack(&ack(us(30.0), n.trtt.mul_f64(2.0), false));
    assert!((n.cwnd - 0.6 * w0).abs() < 1e-6, "delay-only: unmarked above target is Eq. 1's MD: {}", n.cwnd / w0);
}
