//! A split run seen as one simulation (`docs/models/parallel.md`): the time-series
//! sampler's view of the shares, and the tables merged column by column from the shares
//! that keep each value.

use super::*;

/// A split run's shares as one simulation for the time-series sampler: each port as its
/// node's share keeps it, each flow's halves from the shares of its two ends.
pub(super) struct SplitView<'a> {
    shares: Vec<&'a Simulation>,
    of_node: &'a [u16],
}

impl<'a> SplitView<'a> {
    pub(in crate::sim) fn new(first: &'a Simulation, others: &'a [Simulation]) -> SplitView<'a> {
        let of_node = &first.shard.as_ref().expect("a split run").of_node;
        SplitView { shares: std::iter::once(first).chain(others.iter()).collect(), of_node }
    }

    fn at(&self, node: u32) -> &'a Simulation {
        self.shares[self.of_node[node as usize] as usize]
    }
}

impl crate::observe::SampleView for SplitView<'_> {
    fn port(&self, p: u32) -> &crate::net::Port {
        let node = self.shares[0].ports[p as usize].node;
        &self.at(node).ports[p as usize]
    }
    fn port_drops(&self, p: u32) -> u64 {
        self.shares.iter().map(|s| s.ports[p as usize].stats.drops).sum()
    }
    fn pfc(&self, p: u32) -> Option<&crate::net::pfc::Pfc> {
        let node = self.shares[0].ports[p as usize].node;
        self.at(node).pfc.as_deref()
    }
    fn sender(&self, f: u32) -> &crate::transport::Flow {
        let src = self.shares[0].flows[f as usize].src;
        &self.at(src).flows[f as usize]
    }
    fn receiver(&self, f: u32) -> &crate::transport::Flow {
        let dst = self.shares[0].flows[f as usize].dst;
        &self.at(dst).flows[f as usize]
    }
    fn sender_monitor(&self, f: u32) -> &FlowMonitor {
        let src = self.shares[0].flows[f as usize].src;
        &self.at(src).monitors[f as usize]
    }
}

/// Where a flow-table column's value lives in a split run.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    /// Fixed at build time: the same in every share.
    Same,
    /// Kept by the sender: the share of the flow's source.
    Sender,
    /// Kept by the receiver: the share of its destination.
    Receiver,
    /// Counted wherever it happens (a drop in any switch): the sum over the shares.
    Sum,
    /// `failed`: the sender gave up and the receiver never completed.
    Failed,
    /// `fct_us` and `slowdown`: the completion (the receiver's, or the sender's with
    /// `output.fct = "sender"`) less the start (the sender's).
    Fct,
}

/// Every column of `Simulation::flow_table`, by where it lives. An unknown name panics,
/// so that a new column cannot be merged wrongly by default (a unit test builds a table).
fn flow_column_side(name: &str, fct_at_sender: bool) -> Side {
    match name {
        "id" | "tag" | "src" | "dst" | "size" | "ideal_fct_us" | "cc" | "lb" | "group" | "priority" => Side::Same,
        "start_us" | "retransmits" | "tx_packets" | "first_tx_us" => Side::Sender,
        "failed" => Side::Failed,
        // A waiting flow's start is set where it sends; its finish is kept where it ends.
        "fct_us" | "slowdown" => Side::Fct,
        "finish_us" | "finished" if fct_at_sender => Side::Sender,
        "finish_us" | "finished" => Side::Receiver,
        "delivered" | "rx_packets" | "rx_bytes" | "delay_sum_us" | "last_rx_us" | "reordered" => Side::Receiver,
        "drops" | "trims" => Side::Sum,
        other => panic!("flow table column {other:?} has no rule for merging a split run's shares"),
    }
}

/// Row r of a merged column: `cols[who(r)]`'s row r.
fn pick(cols: &[&Column], who: impl Fn(usize) -> usize) -> Column {
    macro_rules! rows {
        ($variant:ident) => {
            Column::$variant(
                (0..column_len(cols[0]))
                    .map(|r| match cols[who(r)] {
                        Column::$variant(v) => v[r].clone(),
                        _ => unreachable!("the shares build the same table"),
                    })
                    .collect(),
            )
        };
    }
    match cols[0] {
        Column::I64(_) => rows!(I64),
        Column::F64(_) => rows!(F64),
        Column::Bool(_) => rows!(Bool),
        Column::Str(_) => rows!(Str),
        Column::Cat { .. } => unreachable!("the flow table has no categorical column"),
    }
}

fn column_len(c: &Column) -> usize {
    match c {
        Column::I64(v) => v.len(),
        Column::F64(v) => v.len(),
        Column::Bool(v) => v.len(),
        Column::Str(v) => v.len(),
        Column::Cat { codes, .. } => codes.len(),
    }
}

impl Simulation {
    /// The shares of a split run, the first (`self`) included; just `self` unsplit.
    pub(in crate::sim) fn shares(&self) -> impl Iterator<Item = &Simulation> + '_ {
        std::iter::once(self).chain(self.parallel.iter().flat_map(|p| p.others.iter()))
    }

    /// The flow table of a split run, each column merged from the shares that keep it.
    pub(in crate::sim) fn merged_flow_table(&self) -> Table {
        let shares: Vec<&Simulation> = self.shares().collect();
        let tables: Vec<Table> = shares.iter().map(|s| s.share_flow_table()).collect();
        let of_node = &self.shard.as_ref().expect("a split run").of_node;
        let share_of = |node: u32| of_node[node as usize] as usize;
        let mut merged = Table::default();
        for (i, (name, first)) in tables[0].columns.iter().enumerate() {
            let cols: Vec<&Column> = tables.iter().map(|t| &t.columns[i].1).collect();
            let column = match flow_column_side(name, self.fct_at_sender) {
                Side::Same => first.clone(),
                Side::Sender => pick(&cols, |r| share_of(self.flows[r].src)),
                Side::Receiver => pick(&cols, |r| share_of(self.flows[r].dst)),
                Side::Fct => {
                    let fct = |f: usize| {
                        let flow = &shares[share_of(self.flows[f].src)].flows[f];
                        let done = if self.fct_at_sender {
                            flow.sender.done_at
                        } else {
                            shares[share_of(self.flows[f].dst)].flows[f].receiver.finish
                        };
                        // As `share_flow_table` computes it, from the times themselves.
                        match done {
                            Some(t) if !flow.is_infinite() => (t - flow.start).as_us_f64(),
                            _ => f64::NAN,
                        }
                    };
                    let n = self.flows.len();
                    Column::F64(if name == "fct_us" {
                        (0..n).map(fct).collect()
                    } else {
                        (0..n).map(|f| fct(f) / self.flows[f].ideal_fct.as_us_f64()).collect()
                    })
                }
                Side::Failed => {
                    let gave_up = pick(&cols, |r| share_of(self.flows[r].src));
                    let finished =
                        tables.iter().map(|t| t.column("finished").expect("a finished column")).collect::<Vec<_>>();
                    let finished = pick(&finished, |r| share_of(self.flows[r].dst));
                    match (gave_up, finished) {
                        (Column::Bool(g), Column::Bool(f)) => {
                            Column::Bool(g.iter().zip(&f).map(|(g, f)| *g && !f).collect())
                        }
                        _ => unreachable!("flags are booleans"),
                    }
                }
                Side::Sum => {
                    let n = column_len(first);
                    Column::I64(
                        (0..n)
                            .map(|r| {
                                cols.iter()
                                    .map(|c| match c {
                                        Column::I64(v) => v[r],
                                        _ => unreachable!("counted columns are integers"),
                                    })
                                    .sum()
                            })
                            .collect(),
                    )
                }
            };
            merged.push(name, column);
        }
        merged
    }

    /// The run's counters summed over the shares; the few that are not sums (the flow
    /// count, the simulated time, a ratio) taken or recomputed.
    pub(in crate::sim) fn merged_stats(&self) -> Vec<(&'static str, f64)> {
        let shares: Vec<&Simulation> = self.shares().collect();
        let mut stats = self.share_stats();
        for other in &shares[1..] {
            for ((name, total), (other_name, v)) in stats.iter_mut().zip(other.share_stats()) {
                debug_assert_eq!(*name, other_name, "the shares report the same stats");
                match *name {
                    // Every share applies every fault step to its own copy of the fabric.
                    "flows" | "reroutes" => {}
                    "sim_time_us" => *total = total.max(v),
                    _ => *total += v,
                }
            }
        }
        let failed = match self.merged_flow_table().column("failed") {
            Some(Column::Bool(v)) => v.iter().filter(|&&x| x).count(),
            _ => 0,
        };
        if let Some(s) = stats.iter_mut().find(|(n, _)| *n == "flows_failed") {
            s.1 = failed as f64;
        }
        let get = |stats: &[(&str, f64)], key: &str| stats.iter().find(|(n, _)| *n == key).map(|s| s.1);
        if let (Some(reused), Some(fresh)) = (get(&stats, "reps_reused_entropies"), get(&stats, "reps_fresh_entropies"))
        {
            let ratio = if reused + fresh == 0.0 { 0.0 } else { reused / (reused + fresh) };
            if let Some(r) = stats.iter_mut().find(|(n, _)| *n == "reps_recycle_ratio") {
                r.1 = ratio;
            }
        }
        // How the run was split: what a model of more threads than this machine has
        // needs (docs/models/parallel.md, "Speed").
        let par = self.parallel.as_ref().expect("a split run");
        if let Some(o) = &par.observer {
            stats.push(("timeseries_rows", o.rows() as f64));
        }
        let share_events = shares.iter().map(|s| s.events.processed());
        stats.extend([
            ("split_shares", shares.len() as f64),
            ("split_windows", par.windows as f64),
            ("split_share_events_max", share_events.max().unwrap_or(0) as f64),
            ("split_messages", shares.iter().filter_map(|s| s.shard.as_ref()).map(|s| s.sent).sum::<u64>() as f64),
        ]);
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every column the flow table has today has a merge rule (a new one panics here).
    #[test]
    fn every_flow_column_has_a_merge_rule() {
        let sim = crate::sim::tests::leaf_spine();
        for (name, _) in sim.flow_table().columns {
            for at_sender in [false, true] {
                flow_column_side(&name, at_sender);
            }
        }
    }
}

impl Simulation {
    /// The time series of a split run (its sampler is the coordinator's).
    pub(in crate::sim) fn split_timeseries(&self) -> Option<Table> {
        self.parallel.as_ref()?.observer.as_ref().map(|o| o.table())
    }

    /// A split run's clock at its end: its latest event or sample.
    pub(in crate::sim) fn split_last_activity(&self) -> Option<Time> {
        self.parallel.as_ref().map(|p| p.last_activity)
    }
}
