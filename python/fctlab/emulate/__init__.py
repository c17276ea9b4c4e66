"""Real-time emulation: fctlab's sans-IO endpoints and queue disciplines over real UDP sockets.

`emulate(scenario)` runs a scenario for real and returns the same Result as `fctlab.run.run`,
with `meta["emulation"]` added (mode, time scale, CPU time and load of each process, the
processes' reports, warnings). The real-time loops are in the compiled core
(the `fctlab-emu` crate); this package starts, feeds and cleans up after them.

| module | what it holds |
|---|---|
| `runner` | the orchestrator: mode, time scale, processes, start instant, end of run, reports |
| `child` | the entry point of each process (`python -m fctlab.emulate.child router|host`) |
| `netns` | network namespaces joined by veth pairs (root only) |
| `iproute` | the `ip` commands `netns` and `cleanup` run |
| `cleanup` | run registry; `cleanup_stale` removes what a killed run left behind |
| `procfs` | process identity from /proc (pid reuse guard) |
"""

from fctlab.emulate.runner import emulate

__all__ = ["emulate"]
