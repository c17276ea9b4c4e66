"""The HPCC paper's setup (`experiments/hpcc`): the fat tree is the authors' `mix/fat.txt`, and the
slowdown tables are computed as their `analysis/fct_analysis.py` computes them."""

from __future__ import annotations

import json

from realcore import paper_code

topology = paper_code("hpcc", "topology")
slowdown = paper_code("hpcc", "slowdown")


def test_the_committed_graph_is_the_generator_s():
    assert topology.FILE.read_text() == topology.text()
    g = json.loads(topology.FILE.read_text())
    hosts = [n for n in g["nodes"] if n["kind"] == "host"]
    assert (len(g["nodes"]), len(hosts), len(g["links"])) == (376, 320, 480)


def test_the_fat_tree_has_the_paper_s_shape():
    links = topology.links()
    degree: dict[int, int] = {}
    for a, b, _ in links:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    # Servers 1 link, ToRs 16 down + 4 up, aggregation 4 down + 4 up, cores 5 (one per pod).
    assert all(degree[s] == 1 for s in range(320))
    assert all(degree[t] == 20 for t in range(320, 340))
    assert all(degree[a] == 8 for a in range(340, 360))
    assert all(degree[c] == 5 for c in range(360, 376))
    assert {r for _, _, r in links[:320]} == {"100Gbps"} and {r for _, _, r in links[320:]} == {"400Gbps"}


def test_groups_are_five_percent_of_the_flows_sorted_by_size_with_the_authors_percentiles():
    # 100 flows: sizes 1..100, slowdown = size / 10 (at least 1).
    sizes = list(range(100, 0, -1))
    slow = [s / 10 for s in sizes]
    g = slowdown.groups(sizes, slow)
    assert len(g) == 20 and all(x.count == 5 for x in g)
    # The last group: sizes 96..100, slowdowns 9.6..10.0; sorted[int(5 p)] = [2], [4], [4].
    assert (g[-1].size, g[-1].p50, g[-1].p95, g[-1].p99) == (100, 9.8, 10.0, 10.0)
    # The first: sizes 1..5, slowdowns below 1 count as 1.
    assert (g[0].size, g[0].p50) == (5, 1.0)


def test_ranges_follow_the_paper_s_axis():
    got = slowdown.by_range([1_000, 19_999, 20_000, 6_000_000], [2.0, 4.0, 3.0, 0.5], 0.5)
    assert got["<20K"] == (4.0, 2) and got["20K-73K"] == (3.0, 1) and got[">5M"] == (1.0, 1)
    assert got["1M-5M"] == (None, 0)


def test_the_reference_comparison_reads_fct_txt_as_the_authors_script(tmp_path):
    reference = paper_code("hpcc", "reference")
    lines = [
        # sip dip sport dport size start fct standalone
        "0b000001 0b000101 10000 100 3000 0 2000 1000",
        "0b000001 0b000101 10001 200 3000 0 9000 1000",  # incast (port 200): left out
        "0b000001 0b000101 10002 100 1000 0 500 1000",  # slowdown below 1: 1
        "0b000001 0b000101 10003 100 9000 0 4000 1000",  # the largest: left out
    ]
    f = tmp_path / "fct.txt"
    f.write_text("\n".join(lines) + "\n")
    assert reference.read_fct(f) == ([1000, 3000], [0.5, 2.0])
    g = slowdown.groups(*reference.read_fct(f), step=50)
    text, within, total = reference.table(g, g, "x")
    assert (within, total) == (6, 6) and "| 0.50 | 1000 |" in text and "| 1.00 | 3000 |" in text


def test_the_paper_table_puts_both_sides_beside_the_paper_s_p95():
    """reference.py --paper: the paper's value per range, and each side's p95 with its difference."""
    reference = paper_code("hpcc", "reference")
    # One flow per range, each at twice the paper's HPCC value at 30% (the simulator's side),
    # fctlab's at the paper's value.
    sizes = [10_000, 50_000, 100_000, 500_000, 2_000_000, 9_000_000]
    paper = slowdown.PAPER_P95["hpcc"][0.3]
    text = reference.paper_table((sizes, [2 * v for v in paper]), (sizes, paper), "hpcc", 0.3)
    lines = text.splitlines()
    assert lines[2] == "| paper | 1.3 | 1.8 | 2.3 | 3.2 | 4.1 | 4.3 |"
    assert lines[3].startswith("| simulator | 2.60 (+100%) | 3.60 (+100%)")
    assert lines[4].startswith("| fctlab | 1.30 (+0%) | 1.80 (+0%)")


def test_every_fig11_point_keeps_the_fabric_s_queue_pairs_and_packet_sizes():
    """A transport's keys join `fat-tree.toml`'s `[transport]`: every run is a queue pair with
    1,000-byte payloads and HPCC's 48-byte header (TIMELY's 8-byte timestamp on top), whatever
    protocol it runs."""
    from fctlab.scenario import read_scenario, with_overrides

    fig11 = paper_code("hpcc", "fig11.experiment")
    base, _ = read_scenario(topology.FILE.parent / "fat-tree.toml")
    points = fig11.points()
    assert len(points) == 16
    for name, over in points:
        t = with_overrides(base, over)["transport"]
        assert (t["queue_pair"], t["mss"], t["min_rto"]) == (True, 1000, "1ms"), name
        assert t["header"] == (56 if name.endswith("timely") else 48), name
        assert t.get("protocol", "tcp") == name.rsplit("-", 1)[1].replace("dctcp", "tcp"), name
