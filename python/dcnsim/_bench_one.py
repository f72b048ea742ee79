"""Run one benchmark scenario and print its cost as a JSON line.

``dcnsim bench`` starts this in a fresh process per scenario, so that the peak RSS each
one reports (``ru_maxrss`` is a high-water mark for the whole process) is its own. It
runs the simulation without collecting or writing results and imports nothing heavy,
so the figures are the simulator's.

Usage: ``python -m dcnsim._bench_one SCENARIO.toml [--threads N]``
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from dcnsim._ext import ScenarioError, core
from dcnsim._inputs import check_inputs
from dcnsim._run import drive
from dcnsim._scenario import load_scenario, scenario_json


def _current_rss_bytes() -> Optional[int]:
    """Resident set size now, from ``/proc/self/statm`` (None where there is none)."""
    try:
        resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return resident_pages * resource.getpagesize()


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    overrides = []
    if len(args) == 3 and args[1] == "--threads":
        overrides = [f"threads={args[2]}"]
        args = args[:1]
    if len(args) != 1:
        print("usage: python -m dcnsim._bench_one SCENARIO.toml [--threads N]", file=sys.stderr)
        return 2
    try:
        spec, base_dir = load_scenario(args[0], overrides)
        check_inputs(spec, base_dir)
        baseline = _current_rss_bytes()
        started = time.perf_counter()
        sim = core().Simulation(scenario_json(spec), str(base_dir))
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    drive(sim)
    wall = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss_bytes = rss if sys.platform == "darwin" else rss * 1024  # Linux reports KiB
    stats = sim.stats()
    # The behaviour beside the speed: a faster run with different FCTs is a different run.
    flows = sim.flows()
    fcts = sorted(f for f, done in zip(flows["fct_us"], flows["finished"]) if done)
    print(json.dumps({
        "wall_seconds": wall,
        "events": sim.events,
        "packets": sim.packets,
        "data_packets": stats["data_packets"],
        "peak_rss_bytes": rss_bytes,
        # The interpreter and the loaded extension, before the simulation exists: what
        # the peak minus this leaves is the simulator's own (htsim's figures are those of
        # a C++ process that has no interpreter to carry).
        "baseline_rss_bytes": baseline,
        "peak_packets_in_flight": stats["peak_packets_in_flight"],
        "memory_bytes": stats["memory_bytes"],
        "memory_per_flow_bytes": stats["memory_per_flow_bytes"],
        "memory_per_packet_bytes": stats["memory_per_packet_bytes"],
        "memory_per_port_bytes": stats["memory_per_port_bytes"],
        "memory_routing_per_host_bytes": stats["memory_routing_per_host_bytes"],
        "flows": len(flows["fct_us"]),
        "flows_finished": len(fcts),
        "fct_min_us": fcts[0] if fcts else None,
        "fct_median_us": statistics.median(fcts) if fcts else None,
        "fct_max_us": fcts[-1] if fcts else None,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
