"""The Python examples of the README and of docs/ run as written (in a scratch copy of the
examples), in reading order and one namespace, as a reader who follows along would run them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parent.parent
# The README's tour first, then the pages that continue it (outputs.md reads the quickstart
# result that python.md makes).
PAGES = ["README.md", "docs/python.md", "docs/outputs.md", "docs/sweeps.md"]


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), re.S)


def test_every_page_with_python_examples_is_run() -> None:
    pages = {str(p.relative_to(ROOT)) for p in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
             if python_blocks(str(p.relative_to(ROOT)))}
    assert pages == set(PAGES)


def test_readme_and_docs_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "workloads", tmp_path / "workloads")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for page in PAGES:
        blocks = python_blocks(page)
        assert blocks, f"{page} has Python examples"
        for block in blocks:
            exec(compile(block, page, "exec"), namespace)
    assert (tmp_path / "results" / "minimal-swift" / "flows.parquet").exists()
    assert (tmp_path / "results" / "quickstart-seed2" / "flows.parquet").exists()
    assert (tmp_path / "results" / "sweep-tiny" / "summary.parquet").exists()


def test_the_readme_scenario_is_examples_minimal_toml() -> None:
    # The README shows the scenario inline; the examples above run the file.
    blocks = re.findall(r"```toml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert (ROOT / "examples" / "minimal.toml").read_text() in blocks
