# Shared by main.sh and test.sh (sourced, not run): checks the tools, creates .venv when it
# is missing, and installs the package into it. Needs Python >= 3.11 with its venv module,
# Rust (cargo) >= 1.87 and a C compiler; the first install builds the Rust core (minutes).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
#: The Python that creates the venv; override with PYTHON=/path/to/python3.11.
BASE_PYTHON="${PYTHON:-python3}"
#: Oldest Rust that compiles the core (u64::is_multiple_of).
MIN_RUST_MINOR=87

die() {
    echo "error: $*" >&2
    exit 1
}

say() {
    echo "==> $*" >&2
}

# Python >= 3.11, cargo and cc, each with the Debian package to install when missing.
check_tools() {
    command -v "$BASE_PYTHON" >/dev/null 2>&1 \
        || die "$BASE_PYTHON not found: install Python 3.11 or newer (Debian: apt-get install python3 python3-venv)"
    "$BASE_PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "fctlab needs Python >= 3.11, but $BASE_PYTHON is $("$BASE_PYTHON" -V 2>&1); set PYTHON=/path/to/python3.11"
    if ! command -v cargo >/dev/null 2>&1 && [[ -f "$HOME/.cargo/env" ]]; then
        # rustup installs here without touching the PATH of non-login shells.
        . "$HOME/.cargo/env"
    fi
    command -v cargo >/dev/null 2>&1 \
        || die "cargo not found: install Rust >= 1.$MIN_RUST_MINOR (https://rustup.rs)"
    local minor
    minor="$(rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9][0-9]*\).*/\1/p')"
    if [[ -n "$minor" && "$minor" -lt "$MIN_RUST_MINOR" ]]; then
        die "$(rustc --version) is too old: the core needs Rust >= 1.$MIN_RUST_MINOR (rustup update stable)"
    fi
    command -v cc >/dev/null 2>&1 \
        || die "no C compiler (cc) found: install one (Debian: apt-get install build-essential)"
}

# .venv with a working pip, created (or repaired) when missing.
ensure_venv() {
    check_tools
    if [[ -x "$PY" ]] && "$PY" -m pip --version >/dev/null 2>&1; then
        return
    fi
    # Debian splits venv's pip bootstrap (ensurepip) into the package python3-venv.
    "$BASE_PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 \
        || die "Python's venv module cannot create environments here: install the Debian package python3-venv (apt-get install python3-venv), then run this again"
    say "creating $VENV"
    if ! "$BASE_PYTHON" -m venv --clear "$VENV"; then
        rm -rf "$VENV"
        die "$BASE_PYTHON -m venv failed; on Debian install the package python3-venv"
    fi
}

# True when this runs as root with apt-get: missing Debian packages can then be installed.
can_apt_install() {
    [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1
}

# Installs Debian packages quietly: `apt_install "what for" PACKAGE...`; fails as apt-get does.
apt_install() {
    local why="$1"
    shift
    say "installing $* (Debian) $why"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Debian packages `fctlab emulate` uses in namespace mode (iproute2's `ip`; ethtool turns off
# the veths' offloads for the kernel's own TCP, `stack = "linux"`), installed when missing if
# this runs as root with apt-get; otherwise the namespace tests skip, saying why.
EMULATION_PACKAGES=(iproute2 ethtool)

ensure_emulation_tools() {
    command -v ip >/dev/null 2>&1 && command -v ethtool >/dev/null 2>&1 && return
    if can_apt_install; then
        apt_install "for fctlab emulate's network namespaces" "${EMULATION_PACKAGES[@]}" \
            || say "could not install ${EMULATION_PACKAGES[*]}: fctlab emulate will use loopback only"
    elif ! command -v ip >/dev/null 2>&1; then
        say "\`ip\` (Debian package iproute2) is missing and this is not root: fctlab emulate will use loopback only"
    else
        say "\`ethtool\` is missing and this is not root: fctlab emulate cannot run the kernel's TCP (stack = \"linux\")"
    fi
}

# tshark (Debian package tshark), which the capture tests read fctlab's pcapng files with.
# Installed as root with apt-get, without the setuid dumpcap question (fctlab never captures
# live traffic); otherwise the tests that need it fail and say how to install it.
ensure_tshark() {
    command -v tshark >/dev/null 2>&1 && return
    if can_apt_install; then
        echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
        apt_install "for the packet capture tests" tshark \
            || say "could not install tshark: the packet capture tests will fail"
    else
        say "tshark is missing and this is not root: install it (Debian: apt-get install tshark) for the packet capture tests"
    fi
}

# Installs the package (with the given extras spec, e.g. '.[test,topo]') into .venv.
install_package() {
    local spec="$1"
    say "installing $spec into $VENV (builds the Rust core; the first build takes a few minutes)"
    (cd "$ROOT" && "$PY" -m pip install --disable-pip-version-check "$spec")
}

# Installs Debian's Chromium as root when it is missing: the tests of the HTML reports
# (tests/test_core_html_browser.py) open them in it, headless, and fail without it.
ensure_browser() {
    [[ -x /usr/bin/chromium ]] && return
    if can_apt_install; then
        apt_install "for the browser tests of the HTML reports" chromium \
            || say "could not install chromium: the browser tests will fail"
    else
        say "/usr/bin/chromium is missing and this is not root: the browser tests will fail (apt-get install chromium)"
    fi
}
