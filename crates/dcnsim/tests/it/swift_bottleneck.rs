//! Swift on one bottleneck: docs/reproductions/dctcp-vs-swift-paper.md, B4–B7 (`paper` profile). A star at
//! 1 Gbps, 1554-byte packets (1500 B payload), 18.568 us cables so the unloaded RTT is
//! 100 us, a 2666-packet buffer, no ECN; measured over [2 s, 10 s].

use crate::common;

use dcnsim::{Simulation, Time};

const WIRE: f64 = 1554.0;
const RATE: f64 = 1e9;

fn star(n: u32, cable_us: f64, swift: &str, extra_transport: &str) -> Simulation {
    common::sim(&format!(
        r#"
        seed = 13
        duration = "10s"
        [topology]
        kind = "star"
        hosts = {hosts}
        link_rate = "1Gbps"
        link_latency = "{cable_us}us"
        mtu = "1554B"
        [switch]
        buffer = "{buffer}B"
        ecn = {{ enabled = false }}
        [transport]
        cc = "swift"
        header = "54B"
        rto_min = "10ms"
        {extra_transport}
        [transport.swift]
        {swift}
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = {n}
        size = "infinite"
        "#,
        hosts = n + 1,
        buffer = 2666 * 1554,
    ))
}

struct Run {
    utilisation: f64,
    mean_rtt_us: f64,
    base_rtt_us: f64,
    jain: f64,
    peak_queue_pkts: f64,
    loss: f64,
    min_gap_rtts: f64,
    cwnds: Vec<f64>,
}

fn measure(mut s: Simulation) -> Run {
    let warm = Time::from_ms(2000);
    let port = s.routing.host_down_port[0] as usize;
    s.run_until(warm);
    s.ports[port].reset_stats(warm);
    let data0 = s.counters.data_packets;
    let drops0 = s.counters.drops;
    let delivered0: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    s.run();
    let end = s.now();
    let secs = (end - warm).as_secs_f64();
    let p = &s.ports[port];
    let mean_queue = p.mean_queue_since(end, warm, 0);
    let base = s.flows[0].base_rtt.as_us_f64();
    let goodputs: Vec<f64> = s.flows.iter().zip(&delivered0).map(|(f, d)| (f.receiver.delivered - d) as f64).collect();
    let var = common::observed;
    Run {
        utilisation: p.stats.tx_bytes as f64 * 8.0 / (RATE * secs),
        // A packet's RTT is the unloaded one plus the queue it waited behind.
        mean_rtt_us: base + mean_queue * 8.0 / RATE * 1e6,
        base_rtt_us: base,
        jain: common::jain(&goodputs),
        peak_queue_pkts: p.stats.max_queue as f64 / WIRE,
        loss: (s.counters.drops - drops0) as f64 / (s.counters.data_packets - data0).max(1) as f64,
        min_gap_rtts: s.flows.iter().map(|f| var(f, "min_decrease_gap_rtts")).fold(f64::INFINITY, f64::min),
        cwnds: s.flows.iter().map(|f| var(f, "cwnd_pkts")).collect(),
    }
}

/// B4: Jain's index ≥ 0.99 for N = 2, 8, 16 with target = base RTT + at least two packet
/// times, flow scaling off. B6: no two decreases closer than one RTT.
///
/// At N = 16 a 25 us allowance leaves each flow 0.6 packets of window (BDP 8 + 2 queued,
/// over 16), and below one packet Algorithm 1 adds `ai` per ACK, i.e. grows in proportion
/// to the window: multiplicative, so it does not converge (we measured Jain 0.78, some
/// windows at the 0.001 floor). Swift's answers are a larger target, or flow scaling;
/// both are checked: 200 us (16 packet times, windows ≈ 2.5) without flow scaling, and
/// 25 us with fs_range = 125 us.
#[test]
fn b4_b6_swift_shares_fairly_and_decreases_at_most_once_per_rtt() {
    let cases = [
        (2, "base_target = \"25us\"\nfs_range = 0"),
        (8, "base_target = \"25us\"\nfs_range = 0"),
        (16, "base_target = \"200us\"\nfs_range = 0"),
        (16, "base_target = \"25us\"\nfs_range = \"125us\""),
    ];
    for (n, swift) in cases {
        let r = measure(star(n, 18.568, swift, ""));
        eprintln!(
            "N={n} {swift:?}: jain {:.4}, util {:.4}, mean RTT {:.1} us, min MD gap {:.2} RTT",
            r.jain, r.utilisation, r.mean_rtt_us, r.min_gap_rtts
        );
        assert!(r.jain >= 0.99, "N = {n}: Jain {}", r.jain);
        assert!(r.min_gap_rtts >= 1.0, "N = {n}: decreases {} RTTs apart", r.min_gap_rtts);
    }
}

/// B5: with a fixed target T = base + δ the mean RTT tracks T within max(10 %, 5 us),
/// utilisation is ≥ 95 % once δ ≥ 25 us (two packet times), and the RTT rises with δ.
#[test]
fn b5_swift_delay_tracks_its_target() {
    let mut last = 0.0;
    for delta in [10.0, 25.0, 50.0, 75.0, 100.0] {
        let base = 100.0;
        let target = base + delta;
        let r = measure(star(2, 18.568, &format!("fixed_target = \"{target}us\"\nfs_range = 0"), ""));
        eprintln!(
            "delta {delta} us: mean RTT {:.1} us (target {target}), util {:.4}, base {:.2}",
            r.mean_rtt_us, r.utilisation, r.base_rtt_us
        );
        assert!((r.base_rtt_us - base).abs() < 0.5, "the setup's unloaded RTT is {}", r.base_rtt_us);
        assert!((r.mean_rtt_us - target).abs() <= (0.1 * target).max(5.0), "delta {delta}: RTT {}", r.mean_rtt_us);
        if delta >= 25.0 {
            assert!(r.utilisation >= 0.95, "delta {delta}: utilisation {}", r.utilisation);
        }
        assert!(r.mean_rtt_us > last);
        last = r.mean_rtt_us;
    }
}

/// B7: 50–400 senders into one host (BDP ≈ 16 packets at a 197 us RTT), min_cwnd 0.001
/// and pacing: most windows fall below one packet, the peak queue grows sublinearly
/// (peak(400) / peak(50) < 3) and loss stays below 0.1 %.
#[test]
fn b7_swift_large_incast_keeps_the_queue_bounded() {
    let mut peaks = Vec::new();
    for n in [50u32, 100, 200, 400] {
        let r = measure(star(
            n,
            42.868,
            "base_target = \"25us\"\nfs_range = \"125us\"\nmin_cwnd_pkts = 0.001",
            "initial_window = 1",
        ));
        let below_one = r.cwnds.iter().filter(|&&c| c < 1.0).count() as f64 / n as f64;
        eprintln!(
            "N={n}: peak queue {:.0} pkts, loss {:.5}, {:.2} of windows < 1 pkt, util {:.3}",
            r.peak_queue_pkts, r.loss, below_one, r.utilisation
        );
        assert!(r.loss < 0.001, "N = {n}: loss {}", r.loss);
        if n >= 200 {
            assert!(below_one > 0.5, "N = {n}: only {below_one} of windows below one packet");
        }
        peaks.push(r.peak_queue_pkts);
    }
    assert!(peaks[3] / peaks[0] < 3.0, "peak queue grew {}x from 50 to 400 senders", peaks[3] / peaks[0]);
}

/// B8: a second flow joining at 0.5 s converges to a fair share (Jain ≥ 0.95 over 1 ms
/// windows, holding for the next 50 ms) within 100 ms with flow scaling on (fs_range =
/// 5 × 25 us), and measurably slower with it off.
#[test]
fn b8_flow_scaling_speeds_up_convergence() {
    let convergence_ms = |fs: &str| {
        let toml = format!(
            r#"
            duration = "1s"
            [topology]
            kind = "star"
            hosts = 3
            link_rate = "1Gbps"
            link_latency = "18.568us"
            mtu = "1554B"
            [switch]
            buffer = "4142964B"
            ecn = {{ enabled = false }}
            [transport]
            cc = "swift"
            header = "54B"
            rto_min = "10ms"
            [transport.swift]
            base_target = "25us"
            fs_range = "{fs}"
            [[workload]]
            kind = "flows"
            file = "f.csv"
            "#
        );
        let mut s = common::sim_with_files(&toml, &[("f.csv", "src,dst,size,start\n1,0,1GB,0\n2,0,1GB,500ms\n")]);
        let start = Time::from_ms(500);
        s.run_until(start);
        let mut fair = Vec::new();
        let mut last: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
        for ms in 1..=450u64 {
            s.run_until(start + Time::from_ms(ms));
            let now: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
            let window: Vec<f64> = now.iter().zip(&last).map(|(a, b)| (a - b) as f64).collect();
            fair.push(common::jain(&window) >= 0.95);
            last = now;
        }
        (0..fair.len() - 50).find(|&i| fair[i..i + 50].iter().all(|&f| f)).map(|i| i as f64 + 1.0)
    };
    let with_fs = convergence_ms("125us");
    let without = convergence_ms("0ns");
    eprintln!("converged after {with_fs:?} ms with flow scaling, {without:?} ms without");
    let with_fs = with_fs.expect("converges with flow scaling");
    assert!(with_fs <= 100.0, "{with_fs} ms");
    assert!(without.is_none_or(|w| w > with_fs), "flow scaling did not speed convergence");
}
