"""This paper's tests take the fixtures of tests/ (shared_fixtures.py): every test runs on the
fake core unless its module takes the compiled one (`from realcore import fake`)."""

from shared_fixtures import fake  # noqa: F401  (autouse)
