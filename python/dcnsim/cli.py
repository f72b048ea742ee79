"""The ``dcnsim`` command: ``run`` a scenario, ``sweep`` many, ``report`` a result directory
as an HTML page, ``export`` a run in another simulator's file layout, ``bench`` the fixed
benchmark scenarios, ``soak`` one long run for flat memory, ``reproduce`` a paper.

Exit codes: 0 success, 1 a benchmark, soak or sweep point failed, 2 bad input (scenario
error, missing file, refused input or output path, Dask address, size limit; printed as
``error: ...`` without a traceback, before anything is simulated), 3 the simulator core
panicked (a bug; ``error: simulator panic ...``), 4 writing the results failed after the
simulation (they were saved to a fresh directory that the error names), 130 interrupted
by Ctrl-C (SIGINT), 143 stopped by SIGTERM. On 130 and 143 ``run`` and ``sweep`` have
written what finished, marked incomplete.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional, Sequence

from dcnsim import _fmt
from dcnsim._ext import ScenarioError, SimulationPanic, __version__
from dcnsim._inputs import default_out_name
from dcnsim._outdir import ResultsSavedElsewhere, UsageError, check_out_dir
from dcnsim._result import Result
from dcnsim._run import RunInterrupted, run
from dcnsim._scenario import load_scenario
from dcnsim.repro.registry import PAPERS


class _Terminated(KeyboardInterrupt):
    """SIGTERM, delivered like Ctrl-C so that ``run`` and ``sweep`` keep what finished."""


# The signal that stopped the command, for its exit code (128 + signal number).
_stopped_by: Optional[int] = None


def _on_sigterm(signum: int, frame: Any) -> None:
    global _stopped_by
    _stopped_by = signum
    # A second SIGTERM while the partial results are being written kills at once, as
    # a second Ctrl-C would be expected to.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise _Terminated()


def _interrupted_code() -> int:
    """130 after Ctrl-C, 143 after SIGTERM: the shell's 128 + signal number."""
    return 128 + (_stopped_by or signal.SIGINT)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the ``dcnsim`` console script; returns the exit code."""
    global _stopped_by
    args = _parser().parse_args(argv)
    _stopped_by = None
    # Python's default for SIGTERM is to die without unwinding, losing the partial
    # results that Ctrl-C keeps; batch schedulers and `timeout` send SIGTERM. Handlers
    # can only be set from the main thread (main() called from a worker thread keeps
    # the default).
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM)
    if in_main:
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return args.command(args)
    except (ScenarioError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ResultsSavedElsewhere as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    except SimulationPanic as exc:
        print(f"error: {exc}\nThis is a bug in dcnsim: please report it with the scenario and the command.",
              file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("interrupted" if _stopped_by is None else "terminated (SIGTERM)", file=sys.stderr)
        return _interrupted_code()
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dcnsim", description="Packet-level datacenter network simulator."
    )
    parser.add_argument("--version", action="version", version=f"dcnsim {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    run_cmd = commands.add_parser(
        "run", help="simulate a scenario and write its result directory",
        description="Simulate a scenario file and write its flows, time series and summary to a directory "
        "(PNG plots with --plots, the HTML report page with --report).",
    )
    run_cmd.add_argument("file", metavar="FILE", help="scenario TOML file")
    run_cmd.add_argument("--out", metavar="DIR", help="result directory (default: results/<scenario name>)")
    run_cmd.add_argument(
        "--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
        help="override a scenario field, e.g. --set topology.hosts=128 --set workload.0.size=4MB (repeatable); "
        "missing tables are created, an inline table merges into the table there, KEY:=VALUE replaces it whole",
    )
    run_cmd.add_argument("--allow-dir", dest="allow_dirs", metavar="DIR", action="append", default=[],
                         help="also let the scenario read files (CDFs, flow lists, topologies) under DIR; by default "
                         "only its own directory tree and workloads/ directories (repeatable; or DCNSIM_ALLOW_DIRS)")
    run_cmd.add_argument("--threads", type=_positive_int, metavar="N",
                         help="run the simulation on N threads (the scenario's `threads`; the results are the "
                         "same with any number; docs/models/parallel.md)")
    run_cmd.add_argument("--quiet", action="store_true", help="no progress bar and no summary table")
    run_cmd.add_argument("--plots", action="store_true",
                         help="also draw the PNG plots: DIR/fct_cdf.png, slowdown_by_size.png, timeseries_*.png")
    run_cmd.add_argument("--report", action="store_true",
                         help="also write DIR/report.html, the interactive report page (see `dcnsim report`)")
    run_cmd.set_defaults(command=_run_command)

    report_cmd = commands.add_parser(
        "report", help="write the HTML report page of a run or sweep directory",
        description="Write one self-contained HTML file (Plotly and the data inlined: it opens offline) with "
        "interactive plots of a result directory. A run's page: summary table, FCT CDF and slowdown by flow "
        "size per workload, CCT, queue depth by port over time, congestion windows, host-link utilisation, "
        "the topology coloured by queue depth, and the resolved scenario. A sweep's page compares its "
        "points (FCT CDF, slowdown by size and CCT per point, seeds pooled) beside the table of points. "
        "Plots whose data the directory lacks (no time series sampled, no flow finished) are replaced by a "
        "note saying why.",
    )
    report_cmd.add_argument("dir", metavar="RESULT_DIR",
                            help="a directory written by `dcnsim run` or `dcnsim sweep`")
    report_cmd.add_argument("--out", metavar="FILE", help="the HTML file (default: RESULT_DIR/report.html)")
    report_cmd.set_defaults(command=_report_command)

    export_cmd = commands.add_parser(
        "export", help="write a run's results in another simulator's file layout",
        description="Write a run directory's results as another simulator's output files, so that its "
        "analysis scripts read them unchanged. --format hpcc: the HPCC ns-3 simulator's fct.txt (finished "
        "flows), pfc.txt (PFC frames, from runs with [switch.pfc]) and qlen.txt (switch queue-length "
        "histograms, from runs with [observe] sampling the queue metric); a file the run has no data for is "
        "skipped with a note saying what the run needs (docs/formats.md, \"HPCC output files\").",
    )
    export_cmd.add_argument("dir", metavar="RESULT_DIR", help="a directory written by `dcnsim run`")
    export_cmd.add_argument("--format", metavar="FORMAT", help="the layout: hpcc")
    export_cmd.add_argument("--out", metavar="DIR", help="where the files go (default: RESULT_DIR/hpcc)")
    export_cmd.add_argument("--qlen-dump", metavar="TIME", default=None,
                            help="hpcc: how often qlen.txt gets a block of cumulative histograms, e.g. 100us "
                            "(default 1ms; \"end\": once, at the last sample)")
    export_cmd.set_defaults(command=_export_command)

    sweep_cmd = commands.add_parser(
        "sweep", help="run a sweep: a base scenario over grid/zip/seed axes",
        description="Expand a sweep file (base scenario + axes), validate every point, run them on local "
        "worker processes or a Dask cluster, and merge the results into OUT/flows.parquet and "
        "OUT/summary.parquet. Points already complete in OUT are skipped, so an interrupted sweep resumes.",
    )
    sweep_cmd.add_argument("file", metavar="FILE", help="sweep TOML file (base = scenario, [axes])")
    sweep_cmd.add_argument("--out", metavar="DIR", required=True, help="sweep directory")
    sweep_cmd.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: number of CPUs)")
    sweep_cmd.add_argument("--dask", metavar="ADDRESS",
                           help="run on Dask distributed: a scheduler address (tcp://host:8786) or 'local' "
                           "for a LocalCluster of --jobs worker processes")
    sweep_cmd.add_argument("--timeout", type=float, metavar="SECONDS",
                           help="wall-time limit per point; a point over it is recorded as timed out")
    sweep_cmd.add_argument("--allow-dir", dest="allow_dirs", metavar="DIR", action="append", default=[],
                           help="also let the sweep read files (CDFs, flow lists, topologies) under DIR; by default "
                           "only its own directory tree and workloads/ directories (repeatable; or DCNSIM_ALLOW_DIRS)")
    sweep_cmd.add_argument("--fresh", action="store_true", help="run every point again, even those already done")
    sweep_cmd.set_defaults(command=_sweep_command)

    bench_cmd = commands.add_parser(
        "bench", help="time the benchmark scenarios",
        description="Run each *.toml in a directory in its own process and report wall time, "
        "events/s, simulated packets/s and peak RSS.",
    )
    bench_cmd.add_argument("--dir", default="benches", help="directory of scenarios (default: benches)")
    bench_cmd.add_argument("--only", metavar="SUBSTR", help="only scenarios whose file name contains SUBSTR")
    bench_cmd.add_argument("--repeat", type=_positive_int, default=1, metavar="N",
                           help="run each scenario N times and report the fastest (wall time on a "
                                "shared machine varies between runs; the simulation must not: a "
                                "scenario whose events or FCTs differ between runs fails)")
    bench_cmd.add_argument("--threads", type=_thread_list, default=None, metavar="N[,N...]",
                           help="run each scenario on each of these thread counts (e.g. 1,2) and print the "
                           "speed-up of each against the first; the FCTs must be the same on every count")
    bench_cmd.add_argument("--save", metavar="FILE", help="also write the figures as JSON (for a later --compare)")
    bench_cmd.add_argument("--compare", metavar="OLD.json",
                           help="print each scenario's ratio against a run saved with --save (wall, events/s, "
                           "peak RSS) and whether its events and FCTs changed")
    bench_cmd.add_argument("--sweeps", action="store_true",
                           help="instead, time each sweep in DIR/sweeps/ with 1 and with 2 local workers and "
                           "report the speed-up")
    bench_cmd.set_defaults(command=_bench_command)

    soak_cmd = commands.add_parser(
        "soak", help="one long run: check that memory stays flat after warm-up",
        description="Run one long scenario (default: Poisson web-search flows at 60 %% load on a 128-host fat "
        "tree, benches/soak/) and sample events, wall time and resident memory (RSS) at every tenth of its "
        "simulated duration. Fails (exit 1) when RSS at 100 %% exceeds RSS at 10 %% (after warm-up) by more "
        "than the tolerance.",
    )
    soak_cmd.add_argument("file", metavar="FILE", nargs="?", help="scenario TOML file (default: the soak scenario)")
    size = soak_cmd.add_mutually_exclusive_group()
    size.add_argument("--size", choices=["ci", "nightly"], default="ci",
                      help="ci: 20 ms simulated, ~8e7 events; nightly: 300 ms, ~1.3e9 events (default ci)")
    size.add_argument("--duration", metavar="TIME", help="simulated duration instead of --size, e.g. 100ms")
    soak_cmd.add_argument("--tolerance", type=float, metavar="FRACTION", default=None,
                          help="allowed RSS growth from 10 %% to 100 %% (default 0.05)")
    soak_cmd.set_defaults(command=_soak_command)

    repro_cmd = commands.add_parser(
        "reproduce", help="re-run a paper's evaluation and compare with its numbers",
        description="Run every (figure, CCA, load balancer, seed) cell of a paper's evaluation in a process "
        "pool, cache each run, and write table.md (ours beside the paper's numbers and the acceptance checks), "
        "runs.csv and PNG figures. Re-running skips cells already in the cache.",
    )
    repro_cmd.add_argument("paper", nargs="?", choices=list(PAPERS),
                           help="which paper (--list: each with its title): mswift (arXiv 2509.07907), dctcp-vs-swift (the ns-3 study, E1-E6), "
                           "smartt (SMaRTT / UEC NSCC, arXiv 2404.01630: E1, E3, E5, E6, E8-E17), prioplus "
                           "(PrioPlus, EuroSys 2025: F11, F14, F13, F10D, M1, M2, M4, AC14, F12C, F12AB) or laps "
                           "(LAPS, NAIC '25: E1-E6, AL)")
    repro_cmd.add_argument("--list", action="store_true", help="list the papers and exit")
    repro_cmd.add_argument("--quick", action="store_true",
                           help="mswift: smaller messages and 2 seeds; dctcp-vs-swift: T = 5 s, 2 points per "
                           "sweep, 1 seed; smartt: 128-host trees, fewer points, 1 seed; prioplus: short "
                           "arrival windows, fewer points, 1 seed; laps: toy arrival windows, 3 loads, 4 MB LLM "
                           "flows, 1 seed "
                           "(checks are then informational)")
    repro_cmd.add_argument("--seeds", type=int, metavar="N",
                           help="seeds 1..N per cell (default: mswift 5, quick 2; dctcp-vs-swift 3, quick 1; "
                           "smartt 3, quick 1; prioplus 9 for F11, F14 and F12C, at most 3 for F13, F10D and "
                           "F12AB, quick 1; laps 3, quick 1)")
    repro_cmd.add_argument("--jobs", type=int, metavar="J", help="parallel runs (default: number of CPUs)")
    repro_cmd.add_argument("--only", metavar="LIST",
                           help="mswift: figure numbers, e.g. 4,6; dctcp-vs-swift, smartt, prioplus and laps: "
                           "experiments, e.g. E3,E4, E1,E14, F11,F14 or E1,E5 (default all)")
    repro_cmd.add_argument("--profile", metavar="NAME",
                           help="dctcp-vs-swift: paper (default: exact RTTs, ECMP, the original papers' constants) "
                           "or ns3_study (the study's ns-3 build, whose numbers it then compares directly); "
                           "the other papers have one profile")
    repro_cmd.add_argument("--out", metavar="DIR", help="output directory (default results/reproduce-<paper>; "
                           "dctcp-vs-swift --profile ns3_study: results/reproduce-dctcp-vs-swift-ns3_study)")
    repro_cmd.add_argument("--dask", metavar="ADDRESS",
                           help="run the cells on Dask distributed (a scheduler address, or 'local')")
    repro_cmd.set_defaults(command=_reproduce_command)
    return parser


def _sweep_command(args: argparse.Namespace) -> int:
    from dcnsim._sweep import SweepInterrupted, sweep

    if args.jobs is not None and args.jobs < 1:
        print("error: --jobs: allowed 1 or more", file=sys.stderr)
        return 2
    import warnings

    from dcnsim._sweep import SweepIncompleteWarning, check_dask_address

    check_out_dir(args.out, "sweep")
    if args.dask:
        check_dask_address(args.dask)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SweepIncompleteWarning)  # the failed points are listed below
            result = sweep(args.file, args.out, jobs=args.jobs, dask=args.dask, timeout=args.timeout,
                           fresh=args.fresh, allow_dirs=args.allow_dirs)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SweepInterrupted as exc:
        done = int((exc.result.summary["status"] == "ok").sum())
        print(f"{_stop_word()}: {done} of {len(exc.result.summary)} points done, merged into {args.out}; "
              "run the same command again to finish", file=sys.stderr)
        return _interrupted_code()
    s = result.summary
    failed = s[s["status"] != "ok"]
    print(f"sweep: {len(s) - len(failed)} of {len(s)} points ok; wrote {result.out}/flows.parquet "
          f"({len(result.flows)} flows) and {result.out}/summary.parquet")
    for _, row in failed.iterrows():
        print(f"  point {row['index']} ({row['point']}): {row['status']}: {row['error']}", file=sys.stderr)
    return 0 if failed.empty else 1


def _export_command(args: argparse.Namespace) -> int:
    from dcnsim._export_hpcc import DEFAULT_QLEN_DUMP, FORMATS, parse_dump_interval, write_hpcc

    if args.format not in FORMATS:
        given = "is required" if args.format is None else f"{args.format}"
        print(f"error: export --format {given}: allowed {', '.join(FORMATS)}", file=sys.stderr)
        return 2
    try:
        dump_ns = parse_dump_interval(args.qlen_dump or DEFAULT_QLEN_DUMP, "--qlen-dump")
        done = write_hpcc(args.dir, args.out, dump_ns)
    except OSError as exc:
        print(f"error: export: cannot write {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 4
    for name, why in done.skipped.items():
        print(f"note: skipped {name}: {why}", file=sys.stderr)
    print(f"wrote {', '.join(p.name for p in done.written)} to {done.out}")
    return 0


def _soak_command(args: argparse.Namespace) -> int:
    from dcnsim import _soak

    duration = args.duration or _soak.SIZES[args.size]
    tolerance = _soak.DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    # The default scenario lives in the source checkout (benches/soak/), not in a wheel.
    scenario = args.file or _soak.SCENARIO
    try:
        result = _soak.soak(scenario, duration, tolerance=tolerance, stream=sys.stdout)
    except OSError as exc:
        print(f"error: cannot read scenario {scenario}: {exc.strerror}", file=sys.stderr)
        return 2
    print(_soak.verdict(result), flush=True)
    return 0 if result.flat else 1


def _reproduce_command(args: argparse.Namespace) -> int:
    from dcnsim.repro.registry import listing, load

    if args.list:
        print(listing())
        return 0
    if args.paper is None:
        print("error: reproduce: name a paper (dcnsim reproduce --list shows them)", file=sys.stderr)
        return 2
    options: dict[str, str] = {}
    if args.profile is not None:
        profiles = PAPERS[args.paper].profiles
        if args.profile not in profiles:
            allowed = f"allowed {', '.join(profiles)}" if profiles else "it has one profile"
            print(f"error: reproduce {args.paper}: --profile {args.profile}: {allowed}", file=sys.stderr)
            return 2
        options["profile"] = args.profile
    reproduce_paper = load(args.paper).reproduce

    try:
        code, table = reproduce_paper(quick=args.quick, seeds=args.seeds, jobs=args.jobs, only=args.only, out=args.out,
                                      dask=args.dask, **options)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table)
    return code


def _run_command(args: argparse.Namespace) -> int:
    try:
        overrides = list(args.overrides) + ([f"threads={args.threads}"] if args.threads else [])
        spec, base_dir = load_scenario(args.file, overrides)
    except OSError as exc:
        print(f"error: cannot read scenario {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path("results") / default_out_name(spec.get("name"), Path(args.file).stem)
    check_out_dir(out, "run", option="--out" if args.out else "the default output directory")
    try:
        result = run(spec, out=out, progress=not args.quiet, plots=args.plots, base_dir=base_dir,
                     allow_dirs=args.allow_dirs)
    except RunInterrupted as exc:
        if not args.quiet:
            print(_summary_table(exc.result))
        if exc.write_error:
            print(f"{_stop_word()}: {exc.write_error} (partial results, complete: false)", file=sys.stderr)
        else:
            print(f"{_stop_word()}: wrote partial results (complete: false) to {out}", file=sys.stderr)
        return _interrupted_code()
    if not args.quiet:
        print(_summary_table(result))
    print(f"wrote {out}")
    if args.report:
        from dcnsim._report import ReportError, write_report

        try:
            print(f"wrote {write_report(out)}")
        except (ReportError, OSError) as exc:
            print(f"error: the results are in {out} but the report page was not written: "
                  f"{getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
            return 4
    return 0


def _stop_word() -> str:
    return "interrupted" if _stopped_by is None else "terminated (SIGTERM)"


def _report_command(args: argparse.Namespace) -> int:
    from dcnsim._report import ReportError, write_report

    try:
        path = write_report(args.dir, args.out)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write the report: {exc.strerror or exc} ({exc.filename or args.out})", file=sys.stderr)
        return 4
    print(f"wrote {path}")
    return 0


def _summary_table(result: Result) -> str:
    """The run's headline numbers and one row per workload tag (plus ``all`` if several)."""
    s = result.summary
    state = "" if result.complete else " (interrupted)"
    rate = _fmt.si(s["events_per_second"]) if s["events_per_second"] is not None else "-"
    lines = [
        f"{s['name']}: simulated {_fmt.duration_us(s['sim_time_us'])}{state} in "
        f"{s['wall_seconds']:.2f} s wall, {_fmt.si(s['events'])} events ({rate} events/s), "
        f"{_fmt.si(s['packets'])} packets",
    ]
    groups: list[tuple[str, dict[str, Any]]] = list(s["workloads"].items())
    if len(groups) != 1:
        groups.append(("all", s["all"]))
    header = ("workload", "flows", "finished", "CCT", "FCT p50", "FCT p99", "slowdown p50", "slowdown p99")
    rows = [header] + [
        (
            tag,
            str(g["flows"]),
            str(g["finished"]),
            _fmt.duration_us(g["cct_us"]),
            _fmt.duration_us(g["fct_us"]["p50"]),
            _fmt.duration_us(g["fct_us"]["p99"]),
            _ratio(g["slowdown"]["p50"]),
            _ratio(g["slowdown"]["p99"]),
        )
        for tag, g in groups
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def _ratio(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


def _us(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}"


def _comparison(old: dict[str, Any], new: dict[str, Any]) -> str:
    """One line: new/old ratios of the costs, and whether the simulated behaviour moved."""
    def ratio(key: str) -> str:
        return f"{new[key] / old[key]:.2f}x" if old.get(key) else "n/a"

    rate = lambda m: m["events"] / max(m["wall_seconds"], 1e-9)  # noqa: E731
    same = all(old.get(k) == new.get(k) for k in ("events", "fct_min_us", "fct_median_us", "fct_max_us"))
    behaviour = "same events and FCTs" if same else (
        f"BEHAVIOUR CHANGED: events {old.get('events')} -> {new['events']}, FCT median "
        f"{_us(old.get('fct_median_us'))} -> {_us(new['fct_median_us'])} us")
    return (f"vs saved: wall {ratio('wall_seconds')}  events/s {rate(new) / rate(old):.2f}x  "
            f"peak RSS {ratio('peak_rss_bytes')}  ({behaviour})")


def _bench_sweeps(directory: Path) -> int:
    import tempfile

    from dcnsim._sweep import sweep

    files = sorted(directory.glob("*.toml"))
    if not files:
        print(f"error: no sweep (*.toml) in {directory}", file=sys.stderr)
        return 2
    for path in files:
        walls = {}
        for jobs in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                began = time.perf_counter()
                result = sweep(path, tmp, jobs=jobs, progress=False)
                walls[jobs] = time.perf_counter() - began
                if not result.complete:
                    print(f"{path.stem}  FAILED: some points did not finish", file=sys.stderr)
                    return 1
        print(f"{path.stem}  points {len(result.summary)}  wall 1 worker {walls[1]:.2f} s  "
              f"2 workers {walls[2]:.2f} s  speed-up {walls[1] / walls[2]:.2f}x", flush=True)
    return 0


class _BenchFailed(Exception):
    pass


# What must not change with the number of threads (the event count does: each share
# handles the run's global events, such as flow starts, itself).
_SAME_ON_ANY_THREADS = ("data_packets", "flows_finished", "fct_min_us", "fct_median_us", "fct_max_us")


def _bench_threads(files: list[Path], counts: list[int], repeat: int, width: int) -> int:
    """`dcnsim bench --threads 1,2`: each scenario on each thread count, with the speed-up
    against the first count."""
    failures = 0
    for path in files:
        first: Optional[dict[str, Any]] = None
        for threads in counts:
            label = f"{path.stem:<{width}}  {threads:>3} thread{'s' if threads > 1 else ' '}"
            try:
                m = _bench_repeated(path, repeat, threads)
            except _BenchFailed as exc:
                failures += 1
                print(f"{label}  FAILED ({exc})", flush=True)
                break
            wall = max(m["wall_seconds"], 1e-9)
            speedup = ""
            if first is None:
                first = m
            else:
                changed = [k for k in _SAME_ON_ANY_THREADS if m.get(k) != first.get(k)]
                if changed:
                    failures += 1
                    print(f"{label}  FAILED (differs from {counts[0]} thread(s): {', '.join(changed)})", flush=True)
                    break
                speedup = f"  speed-up {first['wall_seconds'] / wall:.2f}x"
            print(
                f"{label}  wall {wall:.3f} s  events {m['events']}  events/s {_fmt.si(m['events'] / wall)}"
                f"  peak RSS {m['peak_rss_bytes'] / 2**20:.1f} MiB"
                f"  FCT min/median/max {_us(m['fct_min_us'])}/{_us(m['fct_median_us'])}/{_us(m['fct_max_us'])} us"
                f"{speedup}",
                flush=True,
            )
    return 1 if failures else 0


# What must not change from one run of a scenario to the next.
_BEHAVIOUR = ("events", "packets", "data_packets", "flows_finished", "fct_min_us", "fct_median_us", "fct_max_us")


def _thread_list(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        counts = []
    if not counts or any(not 1 <= c <= 256 for c in counts):
        raise argparse.ArgumentTypeError(f"{text!r}: give thread counts from 1 to 256, comma-separated, e.g. 1,2")
    return counts


def _bench_repeated(path: Path, repeat: int, threads: Optional[int] = None) -> dict[str, Any]:
    """Runs one scenario `repeat` times, each in a fresh process; the figures of the
    fastest run, with the highest peak RSS of all."""
    runs = []
    extra = [] if threads is None else ["--threads", str(threads)]
    for _ in range(repeat):
        child = subprocess.run(
            [sys.executable, "-m", "dcnsim._bench_one", str(path), *extra], capture_output=True, text=True
        )
        if child.returncode != 0:
            sys.stderr.write(child.stderr)
            raise _BenchFailed(f"exit {child.returncode}")
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    for run in runs[1:]:
        changed = [k for k in _BEHAVIOUR if run.get(k) != runs[0].get(k)]
        if changed:
            raise _BenchFailed(f"not deterministic: {', '.join(changed)} differ between runs")
    best = dict(min(runs, key=lambda r: r["wall_seconds"]))
    best["peak_rss_bytes"] = max(r["peak_rss_bytes"] for r in runs)
    best["runs"] = repeat
    return best


def _above_baseline(m: dict[str, Any]) -> str:
    baseline = m.get("baseline_rss_bytes")
    if baseline is None:
        return ""
    return f" ({(m['peak_rss_bytes'] - baseline) / 2**20:.1f} above the interpreter)"


def _bench_command(args: argparse.Namespace) -> int:
    if args.sweeps:
        return _bench_sweeps(Path(args.dir) / "sweeps")
    directory = Path(args.dir)
    if not directory.is_dir():
        print(f"error: no such directory: {directory}", file=sys.stderr)
        return 2
    files = sorted(p for p in directory.glob("*.toml") if args.only is None or args.only in p.stem)
    if not files:
        matching = f" matching {args.only!r}" if args.only else ""
        print(f"error: no scenario (*.toml){matching} in {directory}", file=sys.stderr)
        return 2

    old: dict[str, Any] = {}
    if args.compare:
        try:
            old = json.loads(Path(args.compare).read_text())["scenarios"]
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: --compare {args.compare}: not a file written by --save ({exc})", file=sys.stderr)
            return 2
    width = max(len(p.stem) for p in files)
    failures = 0
    saved: dict[str, Any] = {}
    if args.threads:
        return _bench_threads(files, args.threads, args.repeat, width)
    for path in files:
        try:
            m = _bench_repeated(path, args.repeat)
        except _BenchFailed as exc:
            failures += 1
            print(f"{path.stem:<{width}}  FAILED ({exc})", flush=True)
            continue
        saved[path.stem] = m
        wall = max(m["wall_seconds"], 1e-9)
        print(
            f"{path.stem:<{width}}  wall {wall:.3f} s  events {m['events']}"
            f"  events/s {_fmt.si(m['events'] / wall)}  data packets/s {_fmt.si(m['data_packets'] / wall)}"
            f"  peak RSS {m['peak_rss_bytes'] / 2**20:.1f} MiB{_above_baseline(m)}"
            f"  peak in flight {m['peak_packets_in_flight']} pkts"
            f"  state {m.get('memory_bytes', 0) / 2**20:.1f} MiB ({m.get('memory_per_flow_bytes', 0):.0f} B/flow,"
            f" {m.get('memory_per_packet_bytes', 0):.0f} B/pkt, {m.get('memory_per_port_bytes', 0):.0f} B/port,"
            f" routing {m.get('memory_routing_per_host_bytes', 0):.0f} B/host)"
            f"  FCT min/median/max {_us(m['fct_min_us'])}/{_us(m['fct_median_us'])}/{_us(m['fct_max_us'])} us"
            f" ({m['flows_finished']}/{m['flows']} flows)",
            flush=True,
        )
        if path.stem in old:
            print(" " * (width + 2) + _comparison(old[path.stem], m), flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps({"version": __version__, "scenarios": saved}, indent=2) + "\n")
    return 1 if failures else 0
