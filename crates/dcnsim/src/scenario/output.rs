//! `[output]`, `[observe]` and `[trace]`: what a run records.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueSampling {
    None,
    Switch,
    All,
}

impl QueueSampling {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            QueueSampling::None => "none",
            QueueSampling::Switch => "switch",
            QueueSampling::All => "all",
        }
    }
}

/// `[output]`: the older spelling of `[observe]`, kept so that existing scenarios run
/// unchanged. `sample_interval = T, queues = Q, cwnd = C` means `[observe] interval = T,
/// ports = Q, flows = "all"` (or none when C is false), every metric.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_interval: Option<TimeVal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queues: Option<QueueSampling>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwnd: Option<bool>,
    /// Where a flow's completion is stamped: `"receiver"` (default: its last byte arrives)
    /// or `"sender"` (the ACK of its last byte reaches the sender, as htsim stamps it); the
    /// run then lasts until every sender has heard.
    #[serde(default)]
    pub fct: FctAt,
}

/// `output.fct`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FctAt {
    #[default]
    Receiver,
    Sender,
}

/// One entry of a selection: a name (a keyword such as `"all"`, a tier, a port name
/// such as `"s0->s4"`) or a numeric id.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SelectItem {
    Id(u64),
    Name(String),
}

/// What `[observe]` and `[trace]` look at: one name or id, or a list of them. The names
/// are checked when the simulation is built, against the topology and the flows.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Selection {
    One(SelectItem),
    Many(Vec<SelectItem>),
}

impl Selection {
    pub fn named(name: &str) -> Selection {
        Selection::One(SelectItem::Name(name.to_string()))
    }
    pub fn nothing() -> Selection {
        Selection::Many(Vec::new())
    }
    pub fn items(&self) -> &[SelectItem] {
        match self {
            Selection::One(i) => std::slice::from_ref(i),
            Selection::Many(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for Selection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(Scalar),
            Many(Vec<Scalar>),
        }
        let what = "expected a name (such as \"all\"), a whole number, or a list of them";
        let item = |s: Scalar| match s {
            Scalar::Str(s) => Ok(SelectItem::Name(s)),
            Scalar::Int(v) if v >= 0 => Ok(SelectItem::Id(v as u64)),
            Scalar::UInt(v) => Ok(SelectItem::Id(v)),
            Scalar::Int(v) => Err(de::Error::custom(format!("{v}: {what}"))),
            Scalar::Float(v) => Err(de::Error::custom(format!("{v}: {what}"))),
        };
        match Raw::deserialize(d).map_err(|_| de::Error::custom(what))? {
            Raw::One(s) => item(s).map(Selection::One),
            Raw::Many(v) => v.into_iter().map(item).collect::<Result<_, _>>().map(Selection::Many),
        }
    }
}

pub(super) fn select_all() -> Selection {
    Selection::named("all")
}
pub(super) fn select_switch_ports() -> Selection {
    Selection::named("switch")
}
pub(super) fn select_nothing() -> Selection {
    Selection::nothing()
}

/// `[observe]`: time series sampled every `interval` (`observe.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObserveCfg {
    /// Required (checked when the simulation is built, so that a missing one is named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<TimeVal>,
    /// `"all"`, `"switch"`, `"nic"` (host NICs), `"none"`, a tier, port names or ids.
    #[serde(default = "select_switch_ports")]
    pub ports: Selection,
    /// `"all"` or flow ids.
    #[serde(default = "select_all")]
    pub flows: Selection,
    /// `"all"` or metric names (`observe::METRICS`).
    #[serde(default = "select_all")]
    pub metrics: Selection,
}

pub(super) fn default_max_events() -> u64 {
    1_000_000
}

/// `[trace]`: a packet trace of chosen flows and ports (`trace.rs`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceCfg {
    #[serde(default = "select_nothing")]
    pub flows: Selection,
    #[serde(default = "select_nothing")]
    pub ports: Selection,
    /// Events kept at most; the trace stops there (bounded memory and files).
    #[serde(default = "default_max_events")]
    pub max_events: u64,
}

pub(super) fn default_name() -> String {
    "scenario".into()
}
pub(super) fn default_seed() -> u64 {
    1
}
pub(super) fn default_threads() -> u32 {
    1
}
