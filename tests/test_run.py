"""fctlab.run: stepping the core, seeds and overrides, progress, errors."""

from __future__ import annotations

import importlib

import pytest

from fctlab.errors import ScenarioError
from fctlab.run import STEPS_PER_HORIZON, CoreNotBuilt, run


def test_runs_in_steps_of_the_horizon_until_drained(scenario_file, fake):
    """Step targets are k * horizon / 200, and stepping continues past the horizon to drain."""
    r = run(scenario_file)
    targets = fake.CALLS["run_until"]
    step = 1.0 / STEPS_PER_HORIZON
    assert targets[:3] == pytest.approx([step, 2 * step, 3 * step])
    assert targets[-1] > 1.0  # the fake's last flow finishes after the 1 s horizon
    assert r.meta["sim_time_s"] == pytest.approx(max(f for f in r.flows["finish_s"].to_list() if f is not None))


def test_seed_and_overrides_reach_the_core(scenario_file, fake):
    """The core sees the seed and overrides; the Result keeps the resolved scenario."""
    r = run(scenario_file, seed=9, overrides={"transport.protocol": "rc3"})
    built = fake.CALLS["built"][-1]
    assert built["seed"] == 9 and built["transport"]["protocol"] == "rc3"
    assert r.scenario == built and r.meta["seed"] == 9
    assert set(r.flows["protocol"].to_list()) == {"rc3"}


def test_same_seed_same_flows_dict_scenario(fake):
    """A dict works as a scenario; the same seed gives the same table."""
    spec = {"seed": 2, "duration": 0.5}
    assert run(spec).flows.equals(run(spec).flows)


def test_scenario_error_from_the_core_propagates(scenario_file):
    """The core's refusal reaches the caller unchanged."""
    with pytest.raises(ScenarioError, match=r"field `workload\[0\].load`: expected 0 < load < 1, got 1.2"):
        run(scenario_file, overrides={"workload.0.load": 1.2})


def test_progress_bar_shows_simulated_seconds_and_draining(scenario_file, capsys):
    """The bar counts simulated seconds and says when the run is draining past the horizon."""
    run(scenario_file, progress=True)
    err = capsys.readouterr().err
    assert "sim s" in err and "draining" in err and "1.000/1.000" in err


def test_missing_core_is_a_clear_error(scenario_file, monkeypatch):
    """Without a built core, say how to build it."""
    monkeypatch.setattr(importlib.import_module("fctlab.run"), "_core", None)
    with pytest.raises(CoreNotBuilt, match="maturin develop"):
        run(scenario_file)
