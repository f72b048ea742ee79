//! Helpers shared by the behavioural tests.
#![allow(dead_code)]

use dcnsim::{Simulation, Time};

pub fn sim(toml: &str) -> Simulation {
    dcnsim::from_toml(toml, std::path::Path::new(".")).unwrap_or_else(|e| panic!("scenario rejected: {e}"))
}

pub fn build_err(toml: &str) -> String {
    match dcnsim::from_toml(toml, std::path::Path::new(".")) {
        Ok(_) => panic!("scenario unexpectedly accepted:\n{toml}"),
        Err(e) => e.0,
    }
}

/// Jain's fairness index of `x`.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

pub fn us(t: Time) -> f64 {
    t.as_us_f64()
}
