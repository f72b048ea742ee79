//! Packet traces (`[trace]`, issue 9 item 3): what happened to each packet of chosen
//! flows and at chosen ports, as an event log and as a pcap capture.
//!
//! Events: `enqueue` (a packet joins a port's queue, or goes straight to its
//! serialiser), `dequeue` (its transmission starts), `mark` (a queue sets CE), `trim` (a
//! full queue cuts it to its header; the header's own `enqueue` follows), `drop`, and at
//! the far end of a packet's last link `deliver` (a data packet reaches its receiver) or
//! `ack` (an ACK, NACK, CNP, pull or probe echo reaches the flow's sender). A packet the
//! buffer refuses has a `drop` (or `trim`) and no `enqueue`. A host NIC pulls data from
//! its flows only when it is free, so data has no `enqueue` at the NIC, only `dequeue`.
//!
//! Recording costs nothing when `[trace]` is absent: the simulation calls in here from
//! behind its one `packet_hooks` branch (shared with PFC) and from branches that only
//! marks, trims and drops take. The log is bounded by `max_events`; `deliver` and `ack`
//! are recorded when the packet leaves on its last link (their time is then known
//! exactly), so the log is sorted by time when it is read out.
//!
//! The capture (`pcap`) is the classic libpcap format with nanosecond timestamps
//! (magic 0xa1b23c4d) and LINKTYPE_ETHERNET. It holds, for a traced port, every packet
//! whose transmission starts there (timestamp = start of transmission); for a traced
//! flow, what tcpdump on its sender would see: its data packets when their transmission
//! starts at the sender's NIC and its replies when they have arrived there. Each frame
//! renders the packet's 64 header bytes as Ethernet (14) + IPv4 (20) + UDP (8) + the
//! 22-byte dcnsim header (see `dcnsim_header`); the payload is not stored (caplen 64,
//! orig_len = the packet's simulated wire size). docs/outputs.md, "Packet traces", documents the
//! layout for readers.

use crate::net::{flags, Packet, PacketKind, Port};
use crate::stats::{Column, Table};
use crate::units::Time;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    Enqueue,
    Dequeue,
    Mark,
    Trim,
    Drop,
    Deliver,
    Ack,
}

const EVENT_NAMES: [&str; 7] = ["enqueue", "dequeue", "mark", "trim", "drop", "deliver", "ack"];
const PACKET_NAMES: [&str; 5] = ["data", "ack", "nack", "cnp", "pull"];

fn packet_code(kind: PacketKind) -> u8 {
    match kind {
        PacketKind::Data => 0,
        PacketKind::Ack => 1,
        PacketKind::Nack => 2,
        PacketKind::Cnp => 3,
        PacketKind::Pull => 4,
    }
}

/// One recorded event, with the packet's header fields as they were at that moment.
#[derive(Copy, Clone, Debug)]
pub struct TraceEvent {
    pub time: Time,
    pub sent_at: Time,
    pub queue_bytes: u64,
    pub port: u32,
    pub flow: u32,
    pub psn: u32,
    pub sacked_psn: u32,
    pub entropy: u32,
    pub size: u32,
    pub flags: u16,
    pub event: EventKind,
    pub packet: PacketKind,
    pub priority: u8,
    /// Part of the pcap capture.
    pub captured: bool,
}

impl TraceEvent {
    pub fn new(time: Time, event: EventKind, port: u32, pkt: &Packet, queue_bytes: u64, captured: bool) -> TraceEvent {
        TraceEvent {
            time,
            sent_at: pkt.sent_at,
            queue_bytes,
            port,
            flow: pkt.flow,
            psn: pkt.psn,
            sacked_psn: pkt.sacked_psn,
            entropy: pkt.entropy,
            size: pkt.size,
            flags: pkt.flags,
            event,
            packet: pkt.kind,
            priority: pkt.priority,
            captured,
        }
    }
}

pub struct Trace {
    flows: Vec<bool>,
    ports: Vec<bool>,
    max_events: usize,
    events: Vec<TraceEvent>,
    /// Events not recorded because the log was full.
    pub lost: u64,
    /// When the log filled up (`Time::MAX`: it did not); later events are left out of
    /// what is read, since some of them were lost.
    cut_at: Time,
    /// The last `enqueue`, by index and packet handle, until the buffer's verdict: a
    /// refused packet turns it into a `drop` or `trim` (`settle`).
    provisional: Option<(usize, u32)>,
}

impl Trace {
    pub fn new(flows: &[u32], n_flows: usize, ports: &[u32], n_ports: usize, max_events: usize) -> Trace {
        let mut f = vec![false; n_flows];
        flows.iter().for_each(|&i| f[i as usize] = true);
        let mut p = vec![false; n_ports];
        ports.iter().for_each(|&i| p[i as usize] = true);
        Trace { flows: f, ports: p, max_events, events: Vec::new(), lost: 0, cut_at: Time::MAX, provisional: None }
    }

    #[inline]
    pub fn flow_traced(&self, flow: u32) -> bool {
        self.flows[flow as usize]
    }

    #[inline]
    pub fn port_traced(&self, port: u32) -> bool {
        self.ports[port as usize]
    }

    /// Whether an event of `flow`'s packet at `port` belongs in the trace.
    #[inline]
    pub fn wants(&self, port: u32, flow: u32) -> bool {
        self.port_traced(port) || self.flow_traced(flow)
    }

    /// Records `ev` (`now`: when the simulation records it); returns its index, or
    /// `None` once the log is full.
    pub fn record(&mut self, now: Time, ev: TraceEvent) -> Option<usize> {
        if self.events.len() >= self.max_events {
            self.lost += 1;
            self.cut_at = self.cut_at.min(now);
            return None;
        }
        self.events.push(ev);
        Some(self.events.len() - 1)
    }

    /// Records an `enqueue` of packet `handle` that the buffer may still refuse.
    pub fn record_enqueue(&mut self, now: Time, ev: TraceEvent, handle: u32) {
        self.provisional = self.record(now, ev).map(|i| (i, handle));
    }

    /// The buffer refused packet `handle` at `port`: its `enqueue` just recorded, if
    /// any, becomes `kind` (`Drop` or `Trim`). Returns whether there was one.
    pub fn settle(&mut self, handle: u32, port: u32, now: Time, kind: EventKind) -> bool {
        let Some((i, h)) = self.provisional.take() else { return false };
        let ev = &mut self.events[i];
        if h != handle || ev.port != port || ev.time != now || ev.event != EventKind::Enqueue {
            return false;
        }
        ev.event = kind;
        true
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events in time order (ties in recording order), up to the cut.
    pub fn sorted(&self) -> Vec<&TraceEvent> {
        let mut out: Vec<&TraceEvent> = self.events.iter().filter(|e| e.time <= self.cut_at).collect();
        out.sort_by_key(|e| e.time);
        out
    }

    /// The event log: `time_us, event, node, port, flow, packet, psn, size, queue_bytes,
    /// sent_at_us, flags`. `node` is where the event happens: the port's own node, or
    /// for `deliver` and `ack` the host the packet reached.
    pub fn table(&self, ports: &[Port]) -> Table {
        let events = self.sorted();
        let col_i = |f: &dyn Fn(&TraceEvent) -> i64| Column::I64(events.iter().map(|e| f(e)).collect());
        let mut t = Table::default();
        t.push("time_us", Column::F64(events.iter().map(|e| e.time.as_us_f64()).collect()));
        t.push(
            "event",
            Column::Cat {
                codes: events.iter().map(|e| e.event as u32).collect(),
                levels: EVENT_NAMES.iter().map(|s| s.to_string()).collect(),
            },
        );
        t.push(
            "node",
            col_i(&|e| {
                let port = &ports[e.port as usize];
                if matches!(e.event, EventKind::Deliver | EventKind::Ack) {
                    port.peer as i64
                } else {
                    port.node as i64
                }
            }),
        );
        t.push("port", col_i(&|e| e.port as i64));
        t.push("flow", col_i(&|e| e.flow as i64));
        t.push(
            "packet",
            Column::Cat {
                codes: events.iter().map(|e| packet_code(e.packet) as u32).collect(),
                levels: PACKET_NAMES.iter().map(|s| s.to_string()).collect(),
            },
        );
        t.push("psn", col_i(&|e| e.psn as i64));
        t.push("size", col_i(&|e| e.size as i64));
        t.push("queue_bytes", col_i(&|e| e.queue_bytes as i64));
        t.push("sent_at_us", Column::F64(events.iter().map(|e| e.sent_at.as_us_f64()).collect()));
        t.push("flags", col_i(&|e| e.flags as i64));
        t
    }

    /// The capture as a pcap file; `endpoints(flow)` gives a flow's (sender, receiver)
    /// hosts.
    pub fn pcap(&self, endpoints: impl Fn(u32) -> (u32, u32)) -> Vec<u8> {
        let captured: Vec<&TraceEvent> = self.sorted().into_iter().filter(|e| e.captured).collect();
        let mut out = Vec::with_capacity(24 + captured.len() * (16 + SNAPLEN as usize));
        out.extend_from_slice(&pcap_header());
        for e in captured {
            let (sender, receiver) = endpoints(e.flow);
            let (src, dst) = if e.packet == PacketKind::Data { (sender, receiver) } else { (receiver, sender) };
            let frame = frame(e, src, dst);
            let caplen = e.size.min(SNAPLEN);
            let ns = e.time.0 / 1000;
            out.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&caplen.to_le_bytes());
            out.extend_from_slice(&e.size.to_le_bytes());
            out.extend_from_slice(&frame[..caplen as usize]);
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// pcap rendering

/// Bytes of each frame stored: the headers, which the default 64-byte `transport.header`
/// of every packet stands for.
pub const SNAPLEN: u32 = 64;
/// UDP port of the dcnsim header: the destination of data, the source of replies. Like
/// the flows' ports (`flow_udp_port`), one Wireshark 4.0 has no dissector for, so that it
/// shows the payload as data instead of misreading it as some protocol.
pub const DCNSIM_UDP_PORT: u16 = 46000;
/// Length of the dcnsim header inside the UDP payload.
pub const DCNSIM_HEADER_BYTES: usize = 22;

/// pcap global header: nanosecond magic, version 2.4, snaplen, LINKTYPE_ETHERNET (1).
pub fn pcap_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&0xa1b2_3c4du32.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&1u32.to_le_bytes());
    h
}

/// Host `h`'s IPv4 address: 10.0.0.0/8 plus h (host 5 = 10.0.0.5, host 300 = 10.0.1.44).
pub fn host_ip(h: u32) -> [u8; 4] {
    [10, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// A flow's own UDP port (the sender's for data): 61440 + flow id mod 4096, so
/// Wireshark's conversations follow flows.
pub fn flow_udp_port(flow: u32) -> u16 {
    0xF000 | (flow & 0x0FFF) as u16
}

/// The dcnsim header (22 bytes, big-endian): kind (0 data, 1 ack, 2 nack, 3 cnp, 4 pull),
/// priority, flags (`net::flags`), flow, psn (data: sequence number; ack and nack: the
/// cumulative ACK; pull: the pull count), sacked_psn (ack: the PSN that triggered it),
/// sent_at in ns as 48 bits (data: when this transmission left the sender; replies:
/// its echo).
pub fn dcnsim_header(e: &TraceEvent) -> [u8; DCNSIM_HEADER_BYTES] {
    let mut h = [0u8; DCNSIM_HEADER_BYTES];
    h[0] = packet_code(e.packet);
    h[1] = e.priority;
    h[2..4].copy_from_slice(&e.flags.to_be_bytes());
    h[4..8].copy_from_slice(&e.flow.to_be_bytes());
    h[8..12].copy_from_slice(&e.psn.to_be_bytes());
    h[12..16].copy_from_slice(&e.sacked_psn.to_be_bytes());
    let sent_ns = (e.sent_at.0 / 1000).min((1 << 48) - 1);
    h[16..22].copy_from_slice(&sent_ns.to_be_bytes()[2..8]);
    h
}

fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The 64 header bytes of a packet from host `src` to host `dst`. IPv4: DSCP = the
/// priority (at most 63), ECN = the packet's ECT/CE, identification = the low 16 bits of
/// its entropy, DF, TTL 64. UDP: ports by flow and `DCNSIM_UDP_PORT`, no checksum (the
/// payload is not stored). Length fields follow the wire size.
pub fn frame(e: &TraceEvent, src: u32, dst: u32) -> [u8; 64] {
    let mut f = [0u8; 64];
    let (s, d) = (host_ip(src), host_ip(dst));
    // Ethernet: locally administered MACs 02:00:<IPv4 address>.
    f[0..2].copy_from_slice(&[0x02, 0x00]);
    f[2..6].copy_from_slice(&d);
    f[6..8].copy_from_slice(&[0x02, 0x00]);
    f[8..12].copy_from_slice(&s);
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip = &mut f[14..34];
    let ecn = if e.flags & flags::CE != 0 {
        0b11
    } else if e.flags & flags::ECT != 0 {
        0b10
    } else {
        0
    };
    ip[0] = 0x45;
    ip[1] = (e.priority.min(63) << 2) | ecn;
    ip[2..4].copy_from_slice(&(e.size.saturating_sub(14).min(0xffff) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(e.entropy as u16).to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&s);
    ip[16..20].copy_from_slice(&d);
    let sum = ipv4_checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    let (sport, dport) = if e.packet == PacketKind::Data {
        (flow_udp_port(e.flow), DCNSIM_UDP_PORT)
    } else {
        (DCNSIM_UDP_PORT, flow_udp_port(e.flow))
    };
    let udp = &mut f[34..42];
    udp[0..2].copy_from_slice(&sport.to_be_bytes());
    udp[2..4].copy_from_slice(&dport.to_be_bytes());
    udp[4..6].copy_from_slice(&(e.size.saturating_sub(34).min(0xffff) as u16).to_be_bytes());
    f[42..64].copy_from_slice(&dcnsim_header(e));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(flow: u32, psn: u32, size: u32) -> Packet {
        Packet {
            flow,
            psn,
            sacked_psn: 0,
            size,
            dst: 1,
            entropy: 0x1234_5678,
            sent_at: Time(1_234_567),
            kind: PacketKind::Data,
            flags: flags::ECT | flags::CE,
            priority: 3,
            hop: 0,
            ext: 0,
        }
    }

    #[test]
    fn a_frame_is_ethernet_ipv4_udp_and_the_dcnsim_header() {
        let e = TraceEvent::new(Time::from_us(2), EventKind::Dequeue, 0, &data(7, 9, 4096), 0, true);
        let f = frame(&e, 300, 1);
        assert_eq!(&f[0..6], &[2, 0, 10, 0, 0, 1], "destination MAC from host 1's address");
        assert_eq!(&f[6..12], &[2, 0, 10, 0, 1, 44], "host 300 = 10.0.1.44");
        assert_eq!(&f[12..14], &[0x08, 0x00]);
        let ip = &f[14..34];
        assert_eq!(ip[1], 3 << 2 | 0b11, "DSCP = priority, ECN = CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 4096 - 14);
        assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 0x5678);
        assert_eq!(ipv4_checksum(ip), 0, "a correct header sums to 0xffff");
        assert_eq!(&ip[12..20], &[10, 0, 1, 44, 10, 0, 0, 1]);
        let udp = &f[34..42];
        assert_eq!(u16::from_be_bytes([udp[0], udp[1]]), 61440 + 7);
        assert_eq!(u16::from_be_bytes([udp[2], udp[3]]), DCNSIM_UDP_PORT);
        assert_eq!(u16::from_be_bytes([udp[4], udp[5]]), 4096 - 34);
        let h = &f[42..64];
        assert_eq!((h[0], h[1]), (0, 3));
        assert_eq!(u16::from_be_bytes([h[2], h[3]]), flags::ECT | flags::CE);
        assert_eq!(u32::from_be_bytes(h[4..8].try_into().unwrap()), 7);
        assert_eq!(u32::from_be_bytes(h[8..12].try_into().unwrap()), 9);
        let mut ns = [0u8; 8];
        ns[2..].copy_from_slice(&h[16..22]);
        assert_eq!(u64::from_be_bytes(ns), 1234, "sent_at 1 234 567 ps = 1234 ns");
    }

    #[test]
    fn replies_travel_back_with_the_ports_swapped() {
        let ack = Packet { kind: PacketKind::Ack, size: 64, flags: 0, ..data(7, 3, 64) };
        let f = frame(&TraceEvent::new(Time::ZERO, EventKind::Ack, 0, &ack, 0, true), 1, 0);
        assert_eq!(u16::from_be_bytes([f[34], f[35]]), DCNSIM_UDP_PORT);
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), 61440 + 7);
        assert_eq!(u16::from_be_bytes([f[38], f[39]]), 30, "UDP length: 64 − 34");
        assert_eq!((f[15] & 0b11, f[42]), (0, 1), "no ECN, kind ack");
    }

    #[test]
    fn the_pcap_is_sorted_by_time_and_truncated_at_the_headers() {
        let mut t = Trace::new(&[0], 1, &[], 1, 10);
        let later = TraceEvent::new(Time(3_000_500), EventKind::Ack, 0, &data(0, 1, 100), 0, true);
        let first = TraceEvent::new(Time(2_000_000_000_123_000), EventKind::Dequeue, 0, &data(0, 0, 4096), 0, true);
        let hidden = TraceEvent::new(Time(1), EventKind::Enqueue, 0, &data(0, 0, 4096), 0, false);
        for e in [first, later, hidden] {
            t.record(Time::ZERO, e);
        }
        let pcap = t.pcap(|_| (0, 1));
        assert_eq!(&pcap[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        let rec = |off: usize| -> [u32; 4] {
            let w = |i: usize| u32::from_le_bytes(pcap[off + 4 * i..off + 4 * i + 4].try_into().unwrap());
            [w(0), w(1), w(2), w(3)]
        };
        assert_eq!(rec(24), [0, 3000, 64, 100], "3 000 500 ps: 3000 ns, 64 of 100 bytes stored");
        assert_eq!(rec(24 + 16 + 64), [2000, 123, 64, 4096]);
        assert_eq!(pcap.len(), 24 + 2 * (16 + 64));
    }

    #[test]
    fn a_refused_enqueue_becomes_a_drop_and_the_log_is_bounded() {
        let mut t = Trace::new(&[0], 1, &[], 2, 2);
        let now = Time::from_us(1);
        t.record_enqueue(now, TraceEvent::new(now, EventKind::Enqueue, 1, &data(0, 0, 4096), 0, false), 42);
        assert!(!t.settle(41, 1, now, EventKind::Drop), "another packet");
        t.record_enqueue(now, TraceEvent::new(now, EventKind::Enqueue, 1, &data(0, 1, 4096), 0, false), 43);
        assert!(t.settle(43, 1, now, EventKind::Drop));
        assert_eq!(t.sorted().iter().map(|e| e.event).collect::<Vec<_>>(), [EventKind::Enqueue, EventKind::Drop]);
        assert_eq!(
            t.record(Time::from_us(2), TraceEvent::new(now, EventKind::Dequeue, 1, &data(0, 0, 1), 0, false)),
            None
        );
        assert_eq!((t.len(), t.lost), (2, 1));
    }
}
