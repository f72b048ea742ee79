"""``dcnsim bench`` runs each scenario of a directory and reports its cost."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Callable

import pytest

Cli = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.mark.core
def test_bench_prints_one_line_per_scenario(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "tiny.toml").write_text(tiny_toml.read_text())
    done = dcnsim_cli("bench", "--dir", str(benches))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    m = re.fullmatch(
        r"tiny  wall \d+\.\d{3} s  events (\d+)  events/s \S+  data packets/s \S+  peak RSS \d+\.\d MiB \(-?\d+\.\d above the interpreter\)"
        r"  peak in flight \d+ pkts  state [\d.]+ MiB \((\d+) B/flow, (\d+) B/pkt, (\d+) B/port, routing (\d+) B/host\)"
        r"  FCT min/median/max [\d.]+/[\d.]+/[\d.]+ us \((\d+)/(\d+) flows\)", lines[0]
    )
    assert m, lines[0]
    assert m.group(6) == m.group(7), "every flow of the tiny scenario finishes"
    # A flow's state holds at least its transport struct; a packet at least its 40-byte slot;
    # a port at least its three 32-byte ring buffers (queue, control queue, pipe); a host
    # at least its three 4-byte routing entries (edge switch, down port, up port).
    assert int(m.group(2)) > 200 and int(m.group(3)) >= 40
    assert int(m.group(4)) >= 96 and int(m.group(5)) >= 12

    # --save, then --compare against it: a rerun is the same simulation (determinism).
    saved = tmp_path / "bench.json"
    assert dcnsim_cli("bench", "--dir", str(benches), "--save", str(saved)).returncode == 0
    again = dcnsim_cli("bench", "--dir", str(benches), "--compare", str(saved))
    assert again.returncode == 0, again.stderr
    compare = again.stdout.splitlines()[1]
    assert re.search(r"vs saved: wall \S+x  events/s \S+x  peak RSS \S+x  \(same events and FCTs\)", compare), compare


@pytest.mark.core
def test_bench_repeat_keeps_the_fastest_run_and_checks_they_agree(
    dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path
) -> None:
    import json

    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "tiny.toml").write_text(tiny_toml.read_text())
    saved = tmp_path / "bench.json"
    done = dcnsim_cli("bench", "--dir", str(benches), "--repeat", "3", "--save", str(saved))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1
    figures = json.loads(saved.read_text())["scenarios"]["tiny"]
    assert figures["runs"] == 3
    # The simulator's share of the peak cannot exceed the whole process's.
    assert 0 < figures["baseline_rss_bytes"] <= figures["peak_rss_bytes"]

    refused = dcnsim_cli("bench", "--dir", str(benches), "--repeat", "0")
    assert refused.returncode == 2 and "--repeat: must be at least 1" in refused.stderr


def test_bench_without_matching_scenarios_is_an_error(dcnsim_cli: Cli, tiny_toml: Path) -> None:
    done = dcnsim_cli("bench", "--dir", str(tiny_toml.parent), "--only", "nothing_like_this")
    assert done.returncode == 2
    assert "error: no scenario" in done.stderr


@pytest.mark.core
def test_bench_threads_prints_each_count_and_the_speed_up(dcnsim_cli: Cli, tiny_toml: Path, tmp_path: Path) -> None:
    benches = tmp_path / "benches"
    benches.mkdir()
    (benches / "tiny.toml").write_text(tiny_toml.read_text())
    done = dcnsim_cli("bench", "--dir", str(benches), "--threads", "1,2")
    assert done.returncode == 0, done.stderr + done.stdout
    lines = done.stdout.splitlines()
    assert len(lines) == 2, lines
    fcts = []
    for line, threads in zip(lines, (1, 2)):
        m = re.match(rf"tiny\s+{threads} threads?\s+wall \d+\.\d{{3}} s .* FCT min/median/max (\S+) us", line)
        assert m, line
        fcts.append(m.group(1))
    assert fcts[0] == fcts[1], "the FCTs do not depend on the thread count"
    assert re.search(r"speed-up \d+\.\d\dx$", lines[1]), lines[1]
    bad = dcnsim_cli("bench", "--dir", str(benches), "--threads", "0,2")
    assert bad.returncode == 2 and "thread counts from 1 to 256" in bad.stderr, bad.stderr
