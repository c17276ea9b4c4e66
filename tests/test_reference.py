"""fctlab.reference: the processor-sharing and greedy-SRPT fluids of a run's own flows (through the
compiled core's `ps_fct` and `srpt_fct`), the flows table's `path` column they rely on, the
M/G/1-PS closed forms, and the max-min rates of long-lived flows (water-filling)."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

import fctlab
from fctlab.reference import (
    max_min_rates,
    mg1_ps_fct,
    mg1_ps_mean_fct,
    ps_afct_with_setup,
    ps_curve,
    ps_fct,
    reference_curves,
    slow_start_curve,
    srpt_fct,
    wire_bits,
)
from realcore import fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

GBPS = 1e9


def flows_frame(rows: list[tuple[float, int, list[int]]], rtt: float = 0.01) -> pl.DataFrame:
    """A flows table with what ps_fct and srpt_fct read: (start_s, size_bytes, path) per flow,
    each in TCP's default packets (1460-byte segments, 40-byte headers)."""
    return pl.DataFrame(
        {
            "id": list(range(len(rows))),
            "start_s": [r[0] for r in rows],
            "size_bytes": [r[1] for r in rows],
            "path": [r[2] for r in rows],
            "rtt_prop_s": [rtt] * len(rows),
            "mss_bytes": [1460] * len(rows),
            "header_bytes": [40] * len(rows),
        }
    )


def test_run_paths_go_from_source_to_destination_over_the_bottleneck():
    """The `path` column lists the forward links in order: source host's uplink to the
    destination host's downlink, each link starting where the previous one ended."""
    r = fctlab.run(small_dumbbell())
    links = {row["id"]: row for row in r.links.iter_rows(named=True)}
    bottleneck = r.links.filter(pl.col("name") == "bottleneck")["id"].item()
    for f in r.flows.iter_rows(named=True):
        hops = [links[l] for l in f["path"]]
        assert hops[0]["src"] == f["src"] and hops[-1]["dst"] == f["dst"], f
        assert all(a["dst"] == b["src"] for a, b in zip(hops, hops[1:])), f
        assert sum(h["delay_s"] for h in hops) * 2 == pytest.approx(f["rtt_prop_s"])
        assert bottleneck in f["path"] or f["src"][0] == f["dst"][0], f


@pytest.mark.parametrize("name", ["ps", "srpt"])
def test_a_reference_of_a_run_has_a_row_per_finite_flow_above_the_lower_bound(name):
    """One row per finite flow, by id; neither PS nor greedy SRPT can beat 1.5 RTT + L / C, the
    fluid part is at least the transfer at the path's slowest link, and at 60% load some flows
    wait (share, under PS)."""
    fct = {"ps": ps_fct, "srpt": srpt_fct}[name]
    r = fctlab.run(
        small_dumbbell(
            workload=[
                {
                    "kind": "poisson",
                    "load": 0.6,
                    "load_on": "bottleneck",
                    "sizes": {"kind": "exponential", "mean": 30000},
                },
                {"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "300ms"}]},
            ]
        )
    )
    finite = r.flows.filter(pl.col("size_bytes") >= 0).sort("id")
    assert finite.height < r.flows.height, "the long-lived flow must be in the run for this to test its exclusion"
    ref = fct(r)
    fluid, total = f"{name}_fluid_s", f"{name}_fct_s"
    assert ref.columns == ["id", fluid, total]
    assert ref["id"].to_list() == finite["id"].to_list()
    rates = dict(zip(r.links["id"].to_list(), r.links["rate_bps"].to_list(), strict=True))
    waited = 0
    for f, p in zip(finite.iter_rows(named=True), ref.iter_rows(named=True), strict=True):
        alone = wire_bits(f["size_bytes"]) / min(rates[l] for l in f["path"])
        assert p[fluid] >= alone * (1 - 1e-9)
        assert p[total] == pytest.approx(1.5 * f["rtt_prop_s"] + p[fluid])
        assert p[total] >= f["ideal_fct_s"] * (1 - 1e-9)
        waited += p[fluid] > 1.01 * alone
    assert waited > 5, "at 60% load some flows must wait, else the test only checks single flows"


def test_ps_fct_shares_a_link_max_min_and_adds_one_and_a_half_rtt():
    """Two equal flows on link 0, one alone on link 1: the first two at C/2, the third at C."""
    size = 146_000  # 100 full segments: 1.2 Mbit on the wire
    bits = wire_bits(size)
    assert bits == 100 * 1500 * 8
    out = ps_fct(
        flows_frame([(0.0, size, [0]), (0.0, size, [0, 1]), (0.0, size, [2])], rtt=0.02), [GBPS, 10 * GBPS, GBPS]
    )
    assert out["ps_fluid_s"].to_list() == pytest.approx([2 * bits / GBPS, 2 * bits / GBPS, bits / GBPS])
    assert out["ps_fct_s"].to_list() == pytest.approx(
        [0.03 + 2 * bits / GBPS, 0.03 + 2 * bits / GBPS, 0.03 + bits / GBPS]
    )


def test_ps_fct_on_one_link_matches_mg1_ps():
    """Poisson arrivals on one link at load 0.5: the mean of (fluid T / wire bits) over 2 x 10^5
    flows is 1 / (C (1 - rho)) within 3% (the Rust tests hold this to M/G/1-PS more tightly)."""
    rng = random.Random(4)
    c, load, mean_bytes = GBPS, 0.5, 14_600
    mean_bits = wire_bits(mean_bytes)  # exponential sizes rounded to segments below: close enough
    t, rows = 0.0, []
    for _ in range(200_000):
        t += rng.expovariate(load * c / mean_bits)
        rows.append((t, max(1, round(rng.expovariate(1 / mean_bytes))), [0]))
    flows = flows_frame(rows)
    out = ps_fct(flows, [c])
    bits = [wire_bits(s) for s in flows["size_bytes"]]
    realized = sum(bits) / (c * t)
    steady = slice(20_000, 190_000)
    slowdown = [f / b for f, b in zip(out["ps_fluid_s"].to_list()[steady], bits[steady], strict=True)]
    assert sum(slowdown) / len(slowdown) == pytest.approx(1 / (c * (1 - realized)), rel=0.03)


def test_closed_forms_agree_with_the_models_curve():
    """E[T] = E[S] / (C (1 - rho)); the thesis's PS curve is it plus 1.5 RTPD."""
    assert mg1_ps_mean_fct(1e6, GBPS, 0.5) == pytest.approx(2e-3)
    assert mg1_ps_fct(3e6, GBPS, 0.8) == pytest.approx(15e-3)
    curves = reference_curves(flows_frame([(0.0, 14_600, [0]), (0.0, 1000, [0])], rtt=0.05), GBPS, 0.8, iw=1)
    assert curves["ps_curve_s"].to_list() == pytest.approx(
        [0.075 + mg1_ps_fct(wire_bits(14_600), GBPS, 0.8), 0.075 + mg1_ps_fct(wire_bits(1000), GBPS, 0.8)]
    )
    # 10 packets from iw 1: ceil(log2(11)) = 4 rounds + 1/2.
    assert curves["slow_start_s"][0] == pytest.approx(slow_start_curve(10, GBPS, 0.05, 1500 * 8, 1))
    assert curves["slow_start_s"][0] == pytest.approx(4.5 * 0.05 + 10 * 1500 * 8 / GBPS)
    assert curves["lower_bound_s"][1] == pytest.approx(0.075 + 1040 * 8 / GBPS)
    with pytest.raises(ValueError, match="load"):
        mg1_ps_mean_fct(1e6, GBPS, 1.0)


@pytest.mark.parametrize("fluid", [ps_fct, srpt_fct])
def test_bad_inputs_name_the_field(fluid):
    """Errors from the compiled core name the flow and the field, the value and the expectation."""
    with pytest.raises(ValueError, match=r"flows\[1\]\.path\[0\]`: expected a link index below 1, got 4"):
        fluid(flows_frame([(0.0, 10, [0]), (0.0, 10, [4])]), [GBPS])
    with pytest.raises(ValueError, match=r"flows\[0\]\.path\[0\]`: expected a link index >= 0, got -1"):
        fluid(flows_frame([(0.0, 10, [-1])]), [GBPS])
    with pytest.raises(ValueError, match=r"flows\[0\]\.path\[1\]`: expected each link once, got link 0 again"):
        fluid(flows_frame([(0.0, 10, [0, 0])]), [GBPS])
    with pytest.raises(ValueError, match=r"links\[0\]`: expected a capacity > 0"):
        fluid(flows_frame([(0.0, 10, [0])]), [0.0])
    with pytest.raises(ValueError, match="no `path` column"):
        fluid(flows_frame([(0.0, 10, [0])]).drop("path"), [GBPS])
    with pytest.raises(TypeError, match=f"{fluid.__name__}: pass `links`"):
        fluid(flows_frame([(0.0, 10, [0])]))
    with pytest.raises(ValueError, match="one length"):
        getattr(fctlab._core, fluid.__name__)([GBPS], [0.0], [], [[0]])
    assert math.isfinite(fluid(flows_frame([(0.0, 0, [0])]), [GBPS])[f"{fluid.__name__}_s"][0])


def test_srpt_fct_serves_the_shortest_first_and_adds_one_and_a_half_rtt():
    """One 1 Gb/s link (link 0) and a flow alone on link 1; sizes in full segments, 1.2 Mbit per
    100 segments on the wire."""
    size = 146_000  # 100 full segments: 1.2 Mbit, 1.2 ms at 1 Gb/s
    ms = wire_bits(size) / GBPS
    assert ms == pytest.approx(1.2e-3)
    # At 0: A (2.4 Mbit) and B (1.2 Mbit) on link 0, C (1.2 Mbit) alone on link 1. B first: ends at
    # 1.2 ms; A waits, then ends at 3.6 ms; C ends at 1.2 ms. PS would end B at 2.4 ms.
    out = srpt_fct(flows_frame([(0.0, 2 * size, [0]), (0.0, size, [0]), (0.0, size, [1])], rtt=0.02), [GBPS, GBPS])
    assert out["srpt_fluid_s"].to_list() == pytest.approx([3 * ms, ms, ms])
    assert out["srpt_fct_s"].to_list() == pytest.approx([0.03 + 3 * ms, 0.03 + ms, 0.03 + ms])
    # B arriving at 0.6 ms, when A has 1.8 Mbit left > 1.2: B preempts A, runs over [0.6, 1.8] ms
    # (1.2 ms); A gets its last 1.8 Mbit over [1.8, 3.6] ms (3.6 ms).
    out = srpt_fct(flows_frame([(0.0, 2 * size, [0]), (ms / 2, size, [0])]), [GBPS])
    assert out["srpt_fluid_s"].to_list() == pytest.approx([3 * ms, ms])


def test_srpt_fct_on_one_link_beats_ps_in_mean_and_ends_at_the_same_time():
    """On one link greedy SRPT is preemptive SRPT, the least mean completion time of any
    schedule; both it and PS keep the link busy while there is work, so the last flow ends at
    the same time. 2,000 Poisson flows at load 0.8, exponential sizes."""
    rng = random.Random(9)
    t, rows = 0.0, []
    for _ in range(2000):
        t += rng.expovariate(0.8 * GBPS / wire_bits(14_600))
        rows.append((t, max(1, round(rng.expovariate(1 / 14_600))), [0]))
    flows = flows_frame(rows)
    srpt = srpt_fct(flows, [GBPS])["srpt_fluid_s"].to_list()
    ps = ps_fct(flows, [GBPS])["ps_fluid_s"].to_list()
    assert sum(srpt) < sum(ps)
    starts = flows["start_s"].to_list()
    last_end = [max(a + d for a, d in zip(starts, fluid, strict=True)) for fluid in (srpt, ps)]
    assert last_end[0] == pytest.approx(last_end[1], rel=1e-12)


def test_eq_6_1_is_two_rtts_plus_the_ps_mean():
    # 100 Mb/s, RTT 80 ms, load 0.68, E[L] = 20 packets of 8000 bits: 0.16 s + 160,000 / 32e6 s.
    assert ps_afct_with_setup(160_000.0, 100e6, 0.68, 0.08) == pytest.approx(0.16 + 0.005)
    # Half a round trip more than chapter 4's 1.5-RTPD curve for the same mean size.
    assert ps_afct_with_setup(8e5, 1e9, 0.5, 0.1) - ps_curve(100, 1e9, 0.1, 0.5, 8000.0) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="load"):
        ps_afct_with_setup(1.0, 1.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="rtt"):
        ps_afct_with_setup(1.0, 1.0, 0.5, -0.1)


def test_loss_probability_of_a_run_counts_its_buffer_overflows():
    # Twenty RCP flows of 100 KB at once, their first window at R = C: a 5-packet buffer overflows,
    # a 10,000-packet one does not. (fctlab.analysis.loss_probability; here for the real core.)
    from fctlab.analysis import loss_probability

    def loss(limit: int) -> float:
        spec = small_dumbbell(
            queues={"router": {"kind": "rcp", "limit_packets": limit, "initial_rate": 1.0}},
            transport={"protocol": "rcp"},
            workload=[{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": "100KB"}] * 20}],
        )
        return loss_probability(fctlab.run(spec).links, "bottleneck")

    assert loss(5) > 0.01
    assert loss(10_000) == 0.0


def hpcc_and_tcp_mix() -> dict:
    """Short flows on a dumbbell of HPCC switches, half of them HPCC (82-byte headers), half TCP
    in HPCC's own packets (`fctlab hpcc run`'s 1,000-byte segments under 48-byte headers)."""
    sizes = {"kind": "exponential", "mean": 3000}
    return small_dumbbell(
        queues={"router": {"kind": "hpcc", "limit": "250KB"}, "host": {"kind": "droptail", "limit": "250KB"}},
        transports={
            "hpcc": {"protocol": "hpcc", "line_rate": "1Gbps"},
            "hpcc-files": {"protocol": "tcp", "mss": 1000, "header": 48},
        },
        workload=[
            {"kind": "poisson", "load": 0.2, "load_on": "bottleneck", "sizes": sizes, "transport": "hpcc"},
            {"kind": "poisson", "load": 0.2, "load_on": "bottleneck", "sizes": sizes, "transport": "hpcc-files"},
        ],
    )


@pytest.mark.parametrize("name", ["ps", "srpt"])
def test_the_references_count_each_flows_own_packets(name):
    """Each flow's wire bits are its own transport's: with 1,460-byte segments and 40-byte headers
    for every flow, an HPCC flow (82-byte headers) alone on its path came out below its own
    `ideal_fct_s`, as did a flow of 1,000-byte segments. Now no flow's reference is below its
    ideal, a flow that waited for nobody meets it, and the keywords still override."""
    fct = {"ps": ps_fct, "srpt": srpt_fct}[name]
    r = fctlab.run(hpcc_and_tcp_mix())
    packets = r.flows.group_by("protocol").agg(pl.col("mss_bytes").unique(), pl.col("header_bytes").unique())
    assert sorted(packets.rows()) == [("hpcc", [1460], [82]), ("hpcc-files", [1000], [48])]
    ref = fct(r).join(r.flows.select("id", "size_bytes", "ideal_fct_s", "protocol"), on="id")
    total = f"{name}_fct_s"
    below = ref.filter(pl.col(total) < pl.col("ideal_fct_s") * (1 - 1e-9))
    assert below.height == 0, below.head()
    alone = ref.filter((pl.col(total) - pl.col("ideal_fct_s")).abs() < 1e-9 * pl.col("ideal_fct_s"))
    for protocol in ("hpcc", "hpcc-files"):
        assert alone.filter(pl.col("protocol") == protocol).height > 10, f"too few {protocol} flows met their ideal"
    # One packet size for every flow: TCP's, as every flow used to get.
    tcp = fct(r, mss=1460, header=40).join(ref.select("id", "ideal_fct_s", "protocol"), on="id")
    hpcc = tcp.filter((pl.col("protocol") == "hpcc") & (pl.col(total) < pl.col("ideal_fct_s") * (1 - 1e-9)))
    assert hpcc.height > 10, "with 40-byte headers the HPCC flows alone fall below their ideal"


def test_a_flows_table_without_packet_sizes_needs_them_given():
    """A table written before the flows table kept each flow's packet sizes: the keywords say
    them, else a one-line error naming the column and the keyword."""
    old = flows_frame([(0.0, 14_600, [0])]).drop("mss_bytes", "header_bytes")
    for fluid in (ps_fct, srpt_fct):
        missing = rf"{fluid.__name__}: the flows table has no `mss_bytes` column .* pass mss="
        with pytest.raises(ValueError, match=missing):
            fluid(old, [GBPS])
        out = fluid(old, [GBPS], mss=1460, header=40)
        assert out[f"{fluid.__name__}_s"][0] == pytest.approx(0.015 + wire_bits(14_600) / GBPS)
        with pytest.raises(ValueError, match=r"header: expected a whole number of bytes >= 0, got -1"):
            fluid(old, [GBPS], mss=1460, header=-1)
    with pytest.raises(ValueError, match="reference_curves: the flows table has no `header_bytes`"):
        reference_curves(old.with_columns(mss_bytes=pl.lit(1460)), GBPS, 0.5)


def test_reference_curves_count_each_flows_own_packets():
    """The thesis's curves count a flow of 1,000-byte segments under 48-byte headers in its own
    packets: 10 of 1,048 bytes for 10,000 bytes."""
    flows = flows_frame([(0.0, 10_000, [0])], rtt=0.05).with_columns(mss_bytes=pl.lit(1000), header_bytes=pl.lit(48))
    curves = reference_curves(flows, GBPS, 0.5, iw=1)
    assert curves["lower_bound_s"][0] == pytest.approx(0.075 + 10 * 1048 * 8 / GBPS)
    assert curves["slow_start_s"][0] == pytest.approx(slow_start_curve(10, GBPS, 0.05, 1048 * 8, 1))
    given = reference_curves(flows, GBPS, 0.5, iw=1, mss=1460, header=40)
    assert given["lower_bound_s"][0] == pytest.approx(0.075 + wire_bits(10_000) / GBPS)


def test_max_min_rates_of_fig_3_3():
    """Fig. 3.3: 4 flows bottlenecked at an 80 Mb/s link B then crossing the 400 Mb/s link C,
    8 flows on link C alone: B gets 20 Mb/s each, A (400 - 80) / 8 = 40."""
    paths = [["linkB", "linkC"]] * 4 + [["linkC"]] * 8
    rates = max_min_rates(paths, {"linkB": 80e6, "linkC": 400e6, "access": 1e9})
    assert rates[:4] == pytest.approx([20e6] * 4)
    assert rates[4:] == pytest.approx([40e6] * 8)


def test_max_min_rates_of_a_parking_lot():
    """A long flow over two 10 Mb/s hops with one cross flow on the first and two on the second:
    the second hop gives 10/3 each; the first hop's cross flow takes what is left (20/3)."""
    rates = max_min_rates([["h0", "h1"], ["h0"], ["h1"], ["h1"]], {"h0": 10e6, "h1": 10e6})
    assert rates == pytest.approx([10e6 / 3, 20e6 / 3, 10e6 / 3, 10e6 / 3])
    with pytest.raises(ValueError, match="no capacity-limited link"):
        max_min_rates([["elsewhere"]], {"h0": 1e6})
