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

    a, b = load(args.a), load(args.b)
    c = compare(a.flows, b.flows)
    # An estimate's numbers are not a run's: say so beside them (JSON: `estimates`, by side).
    estimates = {side: m for side, m in (("a", a.estimated_by), ("b", b.estimated_by)) if m}
    if args.json:
        print(json.dumps({**c, "estimates": estimates} if estimates else c, indent=2))
        return 0
    print(format_compare(c, args.a, args.b))
    for side, method in estimates.items():
        out = args.a if side == "a" else args.b
        print(f"note: {out} is an estimate (fctlab estimate --method {method}), not a packet-level run")
    return 0
