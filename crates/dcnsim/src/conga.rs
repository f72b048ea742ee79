//! CONGA, the congestion-aware flowlet balancer of Alizadeh et al. (SIGCOMM 2014), as the
//! LAPS paper evaluates it (LAPS paper §4; docs/models/conga.md, defaults from the LAPS
//! artefact): every switch port keeps a discounting rate estimator (DRE) of the bytes it
//! sends; a data packet carries the largest quantised DRE along its path; the receiver's
//! ACK carries it back; and the source picks, for each new flowlet, the candidate path
//! whose congestion (the larger of its first uplink's DRE and the last feedback) is least.
//!
//! Where CONGA keeps its tables per pair of leaf switches, these are per host pair (the
//! paths are the pair's LAPS candidate paths, `paths.rs`): the same on the rail fabric,
//! where each GPU has its own edge switch; on the dragonfly, hosts under one router learn
//! separately. Feedback rides on the ACK of the very packet that measured it, where
//! CONGA's destination leaf piggybacks its metrics on whatever reverse traffic passes.

use serde::{Deserialize, Serialize};

use crate::units::values::TimeVal;
use crate::units::{Rate, Time};

/// CONGA parameters (`[transport.conga]`; the LAPS artefact's, docs/models/conga.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CongaParams {
    /// A gap longer than this between two packets of a flow starts a flowlet.
    pub flowlet_timeout: TimeVal,
    /// The DRE multiplies its register by (1 − `dre_decay`) once per `dre_period`.
    pub dre_period: TimeVal,
    pub dre_decay: f64,
    /// Bits of the congestion metric (3: levels 0–7).
    pub metric_bits: u32,
    /// Feedback older than this is forgotten (treated as 0).
    pub table_aging: TimeVal,
}

impl Default for CongaParams {
    fn default() -> Self {
        CongaParams {
            flowlet_timeout: TimeVal(Time::from_us(10)),
            dre_period: TimeVal(Time::from_us(200)),
            dre_decay: 0.2,
            metric_bits: 3,
            table_aging: TimeVal(Time::from_ms(10)),
        }
    }
}

impl CongaParams {
    /// The first setting out of range, as (field, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(self.dre_decay > 0.0 && self.dre_decay < 1.0) {
            return Err(("dre_decay", format!("{}: allowed 0 < dre_decay < 1", self.dre_decay)));
        }
        if self.dre_period.0 == Time::ZERO {
            return Err(("dre_period", "0: allowed a positive time such as \"200us\"".into()));
        }
        if !(1..=3).contains(&self.metric_bits) {
            return Err((
                "metric_bits",
                format!("{}: allowed 1 to 3 (the metric rides in 3 header bits)", self.metric_bits),
            ));
        }
        Ok(())
    }
}

/// One port's discounting rate estimator, decayed lazily: its register as of the start
/// of period `period`.
#[derive(Clone, Copy, Debug, Default)]
struct Dre {
    bytes: f64,
    period: u64,
}

/// CONGA's state for a run: a DRE per port and the last feedback per candidate path.
pub struct Conga {
    pub params: CongaParams,
    dre: Vec<Dre>,
    /// Per source-routed path (`SourceRoutes` index): metric fed back and when.
    feedback: Vec<(u8, Time)>,
}

impl Conga {
    pub fn new(params: &CongaParams, ports: usize, paths: usize) -> Conga {
        Conga { params: params.clone(), dre: vec![Dre::default(); ports], feedback: vec![(0, Time::ZERO); paths] }
    }

    fn levels(&self) -> u8 {
        (1u8 << self.params.metric_bits) - 1
    }

    /// Port `port`'s register at `now`, decayed for the periods since it was last read.
    fn decayed(&mut self, port: u32, now: Time) -> &mut Dre {
        let period = now.0 / self.params.dre_period.0 .0;
        let keep = 1.0 - self.params.dre_decay;
        let d = &mut self.dre[port as usize];
        if period > d.period {
            d.bytes *= keep.powi((period - d.period).min(i32::MAX as u64) as i32);
            d.period = period;
        }
        d
    }

    /// The quantised congestion of `port` at `now`: its register over what the link
    /// carries at full rate in the estimator's time constant, period / decay (CONGA §3.3).
    pub fn metric(&mut self, port: u32, rate: Rate, now: Time) -> u8 {
        let levels = self.levels();
        let horizon = self.params.dre_period.0.as_secs_f64() / self.params.dre_decay;
        let full = rate.bps() as f64 / 8.0 * horizon;
        let bytes = self.decayed(port, now).bytes;
        ((bytes / full * (levels as f64 + 1.0)) as u64).min(levels as u64) as u8
    }

    /// A packet of `bytes` leaves by `port`; returns the port's metric with it counted.
    pub fn on_forward(&mut self, port: u32, rate: Rate, bytes: u32, now: Time) -> u8 {
        self.decayed(port, now).bytes += bytes as f64;
        self.metric(port, rate, now)
    }

    /// An ACK brought back `metric` for source-routed path `path`.
    pub fn on_feedback(&mut self, path: u32, metric: u8, now: Time) {
        self.feedback[path as usize] = (metric, now);
    }

    /// The congestion CONGA sees on `path` whose first uplink is `uplink`: the larger of
    /// the uplink's own DRE and the path's feedback, unless that has aged out.
    pub fn path_metric(&mut self, path: u32, uplink: u32, rate: Rate, now: Time) -> u8 {
        let (remote, at) = self.feedback[path as usize];
        let remote = if now.saturating_sub(at) > self.params.table_aging.0 { 0 } else { remote };
        self.metric(uplink, rate, now).max(remote)
    }
}

/// The least of `metrics` (index), ties broken by `u` in [0, 1), as CONGA picks among
/// equally good uplinks at random.
pub fn least_congested(metrics: &[u8], u: f64) -> usize {
    let best = *metrics.iter().min().expect("at least one path");
    let ties = metrics.iter().filter(|&&m| m == best).count();
    let k = ((u * ties as f64) as usize).min(ties - 1);
    metrics.iter().enumerate().filter(|(_, &m)| m == best).nth(k).map(|(i, _)| i).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link sending at a fraction L of its 100 Gb/s: each 200 µs period adds 2.5·L MB
    /// and keeps 0.8 of the register, so the register settles between 10·L MB (just
    /// after a decay) and 12.5·L MB (just before the next). Full scale is the link's bytes
    /// over period / decay = 1 ms, 12.5 MB, so the 3-bit level is ⌊8·X / 12.5 MB⌋: for
    /// L = 1, 6 after a decay and 7 before the next; for L = 0.5, 3 throughout (3.2 to
    /// 4 − ε). Idle, it decays back to 0.
    #[test]
    fn dre_metric_follows_the_link_utilisation() {
        let rate = Rate::gbps(100);
        for (load, after_decay, before_decay) in [(1.0, 6, 7), (0.5, 3, 3)] {
            let mut c = Conga::new(&CongaParams::default(), 1, 1);
            // 1048-byte packets at `load` × line rate for 20 ms (100 periods).
            let gap = Time((1048.0 * 8.0 / (100e9 * load) * 1e12) as u64);
            let mut t = Time::ZERO;
            while t < Time::from_ms(20) {
                c.on_forward(0, rate, 1048, t);
                t = t + gap;
            }
            let boundary = Time::from_ms(20);
            assert_eq!(c.metric(0, rate, boundary), after_decay, "load {load}");
            let mut c2 = Conga::new(&CongaParams::default(), 1, 1);
            let mut t = Time::ZERO;
            while t + gap < boundary {
                c2.on_forward(0, rate, 1048, t);
                t = t + gap;
            }
            assert_eq!(c2.metric(0, rate, boundary - Time(1)), before_decay, "load {load}");
            assert_eq!(c.metric(0, rate, boundary + Time::from_ms(10)), 0);
        }
    }

    /// Feedback counts until it ages out; the uplink's own DRE counts always.
    #[test]
    fn path_metric_is_the_worse_of_uplink_and_fresh_feedback() {
        let rate = Rate::gbps(100);
        let mut c = Conga::new(&CongaParams::default(), 2, 2);
        c.on_feedback(1, 5, Time::from_us(100));
        assert_eq!(c.path_metric(1, 0, rate, Time::from_us(200)), 5);
        assert_eq!(c.path_metric(1, 0, rate, Time::from_ms(11)), 0);
        c.on_forward(1, rate, 12_500_000, Time::from_ms(11));
        assert_eq!(c.path_metric(0, 1, rate, Time::from_ms(11)), 7);
    }

    #[test]
    fn least_congested_breaks_ties_by_the_draw() {
        assert_eq!(least_congested(&[3, 1, 2, 1], 0.0), 1);
        assert_eq!(least_congested(&[3, 1, 2, 1], 0.99), 3);
        assert_eq!(least_congested(&[0], 0.5), 0);
    }
}
