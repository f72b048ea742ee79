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
