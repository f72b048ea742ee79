"""Pieces of the reproductions' tables: ``--only`` parsing, padded rows and the table of
the paper's headline results beside ours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence


def select_keys(text: Optional[str], known: Sequence[str], noun: str,
                normalise: Callable[[str], str] = str.upper) -> list[str]:
    """The keys ``--only`` names (comma-separated, each stripped and ``normalise``-d), in
    the paper's order (that of ``known``); every key when it names none. ValueError names
    the unknown ones, e.g. "--only: unknown experiment E9 (known: E1, E2)"."""
    if not text:
        return list(known)
    keys = [normalise(k.strip()) for k in text.split(",") if k.strip()]
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"--only: unknown {noun} {', '.join(unknown)} (known: {', '.join(known)})")
    return [k for k in known if k in keys]


def pad_rows(rows: Sequence[Sequence[str]], right: bool = False) -> list[str]:
    """Table rows as text lines, the cells joined by " | ", each column as wide as its
    widest cell, left-aligned (``right``: right-aligned, for columns of numbers); a short
    row simply ends early."""
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(len(r) for r in rows))]
    align = str.rjust if right else str.ljust
    return [" | ".join(align(c, w) for c, w in zip(r, widths)).rstrip() for r in rows]


@dataclass
class Headline:
    """One of the paper's headline results beside ours."""

    id: str
    what: str
    paper: str
    ours: str


def headline_table(headlines: Sequence[Headline]) -> str:
    rows = [["#", "result", "paper", "ours"]] + [[h.id, h.what, h.paper, h.ours] for h in headlines]
    return "\n".join(pad_rows(rows))
