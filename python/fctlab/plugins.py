"""Protocol plug-ins: loading a Python plug-in's class (what the core calls).

A scenario names a plug-in where it names a built-in protocol part:

- `transport.cc = "python:my_cc.py:Vegas"`: a host law, a class in a Python file;
- `transport.cc = "rust:my_cc/target/release/libmy_cc.so"`: a host law in a Rust library built
  against the `fctlab-plugin` crate (`fctlab plugin build my_cc` prints this spelling);
- `queues.router.kind = "python:my_law.py:Law"` (or `"rust:..."`): a router law; the queue
  table's other keys are its parameters.

The core calls `load_class` when it builds a scenario that names a Python plug-in (the compiled
core imports this module by name: `crates/fctlab-py/src/plugin.rs`). Writing, building and
checking plug-ins is a tool's work (`fctlab.tools.plugins`, `fctlab plugin ...`).
`docs/extending.md` is the tutorial and the reference of the hooks.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


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
