"""Result directories: what kind each is, checking an output path before simulating, and
saving finished results elsewhere when writing them fails.

A result directory records its kind in ``dcnsim-result.json`` (``{"kind": "run"}``,
``"sweep"`` or ``"reproduction"``), written with its results. A directory written before
the marker existed is recognised by its files (:func:`kind_of`): ``summary.parquet`` or
``runs/*/done.json`` make a sweep, ``summary.json`` a run, ``table.md``, ``runs.csv`` or
``cache/*.json`` a reproduction. A run never writes into a sweep's or a reproduction's
directory, nor a sweep into a run's: the command stops with ``error: --out ...`` (exit
code 2) before anything is simulated.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional, Union

MARKER = "dcnsim-result.json"
KINDS = ("run", "sweep", "reproduction")
_WRITTEN_BY = {"run": "`dcnsim run`", "sweep": "`dcnsim sweep`", "reproduction": "`dcnsim reproduce`"}


class UsageError(ValueError):
    """Bad input that is not a scenario's: an output path, a Dask address. The command
    prints ``error: <message>`` and exits with code 2."""


class OutputError(UsageError):
    """An output path that cannot take the results: an existing file, a directory that
    cannot be written, or one holding results of another kind."""


class ResultsSavedElsewhere(OSError):
    """Writing the results to the asked directory failed after the simulation finished;
    they were saved to :attr:`saved_to` (None when no place could take them) instead.
    :attr:`result` holds the results themselves (a :class:`dcnsim.Result` for a run)."""

    def __init__(self, message: str, result: Any = None, saved_to: Optional[Path] = None) -> None:
        super().__init__(message)
        self.result = result
        self.saved_to = saved_to

    def __reduce__(self) -> Any:  # crosses process boundaries whole (pools, Dask)
        return (type(self), (str(self), self.result, self.saved_to))


def _signs(path: Path) -> dict[str, list[str]]:
    """For each kind, the files in ``path`` that only that kind writes."""
    def has(name: str) -> bool:
        return (path / name).exists()

    signs: dict[str, list[str]] = {k: [] for k in KINDS}
    if has("summary.parquet"):
        signs["sweep"].append("summary.parquet")
    if (path / "runs").is_dir() and any((path / "runs").glob("*/done.json")):
        signs["sweep"].append("runs/")
    if has("summary.json"):
        signs["run"].append("summary.json")
    for name in ("table.md", "runs.csv"):
        if has(name):
            signs["reproduction"].append(name)
    if (path / "cache").is_dir() and any((path / "cache").glob("*.json")):
        signs["reproduction"].append("cache/")
    return {k: v for k, v in signs.items() if v}


def kind_of(path: Path) -> Optional[str]:
    """The kind of result directory ``path`` is: its marker's, else the one kind whose
    files it holds; None when it holds no results (or does not exist). Raises
    OutputError when the marker is unreadable or names an unknown kind, or when the files
    of more than one kind are mixed in it (and it has no marker)."""
    if not path.is_dir():
        return None
    marker = path / MARKER
    if marker.is_file():
        try:
            kind = json.loads(marker.read_text()).get("kind")
        except (OSError, ValueError, AttributeError) as exc:
            raise OutputError(f"{path}: its {MARKER} is not readable ({exc}); it should hold "
                              f'{{"kind": "run"}}, "sweep" or "reproduction"') from None
        if kind not in KINDS:
            raise OutputError(f"{path}: its {MARKER} names kind {kind!r}; known kinds: {', '.join(KINDS)}")
        return str(kind)
    signs = _signs(path)
    if len(signs) > 1:
        found = "; ".join(f"{k}: {', '.join(v)}" for k, v in signs.items())
        raise OutputError(f"{path} holds the results of more than one kind ({found}) and no {MARKER}; "
                          f"move them apart, or add a {MARKER} naming its kind")
    return next(iter(signs), None)


def mark(path: Path, kind: str) -> None:
    """Record ``path``'s kind (the directory must exist)."""
    from dcnsim._ext import __version__
    from dcnsim._files import write_text_atomic

    write_text_atomic(path / MARKER, json.dumps({"kind": kind, "version": __version__}) + "\n")


def check_out_dir(out: Union[str, os.PathLike[str]], kind: str, option: str = "--out") -> Path:
    """Check before simulating that ``out`` can become (or already is) a ``kind`` result
    directory: not a file, writable, and holding no results of another kind. Creates
    nothing. Returns ``out`` as a Path; raises OutputError saying what is wrong."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path}: is a file, not a directory; give a new or a {kind} directory")
    check_kind(path, kind, option)
    _check_writable(path, option)
    return path


def check_kind(path: Path, kind: str, option: str = "--out") -> None:
    """Raise OutputError when the directory ``path`` holds results of another kind than
    ``kind`` (or of several kinds)."""
    if not path.is_dir():
        return
    try:
        found = kind_of(path)
    except OutputError as exc:
        raise OutputError(f"{option} {exc}") from None
    if found is not None and found != kind:
        raise OutputError(f"{option} {path}: holds the results of a {found} (written by {_WRITTEN_BY[found]}); "
                          f"a {kind} does not write there: give another directory")


def check_out_file(out: Union[str, os.PathLike[str]], option: str = "--out", replaces: str = "") -> Path:
    """Check that the file ``out`` can be written: not a directory, in a writable
    directory (created if missing). An existing file is replaced only when its first
    4 KiB hold ``replaces`` (say, the title of a page written before)."""
    path = Path(out)
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a directory; give a file name such as {path / 'report.html'}")
    if path.exists():
        try:
            with path.open("rb") as f:
                head = f.read(4096).decode("utf-8", errors="replace")
        except OSError as exc:
            raise OutputError(f"{option} {path}: cannot be read or replaced ({exc.strerror or exc})") from None
        if replaces and replaces not in head:
            raise OutputError(f"{option} {path}: the file exists and was not written by dcnsim; "
                              "give a new file name or remove it")
        if not os.access(path, os.W_OK):
            raise OutputError(f"{option} {path}: the file cannot be written (permission denied)")
    _check_writable(path.parent, option)
    return path


def _check_writable(path: Path, option: str) -> None:
    """The nearest existing directory on the way to ``path`` must take a new file."""
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(f"{option} {path}: {probe} is a file, not a directory")
    try:
        fd, name = tempfile.mkstemp(prefix=".dcnsim-probe-", dir=probe)
    except OSError as exc:
        raise OutputError(f"{option} {path}: cannot write in {probe} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(name)


def save_elsewhere(out: Path, write: Callable[[Path], Any]) -> Optional[Path]:
    """After ``write(out)`` failed: write to a fresh directory instead, the first that
    works of ``<out>.saved-<n>`` beside ``out``, ``./dcnsim-saved-<n>`` and the same in
    the temporary directory. Returns where, or None if nothing could take it."""
    name = out.name or "results"
    for parent, stem in ((out.parent, f"{name}.saved"), (Path.cwd(), "dcnsim-saved"),
                         (Path(tempfile.gettempdir()), f"dcnsim-{name}.saved")):
        for n in range(1, 1000):
            candidate = parent / f"{stem}-{n}"
            try:
                candidate.mkdir(parents=False)
            except FileExistsError:
                continue
            except OSError:
                break
            try:
                write(candidate)
            except OSError:
                break
            return candidate
    return None


def write_or_save(out: Path, write: Callable[[Path], Any], result: Any, what: str = "results") -> None:
    """``write(out)``; when that fails with an OSError, save elsewhere and raise
    :class:`ResultsSavedElsewhere` saying where (or that nothing could be saved)."""
    try:
        write(out)
    except OSError as exc:
        reason = exc.strerror or str(exc) or errno.errorcode.get(exc.errno or 0, "error")
        saved = save_elsewhere(out, write)
        where = f"saved them to {saved} instead" if saved else "and no other directory could take them"
        raise ResultsSavedElsewhere(f"cannot write the {what} to {out} ({reason}); {where}", result, saved) from exc
