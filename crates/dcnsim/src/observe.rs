//! Time series (`[observe]`, issue 9 item 1): every `interval` of simulated time, one
//! value per chosen port or flow and metric, kept in long form: rows of
//! `(time_us, kind, id, metric, value)`, `kind` being `"port"` or `"flow"`.
//!
//! Sampling costs nothing per packet: a `Sample` event reads what the simulation
//! already keeps (a port's queue, its transmitted bytes and its mark, drop and trim
//! counters, PFC's per-port frame counts and pause times, a flow's window, monitor and
//! RTT estimate) and the observer subtracts the previous sample's reading for the
//! metrics that describe an interval. Without `[observe]` there is no observer and no
//! `Sample` event.
//!
//! Also here: how ports are named (`"s0->s4"`), and how the selections of `[observe]`
//! and `[trace]` resolve to port and flow ids, with errors that name the field and say
//! what is allowed.

use std::collections::HashMap;

use crate::net::pfc::Pfc;
use crate::net::Port;
use crate::scenario::{err, ScenarioError, SelectItem, Selection};
use crate::stats::{Column, FlowMonitor, Table};
use crate::topology::Tier;
use crate::transport::Flow;
use crate::units::Time;

// ---------------------------------------------------------------------------------------
// Names

/// A node as scenarios and results name it: host i is `h<i>`, switch j (node
/// `n_hosts + j`) is `s<j>`, as in the `csv` topology files.
pub fn node_name(node: u32, n_hosts: u32) -> String {
    if node < n_hosts {
        format!("h{node}")
    } else {
        format!("s{}", node - n_hosts)
    }
}

pub(crate) fn parse_node(name: &str, n_hosts: u32, n_nodes: u32) -> Option<u32> {
    let (first, rest) = name.split_at(name.find(|c: char| c.is_ascii_digit())?);
    let i: u32 = rest.parse().ok()?;
    match first {
        "h" if i < n_hosts => Some(i),
        "s" if i < n_nodes - n_hosts => Some(n_hosts + i),
        _ => None,
    }
}

/// Every port's name: `"<from>-><to>"` by the nodes it joins (`"h3->s0"`, `"s0->s4"`).
/// Parallel links between the same two nodes (the `parallel` topology) are told apart by
/// a suffix: the second is `"s0->s1#1"`, the third `"s0->s1#2"`.
pub fn port_names(ports: &[Port], n_hosts: u32) -> Vec<String> {
    let mut seen: HashMap<(u32, u32), u32> = HashMap::new();
    ports
        .iter()
        .map(|p| {
            let base = format!("{}->{}", node_name(p.node, n_hosts), node_name(p.peer, n_hosts));
            let k = seen.entry((p.node, p.peer)).or_insert(0);
            *k += 1;
            if *k == 1 {
                base
            } else {
                format!("{base}#{}", *k - 1)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Selections

/// What a port selection may be built from: every port's tier, and the node counts.
pub struct PortIndex<'a> {
    pub ports: &'a [Port],
    /// Tier of each port (that of its cable).
    pub tiers: &'a [Tier],
    pub n_hosts: u32,
    pub n_nodes: u32,
}

const PORT_KEYWORDS: &str = "\"all\", \"switch\" (switch output ports), \"nic\" (host NICs), \"none\"";

impl PortIndex<'_> {
    fn allowed(&self) -> String {
        let tiers: Vec<&str> = Tier::ALL.iter().filter(|t| self.tiers.contains(t)).map(|t| t.name()).collect();
        format!(
            "allowed: {PORT_KEYWORDS}, a tier of this topology ({}), a port \"from->to\" named by its nodes (hosts h0..h{}, switches s0..s{}; * matches any node), or a port id 0..{}",
            tiers.join(", "),
            self.n_hosts - 1,
            self.n_nodes - self.n_hosts - 1,
            self.ports.len() - 1
        )
    }

    /// The ports a selection names, ascending and each once.
    pub fn resolve(&self, sel: &Selection, field: &str) -> Result<Vec<u32>, ScenarioError> {
        let n = self.ports.len();
        let mut chosen = vec![false; n];
        let mut names: Option<HashMap<String, u32>> = None;
        for item in sel.items() {
            match item {
                SelectItem::Id(i) if (*i as usize) < n => chosen[*i as usize] = true,
                SelectItem::Id(i) => return err(field, format!("{i} is not a port id; {}", self.allowed())),
                SelectItem::Name(name) => {
                    let keyword: Option<fn(&Port, u32) -> bool> = match name.as_str() {
                        "all" => Some(|_, _| true),
                        "none" => Some(|_, _| false),
                        "switch" => Some(|p, hosts| p.node >= hosts),
                        "nic" => Some(|p, hosts| p.node < hosts),
                        _ => None,
                    };
                    if let Some(keep) = keyword {
                        for (c, p) in chosen.iter_mut().zip(self.ports) {
                            *c |= keep(p, self.n_hosts);
                        }
                    } else if let Some(tier) = Tier::ALL.iter().find(|t| t.name() == name) {
                        if !self.tiers.contains(tier) {
                            return err(
                                field,
                                format!("\"{name}\": this topology has no {name} links; {}", self.allowed()),
                            );
                        }
                        for (c, t) in chosen.iter_mut().zip(self.tiers) {
                            *c |= t == tier;
                        }
                    } else if let Some((from, to)) = name.split_once("->") {
                        let node = |s: &str| -> Result<Option<u32>, ScenarioError> {
                            if s == "*" {
                                return Ok(None);
                            }
                            match parse_node(s, self.n_hosts, self.n_nodes) {
                                Some(v) => Ok(Some(v)),
                                None => err(field, format!("\"{name}\": there is no node \"{s}\"; {}", self.allowed())),
                            }
                        };
                        let (a, b) = (node(from)?, node(to.split('#').next().unwrap_or(to))?);
                        if a.is_some() && b.is_some() {
                            let names = names.get_or_insert_with(|| {
                                port_names(self.ports, self.n_hosts).into_iter().zip(0..).collect()
                            });
                            match names.get(name.as_str()) {
                                Some(&p) => chosen[p as usize] = true,
                                None => {
                                    return err(
                                        field,
                                        format!("\"{name}\": no link goes from {from} to {to}; {}", self.allowed()),
                                    )
                                }
                            }
                        } else {
                            let mut any = false;
                            for (c, p) in chosen.iter_mut().zip(self.ports) {
                                if a.is_none_or(|a| a == p.node) && b.is_none_or(|b| b == p.peer) {
                                    *c = true;
                                    any = true;
                                }
                            }
                            if !any {
                                return err(field, format!("\"{name}\" matches no port; {}", self.allowed()));
                            }
                        }
                    } else {
                        return err(field, format!("\"{name}\" names no port; {}", self.allowed()));
                    }
                }
            }
        }
        Ok((0..n as u32).filter(|&p| chosen[p as usize]).collect())
    }
}

/// The flows a selection names (`"all"`, `"none"` or flow ids), ascending and each once.
pub fn resolve_flows(sel: &Selection, field: &str, n_flows: u32) -> Result<Vec<u32>, ScenarioError> {
    let mut chosen = vec![false; n_flows as usize];
    for item in sel.items() {
        match item {
            SelectItem::Name(s) if s == "all" => chosen.iter_mut().for_each(|c| *c = true),
            SelectItem::Name(s) if s == "none" => {}
            SelectItem::Id(i) if *i < n_flows as u64 => chosen[*i as usize] = true,
            SelectItem::Id(i) => {
                return err(
                    field,
                    format!("{i} is out of range: the workloads make {n_flows} flows (ids 0 to {})", n_flows - 1),
                )
            }
            SelectItem::Name(s) => {
                return err(field, format!("\"{s}\": allowed \"all\", \"none\" or flow ids (0 to {})", n_flows - 1))
            }
        }
    }
    Ok((0..n_flows).filter(|&f| chosen[f as usize]).collect())
}

/// What `[observe] metrics` may name, and the series (`metric` column values) each adds.
pub const METRICS: [(Metric, &str); 10] = [
    (Metric::Queue, "queue"),
    (Metric::Utilisation, "utilisation"),
    (Metric::Marks, "marks"),
    (Metric::Drops, "drops"),
    (Metric::Trims, "trims"),
    (Metric::Pfc, "pfc"),
    (Metric::Cwnd, "cwnd"),
    (Metric::Rate, "rate"),
    (Metric::Rtt, "rtt"),
    (Metric::Cc, "cc"),
];

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Port: `queue_bytes`.
    Queue,
    /// Port: `utilisation`.
    Utilisation,
    /// Port: `ecn_marks`.
    Marks,
    /// Port: `drops`.
    Drops,
    /// Port: `trims`.
    Trims,
    /// Port: `pfc_pauses`, `pfc_paused`.
    Pfc,
    /// Flow: `cwnd_bytes`, `in_flight_bytes`, `delivered_bytes`.
    Cwnd,
    /// Flow: `send_rate_gbps`, `goodput_gbps`.
    Rate,
    /// Flow: `srtt_us`.
    Rtt,
    /// Flow: the algorithm's own variables, `cc.<name>`.
    Cc,
}

/// A set of metrics, one bit each (bit = position in `METRICS`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MetricSet(u16);

impl MetricSet {
    pub fn has(self, m: Metric) -> bool {
        self.0 & (1 << m as u16) != 0
    }
    fn with(self, m: Metric) -> MetricSet {
        MetricSet(self.0 | 1 << m as u16)
    }
    fn any_of(self, ms: &[Metric]) -> bool {
        ms.iter().any(|&m| self.has(m))
    }
    pub fn port_metrics(self) -> bool {
        self.any_of(&[Metric::Queue, Metric::Utilisation, Metric::Marks, Metric::Drops, Metric::Trims, Metric::Pfc])
    }
    pub fn flow_metrics(self) -> bool {
        self.any_of(&[Metric::Cwnd, Metric::Rate, Metric::Rtt, Metric::Cc])
    }
}

/// The metrics a selection names. `"all"` leaves out `pfc` when the run has no PFC;
/// naming `pfc` then is an error.
pub fn resolve_metrics(sel: &Selection, field: &str, pfc_on: bool) -> Result<MetricSet, ScenarioError> {
    let allowed = || {
        let names: Vec<&str> = METRICS.iter().map(|(_, n)| *n).collect();
        format!("allowed: \"all\" or a list of {}", names.join(", "))
    };
    let mut set = MetricSet::default();
    for item in sel.items() {
        match item {
            SelectItem::Name(s) if s == "all" => {
                for (m, _) in METRICS {
                    if m != Metric::Pfc || pfc_on {
                        set = set.with(m);
                    }
                }
            }
            SelectItem::Name(s) => {
                let name = if s == "utilization" { "utilisation" } else { s.as_str() };
                match METRICS.iter().find(|(_, n)| *n == name) {
                    Some((Metric::Pfc, _)) if !pfc_on => {
                        return err(field, "\"pfc\": this run has no PFC ([switch.pfc] is off)");
                    }
                    Some(&(m, _)) => set = set.with(m),
                    None => return err(field, format!("\"{s}\" is not a metric; {}", allowed())),
                }
            }
            SelectItem::Id(i) => return err(field, format!("{i} is not a metric; {}", allowed())),
        }
    }
    Ok(set)
}

// ---------------------------------------------------------------------------------------
// The sampler

/// The values of the `metric` column the observer writes itself, by id (the algorithms'
/// variables follow them as `cc.<name>`, numbered as they first appear).
const SERIES: [&str; 13] = [
    "queue_bytes",
    "utilisation",
    "ecn_marks",
    "drops",
    "trims",
    "pfc_pauses",
    "pfc_paused",
    "cwnd_bytes",
    "in_flight_bytes",
    "delivered_bytes",
    "send_rate_gbps",
    "goodput_gbps",
    "srtt_us",
];
const QUEUE_BYTES: u16 = 0;
const UTILISATION: u16 = 1;
const ECN_MARKS: u16 = 2;
const DROPS: u16 = 3;
const TRIMS: u16 = 4;
const PFC_PAUSES: u16 = 5;
const PFC_PAUSED: u16 = 6;
const CWND_BYTES: u16 = 7;
const IN_FLIGHT_BYTES: u16 = 8;
const DELIVERED_BYTES: u16 = 9;
const SEND_RATE_GBPS: u16 = 10;
const GOODPUT_GBPS: u16 = 11;
const SRTT_US: u16 = 12;

/// Series ids below this are ports' (`SERIES` lists them first); the rest are flows'.
const FIRST_FLOW_SERIES: u16 = CWND_BYTES;

/// A port's cumulative counters at one sample, for the interval metrics.
#[derive(Clone, Copy, Default)]
struct PortReading {
    /// Bytes serialised so far: transmitted bytes minus the part of the current packet
    /// still to go, so an interval's utilisation never counts a packet ahead of time.
    serialised: f64,
    ecn_marks: u64,
    drops: u64,
    trims: u64,
    pause_frames: u64,
    paused: Time,
}

impl PortReading {
    fn read(view: &dyn SampleView, p: u32, now: Time) -> PortReading {
        let port = view.port(p);
        let s = &port.stats;
        let (pause_frames, paused) = match view.pfc(p) {
            Some(f) => (f.stats[p as usize].pause_frames, f.data_paused_time(p, now)),
            None => (0, Time::ZERO),
        };
        PortReading {
            serialised: s.tx_bytes as f64 - port.rate.bytes_in(port.busy_until.saturating_sub(now)),
            ecn_marks: s.ecn_marks,
            drops: view.port_drops(p),
            trims: s.trims,
            pause_frames,
            paused,
        }
    }
}

/// Where a sample reads the simulation: one simulation, or the shares of a split run
/// (`sim/parallel/`), each item from the share that keeps it.
pub trait SampleView {
    /// Port `p` as its transmitting node keeps it.
    fn port(&self, p: u32) -> &Port;
    /// Packets port `p` dropped, wherever counted (a lossy wire counts at its far end).
    fn port_drops(&self, p: u32) -> u64;
    /// PFC's state for port `p` (as the port's own node keeps it).
    fn pfc(&self, p: u32) -> Option<&Pfc>;
    /// Flow `f` as its sender keeps it.
    fn sender(&self, f: u32) -> &Flow;
    /// Flow `f` as its receiver keeps it.
    fn receiver(&self, f: u32) -> &Flow;
    /// Flow `f`'s monitor as its sender keeps it (bytes sent).
    fn sender_monitor(&self, f: u32) -> &FlowMonitor;
}

/// One simulation's own structures.
pub struct WholeView<'a> {
    pub ports: &'a [Port],
    pub flows: &'a [Flow],
    pub monitors: &'a [FlowMonitor],
    pub pfc: Option<&'a Pfc>,
}

impl SampleView for WholeView<'_> {
    fn port(&self, p: u32) -> &Port {
        &self.ports[p as usize]
    }
    fn port_drops(&self, p: u32) -> u64 {
        self.ports[p as usize].stats.drops
    }
    fn pfc(&self, _p: u32) -> Option<&Pfc> {
        self.pfc
    }
    fn sender(&self, f: u32) -> &Flow {
        &self.flows[f as usize]
    }
    fn receiver(&self, f: u32) -> &Flow {
        &self.flows[f as usize]
    }
    fn sender_monitor(&self, f: u32) -> &FlowMonitor {
        &self.monitors[f as usize]
    }
}

/// A flow's cumulative counters at one sample.
#[derive(Clone, Copy, Default)]
struct FlowReading {
    tx_bytes: u64,
    delivered: u64,
}

/// Accumulates the long-form time series.
pub struct Observer {
    pub interval: Time,
    ports: Vec<u32>,
    flows: Vec<u32>,
    metrics: MetricSet,
    /// When the previous sample was taken (`None` before the first).
    last: Option<Time>,
    port_prev: Vec<PortReading>,
    flow_prev: Vec<FlowReading>,
    /// `metric` column levels: `SERIES`, then the algorithms' variables.
    names: Vec<String>,
    /// The algorithms' variable names seen so far and their ids. A handful per run, so
    /// a scan that compares addresses first beats hashing (a third of a sample's cost).
    cc_ids: Vec<(&'static str, u16)>,
    /// One flow's algorithm variables while they are read.
    scratch: Vec<(u16, f64)>,
    // The rows, one column each: 18 bytes a row. A row's kind follows from its metric.
    sample_times_us: Vec<f64>,
    sample: Vec<u32>,
    id: Vec<u32>,
    metric: Vec<u16>,
    value: Vec<f64>,
}

impl Observer {
    pub fn new(interval: Time, ports: Vec<u32>, flows: Vec<u32>, metrics: MetricSet) -> Observer {
        let ports = if metrics.port_metrics() { ports } else { Vec::new() };
        let flows = if metrics.flow_metrics() { flows } else { Vec::new() };
        Observer {
            interval,
            port_prev: vec![PortReading::default(); ports.len()],
            flow_prev: vec![FlowReading::default(); flows.len()],
            ports,
            flows,
            metrics,
            last: None,
            names: SERIES.iter().map(|s| s.to_string()).collect(),
            cc_ids: Vec::new(),
            scratch: Vec::new(),
            sample_times_us: Vec::new(),
            sample: Vec::new(),
            id: Vec::new(),
            metric: Vec::new(),
            value: Vec::new(),
        }
    }

    /// Nothing to sample: no port or flow chosen, or no metric that applies to them.
    pub fn is_empty(&self) -> bool {
        self.ports.is_empty() && self.flows.is_empty()
    }

    /// When the last sample was taken.
    pub fn last_sample(&self) -> Option<Time> {
        self.last
    }

    pub fn rows(&self) -> usize {
        self.value.len()
    }

    #[inline]
    fn push(&mut self, id: u32, metric: u16, value: f64) {
        self.sample.push((self.sample_times_us.len() - 1) as u32);
        self.id.push(id);
        self.metric.push(metric);
        self.value.push(value);
    }

    /// Takes one sample at `now`. Interval metrics cover (previous sample, now] and are
    /// absent from the first sample.
    pub fn sample(&mut self, now: Time, view: &dyn SampleView) {
        self.sample_times_us.push(now.as_us_f64());
        let span = self.last.map(|last| now - last).filter(|d| *d > Time::ZERO);
        self.last = Some(now);
        let m = self.metrics;
        for i in 0..self.ports.len() {
            let p = self.ports[i];
            let port = view.port(p);
            let now_reading = PortReading::read(view, p, now);
            let before = std::mem::replace(&mut self.port_prev[i], now_reading);
            if m.has(Metric::Queue) {
                self.push(p, QUEUE_BYTES, port.queued_bytes as f64);
            }
            let Some(span) = span else { continue };
            if m.has(Metric::Utilisation) {
                let capacity = port.rate.bytes_in(span);
                self.push(p, UTILISATION, (now_reading.serialised - before.serialised) / capacity);
            }
            let counts = [
                (Metric::Marks, ECN_MARKS, now_reading.ecn_marks - before.ecn_marks),
                (Metric::Drops, DROPS, now_reading.drops - before.drops),
                (Metric::Trims, TRIMS, now_reading.trims - before.trims),
                (Metric::Pfc, PFC_PAUSES, now_reading.pause_frames - before.pause_frames),
            ];
            for (metric, series, count) in counts {
                if m.has(metric) {
                    self.push(p, series, count as f64);
                }
            }
            if m.has(Metric::Pfc) {
                let paused = (now_reading.paused - before.paused).0 as f64 / span.0 as f64;
                self.push(p, PFC_PAUSED, paused);
            }
        }
        for i in 0..self.flows.len() {
            let f = self.flows[i];
            // The sender's half and the receiver's (the same flow unless the run is split).
            let (flow, receiver) = (view.sender(f), &view.receiver(f).receiver);
            let now_reading = FlowReading { tx_bytes: view.sender_monitor(f).tx_bytes, delivered: receiver.delivered };
            let before = std::mem::replace(&mut self.flow_prev[i], now_reading);
            // A flow has rows while it runs: started, not finished, still sending.
            if !flow.started || flow.stopped || receiver.finish.is_some() || flow.sender_done() {
                continue;
            }
            if m.has(Metric::Cwnd) {
                self.push(f, CWND_BYTES, flow.sender.cc.cwnd() as f64);
                self.push(f, IN_FLIGHT_BYTES, flow.sender.in_flight as f64);
                self.push(f, DELIVERED_BYTES, receiver.delivered as f64);
            }
            if let (true, Some(span)) = (m.has(Metric::Rate), span) {
                // Bytes × 8 per picosecond × 1000 = Gbit/s.
                let gbps = |bytes: u64| bytes as f64 * 8000.0 / span.0 as f64;
                self.push(f, SEND_RATE_GBPS, gbps(now_reading.tx_bytes - before.tx_bytes));
                self.push(f, GOODPUT_GBPS, gbps(now_reading.delivered - before.delivered));
            }
            if let (true, Some(srtt)) = (m.has(Metric::Rtt), flow.srtt()) {
                self.push(f, SRTT_US, srtt.as_us_f64());
            }
            if m.has(Metric::Cc) {
                let (names, ids) = (&mut self.names, &mut self.cc_ids);
                let mut found = std::mem::take(&mut self.scratch);
                flow.sender.cc.observe(&mut |name, v| {
                    let known = ids
                        .iter()
                        .find(|(k, _)| std::ptr::eq(*k, name))
                        .or_else(|| ids.iter().find(|(k, _)| *k == name));
                    let id = match known {
                        Some(&(_, id)) => id,
                        None => {
                            names.push(format!("cc.{name}"));
                            ids.push((name, (names.len() - 1) as u16));
                            (names.len() - 1) as u16
                        }
                    };
                    found.push((id, v));
                });
                for (id, v) in found.drain(..) {
                    self.push(f, id, v);
                }
                self.scratch = found;
            }
        }
    }

    /// The long table: `time_us, kind, id, metric, value`, in sample order, ports before
    /// flows within a sample.
    pub fn table(&self) -> Table {
        let mut t = Table::default();
        let times = self.sample.iter().map(|&i| self.sample_times_us[i as usize]).collect();
        t.push("time_us", Column::F64(times));
        let kinds = self.metric.iter().map(|&m| (m >= FIRST_FLOW_SERIES) as u32).collect();
        t.push("kind", Column::Cat { codes: kinds, levels: vec!["port".into(), "flow".into()] });
        t.push("id", Column::I64(self.id.iter().map(|&i| i as i64).collect()));
        t.push(
            "metric",
            Column::Cat { codes: self.metric.iter().map(|&m| m as u32).collect(), levels: self.names.clone() },
        );
        t.push("value", Column::F64(self.value.clone()));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    fn star_ports() -> (Vec<Port>, Vec<Tier>) {
        // Hosts 0, 1, 2 on switch 3, then two parallel links from switch 3 to switch 4.
        let mut ports = Vec::new();
        let mut tiers = Vec::new();
        let r = Rate::gbps(100);
        for (a, b, tier) in [
            (0, 3, Tier::Host),
            (1, 3, Tier::Host),
            (2, 3, Tier::Host),
            (3, 4, Tier::Bottleneck),
            (3, 4, Tier::Bottleneck),
        ] {
            for (from, to) in [(a, b), (b, a)] {
                ports.push(Port::new(from, to, r, Time::ZERO, 1000));
                tiers.push(tier);
            }
        }
        (ports, tiers)
    }

    #[test]
    fn ports_are_named_by_their_nodes_and_parallel_links_get_a_suffix() {
        let (ports, _) = star_ports();
        let names = port_names(&ports, 3);
        assert_eq!(names[..4], ["h0->s0", "s0->h0", "h1->s0", "s0->h1"]);
        assert_eq!(names[6..], ["s0->s1", "s1->s0", "s0->s1#1", "s1->s0#1"]);
    }

    #[test]
    fn port_selections_resolve_to_ids() {
        let (ports, tiers) = star_ports();
        let index = PortIndex { ports: &ports, tiers: &tiers, n_hosts: 3, n_nodes: 5 };
        let ids = |sel: Selection| index.resolve(&sel, "observe.ports").unwrap();
        let list = |items: &[&str]| Selection::Many(items.iter().map(|s| SelectItem::Name(s.to_string())).collect());
        assert_eq!(ids(Selection::named("all")).len(), 10);
        assert_eq!(ids(Selection::named("nic")), vec![0, 2, 4]);
        assert_eq!(ids(Selection::named("switch")), vec![1, 3, 5, 6, 7, 8, 9]);
        assert_eq!(ids(Selection::named("bottleneck")), vec![6, 7, 8, 9]);
        assert_eq!(ids(list(&["s0->s1#1", "h2->s0"])), vec![4, 8]);
        assert_eq!(ids(list(&["s0->*"])), vec![1, 3, 5, 6, 8]);
        assert_eq!(ids(list(&["*->h1"])), vec![3]);
        assert_eq!(ids(Selection::Many(vec![SelectItem::Id(7), SelectItem::Name("none".into())])), vec![7]);
        assert_eq!(ids(Selection::nothing()), Vec::<u32>::new());
    }

    #[test]
    fn bad_port_selections_name_the_field_and_what_is_allowed() {
        let (ports, tiers) = star_ports();
        let index = PortIndex { ports: &ports, tiers: &tiers, n_hosts: 3, n_nodes: 5 };
        let error = |name: &str| index.resolve(&Selection::named(name), "observe.ports").unwrap_err().0;
        let e = error("s0->s9");
        assert!(e.starts_with("observe.ports: \"s0->s9\": there is no node \"s9\""), "{e}");
        assert!(e.contains("hosts h0..h2, switches s0..s1") && e.contains("(host, bottleneck)"), "{e}");
        assert!(error("h0->h1").contains("no link goes from h0 to h1"));
        assert!(error("global").contains("this topology has no global links"));
        assert!(error("spine").contains("\"spine\" names no port; allowed: \"all\""));
        let e = index.resolve(&Selection::One(SelectItem::Id(10)), "trace.ports").unwrap_err().0;
        assert!(e.starts_with("trace.ports: 10 is not a port id") && e.contains("port id 0..9"), "{e}");
    }

    #[test]
    fn flow_and_metric_selections() {
        assert_eq!(resolve_flows(&Selection::named("all"), "f", 3).unwrap(), vec![0, 1, 2]);
        assert_eq!(
            resolve_flows(&Selection::Many(vec![SelectItem::Id(2), SelectItem::Id(0)]), "f", 3).unwrap(),
            vec![0, 2]
        );
        let e = resolve_flows(&Selection::One(SelectItem::Id(3)), "observe.flows", 3).unwrap_err().0;
        assert_eq!(e, "observe.flows: 3 is out of range: the workloads make 3 flows (ids 0 to 2)");
        let all = resolve_metrics(&Selection::named("all"), "m", false).unwrap();
        assert!(all.has(Metric::Queue) && all.has(Metric::Cc) && !all.has(Metric::Pfc));
        assert!(resolve_metrics(&Selection::named("all"), "m", true).unwrap().has(Metric::Pfc));
        let e = resolve_metrics(&Selection::named("queu"), "observe.metrics", false).unwrap_err().0;
        assert!(
            e.starts_with(
                "observe.metrics: \"queu\" is not a metric; allowed: \"all\" or a list of queue, utilisation"
            ),
            "{e}"
        );
        let e = resolve_metrics(&Selection::named("pfc"), "observe.metrics", false).unwrap_err().0;
        assert!(e.contains("no PFC"), "{e}");
        let only = resolve_metrics(&Selection::named("utilization"), "m", false).unwrap();
        assert!(only.has(Metric::Utilisation) && only.port_metrics() && !only.flow_metrics());
    }
}
