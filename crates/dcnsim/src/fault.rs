//! Timed faults (issue 10, item 3): links and switches that fail and recover, flapping
//! links, loss bursts and degraded link rates, as a schedule of steps the event loop
//! applies at their times (`Event::Fault`).
//!
//! The model, chosen to cost the hot path nothing:
//! - A link that goes down loses every packet on its wire and every packet it sends
//!   until it comes back (its queue keeps draining at line rate into the dead cable, as
//!   a blackholing egress does). The check sits in `pipe_arrive`'s existing loss branch:
//!   a dead port carries a loss rate of 1.
//! - Routing learns of the change `detection_delay` later: the equal-cost tables are
//!   recomputed over the links that are up. Until then traffic hashed onto the dead link
//!   is lost and senders repair it by retransmission. A switch pair that the failure
//!   disconnects keeps its old entries (its traffic is lost until the link returns).
//! - A degraded link serialises at the lower rate from the step on; a loss burst replaces
//!   the link's loss rate for the window.
//! - PFC frames still cross a dead link (a simplification: a PAUSE cannot then strand
//!   the upstream port).

use crate::observe::parse_node;
use crate::scenario::{FaultsCfg, ScenarioError};
use crate::units::{Rate, Time};

/// What a step does to one cable (its two ports, one per direction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FaultAction {
    Down,
    Up,
    /// Serialise at this rate (a degraded link, or its nominal rate again).
    Rate(Rate),
    /// Lose each packet with this probability (a loss burst, or the nominal rate again).
    Loss(f64),
    /// Routing recomputes its tables over the links that are up.
    Reroute,
}

/// One step of the schedule: `action` on the cable whose ports are `2·cable` and
/// `2·cable + 1` (unused for `Reroute`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultStep {
    pub at: Time,
    pub cable: u32,
    pub action: FaultAction,
}

/// The run's fault steps in time order, and what the faulted links are when healthy.
#[derive(Default)]
pub struct FaultPlan {
    pub steps: Vec<FaultStep>,
    /// How many faults hold each down cable down (overlapping windows, a switch failure
    /// beside a link failure): the cable comes back when the last one ends.
    down_count: Vec<(u32, u32)>,
    /// Per faulted cable: the loss rate it has while up (its own, or a burst's), which a
    /// dead cable's loss rate of 1 hides.
    loss_when_up: Vec<(u32, f64)>,
}

impl FaultPlan {
    /// Builds the plan from `[faults]`. `cable_between(a, b)` finds the cable joining two
    /// nodes; `cables_of(node)` lists a switch's cables; `nominal(cable)` is its healthy
    /// (rate, loss rate).
    pub fn build(
        cfg: &FaultsCfg,
        n_hosts: u32,
        n_nodes: u32,
        cable_between: impl Fn(u32, u32) -> Option<u32>,
        cables_of: impl Fn(u32) -> Vec<u32>,
        nominal: impl Fn(u32) -> (Rate, f64),
    ) -> Result<FaultPlan, ScenarioError> {
        let node = |field: &str, name: &str| {
            parse_node(name, n_hosts, n_nodes).ok_or_else(|| {
                ScenarioError(format!(
                    "{field}: \"{name}\" names no node; allowed \"h0\"…\"h{}\" (hosts) or \"s0\"…\"s{}\" (switches)",
                    n_hosts - 1,
                    n_nodes - n_hosts - 1
                ))
            })
        };
        let mut plan = FaultPlan::default();
        let mut windows: Vec<(String, u32, Time, Option<Time>, FaultAction)> = Vec::new();
        for (i, l) in cfg.link.iter().enumerate() {
            let field = format!("faults.link[{i}]");
            let a = node(&format!("{field}.between"), &l.between[0])?;
            let b = node(&format!("{field}.between"), &l.between[1])?;
            let Some(cable) = cable_between(a, b) else {
                return Err(ScenarioError(format!(
                    "{field}.between: no link joins {} and {}",
                    l.between[0], l.between[1]
                )));
            };
            let action = match (l.rate, l.loss_rate) {
                (Some(_), Some(_)) => {
                    return Err(ScenarioError(format!(
                        "{field}: give rate (a degraded link) or loss_rate (a loss burst), not both"
                    )))
                }
                (Some(r), None) => FaultAction::Rate(r.0),
                (None, Some(p)) if (0.0..=1.0).contains(&p) => FaultAction::Loss(p),
                (None, Some(p)) => {
                    return Err(ScenarioError(format!("{field}.loss_rate: {p}: allowed 0 to 1")));
                }
                (None, None) => FaultAction::Down,
            };
            if l.repeat == 0 {
                return Err(ScenarioError(format!("{field}.repeat: 0: allowed 1 or more")));
            }
            let until = l.until.map(|u| u.0);
            if until.is_some_and(|u| u <= l.at.0) {
                return Err(ScenarioError(format!("{field}.until: must be after at ({})", l.at.0)));
            }
            let every = match (l.repeat, l.every) {
                (1, _) => Time::ZERO,
                (_, None) => {
                    return Err(ScenarioError(format!("{field}.every: repeat = {} needs the period", l.repeat)));
                }
                (_, Some(e)) => {
                    // Windows must not overlap: each must end before the next begins.
                    let Some(u) = until else {
                        return Err(ScenarioError(format!("{field}.until: a repeated fault needs an end")));
                    };
                    if e.0 <= u - l.at.0 {
                        return Err(ScenarioError(format!(
                            "{field}.every: {} is not longer than one window ({})",
                            e.0,
                            u - l.at.0
                        )));
                    }
                    e.0
                }
            };
            for k in 0..l.repeat as u64 {
                let shift = Time(every.0 * k);
                windows.push((field.clone(), cable, l.at.0 + shift, until.map(|u| u + shift), action));
            }
        }
        for (i, sw) in cfg.switch.iter().enumerate() {
            let field = format!("faults.switch[{i}]");
            let s = node(&format!("{field}.switch"), &sw.switch)?;
            if s < n_hosts {
                return Err(ScenarioError(format!(
                    "{field}.switch: \"{}\" is a host; fail its link with [[faults.link]]",
                    sw.switch
                )));
            }
            let until = sw.until.map(|u| u.0);
            if until.is_some_and(|u| u <= sw.at.0) {
                return Err(ScenarioError(format!("{field}.until: must be after at ({})", sw.at.0)));
            }
            for c in cables_of(s) {
                windows.push((field.clone(), c, sw.at.0, until, FaultAction::Down));
            }
        }
        // A rate or loss window over another of the same kind on one cable would restore
        // the nominal value while the other still holds.
        for (i, w) in windows.iter().enumerate() {
            for v in &windows[i + 1..] {
                let same_kind = std::mem::discriminant(&w.4) == std::mem::discriminant(&v.4);
                let overlap = w.2 < v.3.unwrap_or(Time::MAX) && v.2 < w.3.unwrap_or(Time::MAX);
                if w.1 == v.1 && same_kind && w.4 != FaultAction::Down && overlap {
                    return Err(ScenarioError(format!("{}: overlaps {} on the same link", v.0, w.0)));
                }
            }
        }
        let delay = cfg.detection_delay.0;
        for (_, cable, at, until, action) in windows {
            let (rate, loss) = nominal(cable);
            let restore = match action {
                FaultAction::Down => FaultAction::Up,
                FaultAction::Rate(_) => FaultAction::Rate(rate),
                FaultAction::Loss(_) => FaultAction::Loss(loss),
                FaultAction::Up | FaultAction::Reroute => unreachable!("windows start with a fault"),
            };
            plan.steps.push(FaultStep { at, cable, action });
            if action == FaultAction::Down {
                plan.steps.push(FaultStep { at: at + delay, cable, action: FaultAction::Reroute });
            }
            if let Some(u) = until {
                plan.steps.push(FaultStep { at: u, cable, action: restore });
                if action == FaultAction::Down {
                    plan.steps.push(FaultStep { at: u + delay, cable, action: FaultAction::Reroute });
                }
            }
        }
        // Stable: at one instant a cable's recovery and its next failure keep their order.
        plan.steps.sort_by_key(|s| s.at);
        plan.steps.dedup_by(|b, a| a.action == FaultAction::Reroute && *a == *b);
        Ok(plan)
    }

    /// Records that a fault takes `cable` down; true if it was up.
    pub fn take_down(&mut self, cable: u32) -> bool {
        match self.down_count.iter_mut().find(|d| d.0 == cable) {
            Some(d) => {
                d.1 += 1;
                d.1 == 1
            }
            None => {
                self.down_count.push((cable, 1));
                true
            }
        }
    }

    /// The loss rate `cable` has while up: its own, or `set`'s from now on.
    pub fn loss_when_up(&mut self, cable: u32, own: f64, set: Option<f64>) -> f64 {
        let i = match self.loss_when_up.iter().position(|l| l.0 == cable) {
            Some(i) => i,
            None => {
                self.loss_when_up.push((cable, own));
                self.loss_when_up.len() - 1
            }
        };
        if let Some(p) = set {
            self.loss_when_up[i].1 = p;
        }
        self.loss_when_up[i].1
    }

    /// Records that one fault holding `cable` down ended; true if it is now up.
    pub fn bring_up(&mut self, cable: u32) -> bool {
        let d = self.down_count.iter_mut().find(|d| d.0 == cable).expect("a cable comes up after it went down");
        d.1 -= 1;
        d.1 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{LinkFaultCfg, SwitchFaultCfg, TimeVal};

    fn link(between: [&str; 2], at: u64, until: Option<u64>) -> LinkFaultCfg {
        LinkFaultCfg {
            between: between.map(String::from),
            at: TimeVal(Time::from_us(at)),
            until: until.map(|u| TimeVal(Time::from_us(u))),
            rate: None,
            loss_rate: None,
            repeat: 1,
            every: None,
        }
    }

    /// Four hosts on s0, s0–s1 is cable 4, s1 has cables 4 and 5.
    fn plan(cfg: &FaultsCfg) -> Result<FaultPlan, ScenarioError> {
        FaultPlan::build(
            cfg,
            4,
            6,
            |a, b| match (a.min(b), a.max(b)) {
                (h, 4) if h < 4 => Some(h),
                (4, 5) => Some(4),
                _ => None,
            },
            |s| if s == 5 { vec![4] } else { vec![0, 1, 2, 3, 4] },
            |_| (Rate::gbps(100), 0.0),
        )
    }

    #[test]
    fn a_flapping_link_goes_down_and_up_each_period_and_routing_follows_each_change() {
        let mut l = link(["s0", "s1"], 10, Some(20));
        (l.repeat, l.every) = (3, Some(TimeVal(Time::from_us(50))));
        let cfg = FaultsCfg { link: vec![l], detection_delay: TimeVal(Time::from_us(5)), ..FaultsCfg::default() };
        let steps = plan(&cfg).unwrap().steps;
        let downs: Vec<u64> =
            steps.iter().filter(|s| s.action == FaultAction::Down).map(|s| s.at.0 / 1_000_000).collect();
        let ups: Vec<u64> = steps.iter().filter(|s| s.action == FaultAction::Up).map(|s| s.at.0 / 1_000_000).collect();
        assert_eq!((downs, ups), (vec![10, 60, 110], vec![20, 70, 120]));
        let reroutes = steps.iter().filter(|s| s.action == FaultAction::Reroute).count();
        assert_eq!(reroutes, 6, "one reroute per change, 5 us after it");
        assert!(steps.windows(2).all(|w| w[0].at <= w[1].at));
    }

    #[test]
    fn bad_faults_name_the_field() {
        let msg = |cfg: FaultsCfg| plan(&cfg).err().expect("rejected").0;
        let cfg = FaultsCfg { link: vec![link(["s0", "s9"], 1, None)], ..FaultsCfg::default() };
        assert!(msg(cfg).starts_with("faults.link[0].between: \"s9\" names no node"));
        let cfg = FaultsCfg { link: vec![link(["h0", "h1"], 1, None)], ..FaultsCfg::default() };
        assert!(msg(cfg).contains("no link joins h0 and h1"));
        let cfg = FaultsCfg { link: vec![link(["h0", "s0"], 5, Some(5))], ..FaultsCfg::default() };
        assert!(msg(cfg).starts_with("faults.link[0].until"));
        let mut l = link(["s0", "s1"], 10, Some(20));
        (l.repeat, l.every) = (2, Some(TimeVal(Time::from_us(10))));
        assert!(msg(FaultsCfg { link: vec![l], ..FaultsCfg::default() }).starts_with("faults.link[0].every"));
        let sw = SwitchFaultCfg { switch: "h2".into(), at: TimeVal(Time::ZERO), until: None };
        assert!(msg(FaultsCfg { switch: vec![sw], ..FaultsCfg::default() }).contains("is a host"));
        let mut a = link(["s0", "s1"], 10, Some(30));
        a.loss_rate = Some(0.5);
        let mut b = a.clone();
        b.at = TimeVal(Time::from_us(20));
        b.until = Some(TimeVal(Time::from_us(40)));
        let cfg = FaultsCfg { link: vec![a, b], ..FaultsCfg::default() };
        assert!(msg(cfg).contains("overlaps faults.link[0]"));
    }

    #[test]
    fn a_cable_down_twice_comes_back_with_the_last_fault() {
        let mut p = FaultPlan::default();
        assert!(p.take_down(4));
        assert!(!p.take_down(4));
        assert!(!p.bring_up(4));
        assert!(p.bring_up(4));
    }
}
