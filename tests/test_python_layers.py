"""The Python package's floor plan (python/fctlab/__init__.py): no import circles, and layers that
import only downwards: the API (modules directly under `fctlab`, `emulate/`, `html/`), then
`fctlab.tools`, then `fctlab.reproduce`, then `fctlab.cli`. Imports inside functions count, as
`scripts/import_cycles.py` counts them (its graph is the one read here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from realcore import fake  # noqa: F401  (the compiled core: the plug-in API version the checkout must match)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "fctlab"

#: The layers from the bottom: a module's layer is that of the first folder of its path under
#: python/fctlab/ named here; every other module is the API's (0).
LAYERS = {"tools": 1, "reproduce": 2, "cli": 3}


def _import_cycles():
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def layer(path: str) -> int:
    """The layer of a file given relative to the repository."""
    parts = Path(path).relative_to("python/fctlab").parts
    return LAYERS.get(parts[0], 0) if len(parts) > 1 else 0


def test_no_import_circle_in_the_python_package_or_the_experiments():
    circles = _import_cycles().all_circles()["python"]
    assert circles == [], "\n".join(" -> ".join(c) for c in circles)


def test_every_import_points_to_the_same_layer_or_one_below():
    graph = _import_cycles().python_graph([(PACKAGE, "fctlab")])
    upward = sorted(
        f"{src} (layer {layer(src)}) imports {dst} (layer {layer(dst)})"
        for src, deps in graph.items()
        for dst in deps
        if layer(dst) > layer(src)
    )
    assert upward == [], "\n".join(upward)


def test_the_api_imports_no_tool():
    """The rule's first floor spelled out: no API module imports `fctlab.tools` (or above)."""
    graph = _import_cycles().python_graph([(PACKAGE, "fctlab")])
    api = {src for src in graph if layer(src) == 0}
    assert api, "no API module found"
    tools = {src for src in graph if layer(src) == LAYERS["tools"]}
    assert tools, "no module under fctlab/tools found"
    assert sorted((src, dst) for src in api for dst in graph[src] if layer(dst) > 0) == []


def test_tools_that_find_the_checkout_from_their_own_file_find_it(monkeypatch, tmp_path):
    """A tool's file sits one folder deeper than the API's: the checkout it was installed from is
    still found from it (from any current directory) when fctlab runs from this checkout."""
    import fctlab
    from fctlab.tools import bench, plugins

    if not Path(fctlab.__file__).resolve().is_relative_to(PACKAGE):
        return  # installed as a wheel (scripts/test.sh): no checkout to find
    monkeypatch.chdir(tmp_path)
    assert bench.source_root() == ROOT
    assert plugins.api_crate_of_checkout() == ROOT / plugins.API_CRATE
