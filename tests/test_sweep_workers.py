"""Sweep workers and Dask: workers end with a killed parent, a bad or silent Dask address
is a one-line error (exit code 2), and a sweep whose workers die says so."""

from __future__ import annotations

import copy
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import dcnsim
from dcnsim import _sweep, cli

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "examples" / "sweep_tiny.toml"

# Two points that each run far longer than the test: 128 infinite flows for a simulated second.
LONG_SWEEP = """\
[base]
name = "long"
seed = 1
duration = "1s"
[base.topology]
kind = "fat_tree"
tiers = 3
hosts = 128
link_rate = "100Gbps"
link_latency = "500ns"
[base.transport]
cc = "dctcp"
[[base.workload]]
kind = "permutation"
size = "infinite"
stop = "1s"
[axes]
seeds = 2
"""


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its exit status is left


@pytest.mark.core
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("executor", [["--jobs", "2"], ["--jobs", "2", "--dask", "local"]], ids=["pool", "dask"])
def test_sigkill_of_a_sweep_leaves_no_worker_alive(tmp_path: Path, child_env: dict[str, str],
                                                   executor: list[str]) -> None:
    sweep_file = tmp_path / "long_sweep.toml"
    sweep_file.write_text(LONG_SWEEP)
    cmd = [sys.executable, "-m", "dcnsim", "sweep", str(sweep_file), "--out", str(tmp_path / "out"), *executor]
    # Its own session, so that the test can clean up whatever it left; the test kills the
    # parent alone, as the kernel's OOM killer or `kill -9 PID` would.
    child = subprocess.Popen(cmd, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        deadline = time.time() + 90
        workers: set[int] = set()
        while len(workers) < 2:
            assert child.poll() is None, "the sweep ended before it could be killed"
            assert time.time() < deadline, "the workers did not start"
            time.sleep(0.2)
            # Worker processes are the ones that imported dcnsim's sweep machinery.
            workers = {p for p in _descendants(child.pid) if _alive(p) and "python" in _cmdline(p)}
        time.sleep(1.0)  # the workers are running points
        workers = {p for p in _descendants(child.pid) if _alive(p)}
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        time.sleep(5.0)
        left = sorted(p for p in workers if _alive(p))
        assert not left, f"alive 5 s after SIGKILL of the sweep: {[(p, _cmdline(p)) for p in left]}"
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.parametrize("address, words", [
    ("foo://bar:1", ["--dask 'foo://bar:1'", "unknown address scheme", "tcp://scheduler:8786"]),
    ("tcp://scheduler", ["--dask 'tcp://scheduler'", "missing port"]),
    ("tcp://scheduler:port", ["--dask 'tcp://scheduler:port'", "not a scheduler address"]),
])
def test_a_malformed_dask_address_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      address: str, words: list[str]) -> None:
    pytest.importorskip("distributed")
    code = cli.main(["sweep", str(TINY), "--out", str(tmp_path / "out"), "--dask", address])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out" / "runs").exists(), "nothing ran"


@pytest.mark.core
def test_an_unreachable_dask_scheduler_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port on which nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(_sweep, "DASK_CONNECT_SECONDS", 2.0)
    code = cli.main(["sweep", str(TINY), "--out", str(tmp_path / "out"), "--dask", f"tcp://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: --dask tcp://127.0.0.1:{port}: no Dask scheduler answered within 2 s"), err
    assert err.count("\n") == 1 and "Traceback" not in err, err


def _die(spec: dict[str, Any], base_dir: str, run_dir: str, timeout: Any) -> dict[str, Any]:
    os._exit(3)  # the worker process dies, as a native crash or the OOM killer would end it


@pytest.mark.core
@pytest.mark.parametrize("dask", [None, "local"], ids=["pool", "dask"])
def test_a_sweep_whose_workers_die_warns_and_keeps_the_metric_columns(tmp_path: Path, dask: Any,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    base, axes, _ = _sweep.load_sweep(TINY)
    base = copy.deepcopy(base)
    base["workload"][0]["cdf"] = str(ROOT / "workloads" / "websearch.cdf")
    monkeypatch.setattr(_sweep, "run_point", _die)
    with pytest.warns(dcnsim.SweepIncompleteWarning, match=r"2 of 2 points did not finish, 2 of them lost with a "
                      r"worker process that died; complete=False"):
        result = dcnsim.sweep({"base": base, "axes": {"seeds": 2}}, tmp_path / "out", jobs=1, dask=dask,
                              progress=False)
    assert not result.complete
    s = result.summary
    for column in ("slowdown_p50", "slowdown_p99", "fct_p50_us", "fct_p99_us", "cct_us", "events", "flows_finished"):
        assert column in s.columns, column
        assert all(v is None or (isinstance(v, float) and math.isnan(v)) for v in s[column]), column
    assert (s["status"] == "error").all() and s["error"].str.contains("died").all()
