#!/usr/bin/env bash
# The tests: build fctlab into .venv (with the test and topohub extras; as root, iproute2 for
# the emulation tests in network namespaces when `ip` is missing, tshark for the packet capture
# tests, and Debian's Chromium for the browser tests of the HTML reports, each when missing),
# the linters and
# formatters (cargo fmt --check, cargo clippy -D warnings, ruff check, ruff format --check), then
# the Rust tests of the core and of the emulation crate, and the Python tests (which run the
# compiled core). Exits non-zero on any failure, and when pytest finds no tests at all.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_venv
ensure_emulation_tools
ensure_tshark
ensure_browser
install_package ".[test,topo]"

cd "$ROOT"
say "linters: cargo fmt --check, cargo clippy, ruff"
for tool in fmt clippy; do
    cargo "$tool" --version >/dev/null 2>&1 \
        || die "cargo $tool is missing: install it with \`rustup component add ${tool/fmt/rustfmt}\` (Debian: apt-get install rust-clippy rustfmt)"
done
cargo fmt --all --check || die "Rust code is not formatted: run \`cargo fmt --all\`"
cargo clippy --release --all-targets -p fctlab-core -p fctlab-emu -p fctlab-plugin -p fctlab-py -- -D warnings
# The plug-in template is a crate of its own (not in the workspace), linted as a user's would be.
TEMPLATE=examples/plugins/template/Cargo.toml
cargo fmt --manifest-path "$TEMPLATE" --check || die "the plug-in template is not formatted: run \`cargo fmt --manifest-path $TEMPLATE\`"
cargo clippy --release --manifest-path "$TEMPLATE" -- -D warnings
"$VENV/bin/ruff" check python tests experiments
"$VENV/bin/ruff" format --check python tests experiments || die "Python code is not formatted: run \`ruff format python tests experiments\`"

say "cargo test --release -p fctlab-core -p fctlab-emu -p fctlab-plugin"
cargo test --release -p fctlab-core -p fctlab-emu -p fctlab-plugin

say "python -m pytest -q --durations=15"
status=0
# A bound on the whole suite (it takes about 12 minutes on two cores): past it pytest gets
# SIGINT, prints where it was and what failed so far, and the command fails instead of hanging.
timeout --signal=INT --kill-after=60 "${FCTLAB_TEST_LIMIT:-45m}" "$PY" -m pytest -q --durations=15 || status=$?
if [[ $status -eq 124 ]]; then
    die "pytest did not finish within ${FCTLAB_TEST_LIMIT:-45m} and was stopped"
fi
if [[ $status -eq 5 ]]; then
    # pytest's "no tests collected" must not pass for success, nor go unexplained.
    die "pytest collected no tests (exit code 5): the test suite is missing or was filtered out"
fi
if [[ $status -ne 0 ]]; then
    die "pytest failed (exit code $status)"
fi
say "all tests passed"
