"""Protocol plug-ins: loading a Python plug-in's class, building a Rust plug-in's library.

A scenario names a plug-in where it names a built-in protocol part:

- `transport.cc = "python:my_cc.py:Vegas"`: a host law, a class in a Python file;
- `transport.cc = "rust:my_cc/target/release/libmy_cc.so"`: a host law in a Rust library built
  against the `fctlab-plugin` crate (`fctlab plugin build my_cc` prints this spelling);
- `queues.router.kind = "python:my_law.py:Law"` (or `"rust:..."`): a router law; the queue
  table's other keys are its parameters.

The core calls `load_class` when it builds a scenario that names a Python plug-in;
`docs/extending.md` is the tutorial and the reference of the hooks.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path


class PluginBuildError(RuntimeError):
    """A Rust plug-in that did not build; the message says where."""


def load_class(path: str | Path, name: str) -> type:
    """The class `name` of the Python file `path`, imported as its own module."""
    path = Path(path)
    module_name = f"fctlab_plugin_{path.stem}_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path}: not a Python file fctlab can import")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    cls = getattr(module, name, None)
    if not isinstance(cls, type):
        classes = sorted(k for k, v in vars(module).items() if isinstance(v, type) and v.__module__ == module_name)
        raise AttributeError(f"{path} has no class {name!r} (its classes: {', '.join(classes) or 'none'})")
    return cls


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
