//! `[[workload]]`: what traffic a scenario offers (the generators live in `crate::workload`).

use super::*;

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

pub(super) fn remaining<S: Serializer>(s: S) -> Result<S::Ok, S::Error> {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    Permutation,
    Incast,
    AllToAll,
    Flows,
    HtsimCm,
    /// The HPCC simulator's `flow.txt` (docs/formats.md, "HPCC flow files").
    HpccFlows,
    /// One step of the HSDP ring of the MSwift paper (§IV): `servers` × `gpus_per_server`
    /// GPUs, servers placed at random on blocks of consecutive hosts, GPU i sends to
    /// GPU i + gpus_per_server (its peer on the next server).
    HsdpRing,
    /// The DCTCP-vs-Swift study's traffic (`docs/reproductions/dctcp-vs-swift-paper.md`, "Common
    /// setup"): `flows` sender-receiver pairs drawn by `mode`.
    TrafficMode,
    /// Open-loop traffic at a target load: every host starts flows as a Poisson process
    /// whose rate makes its offered load `load` × its link rate, sizes drawn from the flow
    /// size CDF in `cdf`, destinations uniform over the other hosts
    /// (`docs/reproductions/prioplus-paper.md`, F11; the pFabric/HPCC traffic generators'
    /// convention).
    Poisson,
    /// Data-parallel training (the PrioPlus paper's Fig. 12c;
    /// `docs/reproductions/prioplus-paper.md`, F12C): iterations of `compute` time followed by a
    /// ring all-reduce over `hosts` (in ring order), each worker sending 2(n − 1)/n × the
    /// gradient (`size`) to its successor; the next iteration's compute starts when every
    /// worker's transfer is delivered.
    Training,
    /// MapReduce shuffles (the PrioPlus paper's Fig. 12a/b;
    /// `docs/reproductions/prioplus-paper.md`, F12AB): coflows arrive as a Poisson process at a
    /// target load; each has a total size S, M mappers and R reducers (drawn from an
    /// FB2010-like distribution unless given) and is M·R flows of S/(M·R) bytes, one group
    /// per coflow, its priority chosen by S (`workload::coflow_arrivals`).
    Coflow,
}

/// How `kind = "traffic_mode"` draws its pairs (the study's `mode` 0, 1, 2;
/// `docs/reproductions/dctcp-vs-swift-paper.md`, "Experiments"). Hosts may carry several flows.
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
    /// tree; the SMaRTT paper's permutations, `docs/reproductions/smartt-paper.md`).
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
    /// from the CDF restricted to the level's range (the PrioPlus artefact's split;
    /// `docs/reproductions/prioplus-paper.md`, F12AB); default false: one process, sizes from the
    /// whole CDF.
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
