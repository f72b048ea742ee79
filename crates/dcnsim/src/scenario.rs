//! The scenario file: a serde schema for TOML (or the JSON the Python layer sends), with
//! human units, defaults documented in the README, and validation that names the field
//! and the allowed values before anything is simulated (DESIGN.md, "Scenario files").

use std::path::Path;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::transport::app::AppCfg;
use crate::cc::dcqcn::DcqcnParams;
use crate::cc::dctcp::DctcpParams;
use crate::cc::ledbat::LedbatParams;
use crate::cc::mprdma::MprdmaParams;
use crate::cc::newreno::NewRenoParams;
use crate::cc::nscc::NsccParams;
use crate::cc::prioplus::PrioPlusParams;
use crate::cc::swift::SwiftParams;
use crate::net::{MarkIf, MarkPoint};
use crate::transport::{LossRecovery, LossRule};
use crate::units::values::Scalar;
use crate::units::{Rate, Time};

pub(crate) use crate::error::err;
pub use crate::error::ScenarioError;
pub(crate) use crate::units::values::NumberOrWord;
pub use crate::cc::CcName;
use crate::cc::{CongestionControl, FlowInfo};
pub use crate::lb::{LbName, LbPaths};
pub use crate::units::values::{BytesVal, FlowSize, InitialWindow, RateVal, TimeVal, WindowCap};

/// Replaces Rust type names in serde's messages with words a scenario author uses.
fn plain(msg: String) -> String {
    msg.replace("expected u32", "expected a whole number >= 0")
        .replace("expected u64", "expected a whole number >= 0")
        .replace("expected f64", "expected a number")
        .replace("expected a boolean", "expected true or false")
}


/// Hosts a workload uses: a count (chosen at random by the seed), an explicit list, or
/// "remaining" (every host no earlier workload uses).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum HostSet {
    Count(u32),
    List(Vec<u32>),
    #[serde(serialize_with = "remaining")]
    Remaining,
}

fn remaining<S: Serializer>(s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str("remaining")
}

impl<'de> Deserialize<'de> for HostSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Count(i64),
            List(Vec<u32>),
            Word(String),
        }
        const ALLOWED: &str = "allowed: a host count, a list of host numbers, or \"remaining\"";
        match Raw::deserialize(d).map_err(|_| de::Error::custom(ALLOWED))? {
            Raw::Count(c) if (0..=u32::MAX as i64).contains(&c) => Ok(HostSet::Count(c as u32)),
            Raw::List(l) => Ok(HostSet::List(l)),
            Raw::Word(w) if w == "remaining" => Ok(HostSet::Remaining),
            _ => Err(de::Error::custom(ALLOWED)),
        }
    }
}

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
    /// Every link, host links too: the LAPS artefact drops at every link receive (spec
    /// `laps.md` §8.12).
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
    /// (spec `laps.md` §8.12's "per data packet per link traversal").
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
    /// The MSwift paper's micro-benchmark (spec mswift-mnscc.md §3.7).
    Parallel,
    /// `groups` groups of `routers_per_group` routers, all-to-all inside a group, one
    /// global link between every two groups; `hosts / (groups × routers_per_group)` hosts
    /// per router. Defaults are the LAPS paper's (9 × 4, 144 hosts; spec laps.md §4.1).
    Dragonfly,
    /// Rail-optimised GPU fabric: `hosts / rails` servers of `rails` GPUs; each GPU's edge
    /// node links to its rail switch and its server's NVLink switch (spec laps.md §4.2).
    Rail,
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

fn default_one() -> u32 {
    1
}
fn default_link_rate() -> RateVal {
    RateVal(Rate::gbps(100))
}
fn default_link_latency() -> TimeVal {
    TimeVal(Time::from_ns(500))
}
fn default_mtu() -> BytesVal {
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

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnCfg {
    #[serde(default = "default_true")]
    pub enabled: bool,
    #[serde(default = "default_k")]
    pub kmin: BytesVal,
    #[serde(default = "default_k")]
    pub kmax: BytesVal,
    #[serde(default = "default_pmax")]
    pub pmax: f64,
    #[serde(default = "default_mark_point")]
    pub on: MarkPoint,
    #[serde(default = "default_mark_if")]
    pub mark_if: MarkIf,
}

fn default_true() -> bool {
    true
}
fn default_k() -> BytesVal {
    BytesVal(100_000)
}
fn default_pmax() -> f64 {
    1.0
}
fn default_mark_point() -> MarkPoint {
    MarkPoint::Enqueue
}
fn default_mark_if() -> MarkIf {
    MarkIf::Above
}

impl Default for EcnCfg {
    fn default() -> Self {
        EcnCfg {
            enabled: true,
            kmin: default_k(),
            kmax: default_k(),
            pmax: 1.0,
            on: MarkPoint::Enqueue,
            mark_if: MarkIf::Above,
        }
    }
}

fn default_buffer() -> BytesVal {
    BytesVal(1_000_000)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchCfg {
    /// Per-port output buffer.
    #[serde(default = "default_buffer")]
    pub buffer: BytesVal,
    #[serde(default)]
    pub ecn: EcnCfg,
    /// ACKs wait in a strict-priority queue of their own, ahead of data.
    #[serde(default = "default_true")]
    pub ack_priority: bool,
    /// How a port serves its data: one FIFO, or two classes (sprayed, ECMP) under DRR.
    #[serde(default)]
    pub scheduler: Scheduler,
    #[serde(default)]
    pub drr: DrrCfg,
    /// `scheduler = "priority"`: the physical priority queues (`net/prio.rs`).
    #[serde(default)]
    pub priority: PriorityQueuesCfg,
    #[serde(default)]
    pub ar: ArCfg,
    /// A data packet that does not fit the buffer is cut to its header, which goes on in
    /// the priority queue (spec `smartt-nscc.md` §2.16); the receiver NACKs it.
    #[serde(default)]
    pub trimming: bool,
    /// Priority flow control; absent: off (`net/pfc.rs`).
    #[serde(default)]
    pub pfc: Option<PfcCfg>,
}

/// A PFC priority class (`net::pfc`): the data queue or the priority queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PfcClass {
    Data,
    Control,
}

/// `[switch.pfc]`: per-class ingress accounting with PAUSE above `xoff` and RESUME at
/// `xon` (spec `smartt-nscc.md` §3.3). Thresholds left out are derived per ingress link.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcCfg {
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Classes that are paused instead of dropped.
    #[serde(default = "default_lossless")]
    pub lossless: Vec<PfcClass>,
    /// Bytes past `xoff` an ingress link may still deliver; default: what arrives while a
    /// PAUSE travels back and the upstream finishes its packet.
    #[serde(default)]
    pub headroom: Option<BytesVal>,
    /// Default: `switch.buffer` − headroom (the spec's XOFF = queue − headroom).
    #[serde(default)]
    pub xoff: Option<BytesVal>,
    /// Default: xoff − 2 MTU (the spec's choice).
    #[serde(default)]
    pub xon: Option<BytesVal>,
    /// Pause each physical priority queue on its own (802.1Qbb's per-priority PAUSE;
    /// needs `scheduler = "priority"`): each level of an ingress link is counted against
    /// `xoff` and paused alone. Off: every level shares one data class.
    #[serde(default)]
    pub per_priority: bool,
    /// Pause by dynamic threshold over one buffer per switch that its lossless ingress
    /// queues share (`net/pfc.rs`, spec `prioplus.md` §3), instead of a fixed `xoff` /
    /// `xon` per link. `headroom` keeps its meaning (per queue).
    #[serde(default)]
    pub dynamic: Option<PfcDynamicCfg>,
}

/// `[switch.pfc.dynamic]`: the dynamic-threshold shared buffer. Defaults are the PrioPlus
/// artefact's switches (spec `prioplus.md` §3): α = 1/4, 4 KiB reserved per queue, resume
/// 3 KiB below the threshold, headroom carved from the buffer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcDynamicCfg {
    /// Buffer of each switch, shared by all its ingress queues (e.g. 4.4 MB per Tbps of
    /// switching capacity: 2.64 MB for 6 × 100 Gb/s). Give this or `buffer_per_port`.
    #[serde(default)]
    pub buffer: Option<BytesVal>,
    /// Buffer of each switch as so much per port it has (the PrioPlus artefact's "1 MB per
    /// port"): a switch of 9 ports shares 9 × this.
    #[serde(default)]
    pub buffer_per_port: Option<BytesVal>,
    /// α = 2^−alpha_shift: a queue may hold α × the free pool.
    #[serde(default = "default_alpha_shift")]
    pub alpha_shift: u32,
    /// Per ingress queue (link, lossless class), held apart from the pool.
    #[serde(default = "default_dt_reserve")]
    pub reserve: BytesVal,
    /// A paused queue resumes once its pool share is this far below the threshold.
    #[serde(default = "default_dt_resume_offset")]
    pub resume_offset: BytesVal,
    /// Every queue's PFC headroom is set aside from the buffer (a real switch); false: the
    /// headroom costs no buffer (the paper's ideal "Physical*" switch).
    #[serde(default = "default_true")]
    pub carve_headroom: bool,
}

fn default_alpha_shift() -> u32 {
    2
}
fn default_dt_reserve() -> BytesVal {
    BytesVal(4096)
}
fn default_dt_resume_offset() -> BytesVal {
    BytesVal(3072)
}

fn default_lossless() -> Vec<PfcClass> {
    vec![PfcClass::Data]
}

impl Default for SwitchCfg {
    fn default() -> Self {
        SwitchCfg {
            buffer: default_buffer(),
            ecn: EcnCfg::default(),
            ack_priority: true,
            scheduler: Scheduler::Fifo,
            drr: DrrCfg::default(),
            priority: PriorityQueuesCfg::default(),
            ar: ArCfg::default(),
            trimming: false,
            pfc: None,
        }
    }
}


#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    #[default]
    Fifo,
    /// Deficit round robin between sprayed flows (class 0) and ECMP flows (class 1), each
    /// with its own FIFO and a weighted share of the buffer (the MSwift paper, Fig. 13).
    Drr,
    /// Physical priority queues by the packets' priority level, one shared buffer
    /// (`[switch.priority]`; spec `prioplus.md` §3, "Physical + Swift").
    Priority,
}

/// How many physical priority queues a port has: a number, or `"ideal"` (as many as the
/// scenario has priority levels, the paper's "Physical*").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueCount {
    Fixed(u32),
    Ideal,
}

impl Serialize for QueueCount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueCount::Fixed(n) => s.serialize_u32(*n),
            QueueCount::Ideal => s.serialize_str("ideal"),
        }
    }
}

impl<'de> Deserialize<'de> for QueueCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "allowed: a number of queues from 1 to 64, or \"ideal\"";
        match NumberOrWord::read(d, ALLOWED)? {
            NumberOrWord::Word(s) if s == "ideal" => Ok(QueueCount::Ideal),
            NumberOrWord::Number(n) if (1..=64).contains(&n) => Ok(QueueCount::Fixed(n as u32)),
            NumberOrWord::Number(n) => Err(de::Error::custom(format!("{n}: {ALLOWED}"))),
            NumberOrWord::Word(s) => Err(de::Error::custom(format!("{s:?}: {ALLOWED}"))),
        }
    }
}

/// How the priority queues share the link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriorityService {
    /// The highest non-empty queue sends.
    #[default]
    Strict,
    /// Deficit round robin, `drr.quantum` × the queue's weight per turn.
    Drr,
}

/// `[switch.priority]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PriorityQueuesCfg {
    pub queues: QueueCount,
    pub service: PriorityService,
    /// `service = "drr"`: one weight per queue, lowest level first (default: all 1).
    pub weights: Option<Vec<u32>>,
}

impl Default for PriorityQueuesCfg {
    fn default() -> Self {
        PriorityQueuesCfg { queues: QueueCount::Fixed(8), service: PriorityService::Strict, weights: None }
    }
}

/// A workload's priority (spec `prioplus.md` §2.1, §4.4 L1): one level for every flow, or
/// a level by flow size, smaller flows higher. Levels are 1..=64, larger = more important.
#[derive(Clone, Debug, PartialEq)]
pub enum PrioritySpec {
    Level(u8),
    /// Ascending size edges e1 < ... < ek: k + 1 levels; a flow smaller than e1 gets
    /// level k + 1, one of at least ek (or infinite) level 1.
    Edges(Vec<u64>),
    /// `levels` equal-width size ranges over [0, max) (the artefact's grouping, spec
    /// §7 item 17); larger sizes fall in the last range.
    EqualWidth {
        levels: u8,
        max: u64,
    },
}

impl PrioritySpec {
    /// The level of a flow of `size` payload bytes (`u64::MAX`: infinite).
    pub fn level(&self, size: u64) -> u8 {
        match self {
            PrioritySpec::Level(l) => *l,
            PrioritySpec::Edges(e) => (e.len() + 1 - e.iter().filter(|&&x| size >= x).count()) as u8,
            PrioritySpec::EqualWidth { levels, max } => {
                let n = *levels as u64;
                let bucket = if size >= *max { n - 1 } else { (size as u128 * n as u128 / *max as u128) as u64 };
                (n - bucket) as u8
            }
        }
    }
}

impl PrioritySpec {
    /// Each level's size range `[lo, hi)` (`hi = u64::MAX`: unbounded), highest level
    /// first, such that `level(s)` is that level exactly for `lo <= s < hi`; `None` for a
    /// single fixed level.
    pub fn level_ranges(&self) -> Option<Vec<(u8, u64, u64)>> {
        match self {
            PrioritySpec::Level(_) => None,
            PrioritySpec::Edges(e) => {
                let k = e.len();
                let mut out = Vec::with_capacity(k + 1);
                for j in 0..=k {
                    let lo = if j == 0 { 0 } else { e[j - 1] };
                    let hi = if j == k { u64::MAX } else { e[j] };
                    out.push(((k + 1 - j) as u8, lo, hi));
                }
                Some(out)
            }
            PrioritySpec::EqualWidth { levels, max } => {
                let n = *levels as u128;
                // Bucket b holds the sizes with ⌊size·n/max⌋ = b: from ⌈b·max/n⌉.
                let edge = |b: u128| (b * *max as u128).div_ceil(n) as u64;
                Some(
                    (0..n)
                        .map(|b| {
                            let hi = if b + 1 == n { u64::MAX } else { edge(b + 1) };
                            ((n - b) as u8, edge(b), hi)
                        })
                        .collect(),
                )
            }
        }
    }
}

impl Serialize for PrioritySpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            PrioritySpec::Level(l) => s.serialize_u8(*l),
            PrioritySpec::Edges(e) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("edges", e)?;
                m.end()
            }
            PrioritySpec::EqualWidth { levels, max } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("levels", levels)?;
                m.serialize_entry("max", max)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for PrioritySpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const ALLOWED: &str = "allowed: a level from 1 to 64 (larger = higher), { edges = [\"300KB\", \"6MB\"] } (ascending sizes; smaller flows higher), or { levels = 8, max = \"30MB\" } (equal-width size ranges)";
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            edges: Option<Vec<BytesVal>>,
            levels: Option<i64>,
            max: Option<BytesVal>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            T(Table),
        }
        let bad = |what: String| de::Error::custom(format!("{what}; {ALLOWED}"));
        match Raw::deserialize(d).map_err(|_| de::Error::custom(ALLOWED))? {
            Raw::N(n) if (1..=64).contains(&n) => Ok(PrioritySpec::Level(n as u8)),
            Raw::N(n) => Err(bad(format!("level {n}"))),
            Raw::T(Table { edges: Some(e), levels: None, max: None }) => {
                let e: Vec<u64> = e.into_iter().map(|b| b.0).collect();
                if e.is_empty() || e.len() > 63 || e.windows(2).any(|w| w[0] >= w[1]) || e[0] == 0 {
                    return Err(bad("edges must be 1 to 63 positive, strictly ascending sizes".into()));
                }
                Ok(PrioritySpec::Edges(e))
            }
            Raw::T(Table { edges: None, levels: Some(l), max: Some(m) }) => {
                if !(1..=64).contains(&l) || m.0 == 0 {
                    return Err(bad(format!("levels = {l}, max = {}: levels 1..=64 and max > 0", m.0)));
                }
                Ok(PrioritySpec::EqualWidth { levels: l as u8, max: m.0 })
            }
            Raw::T(_) => Err(bad("give either `edges`, or both `levels` and `max`".into())),
        }
    }
}

/// Two-class DRR settings (MSwift paper: 50/50, 4 KB quantum).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DrrCfg {
    /// Bytes a class may send per turn, times its weight.
    pub quantum: BytesVal,
    /// Weights of class 0 (sprayed) and class 1 (ECMP); also split the buffer.
    pub weights: [u32; 2],
}

impl Default for DrrCfg {
    fn default() -> Self {
        DrrCfg { quantum: BytesVal(4096), weights: [1, 1] }
    }
}

pub use crate::lb::{LetflowParams, PlbParams, RepsParams};

/// Switch adaptive routing (the MSwift paper's AR: "the next-hop port with the shortest
/// quantized queue").
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArCfg {
    /// Queue-level boundaries as fractions of the port buffer: below the first is level
    /// 0, and so on (htsim's quantisation: 5 %, 10 %, 20 %).
    pub levels: Vec<f64>,
    /// A port's level is re-read at most this often (htsim: 100 ns).
    pub refresh: TimeVal,
    /// Smaller packets (ACKs) are hashed like ECMP.
    pub min_size: BytesVal,
}

impl Default for ArCfg {
    fn default() -> Self {
        ArCfg { levels: vec![0.05, 0.10, 0.20], refresh: TimeVal(Time::from_ns(100)), min_size: BytesVal(100) }
    }
}

fn default_header() -> BytesVal {
    BytesVal(64)
}
fn default_iw() -> InitialWindow {
    InitialWindow::Packets(10)
}
fn default_dupack() -> u32 {
    3
}
fn default_rto_min() -> TimeVal {
    TimeVal(Time::from_ms(1))
}
fn default_rto_max() -> TimeVal {
    TimeVal(Time::from_ms(1000))
}
fn default_delack() -> TimeVal {
    TimeVal(Time::from_us(10))
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportCfg {
    #[serde(default = "default_cc")]
    pub cc: CcName,
    #[serde(default = "default_lb")]
    pub lb: LbName,
    #[serde(default = "default_iw")]
    pub initial_window: InitialWindow,
    /// Header bytes of every packet; an ACK is a bare header.
    #[serde(default = "default_header")]
    pub header: BytesVal,
    /// Data packets per ACK (1 = per-packet ACKs).
    #[serde(default = "default_one")]
    pub ack_ratio: u32,
    /// When the receiver acknowledges at once: `"tcp"` (RFC 5681) or `"uec"` (uet-htsim).
    #[serde(default)]
    pub ack_policy: crate::transport::AckPolicy,
    #[serde(default = "default_delack")]
    pub delayed_ack_timeout: TimeVal,
    #[serde(default = "default_dupack")]
    pub dupack_threshold: u32,
    #[serde(default = "default_rto_min")]
    pub rto_min: TimeVal,
    #[serde(default = "default_rto_max")]
    pub rto_max: TimeVal,
    #[serde(default)]
    pub newreno: NewRenoParams,
    #[serde(default)]
    pub dctcp: DctcpParams,
    #[serde(default)]
    pub reps: RepsParams,
    /// PLB (`[transport.plb]`).
    #[serde(default)]
    pub plb: PlbParams,
    /// LetFlow (`[transport.letflow]`).
    #[serde(default)]
    pub letflow: LetflowParams,
    /// Which paths the flow-level load balancers (`ecmp`, `letflow`, `plb`) choose from
    /// on fabrics with candidate path sets (dragonfly, rail).
    #[serde(default)]
    pub lb_paths: LbPaths,
    /// CONGA (`[transport.conga]`; spec laps.md §3.4).
    #[serde(default)]
    pub conga: crate::conga::CongaParams,
    /// ConWeave (`[transport.conweave]`; spec laps.md §3.5).
    #[serde(default)]
    pub conweave: crate::conweave::ConweaveParams,
    /// LAPS (`[transport.laps]`; spec laps.md §2.12).
    #[serde(default)]
    pub laps: crate::laps::LapsParams,
    #[serde(default)]
    pub swift: SwiftParams,
    /// NSCC and MNSCC (`[transport.nscc]`).
    #[serde(default)]
    pub nscc: NsccParams,
    /// Delay noise added to the algorithms' delay samples (`[transport.delay_noise]`).
    #[serde(default)]
    pub delay_noise: Option<crate::noise::DelayNoiseCfg>,
    /// D2TCP (`[transport.d2tcp]`).
    #[serde(default)]
    pub d2tcp: crate::cc::dctcp::D2tcpParams,
    /// MPRDMA (`[transport.mprdma]`).
    #[serde(default)]
    pub mprdma: MprdmaParams,
    /// DCQCN (`[transport.dcqcn]`).
    #[serde(default)]
    pub dcqcn: DcqcnParams,
    /// LEDBAT (`[transport.ledbat]`; also PrioPlus's when `prioplus.underlying = "ledbat"`).
    #[serde(default)]
    pub ledbat: LedbatParams,
    /// HPCC (`[transport.hpcc]`).
    #[serde(default)]
    pub hpcc: crate::cc::hpcc::HpccParams,
    /// How lost packets are recovered: selective (`"sack"`) or RoCE's go-back-N.
    #[serde(default)]
    pub loss_recovery: LossRecovery,
    /// PrioPlus's own parameters; the Swift it wraps reads `swift` (spec prioplus.md §2.5).
    #[serde(default)]
    pub prioplus: PrioPlusParams,
    #[serde(default = "default_loss_rule")]
    pub loss_rule: LossRule,
    /// Pace every flow at one window per smoothed RTT (otherwise only algorithms that ask
    /// for it pace, e.g. Swift below one packet of window).
    #[serde(default)]
    pub pacing: bool,
    /// A cap on every flow's bytes in flight on top of its algorithm's window: `"off"`,
    /// `"bdp"` (the flow's own path, bottleneck rate × unloaded RTT: IRN's BDP-FC, Mittal
    /// et al., SIGCOMM 2018, §3.1) or a size.
    #[serde(default)]
    pub inflight_cap: WindowCap,
    /// EQDS's receiver-driven credit under any sender algorithm (a packet leaves only when
    /// both the window and a credit allow it; spec smartt-nscc.md §2.19). `cc = "eqds"`
    /// has it always.
    #[serde(default)]
    pub receiver_credit: bool,
    /// Every data packet carries ECT whatever the algorithm, so RED queues mark instead of
    /// dropping (htsim's queues mark every packet; the SMaRTT paper's setup).
    #[serde(default)]
    pub ect_always: bool,
    /// `[transport.eqds]`: the pull pacer.
    #[serde(default)]
    pub eqds: crate::eqds::EqdsParams,
}

fn default_loss_rule() -> LossRule {
    LossRule::Count
}

fn default_cc() -> CcName {
    CcName::Dctcp
}
fn default_lb() -> LbName {
    LbName::Ecmp
}

impl Default for TransportCfg {
    fn default() -> Self {
        toml::from_str("").expect("transport defaults")
    }
}

impl TransportCfg {
    /// Builds the congestion control a flow runs, from the scenario's parameters.
    pub fn congestion_control(&self, name: CcName, info: &FlowInfo) -> Box<dyn CongestionControl> {
        use crate::cc::{dcqcn, dctcp, hpcc, laps, ledbat, mprdma, newreno, nscc, prioplus, swift, uncontrolled};
        let t = self;
        match name {
            CcName::Newreno => Box::new(newreno::NewReno::new(&t.newreno, info.mtu, info.initial_window)),
            CcName::Dctcp => match t.dctcp.variant {
                dctcp::DctcpVariant::Window => Box::new(dctcp::Dctcp::new(&t.dctcp, info.mtu, info.initial_window)),
                dctcp::DctcpVariant::Rate => Box::new(dctcp::DctcpRate::new(&t.dctcp.rate, info)),
            },
            CcName::D2tcp => Box::new(dctcp::Dctcp::d2tcp(&t.d2tcp, info, info.size)),
            CcName::Swift => Box::new(swift::Swift::new(&t.swift, swift::Variant::Swift, info)),
            CcName::Lswift => Box::new(swift::Swift::new(&t.swift, swift::Variant::LSwift, info)),
            CcName::Mswift => Box::new(swift::Swift::new(&t.swift, swift::Variant::MSwift, info)),
            CcName::Nscc => Box::new(nscc::Nscc::new(&t.nscc, false, info)),
            CcName::Mnscc => Box::new(nscc::Nscc::new(&t.nscc, true, info)),
            CcName::None | CcName::Eqds => Box::new(uncontrolled::Uncontrolled),
            CcName::Dcqcn => Box::new(dcqcn::Dcqcn::new(&t.dcqcn, info)),
            CcName::Mprdma => Box::new(mprdma::Mprdma::new(&t.mprdma, info)),
            CcName::Prioplus => Box::new(prioplus::PrioPlus::with_params(&t.prioplus, &t.swift, &t.ledbat, info)),
            CcName::Ledbat => Box::new(ledbat::Ledbat::new(&t.ledbat, info)),
            CcName::Laps => Box::new(laps::Laps::new(&t.laps, info)),
            CcName::Hpcc => Box::new(hpcc::Hpcc::new(&t.hpcc, info)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    Permutation,
    Incast,
    AllToAll,
    Flows,
    HtsimCm,
    /// One step of the HSDP ring of the MSwift paper (§IV): `servers` × `gpus_per_server`
    /// GPUs, servers placed at random on blocks of consecutive hosts, GPU i sends to
    /// GPU i + gpus_per_server (its peer on the next server).
    HsdpRing,
    /// The DCTCP-vs-Swift study's traffic (spec `dctcp-vs-swift.md` §3.2): `flows`
    /// sender-receiver pairs drawn by `mode`.
    TrafficMode,
    /// Open-loop traffic at a target load: every host starts flows as a Poisson process
    /// whose rate makes its offered load `load` × its link rate, sizes drawn from the flow
    /// size CDF in `cdf`, destinations uniform over the other hosts (spec prioplus.md §4;
    /// the pFabric/HPCC traffic generators' convention).
    Poisson,
    /// Data-parallel training (spec prioplus.md §4.4 L3): iterations of `compute` time
    /// followed by a ring all-reduce over `hosts` (in ring order), each worker sending
    /// 2(n − 1)/n × the gradient (`size`) to its successor; the next iteration's compute
    /// starts when every worker's transfer is delivered.
    Training,
    /// MapReduce shuffles (spec prioplus.md §4.4 L2): coflows arrive as a Poisson process
    /// at a target load; each has a total size S, M mappers and R reducers (drawn from an
    /// FB2010-like distribution unless given) and is M·R flows of S/(M·R) bytes, one group
    /// per coflow, its priority chosen by S (`workload::coflow_arrivals`).
    Coflow,
}

/// How `kind = "traffic_mode"` draws its pairs (the study's `mode` 0, 1, 2; spec
/// `dctcp-vs-swift.md` §3.2, digest §6.1). Hosts may carry several flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrafficMode {
    /// Mode 0: the last host receives; flow i comes from host i mod N, skipped when that
    /// is the receiver (so F − ⌊F/N⌋ flows).
    FixedHotspot,
    /// Mode 1: one receiver drawn uniformly; each of F senders uniformly (with
    /// replacement) among the other hosts.
    RandomHotspot,
    /// Mode 2: each of F flows draws a receiver uniformly, then a sender uniformly among
    /// the other hosts.
    RandomPairs,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadCfg {
    pub kind: WorkloadKind,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub size: Option<FlowSize>,
    #[serde(default)]
    pub start: Option<TimeVal>,
    #[serde(default)]
    pub stop: Option<TimeVal>,
    #[serde(default)]
    pub hosts: Option<HostSet>,
    #[serde(default)]
    pub senders: Option<u32>,
    #[serde(default)]
    pub receiver: Option<u32>,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub servers: Option<u32>,
    #[serde(default)]
    pub gpus_per_server: Option<u32>,
    /// `traffic_mode`: how pairs are drawn, and how many flows are requested.
    #[serde(default)]
    pub mode: Option<TrafficMode>,
    #[serde(default)]
    pub flows: Option<u32>,
    /// An application per flow that decides what it may send (`app.rs`).
    #[serde(default)]
    pub app: Option<AppCfg>,
    /// `poisson`: the flow-size CDF file (lines "bytes cumulative-probability") and the
    /// offered load per host as a fraction of its link rate.
    #[serde(default)]
    pub cdf: Option<String>,
    #[serde(default)]
    pub load: Option<f64>,
    /// Priority level of the flows: fixed, or by flow size (see `PrioritySpec`).
    #[serde(default)]
    pub priority: Option<PrioritySpec>,
    /// Permutation: every flow leaves its source's pod (crosses the core of a 3-tier fat
    /// tree; the SMaRTT spec §4's permutations).
    #[serde(default)]
    pub cross_pod: Option<bool>,
    /// All-to-all: at most this many of a sender's flows are active at once; the next
    /// (in ring order: host i sends to i+1, i+2, …) starts when one is delivered.
    #[serde(default)]
    pub window: Option<u32>,
    /// Training: compute time of one iteration, and how many iterations.
    #[serde(default)]
    pub compute: Option<TimeVal>,
    #[serde(default)]
    pub iterations: Option<u32>,
    /// Coflow: fixed mapper and reducer counts (default: drawn per coflow from the
    /// FB2010-like distribution, `workload::Fb2010Like`).
    #[serde(default)]
    pub mappers: Option<u32>,
    #[serde(default)]
    pub reducers: Option<u32>,
    /// Coflow: drawn mapper/reducer counts are trimmed so that no flow carries less.
    #[serde(default)]
    pub min_flow: Option<BytesVal>,
    /// Coflow: one Poisson process per priority level, each at load / levels, sizes drawn
    /// from the CDF restricted to the level's range (the artefact's split, spec §4.4 L2);
    /// default false: one process, sizes from the whole CDF.
    #[serde(default)]
    pub equal_load_per_level: Option<bool>,
    /// Coflow: stop after this many coflows (or at `stop`, whichever comes first).
    #[serde(default)]
    pub coflows: Option<u32>,
    #[serde(default)]
    pub cc: Option<CcName>,
    #[serde(default)]
    pub lb: Option<LbName>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueSampling {
    None,
    Switch,
    All,
}

impl QueueSampling {
    fn as_str(self) -> &'static str {
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

fn select_all() -> Selection {
    Selection::named("all")
}
fn select_switch_ports() -> Selection {
    Selection::named("switch")
}
fn select_nothing() -> Selection {
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

fn default_max_events() -> u64 {
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

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
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

/// Faults injected into a run (`[faults]`; issue 10 item 3).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultsCfg {
    /// Data packets whose first transmission is lost on the sender's link:
    /// `drop = [{ flow = 0, psn = 100 }]` (flow ids in workload order, PSNs from 0).
    #[serde(default)]
    pub drop: Vec<PacketId>,
    /// Links that fail and recover, lose packets or slow down for a while (`[[faults.link]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link: Vec<LinkFaultCfg>,
    /// Switches that fail (every link of theirs at once) and recover (`[[faults.switch]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub switch: Vec<SwitchFaultCfg>,
    /// How long after a link goes down or comes back up routing reacts: until then the
    /// equal-cost tables still send packets into a dead link (they are lost), or leave a
    /// recovered one unused. Source-routed path sets (LAPS, CONGA) are fixed at set-up
    /// and never change (spec laps.md §4.1).
    #[serde(default = "default_detection_delay")]
    pub detection_delay: TimeVal,
    /// A flow that times out this many times in a row without an ACK or NACK in between
    /// is given up and reported as failed (`failed` in the flow table), so a flow cut off
    /// for good cannot keep a run going (Linux gives up after 15: `tcp_retries2`). 0: never.
    #[serde(default = "default_give_up_after")]
    pub give_up_after: u32,
}

impl Default for FaultsCfg {
    fn default() -> Self {
        FaultsCfg {
            drop: Vec::new(),
            link: Vec::new(),
            switch: Vec::new(),
            detection_delay: default_detection_delay(),
            give_up_after: default_give_up_after(),
        }
    }
}

fn default_detection_delay() -> TimeVal {
    TimeVal(Time::from_us(100))
}
fn default_give_up_after() -> u32 {
    15
}

/// One link's fault (`[[faults.link]]`): from `at` until `until` (for good without it) the
/// cable between the two nodes is down, or, with `rate` or `loss_rate`, runs at that rate
/// or loses each packet with that probability in both directions. `repeat` and `every`
/// make it flap: the window recurs `repeat` times, `every` apart.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFaultCfg {
    /// The cable's two ends, as `"h<i>"` (host i) or `"s<j>"` (switch j), e.g. `["s0", "s4"]`.
    pub between: [String; 2],
    pub at: TimeVal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<TimeVal>,
    /// A degraded link: this rate instead of down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateVal>,
    /// A loss burst: this per-packet loss probability instead of down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_rate: Option<f64>,
    #[serde(default = "one_u32")]
    pub repeat: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<TimeVal>,
}

/// One switch failing (`[[faults.switch]]`): every cable of `switch` is down from `at` until
/// `until` (for good without it).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchFaultCfg {
    /// `"s<j>"`: switch j.
    pub switch: String,
    pub at: TimeVal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<TimeVal>,
}

fn one_u32() -> u32 {
    1
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
mod tests {
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
}
