"""Sweeps: one base scenario, many points, run on local cores or a Dask cluster.

A sweep file (TOML) names a base scenario and the axes to vary::

    base = "quickstart.toml"          # a scenario file (relative to the sweep file) ...
    # [base] ...                      # ... or the scenario inline, as a table

    [axes]
    grid = { "transport.cc" = ["dctcp", "swift"], "workload.0.load" = [0.3, 0.6] }
    zip = { "topology.link_rate" = ["100Gbps", "400Gbps"], "switch.buffer" = ["1MB", "4MB"] }
    seeds = 3                         # seed = 1, 2, 3 for every other combination

``grid`` takes the Cartesian product of its lists; ``zip`` walks its lists in step (they
must have the same length) and is crossed with the grid; ``seeds = N`` sets ``seed``
from 1 to N. Keys are scenario paths as for ``dcnsim run --set`` (``workload.0.load`` is
the first ``[[workload]]``). Every point is resolved and validated by the core before
any runs, so a bad point fails the sweep up front, naming the point and the field.

Each point runs in its own worker process and writes its run directory under
``OUT/runs/<hash of the resolved scenario>/``; a point whose directory holds ``done.json``
is not run again, so rerunning an interrupted sweep completes only the missing points.
A point that raises or exceeds ``timeout`` is recorded with its error and the others go
on. ``OUT/flows.parquet`` (every flow of every point) and ``OUT/summary.parquet`` (one row
per point) carry the axis values as columns.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import signal
import sys
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence, Union

from dcnsim._ext import ScenarioError
from dcnsim._files import write_text_atomic
from dcnsim._inputs import allowed_dirs, check_inputs, check_path, check_point_count, read_spec_file
from dcnsim._outdir import ResultsSavedElsewhere, UsageError, check_out_dir, mark, write_or_save
from dcnsim._scenario import StrPath, scenario_json, set_path, tomllib

# ---------------------------------------------------------------------------------------
# Sweep files and points


@dataclass
class Point:
    """One resolved scenario of a sweep and the axis values that made it."""

    index: int
    axes: dict[str, Any]
    spec: dict[str, Any] = field(repr=False)
    key: str = ""

    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.axes.items())


def point_key(spec: dict[str, Any]) -> str:
    """Run directory name: a hash of the resolved scenario (its ``name`` aside)."""
    body = {k: v for k, v in spec.items() if k != "name"}
    return hashlib.sha256(scenario_json(body).encode()).hexdigest()[:16]


def load_sweep(
    source: Union[StrPath, dict[str, Any]], allow_dirs: Sequence[StrPath] = ()
) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """Read a sweep (file or dict): returns (base scenario, axes table, base directory).

    A ``base`` file must lie where a scenario's inputs may (:mod:`dcnsim._inputs`),
    relative to the sweep file's directory."""
    if isinstance(source, dict):
        sweep, root = source, Path.cwd()
    else:
        path = Path(source)
        text = read_spec_file(path, "sweep")
        try:
            sweep = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
        root = path.resolve().parent
    unknown = set(sweep) - {"base", "axes"}
    if unknown:
        raise ScenarioError(f"sweep: unknown key(s) {', '.join(sorted(unknown))}; allowed: base, axes")
    base = sweep.get("base")
    if isinstance(base, str):
        base_path = root / base
        check_path("sweep.base", base, root, allowed_dirs(root, allow_dirs))
        if not base_path.is_file():
            raise ScenarioError(f"sweep.base: {base_path} is not a file")
        text = read_spec_file(base_path, "scenario")
        try:
            base = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError(f"sweep.base: {base_path}: not valid TOML: {exc}") from None
        root = base_path.resolve().parent
    elif not isinstance(base, dict):
        raise ScenarioError("sweep.base: required, a scenario file path or an inline [base] table")
    axes = sweep.get("axes", {})
    if not isinstance(axes, dict):
        raise ScenarioError("sweep.axes: must be a table with grid, zip and/or seeds")
    return base, axes, root


def expand(base: dict[str, Any], axes: dict[str, Any]) -> list[Point]:
    """Every point of the sweep, in a stable order (grid, then zip, then seed)."""
    unknown = set(axes) - {"grid", "zip", "seeds"}
    if unknown:
        raise ScenarioError(f"sweep.axes: unknown key(s) {', '.join(sorted(unknown))}; allowed: grid, zip, seeds")
    grid = axes.get("grid", {})
    zipped = axes.get("zip", {})
    for name, table in (("grid", grid), ("zip", zipped)):
        if not isinstance(table, dict):
            raise ScenarioError(f"sweep.axes.{name}: must be a table of scenario path = [values]")
        for k, v in table.items():
            if not isinstance(v, list) or not v:
                raise ScenarioError(f"sweep.axes.{name}.{k}: must be a non-empty list of values")
    lengths = {len(v) for v in zipped.values()}
    if len(lengths) > 1:
        sizes = ", ".join(f"{k}: {len(v)}" for k, v in zipped.items())
        raise ScenarioError(f"sweep.axes.zip: the lists must have the same length ({sizes})")
    seeds = axes.get("seeds")
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1):
        raise ScenarioError(f"sweep.axes.seeds: {seeds!r}: allowed a whole number >= 1")
    clash = set(grid) & set(zipped)
    if clash or (seeds is not None and "seed" in set(grid) | set(zipped)):
        raise ScenarioError(f"sweep.axes: a key is varied twice ({', '.join(sorted(clash) or ['seed'])})")

    n_zip = lengths.pop() if lengths else 0
    # Counted before the product is built: ten axes of ten values would be 1e10 dicts.
    check_point_count([*(len(v) for v in grid.values()), n_zip or 1, seeds or 1])
    grid_points = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())] if grid else [{}]
    zip_points = [{k: v[i] for k, v in zipped.items()} for i in range(n_zip)] or [{}]
    seed_points = [{"seed": s} for s in range(1, seeds + 1)] if seeds else [{}]

    points = []
    for g, z, s in itertools.product(grid_points, zip_points, seed_points):
        values = {**g, **z, **s}
        spec = copy.deepcopy(base)
        index = len(points)
        for key, value in values.items():
            try:
                set_path(spec, key, copy.deepcopy(value))
            except ScenarioError as exc:
                raise ScenarioError(f"sweep point {index} ({_label(values)}): {exc}") from None
        points.append(Point(index, values, spec, point_key(spec)))
    return points


def _label(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "the base scenario"


def validate(points: Sequence[Point], base_dir: Path, allow_dirs: Sequence[StrPath] = ()) -> None:
    """Build every point in the core (no simulation), so a bad one fails before any runs;
    first check the files each names (an axis may vary them) against the allowed
    directories."""
    from dcnsim._ext import core

    roots = allowed_dirs(base_dir, allow_dirs)
    for p in points:
        try:
            check_inputs(p.spec, base_dir, roots=roots)
            core().Simulation(scenario_json(p.spec), str(base_dir))
        except ScenarioError as exc:
            raise ScenarioError(f"sweep point {p.index} ({p.label()}): {exc}") from None


# ---------------------------------------------------------------------------------------
# One point (runs in a worker process)


def run_point(spec: dict[str, Any], base_dir: str, run_dir: str, timeout: Optional[float]) -> dict[str, Any]:
    """Simulate one point into ``run_dir`` and return its summary row.

    Never raises for a failing simulation: the error (with its traceback) becomes the
    row's ``error`` and is written to ``run_dir/error.txt``. A run that exceeds
    ``timeout`` seconds of wall time stops there; what it simulated is written, marked
    incomplete.
    """
    from dcnsim._ext import core
    from dcnsim._result import Result

    out = Path(run_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    row: dict[str, Any] = {"status": "ok", "error": None}
    try:
        sim = core().Simulation(scenario_json(spec), base_dir)
        deadline = math.inf if timeout is None else started + timeout
        step, horizon = 10_000_000, sim.horizon_ps
        while True:
            target = min(sim.now_ps + step, 2**64 - 1 if horizon is None else horizon)
            began = time.perf_counter()
            if sim.run_until(target):
                break
            if time.perf_counter() >= deadline:
                row.update(status="timeout", error=f"timeout after {timeout} s of wall time")
                break
            spent = time.perf_counter() - began
            step = max(1, int(step * min(4.0, max(0.25, 0.15 / max(spent, 1e-4)))))
        result = Result.from_simulation(sim, wall_seconds=time.perf_counter() - started)
        try:
            write_or_save(out, lambda d: result.write(d, plots=False), result, what="point's results")
        except ResultsSavedElsewhere as exc:
            row.update(status="error", error=str(exc), complete=False)
        stats = result.summary.get("stats", {})
        row.update({k: stats.get(k) for k in ("events", "sim_time_us", "flows", "flows_finished", "drops",
                                               "timeouts", "retransmits")})
        row["complete"] = bool(result.complete)
        row["cct_us"] = result.summary["all"]["cct_us"]
    except Exception as exc:  # a point's failure is data, not the sweep's end
        row.update(status="error", error=f"{type(exc).__name__}: {exc}", complete=False)
        try:
            (out / "error.txt").write_text(traceback.format_exc())
        except OSError:
            pass  # the row carries the error
    row["wall_seconds"] = time.perf_counter() - started
    try:
        write_text_atomic(out / "done.json", json.dumps(row, default=str))
    except OSError:
        pass  # the parent records the row; without done.json the point runs again next time
    return row


# ---------------------------------------------------------------------------------------
# Executors: each takes (key, callable, args) jobs and yields (key, row) as they finish.

Job = tuple[str, Callable[..., dict[str, Any]], tuple[Any, ...]]

# How a point lost with its worker reads in the summary's error column.
_LOST = "the worker process died"


def _worker_init(parent: int) -> None:
    """A pool worker's start: ignore Ctrl-C (the parent's business: it stops the pool and
    keeps what finished) and end with the parent, even when the parent is killed
    (SIGKILL) and cannot stop the pool: on Linux the kernel sends SIGKILL to the worker
    when its parent dies (prctl PR_SET_PDEATHSIG); elsewhere a thread polls the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent(parent)


def end_with_parent(parent: int) -> None:
    """Make this process end when the process ``parent`` (its parent) ends."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)
    if not sys.platform.startswith("linux"):
        import threading

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="dcnsim-parent-watch", daemon=True).start()


def local_executor(jobs: int) -> Callable[[Sequence[Job]], Iterator[tuple[str, dict[str, Any]]]]:
    """A process pool of ``jobs`` workers. A worker that dies (a crash in native code)
    takes down the pool: the points that were unfinished then run again, and a point
    caught in two such crashes runs alone, so only the point that crashes is failed."""

    def run(todo: Sequence[Job]) -> Iterator[tuple[str, dict[str, Any]]]:
        crashes: dict[str, int] = {}
        shared = [j for j in todo]
        while shared:
            suspects = [j for j in shared if crashes.get(j[0], 0) >= 2]
            batch = [j for j in shared if crashes.get(j[0], 0) < 2]
            shared = []
            # Suspects run one to a pool; the rest share one.
            for group, workers in ([(batch, jobs)] if batch else []) + [([j], 1) for j in suspects]:
                unfinished = yield from _pool_round(group, workers)
                for job in unfinished:
                    crashes[job[0]] = crashes.get(job[0], 0) + 1
                    if workers == 1 and len(group) == 1:
                        yield job[0], {"status": "error", "complete": False,
                                       "error": f"{_LOST} (a crash in native code, or killed)"}
                    else:
                        shared.append(job)

    return run


def _pool_round(group: Sequence[Job], workers: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Runs ``group`` on a fresh pool, yielding results; returns the jobs lost to a dead
    worker (the pool cannot tell which one died)."""
    # Spawned, not forked: forking a process that runs threads (a Dask client, a GUI,
    # pyarrow's pools) can deadlock the child.
    # The workers are started by this (the calling) thread, which lives until the pool is
    # shut down: PR_SET_PDEATHSIG fires when the thread that started the child ends.
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),),
                               mp_context=multiprocessing.get_context("spawn"))
    futures = {pool.submit(fn, *args): (key, fn, args) for key, fn, args in group}
    lost: list[Job] = []
    try:
        remaining = set(futures)
        while remaining:
            done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    row = fut.result()
                except BrokenProcessPool:
                    lost.append(futures[fut])
                    continue
                except Exception as exc:  # the point function itself raised
                    row = {"status": "error", "complete": False, "error": f"{type(exc).__name__}: {exc}"}
                yield futures[fut][0], row
    except BaseException:
        _terminate(pool)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    if lost:
        _terminate(pool)
    pool.shutdown(wait=not lost, cancel_futures=True)
    return lost


def _terminate(pool: ProcessPoolExecutor) -> None:
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.is_alive():
            proc.terminate()


# How long the client waits for a Dask scheduler to answer before giving up.
DASK_CONNECT_SECONDS = 10.0


def check_dask_address(address: str) -> None:
    """Raise UsageError unless ``address`` is ``local`` or a scheduler address Dask can
    parse (``tcp://host:port``, ``tls://...``, ``host:port``)."""
    if address == "local":
        return
    try:
        from distributed.comm import addressing
    except ImportError:  # pragma: no cover - depends on the installation
        raise UsageError("--dask needs the 'distributed' package: pip install 'dask[distributed]'") from None
    try:
        addressing.get_address_host_port(address, strict=False)
    except (ValueError, TypeError, ImportError) as exc:
        raise UsageError(f"--dask {address!r}: not a scheduler address ({exc}); allowed: 'local' or "
                         "SCHEME://HOST:PORT such as tcp://scheduler:8786") from None


def dask_executor(address: str, jobs: int) -> Callable[[Sequence[Job]], Iterator[tuple[str, dict[str, Any]]]]:
    """Dask distributed: ``address`` is a scheduler (``tcp://host:8786``) or ``local`` for
    a LocalCluster of ``jobs`` single-threaded worker processes on this machine. A
    malformed address, or a scheduler that does not answer within
    ``DASK_CONNECT_SECONDS``, raises UsageError before any point runs."""
    check_dask_address(address)
    from distributed import Client, LocalCluster, as_completed

    def run(todo: Sequence[Job]) -> Iterator[tuple[str, dict[str, Any]]]:
        cluster = None
        if address == "local":
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout=DASK_CONNECT_SECONDS)
            except (OSError, TimeoutError) as exc:
                raise UsageError(f"--dask {address}: no Dask scheduler answered within {DASK_CONNECT_SECONDS:g} s "
                                 f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no reply'})"
                                 ) from None
        try:
            futures = {client.submit(fn, *args, key=f"dcnsim-{key}", pure=False): key for key, fn, args in todo}
            for fut in as_completed(list(futures)):
                key = futures[fut]
                try:
                    yield key, fut.result()
                except Exception as exc:  # a lost worker or a killed task
                    lost = f"{_LOST} (Dask: " if type(exc).__name__ == "KilledWorker" else ""
                    error = f"{lost}{type(exc).__name__}: {exc}{')' if lost else ''}"
                    yield key, {"status": "error", "complete": False, "error": error}
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return run


# ---------------------------------------------------------------------------------------
# The sweep


@dataclass
class SweepResult:
    """Merged tables of a sweep. ``flows``: every flow of every finished point, with the
    axis values and ``point`` (the run directory name) as columns; ``summary``: one row
    per point with its status, error and counters. ``complete`` is False when the sweep
    was interrupted or a point failed."""

    flows: Any
    summary: Any
    out: Path
    complete: bool


def sweep(
    source: Union[StrPath, dict[str, Any]],
    out: StrPath,
    *,
    jobs: Optional[int] = None,
    dask: Optional[str] = None,
    timeout: Optional[float] = None,
    fresh: bool = False,
    progress: bool = True,
    stream: Any = sys.stderr,
    allow_dirs: Sequence[StrPath] = (),
) -> SweepResult:
    """Run a sweep (a TOML file or the same structure as a dict) into ``out``.

    ``jobs`` workers (default: the number of CPUs) run the points, locally or, with
    ``dask`` (a scheduler address or ``"local"``), on Dask. Points already complete in
    ``out`` are skipped unless ``fresh``. Returns the merged tables, also written as
    ``out/flows.parquet`` and ``out/summary.parquet``. Files named by the sweep and its
    points must lie in the sweep's directory tree, a ``workloads/`` directory,
    ``allow_dirs`` or ``$DCNSIM_ALLOW_DIRS``; a sweep has at most 10,000 points
    (:mod:`dcnsim._inputs`).

    ``out`` is checked first (:class:`dcnsim.OutputError` for a file, a directory that
    cannot be written or a run's directory) and ``dask`` too (:class:`dcnsim.UsageError`
    for a malformed address or a scheduler that does not answer within 10 s). When
    points fail or their workers die, the result has ``complete=False``, a
    :class:`dcnsim.SweepIncompleteWarning` says how many, and the summary keeps every
    metric column (NaN for those points). Local workers end with this process, even when
    it is killed with SIGKILL (Dask's LocalCluster workers do so by themselves).

    >>> import dcnsim
    >>> res = dcnsim.sweep("examples/sweep_tiny.toml", "results/sweep-tiny", jobs=2)  # doctest: +SKIP
    >>> res.summary.groupby("transport.cc")["slowdown_p99"].mean()  # doctest: +SKIP
    """
    base, axes, base_dir = load_sweep(source, allow_dirs)
    out_dir = check_out_dir(out, "sweep", option="out")
    if dask:
        check_dask_address(dask)
    points = expand(base, axes)
    validate(points, base_dir, allow_dirs)
    runs = out_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    mark(out_dir, "sweep")
    jobs = jobs or os.cpu_count() or 1

    todo: list[Point] = []
    for p in points:
        if fresh or not (runs / p.key / "done.json").is_file():
            todo.append(p)
        elif json.loads((runs / p.key / "done.json").read_text()).get("status") != "ok":
            todo.append(p)  # a failed or timed-out point is tried again
    seen: set[str] = set()
    unique = [p for p in todo if not (p.key in seen or seen.add(p.key))]  # type: ignore[func-returns-value]
    if progress:
        print(f"sweep: {len(points)} points, {len(points) - len(todo)} already done, {len(unique)} to run on "
              f"{'Dask ' + dask if dask else f'{jobs} local worker' + ('s' if jobs != 1 else '')}",
              file=stream, flush=True)

    executor = dask_executor(dask, jobs) if dask else local_executor(jobs)
    job_list: list[Job] = [(p.key, run_point, (p.spec, str(base_dir), str(runs / p.key), timeout)) for p in unique]
    by_key = {p.key: p for p in unique}
    bar = _Bar(len(unique), stream) if progress else None
    interrupted = False
    got: dict[str, dict[str, Any]] = {}
    try:
        for key, row in executor(job_list):
            got[key] = row
            if row.get("status") != "ok" and not (runs / key / "done.json").is_file():
                try:
                    (runs / key).mkdir(parents=True, exist_ok=True)
                    write_text_atomic(runs / key / "done.json", json.dumps(row, default=str))
                except OSError:
                    pass  # the row is merged from memory below; the point runs again next time
            if bar is not None:
                bar.step(by_key[key], row)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    result = merge(points, out_dir, interrupted, got)
    if interrupted:
        raise SweepInterrupted(result)
    _warn_if_incomplete(result)
    return result


class SweepIncompleteWarning(UserWarning):
    """Some points of a sweep did not finish: its ``complete`` is False."""


def _warn_if_incomplete(result: SweepResult) -> None:
    import warnings

    s = result.summary
    failed = s[s["status"] != "ok"] if len(s) else s
    if not len(failed):
        return
    died = int(failed["error"].astype(str).str.contains(_LOST, regex=False).sum())
    why = f", {died} of them lost with a worker process that died" if died else ""
    warnings.warn(f"sweep: {len(failed)} of {len(s)} points did not finish{why}; complete=False, their metric "
                  "columns are NaN (see the summary's status and error columns)", SweepIncompleteWarning,
                  stacklevel=3)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep; :attr:`result` holds the merged tables of what finished."""

    def __init__(self, result: SweepResult) -> None:
        super().__init__("sweep interrupted")
        self.result = result


def merge(points: Sequence[Point], out_dir: Path, interrupted: bool = False,
          rows_now: Optional[dict[str, dict[str, Any]]] = None) -> SweepResult:
    """Merge the points' run directories into ``flows.parquet`` and ``summary.parquet``
    (``rows_now``: the rows this sweep got, for points whose ``done.json`` is missing)."""
    import pandas as pd

    flow_tables, rows = [], []
    for p in points:
        run = out_dir / "runs" / p.key
        done = run / "done.json"
        row: dict[str, Any] = {"point": p.key, "index": p.index, **p.axes}
        if done.is_file():
            row.update(json.loads(done.read_text()))
        elif rows_now and p.key in rows_now:
            row.update(rows_now[p.key])
        else:
            row.update(status="not run", complete=False, error=None)
        summary_file = run / "summary.json"
        if row["status"] in ("ok", "timeout") and summary_file.is_file():
            s = json.loads(summary_file.read_text())
            slow = s.get("all", {}).get("slowdown", {}) or {}
            fct = s.get("all", {}).get("fct_us", {}) or {}
            row.update(slowdown_p50=slow.get("p50"), slowdown_p99=slow.get("p99"),
                       fct_p50_us=fct.get("p50"), fct_p99_us=fct.get("p99"))
            flows_file = run / "flows.parquet"
            if flows_file.is_file():
                f = pd.read_parquet(flows_file)
                for k, v in reversed(list(p.axes.items())):
                    f.insert(0, k, [v] * len(f))
                f.insert(0, "point", p.key)
                flow_tables.append(f)
        rows.append(row)
    summary = pd.DataFrame(rows)
    # Every metric column exists even when no point finished: NaN for the points without one.
    for column in METRIC_COLUMNS:
        if column not in summary:
            summary[column] = float("nan")
    flows = pd.concat(flow_tables, ignore_index=True) if flow_tables else pd.DataFrame()
    complete = not interrupted and bool(len(summary)) and bool((summary["status"] == "ok").all())
    result = SweepResult(flows=flows, summary=summary, out=out_dir, complete=complete)

    def write(where: Path) -> None:
        if where != out_dir:
            mark(where, "sweep")
        for name, table in (("summary", summary), ("flows", flows)):
            tmp = where / f".{name}.parquet.tmp"
            _parquet_safe(table).to_parquet(tmp, index=False)
            os.replace(tmp, where / f"{name}.parquet")

    write_or_save(out_dir, write, result, what="merged tables")
    return result


# The summary's per-point numbers (besides the axes, point, index, status and error).
METRIC_COLUMNS = ("complete", "events", "sim_time_us", "flows", "flows_finished", "drops", "timeouts", "retransmits",
                  "cct_us", "wall_seconds", "slowdown_p50", "slowdown_p99", "fct_p50_us", "fct_p99_us")


def _parquet_safe(table: Any) -> Any:
    # An axis may hold mixed types (numbers and strings); Parquet needs one type a column.
    t = table.copy()
    for col in t.columns:
        if t[col].dtype == object:
            kinds = {type(v) for v in t[col] if v is not None}
            if len(kinds) > 1 or kinds & {dict, list}:
                t[col] = [None if v is None else (json.dumps(v) if isinstance(v, (dict, list)) else str(v))
                          for v in t[col]]
    return t


class _Bar:
    """Points done, failures and ETA on stderr (redrawn on a terminal, a line per point
    elsewhere)."""

    def __init__(self, total: int, stream: Any) -> None:
        self.total, self.done, self.failed = total, 0, 0
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.start = time.perf_counter()

    def step(self, point: Point, row: dict[str, Any]) -> None:
        self.done += 1
        if row.get("status") != "ok":
            self.failed += 1
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        width = 24
        filled = round(width * self.done / max(self.total, 1))
        line = (f"[{'#' * filled}{'-' * (width - filled)}] {self.done}/{self.total} points"
                f"{f', {self.failed} failed' if self.failed else ''}  elapsed {_secs(elapsed)}  ETA {_secs(eta)}")
        note = "" if row.get("status") == "ok" else f"\n  point {point.index} ({point.label()}): {row.get('error')}"
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K" + (note + "\n" if note else ""))
        else:
            self.stream.write(line + note + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _secs(s: float) -> str:
    s = max(0.0, s)
    return f"{s:.0f}s" if s < 60 else f"{int(s // 60)}m{int(s % 60):02d}s"
