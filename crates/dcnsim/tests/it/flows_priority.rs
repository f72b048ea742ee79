//! A `flows` workload (CSV file) takes a `priority` like the generated kinds: a fixed level
//! or one by flow size, on every flow of the file; an `htsim_cm` workload still refuses it.

use crate::common;

fn levels(priority: &str) -> Vec<u8> {
    let toml = format!(
        r#"
        [topology]
        kind = "star"
        hosts = 3
        [[workload]]
        kind = "flows"
        file = "flows.csv"
        priority = {priority}
        "#
    );
    let csv = "src,dst,size,start\n0,2,200KB,0us\n1,2,5MB,0us\n";
    let s = common::sim_with_files(&toml, &[("flows.csv", csv)]);
    s.flows.iter().map(|f| f.priority).collect()
}

#[test]
fn flows_file_takes_a_priority() {
    assert_eq!(levels("2"), vec![2, 2]);
    assert_eq!(levels(r#"{ edges = ["1MB"] }"#), vec![2, 1]);
    let e = common::build_err(
        r#"
        [topology]
        kind = "star"
        hosts = 3
        [[workload]]
        kind = "htsim_cm"
        file = "cm.txt"
        priority = 2
        "#,
    );
    assert!(e.contains("priority"), "{e}");
}
