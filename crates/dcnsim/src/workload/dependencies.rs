//! Which flows start when others finish: windowed all-to-all steps and training
//! iterations (a flow waits for every one of its predecessors to be delivered), and
//! htsim's connection-matrix triggers (docs/formats.md, "htsim connection matrices"): a
//! flow waits for predecessors to be delivered (`recv_done_trigger`) or acknowledged at
//! their sender (`send_done_trigger`), for all of them (`oneshot`, `barrier`) or for the
//! k-th of them (the k-th target of a `multishot` trigger).

use super::FlowSpec;
use crate::units::Time;

/// For each flow, the flows waiting on its delivery and on its acknowledgement, and for
/// each waiting flow how many events it still needs and how long after the last one it
/// starts. Empty when no flow waits, so runs without dependencies pay one length test per
/// finished flow.
#[derive(Debug, Default)]
pub struct Dependencies {
    /// `on_delivery[first[f]..first[f + 1]]` wait on flow f's delivery.
    first: Vec<u32>,
    on_delivery: Vec<u32>,
    /// The same for flow f's last acknowledgement at its sender.
    first_acked: Vec<u32>,
    on_acked: Vec<u32>,
    /// Events each flow still waits for; 0 once it was released (or never waited).
    waiting: Vec<u32>,
    gap: Vec<Time>,
}

/// Compressed lists: for each flow f, the flows whose `edges(spec)` name f.
fn invert(specs: &[FlowSpec], edges: impl Fn(&FlowSpec) -> &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = specs.len();
    let mut first = vec![0u32; n + 1];
    for sp in specs {
        for &a in edges(sp) {
            first[a as usize + 1] += 1;
        }
    }
    for f in 0..n {
        first[f + 1] += first[f];
    }
    let mut fill = first.clone();
    let mut lists = vec![0u32; first[n] as usize];
    for (id, sp) in specs.iter().enumerate() {
        for &a in edges(sp) {
            lists[fill[a as usize] as usize] = id as u32;
            fill[a as usize] += 1;
        }
    }
    (first, lists)
}

impl Dependencies {
    pub fn new(specs: &[FlowSpec]) -> Dependencies {
        if specs.iter().all(|f| f.after.is_empty() && f.after_acked.is_empty()) {
            return Dependencies::default();
        }
        let (first, on_delivery) = invert(specs, |sp| &sp.after);
        let (first_acked, on_acked) = invert(specs, |sp| &sp.after_acked);
        let waiting = specs
            .iter()
            .map(|f| {
                let events = (f.after.len() + f.after_acked.len()) as u32;
                if f.after_count == 0 {
                    events
                } else {
                    f.after_count.min(events)
                }
            })
            .collect();
        Dependencies { first, on_delivery, first_acked, on_acked, waiting, gap: specs.iter().map(|f| f.gap).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Flow `f` was delivered: calls `ready(g, gap)` for each flow g that now has every
    /// event it waits for, in flow-id order, `gap` being its delay from now.
    pub fn delivered(&mut self, f: u32, ready: impl FnMut(u32, Time)) {
        if !self.is_empty() {
            let (a, b) = (self.first[f as usize] as usize, self.first[f as usize + 1] as usize);
            release(&self.on_delivery[a..b], &mut self.waiting, &self.gap, ready);
        }
    }

    /// Flow `f`'s sender heard every byte acknowledged: as `delivered`, for the flows
    /// waiting on that.
    pub fn acked(&mut self, f: u32, ready: impl FnMut(u32, Time)) {
        if !self.is_empty() {
            let (a, b) = (self.first_acked[f as usize] as usize, self.first_acked[f as usize + 1] as usize);
            release(&self.on_acked[a..b], &mut self.waiting, &self.gap, ready);
        }
    }

    /// The flows waiting on flow `f`'s delivery (or, `acked`, its acknowledgement).
    pub fn waiting_on(&self, f: u32, acked: bool) -> &[u32] {
        if self.is_empty() {
            return &[];
        }
        let (first, lists) = if acked { (&self.first_acked, &self.on_acked) } else { (&self.first, &self.on_delivery) };
        &lists[first[f as usize] as usize..first[f as usize + 1] as usize]
    }

    /// One of flow `g`'s events happened; true if that released it (its last one).
    pub fn count_one(&mut self, g: u32) -> bool {
        let mut released = false;
        release(&[g], &mut self.waiting, &self.gap, |_, _| released = true);
        released
    }

    /// How long after its last event flow `g` starts.
    pub fn gap(&self, g: u32) -> Time {
        self.gap[g as usize]
    }

    /// Every wait as (the flow waited on, whether on its acknowledgement rather than its
    /// delivery, the waiting flow).
    pub fn edges(&self) -> impl Iterator<Item = (u32, bool, u32)> + '_ {
        let lists = [(&self.first, &self.on_delivery, false), (&self.first_acked, &self.on_acked, true)];
        lists.into_iter().flat_map(|(first, waiting, acked)| {
            (0..first.len().saturating_sub(1)).flat_map(move |f| {
                waiting[first[f] as usize..first[f + 1] as usize].iter().map(move |&g| (f as u32, acked, g))
            })
        })
    }

    /// Whether any flow waits on flow `f`'s acknowledgement.
    pub fn waits_on_ack(&self, f: u32) -> bool {
        !self.is_empty() && self.first_acked[f as usize] < self.first_acked[f as usize + 1]
    }
}

fn release(dependents: &[u32], waiting: &mut [u32], gap: &[Time], mut ready: impl FnMut(u32, Time)) {
    for &g in dependents {
        let w = &mut waiting[g as usize];
        // A flow released by the k-th of its events ignores the later ones.
        if *w == 0 {
            continue;
        }
        *w -= 1;
        if *w == 0 {
            ready(g, gap[g as usize]);
        }
    }
}
