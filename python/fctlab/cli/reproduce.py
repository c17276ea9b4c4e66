"""`fctlab reproduce PAPER`: a paper's experiments run and reported into experiments/
(`fctlab.reproduce`), and the index of every experiment."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab reproduce` to the command's subparsers."""
    rp = sub.add_parser("reproduce", help="run a paper's experiments and write their reports into experiments/")
    rp.add_argument(
        "paper",
        metavar="PAPER",
        help="all (every paper, then the index of every experiment: experiments/README.md and index.html), "
        "index (only that index, from the reports on disk), or one paper: a folder of the checkout's experiments/ "
        "with a paper.toml (here rc3, rcp, explicit, emulated, datacenter, hpcc; `fctlab reproduce all --list` lists "
        "their experiments). The emulated paper's emulations run one at a time whatever --jobs says",
    )
    rp.add_argument(
        "--quick",
        action="store_true",
        help="fewer seeds and shorter runs; reports go to results/quick/ instead of experiments/",
    )
    rp.add_argument("--only", action="append", metavar="EXPERIMENT", help="run only this experiment (repeatable)")
    rp.add_argument(
        "-j", "--jobs", type=options.jobs, help="parallel processes for simulations (default: all cores; emulations: 1)"
    )
    rp.add_argument("--list", action="store_true", help="list the experiments and exit")
    rp.add_argument(
        "--root",
        metavar="DIR",
        help="the checkout whose experiments/ (its paper folders, experiments/PAPER/paper.toml) to run and write "
        "(default: the current directory)",
    )
    rp.set_defaults(func=cmd_reproduce)


def _repo_root(given: str | None = None) -> Path:
    """The checkout whose experiments/ directory reproductions use: `given` (`--root`), else the
    current directory."""
    if given is not None:
        root = Path(given)
        if not (root / "experiments").is_dir():
            raise options.UsageError(
                f"--root {given!r}: no experiments/ directory in it; expected a checkout of fctlab"
            )
        return root.resolve()
    root = Path.cwd()
    if not (root / "experiments").is_dir():
        raise FileNotFoundError(
            f"no experiments/ directory in {root}: run `fctlab reproduce` from the repository root, or give --root"
        )
    return root


def cmd_reproduce(args: argparse.Namespace) -> int:
    from fctlab.reproduce import papers
    from fctlab.reproduce.framework import run_paper

    repo = _repo_root(args.root)
    known = papers(repo)
    if args.paper not in (*known, "all", "index"):
        raise options.UsageError(f"unknown paper {args.paper!r}; expected all, index or one of: {', '.join(known)}")
    chosen = list(known) if args.paper == "all" else [] if args.paper == "index" else [args.paper]
    if args.list:
        for paper in chosen or list(known):
            for e in known[paper]():
                print(f"{paper + ' ' if len(chosen) != 1 else ''}{e.name:24s} {e.title}")
        return 0
    if args.only and len(chosen) != 1:
        raise options.UsageError(f"--only: names an experiment of one paper; {args.paper!r} is not a paper")
    failed = 0
    for paper in chosen:
        try:
            failed += run_paper(
                paper,
                known[paper](),
                repo,
                quick=args.quick,
                only=args.only,
                jobs=args.jobs,
                cache=None,
                say=lambda m: print(m, file=sys.stderr),
            )
        except ValueError as e:
            raise options.UsageError(str(e)) from None
    if args.paper in ("all", "index"):
        from fctlab.reproduce.index import counts, write_index

        root = repo / ("results/quick" if args.quick else "experiments")
        md, page, entries = write_index(root, known, quick=args.quick)
        tally = ", ".join(f"{n} {s}" for s, n in sorted(counts(entries).items()))
        print(f"index of {len(entries)} experiments ({tally}) -> {md}, {page}", file=sys.stderr)
    return options.EXIT_RUNS_FAILED if failed else 0
