//! PrioPlus over Swift on one bottleneck (docs/reproductions/prioplus-paper.md, AC5, AC7, AC9;
//! the paper's Fig. 10 micro-benchmarks, §6.1). The reference star: 100 Gbps, 3 µs links
//! (base RTT ≈ 12 µs), 1 KB packets, per-packet ACKs at top priority, a deep buffer, no
//! ECN; channels per PrioPlus paper §4.3.2 (4 µs spacing, 2.4 µs limit gap), W_AI = 150 B,
//! β = 0.8, max_mdf = 0.5.
//! Every bound below is docs/reproductions/prioplus-paper.md's (where it is a tolerance, one that
//! the reproduction suggests rather than the paper).
//!
//! AC7 (b) covers the high flows' convergence (1.2 to 2 ms) too: with the paper's countdown
//! (no slack) the ten level-4 flows overshot their own D_limit together there, all
//! stopped and the link idled for a probe wait; the artefact's two rounds of slack
//! (`countdown_slack`, the default) keep utilisation ≥ 0.998 over that span. After the
//! high flows stop, (b) is checked from the end of (c)'s 0.5 ms budget: the check's
//! 0.2 ms for (b) and 0.5 ms for (c) cannot both bind.

use crate::common;
use crate::common::LINE_100G as LINE;

use dcnsim::{Simulation, Time};

fn star(hosts: u32, prioplus: &str, workloads: &str) -> Simulation {
    common::sim(&format!(
        r#"
        {star}
        [transport]
        cc = "prioplus"
        rto_min = "5ms"
        [transport.prioplus]
        levels = 8
        {prioplus}
        {workloads}
        "#,
        star = common::reference_star("seed = 3", hosts, "20MB"),
    ))
}

/// Queueing delay in µs of `bytes` at line rate.
fn q_us(bytes: f64) -> f64 {
    bytes / LINE
}

/// AC5 (Fig. 10 linear start): one direct-start level-1 flow, W_LS = 0.125 BDP, on an idle
/// link. cwnd after k empty-queue rounds is (k+1)·W_LS (plus at most one W_AI per round);
/// ≥ 95 % of line rate within 120 µs; the queue of the overfilling round is at most one step
/// (18.75 KB); then adaptive increase lifts the queue to D_target^1 − BaseRtt = 4 µs (50 KB)
/// and the delay never reaches D_limit^1 (6.4 µs of queue).
#[test]
fn ac5_linear_start() {
    let mut s = star(
        2,
        "linear_step = 0.125\ndirect_start_levels = 8",
        r#"[[workload]]
        kind = "incast"
        receiver = 1
        senders = 1
        size = "infinite"
        stop = "3ms"
        priority = 1"#,
    );
    let port = s.routing.host_down_port[1] as usize;
    let bdp = LINE * s.flows[0].base_rtt.as_us_f64();
    let w_ls = 0.125 * bdp;
    let mut seen_steps = 0.0;
    let mut first_full: Option<f64> = None;
    let mut last_tx = 0u64;
    let window_us = 12u64;
    for t in 1..=2000u64 {
        s.run_until(Time::from_us(t));
        let f = &s.flows[0];
        let steps = common::observed(f, "linear_steps");
        // Up to line rate: (k+1)·W_LS ≤ BaseBdp, i.e. k ≤ 7.
        if steps > seen_steps && steps <= 7.0 {
            seen_steps = steps;
            let cwnd = common::observed(f, "cwnd_pkts") * 1000.0;
            let want = (steps + 1.0) * w_ls;
            assert!(
                cwnd >= want - 1.0 && cwnd <= want + (steps + 1.0) * 2.0 * 150.0,
                "after {steps} linear steps cwnd {cwnd} B, want (k+1)·W_LS = {want} B"
            );
        }
        if t % window_us == 0 {
            let tx = s.ports[port].stats.tx_bytes;
            let rate = (tx - last_tx) as f64 / (window_us as f64 * LINE);
            last_tx = tx;
            if rate >= 0.95 && first_full.is_none() {
                first_full = Some(t as f64);
            }
        }
        if t == 150 {
            let peak = s.ports[port].stats.max_queue as f64;
            assert!(peak <= w_ls, "startup queue peaked at {peak} B, above one step W_LS = {w_ls} B");
        }
    }
    assert!(seen_steps >= 6.0, "only {seen_steps} linear-start rounds");
    let full = first_full.expect("never reached 95 % of line rate");
    assert!(full <= 120.0 + window_us as f64, "95 % of line rate only in the window ending at {full} µs");
    // AC5's last bullet (adaptive increase lifts the queue to D_target^1) cannot
    // happen here: one sender whose NIC runs at the bottleneck's rate cannot build a queue
    // at the switch, so the flow only ever sees the base RTT. What must hold is that the
    // delay never reached D_limit^1.
    s.run_until(Time::from_ms(2));
    assert_eq!(common::observed(&s.flows[0], "stops"), 0.0, "the delay reached D_limit during startup");
    assert!(q_us(s.ports[port].stats.max_queue as f64) < 6.4, "queue reached the limit");
}

/// Per-window throughput (fraction of the line) of the flows with tag `tag`.
struct Meter {
    last: Vec<u64>,
}

impl Meter {
    fn new(s: &Simulation) -> Meter {
        Meter { last: s.flows.iter().map(|f| f.receiver.delivered).collect() }
    }
    /// Delivered bytes per flow since the last call.
    fn take(&mut self, s: &Simulation) -> Vec<f64> {
        let now: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        let d = now.iter().zip(&self.last).map(|(a, b)| (a - b) as f64).collect();
        self.last = now;
        d
    }
}

/// Bytes of `per_flow` summed over the flows whose `high` flag is `which`.
fn bytes_of(per_flow: &[f64], high: &[bool], which: bool) -> f64 {
    per_flow.iter().zip(high).filter(|(_, &h)| h == which).map(|(b, _)| b).sum()
}

/// The AC7 scenario (Fig. 10c): 10 low flows (level 2) from 0 to 4 ms, 10 high flows
/// (level 4) from 1 ms to 3 ms, all long-lived; `prioplus` adds PrioPlus settings.
fn ac7_star(prioplus: &str) -> Simulation {
    star(
        21,
        prioplus,
        r#"[[workload]]
        tag = "low"
        kind = "incast"
        receiver = 0
        senders = 10
        size = "infinite"
        stop = "4ms"
        priority = 2
        [[workload]]
        tag = "high"
        kind = "incast"
        receiver = 0
        senders = 10
        size = "infinite"
        start = "1ms"
        stop = "3ms"
        priority = 4"#,
    )
}

/// AC7 (Fig. 10c): 10 low flows (level 2) from 0, 10 high flows (level 4) from 1 ms to
/// 3 ms. (a) within 1 ms of the high start the high aggregate is ≥ 95 % of the link and
/// the low one (data plus probes) ≤ 2 %, while the high flows run; (b) utilisation ≥ 95 %
/// outside 0.2 ms after each transition; (c) the low flows are back to ≥ 95 % within 0.5 ms
/// of the high flows stopping.
#[test]
fn ac7_strict_two_level_preemption() {
    let mut s = ac7_star("");
    let high: Vec<bool> = s.flows.iter().map(|f| f.priority == 4).collect();
    let mut m = Meter::new(&s);
    let step = 50u64; // µs
    let mut probe_bytes = 0u64;
    let mut back_at: Option<u64> = None;
    // Shares of the line in wire bytes: delivered payload scaled up by the header.
    let payload_fraction = (1000 - s.cfg.header_bytes) as f64 / 1000.0;
    let line = LINE * step as f64 * payload_fraction;
    for t in (step..=3900).step_by(step as usize) {
        s.run_until(Time::from_us(t));
        let d = m.take(&s);
        let hi = bytes_of(&d, &high, true) / line;
        let probes = s.counters.probe_bytes - probe_bytes;
        probe_bytes = s.counters.probe_bytes;
        let lo = bytes_of(&d, &high, false) / line + probes as f64 / (LINE * step as f64);
        let win_start = t - step;
        let settled = |since: u64| win_start >= since + 200;
        if win_start >= 2000 && t <= 3000 {
            assert!(hi >= 0.95, "t {t} µs: high share {hi:.3}");
            assert!(lo <= 0.02, "t {t} µs: low share {lo:.4}");
        }
        // The cold start of the low flows (probe, overshoot, stop, linear start) takes
        // about 0.25 ms here; AC7's transitions are the high flows' start and stop.
        if (win_start >= 300 && t <= 1000) || (settled(1000) && t <= 3000) || win_start >= 3500 {
            assert!(hi + lo >= 0.95, "t {t} µs: utilisation {:.3}", hi + lo);
        }
        if t > 3000 && back_at.is_none() && lo >= 0.95 {
            back_at = Some(t);
        }
    }
    let back = back_at.expect("low flows never came back");
    assert!(back <= 3500, "low flows back at {back} µs, more than 0.5 ms after the high flows stopped");
}

/// AC9 (Fig. 10b): 300 flows of 500 KB start together at level 5 (D_target 32 µs = 20 µs
/// of queue, D_limit 34.4 µs), W_LS = 0.125 BDP (the micro-benchmarks' value, PrioPlus paper §4.4).
/// After 2 ms (AC9 suggests 1 ms; here the first overshoot, 300 × W_LS = 5.6 MB, takes
/// 0.5 ms to drain and the probes then wait delay − D_target ≈ 0.4 ms, §4.2.1), ≥ 90 % of 10 µs queue samples lie in
/// [D_target − A, D_limit + 1 µs] in queueing-delay terms (16.8 to 23.4 µs) and the link
/// stays ≥ 95 % busy until the flows drain; without cardinality estimation utilisation
/// drops below 90 % in more than 10 % of the samples.
#[test]
fn ac9_incast_cardinality_control() {
    let run = |cardinality: bool| -> (f64, f64, f64) {
        let mut s = star(
            301,
            &format!("direct_start_levels = 4\nlinear_step = 0.125\ncardinality = {cardinality}"),
            r#"[[workload]]
            kind = "incast"
            receiver = 0
            senders = 300
            size = "500KB"
            priority = 5"#,
        );
        let port = s.routing.host_down_port[0] as usize;
        let (mut in_band, mut busy, mut low_util, mut n) = (0, 0, 0, 0);
        let mut last_tx = 0;
        // 150 MB at 100 Gbps take 12 ms (plus headers): measure [2, 10] ms.
        for t in (10..=10_000u64).step_by(10) {
            s.run_until(Time::from_us(t));
            let p = &s.ports[port];
            let util = (p.stats.tx_bytes - last_tx) as f64 / (10.0 * LINE);
            last_tx = p.stats.tx_bytes;
            if t <= 2000 {
                continue;
            }
            n += 1;
            let q = q_us(p.queued_bytes as f64);
            in_band += (16.8..=23.4).contains(&q) as u32;
            busy += (util >= 0.95) as u32;
            low_util += (util < 0.90) as u32;
        }
        (in_band as f64 / n as f64, busy as f64 / n as f64, low_util as f64 / n as f64)
    };
    let (band, busy, _) = run(true);
    assert!(band >= 0.90, "queue in the channel in {:.1} % of samples", 100.0 * band);
    assert!(busy >= 0.95, "link ≥ 95 % busy in only {:.1} % of samples", 100.0 * busy);
    let (_, _, low) = run(false);
    assert!(low > 0.10, "without cardinality estimation, under 90 % in only {:.1} % of samples", 100.0 * low);
}

/// AC7 (d) (Fig. 10c's ablation, PrioPlus paper §4.2.3): with adaptive increase every RTT
/// (`dual_rtt = false`) the high aggregate swings at least twice as much over the first
/// 2 ms of the high flows as with dual-RTT adaptive increase. Measured on the high share of
/// the link in 20 µs bins, from the first bin at 95 % (the start-up ramp before it is not a
/// swing) to 3 ms.
///
/// AC7's peak-to-trough (max − min) cannot tell the two apart here: both runs touch 0
/// and 1 (seed 3: min 0.000, max 1.000 each), because the dual-RTT run has the collective
/// overshoots of AC7 (b)'s known shortfall (4 of its 79 bins below 0.5). The test therefore
/// takes a robust peak-to-trough, the 90th minus the 10th percentile of the bins, so that a
/// few collective stops do not decide it; and checks that the ablation also stops more
/// often and leaves the high flows below 95 % of the link more often. Measured (seed 3):
/// p90 − p10 0.024 with dual-RTT against 0.952 every RTT; 7 of 79 bins below 0.95 against
/// 44 of 88; 10 stops of the high flows against 100.
#[test]
fn ac7d_adaptive_increase_every_rtt_swings_more() {
    struct Swing {
        p10_p90: f64,
        off_share: f64,
        stops: f64,
    }
    let run = |dual_rtt: bool| -> Swing {
        let mut s = ac7_star(&format!("dual_rtt = {dual_rtt}"));
        let high: Vec<bool> = s.flows.iter().map(|f| f.priority == 4).collect();
        let mut m = Meter::new(&s);
        let step = 20u64;
        let payload_fraction = (1000 - s.cfg.header_bytes) as f64 / 1000.0;
        let line = LINE * step as f64 * payload_fraction;
        let mut shares = Vec::new();
        for t in (step..=3000).step_by(step as usize) {
            s.run_until(Time::from_us(t));
            let d = m.take(&s);
            let share = bytes_of(&d, &high, true) / line;
            if t > 1000 && (!shares.is_empty() || share >= 0.95) {
                shares.push(share);
            }
        }
        let mut sorted = shares.clone();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        let stops: f64 = s.flows.iter().filter(|f| f.priority == 4).map(|f| common::observed(f, "stops")).sum();
        let off = shares.iter().filter(|&&x| x < 0.95).count() as f64 / shares.len() as f64;
        println!(
            "dual_rtt = {dual_rtt}: {} bins, min {:.3} max {:.3}, p10 {:.3} p90 {:.3}, below 0.95 {off:.3}, high-flow stops {stops}",
            shares.len(),
            sorted[0],
            sorted[sorted.len() - 1],
            at(0.1),
            at(0.9)
        );
        Swing { p10_p90: at(0.9) - at(0.1), off_share: off, stops }
    };
    let (dual, every) = (run(true), run(false));
    assert!(every.p10_p90 >= 2.0 * dual.p10_p90, "swing every RTT {:.3}, dual-RTT {:.3}", every.p10_p90, dual.p10_p90);
    assert!(every.off_share >= 2.0 * dual.off_share && every.stops > dual.stops);
}

/// Runs `n` same-level flows (level 2 of 8, W_LS = 0.25 BaseBdp) sharing 80 MB into one
/// receiver; returns the aggregate wire rate over the run as a fraction of the line.
fn same_level_share(n: u32, countdown_slack: u32, noise: &str) -> f64 {
    let total = 80_000_000u64;
    let mut s = star(
        n + 1,
        &format!("linear_step = 0.25\ncountdown_slack = {countdown_slack}\n{noise}"),
        &format!(
            r#"[[workload]]
            kind = "incast"
            receiver = 0
            senders = {n}
            size = "{}B"
            priority = 2"#,
            total / n as u64
        ),
    );
    s.run();
    let end = s.flows.iter().map(|f| f.receiver.finish.expect("a flow did not finish")).max().unwrap();
    // Wire bytes: every 1000 B packet carries 1000 − header bytes of payload.
    let payload_per_packet = (1000 - s.cfg.header_bytes) as f64;
    let wire = total as f64 / payload_per_packet * 1000.0;
    wire / (end.as_us_f64() * LINE)
}

/// Same-level sharing (issue "PrioPlus fidelity"; PrioPlus paper §4.3.1 and its artefact):
/// 80 MB shared by 2, 4 or 8 flows at one level with W_LS = 0.25 BaseBdp take ≥ 90 % of
/// the line, with the artefact's countdown slack (the default), without and with the
/// paper's NIC delay noise (`workloads/delay_noise_nic.cdf`, 1×). Without the slack the
/// same runs are printed for comparison; on this star they also fill the line (0.97 to
/// 0.99 measured), so the slack is the artefact's setting here, not a fix this test proves;
/// AC7 below is where it matters (10 flows arriving together on a busy link).
#[test]
fn same_level_flows_fill_the_line() {
    let noise = nic_noise();
    for n in [2u32, 4, 8] {
        let with = same_level_share(n, 2, "");
        let without = same_level_share(n, 0, "");
        let with_noise = same_level_share(n, 2, &noise);
        let without_noise = same_level_share(n, 0, &noise);
        println!("{n} flows: {with:.3} of the line with the slack, {without:.3} without; with NIC noise {with_noise:.3} / {without_noise:.3}");
        assert!(with >= 0.90, "{n} same-level flows used {with:.3} of the line");
        assert!(with_noise >= 0.90, "{n} same-level flows used {with_noise:.3} of the line under NIC noise");
    }
}

/// The paper's NIC delay noise at 1× (`workloads/delay_noise_nic.cdf`) as a
/// `[transport.delay_noise]` section.
fn nic_noise() -> String {
    let cdf = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads/delay_noise_nic.cdf");
    format!("[transport.delay_noise]\ncdf = {:?}\nscale = 1", cdf.display().to_string())
}

/// `delay = "owd"` ([A]'s micro-benchmarks): a lone level-1 flow (of 8) crosses a
/// dumbbell whose other direction carries an uncontrolled 20 MB flow, so its ACKs wait
/// behind that flow's data (`ack_priority = false`, a 200 KB queue: up to 16 µs at
/// 100 Gb/s, well past the 6.4 µs between BaseRtt and D_limit^1). Its forward path holds
/// only its own packets, so no sample of its one-way delay can reach D_limit^1 and an
/// OWD-mode flow never stops; an RTT-mode flow reads the ACKs' wait as a higher level.
#[test]
fn owd_mode_ignores_queueing_on_the_reverse_path() {
    let run = |delay: &str| {
        let toml = format!(
            "seed = 3\n[topology]\nkind = \"dumbbell\"\nhosts = 4\nlink_rate = \"100Gbps\"\nlink_latency = \"3us\"\n\
             mtu = \"1000B\"\n[switch]\nbuffer = \"200KB\"\nack_priority = false\necn = {{ enabled = false }}\n\
             [transport]\ncc = \"prioplus\"\nrto_min = \"5ms\"\n[transport.prioplus]\nlevels = 8\n\
             direct_start_levels = 8\ndelay = \"{delay}\"\n\
             [[workload]]\nkind = \"flows\"\nfile = \"forward.csv\"\npriority = 1\n\
             [[workload]]\nkind = \"flows\"\nfile = \"reverse.csv\"\ncc = \"none\"\n"
        );
        let files = [
            ("forward.csv", "src,dst,size,start\n0,2,2MB,20us\n"),
            ("reverse.csv", "src,dst,size,start\n3,1,20MB,0\n"),
        ];
        let mut s = common::sim_with_files(&toml, &files);
        s.run();
        assert_eq!(s.flows_finished(), 2, "{delay}");
        common::observed(&s.flows[0], "stops")
    };
    assert_eq!(run("owd"), 0.0, "an OWD-mode flow alone on its forward path never stops");
    assert!(run("rtt") > 0.0, "the RTT-mode flow reads the reverse queue as a higher level");
}
