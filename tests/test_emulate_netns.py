"""Namespaces, veth pairs and crash cleanup of `fctlab emulate` (fctlab/emulate/netns.py, cleanup.py).

The namespace tests need root and iproute2 (CI runs as root); they touch only namespaces named
fctlab-<pid>-... of this test process or of a child it started, and remove them in a finally.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fctlab.emulate import cleanup, netns
from fctlab.emulate.cleanup import cleanup_stale, finish_run, register_pid, register_run
from fctlab.emulate.iproute import delete_namespaces, list_namespaces, namespace_pids
from fctlab.emulate.netns import MAX_HOSTS, EmulationError, NetnsTopology, host_subnet, netns_available
from fctlab.emulate.procfs import is_running, kill_and_wait

NETNS_OK, NETNS_WHY = netns_available()
needs_netns = pytest.mark.skipif(not NETNS_OK, reason=f"network namespaces cannot be used here: {NETNS_WHY}")

#: Bound on every child process and wait in these tests (s).
TIMEOUT_S = 20.0


# -- helpers -------------------------------------------------------------------------------------


def ours(run: int) -> list[str]:
    """The namespaces of run `run` that exist now."""
    return sorted(name for name in list_namespaces() if name.startswith(f"fctlab-{run}-"))


def remove_run_namespaces(*runs: int) -> None:
    """Last-resort cleanup of a test: kill what is in the runs' namespaces, delete them."""
    for run in runs:
        names = ours(run)
        kill_and_wait(pid for name in names for pid in namespace_pids(name))
        delete_namespaces(names)


def read_line(proc: subprocess.Popen, timeout_s: float = TIMEOUT_S) -> str:
    """The next line `proc` prints, or a failure when none comes within the timeout."""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout_s):
            pytest.fail(f"no output from {proc.args!r} within {timeout_s} s")
    line = proc.stdout.readline()
    if not line:
        pytest.fail(f"{proc.args!r} exited ({proc.wait()}) without printing; stderr: {proc.stderr.read()}")
    return line.strip()


def stop(proc: subprocess.Popen) -> None:
    """Kills and reaps a child of the test if it still runs."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(TIMEOUT_S)


def gone(pid: int, timeout_s: float = 5.0) -> bool:
    """True once `pid` no longer runs (a zombie its dead parent left counts as gone)."""
    deadline = time.monotonic() + timeout_s
    while is_running(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return not is_running(pid)


def cleanup_lines(run: int) -> list[str]:
    """What cleanup_stale did to run `run` (other dead runs on the machine may be cleaned too)."""
    return [line for line in cleanup_stale() if line.startswith(f"run {run}:")]


def fctlab_named_sleep() -> subprocess.Popen:
    """A `sleep 60` whose command line names fctlab, like the children a run registers."""
    return subprocess.Popen(["fctlab-test-child", "60"], executable=shutil.which("sleep"))


def child_env() -> dict[str, str]:
    """The environment of a Python child: this one, with tests/ on the path for the fake core."""
    paths = [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


@pytest.fixture
def run_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """RUN_ROOT moved to a temporary directory, here and in the children the test starts."""
    root = tmp_path / "runs"
    monkeypatch.setattr(cleanup, "RUN_ROOT", root)
    monkeypatch.setenv("FCTLAB_RUN_DIR", str(root))
    return root


@pytest.fixture
def own_namespaces() -> Iterator[None]:
    """Whatever the test does, no namespace of this process's run survives it."""
    try:
        yield
    finally:
        remove_run_namespaces(os.getpid())
    assert ours(os.getpid()) == []


# -- addresses and input, no root needed ---------------------------------------------------------


def test_host_subnets_follow_the_index() -> None:
    topo = NetnsTopology(list(range(100, 165)), run=4242)
    first, at_64 = topo.iface(100), topo.iface(164)
    assert (first.router_ip, first.host_ip) == ("198.18.0.1", "198.18.0.2")
    assert (topo.iface(101).router_ip, topo.iface(101).host_ip) == ("198.18.0.5", "198.18.0.6")
    assert (at_64.router_ip, at_64.host_ip) == ("198.18.1.1", "198.18.1.2")
    assert first.netns == "fctlab-4242-h100" and topo.router_ns() == "fctlab-4242-r"
    assert str(host_subnet(256 * 64)) == "198.19.0.0/30"  # past 198.18.255.x the /15 goes on in 198.19
    assert str(host_subnet(MAX_HOSTS - 1)) == "198.19.255.252/30"


def test_more_hosts_than_the_range_holds_is_an_error() -> None:
    NetnsTopology(list(range(MAX_HOSTS)), run=1)  # exactly full is fine
    with pytest.raises(EmulationError, match=rf"field `hosts`: expected at most {MAX_HOSTS} hosts.*198\.18\.0\.0/15"):
        NetnsTopology(list(range(MAX_HOSTS + 1)), run=1)


@pytest.mark.parametrize(
    ("hosts", "message"),
    [
        ([], "expected at least one host, got an empty list"),
        ([1, 2, 1], "expected each node once, got 1 twice"),
        ([1, -3], "expected node ids .*, got -3"),
        ([True], "expected node ids .*, got True"),
        (["h1"], "expected node ids .*, got 'h1'"),
        ([10**14], r"expected node ids below 10\^14 \(interface names h<node> are at most 15 characters\), got 10{14}"),
        ("12", "expected a list of node ids, got '12'"),
    ],
)
def test_bad_hosts_name_the_field_and_value(hosts: object, message: str) -> None:
    with pytest.raises(EmulationError, match=rf"field `hosts`: {message}"):
        NetnsTopology(hosts, run=1)  # type: ignore[arg-type]


def test_bad_run_unknown_node_and_foreign_namespace_are_errors() -> None:
    with pytest.raises(EmulationError, match=r"field `run`: expected a whole number >= 0 .*got -1"):
        NetnsTopology([1], run=-1)
    topo = NetnsTopology([1, 2], run=7)
    with pytest.raises(EmulationError, match=r"field `node`: expected one of this topology's hosts \[1, 2\], got 3"):
        topo.iface(3)
    with pytest.raises(EmulationError, match=r"field `ns`: .*got 'fctlab-8-h1'"):
        topo.exec_argv("fctlab-8-h1", ["true"])
    assert topo.exec_argv("fctlab-7-h2", ["sleep", "1"]) == ["ip", "netns", "exec", "fctlab-7-h2", "sleep", "1"]


def test_emulation_error_is_a_user_error() -> None:
    from fctlab.errors import ScenarioError

    assert issubclass(EmulationError, ScenarioError)


def test_netns_available_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    ok, why = netns_available()
    assert not ok and "need root" in why and "uid 1000" in why
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(netns.shutil, "which", lambda _name: None)
    ok, why = netns_available()
    assert not ok and "`ip` command (iproute2) is not on PATH" in why


def test_teardown_of_a_topology_never_created_is_quiet() -> None:
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command to list namespaces with")
    NetnsTopology([1, 2], run=os.getpid()).teardown()


# -- the registry, loopback mode (no root needed) ------------------------------------------------

CHILD_REGISTERS_A_SLEEP = textwrap.dedent(
    """
    import os, shutil, subprocess, time
    from fctlab.emulate.cleanup import register_pid, register_run
    run = os.getpid()
    register_run(run)
    child = subprocess.Popen(["fctlab-test-child", "60"], executable=shutil.which("sleep"))
    register_pid(run, child.pid)
    print("ready", child.pid, flush=True)
    time.sleep(60)
    """
)


def test_a_dead_runs_registered_child_is_killed_and_a_foreign_pid_is_not(run_root: Path) -> None:
    run = subprocess.Popen(
        [sys.executable, "-c", CHILD_REGISTERS_A_SLEEP],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    plain = subprocess.Popen(["sleep", "60"])  # its command line names neither fctlab nor python
    reused = fctlab_named_sleep()  # names fctlab, but started after the registration recorded
    child = 0
    try:
        word, pid = read_line(run).split()
        assert word == "ready"
        child = int(pid)
        register_pid(run.pid, plain.pid)
        with open(run_root / str(run.pid) / "pids", "a") as pids:
            pids.write(f"{reused.pid} 1\n")  # as if the pid had been another process's, started at tick 1
        assert cleanup_lines(run.pid) == []  # the run is alive: nothing of it goes
        assert is_running(child)

        run.kill()
        run.wait(TIMEOUT_S)
        lines = cleanup_lines(run.pid)

        assert gone(child)
        assert f"run {run.pid}: killed registered process {child} (fctlab-test-child 60)" in lines
        assert is_running(plain.pid) and is_running(reused.pid)
        assert not (run_root / str(run.pid)).exists()
        assert f"run {run.pid}: removed {run_root / str(run.pid)}" in lines
        assert cleanup_lines(run.pid) == []
    finally:
        for proc in (run, plain, reused):
            stop(proc)
        if child and is_running(child):
            os.kill(child, signal.SIGKILL)


def test_a_run_whose_pid_is_not_fctlab_is_dead(run_root: Path) -> None:
    impostor = subprocess.Popen(["sleep", "60"])  # a live pid, but not an fctlab process
    try:
        register_run(impostor.pid)
        lines = cleanup_lines(impostor.pid)
        assert lines == [f"run {impostor.pid}: removed {run_root / str(impostor.pid)}"]
        assert is_running(impostor.pid)  # only registered children and namespace processes are killed
    finally:
        stop(impostor)


def test_finish_run_and_register_pid_before_register_run(run_root: Path) -> None:
    path = register_run(os.getpid())
    assert path == run_root / str(os.getpid()) and (path / "pids").read_text() == ""
    register_pid(os.getpid(), os.getpid())
    assert (path / "pids").read_text().split()[0] == str(os.getpid())
    assert cleanup_lines(os.getpid()) == []  # this test process is a live run
    assert path.exists()
    finish_run(os.getpid())
    assert not path.exists()
    finish_run(os.getpid())  # already gone: fine
    with pytest.raises(EmulationError, match=r"run 1 is not registered .*register_run first"):
        register_pid(1, os.getpid())


def test_register_run_refuses_a_run_root_that_is_a_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "runs").symlink_to(tmp_path / "elsewhere")
    monkeypatch.setattr(cleanup, "RUN_ROOT", tmp_path / "runs")
    expected = r"FCTLAB_RUN_DIR .*runs: expected a directory owned by uid \d+, got a link"
    with pytest.raises(EmulationError, match=expected):
        register_run(os.getpid())
    assert list((tmp_path / "elsewhere").iterdir()) == []


# -- namespaces (root) ---------------------------------------------------------------------------

UDP_ECHO = textwrap.dedent(
    """
    import socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((sys.argv[1], 0))
    s.settimeout(10)
    print(s.getsockname()[1], flush=True)
    data, peer = s.recvfrom(65535)
    s.sendto(data[::-1], peer)
    print(peer[0], flush=True)
    """
)
# Don't-fragment set: an 8000-byte datagram passes only because the veths' MTU is 9000.
UDP_CLIENT = textwrap.dedent(
    """
    import socket, sys
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_MTU_DISCOVER", 10), getattr(socket, "IP_PMTUDISC_DO", 2))
    s.settimeout(10)
    s.sendto(b"fctlab" + bytes(7994), (sys.argv[1], int(sys.argv[2])))
    data, peer = s.recvfrom(65535)
    print(len(data), data[-6:].decode(), peer[0], flush=True)
    """
)


def root_veths() -> set[str]:
    """Interfaces of the root namespace named like the topology's veth ends."""
    links = json.loads(subprocess.run(["ip", "-j", "link", "show"], capture_output=True, text=True).stdout)
    return {link["ifname"] for link in links if link["ifname"][:1] in "hr" and link["ifname"][1:].isdigit()}


def link(ns: str, name: str) -> dict:
    """`ip -j -n NS link show dev NAME`, parsed."""
    out = subprocess.run(["ip", "-j", "-n", ns, "link", "show", "dev", name], capture_output=True, text=True)
    return json.loads(out.stdout)[0]


@needs_netns
def test_udp_echo_from_each_host_to_its_router_end(own_namespaces: None) -> None:
    before = root_veths()
    topo = NetnsTopology([3, 7])
    with topo:
        assert ours(os.getpid()) == sorted(f"fctlab-{os.getpid()}-{s}" for s in ("r", "h3", "h7"))
        assert root_veths() == before  # nothing added to the root namespace
        for node in (3, 7):
            iface = topo.iface(node)
            assert link(iface.netns, f"h{node}")["mtu"] == 9000 == link(topo.router_ns(), f"r{node}")["mtu"]
            assert "UP" in link(iface.netns, "lo")["flags"] and "UP" in link(topo.router_ns(), "lo")["flags"]
            echo = subprocess.Popen(
                topo.exec_argv(topo.router_ns(), [sys.executable, "-c", UDP_ECHO, iface.router_ip]),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                port = read_line(echo)
                reply = subprocess.run(
                    topo.exec_argv(iface.netns, [sys.executable, "-c", UDP_CLIENT, iface.router_ip, port]),
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT_S,
                )
                assert reply.returncode == 0, reply.stderr
                assert reply.stdout.split() == ["8000", "baltcf", iface.router_ip]  # echoed reversed
                assert read_line(echo) == iface.host_ip  # the router end saw the host end's address
            finally:
                stop(echo)
    assert ours(os.getpid()) == []
    topo.teardown()  # a second teardown is quiet


def fail_after(original, calls_before_failure: int, error: BaseException):
    """A replacement step that does the real work, then raises `error` (on call number N + 1)."""
    calls = []

    def step(self, *args):
        original(self, *args)
        calls.append(1)
        if len(calls) > calls_before_failure:
            raise error

    return step


@needs_netns
@pytest.mark.parametrize(
    ("step", "calls_before_failure"),
    [("_add_namespaces", 0), ("_add_veths", 0), ("_configure_router", 0), ("_configure_host", 1)],
)
def test_failure_in_the_middle_of_create_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, own_namespaces: None, step: str, calls_before_failure: int
) -> None:
    original = getattr(NetnsTopology, step)
    monkeypatch.setattr(NetnsTopology, step, fail_after(original, calls_before_failure, EmulationError("injected")))
    with pytest.raises(EmulationError, match="^injected$"):
        NetnsTopology([1, 2, 3]).create()
    assert ours(os.getpid()) == []


@needs_netns
def test_an_unexpected_error_in_a_step_names_the_step(monkeypatch: pytest.MonkeyPatch, own_namespaces: None) -> None:
    boom = fail_after(NetnsTopology._configure_host, 0, OSError("disk on fire"))
    monkeypatch.setattr(NetnsTopology, "_configure_host", boom)
    with pytest.raises(EmulationError, match=rf"run {os.getpid()}: configuring fctlab-{os.getpid()}-h5 failed: "):
        NetnsTopology([5, 6]).create()
    assert ours(os.getpid()) == []


@needs_netns
def test_a_real_ip_failure_names_the_step_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, own_namespaces: None
) -> None:
    monkeypatch.setattr(netns, "MTU", 70_000)  # more than a veth takes
    with pytest.raises(EmulationError, match=rf"run {os.getpid()}: adding veth pairs: `ip -batch -` failed"):
        NetnsTopology([1, 2]).create()
    assert ours(os.getpid()) == []


@needs_netns
def test_ctrl_c_during_create_leaves_nothing(monkeypatch: pytest.MonkeyPatch, own_namespaces: None) -> None:
    monkeypatch.setattr(NetnsTopology, "_add_veths", fail_after(NetnsTopology._add_veths, 0, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        NetnsTopology([1, 2]).create()
    assert ours(os.getpid()) == []


@needs_netns
def test_create_leaves_namespaces_it_did_not_make_alone(own_namespaces: None) -> None:
    squatter = f"fctlab-{os.getpid()}-h2"
    subprocess.run(["ip", "netns", "add", squatter], check=True, timeout=TIMEOUT_S)
    with pytest.raises(EmulationError, match=rf"namespaces {squatter} already exist"):
        NetnsTopology([1, 2]).create()
    assert ours(os.getpid()) == [squatter]


@needs_netns
def test_teardown_kills_what_still_runs_in_the_namespaces(own_namespaces: None) -> None:
    topo = NetnsTopology([1, 2])
    topo.create()
    sleeps = [subprocess.Popen(topo.exec_argv(ns, ["sleep", "60"])) for ns in (topo.iface(2).netns, topo.router_ns())]
    try:
        deadline = time.monotonic() + TIMEOUT_S  # `ip netns exec` enters the namespace, then runs sleep
        while any(Path(f"/proc/{p.pid}/comm").read_text().strip() != "sleep" for p in sleeps):
            assert time.monotonic() < deadline, "sleep never started"
            time.sleep(0.01)
        topo.teardown()
        assert [p.wait(TIMEOUT_S) for p in sleeps] == [-signal.SIGKILL] * 2
        assert ours(os.getpid()) == []
    finally:
        for p in sleeps:
            stop(p)


CHILD_BUILDS_A_TOPOLOGY = textwrap.dedent(
    """
    import os, subprocess, time
    from fctlab.emulate.cleanup import register_pid, register_run
    from fctlab.emulate.netns import NetnsTopology
    run = os.getpid()
    register_run(run)
    topo = NetnsTopology([1, 2])
    topo.create()
    sleep = subprocess.Popen(topo.exec_argv(topo.iface(1).netns, ["sleep", "60"]))
    register_pid(run, sleep.pid)
    print("ready", sleep.pid, flush=True)
    time.sleep(60)
    """
)


@needs_netns
def test_a_sigkilled_run_is_cleaned_up_and_a_live_one_is_not(run_root: Path, own_namespaces: None) -> None:
    live = NetnsTopology([8])  # this test process's run: alive
    live.create()
    bystander = f"fctlab-notarun-{os.getpid()}"  # not fctlab-<digits>-...: never touched
    subprocess.run(["ip", "netns", "add", bystander], check=True, timeout=TIMEOUT_S)
    dead = subprocess.Popen(
        [sys.executable, "-c", CHILD_BUILDS_A_TOPOLOGY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    sleep = 0
    try:
        word, pid = read_line(dead).split()
        assert word == "ready"
        sleep = int(pid)
        assert ours(dead.pid) == sorted(f"fctlab-{dead.pid}-{s}" for s in ("h1", "h2", "r"))
        dead.send_signal(signal.SIGKILL)
        dead.wait(TIMEOUT_S)
        assert is_running(sleep) and len(ours(dead.pid)) == 3  # SIGKILL left it all behind

        lines = cleanup_stale()

        assert ours(dead.pid) == []
        assert gone(sleep)
        assert any(line.startswith(f"run {dead.pid}: killed process {sleep} (sleep 60)") for line in lines)
        assert f"run {dead.pid}: deleted namespace fctlab-{dead.pid}-r" in lines
        assert not (run_root / str(dead.pid)).exists()
        assert ours(os.getpid()) == sorted(live.namespaces())  # the live run keeps its namespaces
        assert bystander in list_namespaces()
    finally:
        stop(dead)
        if sleep and is_running(sleep):
            os.kill(sleep, signal.SIGKILL)
        remove_run_namespaces(dead.pid)
        delete_namespaces([bystander])
        live.teardown()
