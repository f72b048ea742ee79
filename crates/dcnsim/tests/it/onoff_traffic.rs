//! The DCTCP-vs-Swift study's traffic (docs/reproductions/dctcp-vs-swift-paper.md, "Common setup"): On-Off
//! sources in a fat tree, checked against numbers computed outside the simulator: the
//! On-Off timeline (OFF first), a single flow's delivered bytes (link rate × ON time plus
//! the drained send buffer), and conservation (nothing received that was not sent, no more
//! into the hotspot than its 1 Gbps link carries, every written byte delivered).

use crate::common;

use dcnsim::Time;

const LINK_BPS: f64 = 1e9;
const WIRE: f64 = 1554.0;
const PAYLOAD: u64 = 1500;
const SEND_BUFFER: u64 = 131_072;

fn scenario(hosts: u32, radix: u32, flows: u32, on: &str, off: &str, stop: &str, duration: &str) -> String {
    format!(
        r#"
        duration = "{duration}"
        [topology]
        kind = "fat_tree"
        tiers = 3
        radix = {radix}
        hosts = {hosts}
        link_rate = "1Gbps"
        link_latency = "10us"
        mtu = "1554B"
        [switch]
        buffer = 4142964
        ack_priority = false
        ecn = {{ kmin = 388500, kmax = 388500 }}
        [transport]
        cc = "dctcp"
        header = "54B"
        [[workload]]
        kind = "traffic_mode"
        mode = "fixed_hotspot"
        flows = {flows}
        start = "0"
        stop = "{stop}"
        app = {{ kind = "onoff", rate = "5Gbps", on = "{on}", off = "{off}", send_buffer = {SEND_BUFFER} }}
        "#
    )
}

/// One flow, host 0 → host 15 of a k = 4 fat tree (6 links, unloaded RTT 197.2 µs), ON in
/// [10 ms, 20 ms) only. Its first packet leaves once 1500 bytes are written: 10 ms + 2.4 µs
/// (1500 B at 5 Gbps). By the stop the cumulative ACK covers what the link carried in the
/// ON time less one RTT; the app then holds one more send buffer, which drains after. So
/// delivered ≈ 1 Gbps · 1500/1554 / 8 · (10 ms − 197.2 µs) + 131072 B, less the ~6 packets
/// slow start's first window (10 packets of a 15.9-packet BDP) leaves unsent (0.5 %).
#[test]
fn a_single_on_off_flow_delivers_the_link_rate_during_on_plus_its_buffer() {
    let mut s = common::sim(&scenario(16, 4, 1, "10ms", "10ms", "20ms", "100ms"));
    assert_eq!(s.flows.len(), 1);
    s.run();
    let m = s.monitors[0];
    assert_eq!(m.first_tx, Some(Time::from_ms(10) + Time::from_ns(2400)), "OFF first, then 2.4 us of writing");
    let delivered = s.flows[0].receiver.delivered as f64;
    let expected = LINK_BPS * PAYLOAD as f64 / WIRE / 8.0 * (0.010 - 197.2e-6) + SEND_BUFFER as f64;
    let err = (delivered - expected).abs() / expected;
    eprintln!("delivered {delivered} B, expected {expected:.0} B ({:.2} %)", err * 100.0);
    assert!(err < 0.01, "delivered {delivered} B vs {expected:.0} B");
    // Nothing is sent after the buffer has drained: the last arrival is within
    // buffer / link rate (+ a few RTTs) of the stop.
    let drain_s = SEND_BUFFER as f64 * WIRE / PAYLOAD as f64 * 8.0 / LINK_BPS;
    assert!(m.last_rx.unwrap().as_secs_f64() < 0.020 + drain_s + 1e-3);
}

/// 100 flows requested, mode 0 on k = 4: 94 flows into host 15 (hosts 0..14 send; 100 =
/// 6·16 + 4, so host 15's 6 turns are skipped). ON [5, 10) and [15, 20) ms.
#[test]
fn hotspot_traffic_conserves_packets_and_never_exceeds_the_receiver_link() {
    let mut s = common::sim(&scenario(16, 4, 100, "5ms", "5ms", "20ms", "300ms"));
    assert_eq!(s.flows.len(), 94);
    s.run();
    let end = s.now();
    let mut bytes_in = 0u64;
    let (mut first, mut last) = (Time::MAX, Time::ZERO);
    for (f, m) in s.flows.iter_mut().zip(&s.monitors) {
        assert_eq!(f.dst, 15);
        assert!(m.rx_packets <= m.tx_packets && m.rx_bytes <= m.tx_bytes, "flow {}: rx beyond tx", f.id);
        assert!(m.tx_packets > 0 && m.first_tx.unwrap() >= Time::from_ms(5), "flow {}: sent during OFF", f.id);
        // Everything the application wrote (whole packets) arrived: the buffers drained.
        let acked = f.sender.cum_acked as u64 * PAYLOAD;
        let written = f.app.as_mut().unwrap().written(end, acked);
        assert_eq!(f.receiver.delivered, written / PAYLOAD * PAYLOAD, "flow {}", f.id);
        // The app cannot write more than 5 Gbps over its 10 ms of ON time.
        assert!(written <= (5e9 / 8.0 * 0.010) as u64);
        bytes_in += m.rx_bytes;
        first = first.min(m.first_tx.unwrap());
        last = last.max(m.last_rx.unwrap());
    }
    let gbps = bytes_in as f64 * 8.0 / (last - first).as_secs_f64() / 1e9;
    eprintln!("into host 15: {bytes_in} B in {} us = {gbps:.4} Gbps", (last - first).as_us_f64());
    assert!(gbps <= 1.0, "{gbps} Gbps through a 1 Gbps link");
    // 94 full buffers (12.3 MB) keep the link busy from the first ON on: near line rate.
    assert!(gbps > 0.95, "{gbps} Gbps: the hotspot link idled while data waited");
}
