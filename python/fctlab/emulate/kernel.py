"""The kernel's own TCP (`stack = "linux"`) in `fctlab emulate`: checks and namespace setup.

Kernel flows run on real TCP sockets in the hosts' namespaces (`fctlab_emu::kernel`);
the router process captures their frames on its veth ends with a packet socket and carries
them through the same emulated links and queues as fctlab's datagrams (`fctlab_emu::raw`).
This module does the orchestrator's part:

- `check`: namespace mode only (root), time scale 1 (the kernel's timers run on the wall
  clock), and every `cc` offered by the kernel (`tcp_available_congestion_control`, after a
  quiet `modprobe tcp_<cc>`).
- `prepare`: on every veth, segmentation, receive-coalescing and TX checksum offloads off
  (`ethtool -K`), so each frame is one segment with complete checksums; in each host namespace
  a route to the other hosts (198.18.0.0/15) via its router end with `mtu lock 1500 advmss
  1460` (the veths' MTU is 9000 for fctlab's datagrams; kernel flows use an Ethernet MSS) and
  the scenario's `iw` as `initcwnd`; TCP timestamps off in the host namespaces, so that a
  segment carries the whole MSS as fctlab's do (with them the kernel's carry 1448 bytes, and a
  flow of 10 x 1460 bytes needs 11 segments, one more than IW 10); IP forwarding off in the
  router namespace, so its kernel drops the frames the packet socket forwards (the router's
  report counts any ICMP or TCP frame that kernel sends anyway).
- `router_links`, `router_args`, `host_args`: what the router and host processes are told.
  The router gets one `fctlab._core.KernelLink` per host (its veth's router end, the host end's
  address and MAC), checked when it is made, in a JSON file (`--kernel-links`) that it reads
  back into the same objects (`KernelLink.list_from_json`); each host gets every host's
  address.
- `warnings`: what the router's packet socket saw that distorts results.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fctlab.emulate.iproute import EmulationError, ip, ip_batch
from fctlab.emulate.netns import ADDRESS_RANGE
from fctlab.errors import ScenarioError

#: Where the kernel lists the congestion controls it can use now.
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
#: The Ethernet MTU and MSS of kernel flows.
KERNEL_MTU = 1500
KERNEL_MSS = 1460
#: Offloads turned off on every veth of a run with kernel flows.
OFFLOADS_OFF = ["tx", "off", "tso", "off", "gso", "off", "gro", "off"]
#: The longest frame a kernel flow may put on a veth (Ethernet header + MTU).
MAX_FRAME = KERNEL_MTU + 14

Stack = tuple[str, str, int | None]  # (field, cc, iw)


def available_cc() -> list[str]:
    """The congestion controls the kernel offers now."""
    try:
        return AVAILABLE_CC.read_text().split()
    except OSError:
        return []


def check(stacks: Sequence[Stack], mode: str, time_scale: float) -> None:
    """Refuses kernel flows where they cannot run; loads missing cc modules if it can."""
    if not stacks:
        return
    field = stacks[0][0]
    if mode != "netns":
        raise ScenarioError(
            f"field `{field}`: stack = \"linux\" needs --mode netns (root): the kernel's TCP runs in the hosts' "
            f"network namespaces, got mode {mode}"
        )
    if time_scale != 1:
        raise ScenarioError(
            f'field `time_scale`: expected 1 with stack = "linux" (field `{field}`): the kernel\'s timers run on '
            f"the wall clock and cannot be scaled, got {time_scale:g}"
        )
    for field, cc, _ in stacks:
        if cc in available_cc():
            continue
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):  # no modprobe: judged by the list below
            subprocess.run(["modprobe", "-q", f"tcp_{cc}"], capture_output=True, timeout=20, check=False)
        if cc not in available_cc():
            cc_field = field.rsplit(".", 1)[0] + ".cc"
            raise ScenarioError(
                f"field `{cc_field}`: the kernel does not offer congestion control {cc!r} "
                f"(available: {', '.join(available_cc()) or 'none listed'}; `modprobe tcp_{cc}` did not load it)"
            )


def initcwnd(stacks: Sequence[Stack]) -> int | None:
    """The one initial window the kernel flows ask for (None: the kernel's own)."""
    iws = {iw for _, _, iw in stacks if iw is not None}
    if len(iws) > 1:
        fields = ", ".join(f for f, _, iw in stacks if iw is not None)
        raise ScenarioError(
            f"field `iw`: expected one initial window for all kernel TCP flows (a route's initcwnd), "
            f"got {sorted(iws)} in {fields}"
        )
    return iws.pop() if iws else None


def _ethtool(netns: str, dev: str) -> None:
    argv = ["ip", "netns", "exec", netns, "ethtool", "-K", dev, *OFFLOADS_OFF]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except FileNotFoundError:
        raise EmulationError(
            'stack = "linux": the `ethtool` command is not on PATH; install it (Debian: apt-get install ethtool)'
        ) from None
    if done.returncode != 0:
        raise EmulationError(f"`{' '.join(argv)}` failed (exit {done.returncode}): {done.stderr.strip()}")


def prepare(topo: Any, hosts: Sequence[int], stacks: Sequence[Stack]) -> None:
    """Offloads off, routes with the kernel flows' MTU, MSS and IW, forwarding off in the router."""
    iw = initcwnd(stacks)
    router = topo.router_ns()
    ip(["netns", "exec", router, "sysctl", "-q", "-w", "net.ipv4.ip_forward=0"], step="router: forwarding off")
    for node in hosts:
        i = topo.iface(node)
        _ethtool(i.netns, f"h{node}")
        _ethtool(router, f"r{node}")
        # Without TCP timestamps a segment carries the whole MSS (1460 bytes in a 1500-byte
        # packet), as fctlab's segments do; with them the kernel's would carry 1448.
        ip(
            ["netns", "exec", i.netns, "sysctl", "-q", "-w", "net.ipv4.tcp_timestamps=0"],
            step=f"{i.netns}: TCP timestamps off",
        )
        route = f"route add {ADDRESS_RANGE} via {i.router_ip} dev h{node} mtu lock {KERNEL_MTU} advmss {KERNEL_MSS}"
        if iw is not None:
            route += f" initcwnd {iw}"
        ip_batch([route], step=f"{i.netns}: route for kernel TCP", netns=i.netns)


def _mac(netns: str, dev: str) -> str:
    out = ip(["-j", "link", "show", "dev", dev], step=f"{netns}: reading the MAC of {dev}", netns=netns)
    return json.loads(out)[0]["address"]


def router_links(topo: Any, hosts: Sequence[int]) -> list[Any]:
    """The router's `fctlab._core.KernelLink`s, one per host: node, the router end `r<node>` of
    its veth, the host end's address and MAC."""
    from fctlab.run import core

    links = []
    for node in hosts:
        i = topo.iface(node)
        links.append(core().KernelLink(node, f"r{node}", i.host_ip, _mac(i.netns, f"h{node}")))
    return links


def router_args(topo: Any, hosts: Sequence[int], path: Path) -> list[str]:
    """Writes the router's kernel links (`router_links`) to `path` as JSON; its arguments
    (`--kernel-links PATH`)."""
    from fctlab.run import core

    path.write_text(core().KernelLink.list_to_json(router_links(topo, hosts)))
    return ["--kernel-links", str(path)]


def host_args(topo: Any, hosts: Sequence[int]) -> list[str]:
    """A host's `--peer NODE=IP` arguments: every host's address."""
    out = []
    for node in hosts:
        out += ["--peer", f"{node}={topo.iface(node).host_ip}"]
    return out


def warnings(reports: Mapping[str, Any]) -> list[str]:
    """What the router's packet socket saw that distorts the kernel flows' results."""
    k = (reports.get("router") or {}).get("kernel")
    if not k:
        return []
    out = []
    if k.get("max_frame", 0) > MAX_FRAME:
        out.append(f"kernel TCP: a frame of {k['max_frame']} bytes crossed the emulator (offloads still on?)")
    if k.get("bad_checksums", 0):
        out.append(f"kernel TCP: {k['bad_checksums']} captured frames had a bad checksum (TX checksum offload on?)")
    if k.get("router_icmp", 0) or k.get("router_tcp", 0):
        out.append(
            f"kernel TCP: the router namespace's kernel answered {k.get('router_icmp', 0)} ICMP and "
            f"{k.get('router_tcp', 0)} TCP frames itself"
        )
    lost = k.get("stale", 0) + k.get("lost_sends", 0)
    if lost:
        out.append(f"kernel TCP: {lost} frames were lost in the emulator (ring overwritten or send buffer full)")
    return out
