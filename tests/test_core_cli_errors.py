"""Bad input through the `fctlab` command, refused by the compiled core or the front end.

Each case runs `fctlab run` in a fresh interpreter and must exit 2 with exactly one line on
stderr, "error: ...", naming the field and the value; no traceback, nothing on stdout, and no
results directory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from realcore import cli, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)


def with_sizes(sizes: dict) -> dict:
    spec = small_dumbbell()
    spec["workload"][0]["sizes"] = sizes
    return spec


def with_topology(**fields) -> dict:
    spec = small_dumbbell()
    spec["topology"].update(fields)
    return spec


def with_load(load: float) -> dict:
    spec = small_dumbbell()
    spec["workload"][0]["load"] = load
    return spec


# (case id, scenario dict, or a raw file text for syntax errors, then the fragments the one line must hold)
CASES = [
    ("unknown-field", with_topology(buffer="1MB"), ["topology.buffer", "unknown field `buffer`"]),
    (
        "negative-rate",
        with_topology(bottleneck_rate="-10Mbps"),
        ["topology.bottleneck_rate", "expected a rate > 0", '"-10Mbps"'],
    ),
    ("negative-rate-number", with_topology(access_rate=-1e9), ["topology.access_rate", "> 0", "-1000000000"]),
    ("load-one", with_load(1.0), ["workload[0].load", "(0, 1)", "got 1"]),
    ("load-above-one", with_load(1.5), ["workload[0].load", "got 1.5"]),
    ("empty-cdf", with_sizes({"kind": "cdf", "points": []}), ["workload[0].sizes.points", "got none"]),
    (
        "missing-cdf-file",
        with_sizes({"kind": "cdf", "file": "no-such-cdf.txt"}),
        ["workload[0].sizes.file", "no-such-cdf.txt", "cannot read"],
    ),
    (
        "unknown-topology-kind",
        small_dumbbell(topology={"kind": "ring", "hosts": 3}),
        ["topology", "unknown variant `ring`", "dumbbell"],
    ),
    ("toml-syntax", 'seed = 1\nduration = "1s\n', ["syntax.toml", "TOML syntax error", "line 2"]),
    (
        "handshake-rcp-without-fixed-rate",
        small_dumbbell(transport={"protocol": "rcp", "handshake": False}),
        ["transport.handshake", "got false", "fixed_rate"],
    ),
    (
        "fallback-tcp",
        small_dumbbell(transport={"protocol": "tcp", "fallback": True}),
        ["transport.fallback", 'only meaningful with protocol = "rcp" or "rtcp"'],
    ),
    (
        "fallback-fixed-rate",
        small_dumbbell(transport={"protocol": "rcp", "fixed_rate": "1Mbps", "fallback": True}),
        ["transport.fallback", "got true", "fixed_rate"],
    ),
    (
        "rcp-theta-without-unknown-rate",
        small_dumbbell(queues={"router": {"kind": "rcp", "theta": 2}}),
        ["queues.router.theta", "unknown-rate"],
    ),
    (
        "unknown-queue-kind",
        small_dumbbell(queues={"router": {"kind": "codel"}}),
        ["queues.router", "unknown variant `codel`", "`droptail`", "`pfabric`", "`rcp-tcp`", "`piqi`"],
    ),
    (
        "pfabric-without-limit",
        small_dumbbell(queues={"router": {"kind": "pfabric"}}),
        ["queues.router.limit", "missing", "give `limit` or `limit_packets`"],
    ),
    (
        "rcp-theta-zero",
        small_dumbbell(queues={"router": {"kind": "rcp", "variant": "unknown-rate", "theta": 0}}),
        ["queues.router.theta", "got 0"],
    ),
    (
        "link-rate-unknown-link",
        small_dumbbell(link_rate=[{"link": "nowhere", "at": "1s", "rate": "1Mbps"}]),
        ["link_rate[0].link", "nowhere"],
    ),
    (
        "link-rate-zero-rate",
        small_dumbbell(link_rate=[{"link": "bottleneck", "at": "1s", "rate": 0}]),
        ["link_rate[0].rate", "got 0"],
    ),
    (
        "series-unknown-workload",
        small_dumbbell(output={"series": {"interval": "1ms", "workloads": [5]}}),
        ["output.series.workloads[0]", "no workload entry 5"],
    ),
    (
        "handshake-tcp",
        small_dumbbell(transport={"protocol": "tcp", "handshake": False}),
        ["transport.handshake", 'only meaningful with protocol = "rcp"'],
    ),
    (
        "rc3-window-unknown",
        small_dumbbell(transport={"protocol": "rc3", "rc3_window": "ns3"}),
        ["transport.rc3_window", '"ns3"', 'expected "pipe" or "span"'],
    ),
    (
        "rc3-window-with-tcp",
        small_dumbbell(transport={"protocol": "tcp", "rc3_window": "span"}),
        ["transport.rc3_window", 'only meaningful with protocol = "rc3"'],
    ),
    (
        "abc-zero",
        small_dumbbell(transport={"abc": 0}),
        ["transport.abc", "expected 1 <= abc <= 64 segments per ACK", "got 0"],
    ),
    (
        "go-back-n-on-a-tcp-connection",
        small_dumbbell(transport={"recovery": "go_back_n"}),
        ["transport.recovery", 'expected "selective" for a TCP connection', 'got "go_back_n"', "queue_pair = true"],
    ),
    (
        "recovery-unknown",
        small_dumbbell(transport={"queue_pair": True, "recovery": "go_back_0"}),
        ["transport.recovery", 'expected "go_back_n" or "selective"', 'got "go_back_0"'],
    ),
    (
        "nack-interval-without-go-back-n",
        small_dumbbell(transport={"queue_pair": True, "recovery": "selective", "nack_interval": "100us"}),
        ["transport.nack_interval", 'expected recovery = "go_back_n"'],
    ),
]


def with_flow(size, transport: dict | None = None, **spec) -> dict:
    """SMALL_DUMBBELL with one flow of `size` bytes instead of its Poisson arrivals."""
    flows = [{"src": "l0", "dst": "r0", "start": 0, "size": size}]
    return small_dumbbell(workload=[{"kind": "flows", "flows": flows}], transport=transport or {}, **spec)


# Values beyond what the core's integers hold (crates/fctlab-core/src/limits.rs): each used to
# saturate, wrap, loop or abort; each is now refused where it is read.
LIMIT_CASES = [
    # 1e9 s saturated at 2^64 ps: a flow finished in 85 us with an ideal FCT of 9.2e6 s.
    (
        "time-beyond-the-clock",
        with_topology(bottleneck_delay="1e9s"),
        ["topology.bottleneck_delay", "expected a duration <= 1e6 s (11.6 days)", 'got "1e9s"'],
    ),
    ("max-time-beyond-the-clock", small_dumbbell(max_time=1e7), ["`max_time`", "<= 1e6 s", "got 10000000"]),
    # 2^32 + 40 wrapped to a 40-byte header.
    (
        "header-wraps",
        small_dumbbell(transport={"header": 4294967336}),
        ["transport.header", "expected a header <= 65536 B (64 KiB)", "got 4294967336"],
    ),
    # 2^63 bit/s simulated, then the results step died with a traceback.
    (
        "rate-2-pow-63",
        with_topology(bottleneck_rate=2**63),
        ["topology.bottleneck_rate", "expected a rate <= 1e15 bit/s (1000 Tbps)", "got 9.223372036854776e18"],
    ),
    ("rate-in-tbps", with_topology(access_rate="2000Tbps"), ["topology.access_rate", "<= 1e15 bit/s", '"2000Tbps"']),
    ("rate-below-one-bit", with_topology(access_rate=0.2), ["topology.access_rate", ">= 1 bit/s", "got 0.2"]),
    ("size-beyond-a-petabyte", with_flow(2**63 - 1), ["workload[0].flows[0].size", "<= 1e15 B (1 PB)", "9.223"]),
    # Arrivals whose mean gap is below the clock's picosecond used to loop forever.
    (
        "zero-mean-gap",
        small_dumbbell(
            workload=[{"kind": "poisson", "rate": 1e13, "stop": "1ns", "sizes": {"kind": "fixed", "size": 100}}]
        ),
        ["workload[0].rate", "rate = 10000000000000 gives a mean gap between arrivals of 1e-13 s", "at least 1 ps"],
    ),
    # Memory: estimated before it is allocated.
    (
        "series-every-picosecond",
        small_dumbbell(output={"series": {"interval": "1ps", "links": ["bottleneck"]}}),
        ["output.series.interval", "1.502e15 series rows", "one every 1e-12 s", "expected at most 16.0 GiB per run"],
    ),
    (
        "rc3-flow-of-4-terabytes",
        with_flow("4000GB", {"protocol": "rc3"}, queues={"router": {"kind": "prio", "limit_packets": 100}}),
        ["workload[0]", "RC3 flow 0's 2739726028 segments", "expected at most 16.0 GiB per run"],
    ),
    (
        "rc3-long-lived",
        small_dumbbell(
            transport={"protocol": "rc3"},
            queues={"router": {"kind": "prio", "limit_packets": 100}},
            workload=[{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}]}],
        ),
        ["workload[0]", "RC3 flow 0's 4294967295 segments (its long-lived writer's one write", "GiB of memory"],
    ),
    # Without `stop` a long-lived flow stops at the duration: starting after it, it would send until max_time.
    (
        "long-lived-after-the-duration",
        small_dumbbell(workload=[{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "2s"}]}]),
        ["workload[0].flows[0].start", "expected a start before the duration 0.500000000s", "without `stop`", "got 2"],
    ),
    # Segment indices are u32: 1e15 B at MSS 1460 is 6.8e11 segments.
    (
        "flow-beyond-2-pow-32-segments",
        with_flow("1000000GB"),
        ["workload[0]", "its 1000000000000000 B are 684931506850 segments of 1460 B", "at most 4294967295"],
    ),
]

# TOML's nan and inf reach the core as JSON's missing NaN and Infinity: named, not "expected value".
TOML_BASE = """\
duration = "1s"
[topology]
kind = "dumbbell"
hosts_per_side = 2
bottleneck_rate = "1Gbps"
bottleneck_delay = "1ms"
access_rate = {access_rate}
[[workload]]
kind = "poisson"
load = {load}
sizes = {{ kind = "fixed", size = 1000 }}
"""
NON_FINITE_CASES = [
    ("load-nan", {"load": "nan"}, ["workload[0].load", "expected a finite number, got NaN"]),
    ("rate-inf", {"access_rate": "inf"}, ["topology.access_rate", "expected a finite number, got Infinity"]),
    ("rate-minus-inf", {"access_rate": "-inf"}, ["topology.access_rate", "expected a finite number, got -Infinity"]),
]


@pytest.mark.parametrize("case, scenario, wanted", LIMIT_CASES, ids=[c[0] for c in LIMIT_CASES])
def test_values_beyond_the_limits_are_one_line_naming_field_and_value(case, scenario, wanted, tmp_path):
    """`validate` refuses the value (exit 2, one line) before anything runs or allocates."""
    path = tmp_path / f"{case}.json"
    path.write_text(json.dumps(scenario))
    line = one_line(cli("validate", str(path)))
    for w in wanted:
        assert w in line, f"{w!r} not in {line!r}"


@pytest.mark.parametrize("case, fields, wanted", NON_FINITE_CASES, ids=[c[0] for c in NON_FINITE_CASES])
def test_nan_and_infinities_in_toml_are_named(case, fields, wanted, tmp_path):
    """A TOML nan or inf is refused with the value named, not serde_json's bare "expected value"."""
    path = tmp_path / f"{case}.toml"
    path.write_text(TOML_BASE.format(**{"access_rate": '"1Gbps"', "load": 0.3, **fields}))
    line = one_line(cli("validate", str(path)))
    for w in wanted:
        assert w in line, f"{w!r} not in {line!r}"


def test_pareto_sizes_with_a_large_shape_validate(tmp_path):
    """Shape 250 made the mean NaN and `validate` loop until memory ran out; now it builds."""
    spec = with_sizes({"kind": "pareto", "shape": 250, "mean": 14600})
    path = tmp_path / "pareto-250.json"
    path.write_text(json.dumps(spec))
    done = cli("validate", str(path), timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("ok: "), done.stderr


def one_line(done) -> str:
    """The single stderr line of a failed run, after checking the failure's shape."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("case, scenario, wanted", CASES, ids=[c[0] for c in CASES])
def test_bad_scenario_is_one_line_naming_field_and_value(case, scenario, wanted, tmp_path):
    """The line names the field and the value seen."""
    if isinstance(scenario, str):
        path = tmp_path / "syntax.toml"
        path.write_text(scenario)
    else:
        path = tmp_path / f"{case}.json"
        path.write_text(json.dumps(scenario))
    line = one_line(cli("run", str(path), "-o", str(tmp_path / "out")))
    for w in wanted:
        assert w in line, f"{w!r} not in {line!r}"
    assert not (tmp_path / "out").exists(), "a refused scenario must not leave a results directory"


def test_missing_scenario_file(tmp_path):
    """A scenario path that does not exist is named."""
    missing = tmp_path / "nowhere.toml"
    line = one_line(cli("run", str(missing), "-o", str(tmp_path / "out")))
    assert "scenario file not found" in line and str(missing) in line


def test_bad_override_value_is_refused_by_the_core(tmp_path):
    """--set reaches the core, whose refusal names the overridden field; without it the file is fine."""
    path = Path(tmp_path / "ok.json")
    path.write_text(json.dumps(small_dumbbell()))
    line = one_line(cli("validate", str(path), "--set", "transport.iw=0"))
    assert "transport.iw" in line and "got 0" in line
    ok = cli("validate", str(path))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: "), ok.stderr


def _address_space_limit(gib: int):
    """A preexec_fn that caps the child's address space (what `ulimit -v` does)."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (gib << 30, gib << 30))

    return limit


def test_a_topology_beyond_the_address_space_limit_is_refused_not_aborted(tmp_path):
    """Under a 3 GiB address-space limit an Internet-2 of 10^6 hosts (3 GB at its peak) is refused
    with the count that sized it and the limit; it used to abort on an 891 MB allocation."""
    import subprocess
    import sys

    scenario = {
        "duration": "10ms",
        "topology": {"kind": "internet2-rc3", "hosts_per_router": 100_000},
        "workload": [{"kind": "flows", "flows": [{"src": "h0", "dst": "h1", "start": 0, "size": 1000}]}],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(scenario))
    done = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "run", str(path), "-o", str(tmp_path / "out"), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_address_space_limit(3),
    )
    line = one_line(done)
    assert "topology.hosts_per_router" in line and "100000 gives 1000010 nodes and 2000032 links" in line, line
    assert "under its address-space limit of 3.0 GiB" in line, line
    assert not (tmp_path / "out").exists()


def test_flows_that_arrive_faster_than_the_fabric_serves_them_are_counted_open_at_once(tmp_path):
    """Under a 3 GiB address-space limit, 2.5 x 10^6 flows arriving in 2 ms at hosts of 1 Pb/s
    over 40 Gb/s spine links all stay open (6 GB at the peak, not the 1.6 GB their count gives):
    refused with the link that holds them up; it used to validate and then abort mid-run. A
    modest scenario runs under the same limit."""
    import subprocess
    import sys

    scenario = {
        "duration": "2ms",
        "topology": {"kind": "leaf_spine", "leaves": 2, "hosts_per_leaf": 2, "spines": 2, "host_rate": "1e15bps"},
        "workload": [{"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "name": "fb-hadoop"}}],
    }
    path = tmp_path / "flood.json"
    path.write_text(json.dumps(scenario))
    modest = tmp_path / "modest.json"
    modest.write_text(json.dumps(small_dumbbell()))

    def under_3_gib(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "fctlab.cli", *args],
            capture_output=True,
            text=True,
            timeout=600,
            preexec_fn=_address_space_limit(3),
        )

    line = one_line(under_3_gib("validate", str(path)))
    assert line.startswith("error: field `workload[0]`: about "), line
    assert re.search(r'flows open at once \(link "(leaf\d->spine\d|spine\d->leaf\d)" is offered \d+', line), line
    assert "under its address-space limit of 3.0 GiB" in line, line
    ok = under_3_gib("run", str(modest), "-o", str(tmp_path / "out"), "-q")
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "out" / "flows.parquet").is_file()
