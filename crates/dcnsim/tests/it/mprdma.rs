//! MPRDMA (`cc = "mprdma"`, docs/models/mprdma.md) in the network.

use crate::common::*;

use dcnsim::Time;

/// Two long MPRDMA flows through one 100 Gbps port with a step ECN marker at K = 1 BDP.
/// A flow whose every packet in a round trip is marked loses half its window (−½ packet
/// per marked packet), so its worst cut is a halving; a queue threshold of one BDP is
/// the classic buffer that keeps a halving AIMD flow at full utilisation (Villamizar &
/// Song 1994), so the link carries its payload rate (100 × 4032/4096 Gbps) within 3 %.
/// The two flows see the same marks with the same rule, so they share equally
/// (Jain ≥ 0.99 over the second half of the run).
#[test]
fn two_mprdma_flows_fill_the_link_and_share_it() {
    // Base RTT ≈ 4 × 1 µs + serialisations ≈ 4.7 µs: BDP ≈ 59 KB at 100 Gbps.
    let mut s = sim(r#"
        duration = "6ms"
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        [switch]
        buffer = "1MB"
        ecn = { kmin = "60KB", kmax = "60KB" }
        [transport]
        cc = "mprdma"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 2
        size = "infinite"
    "#);
    s.run_until(Time::from_ms(3));
    let before: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    s.run();
    let gbps: Vec<f64> =
        s.flows.iter().zip(&before).map(|(f, b)| (f.receiver.delivered - b) as f64 * 8.0 / 3e-3 / 1e9).collect();
    eprintln!("MPRDMA 2 flows: {gbps:?} Gbps; marks {}", s.counters.ecn_marks);
    let total: f64 = gbps.iter().sum();
    let payload_rate = 100.0 * 4032.0 / 4096.0;
    assert!(s.counters.ecn_marks > 0);
    assert!((total - payload_rate).abs() / payload_rate < 0.03, "total {total:.2} Gbps");
    assert!(jain(&gbps) >= 0.99, "Jain {:.4}", jain(&gbps));
}

// Trimming conservation for MPRDMA runs in `trimming.rs` with the other algorithms.

#[test]
fn bad_mprdma_input_names_the_field() {
    let toml = |p: &str| {
        format!(
            "[topology]\nkind = \"star\"\nhosts = 2\n[transport]\ncc = \"mprdma\"\nmprdma = {{ {p} }}\n[[workload]]\nkind = \"permutation\"\nsize = \"1MB\"\n"
        )
    };
    let e = build_err(&toml("variant = \"dcqcn\""));
    assert!(e.contains("transport.mprdma.variant") && e.contains("htsim_dctcp"), "{e}");
    let e = build_err(&toml("max_cwnd_bdp = 0"));
    assert!(e.starts_with("transport.mprdma.max_cwnd_bdp"), "{e}");
    let e = build_err(&toml("min_cwnd_pkts = -1"));
    assert!(e.starts_with("transport.mprdma.min_cwnd_pkts"), "{e}");
}
