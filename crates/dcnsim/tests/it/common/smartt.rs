//! The SMaRTT paper's network, scaled down for CI (docs/reproductions/smartt-paper.md): a
//! non-blocking 3-tier fat tree of radix 6 (54 hosts instead of 1024) with the paper's
//! links (800 Gbps, 600 ns, 400 ns per switch), 4160-byte frames, a 1-BDP buffer per port
//! (276 × 4160 B, the inter-pod BDP rounded up as htsim does), RED at dequeue between
//! Kmin = 56 and Kmax = 221 packets (20 % / 80 %), and NSCC in the paper's mode on REPS.
//! The radix changes only how many hosts there are: every inter-pod path still crosses
//! 6 links and 5 switches, so base RTTs, BDP, targets and the RTO are the paper's.

pub const LINK_BPS: f64 = 800e9;
pub const WIRE: u64 = 4160;
pub const PAYLOAD: u64 = 4096;
pub const BUFFER: u64 = 276 * WIRE;
pub const KMIN: u64 = 56 * WIRE;
pub const KMAX: u64 = 221 * WIRE;
/// The paper's fabric's unloaded RTTs, µs (docs/reproductions/smartt-paper.md, "Common setup").
pub const BRTT_INTER_POD_US: f64 = 11.453;
pub const BRTT_INTRA_RACK_US: f64 = 3.284;
/// Radix 6: 3 hosts per ToR, 9 per pod.
pub const HOSTS: u32 = 54;

/// A scenario on that fabric; `transport` and `workloads` are TOML lines.
pub fn scenario(trimming: bool, transport: &str, workloads: &str, duration: &str) -> String {
    let duration = if duration.is_empty() { String::new() } else { format!("duration = \"{duration}\"") };
    format!(
        r#"
        {duration}
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = {HOSTS}
        link_rate = "800Gbps"
        link_latency = "600ns"
        switch_latency = "400ns"
        mtu = "4160B"
        [switch]
        buffer = {BUFFER}
        trimming = {trimming}
        ecn = {{ kmin = {KMIN}, kmax = {KMAX}, on = "dequeue" }}
        [transport]
        cc = "nscc"
        lb = "reps"
        {transport}
        {workloads}
        "#
    )
}

/// Ideal completion of an N:1 incast of `size` payload bytes each (docs/reproductions/smartt-paper.md,
/// A1: N·S/C + brtt), with S counted on the wire.
pub fn ideal_incast_us(n: u64, size: u64, brtt_us: f64) -> f64 {
    let wire = size.div_ceil(PAYLOAD) * (WIRE - PAYLOAD) + size;
    (n * wire) as f64 * 8.0 / LINK_BPS * 1e6 + brtt_us
}
