//! `[transport]`: the congestion control and load balancer every flow runs, and their
//! parameter tables. `docs/models/transport.md` and one `docs/models/` file per algorithm.

use super::*;

pub(super) fn default_header() -> BytesVal {
    BytesVal(64)
}
pub(super) fn default_iw() -> InitialWindow {
    InitialWindow::Packets(10)
}
pub(super) fn default_dupack() -> u32 {
    3
}
pub(super) fn default_rto_min() -> TimeVal {
    TimeVal(Time::from_ms(1))
}
pub(super) fn default_rto_max() -> TimeVal {
    TimeVal(Time::from_ms(1000))
}
pub(super) fn default_delack() -> TimeVal {
    TimeVal(Time::from_us(10))
}

/// `[transport]`: the fields every scenario has, then one table per algorithm from the
/// congestion-control registry (`cc/mod.rs`), and the constructor of the algorithm a flow
/// runs.
macro_rules! transport_cfg {
    (
        tables { $( $(#[$tdoc:meta])* $key:ident : $ty:ty ),* $(,)? }
        algorithms { $( $(#[$doc:meta])* $variant:ident $name:literal |$t:ident, $info:ident| $make:expr ),* $(,)? }
        policies {
            $( $(#[$pdoc:meta])* $pvariant:ident $pname:literal $ptable:ident sprays($sprays:literal) $pparams:ty => $pstate:ty ),* $(,)?
        }
    ) => {
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
        /// Data packets per ACK (1 = per-packet ACKs). Unset: 16 KiB of payload under the
        /// UEC policy (uet-htsim's receiver), else 1 (`Scenario::ack_settings`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ack_ratio: Option<u32>,
        /// When the receiver acknowledges at once: `"tcp"` (RFC 5681) or `"uec"` (uet-htsim).
        /// Unset: `"uec"` where a flow runs NSCC in `nscc_htsim` mode, else `"tcp"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ack_policy: Option<crate::transport::AckPolicy>,
        #[serde(default = "default_delack")]
        pub delayed_ack_timeout: TimeVal,
        #[serde(default = "default_dupack")]
        pub dupack_threshold: u32,
        #[serde(default = "default_rto_min")]
        pub rto_min: TimeVal,
        #[serde(default = "default_rto_max")]
        pub rto_max: TimeVal,
        #[serde(default)]
        pub reps: RepsParams,
        /// PLB (`[transport.plb]`).
        #[serde(default)]
        pub plb: PlbParams,
        /// Which paths the flow-level load balancers (`ecmp`, `letflow`, `plb`) choose from
        /// on fabrics with candidate path sets (dragonfly, rail).
        #[serde(default)]
        pub lb_paths: LbPaths,
        /// The candidate paths of source-routed balancers on topologies without their own
        /// (`[transport.candidate_paths]`, `paths.rs`).
        #[serde(default)]
        pub candidate_paths: crate::paths::CandidatePathsCfg,
        /// CONGA (`[transport.conga]`; docs/models/conga.md).
        #[serde(default)]
        pub conga: crate::conga::CongaParams,
        /// ConWeave (`[transport.conweave]`; docs/models/conweave.md).
        #[serde(default)]
        pub conweave: crate::conweave::ConweaveParams,
        /// LAPS (`[transport.laps]`; docs/models/laps.md).
        #[serde(default)]
        pub laps: crate::laps::LapsParams,
        /// Delay noise added to the algorithms' delay samples (`[transport.delay_noise]`).
        #[serde(default)]
        pub delay_noise: Option<crate::noise::DelayNoiseCfg>,
        /// How lost packets are recovered: selective (`"sack"`) or RoCE's go-back-N.
        #[serde(default)]
        pub loss_recovery: LossRecovery,
        /// How a host NIC picks its next flow: `"round_robin"` or by priority level.
        #[serde(default)]
        pub nic_scheduler: crate::transport::NicScheduler,
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
        /// both the window and a credit allow it; docs/models/eqds.md). `cc = "eqds"`
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
        $( $(#[$tdoc])* #[serde(default)] pub $key: $ty, )*
        $( $(#[$pdoc])* #[serde(default)] pub $ptable: $pparams, )*
        }

        impl TransportCfg {
            /// Builds the congestion control a flow runs, from the scenario's parameters.
            pub fn congestion_control(&self, name: CcName, info: &FlowInfo) -> Box<dyn CongestionControl> {
                match name {
                    $( CcName::$variant => {
                        let $t = self;
                        let $info = info;
                        $make
                    } )*
                }
            }

            /// The state of the path policy a flow runs (`lb.rs`, `PathPolicy`); `None` for
            /// the built-in balancers.
            pub fn path_policy(&self, lb: LbName, _flow: u32, _entropy: u32) -> Option<crate::lb::AnyPathPolicy> {
                match lb {
                    $( LbName::$pvariant => Some(crate::lb::AnyPathPolicy::$pvariant(<$pstate>::new(&self.$ptable, _flow, _entropy))), )*
                    _ => None,
                }
            }

            /// Checks the path policies' tables.
            pub fn validate_path_policies(&self) -> Result<(), ScenarioError> {
                $( self.$ptable.validate(concat!("transport.", stringify!($ptable)))?; )*
                Ok(())
            }
        }
    };
}

/// Hands the congestion-control registry's lines on to the path-policy registry, whose
/// expansion calls `transport_cfg!` with both.
macro_rules! with_path_policies {
    ($($cc:tt)*) => {
        crate::lb::path_policies!(transport_cfg { $($cc)* });
    };
}
crate::cc::congestion_controls!(with_path_policies);

pub(super) fn default_loss_rule() -> LossRule {
    LossRule::Count
}

pub(super) fn default_cc() -> CcName {
    CcName::Dctcp
}
pub(super) fn default_lb() -> LbName {
    LbName::Ecmp
}

impl Default for TransportCfg {
    fn default() -> Self {
        toml::from_str("").expect("transport defaults")
    }
}

/// uet-htsim's receiver acknowledges every 16 KiB of data (`docs/models/transport.md`).
const UEC_ACK_BYTES: u64 = 16 * 1024;

impl Scenario {
    /// Some flow runs NSCC (or MNSCC) in `nscc_htsim` mode: the defaults that follow
    /// uet-htsim (its receiver, its trim victim) apply.
    pub fn runs_nscc_htsim(&self) -> bool {
        let nscc = |cc: CcName| matches!(cc, CcName::Nscc | CcName::Mnscc);
        self.transport.nscc.mode == crate::cc::nscc::NsccMode::NsccHtsim
            && (nscc(self.transport.cc) || self.workload.iter().any(|w| w.cc.is_some_and(nscc)))
    }

    /// Whether a full trimming queue may cut its tail instead of the arrival.
    pub fn trims_tail(&self) -> bool {
        match self.switch.trim_victim {
            TrimVictim::Arrival => false,
            TrimVictim::ArrivalOrTail => true,
            TrimVictim::Auto => self.runs_nscc_htsim(),
        }
    }

    /// The receiver's ACK policy and data packets per ACK: as given; unset, uet-htsim's
    /// receiver (the UEC policy, an ACK per 16 KiB of payload) wherever a flow runs NSCC in
    /// `nscc_htsim` mode, which is that mode's receiver, else RFC 5681's rules with an ACK
    /// per packet (`docs/models/transport.md`, ACK policies).
    pub fn ack_settings(&self) -> (crate::transport::AckPolicy, u32) {
        use crate::transport::AckPolicy;
        let t = &self.transport;
        let htsim_receiver = self.runs_nscc_htsim();
        let policy = t.ack_policy.unwrap_or(if htsim_receiver { AckPolicy::Uec } else { AckPolicy::Tcp });
        let payload = self.topology.mtu.0.saturating_sub(t.header.0).max(1);
        let ratio = t.ack_ratio.unwrap_or(match policy {
            AckPolicy::Uec => UEC_ACK_BYTES.div_ceil(payload).max(1) as u32,
            AckPolicy::Tcp => 1,
        });
        (policy, ratio)
    }
}
