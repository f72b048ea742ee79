//! Workload generators (permutation, incast, all-to-all, the DCTCP-vs-Swift study's three
//! traffic modes, Poisson flows at a load, training all-reduces, coflows) and importers (a
//! flow CSV, htsim connection matrices). Each produces `FlowSpec`s; the simulation turns
//! them into flows. Random choices draw from the "workload" stream, so they depend only on
//! the seed and on the workloads before them in the file. Everything here runs once, at
//! setup; nothing is on the per-packet path.
//!
//! ## Coflows (`kind = "coflow"`, docs/reproductions/prioplus-paper.md, F12AB)
//!
//! The PrioPlus paper's coflow experiment replays the Facebook Hadoop trace
//! FB2010-1Hr-150-0 (526 coflows over 150 racks; each line gives a coflow's arrival, its
//! mapper racks and each reducer's input in MB). We do not have the trace, so
//! `coflow_arrivals` generates coflows *in its spirit* (`Fb2010Like`), and differs from it
//! in these ways:
//! - arrivals are a Poisson process at a chosen load, not the trace's arrival times;
//! - the total size S is drawn from a CDF whose octiles are the artefact's eight coflow
//!   size groups (0.5, 1, 6, 10, 25, 42, 137 MB, 1.16 GB; the PrioPlus artefact's), linear in
//!   between, from 0.1 MB: an *assumption* that the artefact cut the trace's sizes into
//!   equal-count groups; the real distribution is not known here;
//! - the mapper count M and the reducer count R are drawn independently of each other and
//!   of S from invented CDFs (`Fb2010Like::MAPPERS`, `REDUCERS`) with the trace's broad
//!   shape: most coflows narrow (with these CDFs about 72 % have M·R ≤ 50 flows before
//!   trimming, against the 68 % "narrow", ≤ 50 flows, that Varys (SIGCOMM '14) reports
//!   for this trace), a few up to 150 × 100. In the trace wide coflows are mostly large; here the correlation
//!   comes only from trimming: counts are cut until every flow carries at least
//!   `min_flow` bytes (default 10 KB), so a small coflow cannot be a thousand tiny flows;
//! - every mapper sends S/(M·R) to every reducer (the paper's rule, docs/reproductions/prioplus-paper.md; the
//!   trace has per-reducer sizes, and the artefact re-samples a size per flow, a bug);
//! - mappers and reducers are M + R distinct hosts drawn uniformly (a host of the trace
//!   may be both; a flow from a host to itself would not touch the network).
//!
//! Load: the workload offers `load` × the summed link rates of its hosts in coflow
//! payload bytes per second, the convention of `kind = "poisson"` (there: per host,
//! here: over the set, since a coflow spans many hosts). Coflows arrive at rate
//! λ = load · Σ rate / (8 · E[S]); as mappers and reducers are uniform over the hosts,
//! each host sends and receives `load` × its rate on average when all rates are equal.
//! With `equal_load_per_level`, each priority level is its own Poisson process at
//! load / levels, sizes drawn from the CDF restricted to the level's size range (the
//! artefact's "each (pattern, priority) gets 1/16 of the load").

use std::path::Path;

pub mod cdf;
mod coflow;
mod import;

pub use cdf::SizeCdf;
pub use coflow::*;
mod dependencies;
pub use dependencies::Dependencies;
pub use import::{
    htsim_cm_failures, htsim_cm_nodes, parse_flow_csv, parse_hpcc_flows, parse_htsim_cm, parse_htsim_cm_with_triggers,
    CmFailure, CmWait,
};

use crate::engine::Rng;
use crate::scenario::{
    err, CcName, FlowSize, HostSet, LbName, PrioritySpec, ScenarioError, TrafficMode, WorkloadCfg, WorkloadKind,
};
use crate::transport::app::AppCfg;
use crate::units::{Rate, Time};

#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    pub src: u32,
    pub dst: u32,
    /// Payload bytes; `u64::MAX` for an infinite flow.
    pub size: u64,
    pub start: Time,
    /// Infinite flows stop sending new data here.
    pub stop: Time,
    pub tag: u16,
    pub cc: CcName,
    pub lb: LbName,
    /// The application that feeds the flow (it then stops writing at `stop`, and the
    /// transport drains what was written); `None`: the whole `size` is there at `start`.
    pub app: Option<AppCfg>,
    /// Priority level (0: none; larger = more important).
    pub priority: u8,
    /// Starts `gap` after every one of these flows (indices into the same workload's
    /// flows) has been delivered, instead of at `start`; empty: starts at `start`.
    pub after: Vec<u32>,
    /// Like `after`, but waits for these flows' senders to have every byte acknowledged
    /// (htsim's `send_done_trigger`).
    pub after_acked: Vec<u32>,
    /// Starts once this many of the events of `after` and `after_acked` happened (htsim's
    /// multishot triggers); 0: all of them.
    pub after_count: u32,
    /// See `after`.
    pub gap: Time,
    /// The collective the flow belongs to (a training iteration; indices per workload),
    /// or `NO_GROUP`.
    pub group: u32,
}

/// `FlowSpec::group` of a flow that belongs to no group.
pub const NO_GROUP: u32 = u32::MAX;

/// A random permutation of `hosts` in which every host sends outside its own pod: a
/// uniform shuffle, then each pair that stays in a pod swaps destinations with a random
/// pair for which the swap makes both leave their pods. `None` when a pod holds more than
/// half of the hosts (no such permutation exists).
pub fn cross_pod_derangement(hosts: &[u32], pod: impl Fn(u32) -> u32, rng: &mut Rng) -> Option<Vec<u32>> {
    let n = hosts.len();
    let mut count = std::collections::HashMap::new();
    for &h in hosts {
        *count.entry(pod(h)).or_insert(0usize) += 1;
    }
    if count.values().any(|&c| 2 * c > n) {
        return None;
    }
    let mut dst = hosts.to_vec();
    rng.shuffle(&mut dst);
    let bad = |i: usize, dst: &[u32]| pod(hosts[i]) == pod(dst[i]);
    // A swap fixes pair i and keeps pair j good, so the loop only moves forward; the
    // bound guards the rare corner where no partner exists (then: no answer, not a hang).
    let mut tries = 0u64;
    for i in 0..n {
        while bad(i, &dst) {
            tries += 1;
            if tries > 1000 * n as u64 {
                return None;
            }
            let j = rng.below(n as u64) as usize;
            if pod(hosts[i]) != pod(dst[j]) && pod(hosts[j]) != pod(dst[i]) {
                dst.swap(i, j);
            }
        }
    }
    Some(dst)
}

/// A random derangement of `hosts` (no host sends to itself): a uniform shuffle, redrawn
/// until it has no fixed point (about e ≈ 2.7 draws on average).
pub fn derangement(hosts: &[u32], rng: &mut Rng) -> Vec<u32> {
    if hosts.len() < 2 {
        return hosts.to_vec();
    }
    let mut perm = hosts.to_vec();
    loop {
        rng.shuffle(&mut perm);
        if perm.iter().zip(hosts).all(|(a, b)| a != b) {
            return perm;
        }
    }
}

fn field(i: usize, name: &str) -> String {
    format!("workload[{i}].{name}")
}

/// Resolves a host selection against `n_hosts`; `used` marks hosts of earlier workloads.
fn select_hosts(
    sel: &Option<HostSet>,
    n_hosts: u32,
    used: &[bool],
    i: usize,
    rng: &mut Rng,
) -> Result<Vec<u32>, ScenarioError> {
    match sel {
        None => Ok((0..n_hosts).collect()),
        Some(HostSet::Remaining) => {
            let rest: Vec<u32> = (0..n_hosts).filter(|&h| !used[h as usize]).collect();
            if rest.len() < 2 {
                return err(
                    &field(i, "hosts"),
                    format!("\"remaining\" leaves {} unused hosts; a workload needs at least 2", rest.len()),
                );
            }
            Ok(rest)
        }
        Some(HostSet::Count(c)) => {
            if *c < 2 || *c > n_hosts {
                return err(
                    &field(i, "hosts"),
                    format!("{c} hosts requested; allowed 2..={n_hosts} (the topology has {n_hosts})"),
                );
            }
            let mut all: Vec<u32> = (0..n_hosts).collect();
            rng.shuffle(&mut all);
            all.truncate(*c as usize);
            all.sort_unstable();
            Ok(all)
        }
        Some(HostSet::List(list)) => {
            for &h in list {
                if h >= n_hosts {
                    return err(&field(i, "hosts"), format!("host {h} does not exist; hosts are 0..{}", n_hosts - 1));
                }
            }
            let mut sorted = list.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != list.len() {
                return err(&field(i, "hosts"), "the list names a host twice");
            }
            if list.len() < 2 {
                return err(&field(i, "hosts"), "a workload needs at least 2 hosts");
            }
            Ok(list.clone())
        }
    }
}

/// Which optional fields each kind accepts, so a misplaced one is an error, not ignored.
fn allowed_fields(kind: WorkloadKind) -> &'static [&'static str] {
    match kind {
        WorkloadKind::Permutation => &["size", "start", "stop", "hosts", "app", "priority", "cross_pod"],
        WorkloadKind::AllToAll => &["size", "start", "stop", "hosts", "app", "priority", "window"],
        WorkloadKind::Incast => &["size", "start", "stop", "senders", "receiver", "app", "priority"],
        WorkloadKind::TrafficMode => &["size", "start", "stop", "mode", "flows", "app", "priority"],
        WorkloadKind::Poisson => &["start", "stop", "hosts", "cdf", "load", "priority"],
        WorkloadKind::HsdpRing => &["size", "start", "servers", "gpus_per_server", "priority"],
        WorkloadKind::Training => &["size", "start", "hosts", "compute", "iterations", "priority"],
        WorkloadKind::Coflow => &[
            "size",
            "cdf",
            "load",
            "start",
            "stop",
            "hosts",
            "priority",
            "mappers",
            "reducers",
            "min_flow",
            "equal_load_per_level",
            "coflows",
        ],
        WorkloadKind::Flows => &["file", "priority"],
        WorkloadKind::HtsimCm | WorkloadKind::HpccFlows => &["file"],
    }
}

fn check_fields(w: &WorkloadCfg, i: usize) -> Result<(), ScenarioError> {
    let present = [
        ("size", w.size.is_some()),
        ("start", w.start.is_some()),
        ("stop", w.stop.is_some()),
        ("hosts", w.hosts.is_some()),
        ("senders", w.senders.is_some()),
        ("receiver", w.receiver.is_some()),
        ("file", w.file.is_some()),
        ("servers", w.servers.is_some()),
        ("gpus_per_server", w.gpus_per_server.is_some()),
        ("mode", w.mode.is_some()),
        ("flows", w.flows.is_some()),
        ("app", w.app.is_some()),
        ("cdf", w.cdf.is_some()),
        ("load", w.load.is_some()),
        ("priority", w.priority.is_some()),
        ("cross_pod", w.cross_pod.is_some()),
        ("window", w.window.is_some()),
        ("compute", w.compute.is_some()),
        ("iterations", w.iterations.is_some()),
        ("mappers", w.mappers.is_some()),
        ("reducers", w.reducers.is_some()),
        ("min_flow", w.min_flow.is_some()),
        ("equal_load_per_level", w.equal_load_per_level.is_some()),
        ("coflows", w.coflows.is_some()),
    ];
    let allowed = allowed_fields(w.kind);
    for (name, is) in present {
        if is && !allowed.contains(&name) {
            let kind = serde_json::to_string(&w.kind).unwrap();
            return err(&field(i, name), format!("not used by kind = {kind}; it takes: {}", allowed.join(", ")));
        }
    }
    Ok(())
}

pub struct Defaults {
    pub cc: CcName,
    pub lb: LbName,
    pub n_hosts: u32,
    pub duration: Option<Time>,
    /// Payload bytes of a full packet (an application's send buffer must hold one).
    pub payload: u64,
    /// Each host's link rate (what a `poisson` workload's load is a fraction of).
    pub host_rates: Vec<Rate>,
    /// Each host's pod (`Topology::host_pod`).
    pub host_pod: Vec<u32>,
}

/// Expands workload `i` into flows, marking the hosts it uses in `used`.
pub fn generate(
    w: &WorkloadCfg,
    i: usize,
    tag: u16,
    d: &Defaults,
    base_dir: &Path,
    rng: &mut Rng,
    used: &mut [bool],
) -> Result<Vec<FlowSpec>, ScenarioError> {
    let mut flows = generate_flows(w, i, tag, d, base_dir, rng, used)?;
    // A coflow's priority follows its total size, set by its generator.
    if let (Some(p), false) = (&w.priority, w.kind == WorkloadKind::Coflow) {
        for f in &mut flows {
            f.priority = p.level(f.size);
        }
    }
    for f in &flows {
        used[f.src as usize] = true;
        used[f.dst as usize] = true;
    }
    Ok(flows)
}

fn generate_flows(
    w: &WorkloadCfg,
    i: usize,
    tag: u16,
    d: &Defaults,
    base_dir: &Path,
    rng: &mut Rng,
    used: &[bool],
) -> Result<Vec<FlowSpec>, ScenarioError> {
    check_fields(w, i)?;
    let cc = w.cc.unwrap_or(d.cc);
    let lb = w.lb.unwrap_or(d.lb);
    let start = w.start.map(|t| t.0).unwrap_or(Time::ZERO);
    if let Some(d) = d.duration {
        if start >= d {
            return err(
                &field(i, "start"),
                format!("{start} is not before the scenario's duration ({d}): the workload would never run"),
            );
        }
    }
    if let Some(app) = &w.app {
        if let Err((sub, msg)) = app.validate(d.payload) {
            return err(&field(i, &format!("app.{sub}")), msg);
        }
        if matches!(w.size, Some(FlowSize::Bytes(_))) {
            return err(
                &field(i, "size"),
                "with an app, the application decides what is sent: leave size out or write \"infinite\"",
            );
        }
        if d.duration.is_none() {
            return err(
                &field(i, "app"),
                "needs the scenario's `duration` (the end of measurement): an application-fed flow never finishes by itself",
            );
        }
    }
    // With an app, the flow is unbounded; the app stops writing at `stop`.
    let size = if w.app.is_some() { Some(FlowSize::Infinite) } else { w.size };
    let mk_size = || -> Result<(u64, Time), ScenarioError> {
        match size {
            None => err(&field(i, "size"), "required: a byte count such as \"2MB\", or \"infinite\""),
            Some(FlowSize::Bytes(0)) => err(&field(i, "size"), "must be positive"),
            Some(FlowSize::Bytes(b)) => {
                if w.stop.is_some() {
                    return err(&field(i, "stop"), "only for size = \"infinite\" (finite flows end when delivered)");
                }
                Ok((b, Time::MAX))
            }
            Some(FlowSize::Infinite) => match (w.stop, d.duration) {
                (Some(s), _) if s.0 <= start => err(&field(i, "stop"), format!("must be after start ({})", start)),
                (Some(s), _) => Ok((u64::MAX, s.0)),
                (None, Some(dur)) => Ok((u64::MAX, dur)),
                // Background traffic: runs until every finite flow has finished (the builder
                // checks that there are some).
                (None, None) => Ok((u64::MAX, Time::MAX)),
            },
        }
    };
    let spec = |src, dst, size, stop| FlowSpec {
        src,
        dst,
        size,
        start,
        stop,
        tag,
        cc,
        lb,
        app: w.app.clone(),
        priority: 0,
        after: Vec::new(),
        after_acked: Vec::new(),
        after_count: 0,
        gap: Time::ZERO,
        group: NO_GROUP,
    };
    let mut out = Vec::new();
    match w.kind {
        WorkloadKind::Permutation => {
            let (size, stop) = mk_size()?;
            let hosts = select_hosts(&w.hosts, d.n_hosts, used, i, rng)?;
            let dsts = if w.cross_pod == Some(true) {
                let pod = |h: u32| d.host_pod[h as usize];
                match cross_pod_derangement(&hosts, pod, rng) {
                    Some(dsts) => dsts,
                    None => {
                        return err(
                            &field(i, "cross_pod"),
                            "no permutation of these hosts leaves every pod: one pod holds more than half of them",
                        )
                    }
                }
            } else {
                derangement(&hosts, rng)
            };
            for (s, t) in hosts.iter().zip(&dsts) {
                out.push(spec(*s, *t, size, stop));
            }
        }
        WorkloadKind::AllToAll => {
            let (size, stop) = mk_size()?;
            let hosts = select_hosts(&w.hosts, d.n_hosts, used, i, rng)?;
            let n = hosts.len();
            let window = match w.window {
                Some(0) => return err(&field(i, "window"), "0: allowed 1 or more flows per sender"),
                Some(_) if w.app.is_some() => {
                    return err(
                        &field(i, "window"),
                        "not with an app (app-fed flows never finish, so none would follow)",
                    )
                }
                Some(k) => k as usize,
                None => n,
            };
            // Host i sends to i+1, i+2, … (ring order), so at any moment the senders'
            // current destinations are spread over all hosts.
            for step in 1..n {
                for (si, &s) in hosts.iter().enumerate() {
                    let mut f = spec(s, hosts[(si + step) % n], size, stop);
                    if step > window {
                        // This sender's flow `window` steps back; flows are laid out step-major.
                        f.after = vec![((step - 1 - window) * n + si) as u32];
                    }
                    out.push(f);
                }
            }
        }
        WorkloadKind::Incast => {
            let (size, stop) = mk_size()?;
            let Some(n) = w.senders else {
                return err(&field(i, "senders"), "required: the number of hosts sending to the receiver");
            };
            if n == 0 || n >= d.n_hosts {
                return err(
                    &field(i, "senders"),
                    format!("{n}: allowed 1..={} (hosts minus the receiver)", d.n_hosts - 1),
                );
            }
            let recv = match w.receiver {
                Some(r) if r >= d.n_hosts => {
                    return err(
                        &field(i, "receiver"),
                        format!("host {r} does not exist; hosts are 0..{}", d.n_hosts - 1),
                    )
                }
                Some(r) => r,
                None => rng.below(d.n_hosts as u64) as u32,
            };
            let mut others: Vec<u32> = (0..d.n_hosts).filter(|&h| h != recv).collect();
            rng.shuffle(&mut others);
            others.truncate(n as usize);
            others.sort_unstable();
            for s in others {
                out.push(spec(s, recv, size, stop));
            }
        }
        WorkloadKind::HsdpRing => {
            let (size, stop) = mk_size()?;
            if size == u64::MAX {
                return err(&field(i, "size"), "a ring step moves a finite amount of data per flow");
            }
            let servers = w.servers.unwrap_or(16);
            let gpus = w.gpus_per_server.unwrap_or(8);
            if servers < 2 || gpus == 0 {
                return err(&field(i, "servers"), "a ring needs at least 2 servers of at least 1 GPU");
            }
            let slots = d.n_hosts / gpus;
            if servers > slots {
                return err(
                    &field(i, "servers"),
                    format!(
                        "{servers} servers of {gpus} GPUs need {} hosts; the topology has {}",
                        servers * gpus,
                        d.n_hosts
                    ),
                );
            }
            // Servers land on random blocks of `gpus` consecutive hosts (one server per
            // block, as GPUs of a server share a rack); GPU l of server s sends to GPU l of
            // server s + 1, which is logical GPU i -> i + gpus of the paper's ring.
            let mut blocks: Vec<u32> = (0..slots).collect();
            rng.shuffle(&mut blocks);
            let host = |s: u32, l: u32| blocks[s as usize] * gpus + l;
            for s in 0..servers {
                for l in 0..gpus {
                    out.push(spec(host(s, l), host((s + 1) % servers, l), size, stop));
                }
            }
        }
        WorkloadKind::Training => {
            let (gradient, stop) = mk_size()?;
            if gradient == u64::MAX {
                return err(
                    &field(i, "size"),
                    "the gradient's bytes per iteration: a finite size such as \"9439232B\"",
                );
            }
            let compute = match w.compute {
                Some(c) => c.0,
                None => {
                    return err(&field(i, "compute"), "required: the compute time of one iteration, e.g. \"701us\"")
                }
            };
            let iterations =
                match (w.iterations, d.duration) {
                    (Some(0), _) => return err(&field(i, "iterations"), "0: allowed 1 or more"),
                    (Some(k), _) => k,
                    // Every iteration that could begin before the end of the run (its compute
                    // alone fits); those the network delays past it never start.
                    (None, Some(dur)) if compute > Time::ZERO => ((dur - start).0 / compute.0).max(1) as u32,
                    (None, _) => return err(
                        &field(i, "iterations"),
                        "required (or the scenario's `duration` and a positive `compute`): how many iterations to run",
                    ),
                };
            let ring = select_hosts(&w.hosts, d.n_hosts, used, i, rng)?;
            let n = ring.len() as u64;
            // Ring all-reduce: reduce-scatter then all-gather, n − 1 steps each of 1/n of
            // the gradient, all to the ring successor (docs/reproductions/prioplus-paper.md, F12C).
            let per_worker = (2 * (n - 1) * gradient).div_ceil(n);
            for it in 0..iterations {
                for (wi, &src) in ring.iter().enumerate() {
                    let dst = ring[(wi + 1) % ring.len()];
                    let mut f = FlowSpec { start: start + compute, group: it, ..spec(src, dst, per_worker, stop) };
                    if it > 0 {
                        // The next iteration computes once the previous all-reduce is done.
                        let prev = (it - 1) * n as u32;
                        f.after = (prev..prev + n as u32).collect();
                        f.gap = compute;
                    }
                    out.push(f);
                }
            }
        }
        WorkloadKind::TrafficMode => {
            let (size, stop) = mk_size()?;
            let Some(mode) = w.mode else {
                return err(
                    &field(i, "mode"),
                    "required: \"fixed_hotspot\" (the study's mode 0), \"random_hotspot\" (1) or \"random_pairs\" (2)",
                );
            };
            let requested = match w.flows {
                Some(f) if f >= 1 => f,
                _ => return err(&field(i, "flows"), "required: the number of flows requested, 1 or more"),
            };
            for (src, dst) in traffic_mode_pairs(mode, requested, d.n_hosts, rng) {
                out.push(spec(src, dst, size, stop));
            }
        }
        WorkloadKind::Poisson => {
            let Some(file) = &w.cdf else {
                return err(&field(i, "cdf"), "required: a flow-size CDF file (lines \"bytes probability\")");
            };
            let text = std::fs::read_to_string(base_dir.join(file))
                .map_err(|e| ScenarioError(format!("{}: cannot read {file}: {e}", field(i, "cdf"))))?;
            let cdf = SizeCdf::parse(&text).map_err(|e| ScenarioError(format!("{}: {file}: {e}", field(i, "cdf"))))?;
            let load = match w.load {
                Some(l) if l > 0.0 && l <= 1.0 => l,
                Some(l) => {
                    return err(&field(i, "load"), format!("{l}: allowed 0 < load <= 1 (a fraction of the link rate)"))
                }
                None => return err(&field(i, "load"), "required: offered load per host, a fraction of its link rate"),
            };
            let stop = match (w.stop, d.duration) {
                (Some(s), _) if s.0 <= start => {
                    return err(&field(i, "stop"), format!("must be after start ({start})"))
                }
                (Some(s), _) => s.0,
                (None, Some(dur)) => dur,
                (None, None) => {
                    return err(
                        &field(i, "stop"),
                        "required (or the scenario's `duration`): when hosts stop starting flows",
                    )
                }
            };
            let hosts = select_hosts(&w.hosts, d.n_hosts, used, i, rng)?;
            if hosts.len() < 2 {
                return err(&field(i, "hosts"), "a Poisson workload needs at least 2 hosts");
            }
            for (src, dst, size, at) in poisson_arrivals(&cdf, load, &hosts, &d.host_rates, start, stop, rng) {
                out.push(FlowSpec { start: at, ..spec(src, dst, size, Time::MAX) });
            }
        }
        WorkloadKind::Coflow => {
            let params = coflow_params(w, i, d, base_dir, start)?;
            let hosts = select_hosts(&w.hosts, d.n_hosts, used, i, rng)?;
            check_coflow_hosts(&params, hosts.len() as u32, i)?;
            let coflows = coflow_arrivals(&params, &hosts, &d.host_rates, rng);
            if coflows.len() > u32::MAX as usize / 2 {
                return err(&field(i, "load"), "too many coflows; lower the load or shorten start..stop");
            }
            for (group, c) in coflows.iter().enumerate() {
                for (src, dst, bytes) in c.flows() {
                    out.push(FlowSpec {
                        start: c.arrival,
                        priority: c.priority,
                        group: group as u32,
                        ..spec(src, dst, bytes, Time::MAX)
                    });
                }
            }
        }
        WorkloadKind::Flows | WorkloadKind::HtsimCm | WorkloadKind::HpccFlows => {
            let Some(file) = &w.file else {
                return err(&field(i, "file"), "required: path of the flow file (relative to the scenario file)");
            };
            let path = base_dir.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ScenarioError(format!("{}: cannot read {}: {e}", field(i, "file"), path.display())))?;
            let parsed = match w.kind {
                WorkloadKind::Flows => parse_flow_csv(&text).map(|r| (r, Vec::new())),
                WorkloadKind::HpccFlows => parse_hpcc_flows(&text).map(|r| (r, Vec::new())),
                _ => parse_htsim_cm_with_triggers(&text),
            };
            let (rows, mut waits) =
                parsed.map_err(|m| ScenarioError(format!("{}: {}: {m}", field(i, "file"), path.display())))?;
            waits.resize(rows.len(), CmWait::default());
            if w.kind == WorkloadKind::HtsimCm {
                let nodes = htsim_cm_nodes(&text)
                    .map_err(|m| ScenarioError(format!("{}: {}: {m}", field(i, "file"), path.display())))?;
                if let Some(nodes) = nodes.filter(|&n| n != d.n_hosts) {
                    return err(
                        &field(i, "file"),
                        format!(
                            "{} declares `Nodes {nodes}` but the topology has {} hosts; set topology.hosts = {nodes} (htsim runs the matrix on that many hosts)",
                            path.display(),
                            d.n_hosts
                        ),
                    );
                }
            }
            for ((line, r), wait) in rows.into_iter().zip(waits) {
                for (h, what) in [(r.0, "src"), (r.1, "dst")] {
                    if h >= d.n_hosts {
                        return err(
                            &field(i, "file"),
                            format!(
                                "{} line {line}: {what} host {h} does not exist; hosts are 0..{}",
                                path.display(),
                                d.n_hosts - 1
                            ),
                        );
                    }
                }
                if r.0 == r.1 {
                    return err(
                        &field(i, "file"),
                        format!("{} line {line}: a flow from host {} to itself", path.display(), r.0),
                    );
                }
                out.push(FlowSpec {
                    src: r.0,
                    dst: r.1,
                    size: r.2,
                    start: r.3,
                    stop: Time::MAX,
                    tag,
                    cc,
                    lb,
                    app: None,
                    priority: 0,
                    after: wait.after,
                    after_acked: wait.after_acked,
                    after_count: wait.count,
                    gap: Time::ZERO,
                    group: NO_GROUP,
                });
            }
        }
    }
    Ok(out)
}

/// Flows (src, dst, bytes, start) of a Poisson workload: each host in `hosts` starts flows
/// at rate load × its link rate / (8 × mean size), from `start` until `stop`, to a
/// uniformly drawn other host of the set, with sizes drawn from `cdf` (at least 1 byte).
/// Sorted by start time (ties by source).
pub fn poisson_arrivals(
    cdf: &SizeCdf,
    load: f64,
    hosts: &[u32],
    host_rates: &[Rate],
    start: Time,
    stop: Time,
    rng: &mut Rng,
) -> Vec<(u32, u32, u64, Time)> {
    let mean_bits = cdf.mean() * 8.0;
    let mut out = Vec::new();
    for (k, &src) in hosts.iter().enumerate() {
        let per_second = load * host_rates[src as usize].as_gbps_f64() * 1e9 / mean_bits;
        let mut t = start.as_secs_f64();
        loop {
            t += rng.exponential(per_second);
            let at = Time::from_secs_f64(t);
            if at >= stop {
                break;
            }
            let mut j = rng.below(hosts.len() as u64 - 1) as usize;
            if j >= k {
                j += 1;
            }
            let size = cdf.quantile(rng.next_f64()).round().max(1.0) as u64;
            out.push((src, hosts[j], size, at));
        }
    }
    out.sort_by_key(|&(src, _, _, at)| (at, src));
    out
}

/// The (sender, receiver) pairs of the DCTCP-vs-Swift study's traffic modes
/// (docs/reproductions/dctcp-vs-swift-paper.md, "Common setup"), for `requested` flows over `n_hosts` hosts:
/// - `FixedHotspot` (mode 0): receiver N − 1; flow i from host i mod N, skipped when that is
///   the receiver, so F − ⌊F/N⌋ pairs (650 → 610 at N = 16);
/// - `RandomHotspot` (mode 1): one receiver uniform; F senders uniform over the others;
/// - `RandomPairs` (mode 2): per flow a receiver uniform, then a sender uniform ≠ it.
///
/// Draws come from `rng` (the workload stream), with replacement.
pub fn traffic_mode_pairs(mode: TrafficMode, requested: u32, n_hosts: u32, rng: &mut Rng) -> Vec<(u32, u32)> {
    let n = n_hosts as u64;
    // Uniform over the hosts other than `not`: draw among N − 1 and step over it.
    let other_than = |not: u32, rng: &mut Rng| {
        let h = rng.below(n - 1) as u32;
        if h >= not {
            h + 1
        } else {
            h
        }
    };
    match mode {
        TrafficMode::FixedHotspot => {
            let recv = n_hosts - 1;
            (0..requested).map(|i| i % n_hosts).filter(|&s| s != recv).map(|s| (s, recv)).collect()
        }
        TrafficMode::RandomHotspot => {
            let recv = rng.below(n) as u32;
            (0..requested).map(|_| (other_than(recv, rng), recv)).collect()
        }
        TrafficMode::RandomPairs => (0..requested)
            .map(|_| {
                let recv = rng.below(n) as u32;
                (other_than(recv, rng), recv)
            })
            .collect(),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
