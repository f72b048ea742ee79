//! Candidate path sets for source-routed load balancing on unequal-cost fabrics, and
//! their idle latencies. LAPS paper §3.2–§3.4 and §4.1; docs/models/laps.md and
//! docs/models/topologies.md.
//!
//! A path is the sequence of nodes from the source host to the destination host. The
//! LAPS evaluation does not use generic k-shortest paths but constructs the sets
//! explicitly, and so do we:
//! - dragonfly, different groups: the minimal path plus one Valiant path through each
//!   other group (8 on the paper's 9-group instance); same group, different routers: the
//!   direct link or a detour through each other router of the group (3); same router: 1;
//! - rail fabric, different servers: one path per rail switch (8), relayed over the
//!   NVLink switch at either end when the GPU is not on that rail; same server: the path
//!   through its NVLink switch (1).
//!
//! Every other topology (fat trees, leaf-spines, file topologies) takes the `k` shortest
//! loop-free paths by hop count within `slack` hops of the shortest (`k_shortest.rs`,
//! Yen's algorithm; `[transport.candidate_paths]`), so the paper's "any unequal-cost
//! topology" claim can be tried. On the dragonfly, Yen's algorithm over the groups gives
//! the same group sequences as the construction above (tested there).

use std::collections::HashMap;

pub mod k_shortest;

use serde::{Deserialize, Serialize};

use crate::net::{Packet, PacketKind, Port};
use crate::topology::{DragonflyShape, Topology};
use crate::units::{Rate, Time};

/// `[transport.candidate_paths]`: the candidate paths of topologies without a
/// construction of their own (module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CandidatePathsCfg {
    /// At most this many paths per host pair. Default 64: every shortest path of a k = 16
    /// three-tier fat tree's pod pair (dcnsim choice: the whole equal-cost set, so that no
    /// spine is left out by the order of the search).
    pub k: u32,
    /// Paths at most this many hops longer than the shortest. Default 0: the equal-cost
    /// set, as ECMP sees it; raise it for unequal-cost topologies.
    pub slack: u32,
}

impl Default for CandidatePathsCfg {
    fn default() -> Self {
        CandidatePathsCfg { k: 64, slack: 0 }
    }
}

/// Which construction gives a topology's candidate paths.
#[derive(Clone, Debug)]
pub enum PathRule {
    Dragonfly(DragonflyShape),
    Rail {
        rails: u32,
    },
    /// Yen's k shortest loop-free paths over `neighbours`, hosts never in transit.
    Shortest {
        neighbours: Vec<Vec<u32>>,
        cfg: CandidatePathsCfg,
    },
}

impl PathRule {
    /// The generic rule for `topo`: its cables as an undirected graph.
    pub fn shortest(topo: &Topology, cfg: CandidatePathsCfg) -> PathRule {
        let mut neighbours = vec![Vec::new(); topo.n_nodes() as usize];
        for c in &topo.cables {
            neighbours[c.a as usize].push(c.b);
            neighbours[c.b as usize].push(c.a);
        }
        neighbours.iter_mut().for_each(|n| n.sort_unstable());
        PathRule::Shortest { neighbours, cfg }
    }

    pub fn paths(&self, topo: &Topology, src: u32, dst: u32) -> Vec<Vec<u32>> {
        match self {
            PathRule::Dragonfly(shape) => dragonfly_paths(shape, topo, src, dst),
            PathRule::Rail { rails } => rail_paths(topo, *rails, src, dst),
            PathRule::Shortest { neighbours, cfg } => {
                k_shortest::k_shortest_paths(neighbours, src, dst, cfg.k as usize, cfg.slack as usize, |n| {
                    !topo.is_host(n)
                })
            }
        }
    }
}

/// Explicit routes of source-routed flows: the egress port at every switch along each of
/// a flow's candidate paths, forward (data) and reversed (the receiver's replies). A
/// packet names its path by its index in the flow's set (`entropy`) and counts the
/// switches it passed (`hop`), so forwarding is three table reads.
#[derive(Default)]
pub struct SourceRoutes {
    /// Egress ports, routes back to back.
    ports: Vec<u32>,
    /// Per path: where its forward and its reverse route start in `ports`.
    paths: Vec<(u32, u32)>,
    /// Per flow: index of its first path in `paths` and how many it has (0 = the flow
    /// is not source-routed).
    flows: Vec<(u32, u32)>,
    /// Per path: its links' (rate, propagation latency), host links included.
    pub links: Vec<Vec<(Rate, Time)>>,
    /// Per path: its nodes, source host to destination host.
    nodes: Vec<Vec<u32>>,
}

/// A candidate path that cannot carry traffic (LAPS paper §3.2: paths are fixed at set-up;
/// a failed link removes the ones across it).
#[derive(Debug)]
pub struct NoUsablePath {
    pub src: u32,
    pub dst: u32,
}

impl SourceRoutes {
    /// Routes for every flow `(src, dst)` marked `routed`, from `rule`'s path sets,
    /// leaving out paths across links that are down. Pairs share their routes.
    pub fn build(
        rule: &PathRule,
        topo: &Topology,
        ports: &[Port],
        node_ports: &[Vec<u32>],
        flows: impl Iterator<Item = (u32, u32, bool)>,
    ) -> Result<SourceRoutes, NoUsablePath> {
        let mut routes = SourceRoutes::default();
        let mut by_pair: HashMap<(u32, u32), (u32, u32)> = HashMap::new();
        let egress = |u: u32, v: u32| -> Option<u32> {
            node_ports[u as usize].iter().copied().find(|&p| ports[p as usize].peer == v && ports[p as usize].up)
        };
        for (src, dst, routed) in flows {
            if !routed {
                routes.flows.push((0, 0));
                continue;
            }
            if let Some(&set) = by_pair.get(&(src, dst)) {
                routes.flows.push(set);
                continue;
            }
            let first = routes.paths.len() as u32;
            for path in rule.paths(topo, src, dst) {
                // Egress ports at the switches: every node but the two hosts.
                let forward: Option<Vec<u32>> = path[1..].windows(2).map(|w| egress(w[0], w[1])).collect();
                let reverse: Option<Vec<u32>> =
                    path[..path.len() - 1].windows(2).rev().map(|w| egress(w[1], w[0])).collect();
                // The host links themselves must be up too.
                let hosts_up = egress(src, path[1]).is_some() && egress(dst, path[path.len() - 2]).is_some();
                let (Some(forward), Some(reverse), true) = (forward, reverse, hosts_up) else { continue };
                let links = path.windows(2).map(|w| egress(w[0], w[1]).map(|p| &ports[p as usize]));
                let links = links.map(|p| p.map(|p| (p.rate, p.latency))).collect::<Option<Vec<_>>>();
                let start = routes.ports.len() as u32;
                routes.links.push(links.expect("every link of the path is up"));
                routes.nodes.push(path.clone());
                routes.ports.extend(&forward);
                routes.ports.extend(&reverse);
                routes.paths.push((start, start + forward.len() as u32));
            }
            let n = routes.paths.len() as u32 - first;
            if n == 0 {
                return Err(NoUsablePath { src, dst });
            }
            by_pair.insert((src, dst), (first, n));
            routes.flows.push((first, n));
        }
        Ok(routes)
    }

    /// Flow `f`'s paths: the first one's index and how many (0: not source-routed).
    #[inline]
    pub fn paths_of(&self, f: u32) -> (u32, u32) {
        self.flows.get(f as usize).copied().unwrap_or((0, 0))
    }

    /// Candidate paths of flow `f` (0 if it is not source-routed).
    #[inline]
    pub fn n_paths(&self, f: u32) -> u32 {
        self.flows.get(f as usize).map_or(0, |&(_, n)| n)
    }

    /// Flow `f`'s candidate paths, each as its nodes from source host to destination host.
    pub fn nodes_of(&self, f: u32) -> Vec<Vec<u32>> {
        let (first, n) = self.paths_of(f);
        (first..first + n).map(|p| self.nodes[p as usize].clone()).collect()
    }

    /// What a data packet of flow `f` carries for a path selector `entropy`: a path
    /// index with `SOURCE_ROUTED` if the flow is source-routed, `entropy` itself and no
    /// flag otherwise. The index is uniform over the paths for 32 random bits (spraying),
    /// or, with `hop_by_hop`, the path that switches hashing `entropy` would build
    /// (`hop_by_hop`).
    #[inline]
    pub fn route(&self, f: u32, entropy: u32, hop_by_hop: bool) -> (u32, u16) {
        match self.n_paths(f) {
            0 => (entropy, 0),
            _ if hop_by_hop => (self.hop_by_hop(f, entropy), crate::net::flags::SOURCE_ROUTED),
            // Multiply-shift from 32 random bits to 0..paths: no modulo bias to speak of.
            paths => (((entropy as u64 * paths as u64) >> 32) as u32, crate::net::flags::SOURCE_ROUTED),
        }
    }

    /// The path a flow with ECMP-style `entropy` takes when every switch holds, per host
    /// pair, the union of the next hops of the pair's candidate paths and hashes
    /// `entropy` over them (the LAPS artefact's baselines, docs/models/ecmp.md). Every
    /// switch plays one role per pair on these fabrics, so the walk always follows one of
    /// the candidate paths; but each hop splits evenly, so the paths are not equally likely
    /// (on the rail fabric the first hop is 50/50 between the own rail and the NVLink relay).
    #[cold]
    #[inline(never)]
    pub fn hop_by_hop(&self, f: u32, entropy: u32) -> u32 {
        let (first, n) = self.flows[f as usize];
        let paths = &self.nodes[first as usize..(first + n) as usize];
        // Paths still consistent with the hops taken so far (at most 8 on these fabrics).
        let mut alive: Vec<usize> = (0..paths.len()).collect();
        let mut depth = 1;
        while alive.len() > 1 {
            let here = paths[alive[0]][depth - 1];
            let mut next: Vec<u32> = alive.iter().filter_map(|&i| paths[i].get(depth).copied()).collect();
            next.sort_unstable();
            next.dedup();
            if next.is_empty() {
                break;
            }
            let h = crate::engine::splitmix64((here as u64) << 32 | entropy as u64);
            let pick = next[((h >> 32) * next.len() as u64 >> 32) as usize];
            alive.retain(|&i| paths[i].get(depth) == Some(&pick));
            depth += 1;
        }
        alive[0] as u32
    }

    /// The port path `path`'s data leave their first switch by (its uplink).
    pub fn first_egress(&self, path: u32) -> u32 {
        self.ports[self.paths[path as usize].0 as usize]
    }

    /// The port a source-routed packet leaves the current switch by.
    #[inline]
    pub fn egress(&self, pkt: &Packet) -> u32 {
        let (first, _) = self.flows[pkt.flow as usize];
        let (forward, reverse) = self.paths[(first + pkt.entropy) as usize];
        let start = if pkt.kind == PacketKind::Data { forward } else { reverse };
        self.ports[(start + pkt.hop as u32) as usize]
    }

    /// Bytes of the route tables.
    pub fn heap_bytes(&self) -> u64 {
        (self.ports.capacity() * 4
            + self.paths.capacity() * 8
            + self.flows.capacity() * 8
            + self.links.iter().map(|l| l.capacity() * 16 + 24).sum::<usize>()
            + self.nodes.iter().map(|p| p.capacity() * 4 + 24).sum::<usize>()) as u64
    }
}

/// The dragonfly candidate paths from host `src` to host `dst` (LAPS paper §4.1;
/// docs/models/topologies.md).
pub fn dragonfly_paths(shape: &DragonflyShape, topo: &Topology, src: u32, dst: u32) -> Vec<Vec<u32>> {
    let n_hosts = topo.n_hosts;
    let switch_of = |h: u32| topo.host_edge[h as usize] - n_hosts;
    let node = |s: u32| n_hosts + s;
    let group = |s: u32| s / shape.routers;
    let (a, b) = (switch_of(src), switch_of(dst));
    let (g, h) = (group(a), group(b));
    // Appends switch `s` unless the path already ends there (a hop to itself is no hop).
    let push = |path: &mut Vec<u32>, s: u32| {
        if path.last() != Some(&node(s)) {
            path.push(node(s));
        }
    };
    let finish = |mut path: Vec<u32>| {
        path.push(dst);
        path
    };
    if a == b {
        return vec![vec![src, node(a), dst]];
    }
    if g == h {
        let direct = vec![src, node(a), node(b), dst];
        let detours = (g * shape.routers..(g + 1) * shape.routers)
            .filter(|&m| m != a && m != b)
            .map(|m| vec![src, node(a), node(m), node(b), dst]);
        return std::iter::once(direct).chain(detours).collect();
    }
    let mut minimal = vec![src, node(a)];
    push(&mut minimal, shape.global_router(g, h));
    push(&mut minimal, shape.global_router(h, g));
    push(&mut minimal, b);
    let valiant = (0..shape.groups).filter(|&m| m != g && m != h).map(|m| {
        let mut p = vec![src, node(a)];
        for s in [
            shape.global_router(g, m),
            shape.global_router(m, g),
            shape.global_router(m, h),
            shape.global_router(h, m),
            b,
        ] {
            push(&mut p, s);
        }
        finish(p)
    });
    std::iter::once(finish(minimal)).chain(valiant).collect()
}

/// The rail-fabric candidate paths from host `src` to host `dst` (LAPS paper §4.1;
/// docs/models/topologies.md), on `topology::rail`'s numbering.
pub fn rail_paths(topo: &Topology, rails: u32, src: u32, dst: u32) -> Vec<Vec<u32>> {
    let n_hosts = topo.n_hosts;
    let clusters = n_hosts / rails;
    let rail_switch = |r: u32| n_hosts + r;
    let nvlink = |c: u32| n_hosts + rails + c;
    let edge = |c: u32, r: u32| n_hosts + rails + clusters + c * rails + r;
    let (c1, r1, c2, r2) = (src / rails, src % rails, dst / rails, dst % rails);
    if c1 == c2 {
        return vec![vec![src, edge(c1, r1), nvlink(c1), edge(c2, r2), dst]];
    }
    (0..rails)
        .map(|r| {
            let mut p = vec![src, edge(c1, r1)];
            if r != r1 {
                p.extend([nvlink(c1), edge(c1, r)]);
            }
            p.extend([rail_switch(r), edge(c2, r)]);
            if r != r2 {
                p.extend([nvlink(c2), edge(c2, r2)]);
            }
            p.push(dst);
            p
        })
        .collect()
}

/// The (rate, latency) of each link of `path`, from the topology's cables.
pub fn path_links(topo: &Topology, path: &[u32]) -> Option<Vec<(Rate, Time)>> {
    path.windows(2)
        .map(|w| {
            topo.cables
                .iter()
                .find(|c| (c.a, c.b) == (w[0], w[1]) || (c.b, c.a) == (w[0], w[1]))
                .map(|c| (c.rate, c.latency))
        })
        .collect()
}

/// A path's baseline latency `idleVal` under the LAPS artefact's formula
/// (docs/models/laps.md): Σ over hops of (propagation + serialisation of a `packet_bytes` packet), plus
/// one more serialisation at the slowest hop's rate per hop as slack; serialisation
/// times truncated to whole nanoseconds, as the artefact does.
pub fn idle_val(links: &[(Rate, Time)], packet_bytes: u64) -> Time {
    let slowest = links.iter().map(|l| l.0).min().expect("a path has at least one link");
    unloaded_latency(links, packet_bytes) + Time::from_ns(links.len() as u64 * ser_ns(slowest, packet_bytes))
}

/// The one-way latency of a `packet_bytes` packet on an idle path: propagation and
/// serialisation at every hop, in whole nanoseconds (the artefact's initial latency,
/// docs/models/laps.md).
pub fn unloaded_latency(links: &[(Rate, Time)], packet_bytes: u64) -> Time {
    Time::from_ns(links.iter().map(|&(rate, prop)| prop.0 / 1000 + ser_ns(rate, packet_bytes)).sum())
}

/// A path's one-way bandwidth-delay product in bytes, rounded up: its one-way delay for a
/// `packet_bytes` packet on an idle path (propagation plus serialisation at every link,
/// store and forward, in exact picoseconds) times its slowest link's rate. DCQCN's
/// unified window (docs/models/dcqcn.md) is the largest of these.
pub fn one_way_bdp(links: &[(Rate, Time)], packet_bytes: u64) -> u64 {
    let slowest = links.iter().map(|l| l.0).min().expect("a path has at least one link");
    let delay_ps: u128 = links.iter().map(|&(rate, prop)| (prop.0 + rate.serialization(packet_bytes).0) as u128).sum();
    (delay_ps * slowest.bps() as u128).div_ceil(8 * 1_000_000_000_000) as u64
}

fn ser_ns(rate: Rate, packet_bytes: u64) -> u64 {
    packet_bytes * 8 * 1_000_000_000 / rate.bps()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{dragonfly, rail};
    use std::collections::BTreeMap;

    const S: u64 = 1048;

    /// One-way BDP by hand: a rail-like path of 2 × 200G and 2 × 100G links of 1 µs with
    /// 1048-byte packets: 4 µs + 2 × 41.92 ns + 2 × 83.84 ns = 4251.52 ns, at the 100G
    /// bottleneck 4251.52 ns × 12.5 B/ns = 53,144 bytes. The rail's longest candidate
    /// path (8 links, 2 × 200G + 6 × 100G): 8586.88 ns × 12.5 = 107,336 bytes.
    #[test]
    fn one_way_bdp_by_hand() {
        let (fast, slow) = ((Rate::gbps(200), Time::from_us(1)), (Rate::gbps(100), Time::from_us(1)));
        assert_eq!(one_way_bdp(&[fast, slow, slow, fast], S), 53_144);
        assert_eq!(one_way_bdp(&[fast, slow, slow, slow, slow, slow, slow, fast], S), 107_336);
        // Rounded up: 1 link of 10 ns at 1 Gb/s, 1-byte packet: (10 + 8) ns × 1/8 B/ns = 2.25 -> 3.
        assert_eq!(one_way_bdp(&[(Rate::gbps(1), Time::from_ns(10))], 1), 3);
    }

    fn paper_dragonfly() -> (DragonflyShape, Topology) {
        let l = (Rate::gbps(100), Time::from_us(1));
        let shape = DragonflyShape { groups: 9, routers: 4, hosts_per_router: 4 };
        (shape, dragonfly(&shape, l, l, l))
    }

    fn paper_rail() -> Topology {
        rail(
            8,
            8,
            (Rate::gbps(200), Time::from_us(1)),
            (Rate::gbps(100), Time::from_us(1)),
            (Rate::gbps(100), Time::from_us(1)),
        )
    }

    /// Every path is loop-free, joins linked nodes (also when reversed), and starts and
    /// ends at the right hosts.
    fn assert_valid(topo: &Topology, src: u32, dst: u32, path: &[u32]) {
        assert_eq!((path[0], *path.last().unwrap()), (src, dst));
        let mut seen = path.to_vec();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), path.len(), "loop in {path:?}");
        let reversed: Vec<u32> = path.iter().rev().copied().collect();
        assert!(path_links(topo, &reversed).is_some(), "{path:?} reversed is not a path");
    }

    /// docs/reproductions/laps-paper.md, A1 (dragonfly): every ordered server pair gets 1, 3 or 8 paths,
    /// for 432, 1728 and 18432 pairs; across the 36 × 36 switch pairs the inter-group
    /// 8-path sets hold {1: 72, 2: 504, 3: 1512, 4: 3240, 5: 3888} paths by switch hops.
    #[test]
    fn a1_dragonfly_path_sets() {
        let (shape, topo) = paper_dragonfly();
        let mut pairs_by_count = BTreeMap::new();
        for src in 0..144 {
            for dst in (0..144).filter(|&d| d != src) {
                let paths = dragonfly_paths(&shape, &topo, src, dst);
                for p in &paths {
                    assert_valid(&topo, src, dst, p);
                }
                *pairs_by_count.entry(paths.len()).or_insert(0) += 1;
            }
        }
        assert_eq!(pairs_by_count, BTreeMap::from([(1, 432), (3, 1728), (8, 18432)]));

        let mut by_hops = BTreeMap::new();
        for a in 0..36u32 {
            for b in (0..36u32).filter(|&b| b / 4 != a / 4) {
                // One host under each switch stands for the switch pair.
                for p in dragonfly_paths(&shape, &topo, a * 4, b * 4) {
                    *by_hops.entry(p.len() - 3).or_insert(0) += 1;
                }
            }
        }
        assert_eq!(by_hops, BTreeMap::from([(1, 72), (2, 504), (3, 1512), (4, 3240), (5, 3888)]));
    }

    /// docs/reproductions/laps-paper.md, A1 (rail): 448 pairs with 1 path and 3584 with 8; a path through
    /// rail r has 4 + 2·[r ≠ r1] + 2·[r ≠ r2] links.
    #[test]
    fn a1_rail_path_sets() {
        let topo = paper_rail();
        let (mut one, mut eight) = (0, 0);
        for src in 0..64 {
            for dst in (0..64).filter(|&d| d != src) {
                let paths = rail_paths(&topo, 8, src, dst);
                for p in &paths {
                    assert_valid(&topo, src, dst, p);
                }
                match paths.len() {
                    1 => {
                        one += 1;
                        assert_eq!(paths[0].len() - 1, 4);
                    }
                    8 => {
                        eight += 1;
                        let (r1, r2) = (src % 8, dst % 8);
                        for (r, p) in paths.iter().enumerate() {
                            let expected = 4 + 2 * usize::from(r as u32 != r1) + 2 * usize::from(r as u32 != r2);
                            assert_eq!(p.len() - 1, expected, "rail {r} from {src} to {dst}");
                        }
                    }
                    n => panic!("{n} paths from {src} to {dst}"),
                }
            }
        }
        assert_eq!((one, eight), (448, 3584));
    }

    /// docs/reproductions/laps-paper.md, A2: idleVal under the artefact's formula is 1166·L ns on the
    /// dragonfly (1000 + 83 + 83 per 100G hop) and 4580 / 6912 / 9244 ns for rail paths
    /// of 4 / 6 / 8 links with 200G host links; T is the largest over a pair's paths.
    #[test]
    fn a2_idle_latencies() {
        let (shape, topo) = paper_dragonfly();
        for p in dragonfly_paths(&shape, &topo, 0, 143) {
            let links = path_links(&topo, &p).unwrap();
            assert_eq!(idle_val(&links, S), Time::from_ns(1166 * links.len() as u64));
        }
        let topo = paper_rail();
        let idle = |p: &Vec<u32>| idle_val(&path_links(&topo, p).unwrap(), S);
        // GPU (0, 2) to GPU (1, 2): same rail (one 4-link path, seven 8-link ones).
        let same_rail = rail_paths(&topo, 8, 2, 8 + 2);
        assert_eq!(idle(&same_rail[2]), Time::from_ns(4580));
        assert!(same_rail.iter().enumerate().all(|(r, p)| r == 2 || idle(p) == Time::from_ns(9244)));
        // GPU (0, 2) to GPU (1, 5): two 6-link paths (rails 2 and 5).
        let other_rail = rail_paths(&topo, 8, 2, 8 + 5);
        assert_eq!((idle(&other_rail[2]), idle(&other_rail[5])), (Time::from_ns(6912), Time::from_ns(6912)));
        let target = other_rail.iter().map(idle).max().unwrap();
        assert_eq!(target, Time::from_ns(9244));
        // Intra-server: 4 links, T = 4580 ns.
        assert_eq!(idle(&rail_paths(&topo, 8, 0, 7)[0]), Time::from_ns(4580));
    }
}
