//! Topology builders. A builder returns a `Topology`: hosts `0..n_hosts`, switches after
//! them, and bidirectional cables. Ports, queues and routing are made from it elsewhere
//! (`network.rs`, `routing.rs`), so a new topology is only a new builder.
//!
//! Fat trees follow Al-Fares et al. (SIGCOMM 2008): with k-port switches a 3-tier tree has
//! k pods of k/2 ToRs and k/2 aggregation switches plus (k/2)^2 cores; a 2-tier
//! (leaf-spine) tree has k leaves and k/2 spines. Oversubscription `r` puts r·k/2 hosts
//! under each ToR against k/2 uplinks.
//!
//! Per-tier oversubscription (`uplink_ratios` = (r_tor, r_agg)) instead thins the uplinks,
//! the convention of the uet-htsim topology files the SMaRTT reproduction follows
//! (docs/reproductions/smartt-paper.md, docs/models/topologies.md): a ToR keeps
//! k/2 hosts but has k/(2·r_tor) uplinks, so a pod has k/(2·r_tor) aggregation switches;
//! each of those has k/2 down-links and k/(2·r_agg) uplinks, each to its own core, and a
//! core has one link to every pod. k = 16 with (4, 2) is the 1024-host 8:1 tree (ToR 8
//! down / 2 up, aggregation 8 down / 4 up, 8 cores); (1, 1) is Al-Fares' tree.

use crate::units::{Rate, Time};

/// Which layer a cable belongs to, for per-tier rates and for reporting.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Host to its edge switch (ToR / leaf).
    Host,
    /// ToR to aggregation (3-tier) or leaf to spine (2-tier).
    TorUplink,
    /// Aggregation to core.
    AggUplink,
    /// The shared link of a dumbbell.
    Bottleneck,
    /// Dragonfly: a link between two routers of one group.
    Local,
    /// Dragonfly: a link between two groups.
    Global,
    /// Rail-optimised fabric: a GPU's edge node to its rail switch.
    Rail,
    /// Rail-optimised fabric: a GPU's edge node to its server's NVLink switch.
    NvLink,
    /// Torus: a link between two neighbouring nodes' NICs.
    Torus,
}

impl Tier {
    pub const ALL: [Tier; 9] = [
        Tier::Host,
        Tier::TorUplink,
        Tier::AggUplink,
        Tier::Bottleneck,
        Tier::Local,
        Tier::Global,
        Tier::Rail,
        Tier::NvLink,
        Tier::Torus,
    ];

    /// The tier's name in scenarios (`[observe] ports`) and results (`ports.parquet`).
    pub fn name(self) -> &'static str {
        match self {
            Tier::Host => "host",
            Tier::TorUplink => "tor_uplink",
            Tier::AggUplink => "agg_uplink",
            Tier::Bottleneck => "bottleneck",
            Tier::Local => "local",
            Tier::Global => "global",
            Tier::Rail => "rail",
            Tier::NvLink => "nvlink",
            Tier::Torus => "torus",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cable {
    pub a: u32,
    pub b: u32,
    pub rate: Rate,
    pub latency: Time,
    pub tier: Tier,
}

#[derive(Clone, Debug)]
pub struct Topology {
    pub n_hosts: u32,
    pub n_switches: u32,
    pub cables: Vec<Cable>,
    /// Edge switch (node id) of each host.
    pub host_edge: Vec<u32>,
    /// Pod of each host (a 3-tier fat tree's pod; elsewhere its edge switch), for
    /// workloads whose flows must leave the pod.
    pub host_pod: Vec<u32>,
    /// Human-readable description for summaries.
    pub description: String,
    /// The last `.0` cables get `.1` of extra latency in their a→b direction.
    pub slow_last: (u32, Time),
    /// Set by the fat-tree builder: where its switches sit among the node ids, so that
    /// routing can find next hops by arithmetic instead of tables (`routing.rs`).
    pub fat_tree: Option<FatTreeLayout>,
}

/// A fat tree's switch numbering, as `fat_tree` builds it: ToRs first (`hosts_per_tor`
/// hosts each, packed in order), then the pods' aggregation switches (pod-major), then the
/// cores; 2-tier trees have spines after the leaves. Each switch's ports come in a fixed
/// order: a ToR's host ports then its uplinks; an aggregation switch's ToR ports (in the
/// pod's ToR order) then its uplinks; a core's or spine's one port per pod or leaf, in
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTreeLayout {
    pub tiers: u32,
    pub hosts_per_tor: u32,
    pub n_tors: u32,
    /// ToRs per pod (k/2; 3-tier trees only).
    pub tors_per_pod: u32,
    /// Aggregation switches per pod, one per ToR uplink (3-tier trees only).
    pub aggs_per_pod: u32,
}

impl FatTreeLayout {
    pub fn n_pods(&self) -> u32 {
        self.n_tors / self.tors_per_pod.max(1)
    }
}

impl Topology {
    pub fn n_nodes(&self) -> u32 {
        self.n_hosts + self.n_switches
    }
    pub fn is_host(&self, node: u32) -> bool {
        node < self.n_hosts
    }
}

/// Rates and latencies per tier.
#[derive(Clone, Copy, Debug)]
pub struct TierLinks {
    pub host: (Rate, Time),
    pub tor_uplink: (Rate, Time),
    pub agg_uplink: (Rate, Time),
}

#[derive(Clone, Debug)]
pub struct FatTreeShape {
    pub tiers: u32,
    pub radix: u32,
    pub oversubscription: u32,
    /// (ToR, aggregation) uplink thinning ratios; (1, 1) = every uplink present.
    pub uplink_ratios: (u32, u32),
}

impl FatTreeShape {
    pub fn hosts_per_tor(&self) -> u32 {
        self.oversubscription * self.radix / 2
    }
    pub fn n_tors(&self) -> u32 {
        match self.tiers {
            2 => self.radix,
            _ => self.radix * self.radix / 2,
        }
    }
    /// Uplinks of one ToR (leaf) and of one aggregation switch.
    pub fn tor_uplinks(&self) -> u32 {
        self.radix / 2 / self.uplink_ratios.0
    }
    pub fn agg_uplinks(&self) -> u32 {
        self.radix / 2 / self.uplink_ratios.1
    }
    /// End-to-end oversubscription of a core-crossing path: hosts per ToR over ToR
    /// uplinks, times the aggregation tier's ratio.
    pub fn total_oversubscription(&self) -> u32 {
        let agg = if self.tiers == 3 { self.uplink_ratios.1 } else { 1 };
        self.oversubscription * self.uplink_ratios.0 * agg
    }
    pub fn capacity(&self) -> u64 {
        self.n_tors() as u64 * self.hosts_per_tor() as u64
    }
    /// Smallest even radix whose tree holds `hosts`.
    pub fn smallest_radix(tiers: u32, oversubscription: u32, hosts: u32) -> u32 {
        let mut k = 2;
        loop {
            let s = FatTreeShape { tiers, radix: k, oversubscription, uplink_ratios: (1, 1) };
            if s.capacity() >= hosts as u64 {
                return k;
            }
            k += 2;
        }
    }
}

/// Builds a fat tree with `hosts` hosts packed into ToRs in order.
pub fn fat_tree(shape: &FatTreeShape, hosts: u32, links: &TierLinks) -> Topology {
    let k = shape.radix;
    let half = k / 2;
    let hpt = shape.hosts_per_tor();
    let n_tors = shape.n_tors();
    let tor_up = shape.tor_uplinks();
    let mut cables = Vec::new();
    let tor = |i: u32| hosts + i;
    let mut host_edge = Vec::with_capacity(hosts as usize);
    for h in 0..hosts {
        let t = tor(h / hpt);
        host_edge.push(t);
        cables.push(Cable { a: h, b: t, rate: links.host.0, latency: links.host.1, tier: Tier::Host });
    }
    let uplink = |a: u32, b: u32, l: (Rate, Time), tier: Tier| Cable { a, b, rate: l.0, latency: l.1, tier };
    let n_switches;
    if shape.tiers == 2 {
        let spine = |j: u32| hosts + n_tors + j;
        for l in 0..n_tors {
            for s in 0..tor_up {
                cables.push(uplink(tor(l), spine(s), links.tor_uplink, Tier::TorUplink));
            }
        }
        n_switches = n_tors + tor_up;
    } else {
        // A pod has one aggregation switch per ToR uplink; each has `agg_up` cores of its own.
        let aggs = tor_up;
        let agg_up = shape.agg_uplinks();
        let agg = |pod: u32, j: u32| hosts + n_tors + pod * aggs + j;
        let core = |c: u32| hosts + n_tors + k * aggs + c;
        for pod in 0..k {
            for t in 0..half {
                for a in 0..aggs {
                    cables.push(uplink(tor(pod * half + t), agg(pod, a), links.tor_uplink, Tier::TorUplink));
                }
            }
            // Aggregation switch j of every pod connects to cores j·agg_up .. (j+1)·agg_up − 1.
            for a in 0..aggs {
                for c in 0..agg_up {
                    cables.push(uplink(agg(pod, a), core(a * agg_up + c), links.agg_uplink, Tier::AggUplink));
                }
            }
        }
        n_switches = n_tors + k * aggs + aggs * agg_up;
    }
    let ratios = match (shape.tiers, shape.uplink_ratios) {
        (_, (1, 1)) => String::new(),
        (2, (t, _)) => format!(", leaf uplinks {t}:1"),
        (_, (t, a)) => format!(", uplinks ToR {t}:1 x aggregation {a}:1"),
    };
    let tors_per_pod = if shape.tiers == 2 { 1 } else { half };
    let host_pod = (0..hosts).map(|h| h / hpt / tors_per_pod).collect();
    Topology {
        n_hosts: hosts,
        n_switches,
        cables,
        host_edge,
        host_pod,
        slow_last: (0, Time::ZERO),
        fat_tree: Some(FatTreeLayout {
            tiers: shape.tiers,
            hosts_per_tor: hpt,
            n_tors,
            tors_per_pod,
            aggs_per_pod: if shape.tiers == 2 { 0 } else { tor_up },
        }),
        description: format!(
            "{}-tier fat tree, radix {}, {} hosts ({} per ToR{}), {}:1 oversubscribed, {} switches",
            shape.tiers,
            k,
            hosts,
            hpt,
            ratios,
            shape.total_oversubscription(),
            n_switches
        ),
    }
}

/// All hosts on one switch: the bottleneck is the switch port towards a receiver.
pub fn star(hosts: u32, rate: Rate, latency: Time) -> Topology {
    let sw = hosts;
    let cables = (0..hosts).map(|h| Cable { a: h, b: sw, rate, latency, tier: Tier::Host }).collect();
    Topology {
        n_hosts: hosts,
        n_switches: 1,
        cables,
        host_edge: vec![sw; hosts as usize],
        host_pod: vec![0; hosts as usize],
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!("star: {hosts} hosts on one switch"),
    }
}

/// Two switches joined by one bottleneck cable; hosts `0..ceil(n/2)` on the left.
pub fn dumbbell(hosts: u32, rate: Rate, latency: Time, bottleneck: (Rate, Time)) -> Topology {
    let left = hosts.div_ceil(2);
    let (sl, sr) = (hosts, hosts + 1);
    let mut cables = Vec::new();
    let mut host_edge = Vec::new();
    for h in 0..hosts {
        let sw = if h < left { sl } else { sr };
        host_edge.push(sw);
        cables.push(Cable { a: h, b: sw, rate, latency, tier: Tier::Host });
    }
    cables.push(Cable { a: sl, b: sr, rate: bottleneck.0, latency: bottleneck.1, tier: Tier::Bottleneck });
    let host_pod = host_edge.iter().map(|&e| e - sl).collect();
    Topology {
        n_hosts: hosts,
        n_switches: 2,
        cables,
        host_edge,
        host_pod,
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!("dumbbell: {left} + {} hosts, bottleneck {}", hosts - left, bottleneck.0),
    }
}

/// Host 0 — switch A ═ `paths` parallel links ═ switch B — host 1. The last `slow` links
/// are `extra` slower in the A→B direction only (data one way, ACKs return at full speed).
/// Routing's first candidate is then a fast link, which sets the flow's base RTT.
pub fn parallel(paths: u32, slow: u32, extra: Time, rate: Rate, latency: Time, host: (Rate, Time)) -> Topology {
    let (a, b) = (2, 3);
    let mut cables = vec![
        Cable { a: 0, b: a, rate: host.0, latency: host.1, tier: Tier::Host },
        Cable { a: 1, b, rate: host.0, latency: host.1, tier: Tier::Host },
    ];
    for _ in 0..paths {
        cables.push(Cable { a, b, rate, latency, tier: Tier::Bottleneck });
    }
    Topology {
        n_hosts: 2,
        n_switches: 2,
        cables,
        host_edge: vec![a, b],
        host_pod: vec![0, 1],
        description: format!("parallel: {paths} links, the last {slow} slower by {extra} towards host 1"),
        slow_last: (slow, extra),
        fat_tree: None,
    }
}

/// Shape of a dragonfly: `groups` groups of `routers` routers, all-to-all inside a group,
/// exactly one global link between every two groups, `hosts_per_router` hosts each.
/// LAPS paper §4.1 and docs/models/topologies.md: 9 × 4 routers, 4 hosts each (144 servers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DragonflyShape {
    pub groups: u32,
    pub routers: u32,
    pub hosts_per_router: u32,
}

impl DragonflyShape {
    /// Global links per router: a group's `groups − 1` global links spread evenly.
    pub fn globals_per_router(&self) -> u32 {
        (self.groups - 1) / self.routers
    }

    /// Router (switch index from 0, group-major) of group `g` that holds the global link
    /// to group `h`: group g serves groups g+1, …, g+G−1 (mod G) in order,
    /// `globals_per_router` per router (the LAPS artefact's wiring; docs/models/topologies.md).
    pub fn global_router(&self, g: u32, h: u32) -> u32 {
        debug_assert_ne!(g, h);
        let offset = (h + self.groups - g) % self.groups;
        g * self.routers + (offset - 1) / self.globals_per_router()
    }
}

/// Dragonfly (Kim et al., ISCA 2008) with the LAPS paper's single global link per group
/// pair. Hosts first (router s holds hosts s·p .. s·p+p−1), then routers group-major.
pub fn dragonfly(shape: &DragonflyShape, host: (Rate, Time), local: (Rate, Time), global: (Rate, Time)) -> Topology {
    let DragonflyShape { groups, routers, hosts_per_router } = *shape;
    let n_switches = groups * routers;
    let n_hosts = n_switches * hosts_per_router;
    let switch = |s: u32| n_hosts + s;
    let mut cables = Vec::new();
    let mut host_edge = Vec::new();
    for h in 0..n_hosts {
        let sw = switch(h / hosts_per_router);
        host_edge.push(sw);
        cables.push(Cable { a: h, b: sw, rate: host.0, latency: host.1, tier: Tier::Host });
    }
    for g in 0..groups {
        for i in 0..routers {
            for j in i + 1..routers {
                let (a, b) = (switch(g * routers + i), switch(g * routers + j));
                cables.push(Cable { a, b, rate: local.0, latency: local.1, tier: Tier::Local });
            }
        }
    }
    for g in 0..groups {
        for h in g + 1..groups {
            let (a, b) = (switch(shape.global_router(g, h)), switch(shape.global_router(h, g)));
            cables.push(Cable { a, b, rate: global.0, latency: global.1, tier: Tier::Global });
        }
    }
    let host_pod = host_edge.iter().map(|&e| (e - n_hosts) / routers).collect();
    Topology {
        n_hosts,
        n_switches,
        cables,
        host_edge,
        host_pod,
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!(
            "dragonfly: {groups} groups x {routers} routers x {hosts_per_router} hosts, one global link per group pair"
        ),
    }
}

/// Rail-optimised GPU fabric (LAPS paper §4.1 Fig. 1(b); docs/models/topologies.md): `clusters`
/// servers of `rails` GPUs. GPU (c, r) is host c·rails + r behind its own edge node (its
/// NIC), which links to rail switch r and to its server's NVLink switch c. Nodes after the
/// hosts: rail switches, then NVLink switches, then edge nodes (c-major).
pub fn rail(clusters: u32, rails: u32, host: (Rate, Time), rail: (Rate, Time), nvlink: (Rate, Time)) -> Topology {
    let n_hosts = clusters * rails;
    let rail_switch = |r: u32| n_hosts + r;
    let nvlink_switch = |c: u32| n_hosts + rails + c;
    let edge = |c: u32, r: u32| n_hosts + rails + clusters + c * rails + r;
    let mut cables = Vec::new();
    let mut host_edge = Vec::new();
    for c in 0..clusters {
        for r in 0..rails {
            let (h, e) = (c * rails + r, edge(c, r));
            host_edge.push(e);
            cables.push(Cable { a: h, b: e, rate: host.0, latency: host.1, tier: Tier::Host });
            cables.push(Cable { a: e, b: rail_switch(r), rate: rail.0, latency: rail.1, tier: Tier::Rail });
            cables.push(Cable { a: e, b: nvlink_switch(c), rate: nvlink.0, latency: nvlink.1, tier: Tier::NvLink });
        }
    }
    Topology {
        n_hosts,
        n_switches: rails + clusters + n_hosts,
        cables,
        host_edge,
        host_pod: (0..n_hosts).map(|h| h / rails).collect(),
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!(
            "rail: {clusters} servers x {rails} GPUs, {rails} rail switches, one NVLink switch per server"
        ),
    }
}

/// Switchless torus (LAPS paper §1: "switchless topologies (e.g. Torus) provide multiple
/// paths between each pair of nodes"; docs/models/topologies.md): one host per position of
/// a `dims[0] × dims[1] × …` grid, each behind a NIC node that links to its neighbours, ±1
/// in every dimension with wrap-around. A dimension of 2 has one link between its two
/// positions, not two. Host h is the position whose first coordinate varies fastest; its
/// NIC node is node n_hosts + h.
pub fn torus(dims: &[u32], host: (Rate, Time), link: (Rate, Time)) -> Topology {
    let n_hosts: u32 = dims.iter().product();
    let nic = |h: u32| n_hosts + h;
    let mut cables = Vec::new();
    let mut stride = 1;
    for &size in dims {
        for h in 0..n_hosts {
            let coordinate = (h / stride) % size;
            // Each position links to its +1 neighbour; in a dimension of 2 only the first
            // position does, so that the pair has one cable.
            if size > 2 || (size == 2 && coordinate == 0) {
                let next = h - coordinate * stride + ((coordinate + 1) % size) * stride;
                cables.push(Cable { a: nic(h), b: nic(next), rate: link.0, latency: link.1, tier: Tier::Torus });
            }
        }
        stride *= size;
    }
    for h in 0..n_hosts {
        cables.push(Cable { a: h, b: nic(h), rate: host.0, latency: host.1, tier: Tier::Host });
    }
    let shape = dims.iter().map(u32::to_string).collect::<Vec<_>>().join(" x ");
    Topology {
        n_hosts,
        n_switches: n_hosts,
        cables,
        host_edge: (0..n_hosts).map(nic).collect(),
        host_pod: (0..n_hosts).collect(),
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!("torus: {shape}, one host per position behind its NIC node"),
    }
}

/// Links a torus node's NIC has: two per dimension longer than 2, one per dimension of 2.
pub fn torus_degree(dims: &[u32]) -> u32 {
    dims.iter()
        .map(|&d| match d {
            0 | 1 => 0,
            2 => 1,
            _ => 2,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> TierLinks {
        let l = (Rate::gbps(100), Time::from_ns(500));
        TierLinks { host: l, tor_uplink: l, agg_uplink: l }
    }

    /// Al-Fares et al.: a k-ary 3-tier fat tree has k^3/4 hosts, 5k^2/4 switches and
    /// k^3/4 links per layer (3k^3/4 cables); docs/reproductions/dctcp-vs-swift-paper.md, A10 counts.
    #[test]
    fn three_tier_counts_match_the_closed_form() {
        for k in [4u32, 6, 8, 12] {
            let shape = FatTreeShape { tiers: 3, radix: k, oversubscription: 1, uplink_ratios: (1, 1) };
            let t = fat_tree(&shape, k * k * k / 4, &links());
            assert_eq!(t.n_hosts, k * k * k / 4);
            assert_eq!(t.n_switches, 5 * k * k / 4);
            assert_eq!(t.cables.len() as u32, 3 * k * k * k / 4);
        }
    }

    #[test]
    fn two_tier_and_radix_choice() {
        let shape = FatTreeShape { tiers: 2, radix: 8, oversubscription: 1, uplink_ratios: (1, 1) };
        assert_eq!(shape.capacity(), 32);
        let t = fat_tree(&shape, 32, &links());
        assert_eq!(t.n_switches, 8 + 4);
        assert_eq!(t.cables.len(), 32 + 8 * 4);
        assert_eq!(FatTreeShape::smallest_radix(3, 1, 128), 8);
        assert_eq!(FatTreeShape::smallest_radix(3, 1, 129), 10);
        assert_eq!(FatTreeShape::smallest_radix(3, 1, 1024), 16);
        // 4:1 oversubscription packs 4x the hosts under each ToR.
        assert_eq!(FatTreeShape { tiers: 3, radix: 8, oversubscription: 4, uplink_ratios: (1, 1) }.capacity(), 512);
    }

    /// The uet-htsim 1024-host 8:1 tree (docs/reproductions/smartt-paper.md): ToR 8 down / 2 up,
    /// aggregation 8 down / 4 up. Link counts per tier follow from the thinning, and the
    /// core tier carries 1/8 of the host tier's capacity.
    #[test]
    fn thinned_uplinks_give_the_htsim_8_to_1_tree() {
        let shape = FatTreeShape { tiers: 3, radix: 16, oversubscription: 1, uplink_ratios: (4, 2) };
        let t = fat_tree(&shape, 1024, &links());
        let count = |tier| t.cables.iter().filter(|c| c.tier == tier).count();
        assert_eq!(count(Tier::Host), 1024);
        assert_eq!(count(Tier::TorUplink), 128 * 2);
        assert_eq!(count(Tier::AggUplink), 16 * 2 * 4);
        assert_eq!(count(Tier::Host) / count(Tier::AggUplink), 8);
        assert_eq!(t.n_switches, 128 + 32 + 8);
        assert_eq!(shape.total_oversubscription(), 8);
        // Every core has exactly one link per pod (k = 16 ports).
        let first_core = 1024 + 128 + 32;
        for c in first_core..first_core + 8 {
            assert_eq!(t.cables.iter().filter(|x| x.b == c).count(), 16);
        }
    }

    /// LAPS paper §4.1 (docs/models/topologies.md): the paper's dragonfly has 36 switches, 144 servers and 234 links
    /// (144 host, 54 local, 36 global); every switch holds exactly 2 global links, and
    /// every two groups share exactly one.
    #[test]
    fn dragonfly_preset_matches_the_paper() {
        let l = (Rate::gbps(100), Time::from_us(1));
        let shape = DragonflyShape { groups: 9, routers: 4, hosts_per_router: 4 };
        let t = dragonfly(&shape, l, l, l);
        assert_eq!((t.n_hosts, t.n_switches), (144, 36));
        let count = |tier| t.cables.iter().filter(|c| c.tier == tier).count();
        assert_eq!((count(Tier::Host), count(Tier::Local), count(Tier::Global)), (144, 54, 36));
        let group = |node: u32| (node - 144) / 4;
        for s in 144..180 {
            let globals = t.cables.iter().filter(|c| c.tier == Tier::Global && (c.a == s || c.b == s)).count();
            assert_eq!(globals, 2, "switch {s}");
        }
        for g in 0..9 {
            for h in 0..9 {
                let between = t
                    .cables
                    .iter()
                    .filter(|c| c.tier == Tier::Global && (group(c.a), group(c.b)) == (g.min(h), g.max(h)))
                    .count();
                assert_eq!(between, usize::from(g != h), "groups {g}, {h}");
            }
        }
        // The artefact's wiring: group 0 reaches groups 1, 2 through its first switch.
        assert_eq!((shape.global_router(0, 1), shape.global_router(0, 2), shape.global_router(0, 8)), (0, 0, 3));
    }

    /// LAPS paper §4.1 (docs/models/topologies.md): 64 GPUs, 80 switch nodes (8 rail, 8 NVLink, 64 edge) and 192
    /// links.
    #[test]
    fn rail_preset_matches_the_artefact() {
        let (h, f) = ((Rate::gbps(200), Time::from_us(1)), (Rate::gbps(100), Time::from_us(1)));
        let t = rail(8, 8, h, f, f);
        assert_eq!((t.n_hosts, t.n_switches, t.cables.len()), (64, 80, 192));
        // GPU (c, r) = host 8c + r sits behind edge node E(c, r), linked to rail r and NVLink c.
        let e = t.host_edge[8 * 3 + 5];
        let peers: Vec<u32> = t.cables.iter().filter(|c| c.a == e).map(|c| c.b).collect();
        assert_eq!(peers, vec![64 + 5, 64 + 8 + 3]);
    }

    /// A 4 × 3 × 2 torus: 24 positions, every NIC of degree 2 + 2 + 1 = 5, so 24 · 5 / 2
    /// = 60 links (24 in x, 24 in y, 12 z pairs), and neighbours one step away with
    /// wrap-around.
    #[test]
    fn torus_links_neighbours_with_wrap_around() {
        let l = (Rate::gbps(100), Time::from_ns(500));
        let t = torus(&[4, 3, 2], (Rate::gbps(500), Time::ZERO), l);
        assert_eq!((t.n_hosts, t.n_switches), (24, 24));
        assert_eq!(t.cables.iter().filter(|c| c.tier == Tier::Torus).count(), 24 * 5 / 2);
        assert_eq!(torus_degree(&[4, 3, 2]), 5);
        for nic in 24..48 {
            let degree = t.cables.iter().filter(|c| c.tier == Tier::Torus && (c.a == nic || c.b == nic)).count();
            assert_eq!(degree, 5, "NIC node {nic}");
        }
        let linked =
            |a: u32, b: u32| t.cables.iter().any(|c| (c.a, c.b) == (24 + a, 24 + b) || (c.a, c.b) == (24 + b, 24 + a));
        // (3, 0, 0) wraps to (0, 0, 0); (0, 2, 0) = 8 wraps to (0, 0, 0); (1, 1, 0) = 5 and (1, 1, 1) = 17.
        assert!(linked(3, 0) && linked(8, 0) && linked(5, 17));
        assert!(!linked(0, 2) && !linked(0, 5));
        assert_eq!(t.host_edge[7], 24 + 7);
    }
}
