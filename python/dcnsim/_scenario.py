"""Scenario files: TOML loading and ``--set`` style overrides.

Everything here is plain Python on plain dicts, so it works (and is tested) without the
compiled simulator. Validation of the scenario's contents belongs to the core, which
knows the schema; this module only rejects what it cannot apply, such as an override of
a field whose parent table does not exist (almost always a typo that would otherwise be
silently ignored or reported against the wrong place).
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Union

from dcnsim._ext import ScenarioError
from dcnsim._inputs import read_spec_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older interpreters only
    import tomli as tomllib

StrPath = Union[str, "os.PathLike[str]"]


def load_scenario(path: StrPath, overrides: Iterable[str] = ()) -> tuple[dict[str, Any], Path]:
    """Read a scenario TOML file and apply ``key=value`` overrides to it.

    Returns the scenario as a dict and the directory that relative paths inside it
    (flow CSVs, htsim ``.cm`` files) are relative to: the file's own directory, so a
    scenario runs the same from any working directory.

    >>> spec, base_dir = load_scenario("examples/quickstart.toml", ["topology.hosts=64"])  # doctest: +SKIP
    >>> spec["topology"]["hosts"]  # doctest: +SKIP
    64

    Raises FileNotFoundError if the file does not exist and ScenarioError if it is over
    the size limit (see :mod:`dcnsim._inputs`), not valid TOML or an override cannot be
    applied. The paths the scenario names are checked by :func:`dcnsim.run`, after
    overrides, since an override can change them.
    """
    file = Path(path)
    text = read_spec_file(file, "scenario")
    try:
        spec = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{file}: not valid TOML: {exc}") from None
    return apply_overrides(spec, overrides), file.resolve().parent


def apply_overrides(spec: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``spec`` with each ``a.b.c=value`` override applied in order.

    The path is dotted; a numeric segment indexes an array of tables: ``workload.0.size=4MB``
    is the first ``[[workload]]``. Error messages spell paths the same way.

    The value is read as a TOML value when it is one (``1024``, ``true``, ``"x"``,
    ``[1, 2]``, ``{ kmin = "40KB" }``) and kept as a plain string otherwise, so units need
    no quoting on a shell command line (``800Gbps``, ``4MB``).

    A table on the path that the scenario lacks is created (``switch.buffer=2MB`` works
    without a ``[switch]`` table); the core then rejects a misspelt name such as
    ``topolgy``. An inline table merges into the table already there, key by key and at
    every depth, so ``switch={ buffer = "2MB" }`` keeps the switch's ECN settings. To
    replace a table whole, write ``:=`` instead of ``=`` (``switch.ecn:={ enabled = false }``).
    Arrays and single values are always replaced.

    >>> apply_overrides({"topology": {"hosts": 16}}, ["topology.hosts=128"])
    {'topology': {'hosts': 128}}
    >>> apply_overrides({"workload": [{"size": "1MB"}]}, ["workload.0.size=4MB"])
    {'workload': [{'size': '4MB'}]}
    >>> apply_overrides({"switch": {"ecn": {"kmin": "60KB"}}}, ['switch={ buffer = "2MB" }'])
    {'switch': {'ecn': {'kmin': '60KB'}, 'buffer': '2MB'}}
    >>> apply_overrides({"switch": {"ecn": {"kmin": "60KB"}}}, ['switch:={ buffer = "2MB" }'])
    {'switch': {'buffer': '2MB'}}
    """
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides must be a list of 'key=value' strings, not a single string")
    result = copy.deepcopy(spec)
    for item in overrides:
        _apply_one(result, item)
    return result


def _apply_one(spec: dict[str, Any], item: str) -> None:
    key, sep, raw = item.partition("=")
    key = key.strip()
    if not sep or not key.rstrip(":").strip():
        raise ScenarioError(f"override {item!r}: expected KEY=VALUE (or KEY:=VALUE to replace a table whole), "
                            "e.g. topology.hosts=128")
    path = key[:-1].rstrip() if key.endswith(":") else key
    if "" in [p.strip() for p in path.split(".")]:
        raise ScenarioError(f"override {item!r}: {path!r} has an empty path segment")
    set_path(spec, key, _parse_value(raw.strip()))


def set_path(spec: dict[str, Any], key: str, value: Any) -> None:
    """Set the field at dotted path ``key`` of ``spec`` (in place) to ``value``, with the
    rules of :func:`apply_overrides`: missing tables on the path are created, a numeric
    segment indexes an existing array entry, an inline table merges into the table there
    unless ``key`` ends with ``:`` (the ``KEY:=VALUE`` form), which replaces it."""
    replace = key.rstrip().endswith(":")
    if replace:
        key = key.rstrip()[:-1]
    parts = [p.strip() for p in key.split(".")]
    if "" in parts:
        raise ScenarioError(f"{key!r} has an empty path segment")
    key = ".".join(parts)
    node: Any = spec
    for depth, part in enumerate(parts):
        here = ".".join(parts[: depth + 1])
        last = depth == len(parts) - 1
        if isinstance(node, list):
            if not (part.isascii() and part.isdigit()) or int(part) >= len(node):
                raise ScenarioError(
                    f"{here}: no such entry ({'.'.join(parts[:depth])} has {len(node)} "
                    "entries, numbered from 0)"
                )
            index = int(part)
            if last:
                node[index] = value if replace else _merged(node[index], value)
            else:
                node = node[index]
        elif isinstance(node, dict):
            if last:
                node[part] = value if replace or part not in node else _merged(node[part], value)
                continue
            if part not in node:
                following = parts[depth + 1]
                if following.isascii() and following.isdigit():
                    raise ScenarioError(
                        f"{key}: the scenario has no {here} array to pick entry {following} from "
                        f"(add the array whole: {here}=[{{ key = value }}])"
                    )
                node[part] = {}
            node = node[part]
        else:
            parent = ".".join(parts[:depth])
            raise ScenarioError(
                f"{key}: {parent} is a single value ({node!r}), not a table or array"
            )


def _merged(old: Any, new: Any) -> Any:
    """``new`` laid over ``old``: tables merge key by key at every depth, anything else
    (arrays, single values, a table over a non-table) is replaced."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return new
    result = dict(old)
    for k, v in new.items():
        result[k] = _merged(result[k], v) if k in result else v
    return result


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def scenario_json(spec: dict[str, Any]) -> str:
    """Serialise a scenario for the core.

    TOML has two kinds of value JSON cannot carry: dates/times (sent as ISO strings, so
    the core reports them against their field like any other wrong-typed value) and
    ``inf``/``nan`` floats (rejected here, naming the field).
    """
    return json.dumps(_plain(spec, ""), allow_nan=False)


def _plain(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v, f"{path}.{k}" if path else k) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, f"{path}.{i}") for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{path}: {value} is not a finite number")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value
