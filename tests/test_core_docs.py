"""The documentation runs: every TOML example in docs/scenario.md and README.md, the README's
Python example, the column lists of docs/results.md, and the sweep files of docs/sweeps.md,
checked against the compiled core.

A TOML block with both `duration` and `topology` is a whole scenario; any other block is a
fragment whose top-level fields replace those of a small dumbbell (FRAGMENT_BASE). Relative
file names in the examples resolve against docs/examples/, where the files they name live.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import polars as pl
import pytest

import fctlab
from realcore import REPO, fake  # noqa: F401  (fake: the compiled core, not conftest's stand-in)

EXAMPLES = REPO / "docs" / "examples"

FRAGMENT_BASE = {
    "duration": "200ms",
    "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps", "bottleneck_delay": "5ms"},
    "workload": [{"kind": "poisson", "rate": 100, "sizes": {"kind": "fixed", "size": 14600}}],
}


def fenced_blocks(path: Path, lang: str) -> list[tuple[int, str]]:
    """(line number, text) of every ```lang fenced block of a Markdown file."""
    blocks, current, start = [], None, 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if current is None and line.strip() == f"```{lang}":
            current, start = [], n
        elif current is not None and line.strip() == "```":
            blocks.append((start, "\n".join(current) + "\n"))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


def toml_examples() -> list:
    out = []
    for doc in (REPO / "docs" / "scenario.md", REPO / "README.md"):
        for line, text in fenced_blocks(doc, "toml"):
            out.append(pytest.param(text, id=f"{doc.name}:{line}"))
    return out


def test_the_docs_have_examples():
    """Guards the extraction itself: a renamed fence must not turn this file into a no-op."""
    assert len(toml_examples()) >= 15
    assert fenced_blocks(REPO / "README.md", "python")


@pytest.mark.parametrize("text", toml_examples())
def test_toml_example_runs(text, monkeypatch):
    """Each example is accepted by the core and runs to completion with flows in it."""
    block = tomllib.loads(text)
    spec = block if {"duration", "topology"} <= block.keys() else {**FRAGMENT_BASE, **block}
    monkeypatch.chdir(EXAMPLES)
    r = fctlab.run(spec)
    assert r.flows.height > 0
    finite = r.flows.filter(pl.col("size_bytes") >= 0)
    assert finite["fct_s"].null_count() == 0, "a documented example leaves flows incomplete"


def test_readme_quickstart_is_the_example_file():
    """The scenario the README shows is the file its commands run."""
    shown = [text for _, text in fenced_blocks(REPO / "README.md", "toml")]
    assert (EXAMPLES / "quickstart.toml").read_text() in shown


def test_python_examples_run(tmp_path, monkeypatch, capsys):
    """The Python snippets of README.md and docs/results.md run from the repository root's layout."""
    (tmp_path / "docs").symlink_to(REPO / "docs")
    monkeypatch.chdir(tmp_path)
    for doc in (REPO / "README.md", REPO / "docs" / "results.md"):
        for _, code in fenced_blocks(doc, "python"):
            exec(compile(code, doc.name, "exec"), {})


def documented_columns(section: str) -> list[str]:
    """The `name` cells of the first column of the tables under `## <section>` in results.md."""
    text = (REPO / "docs" / "results.md").read_text()
    m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"results.md has no section {section}"
    return re.findall(r"^\| `([a-z0-9_]+)` \|", m.group(1), re.M)


def test_results_doc_lists_every_column_in_order():
    """docs/results.md names exactly the columns and keys a run produces, in their order."""
    spec = {**FRAGMENT_BASE, "output": {"series": {"interval": "10ms", "links": ["bottleneck"], "flows": [0]}}}
    r = fctlab.run(spec)
    assert documented_columns("flows.parquet") == r.flows.columns
    assert documented_columns("links.parquet") == r.links.columns
    assert documented_columns("series.parquet") == r.series.columns
    # Keys documented as present "only in" some runs (a stalled run's `stall`) are absent here.
    optional = {k for k, meaning in documented_types("meta.json") if meaning.startswith("only in")}
    assert optional == {"stall"}
    assert sorted(k for k in documented_columns("meta.json") if k not in optional) == sorted(r.meta)
    summary_keys = [k for k in r.summary if k != "bins"] + ["bins"]
    assert documented_columns("summary.json") == summary_keys + list(r.summary["bins"][0])


def documented_types(section: str) -> list[tuple[str, str]]:
    """(name, type cell) of the column tables under `## <section>` in results.md."""
    text = (REPO / "docs" / "results.md").read_text()
    m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, f"results.md has no section {section}"
    return re.findall(r"^\| `([a-z0-9_]+)` \| ([^|]+?) \|", m.group(1), re.M)


@pytest.mark.parametrize("table", ["flows", "links", "series"])
def test_results_doc_types_are_the_core_column_list(table):
    """The one list of result columns (the core's) is what docs/results.md documents, types included."""
    from fctlab._core import COLUMNS

    want = [(name, f"{dtype}, null" if nullable else dtype) for name, dtype, nullable in COLUMNS[table]]
    assert documented_types(f"{table}.parquet") == want
    assert list(fctlab.result.TABLES[table]) == [name for name, _ in want]


def test_the_sweep_examples_build_every_point(tmp_path):
    """Every point of docs/sweeps.md's example sweep files is a scenario the core accepts."""
    from fctlab.run import build
    from fctlab.tools.sweep import load_sweep
    from test_sweep import doc_sweep_examples

    (tmp_path / "examples").symlink_to(REPO / "examples")
    examples = doc_sweep_examples()
    assert examples
    for text, _ in examples:
        (tmp_path / "sweep.toml").write_text(text)
        sweep = load_sweep(tmp_path / "sweep.toml")
        for run in sweep.runs():
            build(str(sweep.scenario), seed=run.seed, overrides=run.overrides)
