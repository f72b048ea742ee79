//! RoCEv2 as a scenario configuration (the SMaRTT paper's baseline, §IV-b;
//! docs/models/dcqcn.md, docs/models/pfc.md): DCQCN
//! (`cc = "dcqcn"`) + PFC (`[switch.pfc]`) + go-back-N (`loss_recovery = "go_back_n"`),
//! with the DCQCN paper's RED settings (Zhu et al. 2015, §5: Kmin = 5 KB, Kmax = 200 KB,
//! Pmax = 1 %).

use crate::common::*;

use dcnsim::Time;

fn rocev2(extra_switch: &str, duration: &str) -> String {
    format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        [switch]
        buffer = "1MB"
        ecn = {{ kmin = "5KB", kmax = "200KB", pmax = 0.01 }}
        pfc = {{}}
        {extra_switch}
        [transport]
        cc = "dcqcn"
        loss_recovery = "go_back_n"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 2
        size = "infinite"
        "#
    )
}

/// Two DCQCN senders into one 100 Gbps port: nothing is dropped, the two get equal
/// shares (the DCQCN paper's fairness result, §3 and Fig. 12: Jain ≥ 0.95 over the last
/// half of the run), and the receiver rate-limits CNPs to one per 50 µs per flow, so each
/// flow gets at most 1 + run time / 50 µs of them. The pair cannot exceed the link's
/// payload rate (100 × 4032/4096 Gbps). It does not fill it either: the line-rate start
/// draws a few CNPs in a row while α ≈ 1, and with the NIC-default R_AI = 5 Mbps
/// per 55 µs a flow regains only ≈ 0.1 Gbps per ms after fast recovery (the slow
/// recovery behind "DCQCN underutilises" in the SMaRTT paper's hardware runs, §V-A).
#[test]
fn rocev2_incast_is_lossless_fair_and_cnps_are_rate_limited() {
    let mut s = sim(&rocev2("", "20ms"));
    s.run_until(Time::from_ms(10));
    let before: Vec<u64> = s.flows.iter().map(|f| f.receiver.delivered).collect();
    s.run();
    let gbps: Vec<f64> =
        s.flows.iter().zip(&before).map(|(f, b)| (f.receiver.delivered - b) as f64 * 8.0 / 10e-3 / 1e9).collect();
    eprintln!("RoCEv2 2:1 goodput over the last 10 ms: {gbps:?}, stats {:?}", s.stats());
    assert_eq!(s.counters.drops, 0);
    let total: f64 = gbps.iter().sum();
    let payload_rate = 100.0 * 4032.0 / 4096.0;
    assert!(total <= payload_rate * 1.001, "total {total:.2} Gbps");
    assert!(jain(&gbps) >= 0.95, "Jain {:.3}", jain(&gbps));
    let cnps = s.counters.cnps;
    assert!(cnps > 0, "the RED ramp marked packets");
    assert!(cnps <= 2 * (1 + 20_000 / 50), "{cnps} CNPs for 2 flows over 20 ms");
    for f in &s.flows {
        let per_flow = observed(f, "cnps");
        assert!(per_flow <= (1 + 20_000 / 50) as f64);
    }
}

/// Go-back-N in the network: on a lossy link (no PFC, 1 % loss) a DCQCN flow still
/// delivers every byte exactly once, and resends at least one packet per loss (a loss
/// costs go-back-N the whole window behind it, so typically many more).
#[test]
fn go_back_n_recovers_every_loss() {
    let toml = r#"
        [topology]
        kind = "dumbbell"
        hosts = 2
        link_rate = "100Gbps"
        link_latency = "1us"
        loss_rate = 0.01
        [transport]
        cc = "dcqcn"
        loss_recovery = "go_back_n"
        rto_min = "100us"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
    "#;
    let mut s = sim_with_files(toml, &[("flows.csv", "src,dst,size,start\n0,1,4MB,0\n")]);
    s.run();
    let f = &s.flows[0];
    assert!(f.receiver.finish.is_some());
    assert_eq!(f.receiver.delivered, 4_000_000);
    assert!(s.counters.drops > 0);
    assert!(f.sender.retransmits >= s.counters.drops, "{} resent for {} lost", f.sender.retransmits, s.counters.drops);
}

/// Bad DCQCN / recovery input names the field and the allowed values.
#[test]
fn bad_dcqcn_input_names_the_field() {
    let base = rocev2("", "1ms");
    let e = build_err(&base.replace("loss_recovery = \"go_back_n\"", "loss_recovery = \"selective\""));
    assert!(e.contains("transport.loss_recovery") && e.contains("go_back_n") && e.contains("sack"), "{e}");
    let e = build_err(&base.replace("[transport]", "[transport]\ndcqcn = { g = 0 }"));
    assert!(e.starts_with("transport.dcqcn.g"), "{e}");
    let e = build_err(&base.replace("[transport]", "[transport]\ndcqcn = { byte_counter = 0 }"));
    assert!(e.starts_with("transport.dcqcn.byte_counter"), "{e}");
    let e = build_err(&base.replace("[transport]", "[transport]\ndcqcn = { increase_timer = \"0us\" }"));
    assert!(e.starts_with("transport.dcqcn.increase_timer"), "{e}");
    let e = build_err(&base.replace("[transport]", "[transport]\ndcqcn = { rate_hia = \"1Gbps\" }"));
    assert!(e.contains("transport.dcqcn") && e.contains("rate_hia"), "{e}");
}

/// DCQCN's unified window (docs/models/dcqcn.md, `dcqcn.window = "bdp"`): on the star, every
/// path is host → switch → host, two 100 Gbps links of 1 µs, so the one-way delay of a
/// full 4096-byte packet is 2 × (1 µs + 327.68 ns) = 2655.36 ns and the window is
/// 2655.36 ns × 100 Gb/s / 8 = 33,192 bytes. Sampled every 50 ns, neither sender of the
/// 2:1 incast ever has more in flight, and each reaches it (the window binds); without
/// the window (the default) the same senders run far past it.
#[test]
fn dcqcn_unified_window_caps_bytes_in_flight() {
    let peaks = |window: &str| {
        let toml = rocev2("", "1ms").replace("[transport]", &format!("[transport]\ndcqcn = {{ window = {window} }}"));
        let mut s = sim(&toml);
        let mut peak = [0u64; 2];
        let mut t = Time::ZERO;
        while t < Time::from_ms(1) {
            t = t + Time::from_ns(50);
            s.run_until(t);
            for (p, f) in peak.iter_mut().zip(&s.flows) {
                *p = (*p).max(f.sender.in_flight);
            }
        }
        eprintln!(
            "window {window}: peaks {peak:?}, delivered {:?}",
            s.flows.iter().map(|f| f.receiver.delivered).collect::<Vec<_>>()
        );
        (peak, s.flows.iter().map(|f| observed(f, "window_bytes")).collect::<Vec<_>>())
    };
    let (on, windows) = peaks("\"bdp\"");
    assert_eq!(windows, vec![33_192.0, 33_192.0]);
    for p in on {
        assert!(p <= 33_192, "{p} bytes in flight");
        assert!(p > 33_192 - 4096, "the window never bound: peak {p}");
    }
    let (off, windows) = peaks("\"off\"");
    assert!(windows.iter().all(|w| w.is_nan()), "no window reported when off");
    assert!(off.iter().all(|&p| p > 2 * 33_192), "without a window: {off:?}");
    // A fixed size is taken as given.
    let (fixed, windows) = peaks("\"20KB\"");
    assert_eq!(windows, vec![20_000.0, 20_000.0]);
    assert!(fixed.iter().all(|&p| p <= 20_000 && p > 20_000 - 4096), "{fixed:?}");
}

/// Bad `dcqcn.window` values name the field and list what is allowed.
#[test]
fn bad_dcqcn_window_names_the_field() {
    for bad in ["\"on\"", "0", "\"0KB\"", "-5", "1.5"] {
        let toml = rocev2("", "1ms").replace("[transport]", &format!("[transport]\ndcqcn = {{ window = {bad} }}"));
        let e = build_err(&toml);
        assert!(e.contains("transport.dcqcn") && e.contains("window"), "{bad}: {e}");
        assert!(e.contains("\"off\"") && e.contains("\"bdp\""), "{bad}: {e}");
    }
}
