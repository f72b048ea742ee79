//! Queue management by name (`[switch.aqm]`, the registry in `net/aqm/mod.rs`): RED
//! given there is the same algorithm as RED given in `[switch.ecn]`, so the same scenario
//! either way must be the same run, packet for packet; and mistakes are named.

use crate::common::{build_err, sim};

/// An 8:1 incast on one star switch with a RED ramp at dequeue (random marks), DCTCP:
/// the marking decisions, and so every flow's fate, depend on the AQM's every verdict.
fn incast(aqm_table: &str) -> String {
    format!(
        r#"
        seed = 7
        [topology]
        kind = "star"
        hosts = 9
        [switch]
        buffer = "400KB"
        {aqm_table}
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = 8
        size = "500KB"
        "#
    )
}

fn outcome(toml: &str) -> (u64, Vec<(u64, f64)>, f64) {
    let mut s = sim(toml);
    s.run();
    let t = s.flow_table();
    let fct = t.f64s("fct_us").to_vec();
    let ids = t.i64s("id").iter().map(|&i| i as u64);
    let marks = s.stats().into_iter().find(|(k, _)| *k == "ecn_marks").map(|(_, v)| v).unwrap();
    (s.events_processed(), ids.zip(fct).collect(), marks)
}

#[test]
fn red_by_name_is_the_same_run_as_switch_ecn() {
    let ramp = "kmin = \"40KB\"\nkmax = \"160KB\"\npmax = 0.5\non = \"dequeue\"";
    let classic = outcome(&incast(&format!("[switch.ecn]\n{ramp}")));
    let named = outcome(&incast(&format!("[switch.aqm]\nkind = \"red\"\n{ramp}")));
    assert!(classic.2 > 0.0, "the ramp marks packets");
    assert_eq!(classic, named);
    // And a different threshold is a different run: the comparison can tell them apart.
    let other = outcome(&incast("[switch.aqm]\nkind = \"red\"\nkmin = \"20KB\"\nkmax = \"20KB\""));
    assert_ne!(classic.2, other.2);
}

#[test]
fn aqm_mistakes_are_named() {
    let m = build_err(&incast("[switch.aqm]\nkind = \"codel\""));
    assert!(m.contains("codel") && m.contains("red"), "{m}");
    let m = build_err(&incast("[switch.aqm]\nkind = \"red\"\nkmin = \"200KB\"\nkmax = \"100KB\""));
    assert!(m.contains("switch.aqm.kmin"), "{m}");
    let m = build_err(&incast("[switch.aqm]\nkind = \"red\"\n[switch.ecn]\nkmin = \"1KB\""));
    assert!(m.contains("switch.aqm") && m.contains("not both"), "{m}");
}

/// `switch.ecn.reference_rate`: thresholds given for 100 Gb/s ports scale with each port's
/// rate, to the LAPS artefact's RED table (400 / 1600 KB at 100 Gb/s, 100 / 400 KB at
/// 25 Gb/s). On a dumbbell of 100 Gb/s host links and a 25 Gb/s shared link, the shared
/// link's two ports mark at 100 / 400 KB and the host-facing ones at 400 / 1600 KB; the
/// run through the shared link then marks more than with 400 / 1600 KB everywhere.
#[test]
fn red_thresholds_scale_with_the_port_rate() {
    let dumbbell = |reference: &str| {
        format!(
            "seed = 3\n[topology]\nkind = \"dumbbell\"\nhosts = 8\nbottleneck_rate = \"25Gbps\"\n[switch]\nbuffer = \"4MB\"\n\
             [switch.ecn]\nkmin = \"400KB\"\nkmax = \"1600KB\"\npmax = 0.8\n{reference}\n[transport]\ncc = \"dctcp\"\n\
             [[workload]]\nkind = \"permutation\"\nsize = \"2MB\"\n"
        )
    };
    let s = sim(&dumbbell("reference_rate = \"100Gbps\""));
    let mut seen = Vec::new();
    for p in s.ports.iter().filter(|p| p.node >= s.n_hosts) {
        let Some(dcnsim::net::AnyAqm::Red(red)) = &p.aqm else { panic!("switch port without RED") };
        let expected = if p.rate.bps() == 25_000_000_000 { (100_000, 400_000) } else { (400_000, 1_600_000) };
        assert_eq!((red.kmin, red.kmax), expected, "port at {} b/s", p.rate.bps());
        seen.push(p.rate.bps());
    }
    assert_eq!(seen.iter().filter(|&&r| r == 25_000_000_000).count(), 2, "both directions of the shared link");
    let marks = |toml: &str| {
        let mut s = sim(toml);
        s.run();
        s.stats().into_iter().find(|(k, _)| *k == "ecn_marks").map(|(_, v)| v).unwrap()
    };
    assert!(marks(&dumbbell("reference_rate = \"100Gbps\"")) > marks(&dumbbell("")));
}
