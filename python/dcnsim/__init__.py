"""dcnsim: a packet-level simulator of datacenter networks.

A scenario (a TOML file, or the same structure as a dict) describes the fabric, the
workload and the transport; :func:`run` simulates it and returns a :class:`Result` with
per-flow completion times as a pandas DataFrame, sampled time series and a summary.

>>> import dcnsim
>>> result = dcnsim.run("examples/quickstart.toml", overrides=["transport.cc=swift"])  # doctest: +SKIP
>>> result.flows[["tag", "size", "fct_us", "slowdown"]].head()  # doctest: +SKIP
>>> result.summary["all"]["slowdown"]["p99"]  # doctest: +SKIP
>>> result.write("results/quickstart-swift")  # doctest: +SKIP
>>> dcnsim.report("results/quickstart-swift")  # an HTML page of plots  # doctest: +SKIP
>>> dcnsim.export_hpcc("results/quickstart-swift")  # fct.txt etc. as HPCC's ns-3 writes them  # doctest: +SKIP

The same from a shell: ``dcnsim run examples/quickstart.toml --set transport.cc=swift``.
"""

from typing import Any

from dcnsim._export_hpcc import HpccExport, export_hpcc
from dcnsim._ext import ScenarioError, SimulationPanic, __version__
from dcnsim._outdir import OutputError, ResultsSavedElsewhere, UsageError
from dcnsim._result import Result
from dcnsim._run import RunInterrupted, run
from dcnsim._scenario import apply_overrides, load_scenario

# Sweeps (multiprocessing, concurrent.futures) and the report page are imported when
# first named, so that `import dcnsim` and a plain `dcnsim run` do not pay for them.
_LAZY = {
    "ReportError": ("dcnsim._report", "ReportError"),
    "report": ("dcnsim._report", "write_report"),
    "SweepIncompleteWarning": ("dcnsim._sweep", "SweepIncompleteWarning"),
    "SweepInterrupted": ("dcnsim._sweep", "SweepInterrupted"),
    "SweepResult": ("dcnsim._sweep", "SweepResult"),
    "sweep": ("dcnsim._sweep", "sweep"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'dcnsim' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "HpccExport",
    "OutputError",
    "Result",
    "ReportError",
    "ResultsSavedElsewhere",
    "RunInterrupted",
    "ScenarioError",
    "SimulationPanic",
    "SweepIncompleteWarning",
    "SweepInterrupted",
    "SweepResult",
    "UsageError",
    "__version__",
    "apply_overrides",
    "export_hpcc",
    "load_scenario",
    "report",
    "run",
    "sweep",
]
