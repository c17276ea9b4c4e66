"""One process of an emulation: `python -m fctlab.emulate.child router|host ...`.

Started by the orchestrator (`fctlab.emulate.runner`), never by hand. The process builds the
scenario (the same resolved JSON the orchestrator wrote), binds its UDP socket (printing
`ready PORT`), then hands control to the compiled core, which reads `host` / `start` / `stop`
lines on standard input and reports events on standard output (`fctlab_emu::control`).

- A host writes its report (JSON) to `--report` and exits.
- The router reads the links of the hosts whose kernel TCP it carries (`stack = "linux"`) from
  `--kernel-links`, a JSON list of `fctlab._core.KernelLink` (`fctlab.emulate.kernel`).
- The router, once stopped, writes its own report, folds in the hosts' reports (their files
  exist by then: the orchestrator stops the hosts first) and writes the run's Result into
  `--result`, the same tables `fctlab run` writes.

The process dies with the orchestrator (`procs.die_with_parent`), and the core ends its run when
standard input closes, so a SIGKILLed orchestrator leaves no emulation process running.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fctlab.emulate.child")
    p.add_argument("role", choices=["router", "host"])
    p.add_argument("--spec", required=True, type=Path, help="resolved scenario (JSON)")
    p.add_argument("--base", required=True, help="base directory of the scenario's relative paths")
    p.add_argument("--bind", required=True, help="IPv4 address of this process's socket")
    p.add_argument("--scale", required=True, type=float, help="wall seconds per run-time second")
    p.add_argument("--max-wall", required=True, type=float, help="wall seconds the run may last")
    p.add_argument("--parent", required=True, type=int, help="the orchestrator's pid")
    p.add_argument("--report", required=True, type=Path, help="where to write this process's report")
    p.add_argument("--node", type=int, help="host: its node id")
    p.add_argument("--router", help="host: the router's IP:PORT")
    p.add_argument("--host-reports", nargs="*", type=Path, default=[], help="router: the hosts' reports")
    p.add_argument("--result", type=Path, help="router: results directory to write")
    p.add_argument(
        "--kernel-links", type=Path, help="router: the kernel TCP hosts' links (JSON of fctlab._core.KernelLink)"
    )
    p.add_argument("--peer", action="append", default=[], help="host: NODE=IP of a host, for kernel TCP flows")
    return p


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from fctlab.procs import die_with_parent

    die_with_parent(args.parent)
    from fctlab import _core

    spec_text = args.spec.read_text()
    emu = _core.Emulation(spec_text, args.base)
    emu.bind(args.bind)
    if args.role == "host":
        peers = [(int(n), ip) for n, ip in (p.split("=", 1) for p in args.peer)]
        report = emu.run_host(args.node, args.router, args.scale, args.max_wall, peers)
        _write(args.report, report)
        return 0
    from fctlab.atomic import temp_name
    from fctlab.result import CAPTURE_NAME, Result

    links = _core.KernelLink.list_from_json(args.kernel_links.read_text()) if args.kernel_links else []
    # `[output.pcap]`: the router captures what its links deliver, as `fctlab run` does.
    capture = temp_name(args.result / CAPTURE_NAME) if emu.captures else None
    if capture is not None:
        args.result.mkdir(parents=True, exist_ok=True)
        emu.start_capture(str(capture))
    report = emu.run_router(args.scale, args.max_wall, links)
    if capture is not None:
        emu.finish_capture()
    _write(args.report, report)
    for path in args.host_reports:
        if path.is_file():
            emu.absorb(path.read_text())
    result = Result.from_core(emu.results(), json.loads(spec_text))
    result.capture_file = capture
    result.write(args.result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
