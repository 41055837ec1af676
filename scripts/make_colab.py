"""Generate the Colab edition of every chapter: `colab/NN-topic.ipynb` from `notebooks/NN-topic.ipynb`.

The book's chapters are MyST notebooks: their prose uses directives (theorems, proofs, glued figures), roles
(`{glue:text}`, `{cite}`, `{doc}`, `{prf:ref}`, `{numref}`) and TeX macros that only `_config.yml` defines. Plain
Jupyter and Colab show none of these. The edition is the same chapter in plain Jupyter Markdown:

- theorems, lemmas, algorithms, ... become numbered, labelled blocks (the book's numbers: "Theorem 9.1"); proofs
  become collapsible `<details>` blocks;
- the TeX macros are expanded, so the math renders under Colab's and Jupyter's math engines;
- `{cite}` becomes "(Author, year)" with the reference list at the end; `{doc}`, `{prf:ref}` and `{numref}` become
  links to the published page (or to the anchor in the same chapter) with the book's number as text;
- every Markdown cell that shows glued numbers becomes a (form) code cell that renders its Markdown from the values
  the reader's run has just glued (`attnlab.audit.edition.markdown`), with myst-nb's formatting;
- every `{glue:figure}` becomes a cell that shows the run's figure with its caption, where the book shows it, and
  every `{glue}` directive (a glued value pasted as it is, such as a chapter's findings box) a cell that shows it;
- the first cell installs attnlab with its notebook extra (and CuPy on a GPU runtime) from the repository named in
  `_config.yml`, only in Colab, clones it for the data files the chapters read, and says how long the chapter takes.

The editions are committed; a test checks they are in sync (`--check`) and executes them in a fresh environment.

    python scripts/make_colab.py          # rewrite colab/*.ipynb
    python scripts/make_colab.py --check  # exit 1 if any edition is out of date
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "colab"
PROOF_KINDS = {  # sphinx-proof directive -> the name the book prints (each kind numbered per chapter)
    "theorem": "Theorem", "lemma": "Lemma", "algorithm": "Algorithm", "conjecture": "Conjecture",
    "definition": "Definition", "proposition": "Proposition", "corollary": "Corollary", "remark": "Remark",
    "example": "Example", "assumption": "Assumption", "axiom": "Axiom", "criterion": "Criterion",
    "observation": "Observation", "property": "Property", "obligation": "Obligation", "exercise": "Exercise",
}
FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>[\w:-]+)\}[ \t]*(?P<arg>[^\n]*)\n(?P<opts>(?:[ \t]*:[\w-]+:[^\n]*\n)*)"
                   r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
ROLE = re.compile(r"\{(?P<role>[\w:]+)\}`(?P<text>[^`]*)`")
GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`[^`]+`")
TARGET = re.compile(r"^\((?P<label>[\w-]+)\)=[ \t]*$", re.M)
EQ_LABEL = re.compile(r"(\$\$)[ \t]*\([\w-]+\)[ \t]*$", re.M)


class ConversionError(ValueError):
    """A construct the edition cannot convert (so a new one is noticed, not passed through raw)."""


# --------------------------------------------------------------------------------------------------------------
# the book: configuration, chapters, numbers


@dataclass
class Book:
    config: dict
    chapters: list  # [(number, docname)], numbered pages in the order of _toc.yml (a sub-page: its chapter's number)
    macros: dict
    url: str  # repository URL
    branch: str
    site: str  # the published book, ending in "/"
    titles: dict = field(default_factory=dict)  # docname -> title
    labels: dict = field(default_factory=dict)  # label -> (docname, text)
    bib: dict = field(default_factory=dict)
    times: dict = field(default_factory=dict)
    sections: dict = field(default_factory=dict)  # docname of a sub-page -> its section number in the book ("7.9")


def _toc_docs(toc: dict):
    """(numbered, docname) for every file in _toc.yml, in order: a chapter, then its sub-pages (its `sections:`)."""
    out = [(False, toc["root"])]
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            out.append((bool(part.get("numbered")), ch["file"]))
            out.extend((bool(part.get("numbered")), sec["file"]) for sec in ch.get("sections", []))
    return out


def _subpages(toc: dict) -> dict:
    """{chapter docname: [docnames of its sub-pages]} for the numbered chapters of _toc.yml that have `sections:`."""
    return {ch["file"]: [sec["file"] for sec in ch["sections"]] for part in toc.get("parts", []) if part.get("numbered")
            for ch in part.get("chapters", []) if ch.get("sections")}


def _top_sections(nb) -> int:
    """The number of `## ` headings in a notebook's Markdown (outside code fences): the book numbers a chapter's
    sub-pages after the chapter page's own sections (the sub-pages' toctree closes the page)."""
    n = 0
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        fence = None
        for line in cell.source.splitlines():
            m = re.match(r"^(`{3,}|:{3,})", line)
            if m and (fence is None or line.strip() == fence):
                fence = None if fence else m.group(1)
            elif fence is None and line.startswith("## "):
                n += 1
    return n


def site_url(config: dict) -> str:
    """The published book: `html.baseurl` if set, else GitHub Pages of `repository.url`."""
    base = (config.get("html") or {}).get("baseurl")
    if base:
        return base.rstrip("/") + "/"
    m = re.match(r"https://github\.com/([^/]+)/([^/]+?)/?$", config["repository"]["url"])
    if not m:
        raise ConversionError("set html.baseurl in _config.yml: the repository is not on GitHub")
    return f"https://{m.group(1)}.github.io/{m.group(2)}/"


def load_book(root: Path = ROOT) -> Book:
    config = yaml.safe_load((root / "_config.yml").read_text())
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    repo = config["repository"]
    docs = _toc_docs(toc)
    subpages = _subpages(toc)
    parent = {sub: ch for ch, subs in subpages.items() for sub in subs}
    chapters, number = [], 0
    for numbered, d in docs:
        if numbered:
            number += d not in parent
            if (root / f"{d}.ipynb").exists():  # a chapter written as a Markdown page (the closing one) has no edition
                chapters.append((number, d))
    times_path = root / "data" / "benchmarks" / "chapter-times.json"
    book = Book(config, chapters, macros, repo["url"].rstrip("/"), repo.get("branch", "main"), site_url(config),
                times=json.loads(times_path.read_text()) if times_path.exists() else {})
    for _, doc in docs:
        path = next((root / f"{doc}{ext}" for ext in (".ipynb", ".md") if (root / f"{doc}{ext}").exists()), None)
        if path is None:
            continue
        text = "\n".join(c.source for c in nbformat.read(path, 4).cells if c.cell_type == "markdown") \
            if path.suffix == ".ipynb" else path.read_text()
        m = re.search(r"^# (.+)$", text, re.M)
        book.titles[doc] = m.group(1).strip() if m else doc
    counts: dict = {}  # per chapter number: sphinx-proof and numfig count on through a chapter's sub-pages
    for number, doc in chapters:
        nb = nbformat.read(root / f"{doc}.ipynb", 4)
        _number_labels(book, number, doc, nb, counts.setdefault(number, {}))
        if doc in subpages:
            for k, sub in enumerate(subpages[doc]):
                book.sections[sub] = f"{number}.{_top_sections(nb) + k + 1}"
    book.bib = _read_bib(root / "book" / "references.bib")
    return book


def _number_labels(book: Book, number: int, doc: str, nb, counts: dict) -> None:
    """Number the labelled blocks and figures of one page of chapter ``number``; ``counts`` carries the counts per
    kind from the chapter's earlier pages (the book numbers a sub-page's "Theorem 7.4" after its chapter's 7.3)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for m in FENCE.finditer(cell.source):
            kind, opts = m["kind"], _options(m["opts"])
            if kind.startswith("prf:") and kind[4:] in PROOF_KINDS:
                name = PROOF_KINDS[kind[4:]]
                counts[name] = counts.get(name, 0) + 1
                if "label" in opts:
                    book.labels[opts["label"]] = (doc, f"{name} {number}.{counts[name]}")
            elif kind == "glue:figure":
                counts["Fig."] = counts.get("Fig.", 0) + 1
                if "name" in opts:
                    book.labels[opts["name"]] = (doc, f"Fig. {number}.{counts['Fig.']}")


def _options(block: str) -> dict:
    return {m[1]: m[2].strip() for m in re.finditer(r"^[ \t]*:([\w-]+):(.*)$", block, re.M)}


def _read_bib(path: Path) -> dict:
    from pybtex.database import parse_file  # noqa: PLC0415

    return dict(parse_file(str(path)).entries)


# --------------------------------------------------------------------------------------------------------------
# text: macros, roles, citations


def _braced(s: str, i: int):
    """The argument starting at s[i]: a brace group (without its braces) or one token; and the index after it."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        raise ConversionError("a macro argument is missing")
    if s[i] == "\\":
        m = re.match(r"\\[A-Za-z]+|\\.", s[i:])
        return m.group(0), i + len(m.group(0))
    if s[i] != "{":
        return s[i], i + 1
    depth, j = 0, i
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        depth += {"{": 1, "}": -1}.get(s[j], 0)
        if depth == 0:
            return s[i + 1:j], j + 1
        j += 1
    raise ConversionError(f"unbalanced braces after {s[max(0, i - 20):i + 20]!r}")


def expand_macros(text: str, macros: dict) -> str:
    """Replace every use of the book's TeX macros by its definition (arguments substituted), recursively."""
    names = sorted(macros, key=len, reverse=True)
    pat = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z])")
    for _ in range(10):
        out, pos, changed = [], 0, False
        for m in pat.finditer(text):
            if m.start() < pos:
                continue
            spec = macros[m.group(1)]
            body, nargs = (spec, 0) if isinstance(spec, str) else (spec[0], int(spec[1]))
            i, args = m.end(), []
            for _ in range(nargs):
                a, i = _braced(text, i)
                args.append(a)
            for k, a in enumerate(args, 1):
                body = body.replace(f"#{k}", a)
            sep = " " if nargs == 0 and i < len(text) and text[i].isalpha() else ""
            out.append(text[pos:m.start()] + body + sep)
            pos, changed = i, True
        text = "".join(out) + text[pos:]
        if not changed:
            return text
    raise ConversionError("macro expansion did not terminate")


def _last_names(entry) -> list:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    return [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]


def cite_text(entry) -> str:
    names = _last_names(entry)
    who = (names[0] if len(names) == 1 else f"{names[0]} and {names[1]}" if len(names) == 2
           else f"{names[0]} et al." if names else entry.fields.get("title", "?"))
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


def reference_markdown(entry) -> str:
    f = entry.fields
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    authors = ", ".join(" ".join(p.first_names + p.middle_names + p.prelast_names + p.last_names) for p in people)
    where = f.get("journal") or f.get("booktitle") or f.get("publisher") or f.get("howpublished") or ""
    parts = [authors, f"({f.get('year', 'n.d.')})", f"*{f.get('title', '')}*"]
    if where:
        parts.append(where)
    link = f.get("doi") and f"https://doi.org/{f['doi']}" or f.get("url")
    text = ". ".join(p.strip().rstrip(".") for p in parts if p) + "."
    text = re.sub(r"[{}]", "", text).replace("\\&", "&").replace("--", "–")
    return text + (f" <{link}>" if link else "")


class Converter:
    def __init__(self, book: Book, doc: str, number: int):
        self.book, self.doc, self.number = book, doc, number
        self.cited: list = []

    def page(self, doc: str) -> str:
        return self.book.site + doc + ".html"

    def _target(self, text: str):
        m = re.match(r"^(.*?)\s*<([^>]+)>$", text, re.S)
        return (m.group(1), m.group(2)) if m else (None, text)

    def role(self, m) -> str:
        role, text = m["role"], m["text"]
        if role in ("glue", "glue:text"):
            return m.group(0)  # filled at run time
        if role in ("cite", "cite:p", "cite:t"):
            keys = [k.strip() for k in text.split(",")]
            for k in keys:
                if k not in self.book.bib:
                    raise ConversionError(f"{self.doc}: unknown citation key {k!r}")
                if k not in self.cited:
                    self.cited.append(k)
            items = "; ".join(cite_text(self.book.bib[k]) for k in keys)
            return f"({items})"
        if role == "doc":
            title, target = self._target(text)
            doc = str((Path(self.doc).parent / target)).replace("\\", "/")
            doc = re.sub(r"[^/]+/\.\./", "", doc)
            if doc not in self.book.titles:
                raise ConversionError(f"{self.doc}: {{doc}} target {target!r} is not in _toc.yml")
            return f"[{title or self.book.titles[doc]}]({self.page(doc)})"
        if role in ("prf:ref", "numref", "ref"):
            title, label = self._target(text)
            if label not in self.book.labels:
                raise ConversionError(f"{self.doc}: unknown label {label!r}")
            doc, name = self.book.labels[label]
            href = f"#{label}" if doc == self.doc else f"{self.page(doc)}#{label}"
            return f"[{title or name}]({href})"
        raise ConversionError(f"{self.doc}: no conversion for the role {{{role}}}")

    def inline(self, text: str) -> str:
        """Roles, targets, equation labels and macros of a Markdown fragment (directives already handled)."""
        text = ROLE.sub(self.role, text)
        text = TARGET.sub(lambda m: f'<a id="{m["label"]}"></a>', text)
        text = EQ_LABEL.sub(r"\1", text)
        return expand_macros(text, self.book.macros)

    def directive(self, m) -> list:
        """A directive as a list of (kind, text) pieces: ("md", markdown) or ("figure", (name, label, caption))."""
        kind, arg, opts, body = m["kind"], m["arg"].strip(), _options(m["opts"]), m["body"].strip("\n")
        if kind == "prf:proof":
            title = f" ({self.inline(arg)})" if arg else ""
            return [("md", f"<details><summary><b>Proof</b>{title}</summary>\n\n{self.inline(body)}\n\n</details>")]
        if kind.startswith("prf:") and kind[4:] in PROOF_KINDS:
            label = opts.get("label")
            name = self.book.labels[label][1] if label else PROOF_KINDS[kind[4:]]
            head = f"**{name}**" + (f" ({self.inline(arg)})." if arg else ".")
            anchor = f'<a id="{label}"></a>\n\n' if label else ""
            quoted = "\n".join("> " + line if line.strip() else ">" for line in self.inline(body).split("\n"))
            return [("md", f"{anchor}> {head}\n>\n{quoted}")]
        if kind in ("glue", "glue:any"):  # a glued value pasted as it is (the findings box): shown where the book shows it
            return [("figure", (arg, None, ""))]
        if kind == "glue:figure":
            label = opts.get("name")
            caption = self.inline(body)
            if label:
                caption = f"**{self.book.labels[label][1]}** {caption}"
            return [("figure", (arg, label, caption))]
        raise ConversionError(f"{self.doc}: no conversion for the directive {{{kind}}}")

    def markdown_cell(self, source: str) -> list:
        pieces, pos = [], 0
        for m in FENCE.finditer(source):
            if source[pos:m.start()].strip():
                pieces.append(("md", self.inline(source[pos:m.start()].strip("\n"))))
            pieces.extend(self.directive(m))
            pos = m.end()
        if source[pos:].strip():
            pieces.append(("md", self.inline(source[pos:].strip("\n"))))
        merged = []  # adjacent Markdown pieces stay one cell
        for kind, val in pieces:
            if kind == "md" and merged and merged[-1][0] == "md":
                merged[-1] = ("md", merged[-1][1] + "\n\n" + val)
            else:
                merged.append((kind, val))
        return merged


def _literal(text: str) -> str:
    if "'''" not in text and not text.endswith("\\"):
        return "r'''" + text + "'''"
    return repr(text)


def _form_cell(title: str, code: str):
    cell = nbformat.v4.new_code_cell(f"# @title {title}\n{code}")
    cell.metadata["cellView"] = "form"
    return cell


def setup_source(book: Book, doc: str) -> str:
    t = book.times.get(Path(doc).name, {})
    when = ", ".join(f"{s}: about {t[s]:.0f} s" for s in ("smoke", "book", "paper") if s in t)
    timing = (f"\n# Time to run this chapter, measured by scripts/time_chapters.py on {book.times.get('machine')} "
              f"({book.times.get('date')}): {when}." if when else "")
    return f'''# @title Setup: installs attnlab in Colab (run this cell first)
# In Colab it clones the repository (the chapters read data files from it), installs attnlab from the clone
# (a normal install, with the notebook extra, and CuPy when the runtime has a GPU) and runs the chapter from the
# clone's notebooks/ folder. Elsewhere, with attnlab installed, it only marks the run as the Colab edition.{timing}
# Set SCALE in the next cell: "smoke" (seconds), "book" (the default) or "paper" (publication figures, a GPU helps).
import importlib.util, os, shutil, subprocess, sys
os.environ["ATTNLAB_EDITION"] = "colab"
_src = os.environ.get("ATTNLAB_SRC_DIR", "/content/attnlab")
if ("google.colab" in sys.modules and importlib.util.find_spec("attnlab") is None) or os.environ.get("ATTNLAB_BOOTSTRAP_FORCE"):
    _url = os.environ.get("ATTNLAB_REPO_URL", "{book.url}")
    _ref = os.environ.get("ATTNLAB_REPO_REF", "{book.branch}")
    if not os.path.isdir(_src):
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", _ref, _url, _src], check=True)
    _gpu = shutil.which("nvidia-smi") is not None and subprocess.run(["nvidia-smi"], capture_output=True).returncode == 0
    _extra = "[notebook,gpu]" if _gpu else "[notebook]"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", _src + _extra, *os.environ.get("ATTNLAB_PIP_ARGS", "").split()], check=True)
if os.path.isdir(os.path.join(_src, "notebooks")):
    os.chdir(os.path.join(_src, "notebooks"))'''


def convert(book: Book, number: int, doc: str, nb) -> nbformat.NotebookNode:
    conv = Converter(book, doc, number)
    cells = []
    for i, cell in enumerate(nb.cells):
        if i == 0 and cell.cell_type == "code" and "bootstrap" in cell.source.lower():
            setup = nbformat.v4.new_code_cell(setup_source(book, doc))
            setup.metadata["cellView"] = "form"
            cells.append(setup)
            continue
        if cell.cell_type == "code":
            if "myst_nb" in cell.source:
                raise ConversionError(f"{doc}: a code cell imports myst_nb; use attnlab.audit.edition.glue")
            new = nbformat.v4.new_code_cell(cell.source)
            tags = cell.metadata.get("tags", [])
            if tags:
                new.metadata["tags"] = list(tags)
            cells.append(new)
            continue
        if cell.cell_type != "markdown":
            continue
        for kind, val in conv.markdown_cell(cell.source):
            if kind == "figure":
                name, label, caption = val
                args = [repr(name), _literal(caption)] + ([f"label={label!r}"] if label else [])
                cells.append(_form_cell(f"Figure {name}" if caption else f"Computed by this run: {name}",
                                        f"from attnlab.audit.edition import figure\nfigure({', '.join(args)})"))
            elif GLUE_ROLE.search(val):
                cells.append(_form_cell("Text with this run's numbers",
                                        f"from attnlab.audit.edition import markdown\nmarkdown({_literal(val)})"))
            else:
                cells.append(nbformat.v4.new_markdown_cell(val))
    link = book.site + doc + ".html"
    where = f"section {book.sections[doc]}" if doc in book.sections else f"chapter {number}"
    cells.insert(1, nbformat.v4.new_markdown_cell(
        f"*This is the Colab edition of {where} of the book, generated from "
        f"[`{doc}.ipynb`]({book.url}/blob/{book.branch}/{doc}.ipynb) by `scripts/make_colab.py`; "
        f"[the {where.split()[0]} on the web]({link}). Run all cells: the prose below is rendered from your run's numbers, "
        f"so changing `SEED` or `SCALE` changes them too.*"))
    if conv.cited:
        refs = "\n".join(f"- {reference_markdown(book.bib[k])}" for k in sorted(
            conv.cited, key=lambda k: (_last_names(book.bib[k]) or [k])[0]))
        cells.append(nbformat.v4.new_markdown_cell("## References\n\n" + expand_macros(refs, book.macros)))
    out = nbformat.v4.new_notebook(cells=cells)
    out.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                    "language_info": {"name": "python"}, "colab": {"provenance": [], "toc_visible": True}}
    for k, c in enumerate(out.cells):
        c.id = f"cell-{k:03d}"
    return out


def editions(root: Path = ROOT) -> dict:
    """{path of the edition: its JSON text} for every chapter."""
    book = load_book(root)
    out = {}
    for number, doc in book.chapters:
        nb = nbformat.read(root / f"{doc}.ipynb", 4)
        ed = convert(book, number, doc, nb)
        out[root / "colab" / f"{Path(doc).name}.ipynb"] = nbformat.writes(ed) + "\n"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report editions that differ from the chapters")
    args = ap.parse_args(argv)
    stale = []
    want = editions()
    for path, text in want.items():
        if not path.exists() or path.read_text() != text:
            stale.append(path.name)
            if not args.check:
                path.parent.mkdir(exist_ok=True)
                path.write_text(text)
    extra = sorted(p.name for p in OUT.glob("*.ipynb") if p not in want)
    if extra and not args.check:
        for name in extra:
            (OUT / name).unlink()
    if stale or extra:
        print(("out of date: " if args.check else "updated: ") + ", ".join(stale + extra))
    return 1 if ((stale or extra) and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
