"""Unit parsing for the few scenario values the harnesses read (the core validates the
scenarios themselves), and the serialisation time of a packet."""

from __future__ import annotations

import re
from typing import Any

_RATE = {"bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12,
         "b/s": 1.0, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12}
_TIME_US = {"ps": 1e-6, "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
_SIZE = {"b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def _split_unit(text: str) -> tuple[float, str]:
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z/]*)\s*", str(text))
    if not m:
        raise ValueError(f"cannot read {text!r}")
    return float(m.group(1)), m.group(2).lower()


def rate_bps(text: str) -> float:
    value, unit = _split_unit(text)
    return value * _RATE[unit]


def time_us(text: Any) -> float:
    if isinstance(text, (int, float)):
        return float(text) * 1e-6  # a bare number is picoseconds in dcnsim only when 0
    value, unit = _split_unit(text)
    return value * _TIME_US[unit or "us"]


def size_bytes(value: Any) -> int:
    if isinstance(value, int):
        return value
    number, unit = _split_unit(value)
    return round(number * _SIZE[unit or "b"])


def ser_us(nbytes: float, rate: float) -> float:
    """Serialisation time of ``nbytes`` at ``rate`` bits/s, in microseconds."""
    return nbytes * 8 / rate * 1e6
