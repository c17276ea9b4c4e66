"""The RCP paper's chapter 3 experiments (experiments/rcp/fig3-*/, differential/) and its fixed-rate
runs (fixed_rate.py): the analysis helpers on synthetic input, the paper's registration, and one
experiment (Fig. 3.5) run end to end in quick mode."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import polars as pl
import pytest

from fctlab.reproduce import papers
from fctlab.reproduce.framework import run_experiment
from realcore import REPO, experiment_code, fake, paper_code  # noqa: F401  (fake: the compiled core)
from test_reproduce_rcp_ch4 import CH4  # chapter 4's experiments, in order

fig32 = experiment_code("rcp", "fig3-2")
fig34 = experiment_code("rcp", "fig3-4")
fig35 = experiment_code("rcp", "fig3-5")
fig378 = experiment_code("rcp", "fig3-7-8")
fig39 = experiment_code("rcp", "fig3-9")
differential = experiment_code("rcp", "differential")
fixed_rate = paper_code("rcp", "fixed_rate")


def test_data_phase_counts_flows_between_their_syn_ack_and_last_packet():
    flows = pl.DataFrame({"start_s": [0.0, 1.0, 2.0], "rtt_prop_s": [0.2, 0.2, 0.2], "finish_s": [1.5, 3.0, None]})
    # Flow 0 sends in [0.2, 1.4), flow 1 in [1.2, 2.9); flow 2 never completed and is left out.
    assert fig34.data_phase_counts(flows, [0.1, 0.5, 1.3, 1.45, 2.95]) == [0, 1, 2, 1, 0]


def test_fig32_phases_follow_the_caption():
    assert fig32._phases(fig32.FIG32_GROUPS, 140.0, 1.0) == [(0.0, 40.0, 20), (40.0, 100.0, 40), (100.0, 140.0, 20)]
    assert fig32._phases(fig32.FIG32_GROUPS, 140.0, 0.25)[1] == (10.0, 25.0, 40)


def test_fig35_short_flows_are_four_per_round_trip():
    together = fig35._fig35_short_flows(1.0, spread=False)
    spread = fig35._fig35_short_flows(1.0, spread=True)
    assert len(together) == len(spread) == 40
    assert {f["start"] for f in together[:4]} == {0.0} and together[4]["start"] == pytest.approx(0.1)
    assert [f["start"] for f in spread[:4]] == pytest.approx([0.0, 0.025, 0.05, 0.075])
    assert all(f["size"] == 125 * 960 for f in together)


def test_capped_pareto_mean_matches_sampling():
    """The closed sum E[min(ceil(X), cap)] against draws made the core's way."""
    rng = random.Random(7)
    scale, shape, cap = 4.0, 1.2, 2000
    draws = [min(math.ceil(scale / (1.0 - rng.random()) ** (1 / shape)), cap) for _ in range(400_000)]
    sampled = sum(draws) / len(draws)
    assert fig378.capped_pareto_mean(scale, shape, cap) == pytest.approx(sampled, rel=0.02)


def test_pareto_mean_param_keeps_the_capped_mean():
    param = fig378.pareto_mean_param(25.0, 1.2, 10_000)
    scale_pkts = param / 960 * (1.2 - 1) / 1.2
    assert fig378.capped_pareto_mean(scale_pkts, 1.2, 10_000) == pytest.approx(25.0, rel=1e-3)
    assert param > 25 * 960, "the cut removes mean, so the parameter must exceed the target"


def test_fcfs_sojourn_by_hand():
    # Jobs at 0, 1, 1.5 of 2, 1, 1 s: the second waits 1 s, the third 1.5 s.
    assert fixed_rate.fcfs_sojourn([0.0, 1.0, 1.5], [2.0, 1.0, 1.0]) == pytest.approx([2.0, 2.0, 2.5])


def test_rcp_paper_lists_chapter_3_in_figure_order():
    names = [e.name for e in papers(REPO)["rcp"]()]
    assert names[:8] == ["fig3-2", "fig3-3", "fig3-4", "fig3-5", "fig3-6", "fig3-7-8", "fig3-9", "differential"]
    assert names[8 : 8 + len(CH4)] == CH4
    # Then the thesis's figures in order, each chapter's investigations after its figures.
    assert names[8 + len(CH4) :] == [
        "fig4-3",
        "fig4-14-10ms",
        "fig4-2-tcp",
        "fig5-2",
        "fig5-4",
        "fig5-5",
        "fig5-3",
        "fig5-7-9",
        "fig5-10-13",
        "fig5-14-15",
        "fig6-6-8",
        "fig6-11",
        "fig6-13",
        "fig6-14",
        "fig6-15",
        "fig6-16",
        "fig6-17",
        "fig6-18",
        "fig6-19-20",
        "fig6-21-22",
        "fig6-23-24",
        "unknown-rate",
        "fig7-1",
    ]


def test_fig35_quick_run_writes_its_report(tmp_path: Path):
    """Fig. 3.5 in quick mode (two 20 s runs): spread-out short flows leave the long flow about
    half the link, R/C near 0.5; arriving together they hold R/C far lower."""
    exp = fig35.experiment()
    record = run_experiment(
        exp, REPO / "experiments" / "rcp", tmp_path / "runs", tmp_path / "out", quick=True, jobs=1, say=lambda _m: None
    )
    assert record["status"] == "done"
    readme = (tmp_path / "out" / "fig3-5" / "README.md").read_text()
    assert (tmp_path / "out" / "fig3-5" / "fig3-5.png").stat().st_size > 10_000
    rows = {r.split("|")[1].strip(): r for r in readme.splitlines() if r.startswith("| ") and "RTT" in r}
    r_over_c = {k: float(v.split("|")[3]) for k, v in rows.items()}
    spread = r_over_c["a quarter RTT apart"]
    together = r_over_c["four at the start of each RTT (the caption)"]
    assert 0.45 < spread < 0.5 and together < 0.3, r_over_c
    assert re.search(r"Mode: quick", readme)


def test_fig39_rate_stats_span_and_decades():
    """Fig. 3.9's summary: percentiles by rank and the decades the 5-95% range covers."""
    st = fig39.rate_stats([0.01 * (i + 1) for i in range(100)])
    assert st["min"] == pytest.approx(0.01) and st["max"] == pytest.approx(1.0)
    assert st["p50"] == pytest.approx(0.5, abs=0.011)
    assert st["decades"] == pytest.approx(math.log10(st["p95"] / st["p5"]))


def test_two_flow_phases_take_the_end_of_each_phase():
    """The young phase is the joiner's last second below the threshold, the old phase the last 2 s
    before it completes; C/R comes from the link's R."""
    t = [i * 0.05 for i in range(1, 801)]
    young_until, end = 25.0, 35.0

    def long_rate(x):
        return 150e6 if x <= differential.JOIN else (50e6 if x <= young_until else 75e6)

    w = pl.DataFrame(
        {
            "time_s": t,
            "flow0_send_rate_bps": [long_rate(x) for x in t],
            "flow1_send_rate_bps": [0.0 if x <= 20 else (100e6 if x <= young_until else 75e6) for x in t],
            "bottleneck_rcp_rate_bps": [300e6 if x <= 20 else (100e6 if x <= young_until else 150e6) for x in t],
        }
    )
    got = differential.two_flow_phases(w, young_until, end)
    assert got["alone"]["long"] == pytest.approx(150e6) and got["alone"]["c_over_r"] == pytest.approx(0.5)
    assert got["young"]["long"] / got["young"]["joiner"] == pytest.approx(0.5)
    assert got["young"]["c_over_r"] == pytest.approx(1.5)
    assert got["old"]["c_over_r"] == pytest.approx(1.0)
