"""The RCP thesis's ch. 5 / 7 packet simulations: the stability classifier and the convergence
time (experiments/rcp/settling.py) on synthetic series, and the experiments' schedules."""

from __future__ import annotations

import numpy as np
import pytest

from realcore import experiment_code, paper_code

st = paper_code("rcp", "settling")
convergence = paper_code("rcp", "convergence")
fig53 = experiment_code("rcp", "fig5-3")
#: Chapter 5's packet simulations and Fig. 7.1.
SIMULATIONS = ["fig5-3", "fig5-7-9", "fig5-10-13", "fig5-14-15", "fig7-1"]

T = np.arange(0.0, 20.0, 0.01)


def test_a_settled_rate_and_an_empty_queue_are_stable():
    r = np.full_like(T, 1e6) + 1e4 * np.sin(T)  # a 2% ripple
    v = st.stable_phase(T, r, np.zeros_like(T), 10.0, 20.0, 1e6, 1e5)
    assert v.r_swing == pytest.approx(0.02, rel=0.01)
    assert v.q_peak == 0.0
    assert v.stable


def test_a_lasting_oscillation_is_unstable_by_either_bound():
    # R between 0.5 and 1.5 of its fair value: R's bound fails.
    r = 1e6 * (1.0 + 0.5 * np.sin(2 * np.pi * T))
    assert not st.stable_phase(T, r, np.zeros_like(T), 10.0, 20.0, 1e6, 1e5).stable
    # A steady R but a queue filling to half a BDP and emptying: the queue's bound fails.
    q = 5e4 * (1.0 + np.sin(2 * np.pi * T)) / 2
    v = st.stable_phase(T, np.full_like(T, 1e6), q, 10.0, 20.0, 1e6, 1e5)
    assert v.r_swing == 0.0 and not v.stable
    # A transient before the window does not count.
    r = np.where(T < 10.0, 3e6, 1e6)
    assert st.stable_phase(T, r, np.zeros_like(T), 10.0, 20.0, 1e6, 1e5).stable


def test_an_empty_window_gives_nan():
    assert np.isnan(st.swing(T, T, 30.0, 40.0, 1.0))


def test_convergence_time_is_when_r_and_q_enter_their_bands_for_good():
    # R halves at t = 5 and decays to it as exp(-(t - 5)); the queue is 0 throughout.
    r = np.where(T < 5.0, 2.0, 1.0 + np.exp(-(T - 5.0)))
    q = np.zeros_like(T)
    got = st.convergence_time(T, r, q, 5.0, 1.0, 10.0)
    # exp(-x) <= 0.02 from x = ln 50 on, to the sample grid.
    assert got == pytest.approx(np.log(50.0), abs=0.011)
    # A queue spike at t = 9 delays it to just after the spike.
    q[(T > 9.0) & (T < 9.5)] = 100.0
    assert st.convergence_time(T, r, q, 5.0, 1.0, 10.0) == pytest.approx(4.5, abs=0.011)
    # Within the bands from the start: 0.
    assert st.convergence_time(T, np.ones_like(T), np.zeros_like(T), 5.0, 1.0, 10.0) == 0.0


def test_a_run_that_never_settles_has_no_convergence_time():
    r = 1.0 + 0.5 * np.sin(2 * np.pi * T)
    assert st.convergence_time(T, r, np.zeros_like(T), 5.0, 1.0, 10.0) is None


def test_convergence_point_doubles_the_load_from_equilibrium():
    o = convergence.convergence_point(c=1e9, rtt=0.05, n=200, alpha=0.5, beta=0.5)
    flows = o["workload.0.flows"]
    assert len(flows) == 200
    join = convergence.CONV_BEFORE * 0.05
    assert sum(f["start"] == 0.0 for f in flows) == 100 and sum(f["start"] == join for f in flows) == 100
    # The thesis's Fig. 5.12 example: R(0)/C = 0.01 to Re/C = 0.005.
    assert o["queues.router.initial_rate"] == pytest.approx(0.01)
    assert o["duration"] == pytest.approx(join + convergence.CONV_AFTER * 0.05)


def test_fig5_3_schedule_is_5_then_10_then_5_flows():
    flows = fig53._f53_schedule(1.0)["workload.0.flows"]
    assert [f.get("stop") for f in flows[:5]] == [fig53.F53_LEAVE] * 5
    assert [f["start"] for f in flows[5:]] == [fig53.F53_JOIN] * 5
    assert all("stop" not in f for f in flows[5:])


def test_quick_modes_run_a_handful_of_points():
    for e in (experiment_code("rcp", n).experiment() for n in SIMULATIONS):
        names = {n for n, _ in e.points}
        assert e.quick_points is None or (0 < len(e.quick_points) <= 20 and set(e.quick_points) <= names), e.name


def test_trailing_mean_averages_the_last_k_samples():
    x = np.array([1.0, 3.0, 5.0, 7.0])
    assert st.trailing_mean(x, 2).tolist() == [1.0, 2.0, 4.0, 6.0]
    assert st.trailing_mean(x, 1).tolist() == x.tolist()
    # A +-5% jitter around 1 averages into the 2% band.
    jitter = 1.0 + 0.05 * np.where(np.arange(T.size) % 2 == 0, 1.0, -1.0)
    assert st.convergence_time(T, jitter, np.zeros_like(T), 5.0, 1.0, 1.0) is None
    assert st.convergence_time(T, st.trailing_mean(jitter, 10), np.zeros_like(T), 5.0, 1.0, 1.0) == 0.0
