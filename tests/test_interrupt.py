"""Ctrl-C (SIGINT) or SIGTERM during ``dcnsim run`` or ``dcnsim sweep`` keeps what
finished, marked incomplete, and exits with 130 or 143."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import dcnsim

ROOT = Path(__file__).resolve().parents[1]
SWEEP_TINY = ROOT / "examples" / "sweep_tiny.toml"


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
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_writes_partial_results_and_exits_128_plus_signal(
    long_toml: Path, tmp_path: Path, child_env: dict[str, str], signum: int, code: int
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
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = (first + stderr).decode(errors="replace")
    assert proc.returncode == code, err
    assert "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False
    assert 0 < summary["sim_time_us"] < 1e6
    assert (out / "flows.parquet").is_file()


@pytest.mark.core
@pytest.mark.parametrize("signum, code, word", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "terminated (SIGTERM)")],
                         ids=["SIGINT", "SIGTERM"])
def test_a_stopped_sweep_keeps_its_finished_points_and_resumes_without_them(
    tmp_path: Path, child_env: dict[str, str], signum: int, code: int, word: str
) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "dcnsim", "sweep", str(SWEEP_TINY), "--out", str(out), "--jobs", "1"],
        cwd=tmp_path, env=child_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("runs/*/done.json"))) < 3:
            assert proc.poll() is None, "the sweep ended before it could be stopped"
            assert time.monotonic() < deadline, "no progress"
            time.sleep(0.05)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = stderr.decode(errors="replace")
    assert proc.returncode == code, err
    assert "Traceback" not in err and f"{word}: " in err, err
    finished = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("runs/*/done.json")}
    assert 3 <= len(finished) < 12
    summary = pd.read_parquet(out / "summary.parquet")
    assert len(summary) == 12
    ok = summary[summary["status"] == "ok"]
    assert set(ok["point"]) == set(finished), "every finished point is merged, and only those"
    rest = summary[summary["status"] != "ok"]
    assert (rest["status"] == "not run").all() and not rest["complete"].any()
    flows = pd.read_parquet(out / "flows.parquet")
    assert set(flows["point"]) == set(finished)

    result = dcnsim.sweep(SWEEP_TINY, out, jobs=2, progress=False)
    assert result.complete and len(result.summary) == 12
    for name, mtime in finished.items():
        assert (out / "runs" / name / "done.json").stat().st_mtime_ns == mtime, f"point {name} ran again"
