"""Network namespaces for `fctlab emulate`: one router namespace, one per host, veth pairs between.

    fctlab-<run>-h3                 fctlab-<run>-r                 fctlab-<run>-h7
    +-------------------+           +---------------------------+   +-------------------+
    | h3 198.18.0.2/30  |-- veth ---| r3 198.18.0.1/30          |   |                   |
    |                   |           |           r7 198.18.0.5/30|---| h7 198.18.0.6/30  |
    +-------------------+           +---------------------------+   +-------------------+

Each host reaches only its router end (its /30); the user-space router/link emulator in the
router namespace forwards between hosts. Both veth ends are created directly inside their
namespaces, so nothing is ever added to the root namespace, and deleting the namespaces removes
the veths with them. Addresses come from 198.18.0.0/15, RFC 2544's benchmarking range, which no
real network routes. `run` (the orchestrator's pid by default) keys every name, so
`cleanup.cleanup_stale` can tell a dead run's namespaces from a live one's.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from fctlab.emulate.iproute import EmulationError, delete_namespaces, ip, ip_batch, list_namespaces, namespace_pids
from fctlab.emulate.procfs import kill_and_wait

__all__ = ["EmulationError", "HostIface", "NetnsTopology", "host_subnet", "netns_available"]

#: The addresses hosts and router ends get (RFC 2544 benchmarking range).
ADDRESS_RANGE = ipaddress.IPv4Network("198.18.0.0/15")
#: One /30 per host: router end .1, host end .2.
HOST_PREFIX_LEN = 30
#: How many hosts the range holds.
MAX_HOSTS = ADDRESS_RANGE.num_addresses >> (32 - HOST_PREFIX_LEN)
#: MTU of both veth ends: a datagram (fctlab headers + a 1460-byte payload) is never fragmented.
MTU = 9000
#: Longest interface name Linux takes (IFNAMSIZ - 1): bounds the node ids in "h<node>" / "r<node>".
IFNAME_MAX = 15
#: Every namespace name starts with this, followed by the run id and "-".
NAME_PREFIX = "fctlab-"


@dataclass(frozen=True)
class HostIface:
    """A host's end of the topology: its namespace and the two addresses of its veth pair."""

    node: int  # topology node id of the host
    netns: str  # e.g. "fctlab-4242-h3"
    host_ip: str  # address of the host end, e.g. "198.18.0.2"
    router_ip: str  # address of the router end on the same /30, e.g. "198.18.0.1"


def host_subnet(index: int) -> ipaddress.IPv4Network:
    """The /30 of the `index`-th host: 198.18.(index // 64).(4 * (index % 64)), on into 198.19."""
    if not 0 <= index < MAX_HOSTS:
        raise EmulationError(
            f"field `hosts`: expected at most {MAX_HOSTS} hosts (one /30 each in {ADDRESS_RANGE}), "
            f"got host number {index + 1}"
        )
    base = ADDRESS_RANGE.network_address + (index << (32 - HOST_PREFIX_LEN))
    return ipaddress.IPv4Network((base, HOST_PREFIX_LEN))


def netns_available() -> tuple[bool, str]:
    """(True, "") when namespaces can be used (root, `ip` on PATH, a probe namespace with a veth
    can be made and removed); else (False, reason) naming what is missing."""
    if os.geteuid() != 0:
        return False, f"network namespaces need root (running as uid {os.geteuid()})"
    if shutil.which("ip") is None:
        return False, "the `ip` command (iproute2) is not on PATH; Debian: apt-get install iproute2"
    probe = f"{NAME_PREFIX}{os.getpid()}-probe"
    try:
        try:
            ip(["netns", "add", probe], step="probe: creating a namespace")
            ip(
                ["link", "add", "name", "p0", "type", "veth", "peer", "name", "p1"],
                step="probe: creating a veth pair",
                netns=probe,
            )
        finally:
            delete_namespaces([probe])
    except EmulationError as e:
        return False, str(e)
    return True, ""


class NetnsTopology:
    """One router namespace and one namespace per host, each host joined to the router by a veth."""

    def __init__(self, hosts: list[int], run: int | None = None) -> None:
        self.run = os.getpid() if run is None else _check_run(run)
        nodes = _check_hosts(hosts)
        host_subnet(len(nodes) - 1)  # the range holds them all, before building any
        self._ifaces: dict[int, HostIface] = {}
        for index, node in enumerate(nodes):
            subnet = host_subnet(index)
            self._ifaces[node] = HostIface(
                node=node, netns=self._name(f"h{node}"), host_ip=str(subnet[2]), router_ip=str(subnet[1])
            )

    # -- names and addresses -------------------------------------------------------------------

    def _name(self, suffix: str) -> str:
        return f"{NAME_PREFIX}{self.run}-{suffix}"

    def router_ns(self) -> str:
        """Name of the router namespace, `fctlab-<run>-r`."""
        return self._name("r")

    def iface(self, node: int) -> HostIface:
        """The namespace and addresses of host `node`."""
        try:
            return self._ifaces[node]
        except KeyError:
            raise EmulationError(
                f"field `node`: expected one of this topology's hosts {sorted(self._ifaces)}, got {node!r}"
            ) from None

    def namespaces(self) -> list[str]:
        """Every namespace of the topology: the router's first, then the hosts' in the given order."""
        return [self.router_ns(), *(iface.netns for iface in self._ifaces.values())]

    def exec_argv(self, ns: str, argv: list[str]) -> list[str]:
        """The command line that runs `argv` inside namespace `ns` (one of this topology's)."""
        if ns not in self.namespaces():
            raise EmulationError(f"field `ns`: expected one of this topology's namespaces, got {ns!r}")
        return ["ip", "netns", "exec", ns, *argv]

    # -- building ------------------------------------------------------------------------------

    def create(self) -> None:
        """Builds every namespace, veth pair and address; on failure removes what it built and raises."""
        mine = set(self.namespaces())
        clash = sorted(name for name in list_namespaces() if name in mine)
        if clash:
            # Not ours to remove: a live run with the same id, or a dead one's (cleanup_stale's job).
            raise EmulationError(
                f"run {self.run}: namespaces {', '.join(clash)} already exist; "
                "another run uses this id, or a killed run left them (cleanup_stale removes those)"
            )
        steps: list[tuple[str, Callable[[], None]]] = [
            ("adding namespaces", self._add_namespaces),
            ("adding veth pairs", self._add_veths),
            (f"configuring {self.router_ns()}", self._configure_router),
        ]
        steps += [(f"configuring {i.netns}", lambda i=i: self._configure_host(i)) for i in self._ifaces.values()]
        current = ""
        try:
            for name, action in steps:
                current = name
                action()
        except BaseException as e:
            try:
                self.teardown()
            except EmulationError as cleanup_failure:
                e.add_note(f"and removing the partial topology failed too: {cleanup_failure}")
            if isinstance(e, EmulationError) or not isinstance(e, Exception):
                raise  # already names its step; Ctrl-C and SIGTERM go on as they are
            raise EmulationError(f"run {self.run}: {current} failed: {type(e).__name__}: {e}") from e

    def _add_namespaces(self) -> None:
        ip_batch([f"netns add {name}" for name in self.namespaces()], step=f"run {self.run}: adding namespaces")

    def _add_veths(self) -> None:
        router = self.router_ns()
        ip_batch(
            [
                f"link add name h{i.node} netns {i.netns} mtu {MTU} type veth "
                f"peer name r{i.node} netns {router} mtu {MTU}"
                for i in self._ifaces.values()
            ],
            step=f"run {self.run}: adding veth pairs",
        )

    def _configure_router(self) -> None:
        lines = ["link set lo up"]
        for i in self._ifaces.values():
            lines += [f"address add {i.router_ip}/{HOST_PREFIX_LEN} dev r{i.node}", f"link set r{i.node} up"]
        ip_batch(lines, step=f"run {self.run}: configuring {self.router_ns()}", netns=self.router_ns())

    def _configure_host(self, i: HostIface) -> None:
        lines = ["link set lo up", f"address add {i.host_ip}/{HOST_PREFIX_LEN} dev h{i.node}", f"link set h{i.node} up"]
        ip_batch(lines, step=f"run {self.run}: configuring {i.netns}", netns=i.netns)

    # -- removing ------------------------------------------------------------------------------

    def teardown(self) -> None:
        """Kills every process left in the namespaces and deletes them; safe to call any number of times."""
        present = set(list_namespaces())
        names = [name for name in self.namespaces() if name in present]
        pids = [pid for name in names for pid in namespace_pids(name)]
        survivors = kill_and_wait(pids)
        if survivors:
            raise EmulationError(f"run {self.run}: processes {survivors} survived SIGKILL; namespaces left in place")
        delete_namespaces(names)

    def __enter__(self) -> NetnsTopology:
        self.create()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            self.teardown()
        except EmulationError as failure:
            if exc is None:
                raise
            exc.add_note(f"removing the namespaces failed too: {failure}")  # keep the first error in front


def _check_run(run: object) -> int:
    if isinstance(run, bool) or not isinstance(run, int) or run < 0:
        raise EmulationError(f"field `run`: expected a whole number >= 0 (a process id), got {run!r}")
    return run


def _check_hosts(hosts: object) -> list[int]:
    if isinstance(hosts, str | bytes) or not hasattr(hosts, "__iter__"):
        raise EmulationError(f"field `hosts`: expected a list of node ids, got {hosts!r}")
    nodes = list(hosts)  # type: ignore[call-overload]
    if not nodes:
        raise EmulationError("field `hosts`: expected at least one host, got an empty list")
    seen: set[int] = set()
    for node in nodes:
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            raise EmulationError(f"field `hosts`: expected node ids (whole numbers >= 0), got {node!r}")
        if len(f"h{node}") > IFNAME_MAX:
            raise EmulationError(
                f"field `hosts`: expected node ids below 10^{IFNAME_MAX - 1} (interface names h<node> are "
                f"at most {IFNAME_MAX} characters), got {node}"
            )
        if node in seen:
            raise EmulationError(f"field `hosts`: expected each node once, got {node} twice")
        seen.add(node)
    return nodes
