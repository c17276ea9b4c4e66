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
