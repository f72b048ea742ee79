//! `[switch]`: buffers, ECN marking, PFC (fixed thresholds or the dynamic-threshold
//! shared buffer), queue disciplines and adaptive routing. `docs/models/ecn.md`, `pfc.md`,
//! `priority-queues.md`, `adaptive-routing.md`.

use super::*;

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
    /// When set, `kmin` and `kmax` are the thresholds of a port of this rate, and every
    /// port marks at thresholds scaled by its own rate (the LAPS artefact's RED by port
    /// rate; `docs/models/ecn.md`). Absent: every port uses `kmin` and `kmax` as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_rate: Option<RateVal>,
}

pub(super) fn default_true() -> bool {
    true
}
pub(super) fn default_k() -> BytesVal {
    BytesVal(100_000)
}
pub(super) fn default_pmax() -> f64 {
    1.0
}
pub(super) fn default_mark_point() -> MarkPoint {
    MarkPoint::Enqueue
}
pub(super) fn default_mark_if() -> MarkIf {
    MarkIf::Above
}

impl EcnCfg {
    /// The RED marker this table describes (`net/aqm/red.rs`, whose `[switch.aqm]` form
    /// has the same fields and defaults).
    pub fn red(&self) -> crate::net::aqm::red::RedParams {
        crate::net::aqm::red::RedParams {
            kmin: self.kmin,
            kmax: self.kmax,
            pmax: self.pmax,
            on: self.on,
            mark_if: self.mark_if,
        }
    }

    /// The RED marker of a port of `rate`: `red()` with the thresholds scaled by
    /// `rate / reference_rate` when a reference rate is set (rounded down to whole bytes).
    pub fn red_at(&self, rate: crate::units::Rate) -> crate::net::aqm::red::RedParams {
        let Some(reference) = self.reference_rate else { return self.red() };
        let scale =
            |k: BytesVal| BytesVal((k.0 as u128 * rate.bps() as u128 / reference.0.bps().max(1) as u128) as u64);
        crate::net::aqm::red::RedParams {
            kmin: scale(self.kmin),
            kmax: scale(self.kmax),
            pmax: self.pmax,
            on: self.on,
            mark_if: self.mark_if,
        }
    }
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
            reference_rate: None,
        }
    }
}

pub(super) fn default_buffer() -> BytesVal {
    BytesVal(1_000_000)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchCfg {
    /// Per-port output buffer.
    #[serde(default = "default_buffer")]
    pub buffer: BytesVal,
    /// RED / step ECN marking (absent: on, with the defaults below).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<EcnCfg>,
    /// Another queue-management algorithm by name (`net/aqm/`), instead of `ecn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aqm: Option<AqmCfg>,
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
    /// the priority queue (SMaRTT paper §III-D; `docs/models/trimming.md`); the receiver
    /// NACKs it.
    #[serde(default)]
    pub trimming: bool,
    /// Which packet a full trimming queue cuts: `"arrival"` (the SMaRTT paper: the one
    /// that does not fit), `"arrival_or_tail"` (uet-htsim, after NDP: the arrival or the
    /// last packet queued, with equal odds) or `"auto"`: uet-htsim's choice where a flow
    /// runs NSCC in `nscc_htsim` mode, else the arrival (`docs/models/trimming.md`).
    #[serde(default)]
    pub trim_victim: TrimVictim,
    /// Priority flow control; absent: off (`net/pfc/mod.rs`).
    #[serde(default)]
    pub pfc: Option<PfcCfg>,
}

/// `switch.trim_victim`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrimVictim {
    #[default]
    Auto,
    Arrival,
    ArrivalOrTail,
}

/// A PFC priority class (`net::pfc`): the data queue or the priority queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PfcClass {
    Data,
    Control,
}

/// `[switch.pfc]`: per-class ingress accounting with PAUSE above `xoff` and RESUME at
/// `xon` (`docs/models/pfc.md`). Thresholds left out are derived per ingress link.
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
    /// Default: `switch.buffer` − headroom (`docs/models/pfc.md`).
    #[serde(default)]
    pub xoff: Option<BytesVal>,
    /// Default: xoff − 2 MTU (two packets of hysteresis; `docs/models/pfc.md`).
    #[serde(default)]
    pub xon: Option<BytesVal>,
    /// Pause each physical priority queue on its own (802.1Qbb's per-priority PAUSE;
    /// needs `scheduler = "priority"`): each level of an ingress link is counted against
    /// `xoff` and paused alone. Off: every level shares one data class.
    #[serde(default)]
    pub per_priority: bool,
    /// The deadlock remedy (`net/pfc/mod.rs`, docs/models/pfc.md): `"per_hop"` moves a data
    /// packet one lossless class (priority queue) up at every switch it reaches from
    /// another switch, so no cycle of pauses can close; `"per_global_hop"` does it only
    /// over a dragonfly's global links (the class change at the Valiant group); both need
    /// `per_priority`.
    #[serde(default)]
    pub class_change: crate::net::pfc::ClassChange,
    /// Pause by dynamic threshold over one buffer per switch that its lossless ingress
    /// queues share (`net/pfc/mod.rs`, `docs/models/pfc.md`), instead of a fixed `xoff` /
    /// `xon` per link. `headroom` keeps its meaning (per queue).
    #[serde(default)]
    pub dynamic: Option<PfcDynamicCfg>,
}

/// `[switch.pfc.dynamic]`: the dynamic-threshold shared buffer. Defaults are the PrioPlus
/// artefact's switches (`docs/models/pfc.md`): α = 1/4, 4 KiB reserved per queue, resume
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
    /// How a pause ends: `"offset_or_empty"` (a queue also resumes when its pool share is
    /// 0; the HPCC simulator's MMU) or `"offset_or_expiry"` (the PrioPlus artefact's: only
    /// `resume_offset` below the threshold, else the PAUSE's 65535 quanta run out unless
    /// renewed; `net/pfc/mod.rs`, docs/models/pfc.md).
    #[serde(default)]
    pub resume: crate::net::pfc::DynamicResume,
}

pub(super) fn default_alpha_shift() -> u32 {
    2
}
pub(super) fn default_dt_reserve() -> BytesVal {
    BytesVal(4096)
}
pub(super) fn default_dt_resume_offset() -> BytesVal {
    BytesVal(3072)
}

pub(super) fn default_lossless() -> Vec<PfcClass> {
    vec![PfcClass::Data]
}

impl Default for SwitchCfg {
    fn default() -> Self {
        SwitchCfg {
            buffer: default_buffer(),
            ecn: None,
            aqm: None,
            ack_priority: true,
            scheduler: Scheduler::Fifo,
            drr: DrrCfg::default(),
            priority: PriorityQueuesCfg::default(),
            ar: ArCfg::default(),
            trimming: false,
            trim_victim: TrimVictim::Auto,
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
    /// (`[switch.priority]`; the PrioPlus paper's "Physical + Swift";
    /// `docs/models/priority-queues.md`).
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

/// A workload's priority (PrioPlus paper §4 and §6.2;
/// `docs/reproductions/prioplus-paper.md`, F11): one level for every flow, or
/// a level by flow size, smaller flows higher. Levels are 1..=64, larger = more important.
#[derive(Clone, Debug, PartialEq)]
pub enum PrioritySpec {
    Level(u8),
    /// Ascending size edges e1 < ... < ek: k + 1 levels; a flow smaller than e1 gets
    /// level k + 1, one of at least ek (or infinite) level 1.
    Edges(Vec<u64>),
    /// `levels` equal-width size ranges over [0, max) (the PrioPlus artefact's grouping;
    /// `docs/reproductions/prioplus-paper.md`, "Decisions and errata"); larger sizes fall in the
    /// last range.
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

macro_rules! aqm_cfg {
    ($( $(#[$doc:meta])* $variant:ident $name:literal $params:ty => $state:ty ),* $(,)?) => {
        /// `[switch.aqm]`: the queue management of every switch port, chosen by `kind`, with
        /// that algorithm's parameters (the registry in `net/aqm/mod.rs`).
        #[derive(Clone, Debug, Serialize, Deserialize)]
        #[serde(tag = "kind")]
        pub enum AqmCfg {
            $( $(#[$doc])* #[serde(rename = $name)] $variant($params), )*
        }

        impl AqmCfg {
            /// A port's state for this algorithm.
            pub fn build(&self) -> AnyAqm {
                match self {
                    $( AqmCfg::$variant(p) => AnyAqm::$variant(<$state>::new(p)), )*
                }
            }

            /// Checks the parameters; `field` names the table in messages.
            pub fn validate(&self, field: &str) -> Result<(), ScenarioError> {
                match self {
                    $( AqmCfg::$variant(p) => p.validate(field), )*
                }
            }
        }
    };
}
crate::net::aqm::queue_managements!(aqm_cfg);

impl SwitchCfg {
    /// The AQM a switch port of `rate` runs: `[switch.aqm]`, else RED from
    /// `[switch.ecn]` (on by default; its thresholds scaled by the port's rate when
    /// `reference_rate` is set), else none.
    pub fn queue_management(&self, rate: crate::units::Rate) -> Option<AnyAqm> {
        if let Some(aqm) = &self.aqm {
            return Some(aqm.build());
        }
        let ecn = self.ecn.clone().unwrap_or_default();
        ecn.enabled.then(|| AnyAqm::Red(crate::net::aqm::red::Red::new(&ecn.red_at(rate))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    /// The LAPS artefact's RED by port rate (Kmin, Kmax in KB): 10G (40, 160), 25G
    /// (100, 400), 100G (400, 1600), 200G (800, 3200), 400G (1600, 6400). Given at 100G
    /// with `reference_rate`, each port's thresholds come out as that table's.
    #[test]
    fn thresholds_scale_with_the_port_rate() {
        let ecn = EcnCfg {
            kmin: BytesVal(400_000),
            kmax: BytesVal(1_600_000),
            reference_rate: Some(RateVal(Rate::gbps(100))),
            ..EcnCfg::default()
        };
        for (gbps, kmin, kmax) in [(10, 40, 160), (25, 100, 400), (100, 400, 1600), (200, 800, 3200), (400, 1600, 6400)]
        {
            let red = ecn.red_at(Rate::gbps(gbps));
            assert_eq!((red.kmin.0, red.kmax.0), (kmin * 1000, kmax * 1000), "{gbps} Gb/s");
        }
        let fixed = EcnCfg { reference_rate: None, ..ecn };
        assert_eq!(fixed.red_at(Rate::gbps(200)).kmin.0, 400_000, "without a reference every port keeps kmin");
    }
}
