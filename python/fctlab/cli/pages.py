"""`fctlab pages [DIR]`: the index.html (and with --screenshots index.png) beside every reproduced
experiment's README.md (`fctlab.html.experiments`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab pages` to the command's subparsers."""
    pg = sub.add_parser("pages", help="rewrite the index.html of every reproduced experiment from its README.md")
    pg.add_argument("dir", nargs="?", default="experiments", metavar="DIR", help="default: experiments")
    pg.add_argument(
        "--screenshots",
        action="store_true",
        help="also write index.png beside each, a screenshot in headless Chromium (playwright, /usr/bin/chromium)",
    )
    pg.set_defaults(func=cmd_pages)


def cmd_pages(args: argparse.Namespace) -> int:
    """`fctlab pages`: index.html (and with --screenshots index.png) beside every experiment's README."""
    from fctlab.html.experiments import write_all

    root = Path(args.dir)
    if not root.is_dir():
        raise options.UsageError(f"DIR {args.dir!r}: no such directory; expected experiments/ or a directory under it")
    if args.screenshots:
        from fctlab.html.browser import BrowserMissing, require

        try:
            require()  # before any page is written: the whole command or nothing
        except BrowserMissing as e:
            raise options.UsageError(f"--screenshots: {e}") from None
    written = write_all(root)
    if not written:
        raise options.UsageError(
            f"DIR {args.dir!r}: no README.md under it; expected experiments/ or a directory under it"
        )
    print(f"wrote {len(written)} index.html under {root}", file=sys.stderr)
    if args.screenshots:
        from fctlab.html.browser import screenshot_all
        from fctlab.html.experiments import is_index_page

        # The index of every experiment is not rewritten here (`fctlab reproduce index`), but shown.
        shots = screenshot_all(written + [p for p in [root / "index.html"] if is_index_page(p)])
        print(f"wrote {len(shots)} screenshots ({sum(p.stat().st_size for p in shots) / 1e6:.1f} MB)", file=sys.stderr)
    return 0
