"""Human-readable numbers for the progress bar, the summary table and bench lines."""

from __future__ import annotations

from typing import Optional


def duration_us(us: Optional[float]) -> str:
    """A duration given in microseconds, in the unit that keeps it short: ``12.3 us``."""
    if us is None:
        return "-"
    if us < 1e3:
        return f"{us:.1f} us"
    if us < 1e6:
        return f"{us / 1e3:.2f} ms"
    return f"{us / 1e6:.3f} s"


def si(x: float) -> str:
    """A count or rate with an SI suffix: ``12.3M``."""
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= factor:
            return f"{x / factor:.1f}{suffix}"
    return f"{x:.0f}"
