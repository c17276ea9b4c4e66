"""The layers of the Rust crates, read from their imports (scripts/import_cycles.py's analysis).

The scenario layer sits on top: it builds worlds from specs out of protocols, the world and
`plan/` (what builds pass down), and nothing below imports it back. These tests hold the
circles once closed through it (and the other circles removed with them) at zero.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = "crates/fctlab-core/src/"
EMU = "crates/fctlab-emu/src/"


def _analysis():
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Files that must be in no import circle: the folders whole, and the emulator's three files.
NO_CIRCLE = (
    CORE + "plan/",
    CORE + "scenario/",
    CORE + "world/",
    CORE + "metrics/",
    CORE + "reference/",
    EMU + "kernel.rs",
    EMU + "report.rs",
    EMU + "raw.rs",
)


def test_no_circle_passes_through_the_upper_layers_metrics_or_references() -> None:
    found = _analysis().all_circles()
    caught = sorted(f for circles in found.values() for c in circles for f in c if f.startswith(NO_CIRCLE))
    assert caught == [], f"files of these layers in import circles: {caught}"


def test_no_import_circle_anywhere() -> None:
    """`python3 scripts/import_cycles.py` counts zero: in both Rust crates' sources and the
    Python package with the experiments (a circle named by its files if one comes back)."""
    found = _analysis().all_circles()
    assert not any(found.values()), {where: c for where, c in found.items() if c}


def test_nothing_below_the_scenario_layer_imports_it() -> None:
    graph = _analysis().rust_graph(ROOT / CORE)
    upward = sorted(
        f"{f} -> {d}"
        for f, deps in graph.items()
        if not f.startswith(CORE + "scenario/")
        for d in deps
        if d.startswith(CORE + "scenario/")
    )
    assert upward == [], "imports of the scenario layer from below it:\n" + "\n".join(upward)
    assert any(f.startswith(CORE + "plan/") for f in graph), "plan/ exists"


def test_protocols_take_what_builds_pass_down_from_plan_not_from_the_world() -> None:
    graph = _analysis().rust_graph(ROOT / CORE)
    upward = sorted(
        f"{f} -> {d}"
        for f, deps in graph.items()
        if f.startswith(CORE + "protocol/")
        for d in deps
        if d.startswith(CORE + "world/")
    )
    assert upward == [], "protocol files importing the world:\n" + "\n".join(upward)
    assert any(CORE + "plan/" in d for f, deps in graph.items() if f.startswith(CORE + "protocol/") for d in deps)


def test_the_series_read_links_through_a_sample_and_their_metric_is_a_leaf() -> None:
    graph = _analysis().rust_graph(ROOT / CORE)
    series = sorted(d for d in graph[CORE + "metrics/series.rs"] if d.startswith(CORE + "net/"))
    assert series == [], f"metrics/series.rs imports the links: {series}"
    assert graph.get(CORE + "metrics/metric.rs") == set(), "Metric is in a leaf module, which imports nothing"


def test_the_queue_disciplines_keys_live_beside_them() -> None:
    keys = ("RedKeys", "StepKeys", "DrrKeys", "PrioKeys")
    scenario = "\n".join(f.read_text() for f in (ROOT / CORE / "scenario").rglob("*.rs"))
    qdisc = "\n".join(f.read_text() for f in (ROOT / CORE / "qdisc").rglob("*.rs"))
    for k in keys:
        assert f"pub struct {k} " not in scenario, f"{k} is defined in scenario/"
        assert f"pub struct {k} " in qdisc, f"{k} is defined in qdisc/"
