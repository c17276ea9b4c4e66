"""The explicit paper (seed 003, experiments/explicit/): the protocol table's overrides, quick
mode's time scaling, the series helpers on synthetic input, the base scenarios against the flow
schedules, and one experiment (Fig. 8) run end to end in quick mode at a tenth of its length."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from fctlab.reproduce import papers
from fctlab.reproduce.framework import run_experiment
from fctlab.scenario import read_scenario
from realcore import REPO, experiment_code, fake, paper_code  # noqa: F401  (fake: the compiled core)

PAPER = REPO / "experiments" / "explicit"
explicit = paper_code("explicit", "protocols")
es = paper_code("explicit", "rates")
fig4, fig5, fig7, fig8, fig10 = (experiment_code("explicit", n) for n in ("fig4", "fig5", "fig7", "fig8", "fig10"))


def test_protocol_overrides_put_the_router_on_each_link_and_keep_1500_byte_packets():
    for p, entry in explicit.PROTOCOLS.items():
        o = explicit.protocol_overrides(p, ["l1", "l2"])
        assert o["transport.protocol"] == entry["transport"]["protocol"]
        assert o["transport.mss"] + o["transport.header"] == explicit.WIRE
        for link in ("l1", "l2"):
            assert o[f"queues.links.{link}"]["kind"] == entry["queue"]["kind"]
            assert o[f"queues.links.{link}"]["limit_packets"] >= 30_000
    assert explicit.utilization("jetmax") == explicit.JETMAX_GAMMA
    assert explicit.utilization("xcp") == 1.0


def test_scale_times_scales_durations_starts_and_stops_only():
    o = {
        "duration": "90s",
        "workload.1.start": 30.0,
        "workload.0.flows": [{"src": "a", "dst": "b", "start": "30s", "stop": 60}],
        "transport.mss": 1440,
    }
    got = explicit.scale_times(o, 0.5)
    assert got == {
        "duration": 45.0,
        "workload.1.start": 15.0,
        "workload.0.flows": [{"src": "a", "dst": "b", "start": 15.0, "stop": 30.0}],
    }


def test_input_rate_is_the_cores_input_series_of_that_link():
    rows = [
        (0.1, "input_bps", "bottleneck", 120.0),
        (0.1, "throughput_bps", "bottleneck", 100.0),
        (0.1, "input_bps", "other", 7.0),
        (0.2, "input_bps", "bottleneck", 90.0),
    ]
    series = pl.DataFrame(rows, schema=["time_s", "metric", "target", "value"], orient="row")
    got = es.input_rate(series, "bottleneck")
    assert got.columns == ["time_s", "input_bps"]
    assert got["input_bps"].to_list() == [120.0, 90.0]


@pytest.mark.parametrize(
    "base, flows",
    [
        ("single-bottleneck.toml", fig4.FIG4_FLOWS),
        ("rtt-unfairness.toml", fig5.FIG5_FLOWS),
        ("mice.toml", fig7.FIG7_LONG),
        ("abrupt-change.toml", fig8.FIG8_FLOWS),
        ("parking-lot.toml", fig10.FIG10_FLOWS),
    ],
)
def test_base_scenarios_hold_the_full_scale_schedules(base, flows):
    spec, _ = read_scenario(PAPER / base)
    listed = [(f["src"], f["dst"], f["start"], f["stop"]) for f in spec["workload"][0]["flows"]]
    assert listed == [(s, d, f"{a:g}s", f"{b:g}s") for s, d, a, b in flows]


def test_explicit_paper_lists_every_figure_in_order():
    assert [e.name for e in papers()["explicit"]()] == ["fig4", "fig5", "fig6", "fig7", "fig8", "fig10"]


def test_fig8_tiny_quick_run_writes_the_paper_table(tmp_path: Path):
    """Fig. 8 at a tenth of its length (12 s at 100 Mb/s, three protocols): the report has the
    paper-vs-fctlab table with a column per protocol, and XCP and JetMax settle after the join."""
    exp = dataclasses.replace(fig8.experiment(), quick=explicit.quick(0.1))
    record = run_experiment(exp, PAPER, tmp_path / "runs", tmp_path / "out", quick=True, jobs=2, say=lambda _m: None)
    assert record["status"] == "done", record
    out = tmp_path / "out" / "fig8"
    readme = (out / "README.md").read_text()
    assert "| quantity | paper (seed 003) | fctlab xcp | fctlab rcp | fctlab jetmax |" in readme
    rows = {r.split("|")[1].strip(): r.split("|")[3:-1] for r in readme.splitlines() if r.startswith("| ")}
    settle = rows["input within 10% of the target for good, after the join (s)"]
    assert all(float(settle[i]) < 2.0 for i in (0, 2)), settle
    assert (out / "fig8.png").stat().st_size > 10_000
    assert "Mode: quick" in readme


def test_xcps_equilibrium_fills_a_link_alone_and_leaves_spare_beside_a_held_flow():
    xcp_free_rate = paper_code("explicit", "xcp_equilibrium").xcp_free_rate

    assert xcp_free_rate(100e6, 0.0, 1, 0.4, 0.1) == pytest.approx(100e6, rel=1e-9)
    # Fig. 10's l1: x1 held to 400 Mb/s by l2; the balance (h + alpha S) / 2 = h x2 / y holds at x2.
    x2 = xcp_free_rate(970e6, 400e6, 2, 0.4, 0.1)
    y, spare = 400e6 + x2, 970e6 - 400e6 - x2
    h = 0.1 * y - 0.4 * spare
    assert (h + 0.4 * spare) / 2 == pytest.approx(h * x2 / y, rel=1e-6)
    assert 530e6 < x2 < 545e6, "well short of max-min's 570 Mb/s"
