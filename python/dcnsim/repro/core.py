"""The machinery every paper reproduction (``dcnsim reproduce <paper>``) shares.

A reproduction is a list of *cells*: one scenario (a dict, after ``--set`` style
overrides) each. :func:`run_cells` runs the ones not yet cached on a process pool, caches
every finished run as ``<out>/cache/<key>.json`` (the key hashes the resolved scenario,
the dcnsim version and the compiled core, see :func:`run_key`), prints progress with an
ETA, and on Ctrl-C stops the pool and returns what finished. A cell is any object with
``key``, ``spec``, ``progress_label()`` (one line of progress) and ``cache_meta()`` (what
the cache file records beside the run); :class:`dcnsim.repro.cells.Cell` is the one the
papers share.

:func:`drive` is the skeleton every harness shares: resolve the options, build the cells,
run them, evaluate and group the results, write ``table.md`` (header, one block per
figure or experiment, the paper-wide checks), ``runs.csv`` and the figures. A harness
describes its paper as a :class:`Reproduction`, whose hooks hold only what is specific to
that paper.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generic, Optional, Protocol, Sequence, TypeVar

from dcnsim._files import write_text_atomic
from dcnsim._outdir import check_out_dir, mark


def find_experiments(name: str, probe: str) -> Path:
    """``experiments/<name>`` of the source tree (or ``$DCNSIM_EXPERIMENTS/<name>``): the
    first candidate holding the file ``probe``."""
    candidates = []
    if os.environ.get("DCNSIM_EXPERIMENTS"):
        candidates.append(Path(os.environ["DCNSIM_EXPERIMENTS"]) / name)
    candidates.append(Path(__file__).resolve().parents[3] / "experiments" / name)
    candidates.append(Path.cwd() / "experiments" / name)
    for c in candidates:
        if (c / probe).is_file():
            return c
    raise FileNotFoundError(
        f"experiments/{name} not found (looked in " + ", ".join(str(c) for c in candidates)
        + "); set DCNSIM_EXPERIMENTS to the experiments directory"
    )


def run_settings(seeds: Optional[int], default_seeds: int, jobs: Optional[int], out: Optional[str],
                 paper: str) -> tuple[int, int, Path]:
    """The seeds, worker count and output directory of a reproduction, from its options."""
    n_seeds = seeds if seeds is not None else default_seeds
    if n_seeds < 1:
        raise ValueError("--seeds must be at least 1")
    n_jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    return n_seeds, n_jobs, Path(out) if out else Path("results") / f"reproduce-{paper}"


# ---------------------------------------------------------------------------------------
# Cache keys


def run_key(spec: dict[str, Any], fingerprint: str) -> str:
    """Cache key: the resolved scenario (its ``name`` aside, which does not change the
    simulation), the dcnsim version and the compiled core."""
    from dcnsim import __version__

    body = {k: v for k, v in spec.items() if k != "name"}
    text = json.dumps({"scenario": body, "version": __version__, "core": fingerprint}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def core_fingerprint() -> str:
    """A hash of the compiled extension, so a rebuilt core does not reuse stale runs."""
    try:
        import dcnsim._core as core_module

        data = Path(core_module.__file__).read_bytes()  # type: ignore[arg-type]
        return hashlib.sha256(data).hexdigest()[:16]
    except (ImportError, OSError, TypeError):
        return "unknown"


# ---------------------------------------------------------------------------------------
# One run

_FIRST_STEP_PS = 10_000_000
_TARGET_CALL_SECONDS = 0.15


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):
        return _plain(value.item())
    return value


def simulate(spec: dict[str, Any], base_dir: str, columns: Sequence[str],
             cap_us: Optional[float] = None, summarize: Optional[Callable[[Any], dict[str, Any]]] = None,
             ) -> dict[str, Any]:
    """Run one scenario to its end (or to ``cap_us`` of simulated time) and return the
    compact record the cache keeps: completion, times, the core's counters and the flow
    table's ``columns``, plus ``summarize(sim)`` as ``extra`` when given (a module-level
    function, so it reaches pool workers: e.g. a few numbers from the time series)."""
    from dcnsim._ext import ScenarioError, core
    from dcnsim._scenario import scenario_json

    started = time.perf_counter()
    try:
        sim = core().Simulation(scenario_json(spec), base_dir)
    except ScenarioError as exc:
        return {"error": str(exc), "wall_seconds": time.perf_counter() - started}
    cap_ps = int(cap_us * 1e6) if cap_us is not None else 2**64 - 1
    step = _FIRST_STEP_PS
    done = False
    while not done and sim.now_ps < cap_ps:
        began = time.perf_counter()
        done = sim.run_until(min(sim.now_ps + step, cap_ps))
        spent = time.perf_counter() - began
        step = max(1, int(step * min(4.0, max(0.25, _TARGET_CALL_SECONDS / max(spent, 1e-4)))))
    flows = sim.flows()
    record = {
        "complete": bool(sim.finished),
        "capped": not done,
        "sim_time_us": sim.now_ps / 1e6,
        "wall_seconds": time.perf_counter() - started,
        "stats": {k: _plain(v) for k, v in sim.stats().items()},
        "flows": {c: [_plain(v) for v in flows[c]] for c in columns},
    }
    if summarize is not None:
        record["extra"] = {k: _plain(v) for k, v in summarize(sim).items()}
    return record




def fmt_secs(s: float) -> str:
    s = max(0.0, s)
    if s < 60:
        return f"{s:.0f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, allow_nan=False))


# ---------------------------------------------------------------------------------------
# Many runs


class CellLike(Protocol):
    key: str
    spec: dict[str, Any]

    def progress_label(self) -> str: ...

    def cache_meta(self) -> dict[str, Any]: ...


def run_cells(
    cells: Sequence[CellLike], cache_dir: Path, base_dir: Path, jobs: int, columns: Sequence[str],
    cap_us: Optional[float] = None, stream: Any = sys.stderr, dask: Optional[str] = None,
    summarize: Optional[Callable[[Any], dict[str, Any]]] = None,
) -> tuple[dict[str, dict[str, Any]], bool]:
    """Run every cell not in the cache; return {key: record} and whether Ctrl-C stopped it.
    ``summarize`` goes to :func:`simulate` for every run.

    The runs go to the sweep machinery's executors (``dcnsim._sweep``): a local process
    pool of ``jobs`` workers, or Dask when ``dask`` names a scheduler (or ``"local"``)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    records: dict[str, dict[str, Any]] = {}
    todo: dict[str, CellLike] = {}
    for cell in cells:
        if cell.key in records or cell.key in todo:
            continue
        path = cache_dir / f"{cell.key}.json"
        if path.is_file():
            try:
                records[cell.key] = json.loads(path.read_text())["record"]
                continue
            except (ValueError, KeyError):
                pass  # a damaged cache file is simply run again
        todo[cell.key] = cell
    total = len(records) + len(todo)
    where = f"Dask {dask}" if dask else f"{jobs} worker{'s' if jobs != 1 else ''}"
    print(f"reproduce: {total} distinct runs, {len(records)} cached, {len(todo)} to run on {where}",
          file=stream, flush=True)
    if not todo:
        return records, False

    started = time.perf_counter()
    done_here = 0

    def finished(key: str, record: dict[str, Any]) -> None:
        nonlocal done_here
        cell = todo[key]
        if "wall_seconds" not in record:  # the executor lost the run (a dead worker): not cached
            record = {**record, "wall_seconds": 0.0}
        else:
            write_json_atomic(cache_dir / f"{key}.json",
                              {"key": key, **cell.cache_meta(), "scenario": cell.spec, "record": record})
        records[key] = record
        done_here += 1
        elapsed = time.perf_counter() - started
        eta = elapsed / done_here * (len(todo) - done_here)
        state = "error" if "error" in record else ("UNFINISHED" if not record["complete"] else "")
        print(
            f"[{len(records):>4}/{total}] {cell.progress_label()} {record['wall_seconds']:5.1f}s {state:<10} "
            f"elapsed {fmt_secs(elapsed)}  ETA {fmt_secs(eta)}",
            file=stream, flush=True,
        )

    interrupted = False
    if jobs <= 1 and not dask:
        try:
            for key, cell in todo.items():
                finished(key, simulate(cell.spec, str(base_dir), columns, cap_us, summarize))
        except KeyboardInterrupt:
            interrupted = True
    else:
        from dcnsim._sweep import dask_executor, local_executor

        executor = dask_executor(dask, jobs) if dask else local_executor(jobs)
        job_list = [(key, simulate, (cell.spec, str(base_dir), tuple(columns), cap_us, summarize))
                    for key, cell in todo.items()]
        try:
            for key, record in executor(job_list):
                finished(key, record)
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        print(f"interrupted: {done_here} of {len(todo)} runs finished; writing the table from what finished",
              file=stream, flush=True)
    return records, interrupted


# ---------------------------------------------------------------------------------------
# Pieces of the harnesses' tables


# ---------------------------------------------------------------------------------------
# The driver

C = TypeVar("C", bound=CellLike)
R = TypeVar("R")  # a run's result, as a harness evaluates it
G = TypeVar("G")  # what a harness groups its results into, per figure or experiment


@dataclass(frozen=True)
class Settings:
    """What one invocation asked for, resolved: the hooks that group and report read it."""

    quick: bool
    keys: list[str]  # the selected figures or experiments (``--only``), in the paper's order
    seeds: int  # ``--seeds``, or the paper's default for the mode


class _ExperimentCell(Protocol):
    exp: str


class _ExperimentResult(Protocol):
    @property
    def cell(self) -> _ExperimentCell: ...


E = TypeVar("E", bound=_ExperimentResult)


def per_experiment(grid: Callable[[str, list[E]], G]) -> Callable[[Settings, list[E]], dict[str, G]]:
    """The ``grids`` hook of a paper whose every cell belongs to one experiment
    (``cell.exp``): ``grid(key, its results)`` for each selected experiment with results."""

    def grids(settings: Settings, results: list[E]) -> dict[str, G]:
        runs = {key: [r for r in results if r.cell.exp == key] for key in settings.keys}
        return {key: grid(key, rs) for key, rs in runs.items() if rs}

    return grids


@dataclass(frozen=True)
class Outcome(Generic[C, R, G]):
    """What the runs gave: everything the table hooks may read."""

    settings: Settings
    cells: list[C]
    results: list[R]  # one per cell with a record (cached or run now), in cell order
    grids: dict[str, G]  # per selected key, what its block and the checks read
    interrupted: bool  # Ctrl-C stopped the runs: the results are a part


@dataclass(frozen=True)
class Reproduction(Generic[C, R, G]):
    """One paper's evaluation, as the hooks :func:`drive` calls.

    The hooks are plain functions, so a harness keeps them at module level where its
    tests reach them; ``summarize`` must be module level anyway, to reach pool workers.
    """

    paper: str  # the name on the command line; results go to results/reproduce-<paper> by default
    seeds: int  # seeds per cell when --seeds is not given
    quick_seeds: int  # the same in --quick
    select: Callable[[Optional[str]], list[str]]  # --only (None: everything) -> keys; ValueError if unknown
    experiments_dir: Callable[[], Path]  # the scenario files, and the base of their relative paths
    cells: Callable[[list[str], int, bool, Path, str], list[C]]  # (keys, seeds, quick, exp_dir, core fingerprint)
    flow_columns: Sequence[str]  # the flow table columns a record keeps
    evaluate: Callable[[C, dict[str, Any]], R]  # a cell and its record -> its result
    grids: Callable[[Settings, list[R]], dict[str, G]]  # the results, grouped per key
    header: Callable[[Outcome[C, R, G]], list[str]]  # the lines above the first block
    block: Callable[[str, Outcome[C, R, G]], Optional[str]]  # a key's block; None: it has no finished runs
    runs_columns: Sequence[str]  # runs.csv: its header
    run_row: Callable[[R], list[Any]]  # and a result's line
    figures: Callable[[Path, dict[str, G]], Any]  # the PNGs
    # Paper-wide blocks, (heading, text): checks, orderings, ours beside the paper's numbers.
    checks: Callable[[Outcome[C, R, G]], list[tuple[str, str]]] = lambda outcome: []
    checks_first: bool = False  # the paper-wide blocks before the per-key ones, not after
    heading: str = "{key}"  # a per-key block's heading
    cap_us: Optional[float] = None  # a run stops unfinished at this simulated time
    summarize: Optional[Callable[[Any], dict[str, Any]]] = None  # see simulate
    runs_noun: str = "runs"  # how the closing line counts the results
    # A second pass: once the cells have run, the cells to add (say more seeds for the noisy
    # ones), from the settings, the results so far, exp_dir and the core fingerprint. Not
    # asked when Ctrl-C stopped the first pass.
    more_cells: Optional[Callable[[Settings, list[R], Path, str], list[C]]] = None


def drive(
    repro: Reproduction[C, R, G], *, quick: bool = False, seeds: Optional[int] = None, jobs: Optional[int] = None,
    only: Optional[str] = None, out: Optional[str] = None, stream: Any = sys.stderr, dask: Optional[str] = None,
) -> tuple[int, str]:
    """Run the selected part of a paper's evaluation and write the results; return (exit
    code, table text). The options are those of ``dcnsim reproduce``."""
    keys = repro.select(only)
    n_seeds, n_jobs, out_dir = run_settings(seeds, repro.quick_seeds if quick else repro.seeds, jobs, out,
                                            repro.paper)
    exp_dir = repro.experiments_dir()
    fingerprint = core_fingerprint()
    started = time.perf_counter()
    cells = repro.cells(keys, n_seeds, quick, exp_dir, fingerprint)
    check_out_dir(out_dir, "reproduction")  # a run's or a sweep's directory is refused (OutputError)
    out_dir.mkdir(parents=True, exist_ok=True)
    mark(out_dir, "reproduction")
    records, interrupted = run_cells(cells, out_dir / "cache", exp_dir, n_jobs, repro.flow_columns, repro.cap_us,
                                     stream, dask=dask, summarize=repro.summarize)
    results = [repro.evaluate(c, records[c.key]) for c in cells if c.key in records]
    settings = Settings(quick, keys, n_seeds)
    extra = repro.more_cells(settings, results, exp_dir, fingerprint) if repro.more_cells and not interrupted else []
    if extra:
        more, interrupted = run_cells(extra, out_dir / "cache", exp_dir, n_jobs, repro.flow_columns, repro.cap_us,
                                      stream, dask=dask, summarize=repro.summarize)
        records.update(more)
        cells = cells + list(extra)
        results = [repro.evaluate(c, records[c.key]) for c in cells if c.key in records]
    outcome = Outcome(settings, cells, results, repro.grids(settings, results), interrupted)
    return _write_files(repro, outcome, out_dir, started, stream)


def _table(repro: Reproduction[C, R, G], outcome: Outcome[C, R, G]) -> str:
    """``table.md``: the header, then a block per selected key and the paper-wide blocks,
    each fenced under its own ``##`` heading."""
    header = repro.header(outcome)
    if outcome.interrupted:
        header.append("INTERRUPTED: the table covers only the runs that finished.")
    per_key = []
    for key in outcome.settings.keys:
        text = repro.block(key, outcome)
        per_key.append(f"## {repro.heading.format(key=key)}\n\n"
                       + (f"```\n{text}\n```" if text is not None else "no finished runs"))
    paper_wide = [f"## {heading}\n\n```\n{text}\n```" for heading, text in repro.checks(outcome)]
    blocks = paper_wide + per_key if repro.checks_first else per_key + paper_wide
    return "\n\n".join(["\n".join(header), *blocks]) + "\n"


def _write_files(repro: Reproduction[C, R, G], outcome: Outcome[C, R, G], out_dir: Path, started: float,
                 stream: Any) -> tuple[int, str]:
    """Writes ``table.md``, ``runs.csv`` and the figures (a plotting problem never loses
    the table) and returns (exit code, table): 130 when Ctrl-C cut the runs short."""
    table = _table(repro, outcome)
    (out_dir / "table.md").write_text(table)
    with (out_dir / "runs.csv").open("w", newline="") as f:
        runs = csv.writer(f)
        runs.writerow(repro.runs_columns)
        runs.writerows(repro.run_row(r) for r in outcome.results)
    try:
        repro.figures(out_dir, outcome.grids)
    except Exception as exc:
        print(f"note: plots not written: {exc}", file=stream)
    print(f"reproduce: {len(outcome.results)} {repro.runs_noun} in {fmt_secs(time.perf_counter() - started)}; "
          f"wrote {out_dir / 'table.md'}, {out_dir / 'runs.csv'} and the figures", file=stream, flush=True)
    return (130 if outcome.interrupted else 0), table
