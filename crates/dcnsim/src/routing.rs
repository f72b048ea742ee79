//! Equal-cost next-hop tables. For every (switch, destination edge switch) pair the table
//! holds the ports that lie on a shortest path over the links that are up, found by one
//! breadth-first search per edge switch. Forwarding is then two `Vec` lookups and a hash
//! of the packet's entropy: no maps on the hot path (docs/architecture.md).

use crate::engine::splitmix64;
use crate::net::Port;
use crate::topology::FatTreeLayout;

pub struct Routing {
    n_hosts: u32,
    /// Edge switch of each host, and the port on it that leads down to the host.
    pub host_edge: Vec<u32>,
    pub host_down_port: Vec<u32>,
    /// Host uplink port.
    pub host_up_port: Vec<u32>,
    next_hops: NextHops,
}

/// How the ports towards a destination edge switch are found.
enum NextHops {
    /// Any fabric: a table per (switch, edge switch), from breadth-first searches.
    Tables(Tables),
    /// A fat tree with every link up: arithmetic on its switch numbering. Tables grow as
    /// switches × edge switches (3.3 GB of (start, len) cells alone at k = 160, and a
    /// breadth-first search per edge switch to fill them); this holds each switch's port
    /// list once.
    FatTree(FatTreeHops),
}

struct Tables {
    /// Dense index of each edge switch (u32::MAX for switches without hosts).
    edge_index: Vec<u32>,
    n_edges: u32,
    /// (start, len) into `next` for [switch * n_edges + edge].
    table: Vec<(u32, u32)>,
    next: Vec<u32>,
}

struct FatTreeHops {
    /// One entry per switch (numbered from 0 after the hosts), and a last one whose
    /// `first` ends the last switch's ports.
    switches: Vec<SwitchHops>,
    /// Switch s's ports, in the builder's order, are `ports[switches[s].first..switches[s + 1].first]`.
    ports: Vec<u32>,
    /// Where each ToR sits, so that forwarding needs no division.
    tors: Vec<TorPlace>,
}

/// A switch's role, with what forwarding needs of it.
#[derive(Clone, Copy)]
struct SwitchHops {
    first: u32,
    /// Where its uplinks start in its port list (ToRs and aggregation switches).
    up: u32,
    /// `TOR`, `TOP` (a core, or a 2-tier spine), or an aggregation switch's pod.
    role: u32,
}

const TOR: u32 = u32::MAX;
const TOP: u32 = u32::MAX - 1;

#[derive(Clone, Copy)]
struct TorPlace {
    pod: u32,
    /// Its port on each of its pod's aggregation switches.
    slot: u32,
    /// Its pod's port on a core (3 tiers), or its own port on a spine (2 tiers).
    top: u32,
}

impl FatTreeHops {
    fn new(l: FatTreeLayout, n_hosts: u32, node_ports: &[Vec<u32>]) -> FatTreeHops {
        let lists = &node_ports[n_hosts as usize..];
        let mut switches = Vec::with_capacity(lists.len() + 1);
        let mut ports = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        let n_aggs = if l.tiers == 2 { 0 } else { l.n_pods() * l.aggs_per_pod };
        for (s, list) in (0u32..).zip(lists) {
            let hops = if s < l.n_tors {
                let hosts_here = n_hosts.saturating_sub(s * l.hosts_per_tor).min(l.hosts_per_tor);
                SwitchHops { first: ports.len() as u32, up: hosts_here, role: TOR }
            } else if s - l.n_tors < n_aggs {
                let pod = (s - l.n_tors) / l.aggs_per_pod;
                SwitchHops { first: ports.len() as u32, up: l.tors_per_pod, role: pod }
            } else {
                SwitchHops { first: ports.len() as u32, up: 0, role: TOP }
            };
            switches.push(hops);
            ports.extend_from_slice(list);
        }
        switches.push(SwitchHops { first: ports.len() as u32, up: 0, role: TOP });
        let tors = (0..l.n_tors)
            .map(|t| match l.tiers {
                2 => TorPlace { pod: t, slot: 0, top: t },
                _ => TorPlace { pod: t / l.tors_per_pod, slot: t % l.tors_per_pod, top: t / l.tors_per_pod },
            })
            .collect();
        FatTreeHops { switches, ports, tors }
    }

    /// The equal-cost ports at switch `s` (numbered from 0 after the hosts) towards a
    /// host under ToR `dst_tor`, for a switch other than that ToR: up from a ToR, or from
    /// an aggregation switch outside the destination's pod (every uplink); otherwise the
    /// one port down towards it.
    #[inline]
    fn candidates(&self, s: u32, dst_tor: u32) -> &[u32] {
        let here = self.switches[s as usize];
        let end = self.switches[s as usize + 1].first as usize;
        let place = self.tors[dst_tor as usize];
        let down = |i: u32| std::slice::from_ref(&self.ports[(here.first + i) as usize]);
        match here.role {
            TOR => &self.ports[(here.first + here.up) as usize..end],
            TOP => down(place.top),
            pod if pod == place.pod => down(place.slot),
            _ => &self.ports[(here.first + here.up) as usize..end],
        }
    }
}

#[derive(Debug)]
pub struct Unreachable {
    pub from_switch: u32,
    pub to_switch: u32,
}

impl Routing {
    /// Bytes of the forwarding tables.
    pub fn heap_bytes(&self) -> u64 {
        let hops = match &self.next_hops {
            NextHops::Tables(t) => t.edge_index.capacity() + t.next.capacity() + 2 * t.table.capacity(),
            NextHops::FatTree(f) => 3 * (f.switches.capacity() + f.tors.capacity()) + f.ports.capacity(),
        };
        4 * (self.host_edge.capacity() + self.host_down_port.capacity() + self.host_up_port.capacity() + hops) as u64
    }

    /// The next hops over the links that are up. A fat tree (`fat_tree` given) with every
    /// link up is routed by arithmetic on its layout; any other fabric gets tables.
    pub fn compute(
        n_hosts: u32,
        n_nodes: u32,
        ports: &[Port],
        node_ports: &[Vec<u32>],
        host_edge: &[u32],
        fat_tree: Option<FatTreeLayout>,
    ) -> Result<Routing, Unreachable> {
        match fat_tree {
            Some(layout) if ports.iter().all(|p| p.up) => {
                let (host_down_port, host_up_port) = host_ports(n_hosts, ports, node_ports, host_edge);
                Ok(Routing {
                    n_hosts,
                    host_edge: host_edge.to_vec(),
                    host_down_port,
                    host_up_port,
                    next_hops: NextHops::FatTree(FatTreeHops::new(layout, n_hosts, node_ports)),
                })
            }
            _ => Self::compute_over(n_hosts, n_nodes, ports, node_ports, host_edge, None),
        }
    }

    /// The tables after links went down or came back (`fault.rs`): as `compute`, except
    /// that a switch cut off from an edge switch keeps `previous`'s entries for it, so
    /// its packets still head for the dead link and are lost there, as in a fabric whose
    /// routing has no path to offer. Always tables: the fat tree's arithmetic holds only
    /// while every link is up.
    pub fn recompute(&self, ports: &[Port], node_ports: &[Vec<u32>]) -> Routing {
        let n_nodes = node_ports.len() as u32;
        let previous = match &self.next_hops {
            NextHops::Tables(_) => None,
            NextHops::FatTree(_) => Some(self.as_tables(n_nodes)),
        };
        Self::compute_over(
            self.n_hosts,
            n_nodes,
            ports,
            node_ports,
            &self.host_edge,
            Some(previous.as_ref().unwrap_or(self)),
        )
        .expect("with previous tables every entry has ports")
    }

    /// The same next hops written out as tables.
    fn as_tables(&self, n_nodes: u32) -> Routing {
        let (edge_index, edges) = edge_switches(self.n_hosts, n_nodes, &self.host_edge);
        let n_switches = n_nodes - self.n_hosts;
        let n_edges = edges.len() as u32;
        let mut table = vec![(0u32, 0u32); n_switches as usize * n_edges as usize];
        let mut next = Vec::new();
        let mut first_host = vec![u32::MAX; edges.len()];
        for (h, &e) in self.host_edge.iter().enumerate().rev() {
            first_host[edge_index[(e - self.n_hosts) as usize] as usize] = h as u32;
        }
        for s in self.n_hosts..n_nodes {
            for (ei, &edge) in edges.iter().enumerate() {
                if s == edge {
                    continue;
                }
                let start = next.len() as u32;
                next.extend_from_slice(self.candidates(s, first_host[ei]));
                table[((s - self.n_hosts) * n_edges) as usize + ei] = (start, next.len() as u32 - start);
            }
        }
        Routing {
            n_hosts: self.n_hosts,
            host_edge: self.host_edge.clone(),
            host_down_port: self.host_down_port.clone(),
            host_up_port: self.host_up_port.clone(),
            next_hops: NextHops::Tables(Tables { edge_index, n_edges, table, next }),
        }
    }

    fn compute_over(
        n_hosts: u32,
        n_nodes: u32,
        ports: &[Port],
        node_ports: &[Vec<u32>],
        host_edge: &[u32],
        previous: Option<&Routing>,
    ) -> Result<Routing, Unreachable> {
        let previous = previous.map(|old| match &old.next_hops {
            NextHops::Tables(t) => t,
            NextHops::FatTree(_) => unreachable!("recompute passes tables"),
        });
        let n_switches = n_nodes - n_hosts;
        let (edge_index, edges) = edge_switches(n_hosts, n_nodes, host_edge);
        let n_edges = edges.len() as u32;
        let (host_down_port, host_up_port) = host_ports(n_hosts, ports, node_ports, host_edge);

        let mut table = vec![(0u32, 0u32); n_switches as usize * n_edges as usize];
        let mut next = Vec::new();
        let mut dist = vec![u32::MAX; n_switches as usize];
        let mut frontier = std::collections::VecDeque::new();
        for (ei, &target) in edges.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[(target - n_hosts) as usize] = 0;
            frontier.push_back(target);
            while let Some(u) = frontier.pop_front() {
                let du = dist[(u - n_hosts) as usize];
                for &p in &node_ports[u as usize] {
                    let port = &ports[p as usize];
                    // Links are cables: the reverse direction is up iff this one is.
                    if !port.up || port.peer < n_hosts {
                        continue;
                    }
                    let v = (port.peer - n_hosts) as usize;
                    if dist[v] == u32::MAX {
                        dist[v] = du + 1;
                        frontier.push_back(port.peer);
                    }
                }
            }
            if previous.is_none() {
                if let Some(&src) = edges.iter().find(|&&src| dist[(src - n_hosts) as usize] == u32::MAX) {
                    return Err(Unreachable { from_switch: src, to_switch: target });
                }
            }
            for s in 0..n_switches {
                let ds = dist[s as usize];
                if ds == u32::MAX {
                    if let Some(old) = previous {
                        let (from, len) = old.table[(s * n_edges + ei as u32) as usize];
                        let start = next.len() as u32;
                        next.extend_from_slice(&old.next[from as usize..(from + len) as usize]);
                        table[(s * n_edges + ei as u32) as usize] = (start, len);
                    }
                    continue;
                }
                if ds == 0 {
                    continue;
                }
                let start = next.len() as u32;
                for &p in &node_ports[(s + n_hosts) as usize] {
                    let port = &ports[p as usize];
                    if port.up && port.peer >= n_hosts && dist[(port.peer - n_hosts) as usize] == ds - 1 {
                        next.push(p);
                    }
                }
                table[(s * n_edges + ei as u32) as usize] = (start, next.len() as u32 - start);
            }
        }
        Ok(Routing {
            n_hosts,
            host_edge: host_edge.to_vec(),
            host_down_port,
            host_up_port,
            next_hops: NextHops::Tables(Tables { edge_index, n_edges, table, next }),
        })
    }

    /// The equal-cost ports at `switch` towards host `dst`.
    #[inline]
    pub fn candidates(&self, switch: u32, dst: u32) -> &[u32] {
        let edge = self.host_edge[dst as usize];
        if edge == switch {
            return std::slice::from_ref(&self.host_down_port[dst as usize]);
        }
        match &self.next_hops {
            NextHops::Tables(t) => {
                let ei = t.edge_index[(edge - self.n_hosts) as usize];
                let (start, len) = t.table[((switch - self.n_hosts) * t.n_edges + ei) as usize];
                &t.next[start as usize..(start + len) as usize]
            }
            NextHops::FatTree(f) => f.candidates(switch - self.n_hosts, edge - self.n_hosts),
        }
    }

    /// Whether next hops come from the fat tree's arithmetic rather than tables.
    pub fn by_arithmetic(&self) -> bool {
        matches!(self.next_hops, NextHops::FatTree(_))
    }

    /// The output port at `switch` for a packet to `dst` with path entropy `entropy`.
    /// Each switch hashes the entropy with its own id so that choices at successive
    /// stages are independent (as with per-switch ECMP hash seeds).
    #[inline]
    pub fn forward(&self, switch: u32, dst: u32, entropy: u32) -> u32 {
        let c = self.candidates(switch, dst);
        if c.len() == 1 {
            return c[0];
        }
        let h = splitmix64(((switch as u64) << 32) | entropy as u64);
        c[((h >> 32) * c.len() as u64 >> 32) as usize]
    }
}

/// The edge switches (those with hosts) in order of their first host, and each switch's
/// index among them (u32::MAX for the others).
fn edge_switches(n_hosts: u32, n_nodes: u32, host_edge: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut edge_index = vec![u32::MAX; (n_nodes - n_hosts) as usize];
    let mut edges = Vec::new();
    for &e in host_edge {
        let si = (e - n_hosts) as usize;
        if edge_index[si] == u32::MAX {
            edge_index[si] = edges.len() as u32;
            edges.push(e);
        }
    }
    (edge_index, edges)
}

/// Each host's downlink port (on its edge switch) and uplink port.
fn host_ports(n_hosts: u32, ports: &[Port], node_ports: &[Vec<u32>], host_edge: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut host_down_port = vec![u32::MAX; n_hosts as usize];
    let host_up_port = (0..n_hosts).map(|h| node_ports[h as usize][0]).collect();
    for (s, list) in node_ports.iter().enumerate().skip(n_hosts as usize) {
        for &p in list {
            let peer = ports[p as usize].peer;
            if peer < n_hosts && host_edge[peer as usize] == s as u32 {
                host_down_port[peer as usize] = p;
            }
        }
    }
    (host_down_port, host_up_port)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{fat_tree, FatTreeShape, TierLinks};
    use crate::units::{Rate, Time};

    /// Ports and per-node port lists as the builder makes them: two ports per cable, in
    /// cable order.
    fn wire(topo: &crate::topology::Topology) -> (Vec<Port>, Vec<Vec<u32>>) {
        let mut ports = Vec::new();
        let mut node_ports = vec![Vec::new(); topo.n_nodes() as usize];
        for c in &topo.cables {
            for (from, to) in [(c.a, c.b), (c.b, c.a)] {
                node_ports[from as usize].push(ports.len() as u32);
                ports.push(Port::new(from, to, c.rate, c.latency, 1 << 20));
            }
        }
        (ports, node_ports)
    }

    /// The fat tree's arithmetic gives, for every switch and every host, exactly the ports
    /// (and in the same order, which ECMP's hash indexes) that breadth-first search finds
    /// on the same cables: 2- and 3-tier trees, oversubscribed, thinned uplinks, and
    /// trees with empty ToRs at the end.
    #[test]
    fn fat_tree_arithmetic_matches_breadth_first_search() {
        let l = (Rate::gbps(100), Time::from_ns(500));
        let links = TierLinks { host: l, tor_uplink: l, agg_uplink: l };
        let shapes = [
            (2, 8, 1, (1, 1), 32),
            (2, 6, 2, (1, 1), 31),
            (3, 8, 1, (1, 1), 128),
            (3, 8, 1, (1, 1), 101),
            (3, 6, 2, (1, 1), 100),
            (3, 16, 1, (4, 2), 1024),
        ];
        for (tiers, radix, oversubscription, uplink_ratios, hosts) in shapes {
            let shape = FatTreeShape { tiers, radix, oversubscription, uplink_ratios };
            let topo = fat_tree(&shape, hosts, &links);
            let (ports, node_ports) = wire(&topo);
            let n = topo.n_nodes();
            let by_layout = Routing::compute(hosts, n, &ports, &node_ports, &topo.host_edge, topo.fat_tree).unwrap();
            let by_search = Routing::compute(hosts, n, &ports, &node_ports, &topo.host_edge, None).unwrap();
            assert!(by_layout.by_arithmetic() && !by_search.by_arithmetic());
            for s in hosts..n {
                for d in 0..hosts {
                    assert_eq!(
                        by_layout.candidates(s, d),
                        by_search.candidates(s, d),
                        "{shape:?} {hosts} hosts: switch {s}, host {d}"
                    );
                }
            }
            // And written back out as tables (what a reroute starts from), the same again.
            let tables = by_layout.as_tables(n);
            for s in hosts..n {
                for d in 0..hosts {
                    assert_eq!(tables.candidates(s, d), by_search.candidates(s, d));
                }
            }
        }
    }

    /// A failed link makes the builder fall back to tables, which route around it.
    #[test]
    fn a_failed_link_routes_by_tables() {
        let l = (Rate::gbps(100), Time::from_ns(500));
        let links = TierLinks { host: l, tor_uplink: l, agg_uplink: l };
        let shape = FatTreeShape { tiers: 3, radix: 4, oversubscription: 1, uplink_ratios: (1, 1) };
        let topo = fat_tree(&shape, 16, &links);
        let (mut ports, node_ports) = wire(&topo);
        let tor0 = topo.host_edge[0];
        let up = node_ports[tor0 as usize][2];
        let c = up as usize / 2;
        ports[2 * c].up = false;
        ports[2 * c + 1].up = false;
        let r = Routing::compute(16, topo.n_nodes(), &ports, &node_ports, &topo.host_edge, topo.fat_tree).unwrap();
        assert!(!r.by_arithmetic());
        assert_eq!(r.candidates(tor0, 15), &[node_ports[tor0 as usize][3]]);
    }
}
