"""Running a simulation: the chunked run loop, the progress bar and Ctrl-C handling."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, TextIO, Union

from dcnsim import _fmt
from dcnsim._ext import core
from dcnsim._inputs import check_inputs
from dcnsim._outdir import ResultsSavedElsewhere, check_out_dir, write_or_save
from dcnsim._result import Result
from dcnsim._scenario import StrPath, apply_overrides, load_scenario, scenario_json

# Wall time aimed for per `run_until` call. The core releases the GIL while it runs and
# Python only sees Ctrl-C between calls, so calls must be short to stay responsive; the
# per-call overhead (a few microseconds) is negligible at this length.
_TARGET_CALL_SECONDS = 0.15
# First simulated step when nothing is known yet about the run's speed: 10 us.
_FIRST_STEP_PS = 10_000_000
# Simulated time is a u64 of picoseconds in the core.
_MAX_PS = 2**64 - 1
# Without a terminal (logs, CI), print a progress line this often instead of redrawing.
_LOG_EVERY_SECONDS = 10.0


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; :attr:`result` holds what was simulated until then.

    It is a KeyboardInterrupt so that code which does not know about it stops as usual,
    while code that does can still keep the partial result (``result.complete`` is False).
    """

    def __init__(self, result: Result, write_error: Optional[str] = None) -> None:
        super().__init__("simulation interrupted")
        self.result = result
        # Set when the partial result could not be written to ``out``: says where it went.
        self.write_error = write_error


def run(
    scenario: Union[StrPath, dict[str, Any]],
    *,
    overrides: Iterable[str] = (),
    out: Optional[StrPath] = None,
    progress: bool = False,
    plots: bool = False,
    base_dir: Optional[StrPath] = None,
    allow_dirs: Sequence[StrPath] = (),
) -> Result:
    """Simulate a scenario and return its :class:`Result`.

    ``scenario`` is a TOML file path or an already parsed scenario dict; ``overrides`` are
    ``key=value`` strings as for ``dcnsim run --set`` (see :func:`apply_overrides`).
    Relative file paths inside the scenario are resolved against ``base_dir``, which
    defaults to the scenario file's directory (or the working directory for a dict).
    The files the scenario names must lie inside that directory's tree, a
    ``workloads/`` directory, ``allow_dirs`` or ``$DCNSIM_ALLOW_DIRS`` (the rule is in
    :mod:`dcnsim._inputs`); others are refused with a ScenarioError before anything runs.
    With ``out`` the result directory is written too, and with ``plots`` its PNG plots
    (:meth:`Result.write`); with ``progress`` a progress bar goes to stderr. ``out`` is checked before simulating (:class:`dcnsim.OutputError`
    for a file, a directory that cannot be written, or a sweep's or a reproduction's
    directory). When writing fails after the simulation finished, the result is saved
    to a fresh ``<out>.saved-<n>`` beside it and :class:`dcnsim.ResultsSavedElsewhere`
    says where (its ``result`` and ``saved_to`` attributes hold the result and the path).

    On Ctrl-C the run stops at the end of the current step, the partial result is
    written to ``out`` if given, and :class:`RunInterrupted` (a KeyboardInterrupt
    carrying the partial result) is raised.

    >>> import dcnsim
    >>> result = dcnsim.run("examples/quickstart.toml", overrides=["seed=2"])  # doctest: +SKIP
    >>> result.flows.groupby("tag")["slowdown"].median()  # doctest: +SKIP
    """
    if isinstance(scenario, dict):
        spec, root = apply_overrides(scenario, overrides), Path.cwd()
    else:
        spec, root = load_scenario(scenario, overrides)
    if base_dir is not None:
        root = Path(base_dir)

    check_inputs(spec, root, allow_dirs)
    if out is not None:
        out = check_out_dir(out, "run", option="out")
    started = time.perf_counter()
    sim = core().Simulation(scenario_json(spec), str(root))
    interrupted = False
    try:
        drive(sim, progress=progress)
    except KeyboardInterrupt:
        interrupted = True
    result = Result.from_simulation(sim, wall_seconds=time.perf_counter() - started)
    if out is None:
        if interrupted:
            raise RunInterrupted(result)
        return result
    try:
        write_or_save(Path(out), lambda d: result.write(d, plots=plots), result)
    except ResultsSavedElsewhere as exc:
        if interrupted:
            raise RunInterrupted(result, str(exc)) from None
        raise
    if interrupted:
        raise RunInterrupted(result)
    return result


def drive(sim: Any, *, progress: bool = False) -> None:
    """Advance ``sim`` until it is finished, in calls of about 0.15 s of wall time each.

    How much simulated time fits in that budget changes by orders of magnitude within a
    run (an idle fabric before flows start, then a congested one), so the simulated step
    is re-estimated after every call from the wall time the last one took, changing by
    at most 4x per call so that one odd call cannot throw it far off.
    """
    bar = _Progress(sim) if progress else None
    horizon: Optional[int] = sim.horizon_ps
    step = _FIRST_STEP_PS
    try:
        while True:
            target = min(sim.now_ps + step, _MAX_PS if horizon is None else horizon)
            began = time.perf_counter()
            done = sim.run_until(target)
            spent = time.perf_counter() - began
            if bar is not None:
                bar.update()
            if done:
                return
            factor = min(4.0, max(0.25, _TARGET_CALL_SECONDS / max(spent, 1e-4)))
            step = max(1, int(step * factor))
    finally:
        if bar is not None:
            bar.close()


class _Progress:
    """Progress of a running simulation on stderr.

    The fraction done is simulated time over the scenario's duration when it has one,
    else finished flows over all flows. On a terminal the line is redrawn in place after
    every step; elsewhere (log files, CI) a line is printed every 10 s.
    """

    _WIDTH = 24

    def __init__(self, sim: Any, stream: TextIO = sys.stderr) -> None:
        self._sim = sim
        self._stream = stream
        self._tty = stream.isatty()
        self._start = time.perf_counter()
        self._last_print = float("-inf")

    def update(self) -> None:
        now = time.perf_counter()
        if self._tty:
            self._stream.write("\r" + self._line(now) + "\x1b[K")
        elif now - self._last_print >= _LOG_EVERY_SECONDS:
            self._stream.write(self._line(now) + "\n")
        else:
            return
        self._last_print = now
        self._stream.flush()

    def close(self) -> None:
        line = self._line(time.perf_counter())
        self._stream.write(("\r" + line + "\x1b[K" if self._tty else line) + "\n")
        self._stream.flush()

    def _line(self, now: float) -> str:
        sim = self._sim
        horizon = sim.horizon_ps
        total = sim.flows_total
        if horizon:
            fraction = sim.now_ps / horizon
            sim_time = f"{_fmt.duration_us(sim.now_ps / 1e6)} / {_fmt.duration_us(horizon / 1e6)}"
        else:
            fraction = sim.flows_finished / total if total else 0.0
            sim_time = _fmt.duration_us(sim.now_ps / 1e6)
        fraction = min(max(fraction, 0.0), 1.0)
        filled = round(fraction * self._WIDTH)
        bar = "#" * filled + "-" * (self._WIDTH - filled)
        rate = sim.events / max(now - self._start, 1e-9)
        return (
            f"{fraction:6.1%} [{bar}] sim {sim_time}  flows {sim.flows_finished}/{total}"
            f"  {_fmt.si(rate)} events/s"
        )
