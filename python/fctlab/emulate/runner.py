"""The orchestrator of `fctlab emulate`: one scenario, run for real, in real time.

One router process (every link and queue discipline of the topology: the simulator's own
network code with its hosts detached) and one process per host that sends or receives a flow
(that host's endpoints: the simulator's own TCP, RC3, RCP, XCP, ... code), exchanging UDP
datagrams (the `fctlab-emu` crate). Where the processes live:

- `netns` (root, and iproute2): the router in namespace `fctlab-<run>-r`, each host in its own
  namespace `fctlab-<run>-h<node>`, joined by veth pairs (`fctlab.emulate.netns`).
- `loopback` (anyone): every process on 127.0.0.1, one port each.

`auto` takes `netns` where it is available. The steps: clean up what dead runs left
(`fctlab.emulate.cleanup`), start the router and read its port, start the hosts and read
theirs, tell the router where the hosts are, then give every process the same start instant
(`CLOCK_MONOTONIC`, a moment ahead). The run ends when every finite flow has completed (and
long-lived flows have reached their stop), at the scenario's `max_time`, or at the wall-clock
limit, whichever comes first; hosts stop first and write their reports, then the router folds
them into the result tables, the same tables as `fctlab run`. `meta.json` gets an `emulation`
entry: mode, time scale, each process's CPU time and load, the processes' reports, warnings.

Time scaling (seed 002): a run-time second lasts `time_scale` wall seconds, which divides every
rate and multiplies every delay on the wall by the same factor while results stay in run time.
By default the scale keeps the fastest flow under `RATE_BUDGET_BPS` of wall-clock traffic. When
the router still falls behind real time, a warning says by how much and suggests a larger scale.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fctlab.errors import ScenarioError, field_error
from fctlab.result import Result, load
from fctlab.scenario import ScenarioLike

#: Wall-clock bit rate the fastest flow may have before time scaling slows the run down.
RATE_BUDGET_BPS = 100e6
#: Wall seconds between the start command and run time zero.
START_AHEAD_S = 0.3
#: Wall seconds a process may take to start and bind its socket.
READY_TIMEOUT_S = 30.0
#: Run seconds after the end for the last ACKs.
GRACE_S = 0.1
#: Run seconds after the end of a run with long-lived flows, for the packets still queued to
#: arrive (a simulation delivers them all before it closes its records).
LONG_LIVED_GRACE_S = 0.5
#: Wall seconds a process may take to write its report after `stop`.
STOP_TIMEOUT_S = 60.0
#: A router loop iteration that found an event this late (wall ns) counts as falling behind.
LATE_NS = 1_000_000

MODES = ("auto", "netns", "loopback")


@dataclass
class Proc:
    """A started process of the emulation."""

    role: str
    node: int | None
    name: str
    popen: subprocess.Popen
    report: Path
    t0: float = field(default_factory=time.monotonic)
    cpu_s: float = 0.0
    wall_s: float = 0.0
    port: int = 0

    def send(self, line: str) -> None:
        """Writes a control line; a process that is gone is noticed by the caller's checks."""
        stdin = self.popen.stdin
        if stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            stdin.write(line + "\n")
            stdin.flush()

    def describe(self) -> dict[str, Any]:
        """This process's row of the `processes` table."""
        load = self.cpu_s / self.wall_s if self.wall_s > 0 else 0.0
        return {
            "role": self.role,
            "node": self.node,
            "name": self.name,
            "cpu_s": round(self.cpu_s, 4),
            "wall_s": round(self.wall_s, 4),
            "cpu_load": round(load, 4),
        }


def choose_mode(mode: str) -> str:
    """`netns` or `loopback` for the `mode` asked (auto: netns where it can be used)."""
    if mode not in MODES:
        raise field_error("mode", f"one of {', '.join(MODES)}", mode)
    if mode == "loopback":
        return mode
    from fctlab.emulate.netns import EmulationError, netns_available

    ok, why = netns_available()
    if ok:
        return "netns"
    if mode == "netns":
        raise EmulationError(f"network namespaces cannot be used here: {why} (use --mode loopback)")
    return "loopback"


def auto_time_scale(max_flow_rate_bps: float) -> float:
    """The smallest whole scale that keeps the fastest flow within `RATE_BUDGET_BPS` on the wall."""
    return float(max(1, math.ceil(max_flow_rate_bps / RATE_BUDGET_BPS - 1e-9)))


def emulate(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    mode: str = "auto",
    time_scale: float | None = None,
    max_wall_s: float | None = None,
    progress: bool = False,
) -> Result:
    """Runs `scenario` as an emulation and returns its Result (see the module doc)."""
    from fctlab.run import core, prepare

    spec, base_dir = prepare(scenario, seed=seed, overrides=overrides)
    spec_json = json.dumps(spec)
    probe = core().Emulation(spec_json, base_dir)  # validates: a bad scenario fails here, clearly
    if time_scale is not None and not (isinstance(time_scale, int | float) and math.isfinite(time_scale)):
        raise field_error("time_scale", "a number >= 1", time_scale)
    if time_scale is not None and time_scale < 1:
        raise field_error("time_scale", "a number >= 1 (wall seconds per run-time second)", time_scale)
    if max_wall_s is not None and not max_wall_s > 0:
        raise field_error("max_wall", "a number of seconds > 0", max_wall_s)
    scale = float(time_scale) if time_scale is not None else auto_time_scale(probe.max_flow_rate())
    chosen = choose_mode(mode)
    from fctlab.emulate import kernel as kernel_tcp

    stacks = list(probe.kernel_stacks())  # stack = "linux": the kernel's TCP
    kernel_tcp.check(stacks, chosen, scale)
    hosts = list(probe.hosts())
    if not hosts:
        raise ScenarioError("emulate: the scenario has no flows, so no host to run")
    duration, max_time = probe.limits()
    wall_limit = max_wall_s if max_wall_s is not None else max_time * scale + 30.0

    from fctlab.emulate import cleanup

    for line in cleanup.cleanup_stale():
        print(f"emulate: {line}", file=sys.stderr)
    run = os.getpid()
    run_dir = cleanup.register_run(run)
    topo = None
    procs: list[Proc] = []
    try:
        spec_file = run_dir / "scenario.json"
        spec_file.write_text(spec_json)
        if chosen == "netns":
            from fctlab.emulate.netns import NetnsTopology

            topo = NetnsTopology(hosts, run=run)
            topo.create()
        session = _Session(probe, spec_file, base_dir, run_dir, run, scale, wall_limit, topo, procs)
        if stacks:
            kernel_tcp.prepare(topo, hosts, stacks)
            session.kernel_args = (
                kernel_tcp.router_args(topo, hosts, run_dir / "kernel-links.json"),
                kernel_tcp.host_args(topo, hosts),
            )
        raw_meta = session.run(duration, max_time, progress)
        result = load(run_dir / "result")
        _keep_capture(result)
        result.meta["emulation"] = {
            "mode": chosen,
            "time_scale": scale,
            **raw_meta,
        }
        for w in raw_meta["warnings"]:
            print(f"warning: {w}", file=sys.stderr)
        return result
    finally:
        for p in procs:
            if p.popen.poll() is None:
                with contextlib.suppress(OSError):
                    p.popen.kill()
                with contextlib.suppress(Exception):
                    p.popen.wait(5)
        if topo is not None:
            topo.teardown()
        cleanup.finish_run(run)
        shutil.rmtree(run_dir, ignore_errors=True)


def _keep_capture(result: Result) -> None:
    """Moves the router's capture (`[output.pcap]`) out of the run's directory, which is removed
    at the end, to a temporary file that lives as long as `result` (`Result.write` copies it)."""
    if result.capture_file is None:
        return
    import tempfile
    import weakref

    fd, name = tempfile.mkstemp(prefix="fctlab-capture-", suffix=".pcapng")
    os.close(fd)
    shutil.move(result.capture_file, name)
    result.capture_file = Path(name)
    weakref.finalize(result, os.unlink, name)


class _Session:
    """The processes of one emulation, from start to reports."""

    def __init__(
        self,
        probe: Any,
        spec_file: Path,
        base_dir: str,
        run_dir: Path,
        run: int,
        scale: float,
        wall_limit: float,
        topo: Any,
        procs: list[Proc],
    ) -> None:
        self.probe = probe
        self.spec_file = spec_file
        self.base_dir = base_dir
        self.run_dir = run_dir
        self.run_id = run
        self.scale = scale
        self.wall_limit = wall_limit
        self.topo = topo
        self.procs = procs
        self.names = list(probe.node_names())
        #: Extra arguments of the router and of every host for kernel TCP flows (`fctlab.emulate.kernel`).
        self.kernel_args: tuple[list[str], list[str]] = ([], [])

    def _argv(self, role: str, bind: str, report: Path, extra: list[str]) -> list[str]:
        return [
            sys.executable,
            "-m",
            "fctlab.emulate.child",
            role,
            "--spec",
            str(self.spec_file),
            "--base",
            self.base_dir,
            "--bind",
            bind,
            "--scale",
            repr(self.scale),
            "--max-wall",
            repr(self.wall_limit),
            "--parent",
            str(self.run_id),
            "--report",
            str(report),
            *extra,
        ]

    def _spawn(self, role: str, node: int | None, ns: str | None, argv: list[str]) -> Proc:
        from fctlab.emulate import cleanup

        name = "router" if node is None else self.names[node]
        if ns is not None:
            argv = self.topo.exec_argv(ns, argv)
        err = open(self.run_dir / f"{role}-{node if node is not None else 'r'}.stderr", "w")  # noqa: SIM115
        popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1, close_fds=True
        )
        err.close()
        cleanup.register_pid(self.run_id, popen.pid)
        report = Path(argv[argv.index("--report") + 1])
        proc = Proc(role=role, node=node, name=name, popen=popen, report=report)
        self.procs.append(proc)
        return proc

    def _stderr_tail(self, p: Proc) -> str:
        path = self.run_dir / f"{p.role}-{p.node if p.node is not None else 'r'}.stderr"
        with contextlib.suppress(OSError):
            lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
            return " | ".join(lines[-3:])
        return ""

    def _died(self, p: Proc) -> ScenarioError:
        return ScenarioError(
            f"emulate: the {p.role} process ({p.name}) exited with code {p.popen.returncode}: {self._stderr_tail(p)}"
        )

    def _read_ready(self, p: Proc) -> int:
        stdout: IO[str] = p.popen.stdout  # type: ignore[assignment]
        sel = selectors.DefaultSelector()
        sel.register(stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + READY_TIMEOUT_S
        try:
            while time.monotonic() < deadline:
                if sel.select(timeout=0.2):
                    line = stdout.readline()
                    if line.startswith("ready "):
                        p.port = int(line.split()[1])
                        return p.port
                    if not line:
                        p.popen.wait(5)
                        raise self._died(p)
                elif p.popen.poll() is not None:
                    raise self._died(p)
        finally:
            sel.close()
        raise ScenarioError(f"emulate: the {p.role} process ({p.name}) did not start within {READY_TIMEOUT_S:.0f} s")

    def run(self, duration: float, max_time: float, progress: bool) -> dict[str, Any]:
        hosts = list(self.probe.hosts())
        host_reports = [self.run_dir / f"host-{n}.json" for n in hosts]
        router_bind = "0.0.0.0" if self.topo is not None else "127.0.0.1"
        router = self._spawn(
            "router",
            None,
            self.topo.router_ns() if self.topo is not None else None,
            self._argv(
                "router",
                router_bind,
                self.run_dir / "router.json",
                [
                    "--host-reports",
                    *map(str, host_reports),
                    "--result",
                    str(self.run_dir / "result"),
                    *self.kernel_args[0],
                ],
            ),
        )
        port = self._read_ready(router)
        host_procs = []
        for node, report in zip(hosts, host_reports, strict=True):
            if self.topo is not None:
                iface = self.topo.iface(node)
                bind, router_ip, ns = iface.host_ip, iface.router_ip, iface.netns
            else:
                bind, router_ip, ns = "127.0.0.1", "127.0.0.1", None
            argv = self._argv(
                "host", bind, report, ["--node", str(node), "--router", f"{router_ip}:{port}", *self.kernel_args[1]]
            )
            host_procs.append((self._spawn("host", node, ns, argv), bind))
        for p, bind in host_procs:
            router.send(f"host {p.node} {bind}:{self._read_ready(p)}")
        epoch = time.monotonic_ns() + int(START_AHEAD_S * 1e9)
        for p in self.procs:
            p.send(f"start {epoch}")
        self._watch([p for p, _ in host_procs], epoch, duration, max_time, progress)
        for p, _ in host_procs:
            p.send("stop")
        for p, _ in host_procs:
            self._reap(p)
        router.send("stop")
        self._reap(router)
        reports = {"router": _read_json(router.report), "hosts": [_read_json(r) for r in host_reports]}
        if not (self.run_dir / "result").is_dir():
            raise ScenarioError(f"emulate: the router wrote no results: {self._stderr_tail(router)}")
        return {
            "processes": [p.describe() for p in self.procs],
            "reports": reports,
            "warnings": warnings_of(reports, self.scale),
        }

    def _watch(self, hosts: list[Proc], epoch: int, duration: float, max_time: float, progress: bool) -> None:
        """Reads the hosts' `done` lines until the run is over."""
        plan = list(self.probe.flow_plan())
        finite = {f for f, (_, size) in enumerate(plan) if size is not None}
        long_lived = len(finite) < len(plan)
        drain = json.loads(self.spec_file.read_text()).get("drain", True)
        done: set[int] = set()
        sel = selectors.DefaultSelector()
        for p in hosts:
            sel.register(p.popen.stdout, selectors.EVENT_READ, p)  # type: ignore[arg-type]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(finite), unit="flow", desc="emulating", leave=True)
        wall_end = epoch / 1e9 + self.wall_limit
        over_at: float | None = None
        try:
            while True:
                now_ns = time.monotonic_ns()
                t = (now_ns - epoch) / 1e9 / self.scale
                if over_at is None:
                    finished = t >= duration if not drain else (finite <= done and (not long_lived or t >= duration))
                    if finished or t >= max_time or now_ns / 1e9 >= wall_end:
                        over_at = now_ns / 1e9
                grace = LONG_LIVED_GRACE_S if long_lived else GRACE_S
                if over_at is not None and now_ns / 1e9 >= over_at + grace * self.scale:
                    return
                for key, _ in sel.select(timeout=0.02):
                    p: Proc = key.data
                    line = key.fileobj.readline()  # type: ignore[union-attr]
                    if not line:
                        sel.unregister(key.fileobj)
                        if p.popen.wait(5) != 0:
                            raise self._died(p)
                        continue
                    words = line.split()
                    if len(words) == 3 and words[0] == "done":
                        done.add(int(words[1]))
                        if bar is not None:
                            bar.update(1)
                if bar is not None:
                    bar.set_postfix_str(f"t={max(t, 0.0):.2f} s")
        finally:
            sel.close()
            if bar is not None:
                bar.close()

    def _reap(self, p: Proc) -> None:
        """Waits for `p` to exit (killing it after STOP_TIMEOUT_S) and notes its CPU time."""
        if p.popen.stdin is not None:
            with contextlib.suppress(OSError):
                p.popen.stdin.close()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while True:
            pid, status, usage = os.wait4(p.popen.pid, os.WNOHANG)
            if pid:
                p.popen.returncode = os.waitstatus_to_exitcode(status)
                p.cpu_s = usage.ru_utime + usage.ru_stime
                p.wall_s = time.monotonic() - p.t0
                break
            if time.monotonic() > deadline:
                p.popen.kill()
            time.sleep(0.01)
        if p.popen.returncode != 0:
            raise self._died(p)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def warnings_of(reports: Mapping[str, Any], scale: float) -> list[str]:
    """What the reports say went wrong in real time: a router behind, late timers, lost datagrams."""
    out = []
    r = reports.get("router") or {}
    late, iterations = r.get("late_1ms", 0), max(1, r.get("iterations", 0))
    max_lag_ms = r.get("max_lag_wall_ns", 0) / 1e6
    if late > 0.001 * iterations or max_lag_ms > 10:
        out.append(
            f"the emulator fell behind real time: {late} of {iterations} loop turns found an event more than "
            f"{LATE_NS / 1e6:.0f} ms late (at most {max_lag_ms:.1f} ms); results are distorted by as much: "
            f"run again with --time-scale {max(2.0, 2 * scale):g}"
        )
    late_in, datagrams = r.get("late_arrivals", 0), max(1, r.get("datagrams_in", 0))
    arrival_ms = r.get("max_arrival_lag_wall_ns", 0) / 1e6
    if late_in > 0.001 * datagrams or arrival_ms > 10:
        out.append(
            f"the hosts could not send as fast as their endpoints: {late_in} of {datagrams} datagrams reached the "
            f"emulator more than {LATE_NS / 1e6:.0f} ms after they were sent (at most {arrival_ms:.1f} ms): "
            f"run again with --time-scale {max(2.0, 2 * scale):g}"
        )
    hosts = reports.get("hosts") or []
    lag_ms = max((h.get("max_timer_lag_ps", 0) for h in hosts), default=0) / 1e9
    if lag_ms * scale > 10:
        out.append(f"a host handled a timer {lag_ms:.1f} ms (run time) late: run again with a larger --time-scale")
    bad = r.get("bad_datagrams", 0) + sum(h.get("bad_datagrams", 0) for h in hosts)
    lost = r.get("lost_sends", 0) + sum(h.get("lost_sends", 0) for h in hosts)
    if bad or lost:
        out.append(f"{bad} datagrams were refused and {lost} sends were lost in the kernel (socket buffers full?)")
    from fctlab.emulate.kernel import warnings as kernel_warnings

    return out + kernel_warnings(reports)
