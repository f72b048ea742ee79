//! Results of a run: counters, the flow and port tables, time series, traces, memory.

use super::*;

impl Simulation {
    /// PFC: ports with a paused class whose pause can never lift, in or behind a cycle of
    /// pauses (`net::pfc::stuck_nodes`), judged from the packets queued now. At the end of
    /// a run with unfinished flows, a count above 0 says a PFC deadlock stopped them.
    pub fn pfc_deadlocked_ports(&self) -> u64 {
        let Some(pfc) = self.pfc.as_ref() else { return 0 };
        let classes = pfc.classes();
        let n = self.ports.len() * classes;
        // One more node stands for every queue that is free to send.
        let free = n as u32;
        let mut edges = Vec::new();
        for (q, port) in self.ports.iter().enumerate() {
            for h in port.waiting() {
                // Counted in class `held_class` at ingress `a`; waiting in `class` at q (a
                // class change makes them differ: net/pfc/mod.rs).
                let Some((a, held_class)) = pfc.held_at(h) else { continue };
                let class = pfc.class_of(self.arena.get(h));
                if !pfc.pause_in_force(a, held_class) {
                    continue;
                }
                let to = if pfc.pause_in_force(q as u32, class) { (q * classes + class) as u32 } else { free };
                edges.push(((a as usize * classes + held_class) as u32, to));
            }
        }
        if edges.is_empty() {
            return 0;
        }
        let stuck = pfc::stuck_nodes(n + 1, &edges);
        stuck[..n].chunks(classes).filter(|port| port.iter().any(|&s| s)).count() as u64
    }

    /// ConWeave's counters, when some flow runs it.
    pub(super) fn conweave_stats(&self) -> Vec<(&'static str, f64)> {
        let Some(cw) = self.conweave.as_ref() else { return Vec::new() };
        vec![
            ("conweave_rtt_requests", cw.rtt_requests as f64),
            ("conweave_reroutes", cw.reroutes as f64),
            ("conweave_reroutes_refused", cw.reroutes_refused as f64),
            ("conweave_held_packets", cw.held_packets as f64),
            ("conweave_tail_releases", cw.tail_releases as f64),
            ("conweave_timeout_releases", cw.timeout_releases as f64),
            ("conweave_control_packets", cw.control_packets as f64),
            ("conweave_max_voq_packets", cw.max_voq_packets as f64),
        ]
    }

    /// PLB's congestion re-paths by kind, summed over its flows (docs/models/plb.md); only
    /// when some flow runs PLB.
    pub(super) fn plb_stats(&self) -> Vec<(&'static str, f64)> {
        let plb: Vec<_> = self.flows.iter().filter(|f| f.lb == LbName::Plb).map(|f| &f.plb).collect();
        if plb.is_empty() {
            return Vec::new();
        }
        vec![
            ("plb_idle_repaths", plb.iter().map(|p| p.idle_repaths as f64).sum()),
            ("plb_forced_repaths", plb.iter().map(|p| p.forced_repaths as f64).sum()),
        ]
    }

    /// REPS's entropy choices (docs/models/reps.md): how many reused a recycled entropy and
    /// the ratio of those to all choices, and its freezes; only when some flow runs REPS.
    pub(super) fn reps_stats(&self) -> Vec<(&'static str, f64)> {
        let reps: Vec<_> = self.flows.iter().filter(|f| f.lb == LbName::Reps).map(|f| &f.reps).collect();
        if reps.is_empty() {
            return Vec::new();
        }
        let reused: u64 = reps.iter().map(|r| r.reused).sum();
        let fresh: u64 = reps.iter().map(|r| r.fresh).sum();
        let ratio = if reused + fresh == 0 { 0.0 } else { reused as f64 / (reused + fresh) as f64 };
        vec![
            ("reps_reused_entropies", reused as f64),
            ("reps_fresh_entropies", fresh as f64),
            ("reps_recycle_ratio", ratio),
            ("reps_freezes", reps.iter().map(|r| r.freezes as f64).sum()),
        ]
    }

    /// The path policies' counters (`PathPolicy::observe`, e.g. LetFlow's
    /// `letflow_flowlets`), summed over the flows that run them, in the order the flows
    /// first report them; then the flowlets CONGA's flows started (each one a fresh path
    /// decision; a flow's first counts). Only for balancers some flow runs.
    pub(super) fn flowlet_stats(&self) -> Vec<(&'static str, f64)> {
        let mut out: Vec<(&'static str, f64)> = Vec::new();
        for p in self.flows.iter().filter_map(|f| f.policy.as_ref()) {
            p.observe(&mut |name, v| match out.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 += v,
                None => out.push((name, v)),
            });
        }
        let mut conga = self.flows.iter().filter(|f| f.lb == LbName::Conga).peekable();
        if conga.peek().is_some() {
            out.push(("conga_flowlets", conga.map(|f| f.flowlets.flowlets as f64).sum()));
        }
        out
    }

    pub(super) fn laps_stats(&self, t: &PathTable) -> Vec<(&'static str, f64)> {
        let mut decreases = 0.0;
        for f in self.flows.iter().filter(|f| f.lb == LbName::Laps) {
            f.sender.cc.observe(&mut |name, v| {
                if name == "rate_decreases" {
                    decreases += v;
                }
            });
        }
        let (ooo_mean_kb, ooo_above_30kb) = t.ooo_summary(30);
        let (ack_min, ack_max) = if t.ack_delay.0 == Time::MAX { (Time::ZERO, Time::ZERO) } else { t.ack_delay };
        vec![
            ("laps_probes", t.probes as f64),
            ("laps_path_timeouts", t.path_timeouts as f64),
            ("laps_rate_decreases", decreases),
            ("laps_peak_in_flight_bytes", t.peak_in_flight as f64),
            ("laps_ack_delay_min_us", ack_min.as_us_f64()),
            ("laps_ack_delay_max_us", ack_max.as_us_f64()),
            ("ooo_buffer_mean_kb", ooo_mean_kb),
            ("ooo_buffer_above_30kb", ooo_above_30kb),
        ]
    }

    pub(super) fn sample(&mut self) {
        let now = self.now();
        let Some(interval) = self.observe_now(now) else { return };
        // If sampling is all that is left, nothing can ever change again: stop sampling so
        // that `run_until` sees the empty queue and ends the run.
        if !self.events.is_empty() {
            self.events.schedule_last(now + interval, Event::Sample);
        }
    }

    /// A last sample when the run ends between two ticks, so that the interval metrics
    /// cover the whole run (their sums are the run's totals).
    pub(super) fn sample_at_end(&mut self) {
        let now = self.now();
        if self.observer.as_ref().is_some_and(|o| o.last_sample().is_some_and(|t| t < now)) {
            self.observe_now(now);
        }
    }

    /// The observer's sample at `now`, read from this simulation's own structures; its
    /// interval, or `None` without an observer.
    fn observe_now(&mut self, now: Time) -> Option<Time> {
        let o = self.observer.as_mut()?;
        let view = crate::observe::WholeView {
            ports: &self.ports,
            flows: &self.flows,
            monitors: &self.monitors,
            pfc: self.pfc.as_deref(),
        };
        o.sample(now, &view);
        Some(o.interval)
    }

    /// One row per flow (docs/outputs.md, "Result directory").
    pub fn flow_table(&self) -> Table {
        if self.parallel.is_some() {
            return self.merged_flow_table();
        }
        self.share_flow_table()
    }

    /// The flow table as this simulation alone knows it (a split run's one share).
    pub(super) fn share_flow_table(&self) -> Table {
        let n = self.flows.len();
        let mut id = Vec::with_capacity(n);
        let mut tag = Vec::with_capacity(n);
        let mut src = Vec::with_capacity(n);
        let mut dst = Vec::with_capacity(n);
        let mut size = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n);
        let mut finish = Vec::with_capacity(n);
        let mut fct = Vec::with_capacity(n);
        let mut ideal = Vec::with_capacity(n);
        let mut slowdown = Vec::with_capacity(n);
        let mut delivered = Vec::with_capacity(n);
        let mut retx = Vec::with_capacity(n);
        let mut drops = Vec::with_capacity(n);
        let mut finished = Vec::with_capacity(n);
        let mut failed = Vec::with_capacity(n);
        let mut cc = Vec::with_capacity(n);
        let mut lb = Vec::with_capacity(n);
        let us_or_nan = |t: Option<Time>| t.map(|t| t.as_us_f64()).unwrap_or(f64::NAN);
        let m = &self.monitors;
        let tx_packets = m.iter().map(|c| c.tx_packets as i64).collect();
        let rx_packets = m.iter().map(|c| c.rx_packets as i64).collect();
        let rx_bytes = m.iter().map(|c| c.rx_bytes as i64).collect();
        let delay_sum = m.iter().map(|c| c.delay_sum.as_us_f64()).collect();
        let first_tx = m.iter().map(|c| us_or_nan(c.first_tx)).collect();
        let last_rx = m.iter().map(|c| us_or_nan(c.last_rx)).collect();
        for f in &self.flows {
            id.push(f.id as i64);
            tag.push(self.tags[f.tag as usize].clone());
            src.push(f.src as i64);
            dst.push(f.dst as i64);
            size.push(if f.is_infinite() { -1 } else { f.size as i64 });
            // A flow that never began (its predecessors or its start time lay beyond the
            // end of the run) has no start.
            start.push(if f.started { f.start.as_us_f64() } else { f64::NAN });
            let ideal_us = if f.is_infinite() { f64::NAN } else { f.ideal_fct.as_us_f64() };
            ideal.push(ideal_us);
            let done = if self.fct_at_sender { f.sender.done_at } else { f.receiver.finish };
            match done {
                Some(t) if !f.is_infinite() => {
                    let fct_us = (t - f.start).as_us_f64();
                    finish.push(t.as_us_f64());
                    fct.push(fct_us);
                    slowdown.push(fct_us / ideal_us);
                    finished.push(true);
                }
                _ => {
                    finish.push(f64::NAN);
                    fct.push(f64::NAN);
                    slowdown.push(f64::NAN);
                    finished.push(false);
                }
            }
            delivered.push(f.receiver.delivered as i64);
            retx.push(f.sender.retransmits as i64);
            drops.push(f.drops as i64);
            failed.push(f.failed);
            cc.push(f.sender.cc.name().to_string());
            lb.push(f.lb.as_str().to_string());
        }
        let mut t = Table::default();
        t.push("id", Column::I64(id));
        t.push("tag", Column::Str(tag));
        t.push("src", Column::I64(src));
        t.push("dst", Column::I64(dst));
        t.push("size", Column::I64(size));
        t.push("start_us", Column::F64(start));
        t.push("finish_us", Column::F64(finish));
        t.push("fct_us", Column::F64(fct));
        t.push("ideal_fct_us", Column::F64(ideal));
        t.push("slowdown", Column::F64(slowdown));
        t.push("delivered", Column::I64(delivered));
        t.push("retransmits", Column::I64(retx));
        t.push("drops", Column::I64(drops));
        t.push("finished", Column::Bool(finished));
        t.push("cc", Column::Str(cc));
        t.push("lb", Column::Str(lb));
        t.push("tx_packets", Column::I64(tx_packets));
        t.push("rx_packets", Column::I64(rx_packets));
        t.push("rx_bytes", Column::I64(rx_bytes));
        t.push("delay_sum_us", Column::F64(delay_sum));
        t.push("first_tx_us", Column::F64(first_tx));
        t.push("last_rx_us", Column::F64(last_rx));
        t.push("trims", Column::I64(self.flows.iter().map(|f| f.trims as i64).collect()));
        t.push("reordered", Column::I64(self.flows.iter().map(|f| f.receiver.reordered as i64).collect()));
        let group = |f: usize| match self.groups.get(f) {
            Some(&g) if g != crate::workload::NO_GROUP => g as i64,
            _ => -1,
        };
        t.push("group", Column::I64((0..self.flows.len()).map(group).collect()));
        // 0: none; larger = more important (per-priority results, e.g. coflow CCT by level).
        t.push("priority", Column::I64(self.flows.iter().map(|f| f.priority as i64).collect()));
        t.push("failed", Column::Bool(failed));
        t
    }

    /// The sampled time series in long form (`observe.rs`), if the run samples any.
    pub fn timeseries(&self) -> Option<Table> {
        if self.parallel.is_some() {
            return self.split_timeseries();
        }
        self.observer.as_ref().map(|o| o.table())
    }

    /// One row per port: `port, name, node, peer, tier, rate_bps, up` (the key of the
    /// time series' and the trace's port ids).
    pub fn ports_table(&self) -> Table {
        let names = crate::observe::port_names(&self.ports, self.n_hosts);
        let ports = &self.ports;
        let mut t = Table::default();
        t.push("port", Column::I64((0..ports.len() as i64).collect()));
        t.push("name", Column::Str(names));
        t.push("node", Column::I64(ports.iter().map(|p| p.node as i64).collect()));
        t.push("peer", Column::I64(ports.iter().map(|p| p.peer as i64).collect()));
        t.push("tier", Column::Str(self.port_tiers.iter().map(|t| t.name().to_string()).collect()));
        t.push("rate_bps", Column::I64(ports.iter().map(|p| p.rate.bps() as i64).collect()));
        t.push("up", Column::Bool(ports.iter().map(|p| p.up).collect()));
        t
    }

    /// Every PFC PAUSE and RESUME as it reached its upstream port (`time_us, port, class,
    /// event`), if PFC is on.
    pub fn pfc_events_table(&self) -> Option<Table> {
        self.pfc.as_ref()?;
        // In time order; simultaneous frames by port, class and kind, so that a split run
        // (whose shares log their own ports' frames) lists them in the same order.
        let mut ev: Vec<&crate::net::pfc::PfcEvent> =
            self.shares().flat_map(|s| s.pfc.iter().flat_map(|f| f.events.iter())).collect();
        ev.sort_by_key(|e| (e.time, e.port, e.class, e.pause));
        let mut t = Table::default();
        t.push("time_us", Column::F64(ev.iter().map(|e| e.time.as_us_f64()).collect()));
        t.push("port", Column::I64(ev.iter().map(|e| e.port as i64).collect()));
        t.push("class", Column::I64(ev.iter().map(|e| e.class as i64).collect()));
        t.push("event", Column::Str(ev.iter().map(|e| if e.pause { "pause" } else { "resume" }.to_string()).collect()));
        Some(t)
    }

    /// The trace's event log (`trace.rs`), if the run traces.
    pub fn trace_table(&self) -> Option<Table> {
        self.trace.as_ref().map(|t| t.table(&self.ports))
    }

    /// The trace's capture as a pcap file, if the run traces.
    pub fn pcap(&self) -> Option<Vec<u8>> {
        let flows = &self.flows;
        self.trace.as_ref().map(|t| t.pcap(|f| (flows[f as usize].src, flows[f as usize].dst)))
    }

    /// Run counters as (name, value) pairs.
    /// Where the run's memory is (issue 5, item 3), from the structures' own sizes and
    /// their containers' high-water capacities: per flow, per packet slot, and the fixed
    /// fabric (ports, routing, event queue).
    pub fn memory(&self) -> MemoryReport {
        let flows: u64 = self.flows.iter().map(|f| f.fixed_bytes()).sum::<u64>()
            + (self.monitors.capacity() * std::mem::size_of::<FlowMonitor>()) as u64
            + (self.host_ready.iter().map(|q| q.capacity()).sum::<usize>() * 4) as u64;
        let packets = self.arena.heap_bytes()
            + self.ports.iter().map(|p| p.packet_bytes()).sum::<u64>()
            + self.flows.iter().map(|f| f.packet_bytes()).sum::<u64>();
        MemoryReport {
            flows,
            packets,
            ports: self.ports.iter().map(|p| p.fixed_bytes()).sum(),
            routing: self.routing.heap_bytes()
                + self.source_routes.heap_bytes()
                + self.laps.as_ref().map_or(0, |t| t.heap_bytes())
                + self.conweave.as_ref().map_or(0, |c| c.heap_bytes()),
            events: self.events.heap_bytes(),
            n_flows: self.flows.len() as u64,
            peak_packets: self.arena.peak_live() as u64,
            n_ports: self.ports.len() as u64,
            n_hosts: self.n_hosts as u64,
        }
    }

    pub fn stats(&self) -> Vec<(&'static str, f64)> {
        if self.parallel.is_some() {
            return self.merged_stats();
        }
        self.share_stats()
    }

    /// The run counters as this simulation alone counted them.
    pub(super) fn share_stats(&self) -> Vec<(&'static str, f64)> {
        let c = &self.counters;
        let mem = self.memory();
        vec![
            ("events", self.events.processed() as f64),
            ("packets", self.arena.allocated_total() as f64),
            ("data_packets", c.data_packets as f64),
            ("ack_packets", c.ack_packets as f64),
            ("drops", c.drops as f64),
            ("ecn_marks", c.ecn_marks as f64),
            ("timeouts", c.timeouts as f64),
            ("trims", c.trims as f64),
            ("tail_trims", c.tail_trims as f64),
            ("nacks", c.nacks as f64),
            ("cnps", c.cnps as f64),
            ("probe_packets", c.probe_packets as f64),
            ("probe_bytes", c.probe_bytes as f64),
            ("pulls", self.pulls.as_ref().map_or(0, |p| p.pulls_sent) as f64),
            (
                "pull_stalls",
                self.flows.iter().filter_map(|f| f.sender.credit.as_ref()).map(|c| c.stall_timeouts as u64).sum::<u64>()
                    as f64,
            ),
            ("retransmits", self.flows.iter().map(|f| f.sender.retransmits).sum::<u64>() as f64),
            ("peak_packets_in_flight", self.arena.peak_live() as f64),
            ("sim_time_us", self.end_time().as_us_f64()),
            ("flows", self.flows.len() as f64),
            ("flows_finished", self.finished_flows as f64),
            ("flows_failed", c.failed_flows as f64),
            ("memory_bytes", mem.total() as f64),
            ("memory_per_flow_bytes", mem.per_flow()),
            ("memory_per_packet_bytes", mem.per_packet()),
            ("memory_per_port_bytes", mem.per_port()),
            ("memory_routing_per_host_bytes", mem.routing_per_host()),
        ]
        .into_iter()
        .chain(std::iter::once((
            "reordered_packets",
            self.flows.iter().map(|f| f.receiver.reordered).sum::<u64>() as f64,
        )))
        .chain(self.observer.iter().map(|o| ("timeseries_rows", o.rows() as f64)))
        .chain(self.trace.iter().flat_map(|t| [("trace_events", t.len() as f64), ("trace_events_lost", t.lost as f64)]))
        .chain(self.laps.iter().flat_map(|t| self.laps_stats(t)))
        .chain(self.plb_stats())
        .chain(self.reps_stats())
        .chain(self.flowlet_stats())
        .chain(self.conweave_stats())
        .chain(
            self.faults.iter().flat_map(|_| [("fault_drops", c.fault_drops as f64), ("reroutes", c.reroutes as f64)]),
        )
        .chain(self.pfc.iter().flat_map(|f| {
            [
                ("pfc_pause_frames", f.total_pause_frames() as f64),
                ("pfc_resume_frames", f.total_resume_frames() as f64),
                ("pfc_headroom_overflow_bytes", f.headroom_overflows as f64),
                ("pfc_deadlocked_ports", self.pfc_deadlocked_ports() as f64),
            ]
        }))
        .collect()
    }
}
