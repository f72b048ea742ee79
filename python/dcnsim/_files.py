"""Writing result files so that a run killed at any instant leaves each file whole or absent.

A sweep or reproduction resumes from the files it finds (``done.json``, a cache entry); a
file cut short by SIGKILL would be read back as a corrupt result. Writing to a temporary
name in the same directory and renaming it is atomic on POSIX file systems.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path``: readers see the old file, or none, or all of ``text``."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)
