"""A small Parquet writer in pure Python, for the flow table of a run.

Importing numpy and pyarrow takes about 0.2 s, more than a small simulation, and a plain
``dcnsim run`` needs nothing else from them. This writes a table of plain columns (whole
numbers, floats, booleans, strings: what the core's flow table holds) as one row group of
uncompressed pages in Parquet's PLAIN encoding, every column optional as pandas writes
them, NaN stored as null. ``pandas.read_parquet`` and ``pyarrow.parquet.read_table`` read
it back as the DataFrame pandas would have written. Tables with categorical columns, and
large ones (where compression and speed matter), go through pyarrow instead
(:func:`dcnsim._tables.write_parquet`).

The format: https://parquet.apache.org/docs/file-format/ and its Thrift definitions
(``parquet.thrift``), written here in Thrift's compact protocol.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

# Thrift compact protocol type codes.
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12
_CODES = {"i32": _I32, "i64": _I64, "bin": _BINARY, "struct": _STRUCT}
# Parquet's enums.
_BOOLEAN, _INT64, _DOUBLE, _BYTE_ARRAY = 0, 2, 5, 6
_OPTIONAL = 1
_PLAIN, _RLE = 0, 3
_UTF8 = 0
_DATA_PAGE = 0
_UNCOMPRESSED = 0


def supports(columns: dict[str, Any]) -> bool:
    """Whether :func:`write` takes this table: plain columns, at least one row."""
    return bool(columns) and all(not isinstance(v, tuple) and len(v) > 0 for v in columns.values())


def write(columns: dict[str, Any], path: Path) -> None:
    rows = len(next(iter(columns.values())))
    body = bytearray(b"PAR1")
    schema = [[(4, "bin", "schema"), (5, "i32", len(columns))]]
    chunks = []
    for name, values in columns.items():
        kind, page = _page(list(values))
        header = _struct([(1, "i32", _DATA_PAGE), (2, "i32", len(page)), (3, "i32", len(page)),
                          (5, "struct", [(1, "i32", rows), (2, "i32", _PLAIN), (3, "i32", _RLE), (4, "i32", _RLE)])])
        offset = len(body)
        body += header + page
        size = len(header) + len(page)
        text = kind == _BYTE_ARRAY
        schema.append([(1, "i32", kind), (3, "i32", _OPTIONAL), (4, "bin", name),
                       (6, "i32", _UTF8 if text else None), (10, "struct", [(1, "struct", [])] if text else None)])
        meta = [(1, "i32", kind), (2, ("list", "i32"), [_PLAIN, _RLE]), (3, ("list", "bin"), [name]),
                (4, "i32", _UNCOMPRESSED), (5, "i64", rows), (6, "i64", size), (7, "i64", size), (9, "i64", offset)]
        chunks.append([(2, "i64", offset), (3, "struct", meta)])
    total = len(body) - 4
    footer = _struct([
        (1, "i32", 1),
        (2, ("list", "struct"), schema),
        (3, "i64", rows),
        (4, ("list", "struct"), [[(1, ("list", "struct"), chunks), (2, "i64", total), (3, "i64", rows)]]),
        (6, "bin", "dcnsim"),
    ])
    body += footer + struct.pack("<I", len(footer)) + b"PAR1"
    path.write_bytes(bytes(body))


def _page(values: list[Any]) -> tuple[int, bytes]:
    """The column's physical type and its data page: definition levels (1 = present,
    0 = null), then the present values."""
    first = values[0]
    present = [True] * len(values)
    if isinstance(first, bool):
        kind, data = _BOOLEAN, _bits(values)
    elif isinstance(first, int):
        kind, data = _INT64, struct.pack(f"<{len(values)}q", *values)
    elif isinstance(first, float):
        present = [not math.isnan(v) for v in values]
        kept = [v for v, p in zip(values, present) if p]
        kind, data = _DOUBLE, struct.pack(f"<{len(kept)}d", *kept)
    else:
        encoded = [str(v).encode() for v in values]
        kind, data = _BYTE_ARRAY, b"".join(struct.pack("<I", len(b)) + b for b in encoded)
    levels = _levels(present)
    return kind, struct.pack("<I", len(levels)) + levels + data


def _levels(present: list[bool]) -> bytes:
    """Definition levels in the RLE hybrid encoding, bit width 1: one run per stretch
    of equal levels (a run is its length shifted left by one, then the level's byte)."""
    out = bytearray()
    start = 0
    for i in range(1, len(present) + 1):
        if i == len(present) or present[i] != present[start]:
            out += _varint((i - start) << 1) + bytes([present[start]])
            start = i
    return bytes(out)


def _bits(values: list[bool]) -> bytes:
    """Booleans packed eight to a byte, the first in the lowest bit."""
    return bytes(sum(bool(v) << j for j, v in enumerate(values[i:i + 8])) for i in range(0, len(values), 8))


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def _struct(fields: list[tuple[int, Any, Any]]) -> bytes:
    """A Thrift struct from (field id, type, value) in increasing id order; None values
    are left out. Types: "i32", "i64", "bin", "struct" (a list of fields) or
    ("list", element type)."""
    out = bytearray()
    last = 0
    for field, kind, value in fields:
        if value is None:
            continue
        code = _LIST if isinstance(kind, tuple) else _CODES[kind]
        out.append(((field - last) << 4) | code)  # ids here never jump by more than 15
        last = field
        out += _value(kind, value)
    out.append(0)
    return bytes(out)


def _value(kind: Any, value: Any) -> bytes:
    if isinstance(kind, tuple):
        element = kind[1]
        n = len(value)
        head = bytes([(n << 4) | _CODES[element]]) if n < 15 else bytes([0xF0 | _CODES[element]]) + _varint(n)
        return head + b"".join(_value(element, v) for v in value)
    if kind in ("i32", "i64"):
        return _zigzag(value)
    if kind == "bin":
        data = value.encode()
        return _varint(len(data)) + data
    return _struct(value)
