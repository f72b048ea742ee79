//! LAPS end to end (docs/reproductions/laps-paper.md, A6–A10): latency-aware spraying over the rail
//! fabric's candidate paths, per-path loss inference, probes, reverse-path ACKs and the
//! window bound, on the artefact's rail fabric (8 servers × 8 GPUs, 200G GPU links, 100G
//! rail and NVLink links, 1 µs per link, 1048-byte packets with 48-byte headers).

use crate::common;
use crate::common::*;

/// A LAPS scenario on the rail fabric with the flows of `csv` and extra TOML appended.
fn rail(csv: &str, extra: &str) -> dcnsim::Simulation {
    sim_with_files(&rail_toml(extra), &[("flows.csv", csv)])
}

fn rail_toml(extra: &str) -> String {
    let preamble = common::rail::rail_preamble(5);
    format!(
        r#"
        {preamble}
        [switch]
        buffer = "4MB"
        [transport]
        cc = "laps"
        lb = "laps"
        header = "48B"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        {extra}
        "#
    )
}

fn stat(s: &dcnsim::Simulation, name: &str) -> f64 {
    s.stats().into_iter().find(|(k, _)| *k == name).unwrap_or_else(|| panic!("no stat {name}")).1
}

/// Serialisation of `bytes` at `gbps`, in ns.
fn ser_ns(bytes: f64, gbps: f64) -> f64 {
    bytes * 8.0 / gbps
}

/// A6: with PFC on nothing is dropped, so a sound per-path inference declares nothing
/// lost: on Poisson data-mining traffic at 80 % load (all GPUs, uniform destinations),
/// heavily reordered across paths of 4 to 8 links, there is no retransmission and no
/// per-path timeout.
#[test]
fn a6_no_false_losses_in_a_lossless_fabric() {
    let toml = r#"
        seed = 6
        [topology]
        kind = "rail"
        hosts = 64
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "1048B"
        [switch]
        buffer = "1MB"
        pfc = {}
        [transport]
        cc = "laps"
        lb = "laps"
        header = "48B"
        [[workload]]
        kind = "poisson"
        cdf = "dm.cdf"
        load = 0.8
        stop = "40us"
    "#;
    // The VL2 data-mining CDF (LAPS paper §4; docs/reproductions/laps-paper.md) up to 3.16 MB (its 95th percentile):
    // the 1 GB tail would take seconds of simulated time.
    let dm =
        "0 0\n180 0.1\n216 0.2\n560 0.3\n900 0.4\n1100 0.5\n1870 0.6\n3160 0.7\n10000 0.8\n400000 0.9\n3160000 1\n";
    let mut s = sim_with_files(toml, &[("dm.cdf", dm)]);
    s.run();
    assert!(stat(&s, "flows") >= 30.0, "{} flows", stat(&s, "flows"));
    assert_eq!(stat(&s, "flows_finished"), stat(&s, "flows"));
    assert_eq!(stat(&s, "drops"), 0.0);
    assert!(stat(&s, "pfc_pause_frames") > 0.0, "PFC never engaged: the test would not load the fabric");
    assert!(stat(&s, "reordered_packets") > 1000.0, "too little reordering to test the inference");
    assert_eq!(stat(&s, "retransmits"), 0.0);
    assert_eq!(stat(&s, "laps_path_timeouts"), 0.0);
}

/// A7: one injected drop in a long flow is resent as soon as a later packet's ACK comes
/// back on its path, long before the 8 ms per-path timeout, exactly once, and nothing
/// else is resent (no go-back-N).
#[test]
fn a7_a_single_drop_is_resent_once_without_waiting_for_the_timeout() {
    let packets = 2000;
    let mut s =
        rail(&format!("src,dst,size,start\n2,13,{},0\n", packets * 1000), "[faults]\ndrop = [{ flow = 0, psn = 300 }]");
    s.run();
    let f = &s.flows[0];
    assert!(f.receiver.finish.is_some());
    assert_eq!(f.drops, 1);
    assert_eq!(f.sender.retransmits, 1);
    assert_eq!(s.monitors[0].tx_packets, packets as u64 + 1);
    assert_eq!(stat(&s, "laps_path_timeouts"), 0.0);
    // Ideal FCT: 2000 packets at 200G ≈ 84 µs plus ~9 µs of path; recovery adds about a
    // path round trip (~20 µs), far below the 8 ms timer.
    let fct = us(f.receiver.finish.unwrap() - f.start);
    assert!(fct < us(f.ideal_fct) + 100.0, "FCT {fct} µs against ideal {} µs", us(f.ideal_fct));
}

/// A8: an idle flow that, with latencies in raw nanoseconds, sends nearly everything on
/// its one shortest path leaves the other seven without data: they go stale and are
/// probed, and the probes stay below 1 % of the data bytes. The probes' echoes update
/// only the path table: the flow delivers each packet once and resends nothing.
#[test]
fn a8_idle_paths_are_probed_cheaply() {
    let packets = 4000;
    let mut s = rail(
        &format!("src,dst,size,start\n2,10,{},0\n", packets * 1000),
        "[transport.laps]\nlatency_scale = \"raw_ns\"",
    );
    s.run();
    let probes = stat(&s, "laps_probes");
    // Over ~170 µs each of the 7 unused paths goes stale every few path latencies.
    assert!(probes >= 7.0, "{probes} probes");
    assert_eq!(stat(&s, "probe_packets"), probes);
    let data_bytes = stat(&s, "data_packets") * 1048.0;
    assert!(stat(&s, "probe_bytes") < 0.01 * data_bytes, "{} probe bytes", stat(&s, "probe_bytes"));
    assert_eq!(stat(&s, "retransmits"), 0.0);
    assert_eq!(s.flows[0].receiver.delivered, packets as u64 * 1000);
    assert_eq!(s.monitors[0].rx_packets, packets as u64);
}

/// A9: an ACK goes back on its data packet's path reversed. GPU (0, 2) to GPU (1, 2)
/// has one 4-link path and seven 8-link ones; one-packet flows spaced far apart see an
/// idle network, so an ACK's one-way delay is exactly its reverse path's propagation and
/// 48-byte serialisation: 4 µs + 2 × 1.92 ns (200G) + 2 × 3.84 ns (100G) on the short
/// path, 8 µs + 2 × 1.92 + 6 × 3.84 ns on a long one (to within the 1 ns resolution of
/// the latency an ACK carries, from which its own send time is known). With the reverse direction loaded by
/// a line-rate flow, ACKs still overtake its data at every hop: at most one data packet's
/// serialisation of waiting per hop.
#[test]
fn a9_acks_take_the_reverse_path_at_high_priority() {
    let short = 4000.0 + 2.0 * ser_ns(48.0, 200.0) + 2.0 * ser_ns(48.0, 100.0);
    let long = 8000.0 + 2.0 * ser_ns(48.0, 200.0) + 6.0 * ser_ns(48.0, 100.0);
    let flows: String = (0..40).map(|i| format!("2,10,1000,{}us\n", 50 * i)).collect();
    let mut s = rail(&format!("src,dst,size,start\n{flows}"), "");
    s.run();
    let (min, max) = (stat(&s, "laps_ack_delay_min_us") * 1000.0, stat(&s, "laps_ack_delay_max_us") * 1000.0);
    assert!((0.0..1.0).contains(&(min - short)), "{min} ns against {short}");
    assert!((0.0..1.0).contains(&(max - long)), "{max} ns against {long}");

    // A DCTCP flow the other way, GPU (1, 2) to GPU (0, 2), on the short path only.
    let extra = r#"
        [[workload]]
        kind = "flows"
        file = "reverse.csv"
        cc = "dctcp"
        lb = "ecmp"
    "#;
    let mut s = sim_with_files(
        &rail_toml(extra),
        &[("flows.csv", &format!("src,dst,size,start\n{flows}")), ("reverse.csv", "src,dst,size,start\n10,2,60MB,0\n")],
    );
    s.run_until(dcnsim::Time::from_us(2000));
    let wait_bound = long + 8.0 * ser_ns(1048.0, 100.0);
    assert!(stat(&s, "laps_ack_delay_max_us") * 1000.0 <= wait_bound, "{}", stat(&s, "laps_ack_delay_max_us"));
}

/// A10 (and B9's incast half): eight GPUs on other servers send 2 MB each to one GPU.
/// Every inter-server pair's target latency is T = 9244 ns (an 8-link path, docs/models/topologies.md),
/// so W = 2 · 9244 ns · 200 Gb/s / 8 = 462,200 bytes; no flow ever has more in flight,
/// the window is reached, and the rate control cuts.
#[test]
fn a10_in_flight_never_exceeds_the_window() {
    let flows: String =
        (1..=8).map(|c| format!("{},3,2MB,0\n", 8 * c - 8 + (c % 8) + if c == 8 { 0 } else { 8 })).collect();
    let mut s = rail(&format!("src,dst,size,start\n{flows}"), "");
    s.run();
    assert_eq!(stat(&s, "flows_finished"), 8.0);
    let peak = stat(&s, "laps_peak_in_flight_bytes");
    assert!(peak <= 462_200.0, "{peak} bytes in flight");
    assert!(peak > 462_200.0 - 2.0 * 1048.0, "the window never bound ({peak} bytes)");
    assert!(stat(&s, "laps_rate_decreases") > 0.0);
}

/// LAPS's two halves only work together; its ACKs are per packet; injected drops must
/// name real packets. (On fabrics without a path construction of their own LAPS takes
/// Yen's k shortest paths: `candidate_paths.rs`.)
#[test]
fn bad_laps_settings_are_refused_up_front() {
    let csv = [("flows.csv", "src,dst,size,start\n2,10,1MB,0\n")];
    let e = build_with_files(&rail_toml("").replace("cc = \"laps\"", "cc = \"dctcp\""), &csv).err().unwrap().0;
    assert!(e.contains(".cc") && e.contains("\"laps\""), "{e}");
    let e = build_with_files(&rail_toml("").replace("header = \"48B\"", "header = \"48B\"\nack_ratio = 2"), &csv)
        .err()
        .unwrap()
        .0;
    assert!(e.contains("transport.ack_ratio"), "{e}");
    let e =
        build_with_files(&rail_toml("").replace("header = \"48B\"", "header = \"48B\"\nack_policy = \"uec\""), &csv)
            .err()
            .unwrap()
            .0;
    assert!(e.contains("transport.ack_policy") && e.contains("\"tcp\""), "{e}");
    let e = build_with_files(&rail_toml("[transport.laps]\nbeta = -1"), &csv).err().unwrap().0;
    assert!(e.contains("transport.laps.beta"), "{e}");
    let e = build_with_files(&rail_toml("[faults]\ndrop = [{ flow = 0, psn = 5000 }]"), &csv).err().unwrap().0;
    assert!(e.contains("faults.drop[0].psn") && e.contains("1000 packets"), "{e}");
}

/// The DCQCN baselines' unified window on the rail (docs/models/dcqcn.md, `dcqcn.window = "bdp"`):
/// the largest one-way delay × bottleneck over every candidate path of every flow, for
/// a full 1048-byte packet. A same-server pair has one path, GPU → edge → NVLink switch
/// → edge → GPU (200G, 100G, 100G, 200G links of 1 µs): 4 µs + 2 × 41.92 + 2 × 83.84 ns
/// = 4251.52 ns × 100 Gb/s / 8 = 53,144 bytes. Add a pair on two servers and two rails,
/// whose longest candidate path has 8 links (2 × 200G + 6 × 100G: 8586.88 ns), and every
/// flow's window becomes 107,336 bytes, the same-server one's too (unified).
#[test]
fn dcqcn_unified_window_is_the_longest_candidate_path_bdp() {
    let window = |csv: &str| {
        let toml = rail_toml("").replace(
            "cc = \"laps\"\n        lb = \"laps\"",
            "cc = \"dcqcn\"\n        lb = \"ecmp\"\n        dcqcn = { window = \"bdp\" }",
        );
        let s = sim_with_files(&toml, &[("flows.csv", csv)]);
        s.flows.iter().map(|f| observed(f, "window_bytes")).collect::<Vec<_>>()
    };
    assert_eq!(window("src,dst,size,start\n0,1,1MB,0\n"), vec![53_144.0]);
    assert_eq!(window("src,dst,size,start\n0,1,1MB,0\n0,9,1MB,0\n"), vec![107_336.0, 107_336.0]);
}

/// The rate-based DCTCP PLB runs on (docs/models/dctcp.md) takes the same unified window as DCQCN
/// with `dctcp.rate.window = "bdp"` (the two hand-computed values of the test above), no
/// window with "off", and starts at the sending GPU's 200 Gb/s NIC rate.
#[test]
fn rate_dctcp_unified_window_and_line_rate_start() {
    let flows = |csv: &str, window: &str| {
        let toml = rail_toml("").replace(
            "cc = \"laps\"\n        lb = \"laps\"",
            &format!(
                "cc = \"dctcp\"\n        lb = \"plb\"\n        dctcp = {{ variant = \"rate\", rate = {{ window = \"{window}\" }} }}"
            ),
        );
        let s = sim_with_files(&toml, &[("flows.csv", csv)]);
        s.flows.iter().map(|f| (observed(f, "window_bytes"), observed(f, "rate_gbps"))).collect::<Vec<_>>()
    };
    assert_eq!(flows("src,dst,size,start\n0,1,1MB,0\n", "bdp"), vec![(53_144.0, 200.0)]);
    assert_eq!(
        flows("src,dst,size,start\n0,1,1MB,0\n0,9,1MB,0\n", "bdp"),
        vec![(107_336.0, 200.0), (107_336.0, 200.0)]
    );
    let off = flows("src,dst,size,start\n0,1,1MB,0\n", "off");
    assert!(off[0].0.is_nan() && off[0].1 == 200.0, "{off:?}");
}
