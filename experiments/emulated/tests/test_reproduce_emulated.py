"""`fctlab reproduce emulated`: emulated points in the framework (run in this process, one at a
time, cached with their own fingerprint) and the emulated experiments' quick mode.

The framework tests replace `fctlab.emulate.emulate` with a stand-in that simulates and records
each call, so they check the framework's handling, not real time; the experiments themselves
run for real in tests/test_core_reproduce_smoke.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fctlab.emulate
from fctlab.quantity import parse_time
from fctlab.reproduce import papers
from fctlab.reproduce.framework import EMU, Experiment, run_experiment
from fctlab.run import run
from fctlab.scenario import read_scenario, with_overrides
from fctlab.tools.sweep import run_fingerprint
from realcore import REPO, fake  # noqa: F401  (fake: the compiled core)

PAPER = REPO / "experiments" / "emulated"
ONE_FLOW = {"workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": 14600}]}]}


@pytest.fixture
def calls(monkeypatch) -> list[dict[str, Any]]:
    """Every call of `fctlab.emulate.emulate`, which simulates instead (in this process only)."""
    seen: list[dict[str, Any]] = []

    def stand_in(scenario, *, seed=None, overrides=None, **kwargs):
        seen.append({"seed": seed, "overrides": overrides, **kwargs})
        result = run(scenario, seed=seed, overrides=overrides)
        result.meta["emulation"] = {"mode": "stand-in", "time_scale": kwargs.get("time_scale"), "warnings": []}
        return result

    monkeypatch.setattr(fctlab.emulate, "emulate", stand_in)
    return seen


def _experiment(time_scale: float, seen: list[list[str]]) -> Experiment:
    def analyze(runs, ctx):
        seen.append(list(runs.names))
        fct = runs.flows("tcp" + EMU, 2)["fct_s"][0]
        return f"| fct |\n|---|\n| {fct} |"

    return Experiment(
        name="tiny",
        title="Tiny",
        base="single-flows.toml",
        points=[("tcp", ONE_FLOW)],
        seeds=1,
        analyze=analyze,
        emulate={"time_scale": time_scale},
        emulate_seeds=2,
    )


def _run(exp: Experiment, tmp_path: Path, messages: list[str]) -> dict[str, Any]:
    return run_experiment(exp, PAPER, tmp_path / "runs", tmp_path / "out", quick=False, jobs=4, say=messages.append)


def test_emulated_points_run_here_one_at_a_time_and_are_reused(calls, tmp_path: Path):
    names: list[list[str]] = []
    messages: list[str] = []
    assert _run(_experiment(1.0, names), tmp_path, messages)["status"] == "done"
    # Run in this process (jobs=4 notwithstanding): the stand-in saw both repetitions.
    assert [c["seed"] for c in calls] == [1, 2]
    assert all(c["time_scale"] == 1.0 for c in calls)
    assert names == [["tcp", "tcp" + EMU]]
    record = json.loads((tmp_path / "runs" / "tiny" / ("tcp" + EMU) / "seed2" / "done.json").read_text())
    assert record["emulation"] == {"mode": "stand-in", "time_scale": 1.0, "warnings": []}
    report = (tmp_path / "out" / "tiny" / "README.md").read_text()
    assert "Runs: 3 (3 run now, 0 reused" in report
    assert "emulation" in report and "of wall-clock time" in report

    # Again: everything reused, no emulation run.
    messages.clear()
    _run(_experiment(1.0, names), tmp_path, messages)
    assert len(calls) == 2
    assert "Runs: 3 (0 run now, 3 reused" in (tmp_path / "out" / "tiny" / "README.md").read_text()

    # Another time scale: the emulations are stale, the simulation is not.
    _run(_experiment(2.0, names), tmp_path, messages)
    assert [c["time_scale"] for c in calls[2:]] == [2.0, 2.0]
    assert "Runs: 3 (2 run now, 1 reused" in (tmp_path / "out" / "tiny" / "README.md").read_text()


def test_an_emulated_only_point_is_emulated_and_never_simulated(calls, tmp_path: Path):
    """A point that only runs for real (a kernel stack) is emulated as `<name>.emu` and has no
    simulated run."""
    import dataclasses

    names: list[list[str]] = []
    exp = dataclasses.replace(_experiment(1.0, names), emulated_only=[("kernel", ONE_FLOW)])
    assert _run(exp, tmp_path, [])["status"] == "done"
    assert names == [["tcp", "tcp" + EMU, "kernel" + EMU]]
    assert len(calls) == 4  # two repetitions each of tcp and kernel
    assert not (tmp_path / "runs" / "tiny" / "kernel").exists()
    assert (tmp_path / "runs" / "tiny" / ("kernel" + EMU) / "seed2" / "done.json").is_file()


def test_an_emulated_runs_fingerprint_holds_its_settings():
    base, _ = read_scenario(PAPER / "single-flows.toml")
    resolved = with_overrides(base, ONE_FLOW)
    plain = run_fingerprint(resolved, 1)
    one = run_fingerprint(resolved, 1, {"time_scale": 1.0})
    assert len({plain, one, run_fingerprint(resolved, 1, {"time_scale": 10.0})}) == 3
    assert one == run_fingerprint(resolved, 1, {"time_scale": 1.0})


def test_emulated_paper_is_listed_and_every_experiment_emulates():
    exps = papers()["emulated"]()
    assert [e.name for e in exps] == [
        "fct-accuracy",
        "rc3-fig15",
        "rc3-fig16-17",
        "rcp-fig6-6-8",
        "explicit-fig10",
        "explicit-fig4",
    ]
    assert all(e.emulate is not None and (PAPER / e.base).is_file() for e in exps)


#: Wall seconds of run time an emulated quick-mode run may take (before process start and grace).
QUICK_WALL_S = 5.0


@pytest.mark.parametrize("exp", papers(REPO)["emulated"](), ids=lambda e: e.name)
def test_quick_mode_emulations_are_short(exp: Experiment):
    base, _ = read_scenario(PAPER / exp.base)
    scale = float((exp.emulate or {}).get("time_scale", 1.0))
    full_longest = 0.0
    for name, o in exp.points:
        quick = exp.quick(name, o) if callable(exp.quick) else exp.quick
        spec = with_overrides(base, {**o, **quick})
        starts = [parse_time(f["start"], "start") for w in spec["workload"] for f in w.get("flows", [])]
        run_s = max([parse_time(spec["duration"], "duration"), *starts])
        assert run_s * scale <= QUICK_WALL_S, f"{exp.name}/{name}: {run_s * scale:.1f} wall s in quick mode"
        full = with_overrides(base, o)
        full_longest = max(full_longest, parse_time(full["duration"], "duration"))
    # Quick mode is shorter than the full experiment, not the same run.
    assert full_longest * scale > QUICK_WALL_S
