//! The scenario file: a serde schema for TOML (or the JSON the Python layer sends), with
//! human units, defaults documented in the README, and validation that names the field
//! and the allowed values before anything is simulated (`docs/architecture.md`, scenario
//! files).

use std::path::Path;

mod faults;
mod output;
mod switch;
mod topology;
mod transport;
mod workload;

pub use faults::*;
pub use output::*;
pub use switch::*;
pub use topology::*;
pub use transport::*;
pub use workload::*;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::net::{AnyAqm, MarkIf, MarkPoint};
use crate::transport::app::AppCfg;
use crate::transport::{LossRecovery, LossRule};
use crate::units::values::Scalar;
use crate::units::{Rate, Time};

pub use crate::cc::CcName;
use crate::cc::{CongestionControl, FlowInfo};
pub(crate) use crate::error::err;
pub use crate::error::ScenarioError;
pub use crate::lb::{LbName, LbPaths};
pub(crate) use crate::units::values::NumberOrWord;
pub use crate::units::values::{BytesVal, FlowSize, InitialWindow, RateVal, TimeVal, WindowCap};

/// Replaces Rust type names in serde's messages with words a scenario author uses.
fn plain(msg: String) -> String {
    msg.replace("expected u32", "expected a whole number >= 0")
        .replace("expected u64", "expected a whole number >= 0")
        .replace("expected f64", "expected a number")
        .replace("expected a boolean", "expected true or false")
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time at which the run ends even if flows are unfinished.
    #[serde(default)]
    pub duration: Option<TimeVal>,
    /// Threads to run one simulation on (`sim/parallel/`, docs/models/parallel.md); the
    /// results are the same with any number. 1 to 256; default 1.
    #[serde(default = "default_threads")]
    pub threads: u32,
    pub topology: TopologyCfg,
    #[serde(default)]
    pub switch: SwitchCfg,
    #[serde(default)]
    pub transport: TransportCfg,
    #[serde(default)]
    pub workload: Vec<WorkloadCfg>,
    /// The older spelling of `observe` (`OutputCfg`).
    #[serde(default)]
    pub output: OutputCfg,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<ObserveCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceCfg>,
    #[serde(default)]
    pub faults: FaultsCfg,
}

/// One data packet of one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketId {
    pub flow: u32,
    pub psn: u32,
}

/// For JSON (built by the Python layer from the user's TOML), serde_json's " at line L
/// column C" points into text the user never saw, so it is dropped.
fn json_error(e: serde_path_to_error::Error<serde_json::Error>) -> ScenarioError {
    let path = e.path().to_string();
    let full = e.inner().to_string();
    let inner = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full,
    };
    if path == "." || path.is_empty() {
        ScenarioError(plain(inner))
    } else {
        ScenarioError(plain(format!("{path}: {inner}")))
    }
}

/// TOML's `nan` and `inf` have no JSON form (serde_json writes `null`), so a scenario
/// holding one could run but its resolved JSON could not be read back; the Python layer
/// refuses them too (`_scenario.scenario_json`).
fn non_finite(v: &toml::Value, path: &str) -> Result<(), ScenarioError> {
    match v {
        toml::Value::Float(f) if !f.is_finite() => err(path, format!("{f} is not a finite number")),
        toml::Value::Table(t) => t
            .iter()
            .try_for_each(|(k, v)| non_finite(v, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") })),
        toml::Value::Array(a) => a.iter().enumerate().try_for_each(|(i, v)| non_finite(v, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

impl Scenario {
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            if path == "." || path.is_empty() {
                // A syntax error: toml's full rendering shows the line and a caret.
                ScenarioError(format!("scenario is not valid TOML: {}", e.inner()))
            } else {
                ScenarioError(plain(format!("{path}: {}", e.inner().message())))
            }
        })?;
        // The text is valid TOML by now, so this second parse only looks for the floats.
        let table: toml::Table = text.parse().map_err(|e| ScenarioError(format!("scenario is not valid TOML: {e}")))?;
        non_finite(&toml::Value::Table(table), "")?;
        Ok(scenario)
    }

    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(json_error)
    }

    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ScenarioError(format!("{}: cannot read: {e}", path.display())))?;
        Scenario::from_toml(&text)
    }

    /// Fills in defaults that depend on other fields, so the echo shows what runs.
    pub fn normalised(&self) -> Scenario {
        let mut s = self.clone();
        let t = &mut s.topology;
        match t.kind {
            TopologyKind::FatTree if t.tiers.is_none() => t.tiers = Some(3),
            TopologyKind::LeafSpine if t.tiers.is_none() => t.tiers = Some(2),
            _ => {}
        }
        let o = &mut s.output;
        if o.sample_interval.is_some() {
            o.queues.get_or_insert(QueueSampling::Switch);
            o.cwnd.get_or_insert(true);
        }
        s
    }

    /// The time series to sample: `[observe]`, or its older spelling in `[output]`.
    pub fn observe_cfg(&self) -> Result<Option<ObserveCfg>, ScenarioError> {
        let o = &self.output;
        if let Some(cfg) = &self.observe {
            if o.sample_interval.is_some() || o.queues.is_some() || o.cwnd.is_some() {
                let field = if o.sample_interval.is_some() {
                    "output.sample_interval"
                } else if o.queues.is_some() {
                    "output.queues"
                } else {
                    "output.cwnd"
                };
                return err(
                    field,
                    "is the older spelling of [observe]; give [observe] alone (interval, ports, flows, metrics)",
                );
            }
            return Ok(Some(cfg.clone()));
        }
        Ok(o.sample_interval.map(|interval| ObserveCfg {
            interval: Some(interval),
            ports: Selection::named(o.queues.unwrap_or(QueueSampling::Switch).as_str()),
            flows: if o.cwnd.unwrap_or(true) { select_all() } else { Selection::nothing() },
            metrics: select_all(),
        }))
    }

    /// The scenario with every default filled in, as JSON.
    pub fn resolved_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("scenario serialises")
    }
}

#[cfg(test)]
mod tests;
