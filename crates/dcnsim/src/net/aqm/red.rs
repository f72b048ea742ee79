//! RED and step ECN marking, as DCTCP uses them (DCTCP paper §3.1; `docs/models/ecn.md`):
//! a step marker when `kmin == kmax`, otherwise RED's linear ramp from `kmin` to `kmax`
//! with peak probability `pmax`, at enqueue or at dequeue. The occupancy compared is the
//! bytes waiting in the packet's queue, not counting the packet being serialised.

use serde::{Deserialize, Serialize};

use super::{Aqm, MarkDecision, MarkIf, MarkPoint};
use crate::units::values::BytesVal;
use crate::units::Time;

/// `[switch.aqm] kind = "red"` (the same fields and defaults as `[switch.ecn]`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedParams {
    /// Bytes at which the ramp starts (100 KB: dcnsim's default step threshold).
    pub kmin: BytesVal,
    /// Bytes above which every packet is marked (100 KB).
    pub kmax: BytesVal,
    /// Marking probability at `kmax` (1: the ramp of htsim and of DCTCP's step marker).
    pub pmax: f64,
    /// Where to mark (at enqueue, as DCTCP's switches do).
    pub on: MarkPoint,
    /// `">"` (DCTCP paper) or `">="` (ns-3 RED with MinTh == MaxTh).
    pub mark_if: MarkIf,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            kmin: BytesVal(100_000),
            kmax: BytesVal(100_000),
            pmax: 1.0,
            on: MarkPoint::Enqueue,
            mark_if: MarkIf::Above,
        }
    }
}

impl RedParams {
    /// `field` names the table in messages (e.g. `switch.aqm`).
    pub fn validate(&self, field: &str) -> Result<(), crate::error::ScenarioError> {
        if self.kmin.0 > self.kmax.0 {
            return crate::error::err(
                &format!("{field}.kmin"),
                format!("{} is above kmax ({})", self.kmin.0, self.kmax.0),
            );
        }
        if !(self.pmax > 0.0 && self.pmax <= 1.0) {
            return crate::error::err(&format!("{field}.pmax"), format!("{}: allowed 0 < pmax <= 1", self.pmax));
        }
        Ok(())
    }
}

/// A port's RED marker, in bytes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Red {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
    pub at: MarkPoint,
    pub mark_if: MarkIf,
}

impl Red {
    pub fn new(p: &RedParams) -> Red {
        Red { kmin: p.kmin.0, kmax: p.kmax.0, pmax: p.pmax, at: p.on, mark_if: p.mark_if }
    }

    /// The verdict at `queued` bytes.
    #[inline]
    pub fn decide_at(&self, queued: u64) -> MarkDecision {
        let over_max = match self.mark_if {
            MarkIf::Above => queued > self.kmax,
            MarkIf::AtOrAbove => queued >= self.kmax,
        };
        if over_max {
            return MarkDecision::Yes;
        }
        if self.kmin >= self.kmax || queued <= self.kmin {
            return MarkDecision::No;
        }
        MarkDecision::Ramp(self.pmax * (queued - self.kmin) as f64 / (self.kmax - self.kmin) as f64)
    }
}

impl Aqm for Red {
    #[inline]
    fn point(&self) -> MarkPoint {
        self.at
    }
    #[inline]
    fn decide(&mut self, queued: u64, _sojourn: Time, _now: Time) -> MarkDecision {
        self.decide_at(queued)
    }
}
