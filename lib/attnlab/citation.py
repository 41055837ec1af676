"""Citation entries for the book as software, for one of its figures and for one verdict: BibTeX and plain text.

The book's metadata (title, authors, version, licence, date, repository) is read from ``CITATION.cff`` at the root
of the repository; the version and commit of a figure come from its provenance record (``attnlab.plotting``), those
of a verdict from :func:`attnlab._build_info.build_info`. The book's own pages render these entries (the ``cite``
item under every figure, the "How to cite" section of the landing page) and the same entry of a figure is stored
in its provenance JSON. Pure functions of their arguments: the same inputs give the same entry in every build.
"""
from __future__ import annotations

import html
import re
from urllib.parse import urlparse

__all__ = ["book_url", "book_from_cff", "software_citation", "figure_citation", "verdict_citation", "bibtex_escape",
           "citation_html"]

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#",
            "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def bibtex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, for a BibTeX field that LaTeX typesets."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return "".join(_SPECIAL.get(c, c) for c in text)


def book_url(repository_url: str) -> str:
    """Where the book is published, from its repository URL: ``https://github.com/OWNER/NAME`` gives
    ``https://OWNER.github.io/NAME/`` (GitHub Pages), the one place this rule is written."""
    parts = urlparse(repository_url)
    path = [p for p in parts.path.split("/") if p]
    if parts.netloc.lower() != "github.com" or len(path) != 2:
        raise ValueError(f"repository_url must be https://github.com/OWNER/NAME, got {repository_url!r}")
    owner, name = path[0], path[1].removesuffix(".git")
    return f"https://{owner.lower()}.github.io/{name}/"


def _author_names(authors) -> list[str]:
    names = []
    for a in authors:
        if "name" in a:  # an entity (a group, an organisation)
            names.append(a["name"])
        else:
            names.append(" ".join(p for p in (a.get("given-names"), a.get("name-particle"), a["family-names"],
                                               a.get("name-suffix")) if p))
    return names


def _bib_authors(authors) -> str:
    out = []
    for a in authors:
        if "name" in a:
            out.append("{" + bibtex_escape(a["name"]) + "}")
        else:
            family = " ".join(p for p in (a.get("name-particle"), a["family-names"]) if p)
            out.append(bibtex_escape(family + (", " + a["given-names"] if a.get("given-names") else "")))
    return " and ".join(out)


def book_from_cff(cff: dict) -> dict:
    """The fields the entries need, from a parsed ``CITATION.cff`` (a dict, as ``yaml.safe_load`` gives it)."""
    if not isinstance(cff, dict):
        raise TypeError(f"cff must be a dict (a parsed CITATION.cff), got {type(cff).__name__}")
    missing = [k for k in ("title", "authors", "version", "date-released", "repository-code") if k not in cff]
    if missing:
        raise ValueError(f"cff lacks {missing}")
    date = str(cff["date-released"])
    return {
        "title": cff["title"],
        "authors": list(cff["authors"]),
        "version": str(cff["version"]),
        "date": date,
        "year": date[:4],
        "license": cff.get("license"),
        "repository": cff["repository-code"],
        "url": cff.get("url") or book_url(cff["repository-code"]),
    }


def _entry(kind: str, key: str, fields: dict, text: str, **extra) -> dict:
    width = max(len(k) for k in fields)
    body = ",\n".join(f"  {k.ljust(width)} = {{{v}}}" for k, v in fields.items())
    return {"key": key, "bibtex": f"@{kind}{{{key},\n{body},\n}}", "text": text, **extra}


def _code(version: str, commit: str | None, dirty: bool | None = None) -> str:
    if not commit:
        return f"version {version}, commit unknown"
    return f"version {version}, commit {commit}" + (" with uncommitted changes" if dirty else "")


def software_citation(book: dict, *, commit: str | None = None, dirty: bool | None = None) -> dict:
    """The book as software: ``{"key", "bibtex", "text"}`` (BibTeX ``@software``, as ``CITATION.cff`` says)."""
    fields = {"author": _bib_authors(book["authors"]), "title": bibtex_escape(book["title"]),
              "version": bibtex_escape(book["version"]), "year": book["year"], "url": book["url"],
              "repository": book["repository"]}
    if book.get("license"):
        fields["license"] = bibtex_escape(book["license"])
    if commit:
        fields["note"] = f"commit {commit}" + (" with uncommitted changes" if dirty else "")
    names = ", ".join(_author_names(book["authors"]))
    text = (f"{names} ({book['year']}). {book['title']} ({_code(book['version'], commit, dirty)}) [software]. "
            f"{book['url']} (code: {book['repository']})")
    return _entry("software", "attnlab", fields, text)


def figure_citation(book: dict, *, name: str, anchor: str, page_url: str, number: str | None = None,
                    chapter: str | None = None, version: str, commit: str | None,
                    dirty: bool | None = None) -> dict:
    """One figure: ``{"key", "bibtex", "text", "url", "figure", "anchor", "number", "chapter", "version",
    "git_commit"}``.

    ``name`` is the figure's file stem (``savefig``'s name, stable across builds; it makes the key),
    ``anchor`` the id of the figure on its page, ``page_url`` the page's address without the anchor,
    ``number`` the figure's number as the book prints it (``"2.1"``), ``chapter`` e.g. ``"Chapter 2, Softmax"``,
    ``version`` and ``commit`` those of the code that made the figure (from its provenance record), ``dirty``
    whether its tracked files differed from that commit (said in the entry, so that it does not pass for it).
    """
    for arg, value in (("name", name), ("anchor", anchor), ("page_url", page_url), ("version", version)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{arg} must be a non-empty str, got {value!r}")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise ValueError(f"name must be letters, digits, '-' and '_', got {name!r}")
    url = f"{page_url}#{anchor}"
    label = f"Figure {number}" if number else "Figure"
    where = f"{label} ({name})" + (f", {chapter}" if chapter else "")
    fields = {"author": _bib_authors(book["authors"]),
              "title": bibtex_escape(where),
              "booktitle": bibtex_escape(book["title"]),
              "howpublished": bibtex_escape(f"{label} ({name}) of {book['title']}"),
              "version": bibtex_escape(version), "year": book["year"], "url": url,
              "note": bibtex_escape(f"attnlab {_code(version, commit, dirty)}; files {name}.pdf, .png, .csv, .json")}
    names = ", ".join(_author_names(book["authors"]))
    text = f"{names} ({book['year']}). {where}. In {book['title']}, {_code(version, commit, dirty)}. {url}"
    return _entry("misc", f"attnlab-{name}", fields, text, url=url, figure=name, anchor=anchor, number=number,
                  chapter=chapter, version=version, git_commit=commit)


def verdict_citation(book: dict, *, claim: str, verdict: str, page_url: str, version: str,
                     commit: str | None, dirty: bool | None = None, scale: str | None = None) -> dict:
    """One verdict: ``{"key", "bibtex", "text", "url", "claim", "verdict", "version", "git_commit"}``.

    ``claim`` is the claim's ID (``AT-1d``), ``verdict`` what its check computed, ``page_url`` the page that
    checks it, ``scale`` the scale it was computed at.
    """
    for arg, value in (("claim", claim), ("verdict", verdict), ("page_url", page_url), ("version", version)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{arg} must be a non-empty str, got {value!r}")
    at = f" at the {scale} scale" if scale else ""
    title = f"Claim {claim}: verdict {verdict}"
    fields = {"author": _bib_authors(book["authors"]), "title": bibtex_escape(title),
              "howpublished": bibtex_escape(f"Verdict of claim {claim} in {book['title']}"),
              "version": bibtex_escape(version), "year": book["year"], "url": page_url,
              "note": bibtex_escape(f"computed{at} by attnlab {_code(version, commit, dirty)}")}
    names = ", ".join(_author_names(book["authors"]))
    text = (f"{names} ({book['year']}). {title}{at}. In {book['title']}, {_code(version, commit, dirty)}. {page_url}")
    key = "attnlab-verdict-" + re.sub(r"[^A-Za-z0-9-]", "-", claim)
    return _entry("misc", key, fields, text, url=page_url, claim=claim, verdict=verdict, version=version,
                  git_commit=commit)


def citation_html(entry: dict, *, kind: str, opened: bool = False) -> str:
    """The entry as the book shows it: ``<details class="attnlab-cite attnlab-cite-KIND">`` with the plain text and
    the BibTeX; ``id="cite-ANCHOR"`` when the entry has an anchor (a figure's item under the figure)."""
    if not isinstance(kind, str) or not re.fullmatch(r"[a-z]+", kind):
        raise ValueError(f"kind must be lowercase letters, got {kind!r}")
    ident = f' id="cite-{html.escape(entry["anchor"])}"' if entry.get("anchor") else ""
    return (f'<details class="attnlab-cite attnlab-cite-{kind}"{ident}{" open" if opened else ""}>'
            f"<summary>cite</summary>"
            f'<p class="attnlab-cite-text">{html.escape(entry["text"])}</p>'
            f'<pre class="attnlab-cite-bibtex"><code>{html.escape(entry["bibtex"])}</code></pre>'
            f"</details>")
