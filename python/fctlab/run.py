"""Run one scenario: resolve it, hand it to the compiled core as JSON, step it, collect a Result.

The core runs in steps of 1/200 of the scenario's horizon so that Ctrl-C and the progress bar
get a look in between (each `run_until` call releases the GIL). After the horizon the run goes
on until the core reports every flow done (draining), in steps of the same size.

Which core: `fctlab._core`, or the module named by the environment variable `FCTLAB_CORE`
(the test suite's stand-in; the variable reaches sweep worker processes too). Tests may also
replace the module attribute `fctlab.run._core` directly.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from fctlab.result import Result
from fctlab.scenario import ScenarioLike, read_scenario, resolve_scenario, with_overrides
from fctlab.values import plain

#: Progress/interrupt granularity: steps per scenario horizon.
STEPS_PER_HORIZON = 200
#: Step (s) when a scenario reports no horizon.
_FALLBACK_STEP = 1e-3


def _import_core() -> ModuleType | None:
    name = os.environ.get("FCTLAB_CORE")
    if name:
        return importlib.import_module(name)
    try:
        from fctlab import _core as core
    except ImportError:
        return None
    return core


_core: ModuleType | None = _import_core()


class CoreNotBuilt(RuntimeError):
    """The compiled module `fctlab._core` is missing (the package was not built with maturin)."""


def core() -> ModuleType:
    """The compiled core module; a clear error when it has not been built."""
    if _core is None:
        raise CoreNotBuilt("fctlab._core is not built: run `maturin develop --release` in the repository")
    return _core


def prepare(
    scenario: ScenarioLike, *, seed: int | None = None, overrides: Mapping[str, Any] | None = None
) -> tuple[dict, str]:
    """The resolved spec the core will see (overrides and seed applied) and its base directory."""
    spec, base_dir = read_scenario(scenario)
    spec = with_overrides(spec, overrides)
    if seed is not None:
        spec["seed"] = seed
    return resolve_scenario(plain(spec)), str(base_dir)


def build(
    scenario: ScenarioLike, *, seed: int | None = None, overrides: Mapping[str, Any] | None = None
) -> tuple[Any, dict]:
    """Validates and builds a core Simulation without running it; returns (simulation, spec)."""
    spec, base_dir = prepare(scenario, seed=seed, overrides=overrides)
    return core().Simulation(json.dumps(spec), base_dir), spec


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
) -> Result:
    """Runs a scenario (path to TOML/JSON, or dict) to completion and returns its Result."""
    sim, spec = build(scenario, seed=seed, overrides=overrides)
    horizon = float(sim.horizon)
    step = horizon / STEPS_PER_HORIZON if horizon > 0 else _FALLBACK_STEP
    bar = _Progress(horizon) if progress else None
    try:
        k = 0
        while True:
            k += 1
            # k * step, not a running sum, so the step targets do not drift.
            done = sim.run_until(k * step)
            if bar:
                bar.show(sim)
            if done:
                break
    finally:
        if bar:
            bar.close()
    return Result.from_core(sim.results(), spec)


class _Progress:
    """A tqdm bar in simulated seconds up to the horizon, then "draining"."""

    def __init__(self, horizon: float) -> None:
        from tqdm import tqdm

        self.horizon = horizon
        self.bar = tqdm(
            total=horizon,
            unit="sim s",
            leave=True,
            bar_format="{desc}{percentage:3.0f}%|{bar}| {n:.3f}/{total:.3f} sim s [{elapsed}<{remaining}]{postfix}",
        )
        self.bar.set_description("simulating")
        self.draining = False

    def show(self, sim: Any) -> None:
        now = float(sim.now)
        self.bar.update(min(now, self.horizon) - self.bar.n)
        if now >= self.horizon:
            if not self.draining:
                self.bar.set_description("draining")
                self.draining = True
            # Optional in the core's contract: show it when the core offers it.
            open_flows = getattr(sim, "open_flows", None)
            self.bar.set_postfix_str(
                f"t={now:.3f} s" + (f", {open_flows} flows open" if open_flows is not None else "")
            )

    def close(self) -> None:
        self.bar.close()
