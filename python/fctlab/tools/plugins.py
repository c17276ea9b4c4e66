"""Protocol plug-ins as a tool (`fctlab plugin new|build|equivalence`): a Rust plug-in's crate
written and built, and the example plug-ins checked against the built-in protocols they copy.

A scenario names a plug-in where it names a built-in protocol part:

- `transport.cc = "python:my_cc.py:Vegas"`: a host law, a class in a Python file;
- `transport.cc = "rust:my_cc/target/release/libmy_cc.so"`: a host law in a Rust library built
  against the `fctlab-plugin` crate (`fctlab plugin build my_cc` prints this spelling);
- `queues.router.kind = "python:my_law.py:Law"` (or `"rust:..."`): a router law; the queue
  table's other keys are its parameters.

The core loads a Python plug-in through `fctlab.plugins.load_class`; here `new_crate` writes a
Rust plug-in's crate (`fctlab plugin new`) against the API crate of this fctlab, `build` builds
one (`fctlab plugin build`), and `equivalence` runs the examples against the built-ins
(`fctlab plugin equivalence`). `docs/extending.md` is the tutorial and the reference of the hooks.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


class PluginBuildError(RuntimeError):
    """A Rust plug-in that did not build; the message says where."""


def library_path(folder: Path) -> Path:
    """The shared library `cargo build --release` makes of the crate in `folder`."""
    meta = subprocess.run(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--manifest-path", str(folder / "Cargo.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    if meta.returncode != 0:
        raise PluginBuildError(f"{folder}: not a Rust crate cargo can read:\n{meta.stderr.strip()}")
    data = json.loads(meta.stdout)
    package = data["packages"][0]
    libs = [t for t in package["targets"] if "cdylib" in t["crate_types"]]
    if not libs:
        raise PluginBuildError(f'{folder}: its [lib] needs crate-type = ["cdylib"] to be loaded as a plug-in')
    stem = libs[0]["name"].replace("-", "_")
    suffix = ".dylib" if sys.platform == "darwin" else ".so"
    return Path(data["target_directory"]) / "release" / f"lib{stem}{suffix}"


def build(folder: str | Path, quiet: bool = False) -> Path:
    """Builds the plug-in crate in `folder` (release) and returns its library's path."""
    folder = Path(folder).resolve()
    if not (folder / "Cargo.toml").is_file():
        raise PluginBuildError(f"{folder}: no Cargo.toml (expected a plug-in crate, e.g. examples/plugins/template)")
    lib = library_path(folder)
    cmd = ["cargo", "build", "--release", "--manifest-path", str(folder / "Cargo.toml")]
    if quiet:
        cmd.append("--quiet")
    done = subprocess.run(cmd, check=False, capture_output=quiet, text=True)
    if done.returncode != 0:
        raise PluginBuildError(f"cargo build failed in {folder}" + (f":\n{done.stderr.strip()}" if quiet else ""))
    if not lib.is_file():
        raise PluginBuildError(f"cargo built {folder} but {lib} is not there")
    return lib


# ------------------------------------------------------------------------------------------------
# A new plug-in crate: `fctlab plugin new`.

#: What a crate's (and an exported) name may hold: it becomes the package, the library's file
#: (`lib<name>.so`) and the flows table's label.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

#: The API crate's folder in a checkout, relative to its root.
API_CRATE = Path("crates") / "fctlab-plugin"

#: The new crate's law: NewReno's window, the same arithmetic as the built-in `cc = "newreno"`
#: (and as the template's `newreno.rs`), so a first run gives the built-in's FCTs.
_LIB_RS = """//! {name}: an fctlab host law plug-in, written by `fctlab plugin new`. It starts as NewReno's
//! window (RFC 5681, RFC 6582), the arithmetic of fctlab's built-in `cc = "newreno"` with
//! HyStart off, so a first run gives the built-in's flow completion times: change the hooks.
//! docs/extending.md (in fctlab's repository) lists every hook, the router law's too.

use fctlab_plugin::{{HostInit, HostLaw, Ps, Window}};

/// The law of one connection; it holds no state of its own: the window is all NewReno needs.
pub struct Law;

impl HostLaw for Law {{
    fn new(_init: &HostInit) -> Result<Self, String> {{
        Ok(Law)
    }}

    fn on_ack(&mut self, w: &mut Window, _now: Ps, acked: u64, _srtt: Option<Ps>) {{
        if acked == 0 {{
            return;
        }}
        if w.in_slow_start() {{
            // RFC 5681 eq. 2 with appropriate byte counting (RFC 3465 sec. 2.2).
            w.cwnd += acked.min(w.abc);
        }} else {{
            // RFC 5681 eq. 3: at least one byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }}
    }}

    fn on_congestion(&mut self, w: &mut Window, _now: Ps, flight: u64) {{
        // RFC 5681 eq. 4.
        w.ssthresh = (flight / 2).max(2 * w.mss);
        w.cwnd = w.ssthresh;
    }}
}}

// The name is the plug-in's label in the flows table (`tcp-rs-{name}-iw10`).
fctlab_plugin::export_plugin!(name = "{name}", host = Law);
"""

_CARGO_TOML = """# An fctlab protocol plug-in, written by `fctlab plugin new`. Build it with
# `fctlab plugin build {folder}` (or `cargo build --release`), and name the library it prints in a
# scenario: transport.cc = "rust:{folder}/target/release/lib{lib}{suffix}".
[package]
name = "{package}"
version = "0.1.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
# {api_note}
fctlab-plugin = {{ path = {api_path} }}

[profile.release]
opt-level = 3
lto = "thin"
codegen-units = 4

# Not a member of any enclosing workspace: a plug-in builds on its own.
[workspace]
"""


@dataclass(frozen=True)
class NewCrate:
    """What `new_crate` wrote."""

    folder: Path
    #: The name its law exports (its label in the flows table).
    name: str
    #: The API crate it depends on.
    api: Path
    #: True if `api` is a copy inside the crate (no checkout of fctlab holds the API crate).
    copied: bool


def api_crate_of_checkout() -> Path | None:
    """The API crate of the checkout this fctlab runs from (an editable install), if it holds
    one of the API version the core loads."""
    from fctlab.run import core

    root = Path(__file__).resolve().parents[3]  # python/fctlab/tools/<this file> in a checkout
    abi = root / API_CRATE / "src" / "abi.rs"
    if not abi.is_file():
        return None
    version = re.search(r"pub const API_VERSION: u32 = (\d+);", abi.read_text())
    if version is None or int(version.group(1)) != core().PLUGIN_API_VERSION:
        return None
    return root / API_CRATE


def new_crate(folder: str | Path, name: str | None = None, api: Path | None = None) -> NewCrate:
    """Writes a plug-in crate in `folder` (new or empty): Cargo.toml, and src/lib.rs with a
    NewReno host law exported as `name` (default: the folder's name). The crate depends on the
    API crate `api`, by default the one of the checkout this fctlab runs from, by absolute path;
    without a checkout, on a copy of the API crate this core was built against, written into
    `folder/fctlab-plugin`. Either way it builds from any folder. PluginBuildError if the folder
    is not empty or a name is not one a crate can take."""
    from fctlab.run import core

    folder = Path(folder).resolve()
    package = folder.name
    if not _NAME.fullmatch(package):
        raise PluginBuildError(
            f"{folder}: {package!r} cannot name a crate (expected letters, digits, - and _, starting with a letter, "
            "e.g. my_cc)"
        )
    name = package if name is None else name
    if not _NAME.fullmatch(name):
        raise PluginBuildError(
            f"--name {name!r}: expected letters, digits, - and _, starting with a letter (it labels the flows)"
        )
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise PluginBuildError(f"{folder}: not an empty folder (fctlab plugin new writes a crate into a new folder)")
    api = api if api is not None else api_crate_of_checkout()
    copied = api is None
    if copied:
        api = folder / "fctlab-plugin"
        for path, text in sorted(core().PLUGIN_API_SOURCES.items()):
            (api / path).parent.mkdir(parents=True, exist_ok=True)
            (api / path).write_text(text)
        api_note = (
            f"A copy of the API crate of fctlab's plug-in API {core().PLUGIN_API_VERSION} (this fctlab was not "
            "installed from a checkout)."
        )
        api_path = json.dumps("fctlab-plugin")
    else:
        api_note = "The API crate of the fctlab checkout that wrote this file, by absolute path."
        api_path = json.dumps(str(api))
    lib = package.replace("-", "_")
    suffix = ".dylib" if sys.platform == "darwin" else ".so"
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(
        _CARGO_TOML.format(
            folder=package, package=package, lib=lib, suffix=suffix, api_note=api_note, api_path=api_path
        )
    )
    (folder / "src" / "lib.rs").write_text(_LIB_RS.format(name=name))
    (folder / ".gitignore").write_text("/target\n")
    return NewCrate(folder, name, Path(api), copied)


# ------------------------------------------------------------------------------------------------
# Equivalence: the example plug-ins against the built-ins they copy.

#: The benchmark scenarios (relative to the repository root).
BENCHMARK_SCENARIOS = ("examples/dumbbell-pareto.toml", "examples/internet2-rc3.toml")
#: The template crate and the Python NewReno, relative to the repository root.
TEMPLATE = "examples/plugins/template"
PYTHON_NEWRENO = "examples/plugins/newreno.py"
#: RCP everywhere: RCP hosts (falling back to TCP nowhere: every port is an RCP router).
_RCP = {"transport.protocol": "rcp"}


def equivalence_pairs(root: Path, library: Path) -> list[tuple[str, str, dict, dict]]:
    """(scenario, what, built-in overrides, plug-in overrides) for each scenario: NewReno as the
    Rust template's and as the Python plug-in, and RCP's router law as the template's."""
    rust = f"rust:{library}"
    python = f"python:{(root / PYTHON_NEWRENO).resolve()}:NewReno"
    pairs = []
    for scenario in BENCHMARK_SCENARIOS:
        pairs += [
            (scenario, "NewReno (host law), Rust plug-in", {}, {"transport.cc": rust}),
            (scenario, "NewReno (host law), Python plug-in", {}, {"transport.cc": python}),
            (
                scenario,
                "RCP (router law), Rust plug-in",
                {**_RCP, "queues.router.kind": "rcp"},
                {**_RCP, "queues.router.kind": rust},
            ),
        ]
    return pairs


def _same_flows(a, b) -> tuple[bool, str]:
    """Whether two flows tables are identical in every column but the protocol label (which
    names the plug-in), and what differs."""
    cols = [c for c in a.columns if c != "protocol"]
    if a.height != b.height:
        return False, f"{a.height} flows against {b.height}"
    differ = [c for c in cols if not a[c].equals(b[c], check_names=True)]
    if differ:
        return False, f"columns differ: {', '.join(differ)}"
    return True, f"{a.height} flows, every column but the label identical"


def equivalence(root: str | Path = ".", progress: bool = False) -> tuple[str, bool]:
    """Runs each pair of `equivalence_pairs` and returns the report (Markdown: whether the
    flows tables are identical, bit for bit, and each run's packet-hops per second) and whether
    every pair was identical."""
    from fctlab.run import run

    root = Path(root).resolve()
    library = build(root / TEMPLATE, quiet=True)
    lines = [
        "# Plug-ins against the built-ins they copy",
        "",
        "Written by `fctlab plugin equivalence`: the benchmark scenarios run with a built-in part and "
        "with the example plug-in that copies it (`examples/plugins/template/`: NewReno's host law and "
        "RCP's router law in Rust; `examples/plugins/newreno.py`: NewReno in Python). Every column of "
        "the flows table (ids, sizes, start and finish times, FCTs, retransmitted bytes, timeouts) is "
        "compared bit for bit; the protocol label differs by design. Speeds are one run each, wall "
        "time of the simulation proper; `docs/benchmark.md` has the benchmark's figures.",
        "",
        "| scenario | plug-in | flows table | built-in hops/s | plug-in hops/s | ratio |",
        "|---|---|---|---|---|---|",
    ]
    all_same = True
    for scenario, what, base, plug in equivalence_pairs(root, library):
        path = root / scenario
        a = run(path, overrides=base, progress=progress)
        b = run(path, overrides=plug, progress=progress)
        same, detail = _same_flows(a.flows, b.flows)
        all_same &= same
        speed = [r.meta["packet_hops"] / r.meta["wall_s"] for r in (a, b)]
        lines.append(
            f"| {Path(scenario).stem} | {what} | {'identical' if same else 'DIFFERENT'}: {detail} | "
            f"{speed[0] / 1e6:.2f} M | {speed[1] / 1e6:.2f} M | {speed[1] / speed[0]:.2f} |"
        )
    lines += ["", f"All identical: {'yes' if all_same else 'NO'}.", ""]
    return "\n".join(lines), all_same
