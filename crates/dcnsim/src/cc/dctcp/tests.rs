//! Unit tests of DCTCP and D2TCP (docs/models/dctcp.md), against figures worked by hand.

use super::*;

const MSS: u64 = 1500;

fn ack(cum: u32, nxt: u32, ece: bool) -> AckSample {
    crate::cc::test_ack(cum, nxt, MSS, ece)
}

/// docs/reproductions/dctcp-vs-swift-paper.md, A2: alpha = 1, g = 1/16; a window with F = 0.5 gives 0.96875, a following
/// window with F = 0 gives 0.908203125; one update per window.
#[test]
fn a2_alpha_ewma_once_per_window() {
    let mut c = Dctcp::new(&DctcpParams::default(), MSS, 1000 * MSS);
    // The first ACK sets the window end to SND.NXT = 4 and opens the first window.
    // Window 1: PSNs 0..4 acked, two of them with ECE (F = 0.5). Keep CWR out of the
    // way by giving the window a huge cwnd and counting only alpha.
    c.on_ack(&ack(1, 4, true));
    assert_eq!(c.alpha(), 1.0, "no update before the window ends");
    c.on_ack(&ack(2, 8, true));
    c.on_ack(&ack(3, 8, false));
    c.on_ack(&ack(4, 8, false)); // cum 4 >= end 4: F = 2/4
    assert_eq!(c.alpha(), 0.96875);
    for cum in 5..=8 {
        c.on_ack(&ack(cum, 12, false));
    }
    assert_eq!(c.alpha(), 0.908203125);
}

/// docs/reproductions/dctcp-vs-swift-paper.md, A3: cwnd = 100 MSS, alpha = 0.5, ECE -> 75 MSS; no second cut in the window;
/// 75 MSS after CWR exit.
#[test]
fn a3_cut_once_per_window() {
    let p = DctcpParams { alpha_init: 0.5, g: 0.0, ..DctcpParams::default() };
    let mut c = Dctcp::new(&p, MSS, 100 * MSS);
    c.ssthresh = 0; // congestion avoidance
    c.on_ack(&ack(1, 100, true));
    assert_eq!(c.cwnd(), 75 * MSS);
    for cum in 2..100 {
        c.on_ack(&ack(cum, 100, true));
    }
    assert_eq!(c.cwnd(), 75 * MSS, "further marks in the same window do not cut");
    // An ACK up to exactly `recover` still belongs to the cut's window, even if marked.
    c.on_ack(&ack(100, 120, true));
    assert!(c.reduced);
    assert_eq!(c.cwnd(), 75 * MSS);
    // The first ACK past `recover` ends CWR; the window is still 75 MSS.
    c.on_ack(&ack(101, 120, false));
    assert!(!c.reduced);
    assert_eq!(c.cwnd(), 75 * MSS);
    // A mark in the next window cuts again.
    c.on_ack(&ack(102, 120, true));
    assert_eq!(c.cwnd(), (75 * MSS) * 3 / 4);
}

#[test]
fn loss_halves_in_paper_mode_and_uses_alpha_in_ns3_mode() {
    let mut paper = Dctcp::new(&DctcpParams { alpha_init: 0.2, ..Default::default() }, MSS, 100 * MSS);
    paper.on_loss(&crate::cc::test_loss(0, 100));
    assert_eq!(paper.cwnd(), 50 * MSS);
    let p = DctcpParams { alpha_init: 0.2, loss_response: LossResponse::Alpha, ..Default::default() };
    let mut ns3 = Dctcp::new(&p, MSS, 100 * MSS);
    ns3.on_loss(&crate::cc::test_loss(0, 100));
    assert_eq!(ns3.cwnd(), 90 * MSS);
    ns3.on_timeout(Time::ZERO, 100);
    assert_eq!(ns3.cwnd(), MSS);
}

/// After a timeout, ECE on data sent before it belongs to the congestion already
/// answered by the timeout: slow start must go on (cuts only when OPEN; docs/models/dctcp.md).
#[test]
fn marks_on_pre_timeout_data_do_not_cut_after_a_timeout() {
    let mut c = Dctcp::new(&DctcpParams { alpha_init: 0.5, ..Default::default() }, MSS, 40 * MSS);
    c.on_timeout(Time::ZERO, 100);
    assert_eq!(c.cwnd(), MSS);
    let mut a = ack(1, 100, true);
    a.in_flight_before = MSS;
    c.on_ack(&a);
    for cum in 2..12 {
        let mut a = ack(cum, 101, false);
        a.in_flight_before = c.cwnd();
        c.on_ack(&a);
    }
    assert!(c.cwnd() >= 10 * MSS, "slow start stalled at {} MSS", c.cwnd() / MSS);
}

/// `after_timeout = "cwr_prr"` (docs/models/dctcp.md, "After a timeout"), worked from
/// RFC 6937 by hand: a flow with α = 1 times out with 100 packets outstanding (PSNs
/// 0–99, all lost). The retransmission of PSN 0 is acknowledged with an echo: CWR with
/// ssthresh = (1 − 1/2) × 1 packet = 750 B, and PRR's first quota is one packet. Its
/// ACK (PSN 1, echo, nothing in flight): quota = min(750 − 0, max(2 × 1500 − 1500,
/// 1500)) = 750 B, under one packet, so nothing may leave, even with nothing in flight.
/// The next timeout starts over with one packet: two lost packets a round. Under the
/// default the same ACKs slow-start.
#[test]
fn cwr_prr_after_a_timeout_repairs_two_packets_a_round() {
    let ns3 = DctcpParams { alpha_init: 1.0, after_timeout: AfterTimeout::CwrPrr, ..Default::default() };
    let mut c = Dctcp::new(&ns3, MSS, 10 * MSS);
    let mut slow_start = Dctcp::new(&DctcpParams::default(), MSS, 10 * MSS);
    for round in 0..3u32 {
        let first = 2 * round;
        for cc in [&mut c, &mut slow_start] {
            cc.on_timeout(Time::ZERO, 100);
            assert_eq!(cc.cwnd(), MSS, "one packet after a timeout");
        }
        for (k, cc) in [&mut c, &mut slow_start].into_iter().enumerate() {
            let mut a = ack(first + 1, 100, true);
            a.in_flight_before = MSS;
            a.in_flight = 0;
            cc.on_ack(&a);
            if k == 0 {
                assert_eq!(cc.cwnd(), MSS, "round {round}: PRR's forced packet");
            }
            let mut a = ack(first + 2, 100, true);
            a.in_flight_before = MSS;
            a.in_flight = 0;
            cc.on_ack(&a);
        }
        assert_eq!(c.cwnd(), 0, "round {round}: 750 B free, under one packet: nothing leaves");
        assert!(slow_start.cwnd() >= 2 * MSS, "the default slow-starts: {}", slow_start.cwnd());
    }
    // Once everything outstanding at the timeout is acknowledged, the Loss state and
    // CWR end: the window is the floor (2 packets), and grows again only when used.
    let mut a = ack(100, 100, false);
    a.in_flight_before = 0;
    a.in_flight = 0;
    c.on_ack(&a);
    assert_eq!(c.cwnd(), 2 * MSS);
}

/// PRR's proportional part (RFC 6937, in flight above ssthresh), worked by hand: α =
/// 0.2 and a window of 40 packets in the Loss state; an echo on an ACK of one packet
/// enters CWR with ssthresh = 0.9 × 40 = 36 packets, RecoverFS = 40 packets in flight,
/// and one packet is forced out (window 39 + 1). Next ACK (2 packets delivered, 39 in
/// flight after it, one sent since entry): sndcnt = ⌈3000 × 36 / 40⌉ − 1500 = 2700 −
/// 1500 = 1200 B, so the window is 39 packets + 1200 B. Next (3 delivered, 38 in
/// flight, nothing more sent): ⌈4500 × 36 / 40⌉ − 1500 = 4050 − 1500 = 2550 B.
#[test]
fn cwr_prr_reduces_in_proportion_to_deliveries() {
    let ns3 = DctcpParams { alpha_init: 0.2, g: 1e-9, after_timeout: AfterTimeout::CwrPrr, ..Default::default() };
    let mut c = Dctcp::new(&ns3, MSS, 10 * MSS);
    c.on_timeout(Time::ZERO, 1000);
    c.cwnd = 40 * MSS;
    let mut a = ack(1, 1000, true);
    (a.in_flight_before, a.in_flight) = (40 * MSS, 39 * MSS);
    c.on_ack(&a);
    let alpha = c.alpha();
    assert!((alpha - 0.2).abs() < 1e-6, "α stays 0.2: {alpha}");
    assert_eq!(c.cwnd(), 40 * MSS, "39 in flight and one forced packet");
    let mut a = ack(2, 1000, true);
    (a.in_flight_before, a.in_flight) = (40 * MSS, 39 * MSS);
    c.on_ack(&a);
    let ssthresh = (40.0 * MSS as f64 * (1.0 - alpha / 2.0)) as u128;
    let due = |delivered: u128| (delivered * ssthresh).div_ceil(40 * MSS as u128) as u64;
    assert_eq!((due(2 * MSS as u128), due(3 * MSS as u128)), (2700, 4050), "the hand-worked figures");
    assert_eq!(c.cwnd(), 39 * MSS + 1200);
    let mut a = ack(3, 1000, true);
    (a.in_flight_before, a.in_flight) = (39 * MSS, 38 * MSS);
    c.on_ack(&a);
    assert_eq!(c.cwnd(), 38 * MSS + 2550);
}

/// D2TCP: 100 Gbps, 12 µs base RTT (BDP 150 kB), a 1 MB flow of priority 8 of 8
/// (deadline factor 1.5) starting at 0. Deadline = 1.5 × (12 µs + 80 µs) = 138 µs.
fn d2tcp_flow(level: u8) -> Dctcp {
    let mut info = crate::cc::test_info(1500, 15_000, Time::from_us(12), 4, crate::Rate::gbps(100), 1 << 20);
    info.priority = level;
    info.levels = 8;
    Dctcp::d2tcp(&D2tcpParams::default(), &info, 1_000_000)
}

/// Deadline factors run linearly from 1.5 (level 8 of 8) to 12 (level 1).
#[test]
fn d2tcp_deadline_factors_span_the_priorities() {
    let p = D2tcpParams::default();
    assert_eq!(p.factor(8, 8), 1.5);
    assert_eq!(p.factor(1, 8), 12.0);
    assert!((p.factor(4, 8) - 7.5).abs() < 1e-12);
    assert_eq!(p.factor(0, 8), 1.5, "no priority: the most urgent");
    let c = d2tcp_flow(8);
    let at = c.deadline.as_ref().unwrap().at.as_us_f64();
    assert!((at - 138.0).abs() < 1e-6, "{at}");
    assert_eq!(c.cwnd(), 150_000, "starts at one BDP");
}

/// The cut is 1 − α^d/2 with d = T_c / D: 1 MB left, cwnd 150 kB, RTT 12 µs → pace
/// 0.75 × 150 kB / 12 µs = 9.375 GB/s, T_c = 106.7 µs; at t = 58 µs, D = 80 µs, so
/// d = 1.3333; with α = 1 (its start) the cut is a halving whatever d, so set α = 0.5:
/// factor 1 − 0.5^1.3333 / 2 = 0.80157. Past the deadline d = 2: 1 − 0.25/2 = 0.875.
#[test]
fn d2tcp_cuts_by_alpha_to_the_imminence() {
    for (now_us, expected) in [(58.0, 1.0 - 0.5f64.powf(4.0 / 3.0) / 2.0), (200.0, 0.875)] {
        let mut c = d2tcp_flow(8);
        c.marks.alpha = 0.5;
        c.marks.window_end = Some(1000);
        let a = AckSample {
            now: Time::from_secs_f64(now_us * 1e-6),
            newly_acked: 1500,
            ece: true,
            rtt: Time::from_us(12),
            cum_ack: 0,
            snd_nxt: 100,
            in_flight: 0,
            in_flight_before: 150_000,
        };
        c.on_ack(&a);
        let got = c.cwnd() as f64 / 150_000.0;
        assert!((got - expected).abs() < 1e-4, "at {now_us} us: {got} vs {expected}");
    }
}

/// Growth: one window of unmarked ACKs adds 0.01 BDP (1500 B).
#[test]
fn d2tcp_grows_one_hundredth_of_a_bdp_per_rtt() {
    let mut c = d2tcp_flow(8);
    c.marks.window_end = Some(u32::MAX);
    for i in 0..100 {
        c.on_ack(&ack(i, 1000, false));
    }
    assert!((c.cwnd() as i64 - 151_500).abs() <= 20, "{}", c.cwnd());
}

// ---- rate-based variant (docs/models/dctcp.md) ----

const GBPS: f64 = 1e9;

fn rate_dctcp(g: f64, alpha_init: f64) -> DctcpRate {
    let p = DctcpRateParams { g, alpha_init, ..DctcpRateParams::default() };
    DctcpRate::at_rate(&p, 100.0 * GBPS)
}

/// Window k (0-based) covers PSNs 4k..4k+4; its four ACKs carry SND.NXT = 4k + 8 so that
/// the update at its last ACK opens the next window; `marked` of them echo ECN.
fn rate_window(c: &mut DctcpRate, k: u32, marked: u32) {
    for i in 1..=4 {
        let nxt = if k == 0 && i == 1 { 4 } else { 4 * k + 8 };
        c.on_ack(&ack(4 * k + i, nxt, i <= marked));
    }
}

/// With a constant marked fraction F the EWMA has the closed form
/// alpha_k = (1 − g)^k · alpha_0 + (1 − (1 − g)^k) · F. g = 1/256, alpha_0 = 1, F = 1/4:
/// after 40 windows, (255/256)^40 = 0.85513..., alpha = 0.89135...
#[test]
fn rate_alpha_follows_the_ewma_closed_form() {
    let g = 1.0 / 256.0;
    let mut c = rate_dctcp(g, 1.0);
    for k in 0..40 {
        rate_window(&mut c, k, 1);
        let decay = (1.0 - g).powi(k as i32 + 1);
        let expected = decay + (1.0 - decay) * 0.25;
        assert!((c.alpha() - expected).abs() < 1e-12, "window {k}: {} vs {expected}", c.alpha());
    }
    assert!((c.alpha() - (0.75 * (255.0f64 / 256.0).powi(40) + 0.25)).abs() < 1e-12);
    // A window without marks moves alpha towards 0 by the same gain.
    let before = c.alpha();
    rate_window(&mut c, 40, 0);
    assert!((c.alpha() - before * (1.0 - g)).abs() < 1e-15);
}

/// alpha = 0.5 held (g = 0): an ECN echo cuts 100 -> 75 Gb/s once; further echoes up to
/// and including SND.NXT at the cut (100) do not cut; the first ACK past it ends CWR,
/// and the next echo cuts again: 75 × 0.75 = 56.25 Gb/s.
#[test]
fn rate_one_cut_per_cwr_episode() {
    let mut c = rate_dctcp(0.0, 0.5);
    c.on_ack(&ack(1, 100, true));
    assert_eq!(c.rate_bps(), 75.0 * GBPS);
    for cum in 2..=100 {
        c.on_ack(&ack(cum, 120, true));
    }
    assert_eq!(c.rate_bps(), 75.0 * GBPS, "marks in the same episode do not cut");
    assert_eq!(c.cuts, 1);
    c.on_ack(&ack(101, 140, false));
    assert_eq!(c.rate_bps(), 75.0 * GBPS, "leaving CWR does not by itself change the rate");
    c.on_ack(&ack(102, 140, true));
    assert_eq!(c.rate_bps(), 56.25 * GBPS);
    assert_eq!(c.cuts, 2);
}

/// alpha = 1 held: every episode halves, 100 Gb/s / 2^n, but never below min_rate
/// (100 Mb/s): 100 G / 2^10 = 97.66 Mb/s is clamped to 100 Mb/s, and stays there.
#[test]
fn rate_never_below_min_rate() {
    let mut c = rate_dctcp(0.0, 1.0);
    for n in 0..20u32 {
        // Each ACK is past the previous cut's SND.NXT and echoes ECN: one cut each.
        c.on_ack(&ack(2 * n + 1, 2 * n + 2, true));
        let expected = (100.0 * GBPS / 2f64.powi(n as i32 + 1)).max(0.1 * GBPS);
        assert_eq!(c.rate_bps(), expected, "cut {}", n + 1);
    }
    assert_eq!(c.cuts, 20);
    assert_eq!(c.pacing_rate(), Some(Rate(100_000_000)));
}

/// Without marks each completed batch adds 1 Gb/s, ACKs inside a batch add nothing, and
/// the rate stops at the line rate.
#[test]
fn rate_adds_one_gbps_per_batch_up_to_line_rate() {
    let mut c = rate_dctcp(1.0 / 256.0, 1.0);
    c.rate = 90.0 * GBPS;
    for k in 0..15 {
        for i in 1..=4 {
            let nxt = if k == 0 && i == 1 { 4 } else { 4 * k + 8 };
            c.on_ack(&ack(4 * k + i, nxt, false));
            let batches = if i == 4 { k + 1 } else { k };
            let expected = (90.0 + batches as f64).min(100.0) * GBPS;
            assert_eq!(c.rate_bps(), expected, "window {k}, ACK {i}");
        }
    }
}

/// An echo inside a batch cuts and no increase follows while in CWR, even at a batch end.
#[test]
fn rate_no_increase_in_cwr() {
    let mut c = rate_dctcp(0.0, 0.5);
    c.on_ack(&ack(1, 8, true)); // cut to 75 G, CWR until past PSN 8; batch end 8
    for cum in 2..=8 {
        c.on_ack(&ack(cum, 8, false)); // the batch ends at 8, still in CWR
    }
    assert_eq!(c.rate_bps(), 75.0 * GBPS);
    c.on_ack(&ack(9, 16, false)); // past 8: CWR over, and a new batch: +1 G
    assert_eq!(c.rate_bps(), 76.0 * GBPS);
}

#[test]
fn rate_starts_at_the_nic_line_rate_with_the_chosen_window() {
    let mut info = crate::cc::test_info(1048, 10_000, Time::from_us(8), 8, Rate::gbps(100), 1 << 20);
    info.nic_rate = Rate::gbps(200);
    info.unified_bdp = 107_336;
    let off = DctcpRate::new(&DctcpRateParams::default(), &info);
    assert_eq!(off.pacing_rate(), Some(Rate::gbps(200)));
    assert_eq!(off.cwnd(), NO_WINDOW);
    let bdp = DctcpRate::new(&DctcpRateParams { window: WindowCap::Bdp, ..Default::default() }, &info);
    assert_eq!(bdp.cwnd(), 107_336);
}

#[test]
fn params_parse_and_reject_with_the_field_named() {
    let p: DctcpParams =
        toml::from_str("variant = \"rate\"\nrate = { window = \"bdp\", min_rate = \"1Gbps\" }").unwrap();
    assert_eq!(p.variant, DctcpVariant::Rate);
    assert_eq!(p.rate.window, WindowCap::Bdp);
    assert_eq!(p.rate.min_rate.0, Rate::gbps(1));
    assert_eq!(p.rate.g, 1.0 / 256.0);
    assert_eq!(DctcpParams::default().variant, DctcpVariant::Window);
    let e = toml::from_str::<DctcpParams>("variant = \"rates\"").unwrap_err().to_string();
    assert!(e.contains("window") && e.contains("rate"), "{e}");
    let e = toml::from_str::<DctcpParams>("rate = { gain = 0.1 }").unwrap_err().to_string();
    assert!(e.contains("gain"), "{e}");
    let bad = DctcpParams { rate: DctcpRateParams { g: 0.0, ..Default::default() }, ..Default::default() };
    assert_eq!(bad.validate().unwrap_err().0, "rate.g");
    let bad = DctcpParams {
        rate: DctcpRateParams { min_rate: RateVal(Rate(0)), ..Default::default() },
        ..Default::default()
    };
    assert_eq!(bad.validate().unwrap_err().0, "rate.min_rate");
    assert!(DctcpParams::default().validate().is_ok());
}
