//! The one error of bad input: a message that starts with the field's path, e.g.
//! `topology.hosts: ...`, raised before anything is simulated.

use std::fmt;

/// Bad input: the message starts with the field's path (e.g. `topology.hosts: ...`).
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ScenarioError {}

pub(crate) fn err<T>(field: &str, msg: impl fmt::Display) -> Result<T, ScenarioError> {
    Err(ScenarioError(format!("{field}: {msg}")))
}
