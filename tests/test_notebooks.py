"""Committed chapters carry no outputs, have the book's shape and an up-to-date bootstrap cell.

Each chapter is executed once per CI run at each scale: at ``smoke`` by its Colab edition as a reader runs it
(tests/test_colab.py: the edition holds the chapter's code cells, and that test also checks the run saved its
figures), and at ``book`` by the book's build (scripts/build-book.sh), which runs the chapter itself.
"""
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_chapters():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c["outputs"] or c["execution_count"])]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs; strip them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_shape(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert "remove-input" in first.metadata.get("tags", []) and "Colab bootstrap" in first.source
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "SEED" in params[0].source and "SCALE" in params[0].source
    assert params[0] is next(c for c in nb.cells[1:] if c.cell_type == "code"), "parameters come before other code"
    assert nb.cells[1].cell_type == "markdown" and nb.cells[1].source.startswith("# "), "the title comes first"
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## Verdicts" in text and "## What this means" in text and "## References" in text
    assert "{prf:" in text and "{glue:" in text
    # a backtick in the info string of a backtick fence is not CommonMark: the directive silently disappears
    bad = [line for line in text.splitlines() if line.startswith("```{") and "`" in line[3:]]
    assert not bad, f"directive titles with backticks: {bad}"


def test_bootstrap_cells_match_config():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "sync_bootstrap.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_names_the_chapter_reads_from_its_audit_module_exist(path):
    """``audit.NAME`` in a chapter's code resolves (an unused-import fix can remove a re-export a page reads)."""
    import importlib
    import re

    src = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    missing = []
    for m in re.finditer(r"from attnlab\.audit import (\w+) as (\w+)", src):
        module = importlib.import_module(f"attnlab.audit.{m.group(1)}")
        missing += [f"{m.group(2)}.{n}" for n in sorted(set(re.findall(rf"(?<![\w.]){m.group(2)}\.(\w+)", src)))
                    if not hasattr(module, n)]
    assert not missing, missing
