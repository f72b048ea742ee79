"""The reproduction registry: ``dcnsim reproduce --list`` shows every paper it holds, each
paper's package provides what the command calls, and the package stays in modules of at
most 800 lines."""

from __future__ import annotations

import inspect
import subprocess
from pathlib import Path
from typing import Callable

import pytest

import dcnsim
from dcnsim.repro.core import Reproduction
from dcnsim.repro.registry import PAPERS, listing, load


def test_the_list_names_every_paper(dcnsim_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    done = dcnsim_cli("reproduce", "--list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == list(PAPERS)
    assert done.stdout.strip() == listing()
    for paper in PAPERS.values():
        assert paper.description in done.stdout


def test_reproduce_without_a_paper_is_refused(dcnsim_cli: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    done = dcnsim_cli("reproduce")
    assert done.returncode == 2
    assert "--list" in done.stderr


def test_an_unknown_paper_is_refused_with_the_choices(
    dcnsim_cli: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = dcnsim_cli("reproduce", "nosuchpaper")
    assert done.returncode == 2
    for name in PAPERS:
        assert name in done.stderr


@pytest.mark.parametrize("name", list(PAPERS))
def test_every_paper_package_provides_its_reproduction(name: str) -> None:
    module = load(name)
    repro = module.reproduction()
    assert isinstance(repro, Reproduction)
    assert repro.paper == name
    params = inspect.signature(module.reproduce).parameters
    for option in ("quick", "seeds", "jobs", "only", "out", "stream", "dask"):
        assert option in params, (name, option)
    assert repro.select(None), name


def test_no_module_of_the_package_is_over_800_lines() -> None:
    root = Path(dcnsim.__file__).parent
    long = {str(p.relative_to(root)): n for p in root.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 800}
    assert not long, long
