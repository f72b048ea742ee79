"""examples/tour.ipynb runs top to bottom in a fresh kernel, plots, and writes nothing
into the repository."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "tour.ipynb"


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if ".git" not in p.parts and "__pycache__" not in p.parts}


def test_tour_notebook_runs_top_to_bottom(tmp_path: Path, child_env: dict[str, str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "the notebook is committed without outputs"
    # The kernel inherits the environment: the same dcnsim as these tests, and the
    # notebook's temporary directory inside this test's.
    monkeypatch.setenv("PYTHONPATH", child_env["PYTHONPATH"])
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    before = _files(ROOT / "examples")

    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    assert sum("image/png" in out.get("data", {}) for out in outputs) == 2  # the FCT CDFs and the queue
    pages = sorted(p.relative_to(tmp_path).parts[1:] for p in tmp_path.glob("dcnsim-tour-*/*/report.html"))
    assert pages == [("dctcp", "report.html"), ("swift", "report.html")]
    assert _files(ROOT / "examples") == before
