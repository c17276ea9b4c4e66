"""fctlab.result: table schemas, deterministic Parquet, write/load round trip."""

from __future__ import annotations

import json

import polars as pl
import pytest

from fctlab.result import FLOW_SCHEMA, LINK_SCHEMA, SERIES_SCHEMA, Result, load, write_parquet
from fctlab.run import run

PARQUETS = ("flows.parquet", "links.parquet", "series.parquet")


def test_tables_have_the_contract_columns_and_dtypes(scenario_file):
    """Column order and dtypes are fixed whatever Python types the core hands over."""
    r = run(scenario_file)
    assert r.flows.schema == pl.Schema(FLOW_SCHEMA)
    assert r.links.schema == pl.Schema(LINK_SCHEMA)  # queue_avg_bytes came as ints
    assert r.series.schema == pl.Schema(SERIES_SCHEMA)
    assert r.flows.filter(pl.col("size_bytes") == -1)["fct_s"].to_list() == [None]


def test_empty_series_from_the_core():
    """A run without series still has a typed, empty series table."""
    r = Result.from_core({"flows": {}, "links": {}, "series": {}, "meta": {}}, {})
    assert r.series.height == 0 and r.series.schema == pl.Schema(SERIES_SCHEMA)


def test_missing_column_from_the_core_is_an_error():
    """A core that breaks the contract fails loudly, naming the column."""
    with pytest.raises(ValueError, match="series.*time_s"):
        Result.from_core({"series": {"metric": [], "target": [], "value": []}}, {})


def test_parquet_bytes_identical_across_runs_and_round_trips(scenario_file, tmp_path):
    """Same scenario and seed: byte-identical Parquet (wall time differs, but only in meta.json);
    writing a loaded Result again gives the same bytes too."""
    a, b = run(scenario_file), run(scenario_file)
    assert a.meta["wall_s"] != b.meta["wall_s"]
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    load(tmp_path / "a").write(tmp_path / "c")
    for name in PARQUETS:
        data = (tmp_path / "a" / name).read_bytes()
        assert data == (tmp_path / "b" / name).read_bytes() == (tmp_path / "c" / name).read_bytes(), name
    assert b"wall_s" not in b"".join((tmp_path / "a" / n).read_bytes() for n in PARQUETS)
    assert (tmp_path / "a" / "summary.json").read_text() == (tmp_path / "b" / "summary.json").read_text()


def test_chunking_does_not_change_the_bytes(scenario_file, tmp_path):
    """A frame split in chunks (e.g. after concat) writes the same file as a contiguous one.
    (polars merges small chunks by itself; a few thousand rows show the difference.)"""
    r = run(scenario_file, overrides={"fake.flows": 5000})
    chunked = pl.concat([r.flows[:10], r.flows[10:]], rechunk=False)
    assert chunked.n_chunks() > 1
    write_parquet(chunked, tmp_path / "x.parquet")
    write_parquet(r.flows.rechunk(), tmp_path / "y.parquet")
    assert (tmp_path / "x.parquet").read_bytes() == (tmp_path / "y.parquet").read_bytes()


def test_notices_are_kept_in_meta_json_and_read_back_apart_from_meta(tmp_path):
    """The core's notices: `.notices`, written into meta.json only when there are some, and read
    back into `.notices`, never `.meta`."""
    raw = {"flows": {}, "links": {}, "series": {}, "meta": {"seed": 3}}
    quiet = Result.from_core(raw, {})
    assert quiet.notices == []
    quiet.write(tmp_path / "quiet")
    assert "notices" not in json.loads((tmp_path / "quiet" / "meta.json").read_text())
    assert load(tmp_path / "quiet").notices == []

    said = Result.from_core({**raw, "notices": ["routing: one", "two"]}, {})
    assert said.notices == ["routing: one", "two"] and said.meta == {"seed": 3}
    said.write(tmp_path / "said")
    assert json.loads((tmp_path / "said" / "meta.json").read_text()) == {
        "seed": 3,
        "notices": ["routing: one", "two"],
    }
    back = load(tmp_path / "said")
    assert back.notices == said.notices and back.meta == said.meta


def test_write_load_round_trip(scenario_file, tmp_path):
    """Every table, meta, scenario and the summary survive the trip."""
    r = run(scenario_file, seed=7)
    out = r.write(tmp_path / "out")
    assert sorted(p.name for p in out.iterdir()) == sorted([*PARQUETS, "summary.json", "scenario.json", "meta.json"])
    back = load(out)
    assert back.flows.equals(r.flows) and back.links.equals(r.links) and back.series.equals(r.series)
    assert back.meta == r.meta and back.scenario == r.scenario and back.scenario["seed"] == 7
    assert json.loads((out / "summary.json").read_text()) == back.summary


def test_load_refuses_what_is_not_a_results_directory(tmp_path):
    """Missing directory or files: a FileNotFoundError naming what is missing."""
    with pytest.raises(FileNotFoundError, match="results directory not found"):
        load(tmp_path / "none")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "meta.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="not a results directory .*flows.parquet"):
        load(tmp_path / "half")
