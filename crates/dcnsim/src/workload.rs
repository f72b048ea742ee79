//! Workload generators (permutation, incast, all-to-all, the DCTCP-vs-Swift study's three
//! traffic modes, Poisson flows at a load, training all-reduces, coflows) and importers (a
//! flow CSV, htsim connection matrices). Each produces `FlowSpec`s; the simulation turns
//! them into flows. Random choices draw from the "workload" stream, so they depend only on
//! the seed and on the workloads before them in the file. Everything here runs once, at
//! setup; nothing is on the per-packet path.
//!
//! ## Coflows (`kind = "coflow"`, spec prioplus.md §4.4 L2)
//!
//! The PrioPlus paper's coflow experiment replays the Facebook Hadoop trace
//! FB2010-1Hr-150-0 (526 coflows over 150 racks; each line gives a coflow's arrival, its
//! mapper racks and each reducer's input in MB). We do not have the trace, so
//! `coflow_arrivals` generates coflows *in its spirit* (`Fb2010Like`), and differs from it
//! in these ways:
//! - arrivals are a Poisson process at a chosen load, not the trace's arrival times;
//! - the total size S is drawn from a CDF whose octiles are the artefact's eight coflow
//!   size groups (0.5, 1, 6, 10, 25, 42, 137 MB, 1.16 GB; spec §4.4 L2), linear in
//!   between, from 0.1 MB: an *assumption* that the artefact cut the trace's sizes into
//!   equal-count groups; the real distribution is not known here;
//! - the mapper count M and the reducer count R are drawn independently of each other and
//!   of S from invented CDFs (`Fb2010Like::MAPPERS`, `REDUCERS`) with the trace's broad
//!   shape: most coflows narrow (with these CDFs about 72 % have M·R ≤ 50 flows before
//!   trimming, against the 68 % "narrow", ≤ 50 flows, that Varys (SIGCOMM '14) reports
//!   for this trace), a few up to 150 × 100. In the trace wide coflows are mostly large; here the correlation
//!   comes only from trimming: counts are cut until every flow carries at least
//!   `min_flow` bytes (default 10 KB), so a small coflow cannot be a thousand tiny flows;
//! - every mapper sends S/(M·R) to every reducer (the paper's rule and spec §7.19; the
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

use crate::app::AppCfg;
use crate::engine::Rng;
use crate::scenario::{
    err, CcName, FlowSize, HostSet, LbName, PrioritySpec, ScenarioError, TrafficMode, WorkloadCfg, WorkloadKind,
};
use crate::units::{parse_bytes, parse_time, Rate, Time};

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
        WorkloadKind::HtsimCm => &["file"],
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
            // the gradient, all to the ring successor (spec prioplus.md §4.4 L3).
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
        WorkloadKind::Flows | WorkloadKind::HtsimCm => {
            let Some(file) = &w.file else {
                return err(&field(i, "file"), "required: path of the flow file (relative to the scenario file)");
            };
            let path = base_dir.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| ScenarioError(format!("{}: cannot read {}: {e}", field(i, "file"), path.display())))?;
            let parsed = if w.kind == WorkloadKind::Flows { parse_flow_csv(&text) } else { parse_htsim_cm(&text) };
            let rows = parsed.map_err(|m| ScenarioError(format!("{}: {}: {m}", field(i, "file"), path.display())))?;
            for (line, r) in rows {
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
                    after: Vec::new(),
                    gap: Time::ZERO,
                    group: NO_GROUP,
                });
            }
        }
    }
    Ok(out)
}

/// Which flows start when others are delivered (windowed all-to-all, training
/// iterations), in the simulation's flow ids: for each flow, the flows waiting on it, and
/// for each waiting flow how many of its predecessors are still undelivered and how long
/// after the last one it starts. Empty when no flow waits, so runs without dependencies
/// pay one length test per delivered flow.
#[derive(Debug, Default)]
pub struct Dependencies {
    /// `dependents[first[f]..first[f + 1]]` wait on flow f.
    first: Vec<u32>,
    dependents: Vec<u32>,
    waiting: Vec<u32>,
    gap: Vec<Time>,
}

impl Dependencies {
    pub fn new(specs: &[FlowSpec]) -> Dependencies {
        if specs.iter().all(|f| f.after.is_empty()) {
            return Dependencies::default();
        }
        let n = specs.len();
        let mut first = vec![0u32; n + 1];
        for sp in specs {
            for &a in &sp.after {
                first[a as usize + 1] += 1;
            }
        }
        for f in 0..n {
            first[f + 1] += first[f];
        }
        let mut fill = first.clone();
        let mut dependents = vec![0u32; first[n] as usize];
        for (id, sp) in specs.iter().enumerate() {
            for &a in &sp.after {
                dependents[fill[a as usize] as usize] = id as u32;
                fill[a as usize] += 1;
            }
        }
        Dependencies {
            first,
            dependents,
            waiting: specs.iter().map(|f| f.after.len() as u32).collect(),
            gap: specs.iter().map(|f| f.gap).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Flow `f` was delivered: calls `ready(g, gap)` for each flow g that now has every
    /// predecessor delivered, in flow-id order, `gap` being its delay from now.
    pub fn delivered(&mut self, f: u32, mut ready: impl FnMut(u32, Time)) {
        if self.is_empty() {
            return;
        }
        let (a, b) = (self.first[f as usize] as usize, self.first[f as usize + 1] as usize);
        for &g in &self.dependents[a..b] {
            let w = &mut self.waiting[g as usize];
            *w -= 1;
            if *w == 0 {
                ready(g, self.gap[g as usize]);
            }
        }
    }
}

/// The FB2010-like coflow shape (module header: what it keeps of the trace and what it
/// invents). Each table is a CDF in `SizeCdf`'s format, linear between points; counts are
/// rounded to the nearest integer.
pub struct Fb2010Like;

impl Fb2010Like {
    /// Coflow total size S in bytes: the artefact's eight group edges taken as octiles.
    /// Mean 100.2 MB; the last octile (137 MB–1.16 GB) holds 81 % of the bytes.
    pub const SIZES: &'static str = "100000 0\n500000 0.125\n1000000 0.25\n6000000 0.375\n10000000 0.5\n\
        25000000 0.625\n42000000 0.75\n137000000 0.875\n1160000000 1\n";
    /// Mappers M: a quarter single-mapper, 70 % at most 10, up to 150 (the trace's racks).
    pub const MAPPERS: &'static str = "1 0\n1 0.25\n2 0.4\n5 0.55\n10 0.7\n20 0.8\n50 0.9\n100 0.97\n150 1\n";
    /// Reducers R: a third single-reducer, 80 % at most 10, up to 100.
    pub const REDUCERS: &'static str = "1 0\n1 0.35\n2 0.5\n5 0.65\n10 0.8\n20 0.9\n50 0.97\n100 1\n";
}

/// Smallest flow of a coflow whose counts were drawn (`min_flow`'s default): about
/// 1 MB (the trace's smallest reducer input) over 100 mappers; it bounds the flow count
/// of small coflows.
pub const DEFAULT_MIN_FLOW: u64 = 10_000;

/// A `coflow` workload's parameters, validated (`coflow_params`).
#[derive(Clone, Debug)]
pub struct CoflowParams {
    /// Distribution of the total size S (a fixed `size` is a one-point CDF).
    pub sizes: SizeCdf,
    /// Fixed counts, or drawn from these CDFs.
    pub mappers: CountDraw,
    pub reducers: CountDraw,
    /// Drawn counts are trimmed until S/(M·R) is at least this (bytes, ≥ 1). With fixed
    /// counts, S is raised to M·R where it is smaller (one byte per flow).
    pub min_flow: u64,
    /// Offered payload load, a fraction of the hosts' summed link rates.
    pub load: f64,
    pub priority: Option<PrioritySpec>,
    pub equal_load_per_level: bool,
    pub start: Time,
    /// Arrivals at or after `stop` are dropped (`Time::MAX`: only `max_coflows` ends it).
    pub stop: Time,
    pub max_coflows: Option<u32>,
}

#[derive(Clone, Debug)]
pub enum CountDraw {
    Fixed(u32),
    Drawn(SizeCdf),
}

/// One coflow before it becomes flows: every mapper sends to every reducer.
#[derive(Clone, Debug, PartialEq)]
pub struct Coflow {
    pub arrival: Time,
    /// Total payload bytes S.
    pub bytes: u64,
    pub mappers: Vec<u32>,
    pub reducers: Vec<u32>,
    pub priority: u8,
}

impl Coflow {
    /// (src, dst, bytes) of its M·R flows, mapper-major: S/(M·R) each, the remainder of
    /// the division one byte apiece on the first flows, so that they add up to S exactly.
    pub fn flows(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        let n = (self.mappers.len() * self.reducers.len()) as u64;
        let (each, extra) = (self.bytes / n, self.bytes % n);
        self.mappers
            .iter()
            .flat_map(move |&m| self.reducers.iter().map(move |&r| (m, r)))
            .enumerate()
            .map(move |(k, (m, r))| (m, r, each + u64::from((k as u64) < extra)))
    }
}

/// Reads and checks a `coflow` workload's fields; errors name the field and what is allowed.
fn coflow_params(
    w: &WorkloadCfg,
    i: usize,
    d: &Defaults,
    base_dir: &Path,
    start: Time,
) -> Result<CoflowParams, ScenarioError> {
    let sizes = match (&w.size, &w.cdf) {
        (Some(_), Some(_)) => {
            return err(
                &field(i, "size"),
                "give either `size` (every coflow's total) or `cdf` (a distribution), not both",
            )
        }
        (Some(FlowSize::Infinite), _) => {
            return err(&field(i, "size"), "a coflow's total bytes must be finite, e.g. \"10MB\"")
        }
        (Some(FlowSize::Bytes(0)), _) => return err(&field(i, "size"), "must be positive"),
        (Some(FlowSize::Bytes(b)), None) => SizeCdf { points: vec![(*b as f64, 1.0)] },
        (None, Some(file)) => {
            let text = std::fs::read_to_string(base_dir.join(file))
                .map_err(|e| ScenarioError(format!("{}: cannot read {file}: {e}", field(i, "cdf"))))?;
            SizeCdf::parse(&text).map_err(|e| ScenarioError(format!("{}: {file}: {e}", field(i, "cdf"))))?
        }
        (None, None) => SizeCdf::parse(Fb2010Like::SIZES).expect("built-in CDF"),
    };
    let load = match w.load {
        Some(l) if l > 0.0 && l <= 1.0 => l,
        Some(l) => {
            return err(&field(i, "load"), format!("{l}: allowed 0 < load <= 1 (a fraction of the hosts' link rates)"))
        }
        None => return err(&field(i, "load"), "required: offered load, a fraction of the hosts' summed link rates"),
    };
    let stop = match (w.stop, d.duration, w.coflows) {
        (Some(s), _, _) if s.0 <= start => return err(&field(i, "stop"), format!("must be after start ({start})")),
        (Some(s), _, _) => s.0,
        (None, Some(dur), _) => dur,
        (None, None, Some(_)) => Time::MAX,
        (None, None, None) => {
            return err(
                &field(i, "stop"),
                "required (or the scenario's `duration`, or `coflows`): when coflows stop arriving",
            )
        }
    };
    if w.coflows == Some(0) {
        return err(&field(i, "coflows"), "0: allowed 1 or more (or leave it out)");
    }
    let count = |v: Option<u32>, name: &str, table: &str| -> Result<CountDraw, ScenarioError> {
        match v {
            Some(0) => err(&field(i, name), "0: allowed 1 or more (or leave it out to draw it per coflow)"),
            Some(k) => Ok(CountDraw::Fixed(k)),
            None => Ok(CountDraw::Drawn(SizeCdf::parse(table).expect("built-in CDF"))),
        }
    };
    let mappers = count(w.mappers, "mappers", Fb2010Like::MAPPERS)?;
    let reducers = count(w.reducers, "reducers", Fb2010Like::REDUCERS)?;
    let min_flow = match w.min_flow {
        Some(b) if b.0 == 0 => return err(&field(i, "min_flow"), "must be at least 1 byte"),
        Some(b) => b.0,
        None => DEFAULT_MIN_FLOW,
    };
    let equal_load_per_level = w.equal_load_per_level.unwrap_or(false);
    if equal_load_per_level {
        let Some(ranges) = w.priority.as_ref().and_then(|p| p.level_ranges()) else {
            return err(
                &field(i, "equal_load_per_level"),
                "needs `priority` by size ({ edges = [...] } or { levels = N, max = ... }): the load is split over its levels",
            );
        };
        for (level, lo, hi) in ranges {
            if level_probability(&sizes, lo, hi) <= 0.0 {
                return err(
                    &field(i, "equal_load_per_level"),
                    format!(
                        "priority level {level} (coflow sizes {lo} B up to {}) has no probability under the size \
                         distribution, so it cannot carry its share of the load; allowed: priority edges inside the \
                         distribution's range, or equal_load_per_level = false",
                        if hi == u64::MAX { "any".to_string() } else { format!("{hi} B") }
                    ),
                );
            }
        }
    }
    Ok(CoflowParams {
        sizes,
        mappers,
        reducers,
        min_flow,
        load,
        priority: w.priority.clone(),
        equal_load_per_level,
        start,
        stop,
        max_coflows: w.coflows,
    })
}

/// Fixed counts must fit in the workload's hosts (mappers and reducers are distinct).
fn check_coflow_hosts(p: &CoflowParams, n: u32, i: usize) -> Result<(), ScenarioError> {
    let need = |c: &CountDraw| if let CountDraw::Fixed(k) = c { *k } else { 1 };
    let (m, r) = (need(&p.mappers), need(&p.reducers));
    if m as u64 + r as u64 > n as u64 {
        let name = if matches!(p.mappers, CountDraw::Fixed(_)) { "mappers" } else { "reducers" };
        return err(
            &field(i, name),
            format!("{m} mappers and {r} reducers are {} distinct hosts; the workload has {n}", m + r),
        );
    }
    Ok(())
}

/// P(lo ≤ S < hi) under `sizes`.
fn level_probability(sizes: &SizeCdf, lo: u64, hi: u64) -> f64 {
    let upper = if hi == u64::MAX { 1.0 } else { sizes.below(hi as f64) };
    upper - sizes.below(lo as f64)
}

/// Fits drawn counts: M + R ≤ `hosts` (both scaled down in proportion when both are
/// drawn), then M·R ≤ max(1, ⌊S / min_flow⌋) (scaled by the same square root, so a coflow
/// keeps its shape). Fixed counts stay as they are (validated beforehand).
fn fit_counts(m: (u32, bool), r: (u32, bool), bytes: u64, min_flow: u64, hosts: u32) -> (u32, u32) {
    let ((mut m, m_fixed), (mut r, r_fixed)) = (m, r);
    if m + r > hosts {
        match (m_fixed, r_fixed) {
            (false, false) => {
                m = ((m as u64 * hosts as u64) / (m + r) as u64).max(1) as u32;
                r = hosts - m;
            }
            (true, _) => r = hosts - m,
            (false, true) => m = hosts - r,
        }
    }
    let width = (bytes / min_flow).max(1);
    if m as u64 * r as u64 > width {
        match (m_fixed, r_fixed) {
            (false, false) => {
                let f = (width as f64 / (m as f64 * r as f64)).sqrt();
                m = ((m as f64 * f).floor() as u64).clamp(1, width.min(m as u64)) as u32;
                r = (width / m as u64).clamp(1, r as u64) as u32;
            }
            (true, false) => r = (width / m as u64).clamp(1, r as u64) as u32,
            (false, true) => m = (width / r as u64).clamp(1, m as u64) as u32,
            (true, true) => {}
        }
    }
    (m, r)
}

/// The coflows of a `coflow` workload (module header), sorted by arrival (ties: higher
/// level first, then generation order). Each Poisson process (one, or one per level)
/// draws, per coflow: the gap to the next arrival, S, then M and R if drawn, then M + R
/// distinct hosts (a partial shuffle of `hosts`, the first M mapping).
pub fn coflow_arrivals(p: &CoflowParams, hosts: &[u32], host_rates: &[Rate], rng: &mut Rng) -> Vec<Coflow> {
    let capacity_bps: f64 = hosts.iter().map(|&h| host_rates[h as usize].as_gbps_f64() * 1e9).sum();
    // (level, probability slice (a, b] of the size CDF, its size range, share of the load).
    let processes: Vec<(Option<u8>, f64, f64, u64, u64, f64)> = match (&p.priority, p.equal_load_per_level) {
        (Some(spec), true) => {
            let ranges = spec.level_ranges().expect("validated: levels by size");
            let share = 1.0 / ranges.len() as f64;
            ranges
                .into_iter()
                .map(|(l, lo, hi)| {
                    let a = p.sizes.below(lo as f64);
                    let b = if hi == u64::MAX { 1.0 } else { p.sizes.below(hi as f64) };
                    (Some(l), a, b, lo, hi, share)
                })
                .collect()
        }
        _ => vec![(None, 0.0, 1.0, 0, u64::MAX, 1.0)],
    };
    let mut pool = hosts.to_vec();
    let n = hosts.len() as u32;
    let mut out: Vec<(Coflow, usize)> = Vec::new();
    for (pi, &(level, a, b, lo, hi, share)) in processes.iter().enumerate() {
        let mean_bytes = p.sizes.integral(a, b) / (b - a);
        let per_second = share * p.load * capacity_bps / (8.0 * mean_bytes);
        let mut t = p.start.as_secs_f64();
        let mut made = 0u32;
        loop {
            if p.max_coflows.is_some_and(|k| made >= k) {
                break;
            }
            t += rng.exponential(per_second);
            let arrival = Time::from_secs_f64(t);
            if arrival >= p.stop {
                break;
            }
            made += 1;
            // u in (a, b]: inside the level's slice of the CDF.
            let u = b - (b - a) * rng.next_f64();
            let bytes = (p.sizes.quantile(u).round() as u64).clamp(lo.max(1), hi.saturating_sub(1).max(1));
            let mut draw = |c: &CountDraw| match c {
                CountDraw::Fixed(k) => (*k, true),
                CountDraw::Drawn(cdf) => ((cdf.quantile(rng.next_f64()).round() as u32).max(1), false),
            };
            let (m, r) = (draw(&p.mappers), draw(&p.reducers));
            let (m, r) = fit_counts(m, r, bytes, p.min_flow, n);
            // At least a byte per flow (only fixed counts can ask for more than S).
            let bytes = bytes.max(m as u64 * r as u64);
            let k = (m + r) as usize;
            for j in 0..k {
                let pick = j + rng.below((pool.len() - j) as u64) as usize;
                pool.swap(j, pick);
            }
            let priority = match (level, &p.priority) {
                (Some(l), _) => l,
                (None, Some(spec)) => spec.level(bytes),
                (None, None) => 0,
            };
            let coflow = Coflow {
                arrival,
                bytes,
                mappers: pool[..m as usize].to_vec(),
                reducers: pool[m as usize..k].to_vec(),
                priority,
            };
            out.push((coflow, pi));
        }
    }
    // Stable: equal arrivals keep process order (highest level first), then generation order.
    out.sort_by_key(|(c, pi)| (c.arrival, *pi));
    let mut coflows: Vec<Coflow> = out.into_iter().map(|(c, _)| c).collect();
    if let Some(k) = p.max_coflows {
        coflows.truncate(k as usize);
    }
    coflows
}

/// The (sender, receiver) pairs of the DCTCP-vs-Swift study's traffic modes (spec
/// `dctcp-vs-swift.md` §3.2, digest §6.1), for `requested` flows over `n_hosts` hosts:
/// - `FixedHotspot` (mode 0): receiver N − 1; flow i from host i mod N, skipped when that is
///   the receiver, so F − ⌊F/N⌋ pairs (650 → 610 at N = 16);
/// - `RandomHotspot` (mode 1): one receiver uniform; F senders uniform over the others;
/// - `RandomPairs` (mode 2): per flow a receiver uniform, then a sender uniform ≠ it.
///
/// Draws come from `rng` (the workload stream), with replacement.
/// A flow-size distribution given as points of its CDF, linear in between (the format of
/// `shared/workloads/*.cdf` and of the HPCC/pFabric generators: "bytes probability" per
/// line, `#` comments, probabilities rising to 1).
#[derive(Clone, Debug)]
pub struct SizeCdf {
    points: Vec<(f64, f64)>,
}

impl SizeCdf {
    pub fn parse(text: &str) -> Result<SizeCdf, String> {
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut cols = line.split_whitespace().map(str::parse::<f64>);
            let (Some(Ok(x)), Some(Ok(p)), None) = (cols.next(), cols.next(), cols.next()) else {
                return Err(format!("line {}: expected two numbers \"bytes probability\", got {line:?}", n + 1));
            };
            if !(x >= 0.0 && x.is_finite() && (0.0..=1.0).contains(&p)) {
                return Err(format!("line {}: size must be >= 0 and probability in [0, 1]", n + 1));
            }
            if let Some(&(px, pp)) = points.last() {
                if x < px || p < pp {
                    return Err(format!("line {}: sizes and probabilities must not decrease", n + 1));
                }
            }
            points.push((x, p));
        }
        match points.last() {
            None => Err("no points".into()),
            Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => Err(format!("the last probability is {p}, not 1")),
            Some(_) => Ok(SizeCdf { points }),
        }
    }

    /// Mean size: each segment holds its probability mass uniformly between its ends.
    pub fn mean(&self) -> f64 {
        let first = self.points[0];
        let mut mean = first.0 * first.1;
        for w in self.points.windows(2) {
            mean += (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1);
        }
        mean
    }

    /// P(size < x): the probability below `x`, without a point mass sitting at `x`.
    pub fn below(&self, x: f64) -> f64 {
        let first = self.points[0];
        if x <= first.0 {
            return 0.0;
        }
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            if x1 > x0 && x <= x1 {
                return p0 + (p1 - p0) * (x - x0) / (x1 - x0);
            }
        }
        1.0
    }

    /// ∫ from a to b of `quantile(u)` du, for 0 ≤ a ≤ b ≤ 1: the bytes that the
    /// probability slice (a, b] holds (its conditional mean is this over b − a). The
    /// quantile is constant on a point mass and linear along a segment, so each piece is
    /// a trapezoid.
    pub fn integral(&self, a: f64, b: f64) -> f64 {
        let first = self.points[0];
        let mut total = first.0 * (b.min(first.1) - a).max(0.0);
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            let (lo, hi) = (a.max(p0), b.min(p1));
            if p1 > p0 && hi > lo {
                let at = |u: f64| x0 + (x1 - x0) * (u - p0) / (p1 - p0);
                total += (hi - lo) * (at(lo) + at(hi)) / 2.0;
            }
        }
        total
    }

    /// The smallest size the distribution can give.
    pub fn min(&self) -> f64 {
        self.points[0].0
    }

    /// The size at cumulative probability `u` in [0, 1) (inverse CDF, linear in segments).
    pub fn quantile(&self, u: f64) -> f64 {
        let first = self.points[0];
        if u <= first.1 {
            return first.0;
        }
        for w in self.points.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            if u <= p1 && p1 > p0 {
                return x0 + (x1 - x0) * (u - p0) / (p1 - p0);
            }
        }
        self.points[self.points.len() - 1].0
    }
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

type Row = (usize, (u32, u32, u64, Time));

/// CSV with header `src,dst,size,start`: size in bytes or with a unit, start with a unit.
pub fn parse_flow_csv(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err("empty file; expected a header `src,dst,size,start`".into());
    };
    let cols: Vec<&str> = header.split(',').map(|c| c.trim()).collect();
    if cols != ["src", "dst", "size", "start"] {
        return Err(format!("header is `{header}`; expected `src,dst,size,start`"));
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let f: Vec<&str> = line.split(',').map(|c| c.trim()).collect();
        if f.len() != 4 {
            return Err(format!("line {}: expected 4 fields, found {}", n + 1, f.len()));
        }
        let src = f[0].parse::<u32>().map_err(|_| format!("line {}: src `{}` is not a host number", n + 1, f[0]))?;
        let dst = f[1].parse::<u32>().map_err(|_| format!("line {}: dst `{}` is not a host number", n + 1, f[1]))?;
        let size = parse_bytes(f[2]).map_err(|e| format!("line {}: size {e}", n + 1))?;
        if size == 0 {
            return Err(format!("line {}: size must be positive", n + 1));
        }
        let start = parse_time(f[3]).map_err(|e| format!("line {}: start {e}", n + 1))?;
        rows.push((n + 1, (src, dst, size, start)));
    }
    Ok(rows)
}

/// htsim connection matrix: `Nodes N`, `Connections M`, then lines
/// `SRC->DST id ID start START_US size BYTES`. Start times are in microseconds, as in htsim.
/// Triggers and failures are not supported and are reported as such.
pub fn parse_htsim_cm(text: &str) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let mut declared: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let ln = n + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        match toks[0] {
            "Nodes" => continue,
            "Connections" => {
                declared = toks.get(1).and_then(|t| t.parse().ok());
                continue;
            }
            "Triggers" | "Failures" => {
                if toks.get(1).map(|t| *t != "0").unwrap_or(false) {
                    return Err(format!("line {ln}: {} are not supported by dcnsim's importer", toks[0]));
                }
                continue;
            }
            _ => {}
        }
        let (s, d) = toks[0]
            .split_once("->")
            .ok_or_else(|| format!("line {ln}: expected `SRC->DST ...`, found `{}`", toks[0]))?;
        let src = s.parse::<u32>().map_err(|_| format!("line {ln}: `{s}` is not a host number"))?;
        let dst = d.parse::<u32>().map_err(|_| format!("line {ln}: `{d}` is not a host number"))?;
        let mut start = Time::ZERO;
        let mut size = None;
        let mut k = 1;
        while k < toks.len() {
            let val = toks.get(k + 1).ok_or_else(|| format!("line {ln}: `{}` has no value", toks[k]))?;
            match toks[k] {
                "id" | "priority" => {}
                "start" => {
                    let us: f64 =
                        val.parse().map_err(|_| format!("line {ln}: start `{val}` is not a number of microseconds"))?;
                    if us < 0.0 {
                        return Err(format!("line {ln}: negative start"));
                    }
                    start = Time::from_secs_f64(us * 1e-6);
                }
                "size" => {
                    size = Some(val.parse::<u64>().map_err(|_| format!("line {ln}: size `{val}` is not a byte count"))?)
                }
                "trigger" | "send_done_trigger" | "recv_done_trigger" => {
                    return Err(format!(
                        "line {ln}: `{}` (connection triggers) is not supported by dcnsim's importer",
                        toks[k]
                    ))
                }
                other => {
                    return Err(format!("line {ln}: unknown attribute `{other}` (known: id, start, size, priority)"))
                }
            }
            k += 2;
        }
        let size = size.ok_or_else(|| format!("line {ln}: no `size`"))?;
        if size == 0 {
            return Err(format!("line {ln}: size must be positive"));
        }
        rows.push((ln, (src, dst, size, start)));
    }
    if let Some(m) = declared {
        if m != rows.len() {
            return Err(format!("`Connections {m}` but {} connection lines", rows.len()));
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made CDF: half the flows uniform in [0, 100] B, half in [100, 300] B. Its mean
    /// is 0.5·50 + 0.5·200 = 125 B, which is also ∫(1 − F) = 75 + 50.
    const TWO_SEGMENTS: &str = "# comment\n0 0\n100 0.5\n300 1\n";

    #[test]
    fn size_cdf_mean_and_quantiles_follow_linear_segments() {
        let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
        assert!((cdf.mean() - 125.0).abs() < 1e-9);
        assert_eq!(cdf.quantile(0.25), 50.0);
        assert_eq!(cdf.quantile(0.5), 100.0);
        assert_eq!(cdf.quantile(0.75), 200.0);
        // A point mass: 20 % of flows are exactly 1000 B.
        let steps = SizeCdf::parse("1000 0.2\n2000 1").unwrap();
        assert!((steps.mean() - (0.2 * 1000.0 + 0.8 * 1500.0)).abs() < 1e-9);
        assert!(SizeCdf::parse("0 0\n10 0.9").unwrap_err().contains("not 1"));
        assert!(SizeCdf::parse("0 0\n10 0.6\n5 1").unwrap_err().contains("line 3"));
    }

    /// P(S < x) and the slice integrals on TWO_SEGMENTS: below 50 B lies a quarter; the
    /// upper half (u in (0.5, 1]) is uniform on [100, 300] B, mean 200 B, so it holds
    /// 0.5 × 200 = 100 B of the 125 B mean. A point mass of 0.2 at 1000 B: nothing lies
    /// below 1000 B, and the slice (0, 0.2] is that mass, 0.2 × 1000 = 200.
    #[test]
    fn size_cdf_probability_below_and_slice_integrals_follow_the_segments() {
        let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
        assert_eq!(cdf.below(0.0), 0.0);
        assert_eq!(cdf.below(50.0), 0.25);
        assert_eq!(cdf.below(200.0), 0.75);
        assert_eq!(cdf.below(1e9), 1.0);
        assert!((cdf.integral(0.0, 1.0) - 125.0).abs() < 1e-9);
        assert!((cdf.integral(0.5, 1.0) - 100.0).abs() < 1e-9);
        assert!((cdf.integral(0.25, 0.5) - 0.25 * 75.0).abs() < 1e-9, "uniform on [50, 100]");
        let steps = SizeCdf::parse("1000 0.2\n2000 1").unwrap();
        assert_eq!(steps.below(1000.0), 0.0);
        assert!((steps.below(1500.0) - 0.6).abs() < 1e-12);
        assert!((steps.integral(0.0, 0.2) - 200.0).abs() < 1e-9);
        assert!((steps.integral(0.0, 1.0) - steps.mean()).abs() < 1e-9);
    }

    /// `level_ranges` agrees with `level` at and around every edge. Equal width, 3 levels
    /// over [0, 10): ⌊s·3/10⌋ is 0 for s ≤ 3, 1 for 4..=6, 2 from 7: ranges [0, 4), [4, 7),
    /// [7, ∞).
    #[test]
    fn level_ranges_are_the_sizes_each_level_takes() {
        let widths = PrioritySpec::EqualWidth { levels: 3, max: 10 };
        assert_eq!(widths.level_ranges().unwrap(), vec![(3, 0, 4), (2, 4, 7), (1, 7, u64::MAX)]);
        let edges = PrioritySpec::Edges(vec![500, 1000]);
        assert_eq!(edges.level_ranges().unwrap(), vec![(3, 0, 500), (2, 500, 1000), (1, 1000, u64::MAX)]);
        for spec in [widths, edges] {
            for (level, lo, hi) in spec.level_ranges().unwrap() {
                assert_eq!(spec.level(lo), level);
                if hi != u64::MAX {
                    assert_eq!(spec.level(hi - 1), level);
                    assert_ne!(spec.level(hi), level);
                }
            }
        }
        assert!(PrioritySpec::Level(3).level_ranges().is_none());
    }

    /// Drawn counts: 150 × 100 on 64 hosts becomes ⌊150·64/250⌋ = 38 mappers and 26
    /// reducers; a 1 MB coflow at 10 KB per flow allows 100 flows: 150 × 100 scaled by
    /// √(100/15000) gives 12 × ⌊100/12⌋ = 12 × 8. A fixed side stays.
    #[test]
    fn drawn_counts_are_trimmed_to_the_hosts_and_to_min_flow() {
        assert_eq!(fit_counts((150, false), (100, false), u64::MAX / 2, 1, 64), (38, 26));
        assert_eq!(fit_counts((150, false), (100, false), 1_000_000, 10_000, 1000), (12, 8));
        assert_eq!(fit_counts((20, true), (100, false), 1_000_000, 10_000, 1000), (20, 5));
        assert_eq!(fit_counts((2, true), (1, true), 10, 10_000, 3), (2, 1));
        assert_eq!(fit_counts((100, false), (1, false), 5_000, 10_000, 1000), (1, 1), "one flow below min_flow");
    }

    fn waiting_on(after: &[u32], gap_us: u64) -> FlowSpec {
        FlowSpec {
            src: 0,
            dst: 1,
            size: 1,
            start: Time::ZERO,
            stop: Time::MAX,
            tag: 0,
            cc: CcName::None,
            lb: LbName::Ecmp,
            app: None,
            priority: 0,
            after: after.to_vec(),
            gap: Time::from_us(gap_us),
            group: NO_GROUP,
        }
    }

    /// Flow 3 waits on 0, 1 and 2 (a barrier), flow 4 on 1 alone: 4 is released by 1's
    /// delivery, 3 only by the last of its three, whatever their order.
    #[test]
    fn a_flow_is_released_when_the_last_of_its_predecessors_is_delivered() {
        let specs = [
            waiting_on(&[], 0),
            waiting_on(&[], 0),
            waiting_on(&[], 0),
            waiting_on(&[0, 1, 2], 7),
            waiting_on(&[1], 0),
        ];
        let mut d = Dependencies::new(&specs);
        let mut released = Vec::new();
        for f in [2, 1, 0] {
            d.delivered(f, |g, gap| released.push((f, g, gap)));
        }
        assert_eq!(released, vec![(1, 4, Time::ZERO), (0, 3, Time::from_us(7))]);
        assert!(Dependencies::new(&specs[..3]).is_empty(), "nothing waits: no tables");
    }

    /// 16 hosts at 100 Gb/s offered load 0.5 with a 125 B mean size start 5e7 flows/s each:
    /// over 10 µs, 8000 flows in expectation (Poisson, σ ≈ 89) carrying 1 MB in all.
    #[test]
    fn poisson_arrivals_offer_the_requested_load() {
        let cdf = SizeCdf::parse(TWO_SEGMENTS).unwrap();
        let hosts: Vec<u32> = (0..16).collect();
        let rates = vec![Rate::gbps(100); 16];
        let mut rng = Rng::stream(7, "workload");
        let flows = poisson_arrivals(&cdf, 0.5, &hosts, &rates, Time::ZERO, Time::from_us(10), &mut rng);
        let n = flows.len() as f64;
        assert!((n - 8000.0).abs() < 4.0 * 8000f64.sqrt(), "{n} flows");
        let bytes: u64 = flows.iter().map(|f| f.2).sum();
        assert!((bytes as f64 / 1e6 - 1.0).abs() < 0.05, "{bytes} bytes offered");
        assert!(flows.iter().all(|&(s, d, _, at)| s != d && at < Time::from_us(10)));
        assert!(flows.windows(2).all(|w| w[0].3 <= w[1].3), "sorted by start");
        let mut per_dst = [0u32; 16];
        flows.iter().for_each(|f| per_dst[f.1 as usize] += 1);
        let expected = n / 16.0;
        assert!(per_dst.iter().all(|&c| (c as f64 - expected).abs() < 5.0 * expected.sqrt()), "{per_dst:?}");
    }

    /// 1024 hosts in 16 pods of 64 (the k = 16 fat tree): every destination lies in
    /// another pod and each host receives exactly once. Two pods of 3 and 5 hosts cannot.
    #[test]
    fn cross_pod_permutation_leaves_every_pod() {
        let hosts: Vec<u32> = (0..1024).collect();
        let pod = |h: u32| h / 64;
        for seed in 0..5 {
            let mut rng = Rng::stream(seed, "t");
            let dst = cross_pod_derangement(&hosts, pod, &mut rng).unwrap();
            assert!(hosts.iter().zip(&dst).all(|(&s, &t)| pod(s) != pod(t)));
            let mut sorted = dst.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, hosts);
        }
        let lopsided: Vec<u32> = (0..8).collect();
        assert!(cross_pod_derangement(&lopsided, |h| u32::from(h >= 3), &mut Rng::stream(1, "t")).is_none());
    }

    #[test]
    fn derangement_has_no_fixed_point_and_is_a_permutation() {
        let mut rng = Rng::stream(5, "workload");
        let hosts: Vec<u32> = (0..64).collect();
        for _ in 0..50 {
            let p = derangement(&hosts, &mut rng);
            assert!(p.iter().zip(&hosts).all(|(a, b)| a != b));
            let mut s = p.clone();
            s.sort();
            assert_eq!(s, hosts);
        }
    }

    /// Mode 0 at k = 4 (16 hosts), 650 flows requested: i mod 16 gives hosts 0..9 41
    /// flows and hosts 10..15 40 flows (650 = 40·16 + 10); host 15 is the receiver, so its
    /// 40 are skipped: 650 − ⌊650/16⌋ = 610 flows, all into host 15.
    #[test]
    fn fixed_hotspot_650_flows_at_k4_gives_610() {
        let mut rng = Rng::stream(1, "workload");
        let pairs = traffic_mode_pairs(TrafficMode::FixedHotspot, 650, 16, &mut rng);
        assert_eq!(pairs.len(), 610);
        assert!(pairs.iter().all(|&(_, d)| d == 15));
        let mut per_sender = [0u32; 16];
        for &(s, _) in &pairs {
            per_sender[s as usize] += 1;
        }
        assert_eq!(per_sender[..10], [41; 10]);
        assert_eq!(per_sender[10..15], [40; 5]);
        assert_eq!(per_sender[15], 0);
        // k = 12 (432 hosts): 3000 requested → 3000 − 6 = 2994; 100 → 100 (host 431 never reached).
        assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 3000, 432, &mut rng).len(), 2994);
        assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 100, 432, &mut rng).len(), 100);
        assert_eq!(traffic_mode_pairs(TrafficMode::FixedHotspot, 16, 16, &mut rng).len(), 15);
    }

    /// Mode 1: exactly F flows, one common receiver, senders uniform over the other 15
    /// hosts (each expects F/15; a χ² over 15 cells with 14 degrees of freedom stays below
    /// 36.1, its 0.999 quantile).
    #[test]
    fn random_hotspot_has_one_receiver_and_uniform_senders() {
        let mut rng = Rng::stream(7, "workload");
        let pairs = traffic_mode_pairs(TrafficMode::RandomHotspot, 15_000, 16, &mut rng);
        assert_eq!(pairs.len(), 15_000);
        let recv = pairs[0].1;
        assert!(pairs.iter().all(|&(s, d)| d == recv && s != recv && s < 16));
        let mut count = [0f64; 16];
        for &(s, _) in &pairs {
            count[s as usize] += 1.0;
        }
        let chi2: f64 = (0..16).filter(|&h| h != recv as usize).map(|h| (count[h] - 1000.0).powi(2) / 1000.0).sum();
        assert!(chi2 < 36.1, "chi2 {chi2}");
        // The receiver itself is uniform over hosts across seeds (16 seeds hit > 1 host).
        let recvs: std::collections::HashSet<u32> = (0..16)
            .map(|seed| traffic_mode_pairs(TrafficMode::RandomHotspot, 1, 16, &mut Rng::stream(seed, "workload"))[0].1)
            .collect();
        assert!(recvs.len() > 4);
    }

    /// Mode 2: exactly F flows, never to oneself; all 16·15 = 240 ordered pairs equally
    /// likely (χ² with 239 degrees of freedom below 330, about its 0.9999 quantile).
    #[test]
    fn random_pairs_are_uniform_over_ordered_pairs() {
        let mut rng = Rng::stream(3, "workload");
        let pairs = traffic_mode_pairs(TrafficMode::RandomPairs, 48_000, 16, &mut rng);
        assert_eq!(pairs.len(), 48_000);
        let mut count = std::collections::HashMap::new();
        for &(s, d) in &pairs {
            assert_ne!(s, d);
            *count.entry((s, d)).or_insert(0f64) += 1.0;
        }
        assert_eq!(count.len(), 240);
        let chi2: f64 = count.values().map(|c| (c - 200.0).powi(2) / 200.0).sum();
        assert!(chi2 < 330.0, "chi2 {chi2}");
    }

    #[test]
    fn parses_htsim_connection_matrix() {
        let cm = "Nodes 16\nConnections 2\n0->5 id 1 start 0 size 2000000\n3->1 id 2 start 12.5 size 4096\n";
        let rows = parse_htsim_cm(cm).unwrap();
        assert_eq!(rows[0].1, (0, 5, 2_000_000, Time::ZERO));
        assert_eq!(rows[1].1, (3, 1, 4096, Time(12_500_000)));
        assert!(parse_htsim_cm("Connections 3\n0->1 id 1 start 0 size 10\n").unwrap_err().contains("Connections 3"));
        assert!(parse_htsim_cm("0->1 id 1 start 0 size 10 trigger 2\n").unwrap_err().contains("trigger"));
    }

    #[test]
    fn parses_flow_csv() {
        let rows = parse_flow_csv("src,dst,size,start\n0,1,2MB,0\n2,3,1500,10us\n").unwrap();
        assert_eq!(rows[0].1, (0, 1, 2_000_000, Time::ZERO));
        assert_eq!(rows[1].1, (2, 3, 1500, Time::from_us(10)));
        assert!(parse_flow_csv("a,b\n").unwrap_err().contains("src,dst,size,start"));
        assert!(parse_flow_csv("src,dst,size,start\n0,x,1,0\n").unwrap_err().contains("line 2"));
    }
}
