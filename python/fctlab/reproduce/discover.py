"""Where `fctlab reproduce` finds the papers and their experiments: folders of the experiments
directory, each experiment's code beside its scenarios and its report.

    experiments/
      datacenter/                 a paper
        paper.toml                its title and its experiments, in the paper's order
        common.py                 code several of its experiments share (any name; optional)
        dctcp-long-flows.toml     base scenarios (shared ones here, or in an experiment's folder)
        dctcp-queue/              an experiment
          experiment.py           `experiment()`, returning its `framework.Experiment`
          README.md, *.png, checks.json, index.html, index.png      its report
        tests/                    its tests (pytest's `testpaths`; not an experiment: not listed)

`paper.toml` holds `title` (a line) and `experiments` (the folder names, in order); the papers
come in the order `experiments/papers.toml` lists (`papers = [...]`), then any others by name. Each
`experiment.py` defines `experiment() -> Experiment` whose `name` is its folder's name; its
`base` scenario path is relative to the paper's folder. The experiments directory is mounted
as the package `fctlab_experiments` while it is read, so an experiment imports what its paper
shares as `from fctlab_experiments.datacenter.fabric import ...`, and what every paper shares
from the installed package (`fctlab.reproduce.framework`, `.checks`, `.series`). A paper may
take another paper's shared scenario code the same way (the emulated comparisons run the RC3
paper's Figs. 16/17 points from `fctlab_experiments.rc3.common`); an experiment's own
`experiment.py` is never imported by another, and a shared module never imports an experiment.

`folder_papers(root)` gives the papers found under `root` (a checkout, or its `experiments/`),
each loaded only when called; `fctlab.reproduce.papers` is the same for the current directory.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
import types
from collections.abc import Callable
from pathlib import Path

from fctlab.errors import ScenarioError
from fctlab.reproduce.framework import Experiment

#: The package name the experiments directory is mounted as.
MOUNT = "fctlab_experiments"
PAPER_FILE = "paper.toml"
#: The optional list of the papers' order (`papers = ["rc3", ...]`) in the experiments directory.
ORDER_FILE = "papers.toml"
EXPERIMENT_FILE = "experiment.py"


def experiments_dir(root: Path) -> Path:
    """The experiments directory of `root`: `root/experiments`, or `root` itself."""
    root = Path(root)
    return root / "experiments" if (root / "experiments").is_dir() else root


def mount(directory: Path) -> None:
    """Makes `directory` importable as the package `fctlab_experiments` (its papers' folders
    become its subpackages). Mounting another directory replaces the first."""
    directory = Path(directory).resolve()
    current = sys.modules.get(MOUNT)
    if current is not None and list(getattr(current, "__path__", [])) == [str(directory)]:
        return
    for name in [n for n in sys.modules if n == MOUNT or n.startswith(MOUNT + ".")]:
        del sys.modules[name]
    package = types.ModuleType(MOUNT, f"the experiments of {directory}")
    package.__path__ = [str(directory)]
    sys.modules[MOUNT] = package


def experiment_module(root: Path, paper: str, name: str) -> types.ModuleType:
    """The module of experiment `name` of `paper` (`<paper>/<name>/experiment.py` under `root`'s
    experiments directory), imported once."""
    base = experiments_dir(root)
    path = base / paper / name / EXPERIMENT_FILE
    if not path.is_file():
        raise ScenarioError(f"experiment {paper}/{name}: no {path}")
    mount(base)
    module_name = f"{MOUNT}.{paper}.{_identifier(name)}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def _identifier(name: str) -> str:
    """An experiment's folder name as a module name (fig4-13 -> fig4_13)."""
    return re.sub(r"\W", "_", name)


def read_paper(paper_dir: Path) -> tuple[str, list[str]]:
    """A paper's title and the names of its experiments, from its `paper.toml`."""
    path = paper_dir / PAPER_FILE
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ScenarioError(f"{path}: {e}") from None
    title, names = doc.get("title"), doc.get("experiments")
    if not isinstance(title, str) or not title.strip():
        raise ScenarioError(f"{path}: field `title`: expected a line of text, got {title!r}")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise ScenarioError(f"{path}: field `experiments`: expected a list of folder names, got {names!r}")
    if len(set(names)) != len(names):
        raise ScenarioError(f"{path}: field `experiments`: a name is listed twice in {names!r}")
    return title, names


def folder_paper(root: Path, paper: str) -> Callable[[], list[Experiment]]:
    """The experiments of the paper folder `paper` under `root`, loaded when called."""

    def make() -> list[Experiment]:
        base = experiments_dir(root)
        _, names = read_paper(base / paper)
        out = []
        for name in names:
            exp = experiment_module(root, paper, name).experiment()
            if not isinstance(exp, Experiment) or exp.name != name:
                got = getattr(exp, "name", type(exp).__name__)
                raise ScenarioError(
                    f"{base / paper / name / EXPERIMENT_FILE}: experiment() must return the Experiment named "
                    f"{name!r} (its folder's name), got {got!r}"
                )
            out.append(exp)
        return out

    return make


def paper_order(base: Path) -> list[str]:
    """The papers `base/papers.toml` lists first (`papers = [...]`), in its order; none without
    the file."""
    path = base / ORDER_FILE
    if not path.is_file():
        return []
    try:
        names = tomllib.loads(path.read_text()).get("papers")
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ScenarioError(f"{path}: {e}") from None
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names) or len(set(names)) != len(names):
        raise ScenarioError(f"{path}: field `papers`: expected a list of distinct paper folder names, got {names!r}")
    missing = [n for n in names if not (base / n / PAPER_FILE).is_file()]
    if missing:
        raise ScenarioError(f"{path}: field `papers`: no {PAPER_FILE} in the folder of {', '.join(missing)}")
    return names


def folder_papers(root: Path) -> dict[str, Callable[[], list[Experiment]]]:
    """The paper folders (with a `paper.toml`) of `root`'s experiments directory: those
    `papers.toml` lists, in its order, then the others by name."""
    base = experiments_dir(root)
    if not base.is_dir():
        return {}
    listed = paper_order(base)
    rest = [d.name for d in sorted(base.iterdir()) if (d / PAPER_FILE).is_file() and d.name not in listed]
    return {name: folder_paper(root, name) for name in [*listed, *rest]}
