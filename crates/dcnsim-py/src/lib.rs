//! `dcnsim._core`: the thin PyO3 layer over the dcnsim library. It builds a simulation
//! from the scenario JSON the Python package prepares, runs it in chunks with the GIL
//! released (so Ctrl-C and progress bars work between chunks), and hands results back as
//! plain columns. Everything else lives in Rust (`crates/dcnsim`) or Python (`python/dcnsim`).

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use dcnsim::stats::{Column, Table};

create_exception!(
    dcnsim._core,
    ScenarioError,
    PyValueError,
    "A scenario failed validation; the message names the field."
);

/// The core simulation. Python may hand it to any thread (Dask runs tasks on worker
/// threads and may drop objects on its event loop), so it sits behind a mutex: each call
/// holds it briefly, and `run_until` holds it while the GIL is released.
#[pyclass(module = "dcnsim._core")]
struct Simulation {
    inner: Mutex<dcnsim::Simulation>,
}

impl Simulation {
    fn sim(&self) -> MutexGuard<'_, dcnsim::Simulation> {
        // A panic inside the core poisons the lock; the state it left is still what the
        // caller asks about (counters, flows so far), so read through the poison.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
        let inner = dcnsim::build(&scenario, Path::new(base_dir)).map_err(|e| ScenarioError::new_err(e.0))?;
        Ok(Simulation { inner: Mutex::new(inner) })
    }

    /// Advances simulated time to `t_ps` picoseconds; returns True once the run has ended.
    fn run_until(&self, py: Python<'_>, t_ps: u64) -> bool {
        // The GIL is released while the core runs, so other Python threads (a progress
        // bar, a Dask worker's event loop) keep going.
        py.detach(|| self.sim().run_until(dcnsim::Time(t_ps)))
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.sim().now().ps()
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

    #[getter]
    fn description(&self) -> String {
        self.sim().description.clone()
    }

    fn resolved_json(&self) -> String {
        self.sim().resolved_json.clone()
    }

    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, &self.sim().flow_table())
    }

    /// The time series in long form (`time_us, kind, id, metric, value`), or None when
    /// the run samples nothing.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.sim().timeseries().map(|t| table_to_dict(py, &t)).transpose()
    }

    /// One row per port: its id, name, nodes, tier, rate and state.
    fn ports<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, &self.sim().ports_table())
    }

    /// The packet trace's event log, or None without `[trace]`.
    fn trace_events<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.sim().trace_table().map(|t| table_to_dict(py, &t)).transpose()
    }

    /// The packet trace's capture (a pcap file's bytes), or None without `[trace]`.
    fn pcap<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.sim().pcap().map(|b| PyBytes::new(py, &b))
    }

    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.sim().stats() {
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
    m.add_class::<Simulation>()?;
    Ok(())
}
