//! DCTCP on one bottleneck: docs/reproductions/dctcp-vs-swift-paper.md, B1–B4, from the DCTCP paper's
//! analysis (Alizadeh et al. 2010, §3.3). N long-lived flows share one 1 Gbps port of a
//! star; 1500-byte packets; 20 us cables (base RTT about 105 us); buffer 2666 packets.
//! Measured over [2 s, 10 s] after a 2 s warm-up, as that document's setup prescribes.

use crate::common;

use dcnsim::{Simulation, Time};

const PKT: f64 = 1500.0;
const RATE: f64 = 1e9;

struct Measured {
    utilisation: f64,
    mean_queue_pkts: f64,
    in_band: f64,
    band: (f64, f64),
    mean_alpha: f64,
    alpha_model: f64,
    jain: f64,
    goodput_bps: f64,
}

fn scenario(n: u32, cc: &str, k_pkts: u32, ecn: bool) -> String {
    format!(
        r#"
        seed = 11
        [topology]
        kind = "star"
        hosts = {hosts}
        link_rate = "1Gbps"
        link_latency = "20us"
        mtu = "1500B"
        [switch]
        buffer = "{buffer}B"
        ecn = {{ enabled = {ecn}, kmin = "{k}B", kmax = "{k}B", on = "enqueue", mark_if = ">" }}
        [transport]
        cc = "{cc}"
        header = "40B"
        initial_window = 10
        rto_min = "10ms"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = {n}
        size = "infinite"
        stop = "10s"
        "#,
        hosts = n + 1,
        buffer = 2666 * 1500,
        k = k_pkts * 1500,
    )
}

fn measure(n: u32, cc: &str, k_pkts: u32, ecn: bool) -> Measured {
    let mut s: Simulation = common::sim(&scenario(n, cc, k_pkts, ecn));
    let warm = Time::from_ms(2000);
    let end = Time::from_ms(10_000);
    // The bottleneck: the switch port towards host 0.
    let port = s.routing.host_down_port[0] as usize;
    s.run_until(warm);
    let tx0 = s.ports[port].stats.tx_bytes;
    let integ0 = {
        let p = &s.ports[port];
        p.stats.queue_integral + p.queued_bytes as u128 * (warm.0 - p.stats.last_change.0) as u128
    };
    let delivered0: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();

    // W* = (C·RTT + K) / N packets; A = ½·sqrt(2N(C·RTT + K)) (DCTCP paper §3.3; B1).
    let rtt = s.flows[0].base_rtt.as_secs_f64();
    let c_rtt = RATE / 8.0 / PKT * rtt;
    let k = k_pkts as f64;
    let amp = 0.5 * (2.0 * n as f64 * (c_rtt + k)).sqrt();
    let band = (k - amp - 2.0, k + n as f64 + 2.0);
    let w_star = (c_rtt + k) / n as f64;

    let step = Time::from_us(10);
    let (mut samples, mut inside) = (0u64, 0u64);
    let (mut alpha_sum, mut alpha_n) = (0.0, 0u64);
    let mut t = warm;
    while t < end {
        t = t + step;
        s.run_until(t);
        let q = s.ports[port].queued_bytes as f64 / PKT;
        samples += 1;
        if q >= band.0 && q <= band.1 {
            inside += 1;
        }
        if samples % 10 == 0 {
            for f in &s.flows {
                f.sender.cc.observe(&mut |name, v| {
                    if name == "alpha" {
                        alpha_sum += v;
                        alpha_n += 1;
                    }
                });
            }
        }
    }
    let secs = (end - warm).as_secs_f64();
    let p = &s.ports[port];
    let goodputs: Vec<f64> =
        s.flows.iter().zip(&delivered0).map(|(f, d0)| (f.receiver.delivered - d0) as f64 * 8.0 / secs).collect();
    Measured {
        utilisation: (p.stats.tx_bytes - tx0) as f64 * 8.0 / (RATE * secs),
        mean_queue_pkts: p.mean_queue_since(end, warm, integ0) / PKT,
        in_band: inside as f64 / samples as f64,
        band,
        mean_alpha: if alpha_n > 0 { alpha_sum / alpha_n as f64 } else { f64::NAN },
        alpha_model: (2.0 / w_star).sqrt(),
        jain: common::jain(&goodputs),
        goodput_bps: goodputs.iter().sum(),
    }
}

/// B1 (queue around K) and B2 (alpha ≈ sqrt(2/W*)) for N = 2, K = 20.
#[test]
fn b1_b2_dctcp_queue_tracks_k_and_alpha_matches_model() {
    let m = measure(2, "dctcp", 20, true);
    eprintln!(
        "N=2 K=20: util {:.4} mean queue {:.2} pkts, {:.4} of samples in [{:.1}, {:.1}], alpha {:.3} (model {:.3}), jain {:.4}",
        m.utilisation, m.mean_queue_pkts, m.in_band, m.band.0, m.band.1, m.mean_alpha, m.alpha_model, m.jain
    );
    assert!(m.utilisation >= 0.95, "utilisation {}", m.utilisation);
    assert!((m.mean_queue_pkts - 20.0).abs() <= 0.3 * 20.0, "mean queue {} pkts", m.mean_queue_pkts);
    assert!(m.in_band >= 0.99, "only {:.4} of samples inside the B1 band {:?}", m.in_band, m.band);
    assert!(
        (m.mean_alpha - m.alpha_model).abs() <= 0.3 * m.alpha_model,
        "mean alpha {} vs sqrt(2/W*) = {}",
        m.mean_alpha,
        m.alpha_model
    );
}

/// B3: NewReno with drop-tail keeps a mean queue at least 10x DCTCP's, at equal throughput.
#[test]
fn b3_newreno_droptail_queue_is_ten_times_dctcp() {
    let d = measure(2, "dctcp", 20, true);
    let r = measure(2, "newreno", 2666, false);
    eprintln!(
        "DCTCP queue {:.1} pkts at {:.1} Mbps; NewReno queue {:.1} pkts at {:.1} Mbps",
        d.mean_queue_pkts,
        d.goodput_bps / 1e6,
        r.mean_queue_pkts,
        r.goodput_bps / 1e6
    );
    assert!(r.mean_queue_pkts >= 10.0 * d.mean_queue_pkts);
    assert!((r.goodput_bps - d.goodput_bps).abs() <= 0.05 * d.goodput_bps);
}

/// B4: Jain's index >= 0.99 over per-flow goodput for N = 2, 8, 16 (K >= 20).
#[test]
fn b4_dctcp_fair_share_for_2_8_16_flows() {
    for n in [2, 8, 16] {
        let m = measure(n, "dctcp", 20, true);
        eprintln!(
            "N={n}: jain {:.4}, util {:.4}, alpha {:.3} (model {:.3})",
            m.jain, m.utilisation, m.mean_alpha, m.alpha_model
        );
        assert!(m.jain >= 0.99, "N = {n}: Jain {}", m.jain);
        assert!(m.utilisation >= 0.95, "N = {n}: utilisation {}", m.utilisation);
    }
}

/// The rate-based DCTCP (docs/models/dctcp.md): two flows into one 100 Gb/s star port, the
/// second starting 2 ms after the first, when the first holds the whole link. AIMD with a
/// common additive step and multiplicative cuts converges to equal shares (Chiu and Jain
/// 1989): each cut shrinks the difference of the two rates by the factor (1 − α/2), each
/// increase leaves it unchanged. Over [10 ms, 30 ms] each flow must get half the port
/// within 5 % (Jain ≥ 0.99 allows about ±10 %; we ask for better, since the flows are
/// symmetric once the second has caught up), and together at least 90 % of it (the
/// step-marked queue at K = 100 KB must not drain on a cut: the cuts are small once α
/// has fallen, and a drained queue shows up as lost throughput).
#[test]
fn rate_dctcp_two_flows_converge_to_fair_share() {
    let toml = r#"
        seed = 3
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "1500B"
        [switch]
        buffer = "4MB"
        ecn = { kmin = "100KB", kmax = "100KB", on = "enqueue", mark_if = ">" }
        [transport]
        cc = "dctcp"
        header = "40B"
        dctcp = { variant = "rate" }
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#;
    // 1 GB each: longer than the 30 ms measured even at line rate (375 MB).
    let csv = "src,dst,size,start\n1,0,1GB,0\n2,0,1GB,2ms\n";
    let mut s = common::sim_with_files(toml, &[("flows.csv", csv)]);
    assert_eq!(s.flows.len(), 2);
    let (t0, t1) = (Time::from_ms(10), Time::from_ms(30));
    s.run_until(t0);
    let d0: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    s.run_until(t1);
    let secs = (t1 - t0).as_secs_f64();
    let gbps: Vec<f64> =
        s.flows.iter().zip(&d0).map(|(f, d)| (f.receiver.delivered - d) as f64 * 8.0 / secs / 1e9).collect();
    eprintln!("rate DCTCP goodput {gbps:?} Gb/s, jain {:.4}", common::jain(&gbps));
    let total: f64 = gbps.iter().sum();
    // Conservation: payload goodput cannot exceed the wire rate times the payload share
    // of a full packet, 1460 / 1500.
    assert!(total <= 100.0 * 1460.0 / 1500.0 + 1e-9, "{total}");
    assert!(total >= 90.0, "utilisation {total} Gb/s of 100");
    for g in &gbps {
        assert!((g / total - 0.5).abs() <= 0.025, "shares {gbps:?}");
    }
}
