"""``dcnsim soak`` at its CI size: a 20 ms (~8e7 events) run of the soak scenario whose
resident memory must stay flat after warm-up. Before finished flows gave back their
transport buffers, RSS grew +7.4 % from 10 % to 100 % here (tolerance 5 %)."""

from __future__ import annotations

import re
import subprocess
from typing import Callable

import pytest

from dcnsim import _soak

pytestmark = pytest.mark.core


def test_the_ci_soak_keeps_memory_flat(dcnsim_cli: Callable[..., subprocess.CompletedProcess]) -> None:
    done = dcnsim_cli("soak", "--size", "ci")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if re.match(r"\s*\d+%", line)]
    assert [int(r.split("%")[0]) for r in rows] == list(range(10, 101, 10))
    last = done.stdout.strip().splitlines()[-1]
    events = int(re.search(r"\): ([\d,]+) events", last).group(1).replace(",", ""))
    assert events > 5e7, last
    growth = float(re.search(r"([+-][\d.]+)% from 10 % to 100 %", last).group(1))
    assert growth <= 100 * _soak.DEFAULT_TOLERANCE and last.endswith(": flat"), last


def test_growth_over_the_tolerance_fails_the_command(
    dcnsim_cli: Callable[..., subprocess.CompletedProcess]
) -> None:
    # A negative tolerance cannot be met (RSS does not shrink by 100 %): the exit code
    # must say so, or a nightly job would pass whatever the memory did.
    done = dcnsim_cli("soak", "--duration", "1ms", "--tolerance", "-1")
    assert done.returncode == 1 and done.stdout.strip().endswith("NOT FLAT"), done.stdout + done.stderr

