//! Hosts with several links, and switchless fabrics (issue 28; LAPS paper §1: "switchless
//! topologies (e.g. Torus) provide multiple paths between each pair of nodes";
//! docs/models/topologies.md). A host with several links, or with links to other hosts,
//! sits behind a NIC node of its own that forwards like a switch.

use crate::common::*;

/// A server dual-homed to two switches, each with one receiver: h0 on s0 and s1, h1 on s0,
/// h2 on s1, all links 100 Gb/s, s0–s1 joined. Two 10 MB flows from h0, one to each
/// receiver, each leave by their own link (the other way is a hop longer), so both run
/// at 100 Gb/s: 10 MB / 100 Gb/s = 800 µs, against 1,600 µs through one shared link. The
/// bound allows 5 % plus 50 µs for DCTCP's start.
#[test]
fn a_dual_homed_host_sends_on_both_links() {
    let fabric = "a,b,rate,latency\nh0,s0,100Gbps,1us\nh0,s1,100Gbps,1us\nh1,s0,100Gbps,1us\n\
                  h2,s1,100Gbps,1us\ns0,s1,100Gbps,1us\n";
    let toml = "[topology]\nkind = \"file\"\nfile = \"fabric.csv\"\nhosts = 3\n[transport]\ncc = \"dctcp\"\n\
                [[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"\n";
    let flows = "src,dst,size,start\n0,1,10MB,0\n0,2,10MB,0\n";
    let mut s = sim_with_files(toml, &[("fabric.csv", fabric), ("flows.csv", flows)]);
    let nic = s.ports[s.routing.host_up_port[0] as usize].peer;
    assert_eq!(nic, 3 + 2, "host 0's NIC node follows the file's two switches");
    s.run();
    assert_eq!(s.flows_finished(), 2);
    for &fct in s.flow_table().f64s("fct_us") {
        assert!((800.0..=800.0 * 1.05 + 50.0).contains(&fct), "FCT {fct} us");
    }
}

/// Hops in a torus of `dims` between positions `a` and `b` (first coordinate fastest):
/// in each dimension the shorter way round.
fn torus_distance(dims: &[u32], mut a: u32, mut b: u32) -> u32 {
    let mut hops = 0;
    for &d in dims {
        let delta = (a % d).abs_diff(b % d);
        hops += delta.min(d - delta);
        (a, b) = (a / d, b / d);
    }
    hops
}

fn torus(dims: &str, hosts: u32, lb: &str, cc: &str) -> String {
    format!(
        "[topology]\nkind = \"torus\"\ndims = {dims}\nhosts = {hosts}\n[transport]\ncc = \"{cc}\"\nlb = \"{lb}\"\n\
         [[workload]]\nkind = \"permutation\"\nsize = \"200KB\"\n"
    )
}

/// On a 4 × 4 torus the routing's first next hop from every host to every other follows a
/// shortest path: torus distance plus the two host links; and a permutation under ECMP
/// completes.
#[test]
fn torus_routes_are_shortest_and_a_permutation_completes() {
    let mut s = sim(&torus("[4, 4]", 16, "ecmp", "dctcp"));
    for src in 0..16u32 {
        for dst in (0..16u32).filter(|&d| d != src) {
            let (mut links, mut node) = (1, s.ports[s.routing.host_up_port[src as usize] as usize].peer);
            while node >= s.n_hosts {
                node = s.ports[s.routing.candidates(node, dst)[0] as usize].peer;
                links += 1;
            }
            assert_eq!(node, dst);
            assert_eq!(links, torus_distance(&[4, 4], src, dst) + 2, "{src} -> {dst}");
        }
    }
    s.run();
    assert_eq!(s.flows_finished(), 16);
}

/// LAPS's candidate paths on a switchless torus, counted by hand on the 4 × 4 grid. From
/// (0, 0) to (2, 2): two ways round in x and two in y, and C(4, 2) = 6 orders of the four
/// steps for each, 24 shortest paths of 4 NIC-to-NIC hops + 2 host links; to (1, 0) one
/// path; to (1, 1) two. LAPS then runs a permutation to completion.
#[test]
fn laps_sprays_over_the_torus_shortest_paths() {
    let toml = "[topology]\nkind = \"torus\"\ndims = [4, 4]\nhosts = 16\n[transport]\ncc = \"laps\"\nlb = \"laps\"\n\
                [[workload]]\nkind = \"flows\"\nfile = \"flows.csv\"\n";
    let flows = "src,dst,size,start\n0,10,500KB,0\n0,1,500KB,0\n0,5,500KB,0\n";
    let mut s = sim_with_files(toml, &[("flows.csv", flows)]);
    let counts: Vec<usize> = (0..3).map(|f| s.candidate_paths(f).len()).collect();
    assert_eq!(counts, vec![24, 1, 2]);
    assert!(s.candidate_paths(0).iter().all(|p| p.len() - 1 == 6));
    s.run();
    assert_eq!(s.flows_finished(), 3);
}

/// A torus's size is checked against `hosts`, and `dims` only goes with a torus.
#[test]
fn bad_torus_settings_name_the_field() {
    let e = build_err(&torus("[4, 4]", 12, "ecmp", "dctcp"));
    assert!(e.starts_with("topology.hosts") && e.contains("16 positions"), "{e}");
    let e = build_err(&torus("[4, 1]", 4, "ecmp", "dctcp"));
    assert!(e.starts_with("topology.dims") && e.contains("size 2 or more"), "{e}");
    let e = build_err(&torus("[2, 2, 2, 2]", 16, "ecmp", "dctcp"));
    assert!(e.starts_with("topology.dims") && e.contains("1 to 3 dimensions"), "{e}");
    let e =
        build_err("[topology]\nkind = \"torus\"\nhosts = 4\n[[workload]]\nkind = \"permutation\"\nsize = \"1KB\"\n");
    assert!(e.starts_with("topology.dims") && e.contains("required"), "{e}");
    let e = build_err(
        "[topology]\nkind = \"star\"\nhosts = 4\ndims = [2, 2]\n[[workload]]\nkind = \"permutation\"\nsize = \"1KB\"\n",
    );
    assert!(e.starts_with("topology.dims") && e.contains("only for kind = \"torus\""), "{e}");
}
