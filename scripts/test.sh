#!/usr/bin/env bash
# The tests: build fctlab into .venv (with the test and topohub extras), then the Rust tests
# of the core and the Python tests (which run the compiled core). Exits non-zero on any
# failure, and when pytest finds no tests at all.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_venv
install_package ".[test,topo]"

cd "$ROOT"
say "cargo test --release -p fctlab-core"
cargo test --release -p fctlab-core

say "python -m pytest -q"
status=0
"$PY" -m pytest -q || status=$?
if [[ $status -eq 5 ]]; then
    # pytest's "no tests collected" must not pass for success, nor go unexplained.
    die "pytest collected no tests (exit code 5): the test suite is missing or was filtered out"
fi
if [[ $status -ne 0 ]]; then
    die "pytest failed (exit code $status)"
fi
say "all tests passed"
