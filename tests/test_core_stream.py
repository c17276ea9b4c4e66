"""The flows table streamed to Parquet (`fctlab run -o`, `fctlab.run_to`) against the table an
in-memory run returns: the same values, the same bytes; and the Arrow handover of the tables."""

from __future__ import annotations

import polars as pl
import pytest

import fctlab
from fctlab import result as results
from fctlab._core import ArrowTable, Simulation
from realcore import fake, small_dumbbell  # noqa: F401

#: A small dumbbell with drops, a long-lived flow (null finish), scheduled writers (first_write)
#: and two workload entries: every kind of column value.
SCENARIO = small_dumbbell(
    duration="1s",
    queues={"router": {"kind": "droptail", "limit_packets": 15}},
    transports={"video": {"app": {"kind": "scheduled", "initial": "20KB", "chunk": "10KB", "interval": "5ms"}}},
    workload=[
        {
            "kind": "poisson",
            "load": 0.8,
            "load_on": "bottleneck",
            "sizes": {"kind": "exponential", "mean": "30KB", "round_to": 1460},
            "mix": [{"transport": "video", "fraction": 0.2}],
        },
        {"kind": "long_lived", "label": "bulk", "flows": [{"src": "l1", "dst": "r1", "start": "300ms"}]},
    ],
)


@pytest.fixture
def small_row_groups(monkeypatch: pytest.MonkeyPatch) -> int:
    """Row groups of 64 rows: a small run then streams many of them, in many pieces."""
    monkeypatch.setattr(results, "_ROW_GROUP_ROWS", 64)
    return 64


def test_the_streamed_files_are_the_in_memory_results_byte_for_byte(tmp_path, small_row_groups):
    memory = fctlab.run(SCENARIO)
    memory.write(tmp_path / "memory")
    streamed = fctlab.run_to(SCENARIO, tmp_path / "streamed")
    flows = memory.flows
    assert flows.height > 4 * small_row_groups, "several row groups"
    assert flows["retx_bytes"].sum() > 0 and flows["first_write_s"].is_not_null().any()
    assert flows["finish_s"].is_null().any(), "the long-lived flow"
    for name in ("flows.parquet", "links.parquet", "series.parquet", "summary.json", "scenario.json"):
        assert (tmp_path / "memory" / name).read_bytes() == (tmp_path / "streamed" / name).read_bytes(), name
    assert streamed.flows.equals(flows)
    assert streamed.summary == memory.summary
    assert pl.read_parquet(tmp_path / "streamed" / "flows.parquet").equals(flows)
    assert sorted(p.name for p in (tmp_path / "streamed").iterdir()) == sorted(
        p.name for p in (tmp_path / "memory").iterdir()
    ), "no temporary or partial file left"


def test_the_run_is_streamed_in_pieces(tmp_path, small_row_groups, monkeypatch):
    """The pieces come while the run goes, in id order, and add up to the table."""
    from fctlab import stream

    pieces: list[pl.DataFrame] = []
    put = stream.FlowSink.put

    def spy(self, piece: pl.DataFrame) -> None:
        pieces.append(piece)
        put(self, piece)

    monkeypatch.setattr(stream.FlowSink, "put", spy)
    r = fctlab.run_to(SCENARIO, tmp_path / "out")
    assert len(pieces) > 10
    assert pl.concat(pieces).equals(r.flows)


def test_columns_round_trip_with_their_types(tmp_path):
    """Arrow handover -> DataFrame -> Parquet -> DataFrame keeps every column, dtype and null,
    and the frame equals one built from plain Python lists of its values."""
    r = fctlab.run(SCENARIO)
    for table, schema in results.TABLES.items():
        df = getattr(r, table)
        assert df.schema == pl.Schema(schema), table
        lists = results.frame_from_columns(df.to_dict(as_series=False), schema, table)
        assert lists.equals(df), table
    r.write(tmp_path)
    back = fctlab.load(tmp_path)
    for table in results.TABLES:
        assert getattr(back, table).equals(getattr(r, table)), table
    flows = r.flows
    assert flows["path"].list.len().min() >= 3 and flows["id"].to_list() == list(range(flows.height))
    assert set(flows["workload"]) == {"w0", "bulk"} and set(flows["protocol"]) == {"tcp-newreno-iw4", "video"}


def test_an_arrow_table_is_imported_once_and_frees_itself_otherwise():
    import json

    sim = Simulation(json.dumps(small_dumbbell()), ".")
    while not sim.run_until(1e9):
        pass
    raw = sim.results()
    flows = raw["flows"]
    assert isinstance(flows, ArrowTable) and len(flows) > 10
    df = pl.DataFrame(flows)
    assert df.height == len(flows)
    with pytest.raises(ValueError, match="already exported"):
        pl.DataFrame(flows)
    # Capsules never imported release their buffers when collected.
    schema_capsule, array_capsule = raw["links"].__arrow_c_array__()
    del schema_capsule, array_capsule
    assert sim.take_flows() is not None and sim.take_flows() is None
    assert len(sim.results()["flows"]) == 0, "every row was handed over"
