"""`fctlab run SCENARIO -o OUT`: run a scenario, write its results, print its summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options
from fctlab.errors import StallError


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab run` to the command's subparsers."""
    r = sub.add_parser("run", help="run a scenario and write its results")
    options.scenario_args(r)
    r.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUT", help="results directory")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    r.add_argument(
        "--threads",
        type=options.threads,
        metavar="N",
        help="threads for a scenario cut into partitions (its [parallel] table); the results are the same on "
        "any number (default: the table's threads, else one per partition up to the cores); a run uses at "
        "most one per partition and one per core, and says so when it uses fewer than asked",
    )
    r.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    """`fctlab run`: run, write OUT, print the summary."""
    from fctlab.run import run_to
    from fctlab.tools.report import format_summary

    out = Path(args.out)
    try:
        result = run_to(
            args.scenario,
            out,
            seed=args.seed,
            overrides=options.overrides(args.sets),
            progress=options.progress_wanted(args.quiet),
            threads=args.threads,
            notify=lambda notice: print(f"note: {notice}", file=sys.stderr),
        )
    except StallError as e:
        if not args.quiet and e.result is not None:
            print(format_summary(e.result.summary, e.result.notices))
        raise
    if not args.quiet:
        print(format_summary(result.summary, result.notices))
        print(f"results in {out}", file=sys.stderr)
    return 0
