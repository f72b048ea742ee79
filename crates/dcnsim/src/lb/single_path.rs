//! Deterministic single-path routing (`lb = "single_path"`): every packet of every flow
//! carries the same entropy value, so each switch forwards all traffic to a destination
//! over one fixed next hop, as ns-3's global routing does without ECMP. The DCTCP-vs-Swift
//! study ran that way (docs/reproductions/dctcp-vs-swift-paper.md, `ns3_study` profile);
//! flows between different pairs may still part where their destinations' routes part.

use serde::{Deserialize, Serialize};

use super::PathPolicy;
use crate::units::Time;

/// The one entropy value every packet carries.
const THE_PATH: u32 = 0;

/// `[transport.single_path]`: nothing to set.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SinglePathParams {}

impl SinglePathParams {
    pub fn validate(&self, _field: &str) -> Result<(), crate::error::ScenarioError> {
        Ok(())
    }
}

/// A flow pinned to the fabric's one path, retransmissions and replies included.
pub struct SinglePath;

impl SinglePath {
    pub fn new(_params: &SinglePathParams, _flow: u32, _entropy: u32) -> Self {
        SinglePath
    }
}

impl PathPolicy for SinglePath {
    fn needs_fresh(&self, _now: Time) -> bool {
        false
    }
    fn next(&mut self, _now: Time, _fresh: u32, current: &mut u32) -> u32 {
        *current = THE_PATH;
        THE_PATH
    }
}
