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
        pub reps: RepsParams,
        /// PLB (`[transport.plb]`).
        #[serde(default)]
        pub plb: PlbParams,
        /// Which paths the flow-level load balancers (`ecmp`, `letflow`, `plb`) choose from
        /// on fabrics with candidate path sets (dragonfly, rail).
        #[serde(default)]
        pub lb_paths: LbPaths,
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
