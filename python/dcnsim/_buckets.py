"""Flow-size buckets shared by the PNG plots and the HTML report, so that both group
flows the same way."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

SIZE_BINS = 12  # at most this many buckets (log-spaced when sizes vary more)


class SizeBuckets(NamedTuple):
    centres: np.ndarray  # one per bucket: where it is plotted
    lower: np.ndarray  # the bucket's smallest size
    upper: np.ndarray  # and its largest
    which: np.ndarray  # for each size given, the index of its bucket


def size_buckets(sizes: np.ndarray, bins: int = SIZE_BINS) -> SizeBuckets:
    """Bucket flow sizes.

    Workloads of fixed sizes have few distinct sizes, and each gets a bucket of its own
    (centre = lower = upper = the size); otherwise the range is cut into ``bins``
    log-spaced buckets, as a flow-size CDF spans several orders of magnitude.
    """
    unique = np.unique(sizes)
    if unique.size <= bins:
        return SizeBuckets(unique, unique, unique, np.searchsorted(unique, sizes))
    edges = np.geomspace(unique[0], unique[-1], bins + 1)
    centres = np.sqrt(edges[:-1] * edges[1:])
    which = np.clip(np.searchsorted(edges, sizes, side="right") - 1, 0, bins - 1)
    return SizeBuckets(centres, edges[:-1], edges[1:], which)
