"""The papers' science and tests live in their folders (experiments/<paper>/), apart from the
package: the package never imports them (only `fctlab.reproduce.discover` mounts them, by name),
and the test command collects each paper's tests where they are, never as experiments."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from fctlab.reproduce import discover
from realcore import REPO

PACKAGE = REPO / "python" / "fctlab"
EXPERIMENTS = REPO / "experiments"


def imported_modules(path: Path) -> list[str]:
    """The modules a Python file imports (absolute imports; a relative one stays in its package)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def test_the_package_imports_nothing_from_the_experiments():
    """A paper's model or analysis used by the package would make the package depend on a
    checkout's experiments/: what the package needs stays in it (e.g. `fctlab.reference`)."""
    found = [
        f"{path.relative_to(REPO)}: imports {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[0] == discover.MOUNT
    ]
    assert not found, "\n".join(found)


def test_every_test_file_of_a_paper_is_in_its_tests_folder_which_the_test_command_collects():
    ini = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    collected = {p.resolve() for pattern in ini["testpaths"] for p in REPO.glob(pattern)}
    stray = []
    for path in sorted(EXPERIMENTS.rglob("test_*.py")):
        rel = path.relative_to(EXPERIMENTS)
        if any(part.startswith(".") for part in rel.parts):
            continue  # the run cache
        if len(rel.parts) != 3 or rel.parts[1] != "tests" or path.parent.resolve() not in collected:
            stray.append(str(path.relative_to(REPO)))
    assert not stray, f"not collected by the test command (testpaths {ini['testpaths']}): {stray}"
    folders = sorted(EXPERIMENTS.glob("*/tests"))
    assert folders, "no paper keeps its tests beside it"
    for folder in folders:
        # The shared fixtures (the fake core) come through a conftest.py in each folder.
        assert "shared_fixtures" in imported_modules(folder / "conftest.py"), folder


def test_a_papers_tests_folder_is_never_one_of_its_experiments():
    for paper in sorted(EXPERIMENTS.glob(f"*/{discover.PAPER_FILE}")):
        _, names = discover.read_paper(paper.parent)
        assert "tests" not in names, paper
        assert not (paper.parent / "tests" / discover.EXPERIMENT_FILE).exists(), paper
