//! Helpers shared by the behavioural tests.
#![allow(dead_code)]

use dcnsim::{Simulation, Time};

pub mod rail;
pub mod smartt;

/// Packets some port still holds: in its data FIFO, control queue, DRR classes or
/// priority queues, or on its wire. At the end of a run every packet the arena has
/// not freed must be one of these (none leaked).
pub fn packets_held(s: &Simulation) -> usize {
    s.ports
        .iter()
        .map(|p| {
            p.queue.len()
                + p.ctrl.len()
                + p.pipe.len()
                + p.drr.as_ref().map_or(0, |d| d.queues[0].len() + d.queues[1].len())
                + p.prio.as_ref().map_or(0, |q| q.handles().count())
        })
        .sum()
}

/// Bytes per microsecond at 100 Gbps, the reference star's line rate.
pub const LINE_100G: f64 = 12_500.0;

/// The PrioPlus paper's micro-benchmark tree (§6, "Topology"; the micro-benchmarks of §6.1):
/// `hosts` hosts on one switch over 100 Gbps, 3 µs links (base RTT ≈ 12 µs), 1 KB packets,
/// a `buffer` deep enough never to drop, ECN off. `top_level` holds the scenario's
/// top-level keys (`seed`, `duration`), which TOML wants before the first table; the
/// caller appends `[transport]` and the workloads.
pub fn reference_star(top_level: &str, hosts: u32, buffer: &str) -> String {
    format!(
        r#"
        {top_level}
        [topology]
        kind = "star"
        hosts = {hosts}
        link_rate = "100Gbps"
        link_latency = "3us"
        mtu = "1000B"
        [switch]
        buffer = "{buffer}"
        ecn = {{ enabled = false }}
        "#
    )
}

pub fn sim(toml: &str) -> Simulation {
    dcnsim::from_toml(toml, std::path::Path::new(".")).unwrap_or_else(|e| panic!("scenario rejected: {e}"))
}

pub fn build_err(toml: &str) -> String {
    match dcnsim::from_toml(toml, std::path::Path::new(".")) {
        Ok(_) => panic!("scenario unexpectedly accepted:\n{toml}"),
        Err(e) => e.0,
    }
}

/// Jain's fairness index of `x`.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

pub fn us(t: Time) -> f64 {
    t.as_us_f64()
}

/// Writes `files` (name, contents) into a fresh directory and builds the scenario there,
/// so relative `file = "..."` paths resolve to them.
pub fn build_with_files(toml: &str, files: &[(&str, &str)]) -> Result<Simulation, dcnsim::ScenarioError> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dcnsim-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
    dcnsim::from_toml(toml, &dir)
}

pub fn sim_with_files(toml: &str, files: &[(&str, &str)]) -> Simulation {
    build_with_files(toml, files).unwrap_or_else(|e| panic!("scenario rejected: {e}"))
}

/// The value an algorithm reports under `name` (its `observe` output); NaN if it has none.
pub fn observed(f: &dcnsim::transport::Flow, name: &str) -> f64 {
    let mut v = f64::NAN;
    f.sender.cc.observe(&mut |k, x| {
        if k == name {
            v = x
        }
    });
    v
}
