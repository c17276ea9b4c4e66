"""`fctlab check [PROTOCOL]...`: the conformance battery (`fctlab.tools.check`); exit 1 if a check
failed."""

from __future__ import annotations

import argparse

from fctlab.atomic import write_text
from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab check` to the command's subparsers."""
    k = sub.add_parser(
        "check",
        help="run protocols through the conformance battery (packets conserved, completion under loss, "
        "fairness, determinism) and print what each passes",
    )
    k.add_argument(
        "protocols",
        nargs="*",
        metavar="PROTOCOL",
        help="protocol names, or host law plug-ins (rust:PATH, python:FILE:CLASS) (default: every built-in)",
    )
    k.add_argument(
        "--router",
        metavar="KIND",
        help="the router ports' queue kind instead of the protocol's own, e.g. a router law plug-in",
    )
    k.add_argument("--report", metavar="FILE", help="also write the verdicts as a Markdown table")
    k.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    """`fctlab check`: the conformance battery's table per protocol; exit 1 if a check failed."""
    from fctlab.tools import check

    names = list(args.protocols) or [p["name"] for p in check.protocols()]
    for name in names:
        check.protocol(name, args.router)  # an unknown name is a usage error before anything runs
    results = {}
    for name in names:
        results[name] = check.run_checks(name, args.router)
        print(check.format_table(name, results[name]), flush=True)
    if args.report:
        write_text(args.report, check.format_markdown(results, args.router))
    failed = any(v.status == check.FAIL for verdicts in results.values() for v in verdicts)
    return options.EXIT_RUNS_FAILED if failed else 0
