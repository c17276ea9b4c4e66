"""`fctlab hpcc run TOPOLOGY FLOWS -o OUT`: HPCC's ns-3 simulator files run, and its fct.txt written
(`fctlab.tools.hpcc_files`, docs/hpcc-files.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab hpcc` to the command's subparsers."""
    hp = sub.add_parser("hpcc", help="HPCC's ns-3 simulator files: run its topology and flow files, write its fct.txt")
    hp_sub = hp.add_subparsers(dest="hpcc_command", required=True, metavar="COMMAND")
    hr = hp_sub.add_parser(
        "run",
        help="run an HPCC topology file and flow file; write fctlab's results and HPCC's fct.txt into OUT "
        "(docs/hpcc-files.md)",
    )
    hr.add_argument("topology", metavar="TOPOLOGY", help="HPCC topology file (e.g. mix/topology.txt)")
    hr.add_argument("flows", metavar="FLOWS", help="HPCC flow file (e.g. mix/flow.txt)")
    hr.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUT", help="results directory")
    hr.add_argument(
        "--transport",
        metavar="TABLE",
        help="transport fields as a TOML inline table, e.g. '{cc = \"dctcp\", iw = 10}', over the default "
        "(fctlab's TCP with HPCC's packets: mss = 1000, header = 48)",
    )
    hr.add_argument("--seed", type=options.seed, help="the run's seed (default 1)")
    hr.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of the scenario made from the files, e.g. queues.router.limit=1MB (repeatable)",
    )
    hr.add_argument(
        "--standalone",
        choices=["hpcc", "fctlab"],
        default="hpcc",
        help="what fct.txt's standalone_fct holds: HPCC's formula on the flow's path (default), or fctlab's ideal FCT",
    )
    hr.add_argument(
        "--ignore-extra-lines",
        action="store_true",
        help="ignore lines after the counts the files declare, as HPCC's simulator does (default: an error)",
    )
    hr.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    hr.set_defaults(func=cmd_hpcc_run)


def _transport_table(text: str | None) -> dict | None:
    """`--transport`: a TOML inline table of transport fields."""
    import tomllib

    if text is None:
        return None
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = None
    if not isinstance(value, dict):
        raise options.UsageError(
            f"field `--transport`: expected a TOML inline table like '{{cc = \"dctcp\"}}', got {text!r}"
        )
    return value


def cmd_hpcc_run(args: argparse.Namespace) -> int:
    """`fctlab hpcc run`: the scenario of two HPCC files, run into OUT, plus OUT/fct.txt."""
    from fctlab.run import run_to
    from fctlab.tools import hpcc_files
    from fctlab.tools.report import format_summary

    extra = "ignore" if args.ignore_extra_lines else "error"
    spec = hpcc_files.scenario(args.topology, args.flows, transport=_transport_table(args.transport), extra_lines=extra)
    out = Path(args.out)
    result = run_to(
        spec, out, seed=args.seed, overrides=options.overrides(args.sets), progress=options.progress_wanted(args.quiet)
    )
    written = hpcc_files.write_fct(result, out / "fct.txt", args.flows, standalone=args.standalone)
    if not args.quiet:
        print(format_summary(result.summary, result.notices))
        left = result.flows.height - written
        note = f" ({left} did not complete and are left out, as HPCC leaves them out)" if left else ""
        print(f"fct.txt: {written} flows{note}", file=sys.stderr)
        print(f"results in {out}", file=sys.stderr)
    return 0
