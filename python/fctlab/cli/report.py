"""`fctlab report RESULTS... -o FILE`: one interactive HTML report of results directories
(`fctlab.html.results`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab report` to the command's subparsers."""
    rep = sub.add_parser("report", help="write an interactive HTML report of one or more results directories")
    rep.add_argument("results", nargs="+", metavar="RESULTS", help="results directory (fctlab run -o, or a sweep's)")
    rep.add_argument("-o", "--out", required=True, metavar="FILE", help="the HTML file to write, e.g. report.html")
    rep.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """`fctlab report`: one HTML file with the summaries and plots of the given runs."""
    from fctlab.html.page import write_page

    for d in args.results:
        if not Path(d).is_dir():
            raise options.UsageError(
                f"RESULTS {d!r}: no such directory; expected a results directory written by fctlab run -o"
            )
    out = Path(args.out)
    if out.is_dir():
        raise options.UsageError(f"-o {args.out!r} is a directory; expected the path of an HTML file to write")
    if not out.parent.is_dir():
        raise options.UsageError(f"-o {args.out!r}: directory {str(out.parent)!r} does not exist")
    from fctlab.html.results import load_labelled, report_page

    try:
        results = load_labelled(args.results)
    except FileNotFoundError as e:
        raise options.UsageError(f"RESULTS: {e}; expected a results directory written by fctlab run -o") from None
    try:
        write_page(out, report_page(results))
    except OSError as e:
        raise options.UsageError(
            f"-o {args.out!r}: cannot write it ({e.strerror or e}); expected a writable file path"
        ) from None
    print(f"wrote {out}", file=sys.stderr)
    return 0
