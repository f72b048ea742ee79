//! The k shortest loop-free paths between two nodes by hop count (Yen, "Finding the K
//! Shortest Loopless Paths in a Network", Management Science 17(11), 1971), within a
//! length slack of the shortest: the generic candidate paths issue 28 asks for on any
//! topology (LAPS paper §3.2: "any unequal-cost topology"; docs/models/laps.md).
//!
//! The graph is unweighted (every link one hop), so each spur search is a breadth-first
//! search. Ties are broken by the node sequence (lexicographic), so the same graph always
//! gives the same paths in the same order. Nodes for which `transit` is false (hosts)
//! may start or end a path but never sit inside one.

use std::collections::{BTreeSet, HashSet, VecDeque};

/// Up to `k` loop-free paths from `src` to `dst` over `adj` (each node's neighbours, in
/// ascending order), in order of hop count, then of node sequence, no longer than the
/// shortest plus `slack` hops. Empty when `dst` cannot be reached (or `k` is 0).
pub fn k_shortest_paths(
    adj: &[Vec<u32>],
    src: u32,
    dst: u32,
    k: usize,
    slack: usize,
    transit: impl Fn(u32) -> bool,
) -> Vec<Vec<u32>> {
    debug_assert!(adj.iter().all(|n| n.windows(2).all(|w| w[0] <= w[1])), "neighbours in ascending order");
    if k == 0 {
        return Vec::new();
    }
    let none = HashSet::new();
    let mut banned_nodes = vec![false; adj.len()];
    let Some(first) = shortest(adj, src, dst, &banned_nodes, &none, &transit) else { return Vec::new() };
    let longest = first.len() + slack;
    let mut found: Vec<Vec<u32>> = vec![first];
    // Candidates by (hops, nodes): the smallest is the next path.
    let mut candidates: BTreeSet<(usize, Vec<u32>)> = BTreeSet::new();
    while found.len() < k {
        let last = found.last().expect("at least the shortest").clone();
        for j in 0..last.len() - 1 {
            let (spur, root) = (last[j], &last[..=j]);
            // Leave the root's earlier nodes out, and every link a found path with this
            // root takes next, so the spur search finds a new path.
            let banned_links: HashSet<(u32, u32)> =
                found.iter().filter(|p| p.len() > j + 1 && p[..=j] == *root).map(|p| (p[j], p[j + 1])).collect();
            banned_nodes.iter_mut().for_each(|b| *b = false);
            for &n in &root[..j] {
                banned_nodes[n as usize] = true;
            }
            if let Some(spur_path) = shortest(adj, spur, dst, &banned_nodes, &banned_links, &transit) {
                let mut path = root[..j].to_vec();
                path.extend(spur_path);
                if path.len() <= longest && !found.contains(&path) {
                    candidates.insert((path.len(), path));
                }
            }
        }
        match candidates.pop_first() {
            Some((_, path)) => found.push(path),
            None => break,
        }
    }
    found
}

/// The shortest path from `from` to `to` avoiding `banned_nodes` and `banned_links`,
/// smallest node sequence among equals (neighbours visited in ascending order).
fn shortest(
    adj: &[Vec<u32>],
    from: u32,
    to: u32,
    banned_nodes: &[bool],
    banned_links: &HashSet<(u32, u32)>,
    transit: &impl Fn(u32) -> bool,
) -> Option<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let mut parent = vec![UNSEEN; adj.len()];
    parent[from as usize] = from;
    let mut queue = VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        if u == to {
            break;
        }
        if u != from && !transit(u) {
            continue;
        }
        for &v in &adj[u as usize] {
            if parent[v as usize] == UNSEEN && !banned_nodes[v as usize] && !banned_links.contains(&(u, v)) {
                parent[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    if parent[to as usize] == UNSEEN {
        return None;
    }
    let mut path = vec![to];
    while *path.last().expect("non-empty") != from {
        path.push(parent[*path.last().expect("non-empty") as usize]);
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Neighbour lists from undirected links.
    fn graph(n: u32, links: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); n as usize];
        for &(a, b) in links {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        adj.iter_mut().for_each(|n| n.sort_unstable());
        adj
    }

    /// A ring of five switches 0-1-2-3-4-0: from 0 to 2 the short way (2 hops) and the
    /// long way round (3 hops), nothing else without a loop.
    #[test]
    fn a_ring_has_two_ways_round() {
        let ring = graph(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]);
        let all = |_| true;
        assert_eq!(k_shortest_paths(&ring, 0, 2, 8, 5, all), vec![vec![0, 1, 2], vec![0, 4, 3, 2]]);
        assert_eq!(k_shortest_paths(&ring, 0, 2, 8, 0, all), vec![vec![0, 1, 2]], "no slack: the short way");
        assert_eq!(k_shortest_paths(&ring, 0, 2, 1, 5, all), vec![vec![0, 1, 2]], "k = 1");
        assert_eq!(k_shortest_paths(&ring, 3, 3, 4, 2, all), vec![vec![3]], "to itself");
    }

    /// A 2-tier leaf-spine: hosts 0 and 1 on leaves 2 and 3, a third leaf 4, spines 5 and
    /// 6. From host 0 to host 1: one 4-hop path per spine; with 2 hops of slack also the
    /// two that bounce through leaf 4 (leaf 2, spine, leaf 4, other spine, leaf 3); hosts
    /// are never transit, so no path passes through host 1's twin on leaf 4 (host 7).
    #[test]
    fn a_leaf_spine_gives_a_path_per_spine_then_the_bounces() {
        let fabric = graph(8, &[(0, 2), (1, 3), (7, 4), (2, 5), (2, 6), (3, 5), (3, 6), (4, 5), (4, 6)]);
        let switches = |n: u32| (2..=6).contains(&n);
        assert_eq!(k_shortest_paths(&fabric, 0, 1, 16, 0, switches), vec![vec![0, 2, 5, 3, 1], vec![0, 2, 6, 3, 1]]);
        assert_eq!(
            k_shortest_paths(&fabric, 0, 1, 16, 2, switches),
            vec![vec![0, 2, 5, 3, 1], vec![0, 2, 6, 3, 1], vec![0, 2, 5, 4, 6, 3, 1], vec![0, 2, 6, 4, 5, 3, 1]]
        );
        // With host 7 allowed as transit nothing changes: it hangs off leaf 4 alone.
        assert_eq!(k_shortest_paths(&fabric, 0, 1, 16, 2, |_| true).len(), 4);
        // No way across: an isolated node.
        let cut = graph(3, &[(0, 1)]);
        assert!(k_shortest_paths(&cut, 0, 2, 4, 4, |_| true).is_empty());
    }

    /// The dragonfly's candidate sets (LAPS paper §4.1; `paths::dragonfly_paths`) at the
    /// level of groups: on the all-to-all graph of the 9 groups, the shortest path plus
    /// one hop of slack is the direct global link and one two-hop (Valiant) path through
    /// each of the 7 other groups: the groups today's sets visit, path for path.
    #[test]
    fn dragonfly_groups_give_the_minimal_and_valiant_paths() {
        use crate::paths::dragonfly_paths;
        use crate::topology::{dragonfly, DragonflyShape};
        use crate::units::{Rate, Time};
        let l = (Rate::gbps(100), Time::from_us(1));
        let shape = DragonflyShape { groups: 9, routers: 4, hosts_per_router: 4 };
        let topo = dragonfly(&shape, l, l, l);
        let links: Vec<(u32, u32)> = (0..9).flat_map(|a| (a + 1..9).map(move |b| (a, b))).collect();
        let groups = graph(9, &links);
        let switch_of = |node: u32| if node < topo.n_hosts { topo.host_edge[node as usize] } else { node };
        let group_of = |node: u32| (switch_of(node) - topo.n_hosts) / shape.routers;
        for (src, dst) in [(0, 16), (5, 140), (143, 1), (70, 33)] {
            let (g, h) = (group_of(src), group_of(dst));
            let mut today: Vec<Vec<u32>> = dragonfly_paths(&shape, &topo, src, dst)
                .iter()
                .map(|p| {
                    let mut visited: Vec<u32> = p.iter().map(|&n| group_of(n)).collect();
                    visited.dedup();
                    visited
                })
                .collect();
            today.sort();
            let mut yen = k_shortest_paths(&groups, g, h, 64, 1, |_| true);
            yen.sort();
            assert_eq!(yen.len(), 8, "minimal + 7 Valiant");
            assert_eq!(yen, today, "hosts {src} -> {dst}");
        }
    }
}
