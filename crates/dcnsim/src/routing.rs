//! Equal-cost next-hop tables. For every (switch, destination edge switch) pair the table
//! holds the ports that lie on a shortest path over the links that are up, found by one
//! breadth-first search per edge switch. Forwarding is then two `Vec` lookups and a hash
//! of the packet's entropy: no maps on the hot path (docs/architecture.md).

use crate::engine::splitmix64;
use crate::net::Port;

pub struct Routing {
    n_hosts: u32,
    /// Edge switch of each host, and the port on it that leads down to the host.
    pub host_edge: Vec<u32>,
    pub host_down_port: Vec<u32>,
    /// Host uplink port.
    pub host_up_port: Vec<u32>,
    /// Dense index of each edge switch (u32::MAX for switches without hosts).
    edge_index: Vec<u32>,
    n_edges: u32,
    /// (start, len) into `next` for [switch * n_edges + edge].
    table: Vec<(u32, u32)>,
    next: Vec<u32>,
    /// Hop distance (in switch-to-switch links) between edge switches' indices.
    pub edge_distance: Vec<u32>,
}

#[derive(Debug)]
pub struct Unreachable {
    pub from_switch: u32,
    pub to_switch: u32,
}

impl Routing {
    /// Bytes of the forwarding tables.
    pub fn heap_bytes(&self) -> u64 {
        4 * (self.host_edge.capacity()
            + self.host_down_port.capacity()
            + self.host_up_port.capacity()
            + self.edge_index.capacity()
            + self.next.capacity()
            + self.edge_distance.capacity()
            + 2 * self.table.capacity()) as u64
    }

    pub fn compute(
        n_hosts: u32,
        n_nodes: u32,
        ports: &[Port],
        node_ports: &[Vec<u32>],
        host_edge: &[u32],
    ) -> Result<Routing, Unreachable> {
        Self::compute_over(n_hosts, n_nodes, ports, node_ports, host_edge, None)
    }

    /// The tables after links went down or came back (`fault.rs`): as `compute`, except
    /// that a switch cut off from an edge switch keeps `previous`'s entries for it, so
    /// its packets still head for the dead link and are lost there, as in a fabric whose
    /// routing has no path to offer.
    pub fn recompute(&self, ports: &[Port], node_ports: &[Vec<u32>]) -> Routing {
        let n_nodes = node_ports.len() as u32;
        Self::compute_over(self.n_hosts, n_nodes, ports, node_ports, &self.host_edge, Some(self))
            .expect("with previous tables every entry has ports")
    }

    fn compute_over(
        n_hosts: u32,
        n_nodes: u32,
        ports: &[Port],
        node_ports: &[Vec<u32>],
        host_edge: &[u32],
        previous: Option<&Routing>,
    ) -> Result<Routing, Unreachable> {
        let n_switches = n_nodes - n_hosts;
        let mut edge_index = vec![u32::MAX; n_switches as usize];
        let mut edges = Vec::new();
        for &e in host_edge {
            let si = (e - n_hosts) as usize;
            if edge_index[si] == u32::MAX {
                edge_index[si] = edges.len() as u32;
                edges.push(e);
            }
        }
        let n_edges = edges.len() as u32;
        let mut host_down_port = vec![u32::MAX; n_hosts as usize];
        let mut host_up_port = vec![u32::MAX; n_hosts as usize];
        for h in 0..n_hosts {
            host_up_port[h as usize] = node_ports[h as usize][0];
        }
        for (s, list) in node_ports.iter().enumerate().skip(n_hosts as usize) {
            for &p in list {
                let peer = ports[p as usize].peer;
                if peer < n_hosts && host_edge[peer as usize] == s as u32 {
                    host_down_port[peer as usize] = p;
                }
            }
        }

        let mut table = vec![(0u32, 0u32); n_switches as usize * n_edges as usize];
        let mut next = Vec::new();
        let mut edge_distance = vec![0u32; (n_edges * n_edges) as usize];
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
            for (ej, &src) in edges.iter().enumerate() {
                let d = dist[(src - n_hosts) as usize];
                let cell = ej * n_edges as usize + ei;
                edge_distance[cell] = match (d, previous) {
                    (u32::MAX, None) => return Err(Unreachable { from_switch: src, to_switch: target }),
                    (u32::MAX, Some(old)) => old.edge_distance[cell],
                    _ => d,
                };
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
            edge_index,
            n_edges,
            table,
            next,
            edge_distance,
        })
    }

    /// The equal-cost ports at `switch` towards host `dst`.
    #[inline]
    pub fn candidates(&self, switch: u32, dst: u32) -> &[u32] {
        let edge = self.host_edge[dst as usize];
        if edge == switch {
            return std::slice::from_ref(&self.host_down_port[dst as usize]);
        }
        let ei = self.edge_index[(edge - self.n_hosts) as usize];
        let (start, len) = self.table[((switch - self.n_hosts) * self.n_edges + ei) as usize];
        &self.next[start as usize..(start + len) as usize]
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

    /// Switch-to-switch hops between the edge switches of two hosts.
    pub fn fabric_hops(&self, a: u32, b: u32) -> u32 {
        let ea = self.edge_index[(self.host_edge[a as usize] - self.n_hosts) as usize];
        let eb = self.edge_index[(self.host_edge[b as usize] - self.n_hosts) as usize];
        self.edge_distance[(ea * self.n_edges + eb) as usize]
    }
}
