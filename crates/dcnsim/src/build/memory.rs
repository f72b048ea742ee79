//! The memory a run will need, estimated from the built fabric and the generated flows
//! before the per-flow state is allocated (issue 29): a run whose estimate exceeds the
//! memory the machine has free is refused with the estimate and its largest items,
//! rather than aborting in an allocation minutes later. docs/scenario.md, "Memory".

use crate::net::Port;
use crate::scenario::{err, ScenarioError};
use crate::sim::MemoryItem as Item;
use crate::stats::FlowMonitor;
use crate::transport::Flow;
use crate::units::parse_bytes;

/// Per flow, beyond `Flow` itself: its congestion-control state (boxed; the largest
/// algorithm's state is below this) and the receiver's first buffers.
const FLOW_STATE_BOUND: u64 = 1024;
/// Event-queue entries per flow at the start: its start event and its first timer.
const EVENTS_PER_FLOW: u64 = 2;
const EVENT_ENTRY: u64 = 32;
/// In-flight packets: the arena slot and queue handle of a packet.
const PACKET_SLOT: u64 = 96;
/// Packets that can exist at once per data packet of a finite flow: the packet and the
/// reply (ACK or NACK) it causes.
const PACKETS_PER_DATA_PACKET: u64 = 2;

/// The estimate: the per-flow state, the event queue, the ports and the packets in the
/// network, plus what is already built (`already`: routing, flow specs). The packets are
/// the fewer of what the switch buffers can hold (at full-size packets) and, when every
/// flow is finite, `PACKETS_PER_DATA_PACKET` per data packet of all the flows
/// (`data_packets`): a million-host permutation of 256 KB flows has 63.5 M data packets
/// against buffers for 220 M, and peaks far below either (benches/RESULTS.md).
pub fn estimate(n_flows: u64, ports: &[Port], mtu: u64, data_packets: Option<u64>, already: u64) -> Vec<Item> {
    let per_flow = (std::mem::size_of::<Flow>() + std::mem::size_of::<FlowMonitor>()) as u64 + FLOW_STATE_BOUND;
    let buffered: u64 = ports.iter().filter(|p| p.buffer != u64::MAX).map(|p| p.buffer).sum();
    let buffered_packets = buffered / mtu.max(64);
    let packets =
        data_packets.map_or(buffered_packets, |n| buffered_packets.min(n.saturating_mul(PACKETS_PER_DATA_PACKET)));
    let packet_slots = packets * PACKET_SLOT;
    vec![
        Item { name: "flow state", bytes: n_flows * per_flow },
        Item { name: "event queue", bytes: n_flows * EVENTS_PER_FLOW * EVENT_ENTRY },
        Item { name: "ports", bytes: (ports.len() * std::mem::size_of::<Port>()) as u64 },
        Item { name: "packets in the network", bytes: packet_slots },
        Item { name: "flow list and routing (built)", bytes: already },
    ]
}

/// Memory this process may still take: `DCNSIM_MEMORY_LIMIT` when set (bytes or with a
/// unit, e.g. `8GB`), else the smaller of the kernel's `MemAvailable` and the cgroup's
/// room (`memory.max` − `memory.current`); `None` where neither can be read.
pub fn available() -> Result<Option<(u64, &'static str)>, ScenarioError> {
    if let Ok(v) = std::env::var("DCNSIM_MEMORY_LIMIT") {
        let bytes = parse_bytes(&v)
            .map_err(|e| ScenarioError(format!("DCNSIM_MEMORY_LIMIT: {e}; allowed: a byte count such as 8GB")))?;
        return Ok(Some((bytes, "DCNSIM_MEMORY_LIMIT")));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok()?.trim().parse::<u64>().ok();
    let cgroup = match (read("memory.max"), read("memory.current")) {
        (Some(max), Some(cur)) => Some(max.saturating_sub(cur)),
        _ => None,
    };
    Ok(match (meminfo, cgroup) {
        (Some(m), Some(c)) if c < m => Some((c, "the cgroup's memory.max")),
        (Some(m), _) => Some((m, "MemAvailable")),
        (None, Some(c)) => Some((c, "the cgroup's memory.max")),
        (None, None) => None,
    })
}

fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} KB", b / 1e3)
    }
}

/// Refuses the run when the estimate exceeds what is available.
pub fn check(items: &[Item], n_flows: u64) -> Result<(), ScenarioError> {
    let total: u64 = items.iter().map(|i| i.bytes).sum();
    let Some((room, source)) = available()? else { return Ok(()) };
    if total <= room {
        return Ok(());
    }
    let mut largest: Vec<&Item> = items.iter().collect();
    largest.sort_by_key(|i| std::cmp::Reverse(i.bytes));
    let parts: Vec<String> = largest.iter().take(3).map(|i| format!("{} {}", i.name, human(i.bytes))).collect();
    err(
        "workload",
        format!(
            "the run needs an estimated {} ({}; {n_flows} flows) but {} is available ({source}); use fewer hosts or flows, or set DCNSIM_MEMORY_LIMIT to override",
            human(total),
            parts.join(", "),
            human(room)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Rate, Time};

    fn packets_item(data_packets: Option<u64>) -> u64 {
        // Ten switch ports of 100,000 bytes: 1,000 full-size (1,000-byte) packets in all;
        // two host ports, unbuffered, add none.
        let mut ports: Vec<Port> =
            (0..10).map(|i| Port::new(20 + i, 30 + i, Rate::gbps(100), Time::ZERO, 100_000)).collect();
        ports.extend((0..2).map(|h| Port::new(h, 20, Rate::gbps(100), Time::ZERO, u64::MAX)));
        let items = estimate(5, &ports, 1000, data_packets, 0);
        items.iter().find(|i| i.name == "packets in the network").unwrap().bytes
    }

    /// The packets in the network are bounded by the buffers, and, when every flow is
    /// finite, by a packet and its reply per data packet, whichever is fewer.
    #[test]
    fn packets_are_the_fewer_of_the_buffers_and_the_flows() {
        assert_eq!(packets_item(None), 1000 * PACKET_SLOT);
        assert_eq!(packets_item(Some(300)), 600 * PACKET_SLOT);
        assert_eq!(packets_item(Some(5000)), 1000 * PACKET_SLOT);
    }
}
