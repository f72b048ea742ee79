//! `topology.kind = "file"` (issue 7): a fabric read from dcnsim's CSV link list or an
//! HPCC topology.txt runs like a built one, and a bad file is refused before the run.

use crate::common::*;

fn scenario(file: &str, hosts: u32) -> String {
    format!(
        r#"
        [topology]
        kind = "file"
        file = "{file}"
        hosts = {hosts}
        mtu = "1500B"
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        "#
    )
}

/// Two hosts on two switches joined by a 10 Gb/s link with 2 µs latency, read from HPCC
/// syntax with the switches numbered first: one 1 MB flow completes no faster than the
/// bottleneck allows (1 MB at 10 Gb/s = 800 µs) and within 10 % of it plus one RTT.
#[test]
fn an_hpcc_file_runs_with_its_link_rates() {
    let topo = "4 2 3\n0 1\n2 0 100Gbps 0.001ms 0\n3 1 100Gbps 0.001ms 0\n0 1 10Gbps 0.002ms 0\n";
    let mut s = sim_with_files(
        &scenario("topology.txt", 2),
        &[("topology.txt", topo), ("flows.csv", "src,dst,size,start\n0,1,1MB,0\n")],
    );
    s.run();
    assert_eq!(s.flows_finished(), 1);
    let fct = s.flow_table().f64s("fct_us")[0];
    assert!((800.0..=800.0 * 1.1 + 8.0).contains(&fct), "FCT {fct} us");
}

#[test]
fn bad_topology_files_are_refused_with_the_field() {
    let flows = ("flows.csv", "src,dst,size,start\n0,1,1MB,0\n");
    let refused =
        |file: &str, text: &str, hosts: u32| match build_with_files(&scenario(file, hosts), &[(file, text), flows]) {
            Ok(_) => panic!("accepted {file}"),
            Err(e) => e.0,
        };
    let two_racks = "a,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s1,100Gbps,1us\n";
    let e = refused("fabric.csv", two_racks, 2);
    assert!(e.contains("topology.file") && e.contains("disconnected"), "{e}");
    let e = refused("fabric.csv", "a,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s0,100Gbps,1us\n", 3);
    assert!(e.contains("topology.hosts") && e.contains("has 2 hosts"), "{e}");
    let e = refused("fabric.topo", "", 2);
    assert!(e.contains("topology.format") && e.contains("\"hpcc\""), "{e}");
    let e = refused("fabric.csv", "a,b,rate,latency\nh0,s0,100Gbps,1us\ns0,s0,100Gbps,1us\nh1,s0,1Gbps,1us\n", 2);
    assert!(e.contains("topology.file: fabric.csv: line 3"), "{e}");
}
