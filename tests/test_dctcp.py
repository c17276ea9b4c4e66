"""ECN and DCTCP through the Python front: the scenario keys and their errors, what a run
reports of marks and alpha, and DCTCP's queue analysis in the datacenter reproduction."""

from __future__ import annotations

import math

import polars as pl
import pytest

import fctlab
from fctlab.errors import ScenarioError
from realcore import experiment_code, fake  # noqa: F401  (fake: the compiled core)

dctcp = experiment_code("datacenter", "dctcp-queue")


def spec(queue: dict, transport: dict, *, flows: int = 2, duration: str = "30ms") -> dict:
    """`flows` long-lived flows over a 1 Gb/s, 100 us dumbbell with `queue` at the routers."""
    return {
        "duration": duration,
        "max_time": duration,
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 1,
            "bottleneck_rate": "1Gbps",
            "bottleneck_delay": "50us",
            "access_rate": "100Gbps",
        },
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}] * flows}],
        "output": {"series": {"interval": "100us", "links": ["bottleneck"], "flows": [0]}},
    }


STEP = {"kind": "step", "k_packets": 20, "limit_packets": 500}


def test_a_dctcp_run_reports_marks_on_the_port_and_alpha_on_the_flow():
    r = fctlab.run(spec(STEP, {"cc": "dctcp"}))
    assert set(r.flows["protocol"]) == {"dctcp-iw4"}
    s = r.series
    marks = s.filter((s["metric"] == "ecn_marks") & (s["target"] == "bottleneck"))["value"]
    assert marks.len() > 0 and marks[-1] > 0 and marks.is_sorted(), "marks count up from the start"
    alpha = s.filter((s["metric"] == "dctcp_alpha") & (s["target"] == "flow0"))["value"]
    assert alpha[0] == 1.0 and 0.0 < alpha[-1] < 0.5, "alpha starts at 1 and falls to the marked fraction"
    assert r.links.filter(r.links["name"] == "bottleneck")["drops_pkts"][0] == 0


def test_classic_ecn_is_labelled_and_turns_red_drops_into_marks():
    red = {"kind": "red", "min_packets": 5, "max_packets": 15, "w_q": 0.02, "limit_packets": 500}
    plain = fctlab.run(spec(red, {"cc": "newreno"}))
    ecn = fctlab.run(spec(red, {"cc": "newreno", "ecn": True}))
    assert set(ecn.flows["protocol"]) == {"tcp-newreno-ecn-iw4"}
    drops = [r.links.filter(r.links["name"] == "bottleneck")["drops_pkts"][0] for r in (plain, ecn)]
    assert drops[0] > 0 and drops[1] == 0, drops


@pytest.mark.parametrize(
    "queue, transport, field, message",
    [
        (STEP, {"cc": "dctcp", "ecn": False}, "transport.ecn", "DCTCP needs ECN"),
        (STEP, {"cc": "dctcp", "dctcp_g": 0}, "transport.dctcp_g", "expected a weight in (0, 1], got 0"),
        (STEP, {"cc": "dctcp", "dctcp_alpha": 1.5}, "transport.dctcp_alpha", "expected a fraction in [0, 1], got 1.5"),
        (STEP, {"cc": "cubic", "dctcp_g": 0.1}, "transport.dctcp_g", 'only `cc = "dctcp"` has it'),
        ({"kind": "step"}, {"cc": "dctcp"}, "queues.router.k", "missing"),
        ({"kind": "step", "k": "30KB", "k_packets": 20}, {}, "queues.router.k", "not both"),
        ({"kind": "step", "k_packets": 20, "at": "middle"}, {}, "queues.router", 'expected "enqueue" or "dequeue"'),
        ({"kind": "red", "non_ect": "keep"}, {}, "queues.router", 'expected "drop" or "pass"'),
        ({"kind": "red", "min_packets": 10, "max_packets": 5}, {}, "queues.router.max_packets", "above min_packets"),
        ({"kind": "red", "min_th": "10KB"}, {}, "queues.router.max_th", "both"),
        ({"kind": "red", "max_p": 0}, {}, "queues.router.max_p", "expected a number in (0, 1], got 0"),
        ({"kind": "red", "w_q": 2}, {}, "queues.router.w_q", "got 2"),
    ],
)
def test_bad_marking_and_dctcp_keys_are_refused_by_field(queue, transport, field, message):
    with pytest.raises(ScenarioError) as e:
        fctlab.run(spec(queue, transport))
    assert f"`{field}" in str(e.value) and message in str(e.value), str(e.value)


def test_the_sawtooth_of_the_analysis_by_hand():
    # Sec. 3.3 at 10 Gb/s, RTT 100 us: C x RTT = 83.33 packets; N = 2, K = 40.
    a = dctcp.sawtooth(2, 10e9, 40)
    assert a["bdp"] == pytest.approx(83.333, abs=1e-3)
    assert a["q_max"] == 42
    assert a["amplitude"] == pytest.approx(0.5 * math.sqrt(4 * (83.333 + 40)), rel=1e-4)
    assert a["q_min"] == pytest.approx(30.90, abs=0.01)
    assert a["alpha"] == pytest.approx(math.sqrt(2 / 61.667), rel=1e-3)
    # Below the guideline K > C x RTT / 7 the queue drains in the analysis.
    assert dctcp.sawtooth(2, 10e9, 5)["q_min"] < 0 < dctcp.sawtooth(2, 10e9, 12)["q_min"]


@pytest.mark.parametrize("name, router", [("dctcp", "red"), ("newreno", "red"), ("cubic", "step")])
def test_the_marking_queues_pass_the_conformance_kit(name, router):
    from fctlab.tools import check

    verdicts = check.run_checks(name, router=router)
    failed = [f"{v.check}: {v.detail}" for v in verdicts if v.status == check.FAIL]
    assert not failed, failed


def test_alpha_before_the_approximation_solves_the_cubic_and_nears_sqrt_2_over_w():
    for w in (2.5, 10.0, 61.67, 500.0):
        a = dctcp.alpha_root(w)
        assert a * a * (1 - a / 4) == pytest.approx((2 * w + 1) / (w + 1) ** 2, rel=1e-9)
    assert dctcp.alpha_root(500.0) == pytest.approx(math.sqrt(2 / 500.0), rel=0.02)
    assert dctcp.alpha_root(1.0) == 1.0, "no root below 1: every packet marked"


def test_pfabric_keys_are_checked():
    fabric = {"kind": "pfabric", "limit_packets": 24}
    cases = [
        ({"kind": "pfabric"}, {"cc": "pfabric"}, "queues.router.limit", "missing"),
        (fabric, {"cc": "pfabric", "hystart": "linux"}, "transport.hystart", "no slow-start exit"),
        (fabric, {"cc": "pfabric", "ecn": True}, "transport.ecn", "does not react to marks"),
        (fabric, {"protocol": "rc3", "cc": "pfabric"}, "transport.cc", "expected"),
    ]
    for queue, transport, field, message in cases:
        with pytest.raises(ScenarioError) as e:
            fctlab.run(spec(queue, transport))
        assert f"`{field}" in str(e.value) and message in str(e.value), str(e.value)
    r = fctlab.run(spec(fabric, {"cc": "pfabric", "iw": 10}, flows=1))
    assert set(r.flows["protocol"]) == {"pfabric-iw10"}


def test_a_named_transport_inherits_dctcps_constants_only_if_it_runs_dctcp():
    s = spec(STEP, {"cc": "dctcp", "dctcp_g": 0.25})
    s["transports"] = {"reno": {"cc": "newreno", "ecn": True}, "slow": {"dctcp_alpha": 0.5}}
    flow = [{"src": "l0", "dst": "r0", "start": 0}]
    s["workload"] = [
        {"kind": "long_lived", "flows": flow, "transport": "reno"},
        {"kind": "long_lived", "flows": flow, "transport": "slow"},
    ]
    s["output"]["series"]["flows"] = [0, 1]
    r = fctlab.run(s)
    assert r.flows.sort("id")["protocol"].to_list() == ["reno", "slow"]
    alpha = r.series.filter(r.series["metric"] == "dctcp_alpha")
    assert set(alpha["target"]) == {"flow1"}, "reno runs NewReno, slow runs DCTCP"
    assert alpha["value"][0] == 0.5, "slow's own dctcp_alpha"
    s["transports"]["reno"]["dctcp_g"] = 0.1
    with pytest.raises(ScenarioError, match=r"`transports.reno.dctcp_g`: set, but only"):
        fctlab.run(s)


def test_the_analysis_resolves_alpha_as_the_core_does():
    # The core's numbers (`protocol::dctcp::analysis` tests): two flows at 10 Gb/s, K = 65.
    a = dctcp.sawtooth(2, 10e9, 65)
    assert a["w_star"] == pytest.approx(74.17, abs=0.01)
    assert a["alpha_ewma"] == pytest.approx(0.1764, abs=1e-3), "the cut at alpha's trough: 6% above the exact root"
    assert a["tolerance"] == pytest.approx(0.087, abs=1e-3)
    assert a["amplitude_ewma"] == pytest.approx(2 / a["alpha_ewma"])
    # Ten flows: a sawtooth of under three windows, where the moving average changes nothing.
    ten = dctcp.sawtooth(10, 10e9, 65)
    assert ten["alpha_ewma"] == pytest.approx(ten["alpha_root"], rel=0.01)
    assert ten["tolerance"] == pytest.approx(1 / ten["w_star"], abs=0.01)


def test_queue_stats_count_marks_over_the_packets_sent():
    # Three samples 10 us apart at 1.2 Gb/s: one 1,500-byte packet in each interval; the marks
    # go 4 -> 5 -> 5 over the two intervals after the first sample, two packets sent.
    wide = pl.DataFrame(
        {
            "time_s": [0.0, 1e-5, 2e-5],
            "bottleneck_queue_bytes": [3000.0, 4500.0, 1500.0],
            "bottleneck_throughput_bps": [1.2e9, 1.2e9, 1.2e9],
            "bottleneck_ecn_marks": [4.0, 5.0, 5.0],
            "flow0_dctcp_alpha": [0.2, 0.2, 0.2],
            "flow1_dctcp_alpha": [0.4, 0.4, 0.4],
            "flow0_acked_bytes": [0.0, 1000.0, 3000.0],
            "flow1_acked_bytes": [0.0, 500.0, 1000.0],
        }
    )
    m = dctcp.queue_stats(wide, 2, 2.4e9)
    assert (m["min"], m["max"], m["mean"]) == (1.0, 3.0, 2.0)
    assert m["marked"] == pytest.approx(1 / 2)
    assert m["alpha"] == pytest.approx(0.3), "each flow's mean, then the mean over flows"
    assert m["util"] == pytest.approx(0.5)
    assert (m["share_min"], m["share_max"]) == (pytest.approx(0.5), pytest.approx(1.5))
