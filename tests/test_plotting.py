import csv
import json
import re

import pytest

from attnlab.plotting import figure, savefig


def test_savefig_writes_four_files_with_embedded_fonts(tmp_path):
    fig, ax = figure()
    ax.plot([1, 2, 3], [1, 4, 9], label="y = x²")
    ax.set_xlabel("x")
    files = savefig(fig, "demo-fig", data={"x": [1, 2, 3], "y": [1, 4, 9], "short": [0]},
                    params={"seed": 0}, outdir=tmp_path)
    pdf = (tmp_path / "demo-fig.pdf").read_bytes()
    assert b"/FontFile2" in pdf and not re.search(rb"/Subtype\s*/Type3", pdf)
    assert (tmp_path / "demo-fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.reader(open(tmp_path / "demo-fig.csv")))
    assert rows[0] == ["x", "y", "short"] and rows[1] == ["1", "1", "0"] and rows[3] == ["3", "9", ""]
    meta = json.loads((tmp_path / "demo-fig.json").read_text())
    assert meta["figure"] == "demo-fig" and meta["parameters"] == {"seed": 0} and meta["backend"] in ("numpy", "cupy")
    assert "{download}" in files._repr_markdown_() and 'href="' in files._repr_html_()


def test_savefig_rejects_bad_names(tmp_path):
    fig, _ = figure()
    with pytest.raises(ValueError, match="name"):
        savefig(fig, "../escape", outdir=tmp_path)
