"""Every test runs against the fake core (tests/fake_core.py), never a built `fctlab._core`:
the autouse fixture `fake` of shared_fixtures.py, which each paper's tests
(experiments/<paper>/tests/conftest.py) take too. Test modules import helpers from
shared_fixtures.py, not from a conftest.py: every folder of tests has one, all named `conftest`."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared_fixtures import fake, write  # noqa: F401  (fake: autouse)


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
