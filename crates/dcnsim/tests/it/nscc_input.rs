//! Bad NSCC and trimming settings are rejected before the run, naming the field and what
//! is allowed.

use crate::common;

fn scenario(switch: &str, transport: &str) -> String {
    format!(
        r#"
        [topology]
        kind = "star"
        hosts = 3
        [switch]
        {switch}
        [transport]
        cc = "nscc"
        {transport}
        [[workload]]
        kind = "incast"
        senders = 2
        size = "1MB"
        "#
    )
}

#[test]
fn bad_nscc_and_trimming_settings_name_the_field() {
    for (switch, transport, field, allowed) in [
        ("", "[transport.nscc]\nmode = \"htsim\"", "transport.nscc.mode", "smartt_paper"),
        ("", "[transport.nscc]\ntarget_ratio = 1.0", "transport.nscc.target_ratio", "above 1"),
        ("", "[transport.nscc]\nmax_mdf = 1.5", "transport.nscc.max_mdf", "0 < max_mdf < 1"),
        ("", "[transport.nscc]\newma_gain = 0", "transport.nscc.ewma_gain", "0 < ewma_gain <= 1"),
        ("", "[transport.nscc]\ntarget_qdelay = 3", "transport.nscc.target_qdelay", "\"auto\""),
        ("", "[transport.nscc]\nrto = \"0us\"", "transport.nscc.rto", "positive"),
        ("", "[transport.nscc]\ninitial_cwnd = \"huge\"", "transport.nscc.initial_cwnd", "maxwnd"),
        ("", "[transport.nscc]\npercentile = 0", "transport.nscc.percentile", "1 to 100"),
        ("", "[transport.nscc]\nhistory = 0", "transport.nscc.history", "\"auto\""),
        ("", "[transport.nscc]\nspeed = 1", "transport.nscc", "speed"),
        ("trimming = true\nack_priority = false", "", "switch.trimming", "ack_priority = true"),
        ("trimming = \"yes\"", "", "switch.trimming", "true or false"),
    ] {
        let msg = common::build_err(&scenario(switch, transport));
        assert!(msg.starts_with(field), "{msg}");
        assert!(msg.contains(allowed), "{msg}");
    }
    let msg = common::build_err(&scenario("", "").replace("cc = \"nscc\"", "cc = \"smartt\""));
    assert!(msg.contains("nscc") && msg.contains("mnscc"), "{msg}");
}
