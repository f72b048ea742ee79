//! The integration tests, as one test crate: each module was once its own test binary,
//! and every binary links the whole simulator, so one crate builds in a fraction of the time.

mod common;

mod ack_policy;
mod aqm;
mod bad_input;
mod candidate_paths;
mod coflow;
mod d2tcp;
mod dctcp_bottleneck;
mod delay_noise;
mod eqds;
mod faults;
mod flow_balancers;
mod flows_priority;
mod fuzz_corpus;
mod hpcc_bottleneck;
mod htsim_triggers;
mod ideal_fct;
mod incast;
mod inflight_cap;
mod laps;
mod ledbat_bottleneck;
mod mprdma;
mod mswift_fabric;
mod multi_homed;
mod newreno_mathis;
mod nscc_a10;
mod nscc_input;
mod observe;
mod onoff_traffic;
mod parallel;
mod pfc;
mod prioplus_bottleneck;
mod prioplus_staircase;
mod properties;
mod robustness;
mod rocev2;
mod smartt_scenarios;
mod source_routing;
mod spraying_collapse;
mod swift_bottleneck;
mod topology_file;
mod training;
mod trimming;
mod windowed_all_to_all;
