//! The network model: packets, ports (queue + serialiser + propagation pipe) and nodes.

pub mod aqm;
pub mod int;
pub mod packet;
pub mod pfc;
pub mod port;
pub mod prio;

pub use aqm::{AnyAqm, Aqm, MarkDecision, MarkIf, MarkPoint};
pub use packet::{flags, Packet, PacketArena, PacketKind, UecAck};
pub use port::{Drr, Port, PortStats};
pub use prio::{PrioQueues, PrioService};
