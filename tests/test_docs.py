"""docs/ builds with `mkdocs build --strict` (a broken link or anchor, or a page left out of
the nav, fails it), its tables render as tables, and the README stays short."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def raw_table_rows(html: str) -> list[str]:
    """Lines of rendered text that start with a pipe: table rows Markdown did not take as a
    table (say after a blank line inside it). Code blocks are left out."""
    text = re.sub(r"<pre.*?</pre>", "", html, flags=re.S)
    return re.findall(r"(?m)^(?:<p>)?\|.*", text)


def test_raw_table_rows_are_found() -> None:
    # The check below would see the README's old [switch] table, split by a blank line.
    assert raw_table_rows("<table>\n</table>\n<p>| <code>ack_priority</code> | <code>true</code> |\n| b | c |</p>") == [
        "<p>| <code>ack_priority</code> | <code>true</code> |", "| b | c |</p>"]
    assert raw_table_rows("<pre><code>| a | b |\n</code></pre>\n<p>a | b</p>") == []


def test_docs_build_strict_with_every_table_rendered(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = list(site.rglob("*.html"))
    assert len(pages) > len(list((ROOT / "docs").rglob("*.md")))
    broken = {str(p.relative_to(site)): rows[:3] for p in pages if (rows := raw_table_rows(p.read_text()))}
    assert not broken


def test_readme_is_short_and_links_only_to_files_that_exist() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 300
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), target


def test_readme_tables_render_as_tables() -> None:
    import markdown

    html = markdown.markdown((ROOT / "README.md").read_text(), extensions=["tables", "fenced_code"])
    assert "<table>" in html
    assert not raw_table_rows(html)
