"""The acceptance checks' one type and the helpers their tables share.

Every harness states its checks as :class:`Check`: what is checked, our value, the target
(the paper's number or the acceptance criterion), a status and, where a harness numbers
its checks (``AC15``, ``B3``), the id, and why a check could not be evaluated. The words
of a status are the harness's: ``holds`` / ``fails`` / ``not run`` (:func:`verdict`), or
``PASS`` / ``FAIL`` / ``n/a`` in the MSwift tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class Check:
    name: str  # what is checked
    ours: str
    target: str  # the paper's number, or the criterion
    status: str = ""
    id: str = ""  # e.g. "AC15", "B3"; empty where a harness does not number its checks
    why: str = ""  # why it was not evaluated

    @classmethod
    def with_id(cls, id: str, name: str, ours: str, target: str, status: str, why: str = "") -> Check:
        return cls(name, ours, target, status, id, why)


def verdict(ok: Optional[bool], unknown: str = "not run") -> str:
    """``holds`` / ``fails``, or ``unknown`` when the check has no data (``ok`` None)."""
    return unknown if ok is None else ("holds" if ok else "fails")


def fmt(x: Any, spec: str = ".3f") -> str:
    """``x`` formatted by ``spec``; ``n/a`` for None or NaN."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def finite(*xs: Optional[float]) -> bool:
    """Every value known and finite."""
    return all(x is not None and math.isfinite(x) for x in xs)
