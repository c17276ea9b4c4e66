#!/usr/bin/env bash
# The tests: build fctlab into .venv (with the test and topohub extras; as root, iproute2 for
# the emulation tests in network namespaces when `ip` is missing, and tshark for the packet
# capture tests), the linters and
# formatters (cargo fmt --check, cargo clippy -D warnings, ruff check, ruff format --check), then
# the Rust tests of the core and of the emulation crate, and the Python tests (which run the
# compiled core). Exits non-zero on any failure, and when pytest finds no tests at all.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_venv
ensure_emulation_tools
ensure_tshark
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
"$VENV/bin/ruff" check python tests
"$VENV/bin/ruff" format --check python tests || die "Python code is not formatted: run \`ruff format python tests\`"

say "cargo test --release -p fctlab-core -p fctlab-emu -p fctlab-plugin"
cargo test --release -p fctlab-core -p fctlab-emu -p fctlab-plugin

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
