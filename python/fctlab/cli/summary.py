"""`fctlab summary OUT`: the summary of a results directory, recomputed from flows.parquet."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab summary` to the command's subparsers."""
    s = sub.add_parser("summary", help="print the summary of a results directory")
    s.add_argument("out", metavar="OUT")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.set_defaults(func=cmd_summary)


def cmd_summary(args: argparse.Namespace) -> int:
    """`fctlab summary`: the summary of a results directory, recomputed from flows.parquet."""
    from fctlab.result import load
    from fctlab.tools.report import format_summary

    result = load(args.out)
    print(json.dumps(result.summary, indent=2) if args.json else format_summary(result.summary, result.notices))
    return 0
