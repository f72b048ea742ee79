//! Packets and the arena they live in. Packets travel through the simulation as `u32`
//! handles; the arena recycles slots, so a steady-state run allocates nothing per packet.

use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Data,
    Ack,
    /// The receiver's report of a trimmed data packet (`psn`); docs/models/trimming.md, SMaRTT paper §III-D.
    Nack,
    /// Congestion notification (DCQCN's NP → RP), for ECN-marked data of the flow.
    Cnp,
    /// An EQDS credit (receiver → sender); `psn` is the flow's cumulative pull count.
    Pull,
}

pub mod flags {
    /// ECN-capable transport (RFC 3168 ECT(0)).
    pub const ECT: u16 = 1;
    /// Congestion experienced, set by a switch queue.
    pub const CE: u16 = 2;
    /// ACK: ECN echo.
    pub const ECE: u16 = 4;
    /// Data: this transmission is a retransmission.
    pub const RETX: u16 = 8;
    /// Data: switches route it adaptively (shortest quantised queue).
    pub const ADAPTIVE: u16 = 16;
    /// Data: switches take equal-cost port `entropy mod n` (round-robin spraying).
    pub const ROUND_ROBIN: u16 = 32;
    /// Traffic class 1 of two-class scheduling (flows on one ECMP path; sprayed flows are
    /// class 0).
    pub const CLASS1: u16 = 64;
    /// Data: a switch cut this packet to its header (trimming); it carries no payload.
    pub const TRIMMED: u16 = 128;
    /// A PrioPlus probe (data kind, minimum size, outside the flow's PSN space) or its echo
    /// (ACK kind). PrioPlus paper §4.2.1; docs/models/prioplus.md.
    pub const PROBE: u16 = 256;
    /// Switches forward it along an explicit route (`routing::SourceRoutes`): path
    /// `entropy` of the flow's candidate set, forward for data, reversed for the
    /// receiver's replies, at hop `hop`.
    pub const SOURCE_ROUTED: u16 = 512;
    /// CONGA: the largest quantised congestion metric along a data packet's path (3
    /// bits), echoed by its ACK (`conga.rs`).
    pub const PATH_METRIC: u16 = 7 << PATH_METRIC_SHIFT;
    pub const PATH_METRIC_SHIFT: u16 = 10;
    /// Data: switches append in-band telemetry (`net/int.rs`, HPCC). ACK: it echoes the
    /// telemetry of its data packet.
    pub const INT: u16 = 1 << 13;
    /// Data (`transport.ack_policy = "uec"`): the sender asks for an ACK at once, as its
    /// window is full or it has nothing more to send (as uet-htsim's sender does;
    /// docs/models/transport.md).
    pub const ACK_REQUEST: u16 = 1 << 14;
    /// ACK kind: a ConWeave control message from the destination to the source (RTT
    /// reply, CLEAR, NOTIFY; which one, in `Packet::ext`), not a transport ACK.
    pub const CONWEAVE: u16 = 1 << 15;
}

/// One packet. Data and ACKs share the struct so a port needs only one queue type.
#[derive(Copy, Clone, Debug)]
pub struct Packet {
    pub flow: u32,
    /// Data: packet sequence number. ACK: cumulative ACK (next PSN the receiver expects).
    pub psn: u32,
    /// ACK: the PSN of the data packet that triggered it (selective-ACK information).
    pub sacked_psn: u32,
    /// Bytes on the wire (payload + header).
    pub size: u32,
    /// Destination host.
    pub dst: u32,
    /// Path selector: switches hash it to pick among equal-cost next hops.
    pub entropy: u32,
    /// Data: when this transmission left the sender. ACK: echo of that time (an RTT sample).
    pub sent_at: Time,
    pub kind: PacketKind,
    pub flags: u16,
    /// The flow's priority level, larger = more important (PrioPlus paper §4.1; docs/models/prioplus.md); 0 when
    /// the scenario gives none. With the 16-bit flags it still fits the 40 bytes a packet
    /// took before priorities and trimming (checked by a test).
    pub priority: u8,
    /// Source-routed packets: switches passed so far (the index of the next egress port
    /// in the route).
    pub hop: u8,
    /// A word whose meaning depends on the packet. A delayed ACK under `transport.ack_policy
    /// = "tcp"`: its selective-ACK bits, bit j set iff PSN `psn + 1 + j` (just above the
    /// cumulative ACK) has arrived (a UEC ACK carries 64 such bits in the arena's side lane,
    /// `PacketArena::uec`, so that a coalesced ACK reports the out-of-order packets it covers). A data packet of a ConWeave flow, and ConWeave's control messages: their
    /// ConWeave header (`conweave::header`). Sits in what was padding: the packet stays
    /// 40 bytes.
    pub ext: u16,
}

impl Packet {
    #[inline]
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }

    /// Control traffic (ACKs, NACKs, trimmed headers): what a port's priority queue carries.
    #[inline]
    pub fn is_control(&self) -> bool {
        self.kind != PacketKind::Data || self.has(flags::TRIMMED)
    }
}

/// What a UEC ACK carries beyond the packet (`transport.ack_policy = "uec"`;
/// `docs/models/transport.md`): the receiver's byte count and uet-htsim's 64-bit SACK
/// bitmap with its base.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UecAck {
    /// The receiver's count of the wire bytes of distinct data packets it has taken in
    /// (uet-htsim's `recvd_bytes`).
    pub recvd: u64,
    /// Bit j set iff PSN `sack_base + j` has arrived.
    pub sack_bits: u64,
    /// The PSN of bit 0: max(trigger − 63, cumulative ACK + 1), so the bitmap names the
    /// packets coalesced just below its trigger (uet-htsim's rule, without its exception
    /// for ECN-marked and ACK-requesting triggers: `Receiver::uec_sack_base`).
    pub sack_base: u32,
}

/// One value per arena slot beside the packet, for what only some runs need; empty (and
/// free) until the first `set`, then grown to the arena's size.
#[derive(Default)]
struct SideLane<T> {
    values: Vec<T>,
}

impl<T: Copy + Default> SideLane<T> {
    #[inline]
    fn get(&self, h: u32) -> T {
        self.values.get(h as usize).copied().unwrap_or_default()
    }

    #[inline]
    fn set(&mut self, h: u32, value: T, slots: usize) {
        if self.values.len() <= h as usize {
            self.values.resize(slots.max(h as usize + 1), T::default());
        }
        self.values[h as usize] = value;
    }

    fn heap_bytes(&self) -> usize {
        self.values.capacity() * std::mem::size_of::<T>()
    }
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    peak_live: usize,
    allocated_total: u64,
    /// A side lane of one 64-bit word per slot, for a value an algorithm carries on its
    /// packets without a field of `Packet` (a timestamp, a byte counter, a header field):
    /// see `CongestionControl::stamp`. Empty until the first `set_stamp`, so runs whose
    /// algorithms stamp nothing pay neither memory nor time for it. A value outlives its
    /// slot's free until the slot is reused, as INT records do (`net/int.rs`).
    stamps: SideLane<u64>,
    /// A second lane: when each packet joined the queue it waits in, for delay-based
    /// queue management (`net::aqm::Aqm::wants_sojourn`). Empty unless such an AQM runs.
    entered: SideLane<Time>,
    /// A third lane: a UEC ACK's cumulative count of the wire bytes its receiver has taken
    /// in (uet-htsim's `recvd_bytes`) and its 64-bit SACK bitmap with the bitmap's base
    /// (`transport.ack_policy = "uec"`; `docs/models/transport.md`). Empty unless UEC ACKs run.
    uec: SideLane<UecAck>,
    /// Issue 10: the data bytes ever allocated, the source side of byte conservation.
    #[cfg(any(debug_assertions, feature = "invariants"))]
    data_bytes_created: u64,
}

#[cfg(test)]
impl Packet {
    /// An ECN-capable data packet with every other field zero: what unit tests enqueue.
    pub(crate) fn test_data(flow: u32, psn: u32, size: u32) -> Packet {
        Packet {
            flow,
            psn,
            sacked_psn: 0,
            size,
            dst: 0,
            entropy: 0,
            sent_at: Time::ZERO,
            kind: PacketKind::Data,
            flags: flags::ECT,
            priority: 0,
            hop: 0,
            ext: 0,
        }
    }
}

impl PacketArena {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        if p.kind == PacketKind::Data {
            self.data_bytes_created += p.size as u64;
        }
        self.live += 1;
        self.allocated_total += 1;
        if self.live > self.peak_live {
            self.peak_live = self.live;
        }
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }

    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.free.push(h);
    }

    /// The side-lane word of slot `h` (0 if nothing was ever stamped there).
    #[inline]
    pub fn stamp(&self, h: u32) -> u64 {
        self.stamps.get(h)
    }

    /// Sets the side-lane word of slot `h`.
    #[inline]
    pub fn set_stamp(&mut self, h: u32, value: u64) {
        self.stamps.set(h, value, self.slots.len());
    }

    /// What UEC ACK `h` carries beyond the packet; zeros if none.
    #[inline]
    pub fn uec(&self, h: u32) -> UecAck {
        self.uec.get(h)
    }

    #[inline]
    pub fn set_uec(&mut self, h: u32, ack: UecAck) {
        self.uec.set(h, ack, self.slots.len());
    }

    /// When packet `h` joined its current queue (zero if never recorded).
    #[inline]
    pub fn entered(&self, h: u32) -> Time {
        self.entered.get(h)
    }

    #[inline]
    pub fn set_entered(&mut self, h: u32, at: Time) {
        self.entered.set(h, at, self.slots.len());
    }

    #[inline]
    pub fn get(&self, h: u32) -> &Packet {
        &self.slots[h as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, h: u32) -> &mut Packet {
        &mut self.slots[h as usize]
    }

    /// Packets currently in flight (in queues, on wires).
    pub fn live(&self) -> usize {
        self.live
    }

    pub fn peak_live(&self) -> usize {
        self.peak_live
    }

    #[cfg(any(debug_assertions, feature = "invariants"))]
    pub fn data_bytes_created(&self) -> u64 {
        self.data_bytes_created
    }

    /// Packets created over the whole run.
    pub fn allocated_total(&self) -> u64 {
        self.allocated_total
    }

    /// Bytes the arena holds: its slots and its free list (both keep their high-water
    /// capacity, so this is the run's peak).
    pub fn heap_bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<Packet>()
            + self.free.capacity() * 4
            + self.stamps.heap_bytes()
            + self.entered.heap_bytes()
            + self.uec.heap_bytes()) as u64
    }
}

#[cfg(test)]
mod tests {
    /// The per-packet state stays at 40 bytes (the arena's slot), priorities and trimming
    /// included: a bigger packet costs cache lines on every hop.
    #[test]
    fn a_packet_is_40_bytes() {
        assert_eq!(std::mem::size_of::<super::Packet>(), 40);
    }
}
