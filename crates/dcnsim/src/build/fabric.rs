//! The fabric a scenario describes: generated topologies, a topology file, the explicit
//! candidate paths (source routes, LAPS path sets) and the unified DCQCN window.

use super::*;

pub(super) fn check_fraction(field: &str, v: f64) -> Result<(), ScenarioError> {
    if !(0.0..1.0).contains(&v) {
        return err(field, format!("{v}: allowed 0 <= value < 1"));
    }
    Ok(())
}

/// `topology.oversubscription_tiers`: one ratio per tier with uplinks, each dividing k/2.
pub(super) fn uplink_ratios(given: Option<&[u32]>, tiers: u32, radix: u32) -> Result<(u32, u32), ScenarioError> {
    let Some(ratios) = given else { return Ok((1, 1)) };
    let field = "topology.oversubscription_tiers";
    let want = (tiers - 1) as usize;
    if ratios.len() != want {
        let shape = if tiers == 3 { "[tor, agg]" } else { "[leaf]" };
        return err(field, format!("{ratios:?}: a {tiers}-tier tree takes {want} ratio(s), {shape}"));
    }
    let half = radix / 2;
    if let Some(r) = ratios.iter().find(|&&r| r == 0 || half % r != 0) {
        let divisors: Vec<u32> = (1..=half).filter(|d| half % d == 0).collect();
        return err(field, format!("{r}: each ratio must divide k/2 = {half} (radix {radix}); allowed {divisors:?}"));
    }
    Ok((ratios[0], ratios.get(1).copied().unwrap_or(1)))
}

/// `kind = "file"`: reads and checks the topology file (`topology_file.rs`).
pub(super) fn topology_from_file(t: &crate::scenario::TopologyCfg, base_dir: &Path) -> Result<Topology, ScenarioError> {
    use crate::scenario::TopologyFileFormat;
    use crate::topology_file::{parse, TopologyFormat};
    let Some(file) = &t.file else {
        return err("topology.file", "required for kind = \"file\": a topology file (csv or HPCC topology.txt)");
    };
    let format = match (t.format, file.rsplit_once('.').map(|(_, ext)| ext)) {
        (Some(TopologyFileFormat::Csv), _) | (None, Some("csv")) => TopologyFormat::Csv,
        (Some(TopologyFileFormat::Hpcc), _) | (None, Some("txt")) => TopologyFormat::Hpcc,
        (None, _) => {
            return err(
                "topology.format",
                format!("cannot tell the syntax of {file:?} from its name; allowed: \"csv\" or \"hpcc\""),
            )
        }
    };
    let text = std::fs::read_to_string(base_dir.join(file))
        .map_err(|e| ScenarioError(format!("topology.file: cannot read {file}: {e}")))?;
    let topo = parse(&text, format).map_err(|e| ScenarioError(format!("topology.file: {file}: {e}")))?;
    if topo.n_hosts != t.hosts {
        return err("topology.hosts", format!("{}, but {file} has {} hosts", t.hosts, topo.n_hosts));
    }
    Ok(topo)
}

/// Explicit routes for the flows with `lb = "rps"` or `"laps"`, from the topology's
/// path-set rule.
pub(super) fn source_routes(
    s: &Scenario,
    topo: &Topology,
    ports: &[Port],
    node_ports: &[Vec<u32>],
    specs: &[crate::workload::FlowSpec],
) -> Result<crate::paths::SourceRoutes, ScenarioError> {
    use crate::paths::{PathRule, SourceRoutes};
    let t = &s.topology;
    let has_paths = matches!(t.kind, TopologyKind::Dragonfly | TopologyKind::Rail);
    let routed = |lb: LbName| match lb {
        LbName::Rps | LbName::Laps | LbName::Conga | LbName::Conweave => true,
        LbName::Ecmp | LbName::Letflow | LbName::Plb => has_paths && s.transport.lb_paths == LbPaths::Candidates,
        _ => false,
    };
    if !specs.iter().any(|f| routed(f.lb)) {
        return Ok(SourceRoutes::default());
    }
    let rule = match t.kind {
        TopologyKind::Dragonfly => {
            let (groups, routers) = (t.groups.unwrap_or(9), t.routers_per_group.unwrap_or(4));
            PathRule::Dragonfly(topology::DragonflyShape {
                groups,
                routers,
                hosts_per_router: t.hosts / (groups * routers),
            })
        }
        TopologyKind::Rail => PathRule::Rail { rails: t.rails.unwrap_or(8) },
        _ => {
            let cfg = s.transport.candidate_paths;
            if cfg.k == 0 {
                return err("transport.candidate_paths.k", "0: allowed 1 or more paths per host pair");
            }
            PathRule::shortest(topo, cfg)
        }
    };
    let flows = specs.iter().map(|f| (f.src, f.dst, routed(f.lb)));
    SourceRoutes::build(&rule, topo, ports, node_ports, flows).map_err(|e| {
        ScenarioError(format!(
            "topology.failed_links: every candidate path from host {} to host {} crosses a failed link; lower failed_links or change seed",
            e.src, e.dst
        ))
    })
}

/// LAPS's path table for the source-routed paths (only when some flow runs LAPS): idle
/// latencies for a full packet of `mtu` bytes (LAPS paper §3.4; `docs/models/laps.md`).
pub(super) fn laps_paths(
    routes: &crate::paths::SourceRoutes,
    specs: &[crate::workload::FlowSpec],
    params: &crate::laps::LapsParams,
    mtu: u64,
) -> Option<Box<PathTable>> {
    use crate::paths::{idle_val, unloaded_latency};
    if !specs.iter().any(|f| f.lb == LbName::Laps) {
        return None;
    }
    let idle: Vec<Time> = routes.links.iter().map(|l| idle_val(l, mtu)).collect();
    let initial: Vec<Time> = routes.links.iter().map(|l| unloaded_latency(l, mtu)).collect();
    Some(Box::new(PathTable::new(params, &idle, &initial)))
}

/// DCQCN's unified window (`transport.dcqcn.window = "bdp"`, `docs/models/dcqcn.md`; also
/// the rate-based DCTCP's with `transport.dctcp.rate.window = "bdp"`): the largest one-way
/// bandwidth-delay product of a full packet over every path any flow of the scenario may
/// take: all its candidate paths when it is source-routed or hashed over them
/// (`lb_paths = "candidates"`), else its routed path (equal-cost alternatives have the same
/// delay and rates on the regular fabrics). Zero when no flow needs it.
pub(super) fn dcqcn_unified_bdp(
    s: &Scenario,
    routes: &crate::paths::SourceRoutes,
    ports: &[Port],
    routing: &Routing,
    n_hosts: u32,
    specs: &[crate::workload::FlowSpec],
    mtu: u64,
) -> u64 {
    use crate::cc::dctcp::DctcpVariant;
    use crate::paths::one_way_bdp;
    use crate::scenario::CcName;
    let t = &s.transport;
    let dcqcn = t.dcqcn.window == WindowCap::Bdp && specs.iter().any(|f| f.cc == CcName::Dcqcn);
    let dctcp_rate = t.dctcp.variant == DctcpVariant::Rate
        && t.dctcp.rate.window == WindowCap::Bdp
        && specs.iter().any(|f| f.cc == CcName::Dctcp);
    if !dcqcn && !dctcp_rate {
        return 0;
    }
    let mut best = 0u64;
    let mut seen = std::collections::HashSet::new();
    for (id, sp) in specs.iter().enumerate() {
        let (first, n) = routes.paths_of(id as u32);
        if !seen.insert((sp.src, sp.dst, first, n)) {
            continue;
        }
        if n > 0 {
            for p in first..first + n {
                best = best.max(one_way_bdp(&routes.links[p as usize], mtu));
            }
        } else {
            let fwd = path(ports, routing, n_hosts, sp.src, sp.dst);
            let links: Vec<_> = fwd.iter().map(|&p| (ports[p as usize].rate, ports[p as usize].latency)).collect();
            best = best.max(one_way_bdp(&links, mtu));
        }
    }
    best
}

/// The fabric's largest unloaded round trip, a full `mtu` packet out and a `header`-byte
/// ACK back, and the BDP of that path at its bottleneck rate (bytes): NSCC's network-wide
/// constants (`docs/models/nscc.md`, "Network-wide constants"; uet-htsim sets them once
/// from the fabric's largest RTT). Measured over the routed paths from a few probe hosts
/// (the first, the middle and the last host, and up to 8 distinct flow sources) to every
/// host, both ways: exact on the regular fabrics, where every host sees the same set of
/// distances, and on any fabric at least every probed flow's own path. `(0, 0)` when no
/// flow runs NSCC.
pub(super) fn network_rtt(
    ports: &[Port],
    routing: &Routing,
    n_hosts: u32,
    specs: &[crate::workload::FlowSpec],
    mtu: u64,
    header: u32,
) -> (Time, u64) {
    use crate::scenario::CcName;
    if !specs.iter().any(|f| matches!(f.cc, CcName::Nscc | CcName::Mnscc)) {
        return (Time::ZERO, 0);
    }
    let mut probes = vec![0, n_hosts / 2, n_hosts - 1];
    for sp in specs {
        if probes.len() >= 11 {
            break;
        }
        if !probes.contains(&sp.src) {
            probes.push(sp.src);
        }
    }
    let mut best = (Time::ZERO, 0u64);
    for &a in &probes {
        for b in 0..n_hosts {
            if a == b {
                continue;
            }
            for (src, dst) in [(a, b), (b, a)] {
                let fwd = path(ports, routing, n_hosts, src, dst);
                let rev = path(ports, routing, n_hosts, dst, src);
                let (rtt, rate) = path_rtt(ports, &fwd, &rev, mtu, header);
                if rtt > best.0 {
                    best = (rtt, rate.bytes_in(rtt) as u64);
                }
            }
        }
    }
    best
}

/// The unloaded round trip of the forward path `fwd` (port ids) with its reverse `rev`: a
/// full `mtu` packet stored and forwarded at every hop, then a `header`-byte ACK back; and
/// the forward path's bottleneck rate. A flow's base RTT and the fabric's network RTT both.
pub(super) fn path_rtt(ports: &[Port], fwd: &[u32], rev: &[u32], mtu: u64, header: u32) -> (Time, crate::units::Rate) {
    let (rtt, _, rate) = path_delays(ports, fwd, rev, mtu, header);
    (rtt, rate)
}

/// As `path_rtt`, with the forward one-way delay of the full packet in the middle.
pub(super) fn path_delays(
    ports: &[Port],
    fwd: &[u32],
    rev: &[u32],
    mtu: u64,
    header: u32,
) -> (Time, Time, crate::units::Rate) {
    let out = fwd
        .iter()
        .map(|&p| ports[p as usize].serialization(mtu as u32) + ports[p as usize].latency)
        .fold(Time::ZERO, |a, b| a + b);
    let back = rev
        .iter()
        .map(|&p| ports[p as usize].serialization(header) + ports[p as usize].latency)
        .fold(Time::ZERO, |a, b| a + b);
    let rate = fwd.iter().map(|&p| ports[p as usize].rate).min().unwrap();
    (out + back, out, rate)
}

/// The cables that the link-failure lines of the scenario's htsim connection matrices
/// take down (`failure switch_type AGG switch_id S link_id L`, docs/formats.md): the L-th
/// core uplink of aggregation switch S, the aggregation switches numbered pod by pod as
/// htsim numbers them. Only a 3-tier fat tree has them.
pub(super) fn htsim_failed_cables(s: &Scenario, base_dir: &Path, topo: &Topology) -> Result<Vec<usize>, ScenarioError> {
    let mut out = Vec::new();
    for (i, w) in s.workload.iter().enumerate() {
        let (crate::scenario::WorkloadKind::HtsimCm, Some(file)) = (w.kind, &w.file) else { continue };
        let field = format!("workload[{i}].file");
        let path = base_dir.join(file);
        // An unreadable file is reported where the workload is generated.
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let failures = workload::htsim_cm_failures(&text)
            .map_err(|m| ScenarioError(format!("{field}: {}: {m}", path.display())))?;
        if failures.is_empty() {
            continue;
        }
        // Aggregation-to-core cables grouped by aggregation switch, switches in node order
        // (pod by pod) and each one's uplinks in core order, as the fat tree lays them out.
        let mut by_agg: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for (c, cable) in topo.cables.iter().enumerate() {
            if cable.tier == Tier::AggUplink {
                by_agg.entry(cable.a).or_default().push(c);
            }
        }
        let aggs: Vec<&Vec<usize>> = by_agg.values().collect();
        if aggs.is_empty() {
            return err(
                &field,
                format!(
                    "{}: failure lines need a 3-tier fat tree (htsim fails aggregation-to-core links)",
                    path.display()
                ),
            );
        }
        for f in failures {
            let uplinks = aggs.get(f.agg_switch as usize).ok_or_else(|| {
                ScenarioError(format!(
                    "{field}: {} line {}: switch_id {}: the fat tree has aggregation switches 0..{}",
                    path.display(),
                    f.line,
                    f.agg_switch,
                    aggs.len() - 1
                ))
            })?;
            let cable = *uplinks.get(f.uplink as usize).ok_or_else(|| {
                ScenarioError(format!(
                    "{field}: {} line {}: link_id {}: aggregation switch {} has core uplinks 0..{}",
                    path.display(),
                    f.line,
                    f.uplink,
                    f.agg_switch,
                    uplinks.len() - 1
                ))
            })?;
            if out.contains(&cable) {
                return err(
                    &field,
                    format!(
                        "{} line {}: this link is already failed (htsim stops on a repeat)",
                        path.display(),
                        f.line
                    ),
                );
            }
            out.push(cable);
        }
    }
    Ok(out)
}

pub(super) fn build_topology(s: &Scenario, base_dir: &Path) -> Result<Topology, ScenarioError> {
    let t = &s.topology;
    if t.hosts < 2 {
        return err("topology.hosts", format!("{}: a network needs at least 2 hosts", t.hosts));
    }
    let rate = t.link_rate.0;
    let lat = t.link_latency.0;
    let pick = |r: Option<crate::scenario::RateVal>, l: Option<crate::scenario::TimeVal>| {
        (r.map(|x| x.0).unwrap_or(rate), l.map(|x| x.0).unwrap_or(lat))
    };
    let fat_tree_only = [
        ("tor_uplink_rate", t.tor_uplink_rate.is_some()),
        ("tor_uplink_latency", t.tor_uplink_latency.is_some()),
        ("agg_uplink_rate", t.agg_uplink_rate.is_some()),
        ("agg_uplink_latency", t.agg_uplink_latency.is_some()),
        ("radix", t.radix.is_some()),
        ("oversubscription", t.oversubscription != 1),
        ("oversubscription_tiers", t.oversubscription_tiers.is_some()),
    ];
    let is_tree = matches!(t.kind, TopologyKind::FatTree | TopologyKind::LeafSpine);
    if !is_tree && t.tiers.is_some() {
        return err("topology.tiers", "only for kind = \"fat_tree\" (2 or 3) or \"leaf_spine\" (2)");
    }
    if t.kind == TopologyKind::Star {
        if t.loss_rate > 0.0 && t.loss_links == LossLinks::Switch {
            return err(
                "topology.loss_rate",
                "a star has no switch-to-switch links to lose packets on; use a dumbbell or a fat tree, or loss_links = \"all\"",
            );
        }
        if t.failed_links > 0.0 {
            return err("topology.failed_links", "a star has no switch-to-switch links to fail");
        }
    }
    if !is_tree {
        if let Some((name, _)) = fat_tree_only.iter().find(|(_, set)| *set) {
            return err(&format!("topology.{name}"), "only for kind = \"fat_tree\" or \"leaf_spine\"");
        }
    }
    if t.kind != TopologyKind::Parallel {
        for (name, set) in [
            ("paths", t.paths.is_some()),
            ("slow_paths", t.slow_paths.is_some()),
            ("slow_extra_latency", t.slow_extra_latency.is_some()),
        ] {
            if set {
                return err(&format!("topology.{name}"), "only for kind = \"parallel\"");
            }
        }
    }
    let dragonfly_only = [
        ("groups", t.groups.is_some()),
        ("routers_per_group", t.routers_per_group.is_some()),
        ("global_link_rate", t.global_link_rate.is_some()),
        ("global_link_latency", t.global_link_latency.is_some()),
    ];
    if t.kind != TopologyKind::Dragonfly {
        if let Some((name, _)) = dragonfly_only.iter().find(|(_, set)| *set) {
            return err(&format!("topology.{name}"), "only for kind = \"dragonfly\"");
        }
    }
    if t.kind != TopologyKind::File {
        if t.file.is_some() {
            return err("topology.file", "only for kind = \"file\"");
        }
        if t.format.is_some() {
            return err("topology.format", "only for kind = \"file\"");
        }
    }
    if t.kind != TopologyKind::Torus && t.dims.is_some() {
        return err("topology.dims", "only for kind = \"torus\"");
    }
    if t.kind != TopologyKind::Rail && t.rails.is_some() {
        return err("topology.rails", "only for kind = \"rail\"");
    }
    if t.kind != TopologyKind::Dumbbell && (t.bottleneck_rate.is_some() || t.bottleneck_latency.is_some()) {
        return err("topology.bottleneck_rate", "only for kind = \"dumbbell\"");
    }
    match t.kind {
        TopologyKind::FatTree | TopologyKind::LeafSpine => {
            let tiers = match (t.kind, t.tiers) {
                (TopologyKind::LeafSpine, Some(n)) if n != 2 => {
                    return err(
                        "topology.tiers",
                        format!("{n}: a leaf_spine has 2 tiers; use kind = \"fat_tree\" for 3"),
                    );
                }
                (TopologyKind::LeafSpine, _) => 2,
                (_, n) => n.unwrap_or(3),
            };
            if tiers != 2 && tiers != 3 {
                return err("topology.tiers", format!("{tiers}: allowed 2 (leaf-spine) or 3"));
            }
            if tiers == 2 {
                let agg = [
                    ("agg_uplink_rate", t.agg_uplink_rate.is_some()),
                    ("agg_uplink_latency", t.agg_uplink_latency.is_some()),
                ];
                if let Some((name, _)) = agg.iter().find(|(_, set)| *set) {
                    return err(&format!("topology.{name}"), "a 2-tier tree has no aggregation layer");
                }
            }
            if t.oversubscription == 0 {
                return err("topology.oversubscription", "0: allowed a whole ratio >= 1 (1 = non-blocking)");
            }
            let radix = match t.radix {
                Some(k) if k < 2 || k % 2 == 1 => {
                    return err("topology.radix", format!("{k}: allowed an even number >= 2"))
                }
                Some(k) => k,
                None => FatTreeShape::smallest_radix(tiers, t.oversubscription, t.hosts),
            };
            let uplink_ratios = uplink_ratios(t.oversubscription_tiers.as_deref(), tiers, radix)?;
            let shape = FatTreeShape { tiers, radix, oversubscription: t.oversubscription, uplink_ratios };
            if shape.capacity() < t.hosts as u64 {
                return err(
                    "topology.hosts",
                    format!(
                        "{} hosts do not fit a {tiers}-tier fat tree of radix {radix} (holds {}); raise radix or lower hosts",
                        t.hosts,
                        shape.capacity()
                    ),
                );
            }
            let links = TierLinks {
                host: pick(t.host_link_rate, t.host_link_latency),
                tor_uplink: pick(t.tor_uplink_rate, t.tor_uplink_latency),
                agg_uplink: pick(t.agg_uplink_rate, t.agg_uplink_latency),
            };
            Ok(topology::fat_tree(&shape, t.hosts, &links))
        }
        TopologyKind::Star => {
            let (r, l) = pick(t.host_link_rate, t.host_link_latency);
            Ok(topology::star(t.hosts, r, l))
        }
        TopologyKind::Dumbbell => {
            let (r, l) = pick(t.host_link_rate, t.host_link_latency);
            let b = pick(t.bottleneck_rate, t.bottleneck_latency);
            Ok(topology::dumbbell(t.hosts, r, l, b))
        }
        TopologyKind::Parallel => {
            if t.hosts != 2 {
                return err("topology.hosts", format!("{}: a parallel topology has exactly 2 hosts", t.hosts));
            }
            let paths = t.paths.unwrap_or(1);
            if paths == 0 {
                return err("topology.paths", "allowed: 1 or more parallel links");
            }
            let slow = t.slow_paths.unwrap_or(0);
            if slow > paths {
                return err("topology.slow_paths", format!("{slow}: at most `paths` ({paths})"));
            }
            let extra = t.slow_extra_latency.map(|x| x.0).unwrap_or(Time::ZERO);
            Ok(topology::parallel(paths, slow, extra, rate, lat, pick(t.host_link_rate, t.host_link_latency)))
        }
        TopologyKind::Dragonfly => {
            let groups = t.groups.unwrap_or(9);
            let routers = t.routers_per_group.unwrap_or(4);
            if groups < 2 {
                return err("topology.groups", format!("{groups}: allowed 2 or more groups"));
            }
            if routers == 0 || (groups - 1) % routers != 0 {
                return err(
                    "topology.routers_per_group",
                    format!(
                        "{routers}: must divide groups − 1 = {} (each group's global links spread evenly over its routers)",
                        groups - 1
                    ),
                );
            }
            let switches = groups * routers;
            if t.hosts == 0 || t.hosts % switches != 0 {
                return err(
                    "topology.hosts",
                    format!("{}: must be a positive multiple of groups × routers_per_group = {switches}", t.hosts),
                );
            }
            let shape = topology::DragonflyShape { groups, routers, hosts_per_router: t.hosts / switches };
            let host = pick(t.host_link_rate, t.host_link_latency);
            Ok(topology::dragonfly(&shape, host, (rate, lat), pick(t.global_link_rate, t.global_link_latency)))
        }
        TopologyKind::File => topology_from_file(t, base_dir),
        TopologyKind::Torus => {
            let Some(dims) = t.dims.as_deref() else {
                return err("topology.dims", "required for kind = \"torus\": the size of each dimension, e.g. [4, 4]");
            };
            if dims.is_empty() || dims.len() > 3 || dims.iter().any(|&d| d < 2) {
                return err("topology.dims", format!("{dims:?}: allowed 1 to 3 dimensions, each of size 2 or more"));
            }
            let positions: u64 = dims.iter().map(|&d| d as u64).product();
            if positions != t.hosts as u64 {
                return err(
                    "topology.hosts",
                    format!("{}: a torus of dims {dims:?} has {positions} positions, one host each", t.hosts),
                );
            }
            // A NIC forwards for its neighbours too, so by default its host injects at
            // the sum of its torus links (`docs/models/topologies.md`).
            let host_rate = t
                .host_link_rate
                .map(|r| r.0)
                .unwrap_or(crate::units::Rate(rate.bps() * topology::torus_degree(dims) as u64));
            let host = (host_rate, t.host_link_latency.map(|l| l.0).unwrap_or(Time::ZERO));
            Ok(topology::torus(dims, host, (rate, lat)))
        }
        TopologyKind::Rail => {
            let rails = t.rails.unwrap_or(8);
            if rails == 0 || t.hosts == 0 || t.hosts % rails != 0 {
                return err(
                    "topology.hosts",
                    format!("{}: must be a positive multiple of rails = {rails} (GPUs per server)", t.hosts),
                );
            }
            // The LAPS artefact's GPUs have 200G links against a 100G fabric: by default a
            // host link is twice the fabric's rate (`docs/models/topologies.md`;
            // `docs/reproductions/laps-paper.md`, "Fabrics").
            let host_rate = t.host_link_rate.map(|r| r.0).unwrap_or(crate::units::Rate(rate.bps() * 2));
            let host = (host_rate, t.host_link_latency.map(|l| l.0).unwrap_or(lat));
            Ok(topology::rail(t.hosts / rails, rails, host, (rate, lat), (rate, lat)))
        }
    }
}

/// Hops of the first shortest path from `src` to `dst`, and the ports they use.
pub(super) fn path(ports: &[Port], routing: &Routing, n_hosts: u32, src: u32, dst: u32) -> Vec<u32> {
    let mut out = vec![routing.host_up_port[src as usize]];
    let mut node = ports[out[0] as usize].peer;
    while node >= n_hosts {
        let p = routing.candidates(node, dst)[0];
        out.push(p);
        node = ports[p as usize].peer;
    }
    debug_assert_eq!(node, dst);
    out
}
