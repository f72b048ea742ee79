"""Type stub of ``dcnsim._core``, the compiled extension (crates/dcnsim-py/src/lib.rs).

The thin layer over the Rust core: a :class:`Simulation` built from the scenario JSON the
Python package prepares (``dcnsim._scenario.scenario_json``), run in chunks with the GIL
released, and read back as plain columns. Tables come back as ``{column: values}``: a
list of ints, floats, bools or strings per column, or ``(codes, levels)`` for a
categorical column (the Python side makes it a pandas Categorical).
"""

from typing import Optional, Union

__version__: str

# One column of a table: plain values, or a categorical's (codes, levels).
_Column = Union[list[int], list[float], list[bool], list[str], tuple[list[int], list[str]]]
_Table = dict[str, _Column]

class ScenarioError(ValueError):
    """A scenario failed validation; the message names the field."""

class SimulationPanic(RuntimeError):
    """The simulator core panicked (a bug in dcnsim); the message names the scenario,
    seed, simulated time and the panic's own message. The interpreter is unharmed; the
    simulation that panicked cannot be advanced further, but its flows so far can be
    read."""

class Simulation:
    """The core simulation. Safe to hand to other threads: each call holds its lock
    briefly, and :meth:`run_until` holds it while the GIL is released.

    Every method that runs the core raises :class:`SimulationPanic` on a panic in it.
    """

    def __init__(self, scenario_json: str, base_dir: str) -> None:
        """Builds the simulation of a scenario (its JSON); relative paths in it (flow
        files, CDFs, topology files) are read from ``base_dir``. Raises
        :class:`ScenarioError` for an invalid scenario."""

    def run_until(self, t_ps: int) -> bool:
        """Advances simulated time to ``t_ps`` picoseconds; returns True once the run has
        ended."""

    def _panic_at_for_test(self, t_ps: int) -> None:
        """Test hook, not API: make :meth:`run_until` panic once it would pass ``t_ps``."""

    @property
    def now_ps(self) -> int:
        """The simulated time, picoseconds."""

    @property
    def horizon_ps(self) -> Optional[int]:
        """The scenario's ``duration`` in picoseconds, or None without one."""

    @property
    def finished(self) -> bool:
        """Whether the run has ended."""

    @property
    def events(self) -> int:
        """Events processed so far."""

    @property
    def packets(self) -> int:
        """Data and ACK packets created so far."""

    @property
    def flows_total(self) -> int:
        """Flows in the scenario."""

    @property
    def flows_finished(self) -> int:
        """Flows finished so far."""

    @property
    def description(self) -> str:
        """A human-readable description of the topology, for summaries."""

    def candidate_paths(self, flow: int) -> list[list[int]]:
        """The flow's candidate paths (``rps``, ``laps``, ``conga``, ``conweave``), each as node
        ids from its source host to its destination host; empty when the flow is not
        source-routed. ValueError for a flow id out of range."""

    def ooo_histogram_kb(self) -> Optional[list[int]]:
        """LAPS's reorder-buffer samples by KB held, or None for the schemes without one."""

    def resolved_json(self) -> str:
        """The scenario with every default filled in, as JSON."""

    def flows(self) -> _Table:
        """The flow table: one row per flow."""

    def timeseries(self) -> Optional[_Table]:
        """The time series in long form (``time_us, kind, id, metric, value``), or None
        when the run samples nothing."""

    def ports(self) -> _Table:
        """One row per port: its id, name, nodes, tier, rate and state."""

    def trace_events(self) -> Optional[_Table]:
        """The packet trace's event log, or None without ``[trace]``."""

    def pfc_events(self) -> Optional[_Table]:
        """Every PFC PAUSE and RESUME as it reached its upstream port (``time_us, port,
        class, event``), or None without PFC."""

    def pcap(self) -> Optional[bytes]:
        """The packet trace's capture (a pcap file's bytes), or None without ``[trace]``."""

    def stats(self) -> dict[str, Union[int, float]]:
        """The run's counters and summary numbers: whole numbers as ints, the others as
        floats."""
