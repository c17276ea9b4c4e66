"""`fctlab estimate` (fctlab.estimate): the fluid estimate of a scenario's flows, its results
directory (a run's files and columns, marked as an estimate everywhere it is read), its clear
refusals, and `--validate`'s error table against the packet level."""

from __future__ import annotations

import json

import polars as pl
import pytest

from fctlab.errors import ScenarioError
from fctlab.result import FLOW_SCHEMA, load
from fctlab.run import run
from fctlab.tools import linkclusters
from fctlab.tools.estimate import P99_MIN_FLOWS, error_table, estimate, estimate_to, p99_summary, validate
from realcore import cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

#: 1 MB flows on the small dumbbell: 100 Mb/s bottleneck, 1 Gb/s access links, 20 ms RTT.
MB = 1_000_000


def flows_scenario(flows: list[dict], **top) -> dict:
    """The small dumbbell with these flows (`kind = "flows"`)."""
    return small_dumbbell(workload=[{"kind": "flows", "flows": flows}], **top)


def test_a_flow_alone_gets_its_ideal_fct():
    r = estimate(flows_scenario([{"src": "l0", "dst": "r0", "start": 0, "size": MB}]))
    row = r.flows.row(0, named=True)
    assert row["fct_s"] == pytest.approx(row["ideal_fct_s"], rel=1e-12)
    assert row["finish_s"] == pytest.approx(row["start_s"] + row["fct_s"], rel=1e-12)
    assert row["delivered_bytes"] == MB


def test_two_flows_sharing_the_bottleneck_each_take_twice_the_transfer():
    """Both start together on the 100 Mb/s bottleneck: each gets 50 Mb/s until both finish, so
    each FCT is its ideal plus one more bottleneck transfer of its own wire bits."""
    r = estimate(
        flows_scenario(
            [{"src": "l0", "dst": "r0", "start": 0, "size": MB}, {"src": "l1", "dst": "r1", "start": 0, "size": MB}]
        )
    )
    f = r.flows.sort("id")
    wire_bits = (MB + -(-MB // 1460) * f["header_bytes"][0]) * 8
    transfer = wire_bits / 100e6
    for row in f.iter_rows(named=True):
        assert row["fct_s"] == pytest.approx(row["ideal_fct_s"] + transfer, rel=1e-9)


def test_the_results_directory_is_a_runs_and_says_it_is_an_estimate(tmp_path):
    out = tmp_path / "est"
    proc = cli("estimate", str(write_scenario(tmp_path, small_dumbbell())), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "is an estimate" not in proc.stdout  # that is compare's wording
    assert "these completion times are an estimate" in proc.stdout
    r = load(out)
    assert list(r.flows.columns) == list(FLOW_SCHEMA)
    assert r.estimated_by == "fluid"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["estimate"]["method"] == "fluid" and meta["estimate"]["events"] > 0
    assert "packet_hops" not in meta, "an estimate has no packet counters to report"
    summary = cli("summary", str(out))
    assert summary.returncode == 0 and "these completion times are an estimate" in summary.stdout
    ran = tmp_path / "ran"
    assert cli("run", str(write_scenario(tmp_path, small_dumbbell())), "-o", str(ran), "-q").returncode == 0
    compared = cli("compare", str(ran), str(out))
    assert compared.returncode == 0, compared.stderr
    assert f"note: {out} is an estimate" in compared.stdout and f"note: {ran} is" not in compared.stdout
    report = tmp_path / "r.html"
    assert cli("report", str(ran), str(out), "-o", str(report)).returncode == 0
    assert "an estimate (fctlab estimate --method fluid)" in report.read_text()


def test_the_same_scenario_and_seed_give_the_same_estimate(tmp_path):
    a = estimate_to(small_dumbbell(), tmp_path / "a")
    b = estimate_to(small_dumbbell(), tmp_path / "b")
    assert a.flows.equals(b.flows)
    assert (tmp_path / "a" / "flows.parquet").read_bytes() == (tmp_path / "b" / "flows.parquet").read_bytes()
    other = estimate(small_dumbbell(seed=2))
    assert not other.flows.equals(a.flows), "another seed draws other flows"


def test_what_the_model_cannot_estimate_is_refused_by_name(tmp_path):
    long_lived = small_dumbbell(
        workload=[{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "1s"}]}]
    )
    with pytest.raises(ScenarioError, match=r"workload: 1 long-lived flow"):
        estimate(long_lived)
    with pytest.raises(ScenarioError, match=r"workload: 1 long-lived flow"):
        validate(long_lived, tmp_path / "v")
    assert not (tmp_path / "v" / "packet").exists(), "a refused estimate fails before the packet level runs"
    lossy = small_dumbbell(loss=[{"link": "bottleneck", "p": 0.01}])
    said = estimate(lossy).notices
    assert any("the fluid leaves out the scenario's `loss`" in n for n in said), said
    with pytest.raises(ScenarioError, match=r"loss: the links method .* cannot carry `loss`"):
        estimate_to(lossy, tmp_path / "f", method="links")
    with pytest.raises(ScenarioError, match=r"method: expected one of fluid, links, got 'magic'"):
        estimate(small_dumbbell(), method="magic")
    with pytest.raises(ScenarioError, match=r"epsilon: only the links method clusters links, not method 'fluid'"):
        estimate(small_dumbbell(), epsilon=0.1)
    with pytest.raises(ScenarioError, match=r"epsilon: expected a number in \[0, 1\), got 1.5"):
        estimate_to(small_dumbbell(), tmp_path / "e", method="links", epsilon=1.5)
    proc = cli("estimate", str(write_scenario(tmp_path, small_dumbbell())), "-o", str(tmp_path / "x"), "--method", "x")
    assert proc.returncode == 2 and "invalid choice: 'x'" in proc.stderr and "Traceback" not in proc.stderr


def test_flows_the_packet_level_would_not_finish_are_left_open():
    """Without draining, the run stops at `duration`: a flow the fluid finishes later has no finish."""
    scenario = flows_scenario(
        [{"src": "l0", "dst": "r0", "start": 0, "size": 10 * MB}], duration="100ms", drain=False, measure_from=0
    )
    row = estimate(scenario).flows.row(0, named=True)
    assert row["finish_s"] is None and row["fct_s"] is None and row["delivered_bytes"] == 0
    assert estimate({**scenario, "drain": True}).flows["finish_s"][0] > 0.1


def test_the_error_table_compares_each_bin_of_both_runs():
    """Hand-made flows tables: the errors are (estimate - packet) / packet of each statistic."""

    def table(slowdowns: list[float], size: int) -> pl.DataFrame:
        n = len(slowdowns)
        return pl.DataFrame(
            {
                "size_bytes": [size] * n,
                "fct_s": [s * 0.01 for s in slowdowns],
                "ideal_fct_s": [0.01] * n,
                "measured": [True] * n,
            }
        )

    est = pl.concat([table([1.0, 1.0, 1.0], 1000), table([2.0, 2.0], 5000)])
    pkt = pl.concat([table([2.0, 2.0, 2.0], 1000), table([2.0, 2.0], 5000), table([9.0], 7000)])
    t = error_table(est, pkt)
    assert t["label"].to_list() == ["1000 B", "5000 B"], "a bin on one side only is left out"
    assert t["mean_error"].to_list() == pytest.approx([-0.5, 0.0])
    assert t["p99_packet"].to_list() == pytest.approx([2.0, 2.0])
    assert t["flows"].to_list() == [3, 2]
    assert not t["p99_judged"].any(), "a p99 of three flows is not judged"


def test_the_p99_verdict_judges_only_bins_with_enough_flows():
    """A bin of P99_MIN_FLOWS flows a side is judged, one of fewer is not, whatever its error."""

    def table(size: int, n: int, slowdown: float) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "size_bytes": [size] * n,
                "fct_s": [slowdown * 0.01] * n,
                "ideal_fct_s": [0.01] * n,
                "measured": [True] * n,
            }
        )

    many, few = P99_MIN_FLOWS, P99_MIN_FLOWS - 1
    est = pl.concat([table(1000, many, 1.05), table(5000, many, 3.0), table(9000, few, 9.0)])
    pkt = pl.concat([table(1000, many, 1.0), table(5000, many, 2.0), table(9000, few, 1.0)])
    t = error_table(est, pkt)
    assert t["p99_judged"].to_list() == [True, True, False]
    v = p99_summary(t)
    assert v["bins"] == 2 and v["close"] == pytest.approx(0.5)
    assert v["mean_abs"] == pytest.approx((0.05 + 0.5) / 2)
    assert p99_summary(t.filter(~pl.col("p99_judged")))["close"] is None


def test_validate_writes_both_runs_and_the_error_table(tmp_path):
    est, packet, table = validate(small_dumbbell(), tmp_path / "v")
    assert (tmp_path / "v" / "packet" / "flows.parquet").is_file()
    assert packet.flows.equals(run(small_dumbbell()).flows), "the packet level is fctlab run's"
    assert table.height > 0 and (tmp_path / "v" / "validation.parquet").is_file()
    text = (tmp_path / "v" / "validation.md").read_text()
    assert "Wall time: estimate" in text and "| size | flows |" in text
    # The packet level's TCP slow-starts: every 10-segment flow's FCT there exceeds the fluid's.
    assert (table["mean_error"] < 0).all(), table
    assert est.meta["estimate"]["method"] == "fluid"


def write_scenario(tmp_path, spec: dict):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(spec))
    return path


#: Two 100 Mb/s hops in a row, 5 ms each, 250 KB drop-tail queues: a 15 MB cross flow over each
#: hop keeps its queue full (about 20 ms), and four 50-segment flows, one after the other, cross
#: both hops: their delay is both queues', one link problem each.
PARKING_LOT = {
    "name": "parking-lot-queues",
    "seed": 1,
    "duration": "1.5s",
    "topology": {
        "kind": "parking_lot",
        "bottlenecks": 2,
        "rate": "100Mbps",
        "delay": "5ms",
        "access_rate": "1Gbps",
        "access_delay": "1ms",
        "cross_hosts": 1,
        "long_hosts": 1,
    },
    "queues": {"router": {"kind": "droptail", "limit": "250KB"}},
    "workload": [
        {
            "kind": "flows",
            "label": "cross",
            "flows": [{"src": f"cross{i}_src0", "dst": f"cross{i}_dst0", "start": 0, "size": "15MB"} for i in range(2)],
        },
        {
            "kind": "flows",
            "label": "long",
            "flows": [
                {"src": "long_src0", "dst": "long_dst0", "start": 0.3 + 0.2 * i, "size": 73000} for i in range(4)
            ],
        },
    ],
}


def test_links_adds_the_delays_of_both_hops_of_a_two_hop_path(tmp_path):
    """Each long flow's FCT by links must be the packet level's within 3% (measured: 1.7-1.8%
    short); with either hop's delay left out of the sum they would be 14-21% short. The cross
    flows, one link problem each, within 10% (measured: 0.2%). Every link runs (epsilon 0): the
    two bottlenecks carry the same flows and would otherwise share one run."""
    est, packet, _ = validate(PARKING_LOT, tmp_path / "v", method="links", jobs=1, epsilon=0)
    got, want = (r.flows.sort("id") for r in (est, packet))
    assert got["workload"].to_list() == want["workload"].to_list()
    for g, w in zip(got.iter_rows(named=True), want.iter_rows(named=True), strict=True):
        bound = 0.03 if w["workload"] == "long" else 0.10
        assert g["fct_s"] == pytest.approx(w["fct_s"], rel=bound), (g, w)
        if w["workload"] == "long":
            assert w["fct_s"] > 3 * w["ideal_fct_s"], "the queues must delay the long flows, else this tests nothing"
    # delays.parquet: a long flow's delay on each of its 4 links; its estimate less their sum is
    # its time alone, the same for the four (one size, one path).
    delays = pl.read_parquet(tmp_path / "v" / "links" / "delays.parquet")
    long = got.filter(pl.col("workload") == "long").select("id", "fct_s")
    per_flow = delays.group_by("id").agg(pl.len(), pl.col("delay_s").sum()).join(long, on="id")
    assert per_flow.height == 4 and per_flow["len"].to_list() == [4] * 4
    alone = (per_flow["fct_s"] - per_flow["delay_s"]).to_list()
    assert max(alone) - min(alone) < 1e-12 and 0 < alone[0] < min(per_flow["fct_s"])
    assert est.meta["estimate"]["problems"] == 2 + 2 + 2 + 2 + 1, est.meta["estimate"]


def test_links_reuses_its_problems_and_gives_the_same_bytes_on_more_processes(tmp_path):
    a = estimate_to(small_dumbbell(), tmp_path / "a", method="links", jobs=1)
    estimate_to(small_dumbbell(), tmp_path / "b", method="links", jobs=2)
    assert (tmp_path / "a" / "flows.parquet").read_bytes() == (tmp_path / "b" / "flows.parquet").read_bytes()
    assert a.flows["fct_s"].is_not_null().all()
    marker = next((tmp_path / "a" / "links").glob("link*/seed1/done.json"))
    before = marker.stat().st_mtime_ns
    again = estimate_to(small_dumbbell(), tmp_path / "a", method="links", jobs=1)
    assert marker.stat().st_mtime_ns == before, "a problem already run is reused"
    assert again.flows.equals(a.flows)


def test_links_on_the_cli_and_its_options_elsewhere(tmp_path):
    scenario = str(write_scenario(tmp_path, small_dumbbell()))
    proc = cli("estimate", scenario, "-o", str(tmp_path / "l"), "--method", "links", "-j", "1", "--validate")
    assert proc.returncode == 0, proc.stderr
    assert "Estimate (links) against the packet level" in proc.stdout
    assert load(tmp_path / "l").estimated_by == "links"
    wrong = cli("estimate", scenario, "-o", str(tmp_path / "f"), "-j", "2")
    assert wrong.returncode == 2 and "only the links method runs problems" in wrong.stderr
    for bad in (["--epsilon", "1"], ["--epsilon", "x"], ["--method", "fluid", "--epsilon", "0.1"]):
        proc = cli("estimate", scenario, "-o", str(tmp_path / "e"), *bad)
        assert proc.returncode == 2 and "--epsilon" in proc.stderr, (bad, proc.stderr)


def twin_chains(k: int = 2) -> dict:
    """`k` separate two-hop chains (1 Gb/s, then 100 Mb/s), each with the same 40 flows: their
    links' problems are alike, chain by chain."""
    nodes, links, flows = [], [], []
    for c in range(k):
        nodes += [
            {"name": f"a{c}", "kind": "host"},
            {"name": f"r{c}", "kind": "router"},
            {"name": f"b{c}", "kind": "host"},
        ]
        links += [
            {"a": f"a{c}", "b": f"r{c}", "rate": "1Gbps", "delay": "1ms"},
            {"a": f"r{c}", "b": f"b{c}", "rate": "100Mbps", "delay": "1ms"},
        ]
        flows += [
            {"src": f"a{c}", "dst": f"b{c}", "start": 0.01 * i, "size": 2000 + 37_000 * (i % 7)} for i in range(40)
        ]
    return {
        "name": "twin-chains",
        "seed": 1,
        "duration": "1s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "queues": {"router": {"kind": "droptail", "limit_packets": 400}},
        "workload": [{"kind": "flows", "flows": flows}],
    }


def test_links_alike_share_one_problem_and_the_others_draw_from_it(tmp_path, monkeypatch):
    """Two chains with the same flows: with clustering (and a pool of one link's 40 flows) one
    chain's two links run and the other chain's flows draw their delays from them; each chain's
    mean FCT stays within 10% of every link running (they are the same flows), and the draw is
    the same on 1 and 2 processes. With the default pool, 40 flows a link are too few for one
    link to stand for two: both run."""
    every = estimate_to(twin_chains(), tmp_path / "every", method="links", jobs=1, epsilon=0)
    pooled = estimate_to(twin_chains(), tmp_path / "pooled", method="links", jobs=1)
    assert pooled.meta["estimate"]["problems"] == 4 + 1 and pooled.meta["estimate"]["clusters"] == 2
    monkeypatch.setattr(linkclusters, "POOL_FLOWS", 40)
    one = estimate_to(twin_chains(), tmp_path / "one", method="links", jobs=1)
    estimate_to(twin_chains(), tmp_path / "two", method="links", jobs=2)
    assert every.meta["estimate"]["problems"] == 4 + 1 and one.meta["estimate"]["problems"] == 2 + 1
    assert one.meta["estimate"]["busy_links"] == 4 and one.meta["estimate"]["epsilon"] == 0.1
    assert (tmp_path / "one" / "flows.parquet").read_bytes() == (tmp_path / "two" / "flows.parquet").read_bytes()
    chain = pl.col("src").str.slice(1).cast(pl.Int64)
    means = {
        n: r.flows.group_by(chain.alias("c")).agg(pl.col("fct_s").mean()).sort("c")["fct_s"].to_list()
        for n, r in (("every", every), ("one", one))
    }
    assert means["every"][0] > 1.2 * every.flows["ideal_fct_s"].mean(), (
        "the queue must delay the flows, else this tests nothing"
    )
    for got, want in zip(means["one"], means["every"], strict=True):
        assert got == pytest.approx(want, rel=0.10), means


def small_leaf_spine() -> dict:
    """16 hosts at 10 Gb/s under 4 leaves, 2 spines at 40 Gb/s, web-search flows at 50%."""
    return {
        "name": "small-leaf-spine",
        "seed": 1,
        "duration": "20ms",
        "topology": {
            "kind": "leaf_spine",
            "leaves": 4,
            "hosts_per_leaf": 4,
            "spines": 2,
            "host_rate": "10Gbps",
            "fabric_rate": "40Gbps",
            "host_delay": "1us",
            "fabric_delay": "1us",
        },
        "queues": {"router": {"kind": "droptail", "limit_packets": 100}},
        "transport": {"iw": 10, "min_rto": "1ms"},
        "workload": [{"kind": "poisson", "load": 0.5, "sizes": {"kind": "cdf", "name": "websearch"}}],
    }


def test_links_batched_or_not_gives_the_same_bytes(tmp_path, monkeypatch):
    """Link problems side by side in one run (`linkbatch`) finish as each would alone: the same
    estimate as one run per problem, on a 16-host leaf-spine."""
    from fctlab.tools import linkbatch

    spec = small_leaf_spine()
    together = estimate_to(spec, tmp_path / "together", method="links", jobs=2, epsilon=0)
    monkeypatch.setattr(linkbatch, "BATCH_PROBLEMS", 1)
    apart = estimate_to(spec, tmp_path / "apart", method="links", jobs=2, epsilon=0)
    stats = apart.meta["estimate"]
    assert stats["runs"] == stats["problems"] - 1 + stats["solo_runs"] > 3 * together.meta["estimate"]["runs"]
    assert (tmp_path / "together" / "flows.parquet").read_bytes() == (tmp_path / "apart" / "flows.parquet").read_bytes()


def test_validate_duration_validates_a_shortened_copy_and_says_so(tmp_path):
    """`--validate-duration D`: OUT holds the whole scenario's estimate (no packet level run on
    it), OUT/copy the estimate and packet level of a copy whose flows arrive for D, and the
    error table opens by saying it was measured on that copy; a copy that would measure no flow
    is refused."""
    scenario = str(write_scenario(tmp_path, small_dumbbell()))
    out = tmp_path / "v"
    proc = cli("estimate", scenario, "-o", str(out), "--validate-duration", "200ms")
    assert proc.returncode == 0, proc.stderr
    assert "Measured on a copy of the scenario whose flows arrive for 200ms" in proc.stdout
    assert not (out / "packet").exists() and (out / "copy" / "packet" / "flows.parquet").exists()
    whole, copy = load(out), load(out / "copy")
    assert copy.flows["start_s"].max() < 0.2 <= whole.flows["start_s"].max()
    assert load(out / "copy" / "packet").flows.height == copy.flows.height
    assert (out / "copy" / "validation.md").read_text().splitlines()[2].startswith("Measured on a copy")
    short = cli("estimate", scenario, "-o", str(tmp_path / "n"), "--validate-duration", "50ms")
    assert (
        short.returncode == 2
        and "the copy would measure no flow" in short.stderr
        and "measure_from (100ms)" in short.stderr
    )
