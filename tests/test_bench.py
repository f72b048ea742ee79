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
    assert re.fullmatch(
        r"tiny  wall \d+\.\d{3} s  events \d+  events/s \S+  packets/s \S+  peak RSS \d+\.\d MiB  peak in flight \d+ pkts", lines[0]
    ), lines[0]


def test_bench_without_matching_scenarios_is_an_error(dcnsim_cli: Cli, tiny_toml: Path) -> None:
    done = dcnsim_cli("bench", "--dir", str(tiny_toml.parent), "--only", "nothing_like_this")
    assert done.returncode == 2
    assert "error: no scenario" in done.stderr
