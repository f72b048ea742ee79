//! `[faults]`: scheduled link and switch failures, and when a flow gives up.
//! `docs/models/faults.md`.

use super::*;

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
    /// and never change (`docs/models/faults.md`).
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

pub(super) fn default_detection_delay() -> TimeVal {
    TimeVal(Time::from_us(100))
}
pub(super) fn default_give_up_after() -> u32 {
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

pub(super) fn one_u32() -> u32 {
    1
}
