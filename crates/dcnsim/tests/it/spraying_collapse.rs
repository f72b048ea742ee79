//! The throughput-collapse models of "Congestion Control for Spraying with Congested
//! Paths" (arXiv 2509.07907 v2, Table I; docs/reproductions/mswift-paper.md, A3–A5): one
//! infinite flow sprayed round-robin over n parallel 800 Gbps links, the last of which is
//! slower, so a fraction q = 1/n of its packets take the slow path. The fast RTT T_s is
//! 10 us. Throughputs are far below the links' capacity, so nothing queues and the slow
//! path is a pure extra delay, as the models assume.
//!
//! The sender paces at one window per RTT. The models treat the flow as a fluid (Thm 6's
//! proof assumes pacing explicitly); unpaced, each window leaves as a sub-microsecond
//! burst at 800 Gbps, and a slow packet at the tail of a burst is overtaken by nothing
//! within its 9 us of extra delay, so whether it counts as a loss locks to the sawtooth's
//! phase (we measured 1.15× the model at n = 128 and 0.97× at n = 64 that way).

use crate::common;

use dcnsim::{Simulation, Time};

const WIRE: f64 = 4160.0;
const PAYLOAD: f64 = 4096.0;

struct Setup<'a> {
    cc: &'a str,
    n: u32,
    /// T_l − T_s.
    extra_us: f64,
    swift: &'a str,
    initial_window: &'a str,
}

fn scenario(s: &Setup) -> String {
    format!(
        r#"
        seed = 1
        duration = "40ms"
        [topology]
        kind = "parallel"
        hosts = 2
        paths = {n}
        slow_paths = {slow}
        slow_extra_latency = "{extra}us"
        link_rate = "800Gbps"
        link_latency = "3.93664us"
        host_link_latency = "500ns"
        mtu = "4160B"
        [switch]
        buffer = "16MB"
        ecn = {{ enabled = false }}
        [transport]
        cc = "{cc}"
        lb = "rr"
        header = "64B"
        rto_min = "100us"
        initial_window = {iw}
        pacing = true
        [transport.swift]
        {swift}
        [[workload]]
        kind = "incast"
        senders = 1
        receiver = 1
        size = "infinite"
        "#,
        n = s.n,
        slow = if s.extra_us > 0.0 { 1 } else { 0 },
        extra = s.extra_us,
        cc = s.cc,
        iw = s.initial_window,
        swift = s.swift,
    )
}

/// Goodput in packets per fast RTT over [5 ms, 40 ms], and the fast RTT.
fn packets_per_rtt(setup: &Setup) -> (f64, f64) {
    let mut s: Simulation = common::sim(&scenario(setup));
    let warm = Time::from_ms(5);
    s.run_until(warm);
    let d0 = s.flows[0].receiver.delivered;
    s.run();
    let secs = (s.now() - warm).as_secs_f64();
    let rtt = s.flows[0].base_rtt.as_secs_f64();
    let pkts = (s.flows[0].receiver.delivered - d0) as f64 / PAYLOAD;
    (pkts / secs * rtt, rtt)
}

fn slope(xs: &[f64], ys: &[f64]) -> f64 {
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let ly: Vec<f64> = ys.iter().map(|y| y.ln()).collect();
    let (mx, my) = (lx.iter().sum::<f64>() / lx.len() as f64, ly.iter().sum::<f64>() / ly.len() as f64);
    let num: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    num / den
}

/// A3 (Thm 3): with every late packet taken for a loss (3 fast packets overtake it) and a
/// halving on it, Swift settles at (1/T_s)·√((1/mm − ½)·ai)·√n = 1.2247·√n packets per RTT
/// — Mathis with p = q = 1/n. Its fixed 25 us target lies above T_l = 19 us, so only the
/// loss signal acts. Within ±15 %, log-log slope 0.50 ± 0.07.
///
/// Thm 1 makes the same prediction for TCP NewReno, which abstracts away fast recovery.
/// RFC 6582 NewReno does not grow its window during the ~1 RTT of recovery after each
/// loss, which costs most when cycles are short (a cycle is √(2n/3) RTTs: 4.6 at n = 32).
/// Allowing growth in recovery brings it to 0.90–0.97 of the model, like Swift; as
/// specified it reaches 0.73–0.89, so NewReno is held to the slope (±0.1), to within 30 %
/// of the model, and to never beating Swift.
#[test]
fn a3_swift_and_newreno_collapse_as_the_square_root_of_n() {
    let ns = [32u32, 64, 128, 256];
    let mut by_cc = Vec::new();
    for cc in ["swift", "newreno"] {
        let mut got = Vec::new();
        for &n in &ns {
            let setup = Setup {
                cc,
                n,
                extra_us: 9.0,
                swift: "fixed_target = \"25us\"\nfs_range = 0",
                initial_window: "\"bdp\"",
            };
            let (x, rtt) = packets_per_rtt(&setup);
            let model = 1.2247 * (n as f64).sqrt();
            eprintln!(
                "{cc} n={n}: {x:.2} pkt/RTT ({:.2} Gbps), model {model:.2} ({:.2} Gbps), ratio {:.3}",
                x * PAYLOAD * 8.0 / rtt / 1e9,
                model * PAYLOAD * 8.0 / rtt / 1e9,
                x / model
            );
            let tolerance = if cc == "swift" { 0.15 } else { 0.30 };
            assert!((x / model - 1.0).abs() <= tolerance, "{cc} n = {n}: {x} vs {model}");
            got.push(x);
        }
        let k = slope(&ns.iter().map(|&n| n as f64).collect::<Vec<_>>(), &got);
        eprintln!("{cc} log-log slope {k:.3}");
        let tolerance = if cc == "swift" { 0.07 } else { 0.10 };
        assert!((k - 0.5).abs() <= tolerance, "{cc} slope {k}");
        by_cc.push(got);
    }
    for (i, n) in ns.iter().enumerate() {
        assert!(by_cc[1][i] <= by_cc[0][i] * 1.02, "n = {n}: NewReno above Swift");
    }
}

/// A4 (Thm 5): LSwift forgives the reordering (a hole waits 25 us, longer than the 20 us
/// the slow path adds), but the slow packets' delay (T_l = 30 us) exceeds its fixed 15 us
/// target, and each such ACK cuts by d = min(β(T_l − T*)/T_l, mm) = 0.4 at most once per
/// RTT: X = √((1/d − ½)·ai·n) = √(2n) packets per RTT (valid while W_max < n).
#[test]
fn a4_lswift_still_collapses_on_delay() {
    for n in [64u32, 256] {
        let setup = Setup {
            cc: "lswift",
            n,
            extra_us: 20.0,
            swift: "fixed_target = \"15us\"\nfs_range = 0\nreorder_wait = \"25us\"",
            initial_window: "\"bdp\"",
        };
        let (x, _) = packets_per_rtt(&setup);
        let model = (2.0 * n as f64).sqrt();
        eprintln!("lswift n={n}: {x:.2} pkt/RTT, model {model:.2}, ratio {:.3}", x / model);
        assert!((x / model - 1.0).abs() <= 0.20, "n = {n}: {x} vs {model}");
    }
}

/// A5 (Thm 6): MSwift decides on the median of the last max(W/2, 1) delays; with q = 1/n
/// < 1/3 of them slow, the median is always a fast one, so it keeps ≥ 90 % of the
/// goodput of the same run without a slow path, while LSwift falls to ≤ 30 %.
#[test]
fn a5_mswift_keeps_its_throughput_and_lswift_does_not() {
    let swift = "fixed_target = \"15us\"\nfs_range = 0\nreorder_wait = \"25us\"";
    let line_rate = 800e9 / 8.0 / WIRE; // packets per second
    for n in [4u32, 8, 16, 64] {
        let run = |cc, extra_us| {
            let (x, rtt) = packets_per_rtt(&Setup { cc, n, extra_us, swift, initial_window: "\"bdp\"" });
            x / rtt
        };
        let reference = run("mswift", 0.0);
        let mswift = run("mswift", 20.0);
        let lswift = run("lswift", 20.0);
        eprintln!(
            "n={n}: reference {:.1} Gbps ({:.3} of line rate), mswift {:.3}, lswift {:.3} of it",
            reference * PAYLOAD * 8.0 / 1e9,
            reference / line_rate,
            mswift / reference,
            lswift / reference
        );
        assert!(mswift >= 0.90 * reference, "n = {n}: MSwift kept {}", mswift / reference);
        assert!(lswift <= 0.30 * reference, "n = {n}: LSwift kept {}", lswift / reference);
    }
}
