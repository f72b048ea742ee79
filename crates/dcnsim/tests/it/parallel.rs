//! Issue 30: one run split over threads (`sim/parallel/`) gives the same flow table, bit
//! for bit, as one thread: the same scenario and seed, 1, 2 and 4 threads. Each scenario
//! crosses the shares with what it exercises: sprayed packets over the core, trimmed
//! headers and NACKs through a congested core, PFC frames over the links between shares.

use crate::common::*;

use dcnsim::stats::{Column, Table};

/// Every value of a table as bits (a NaN equals itself), column by column.
fn bits(t: &Table) -> Vec<(String, Vec<u64>)> {
    t.columns
        .iter()
        .map(|(name, c)| {
            let v = match c {
                Column::I64(v) => v.iter().map(|x| *x as u64).collect(),
                Column::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
                Column::Bool(v) => v.iter().map(|x| *x as u64).collect(),
                Column::Str(v) => {
                    v.iter().map(|x| x.bytes().fold(0u64, |h, b| h.wrapping_mul(31) ^ b as u64)).collect()
                }
                Column::Cat { codes, .. } => codes.iter().map(|x| *x as u64).collect(),
            };
            (name.clone(), v)
        })
        .collect()
}

fn stat(stats: &[(&str, f64)], name: &str) -> f64 {
    stats.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no stat {name}")).1
}

struct Outcome {
    flows: Vec<(String, Vec<u64>)>,
    pfc: Option<Vec<(String, Vec<u64>)>>,
    timeseries: Option<Vec<(String, Vec<u64>)>>,
    stats: Vec<(&'static str, f64)>,
    end: dcnsim::Time,
}

fn run(toml: &str, threads: u32) -> Outcome {
    let mut s = sim(&format!("threads = {threads}\n{toml}"));
    s.run();
    Outcome {
        flows: bits(&s.flow_table()),
        pfc: s.pfc_events_table().map(|t| bits(&t)),
        timeseries: s.timeseries().map(|t| bits(&t)),
        stats: s.stats(),
        end: s.end_time(),
    }
}

/// Runs `toml` on 1, 2 and 4 threads; asserts the same flow table (and PFC log) each
/// time and the same counters that do not depend on how the run was split.
fn same_with_any_threads(toml: &str) -> Outcome {
    let one = run(toml, 1);
    for threads in [2, 4] {
        let many = run(toml, threads);
        for ((name, a), (_, b)) in one.flows.iter().zip(&many.flows) {
            assert_eq!(a, b, "flow table column {name} differs between 1 and {threads} threads");
        }
        assert_eq!(one.flows.len(), many.flows.len());
        assert_eq!(one.pfc, many.pfc, "PFC frames differ between 1 and {threads} threads");
        assert_eq!(one.timeseries, many.timeseries, "time series differ between 1 and {threads} threads");
        assert_eq!(one.end, many.end, "the run's end differs between 1 and {threads} threads");
        for name in
            ["data_packets", "ack_packets", "drops", "ecn_marks", "trims", "nacks", "timeouts", "flows_finished"]
        {
            assert_eq!(stat(&one.stats, name), stat(&many.stats, name), "{name}, 1 against {threads} threads");
        }
    }
    one
}

/// A scenario's top-level lines (`head`: seed, duration) and a fat tree of 100 Gbps links;
/// the caller's text goes on in its `[topology]` table.
fn fat_tree(head: &str, tiers: u32, hosts: u32, link_latency: &str) -> String {
    format!(
        "{head}\n[topology]\nkind = \"fat_tree\"\ntiers = {tiers}\nhosts = {hosts}\n\
         link_rate = \"100Gbps\"\nlink_latency = \"{link_latency}\"\n"
    )
}

#[test]
fn a_sprayed_permutation_is_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 7", 3, 128, "1us")
            + r#"
        [switch]
        buffer = "200KB"
        trimming = true
        ack_priority = true
        [transport]
        cc = "nscc"
        lb = "reps"
        [[workload]]
        kind = "permutation"
        size = "256KB"
        "#),
    );
    assert_eq!(stat(&one.stats, "flows_finished"), 128.0);
}

#[test]
fn a_trimming_incast_is_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 3", 3, 128, "1us")
            + r#"
        [switch]
        buffer = "100KB"
        trimming = true
        trim_victim = "arrival_or_tail"
        ack_priority = true
        [transport]
        cc = "nscc"
        lb = "reps"
        [output]
        fct = "sender"
        [[workload]]
        kind = "incast"
        senders = 40
        size = "200KB"
        "#),
    );
    assert!(stat(&one.stats, "trims") > 0.0, "the incast must trim for the test to mean anything");
    assert_eq!(stat(&one.stats, "flows_finished"), 40.0);
}

#[test]
fn a_pfc_fabric_is_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 11", 3, 16, "1us")
            + r#"
        [switch]
        buffer = "300KB"
        pfc = { lossless = ["data"] }
        [transport]
        cc = "dcqcn"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 12
        size = "500KB"
        "#),
    );
    assert!(stat(&one.stats, "pfc_pause_frames") > 0.0, "the incast must pause for the test to mean anything");
    assert_eq!(stat(&one.stats, "drops"), 0.0);
    assert_eq!(stat(&one.stats, "flows_finished"), 12.0);
}

/// Every per-node random stream at once: RED's coin (a ramp between kmin and kmax),
/// adaptive routing's tie-break, a lossy link's coin; and a run cut by `duration` with
/// infinite flows beside finite ones.
#[test]
fn every_random_stream_and_a_duration_are_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 5\nduration = \"400us\"", 3, 128, "1us")
            + r#"
        loss_rate = 0.001
        [switch]
        buffer = "300KB"
        ecn = { kmin = "50KB", kmax = "150KB", pmax = 0.2 }
        [transport]
        cc = "dctcp"
        lb = "ar"
        [[workload]]
        kind = "permutation"
        size = "300KB"
        [[workload]]
        kind = "incast"
        receiver = 7
        senders = 4
        size = "infinite"
        "#),
    );
    assert!(stat(&one.stats, "drops") > 0.0 && stat(&one.stats, "ecn_marks") > 0.0, "loss and RED must act");
}

/// The time series: every port and flow metric sampled across the shares at each
/// instant, as one simulation samples them; with a last sample when the run ends between
/// two (finite flows), and in a run cut by its `duration` (infinite flows).
#[test]
fn time_series_are_the_same_on_any_number_of_threads() {
    for (size, interval, duration) in [("200KB", "7us", ""), ("infinite", "3us", "duration = \"61us\"")] {
        let one = same_with_any_threads(&format!(
            r#"
            seed = 13
            {duration}
            [topology]
            kind = "fat_tree"
            tiers = 3
            hosts = 16
            link_rate = "100Gbps"
            link_latency = "1us"
            [switch]
            buffer = "200KB"
            ecn = {{ kmin = "40KB", kmax = "120KB", pmax = 0.2 }}
            [transport]
            cc = "dctcp"
            lb = "ops"
            [[workload]]
            kind = "incast"
            receiver = 0
            senders = 10
            size = "{size}"
            [observe]
            interval = "{interval}"
            ports = "all"
            flows = "all"
            metrics = "all"
            "#
        ));
        assert!(stat(&one.stats, "timeseries_rows") > 100.0, "the run must sample");
    }
}

/// Faults: a link that goes down and comes back (with rerouting), a lossy link, a slowed
/// link and a packet dropped on purpose; every share applies each step to its own copy.
#[test]
fn faults_are_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 17", 2, 32, "500ns")
            + r#"
        [transport]
        cc = "dctcp"
        lb = "ecmp"
        rto_min = "100us"
        [[workload]]
        kind = "permutation"
        size = "1MB"
        [faults]
        detection_delay = "10us"
        drop = [{ flow = 3, psn = 5 }]
        [[faults.link]]
        between = ["s0", "s8"]
        at = "40us"
        until = "140us"
        [[faults.link]]
        between = ["s1", "s9"]
        at = "20us"
        loss_rate = 0.01
        [[faults.link]]
        between = ["s2", "s10"]
        at = "30us"
        rate = "25Gbps"
        "#),
    );
    assert!(stat(&one.stats, "fault_drops") > 0.0 && stat(&one.stats, "reroutes") >= 1.0, "the faults must act");
    assert_eq!(stat(&one.stats, "flows_finished"), 32.0);
}

/// Giving up: host 0's only link fails for good, so the flow from it and the flow to it
/// time out until their senders give up; the receiver of each hears of it, in its own
/// share where the sender is in another.
#[test]
fn flows_given_up_are_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 29", 2, 32, "500ns")
            + r#"
        [transport]
        cc = "dctcp"
        rto_min = "50us"
        rto_max = "1ms"
        [[workload]]
        kind = "permutation"
        size = "1MB"
        [faults]
        give_up_after = 5
        [[faults.link]]
        between = ["h0", "s0"]
        at = "20us"
        "#),
    );
    assert_eq!(stat(&one.stats, "flows_failed"), 2.0, "the flows from and to host 0 fail");
    assert_eq!(stat(&one.stats, "flows_finished"), 30.0);
}

/// HPCC: each data packet's in-band telemetry records, and the ACK's echo of them,
/// travel with the packet from share to share.
#[test]
fn hpcc_telemetry_is_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 19", 3, 16, "1us")
            + r#"
        [transport]
        cc = "hpcc"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 12
        size = "300KB"
        [[workload]]
        kind = "permutation"
        hosts = "remaining"
        size = "300KB"
        "#),
    );
    assert_eq!(stat(&one.stats, "flows_finished"), 12.0 + 3.0);
}

/// EQDS: receivers pace pulls (their pacers live in the receiver's share), senders spend
/// the credit, on a lossy trimming fabric where pulls are lost and senders stall (the
/// scenario of `eqds::a_lost_last_pull_does_not_stall_the_flow`).
#[test]
fn eqds_pulls_are_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(crate::eqds::LOST_LAST_PULL);
    assert!(stat(&one.stats, "pulls") > 0.0 && stat(&one.stats, "pull_stalls") >= 1.0, "pulls and a stall");
}

/// Flows that wait for others: a training job's ring all-reduce (each step waits for the
/// previous step's data to reach the worker that sends the next, so every wait is in the
/// sender's own share) runs split, with two jobs spread over the pods.
#[test]
fn a_training_ring_is_the_same_on_any_number_of_threads() {
    let one = same_with_any_threads(
        &(fat_tree("seed = 23", 3, 16, "1us")
            + r#"
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "training"
        hosts = [0, 5, 10, 15]
        size = "400KB"
        compute = "20us"
        iterations = 3
        [[workload]]
        kind = "training"
        hosts = [1, 6, 11, 12]
        size = "200KB"
        compute = "10us"
        iterations = 3
        "#),
    );
    assert_eq!(stat(&one.stats, "flows_finished"), stat(&one.stats, "flows"));
}

#[test]
fn what_cannot_run_split_is_refused_naming_the_field() {
    let base = r#"
        [topology]
        kind = "fat_tree"
        tiers = 3
        hosts = 16
        [[workload]]
        kind = "permutation"
        size = "64KB"
        "#;
    let e = build_err(&format!("threads = 0\n{base}"));
    assert!(e.starts_with("threads:") && e.contains("1 to 256"), "{e}");
    let e = build_err(&format!("threads = 2\n{base}\n[trace]\nflows = [0]\n"));
    assert!(e.starts_with("threads:") && e.contains("trace") && e.contains("threads = 1"), "{e}");
    // A windowed all-to-all: a host's next flow waits for one of its flows to reach
    // another host, in another share.
    let e =
        build_err(&format!("threads = 2\n{base}\n[[workload]]\nkind = \"all_to_all\"\nwindow = 1\nsize = \"8KB\"\n"));
    assert!(e.starts_with("threads:") && e.contains("waits for flow") && e.contains("another thread's share"), "{e}");
    let e = build_err(&format!("threads = 2\ntransport = {{ cc = \"laps\", lb = \"laps\" }}\n{base}"));
    assert!(e.starts_with("threads:") && e.contains("LAPS"), "{e}");
}
