"""Statistics more than one harness uses."""

from __future__ import annotations

import math
import statistics
from typing import Sequence


def mean_sem(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (stdev with ddof = 1, over sqrt(n)).

    The SEM of fewer than two values is NaN; the mean of none is NaN.
    """
    xs = [float(v) for v in values]
    if not xs:
        return math.nan, math.nan
    mean = sum(xs) / len(xs)
    if len(xs) < 2:
        return mean, math.nan
    return mean, statistics.stdev(xs) / math.sqrt(len(xs))
