//! In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High Precision
//! Congestion Control", SIGCOMM 2019, §3.2 and Fig. 4; docs/models/int.md: per hop qlen, txBytes, ts
//! and link rate).
//!
//! Every switch egress port a data packet of an INT flow leaves by appends one record:
//! the port's queue length after the packet was dequeued, its cumulative transmitted
//! bytes including this packet, the time and the link rate. The receiver copies the
//! records into the ACK, and the sender's congestion control reads them (`CongestionControl::
//! on_int`).
//!
//! The records live beside the packet arena, indexed by packet handle, so that a packet
//! stays 40 bytes and a run without INT flows pays nothing: the table exists only when
//! some flow asks for telemetry. The receiving host's NIC port and the sender's NIC port
//! add no record (HPCC's hosts do not; the sender's NIC is its own pacer).

use crate::units::{Rate, Time};

/// Records a packet carries at most. A 3-tier fat tree path crosses 5 switch egress
/// ports; the longest dragonfly and rail paths of dcnsim's presets cross 7. Switches past
/// the eighth add nothing (HPCC's header has a fixed hop budget too).
pub const MAX_HOPS: usize = 8;

/// One switch egress port's telemetry, taken as a packet leaves it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// Bytes queued at the port after the packet was dequeued.
    pub qlen: u64,
    /// Bytes the port has transmitted since the start of the run, this packet included.
    pub tx_bytes: u64,
    /// When the packet started its transmission.
    pub ts: Time,
    /// The port's link rate.
    pub rate: Rate,
}

/// A packet's records: up to `MAX_HOPS`, `len` of them used.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntStack {
    hops: [IntHop; MAX_HOPS],
    len: u8,
}

impl IntStack {
    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.len as usize]
    }

    pub fn push(&mut self, hop: IntHop) {
        if (self.len as usize) < MAX_HOPS {
            self.hops[self.len as usize] = hop;
            self.len += 1;
        }
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

/// The records of every packet slot of the arena. A freed slot keeps its records until
/// the slot is used again, so a receiver can still echo them after the packet is gone.
#[derive(Default)]
pub struct IntTable {
    slots: Vec<IntStack>,
}

impl IntTable {
    fn slot(&mut self, h: u32) -> &mut IntStack {
        let i = h as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, IntStack::default());
        }
        &mut self.slots[i]
    }

    /// Packet `h` leaves its sender: it starts with no records.
    pub fn start(&mut self, h: u32) {
        self.slot(h).clear();
    }

    /// Packet `h` leaves a switch egress port.
    pub fn push(&mut self, h: u32, hop: IntHop) {
        self.slot(h).push(hop);
    }

    /// Reply `to` carries the records of packet `from` (the receiver echoes them). The
    /// two may be the same slot: the arena hands the freed slot to the reply.
    pub fn copy(&mut self, from: u32, to: u32) {
        let records = *self.slot(from);
        *self.slot(to) = records;
    }

    /// Packet `h`'s whole record stack (to carry it to another thread's share).
    pub fn stack(&self, h: u32) -> IntStack {
        self.slots.get(h as usize).copied().unwrap_or_default()
    }

    /// Gives packet `h` a record stack carried from another share.
    pub fn set_stack(&mut self, h: u32, stack: IntStack) {
        *self.slot(h) = stack;
    }

    /// The records of packet `h`.
    pub fn hops(&self, h: u32) -> &[IntHop] {
        self.slots.get(h as usize).map_or(&[], |s| s.hops())
    }

    /// Bytes the table holds.
    pub fn heap_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<IntStack>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(q: u64) -> IntHop {
        IntHop { qlen: q, tx_bytes: 0, ts: Time::ZERO, rate: Rate::gbps(100) }
    }

    #[test]
    fn records_follow_the_packet_to_its_reply() {
        let mut t = IntTable::default();
        t.start(3);
        t.push(3, hop(1));
        t.push(3, hop(2));
        // The reply reuses the freed slot (the arena's free list is last in, first out)
        // or gets another; either way it carries the records.
        t.copy(3, 3);
        t.copy(3, 5);
        for h in [3, 5] {
            assert_eq!(t.hops(h).iter().map(|r| r.qlen).collect::<Vec<_>>(), vec![1, 2]);
        }
        assert!(t.hops(9).is_empty());
    }

    #[test]
    fn hops_past_the_budget_add_nothing() {
        let mut s = IntStack::default();
        for q in 0..MAX_HOPS as u64 + 3 {
            s.push(hop(q));
        }
        assert_eq!(s.hops().len(), MAX_HOPS);
        assert_eq!(s.hops()[MAX_HOPS - 1].qlen, MAX_HOPS as u64 - 1);
    }
}
