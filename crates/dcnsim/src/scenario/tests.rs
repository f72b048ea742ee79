//! Unit tests of the scenario schema: units, defaults, errors that name the field.

use super::*;

const STAR: &str = "[topology]\nkind = \"star\"\nhosts = 4\n[[workload]]\nkind = \"incast\"\nsenders = 2\n";

/// Fuzz target `scenario` (issue 10): `size = "0MB"` was accepted as a 0-byte flow
/// while `size = 0` is refused, and the resolved JSON (`"size": 0`) then failed to parse.
#[test]
fn a_zero_flow_size_with_a_unit_is_refused_like_a_bare_zero() {
    for size in ["0", "\"0MB\"", "\"0.0001B\""] {
        let e = Scenario::from_toml(&format!("{STAR}size = {size}\n")).unwrap_err().0;
        assert!(e.starts_with("workload[0].size") && e.contains("positive"), "{size}: {e}");
    }
}

/// Found with the round trip above in mind: `nan`/`inf` in any float field resolved to
/// `null`, which no float field reads back.
#[test]
fn non_finite_floats_are_refused_naming_the_field() {
    let base = "[topology]\nkind = \"star\"\nhosts = 4\n";
    let e = Scenario::from_toml(&format!("{base}failed_links = nan\n")).unwrap_err().0;
    assert_eq!(e, "topology.failed_links: NaN is not a finite number");
    let e = Scenario::from_toml(&format!("{base}loss_rate = -inf\n")).unwrap_err().0;
    assert_eq!(e, "topology.loss_rate: -inf is not a finite number");
}

/// A size that parses above i64::MAX ("1e19") resolves to a JSON integer that must
/// read back as the same size, not as a float, which sizes refuse.
#[test]
fn sizes_above_i64_max_survive_the_resolved_json() {
    let s = Scenario::from_toml(&format!("{STAR}size = \"1e19\"\n")).unwrap();
    let json = s.resolved_json();
    assert!(json.contains("\"size\": 10000000000000000000"), "{json}");
    assert_eq!(Scenario::from_json(&json).unwrap().resolved_json(), json);
}
