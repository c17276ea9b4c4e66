"""The RCP thesis's numbers as checks (experiments/rcp/*/experiment.py): every check function on
hand-made input, a value near the thesis's a match and one far from it a miss; and the
experiments that are fctlab's own investigations, not figures of the thesis."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from fctlab.reproduce.checks import MATCH, MISS
from fctlab.reproduce.framework import Context
from realcore import experiment_code, paper_code

rr = paper_code("rcp", "reports")
fluid = paper_code("rcp", "stability.fluid")


@pytest.fixture
def ctx(tmp_path) -> Context:
    return Context(out=tmp_path, quick=True, seeds=[1])


def statuses(ctx: Context) -> list[str]:
    assert ctx.checks, "no check declared"
    return [c.status for c in ctx.checks]


def all_match(ctx: Context) -> bool:
    return all(s == MATCH for s in statuses(ctx))


def all_miss(ctx: Context) -> bool:
    return all(s == MISS for s in statuses(ctx))


def test_fig34_good_estimate_near_the_pipe_and_fewer_flows_far_below(ctx, tmp_path):
    fig34 = experiment_code("rcp", "fig3-4")
    fig34.check_fig34(ctx, 1.02, 0.35)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig34.check_fig34(far, 2.0, 1.8)
    assert all_miss(far)


def test_fig37_38_minimum_inside_utilization_and_asymptote(ctx, tmp_path):
    fig378 = experiment_code("rcp", "fig3-7-8")
    fig378.check_fig37_38(ctx, best=0.1, util_best=0.81, load=0.81, tau_top=0.120, mg1=0.125, top=5.0)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    # The minimum at the sweep's first rate, half the load carried, E[tau] a third of eq. 3.5's.
    fig378.check_fig37_38(far, best=0.02, util_best=0.4, load=0.81, tau_top=0.04, mg1=0.125, top=5.0)
    assert all_miss(far)


def test_fig3_9_largest_rate_against_the_link_rate(ctx):
    fig39 = experiment_code("rcp", "fig3-9")
    fig39.check_fig3_9(ctx, {1: 0.97, 2: 0.2})
    assert statuses(ctx) == [MATCH, MISS]


def traced(fct: float, ps: float, slow_start: float, size: int = 230) -> pl.DataFrame:
    """`flow_rows` of three traced flows of `size` packets with the same FCT."""
    return pl.DataFrame(
        {"packets": [size] * 3, "fct_s": [fct] * 3, "ps_curve_s": [ps] * 3, "slow_start_s": [slow_start] * 3}
    )


def test_fig43_rcp_near_ps_tcp_on_slow_start_xcp_slower(ctx, tmp_path):
    fig43 = experiment_code("rcp", "fig4-3")
    fig43.check_fig43(
        ctx, {"RCP": traced(0.17, 0.158, 0.751), "TCP": traced(0.76, 0.158, 0.751), "XCP": traced(2.8, 0.158, 0.751)}
    )
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig43.check_fig43(
        far, {"RCP": traced(0.6, 0.158, 0.751), "TCP": traced(2.0, 0.158, 0.751), "XCP": traced(0.3, 0.158, 0.751)}
    )
    assert all_miss(far)


def test_fig43_without_completed_flows_is_a_miss(ctx):
    fig43 = experiment_code("rcp", "fig4-3")
    none = traced(0.1, 0.158, 0.751).with_columns(fct_s=pl.lit(None, dtype=pl.Float64))
    fig43.check_fig43(ctx, {"RCP": none, "TCP": none, "XCP": none})
    assert all(c.fctlab is None for c in ctx.checks) and all_miss(ctx)


def test_fig49_rcp_against_the_lower_bound(ctx, tmp_path):
    fig49 = experiment_code("rcp", "fig4-9")
    fig49.check_lower_bound(ctx, pl.DataFrame({"fct_s": [0.80, 0.85], "lower_bound_s": [0.75, 0.75]}))
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig49.check_lower_bound(far, pl.DataFrame({"fct_s": [2.0, 2.2], "lower_bound_s": [0.75, 0.75]}))
    assert all_miss(far)


def split(small: float, large: float, small_ps: float = 0.15, large_ps: float = 0.5) -> dict[str, float]:
    """An `analysis.split_afct` of one protocol, AFCTs given as multiples of PS."""
    return {
        "small_afct": small * small_ps,
        "small_ps": small_ps,
        "large_afct": large * large_ps,
        "large_ps": large_ps,
    }


def test_fig410_tcp_large_flows_and_xcp_against_the_load(ctx, tmp_path):
    fig410 = experiment_code("rcp", "fig4-10")
    near = {
        0.2: {"TCP": split(2.5, 14.0), "XCP": split(1.9, 3.0)},
        0.6: {"TCP": split(3.0, 8.0), "XCP": split(3.8, 10.0)},
        0.9: {"TCP": split(3.5, 2.0), "XCP": split(5.6, 8.0)},
    }
    fig410.check_loads(ctx, near)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    # TCP's large flows at most 3 x PS and getting worse with the load, XCP getting better.
    fig410.check_loads(
        far,
        {0.2: {"TCP": split(2.5, 1.5), "XCP": split(6.0, 9.0)}, 0.9: {"TCP": split(3.5, 3.0), "XCP": split(2.0, 3.0)}},
    )
    assert all_miss(far)


def size_table(afct: float, n: int = 10) -> pl.DataFrame:
    """A `size_tables` entry: n flows of 10 packets, PS 0.1 s each, the AFCT given."""
    return pl.DataFrame({"pkts": [10] * n, "fct_s": [afct] * n, "ps_fct_s": [0.1] * n, "ps_curve_s": [0.1] * n})


def test_fig411_12_claims_xcp_against_tcp_and_rcp_near_ps(ctx, tmp_path):
    fig41112 = experiment_code("rcp", "fig4-11-12")
    low = {"RCP": size_table(0.101), "TCP": size_table(0.45), "XCP": size_table(0.18)}
    high = {"RCP": size_table(0.105), "TCP": size_table(0.6), "XCP": size_table(0.65)}
    rr.check_sizes(ctx, low, fig41112.FIG411_CLAIMS, "load 0.2")
    rr.check_sizes(ctx, high, fig41112.FIG412_CLAIMS, "load 0.94")
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    rr.check_sizes(
        far, {"RCP": size_table(0.3), "TCP": size_table(0.2), "XCP": size_table(0.6)}, fig41112.FIG411_CLAIMS, ""
    )
    rr.check_sizes(
        far, {"RCP": size_table(0.3), "TCP": size_table(0.6), "XCP": size_table(0.2)}, fig41112.FIG412_CLAIMS, ""
    )
    assert all_miss(far)


def _inside(paper, far: bool) -> float:
    """A ratio inside a claim's paper value or range, or (far) well outside it."""
    low, high = paper if isinstance(paper, tuple) else (paper, paper)
    if far:
        return 5.0 * high if high is not None else low / 5.0
    return low if low is not None else high


@pytest.mark.parametrize(
    "name, attr", [("fig4-9", "FIG49_CLAIMS"), ("fig4-11-12", "FIG411_CLAIMS"), ("fig4-11-12", "FIG412_CLAIMS")]
)
@pytest.mark.parametrize("far", [False, True])
def test_size_claims_match_near_and_miss_far(ctx, name, attr, far):
    claims = getattr(experiment_code("rcp", name), attr)
    for c in claims:
        tables = {c.against: size_table(0.1), c.protocol: size_table(0.1 * _inside(c.paper, far))}
        rr.check_sizes(ctx, tables, [c], "")
    assert all_miss(ctx) if far else all_match(ctx)


@pytest.mark.parametrize("far", [False, True])
def test_fig417_21_size_claims_match_near_and_miss_far(ctx, far):
    fig41721 = experiment_code("rcp", "fig4-17-21")
    for claims in fig41721.CLAIMS.values():
        for c in claims:
            tables = {c.against: size_table(0.1), c.protocol: size_table(0.1 * _inside(c.paper, far))}
            rr.check_sizes(ctx, tables, [c], "")
    assert len(ctx.checks) == 4 and (all_miss(ctx) if far else all_match(ctx))


def test_fig417_21_reverse_traffic_effect(ctx, tmp_path):
    fig41721 = experiment_code("rcp", "fig4-17-21")
    alone = {"RCP": size_table(0.103), "TCP": size_table(0.31), "XCP": size_table(0.38)}
    loaded = {"RCP": size_table(0.105), "TCP": size_table(0.33), "XCP": size_table(0.41)}
    fig41721.check_reverse(ctx, loaded, alone)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    # RCP and XCP twice as slow with the reverse traffic, TCP twice as fast.
    fig41721.check_reverse(far, {"RCP": size_table(0.21), "TCP": size_table(0.15), "XCP": size_table(0.8)}, alone)
    assert all_miss(far)


def test_fig423_24_order_of_magnitude_and_tcp_degrading(ctx, tmp_path):
    fig42324 = experiment_code("rcp", "fig4-23-24")
    near = {
        1.0: {"RCP": split(1.0, 1.3), "TCP": split(3.0, 4.0), "XCP": split(5.0, 13.0)},
        8.0: {"RCP": split(1.1, 1.4), "TCP": split(12.0, 15.0), "XCP": split(11.5, 16.0)},
    }
    fig42324.check_hops(ctx, near)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig42324.check_hops(
        far,
        {
            1.0: {"RCP": split(1.0, 1.3), "TCP": split(6.0, 12.0), "XCP": split(5.0, 13.0)},
            8.0: {"RCP": split(1.1, 1.4), "TCP": split(2.0, 3.0), "XCP": split(2.5, 3.0)},
        },
    )
    assert all_miss(far)


def region(stable_alphas: dict[float, float]) -> dict[tuple[float, float], bool]:
    """Verdicts on alpha in 0.1 .. 2.0 for each beta: stable up to the alpha given."""
    alphas = [round(0.1 * i, 1) for i in range(1, 21)]
    return {(a, b): a <= top + 1e-9 for b, top in stable_alphas.items() for a in alphas}


def test_fig5_3_beta_06_edge_and_the_linear_region(ctx, tmp_path):
    fig53 = experiment_code("rcp", "fig5-3")
    linear = region({0.3: 1.4, 0.6: 0.0})
    fig53.check_fig5_3(ctx, region({0.3: 1.4, 0.6: 1.2}), linear)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    # Unstable from alpha = 0.3 at beta = 0.6, and at most of the linearly stable points.
    fig53.check_fig5_3(far, region({0.3: 0.2, 0.6: 0.2}), linear)
    assert all_miss(far)


def test_fig5_3_without_linearly_stable_points_checks_only_the_beta_06_edge(ctx):
    fig53 = experiment_code("rcp", "fig5-3")
    fig53.check_fig5_3(ctx, region({0.6: 1.2}), region({0.6: 0.0}))
    assert [c.quantity for c in ctx.checks] == ["largest stable alpha at beta = 0.6"]


def verdict_map(grid: np.ndarray, edges: list[float]) -> np.ndarray:
    """[beta, alpha] verdicts: settled up to each row's edge, oscillating beyond."""
    return np.array([[fluid.SETTLED if a <= e + 1e-9 else fluid.OSCILLATING for a in grid] for e in edges])


def test_fig5_4_region_against_the_linear_one_and_its_independence(ctx, tmp_path):
    fig54 = experiment_code("rcp", "fig5-4")
    grid = np.round(np.arange(0.2, 2.0 + 1e-9, 0.2), 2)
    lin = verdict_map(grid, [1.4, 1.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]) == fluid.SETTLED
    law = verdict_map(grid, [1.4, 1.4, 1.2, 1.0, 0.8, 0.8, 0.8, 0.6, 0.6, 0.6])
    fig54.check_fig54(ctx, grid, law, lin, {"C": 1.0, "d0": 0.98, "N": 1.0})
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    small = verdict_map(grid, [0.4, 0.2, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    fig54.check_fig54(far, grid, small, lin, {"C": 0.5, "d0": 0.4, "N": 0.6})
    assert all_miss(far)


def test_fig5_5_system1_region_and_the_two_pairs(ctx, tmp_path):
    fig55 = experiment_code("rcp", "fig5-5")
    grid = np.round(np.arange(0.2, 2.0 + 1e-9, 0.2), 2)
    lin = verdict_map(grid, [1.4, 1.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]) == fluid.SETTLED
    system1 = verdict_map(grid, [1.4, 1.4, 1.2, 1.0, 0.8, 0.8, 0.8, 0.6, 0.6, 0.6])
    heun = fig55.CONFIGS[1][0]
    numbers = {((0.8, 0.55), heun): (1e-12, float("nan")), ((1.4, 0.3), heun): (2.0, 0.01)}
    fig55.check_fig55(ctx, system1, lin, numbers, 0.01)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    numbers = {((0.8, 0.55), heun): (3.0, 0.02), ((1.4, 0.3), heun): (0.5, -0.004)}
    fig55.check_fig55(far, verdict_map(grid, [0.2] + [0.0] * 9), lin, numbers, 0.01)
    assert all_miss(far)


def test_fig5_7_9_rates_at_the_fair_shares(ctx, tmp_path):
    fig579 = experiment_code("rcp", "fig5-7-9")
    near = {"fig5-8-thesis": (54.0, 2.0), "fig5-9-thesis": (55.5, 2.1), "fig5-8-fixed-gain": (1.0, 40.0)}
    fig579.check_fig5_7_9(ctx, near)
    assert len(ctx.checks) == 4 and all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig579.check_fig5_7_9(far, {"fig5-8-thesis": (1.8, 14.7), "fig5-9-thesis": (13.7, None)})
    assert all_miss(far)


def test_fig5_14_15_best_pairs(ctx, tmp_path):
    fig51415 = experiment_code("rcp", "fig5-14-15")

    def got(best_514: float, best_515: float) -> dict:
        pts: dict[str, dict] = {"5.14": {}, "5.15": {}}
        for buf in fig51415.F514_BUFFERS:
            for a, b in fig51415.F514_PAIRS:
                pts["5.14"][(a, b, buf)] = (best_514 if (a, b) == (0.9, 0.1) else 1.0, 0.05)
                pts["5.15"][(a, b, buf)] = (best_515 if (a, b) == (0.1, 1.0) else 0.2, 0.05)
        return pts

    fig51415.check_best(ctx, got(0.95, 0.19))
    assert len(ctx.checks) == 6 and all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig51415.check_best(far, got(2.0, 0.4))
    assert all_miss(far)
    some = got(0.95, 0.19)
    some["5.14"] = {k: v for k, v in some["5.14"].items() if k[2] == 0.2}
    few = Context(out=tmp_path, quick=True, seeds=[1])
    fig51415.check_best(few, some)
    assert len(few.checks) == 4, "buffers without the pair's run are left out"


def test_fig6_6_8_testbed(ctx, tmp_path):
    fig668 = experiment_code("rcp", "fig6-6-8")
    fig668.check_testbed(ctx, [("0 - 20 s", 1, 1.0), ("20 - 40 s", 2, 1.93)], 0.48, 7.9e6)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig668.check_testbed(far, [("0 - 20 s", 1, 2.0), ("20 - 40 s", 2, None)], 0.95, 2e6)
    assert all_miss(far)


def measured(thesis_afct: float, ratio: float, loss: float, active: float = 3.0, active_ps: float = 3.0) -> dict:
    """A `buffers.measure` result, the fields the checks read."""
    return {"thesis_afct": thesis_afct, "ratio": ratio, "loss": loss, "active": active, "active_ps": active_ps}


def test_fig6_19_20_small_buffers_and_the_loss_hump(ctx, tmp_path):
    fig61920 = experiment_code("rcp", "fig6-19-20")
    sizes, buffers = (20, 60, 600, 8200), (0.02, 2.0)
    hump = {20: 0.01, 60: 0.05, 600: 0.08, 8200: 0.02}
    near = [
        (k, b, measured(0.28 if (k, b) == (20, 0.02) else 0.2, 1.05, hump[k] / (1 if b == 0.02 else 50), 2.4, 2.3))
        for k in sizes
        for b in buffers
    ]
    fig61920.check_fig6_19_20(ctx, near)
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    falling = {20: 0.1, 60: 0.05, 600: 0.02, 8200: 0.01}
    items = [
        (k, b, measured(0.6 if (k, b) == (20, 0.02) else 0.2, 2.5, falling[k] / (1 if b == 0.02 else 50), 6.0, 2.3))
        for k in sizes
        for b in buffers
    ]
    fig61920.check_fig6_19_20(far, items)
    assert all_miss(far)


def test_fig6_21_22_constant_over_capacity(ctx, tmp_path):
    fig62122 = experiment_code("rcp", "fig6-21-22")
    caps, buffers = (10e6, 100e6, 1e9), (0.02, 0.1, 2.0)
    near = [
        (c, b, measured(0.9 if b == 0.02 else 0.7, 1.2, 0.1 if b == 0.02 else (0.08 if b == 0.1 else 0.0)))
        for c in caps
        for b in buffers
    ]
    fig62122.check_fig6_21_22(ctx, "Fig. 6.21", near)
    fig62122.check_fig6_21_22(ctx, "Fig. 6.22", near)
    # Fig. 6.21: 3 AFCT spreads, 3 small-buffer increases, 2 loss spreads; Fig. 6.22: 2 loss spreads.
    assert len(ctx.checks) == 10 and all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    scale = {10e6: 1.0, 100e6: 2.0, 1e9: 4.0}
    items = [
        (c, b, measured(scale[c] * (2.0 if b == 0.02 else 0.5), 1.2, scale[c] * (0.1 if b != 2.0 else 0.0)))
        for c in caps
        for b in buffers
    ]
    fig62122.check_fig6_21_22(far, "Fig. 6.21", items)
    assert all_miss(far)


def test_fig6_23_24_ps_with_large_buffers_shift_and_loss_shapes(ctx, tmp_path):
    fig62324 = experiment_code("rcp", "fig6-23-24")
    loads, buffers = (0.1, 0.4, 0.6, 0.8), (0.02, 2.0)
    hump = {0.1: 0.03, 0.4: 0.1, 0.6: 0.12, 0.8: 0.09}
    rising = {0.1: 0.0, 0.4: 0.001, 0.6: 0.01, 0.8: 0.1}

    def items(loss: dict, shift: dict, ps: float) -> list:
        return [
            (r, b, measured(0.3 * (shift[r] if b == 0.02 else 1.0), ps, loss[r] if b == 0.02 else 0.0))
            for r in loads
            for b in buffers
        ]

    more = {0.1: 1.05, 0.4: 1.3, 0.6: 1.35, 0.8: 1.4}
    fig62324.check_fig6_23_24(ctx, "Fig. 6.23", items(hump, more, 1.05))
    fig62324.check_fig6_23_24(ctx, "Fig. 6.24", items(rising, more, 1.0))
    assert all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    less = {0.1: 3.0, 0.4: 2.5, 0.6: 2.2, 0.8: 2.0}
    fig62324.check_fig6_23_24(far, "Fig. 6.23", items(rising, less, 2.0))
    fig62324.check_fig6_23_24(far, "Fig. 6.24", items({0.1: 0.1, 0.4: 0.01, 0.6: 0.0, 0.8: 0.0}, less, 2.0))
    assert all_miss(far)


def test_rc3_fig14c_table_and_rcp_penalty(ctx, tmp_path):
    fig14c = experiment_code("rcp", "rc3-fig14c")
    paper = fig14c.FIG14C

    def vals(scale: float) -> dict:
        return {
            "tcp": {"f": [paper["tcp"][0] * scale] * 2, "b": [paper["tcp"][1] * scale] * 2},
            **{
                n: {
                    "f": [paper[n][0] * scale] * 2,
                    "b": [paper[n][1] * scale] * 2,
                    "red_f": [paper[n][2] * scale] * 2,
                    "red_b": [paper[n][3] * scale] * 2,
                }
                for n in ("rcp", "rc3")
            },
        }

    fig14c.check_fig14c(ctx, vals(1.03), [-5.0, -6.0])
    assert len(ctx.checks) == 11 and all_match(ctx)
    far = Context(out=tmp_path, quick=True, seeds=[1])
    fig14c.check_fig14c(far, vals(2.0), [20.0, 25.0])
    assert all_miss(far)


@pytest.mark.parametrize("name", ["fig4-2-tcp", "fig4-14-10ms", "unknown-rate"])
def test_investigations_are_marked_so(name):
    assert experiment_code("rcp", name).experiment().investigation


@pytest.mark.parametrize("name", ["fig3-4", "fig4-10", "fig4-23-24", "fig6-19-20", "rc3-fig14c"])
def test_figures_are_not_investigations(name):
    assert not experiment_code("rcp", name).experiment().investigation
