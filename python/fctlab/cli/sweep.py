"""`fctlab sweep SWEEP -o OUTDIR`: every run of a sweep file, in processes or on a Dask cluster
(`fctlab.tools.sweep`, `fctlab.tools.cluster`); exit 1 if a run failed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab sweep` to the command's subparsers."""
    w = sub.add_parser("sweep", help="run a parameter sweep in parallel processes or on a Dask cluster")
    w.add_argument("sweep", metavar="SWEEP", help="sweep file (.toml)")
    w.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUTDIR")
    w.add_argument("-j", "--jobs", type=options.jobs, default=None, metavar="N", help="processes (default: CPU count)")
    w.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    w.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run on a Dask cluster: local[:N] (N worker processes on this machine; N defaults to -j) "
        "or tcp://HOST:PORT (a running scheduler); see docs/sweeps.md",
    )
    w.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    """`fctlab sweep`: every run of a sweep file; exit 1 if any failed."""
    from fctlab.tools.sweep import INDEX_FILE, load_sweep, run_sweep

    spec = load_sweep(args.sweep)  # a bad sweep file fails before a cluster starts
    with options.cluster_client(args.cluster, args.jobs) as client:
        outcomes = run_sweep(
            spec,
            args.out,
            jobs=args.jobs,
            progress=options.progress_wanted(args.quiet),
            report=lambda msg: print(msg, file=sys.stderr),
            client=client,
        )
    failed = [o for o in outcomes if o.status == "failed"]
    skipped = sum(o.skipped for o in outcomes)
    print(
        f"{len(outcomes)} runs: {len(outcomes) - len(failed)} done ({skipped} skipped as already done), "
        f"{len(failed)} failed; index in {Path(args.out) / INDEX_FILE}",
        file=sys.stderr,
    )
    for o in failed:
        print(f"failed: {o.run.relpath}: {o.error}", file=sys.stderr)
    return options.EXIT_RUNS_FAILED if failed else 0
