//! The Mellanox-NIC reaction point of the HPCC/ConWeave simulator family, which the LAPS
//! authors' ns-3 artefact runs its DCQCN baselines on (`dcqcn.variant = "mellanox"`;
//! docs/models/dcqcn.md, "Variants"). It drives the same rate state as the DCQCN paper's
//! reaction point (`super::RateState`) and differs from it in four ways:
//! - α is updated only on its timer: each `alpha_timer` period, `α ← (1 − g)·α + g` when a
//!   CNP arrived in the period, else `α ← (1 − g)·α`; the first CNP of a flow sets α = 1
//!   (so its first cut halves the rate however long it ran unmarked);
//! - the rate is cut on a timer too: at most once per `rate_decrease_interval`, at the
//!   first tick after a CNP (the first CNP's tick is immediate);
//! - a cut keeps the target rate when no increase event ran since the previous cut
//!   (back-to-back cuts lower `rc`, not `rt`);
//! - increase events come from the timer alone (no byte counter), the stage from the
//!   count k of events since the last cut: fast recovery while k < F, one additive step
//!   at k = F, hyper steps (`rt += R_HAI`) after.

use super::{RateState, Stage};
use crate::units::Time;

/// The NIC's decrease timer and what its α and decrease ticks have to act on.
#[derive(Debug)]
pub(super) struct Ticks {
    /// A CNP arrived since the last α tick / since the last decrease tick.
    cnp_for_alpha: bool,
    cnp_for_decrease: bool,
    /// The next rate-decrease tick (`Time::MAX`: idle until a CNP), on the grid
    /// `decrease_grid + k·rate_decrease_interval` that the first CNP starts.
    next_decrease: Time,
    decrease_grid: Time,
}

impl Default for Ticks {
    fn default() -> Ticks {
        Ticks { cnp_for_alpha: false, cnp_for_decrease: false, next_decrease: Time::MAX, decrease_grid: Time::ZERO }
    }
}

impl Ticks {
    /// The timers up to `now`. On a tie the α tick comes first, then the cut, then the
    /// increase (the HPCC/ConWeave NIC schedules its first cut 1 ns after the α reset).
    pub(super) fn advance(&mut self, rp: &mut RateState, now: Time) {
        let one_minus_g = 1.0 - rp.p.g;
        loop {
            let next = rp.next_alpha_decay.min(self.next_decrease).min(rp.next_timer_increase);
            if next > now {
                return;
            }
            if rp.next_alpha_decay == next {
                let period = rp.p.alpha_timer.0;
                if self.cnp_for_alpha {
                    rp.alpha = one_minus_g * rp.alpha + rp.p.g;
                    self.cnp_for_alpha = false;
                    rp.next_alpha_decay = next + period;
                } else {
                    // Quiet ticks up to the next other timer (or `now`) in one step.
                    let until = now.min(self.next_decrease).min(rp.next_timer_increase);
                    let ticks = if until < next { 1 } else { 1 + (until - next).ps() / period.ps() };
                    rp.alpha *= one_minus_g.powi(ticks.min(i32::MAX as u64) as i32);
                    rp.next_alpha_decay =
                        if rp.alpha < 1e-12 { Time::MAX } else { Time(next.ps() + period.ps() * ticks) };
                }
            } else if self.next_decrease == next {
                if self.cnp_for_decrease {
                    if rp.timer_stage > 0 {
                        rp.rt = rp.rc;
                    }
                    rp.cut();
                    self.cnp_for_decrease = false;
                    rp.timer_stage = 0;
                    rp.next_timer_increase = next + rp.p.increase_timer.0;
                    self.next_decrease = next + rp.p.rate_decrease_interval.0;
                } else {
                    // Idle until the next CNP, which resumes the grid.
                    self.next_decrease = Time::MAX;
                }
            } else {
                increase(rp);
                rp.rearm_increase(next);
            }
        }
    }

    /// A CNP arrived. The first sets α = 1 and cuts at once; later ones are applied by
    /// the next α and decrease ticks.
    pub(super) fn cnp(&mut self, rp: &mut RateState, now: Time) {
        self.advance(rp, now);
        rp.cnps += 1;
        self.cnp_for_alpha = true;
        self.cnp_for_decrease = true;
        if !rp.cut_once {
            rp.cut_once = true;
            rp.alpha = 1.0;
            rp.rt = rp.rc;
            self.decrease_grid = now;
            self.next_decrease = now;
            rp.next_alpha_decay = now + rp.p.alpha_timer.0;
        } else {
            if self.next_decrease == Time::MAX {
                let period = rp.p.rate_decrease_interval.0.ps();
                let k = (now - self.decrease_grid).ps().div_ceil(period);
                self.next_decrease = Time(self.decrease_grid.ps() + k * period);
            }
            if rp.next_alpha_decay == Time::MAX {
                rp.next_alpha_decay = now + rp.p.alpha_timer.0;
            }
        }
        self.advance(rp, now);
    }
}

/// One timer increase event; the stage from the events since the last cut.
fn increase(rp: &mut RateState) {
    let f = rp.p.fast_recovery_stages;
    let stage = match rp.timer_stage.cmp(&f) {
        std::cmp::Ordering::Less => Stage::FastRecovery,
        std::cmp::Ordering::Equal => Stage::Additive,
        std::cmp::Ordering::Greater => Stage::Hyper,
    };
    rp.apply_increase(stage, 1);
    rp.timer_stage += 1;
}
