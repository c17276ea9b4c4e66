"""A scenario cut into partitions (`[parallel]`, docs/parallel.md) through the package and the CLI:
the same bytes in every table on 1, 2 and 4 threads, the run's figures in meta.json, what a run
uses when asked for more partitions or threads than it can use, the time a draining run takes,
signals, clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fctlab
from fctlab import cli as fctlab_cli
from fctlab.cli.options import UsageError
from fctlab.errors import ScenarioError
from fctlab.run import MAX_THREADS, core
from realcore import cli, fake, wait_for  # noqa: F401  (fake: the compiled core)

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
    cores = os.cpu_count() or 1
    assert [m["threads_asked"] for m in meta] == [1, 2, 4]
    assert [m["threads"] for m in meta] == [min(t, cores) for t in (1, 2, 4)]
    assert all(m["partitions"] == 4 and m["handed_over_pkts"] > 0 and m["windows"] > 0 for m in meta)
    assert meta[0]["lookahead_s"] == pytest.approx(50e-6 + 40 * 8 / 1e9)
    # Windows the first thread ran alone (measured faster: docs/parallel.md), never more than all.
    assert meta[0]["solo_windows"] == 0, "one thread has nobody to lend it partitions"
    assert all(0 <= m["solo_windows"] <= m["windows"] for m in meta)


def test_the_cli_takes_threads_and_refuses_a_bad_count(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(fat_tree(2)))
    done = cli("run", str(path), "-o", str(tmp_path / "two"), "-q", "--threads", "2")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "two" / "meta.json").read_text())["threads"] == 2
    done = cli("run", str(path), "-o", str(tmp_path / "zero"), "-q", "--threads", "0")
    assert done.returncode != 0 and "--threads" in done.stderr and "got 0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("flag", "value", "accepted"),
    [
        ("--threads", "18446744073709551616", "from 1 to 1024"),
        ("--threads", "1025", "from 1 to 1024"),
        ("--seed", "18446744073709551616", "from 0 to 2^64 - 1"),
        ("--seed", "-1", "from 0 to 2^64 - 1"),
    ],
)
def test_an_integer_flag_beyond_what_the_core_takes_is_one_line_naming_it(tmp_path, flag, value, accepted):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(fat_tree(2)))
    done = cli("run", str(path), "-o", str(tmp_path / "out"), "-q", flag, value)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert flag in done.stderr and value in done.stderr and accepted in done.stderr, done.stderr


def test_every_integer_flag_into_the_core_is_bounded():
    """--packets and --instructions-hops reach the core as 64-bit counts, --seed as its u64, and
    --threads is bounded by the most partitions: each one's type refuses what would overflow."""
    for flag, beyond in [("--packets", 2**63), ("--instructions-hops", 2**63)]:
        with pytest.raises(UsageError, match=f"{flag}: expected a whole number from 1 to 2\\^63 - 1"):
            fctlab_cli.parser().parse_args(["bench", flag, str(beyond)])
    assert MAX_THREADS == core().MAX_PARTITIONS
    with pytest.raises(UsageError, match=f"from 1 to {MAX_THREADS}, got {MAX_THREADS + 1}"):
        fctlab_cli.parser().parse_args(["run", "s.toml", "-o", "out", "--threads", str(MAX_THREADS + 1)])
    with pytest.raises(ScenarioError, match=f"from 1 to {MAX_THREADS}, got {2**64}"):
        fctlab.run(fat_tree(2), threads=2**64)


def test_more_partitions_than_the_network_can_use_are_cut_to_what_it_can(tmp_path):
    """1,024 partitions of a k = 4 fat tree: one per edge switch at most (8), none empty; the run
    says so on stderr and in meta.json, and takes about as long as the 8 partitions it is."""
    spec = fat_tree(1024)
    spec["duration"] = "10ms"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    t0 = time.monotonic()
    done = cli("run", str(path), "-o", str(tmp_path / "out"), "-q")
    took = time.monotonic() - t0
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["partitions_asked"] == 1024 and meta["partitions"] == 8, meta
    assert all(e > 0 for e in meta["partition_events"]), "no partition is empty"
    notes = [line for line in done.stderr.splitlines() if line.startswith("note: parallel:")]
    assert len(notes) == 1 and "1024 asked for, 8 used" in notes[0], done.stderr
    # 1,016 empty partitions took 36 s against 0.28 s for the whole network.
    assert took < 30, f"{took:.1f} s"


def test_threads_beyond_the_cores_or_partitions_are_not_used_and_the_run_says_so(tmp_path):
    cores = os.cpu_count() or 1
    path = tmp_path / "s.json"
    path.write_text(json.dumps(fat_tree(2)))
    done = cli("run", str(path), "-o", str(tmp_path / "out"), "-q", "--threads", "64")
    assert done.returncode == 0, done.stderr
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert (meta["threads_asked"], meta["threads"]) == (64, min(2, cores))
    assert "note: parallel: threads = 64 asked for" in done.stderr and "one per partition (2)" in done.stderr


def test_threads_on_a_scenario_without_partitions_say_it_runs_whole(tmp_path):
    """`--threads 4` without a [parallel] table runs the whole network in one loop, as the
    scenario defines it, and says so, with how to cut it."""
    spec = fat_tree(1)
    del spec["parallel"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    done = cli("run", str(path), "-o", str(tmp_path / "out"), "-q", "--threads", "4")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1, done.stderr
    assert "threads = 4 asked for, 1 used" in notes[0] and "partitions = N" in notes[0], notes
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert (meta["partitions"], meta["threads"], meta["threads_asked"]) == (1, 1, 4)
    # Without --threads and without a table: nothing said, nothing added to meta.json.
    done = cli("run", str(path), "-o", str(tmp_path / "plain"), "-q")
    assert "note:" not in done.stderr
    assert "threads" not in json.loads((tmp_path / "plain" / "meta.json").read_text())


def test_a_partitioned_run_that_drains_takes_about_as_long_as_the_whole_network():
    """One 100 KB flow over links that lose 99% of packets: a 2 ms run drains to its 2 s limit in
    steps of 10 us of simulated time, each of which started the partitions' threads again (28.6 s
    in two partitions against 0.21 s whole)."""
    spec = {
        "seed": 1,
        "duration": "2ms",
        "max_time": "2s",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us"},
        "loss": [{"link": "*", "p": 0.99}],
        "workload": [{"kind": "flows", "flows": [{"src": "h0", "dst": "h15", "start": 0, "size": "100KB"}]}],
    }
    took = {}
    for partitions in (1, 2):
        t0 = time.monotonic()
        r = fctlab.run({**spec, "parallel": {"partitions": partitions}})
        took[partitions] = time.monotonic() - t0
        assert r.meta["sim_time_s"] == pytest.approx(2.0)
    assert took[2] < 10 * took[1] + 1.0, took


def _blocking_plugin(tmp_path: Path) -> Path:
    """A host law whose first ACK blocks in `time.sleep` after touching `blocked` beside it."""
    plugin = tmp_path / "block.py"
    plugin.write_text(
        "import time\nfrom pathlib import Path\n\n\nclass Block:\n"
        "    def __init__(self, conn):\n        pass\n\n"
        "    def on_ack(self, w, now, acked, srtt):\n"
        "        Path(__file__).with_name('blocked').touch()\n        time.sleep(3600)\n\n"
        "    def on_congestion(self, w, now, flight):\n        pass\n"
    )
    return tmp_path / "blocked"


@pytest.mark.parametrize(
    ("signum", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
)
@pytest.mark.parametrize("partitions", [1, 2])
def test_a_signal_stops_a_run_held_in_a_blocked_hook(tmp_path, signum, code, word, partitions):
    """Ctrl-C and SIGTERM stop a run whose plug-in hook blocks, whole or in partitions (there on a
    thread of its own, even with --threads 1), with the same one-line error and exit code."""
    blocked = _blocking_plugin(tmp_path)
    spec = fat_tree(partitions)
    spec["transport"] = {"cc": "python:block.py:Block"}
    (tmp_path / "s.json").write_text(json.dumps(spec))
    cmd = [sys.executable, "-m", "fctlab.cli", "run", "s.json", "-o", "out", "-q", "--threads", "1"]
    env = {k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}
    # A session of its own, and Ctrl-C's default handling whatever this process ignores.
    proc = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        wait_for(blocked.exists, 120, "the hook to block")
        time.sleep(0.2)
        proc.send_signal(signum)
        rc = proc.wait(20)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert rc == code, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    # The rows kept, if any finished before the signal, are named after a semicolon.
    assert err.strip() == f"error: {word}" or err.startswith(f"error: {word}; "), err


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
    with pytest.raises(ScenarioError, match="threads: expected a whole number from 1 to 1024, got 0"):
        fctlab.run(fat_tree(2), threads=0)


def test_partitions_beyond_the_memory_are_refused_not_aborted(tmp_path):
    """A leaf-spine of 900,000 hosts asked for 100 partitions (9 used: one per leaf) needs 0.6 GiB
    per partition beside the whole network: under a 6 GiB address-space limit `fctlab validate`
    refuses it with the estimate, naming parallel.partitions (it aborted on an allocation, and
    needed more than 12 GiB with its 91 empty partitions)."""
    flows = [
        {"src": f"h{i * 100_000}", "dst": f"h{(i + 4) % 9 * 100_000 + 5}", "start": 0, "size": 1000} for i in range(9)
    ]
    spec = {
        "duration": "1ms",
        "topology": {"kind": "leaf_spine", "hosts_per_leaf": 100_000},
        "workload": [{"kind": "flows", "flows": flows}],
        "parallel": {"partitions": 100},
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(spec))

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    env = {k: v for k, v in os.environ.items() if k != "FCTLAB_CORE"}
    done = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        preexec_fn=limit,  # noqa: PLW1509
    )
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, line
    assert "parallel.partitions" in line and "9 partitions, each with its copy of the 1800072 links" in line, line
    assert "under its address-space limit of 6.0 GiB" in line, line
