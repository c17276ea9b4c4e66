"""A stalled run (crates/fctlab-core/src/world/stall.rs, fctlab.errors.StallError): a host law that
sets the window to 0 leaves flows with nothing in flight and no timer; once nothing can happen any
more the run stops, writes its tables, and fails naming each open flow with its sender's state,
instead of ending as if those flows were merely incomplete. `fctlab check` says what failed."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import fctlab
from fctlab.errors import StallError
from fctlab.tools import check
from realcore import cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

LAWS = """
class Zero:
    '''Sets the window to 0 on every ACK: every flow stalls once what it sent is acknowledged.'''

    def __init__(self, conn):
        pass

    def on_ack(self, w, now, acked, srtt):
        w.cwnd = 0

    def on_congestion(self, w, now, flight):
        w.cwnd = 0


class OddZero:
    '''Zero for the odd flows, NewReno for the others.'''

    def __init__(self, conn):
        self.odd = conn.flow % 2 == 1

    def on_ack(self, w, now, acked, srtt):
        if self.odd:
            w.cwnd = 0
        elif acked:
            w.cwnd += min(acked, w.abc) if w.cwnd < w.ssthresh else max(w.mss * w.mss // w.cwnd, 1)

    def on_congestion(self, w, now, flight):
        w.ssthresh = max(flight // 2, 2 * w.mss)
        w.cwnd = w.ssthresh
"""


@pytest.fixture
def laws(tmp_path: Path) -> Path:
    (tmp_path / "laws.py").write_text(LAWS)
    return tmp_path / "laws.py"


def _odd_zero(laws: Path, **top) -> dict:
    """The small dumbbell's 65 flows of 10 segments, under OddZero (4 segments go in the first window)."""
    return small_dumbbell(transport={"cc": f"python:{laws}:OddZero", "iw": 4}, **top)


def test_a_stalled_run_raises_naming_every_open_flow_with_the_result_attached(laws):
    with pytest.raises(StallError) as e:
        fctlab.run(_odd_zero(laws))
    stall, result = e.value.stall, e.value.result
    assert str(e.value).startswith("the run stalled: by t = ")
    assert f"{stall['open_flows']} flows were still open and can never finish" in str(e.value)
    flows = result.flows
    open_ids = flows.filter(pl.col("finish_s").is_null())["id"].to_list()
    assert [f["flow"] for f in stall["flows"]] == open_ids and open_ids, "every open flow, in id order"
    assert all(i % 2 == 1 for i in open_ids)
    assert flows.filter(pl.col("id") % 2 == 0)["finish_s"].null_count() == 0, "the even flows completed"
    first = stall["flows"][0]
    assert (first["window_bytes"], first["state"], first["last_event"]) == (0, "established", "a packet at the sender")
    assert first["line"].startswith(f"flow {first['flow']} (") and "window 0 B" in first["line"]
    # The run ended at its stall, long before max_time, and says so in its notices and meta.
    assert result.meta["sim_time_s"] == stall["time_s"] < 10
    assert result.meta["stall"]["open_flows"] == len(open_ids)
    assert any(n.startswith("the run stalled") for n in result.notices)


def test_fctlab_run_writes_the_tables_then_fails_with_one_line_per_open_flow(laws, tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(_odd_zero(laws)))
    out = tmp_path / "out"
    done = cli("run", str(scenario), "-o", str(out))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("error: the run stalled: by t = ")
    assert lines[0].endswith(f"the results, complete up to the stall, are written in {out}")
    meta = json.loads((out / "meta.json").read_text())
    n = meta["stall"]["open_flows"]
    assert n > 10, "enough open flows to cut the list"
    flow_lines = lines[1:]
    assert len(flow_lines) == 11 and all(line.startswith("  flow ") for line in flow_lines[:10])
    assert "window 0 B" in flow_lines[0] and "outstanding" in flow_lines[0] and "last event at t =" in flow_lines[0]
    assert flow_lines[10].startswith(f"  ... and {n - 10} more")
    # The summary, and every table, complete up to the stall.
    assert "note: the run stalled" in done.stdout
    for name in ("flows.parquet", "links.parquet", "series.parquet", "summary.json", "scenario.json"):
        assert (out / name).is_file(), name
    assert not (out / "flows.partial.parquet").exists()
    assert pl.read_parquet(out / "flows.parquet")["finish_s"].null_count() == n


def test_a_partitioned_run_stalls_the_same_way(laws):
    from test_core_parallel import fat_tree

    spec = fat_tree(2)
    spec["transport"]["cc"] = f"python:{laws}:OddZero"
    with pytest.raises(StallError) as two:
        fctlab.run(spec)
    spec["parallel"]["partitions"] = 1
    with pytest.raises(StallError) as one:
        fctlab.run(spec)
    ids = [[f["flow"] for f in e.value.stall["flows"]] for e in (one, two)]
    assert ids[0] == ids[1] and ids[0]
    assert two.value.result.meta["partitions"] == 2 and "stall" in two.value.result.meta


def test_check_says_what_failed_when_every_flow_stalled(laws):
    verdicts = {v.check: v for v in check.run_checks(f"python:{laws}:Zero")}
    alone = verdicts["no FCT below the flow alone"]
    assert alone.status == check.FAIL
    assert alone.detail.startswith("no flow completed: ") and " flows stalled, " in alone.detail, alone.detail
    assert "window 0 B" in alone.detail
    assert not any("0 of 0" in v.detail for v in verdicts.values())


def test_check_says_no_flow_completed_rather_than_0_of_0(monkeypatch):
    class Run:
        flows = pl.DataFrame(
            {"fct_s": [None, None], "ideal_fct_s": [0.01, 0.02]},
            schema={"fct_s": pl.Float64, "ideal_fct_s": pl.Float64},
        )

    monkeypatch.setattr(check, "_run", lambda spec: Run())
    ok, detail = check.check_not_below_alone(check.protocol("newreno"))
    assert not ok
    assert detail == "no flow completed (2 started, none finished): no FCT to compare"
