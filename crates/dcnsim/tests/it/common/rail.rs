//! Node numbers of the 64-GPU rail fabric (`topology::rail`: 8 servers × 8 GPUs, hosts
//! first, then the 8 rail switches, the 8 NVLink switches and one edge switch per GPU),
//! and per-link packet counts, for tests that check which paths carried traffic.
#![allow(dead_code)]

/// The first rail switch; rail switch r is `RAIL_SWITCH + r`.
pub const RAIL_SWITCH: u32 = 64;

/// Edge switch of GPU (server c, rail index r).
pub fn edge(c: u32, r: u32) -> u32 {
    64 + 8 + 8 + 8 * c + r
}

/// Packets sent on the port of `node` that leads to `peer`.
pub fn tx(s: &dcnsim::Simulation, node: u32, peer: u32) -> u64 {
    let p = s.ports.iter().position(|p| p.node == node && p.peer == peer).expect("no such link");
    s.ports[p].stats.tx_packets
}

/// The start of a rail scenario: `seed`, and the `[topology]` table of the 64-GPU fabric
/// (100 Gbps fabric links, 1 µs, the LAPS artefact's 1048-byte packets). More `[topology]`
/// lines may follow it.
pub fn rail_preamble(seed: u64) -> String {
    format!(
        "seed = {seed}\n[topology]\nkind = \"rail\"\nhosts = 64\nlink_rate = \"100Gbps\"\n\
         link_latency = \"1us\"\nmtu = \"1048B\"\n"
    )
}
