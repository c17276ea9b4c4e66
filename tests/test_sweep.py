"""fctlab.tools.sweep: expansion, skip of finished runs, failures that do not lose other runs."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import polars as pl
import pytest

from fctlab.errors import ScenarioError
from fctlab.scenario import read_scenario, with_overrides
from fctlab.tools.sweep import FIELDS, RUN_NAME, flatten, load_sweep, point_name, run_sweep
from shared_fixtures import write

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def grid_sweep(tmp_path, scenario_file):
    """2 protocols x 3 loads (one the core refuses) x 2 seeds."""
    return write(
        tmp_path / "sweep.toml",
        f"""
        scenario = "{os.path.relpath(scenario_file, tmp_path)}"
        seeds = [1, 2]
        [grid]
        "transport.protocol" = ["tcp", "rc3"]
        workload.0.load = [0.1, 0.3, 1.2]
    """,
    )


def test_grid_is_a_cartesian_product_in_file_order(grid_sweep, scenario_file):
    """Every combination of the axes, named key=value_..., seeds innermost."""
    sweep = load_sweep(grid_sweep)
    assert sweep.scenario.resolve() == scenario_file.resolve()
    runs = sweep.runs()
    assert len(runs) == 2 * 3 * 2
    assert runs[0].name == "transport.protocol=tcp_workload.0.load=0.1" and runs[0].seed == 1
    assert runs[1].name == runs[0].name and runs[1].seed == 2
    assert runs[-1].overrides == {"transport.protocol": "rc3", "workload.0.load": 1.2}
    assert runs[-1].relpath == "transport.protocol=rc3_workload.0.load=1.2/seed2"


def test_named_runs_and_seed_count(tmp_path, scenario_file):
    """[[runs]] give named override sets (nested tables flattened); seeds = 3 means 1..3."""
    path = write(
        tmp_path / "s.toml",
        f"""
        scenario = "{scenario_file}"
        seeds = 3
        [[runs]]
        name = "tcp"
        transport.protocol = "tcp"
        [[runs]]
        name = "rc3"
        "transport.protocol" = "rc3"
    """,
    )
    sweep = load_sweep(path)
    assert sweep.seeds == [1, 2, 3]
    assert sweep.points == [("tcp", {"transport.protocol": "tcp"}), ("rc3", {"transport.protocol": "rc3"})]


@pytest.mark.parametrize(
    "body, message",
    [
        ("seeds = 0", "field `seeds`"),
        ("seeds = [1, 1]", "field `seeds`"),
        ("seeds = 1\nfoo = 2", "field `foo`: unknown field"),
        ("seeds = 1\n[grid]\nseed = [1, 2]", "seed comes from `seeds`"),
        ("seeds = 1\n[grid]\nx = []", "non-empty list"),
        ('seeds = 1\n[[runs]]\nname = "a"\n[[runs]]\nname = "a"', "both named `a`"),
        ('seeds = 1\n[[runs]]\nname = "../up"', "directory-safe name"),
        ('seeds = 1\n[grid]\nx = [1]\n[[runs]]\nname = "a"', "either"),
        ("seeds = 1\nruns = [1, 2]", "field `runs\\[0\\]`: expected a \\[\\[runs\\]\\] table"),
    ],
)
def test_sweep_file_errors(tmp_path, body, message):
    """Sweep-file mistakes name the field."""
    path = write(tmp_path / "s.toml", f'scenario = "x.toml"\n{body}\n')
    with pytest.raises(ScenarioError, match=message):
        load_sweep(path)


def test_helpers_flatten_and_name():
    """Nested tables become dotted keys; names are file-system safe."""
    assert flatten({"a": {"0": {"b": 1}}, "c": [1, 2]}) == {"a.0.b": 1, "c": [1, 2]}
    assert point_name({"x": "a/b c", "y": True, "z": [1, 2]}) == "x=a-b-c_y=true_z=-1,-2-"


def test_failing_run_keeps_the_others_and_rerun_skips_finished(grid_sweep, tmp_path, fake):
    """A refused point fails alone; a second sweep runs only what is not done."""
    out = tmp_path / "out"
    outcomes = run_sweep(grid_sweep, out, jobs=1)
    failed = [o for o in outcomes if o.status == "failed"]
    assert len(outcomes) == 12 and len(failed) == 4
    assert all("workload[0].load" in o.error for o in failed)
    ok = [o for o in outcomes if o.status == "done"]
    for o in ok:
        assert (out / o.run.relpath / "done.json").is_file() and (out / o.run.relpath / "flows.parquet").is_file()
    assert (out / failed[0].run.relpath).parent.joinpath(f"seed{failed[0].run.seed}.error.txt").is_file()
    assert not list(out.rglob(".seed*.tmp-*"))

    index = pl.read_parquet(out / "sweep.parquet")
    assert index.height == 12 and index.columns[:5] == ["run", "seed", "status", "error", "path"]
    assert index.filter(pl.col("status") == "done")["mean_fct_s"].null_count() == 0
    assert index["workload.0.load"].dtype == pl.Float64 and index["transport.protocol"].dtype == pl.String

    built = len(fake.CALLS["built"])
    marker = out / ok[0].run.relpath / "done.json"
    before = marker.stat().st_mtime_ns
    again = run_sweep(grid_sweep, out, jobs=1)
    assert sum(o.skipped for o in again) == 8 and marker.stat().st_mtime_ns == before
    # Only the 4 refused runs were tried again.
    assert len(fake.CALLS["built"]) - built == 4
    assert pl.read_parquet(out / "sweep.parquet").equals(index)


def test_incomplete_leftovers_are_redone(grid_sweep, tmp_path):
    """A run directory without done.json and stale temporaries do not count as finished."""
    sweep = load_sweep(grid_sweep)
    first = sweep.runs()[0]
    out = tmp_path / "out"
    (out / first.relpath).mkdir(parents=True)
    (out / first.relpath / "flows.parquet").write_text("half-written")
    stale = out / first.name / f".seed{first.seed}.tmp-99999"
    stale.mkdir()
    outcomes = run_sweep(sweep, out, jobs=1)
    assert outcomes[0].status == "done" and not outcomes[0].skipped
    assert json.loads((out / first.relpath / "done.json").read_text())["seed"] == first.seed
    assert not stale.exists()


def test_bad_override_fails_before_any_run(tmp_path, scenario_file, fake):
    """An override path that cannot apply stops the sweep before it starts."""
    path = write(tmp_path / "s.toml", f'scenario = "{scenario_file}"\nseeds = 1\n[grid]\n"workload.5.load" = [0.1]\n')
    with pytest.raises(ScenarioError, match=r"sweep run `workload.5.load=0.1`: override .*out of range"):
        run_sweep(path, tmp_path / "out", jobs=1)
    assert fake.CALLS["built"] == []


def test_parallel_processes(grid_sweep, tmp_path):
    """With -j 2 the runs execute in spawned worker processes (FCTLAB_CORE reaches them)."""
    outcomes = run_sweep(grid_sweep, tmp_path / "out", jobs=2)
    assert [o.status for o in outcomes].count("done") == 8
    assert pl.read_parquet(tmp_path / "out" / "sweep.parquet").height == 12


def test_cached_runs_are_reused_only_with_the_same_scenario_and_build(
    grid_sweep, scenario_file, tmp_path, fake, monkeypatch
):
    """A finished run is keyed by its resolved scenario, seed and build, not by its name alone."""
    out = tmp_path / "out"
    messages: list[str] = []
    first = run_sweep(grid_sweep, out, jobs=1)
    assert sum(o.skipped for o in first) == 0
    marker = json.loads((out / first[0].run.relpath / "done.json").read_text())
    assert len(marker["fingerprint"]) == 64

    again = run_sweep(grid_sweep, out, jobs=1, report=messages.append)
    assert sum(o.skipped for o in again) == 8, "same scenario, same build: every finished run reused"

    # The base scenario changes under every run: nothing finished may be reused.
    scenario_file.write_text(scenario_file.read_text().replace('duration = "1s"', 'duration = "2s"'))
    built = len(fake.CALLS["built"])
    changed = run_sweep(grid_sweep, out, jobs=1, report=messages.append)
    assert sum(o.skipped for o in changed) == 0
    assert len(fake.CALLS["built"]) - built == 12
    assert any("8 earlier runs are stale" in m for m in messages)

    # A new build of the core: the same.
    monkeypatch.setattr("fctlab.tools.sweep.build_id", lambda: "another-build")
    rebuilt = run_sweep(grid_sweep, out, jobs=1)
    assert sum(o.skipped for o in rebuilt) == 0
    assert sum(o.skipped for o in run_sweep(grid_sweep, out, jobs=1)) == 8


def test_cluster_without_dask_says_how_to_install_it(grid_sweep, tmp_path, monkeypatch, capsys):
    """`--cluster` when `distributed` cannot be imported: one line naming the extra to install, exit 2."""
    from fctlab.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main(["sweep", str(grid_sweep), "-o", str(tmp_path / "out"), "--cluster", "local:1"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --cluster local:1: "), lines
    assert "pip install 'fctlab[dask]'" in lines[0]


def sweep_file_doc() -> str:
    """The section of docs/sweeps.md that documents the sweep file."""
    text = (REPO / "docs" / "sweeps.md").read_text()
    assert "\n## The sweep file\n" in text, "docs/sweeps.md has no section 'The sweep file'"
    return text.split("\n## The sweep file\n", 1)[1].split("\n## ", 1)[0]


def doc_sweep_examples() -> list[tuple[str, list[str]]]:
    """(sweep file, the run directories the doc says it makes) of each example in the doc."""
    blocks = re.findall(r"```(toml|text)\n(.*?)```", sweep_file_doc(), re.S)
    return [(body, blocks[i + 1][1].split()) for i, (lang, body) in enumerate(blocks[:-1]) if lang == "toml"]


def test_the_doc_lists_every_key_of_the_sweep_file():
    """The key table of docs/sweeps.md names exactly the keys the parser takes."""
    keys = re.findall(r"^\| `([^`]+)` \|", sweep_file_doc(), re.M)
    assert sorted(keys) == sorted([*FIELDS, f"runs.{RUN_NAME}"])


def test_the_doc_examples_make_the_runs_the_doc_lists(tmp_path):
    """Each example sweep file of docs/sweeps.md parses, makes the run directories listed after it,
    and its overrides apply to its scenario (the checkout's examples/)."""
    examples = doc_sweep_examples()
    assert len(examples) == 2
    (tmp_path / "examples").symlink_to(REPO / "examples")
    for text, listed in examples:
        sweep = load_sweep(write(tmp_path / "sweep.toml", text))
        assert [r.relpath for r in sweep.runs()] == listed
        base, _ = read_scenario(sweep.scenario)
        for _, overrides in sweep.points:
            with_overrides(base, overrides)
