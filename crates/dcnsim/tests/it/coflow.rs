//! `kind = "coflow"` (docs/reproductions/prioplus-paper.md, F12AB; `workload` module header): coflows of
//! M·R flows of S/(M·R) bytes arriving as a Poisson process at a target load. Checked
//! against numbers computed here from the distributions' published points, not from the
//! generator: conservation of each coflow's bytes and flows, the offered load over a long
//! horizon (law of large numbers, tolerance from the compound-Poisson variance), and the
//! completion time of a 2 × 1 coflow on a star (serialisation through the reducer's link).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use dcnsim::engine::Rng;
use dcnsim::scenario::PrioritySpec;
use dcnsim::workload::{coflow_arrivals, CoflowParams, CountDraw, Fb2010Like, SizeCdf};
use dcnsim::{Rate, Time};

/// The PrioPlus artefact's coflow size groups, upper edges in bytes: levels 8..1.
const GROUP_EDGES: [u64; 7] = [500_000, 1_000_000, 6_000_000, 10_000_000, 25_000_000, 42_000_000, 137_000_000];

fn fb_priority() -> PrioritySpec {
    PrioritySpec::Edges(GROUP_EDGES.to_vec())
}

fn params(load: f64, stop: Time, equal_load_per_level: bool) -> CoflowParams {
    CoflowParams {
        sizes: SizeCdf::parse(Fb2010Like::SIZES).unwrap(),
        mappers: CountDraw::Drawn(SizeCdf::parse(Fb2010Like::MAPPERS).unwrap()),
        reducers: CountDraw::Drawn(SizeCdf::parse(Fb2010Like::REDUCERS).unwrap()),
        min_flow: 10_000,
        load,
        priority: Some(fb_priority()),
        equal_load_per_level,
        start: Time::ZERO,
        stop,
        max_coflows: None,
    }
}

/// The FB2010-like size CDF's points as the module header states them (octiles at the
/// group edges, from 0.1 MB to 1.16 GB), in MB.
const OCTILE_POINTS_MB: [f64; 9] = [0.1, 0.5, 1.0, 6.0, 10.0, 25.0, 42.0, 137.0, 1160.0];

/// E[S] and E[S²] (MB, MB²) of the segment [a, b] holding its probability uniformly:
/// (a + b)/2 and (a² + ab + b²)/3.
fn uniform_moments(a: f64, b: f64) -> (f64, f64) {
    ((a + b) / 2.0, (a * a + a * b + b * b) / 3.0)
}

/// Conservation, on the generator: every coflow's flows add up to S exactly and are the
/// M·R mapper-reducer pairs, mappers and reducers distinct hosts; drawn counts leave every
/// flow at least `min_flow` (unless the coflow is a single flow); the priority is S's group.
#[test]
fn every_coflow_is_m_times_r_flows_adding_up_to_its_size() {
    let hosts: Vec<u32> = (0..320).collect();
    let rates = vec![Rate::gbps(100); 320];
    let p = params(0.4, Time::from_us(2000), false);
    let coflows = coflow_arrivals(&p, &hosts, &rates, &mut Rng::stream(3, "workload"));
    assert!(coflows.len() > 20, "{} coflows", coflows.len());
    let mut widths = BTreeSet::new();
    for c in &coflows {
        let flows: Vec<_> = c.flows().collect();
        let (m, r) = (c.mappers.len(), c.reducers.len());
        assert_eq!(flows.len(), m * r);
        assert_eq!(flows.iter().map(|f| f.2).sum::<u64>(), c.bytes, "bytes conserved");
        let pairs: BTreeSet<(u32, u32)> = flows.iter().map(|f| (f.0, f.1)).collect();
        assert_eq!(pairs.len(), m * r, "each mapper-reducer pair once");
        let all: BTreeSet<u32> = c.mappers.iter().chain(&c.reducers).copied().collect();
        assert_eq!(all.len(), m + r, "mappers and reducers are distinct hosts");
        let (lo, hi) = (flows.iter().map(|f| f.2).min().unwrap(), flows.iter().map(|f| f.2).max().unwrap());
        assert!(hi - lo <= 1, "S/(M·R) each, the remainder one byte apiece");
        assert!(m * r == 1 || lo >= 10_000, "{m} x {r} flows of {lo} B: below min_flow");
        assert_eq!(c.priority, fb_priority().level(c.bytes));
        widths.insert(m * r);
    }
    assert!(widths.len() > 5, "the counts are drawn, not constant: {widths:?}");
    assert!(coflows.windows(2).all(|w| w[0].arrival <= w[1].arrival), "sorted by arrival");
}

/// Offered load over a long horizon. N coflows arrive (Poisson, mean λT) with i.i.d. sizes,
/// so the offered bytes B = Σ S have mean λT·E[S] and variance λT·E[S²] (compound Poisson).
/// E[S] and E[S²] come from the octile points above (not from the generator). With
/// 320 hosts × 100 Gbps at load 0.5 for 5 s, λT·E[S] = 1e12 B; the relative standard
/// deviation sqrt(E[S²]/(λT))/E[S] is about 0.8 % for this heavy tail, and we allow 4 of
/// them (a false failure has probability ~6e-5, and the seed is fixed).
#[test]
fn offered_bytes_match_the_load_within_four_standard_deviations() {
    let (mut mean, mut second) = (0.0, 0.0);
    for w in OCTILE_POINTS_MB.windows(2) {
        let (m1, m2) = uniform_moments(w[0], w[1]);
        mean += m1 / 8.0;
        second += m2 / 8.0;
    }
    assert!((mean - 100.19375).abs() < 1e-9, "E[S] = {mean} MB");
    let hosts: Vec<u32> = (0..320).collect();
    let rates = vec![Rate::gbps(100); 320];
    let (load, horizon_s) = (0.5, 5.0);
    let target_bytes = load * 320.0 * 100e9 / 8.0 * horizon_s;
    let expected_coflows = target_bytes / (mean * 1e6);
    let rel_sd = (second / expected_coflows).sqrt() / mean;
    let p = params(load, Time::from_secs_f64(horizon_s), false);
    let coflows = coflow_arrivals(&p, &hosts, &rates, &mut Rng::stream(11, "workload"));
    let offered: f64 = coflows.iter().map(|c| c.bytes as f64).sum();
    let err = offered / target_bytes - 1.0;
    eprintln!(
        "{} coflows (expected {expected_coflows:.0}), offered/target − 1 = {err:+.4}, σ = {rel_sd:.4}",
        coflows.len()
    );
    assert!(
        err.abs() < 4.0 * rel_sd,
        "offered {offered:.3e} B vs {target_bytes:.3e} B: {err:+.4} > 4σ = {:.4}",
        4.0 * rel_sd
    );
    let n = coflows.len() as f64;
    assert!((n - expected_coflows).abs() < 4.0 * expected_coflows.sqrt(), "{n} coflows vs {expected_coflows:.0}");
}

/// `equal_load_per_level`: each of the 8 groups offers load/8; a group's sizes are the CDF
/// restricted to its range, here one octile, i.e. uniform on [edge_{l−1}, edge_l], so its
/// moments are those of that segment alone. Tolerance 4σ per group as above (the widest,
/// level 1 with about 1,900 coflows of 137 MB–1.16 GB, has σ ≈ 2.5 %).
#[test]
fn equal_load_per_level_gives_each_group_its_share() {
    let hosts: Vec<u32> = (0..320).collect();
    let rates = vec![Rate::gbps(100); 320];
    let (load, horizon_s) = (0.5, 5.0);
    let p = params(load, Time::from_secs_f64(horizon_s), true);
    let coflows = coflow_arrivals(&p, &hosts, &rates, &mut Rng::stream(5, "workload"));
    let mut bytes: BTreeMap<u8, f64> = BTreeMap::new();
    for c in &coflows {
        *bytes.entry(c.priority).or_default() += c.bytes as f64;
        assert_eq!(c.priority, fb_priority().level(c.bytes), "{} B at level {}", c.bytes, c.priority);
    }
    let share = load / 8.0 * 320.0 * 100e9 / 8.0 * horizon_s;
    for (k, w) in OCTILE_POINTS_MB.windows(2).enumerate() {
        let level = 8 - k as u8;
        let (m1, m2) = uniform_moments(w[0], w[1]);
        let n = share / (m1 * 1e6);
        let rel_sd = (m2 / n).sqrt() / m1;
        let err = bytes[&level] / share - 1.0;
        assert!(err.abs() < 4.0 * rel_sd, "level {level}: {err:+.4} vs 4σ = {:.4}", 4.0 * rel_sd);
    }
}

const PKT_US: f64 = 4160.0 * 8.0 / 100e9 * 1e6;

fn star(workload: &str) -> String {
    format!(
        r#"
        seed = 2
        [topology]
        kind = "star"
        hosts = 3
        link_rate = "100Gbps"
        link_latency = "1us"
        mtu = "4160B"
        [switch]
        buffer = "100MB"
        [transport]
        cc = "none"
        header = "64B"
        [[workload]]
        kind = "coflow"
        {workload}
        "#
    )
}

/// 2 mappers × 1 reducer on a 3-host star, line-rate senders (no congestion control):
/// S = 2 × 100 packets of 4096 B. Both mappers' first packets reach the switch after one
/// serialisation and 1 µs; from then on two packets arrive per packet time and one leaves,
/// so the reducer's port sends all 200 back to back, the last arriving 1 µs after it
/// leaves: CCT = (200 + 1) × 0.3328 µs + 2 µs = 68.8928 µs.
#[test]
fn two_mappers_one_reducer_take_the_serialisation_of_s_through_the_reducer_link() {
    let mut s = common::sim(&star("size = 819200\nmappers = 2\nreducers = 1\ncoflows = 1\nload = 0.1"));
    s.run();
    assert_eq!(s.flows.len(), 2);
    let t = s.flow_table();
    assert_eq!(t.i64s("group"), &[0, 0]);
    assert_eq!(t.i64s("size").iter().sum::<i64>(), 819_200);
    assert_eq!(s.flows[0].dst, s.flows[1].dst, "one reducer");
    assert_ne!(s.flows[0].src, s.flows[1].src, "two mappers");
    let arrival = s.flows[0].start;
    assert_eq!(s.flows[1].start, arrival, "all flows start at the coflow's arrival");
    let last = s.flows.iter().map(|f| f.receiver.finish.expect("finished")).max().unwrap();
    let cct_us = (last - arrival).as_us_f64();
    let expected = 201.0 * PKT_US + 2.0;
    assert!((cct_us - expected).abs() < 1e-6, "CCT {cct_us} µs vs {expected} µs");
}

/// Coflows end up in the flow table: one group per coflow (in arrival order), every flow
/// of a group starting together, with the group's priority; a fixed size 1 MB is level 7
/// of the artefact's groups ((0.5, 1] MB; with `edges`, 1 MB itself is the next group: the
/// artefact's upper edges are inclusive, a zero-probability difference for drawn sizes, so
/// here 1 MB − 1 B).
#[test]
fn groups_in_the_flow_table_are_the_coflows() {
    let toml = format!(
        r#"
        seed = 9
        duration = "200us"
        [topology]
        kind = "fat_tree"
        tiers = 2
        hosts = 32
        [[workload]]
        kind = "coflow"
        load = 0.3
        size = 999999
        stop = "100us"
        priority = {{ edges = [{}] }}
        "#,
        GROUP_EDGES.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(", ")
    );
    let s = common::sim(&toml);
    let t = s.flow_table();
    let groups = t.i64s("group");
    let prio = t.i64s("priority");
    let sizes = t.i64s("size");
    let mut by_group: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (f, &g) in groups.iter().enumerate() {
        by_group.entry(g).or_default().push(f);
    }
    // 32 hosts × 100 Gb/s × 0.3 × 100 µs / 8 = 12 MB offered: about 12 coflows of 1 MB
    // (none at all has probability e^-12); whatever the draw, each group is one coflow.
    assert!(!by_group.is_empty());
    assert_eq!(by_group.keys().copied().collect::<Vec<_>>(), (0..by_group.len() as i64).collect::<Vec<_>>());
    let mut previous = Time::ZERO;
    for flows in by_group.values() {
        assert_eq!(flows.iter().map(|&f| sizes[f]).sum::<i64>(), 999_999);
        assert!(flows.iter().all(|&f| prio[f] == 7 && s.flows[f].start == s.flows[flows[0]].start));
        let srcs: BTreeSet<u32> = flows.iter().map(|&f| s.flows[f].src).collect();
        let dsts: BTreeSet<u32> = flows.iter().map(|&f| s.flows[f].dst).collect();
        assert_eq!(srcs.len() * dsts.len(), flows.len(), "every mapper to every reducer");
        assert!(srcs.is_disjoint(&dsts));
        assert!(s.flows[flows[0]].start >= previous, "groups numbered in arrival order");
        previous = s.flows[flows[0]].start;
    }
}

#[test]
fn same_seed_same_coflows_other_seed_other_coflows() {
    let toml = |seed: u64| {
        format!(
            "seed = {seed}\nduration = \"20ms\"\n[topology]\nkind = \"fat_tree\"\ntiers = 2\nhosts = 32\n\
             [[workload]]\nkind = \"coflow\"\nload = 0.5\nstop = \"10ms\"\nmin_flow = \"100KB\""
        )
    };
    let rows = |seed| {
        let s = common::sim(&toml(seed));
        s.flows.iter().map(|f| (f.src, f.dst, f.size, f.start)).collect::<Vec<_>>()
    };
    // 32 × 100 Gb/s × 0.5 × 10 ms / 8 = 2 GB offered: about 20 coflows of 100 MB mean.
    let a = rows(1);
    assert!(!a.is_empty());
    assert_eq!(a, rows(1));
    assert_ne!(a, rows(2));
}

#[test]
fn bad_coflow_input_names_the_field_and_what_is_allowed() {
    let e = common::build_err(&star("size = \"1MB\"\ncoflows = 1"));
    assert!(e.contains("workload[0].load") && e.contains("required"), "{e}");
    let e = common::build_err(&star("load = 1.5\ncoflows = 1"));
    assert!(e.contains("workload[0].load") && e.contains("0 < load <= 1"), "{e}");
    let e = common::build_err(&star("load = 0.5"));
    assert!(e.contains("workload[0].stop") && e.contains("coflows"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nmappers = 0"));
    assert!(e.contains("workload[0].mappers") && e.contains("1 or more"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nmappers = 2\nreducers = 2"));
    assert!(e.contains("workload[0].mappers") && e.contains("the workload has 3"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nsize = \"1MB\"\ncdf = \"x.cdf\""));
    assert!(e.contains("workload[0].size") && e.contains("not both"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nsize = \"infinite\""));
    assert!(e.contains("workload[0].size") && e.contains("finite"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nequal_load_per_level = true"));
    assert!(e.contains("workload[0].equal_load_per_level") && e.contains("priority"), "{e}");
    // The built-in sizes stop at 1.16 GB: a level above 2 GB has no coflows to carry its load.
    let e = common::build_err(&star(
        "load = 0.5\ncoflows = 1\nequal_load_per_level = true\npriority = { edges = [\"1MB\", \"2GB\"] }",
    ));
    assert!(e.contains("workload[0].equal_load_per_level") && e.contains("level 1"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\nmin_flow = 0"));
    assert!(e.contains("workload[0].min_flow") && e.contains("at least 1 byte"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 1\ncompute = \"1us\""));
    assert!(e.contains("workload[0].compute") && e.contains("mappers, reducers"), "{e}");
    let e = common::build_err(&star("load = 0.5\ncoflows = 0"));
    assert!(e.contains("workload[0].coflows") && e.contains("1 or more"), "{e}");
}
