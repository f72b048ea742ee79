"""The cells, run results and grids the paper harnesses share.

- :class:`Cell`: one run of a reproduction: an experiment (or figure), a point of its
  sweep, a variant (scheme, CCA), a seed and the resolved scenario, with the cache key.
  A harness subclasses it for the widths of its progress line, the name of its variant
  in the cache files, or fields of its own (the run description it came from).
- :class:`RunResult`: a cell and its record (what :func:`dcnsim.repro.core.simulate`
  keeps of a run): the error, flow table, ``extra`` summary and counters.
- :class:`Grid`: one experiment's results, with its points, variants and seeds, and the
  runs of one (point, variant).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Optional, Sequence, TypeVar

from dcnsim.repro.core import run_key


@dataclass
class Cell:
    """One run of a reproduction."""

    exp: str
    point: str
    variant: str
    seed: int
    spec: dict[str, Any] = field(repr=False)
    key: str = ""

    # The progress line: format specs of the experiment, point and variant columns.
    label_formats: ClassVar[tuple[str, str, str]] = ("", "", "")
    # What the cache file calls the variant ("variant", "scheme", ...).
    variant_name: ClassVar[str] = "variant"

    def progress_label(self) -> str:
        e, p, v = self.label_formats
        return f"{self.exp:{e}} {self.point:{p}} {self.variant:{v}} seed {self.seed:<2}"

    def cache_meta(self) -> dict[str, Any]:
        return {"experiment": self.exp, "point": self.point, self.variant_name: self.variant, "seed": self.seed}

    def keyed(self, fingerprint: str, columns: Optional[Sequence[str]] = None, version: Optional[str] = None,
              key_spec: Optional[dict[str, Any]] = None) -> Cell:
        """Set the cache key (of ``key_spec``, default the cell's scenario) and return the
        cell. With ``columns`` and ``version`` the flow columns a record keeps and the
        version of the harness's summary are part of the key, so a cache written with
        fewer columns or an older summary is not reused."""
        if columns is not None:
            fingerprint = f"{fingerprint}|{','.join(columns)}|{version}"
        self.key = run_key(self.spec if key_spec is None else key_spec, fingerprint)
        return self


C = TypeVar("C")


@dataclass
class RunResult(Generic[C]):
    """A cell and its record."""

    cell: C
    record: dict[str, Any]

    @property
    def error(self) -> Optional[str]:
        return self.record.get("error")

    @property
    def flows(self) -> dict[str, list[Any]]:
        return self.record.get("flows") or {}

    @property
    def extra(self) -> dict[str, Any]:
        return self.record.get("extra") or {}

    def stat(self, name: str) -> Any:
        """A counter of the run as a float; NaN when the record has none."""
        v = (self.record.get("stats") or {}).get(name)
        return float(v) if v is not None else math.nan

    def finished(self) -> tuple[int, int]:
        """(flows finished, flows)."""
        f = self.flows.get("finished", [])
        return sum(1 for x in f if x), len(f)


R = TypeVar("R", bound=RunResult[Any])


class Grid(Generic[R]):
    """One experiment's results: its points and variants in the order the results give
    them, and the number of seeds."""

    # Whether :meth:`runs` leaves out the runs that failed.
    skip_errors: ClassVar[bool] = True

    def __init__(self, exp: Any, results: list[R]) -> None:
        self.exp = exp
        self.results = results
        self.points = list(dict.fromkeys(r.cell.point for r in results))
        self.variants = list(dict.fromkeys(r.cell.variant for r in results))
        self.seeds = len({r.cell.seed for r in results})

    def runs(self, point: str, variant: str) -> list[R]:
        return [r for r in self.results if r.cell.point == point and r.cell.variant == variant
                and not (self.skip_errors and r.error)]
