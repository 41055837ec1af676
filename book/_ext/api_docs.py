"""The API page (book/api.md): autodoc reads the library's NumPy-style docstrings (napoleon).

A result record (a ``NamedTuple`` or a dataclass) lists its fields in its docstring's Attributes section; autodoc
would document each field a second time ("Alias for field number 0"), so those members are skipped here.
"""


def _skip(app, what, name, obj, skip, options):
    doc = getattr(obj, "__doc__", None) or ""
    if what == "class" and doc.startswith("Alias for field number"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
