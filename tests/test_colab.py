"""The Colab edition: in sync with the chapters, converted without MyST left over, and runnable as a reader runs it.

The slow test does what a Colab reader does, from a clean clone: a fresh virtual environment, the edition's own
first cell installing attnlab (a normal install, with its notebook extra and dependencies) from the clone, every
chapter's edition executed at the smoke scale outside the repository. It then reads what the reader would see.
"""
import json
import os
import fcntl
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import make_colab  # noqa: E402

from attnlab.audit import edition  # noqa: E402
from attnlab.audit.verdict import readable  # noqa: E402

EDITIONS = sorted((ROOT / "colab").glob("*.ipynb"))
MACROS = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
MYST = ["{glue", "{prf", "{cite", "{doc}", "{numref}", "{download}", "```{", ":::{", "{ref}"]
MACRO_USE = re.compile(r"\\(" + "|".join(MACROS) + r")(?![A-Za-z])")


def test_editions_in_sync_with_the_chapters():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_colab.py"), "--check"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr + "\nrun: python scripts/make_colab.py"
    chapters = {Path(d).name for _, d in make_colab.load_book().chapters}
    assert {p.stem for p in EDITIONS} == chapters


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_edition_holds_the_chapters_code(path):
    """Every code cell of the chapter but its bootstrap is in the edition, verbatim: running the edition runs the
    chapter's code (which is why the test run executes each chapter once, as its edition)."""
    chapter = nbformat.read(ROOT / "notebooks" / path.name, 4)
    edition_code = [c.source for c in nbformat.read(path, 4).cells if c.cell_type == "code"]
    missing = [c.source[:120] for c in chapter.cells[1:] if c.cell_type == "code" and c.source not in edition_code]
    assert "Colab bootstrap" in chapter.cells[0].source and not missing, missing


@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_edition_has_no_myst_and_no_book_macros(path):
    nb = nbformat.read(path, 4)
    assert "ATTNLAB_EDITION" in nb.cells[0].source and nb.cells[0].metadata.get("cellView") == "form"
    for cell in nb.cells:
        text = cell.source if cell.cell_type == "markdown" else "".join(
            re.findall(r"(?:markdown|figure)\((.*)\)\s*$", cell.source, re.S))
        assert not [m for m in MYST if m in text.replace("{glue:text}`", "")], (path.name, text[:300])
        assert not MACRO_USE.search(text), (path.name, MACRO_USE.search(text).group(0))
        if cell.cell_type == "code":
            assert "myst_nb" not in cell.source


@pytest.mark.parametrize("source, expected", [
    (r"$\eps$ and $\norm{x}_2$", r"$\varepsilon$ and $\lVert x \rVert_2$"),
    (r"$\ip{a}{\norm{b}}$", r"$\left\langle a, \lVert b \rVert \right\rangle$"),
    (r"$\norm u^2$", r"$\lVert u \rVert^2$"),
    (r"$\R^d, \epsx$", r"$\mathbb{R}^d, \epsx$"),
    (r"$\rank A$", r"$\operatorname{rank} A$"),
])
def test_macro_expansion(source, expected):
    assert make_colab.expand_macros(source, MACROS) == expected


def test_conversion_of_directives_and_roles():
    book = make_colab.load_book()
    number, doc = book.chapters[0]
    conv = make_colab.Converter(book, doc, number)
    label, (ldoc, name) = next((k, v) for k, v in book.labels.items() if v[0] == doc and "Theorem" in v[1])
    fig, (_, fig_number) = next((k, v) for k, v in book.labels.items() if v[0] == doc and v[1].startswith("Fig."))
    pieces = conv.markdown_cell(f"See {{prf:ref}}`{label}`.\n\n```{{prf:proof}}\n:class: dropdown\n\n$\\eps$\n```\n"
                                f"```{{glue:figure}} fig-x\n:name: {fig}\n\nA caption {{glue:text}}`v:.2f`.\n```")
    kinds = [k for k, _ in pieces]
    assert kinds == ["md", "figure"]
    assert pieces[1][1] == ("fig-x", fig, f"**{fig_number}** A caption {{glue:text}}`v:.2f`.")
    assert f"[{name}](#{label})" in pieces[0][1] and "<details>" in pieces[0][1] and r"\varepsilon" in pieces[0][1]
    key = next(iter(book.bib))
    assert re.fullmatch(r"\(.+, \d{4}[a-z]?\)", conv.role(make_colab.ROLE.search(f"{{cite}}`{key}`")))
    with pytest.raises(make_colab.ConversionError, match="directive"):
        conv.markdown_cell("```{warning}\nx\n```")
    with pytest.raises(make_colab.ConversionError, match="citation"):
        conv.markdown_cell("{cite}`no-such-key`")
    with pytest.raises(make_colab.ConversionError, match="label"):
        conv.markdown_cell("{prf:ref}`no-such-label`")


@pytest.mark.parametrize("value, spec", [(0.123456, ".2f"), (12345.678, ".3g"), (3, "d"), (3, ""), ("abc", "s"),
                                         (1e-9, ".1e"), (0.5, ".0%"), (7, ".2f"), ("x_y", "")])
def test_glue_text_formats_like_myst_nb(value, spec):
    plain = edition._plain(value)
    mine = edition.format_plain_text(plain, spec)
    myst = pytest.importorskip("myst_nb.core.variables")
    assert mine == myst.format_plain_text(plain, spec)


def test_markdown_fills_values_glued_later(monkeypatch):
    monkeypatch.setenv(edition.EDITION_ENV, "colab")
    for name, fresh in (("_PENDING", []), ("_VALUES", {}), ("_PLAIN", {})):
        monkeypatch.setattr(edition, name, fresh)
    shown = []

    class Handle:
        def __init__(self, obj):
            self.obj = obj
            shown.append(self)

        def update(self, obj):
            self.obj = obj

    import IPython.display as ipd
    monkeypatch.setattr(ipd, "display", lambda obj, display_id=None: Handle(obj))
    edition.markdown("a = {glue:text}`probe-a:.1f`, b = {glue:text}`probe-b`")
    assert "⟨probe-a: computed below⟩" in shown[0].obj.data and sorted(edition.pending()) == ["probe-a", "probe-b"]
    edition.glue("probe-a", 0.25, display=False)
    edition.glue("probe-b", "yes", display=False)
    assert shown[0].obj.data == "a = 0.2, b = yes" and edition.pending() == []
    with pytest.raises(TypeError, match="name"):
        edition.glue("", 1)


# --------------------------------------------------------------------------------------------------------------
# the reader's run

DRIVER = r'''
import json, sys, nbformat
from nbclient import NotebookClient
path, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, 4)
probe = nbformat.v4.new_code_cell(
    "import json\nfrom attnlab.audit import edition\n"
    "print(json.dumps({'plain': edition._PLAIN, 'pending': edition.pending()}))")
nb.cells.append(probe)
NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": "."}}).execute()
nbformat.write(nb, out)
'''


def _make_reader_env(base: Path) -> dict:
    clone = base / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    branch = subprocess.run(["git", "-C", str(clone), "rev-parse", "--abbrev-ref", "HEAD"], capture_output=True,
                            text=True, check=True).stdout.strip()
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # what a Colab runtime has before the first cell runs: a kernel and a notebook runner
    subprocess.run([str(py), "-m", "pip", "install", "-q", "ipykernel", "nbclient", "nbformat"], check=True,
                   timeout=900)
    env = dict(os.environ, PATH=f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}", ATTNLAB_BOOTSTRAP_FORCE="1",
               ATTNLAB_REPO_URL=clone.as_uri(), ATTNLAB_REPO_REF=branch, ATTNLAB_SRC_DIR=str(base / "src"),
               ATTNLAB_SCALE="smoke")
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "ATTNLAB_EDITION", "ATTNLAB_FIGURE_DIR", "MPLBACKEND", "ATTNLAB_CACHE_DIR",
              "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        env.pop(k, None)
    # The editions' first cell (the same code in every edition: test_bootstrap_cells_match_config) clones the repository
    # and installs attnlab from it, as in a fresh Colab runtime. It runs here once, in the reader's environment; the
    # editions then run in that environment, where the cell finds attnlab installed and only enters the clone.
    cell = nbformat.read(EDITIONS[0], 4).cells[0].source
    subprocess.run([str(py), "-c", cell], env=env, check=True, timeout=900, cwd=base)
    env.pop("ATTNLAB_BOOTSTRAP_FORCE")
    (base / "driver.py").write_text(DRIVER)
    (base / "run").mkdir()
    return dict(py=str(py), env=env, base=str(base), run=str(base / "run"), clone=str(clone))


@pytest.fixture(scope="session")
def reader_env(tmp_path_factory):
    """One clone and one fresh virtual environment for the whole run, shared by the pytest-xdist workers (the
    first worker makes it under a lock; the others wait for it and reuse it)."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to clone the repository")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout with commits")
    from conftest import shared_tmp

    base = shared_tmp(tmp_path_factory) / "reader"
    base.mkdir(exist_ok=True)
    ready = base / "ready.json"
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not ready.exists():
                ready.write_text(json.dumps(_make_reader_env(base)))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    r = json.loads(ready.read_text())
    return {k: (Path(v) if k in ("py", "base", "run", "clone") else v) for k, v in r.items()}


@pytest.mark.slow
@pytest.mark.parametrize("path", EDITIONS, ids=lambda p: p.name)
def test_edition_runs_for_a_reader(path, reader_env):
    r = reader_env
    work = r["run"] / path.name
    shutil.copy(r["clone"] / "colab" / path.name, work)
    out = r["run"] / f"done-{path.name}"
    # This run is the chapter's one execution at the smoke scale in a test run (the edition holds the chapter's code
    # cells: test_edition_holds_the_chapters_code). Experiments are memoized on the hash of the package's sources and
    # the NumPy/SciPy versions, in the run's shared cache: an experiment two chapters use is computed once.
    figures = r["run"] / f"figures-{path.stem}"
    env = dict(r["env"], ATTNLAB_CACHE_DIR=os.environ["ATTNLAB_CACHE_DIR"], ATTNLAB_FIGURE_DIR=str(figures))
    proc = subprocess.run([str(r["py"]), str(r["base"] / "driver.py"), str(work), str(out)], env=env,
                          cwd=r["run"], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    nb = nbformat.read(out, 4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0].get("evalue")
    saves = len(re.findall(r"\bsavefig\(", "".join("".join(c.source) for c in nb.cells if c.cell_type == "code")))
    if saves:  # every figure the chapter's code saves is saved by the edition (a section page may have none)
        assert list(figures.glob("*.pdf")), f"{path.name}: the run saved no figure"
    probe = json.loads("".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream"))
    assert probe["pending"] == [], f"displays still waiting for {probe['pending']}"
    # the installed package is the normal install from the clone, not this checkout
    for cell in nb.cells[:-1]:
        if cell.cell_type == "markdown":
            assert not [m for m in MYST if m in cell.source] and not MACRO_USE.search(cell.source)
            continue
        shown = []
        for o in cell.outputs:
            data = o.get("data", {})
            shown.append(str(data.get("text/markdown", "")) + str(data.get("text/html", "")))
        text = "\n".join(shown)
        assert not [m for m in MYST if m in text], (path.name, text[:300])
        assert "computed below⟩" not in text and not MACRO_USE.search(text)
        if "from attnlab.audit.edition import figure" in cell.source:
            kinds = ("text/html",) if "Computed by this run" in cell.source else ("image/svg+xml", "image/png")
            assert any(k in o.get("data", {}) for o in cell.outputs for k in kinds), f"{path.name}: a figure is missing"
        m = re.search(r"markdown\((r'''(.*)'''|'.*')\)\s*$", cell.source, re.S)
        if m:
            template = m.group(2) if m.group(2) is not None else eval(m.group(1))  # noqa: S307
            want = make_colab.GLUE_ROLE.sub(  # as myst-nb formats it, numbers then written for a reader
                lambda g: readable(edition.format_plain_text(*_plain_and_spec(probe["plain"], g.group(0)))), template)
            assert want in text, f"{path.name}: rendered prose differs from the run's glued values"


def _plain_and_spec(plain: dict, role: str):
    name, spec = edition._split_key(role.split("`")[1])
    return plain[name], spec


def test_a_subpage_continues_its_chapters_numbers(tmp_path):
    """A chapter's sub-page (`sections:` under it in _toc.yml) is numbered as the book numbers it: its theorems and
    figures count on from the chapter page's, and the page itself is the section after the chapter page's own."""
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: Chapters\n    numbered: true\n    chapters:\n"
        "      - file: notebooks/01-a\n      - file: notebooks/02-b\n        sections:\n"
        "          - file: notebooks/02-c\n      - file: notebooks/03-d\n")
    for name, sections in (("01-a", 1), ("02-b", 2), ("02-c", 1), ("03-d", 1)):
        text = f"# Page {name}\n\n" + "".join(
            f"## Part {i}\n\n```{{prf:theorem}} T\n:label: thm-{name}-{i}\n\nx\n```\n\n"
            "```python\n## not a heading\n```\n\n"
            for i in range(sections))
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)]),
                       tmp_path / "notebooks" / f"{name}.ipynb")
    book = make_colab.load_book(tmp_path)
    assert book.chapters == [(1, "notebooks/01-a"), (2, "notebooks/02-b"), (2, "notebooks/02-c"), (3, "notebooks/03-d")]
    assert book.sections == {"notebooks/02-c": "2.3"}
    assert book.labels["thm-02-b-1"] == ("notebooks/02-b", "Theorem 2.2")
    assert book.labels["thm-02-c-0"] == ("notebooks/02-c", "Theorem 2.3")
    assert book.labels["thm-03-d-0"] == ("notebooks/03-d", "Theorem 3.1")
