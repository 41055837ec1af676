"""The public API as a contract: the library stands apart from the audit, and every public name is documented
with an example that runs on its own."""
import ast
import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import attnlab

LIB = Path(attnlab.__file__).parent
LIBRARY_FILES = sorted(p for p in LIB.rglob("*.py")
                       if p.name not in {"plotting.py", "claims.py"} and "audit" not in p.relative_to(LIB).parts)
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


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: str(p.relative_to(LIB)))
def test_library_module_imports_no_audit_or_plotting(path):
    bad = {n for n in _imports(path) for f in FORBIDDEN if n == f or n.startswith(f + ".")}
    assert not bad, f"{path.name} imports {sorted(bad)}"


#: What ``import attnlab`` must not load: the book's stack, which only the ``[notebook]`` extra installs.
HEAVY = ("matplotlib", "pandas", "sympy", "sklearn", "tqdm", "IPython", "attnlab.audit", "attnlab.plotting")
#: The core's declared dependencies (pyproject.toml ``[project] dependencies``): exactly these.
CORE = {"numpy", "scipy", "array-api-compat", "threadpoolctl"}


def test_importing_attnlab_stays_light():
    code = (f"import sys, attnlab; bad = [m for m in {HEAVY!r} if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_core_declares_exactly_four_dependencies():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((LIB.parents[1] / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]}
    assert names == CORE
    assert "notebook" in project["optional-dependencies"]  # the Colab editions install attnlab[notebook]
    notebook = project["optional-dependencies"]["notebook"]
    extra = {re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in notebook}
    assert {"sympy", "matplotlib", "scikit-learn", "tqdm", "pandas", "ipython"} <= extra


def test_py_typed_is_shipped():
    assert (LIB / "py.typed").exists()


def test_index_names_are_importable_and_listed_in_the_docstring():
    """``__all__`` is the index of the package docstring; every other public name stays importable."""
    assert len(attnlab.__all__) == len(set(attnlab.__all__))
    for name in attnlab.__all__:
        assert hasattr(attnlab, name), name
        assert re.search(rf"^\s*{name}\b", attnlab.__doc__, flags=re.M), f"{name} is not in the index"
    for name in _every_public_name():
        assert hasattr(attnlab, name), name


def _every_public_name():
    """Every public name of the library: the union of its modules' ``__all__`` (``attnlab.__all__`` is the index)."""
    import importlib

    return sorted({n for mod in attnlab.MODULES for n in importlib.import_module(f"attnlab.{mod}").__all__})


def _public():
    return [(name, getattr(attnlab, name)) for name in _every_public_name()]


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
    lines = doc.splitlines()
    sections = {line.strip() for line, under in zip(lines, lines[1:]) if set(under.strip()) == {"-"}}
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


def test_api_page_lists_the_index_and_every_module():
    """book/api.md (the book's API page, autodoc) names every index entry and documents every module."""
    page = (LIB.parents[1] / "book" / "api.md").read_text()
    for name in attnlab.__all__:
        assert f"~{getattr(attnlab, name).__module__}.{name}\n" in page, name
    for mod in attnlab.MODULES:
        assert f".. automodule:: attnlab.{mod}\n" in page, mod


@pytest.mark.parametrize("old", sorted(attnlab.OLD_MODULES))
def test_old_module_path_is_the_moved_module(old):
    import importlib

    new = importlib.import_module(f"attnlab.{attnlab.OLD_MODULES[old]}")
    assert importlib.import_module(f"attnlab.{old}") is new
    assert getattr(attnlab, old) is new


def test_nothing_the_project_ships_uses_an_old_module_path():
    """The shims are for users' code: the library, the audit, the chapters, the scripts and the tests use
    the folders."""
    root = LIB.parent.parent
    alternation = "|".join(sorted(attnlab.OLD_MODULES, key=len, reverse=True))
    absolute = re.compile(rf"\battnlab\.({alternation})\b(?!\.py)")
    #: ``from ..<old>`` one folder down (audit, core, approx, ...) and ``from .<old>`` beside the shims.
    relative = {LIB: re.compile(rf"from \.({alternation}) import"),
                "sub": re.compile(rf"from \.\.({alternation}) import")}
    shims = {LIB / f"{old}.py" for old in attnlab.OLD_MODULES}
    found = []
    for folder in ("lib", "notebooks", "scripts", "benchmarks", "tests"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in {".py", ".ipynb"} or path in shims or path == Path(__file__):
                continue
            text = path.read_text()
            hits = absolute.findall(text)
            if path.parent == LIB:
                hits += relative[LIB].findall(text)
            elif path.parent.parent == LIB:
                hits += relative["sub"].findall(text)
            found += [f"{path.relative_to(root)}: {h}" for h in hits]
    assert not found, found


def test_the_index_lists_the_result_class_of_every_function_it_lists():
    """book/conventions.md (Results): a user who finds a function in the index finds what it returns there too."""
    missing = []
    for name in attnlab.__all__:
        obj = getattr(attnlab, name)
        if not inspect.isfunction(obj):
            continue
        ret = inspect.signature(obj).return_annotation
        module = importlib.import_module(obj.__module__)
        text = ret if isinstance(ret, str) else getattr(ret, "__name__", "")
        for cls_name in re.findall(r"\b[A-Z][A-Za-z0-9]+\b", text):
            cls = getattr(module, cls_name, None)
            if inspect.isclass(cls) and cls.__module__.startswith("attnlab") and cls_name not in attnlab.__all__:
                missing.append(f"{name} -> {cls_name}")
    assert not missing, missing
