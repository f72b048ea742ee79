//! Switch mechanisms built from `[switch]` and `[faults]`: PFC (fixed thresholds or the
//! dynamic-threshold shared buffer) and the fault plan.

use super::*;

/// PFC thresholds for every link into a switch. The default headroom covers the worst
/// case after a PAUSE is decided: the reverse port finishes a packet (1 MTU), the 64-byte
/// frame and the reverse latency, the upstream finishes the packet it started (1 MTU),
/// and everything on the forward wire, plus the packet whose arrival crossed xoff
/// (1 MTU): rate × (forward + reverse latency) + 3 MTU + 64 B.
/// The timed link and switch faults of `[faults]`, if any (`fault.rs`).
pub(super) fn fault_plan(
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
pub(super) fn build_pfc(
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
pub(super) fn shared_buffer(
    d: &PfcDynamicCfg,
    pfc: &Pfc,
    ports: &[Port],
    n_hosts: u32,
) -> Result<SharedBuffer, ScenarioError> {
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
    Ok(SharedBuffer::new(switch_of, pool, d.alpha_shift, d.reserve.0, d.resume_offset.0, d.resume))
}
