"""Shared pieces of the tests that run the compiled core (tests/test_core_*.py, and the papers'
tests in experiments/<paper>/tests/), and of those that load a paper's code.

Every conftest.py installs the fake core for every test through an autouse fixture named `fake`
(shared_fixtures.py); a test module that does `from realcore import fake` replaces that fixture with the one below,
which makes sure the real `fctlab._core` is the one in use. A missing core is an error, not a
skip: these tests are the proof that the built package works.
"""

from __future__ import annotations

import copy
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]

#: A dumbbell small enough to run in a few milliseconds: 2 hosts per side, 100 Mb/s, 20 ms RTT,
#: Poisson arrivals of 10-segment flows at 30% of the bottleneck for 0.5 s (about 65 flows).
SMALL_DUMBBELL: dict[str, Any] = {
    "name": "small-dumbbell",
    "seed": 1,
    "duration": "500ms",
    "measure_from": "100ms",
    "topology": {
        "kind": "dumbbell",
        "hosts_per_side": 2,
        "bottleneck_rate": "100Mbps",
        "bottleneck_delay": "5ms",
        "access_rate": "1Gbps",
        "access_delay": "1ms",
    },
    "queues": {"router": {"kind": "droptail", "limit": "250KB"}},
    "workload": [
        {
            "kind": "poisson",
            "load": 0.3,
            "load_on": "bottleneck",
            "sizes": {"kind": "fixed", "size": 14600},
        }
    ],
}


def small_dumbbell(**top: Any) -> dict[str, Any]:
    """A fresh copy of SMALL_DUMBBELL with top-level fields replaced."""
    spec = copy.deepcopy(SMALL_DUMBBELL)
    spec.update(copy.deepcopy(top))
    return spec


@pytest.fixture(autouse=True)
def fake(monkeypatch: pytest.MonkeyPatch):
    """Replaces conftest's fake-core fixture: the compiled core must be the one in use."""
    monkeypatch.delenv("FCTLAB_CORE", raising=False)
    compiled = importlib.import_module("fctlab._core")  # ImportError = the core is not built
    assert importlib.import_module("fctlab.run")._core is compiled, "fctlab.run uses a stand-in core"
    return None


def cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `fctlab ARGS...` in a fresh interpreter (the installed package, the real core)."""
    env = {k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}
    return subprocess.run(
        [sys.executable, "-m", "fctlab.cli", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout
    )


def wait_for(cond, timeout: float, what: str) -> None:
    """Polls `cond` every 50 ms until it holds; AssertionError naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def experiment_code(paper: str, name: str):
    """The module of experiment `name` of a paper kept as a folder of experiments/
    (`experiments/<paper>/<name>/experiment.py`, `fctlab.reproduce.discover`)."""
    from fctlab.reproduce.discover import experiment_module

    return experiment_module(REPO, paper, name)


def paper_code(paper: str, module: str):
    """A module a paper's experiments share (`experiments/<paper>/<module>.py`)."""
    from fctlab.reproduce.discover import experiments_dir, mount

    mount(experiments_dir(REPO))
    return importlib.import_module(f"fctlab_experiments.{paper}.{module}")
