"""Scenario and sweep files are data: where the files they name may be, and how big.

Scenario and sweep files are parsed as TOML (``tomllib``) and nothing in them is ever
evaluated, imported or unpickled. A file can still name other files (flow-size CDFs,
flow lists, topologies, noise CDFs, a sweep's base scenario) and, through its ``name``,
the default result directory; a scenario received from someone else must not make
``dcnsim`` read ``/etc/shadow`` into an error message or write over ``~/.ssh``. So:

**Inputs.** Every path a scenario names (any ``file`` or ``cdf`` field, at any depth:
``topology.file``, ``workload.N.file``, ``workload.N.cdf``, ``transport.delay_noise.cdf``)
and a sweep's ``base`` must resolve, after following symlinks, inside one of:

1. the directory tree of the file that names it (the scenario's directory; for a dict
   scenario, the ``base_dir`` given or the working directory);
2. a ``workloads/`` directory beside one of that directory's ancestors (how this
   repository's ``benches/``, ``examples/`` and ``experiments/<paper>/`` reach
   ``workloads/``; a project laid out the same way works too), or the ``workloads/`` of
   the dcnsim checkout itself;
3. a directory allowed explicitly: ``--allow-dir DIR`` (repeatable) or the environment
   variable ``DCNSIM_ALLOW_DIRS`` (directories separated by ``os.pathsep``).

Anything else is refused before any simulation starts, with the field and the path.

**Outputs.** Paths given on the command line or to the Python API (``--out``, ``out=``)
are the user's own choice and are used as given. The one output path a file decides is
``dcnsim run``'s default ``results/<name>``: ``name`` must then be a single plain path
component, so the directory stays inside ``results/`` of the working directory.

**Sizes.** Scenario and sweep files: at most 1 MiB. Files a scenario names: at most
256 MiB each (the core reads each whole). Sweeps: at most 10,000 points, counted before
any is built.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from dcnsim._ext import ScenarioError

MAX_SPEC_FILE_BYTES = 1 << 20
MAX_DATA_FILE_BYTES = 256 << 20
MAX_SWEEP_POINTS = 10_000
ALLOW_ENV = "DCNSIM_ALLOW_DIRS"
# Field names whose string values are file paths, wherever they occur in a scenario.
PATH_FIELDS = frozenset({"file", "cdf"})
# The checkout's own workloads/ (absent from an installed wheel, which ships none).
_PROJECT_WORKLOADS = Path(__file__).resolve().parents[2] / "workloads"


def read_spec_file(path: Path, what: str) -> str:
    """The text of a scenario or sweep file, refusing one over the size limit before
    reading it (a multi-gigabyte "scenario" would otherwise be read whole)."""
    size = path.stat().st_size
    if size > MAX_SPEC_FILE_BYTES:
        raise ScenarioError(f"{path}: {size:,} bytes, over the {MAX_SPEC_FILE_BYTES:,}-byte limit of a {what} file")
    with path.open("rb") as f:
        data = f.read(MAX_SPEC_FILE_BYTES + 1)
    if len(data) > MAX_SPEC_FILE_BYTES:  # grew since stat, or not a regular file
        raise ScenarioError(f"{path}: over the {MAX_SPEC_FILE_BYTES:,}-byte limit of a {what} file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: not UTF-8 ({exc})") from None


def allowed_dirs(base_dir: Path, allow: Iterable[Any] = ()) -> list[Path]:
    """The directories inputs may resolve into for a file in ``base_dir`` (see above)."""
    base = Path(base_dir).resolve()
    roots = [base]
    for ancestor in (base, *base.parents):
        candidate = ancestor / "workloads"
        if candidate.is_dir():
            roots.append(candidate.resolve())
    if _PROJECT_WORKLOADS.is_dir():
        roots.append(_PROJECT_WORKLOADS)
    extra = [*allow, *(d for d in os.environ.get(ALLOW_ENV, "").split(os.pathsep) if d)]
    roots.extend(Path(d).expanduser().resolve() for d in extra)
    unique: list[Path] = []
    for r in roots:
        if r not in unique:
            unique.append(r)
    return unique


def check_path(field: str, value: str, base_dir: Path, roots: list[Path]) -> Path:
    """``value`` (relative to ``base_dir``) resolved, or a ScenarioError naming ``field``
    when it lies outside ``roots`` or is over the size limit."""
    if "\x00" in value:
        raise ScenarioError(f"{field}: {value!r}: a path cannot contain a NUL character")
    # Joined exactly as the core joins it (no `~` expansion), so the file checked is the file read.
    resolved = (Path(base_dir) / value).resolve()
    if not any(resolved == r or resolved.is_relative_to(r) for r in roots):
        raise ScenarioError(
            f"{field}: {value!r} resolves to {resolved}, outside the directories a scenario may read from "
            f"({', '.join(str(r) for r in roots)}); allow its directory with --allow-dir or {ALLOW_ENV}"
        )
    if resolved.is_file() and resolved.stat().st_size > MAX_DATA_FILE_BYTES:
        raise ScenarioError(f"{field}: {resolved}: {resolved.stat().st_size:,} bytes, over the "
                            f"{MAX_DATA_FILE_BYTES:,}-byte limit of a file a scenario names")
    return resolved


def path_fields(spec: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every ``(dotted field, path)`` in ``spec`` whose key is one of PATH_FIELDS."""
    if isinstance(spec, dict):
        for key, value in spec.items():
            here = f"{prefix}.{key}" if prefix else str(key)
            if key in PATH_FIELDS and isinstance(value, str):
                yield here, value
            else:
                yield from path_fields(value, here)
    elif isinstance(spec, list):
        for i, value in enumerate(spec):
            yield from path_fields(value, f"{prefix}.{i}")


def check_inputs(spec: dict[str, Any], base_dir: Path, allow: Iterable[Any] = (),
                 roots: Optional[list[Path]] = None) -> None:
    """Refuse a scenario naming a file outside the allowed directories or over the size
    limit; ``roots`` saves recomputing :func:`allowed_dirs` across a sweep's points."""
    roots = allowed_dirs(base_dir, allow) if roots is None else roots
    for field, value in path_fields(spec):
        check_path(field, value, base_dir, roots)


def default_out_name(name: Any, fallback: str) -> str:
    """The directory under ``results/`` that ``dcnsim run`` writes to without ``--out``:
    the scenario's ``name`` when it is one plain path component, else an error."""
    if name is None or name == "":
        return fallback
    text = str(name)
    if text in (".", "..") or any(c in text for c in ("/", "\\", "\x00")) or Path(text).is_absolute():
        raise ScenarioError(f"name: {text!r} cannot be a directory under results/ (it must be one plain path "
                            "component); rename the scenario or give --out")
    return text


def check_point_count(sizes: Iterable[int]) -> None:
    """Refuse a sweep whose axes multiply to more than MAX_SWEEP_POINTS points."""
    total = math.prod(sizes)
    if total > MAX_SWEEP_POINTS:
        raise ScenarioError(f"sweep.axes: {total:,} points, over the limit of {MAX_SWEEP_POINTS:,} per sweep; "
                            "split it into several sweeps")
