"""`fctlab estimate SCENARIO -o OUT`: the scenario's flow completion times estimated without the
packet level (`fctlab.estimate`); `--validate` runs the packet level too and writes the error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab estimate` to the command's subparsers."""
    from fctlab.tools.estimate import METHODS

    e = sub.add_parser(
        "estimate",
        help="estimate a scenario's flow completion times without the packet level (seconds, not hours)",
        description="Writes a results directory like `fctlab run` (flows.parquet, summary.json, ...), its "
        "completion times estimated: " + "; ".join(f"{m}: {what}" for m, what in METHODS.items()) + ".",
    )
    options.scenario_args(e)
    e.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUT", help="results directory")
    e.add_argument("--method", choices=sorted(METHODS), default="fluid", help="how to estimate (default: fluid)")
    e.add_argument(
        "--validate",
        action="store_true",
        help="also run the packet level (into OUT/packet) and write the estimate's error per size bin "
        "(OUT/validation.md, OUT/validation.parquet)",
    )
    e.add_argument(
        "--validate-duration",
        metavar="D",
        default=None,
        help="validate on a copy whose flows arrive for D (e.g. 100ms) instead of the whole scenario, "
        "whose packet level is out of reach: OUT holds the whole scenario's estimate, OUT/copy the "
        "copy's estimate, its packet level and the error table",
    )
    e.add_argument(
        "-j", "--jobs", type=options.jobs, default=None, metavar="N", help="links: processes (default: CPU count)"
    )
    e.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="links: run the link problems on a Dask cluster, local[:N] or tcp://HOST:PORT (as fctlab sweep)",
    )
    e.add_argument(
        "--epsilon",
        type=options.fraction,
        default=None,
        metavar="E",
        help="links: links whose flow sizes, gaps and load differ by at most E share one problem "
        "(default 0.1, as Parsimon; 0 runs every busy link)",
    )
    e.add_argument(
        "--correction",
        metavar="MODEL",
        default=None,
        help="correct the estimate's slowdowns with a learned model (a JSON file fitted on packet-level runs, "
        "e.g. experiments/estimate/validation/correction-fluid.json; docs/estimate.md)",
    )
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    e.set_defaults(func=cmd_estimate)


def cmd_estimate(args: argparse.Namespace) -> int:
    """`fctlab estimate`: estimate, write OUT, print the summary (and the error table)."""
    from fctlab.tools.estimate import COPY_DIR, VALIDATION_TEXT, estimate_to, validate
    from fctlab.tools.report import format_summary

    out = Path(args.out)
    if args.method != "links" and (args.cluster is not None or args.jobs is not None or args.epsilon is not None):
        raise options.UsageError(
            f"--jobs, --cluster and --epsilon: only the links method runs problems, not --method {args.method}"
        )
    common = {
        "method": args.method,
        "seed": args.seed,
        "overrides": options.overrides(args.sets),
        "progress": options.progress_wanted(args.quiet),
        "epsilon": args.epsilon,
        "correction": args.correction,
    }

    if args.validate_duration is not None:
        _check_copy(args.scenario, common["overrides"], args.validate_duration)
    table_dir = out
    with options.cluster_client(args.cluster, args.jobs) as client:
        if args.validate_duration is not None:
            result = estimate_to(args.scenario, out, jobs=args.jobs, client=client, **common)
            table_dir = out / COPY_DIR
            note = (
                f"Measured on a copy of the scenario whose flows arrive for {args.validate_duration} "
                f"(`{table_dir}`), not on the whole scenario, whose estimate is in `{out}` and whose "
                "packet level was not run."
            )
            copy = {**common, "overrides": {**common["overrides"], "duration": args.validate_duration}}
            validate(args.scenario, table_dir, jobs=args.jobs, client=client, note=note, **copy)
        elif args.validate:
            result = validate(args.scenario, out, jobs=args.jobs, client=client, **common)[0]
        else:
            result = estimate_to(args.scenario, out, jobs=args.jobs, client=client, **common)
    if not args.quiet:
        print(format_summary(result.summary, result.notices))
        if args.validate or args.validate_duration is not None:
            print()
            print((table_dir / VALIDATION_TEXT).read_text(), end="")
        print(f"results in {out}", file=sys.stderr)
    return 0


def _check_copy(scenario: str, overrides: dict, duration: str) -> None:
    """A usage error unless the shortened copy measures some flows: its duration past the
    scenario's `measure_from`."""
    from fctlab.quantity import parse_time
    from fctlab.scenario import load_scenario, with_overrides

    spec = with_overrides(load_scenario(scenario)[0], overrides)
    d = parse_time(duration, "--validate-duration")
    start = parse_time(spec.get("measure_from", 0), "measure_from")
    if not d > start:
        raise options.UsageError(
            f"--validate-duration {duration}: the copy would measure no flow; expected a duration past "
            f"the scenario's measure_from ({spec.get('measure_from')})"
        )
