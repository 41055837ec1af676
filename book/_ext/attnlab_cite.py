"""Sphinx extension of the attnlab book: a "cite" item under every figure, and the ``attnlab-cite`` directive.

Every chapter saves a figure with ``attnlab.plotting.savefig`` (whose output, in the book, is a paragraph of
download links: PDF, PNG, CSV, provenance JSON) and then shows it with ``{glue:figure}`` and a ``:name:``. When a
page is written, each such paragraph is paired with the figure that follows it on the page and moved under that
figure, followed by a ``<details class="attnlab-cite">`` item: a plain-text citation and a BibTeX entry made by
:func:`attnlab.citation.figure_citation` from the figure's provenance JSON (version, commit), its number and anchor
on the page, the chapter, and the book's metadata in ``CITATION.cff``. The same entry is written into the provenance
JSON (key ``cite``) before Sphinx copies it to ``_downloads``. A figure without downloads, or downloads without a
figure after them, is a warning (so an error in the book's ``-W`` build).

``attnlab-cite`` shows an entry on any page: ``book`` (the book as software, from ``CITATION.cff`` and the commit of
the build) or ``figure LABEL`` (the entry of the figure whose ``:name:`` is LABEL, exactly as under the figure).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from attnlab._build_info import build_info
from attnlab.citation import book_from_cff, citation_html, figure_citation, software_citation

logger = logging.getLogger(__name__)
_FILES = re.compile(r"(?:^|/)([A-Za-z0-9_-]+)\.json$")


class cite_placeholder(nodes.General, nodes.Element):
    """Where an ``attnlab-cite`` directive's entry goes; filled in when the page is written."""


def _skip(self, node):
    raise nodes.SkipNode


class CiteDirective(SphinxDirective):
    """``attnlab-cite`` ``book`` | ``figure LABEL``, with an optional ``:open:`` flag."""

    required_arguments = 1
    optional_arguments = 1
    option_spec = {"open": directives.flag}

    def run(self):
        what = self.arguments[0]
        if what not in ("book", "figure") or (what == "figure") != (len(self.arguments) == 2):
            raise self.error("attnlab-cite takes `book` or `figure LABEL`")
        if not hasattr(self.env, "attnlab_cite_pages"):
            self.env.attnlab_cite_pages = set()
        self.env.attnlab_cite_pages.add(self.env.docname)
        node = cite_placeholder(what=what, label=self.arguments[1] if what == "figure" else "",
                                open="open" in self.options)
        self.set_source_info(node)
        return [node]


def _files_paragraph(node) -> str | None:
    """The figure name if ``node`` is the paragraph of download links that ``savefig`` shows, else None."""
    if not isinstance(node, nodes.paragraph):
        return None
    targets = [d.get("reftarget", "") for d in node.findall(addnodes.download_reference)]
    for t in targets:
        m = _FILES.search(t)
        if m and any(u.endswith(f"{m.group(1)}.pdf") for u in targets):
            return m.group(1)
    return None


def _pairs(doctree, warn: bool = False):
    """(paragraph, figure name, json target, figure node) in page order; with ``warn``, warns about any unpaired
    paragraph or figure, and any figure without a ``:name:``."""
    def _warn(msg, node):
        if warn:
            logger.warning(msg, location=node)

    pending, out = None, []
    for node in doctree.findall(lambda n: isinstance(n, (nodes.figure, nodes.paragraph))):
        name = _files_paragraph(node)
        if name is not None:
            if pending is not None:
                _warn(f"figure files {pending[1]!r} are not followed by a figure", pending[0])
            target = next(d["reftarget"] for d in node.findall(addnodes.download_reference)
                          if d["reftarget"].endswith(f"{name}.json"))
            pending = (node, name, target)
        elif isinstance(node, nodes.figure):
            if pending is None:
                _warn("figure without savefig downloads before it (no cite item)", node)
                continue
            if not node["ids"]:
                _warn("figure without a :name: (no stable anchor to cite)", node)
            out.append((*pending, node))
            pending = None
    if pending is not None:
        _warn(f"figure files {pending[1]!r} are not followed by a figure", pending[0])
    return out


def _book(app) -> dict:
    if not hasattr(app, "_attnlab_book"):
        app._attnlab_book = book_from_cff(yaml.safe_load((Path(app.srcdir) / "CITATION.cff").read_text()))
    return app._attnlab_book


def on_doctree_read(app, doctree):
    """Remember, per page, each figure's anchor and provenance file (for ``attnlab-cite figure``)."""
    env, docname = app.env, app.env.docname
    if not hasattr(env, "attnlab_figures"):
        env.attnlab_figures = {}
    found = {}
    for _para, name, target, fig in _pairs(doctree):
        if fig["ids"]:
            found[fig["ids"][0]] = {"name": name, "json": env.relfn2path(target, docname)[1]}
    env.attnlab_figures[docname] = found


def on_purge(app, env, docname):
    getattr(env, "attnlab_figures", {}).pop(docname, None)
    getattr(env, "attnlab_cite_pages", set()).discard(docname)


def on_outdated(app, env, added, changed, removed):
    """Pages with an ``attnlab-cite`` directive are read again in every build: their entries name the commit of
    the build and figures of other pages."""
    return sorted(getattr(env, "attnlab_cite_pages", set()) - set(removed))


def on_merge(app, env, docnames, other):
    env.attnlab_figures = getattr(env, "attnlab_figures", {})
    for d in docnames:
        if d in getattr(other, "attnlab_figures", {}):
            env.attnlab_figures[d] = other.attnlab_figures[d]
    env.attnlab_cite_pages = getattr(env, "attnlab_cite_pages", set()) | (
        getattr(other, "attnlab_cite_pages", set()) & set(docnames))


def _figure_entry(app, docname, anchor, name, json_path) -> dict:
    env = app.env
    prov = json.loads(Path(json_path).read_text())
    num = env.toc_fignumbers.get(docname, {}).get("figure", {}).get(anchor)
    sec = env.toc_secnumbers.get(docname, {}).get("")
    title = env.titles[docname].astext() if docname in env.titles else docname
    chapter = (f"Chapter {'.'.join(map(str, sec))}, “{title}”" if sec else f"“{title}”")
    book = _book(app)
    page_url = book["url"] + app.builder.get_target_uri(docname)
    entry = figure_citation(book, name=name, anchor=anchor, page_url=page_url,
                            number=".".join(map(str, num)) if num else None, chapter=chapter,
                            version=prov["attnlab"], commit=prov.get("git_commit"), dirty=prov.get("git_dirty"))
    if prov.get("cite") != entry:  # the same entry goes into the provenance file that readers download
        prov["cite"] = entry
        Path(json_path).write_text(json.dumps(prov, indent=2) + "\n")
    # Sphinx copies download files before it writes the pages: update the copy too
    src = Path(json_path).resolve().relative_to(Path(app.srcdir).resolve()).as_posix()
    if src in env.dlfiles:
        copy = Path(app.outdir) / "_downloads" / env.dlfiles[src][1]
        if copy.exists() and copy.read_text() != Path(json_path).read_text():
            copy.write_text(Path(json_path).read_text())
    return entry


def on_doctree_resolved(app, doctree, docname):
    html_out = app.builder.format == "html"
    for para, name, target, fig in _pairs(doctree, warn=True):
        if not fig["ids"]:
            continue
        entry = _figure_entry(app, docname, fig["ids"][0], name, app.env.relfn2path(target, docname)[1])
        box = nodes.container(classes=["attnlab-figure-files"])
        para.parent.remove(para)
        box += para
        if html_out:
            box += nodes.raw("", citation_html(entry, kind="figure"), format="html")
        fig.parent.insert(fig.parent.index(fig) + 1, box)
    for node in list(doctree.findall(cite_placeholder)):
        if node["what"] == "book":
            info = build_info()
            entry = software_citation(_book(app), commit=info["git_commit"], dirty=info["git_dirty"])
        else:
            std = app.env.get_domain("std")
            doc, anchor = std.labels.get(node["label"], (None, None, None))[:2]
            found = getattr(app.env, "attnlab_figures", {}).get(doc, {}).get(anchor)
            if found is None:
                logger.warning(f"attnlab-cite: no figure with savefig downloads is named {node['label']!r}",
                               location=node)
                node.parent.remove(node)
                continue
            entry = _figure_entry(app, doc, anchor, found["name"], found["json"])
            entry = {**entry, "anchor": None}  # the id belongs to the item under the figure itself
        if html_out:
            node.replace_self(nodes.raw("", citation_html(entry, kind=node["what"], opened=node["open"]),
                                        format="html"))
        else:
            node.replace_self(nodes.literal_block(entry["bibtex"], entry["bibtex"]))


def setup(app):
    app.add_node(cite_placeholder, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("attnlab-cite", CiteDirective)
    app.add_css_file("attnlab-cite.css")  # in book/_static (html_static_path)
    app.connect("doctree-read", on_doctree_read)
    app.connect("env-purge-doc", on_purge)
    app.connect("env-merge-info", on_merge)
    app.connect("env-get-outdated", on_outdated)
    app.connect("doctree-resolved", on_doctree_resolved)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False, "env_version": 1}
