"""fctlab emulate: real processes, real UDP sockets, real time, through emulated links.

Each test runs small scenarios for real (a second or two of wall time each). The namespace
tests need root (CI runs as root); without it they are skipped with the reason, and the same
checks run on loopback. FCTs are compared with the simulation of the same scenario: the
acceptance bound of the emulation is 5% (experiments/emulated/fct-accuracy); these tests allow
10% when the processes kept up with real time, and otherwise require the processes' reports to
show that they did not (a loaded machine makes processes late; an emulation must never distort
silently).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fctlab.emulate import emulate
from fctlab.emulate.iproute import list_namespaces
from fctlab.emulate.netns import netns_available
from fctlab.errors import ScenarioError
from fctlab.run import run
from realcore import fake  # noqa: F401  (fake: the compiled core)

NETNS, WHY = netns_available()
MODES = ["loopback", pytest.param("netns", marks=pytest.mark.skipif(not NETNS, reason=f"no namespaces: {WHY}"))]

#: Protocol -> (transport, router queue).
PROTOCOLS = {
    "tcp": ({"protocol": "tcp", "cc": "newreno", "iw": 4}, {"kind": "droptail", "limit_packets": 200}),
    "rc3": ({"protocol": "rc3", "cc": "newreno", "iw": 4}, {"kind": "prio", "limit_packets": 200}),
    "rcp": ({"protocol": "rcp"}, {"kind": "rcp", "limit_packets": 200}),
}

#: The other explicit-feedback protocols: (transport, router queue).
EXPLICIT = {
    "rtcp": ({"protocol": "rtcp"}, {"kind": "rcp", "limit_packets": 200}),
    "xcp": ({"protocol": "xcp"}, {"kind": "xcp", "limit_packets": 200}),
    "jetmax": ({"protocol": "jetmax"}, {"kind": "jetmax", "limit_packets": 200}),
    "piqi": ({"protocol": "piqi"}, {"kind": "piqi", "limit_packets": 200}),
    "hpcc": ({"protocol": "hpcc", "line_rate": "100Mbps"}, {"kind": "hpcc", "limit_packets": 200}),
}


def single_flows(protocol: str, sizes: list[int], gap_s: float = 0.4) -> dict:
    """Single flows of `sizes` segments, one at a time, l0 -> r0, 10 Mb/s x 20 ms RTT."""
    transport, queue = {**PROTOCOLS, **EXPLICIT}[protocol]
    flows = [{"src": "l0", "dst": "r0", "start": f"{gap_s * i}s", "size": s * 1460} for i, s in enumerate(sizes)]
    return {
        "seed": 1,
        "duration": f"{gap_s * len(sizes)}s",
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 1,
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "10ms",
            "access_rate": "100Mbps",
            "access_delay": "0ms",
        },
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": flows}],
    }


def fell_behind(result) -> bool:
    """Whether any process of an emulation reported being more than 1 ms late at least once."""
    reports = result.meta["emulation"]["reports"]
    r = reports["router"]
    hosts = reports["hosts"]
    return bool(
        result.meta["emulation"]["warnings"]
        or r["late_1ms"]
        or r["late_arrivals"]
        or any(h["max_timer_lag_ps"] > 1e9 or h["max_start_lag_ps"] > 1e9 for h in hosts)
    )


def fcts(result) -> list[float]:
    return result.flows.sort("id")["fct_s"].to_list()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_flows_complete_with_the_simulated_fct(mode, protocol):
    """TCP, RC3 and RCP flows of 1-100 segments complete in emulation within 10% of simulation,
    every byte delivered, through the same queue discipline (RC3's low priorities in DSCP)."""
    spec = single_flows(protocol, [1, 10, 100])
    sim = run(spec)
    emu = emulate(spec, mode=mode)
    assert emu.meta["emulation"]["mode"] == mode
    assert emu.flows["delivered_bytes"].to_list() == sim.flows["delivered_bytes"].to_list()
    # Within 10% whenever the processes kept up with real time; a loaded machine may not, and
    # then their reports must say so (never a silent distortion).
    warned = fell_behind(emu)
    for size, s, e in zip([1, 10, 100], fcts(sim), fcts(emu), strict=True):
        assert e is not None, f"{protocol}: the {size}-segment flow did not complete"
        assert abs(e - s) <= 0.10 * s or warned, (
            f"{protocol}, {size} segments: emulated {e * 1e3:.3f} ms, simulated {s * 1e3:.3f} ms, and no warning"
        )
    reports = emu.meta["emulation"]["reports"]
    assert reports["router"]["bad_datagrams"] == 0
    assert all(h["bad_datagrams"] == 0 for h in reports["hosts"])
    roles = sorted(p["role"] for p in emu.meta["emulation"]["processes"])
    assert roles == ["host", "host", "router"]
    assert all(p["cpu_s"] > 0 for p in emu.meta["emulation"]["processes"])


@pytest.mark.parametrize("protocol", list(EXPLICIT))
def test_every_explicit_protocol_runs_for_real(protocol):
    """R-TCP, XCP, JetMax, PIQI-RCP and HPCC: their headers (HPCC's telemetry records too) cross
    the wire format both ways, the routers' laws run in the router process, and the flows
    complete as in simulation."""
    spec = single_flows(protocol, [1, 30])
    sim, emu = run(spec), emulate(spec, mode="loopback")
    warned = fell_behind(emu)
    for s, e in zip(fcts(sim), fcts(emu), strict=True):
        assert e is not None and (e == pytest.approx(s, rel=0.10) or warned), (protocol, s, e)


@pytest.mark.parametrize("mode", MODES)
def test_a_long_flow_fills_the_bottleneck(mode):
    """A long-lived TCP flow keeps the 10 Mb/s bottleneck more than 90% busy, as in simulation,
    and the links table counts what the emulated link carried. When the machine is too loaded
    for real time, the emulator says so and names the remedy (a larger time scale); the test
    then takes that remedy once, as a user would, and the run must fill the link."""
    spec = single_flows("tcp", [1])
    spec["duration"] = "1.5s"
    spec["workload"] = [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "1.5s"}]}]
    sim, emu = run(spec), emulate(spec, mode=mode)
    if fell_behind(emu):
        emu = emulate(spec, mode=mode, time_scale=4)

    def bottleneck(r):
        return r.links.filter(r.links["name"] == "bottleneck").row(0, named=True)

    b_sim, b_emu = bottleneck(sim), bottleneck(emu)
    assert b_emu["utilization"] > 0.9, b_emu
    assert b_emu["bytes_sent"] == pytest.approx(b_sim["bytes_sent"], rel=0.10)


def test_netns_and_loopback_refuse_bad_options():
    """A bad mode or time scale is a ScenarioError naming the field."""
    spec = single_flows("tcp", [1])
    with pytest.raises(ScenarioError, match=r"field `mode`: expected one of auto, netns, loopback"):
        emulate(spec, mode="tun")
    with pytest.raises(ScenarioError, match=r"field `time_scale`: expected a number >= 1"):
        emulate(spec, mode="loopback", time_scale=0.5)


def test_cli_writes_the_run_tables_and_the_cpu_load(tmp_path):
    """`fctlab emulate SCENARIO -o OUT` writes the `fctlab run` tables and prints each process's load."""
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(single_flows("tcp", [2])))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "fctlab.cli", "emulate", str(scenario), "-o", str(out), "--mode", "loopback"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "CPU load %" in p.stdout and "router" in p.stdout
    assert {f.name for f in out.iterdir()} >= {"flows.parquet", "links.parquet", "series.parquet", "meta.json"}
    bad = subprocess.run([*cmd[:-1], "tun"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "invalid choice: 'tun'" in bad.stderr and "Traceback" not in bad.stderr


def _fctlab_processes(run: int) -> list[int]:
    """Pids of emulation processes started by orchestrator `run`."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"fctlab.emulate.child" in cmd and str(run).encode() in cmd:
                pids.append(int(d.name))
    return pids


@pytest.mark.skipif(not NETNS, reason=f"no namespaces: {WHY}")
def test_a_sigkilled_run_leaves_nothing_after_the_next_run(tmp_path):
    """SIGKILL the orchestrator mid-run: its processes end by themselves (their control pipe
    closes), and the next run removes its namespaces and run directory before it starts."""
    spec = single_flows("tcp", [1])
    spec["duration"] = "30s"
    spec["workload"] = [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "30s"}]}]
    scenario = tmp_path / "long.json"
    scenario.write_text(json.dumps(spec))
    cmd = [sys.executable, "-m", "fctlab.cli", "emulate", str(scenario), "-o", str(tmp_path / "o"), "-q"]
    victim = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prefix = f"fctlab-{victim.pid}-"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(_fctlab_processes(victim.pid)) < 3:
            time.sleep(0.1)
        assert any(n.startswith(prefix) for n in list_namespaces()), "the run never built its namespaces"
        assert len(_fctlab_processes(victim.pid)) == 3
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _fctlab_processes(victim.pid):
        time.sleep(0.1)
    assert _fctlab_processes(victim.pid) == [], "emulation processes outlived their orchestrator"
    assert any(n.startswith(prefix) for n in list_namespaces()), "namespaces stay until the next run"
    emulate(single_flows("tcp", [1]), mode="netns")  # the next run cleans up first
    assert not [n for n in list_namespaces() if n.startswith(prefix)]
    from fctlab.emulate.cleanup import run_dir

    assert not run_dir(victim.pid).exists()


def test_no_namespace_of_this_process_is_left():
    """The runs above removed everything they created."""
    assert not [n for n in list_namespaces() if n.startswith(f"fctlab-{os.getpid()}-")]


def test_time_scaling_keeps_run_time_results():
    """At time scale 3 every wall-clock rate is a third and every delay three times longer, and
    the FCTs in run time stay those of the simulation (seed 002's time scaling)."""
    spec = single_flows("tcp", [1, 20], gap_s=0.3)
    sim = run(spec)
    t0 = time.monotonic()
    emu = emulate(spec, mode="loopback", time_scale=3)
    wall = time.monotonic() - t0
    assert emu.meta["emulation"]["time_scale"] == 3
    assert wall > 3 * 0.3 + 0.1, f"a 0.6 s run at scale 3 took only {wall:.2f} s of wall time"
    warned = fell_behind(emu)
    for s, e in zip(fcts(sim), fcts(emu), strict=True):
        assert e == pytest.approx(s, rel=0.10) or warned


def test_the_default_time_scale_keeps_the_fastest_flow_under_the_budget():
    """Without --time-scale, a 1 Gb/s path runs 10 times slower than real time."""
    from fctlab.emulate.runner import RATE_BUDGET_BPS, auto_time_scale

    assert RATE_BUDGET_BPS == 100e6
    assert [auto_time_scale(r) for r in (10e6, 100e6, 101e6, 1e9)] == [1.0, 1.0, 2.0, 10.0]


def test_an_emulator_behind_real_time_says_so():
    """A 10 Gb/s flow at time scale 1 is more than the machine can carry (a 1000-segment window
    leaves the host far slower than the endpoint sent it): the run still ends, and a warning says
    so and suggests a larger time scale."""
    spec = single_flows("tcp", [2000])
    spec["topology"].update(bottleneck_rate="10Gbps", access_rate="10Gbps")
    spec["duration"] = "0.1s"
    spec["max_time"] = "0.3s"
    emu = emulate(spec, mode="loopback", time_scale=1)
    warnings = emu.meta["emulation"]["warnings"]
    assert any("could not send as fast" in w and "--time-scale" in w for w in warnings), warnings
