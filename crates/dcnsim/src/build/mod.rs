//! Turns a parsed `Scenario` into a ready-to-run `Simulation`, checking every value that
//! serde's types cannot (ranges, cross-field consistency, connectivity) first.

mod fabric;
mod memory;
mod switch;
mod validate;

use self::fabric::{
    build_topology, check_fraction, dcqcn_unified_bdp, htsim_failed_cables, laps_paths, network_rtt, path, path_delays,
    source_routes,
};
use self::switch::{build_pfc, fault_plan};
use self::validate::validate_numbers;

use std::collections::VecDeque;
use std::path::Path;

use crate::cc::FlowInfo;
use crate::engine::{Event, EventQueue, NodeStreams, Rng};
use crate::fault::FaultPlan;
use crate::laps::PathTable;
use crate::net::pfc::{self, Pfc, PfcThresholds, SharedBuffer};
use crate::net::{Drr, PacketArena, Port, PrioQueues, PrioService};
use crate::observe::{resolve_flows, resolve_metrics, Observer, PortIndex};
use crate::routing::Routing;
use crate::scenario::{err, FailureModel, FlowSize, InitialWindow, Scenario, ScenarioError, TopologyKind};
use crate::scenario::{
    BytesVal, LbName, LbPaths, PfcCfg, PfcClass, PfcDynamicCfg, PriorityService, QueueCount, RepsParams, Scheduler,
};
use crate::scenario::{LossLinks, LossPackets, WindowCap};
use crate::sim::{ArRule, Counters, Simulation};
use crate::stats::{ideal_fct, ideal_fct_multipath, FlowMonitor, Hop};
use crate::topology::{self, FatTreeShape, Tier, TierLinks, Topology};
use crate::transport::app::OnOffApp;
use crate::transport::{Flow, TransportConfig};
use crate::units::Time;
use crate::workload::{self, Defaults};

/// Builds the scenario's simulation; with `threads` > 1, one share of it per thread
/// (`sim/parallel/`), each built the same way.
pub fn build(scenario: &Scenario, base_dir: &Path) -> Result<Simulation, ScenarioError> {
    let first = build_one(scenario, base_dir)?;
    let threads = scenario.threads;
    if threads <= 1 {
        return Ok(first);
    }
    // `validate_numbers` bounds threads to 256.
    let of_node = first.partition(threads as u16);
    if let Some((field, why)) = first.split_refusal(&of_node) {
        return err("threads", &format!("{threads} threads: {why} (the scenario sets {field})"));
    }
    let mut shares = vec![first];
    for _ in 1..threads {
        shares.push(build_one(scenario, base_dir)?);
    }
    Ok(Simulation::split(shares, of_node))
}

fn build_one(scenario: &Scenario, base_dir: &Path) -> Result<Simulation, ScenarioError> {
    let normalised = scenario.normalised();
    let s = &normalised;
    validate_numbers(s)?;
    let topo = build_topology(s, base_dir)?;
    let n_hosts = topo.n_hosts;
    let n_nodes = topo.n_nodes();
    let switch_latency = s.topology.switch_latency.map(|t| t.0).unwrap_or(Time::ZERO);

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
                p.aqm = s.switch.queue_management(c.rate);
                p.ack_priority = s.switch.ack_priority;
                p.trimming = s.switch.trimming;
                p.trim_tail = s.switch.trimming && s.trims_tail();
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
    let mut failed = failed;
    let from_matrix = htsim_failed_cables(s, base_dir, &topo)?;
    for &c in &from_matrix {
        if !failed.contains(&c) {
            failed.push(c);
        }
    }
    let n_fail = failed.len();
    for &c in &failed {
        ports[2 * c].up = false;
        ports[2 * c + 1].up = false;
    }
    let routing = Routing::compute(n_hosts, n_nodes, &ports, &node_ports, &topo.host_edge, topo.fat_tree).map_err(|u| {
        if n_fail == 0 {
            let field = if s.topology.kind == TopologyKind::File { "topology.file" } else { "topology" };
            return ScenarioError(format!(
                "{field}: the fabric is disconnected: switch {} cannot reach switch {} (switches numbered from 0 in order)",
                u.from_switch - n_hosts,
                u.to_switch - n_hosts
            ));
        }
        if !from_matrix.is_empty() {
            return ScenarioError(format!(
                "workload: the htsim failure lines (with topology.failed_links) take down {n_fail} of {} switch-to-switch links and disconnect switch {} from switch {} (switches numbered from 0 in order)",
                fabric.len(),
                u.from_switch - n_hosts,
                u.to_switch - n_hosts
            ));
        }
        ScenarioError(format!(
            "topology.failed_links: failing {n_fail} of {} switch-to-switch links disconnects switch {} from switch {} (switches numbered from 0 in order); lower failed_links or change seed",
            fabric.len(),
            u.from_switch - n_hosts,
            u.to_switch - n_hosts
        ))
    })?;

    let tr = &s.transport;
    let (ack_policy, ack_ratio) = s.ack_settings();
    let cfg = TransportConfig {
        header_bytes: tr.header.0 as u32,
        mtu: s.topology.mtu.0 as u32,
        ack_ratio,
        ack_policy,
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
            for a in f.after.iter_mut().chain(f.after_acked.iter_mut()) {
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
        Some(c) => {
            let pfc = build_pfc(c, &ports, n_hosts, s.switch.buffer.0, s.topology.mtu.0, priority_queues)?;
            // ACKs in the data queues travel, and pause, with their data (net/pfc/mod.rs).
            let pfc = if s.switch.ack_priority { pfc } else { pfc.with_control_in_data_classes() };
            // Class change (net/pfc/mod.rs): which links move a packet one class up, by the
            // upstream port that sends over them (two ports per cable, as built above).
            use crate::net::pfc::ClassChange;
            let raises: Vec<bool> = match c.class_change {
                ClassChange::None => Vec::new(),
                ClassChange::PerHop => ports.iter().map(|p| p.node >= n_hosts && p.peer >= n_hosts).collect(),
                ClassChange::PerGlobalHop => {
                    let global: Vec<bool> = (0..ports.len()).map(|i| topo.cables[i / 2].tier == Tier::Global).collect();
                    if !global.contains(&true) {
                        return err(
                            "switch.pfc.class_change",
                            "\"per_global_hop\" needs a dragonfly (global links); allowed here: \"none\", \"per_hop\"",
                        );
                    }
                    global
                }
            };
            Some(Box::new(pfc.with_class_change(raises)))
        }
        None => None,
    };

    let noise_at = tr.delay_noise.as_ref().map(|c| c.at).unwrap_or_default();
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
    let mtu = cfg.mtu as u64;
    let built = routing.heap_bytes() + (specs.capacity() * std::mem::size_of::<workload::FlowSpec>()) as u64;
    let payload = cfg.payload() as u64;
    let data_packets =
        specs.iter().try_fold(0u64, |n, f| (f.size != u64::MAX).then(|| n + f.size.div_ceil(payload).max(1)));
    let memory_estimate = memory::estimate(specs.len() as u64, &ports, mtu, data_packets, built);
    memory::check(&memory_estimate, specs.len() as u64)?;
    let source_routes = source_routes(s, &topo, &ports, &node_ports, &specs)?;
    let laps = laps_paths(&source_routes, &specs, &tr.laps, mtu);
    let unified_bdp = dcqcn_unified_bdp(s, &source_routes, &ports, &routing, n_hosts, &specs, mtu);
    let (network_rtt, network_bdp) = network_rtt(&ports, &routing, n_hosts, &specs, mtu, cfg.header_bytes);
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
        let (base_rtt, base_owd, bottleneck) = path_delays(&ports, &fwd, &rev, mtu, cfg.header_bytes);
        let iw_pkts = match tr.initial_window {
            InitialWindow::Packets(n) => n as u64,
            InitialWindow::Bdp => ((bottleneck.bytes_in(base_rtt) / mtu as f64).ceil() as u64).max(1),
        };
        let info = FlowInfo {
            mtu,
            initial_window: iw_pkts * mtu,
            base_rtt,
            base_owd,
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
            network_rtt,
            network_bdp,
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
        flow.policy = tr.path_policy(sp.lb, id as u32, entropy);
        flow.base_rtt = base_rtt;
        flow.sender.inflight_cap = match tr.inflight_cap {
            WindowCap::Off => u64::MAX,
            WindowCap::Bdp => (bottleneck.bytes_in(base_rtt).ceil() as u64).max(mtu),
            WindowCap::Bytes(b) => b.max(mtu),
        };
        flow.priority = sp.priority;
        flow.uses_probes = flow.sender.cc.profile().uses_probes;
        flow.app = sp.app.as_ref().map(|a| OnOffApp::new(a, sp.start, sp.stop));
        match noise_at {
            crate::noise::NoiseAt::Samples => {
                flow.noise = noise.clone().map(|n| Box::new(crate::noise::DelayNoise::new(n, info.seed)))
            }
            crate::noise::NoiseAt::Receiver => {
                flow.reply_hold = noise.clone().map(|n| Box::new(crate::noise::DelayNoise::at_receiver(n, info.seed)))
            }
        }
        // The exact store-and-forward bound: pinned to one path for ECMP, with packets free
        // to overtake on disjoint middle paths for every balancer that may move them
        // (stats.rs), so that no finished flow has a slowdown below 1.
        flow.ideal_fct = if n_pkts == u64::MAX {
            Time::ZERO
        } else if sp.lb == LbName::Ecmp {
            ideal_fct(&hops, n_pkts)
        } else {
            ideal_fct_multipath(&hops, n_pkts)
        };
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

    // A flow that waits for others starts when they are delivered (or acknowledged), not
    // by the clock.
    let dependencies = workload::Dependencies::new(&specs);
    let groups = if specs.iter().any(|f| f.group != workload::NO_GROUP) {
        specs.iter().map(|f| f.group).collect()
    } else {
        Vec::new()
    };
    let mut start_order: Vec<u32> = (0..flows.len() as u32)
        .filter(|&f| specs[f as usize].after.is_empty() && specs[f as usize].after_acked.is_empty())
        .collect();
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
    let window = ports.iter().map(|p| p.latency).min().unwrap_or(Time::ZERO);
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
        memory_estimate,
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
        fct_at_sender: s.output.fct == crate::scenario::FctAt::Sender,
        finished_flows: 0,
        infinite_until,
        rng_spray: Rng::stream(s.seed, "spray"),
        rng_entropy: NodeStreams::new(s.seed, "entropy", n_hosts as usize),
        rng_loss: NodeStreams::new(s.seed, "loss", n_nodes as usize),
        rng_red: NodeStreams::new(s.seed, "red", n_nodes as usize),
        rng_trim: NodeStreams::new(s.seed, "trim", n_nodes as usize),
        rng_ar: NodeStreams::new(s.seed, "ar", n_nodes as usize),
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
        nic_by_priority: tr.nic_scheduler == crate::transport::NicScheduler::Priority,
        injected_drops,
        faults,
        give_up_after: s.faults.give_up_after,
        held_replies: 0,
        replies_held: noise_at == crate::noise::NoiseAt::Receiver && tr.delay_noise.is_some(),
        prefetch: ports_len * std::mem::size_of::<crate::net::Port>() > crate::sim::PREFETCH_ABOVE_PORT_BYTES,
        done: false,
        window,
        ending: None,
        completed_at: None,
        counted_out_at: Time::ZERO,
        shard: None,
        parallel: None,
        #[cfg(any(debug_assertions, feature = "invariants"))]
        inv: Default::default(),
    })
}
