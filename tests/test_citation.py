"""Citing the book, a figure and a verdict: ``CITATION.cff``, the entries of :mod:`attnlab.citation`, and the commit
that a non-editable install records (:mod:`attnlab._build_info`).

``tests/data/cff-schema-1.2.0.json`` is the Citation File Format 1.2.0 schema, vendored unchanged from
https://github.com/citation-file-format/citation-file-format/blob/1.2.0/schema.json (``$id``
https://citation-file-format.github.io/1.2.0/schema.json; the same file ships in ``cffconvert`` 2.0.0, whose
``jsonschema<4`` pin keeps it out of this environment).
"""
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import jsonschema
import pytest
import yaml
from pybtex.database import parse_string

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

import attnlab
from attnlab._build_info import build_info, git_info
from attnlab.citation import (
    bibtex_escape,
    book_from_cff,
    book_url,
    citation_html,
    figure_citation,
    software_citation,
    verdict_citation,
)

ROOT = Path(__file__).resolve().parents[1]
CFF = yaml.safe_load((ROOT / "CITATION.cff").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
COMMIT = "0123456789abcdef0123456789abcdef01234567"


# --- CITATION.cff -------------------------------------------------------------------------------------------------

def test_citation_cff_validates_against_the_cff_1_2_0_schema():
    schema = json.loads((ROOT / "tests" / "data" / "cff-schema-1.2.0.json").read_text())
    assert CFF["cff-version"] == "1.2.0"
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(CFF)]
    assert not errors, errors


def test_the_schema_rejects_a_broken_file():  # the validation above is not vacuous
    schema = json.loads((ROOT / "tests" / "data" / "cff-schema-1.2.0.json").read_text())
    bad = {**CFF, "version": 1.0, "date-released": "30 Nov 2026"}
    del bad["authors"]
    assert len(list(jsonschema.Draft7Validator(schema).iter_errors(bad))) >= 2


def test_citation_cff_matches_the_package_and_the_book_config():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert CFF["version"] == attnlab.__version__
    # the package's version has one source: pyproject reads attnlab.__version__
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "attnlab.__version__"}
    assert CFF["license"] == pyproject["project"]["license"]
    assert CFF["title"] == CONFIG["title"]
    assert [a["name"] for a in CFF["authors"]] == [CONFIG["author"]]
    assert CFF["repository-code"] == CONFIG["repository"]["url"]
    assert CFF["url"] == book_url(CONFIG["repository"]["url"])
    released = date.fromisoformat(CFF["date-released"])
    assert str(released.year) == str(CONFIG["copyright"])


# --- the entries ----------------------------------------------------------------------------------------------------

BOOK = book_from_cff(CFF)


def _one(bibtex):
    entries = parse_string(bibtex, "bibtex").entries
    assert len(entries) == 1
    return next(iter(entries.items()))


def _figure(**kw):
    args = dict(name="softmax-lipschitz", anchor="fig-softmax-lip",
                page_url=BOOK["url"] + "notebooks/02-softmax-stability.html", number="2.1",
                chapter="Chapter 2, “Softmax stability”", version="0.1.0", commit=COMMIT)
    return figure_citation(BOOK, **{**args, **kw})


def test_figure_entry_names_number_chapter_book_version_commit_url_and_year():
    e = _figure()
    key, entry = _one(e["bibtex"])
    assert key == e["key"] == "attnlab-softmax-lipschitz"
    url = "https://attnlab.github.io/attnlab/notebooks/02-softmax-stability.html#fig-softmax-lip"
    assert entry.fields["url"] == e["url"] == url
    assert entry.fields["year"] == BOOK["year"] == CFF["date-released"][:4]
    assert entry.fields["version"] == "0.1.0"
    assert COMMIT in entry.fields["note"] and "uncommitted" not in entry.fields["note"]
    assert "Figure 2.1 (softmax-lipschitz)" in entry.fields["title"] and "Softmax stability" in entry.fields["title"]
    assert entry.fields["booktitle"] == CFF["title"]
    assert str(entry.persons["author"][0]) == "{the attnlab authors}"
    for part in ("Figure 2.1", "softmax-lipschitz", "Chapter 2", CFF["title"], "0.1.0", COMMIT, url, BOOK["year"]):
        assert part in e["text"]
    assert e["git_commit"] == COMMIT and e["anchor"] == "fig-softmax-lip" and e["number"] == "2.1"


def test_figure_entry_is_deterministic_and_json_plain():
    assert _figure() == _figure()
    assert json.loads(json.dumps(_figure())) == _figure()


def test_figure_entry_says_unknown_or_dirty_commits():
    assert "commit unknown" in _figure(commit=None)["text"]
    dirty = _figure(dirty=True)
    assert "with uncommitted changes" in dirty["text"] and "uncommitted" in _one(dirty["bibtex"])[1].fields["note"]


def test_latex_specials_are_escaped_and_the_entry_still_parses():
    assert bibtex_escape("a_b & 50% #1 {x} $y$ ~ ^ \\") == (
        r"a\_b \& 50\% \#1 \{x\} \$y\$ \textasciitilde{} \textasciicircum{} \textbackslash{}")
    e = _figure(chapter="Chapter 9, “O(log L) & {braces} 100%_”")
    _, entry = _one(e["bibtex"])
    assert r"\&" in entry.fields["title"] and r"\{braces\}" in entry.fields["title"]


@pytest.mark.parametrize("kw, exc, arg", [
    (dict(name=""), ValueError, "name"),
    (dict(name="../x"), ValueError, "name"),
    (dict(anchor=None), ValueError, "anchor"),
    (dict(page_url=""), ValueError, "page_url"),
    (dict(version=1), ValueError, "version"),
])
def test_figure_entry_rejects_bad_arguments(kw, exc, arg):
    with pytest.raises(exc, match=arg):
        _figure(**kw)


def test_software_and_verdict_entries_parse():
    sw = software_citation(BOOK, commit=COMMIT)
    key, entry = _one(sw["bibtex"])
    assert key == "attnlab" and entry.type == "software"
    assert entry.fields["version"] == CFF["version"] and entry.fields["url"] == CFF["url"]
    assert entry.fields["repository"] == CFF["repository-code"] and COMMIT in entry.fields["note"]
    v = verdict_citation(BOOK, claim="AT-log2", verdict="corrected",
                         page_url=BOOK["url"] + "notebooks/06-hardness.html",
                         version="0.1.0", commit=COMMIT, scale="book")
    key, entry = _one(v["bibtex"])
    assert key == "attnlab-verdict-AT-log2"
    assert "AT-log2" in entry.fields["title"] and "corrected" in entry.fields["title"]
    assert all(s in v["text"] for s in ("AT-log2", "corrected", "0.1.0", COMMIT, "book scale"))
    with pytest.raises(ValueError, match="claim"):
        verdict_citation(BOOK, claim="", verdict="x", page_url="u", version="0.1.0", commit=None)


def test_book_url_and_bad_inputs():
    assert book_url("https://github.com/AttnLab/attnlab.git") == "https://attnlab.github.io/attnlab/"
    with pytest.raises(ValueError, match="repository_url"):
        book_url("https://gitlab.com/a/b")
    with pytest.raises(TypeError, match="cff"):
        book_from_cff("CITATION.cff")
    with pytest.raises(ValueError, match="authors"):
        book_from_cff({k: v for k, v in CFF.items() if k != "authors"})
    with pytest.raises(TypeError, match="text"):
        bibtex_escape(3)


def test_citation_html_shows_text_and_bibtex_escaped():
    e = _figure(chapter="Chapter 1, <b>&</b>")
    out = citation_html(e, kind="figure")
    assert out.startswith('<details class="attnlab-cite attnlab-cite-figure" id="cite-fig-softmax-lip">')
    assert "<b>" not in out and "&lt;b&gt;" in out and "<summary>cite</summary>" in out
    with pytest.raises(ValueError, match="kind"):
        citation_html(e, kind="Fig 1")


# --- the commit of the code -----------------------------------------------------------------------------------------

def test_git_info_only_for_the_checkout_that_holds_the_package(tmp_path):
    assert git_info(tmp_path) is None  # not the lib/attnlab of a work tree
    if shutil.which("git") and (ROOT / ".git").exists():
        info = git_info(ROOT / "lib" / "attnlab")
        assert re.fullmatch(r"[0-9a-f]{40}", info["git_commit"]) and isinstance(info["git_dirty"], bool)
        assert build_info()["source"] == "git" and build_info()["version"] == attnlab.__version__


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_wheel_built_from_a_git_checkout_names_its_commit_when_installed(tmp_path):
    """Install path (about 10 s): build a wheel from a git checkout, install it without the repository, import it
    from elsewhere: ``provenance()`` names the checkout's commit (recorded at build time, not read from git)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "lib", src / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info",
                                                                             "_build_info.json"))
    git = ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(git + args, check=True, env=env, capture_output=True)
    head = subprocess.run(git + ["rev-parse", "HEAD"], check=True, env=env, capture_output=True,
                          text=True).stdout.strip()

    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(src)],
                   check=True, env=env, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("attnlab-*.whl")
    assert wheel.name.startswith(f"attnlab-{attnlab.__version__}-")
    subprocess.run(pip + ["install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, env=env, capture_output=True, timeout=300)
    assert json.loads((target / "attnlab" / "_build_info.json").read_text())["git_commit"] == head
    assert not (src / "lib" / "attnlab" / "_build_info.json").exists()  # never written into the source tree

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("import json, attnlab, attnlab.plotting as p, attnlab._build_info as b; "
            "print(json.dumps([attnlab.__file__, p.provenance(), b.build_info()]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True, timeout=120,
                         env={**env, "PYTHONPATH": str(target)})
    assert out.returncode == 0, out.stderr
    where, prov, info = json.loads(out.stdout)
    assert Path(where).is_relative_to(target)
    assert prov["git_commit"] == head and prov["attnlab"] == attnlab.__version__ and prov["git_dirty"] is False
    assert info["source"] == "build"


# --- the book's extension: which downloads belong to which figure ---------------------------------------------------

def _ext():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import attnlab_cite
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    return attnlab_cite


def _files(name):
    from docutils import nodes
    from sphinx import addnodes

    para = nodes.paragraph()
    para += nodes.Text(f"Download figure {name}: ")
    for kind in ("pdf", "png", "csv", "json"):
        para += addnodes.download_reference("", kind, reftarget=f"figures/{name}.{kind}")
    return para


def _fig(anchor):
    from docutils import nodes

    return nodes.figure(ids=[anchor] if anchor else [])


def test_extension_pairs_each_savefig_output_with_the_figure_after_it(monkeypatch):
    from docutils import nodes

    ext = _ext()
    warnings = []
    monkeypatch.setattr(ext.logger, "warning", lambda msg, **kw: warnings.append(msg))
    doc = nodes.section()
    cell = nodes.container()
    cell += _files("a")
    doc += [cell, _fig("fig-a"), nodes.paragraph(text="prose"), _files("b"), _fig("fig-b")]
    pairs = ext._pairs(doc, warn=True)
    assert [(name, target, fig["ids"]) for _, name, target, fig in pairs] == [
        ("a", "figures/a.json", ["fig-a"]), ("b", "figures/b.json", ["fig-b"])]
    assert warnings == []
    assert ext._files_paragraph(nodes.paragraph(text="Download figure x")) is None

    doc = nodes.section()
    doc += [_fig("fig-alone"), _files("c"), _files("d"), _fig(None), _files("e")]
    pairs = ext._pairs(doc, warn=True)
    assert [name for _, name, _, _ in pairs] == ["d"]
    assert len(warnings) == 4  # a figure without downloads, c and e without a figure, d's figure without a name
    assert any("fig" in w and "without savefig" in w for w in warnings)
    assert sum("not followed by a figure" in w for w in warnings) == 2


def test_figure_names_and_anchors_are_fixed_in_the_sources():
    """A figure keeps its file name and anchor across builds: both are literals in the sources, unique in the book."""
    import nbformat

    sources = {}
    for path in sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "book").glob("*.md")]):
        if path.suffix == ".ipynb":
            sources[path.name] = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
        else:
            sources[path.name] = path.read_text()
    names, anchors = [], []
    for page, text in sources.items():
        calls = re.findall(r"\bsavefig\(\s*\w+\s*,\s*([^,)]*)", text)
        assert all(re.fullmatch(r'"[A-Za-z0-9_-]+"', c) for c in calls), (page, calls)
        names += [c.strip('"') for c in calls]
        figures = re.findall(r"```\{(?:glue:)?figure\}[^\n]*\n((?::[^\n]*\n)*)", text)
        found = [re.search(r"^:name:\s*(\S+)", opts, re.M) for opts in figures]
        assert all(found), f"{page}: a figure without :name:"
        anchors += [m.group(1) for m in found]
        assert len(calls) == len(figures), f"{page}: {len(calls)} savefig calls, {len(figures)} figures"
    assert len(names) >= 40 and len(names) == len(set(names)) and len(anchors) == len(set(anchors))
