"""Ctrl-C during ``dcnsim run`` keeps what was simulated and exits with 130."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _default_sigint() -> None:
    # A child inherits an ignored SIGINT (as under a non-interactive shell's background
    # job), and Python then installs no KeyboardInterrupt handler; Ctrl-C is what we test.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_output(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """Read the child's stderr until its first line (the first progress line) arrives."""
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in seen:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or proc.poll() is not None:
            break
        ready, _, _ = select.select([proc.stderr], [], [], remaining)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.core
def test_ctrl_c_writes_partial_results_and_exits_130(
    long_toml: Path, tmp_path: Path, child_env: dict[str, str]
) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "dcnsim", "run", str(long_toml), "--out", str(out)],
        cwd=tmp_path, env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_default_sigint,
    )
    try:
        first = _wait_for_output(proc, timeout=120)
        assert proc.poll() is None, first.decode(errors="replace")
        time.sleep(2)  # well into the run loop
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = (first + stderr).decode(errors="replace")
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    assert 0 < summary["sim_time_us"] < 1e6
    assert (out / "flows.parquet").is_file()
