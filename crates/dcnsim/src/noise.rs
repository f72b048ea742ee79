//! Non-congestive delay noise added to every delay sample a sender's algorithm sees (the
//! PrioPlus paper §4.3.2 (Fig. 7) and §6; docs/models/noise.md: the PrioPlus artefact adds
//! it to the measured sample before any comparison, and the same noisy sample feeds the
//! wrapped algorithm). Real NIC timestamps jitter by a fraction of a microsecond; a
//! delay-based algorithm whose channels are narrower than that misreads noise as queueing.
//!
//! The noise is drawn per sample from an empirical CDF (`workloads/delay_noise_nic.cdf`
//! ships the paper's measured one) times `scale`, or uniformly from [0, `uniform`]. The
//! transport's own RTO estimator keeps the true samples.
//!
//! `at = "receiver"` puts the same noise into the network instead: the receiving host holds
//! each reply (ACK, NACK, CNP, pull) for one draw before its NIC queues it, the paper's
//! non-congestive host/NIC delay (§6.3, Fig. 13: "introduced at the bottleneck"). Every
//! delay sample, the RTO estimator and the ACK clock then see it, for every scheme alike,
//! and the samples get no extra noise. Replies may overtake each other, as a host's
//! processing can reorder them.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::Rng;
use crate::units::values::TimeVal;
use crate::units::Time;
use crate::workload::cdf::SizeCdf;

/// `[transport.delay_noise]`: absent = no noise.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayNoiseCfg {
    /// CDF file of the noise in nanoseconds (`x y` lines, as the flow-size CDFs), relative
    /// to the scenario file.
    #[serde(default)]
    pub cdf: Option<String>,
    /// Multiplies every sample from `cdf` (the paper's Fig. 10d sweeps 1×–4×).
    #[serde(default = "one")]
    pub scale: f64,
    /// Instead of a CDF: uniform noise in [0, this].
    #[serde(default)]
    pub uniform: Option<TimeVal>,
    /// Where the noise goes: added to the algorithms' samples, or held at the receiver.
    #[serde(default)]
    pub at: NoiseAt,
}

/// `transport.delay_noise.at` (module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseAt {
    /// Added to every delay sample the algorithms see; packets are not delayed.
    #[default]
    Samples,
    /// The receiving host holds each reply for a draw before queueing it.
    Receiver,
}

fn one() -> f64 {
    1.0
}

/// Where a flow's noise comes from.
#[derive(Clone, Debug)]
pub enum NoiseSource {
    Cdf { cdf: Arc<SizeCdf>, scale: f64 },
    Uniform(Time),
}

impl NoiseSource {
    /// Reads the configuration; `Err` names the field.
    pub fn from_cfg(c: &DelayNoiseCfg, base_dir: &std::path::Path) -> Result<NoiseSource, (&'static str, String)> {
        match (&c.cdf, c.uniform) {
            (Some(_), Some(_)) => Err(("uniform", "give either `cdf` or `uniform`, not both".into())),
            (None, None) => Err(("cdf", "required: a noise CDF file (ns), or `uniform = \"1us\"`".into())),
            (None, Some(max)) => Ok(NoiseSource::Uniform(max.0)),
            (Some(file), None) => {
                if !(c.scale >= 0.0 && c.scale.is_finite()) {
                    return Err(("scale", format!("{}: must be 0 or more", c.scale)));
                }
                let path = base_dir.join(file);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| ("cdf", format!("cannot read {}: {e}", path.display())))?;
                let cdf = SizeCdf::parse(&text).map_err(|e| ("cdf", format!("{}: {e}", path.display())))?;
                Ok(NoiseSource::Cdf { cdf: Arc::new(cdf), scale: c.scale })
            }
        }
    }
}

/// One flow's noise: its source and its own random stream.
pub struct DelayNoise {
    source: NoiseSource,
    rng: Rng,
}

impl DelayNoise {
    pub fn new(source: NoiseSource, seed: u64) -> Self {
        DelayNoise { source, rng: Rng::stream(seed, "delay-noise") }
    }

    /// The noise a receiving host holds replies for (`NoiseAt::Receiver`): its own stream.
    pub fn at_receiver(source: NoiseSource, seed: u64) -> Self {
        DelayNoise { source, rng: Rng::stream(seed, "reply-hold") }
    }

    pub fn sample(&mut self) -> Time {
        let u = self.rng.next_f64();
        match &self.source {
            NoiseSource::Cdf { cdf, scale } => Time::from_secs_f64(cdf.quantile(u) * scale * 1e-9),
            NoiseSource::Uniform(max) => max.mul_f64(u),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> NoiseSource {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let c = DelayNoiseCfg {
            cdf: Some("workloads/delay_noise_nic.cdf".into()),
            scale: 1.0,
            uniform: None,
            at: NoiseAt::Samples,
        };
        NoiseSource::from_cfg(&c, &dir).unwrap()
    }

    /// The shipped CDF against the paper's numbers (§4.3.2): mean ≈ 0.2 µs, 99.85th
    /// percentile ≈ 0.8 µs, nothing above 0.88 µs; `scale` multiplies every sample.
    #[test]
    fn shipped_nic_noise_matches_the_papers_quantiles() {
        let mut n = DelayNoise::new(shipped(), 7);
        let mut xs: Vec<f64> = (0..200_000).map(|_| n.sample().as_us_f64()).collect();
        xs.sort_by(f64::total_cmp);
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.2046).abs() < 0.005, "mean {mean}");
        let p9985 = xs[(0.9985 * xs.len() as f64) as usize];
        assert!((p9985 - 0.82).abs() < 0.03, "p99.85 {p9985}");
        assert!(*xs.last().unwrap() <= 0.88 + 1e-9);
        let NoiseSource::Cdf { cdf, .. } = shipped() else { unreachable!() };
        let mut doubled = DelayNoise::new(NoiseSource::Cdf { cdf, scale: 2.0 }, 7);
        let m2 = (0..200_000).map(|_| doubled.sample().as_us_f64()).sum::<f64>() / 200_000.0;
        assert!((m2 / mean - 2.0).abs() < 0.01, "{m2} vs 2 × {mean}");
    }

    #[test]
    fn uniform_noise_has_mean_half_its_range() {
        let mut n = DelayNoise::new(NoiseSource::Uniform(Time::from_us(60)), 1);
        let m = (0..100_000).map(|_| n.sample().as_us_f64()).sum::<f64>() / 100_000.0;
        assert!((m - 30.0).abs() < 0.3, "{m}");
    }

    #[test]
    fn cdf_and_uniform_together_are_refused() {
        let c = DelayNoiseCfg {
            cdf: Some("x".into()),
            scale: 1.0,
            uniform: Some(TimeVal(Time::from_us(1))),
            at: NoiseAt::Samples,
        };
        assert_eq!(NoiseSource::from_cfg(&c, std::path::Path::new(".")).unwrap_err().0, "uniform");
    }
}
