"""Every test runs against the fake core (tests/fake_core.py), never a built `fctlab._core`."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

import fake_core


@pytest.fixture(autouse=True)
def fake(monkeypatch: pytest.MonkeyPatch):
    """Installs the fake core in-process and, via FCTLAB_CORE, in any spawned worker."""
    # `fctlab.run` the attribute is the function; the module is reached through importlib.
    monkeypatch.setattr(importlib.import_module("fctlab.run"), "_core", fake_core)
    monkeypatch.setenv("FCTLAB_CORE", "fake_core")
    for calls in fake_core.CALLS.values():
        calls.clear()
    return fake_core


def write(path: Path, text: str) -> Path:
    """Writes dedented text to path (parents created) and returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    """A small scenario the fake core accepts."""
    return write(
        tmp_path / "scen" / "small.toml",
        """
        seed = 1
        duration = "1s"

        [[workload]]
        load = 0.3

        [transport]
        protocol = "tcp"
    """,
    )
