"""The public API as a contract: the library stands apart from the audit, and every public name is documented
with an example that runs on its own."""
import ast
import doctest
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import attnlab

LIB = Path(attnlab.__file__).parent
LIBRARY_FILES = sorted(p for p in LIB.glob("*.py") if p.name not in {"plotting.py", "claims.py"})
#: What the library never imports: the book's machinery and the plotting and table stack.
FORBIDDEN = ("attnlab.audit", "attnlab.plotting", "matplotlib", "pandas")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the attnlab package
                base = "attnlab" + ("." + base if base else "")
                names.update(f"{base}.{a.name}" if not node.module else base for a in node.names)
            else:
                names.add(base)
    return names


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: p.name)
def test_library_module_imports_no_audit_or_plotting(path):
    bad = {n for n in _imports(path) for f in FORBIDDEN if n == f or n.startswith(f + ".")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_importing_attnlab_stays_light():
    code = ("import sys, attnlab; bad = [m for m in ('matplotlib', 'pandas', 'attnlab.audit', 'attnlab.plotting') "
            "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_public_name_is_reexported_once():
    assert len(attnlab.__all__) == len(set(attnlab.__all__))
    for name in attnlab.__all__:
        assert hasattr(attnlab, name), name


def _public():
    return [(name, getattr(attnlab, name)) for name in attnlab.__all__]


def _id(item):
    name, obj = item
    return f"{getattr(obj, '__module__', 'attnlab')}.{name}"


def _takes_parameters(obj) -> bool:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(p.name != "self" for p in sig.parameters.values())


@pytest.mark.parametrize("item", _public(), ids=_id)
def test_public_name_has_numpy_style_docstring(item):
    name, obj = item
    if not callable(obj):  # constants: a comment in the module documents them
        return
    doc = inspect.getdoc(obj) or ""
    sections = {line.strip() for line, under in zip(doc.splitlines(), doc.splitlines()[1:]) if set(under.strip()) == {"-"}}
    missing = {"Examples"} - sections
    if _takes_parameters(obj) and "Attributes" not in sections:  # a record may list its fields as Attributes
        missing |= {"Parameters"} - sections
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        missing |= {"Returns"} - sections - {"Yields"}
    assert not missing, f"{name}: docstring lacks {sorted(missing)}"


@pytest.mark.parametrize("item", [i for i in _public() if callable(i[1])], ids=_id)
def test_examples_run_in_a_fresh_namespace(item):
    """Each Examples section imports what it uses: it runs with empty globals, not the module's."""
    name, obj = item
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, name, globs={}) if t.examples]
    assert tests, f"{name} has no runnable example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        t.globs = {}
        runner.run(t)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed in a fresh namespace"
