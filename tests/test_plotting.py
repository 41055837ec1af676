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


@pytest.mark.slow
def test_savefig_shows_its_links_once_wherever_it_is_called_in_a_cell(tmp_path):
    """In a kernel: links appear even when savefig is not the cell's last line, and only once when it is
    (the book's cite item hangs on these links: book/_ext/attnlab_cite.py). About 5 s (a kernel start)."""
    import os

    import nbformat
    from nbclient import NotebookClient

    setup = ("from attnlab.plotting import figure, savefig\n"
             f"OUT = {str(tmp_path)!r}\nfig, ax = figure()\nax.plot([0, 1], [0, 1])")
    cells = [setup, "savefig(fig, 'not-last', outdir=OUT)\n1 + 1", "savefig(fig, 'last', outdir=OUT)",
             "files = savefig(fig, 'named', outdir=OUT)\nfiles"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env={**os.environ})
    for cell, name in zip(nb.cells[1:], ("not-last", "last", "named")):
        links = [o for o in cell.outputs if "Download figure" in o.get("data", {}).get("text/markdown", "")]
        assert len(links) == 1 and f"`{name}`" in links[0]["data"]["text/markdown"], cell.outputs
        assert "text/html" in links[0]["data"]
    assert nb.cells[1].outputs[-1]["data"]["text/plain"] == "2"


def test_series_differ_by_colour_line_style_and_marker_without_yellow():
    import numpy as np

    from attnlab.plotting import CYCLE, OKABE_ITO

    styles = list(CYCLE)
    assert all(s["color"] != OKABE_ITO[4] for s in styles)
    for key in ("color", "linestyle", "marker"):
        assert len({str(s[key]) for s in styles}) == len(styles), key
    fig, ax = figure()
    a, = ax.plot(np.arange(100), np.arange(100), color="#000000")  # only a colour: style and marker from the cycle
    b, = ax.plot(np.arange(5), np.arange(5))
    fig.savefig(__import__("io").BytesIO(), format="svg")
    assert a.get_linestyle() != b.get_linestyle() and a.get_marker() != b.get_marker()
    assert a.get_markevery() is not None and b.get_markevery() is None  # a dense line: markers spread


def test_text_reads_at_column_width_and_yellow_is_replaced():
    import io

    from attnlab.plotting import OKABE_ITO, YELLOW_ON_WHITE, min_fontsize

    for ncols in (1, 2, 3):
        fig, axes = figure(ncols=ncols, squeeze=False)
        for ax in axes.ravel():
            ax.plot([1, 2], [1, 2], color=OKABE_ITO[4], label="a")
            ax.set_xlabel("x", fontsize=5)
            ax.legend(fontsize=4)
        out = io.StringIO()
        fig.savefig(out, format="svg")
        svg = out.getvalue()
        sizes = [float(s) * 100 for s in re.findall(r"scale\(([\d.]+) -[\d.]+\)", svg)]
        assert sizes and min(sizes) >= min_fontsize(fig.get_figwidth()) - 1e-3  # the SVG rounds to 6 digits
        assert OKABE_ITO[4].lower() not in svg.lower() and YELLOW_ON_WHITE.lower() in svg.lower()
