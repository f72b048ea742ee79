//! The Mathis et al. (1997) law for one NewReno flow under random loss:
//! throughput = 1.22 · MSS / (RTT · √p) with per-packet ACKs, when the path's capacity is
//! far above that rate (so RTT stays at its base value). The MSwift paper's analysis (§II,
//! Theorem 1) rests on it. Here a dumbbell's shared link loses packets with probability p; the
//! hosts' links are lossless, so p is the per-packet loss rate of the path.

use crate::common;

use dcnsim::Time;

fn mathis_ratio(p: f64, seconds: u64) -> (f64, f64) {
    let toml = format!(
        r#"
        seed = 5
        duration = "{seconds}s"
        [topology]
        kind = "dumbbell"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "16us"
        mtu = "1500B"
        loss_rate = {p}
        [switch]
        buffer = "10MB"
        ecn = {{ enabled = false }}
        [transport]
        cc = "newreno"
        header = "40B"
        [[workload]]
        kind = "flows"
        file = "flow.csv"
        "#
    );
    let mut s = common::sim_with_files(&toml, &[("flow.csv", "src,dst,size,start\n0,1,1TB,0\n")]);
    let warm = Time::from_ms(500);
    s.run_until(warm);
    let d0 = s.flows[0].receiver.delivered;
    s.run();
    let secs = (s.now() - warm).as_secs_f64();
    let packets_per_s = (s.flows[0].receiver.delivered - d0) as f64 / 1460.0 / secs;
    let rtt = s.flows[0].base_rtt.as_secs_f64();
    let model = 1.22 / (rtt * p.sqrt());
    (packets_per_s, model)
}

#[test]
fn newreno_throughput_follows_mathis_at_1e3() {
    let (got, model) = mathis_ratio(1e-3, 4);
    eprintln!("p = 1e-3: {got:.0} pkt/s, Mathis {model:.0} pkt/s, ratio {:.3}", got / model);
    assert!((got / model - 1.0).abs() <= 0.25);
}

#[test]
fn newreno_throughput_follows_mathis_at_1e4() {
    let (got, model) = mathis_ratio(1e-4, 10);
    eprintln!("p = 1e-4: {got:.0} pkt/s, Mathis {model:.0} pkt/s, ratio {:.3}", got / model);
    assert!((got / model - 1.0).abs() <= 0.25);
}
