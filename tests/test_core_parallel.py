"""A scenario cut into partitions (`[parallel]`, docs/parallel.md) through the package and the CLI:
the same bytes in every table on 1, 2 and 4 threads, the run's figures in meta.json, clear errors."""

from __future__ import annotations

import json

import pytest

import fctlab
from fctlab.errors import ScenarioError
from realcore import cli, fake  # noqa: F401  (fake: the compiled core)

TABLE_FILES = ("flows.parquet", "links.parquet")


def fat_tree(partitions: int) -> dict:
    """A k = 4 fat tree with ECMP and 8-packet buffers under Poisson arrivals: drops, retransmissions
    and flows between pods, so that packets cross every cut."""
    return {
        "name": "fat-tree-parallel",
        "seed": 5,
        "duration": "30ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "50us"},
        "routing": {"ecmp": True},
        "queues": {"router": {"kind": "droptail", "limit_packets": 8}},
        "transport": {"iw": 10, "min_rto": "2ms"},
        "workload": [{"kind": "poisson", "load": 0.5, "sizes": {"kind": "cdf", "name": "rc3-internet"}}],
        "parallel": {"partitions": partitions},
    }


def test_four_partitions_write_the_same_bytes_on_one_two_and_four_threads(tmp_path):
    spec = fat_tree(4)
    for threads in (1, 2, 4):
        fctlab.run_to(spec, tmp_path / str(threads), threads=threads)
    for name in TABLE_FILES:
        one = (tmp_path / "1" / name).read_bytes()
        for threads in (2, 4):
            assert (tmp_path / str(threads) / name).read_bytes() == one, f"{name}: {threads} threads differ from 1"
    a = fctlab.load(tmp_path / "1")
    # Non-trivial tables: otherwise equality proves nothing.
    assert a.flows.height > 50 and a.flows["retx_bytes"].sum() > 0
    assert a.links["drops_pkts"].sum() > 0
    meta = [json.loads((tmp_path / str(t) / "meta.json").read_text()) for t in (1, 2, 4)]
    assert [m["threads"] for m in meta] == [1, 2, 4]
    assert all(m["partitions"] == 4 and m["handed_over_pkts"] > 0 and m["windows"] > 0 for m in meta)
    assert meta[0]["lookahead_s"] == pytest.approx(50e-6 + 40 * 8 / 1e9)


def test_the_cli_takes_threads_and_refuses_a_bad_count(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(fat_tree(2)))
    done = cli("run", str(path), "-o", str(tmp_path / "two"), "-q", "--threads", "2")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "two" / "meta.json").read_text())["threads"] == 2
    done = cli("run", str(path), "-o", str(tmp_path / "zero"), "-q", "--threads", "0")
    assert done.returncode != 0 and "--threads" in done.stderr and "got 0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_one_partition_is_the_whole_network():
    """`partitions = 1` runs the whole network in one loop: the same flows table as no table."""
    spec = fat_tree(1)
    whole = dict(spec)
    del whole["parallel"]
    assert fctlab.run(spec).flows.equals(fctlab.run(whole).flows)


@pytest.mark.parametrize(
    ("parallel", "field", "text"),
    [
        ({"partitions": 0}, "parallel.partitions", "got 0"),
        ({"partitions": 2000}, "parallel.partitions", "got 2000"),
        ({"partitions": 2, "threads": 0}, "parallel.threads", "got 0"),
        ({"partitions": 2, "cores": 2}, "parallel", "cores"),
    ],
)
def test_bad_parallel_tables_are_refused_naming_the_field(parallel, field, text):
    spec = fat_tree(2)
    spec["parallel"] = parallel
    with pytest.raises(ScenarioError) as e:
        fctlab.run(spec)
    assert field in str(e.value) and text in str(e.value), str(e.value)


def test_threads_must_be_a_whole_number():
    with pytest.raises(ScenarioError, match="threads: expected a whole number >= 1, got 0"):
        fctlab.run(fat_tree(2), threads=0)
