"""`fctlab validate SCENARIO`: build a scenario (every check the core makes) without running it."""

from __future__ import annotations

import argparse

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab validate` to the command's subparsers."""
    v = sub.add_parser("validate", help="check a scenario and build it without running")
    options.scenario_args(v)
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    """`fctlab validate`: build the simulation (every check the core makes) without running it."""
    from fctlab.run import build

    sim, _ = build(args.scenario, seed=args.seed, overrides=options.overrides(args.sets))
    print(f"ok: {args.scenario} (horizon {float(sim.horizon):g} s)")
    for notice in getattr(sim, "notices", None) or []:
        print(f"note: {notice}")
    return 0
