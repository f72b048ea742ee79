//! NSCC fidelity sanity checks, docs/reproductions/mswift-paper.md A10, on the MSwift paper's
//! network (§IV-A: 800 Gbps, 0.5 µs links, 4160-byte packets, 800 KB buffers, one 40 KB ECN
//! step at dequeue, no trimming):
//!
//! - one flow alone on one path reaches ≥ 95 % of the line rate and its window never
//!   exceeds maxwnd = 1.5 × BDP, the BDP computed here from the topology by hand;
//! - a 2:1 incast at one switch keeps the bottleneck's time-averaged queueing delay at
//!   O(target), 0.4–3 µs, not the 8 µs of a full buffer.
//!
//! Each is checked for NSCC in both modes (htsim with the paper's 1 µs target) and MNSCC.

use crate::common;

use dcnsim::{Simulation, Time};

const RATE_BPS: f64 = 800e9;
const WIRE: f64 = 4160.0;
const ACK: f64 = 64.0;

/// The variants under test: (cc, extra [transport.nscc] lines).
const VARIANTS: [(&str, &str); 3] = [
    ("nscc", "mode = \"smartt_paper\""),
    ("nscc", "mode = \"nscc_htsim\"\ntarget_qdelay = \"1us\""),
    ("mnscc", "mode = \"nscc_htsim\"\ntarget_qdelay = \"1us\""),
];

fn scenario(topology: &str, cc: &str, nscc: &str, workload: &str, duration_us: u64) -> String {
    format!(
        r#"
        duration = "{duration_us}us"
        [topology]
        {topology}
        link_rate = "800Gbps"
        link_latency = "500ns"
        mtu = "4160B"
        [switch]
        buffer = "800KB"
        ecn = {{ kmin = "40KB", kmax = "40KB", on = "dequeue" }}
        [transport]
        cc = "{cc}"
        [transport.nscc]
        {nscc}
        {workload}
        "#
    )
}

/// Unloaded RTT of a path of `links` equal links: a full packet store-and-forwarded
/// through each, its 64-byte ACK back through each, and the propagation both ways.
fn unloaded_rtt_us(links: f64) -> f64 {
    links * (2.0 * 0.5 + (WIRE + ACK) * 8.0 / RATE_BPS * 1e6)
}

#[test]
fn a10_single_flow_reaches_line_rate_within_maxwnd() {
    // Hosts 0 and 15 of a k = 4 fat tree sit in different pods: 6 links each way.
    let rtt_us = unloaded_rtt_us(6.0);
    assert!((rtt_us - 6.253).abs() < 0.001, "the MSwift fabric's 6.253 us, got {rtt_us}");
    let maxwnd = 1.5 * RATE_BPS / 8.0 * rtt_us * 1e-6;
    for (cc, nscc) in VARIANTS {
        let toml = scenario(
            "kind = \"fat_tree\"\nhosts = 16",
            cc,
            nscc,
            "[[workload]]\nkind = \"flows\"\nfile = \"one.csv\"",
            300,
        );
        let mut s = common::sim_with_files(&toml, &[("one.csv", "src,dst,size,start\n0,15,1GB,0us\n")]);
        assert!((s.flows[0].base_rtt.as_us_f64() - rtt_us).abs() < 0.001);
        let down = s.routing.host_down_port[15] as usize;
        let warm = Time::from_us(50);
        let mut peak_cwnd = 0u64;
        let mut peak_in_flight = 0u64;
        let mut t = Time::ZERO;
        while t < Time::from_us(300) {
            t = t + Time::from_ns(20);
            s.run_until(t);
            if t == warm {
                s.ports[down].reset_stats(warm);
            }
            let f = &s.flows[0];
            peak_cwnd = peak_cwnd.max(f.sender.cc.cwnd());
            peak_in_flight = peak_in_flight.max(f.sender.in_flight);
        }
        let secs = (s.now() - warm).as_secs_f64();
        let utilisation = s.ports[down].stats.tx_bytes as f64 * 8.0 / (RATE_BPS * secs);
        println!("{cc} [{nscc}]: utilisation {utilisation:.4}, peak cwnd {peak_cwnd} B, peak in flight {peak_in_flight} B, maxwnd {maxwnd:.0} B");
        assert!(utilisation >= 0.95, "{cc} [{nscc}]: {utilisation}");
        assert!(peak_cwnd as f64 <= maxwnd + 1.0, "{cc} [{nscc}]: cwnd {peak_cwnd} > 1.5 BDP = {maxwnd}");
        // The transport lets one packet beyond a window out only when nothing is in flight.
        assert!(peak_in_flight as f64 <= maxwnd + 1.0);
        assert_eq!(s.counters.drops, 0);
    }
}

#[test]
fn a10_two_to_one_incast_keeps_the_queue_near_target() {
    for (cc, nscc) in VARIANTS {
        let toml = scenario(
            "kind = \"star\"\nhosts = 3",
            cc,
            nscc,
            "[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = 2\nsize = \"infinite\"",
            1000,
        );
        let mut s: Simulation = common::sim(&toml);
        let port = s.routing.host_down_port[0] as usize;
        let warm = Time::from_us(200);
        s.run_until(warm);
        s.ports[port].reset_stats(warm);
        s.run();
        let end = s.now();
        let mean_queue = s.ports[port].mean_queue_since(end, warm, 0);
        let delay_us = mean_queue * 8.0 / RATE_BPS * 1e6;
        let utilisation = s.ports[port].stats.tx_bytes as f64 * 8.0 / (RATE_BPS * (end - warm).as_secs_f64());
        println!(
            "{cc} [{nscc}]: mean queueing delay {delay_us:.3} us, utilisation {utilisation:.3}, drops {}",
            s.counters.drops
        );
        assert!((0.4..=3.0).contains(&delay_us), "{cc} [{nscc}]: {delay_us} us");
    }
}
