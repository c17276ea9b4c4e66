"""`fctlab compare OUT_A OUT_B`: the FCT reduction from run A to run B."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab compare` to the command's subparsers."""
    c = sub.add_parser("compare", help="FCT reduction from run A to run B (over flows, bytes, size bins)")
    c.add_argument("a", metavar="OUT_A")
    c.add_argument("b", metavar="OUT_B")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    c.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """`fctlab compare`: reductions of mean FCT from A to B."""
    from fctlab.analysis import compare
    from fctlab.result import load
    from fctlab.tools.report import format_compare

    c = compare(load(args.a).flows, load(args.b).flows)
    print(json.dumps(c, indent=2) if args.json else format_compare(c, args.a, args.b))
    return 0
