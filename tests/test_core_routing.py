"""ECMP's default by topology and the run's note when single-path routing leaves equal-cost paths
unused, through `fctlab run`, `summary` and `validate` and the Python API, on the compiled core."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

import fctlab
from fctlab.cli import main
from realcore import fake  # noqa: F401  (the compiled core)

NOTE = re.compile(
    r"^note: routing: single-path \((?P<why>[^)]*)\) left equal-cost paths unused for (?P<n>\d+) of (?P<m>\d+) "
    r"flows; set routing\.ecmp = true to spread them$",
    re.M,
)


def scenario(topology: dict, routing: dict | None = None) -> dict:
    """20 KB flows between uniformly drawn hosts (some under one switch, most not) for 20 ms."""
    spec = {
        "seed": 5,
        "duration": "20ms",
        "topology": topology,
        "transport": {"iw": 10},
        "workload": [
            {"kind": "poisson", "rate": 10000, "sizes": {"kind": "fixed", "size": 20000}, "pairs": {"kind": "uniform"}}
        ],
    }
    if routing is not None:
        spec["routing"] = routing
    return spec


FAT_TREE = {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"}


def host(name: str) -> int:
    return int(name.removeprefix("h"))


def cores_used(r: fctlab.Result) -> set[str]:
    """The core switches some flow's path leaves."""
    names = dict(zip(r.links["id"], r.links["name"], strict=True))
    return {names[l].split("->")[0] for path in r.flows["path"] for l in path if names[l].startswith("core")}


def run_cli(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_fat_tree_without_ecmp_notes_the_flows_that_had_equal_cost_paths(tmp_path, capsys):
    """ecmp = false on a k = 4 fat tree: the note counts the flows between hosts under different
    edge switches (h2e and h2e+1 share one), and those flows all cross core0."""
    path = tmp_path / "ft.json"
    path.write_text(json.dumps(scenario(FAT_TREE, {"ecmp": False})))
    out = run_cli(capsys, "run", str(path), "-o", str(tmp_path / "out"), "-q")
    assert out == "", "quiet: no summary, no note"
    r = fctlab.load(tmp_path / "out")
    spread = sum(host(s) // 2 != host(d) // 2 for s, d in zip(r.flows["src"], r.flows["dst"], strict=True))
    assert 0 < spread < r.flows.height, "pairs of both kinds"
    want = (
        f"routing: single-path (routing.ecmp = false) left equal-cost paths unused for {spread} of "
        f"{r.flows.height} flows; set routing.ecmp = true to spread them"
    )
    assert r.notices == [want]
    assert cores_used(r) == {"core0"}
    # The summary of the results directory ends with it, and so does validating the scenario.
    summary = run_cli(capsys, "summary", str(tmp_path / "out"))
    assert summary.rstrip().endswith(f"note: {want}")
    assert f"note: {want}" in run_cli(capsys, "validate", str(path))
    shown = run_cli(capsys, "run", str(path), "-o", str(tmp_path / "again"))
    assert [m.group(0) for m in NOTE.finditer(shown)] == [f"note: {want}"]


def test_fat_tree_by_default_spreads_over_every_core_and_notes_nothing(tmp_path, capsys):
    r = fctlab.run(scenario(FAT_TREE))
    assert r.notices == []
    assert cores_used(r) == {"core0", "core1", "core2", "core3"}
    explicit = fctlab.run(scenario(FAT_TREE, {"ecmp": True}))
    assert explicit.flows.equals(r.flows), "the default is ecmp = true"
    path = tmp_path / "ft.toml"
    path.write_text(
        'duration = "5ms"\n[topology]\nkind = "fat_tree"\nk = 4\nrate = "10Gbps"\ndelay = "1us"\n'
        '[[workload]]\nkind = "poisson"\nrate = 10000\nsizes = { kind = "fixed", size = 1460 }\n'
    )
    out = run_cli(capsys, "run", str(path), "-o", str(tmp_path / "out"))
    assert "note:" not in out and "flows:" in out


def test_leaf_spine_by_default_spreads_over_every_spine():
    r = fctlab.run(scenario({"kind": "leaf_spine", "leaves": 3, "hosts_per_leaf": 4}))
    assert r.notices == []
    names = dict(zip(r.links["id"], r.links["name"], strict=True))
    spines = {names[l].split("->")[0] for p in r.flows["path"] for l in p if names[l].startswith("spine")}
    assert spines == {"spine0", "spine1", "spine2", "spine3"}
    single = fctlab.run(scenario({"kind": "leaf_spine", "leaves": 3, "hosts_per_leaf": 4}, {"ecmp": False}))
    between = single.flows.filter(
        pl.col("src").str.slice(1).cast(pl.Int64) // 4 != pl.col("dst").str.slice(1).cast(pl.Int64) // 4
    ).height
    assert len(single.notices) == 1 and f"for {between} of {single.flows.height} flows" in single.notices[0]


@pytest.mark.parametrize("routing", [None, {"ecmp": False}, {"ecmp": True}])
def test_a_dumbbell_never_notes_unused_paths(routing, capsys, tmp_path):
    topology = {"kind": "dumbbell", "hosts_per_side": 3, "bottleneck_rate": "1Gbps", "bottleneck_delay": "1ms"}
    r = fctlab.run(scenario(topology, routing))
    assert r.flows.height > 100 and r.notices == []
    r.write(tmp_path / "out")
    assert "note:" not in run_cli(capsys, "summary", str(tmp_path / "out"))
