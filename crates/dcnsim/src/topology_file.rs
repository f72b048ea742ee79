//! Topologies read from a file, for fabrics no builder covers (issue 7, item 1):
//!
//! - **`csv`**, dcnsim's own: one link per line, `a,b,rate,latency`, after a header line
//!   naming those columns. A node is `h<i>` (host i) or `s<j>` (switch j); hosts must be
//!   numbered 0..H−1 and switches 0..S−1 without gaps. `#` starts a comment line.
//!   ```text
//!   a,b,rate,latency
//!   h0,s0,100Gbps,1us
//!   h1,s0,100Gbps,1us
//!   ```
//! - **`hpcc`**, the `topology.txt` of the HPCC ns-3 simulator that many artefacts ship
//!   (LAPS, ConWeave, …): a line `nodes switches links`, a line listing the switch ids,
//!   then one link per line `src dst rate delay error_rate` (e.g. `0 36 100Gbps 0.001ms 0`).
//!   Nodes not listed as switches are hosts. dcnsim numbers hosts first, so host ids are
//!   renumbered in increasing order and switch ids in the order listed; the error rate
//!   must be 0 (per-link loss is `topology.loss_rate`).
//!
//! Either way a host with one link, to a switch, is a NIC on that switch. A host may also
//! have several links (a multi-homed server) or links to other hosts (a switchless fabric
//! such as a torus, LAPS paper §1): it then gets a NIC node of its own that forwards like a
//! switch (`assemble`; docs/models/topologies.md).

use crate::topology::{Cable, Tier, Topology};
use crate::units::{parse_rate, parse_time, Rate, Time};

/// Which syntax a topology file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyFormat {
    Csv,
    Hpcc,
}

/// A node as a file names it, before numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Host(u32),
    Switch(u32),
}

/// Reads `text` as a topology in `format`. Errors name the line.
pub fn parse(text: &str, format: TopologyFormat) -> Result<Topology, String> {
    match format {
        TopologyFormat::Csv => parse_csv(text),
        TopologyFormat::Hpcc => parse_hpcc(text),
    }
}

fn parse_csv(text: &str) -> Result<Topology, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (_, header) = lines.next().ok_or("the file is empty; the first line must be the header a,b,rate,latency")?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    if columns != ["a", "b", "rate", "latency"] {
        return Err(format!("line 1: header must be a,b,rate,latency, found {header:?}"));
    }
    let node = |s: &str, line: usize| -> Result<Node, String> {
        let s = s.trim();
        let id = |rest: &str| {
            rest.parse::<u32>().map_err(|_| format!("line {line}: node {s:?} must be h<number> or s<number>"))
        };
        match s.split_at_checked(1) {
            Some(("h", rest)) => Ok(Node::Host(id(rest)?)),
            Some(("s", rest)) => Ok(Node::Switch(id(rest)?)),
            _ => Err(format!("line {line}: node {s:?} must be h<number> (host) or s<number> (switch)")),
        }
    };
    let mut links = Vec::new();
    for (i, l) in lines {
        let line = i + 1;
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        if f.len() != 4 {
            return Err(format!("line {line}: expected 4 fields a,b,rate,latency, found {}", f.len()));
        }
        let rate = parse_rate(f[2]).map_err(|e| format!("line {line}: rate: {e}"))?;
        let latency = parse_time(f[3]).map_err(|e| format!("line {line}: latency: {e}"))?;
        links.push((node(f[0], line)?, node(f[1], line)?, rate, latency, line));
    }
    let count = |host: bool| {
        links.iter().flat_map(|&(a, b, ..)| [a, b]).filter_map(move |n| match (n, host) {
            (Node::Host(i), true) | (Node::Switch(i), false) => Some(i),
            _ => None,
        })
    };
    // The node counts come from the ids used, not from the largest id: a vector indexed
    // by the largest id would let one line `h4000000000,...` allocate gigabytes.
    let number = |host: bool, kind: &str| {
        let mut ids: Vec<u32> = count(host).collect();
        ids.sort_unstable();
        ids.dedup();
        match (0..).zip(&ids).find(|&(i, &id)| i != id) {
            Some((gap, _)) => Err(format!("{kind}{gap} has no link; number hosts and switches from 0 without gaps")),
            None => Ok(ids.len() as u32),
        }
    };
    let (hosts, switches) = (number(true, "host h")?, number(false, "switch s")?);
    assemble(hosts, switches, links)
}

fn parse_hpcc(text: &str) -> Result<Topology, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let numbers = |l: &str, line: usize| -> Result<Vec<u64>, String> {
        l.split_whitespace()
            .map(|w| w.parse::<u64>().map_err(|_| format!("line {line}: {w:?} is not a whole number")))
            .collect()
    };
    let (i, first) = lines.next().ok_or("the file is empty; the first line must be `nodes switches links`")?;
    let head = numbers(first, i + 1)?;
    let [nodes, n_switches, n_links] = head[..] else {
        return Err(format!("line {}: expected `nodes switches links`, found {first:?}", i + 1));
    };
    let switch_ids = match lines.next() {
        Some((i, l)) => numbers(l, i + 1)?,
        None if n_switches == 0 => Vec::new(),
        None => return Err("the second line must list the switch ids".into()),
    };
    if switch_ids.len() as u64 != n_switches {
        return Err(format!("line 2: lists {} switch ids, the first line says {n_switches}", switch_ids.len()));
    }
    // Every host has one link line, so a node count beyond the switches plus the lines
    // left is wrong, and refusing it first keeps `role` as small as the file.
    let link_lines = lines.clone().count() as u64;
    if nodes.saturating_sub(n_switches) > link_lines {
        return Err(format!(
            "line {}: {nodes} nodes of which {n_switches} switches leaves {} hosts, but the file has {link_lines} \
             link lines and every host needs one",
            i + 1,
            nodes - n_switches
        ));
    }
    // dcnsim's numbering: hosts 0..H in id order, then switches in the order listed.
    let mut role = vec![None; nodes as usize];
    for (j, &id) in switch_ids.iter().enumerate() {
        match role.get_mut(id as usize) {
            Some(r @ None) => *r = Some(Node::Switch(j as u32)),
            Some(Some(_)) => return Err(format!("line 2: switch id {id} is listed twice")),
            None => return Err(format!("line 2: switch id {id} is not below the node count {nodes}")),
        }
    }
    let mut next_host = 0;
    for r in role.iter_mut().filter(|r| r.is_none()) {
        *r = Some(Node::Host(next_host));
        next_host += 1;
    }
    let mut links = Vec::new();
    for (i, l) in lines {
        let line = i + 1;
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 5 {
            return Err(format!("line {line}: expected `src dst rate delay error_rate`, found {} fields", f.len()));
        }
        let end = |w: &str| -> Result<Node, String> {
            let id: u64 = w.parse().map_err(|_| format!("line {line}: node {w:?} is not a whole number"))?;
            role.get(id as usize)
                .copied()
                .flatten()
                .ok_or_else(|| format!("line {line}: node {id} is not below the node count {nodes}"))
        };
        let rate = parse_rate(f[2]).map_err(|e| format!("line {line}: rate: {e}"))?;
        let latency = parse_time(f[3]).map_err(|e| format!("line {line}: delay: {e}"))?;
        if f[4].parse::<f64>().map_err(|_| format!("line {line}: error rate {:?} is not a number", f[4]))? != 0.0 {
            return Err(format!("line {line}: error rate {} is not supported; use topology.loss_rate", f[4]));
        }
        links.push((end(f[0])?, end(f[1])?, rate, latency, line));
    }
    if links.len() as u64 != n_links {
        return Err(format!("the first line says {n_links} links, the file has {}", links.len()));
    }
    assemble(next_host, n_switches as u32, links)
}

/// Builds the topology. A host with one link, to a switch, is a NIC on that switch. A host
/// with several links, or with a link to another host, sits behind a NIC node of its own
/// (docs/models/topologies.md, "Hosts with several links, and switchless fabrics"): the host
/// links to it at the sum of its links' rates with no latency, and the file's links start
/// from the NIC node, which forwards like a switch. So a dual-homed server and a switchless
/// fabric, where hosts relay each other's packets, both run on the ordinary routing.
fn assemble(hosts: u32, switches: u32, links: Vec<(Node, Node, Rate, Time, usize)>) -> Result<Topology, String> {
    let mut degree = vec![0u32; hosts as usize];
    let mut to_host = vec![false; hosts as usize];
    let mut link_rates = vec![0u64; hosts as usize];
    for &(a, b, rate, _, line) in &links {
        if a == b {
            return Err(format!("line {line}: a link from a node to itself"));
        }
        for (end, other) in [(a, b), (b, a)] {
            if let Node::Host(h) = end {
                degree[h as usize] += 1;
                link_rates[h as usize] += rate.bps();
                to_host[h as usize] |= matches!(other, Node::Host(_));
            }
        }
    }
    if let Some(h) = degree.iter().position(|&d| d == 0) {
        return Err(format!("host {h} has no link"));
    }
    // NIC nodes are numbered after the file's switches, in host order.
    let mut nic = vec![u32::MAX; hosts as usize];
    let mut n_nics = 0;
    for h in 0..hosts as usize {
        if degree[h] > 1 || to_host[h] {
            nic[h] = hosts + switches + n_nics;
            n_nics += 1;
        }
    }
    let id = |n: Node| match n {
        Node::Host(i) if nic[i as usize] != u32::MAX => nic[i as usize],
        Node::Host(i) => i,
        Node::Switch(j) => hosts + j,
    };
    let mut host_edge = nic.clone();
    let mut cables = Vec::with_capacity(links.len() + n_nics as usize);
    for (a, b, rate, latency, _) in links {
        let (a, b) = match (a, b) {
            (Node::Switch(_), Node::Host(_)) => (b, a),
            _ => (a, b),
        };
        let tier = match a {
            Node::Host(h) if nic[h as usize] == u32::MAX => {
                host_edge[h as usize] = id(b);
                Tier::Host
            }
            _ => Tier::TorUplink,
        };
        cables.push(Cable { a: id(a), b: id(b), rate, latency, tier });
    }
    for h in (0..hosts).filter(|&h| nic[h as usize] != u32::MAX) {
        let rate = Rate(link_rates[h as usize]);
        cables.push(Cable { a: h, b: nic[h as usize], rate, latency: Time::ZERO, tier: Tier::Host });
    }
    let host_pod = host_edge.iter().map(|&e| e - hosts).collect();
    let behind_nics = match n_nics {
        0 => String::new(),
        n => format!(", {n} hosts behind a NIC node (several links, or links to hosts)"),
    };
    Ok(Topology {
        n_hosts: hosts,
        n_switches: switches + n_nics,
        cables,
        host_edge,
        host_pod,
        slow_last: (0, Time::ZERO),
        fat_tree: None,
        description: format!("from file: {hosts} hosts, {switches} switches{behind_nics}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LAPS rail fabric written out in HPCC's format the way its artefact numbers it
    /// (switch nodes 0–79 first, GPUs 80–143), read back: the same counts and wiring as
    /// `topology::rail`, hosts renumbered to come first.
    #[test]
    fn hpcc_file_of_the_rail_fabric_matches_the_builder() {
        let mut text = String::from("144 80 192\n");
        text += &(0..80).map(|i| i.to_string()).collect::<Vec<_>>().join(" ");
        text += "\n";
        for c in 0..8 {
            for r in 0..8 {
                let (gpu, edge) = (80 + 8 * c + r, 8 + 8 * c + r);
                text += &format!(
                    "{gpu} {edge} 200Gbps 0.001ms 0\n{edge} {r} 100Gbps 0.001ms 0\n{edge} {} 100Gbps 0.001ms 0\n",
                    72 + c
                );
            }
        }
        let t = parse(&text, TopologyFormat::Hpcc).unwrap();
        assert_eq!((t.n_hosts, t.n_switches, t.cables.len()), (64, 80, 192));
        // GPU (3, 5): file node 80 + 29 is host 29, behind file node 8 + 29 (switch 37,
        // dcnsim node 64 + 37), which links to rail switch 5 and NVLink switch 72 + 3.
        assert_eq!(t.host_edge[29], 64 + 37);
        let peers: Vec<u32> = t.cables.iter().filter(|c| c.a == 64 + 37).map(|c| c.b).collect();
        assert_eq!(peers, vec![64 + 5, 64 + 75]);
        let host_link = t.cables.iter().find(|c| c.a == 29).unwrap();
        assert_eq!((host_link.rate, host_link.latency), (Rate::gbps(200), Time::from_us(1)));
    }

    /// Fuzz target `topology_file` (issue 10): a node count of 34444444444445 in the first
    /// line allocated a role per node (220 TB) before reading a single link.
    #[test]
    fn hpcc_node_count_beyond_the_links_is_refused_before_allocating() {
        let text = "34444444444445 2 4\n3 04\n 3 0100Gbs,s1,44444444440Gbp444a,sate4b\nh0,s\0\0\n,4";
        let e = parse(text, TopologyFormat::Hpcc).unwrap_err();
        assert!(e.contains("line 1: 34444444444445 nodes") && e.contains("3 link lines"), "{e}");
    }

    /// The same in the CSV format, found by reading the HPCC fix's neighbour: one host
    /// numbered 4000000000 sized a vector by the largest id, and h4294967295 overflowed
    /// `max + 1`. Ids are now counted, so a large one is just a gap.
    #[test]
    fn csv_huge_node_id_is_a_gap_not_an_allocation() {
        let e = parse("a,b,rate,latency\nh4000000000,s0,1Gbps,1us\n", TopologyFormat::Csv).unwrap_err();
        assert!(e.contains("host h0 has no link"), "{e}");
        let e = parse("a,b,rate,latency\nh0,s4294967295,1Gbps,1us\n", TopologyFormat::Csv).unwrap_err();
        assert!(e.contains("switch s0 has no link"), "{e}");
    }

    #[test]
    fn csv_file_builds_a_dumbbell() {
        let text = "# two racks\na,b,rate,latency\nh0,s0,100Gbps,1us\nh1,s0,100Gbps,1us\nh2,s1,100Gbps,1us\ns0,s1,40Gbps,2us\n";
        let t = parse(text, TopologyFormat::Csv).unwrap();
        assert_eq!((t.n_hosts, t.n_switches), (3, 2));
        assert_eq!(t.host_edge, vec![3, 3, 4]);
        assert_eq!(t.cables[3].rate, Rate::gbps(40));
    }

    /// A dual-homed host: its two links start from a NIC node (node 2 + 2 switches = 4),
    /// and its own link to that node carries the sum of their rates with no latency.
    #[test]
    fn a_host_with_two_links_sits_behind_a_nic_node() {
        let text = "a,b,rate,latency\nh0,s0,100Gbps,1us\nh0,s1,25Gbps,1us\nh1,s0,100Gbps,1us\ns1,h1,100Gbps,1us\n";
        let t = parse(text, TopologyFormat::Csv).unwrap();
        assert_eq!((t.n_hosts, t.n_switches, t.cables.len()), (2, 4, 6));
        assert_eq!(t.host_edge, vec![4, 5]);
        let ends: Vec<(u32, u32)> = t.cables.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(ends, vec![(4, 2), (4, 3), (5, 2), (5, 3), (0, 4), (1, 5)]);
        let own = &t.cables[4];
        assert_eq!((own.rate, own.latency, own.tier), (Rate::gbps(125), Time::ZERO, Tier::Host));
        assert!(t.description.contains("2 hosts behind a NIC node"), "{}", t.description);
    }

    /// Hosts cabled to each other (a switchless ring of three) and a host on one switch
    /// side by side: only the ring's hosts get NIC nodes, cabled NIC to NIC.
    #[test]
    fn host_to_host_links_join_nic_nodes() {
        let text = "a,b,rate,latency\nh0,h1,100Gbps,1us\nh1,h2,100Gbps,1us\nh2,h0,100Gbps,1us\nh2,s0,100Gbps,1us\nh3,s0,100Gbps,1us\n";
        let t = parse(text, TopologyFormat::Csv).unwrap();
        assert_eq!((t.n_hosts, t.n_switches), (4, 4));
        // Switch s0 is node 4; hosts 0, 1, 2 get NIC nodes 5, 6, 7; host 3 stays on s0.
        assert_eq!(t.host_edge, vec![5, 6, 7, 4]);
        let ends: Vec<(u32, u32)> = t.cables.iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(ends, vec![(5, 6), (6, 7), (7, 5), (7, 4), (3, 4), (0, 5), (1, 6), (2, 7)]);
        assert_eq!(t.cables[7].rate, Rate::gbps(300));
    }

    /// Bad files are refused with the line and the rule broken.
    #[test]
    fn bad_files_name_the_line_and_the_rule() {
        let csv = |body: &str| parse(&format!("a,b,rate,latency\n{body}"), TopologyFormat::Csv).unwrap_err();
        assert!(csv("h0,h0,100Gbps,1us\n").contains("line 2: a link from a node to itself"));
        assert!(csv("h0,x0,100Gbps,1us\n").contains("line 2: node \"x0\""));
        assert!(csv("h0,s0,fast,1us\n").contains("line 2: rate"));
        assert!(csv("h0,s1,1Gbps,1us\nh1,s1,1Gbps,1us\n").contains("switch s0 has no link"));
        assert!(parse("a,b,rate\n", TopologyFormat::Csv).unwrap_err().contains("header"));
        let hpcc = |t: &str| parse(t, TopologyFormat::Hpcc).unwrap_err();
        assert!(hpcc("3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0.01\n").contains("line 4: error rate"));
        assert!(hpcc("3 1 3\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n").contains("says 3 links"));
        let links = "0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n";
        assert!(hpcc(&format!("3 1 2\n5\n{links}")).contains("switch id 5 is not below the node count 3"));
    }
}
