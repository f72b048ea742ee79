"""Shared fixtures: small scenarios and a way to call the ``dcnsim`` command.

Tests marked ``core`` need the compiled extension. They fail when it is missing (so CI
cannot pass without it), unless DCNSIM_ALLOW_SKIP=1 is set, in which case they skip:
that is for working on the Python side in a checkout where nothing is built yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

import dcnsim

TINY = """\
name = "tiny"
seed = 1
[topology]
kind = "fat_tree"
tiers = 2
hosts = 16
link_rate = "100Gbps"
link_latency = "500ns"
[transport]
cc = "dctcp"
lb = "ecmp"
[[workload]]
kind = "permutation"
size = "1MB"
tag = "perm"
"""

# Far more work than a test waits for: 128 infinite flows for a simulated second.
LONG = """\
name = "long"
seed = 1
duration = "1s"
[topology]
kind = "fat_tree"
tiers = 3
hosts = 128
link_rate = "100Gbps"
link_latency = "500ns"
[transport]
cc = "dctcp"
lb = "ecmp"
[[workload]]
kind = "permutation"
size = "infinite"
stop = "1s"
tag = "perm"
"""


def _core_importable() -> bool:
    try:
        import dcnsim._core  # noqa: F401
    except ImportError:
        return False
    return True


CORE_AVAILABLE = _core_importable()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("core") is None or CORE_AVAILABLE:
        return
    if os.environ.get("DCNSIM_ALLOW_SKIP") == "1":
        pytest.skip("dcnsim._core is not built (DCNSIM_ALLOW_SKIP=1)")
    pytest.fail(
        "dcnsim._core is not importable: build it with `make build` "
        "(or set DCNSIM_ALLOW_SKIP=1 to skip the tests that need it)",
        pytrace=False,
    )


@pytest.fixture
def tiny_toml(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


@pytest.fixture
def long_toml(tmp_path: Path) -> Path:
    path = tmp_path / "long.toml"
    path.write_text(LONG)
    return path


@pytest.fixture(scope="session")
def child_env() -> dict[str, str]:
    """Environment for a child process that imports the same dcnsim as these tests,
    whether it is installed or found through a (possibly relative) PYTHONPATH."""
    package_root = str(Path(dcnsim.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


@pytest.fixture
def dcnsim_cli(tmp_path: Path, child_env: dict[str, str]) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run ``python -m dcnsim ARGS...`` in tmp_path and return the finished process."""

    def call(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dcnsim", *args],
            cwd=tmp_path, env=child_env, capture_output=True, text=True, timeout=600,
        )

    return call
