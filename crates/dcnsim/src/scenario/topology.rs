//! `[topology]`: the fabric's kind, size, links and what may fail or lose packets.
//! `docs/models/topologies.md`, `docs/models/faults.md`.

use super::*;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureModel {
    #[default]
    Exact,
    Independent,
}

/// `topology.loss_links`: the links `loss_rate` applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossLinks {
    /// Switch-to-switch links only (host links are lossless).
    #[default]
    Switch,
    /// Every link, host links too: the LAPS artefact drops at every link receive
    /// (`docs/models/faults.md`; `docs/reproductions/laps-paper.md`, "Decisions and errata").
    All,
}

/// `topology.loss_packets`: the packets `loss_rate` can lose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPackets {
    /// Every packet: data, ACKs, NACKs, CNPs, pulls.
    #[default]
    All,
    /// Data packets (trimmed headers and probes included) only; replies always arrive
    /// (the LAPS paper's loss is per data packet per link traversal;
    /// `docs/models/faults.md`).
    Data,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    FatTree,
    LeafSpine,
    Star,
    Dumbbell,
    /// Two hosts joined by two switches with `paths` parallel links between them; the
    /// last `slow_paths` are slower by `slow_extra_latency` towards the receiver (host 1).
    /// The MSwift paper's micro-benchmark (MSwift paper §II; `docs/models/topologies.md`,
    /// `docs/reproductions/mswift-paper.md`, A3–A5).
    Parallel,
    /// `groups` groups of `routers_per_group` routers, all-to-all inside a group, one
    /// global link between every two groups; `hosts / (groups × routers_per_group)` hosts
    /// per router. Defaults are the LAPS paper's (9 × 4, 144 hosts; LAPS paper §4.1,
    /// `docs/models/topologies.md`).
    Dragonfly,
    /// Rail-optimised GPU fabric: `hosts / rails` servers of `rails` GPUs; each GPU's edge
    /// node links to its rail switch and its server's NVLink switch (LAPS paper §4.1, Fig.
    /// 1(b); `docs/models/topologies.md`).
    Rail,
    /// Switchless torus: one host per position of a `dims` grid, behind a NIC node that
    /// links to its neighbours with wrap-around (LAPS paper §1; `docs/models/topologies.md`).
    Torus,
    /// Read from `file` (`topology_file.rs`: dcnsim's CSV link list or HPCC's
    /// topology.txt).
    File,
}

/// Syntax of a topology file (`topology_file.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopologyFileFormat {
    Csv,
    Hpcc,
}

pub(super) fn default_one() -> u32 {
    1
}
pub(super) fn default_link_rate() -> RateVal {
    RateVal(Rate::gbps(100))
}
pub(super) fn default_link_latency() -> TimeVal {
    TimeVal(Time::from_ns(500))
}
pub(super) fn default_mtu() -> BytesVal {
    BytesVal(4096)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyCfg {
    pub kind: TopologyKind,
    pub hosts: u32,
    /// Fat tree: 2 (leaf-spine) or 3 (default 3; `leaf_spine` is always 2).
    #[serde(default)]
    pub tiers: Option<u32>,
    /// Switch port count k (even); default: the smallest that holds `hosts`.
    #[serde(default)]
    pub radix: Option<u32>,
    /// Hosts per ToR over ToR uplinks (integer ratio; 1 = non-blocking).
    #[serde(default = "default_one")]
    pub oversubscription: u32,
    /// Per-tier oversubscription by fewer uplinks: `[tor, agg]` (3 tiers) or `[leaf]`
    /// (2 tiers), each dividing k/2. `[4, 2]` at 1024 hosts is the SMaRTT paper's 8:1 tree.
    #[serde(default)]
    pub oversubscription_tiers: Option<Vec<u32>>,
    #[serde(default = "default_link_rate")]
    pub link_rate: RateVal,
    #[serde(default = "default_link_latency")]
    pub link_latency: TimeVal,
    #[serde(default)]
    pub host_link_rate: Option<RateVal>,
    #[serde(default)]
    pub host_link_latency: Option<TimeVal>,
    #[serde(default)]
    pub tor_uplink_rate: Option<RateVal>,
    #[serde(default)]
    pub tor_uplink_latency: Option<TimeVal>,
    #[serde(default)]
    pub agg_uplink_rate: Option<RateVal>,
    #[serde(default)]
    pub agg_uplink_latency: Option<TimeVal>,
    /// Dumbbell: the shared link (default: link_rate / link_latency).
    #[serde(default)]
    pub bottleneck_rate: Option<RateVal>,
    #[serde(default)]
    pub bottleneck_latency: Option<TimeVal>,
    /// Parallel: number of parallel links, how many of the last ones are slow, and by how much.
    #[serde(default)]
    pub paths: Option<u32>,
    #[serde(default)]
    pub slow_paths: Option<u32>,
    #[serde(default)]
    pub slow_extra_latency: Option<TimeVal>,
    /// Dragonfly: number of groups (default 9) and routers per group (default 4); the
    /// groups' `groups − 1` global links must spread evenly over the routers.
    #[serde(default)]
    pub groups: Option<u32>,
    #[serde(default)]
    pub routers_per_group: Option<u32>,
    /// Dragonfly: rate and latency of the global links (default: link_rate / link_latency).
    #[serde(default)]
    pub global_link_rate: Option<RateVal>,
    #[serde(default)]
    pub global_link_latency: Option<TimeVal>,
    /// Rail: GPUs per server, which is also the number of rail switches (default 8).
    #[serde(default)]
    pub rails: Option<u32>,
    /// Torus: the size of each dimension (1 to 3 dimensions, each at least 2); their
    /// product is `hosts`.
    #[serde(default)]
    pub dims: Option<Vec<u32>>,
    /// File: the topology file, relative to the scenario, and its syntax (default from
    /// the name: `.csv` is `csv`, `.txt` is `hpcc`).
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub format: Option<TopologyFileFormat>,
    /// Forwarding latency of every switch.
    #[serde(default)]
    pub switch_latency: Option<TimeVal>,
    /// Largest packet on the wire (payload + header).
    #[serde(default = "default_mtu")]
    pub mtu: BytesVal,
    /// Switch-to-switch cables that are down, chosen by the seed: exactly this fraction of
    /// them (`failure_model = "exact"`), or each one independently with this probability
    /// (`"independent"`).
    #[serde(default)]
    pub failed_links: f64,
    #[serde(default)]
    pub failure_model: FailureModel,
    /// Probability that a packet is lost on each link it crosses (of the links and
    /// packets `loss_links` and `loss_packets` choose).
    #[serde(default)]
    pub loss_rate: f64,
    #[serde(default)]
    pub loss_links: LossLinks,
    #[serde(default)]
    pub loss_packets: LossPackets,
}
