"""The fixtures every folder of tests takes through its conftest.py (tests/ and each paper's
experiments/<paper>/tests/; pyproject.toml puts tests/ on the path for them), and helpers.

`fake` (autouse) installs the fake core (tests/fake_core.py) for every test; a test module that
does `from realcore import fake` replaces it with the compiled core's. `write` writes a file.
"""

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
