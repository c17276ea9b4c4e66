"""Rates over time, simulated and emulated (placeholder)."""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment


def experiments() -> list[Experiment]:
    """The dynamics experiments."""
    return []
