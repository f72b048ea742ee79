//! Active queue management: what a switch port does to a data packet as it joins or
//! leaves a long queue — mark it (ECN CE), or drop it when it is not ECN-capable.
//! `docs/models/ecn.md`; `docs/architecture.md`, "Adding a queue-management algorithm".
//!
//! An algorithm is one module here implementing [`Aqm`] plus one line in the registry
//! (`queue_managements!`), which generates [`AnyAqm`] (enum dispatch on the hot path) and
//! the scenario's `[switch.aqm]` table (`scenario/switch.rs`: `kind = "<name>"` and the
//! module's `Params`). A port asks its AQM at one point of a packet's stay (`point`), with
//! the bytes waiting in the packet's queue and, for delay-based algorithms
//! (`wants_sojourn`), how long the packet has waited.

pub mod red;

use serde::{Deserialize, Serialize};

use crate::units::Time;

/// Where a port consults its AQM: as a packet joins its queue, or as it leaves it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkPoint {
    Enqueue,
    Dequeue,
}

/// Whether the step marker fires when the queue is strictly above the threshold (DCTCP
/// paper) or at-or-above it (ns-3 RED with MinTh == MaxTh).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarkIf {
    #[serde(rename = ">")]
    Above,
    #[serde(rename = ">=")]
    AtOrAbove,
}

/// An AQM's verdict. `Ramp(p)`: mark with probability `p`; the port draws the uniform
/// number, only then, so that a deterministic marker consumes no randomness.
pub enum MarkDecision {
    No,
    Yes,
    Ramp(f64),
}

/// A queue-management algorithm of one port.
pub trait Aqm {
    /// Where the port asks.
    fn point(&self) -> MarkPoint;
    /// The verdict for one data packet: `queued` bytes wait in its queue (not counting a
    /// packet being serialised; at dequeue, not counting this one); it has waited
    /// `sojourn` (zero unless `wants_sojourn`, and at enqueue).
    fn decide(&mut self, queued: u64, sojourn: Time, now: Time) -> MarkDecision;
    /// Whether the port must record when each packet joined its queue.
    fn wants_sojourn(&self) -> bool {
        false
    }
}

/// The registry: one line per algorithm, `Variant "name" Params => State`, where the
/// module's `Params` (Deserialize, with defaults) is its `[switch.aqm]` table and
/// `State::new(&Params)` the per-port state. The list is handed to a macro (`$then`) so
/// that `AnyAqm` here and the scenario's table read the same lines.
macro_rules! queue_managements {
    ($then:path) => {
        $then! {
            /// RED / step marking (also `[switch.ecn]`, its long-standing table).
            Red "red" crate::net::aqm::red::RedParams => crate::net::aqm::red::Red,
        }
    };
}
pub(crate) use queue_managements;

macro_rules! any_aqm {
    ($( $(#[$doc:meta])* $variant:ident $name:literal $params:ty => $state:ty ),* $(,)?) => {
        /// The AQM a port runs, as an enum so the hot path dispatches without a vtable.
        #[derive(Clone, Debug)]
        pub enum AnyAqm {
            $( $(#[$doc])* $variant($state), )*
        }

        impl AnyAqm {
            /// The algorithm's name in `[switch.aqm] kind`.
            pub fn name(&self) -> &'static str {
                match self {
                    $( AnyAqm::$variant(_) => $name, )*
                }
            }
        }

        impl Aqm for AnyAqm {
            #[inline]
            fn point(&self) -> MarkPoint {
                match self {
                    $( AnyAqm::$variant(a) => a.point(), )*
                }
            }
            #[inline]
            fn decide(&mut self, queued: u64, sojourn: Time, now: Time) -> MarkDecision {
                match self {
                    $( AnyAqm::$variant(a) => a.decide(queued, sojourn, now), )*
                }
            }
            #[inline]
            fn wants_sojourn(&self) -> bool {
                match self {
                    $( AnyAqm::$variant(a) => a.wants_sojourn(), )*
                }
            }
        }
    };
}
queue_managements!(any_aqm);
