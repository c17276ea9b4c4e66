"""`fctlab emulate SCENARIO -o OUT`: run a scenario for real (`fctlab.emulate`), write its results,
print its summary and each process's CPU load."""

from __future__ import annotations

import argparse
import sys

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab emulate` to the command's subparsers."""
    e = sub.add_parser(
        "emulate",
        help="run a scenario for real: the same protocol code over UDP sockets, in real time, through emulated links",
    )
    options.scenario_args(e)
    e.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUT", help="results directory")
    e.add_argument(
        "--mode",
        choices=["auto", "netns", "loopback"],
        default="auto",
        help="where the processes live: network namespaces joined by veth pairs (root), or loopback; "
        "auto: namespaces where possible",
    )
    e.add_argument(
        "--time-scale",
        type=options.scale,
        metavar="K",
        help="wall seconds per run-time second (rates and delays scaled together; default: the smallest whole "
        "K that keeps the fastest flow under 100 Mb/s of real traffic)",
    )
    e.add_argument("--max-wall", type=options.seconds, metavar="S", help="wall-clock limit of the run, seconds")
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    e.set_defaults(func=cmd_emulate)


def cmd_emulate(args: argparse.Namespace) -> int:
    """`fctlab emulate`: emulate, write OUT, print the summary and each process's CPU load."""
    from fctlab.emulate import emulate
    from fctlab.tools.report import format_summary, table

    result = emulate(
        args.scenario,
        seed=args.seed,
        overrides=options.overrides(args.sets),
        mode=args.mode,
        time_scale=args.time_scale,
        max_wall_s=args.max_wall,
        progress=options.progress_wanted(args.quiet),
    )
    out = result.write(args.out)
    if not args.quiet:
        emu = result.meta["emulation"]
        print(format_summary(result.summary, result.notices))
        rows = [
            [p["name"], p["role"], f"{p['cpu_s']:.3f}", f"{p['wall_s']:.3f}", f"{100 * p['cpu_load']:.1f}"]
            for p in emu["processes"]
        ]
        print(f"\nemulation: {emu['mode']}, time scale {emu['time_scale']:g}")
        print(table(["process", "role", "CPU s", "wall s", "CPU load %"], rows))
        print(f"results in {out}", file=sys.stderr)
    return 0
