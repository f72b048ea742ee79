"""Output paths: checked before anything is simulated, result directories that record
their kind (and never mix), and finished results saved elsewhere when writing fails."""

from __future__ import annotations

import copy
import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest

import dcnsim
from dcnsim import _sweep, cli

Cli = Callable[..., "subprocess.CompletedProcess[str]"]
ROOT = Path(__file__).resolve().parents[1]
TINY_SWEEP = ROOT / "examples" / "sweep_tiny.toml"


def _unwritable_dir(tmp_path: Path) -> Path:
    """A directory that cannot take a new file (root writes through permissions, so it
    gets a path under /proc, where no file can be created)."""
    if os.geteuid() == 0:
        return Path("/proc/dcnsim-test-out")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    return locked / "out"


@pytest.fixture
def quick_cli(tmp_path: Path, child_env: dict[str, str]) -> Cli:
    """``python -m dcnsim ARGS...`` in tmp_path that must end within 30 s (a command that
    started simulating the long scenario would not: it is killed and the test fails)."""

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "dcnsim", *args], cwd=tmp_path, env=child_env,
                              capture_output=True, text=True, timeout=30)

    return call


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    for w in words:
        assert w in done.stderr, done.stderr


def _small_sweep(seeds: int = 1) -> dict[str, Any]:
    """examples/sweep_tiny.toml cut to 200 us and ``seeds`` points."""
    base, _, _ = _sweep.load_sweep(TINY_SWEEP)
    base = copy.deepcopy(base)
    base["workload"][0]["cdf"] = str(ROOT / "workloads" / "websearch.cdf")
    base["duration"] = "200us"
    return {"base": base, "axes": {"seeds": seeds}}


def _sweep_dir(path: Path) -> Path:
    """A sweep directory as dcnsim wrote it before result directories had a marker."""
    (path / "runs" / "0123456789abcdef").mkdir(parents=True)
    (path / "runs" / "0123456789abcdef" / "done.json").write_text('{"status": "ok"}')
    pd.DataFrame({"point": ["0123456789abcdef"], "status": ["ok"]}).to_parquet(path / "summary.parquet")
    pd.DataFrame({"id": [0]}).to_parquet(path / "flows.parquet")
    return path


def _run_dir(path: Path) -> Path:
    """A run directory as dcnsim wrote it before result directories had a marker."""
    path.mkdir(parents=True)
    (path / "summary.json").write_text("{}")
    pd.DataFrame({"id": [0]}).to_parquet(path / "flows.parquet")
    return path


# ---------------------------------------------------------------------------------------
# Checked before simulating (the scenario runs a simulated second: far longer than these
# tests wait, so a quick error shows that nothing was simulated)


@pytest.mark.core
def test_run_out_an_existing_file_is_refused_before_simulating(quick_cli: Cli, long_toml: Path,
                                                               tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("keep me")
    done = quick_cli("run", str(long_toml), "--out", "afile")
    _one_line_error(done, "--out afile", "is a file, not a directory")
    assert (tmp_path / "afile").read_text() == "keep me"


@pytest.mark.core
@pytest.mark.parametrize("command", ["run", "sweep"])
def test_out_in_an_unwritable_directory_is_refused_before_simulating(quick_cli: Cli, long_toml: Path,
                                                                     tmp_path: Path, command: str) -> None:
    target = _unwritable_dir(tmp_path)
    source = str(long_toml if command == "run" else TINY_SWEEP)
    done = quick_cli(command, source, "--out", str(target))
    _one_line_error(done, f"--out {target}", "cannot write in")


@pytest.mark.core
def test_sweep_out_an_existing_file_is_refused(quick_cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("keep me")
    _one_line_error(quick_cli("sweep", str(TINY_SWEEP), "--out", "afile"), "--out afile", "is a file")
    assert (tmp_path / "afile").read_text() == "keep me"


@pytest.mark.core
def test_run_never_writes_into_a_sweep_directory(quick_cli: Cli, long_toml: Path, tmp_path: Path) -> None:
    sweep_dir = _sweep_dir(tmp_path / "sw")
    before = {p: p.stat().st_mtime_ns for p in sweep_dir.rglob("*")}
    done = quick_cli("run", str(long_toml), "--out", "sw")
    _one_line_error(done, "--out sw", "holds the results of a sweep", "`dcnsim sweep`")
    assert {p: p.stat().st_mtime_ns for p in sweep_dir.rglob("*")} == before, "the sweep directory is untouched"


@pytest.mark.core
def test_sweep_never_writes_into_a_run_directory(quick_cli: Cli, tmp_path: Path) -> None:
    _run_dir(tmp_path / "r")
    done = quick_cli("sweep", str(TINY_SWEEP), "--out", "r")
    _one_line_error(done, "--out r", "holds the results of a run", "`dcnsim run`")
    assert not (tmp_path / "r" / "runs").exists()


@pytest.mark.core
def test_the_python_api_checks_out_before_simulating(tmp_path: Path, tiny_toml: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(dcnsim.OutputError, match="is a file, not a directory"):
        dcnsim.run(tiny_toml, out=tmp_path / "afile")
    with pytest.raises(dcnsim.OutputError, match="holds the results of a sweep"):
        dcnsim.run(tiny_toml, out=_sweep_dir(tmp_path / "sw"))
    with pytest.raises(dcnsim.OutputError, match="holds the results of a run"):
        dcnsim.sweep(_small_sweep(), _run_dir(tmp_path / "r"), jobs=1, progress=False)
    assert not (tmp_path / "r" / "runs").exists()


def test_a_reproduction_directory_is_refused_to_runs_and_sweeps(tmp_path: Path) -> None:
    from dcnsim._outdir import check_out_dir

    repro = tmp_path / "repro"
    (repro / "cache").mkdir(parents=True)
    (repro / "cache" / "abc.json").write_text("{}")
    for kind in ("run", "sweep"):
        with pytest.raises(dcnsim.OutputError, match="holds the results of a reproduction"):
            check_out_dir(repro, kind)
    with pytest.raises(dcnsim.OutputError, match="holds the results of a run"):
        check_out_dir(_run_dir(tmp_path / "r"), "reproduction")
    check_out_dir(repro, "reproduction")  # a reproduction resumes in its own directory


@pytest.mark.core
def test_reproduce_refuses_a_file_or_a_run_directory(quick_cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("keep me")
    args = ("reproduce", "mswift", "--quick", "--only", "4", "--seeds", "1", "--jobs", "1")
    _one_line_error(quick_cli(*args, "--out", "afile"), "--out afile", "is a file")
    _run_dir(tmp_path / "r")
    _one_line_error(quick_cli(*args, "--out", "r"), "--out r", "holds the results of a run",
                    "a reproduction does not write there")
    assert not (tmp_path / "r" / "cache").exists()


# ---------------------------------------------------------------------------------------
# The marker


@pytest.mark.core
def test_runs_and_sweeps_record_their_kind(tmp_path: Path, tiny_toml: Path) -> None:
    dcnsim.run(tiny_toml, out=tmp_path / "r")
    assert json.loads((tmp_path / "r" / "dcnsim-result.json").read_text())["kind"] == "run"
    dcnsim.sweep(_small_sweep(), tmp_path / "s", jobs=1, progress=False)
    assert json.loads((tmp_path / "s" / "dcnsim-result.json").read_text())["kind"] == "sweep"
    (point,) = (tmp_path / "s" / "runs").iterdir()
    assert json.loads((point / "dcnsim-result.json").read_text())["kind"] == "run", "a point is a run"
    # The marker decides even where the files would say otherwise.
    with pytest.raises(dcnsim.OutputError, match="holds the results of a sweep"):
        dcnsim.run(tiny_toml, out=tmp_path / "s")
    # A run may replace a run.
    dcnsim.run(tiny_toml, out=tmp_path / "r")


@pytest.mark.parametrize("make, words", [
    (lambda d: (_sweep_dir(d), (d / "summary.json").write_text("{}")),
     ["holds the results of more than one kind", "run: summary.json", "sweep: summary.parquet, runs/"]),
    (lambda d: (d.mkdir(), (d / "table.md").write_text("# t"), (d / "runs.csv").write_text("a\n")),
     ["holds a reproduction", "table.md", "report draws run and sweep directories"]),
    (lambda d: (d.mkdir(), (d / "dcnsim-result.json").write_text('{"kind": "plot"}')),
     ["dcnsim-result.json names kind 'plot'", "run, sweep, reproduction"]),
    (lambda d: (d.mkdir(), (d / "dcnsim-result.json").write_text("{oops")),
     ["dcnsim-result.json is not readable"]),
])
def test_report_on_a_directory_whose_kind_it_cannot_draw_is_a_clear_error(
        dcnsim_cli: Cli, tmp_path: Path, make: Callable[[Path], Any], words: list[str]) -> None:
    make(tmp_path / "d")
    _one_line_error(dcnsim_cli("report", "d"), *words)


def test_report_out_checks(dcnsim_cli: Cli, tmp_path: Path) -> None:
    _run_dir(tmp_path / "r")
    (tmp_path / "adir").mkdir()
    _one_line_error(dcnsim_cli("report", "r", "--out", "adir"), "--out adir", "is a directory")
    target = _unwritable_dir(tmp_path)
    _one_line_error(dcnsim_cli("report", "r", "--out", str(target / "page.html")), "cannot write in")
    (tmp_path / "afile").write_text("x")
    _one_line_error(dcnsim_cli("report", "r", "--out", "afile/page.html"), "afile is a file, not a directory")
    _one_line_error(dcnsim_cli("report", "r", "--out", "r/flows.parquet"), "--out r/flows.parquet",
                    "exists and was not written by dcnsim")
    assert len(pd.read_parquet(tmp_path / "r" / "flows.parquet")) == 1, "the file is untouched"


# ---------------------------------------------------------------------------------------
# A write that fails after the simulation


def _fail_writes_under(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """Every Parquet write into ``directory`` fails as on a full disk: pandas', pyarrow's and dcnsim's."""
    real = pd.DataFrame.to_parquet

    def to_parquet(self: pd.DataFrame, path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path).resolve().parent == directory.resolve():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", to_parquet)
    # A run's tables are written by pyarrow from the core's columns, without pandas.
    import pyarrow.parquet as pq

    real_table = pq.write_table

    def write_table(table: Any, where: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(where, (str, os.PathLike)) and Path(where).resolve().parent == directory.resolve():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
        return real_table(table, where, *args, **kwargs)

    monkeypatch.setattr(pq, "write_table", write_table)
    # Small flow tables are written by dcnsim's own Parquet writer.
    from dcnsim import _parquet

    real_write = _parquet.write

    def write(columns: Any, path: Path) -> None:
        if Path(path).resolve().parent == directory.resolve():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real_write(columns, path)

    monkeypatch.setattr(_parquet, "write", write)


@pytest.mark.core
def test_a_run_whose_write_fails_is_saved_beside_it(tmp_path: Path, tiny_toml: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "res"
    _fail_writes_under(monkeypatch, out)
    code = cli.main(["run", str(tiny_toml), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    saved = tmp_path / "res.saved-1"
    assert code == 4, err
    assert err == f"error: cannot write the results to {out} (No space left on device); saved them to {saved} instead\n"
    summary = json.loads((saved / "summary.json").read_text())
    assert summary["complete"] is True
    assert len(pd.read_parquet(saved / "flows.parquet")) == summary["all"]["flows"] == 16
    assert json.loads((saved / "dcnsim-result.json").read_text())["kind"] == "run"

    # From Python: the exception carries the result and where it went; a second failure
    # takes the next free name.
    with pytest.raises(dcnsim.ResultsSavedElsewhere) as info:
        dcnsim.run(tiny_toml, out=out)
    assert info.value.saved_to == tmp_path / "res.saved-2"
    assert len(info.value.result.flows) == 16 and info.value.result.complete


@pytest.mark.core
def test_a_sweep_whose_merge_write_fails_is_saved_beside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "sw"
    _fail_writes_under(monkeypatch, out)  # the points' own directories (out/runs/*) still work
    with pytest.raises(dcnsim.ResultsSavedElsewhere) as info:
        dcnsim.sweep(_small_sweep(2), out, jobs=1, progress=False)
    saved = tmp_path / "sw.saved-1"
    assert info.value.saved_to == saved and "merged tables" in str(info.value)
    assert len(pd.read_parquet(saved / "summary.parquet")) == 2
    assert len(pd.read_parquet(saved / "flows.parquet")) == len(info.value.result.flows) > 0
