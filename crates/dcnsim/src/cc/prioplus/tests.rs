//! Unit tests of `prioplus`.

use super::*;

const US: fn(u64) -> Time = Time::from_us;

/// The reference setting of the acceptance checks (`docs/reproductions/prioplus-paper.md`):
/// 100 Gbps, BaseRtt 12 µs, 1 KB packets.
fn info(priority: u8, levels: u8) -> FlowInfo {
    FlowInfo { priority, levels, seed: 7, ..crate::cc::test_info(1000, 10_000, US(12), 2, Rate::gbps(100), 1 << 20) }
}

fn ack(now: Time, rtt: Time, cum_ack: u32, snd_nxt: u32) -> AckSample {
    AckSample {
        now,
        newly_acked: 1000,
        ece: false,
        rtt,
        cum_ack,
        snd_nxt,
        in_flight: 0,
        in_flight_before: u64::MAX / 4,
    }
}

/// AC1: N = 8, BaseRtt = 12 µs gives D_target^1 = 16 µs, D_limit^1 = 18.4 µs,
/// D_target^8 = 44 µs and no limit at the top (`docs/models/prioplus.md`); for any N the
/// channels nest: D_limit^{i−1} < D_target^i < D_limit^i.
#[test]
fn ac1_channel_math() {
    let (a, b) = (Time::from_ns(3200), Time::from_ns(800));
    assert_eq!(channel(1, 8, US(12), a, b, 1), (US(16), Some(Time::from_ns(18_400))));
    assert_eq!(channel(8, 8, US(12), a, b, 1), (US(44), None));
    assert_eq!(channel(7, 8, US(12), a, b, 1), (US(40), Some(Time::from_ns(42_400))));
    for n in 1..=40 {
        for i in 2..=n {
            let (_, lower_limit) = channel(i - 1, n, US(12), a, b, 1);
            let (target, limit) = channel(i, n, US(12), a, b, 1);
            assert!(lower_limit.unwrap() < target, "n {n} i {i}");
            assert!(limit.is_none_or(|l| target < l), "n {n} i {i}");
        }
    }
    // The PrioPlus flow takes its channel from its level and the scenario's levels.
    let f = PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(3, 8));
    assert_eq!(f.channel(), (US(24), Some(Time::from_ns(26_400))));
}

/// `limit_gap` replaces A/2 + B and keeps the spacing A + B: the artefact's Fig. 10d
/// channel of width 10 KB and interval 20 KB at 100 Gbps (0.8 and 1.6 µs) at level 3 of
/// 8 is target 3·2.4 = 7.2 µs over BaseRtt, limit 0.8 µs above it. A gap that reaches the
/// next target is refused.
#[test]
fn limit_gap_overrides_a_half_plus_b() {
    let p = PrioPlusParams {
        fluctuation: TimeVal(Time::from_ns(2400)),
        noise: TimeVal(Time::ZERO),
        limit_gap: Some(TimeVal(Time::from_ns(800))),
        ..PrioPlusParams::default()
    };
    assert!(p.validate().is_ok());
    let f = PrioPlus::new(&p, &SwiftParams::default(), &info(3, 8));
    assert_eq!(f.channel(), (Time::from_ns(19_200), Some(Time::from_ns(20_000))));
    let wide = PrioPlusParams { limit_gap: Some(TimeVal(Time::from_ns(2400))), ..p.clone() };
    assert_eq!(wide.validate().unwrap_err().0, "limit_gap");
    // Absent, the gap is A/2 + B as before.
    let d = PrioPlusParams::default();
    let g = PrioPlus::new(&d, &SwiftParams::default(), &info(3, 8)).channel();
    assert_eq!(g.1.unwrap() - g.0, Time::from_ns(2400));
}

/// AC2: the fluctuation bound (App. D, `min` form: the paper's `max` is an erratum) for
/// n = 150, W_AI = 150 B, 100 G, β = 0.8, max_mdf = 0.5, target 4 µs is 3.24 µs ± 0.01; with
/// the artefact's W_AI = 180 B it is 3.89 µs (`docs/models/prioplus.md`, `ai_bytes`).
#[test]
fn ac2_swift_fluctuation_formula() {
    let f = swift_fluctuation(150.0, 150.0, Rate::gbps(100), 0.8, 0.5, US(4));
    assert!((f.as_us_f64() - 3.24).abs() <= 0.01, "{f}");
    let f = swift_fluctuation(150.0, 180.0, Rate::gbps(100), 0.8, 0.5, US(4));
    assert!((f.as_us_f64() - 3.89).abs() <= 0.01, "{f}");
}

/// Potential backlog max_a ∫_a^{a+τ} [r(t) − r(a)] dt of a ramp r (rate before 0 is 0,
/// after T it stays R), by midpoint sums.
fn max_backlog(r: &dyn Fn(f64) -> f64, t_end: f64, tau: f64) -> f64 {
    let steps = 4000;
    let dt = tau / steps as f64;
    let mut best = 0.0f64;
    let mut a = -tau;
    while a <= t_end {
        let ra = r(a);
        let b: f64 = (0..steps).map(|k| r(a + (k as f64 + 0.5) * dt) - ra).sum::<f64>() * dt;
        best = best.max(b);
        a += tau / 50.0;
    }
    best
}

/// AC3 (Theorem 4.1 / C.1): among ramps from 0 to R over T = nτ, the linear ramp has
/// the smallest worst-case potential backlog, R·τ²/(2T) = BDP/(2n); the doubling ramp
/// and the step at start are worse. PrioPlus's linear start is that ramp: n = BaseBdp/W_LS
/// rounds of +W_LS.
#[test]
fn ac3_linear_start_is_optimal() {
    let (rate, tau, n) = (1.0, 1.0, 8.0);
    let t_end = n * tau;
    let clamp = |t: f64, v: f64| {
        if t < 0.0 {
            0.0
        } else if t >= t_end {
            rate
        } else {
            v
        }
    };
    let linear = |t: f64| clamp(t, rate * t / t_end);
    let doubling = |t: f64| clamp(t, rate * 2f64.powf((t - t_end) / tau));
    let step = |t: f64| clamp(t, rate);
    let (bl, be, bs) =
        (max_backlog(&linear, t_end, tau), max_backlog(&doubling, t_end, tau), max_backlog(&step, t_end, tau));
    let bdp = rate * tau;
    assert!((bl - bdp / (2.0 * n)).abs() < 0.01 * bdp / (2.0 * n), "linear {bl}");
    assert!(bl < be && be < bs, "linear {bl}, doubling {be}, step {bs}");
    // W_LS = 0.125 BDP: 8 rounds to line rate (`docs/reproductions/prioplus-paper.md`, AC5).
    let p = PrioPlusParams { linear_step: Some(PerLevel::All(0.125)), ..PrioPlusParams::default() };
    let f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
    assert!((f.base_bdp / f.w_ls - 8.0).abs() < 1e-9);
}

/// AC4: ScheduleProbe(delay) waits delay − D_target + U(0, BaseRtt): at delay =
/// D_limit + 5 µs on level 1 of 8 the mean over 10⁴ draws is 7.4 + 6 µs (± 2 %) and
/// every wait lies in [7.4, 19.4] µs.
#[test]
fn ac4_probe_timing() {
    let mut f = PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(1, 8));
    let delay = f.channel().1.unwrap() + US(5);
    let waits: Vec<f64> = (0..10_000).map(|_| f.probe_wait(delay).as_us_f64()).collect();
    let mean = waits.iter().sum::<f64>() / waits.len() as f64;
    assert!((mean - 13.4).abs() <= 0.02 * 13.4, "mean wait {mean} µs");
    assert!(waits.iter().all(|&w| (7.4 - 1e-9..=19.4 + 1e-9).contains(&w)));
    // Below the target the first term is clamped to 0 (`docs/models/prioplus.md`, "Known
    // deviations").
    assert!(f.probe_wait(US(12)) <= US(12));
}

/// The 2-sample filter (§4.3.1; Algorithm 1's listing would fire on the third, an erratum):
/// one sample above D_limit does not stop the flow, two in a row do; the stop estimates
/// #flow = delay·LineRate/cwnd (§4.3.1) and sets the countdown to BaseBdp/W_LS plus [A]'s
/// two rounds of slack (1/0.125 + 2 = 10); a probe
/// echo on an empty queue restarts it at W_LS/#flow.
#[test]
fn filter_stop_estimate_and_restart() {
    let p = PrioPlusParams { linear_step: Some(PerLevel::All(0.125)), ..PrioPlusParams::default() };
    let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
    f.stopped = false;
    f.set_cwnd_bytes(25_000.0);
    let high = US(20); // above D_limit^1 = 18.4 µs
    f.on_ack(&ack(US(100), high, 1, 10));
    assert!(!f.is_stopped(), "one sample must not stop the flow");
    f.on_ack(&ack(US(101), US(17), 2, 10));
    f.on_ack(&ack(US(102), high, 3, 10));
    assert!(!f.is_stopped(), "the filter counts consecutive samples");
    let before = f.cwnd_bytes();
    f.on_ack(&ack(US(103), high, 4, 10));
    assert!(f.is_stopped());
    assert_eq!(f.cwnd(), 0);
    // 20 µs × 12.5 B/ns = 250 KB in flight over our window.
    let want = 250_000.0 / before;
    assert!((f.flow_estimate() - want).abs() < 1e-6 * want, "{} vs {want}", f.flow_estimate());
    assert_eq!(f.count_down, 10);
    let t = f.probe_at().unwrap();
    assert!(t >= US(103) + US(4) && t <= US(103) + US(16), "probe at {t}");
    // Echo still above the limit: the probe is rescheduled.
    f.on_probe_sent(t);
    f.on_probe_ack(t + US(20), US(19));
    assert!(f.is_stopped());
    // Echo on an empty queue: linear start from W_LS/#flow, one countdown round used.
    f.on_probe_sent(t + US(40));
    f.on_probe_ack(t + US(52), US(12));
    assert!(!f.is_stopped());
    let w_ls = 0.125 * 150_000.0;
    assert!((f.cwnd_bytes() - w_ls / want).abs() < 1.0);
    assert_eq!(f.count_down, 9);
    // A mid-range echo (BaseRtt < delay < D_limit) restarts at one packet (§4.4).
    f.on_ack(&ack(US(200), high, 5, 10));
    f.on_ack(&ack(US(201), high, 6, 10));
    assert!(f.is_stopped());
    f.on_probe_ack(US(250), US(15));
    assert!((f.cwnd_bytes() - 1000.0).abs() < 1e-6);
}

/// The cardinality estimate #flow = delay·LineRate/cwnd (§4.3.1) counts a flow's share
/// as at least one packet: a flow restarted at W_LS/#flow below one MTU still sends
/// whole packets. So the estimate never exceeds the packets in flight at that delay,
/// delay·LineRate/MTU, and cannot feed on its own shrinking restarts.
#[test]
fn flow_estimate_counts_at_least_one_packet_per_flow() {
    // No filter: the first sample above D_limit^1 stops the flow, before Swift acts.
    let p = PrioPlusParams { linear_step: Some(PerLevel::All(0.125)), filter: 1, ..PrioPlusParams::default() };
    let delay = US(44);
    let stop_at = |cwnd: f64| {
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.set_cwnd_bytes(cwnd);
        f.on_ack(&ack(US(100), delay, 1, 10));
        assert!(f.is_stopped());
        f.flow_estimate()
    };
    // Linear start at W_LS/#flow = 18.75 KB / 50 = 375 B: 44 µs × 12.5 B/ns = 550 KB
    // in flight holds at most 550 one-packet flows (not 550 KB / 375 B = 1467).
    let n = stop_at(375.0);
    assert!((n - 550.0).abs() < 1e-6, "{n}");
    // A window above one packet is used as it is.
    let n = stop_at(5_000.0);
    assert!((n - 110.0).abs() < 1e-6, "{n}");
}

/// `docs/reproductions/prioplus-paper.md`, AC12: a stopped flow sends its next probe only after
/// the previous probe's echo returns. ACKs of data still in flight that arrive above
/// D_limit after a probe has left re-estimate #flow but must not schedule a second probe;
/// the echo does. The loss guard (probe timeout) stays armed meanwhile.
#[test]
fn late_data_acks_do_not_send_a_second_probe() {
    let p = PrioPlusParams { linear_step: Some(PerLevel::All(0.125)), filter: 1, ..PrioPlusParams::default() };
    let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
    f.stopped = false;
    f.set_cwnd_bytes(25_000.0);
    let high = US(30); // above D_limit^1 = 18.4 µs
    f.on_ack(&ack(US(100), high, 1, 30));
    assert!(f.is_stopped());
    let first = f.probe_at().unwrap();
    f.on_probe_sent(first);
    let guard = first + p.probe_timeout.0;
    assert_eq!(f.probe_at(), Some(guard));
    // Data sent before the stop is still being acknowledged, above the limit.
    let estimate = f.flow_estimate();
    f.on_ack(&ack(first + US(1), US(40), 2, 30));
    assert_eq!(f.probe_at(), Some(guard), "a probe is in flight: no new one before its echo");
    assert!(f.flow_estimate() > estimate, "the late ACK still re-estimates #flow");
    // The echo, still above the limit, schedules the next probe after the usual wait.
    let echo_at = first + US(30);
    f.on_probe_ack(echo_at, high);
    let next = f.probe_at().unwrap();
    assert!(next >= echo_at + (high - f.channel().0) && next <= echo_at + (high - f.channel().0) + US(12));
    // With no probe in flight, a high data ACK schedules one itself.
    f.on_ack(&ack(echo_at + US(1), high, 3, 30));
    assert!(f.probe_at().unwrap() < echo_at + US(1) + p.probe_timeout.0);
    // A probe left before a resume: if the flow stops again before the echo is back,
    // the echo (not the stop) schedules the next probe.
    let t = f.probe_at().unwrap();
    f.on_probe_sent(t);
    f.on_ack(&ack(t + US(1), US(15), 4, 30));
    assert!(!f.is_stopped(), "a below-limit data ACK resumes the flow");
    f.on_ack(&ack(t + US(2), high, 5, 31));
    assert!(f.is_stopped());
    assert_eq!(f.probe_at(), Some(t + p.probe_timeout.0));
    f.on_probe_ack(t + US(25), high);
    assert!(f.probe_at().unwrap() < t + US(25) + US(30));
}

/// Rounds (Algorithm 1 lines 2–4): a round ends when the PSN that was next at its start
/// is acknowledged; the dual-RTT flag alternates, so adaptive increase acts in every
/// other round. The countdown halves #flow only after BaseBdp/W_LS empty rounds.
#[test]
fn rounds_alternate_and_countdown_halves_the_estimate() {
    let mut r = Rounds::default();
    r.restart(10);
    assert!(!r.on_ack(10, 12), "PSN 10 not yet acknowledged");
    assert!(r.on_ack(11, 20) && r.dual_pass);
    assert!(!r.on_ack(15, 22));
    assert!(r.on_ack(21, 30) && !r.dual_pass);
    let p = PrioPlusParams { linear_step: Some(PerLevel::All(0.125)), ..PrioPlusParams::default() };
    let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
    f.n_flow = 8.0;
    f.count_down = 2;
    f.count_empty_round();
    f.count_empty_round();
    assert_eq!(f.n_flow, 8.0);
    f.count_empty_round();
    assert_eq!(f.n_flow, 4.0, "halved (Algorithm 1's erratum), not doubled");
}

/// The countdown set at a stop is BaseBdp/W_LS empty-queue rounds (§4.3.1) plus
/// `countdown_slack` ([A]'s 1/ratio + 2): W_LS = 0.25 BDP gives 4 + 2 = 6 rounds by
/// default, 4 with no slack, and 1/0.125 + 2 = 10 at W_LS = 0.125 BDP.
#[test]
fn countdown_adds_the_artefacts_slack() {
    let stopped_countdown = |linear_step: f64, slack: u32| {
        let p = PrioPlusParams {
            linear_step: Some(PerLevel::All(linear_step)),
            countdown_slack: slack,
            filter: 1,
            ..PrioPlusParams::default()
        };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.set_cwnd_bytes(25_000.0);
        f.on_ack(&ack(US(100), US(20), 1, 10)); // above D_limit^1 = 18.4 µs
        assert!(f.is_stopped());
        f.count_down
    };
    assert_eq!(stopped_countdown(0.25, PrioPlusParams::default().countdown_slack), 6);
    assert_eq!(stopped_countdown(0.25, 0), 4);
    assert_eq!(stopped_countdown(0.125, 2), 10);
}

/// Per-level settings ([A]'s coflow and LEDBAT presets): W_LS listed from the top level
/// down, and the top two levels unlimited. Level 5 of 8 takes the 4th entry from the top
/// (0.25 × 150 KB = 37,500 B); levels 7 and 8 have no limit and start at 150 KB; level 6
/// keeps D_limit = D_target + 2.4 µs. A list whose length is not `levels` is refused.
#[test]
fn per_level_linear_steps_and_unlimited_levels() {
    let steps = PerLevel::FromTop(vec![1.0, 1.0, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125]);
    let p = PrioPlusParams {
        levels: Some(8),
        linear_step: Some(steps.clone()),
        unlimited_levels: 2,
        direct_start_levels: Some(4),
        ..PrioPlusParams::default()
    };
    assert!(p.validate().is_ok());
    let sp = SwiftParams::default();
    let level = |i: u8| PrioPlus::new(&p, &sp, &info(i, 8));
    assert!((level(5).cwnd_bytes() - 37_500.0).abs() < 1.0);
    assert_eq!(level(7).channel().1, None);
    assert!((level(7).cwnd_bytes() - 150_000.0).abs() < 1.0);
    assert_eq!(level(6).channel(), (US(36), Some(Time::from_ns(38_400))));
    assert!(level(3).is_stopped(), "below the direct-start levels a flow probes first");
    let short = PrioPlusParams { levels: Some(6), ..p.clone() };
    assert_eq!(short.validate().unwrap_err().0, "linear_step");
}

/// The two flow-count formulas (§4.3.1 and the artefact): a level-1 flow (BaseRtt 12 µs,
/// D_target 16 µs, 100 Gbps: BaseBdp 150 KB) with a 25,000 B window stops at a 20 µs
/// sample. The paper's estimate is 20 µs × 12.5 B/ns / 25,000 B = 10 flows; the artefact's
/// 20 / (16 × 25,000 / 150,000) = 7.5.
#[test]
fn flow_estimate_formulas() {
    let estimate = |formula: FlowEstimate| {
        let p = PrioPlusParams { filter: 1, flow_estimate: formula, ..PrioPlusParams::default() };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.set_cwnd_bytes(25_000.0);
        f.on_ack(&ack(US(100), US(20), 1, 10));
        assert!(f.is_stopped());
        f.flow_estimate()
    };
    assert!((estimate(FlowEstimate::Window) - 10.0).abs() < 1e-9);
    assert!((estimate(FlowEstimate::Target) - 7.5).abs() < 1e-9);
}

/// Start rules (`docs/models/prioplus.md`; the top level's are [A]'s, the paper is silent):
/// the top level never stops and starts at one BaseBdp; the top eighth starts at once;
/// lower levels wait for a first probe within U(0, BaseRtt) of their start.
#[test]
fn start_rules_by_level() {
    let sp = SwiftParams::default();
    let top = PrioPlus::new(&PrioPlusParams::default(), &sp, &info(8, 8));
    assert_eq!(top.channel().1, None);
    assert!(!top.is_stopped());
    assert!((top.cwnd_bytes() - 150_000.0).abs() < 1.0);
    let low = PrioPlus::new(&PrioPlusParams::default(), &sp, &info(2, 8));
    assert!(low.is_stopped());
    assert_eq!(low.cwnd(), 0);
    assert!(low.probe_at().unwrap() < US(12));
    let direct = PrioPlusParams { direct_start_levels: Some(4), ..PrioPlusParams::default() };
    let mid = PrioPlus::new(&direct, &sp, &info(5, 8));
    assert!(!mid.is_stopped());
    assert!((mid.cwnd_bytes() - 0.25 * 150_000.0).abs() < 1.0, "W_LS preset 0.25 BDP at level 5 of 8");
}
/// [A]'s stop at a tiny window (`stop_below_pkts`, `docs/models/prioplus.md`): off by
/// default, Swift's decrease may leave a sub-packet window that trickles; with 0.1 packets,
/// a decrease to or below 0.1 packets stops the flow (cwnd 0) without touching #flow, the
/// probe goes out within U(0, BaseRtt), and an empty-queue echo restarts it at W_LS/#flow.
#[test]
fn stop_below_a_tiny_window_when_asked() {
    let run = |stop_below: Option<f64>| {
        let p = PrioPlusParams {
            linear_step: Some(PerLevel::All(0.125)),
            stop_below_pkts: stop_below,
            ..PrioPlusParams::default()
        };
        let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
        f.stopped = false;
        f.n_flow = 4.0;
        f.set_cwnd_bytes(150.0); // 0.15 packets
                                 // 17 µs: above D_target^1 = 16 µs, below D_limit^1: Swift decreases by
                                 // min(0.8·1/17, 0.5) = 4.7 %, to 0.143 packets; then once per RTT again.
        let mut t = US(100);
        for k in 0..40u32 {
            f.on_ack(&ack(t, US(17), k + 1, k + 2));
            t = t + US(13);
            if f.is_stopped() {
                break;
            }
        }
        (f, t)
    };
    let (f, _) = run(None);
    assert!(!f.is_stopped(), "[P]: no stop below the limit");
    assert!(f.cwnd_bytes() < 100.0 && f.cwnd() > 0, "{}", f.cwnd_bytes());
    let (mut f, t) = run(Some(0.1));
    assert!(f.is_stopped());
    assert_eq!(f.cwnd(), 0);
    assert_eq!(f.flow_estimate(), 4.0, "#flow untouched");
    assert!(f.cwnd_before_stop <= 100.0);
    let at = f.probe_at().unwrap();
    assert!(at <= t + US(12), "probe at {at}, stop before {t}");
    f.on_probe_sent(at);
    f.on_probe_ack(at + US(12), US(12));
    assert!(!f.is_stopped());
    assert!((f.cwnd_bytes() - 0.125 * 150_000.0 / 4.0).abs() < 1.0);
    let bad = PrioPlusParams { stop_below_pkts: Some(1.5), ..PrioPlusParams::default() };
    assert_eq!(bad.validate().unwrap_err().0, "stop_below_pkts");
}

/// PrioPlus over LEDBAT (from [A]; `docs/models/prioplus.md`): per ACK
/// cwnd += gain·(D_target − d)/(D_target − BaseRtt)·MTU/cwnd_pkts·s + W_AI_adapt/cwnd_pkts,
/// s = min(1, 5/#flow). Level 1 of 8 (D_target 16 µs, BaseRtt 12 µs), #flow 10 (s = ½),
/// cwnd 20 packets, d = 14 µs: the first ACK closes an adaptive round, so W_AI_adapt =
/// min(cwnd/2, (16 − 14)/14·cwnd) = 20/7 packets, and the window grows by
/// 2/4·1/20·½ + (20/7)/20 packets; the next ACK (no round end) by the same formula at the
/// new window. The default stays Swift.
#[test]
fn ledbat_underlying_follows_the_spec_update() {
    let p = PrioPlusParams { underlying: Underlying::Ledbat, ..PrioPlusParams::default() };
    let mut f = PrioPlus::new(&p, &SwiftParams::default(), &info(1, 8));
    assert_eq!(f.inner.name(), "ledbat");
    assert_eq!(PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(1, 8)).inner.name(), "swift");
    f.stopped = false;
    f.n_flow = 10.0;
    f.set_cwnd_bytes(20_000.0);
    f.on_ack(&ack(US(100), US(14), 1, 10));
    let adapt = 20.0 / 7.0;
    let want = 20.0 + 0.5 * (1.0 / 20.0) * 0.5 + adapt / 20.0;
    assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
    f.on_ack(&ack(US(101), US(14), 2, 10));
    let want = want + (0.5 * 0.5 + adapt) / want;
    assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
    // Above the target LEDBAT decreases, in proportion to (d − D_target)/(D_target − BaseRtt).
    let before = f.cwnd_bytes() / 1000.0;
    f.on_ack(&ack(US(102), US(18), 3, 10));
    let want = before + (-0.5 * 0.5 + adapt) / before;
    assert!((f.cwnd_bytes() / 1000.0 - want).abs() < 1e-9, "{} vs {want}", f.cwnd_bytes() / 1000.0);
    // Two samples at or above D_limit^1 = 18.4 µs stop it, as over Swift.
    f.on_ack(&ack(US(103), US(19), 4, 10));
    f.on_ack(&ack(US(104), US(19), 5, 10));
    assert!(f.is_stopped());
}

/// AC11 (§4.3, footnote 5): with the 2-sample filter a misreaction happens about once per
/// 400 MB. The paper's model: delay samples at D_target + A/2, the peak of the CC's normal
/// fluctuation, plus independent noise that exceeds the tolerance B (0.8 µs, its 99.85th
/// percentile) with probability p = 0.0015; a false stop needs two samples in a row at or
/// above D_limit = D_target + A/2 + B, so it comes once per 1/((1 − p)·p²) ≈ 444,000
/// samples, 444 MB with 1 KB packets and an ACK each. Here the noise is exponential with
/// P(noise ≥ B) = p exactly, and a stopped flow resumes at its next sample below the limit.
#[test]
fn ac11_misreaction_rate_matches_the_papers_model() {
    let mut f = PrioPlus::new(&PrioPlusParams::default(), &SwiftParams::default(), &info(1, 8));
    f.stopped = false;
    f.set_cwnd_bytes(25_000.0);
    let p: f64 = 0.0015;
    let (peak, b) = (Time::from_ns(17_600).as_secs_f64(), Time::from_ns(800).as_secs_f64());
    let mut rng = crate::engine::Rng::stream(11, "ac11");
    let samples: u32 = 20_000_000;
    let mut stops = 0u32;
    for k in 0..samples {
        let noise = b * -(1.0 - rng.next_f64()).ln() / (1.0 / p).ln();
        let was_stopped = f.is_stopped();
        f.on_ack(&ack(US(100) + Time::from_ns(80 * k as u64), Time::from_secs_f64(peak + noise), k + 1, k + 10));
        if f.is_stopped() && !was_stopped {
            stops += 1;
        }
    }
    let expected = samples as f64 * (1.0 - p) * p * p; // 44.9
    let mb_per_stop = samples as f64 * 1000.0 / stops.max(1) as f64 / 1e6;
    eprintln!("AC11: {stops} false stops in {samples} samples ({expected:.1} expected), one per {mb_per_stop:.0} MB");
    // Poisson: 45 expected stops, so ± 3 standard deviations is about ± 45 %.
    assert!((stops as f64 - expected).abs() <= 3.0 * expected.sqrt(), "{stops} stops, {expected:.1} expected");
    assert!((100.0..=2000.0).contains(&mb_per_stop), "one false stop per {mb_per_stop:.0} MB (AC11: 100 MB-2 GB)");
}

/// `delay = "owd"`: with BaseRtt 12 µs of which 6 µs one way (`test_info` splits it in
/// half), a one-way sample of 7 µs is the RTT-equivalent 7 + (12 − 6) = 13 µs, whatever
/// the ACK's own RTT. Level 1 of 8 (limit 18.4 µs): two ACKs whose RTT is 30 µs because
/// they queued on the way back stop an RTT-mode flow (the filter of 2) but not an OWD-mode
/// one, which sees 13 µs; two one-way samples of 13 µs (19 µs equivalent) stop it.
#[test]
fn owd_mode_acts_on_the_one_way_delay_plus_the_base_difference() {
    let rtt_mode = PrioPlusParams { direct_start_levels: Some(8), ..PrioPlusParams::default() };
    let owd_mode = PrioPlusParams { delay: DelaySignal::Owd, ..rtt_mode.clone() };
    let mut by_rtt = PrioPlus::new(&rtt_mode, &SwiftParams::default(), &info(1, 8));
    let mut by_owd = PrioPlus::new(&owd_mode, &SwiftParams::default(), &info(1, 8));
    assert!(by_owd.profile().one_way_delay && !by_rtt.profile().one_way_delay);
    assert!(by_rtt.cwnd() > 0 && by_owd.cwnd() > 0, "both start at once");
    for k in 1..=2 {
        by_rtt.on_ack(&ack(US(20 * k), US(30), k as u32, 10));
        by_owd.on_one_way_delay(US(20 * k), US(7));
        by_owd.on_ack(&ack(US(20 * k), US(30), k as u32, 10));
    }
    let delay_us = |f: &PrioPlus| {
        let mut d = 0.0;
        f.observe(&mut |name, v| {
            if name == "delay_us" {
                d = v
            }
        });
        d
    };
    assert_eq!(by_rtt.cwnd(), 0, "RTT mode reads the reverse queueing as a higher level");
    assert!(by_owd.cwnd() > 0);
    assert!((delay_us(&by_owd) - 13.0).abs() < 1e-9, "{}", delay_us(&by_owd));
    for k in 3..=4 {
        by_owd.on_one_way_delay(US(20 * k), US(13));
        by_owd.on_ack(&ack(US(20 * k), US(30), k as u32, 10));
    }
    assert_eq!(by_owd.cwnd(), 0, "19 µs equivalent is above the 18.4 µs limit");
}
