//! `dcnsim._core`: the thin PyO3 layer over the dcnsim library. It builds a simulation
//! from the scenario JSON the Python package prepares, runs it in chunks with the GIL
//! released (so Ctrl-C and progress bars work between chunks), and hands results back as
//! plain columns. Everything else lives in Rust (`crates/dcnsim`) or Python (`python/dcnsim`).

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use dcnsim::stats::{Column, Table};

create_exception!(
    dcnsim._core,
    ScenarioError,
    PyValueError,
    "A scenario failed validation; the message names the field."
);

#[pyclass(unsendable, module = "dcnsim._core")]
struct Simulation {
    inner: dcnsim::Simulation,
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &t.columns {
        match col {
            Column::I64(v) => d.set_item(name, v)?,
            Column::F64(v) => d.set_item(name, v)?,
            Column::Bool(v) => d.set_item(name, v)?,
            Column::Str(v) => d.set_item(name, v)?,
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
        Ok(Simulation { inner })
    }

    /// Advances simulated time to `t_ps` picoseconds; returns True once the run has ended.
    fn run_until(&mut self, py: Python<'_>, t_ps: u64) -> bool {
        let sim = &mut self.inner;
        // The simulation is `unsendable` to Python, but running it on this same thread
        // without the GIL is safe: nothing else can touch it meanwhile.
        struct SendPtr(*mut dcnsim::Simulation);
        unsafe impl Send for SendPtr {}
        let ptr = SendPtr(sim as *mut _);
        py.detach(move || {
            let p = ptr;
            // SAFETY: `p` points at `self.inner`, borrowed mutably for this whole call.
            let sim = unsafe { &mut *p.0 };
            sim.run_until(dcnsim::Time(t_ps))
        })
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.inner.now().ps()
    }

    #[getter]
    fn horizon_ps(&self) -> Option<u64> {
        self.inner.duration.map(|d| d.ps())
    }

    #[getter]
    fn finished(&self) -> bool {
        self.inner.is_done()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.inner.events_processed()
    }

    #[getter]
    fn packets(&self) -> u64 {
        self.inner.packets()
    }

    #[getter]
    fn flows_total(&self) -> usize {
        self.inner.flows.len()
    }

    #[getter]
    fn flows_finished(&self) -> u32 {
        self.inner.flows_finished()
    }

    #[getter]
    fn description(&self) -> String {
        self.inner.description.clone()
    }

    fn resolved_json(&self) -> String {
        self.inner.resolved_json.clone()
    }

    fn flows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_to_dict(py, &self.inner.flow_table())
    }

    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, t) in self.inner.timeseries() {
            d.set_item(name, table_to_dict(py, &t)?)?;
        }
        Ok(d)
    }

    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.inner.stats() {
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
