//! Candidate paths on any topology (issue 28; LAPS paper §3.2, "any unequal-cost
//! topology"; `paths/k_shortest.rs`): the source-routed balancers (LAPS, CONGA, ConWeave)
//! run on a three-tier fat tree and on a file topology, over Yen's k shortest loop-free
//! paths within `transport.candidate_paths.slack` hops of the shortest. The path sets are
//! counted by hand from the wiring.

use crate::common::*;

/// The balancers under test, each with the transport it needs (LAPS runs its own rate
/// control; CONGA and ConWeave under DCTCP).
const BALANCERS: [(&str, &str); 3] = [("laps", "laps"), ("conga", "dctcp"), ("conweave", "dctcp")];

/// The flows of `flows.csv` on `topology` (the `[topology]` lines) under `lb` and `cc`,
/// with `transport` added to `[transport]`.
fn scenario(topology: &str, lb: &str, cc: &str, transport: &str) -> String {
    format!(
        "duration = \"50ms\"\n[topology]\n{topology}\n[transport]\ncc = \"{cc}\"\nlb = \"{lb}\"\n{transport}\n\
         [[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"\n"
    )
}

/// A k = 4 three-tier fat tree: 2 hosts per ToR, 2 ToRs and 2 aggregation switches per pod,
/// 4 pods, 4 cores. From host 0: host 1 shares its ToR (1 path); host 2 is in its pod
/// under the other ToR (one path per aggregation switch: 2); host 4 is in pod 1 (one per
/// aggregation switch and each of its 2 cores: 4). Paths have 2, 4 and 6 links.
#[test]
fn source_routed_balancers_run_on_a_three_tier_fat_tree() {
    let flows = [("flows.csv", "src,dst,size,start\n0,1,200KB,0\n0,2,200KB,0\n0,4,200KB,0\n6,13,200KB,0\n")];
    for (lb, cc) in BALANCERS {
        let toml = scenario("kind = \"fat_tree\"\ntiers = 3\nhosts = 16", lb, cc, "");
        let mut s = sim_with_files(&toml, &flows);
        let counts: Vec<usize> = (0..4).map(|f| s.candidate_paths(f).len()).collect();
        assert_eq!(counts, vec![1, 2, 4, 4], "{lb}: paths per flow");
        for f in 0..4u32 {
            let paths = s.candidate_paths(f);
            let links = paths[0].len() - 1;
            assert_eq!(links, [2, 4, 6, 6][f as usize], "{lb}: flow {f}");
            assert!(paths.iter().all(|p| p.len() - 1 == links), "{lb}: equal cost with no slack");
            let mut distinct = paths.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), paths.len(), "{lb}: distinct paths");
        }
        s.run();
        assert_eq!(s.flows_finished(), 4, "{lb}: every flow completes");
    }
}

/// A file topology with unequal costs: four switches in a ring s0-s1-s2-s3-s0, host 0 on
/// s0, host 1 on s2, host 2 on s1. Host 0 to host 1: the two ways round, 4 links each.
/// Host 0 to host 2: the direct way (3 links) and, with 2 hops of slack, the long way
/// round (5 links); with no slack only the direct way.
#[test]
fn source_routed_balancers_run_on_an_unequal_cost_file_topology() {
    let ring = "a,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s2,100Gbps,1us\nh2,s1,100Gbps,1us\n\
                s0,s1,100Gbps,1us\ns1,s2,100Gbps,1us\ns2,s3,100Gbps,1us\ns3,s0,100Gbps,1us\n";
    let files = [("ring.csv", ring), ("flows.csv", "src,dst,size,start\n0,1,500KB,0\n0,2,500KB,0\n")];
    for slack in [0, 2] {
        for (lb, cc) in BALANCERS {
            let toml = scenario(
                "kind = \"file\"\nfile = \"ring.csv\"\nhosts = 3",
                lb,
                cc,
                &format!("candidate_paths = {{ slack = {slack} }}"),
            );
            let mut s = sim_with_files(&toml, &files);
            let lengths = |f: u32| s.candidate_paths(f).iter().map(|p| p.len() - 1).collect::<Vec<_>>();
            assert_eq!(lengths(0), vec![4, 4], "{lb}, slack {slack}: both ways round");
            let expected = if slack == 0 { vec![3] } else { vec![3, 5] };
            assert_eq!(lengths(1), expected, "{lb}, slack {slack}: to the neighbouring switch");
            s.run();
            assert_eq!(s.flows_finished(), 2, "{lb}, slack {slack}: every flow completes");
        }
    }
}

/// `k = 0` would leave a routed flow without a path: refused with the field.
#[test]
fn zero_candidate_paths_are_refused() {
    let e = build_err(
        r#"
        [topology]
        kind = "fat_tree"
        hosts = 16
        [transport]
        lb = "conga"
        candidate_paths = { k = 0 }
        [[workload]]
        kind = "permutation"
        size = "100KB"
        "#,
    );
    assert!(e.starts_with("transport.candidate_paths.k"), "{e}");
}
