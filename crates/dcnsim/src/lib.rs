//! dcnsim: a packet-level simulator of datacenter networks for congestion-control and
//! load-balancing research. See the repository README for the scenario format and
//! `docs/architecture.md` for the architecture.
//!
//! ```no_run
//! let scenario = dcnsim::Scenario::from_toml(&std::fs::read_to_string("examples/quickstart.toml").unwrap()).unwrap();
//! let mut sim = dcnsim::build(&scenario, std::path::Path::new("examples")).unwrap();
//! sim.run();
//! println!("{} events", sim.events_processed());
//! ```

pub mod build;
pub mod cc;
pub mod conga;
pub mod conweave;
pub mod engine;
pub mod eqds;
pub mod error;
pub mod fault;
/// Checks shared by the fuzz targets and their corpus replay test (issue 10).
#[doc(hidden)]
pub mod fuzzing;
pub mod laps;
pub mod lb;
pub mod net;
pub mod noise;
pub mod observe;
pub mod paths;
pub mod prefetch;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod topology;
pub mod topology_file;
pub mod trace;
pub mod transport;
pub mod units;
pub mod workload;

pub use build::build;
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;
pub use units::{Rate, Time};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Parses TOML text and builds the simulation; relative file paths resolve against `base_dir`.
pub fn from_toml(text: &str, base_dir: &std::path::Path) -> Result<Simulation, ScenarioError> {
    build(&Scenario::from_toml(text)?, base_dir)
}
