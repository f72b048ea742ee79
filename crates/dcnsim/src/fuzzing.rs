//! The checks behind the fuzz targets (issue 10, "fuzzing"). Each function takes raw
//! bytes, feeds them to one family of input parsers and panics only if a parser panics or
//! an accepted input breaks a property the parser promises. Both the cargo-fuzz targets
//! (`fuzz/fuzz_targets/*.rs`, nightly) and the corpus replay test
//! (`tests/fuzz_corpus.rs`, stable CI) call these, so the two cannot drift apart.
//!
//! Inputs that are not UTF-8 are skipped: every parser here takes `&str`, and the files
//! are read with `read_to_string`, which refuses such bytes before any parser sees them.

use crate::scenario::Scenario;
use crate::topology::Topology;
use crate::topology_file::{self, TopologyFormat};
use crate::units::{parse_bytes, parse_rate, parse_time};
use crate::workload::{parse_flow_csv, parse_htsim_cm, SizeCdf};

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Target `scenario`: the input as TOML and as JSON. An accepted scenario's resolved JSON
/// (what the CLI echoes and the Python layer sends back) must parse again and resolve to
/// the same JSON; otherwise a scenario could run but not be reproduced from its echo.
/// Building is not fuzzed (it allocates whole topologies and generates workloads).
pub fn scenario(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for parsed in [Scenario::from_toml(text), Scenario::from_json(text)] {
        let Ok(s) = parsed else { continue };
        let json = s.resolved_json();
        let again = Scenario::from_json(&json)
            .unwrap_or_else(|e| panic!("the resolved JSON of an accepted scenario is refused: {e}\n{json}"));
        assert_eq!(again.resolved_json(), json, "the resolved JSON does not survive a round trip");
    }
}

/// Target `topology_file`: the input in both file formats. An accepted topology must be
/// one the builder can wire: every cable between two existing nodes with a positive rate,
/// and every host on exactly one cable, to the edge switch `host_edge` names.
pub fn topology_file(data: &[u8]) {
    let Some(text) = text(data) else { return };
    for format in [TopologyFormat::Csv, TopologyFormat::Hpcc] {
        if let Ok(t) = topology_file::parse(text, format) {
            check_topology(&t);
        }
    }
}

fn check_topology(t: &Topology) {
    let nodes = t.n_hosts as u64 + t.n_switches as u64;
    assert_eq!(t.host_edge.len(), t.n_hosts as usize);
    assert_eq!(t.host_pod.len(), t.n_hosts as usize);
    let mut host_cables = vec![0u32; t.n_hosts as usize];
    for c in &t.cables {
        assert!((c.a as u64) < nodes && (c.b as u64) < nodes, "cable {}-{} beyond {nodes} nodes", c.a, c.b);
        assert_ne!(c.a, c.b, "a cable from a node to itself");
        assert!(c.rate.bps() > 0, "cable {}-{} has rate 0", c.a, c.b);
        assert!(!(t.is_host(c.a) && t.is_host(c.b)), "a cable between two hosts");
        for (h, other) in [(c.a, c.b), (c.b, c.a)] {
            if t.is_host(h) {
                host_cables[h as usize] += 1;
                assert_eq!(t.host_edge[h as usize], other, "host {h}'s edge switch is not its cable's peer");
            }
        }
    }
    assert!(host_cables.iter().all(|&n| n == 1), "a host without exactly one cable");
}

/// Target `flow_list`: the input as a flow CSV and as an htsim connection matrix. Accepted
/// rows carry positive sizes and the (1-based, increasing) lines they came from, which
/// the builder quotes in its errors; a CSV row is never the header line.
pub fn flow_list(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let n_lines = text.lines().count();
    for (rows, first_row_line) in [(parse_flow_csv(text), 2), (parse_htsim_cm(text), 1)] {
        let Ok(rows) = rows else { continue };
        let mut last = first_row_line - 1;
        for (line, (_src, _dst, size, _start)) in rows {
            assert!(line > last && line <= n_lines, "row line {line} after {last} of {n_lines}");
            assert!(size > 0, "line {line}: size 0 accepted");
            last = line;
        }
    }
}

/// Target `size_cdf`: the input as a flow-size CDF. An accepted CDF gives sizes within
/// its first and last point and probabilities within [0, 1] (up to rounding in the
/// linear interpolation, hence the 1e-9 relative slack).
pub fn size_cdf(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(cdf) = SizeCdf::parse(text) else { return };
    let (lo, hi) = (cdf.min(), cdf.quantile(1.0));
    assert!(lo >= 0.0 && lo <= hi, "min {lo} above max {hi}");
    let slack = |x: f64| x.abs() * 1e-9;
    for u in [0.0, 1e-6, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999999, 1.0] {
        let q = cdf.quantile(u);
        assert!(q >= lo - slack(lo) && q <= hi + slack(hi), "quantile({u}) = {q} outside [{lo}, {hi}]");
        let p = cdf.below(q);
        assert!((-1e-9..=1.0 + 1e-9).contains(&p), "below({q}) = {p}");
    }
}

/// Target `units`: the input as a time, a rate and a byte count. An accepted rate is
/// positive (every serialisation time divides by it), and a time or rate below 2^53
/// (where f64 holds every integer) reads back exactly from its display form, which is
/// how resolved scenarios echo them.
pub fn units(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(t) = parse_time(text) {
        if t.ps() < 1 << 53 {
            assert_eq!(parse_time(&t.to_string()), Ok(t), "time {text:?} does not read back from {t}");
        }
    }
    if let Ok(r) = parse_rate(text) {
        assert!(r.bps() > 0, "rate {text:?} accepted as 0 bps");
        if r.bps() < 1 << 53 {
            assert_eq!(parse_rate(&r.to_string()), Ok(r), "rate {text:?} does not read back from {r}");
        }
    }
    let _ = parse_bytes(text);
}

/// Hosts a `simulate` input may ask for: building a fabric is linear in its size, so larger
/// ones only slow the fuzzer down without reaching other code.
pub const BUILD_MAX_HOSTS: u32 = 64;
/// Simulated time a built `simulate` input runs for.
pub const BUILD_RUN: crate::units::Time = crate::units::Time::from_us(50);

/// Target `simulate`: a scenario the parser accepts goes through the builder, which must
/// either refuse it with an error naming a field or build a simulation that then runs for
/// `BUILD_RUN` without panicking (with the `invariants` feature, as the fuzz crate builds
/// it, every invariant of `invariants.rs` is checked on the way). Inputs are limited to
/// small fabrics (`BUILD_MAX_HOSTS`) and to files inside an empty directory (no `/`, so
/// no absolute path or `..` reaches the file system): every file a scenario names is
/// missing, which the builder must report as an error.
pub fn simulate(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if text.contains('/') {
        return;
    }
    let Ok(scenario) = Scenario::from_toml(text) else { return };
    if scenario.topology.hosts > BUILD_MAX_HOSTS {
        return;
    }
    let empty = std::env::temp_dir().join("dcnsim-fuzz-build-empty");
    match crate::build::build(&scenario, &empty) {
        Err(e) => {
            // `field: reason`, as every scenario error reads (`scenario::err`).
            let named =
                e.0.split_once(':').is_some_and(|(field, why)| !field.trim().is_empty() && !why.trim().is_empty());
            assert!(named, "an error that names no field: {:?}", e.0);
        }
        Ok(mut sim) => {
            sim.run_until(BUILD_RUN);
        }
    }
}

/// The targets by name, for the replay test: `fuzz/corpus/<name>/` holds each one's corpus.
pub const TARGETS: [(&str, fn(&[u8])); 6] = [
    ("scenario", scenario),
    ("simulate", simulate),
    ("topology_file", topology_file),
    ("flow_list", flow_list),
    ("size_cdf", size_cdf),
    ("units", units),
];
