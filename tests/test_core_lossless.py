"""The lossless fabric through the front (`[fabric]`, examples/incast-pfc.toml): an incast over
shared-buffer switches with PFC drops nothing, its results say how much each port was paused
(meta's `fabric`, the `paused_s` series rows) and list every PFC frame in `pfc.txt`; without PFC
the same incast drops; a bad `[fabric]` key is one line naming the field."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import fctlab
from realcore import cli, fake  # noqa: F401  (fake: the compiled core)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "incast-pfc.toml"


@pytest.mark.usefixtures("fake")
def test_an_incast_with_pfc_drops_nothing_and_reports_its_pauses(tmp_path):
    result = fctlab.run_to(EXAMPLE, tmp_path / "pfc")
    meta = result.meta
    assert meta["dropped_pkts"] == 0
    assert meta["flows_completed"] == 15
    assert meta["sent_pkts"] == meta["delivered_pkts"]
    fabric = meta["fabric"]
    assert fabric["buffer_drops"] == 0
    assert fabric["pause_frames"] > 15 and fabric["pause_frames"] == fabric["resume_frames"]
    paused = {p["link"]: p for p in fabric["ports"] if p["pauses"]}
    # Pause spreads hop by hop: the senders' NICs, and the spine's port towards the receiver's leaf.
    assert "h1->leaf0" in paused and "h9->leaf1" in paused and "spine0->leaf0" in paused
    assert "leaf0->h0" not in paused, "a host never pauses its switch"
    # pfc.txt: one line per frame, time (ns) node kind link type, as HPCC's simulator writes it.
    lines = (tmp_path / "pfc" / "pfc.txt").read_text().splitlines()
    assert len(lines) == fabric["pause_frames"] + fabric["resume_frames"]
    t, node, kind, link, typ = lines[0].split()
    assert int(t) > 0 and kind in {"0", "1"} and typ == "1" and link.startswith(node)
    times = [int(line.split()[0]) for line in lines]
    assert times == sorted(times)
    # The series' paused_s rows: time paused so far, never decreasing, ending at meta's figure.
    series = pl.read_parquet(tmp_path / "pfc" / "series.parquet")
    rows = series.filter((pl.col("metric") == "paused_s") & (pl.col("target") == "h1->leaf0")).sort("time_s")
    values = rows["value"].to_list()
    assert values and values == sorted(values) and values[-1] > 0
    assert values[-1] <= paused["h1->leaf0"]["paused_s"] + 1e-12


@pytest.mark.usefixtures("fake")
def test_the_same_incast_without_pfc_drops(tmp_path):
    result = fctlab.run_to(EXAMPLE, tmp_path / "nopfc", overrides={"fabric.pfc": False})
    meta = result.meta
    assert meta["dropped_pkts"] > 0 and meta["fabric"]["buffer_drops"] == meta["dropped_pkts"]
    assert meta["fabric"]["pause_frames"] == 0
    # The losses cost retransmission timeouts (200 ms at least) that outlast the 50 ms run.
    assert meta["flows_completed"] < 15
    assert (tmp_path / "nopfc" / "pfc.txt").read_text() == ""


def test_a_bad_fabric_key_is_one_line_naming_it(tmp_path):
    done = cli("run", str(EXAMPLE), "-o", str(tmp_path / "x"), "--set", "fabric.on_deadlock=panic")
    assert done.returncode != 0
    assert "fabric.on_deadlock" in done.stderr and "panic" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    done = cli("run", str(EXAMPLE), "-o", str(tmp_path / "y"), "--set", "fabric.xoff=1")
    assert done.returncode != 0 and "xoff" in done.stderr, done.stderr
