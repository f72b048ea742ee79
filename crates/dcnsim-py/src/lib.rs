//! `dcnsim._core`: the thin PyO3 layer over the dcnsim library. It builds a simulation
//! from the scenario JSON the Python package prepares, runs it in chunks with the GIL
//! released (so Ctrl-C and progress bars work between chunks), and hands results back as
//! plain columns. Everything else lives in Rust (`crates/dcnsim`) or Python (`python/dcnsim`).
//!
//! A panic in the core (a bug) never reaches the interpreter as pyo3's `PanicException`,
//! which derives from `BaseException`: `except Exception` would miss it, so a sweep worker
//! or a notebook cell could not treat it as one failed run. Every call into the core
//! catches it and raises [`SimulationPanic`] (a `RuntimeError`) whose message says what was
//! running: the scenario, its seed, the simulated time and the events so far.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use dcnsim::stats::{Column, Table};

create_exception!(
    dcnsim._core,
    ScenarioError,
    PyValueError,
    "A scenario failed validation; the message names the field."
);

create_exception!(
    dcnsim._core,
    SimulationPanic,
    PyRuntimeError,
    "The simulator core panicked (a bug in dcnsim); the message names the scenario, seed, \
     simulated time and the panic's own message. The interpreter is unharmed; the \
     simulation that panicked cannot be advanced further, but its flows so far can be read."
);

/// The text a panic carried (`panic!("...")` gives a `&str` or a `String`).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".to_string())
}

/// Runs `f`, turning a panic into [`SimulationPanic`] prefixed with `context()`.
fn guarded<T>(context: impl FnOnce() -> String, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(SimulationPanic::new_err(format!("{}: {}", context(), panic_text(&*payload)))),
    }
}

/// The core simulation. Python may hand it to any thread (Dask runs tasks on worker
/// threads and may drop objects on its event loop), so it sits behind a mutex: each call
/// holds it briefly, and `run_until` holds it while the GIL is released.
#[pyclass(module = "dcnsim._core")]
struct Simulation {
    inner: Mutex<dcnsim::Simulation>,
    /// `scenario 'NAME' (seed S)`, for the message of a panic.
    label: String,
    /// Test hook (`_panic_at_for_test`): panic inside `run_until` once simulated time
    /// reaches this many picoseconds.
    panic_at_ps: Mutex<Option<u64>>,
}

impl Simulation {
    fn sim(&self) -> MutexGuard<'_, dcnsim::Simulation> {
        // A panic inside the core poisons the lock; the state it left is still what the
        // caller asks about (counters, flows so far), so read through the poison.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What was running, for a panic's message; read through a poisoned lock, since the
    /// panic that poisoned it is the one being reported.
    fn context(&self, doing: &str) -> String {
        let sim = self.sim();
        format!(
            "simulator panic while {doing} {} at sim time {} ps after {} events",
            self.label,
            sim.now().ps(),
            sim.events_processed()
        )
    }

    /// Refuses to advance a simulation that panicked: its state is whatever the panic
    /// left half-updated, and results computed from it would look valid.
    fn check_not_poisoned(&self) -> PyResult<()> {
        if self.inner.is_poisoned() {
            return Err(SimulationPanic::new_err(format!(
                "{}: a previous call panicked; this simulation cannot be advanced (its flows so far can still be read)",
                self.context("resuming")
            )));
        }
        Ok(())
    }
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &t.columns {
        match col {
            Column::I64(v) => d.set_item(name, v)?,
            Column::F64(v) => d.set_item(name, v)?,
            Column::Bool(v) => d.set_item(name, v)?,
            Column::Str(v) => d.set_item(name, v)?,
            // A categorical column as (codes, levels); Python makes a pandas Categorical.
            Column::Cat { codes, levels } => d.set_item(name, (codes, levels))?,
        }
    }
    Ok(d)
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(scenario_json: &str, base_dir: &str) -> PyResult<Self> {
        let scenario = dcnsim::Scenario::from_json(scenario_json).map_err(|e| ScenarioError::new_err(e.0))?;
        let label = format!("scenario {:?} (seed {})", scenario.name, scenario.seed);
        let inner = guarded(
            || format!("simulator panic while building {label}"),
            || dcnsim::build(&scenario, Path::new(base_dir)).map_err(|e| ScenarioError::new_err(e.0)),
        )?;
        Ok(Simulation { inner: Mutex::new(inner), label, panic_at_ps: Mutex::new(None) })
    }

    /// Advances simulated time to `t_ps` picoseconds; returns True once the run has ended.
    fn run_until(&self, py: Python<'_>, t_ps: u64) -> PyResult<bool> {
        self.check_not_poisoned()?;
        let panic_at = *self.panic_at_ps.lock().unwrap_or_else(|p| p.into_inner());
        // The GIL is released while the core runs, so other Python threads (a progress
        // bar, a Dask worker's event loop) keep going. The panic is caught inside the
        // closure so the lock is poisoned exactly as by a panic in the core.
        py.detach(|| {
            guarded(
                || self.context("running"),
                || {
                    let mut sim = self.sim();
                    match panic_at {
                        Some(at) if at <= t_ps => {
                            sim.run_until(dcnsim::Time(at));
                            panic!("test panic requested by _panic_at_for_test({at})");
                        }
                        _ => Ok(sim.run_until(dcnsim::Time(t_ps))),
                    }
                },
            )
        })
    }

    /// Test hook, not API: make `run_until` panic once it would pass `t_ps`, so tests
    /// can check what a panic in the core turns into without a bug to trigger it.
    fn _panic_at_for_test(&self, t_ps: u64) {
        *self.panic_at_ps.lock().unwrap_or_else(|p| p.into_inner()) = Some(t_ps);
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.sim().end_time().ps()
    }

    #[getter]
    fn horizon_ps(&self) -> Option<u64> {
        self.sim().duration.map(|d| d.ps())
    }

    #[getter]
    fn finished(&self) -> bool {
        self.sim().is_done()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.sim().events_processed()
    }

    #[getter]
    fn packets(&self) -> u64 {
        self.sim().packets()
    }

    #[getter]
    fn flows_total(&self) -> usize {
        self.sim().flows.len()
    }

    #[getter]
    fn flows_finished(&self) -> u32 {
        self.sim().flows_finished()
    }

    /// Flow `flow`'s candidate paths (source-routed balancers), each as node ids from its
    /// source host to its destination host; empty when the flow is not source-routed.
    fn candidate_paths(&self, flow: u32) -> PyResult<Vec<Vec<u32>>> {
        let sim = self.sim();
        if flow as usize >= sim.flows.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "flow: {flow}: allowed 0 to {} (flow ids in workload order)",
                sim.flows.len().saturating_sub(1)
            )));
        }
        Ok(sim.candidate_paths(flow))
    }

    /// LAPS's reorder-buffer samples by KB held (`Simulation::ooo_histogram_kb`), or None.
    fn ooo_histogram_kb(&self) -> Option<Vec<u64>> {
        self.sim().ooo_histogram_kb().map(|h| h.to_vec())
    }

    #[getter]
    fn description(&self) -> String {
        self.sim().description.clone()
    }

    fn resolved_json(&self) -> String {
        self.sim().resolved_json.clone()
    }

    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let table = guarded(|| self.context("tabulating flows of"), || Ok(self.sim().flow_table()))?;
        table_to_dict(py, &table)
    }

    /// The time series in long form (`time_us, kind, id, metric, value`), or None when
    /// the run samples nothing.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let table = guarded(|| self.context("tabulating the time series of"), || Ok(self.sim().timeseries()))?;
        table.map(|t| table_to_dict(py, &t)).transpose()
    }

    /// One row per port: its id, name, nodes, tier, rate and state.
    fn ports<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let table = guarded(|| self.context("tabulating ports of"), || Ok(self.sim().ports_table()))?;
        table_to_dict(py, &table)
    }

    /// The packet trace's event log, or None without `[trace]`.
    fn trace_events<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.sim().trace_table().map(|t| table_to_dict(py, &t)).transpose()
    }

    /// Every PFC PAUSE and RESUME as it reached its upstream port, or None without PFC.
    fn pfc_events<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.sim().pfc_events_table().map(|t| table_to_dict(py, &t)).transpose()
    }

    /// The packet trace's capture (a pcap file's bytes), or None without `[trace]`.
    fn pcap<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.sim().pcap().map(|b| PyBytes::new(py, &b))
    }

    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let stats = guarded(|| self.context("computing stats of"), || Ok(self.sim().stats()))?;
        for (k, v) in stats {
            if v.fract() == 0.0 && v.abs() < 9e15 {
                d.set_item(k, v as i64)?;
            } else {
                d.set_item(k, v)?;
            }
        }
        Ok(d)
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", dcnsim::VERSION)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationPanic", m.py().get_type::<SimulationPanic>())?;
    m.add_class::<Simulation>()?;
    Ok(())
}
