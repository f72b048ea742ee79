//! Turns a parsed `Scenario` into a ready-to-run `Simulation`, checking every value that
//! serde's types cannot (ranges, cross-field consistency, connectivity) first.

use std::collections::VecDeque;
use std::path::Path;

use crate::transport::app::OnOffApp;
use crate::cc::FlowInfo;
use crate::engine::{Event, EventQueue, Rng};
use crate::fault::FaultPlan;
use crate::laps::PathTable;
use crate::net::pfc::{self, Pfc, PfcThresholds, SharedBuffer};
use crate::net::{Drr, EcnPolicy, PacketArena, Port, PrioQueues, PrioService};
use crate::observe::{resolve_flows, resolve_metrics, Observer, PortIndex};
use crate::routing::Routing;
use crate::scenario::{err, FailureModel, FlowSize, InitialWindow, Scenario, ScenarioError, TopologyKind};
use crate::scenario::{
    BytesVal, LbName, LbPaths, PfcCfg, PfcClass, PfcDynamicCfg, PriorityService, QueueCount, RepsParams, Scheduler,
};
use crate::scenario::{LossLinks, LossPackets, WindowCap};
use crate::sim::{ArRule, Counters, Simulation};
use crate::stats::{ideal_fct, FlowMonitor, Hop};
use crate::topology::{self, FatTreeShape, Tier, TierLinks, Topology};
use crate::transport::{Flow, TransportConfig};
use crate::units::Time;
use crate::workload::{self, Defaults};

fn check_fraction(field: &str, v: f64) -> Result<(), ScenarioError> {
    if !(0.0..1.0).contains(&v) {
        return err(field, format!("{v}: allowed 0 <= value < 1"));
    }
    Ok(())
}

/// `topology.oversubscription_tiers`: one ratio per tier with uplinks, each dividing k/2.
fn uplink_ratios(given: Option<&[u32]>, tiers: u32, radix: u32) -> Result<(u32, u32), ScenarioError> {
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
fn topology_from_file(t: &crate::scenario::TopologyCfg, base_dir: &Path) -> Result<Topology, ScenarioError> {
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
fn source_routes(
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
    let Some(first) = specs.iter().find(|f| routed(f.lb)) else {
        return Ok(SourceRoutes::default());
    };
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
            return err(
                "lb",
                format!(
                    "\"{}\" sprays over a fabric's explicit candidate paths, defined for topology.kind = \"dragonfly\" or \"rail\"; use \"ops\" elsewhere",
                    first.lb.as_str()
                ),
            )
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
/// latencies for a full packet of `mtu` bytes (spec laps.md §2.4).
fn laps_paths(
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

/// DCQCN's unified window (`transport.dcqcn.window = "bdp"`, spec laps.md §3.7; also the
/// rate-based DCTCP's with `transport.dctcp.rate.window = "bdp"`): the
/// largest one-way bandwidth-delay product of a full packet over every path any flow of
/// the scenario may take: all its candidate paths when it is source-routed or hashed over
/// them (`lb_paths = "candidates"`), else its routed path (equal-cost alternatives have
/// the same delay and rates on the regular fabrics). Zero when no flow needs it.
fn dcqcn_unified_bdp(
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

fn build_topology(s: &Scenario, base_dir: &Path) -> Result<Topology, ScenarioError> {
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
        TopologyKind::Rail => {
            let rails = t.rails.unwrap_or(8);
            if rails == 0 || t.hosts == 0 || t.hosts % rails != 0 {
                return err(
                    "topology.hosts",
                    format!("{}: must be a positive multiple of rails = {rails} (GPUs per server)", t.hosts),
                );
            }
            // The LAPS artefact's GPUs have 200G links against a 100G fabric: by default a
            // host link is twice the fabric's rate (spec laps.md §4.2, "link-rate caveat").
            let host_rate = t.host_link_rate.map(|r| r.0).unwrap_or(crate::units::Rate(rate.bps() * 2));
            let host = (host_rate, t.host_link_latency.map(|l| l.0).unwrap_or(lat));
            Ok(topology::rail(t.hosts / rails, rails, host, (rate, lat), (rate, lat)))
        }
    }
}

fn validate_numbers(s: &Scenario) -> Result<(), ScenarioError> {
    let t = &s.topology;
    let tr = &s.transport;
    let mtu = t.mtu.0;
    if mtu <= tr.header.0 {
        return err("topology.mtu", format!("{mtu} bytes leaves no payload after the {}-byte header", tr.header.0));
    }
    if mtu > 1 << 20 {
        return err("topology.mtu", format!("{mtu} bytes: allowed up to 1MiB"));
    }
    if tr.header.0 == 0 {
        return err("transport.header", "must be at least 1 byte (an ACK is a bare header)");
    }
    check_fraction("topology.failed_links", t.failed_links)?;
    check_fraction("topology.loss_rate", t.loss_rate)?;
    let sw = &s.switch;
    if sw.buffer.0 < mtu {
        return err("switch.buffer", format!("{} bytes is smaller than one MTU ({mtu} bytes)", sw.buffer.0));
    }
    if sw.ecn.enabled {
        if sw.ecn.kmin.0 > sw.ecn.kmax.0 {
            return err("switch.ecn.kmin", format!("{} is above kmax ({})", sw.ecn.kmin.0, sw.ecn.kmax.0));
        }
        if !(sw.ecn.pmax > 0.0 && sw.ecn.pmax <= 1.0) {
            return err("switch.ecn.pmax", format!("{}: allowed 0 < pmax <= 1", sw.ecn.pmax));
        }
    }
    if tr.ack_ratio == 0 {
        return err("transport.ack_ratio", "0: allowed 1 (per-packet ACKs) or more");
    }
    if tr.dupack_threshold == 0 {
        return err("transport.dupack_threshold", "0: allowed 1 or more (3 is standard)");
    }
    if tr.rto_min.0 == Time::ZERO {
        return err("transport.rto_min", "must be positive");
    }
    if tr.rto_max.0 < tr.rto_min.0 {
        return err("transport.rto_max", "must be at least rto_min");
    }
    if !(tr.dctcp.g > 0.0 && tr.dctcp.g <= 1.0) {
        return err("transport.dctcp.g", format!("{}: allowed 0 < g <= 1", tr.dctcp.g));
    }
    if !(0.0..=1.0).contains(&tr.dctcp.alpha_init) {
        return err("transport.dctcp.alpha_init", format!("{}: allowed 0 <= alpha_init <= 1", tr.dctcp.alpha_init));
    }
    if let Err((field, msg)) = tr.prioplus.validate() {
        return err(&format!("transport.prioplus.{field}"), msg);
    }
    if let Err((field, msg)) = tr.swift.validate() {
        return err(&format!("transport.swift.{field}"), msg);
    }
    if let Err((field, msg)) = tr.ledbat.validate() {
        return err(&format!("transport.ledbat.{field}"), msg);
    }
    if let Err((field, msg)) = tr.hpcc.validate() {
        return err(&format!("transport.hpcc.{field}"), msg);
    }
    if let Err((field, msg)) = tr.mprdma.validate() {
        return err(&format!("transport.mprdma.{field}"), msg);
    }
    if let Err((field, msg)) = tr.dcqcn.validate() {
        return err(&format!("transport.dcqcn.{field}"), msg);
    }
    if let Err((field, msg)) = tr.nscc.validate() {
        return err(&format!("transport.nscc.{field}"), msg);
    }
    if let Err((field, msg)) = tr.dctcp.validate() {
        return err(&format!("transport.dctcp.{field}"), msg);
    }
    if let Err((field, msg)) = tr.d2tcp.validate() {
        return err(&format!("transport.d2tcp.{field}"), msg);
    }
    if let Err((field, msg)) = tr.plb.validate() {
        return err(&format!("transport.plb.{field}"), msg);
    }
    if let Err((field, msg)) = tr.eqds.validate() {
        return err(&format!("transport.eqds.{field}"), msg);
    }
    if let Err((field, msg)) = tr.conga.validate() {
        return err(&format!("transport.conga.{field}"), msg);
    }
    if let Err((field, msg)) = tr.conweave.validate() {
        return err(&format!("transport.conweave.{field}"), msg);
    }
    if let Err((field, msg)) = tr.laps.validate() {
        return err(&format!("transport.laps.{field}"), msg);
    }
    let laps_used = tr.lb == LbName::Laps || s.workload.iter().any(|w| w.lb == Some(LbName::Laps));
    if laps_used && tr.loss_recovery != crate::transport::LossRecovery::Sack {
        return err(
            "transport.loss_recovery",
            "LAPS resends what its per-path loss inference finds lost (selective); allowed with lb = \"laps\": \"sack\"",
        );
    }
    if laps_used && tr.ack_ratio != 1 {
        return err(
            "transport.ack_ratio",
            format!("{}: LAPS acknowledges every data packet (its latency samples and loss inference need it); allowed with lb = \"laps\": 1", tr.ack_ratio),
        );
    }
    if laps_used && tr.ack_policy != crate::transport::AckPolicy::Tcp {
        // A LAPS ACK carries a one-way latency where others carry the cumulative ACK, so a
        // bitmap relative to the cumulative ACK would mean nothing to its sender.
        return err(
            "transport.ack_policy",
            "LAPS acknowledges every data packet with its latency; allowed with lb = \"laps\": \"tcp\"",
        );
    }
    if sw.trimming && !sw.ack_priority {
        return err(
            "switch.trimming",
            "trimmed headers travel in the priority queue; set ack_priority = true (the default) or trimming = false",
        );
    }
    if let Some(pfc) = sw.pfc.as_ref().filter(|p| p.enabled) {
        if !sw.ack_priority {
            return err(
                "switch.pfc",
                "PFC pauses data and control separately, so they need separate queues; set switch.ack_priority = true (the default)",
            );
        }
        if pfc.lossless.is_empty() {
            return err(
                "switch.pfc.lossless",
                "empty: allowed a list of \"data\" and/or \"control\" (or enabled = false)",
            );
        }
        if pfc.lossless.len() == 2 && pfc.lossless[0] == pfc.lossless[1] {
            return err("switch.pfc.lossless", "lists a class twice; allowed \"data\", \"control\"");
        }
        if let (Some(xon), Some(xoff)) = (pfc.xon, pfc.xoff) {
            if xon.0 >= xoff.0 {
                return err("switch.pfc.xon", format!("{} is not below xoff ({})", xon.0, xoff.0));
            }
        }
        if let Some(d) = &pfc.dynamic {
            if let Some(field) = [("xoff", pfc.xoff.is_some()), ("xon", pfc.xon.is_some())].iter().find(|f| f.1) {
                return err(
                    &format!("switch.pfc.{}", field.0),
                    "set together with switch.pfc.dynamic, whose threshold replaces it; allowed: one of the two",
                );
            }
            if d.alpha_shift > 16 {
                return err("switch.pfc.dynamic.alpha_shift", format!("{}: allowed 0..=16", d.alpha_shift));
            }
            match (d.buffer, d.buffer_per_port) {
                (Some(_), Some(_)) | (None, None) => {
                    return err("switch.pfc.dynamic", "give exactly one of buffer (per switch) and buffer_per_port");
                }
                (Some(BytesVal(0)), _) => return err("switch.pfc.dynamic.buffer", "0 bytes: allowed a positive size"),
                (_, Some(BytesVal(0))) => {
                    return err("switch.pfc.dynamic.buffer_per_port", "0 bytes: allowed a positive size")
                }
                _ => {}
            }
        }
        if pfc.xoff.is_some_and(|x| x.0 < mtu) {
            return err(
                "switch.pfc.xoff",
                format!("{} bytes: allowed at least one MTU ({mtu} bytes)", pfc.xoff.unwrap().0),
            );
        }
    }
    if tr.dctcp.min_cwnd_pkts == 0 || tr.newreno.min_cwnd_pkts == 0 {
        return err("transport.min_cwnd_pkts", "allowed 1 or more");
    }
    if let Some(d) = s.duration {
        if d.0 == Time::ZERO {
            return err("duration", "must be positive");
        }
    }
    if let Some(i) = s.output.sample_interval {
        if i.0 == Time::ZERO {
            return err("output.sample_interval", "must be positive");
        }
    }
    if let Some(o) = &s.observe {
        match o.interval {
            None => return err("observe.interval", "required: the sampling period, e.g. \"1us\""),
            Some(i) if i.0 == Time::ZERO => return err("observe.interval", "must be positive"),
            _ => {}
        }
    }
    if s.trace.as_ref().is_some_and(|t| t.max_events == 0) {
        return err("trace.max_events", "allowed 1 or more");
    }
    let drr = &s.switch.drr;
    if drr.quantum.0 == 0 || drr.weights.contains(&0) {
        return err("switch.drr", "quantum and both weights must be positive");
    }
    if s.switch.scheduler == Scheduler::Drr {
        let w = drr.weights;
        let smallest = s.switch.buffer.0 * w[0].min(w[1]) as u64 / (w[0] + w[1]) as u64;
        if smallest < mtu {
            return err(
                "switch.buffer",
                format!("a DRR class's share ({smallest} bytes) is smaller than one MTU ({mtu} bytes)"),
            );
        }
    }
    let ar = &s.switch.ar;
    if ar.levels.is_empty()
        || ar.levels.windows(2).any(|w| w[0] >= w[1])
        || ar.levels.iter().any(|&b| !(b > 0.0 && b <= 1.0))
    {
        return err("switch.ar.levels", "allowed: ascending fractions of the buffer in (0, 1], e.g. [0.05, 0.1, 0.2]");
    }
    if s.transport.reps.buffer == 0 {
        return err("transport.reps.buffer", "allowed: 1 or more entropies");
    }
    if s.workload.is_empty() {
        return err(
            "workload",
            "no [[workload]] given; add one (kinds: permutation, incast, all_to_all, hsdp_ring, training, traffic_mode, poisson, flows, htsim_cm)",
        );
    }
    Ok(())
}

/// Hops of the first shortest path from `src` to `dst`, and the ports they use.
fn path(ports: &[Port], routing: &Routing, n_hosts: u32, src: u32, dst: u32) -> Vec<u32> {
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

pub fn build(scenario: &Scenario, base_dir: &Path) -> Result<Simulation, ScenarioError> {
    let normalised = scenario.normalised();
    let s = &normalised;
    validate_numbers(s)?;
    let topo = build_topology(s, base_dir)?;
    let n_hosts = topo.n_hosts;
    let n_nodes = topo.n_nodes();
    let switch_latency = s.topology.switch_latency.map(|t| t.0).unwrap_or(Time::ZERO);
    let ecn = s.switch.ecn.enabled.then(|| EcnPolicy {
        kmin: s.switch.ecn.kmin.0,
        kmax: s.switch.ecn.kmax.0,
        pmax: s.switch.ecn.pmax,
        at: s.switch.ecn.on,
        mark_if: s.switch.ecn.mark_if,
    });

    let mut ports = Vec::with_capacity(topo.cables.len() * 2);
    let mut node_ports = vec![Vec::new(); n_nodes as usize];
    let first_slow = topo.cables.len() - topo.slow_last.0 as usize;
    for (ci, c) in topo.cables.iter().enumerate() {
        for (from, to) in [(c.a, c.b), (c.b, c.a)] {
            let to_switch = to >= n_hosts;
            let slow = if ci >= first_slow && from == c.a { topo.slow_last.1 } else { Time::ZERO };
            let latency = c.latency + slow + if to_switch { switch_latency } else { Time::ZERO };
            let from_switch = from >= n_hosts;
            let mut p = Port::new(from, to, c.rate, latency, if from_switch { s.switch.buffer.0 } else { u64::MAX });
            if from_switch {
                p.ecn = ecn;
                p.ack_priority = s.switch.ack_priority;
                p.trimming = s.switch.trimming;
                if s.switch.scheduler == Scheduler::Drr {
                    let w = s.switch.drr.weights;
                    p.drr = Some(Box::new(Drr::new(s.switch.drr.quantum.0, [w[0] as u64, w[1] as u64], p.buffer)));
                }
            }
            if c.tier != Tier::Host || s.topology.loss_links == LossLinks::All {
                p.loss_rate = s.topology.loss_rate;
            }
            node_ports[from as usize].push(ports.len() as u32);
            ports.push(p);
        }
    }

    // Failed cables: a seeded choice among switch-to-switch cables.
    let fabric: Vec<usize> = (0..topo.cables.len()).filter(|&i| topo.cables[i].tier != Tier::Host).collect();
    let mut rng = Rng::stream(s.seed, "failures");
    let failed: Vec<usize> = match s.topology.failure_model {
        FailureModel::Exact => {
            let n = (s.topology.failed_links * fabric.len() as f64).round() as usize;
            let mut chosen = fabric.clone();
            rng.shuffle(&mut chosen);
            chosen.truncate(n);
            chosen
        }
        FailureModel::Independent => {
            fabric.iter().copied().filter(|_| rng.next_f64() < s.topology.failed_links).collect()
        }
    };
    let n_fail = failed.len();
    for &c in &failed {
        ports[2 * c].up = false;
        ports[2 * c + 1].up = false;
    }
    let routing = Routing::compute(n_hosts, n_nodes, &ports, &node_ports, &topo.host_edge).map_err(|u| {
        if n_fail == 0 {
            let field = if s.topology.kind == TopologyKind::File { "topology.file" } else { "topology" };
            return ScenarioError(format!(
                "{field}: the fabric is disconnected: switch {} cannot reach switch {} (switches numbered from 0 in order)",
                u.from_switch - n_hosts,
                u.to_switch - n_hosts
            ));
        }
        ScenarioError(format!(
            "topology.failed_links: failing {n_fail} of {} switch-to-switch links disconnects switch {} from switch {}; lower failed_links or change seed",
            fabric.len(),
            u.from_switch,
            u.to_switch
        ))
    })?;

    let tr = &s.transport;
    let cfg = TransportConfig {
        header_bytes: tr.header.0 as u32,
        mtu: s.topology.mtu.0 as u32,
        ack_ratio: tr.ack_ratio,
        ack_policy: tr.ack_policy,
        delayed_ack_timeout: tr.delayed_ack_timeout.0,
        dupack_threshold: tr.dupack_threshold,
        loss_rule: tr.loss_rule,
        loss_recovery: tr.loss_recovery,
        pace_window: tr.pacing,
        rto_min: tr.rto_min.0,
        rto_max: tr.rto_max.0,
        rto_initial: tr.rto_min.0,
        reps: RepsParams { freezing: tr.reps.freezing && s.switch.trimming, ..tr.reps.clone() },
        plb: tr.plb.clone(),
        letflow: tr.letflow.clone(),
        ect_always: tr.ect_always,
    };

    // Workloads.
    let host_rates = (0..n_hosts).map(|h| ports[routing.host_up_port[h as usize] as usize].rate).collect();
    let defaults = Defaults {
        cc: tr.cc,
        lb: tr.lb,
        n_hosts,
        duration: s.duration.map(|d| d.0),
        payload: cfg.payload() as u64,
        host_rates,
        host_pod: topo.host_pod.clone(),
    };
    let mut wrng = Rng::stream(s.seed, "workload");
    let mut used = vec![false; n_hosts as usize];
    let mut specs = Vec::new();
    let mut group_offset = 0u32;
    let mut tags = Vec::new();
    for (i, w) in s.workload.iter().enumerate() {
        let tag_name = w
            .tag
            .clone()
            .unwrap_or_else(|| format!("{}{i}", serde_json::to_string(&w.kind).unwrap().trim_matches('"')));
        let tag = match tags.iter().position(|t| *t == tag_name) {
            Some(p) => p,
            None => {
                tags.push(tag_name);
                tags.len() - 1
            }
        } as u16;
        let offset = specs.len() as u32;
        let mut generated = workload::generate(w, i, tag, &defaults, base_dir, &mut wrng, &mut used)?;
        let mut groups = 0;
        for f in &mut generated {
            for a in &mut f.after {
                *a += offset;
            }
            if f.group != workload::NO_GROUP {
                groups = groups.max(f.group + 1);
                f.group += group_offset;
            }
        }
        group_offset += groups;
        specs.extend(generated);
    }
    if specs.is_empty() {
        return err("workload", "the workloads produce no flows");
    }
    if specs.len() > u32::MAX as usize / 2 {
        return err("workload", "too many flows");
    }

    // Priority levels: the highest level any flow has (0: priorities unused).
    let levels = specs.iter().map(|f| f.priority).max().unwrap_or(0);
    let mut priority_queues = 0;
    if s.switch.scheduler == Scheduler::Priority {
        let pq = &s.switch.priority;
        let n = match pq.queues {
            QueueCount::Fixed(n) => n as usize,
            QueueCount::Ideal => (levels as usize).max(1),
        };
        let service = match pq.service {
            PriorityService::Strict => {
                if pq.weights.is_some() {
                    return err("switch.priority.weights", "only used with service = \"drr\"");
                }
                PrioService::Strict
            }
            PriorityService::Drr => {
                let weights = pq.weights.clone().unwrap_or_else(|| vec![1; n]);
                if weights.len() != n || weights.contains(&0) {
                    return err(
                        "switch.priority.weights",
                        format!("{} weights given; allowed: {n} positive weights, one per queue", weights.len()),
                    );
                }
                PrioService::Drr {
                    quantum: s.switch.drr.quantum.0,
                    weights: weights.iter().map(|&w| w as u64).collect(),
                }
            }
        };
        for p in ports.iter_mut().filter(|p| p.node >= n_hosts) {
            p.prio = Some(Box::new(PrioQueues::new(n, service.clone())));
        }
        priority_queues = n;
    }
    let pfc = match s.switch.pfc.as_ref().filter(|p| p.enabled) {
        Some(c) => Some(Box::new(build_pfc(c, &ports, n_hosts, s.switch.buffer.0, s.topology.mtu.0, priority_queues)?)),
        None => None,
    };

    let noise = match &tr.delay_noise {
        Some(c) => Some(
            crate::noise::NoiseSource::from_cfg(c, base_dir)
                .or_else(|(f, m)| err(&format!("transport.delay_noise.{f}"), m))?,
        ),
        None => None,
    };
    let mut injected_drops = s.faults.drop.clone();
    for (i, d) in injected_drops.iter().enumerate() {
        let Some(sp) = specs.get(d.flow as usize) else {
            return err(
                &format!("faults.drop[{i}].flow"),
                format!("{}: allowed 0 to {} (flow ids in workload order)", d.flow, specs.len() - 1),
            );
        };
        let packets = if sp.size == u64::MAX { u64::MAX } else { sp.size.div_ceil(cfg.payload() as u64).max(1) };
        if d.psn as u64 >= packets {
            return err(
                &format!("faults.drop[{i}].psn"),
                format!("{}: flow {} has {packets} packets (PSNs from 0)", d.psn, d.flow),
            );
        }
    }
    injected_drops.sort_unstable();
    injected_drops.dedup();
    let source_routes = source_routes(s, &topo, &ports, &node_ports, &specs)?;
    let mtu = cfg.mtu as u64;
    let laps = laps_paths(&source_routes, &specs, &tr.laps, mtu);
    let unified_bdp = dcqcn_unified_bdp(s, &source_routes, &ports, &routing, n_hosts, &specs, mtu);
    let mut ecmp_rng = Rng::stream(s.seed, "ecmp");
    let cc_seed = Rng::stream(s.seed, "cc").next_u64();
    let mut flows = Vec::with_capacity(specs.len());
    for (id, sp) in specs.iter().enumerate() {
        let fwd = path(&ports, &routing, n_hosts, sp.src, sp.dst);
        let rev = path(&ports, &routing, n_hosts, sp.dst, sp.src);
        let payload = cfg.payload() as u64;
        let (n_pkts, last_wire) = if sp.size == u64::MAX {
            (u64::MAX, mtu)
        } else {
            let n = sp.size.div_ceil(payload).max(1);
            if n >= u32::MAX as u64 - 1 {
                return err(
                    "workload",
                    format!(
                        "a flow of {} bytes ({}) needs {n} packets; at most 2^32 - 2 per flow (raise topology.mtu)",
                        sp.size, tags[sp.tag as usize]
                    ),
                );
            }
            (n, sp.size - (n - 1) * payload + cfg.header_bytes as u64)
        };
        let hops: Vec<Hop> = fwd
            .iter()
            .map(|&p| {
                let port = &ports[p as usize];
                Hop {
                    ser_full: port.serialization(mtu as u32),
                    ser_last: port.serialization(last_wire as u32),
                    latency: port.latency,
                }
            })
            .collect();
        let one = ideal_fct(&hops.iter().map(|h| Hop { ser_last: h.ser_full, ..*h }).collect::<Vec<_>>(), 1);
        let ack_back: Time = rev
            .iter()
            .map(|&p| ports[p as usize].serialization(cfg.header_bytes) + ports[p as usize].latency)
            .fold(Time::ZERO, |a, b| a + b);
        let base_rtt = one + ack_back;
        let bottleneck = fwd.iter().map(|&p| ports[p as usize].rate).min().unwrap();
        let iw_pkts = match tr.initial_window {
            InitialWindow::Packets(n) => n as u64,
            InitialWindow::Bdp => ((bottleneck.bytes_in(base_rtt) / mtu as f64).ceil() as u64).max(1),
        };
        let info = FlowInfo {
            mtu,
            initial_window: iw_pkts * mtu,
            base_rtt,
            hops: fwd.len() as u32,
            bottleneck,
            header: cfg.header_bytes as u64,
            switch_buffer: s.switch.buffer.0,
            trimming: s.switch.trimming,
            priority: sp.priority,
            levels,
            seed: crate::engine::splitmix64(cc_seed ^ id as u64),
            start: sp.start,
            size: sp.size,
            path_target: laps.as_ref().map_or(Time::ZERO, |t| {
                let (first, n) = source_routes.paths_of(id as u32);
                t.target(first, n)
            }),
            nic_rate: ports[routing.host_up_port[sp.src as usize] as usize].rate,
            unified_bdp,
        };
        if (sp.cc == crate::scenario::CcName::Laps) != (sp.lb == LbName::Laps) {
            return err(
                &format!("workload (tag {}).cc", tags[sp.tag as usize]),
                format!(
                    "cc = \"{}\" with lb = \"{}\": LAPS's rate control and its path spraying work together; set both cc and lb to \"laps\", or neither",
                    sp.cc.as_str(),
                    sp.lb.as_str()
                ),
            );
        }
        if sp.cc == crate::scenario::CcName::Prioplus && sp.priority == 0 {
            return err(
                &format!("workload (tag {}).priority", tags[sp.tag as usize]),
                "prioplus needs a priority level on every flow (e.g. priority = 1, or by size)",
            );
        }
        let cc = tr.congestion_control(sp.cc, &info);
        let entropy = ecmp_rng.next_u64() as u32;
        // An application-fed flow drains its buffer after the app stops at `sp.stop`.
        let transport_stop = if sp.app.is_some() { Time::MAX } else { sp.stop };
        let mut flow = Flow::new(
            id as u32,
            sp.src,
            sp.dst,
            sp.size,
            sp.start,
            transport_stop,
            sp.tag,
            cc,
            &cfg,
            entropy,
            sp.lb,
            tr.reps.buffer as usize,
        );
        flow.base_rtt = base_rtt;
        flow.sender.inflight_cap = match tr.inflight_cap {
            WindowCap::Off => u64::MAX,
            WindowCap::Bdp => (bottleneck.bytes_in(base_rtt).ceil() as u64).max(mtu),
            WindowCap::Bytes(b) => b.max(mtu),
        };
        flow.priority = sp.priority;
        flow.uses_probes = flow.sender.cc.uses_probes();
        flow.app = sp.app.as_ref().map(|a| OnOffApp::new(a, sp.start, sp.stop));
        flow.noise = noise.clone().map(|n| Box::new(crate::noise::DelayNoise::new(n, info.seed)));
        flow.ideal_fct = if n_pkts == u64::MAX { Time::ZERO } else { ideal_fct(&hops, n_pkts) };
        if sp.cc == crate::scenario::CcName::Eqds || tr.receiver_credit {
            let speculative = match tr.eqds.speculative_window {
                InitialWindow::Packets(n) => n,
                InitialWindow::Bdp => ((bottleneck.bytes_in(base_rtt) / mtu as f64).ceil() as u32).max(1),
            };
            flow.use_credit(speculative);
        }
        flows.push(flow);
    }
    let pulls = flows.iter().any(|f| f.sender.credit.is_some()).then(|| {
        let mut p = crate::eqds::PullPacers::new(flows.len(), &defaults.host_rates, mtu, tr.eqds.pull_rate);
        for f in &flows {
            if let Some(c) = &f.sender.credit {
                p.add_flow(f.id, f.dst, f.n_pkts(), c.speculative);
            }
        }
        p
    });

    // A flow that waits for others starts when they are delivered, not by the clock.
    let dependencies = workload::Dependencies::new(&specs);
    let groups = if specs.iter().any(|f| f.group != workload::NO_GROUP) {
        specs.iter().map(|f| f.group).collect()
    } else {
        Vec::new()
    };
    let mut start_order: Vec<u32> = (0..flows.len() as u32).filter(|&f| specs[f as usize].after.is_empty()).collect();
    start_order.sort_by_key(|&f| (flows[f as usize].start, f));
    let unfinished_finite = flows.iter().filter(|f| !f.is_infinite()).count() as u32;
    let infinite_until = flows
        .iter()
        .filter(|f| f.is_infinite() && f.sender.stop_at != Time::MAX)
        .map(|f| f.sender.stop_at)
        .max()
        .unwrap_or(Time::ZERO);
    if unfinished_finite == 0 && s.duration.is_none() {
        if let Some(i) = s.workload.iter().position(|w| w.size == Some(FlowSize::Infinite) && w.stop.is_none()) {
            return err(
                &format!("workload[{i}].stop"),
                "infinite flows need a stop time, a top-level duration, or finite flows beside them (they then run until those finish)",
            );
        }
    }

    let faults = fault_plan(s, &topo, &ports, n_hosts, n_nodes, &specs)?;
    let mut events = EventQueue::new(s.seed);
    events.schedule(flows[start_order[0] as usize].start, Event::FlowStarts);
    if let Some(plan) = &faults {
        for (i, step) in plan.steps.iter().enumerate() {
            events.schedule(step.at, Event::Fault(i as u32));
        }
    }
    match s.duration {
        Some(d) => events.schedule(d.0, Event::Stop),
        None if infinite_until > Time::ZERO => events.schedule(infinite_until, Event::Stop),
        None => {}
    }

    // What `[observe]` and `[trace]` look at (`observe.rs`, `trace.rs`).
    let port_tiers: Vec<Tier> = topo.cables.iter().flat_map(|c| [c.tier, c.tier]).collect();
    let index = PortIndex { ports: &ports, tiers: &port_tiers, n_hosts, n_nodes };
    let n_flows = flows.len() as u32;
    let observer = match s.observe_cfg()? {
        Some(cfg) => {
            let o = Observer::new(
                cfg.interval.expect("checked in validate_numbers").0,
                index.resolve(&cfg.ports, "observe.ports")?,
                resolve_flows(&cfg.flows, "observe.flows", n_flows)?,
                resolve_metrics(&cfg.metrics, "observe.metrics", pfc.is_some())?,
            );
            if o.is_empty() && s.observe.is_some() {
                return err(
                    "observe",
                    "samples nothing: the chosen metrics apply to no chosen port or flow (port metrics: queue, utilisation, marks, drops, trims, pfc; flow metrics: cwnd, rate, rtt, cc)",
                );
            }
            (!o.is_empty()).then(|| Box::new(o))
        }
        None => None,
    };
    if observer.is_some() {
        events.schedule_last(Time::ZERO, Event::Sample);
    }
    let trace = match &s.trace {
        Some(cfg) => {
            let traced_ports = index.resolve(&cfg.ports, "trace.ports")?;
            let traced_flows = resolve_flows(&cfg.flows, "trace.flows", n_flows)?;
            if traced_ports.is_empty() && traced_flows.is_empty() {
                return err("trace", "traces nothing: give flows = [flow ids] and/or ports = [port names or ids]");
            }
            let max = cfg.max_events.min(usize::MAX as u64) as usize;
            Some(Box::new(crate::trace::Trace::new(&traced_flows, flows.len(), &traced_ports, ports.len(), max)))
        }
        None => None,
    };
    // HPCC's telemetry: a table beside the packet arena, only when some flow reads it.
    let int =
        specs.iter().any(|f| f.cc == crate::scenario::CcName::Hpcc).then(Box::<crate::net::int::IntTable>::default);
    let packet_hooks = pfc.is_some() || trace.is_some() || int.is_some();

    let ports_len = ports.len();
    let conga = specs
        .iter()
        .any(|f| f.lb == LbName::Conga)
        .then(|| Box::new(crate::conga::Conga::new(&tr.conga, ports_len, source_routes.links.len())));
    let conweave = specs.iter().any(|f| f.lb == LbName::Conweave).then(|| {
        // Each path's unloaded RTT: a full packet out, a header-sized reply back.
        let rtt = |l: &Vec<(crate::units::Rate, Time)>| {
            crate::paths::unloaded_latency(l, mtu) + crate::paths::unloaded_latency(l, cfg.header_bytes as u64)
        };
        let base_rtt = source_routes.links.iter().map(rtt).collect();
        Box::new(crate::conweave::Conweave::new(&tr.conweave, flows.len(), base_rtt))
    });
    let forward_hooks = pfc.is_some() || conga.is_some();
    Ok(Simulation {
        events,
        ports,
        node_ports,
        routing,
        n_hosts,
        arena: PacketArena::default(),
        monitors: vec![FlowMonitor::default(); flows.len()],
        flows,
        cfg,
        counters: Counters::default(),
        tags,
        description: topo.description,
        resolved_json: s.resolved_json(),
        seed: s.seed,
        duration: s.duration.map(|d| d.0),
        host_ready: vec![VecDeque::new(); n_hosts as usize],
        start_order,
        next_start: 0,
        dependencies,
        groups,
        pulls,
        unfinished_finite,
        finished_flows: 0,
        infinite_until,
        rng_spray: Rng::stream(s.seed, "spray"),
        rng_loss: Rng::stream(s.seed, "loss"),
        rng_red: Rng::stream(s.seed, "red"),
        rng_ar: Rng::stream(s.seed, "ar"),
        ar: ArRule {
            levels: s.switch.ar.levels.clone(),
            refresh: s.switch.ar.refresh.0,
            min_size: s.switch.ar.min_size.0,
        },
        observer,
        pfc,
        trace,
        int,
        packet_hooks,
        port_tiers,
        source_routes,
        laps,
        forward_hooks,
        conga,
        conweave,
        loss_data_only: s.topology.loss_packets == LossPackets::Data,
        injected_drops,
        faults,
        give_up_after: s.faults.give_up_after,
        prefetch: ports_len * std::mem::size_of::<crate::net::Port>() > crate::sim::PREFETCH_ABOVE_PORT_BYTES,
        done: false,
        #[cfg(any(debug_assertions, feature = "invariants"))]
        inv: Default::default(),
    })
}

/// PFC thresholds for every link into a switch. The default headroom covers the worst
/// case after a PAUSE is decided: the reverse port finishes a packet (1 MTU), the 64-byte
/// frame and the reverse latency, the upstream finishes the packet it started (1 MTU),
/// and everything on the forward wire, plus the packet whose arrival crossed xoff
/// (1 MTU): rate × (forward + reverse latency) + 3 MTU + 64 B.
/// The timed link and switch faults of `[faults]`, if any (`fault.rs`).
fn fault_plan(
    s: &Scenario,
    topo: &Topology,
    ports: &[Port],
    n_hosts: u32,
    n_nodes: u32,
    specs: &[workload::FlowSpec],
) -> Result<Option<Box<FaultPlan>>, ScenarioError> {
    let f = &s.faults;
    if f.link.is_empty() && f.switch.is_empty() {
        return Ok(None);
    }
    let cables = &topo.cables;
    let plan = FaultPlan::build(
        f,
        n_hosts,
        n_nodes,
        |a, b| cables.iter().position(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a)).map(|c| c as u32),
        |n| (0..cables.len() as u32).filter(|&c| cables[c as usize].a == n || cables[c as usize].b == n).collect(),
        |c| (ports[2 * c as usize].rate, ports[2 * c as usize].loss_rate),
    )?;
    // LAPS recovers losses per path and has no give-up: a flow cut off for good would
    // retransmit forever.
    if specs.iter().any(|sp| sp.lb == LbName::Laps) {
        if let Some(i) = f.link.iter().position(|l| l.until.is_none() && l.rate.is_none() && l.loss_rate.is_none()) {
            return err(&format!("faults.link[{i}].until"), "LAPS flows need every link that fails to come back");
        }
        if let Some(i) = f.switch.iter().position(|w| w.until.is_none()) {
            return err(&format!("faults.switch[{i}].until"), "LAPS flows need every switch that fails to come back");
        }
    }
    Ok(Some(Box::new(plan)))
}

/// PFC from `[switch.pfc]`; `priority_queues`: the switches' physical priority queues
/// (0: one data queue), which `per_priority` pauses one by one.
fn build_pfc(
    c: &PfcCfg,
    ports: &[Port],
    n_hosts: u32,
    buffer: u64,
    mtu: u64,
    priority_queues: usize,
) -> Result<Pfc, ScenarioError> {
    if ports.len() >= pfc::MAX_PORTS {
        return err("switch.pfc", format!("supports networks of fewer than {} ports", pfc::MAX_PORTS));
    }
    let per_priority_queues = if c.per_priority {
        if priority_queues == 0 {
            return err("switch.pfc.per_priority", "needs physical priority queues (switch.scheduler = \"priority\")");
        }
        if pfc::PRIORITY_BASE + priority_queues > pfc::MAX_CLASSES {
            return err(
                "switch.pfc.per_priority",
                format!("{priority_queues} priority queues: allowed at most {}", pfc::MAX_CLASSES - pfc::PRIORITY_BASE),
            );
        }
        priority_queues
    } else {
        0
    };
    let mut lossless = 0u8;
    for class in &c.lossless {
        lossless |= 1
            << match class {
                PfcClass::Data => pfc::DATA,
                PfcClass::Control => pfc::CONTROL,
            };
    }
    let mut thresholds = Vec::with_capacity(ports.len());
    for (i, port) in ports.iter().enumerate() {
        if port.peer < n_hosts {
            thresholds.push(None);
            continue;
        }
        let reverse = &ports[i ^ 1];
        let in_flight = port.rate.bytes_in(port.latency + reverse.latency + reverse.serialization(64)).ceil() as u64;
        let headroom = c.headroom.map(|h| h.0).unwrap_or(in_flight + 3 * mtu + 64);
        if c.dynamic.is_some() {
            // The threshold is the pool's; a fixed one is never read.
            thresholds.push(Some(PfcThresholds { xoff: u64::MAX, xon: 0, headroom }));
            continue;
        }
        let xoff = match c.xoff {
            Some(x) => x.0,
            None => {
                let xoff = buffer.saturating_sub(headroom);
                if xoff < 2 * mtu {
                    return err(
                        "switch.buffer",
                        format!(
                            "{buffer} bytes leaves xoff = buffer − PFC headroom ({headroom} bytes) below 2 MTU; raise the buffer or set switch.pfc.xoff and headroom"
                        ),
                    );
                }
                xoff
            }
        };
        let xon = c.xon.map(|x| x.0).unwrap_or(xoff.saturating_sub(2 * mtu));
        if xon >= xoff {
            return err("switch.pfc.xon", format!("{xon} is not below xoff ({xoff})"));
        }
        thresholds.push(Some(PfcThresholds { xoff, xon, headroom }));
    }
    let pfc = Pfc::new(lossless, per_priority_queues, thresholds);
    match &c.dynamic {
        None => Ok(pfc),
        Some(d) => {
            let shared = shared_buffer(d, &pfc, ports, n_hosts)?;
            Ok(pfc.with_shared_buffer(shared))
        }
    }
}

/// The pool of every switch for `[switch.pfc.dynamic]`: its buffer less, per lossless
/// ingress queue, the reserve and (carved) the headroom.
fn shared_buffer(d: &PfcDynamicCfg, pfc: &Pfc, ports: &[Port], n_hosts: u32) -> Result<SharedBuffer, ScenarioError> {
    let lossless_classes = pfc.lossless_classes_in_use() as u64;
    let switches = ports.iter().map(|p| p.peer + 1).max().unwrap_or(0).saturating_sub(n_hosts) as usize;
    let mut set_aside = vec![0u64; switches];
    let mut port_count = vec![0u64; switches];
    let mut switch_of = Vec::with_capacity(ports.len());
    for (i, port) in ports.iter().enumerate() {
        let s = port.peer.saturating_sub(n_hosts);
        switch_of.push(s);
        if port.peer >= n_hosts {
            port_count[s as usize] += 1;
        }
        if let Some(th) = pfc.thresholds(i as u32) {
            let per_queue = d.reserve.0 + if d.carve_headroom { th.headroom } else { 0 };
            set_aside[s as usize] += lossless_classes * per_queue;
        }
    }
    let mut pool = Vec::with_capacity(switches);
    let (field, per_port) = match d.buffer_per_port {
        Some(b) => ("switch.pfc.dynamic.buffer_per_port", Some(b.0)),
        None => ("switch.pfc.dynamic.buffer", None),
    };
    for (s, &aside) in set_aside.iter().enumerate() {
        let buffer = match per_port {
            Some(b) => b * port_count[s],
            None => d.buffer.map_or(0, |b| b.0),
        };
        if aside >= buffer {
            return err(
                field,
                format!(
                    "switch {} has {buffer} bytes but sets aside {aside} bytes of reserve{} for its {lossless_classes} lossless queue(s) per link, leaving no shared pool; raise the buffer, lower switch.pfc.dynamic.reserve{}",
                    s as u32 + n_hosts,
                    if d.carve_headroom { " and PFC headroom" } else { "" },
                    if d.carve_headroom { ", switch.pfc.headroom or set carve_headroom = false" } else { "" },
                ),
            );
        }
        pool.push(buffer - aside);
    }
    Ok(SharedBuffer::new(switch_of, pool, d.alpha_shift, d.reserve.0, d.resume_offset.0))
}
