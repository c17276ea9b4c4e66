"""`fctlab hpcc run TOPOLOGY FLOWS -o OUT` and `fctlab hpcc run CONFIG -o OUT`: HPCC's ns-3 simulator
files run, and its fct.txt (and, from a configuration, pfc.txt) written (`fctlab.tools.hpcc_files`,
`fctlab.tools.hpcc_config`, docs/hpcc-files.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fctlab.cli import options
from fctlab.errors import ScenarioError


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab hpcc` to the command's subparsers."""
    hp = sub.add_parser("hpcc", help="HPCC's ns-3 simulator files: run its topology and flow files, write its fct.txt")
    hp_sub = hp.add_subparsers(dest="hpcc_command", required=True, metavar="COMMAND")
    hr = hp_sub.add_parser(
        "run",
        help="run HPCC's configuration file (CONFIG), or a topology file and a flow file; write fctlab's "
        "results and HPCC's fct.txt into OUT (docs/hpcc-files.md)",
    )
    hr.add_argument(
        "files",
        nargs="+",
        metavar="CONFIG | TOPOLOGY FLOWS",
        help="HPCC's configuration file (e.g. mix/config.txt: the topology, flows, fabric and transport it "
        "names), or its topology file and flow file (e.g. mix/topology.txt mix/flow.txt)",
    )
    hr.add_argument("-o", "--out", required=True, type=options.out_dir, metavar="OUT", help="results directory")
    hr.add_argument(
        "--root",
        metavar="DIR",
        help="with CONFIG: the directory its relative paths start from, where HPCC's simulator runs (default: "
        "CONFIG's parent's parent, `simulation/` for `simulation/mix/config.txt`)",
    )
    hr.add_argument(
        "--lenient",
        action="store_true",
        help="with CONFIG: a key fctlab does not model is a warning, and the run goes on as it says (default: "
        "an error)",
    )
    hr.add_argument(
        "--transport",
        metavar="TABLE",
        help="with TOPOLOGY FLOWS: transport fields as a TOML inline table, e.g. '{cc = \"dctcp\", iw = 10}', "
        "over the default (fctlab's TCP with HPCC's packets: mss = 1000, header = 48)",
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
        "--completion",
        choices=["sender", "receiver"],
        default="sender",
        help="where fct.txt's fct ends: at the sender's last ACK, as HPCC's simulator (default), or when the "
        "receiver held every byte (fctlab's fct_s)",
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
    """`fctlab hpcc run`: the scenario of HPCC's files, run into OUT, plus OUT/fct.txt."""
    from fctlab.tools import hpcc_files

    extra = "ignore" if args.ignore_extra_lines else "error"
    if len(args.files) == 1:
        return _run_config(args, extra)
    if len(args.files) != 2:
        raise options.UsageError(
            f"expected CONFIG, or TOPOLOGY and FLOWS, got {len(args.files)} files: {' '.join(args.files)}"
        )
    for flag, given in (("--root", args.root is not None), ("--lenient", args.lenient)):
        if given:
            raise options.UsageError(f"{flag}: only with a configuration file (one file), got TOPOLOGY and FLOWS")
    topology, flows = args.files
    spec = hpcc_files.scenario(topology, flows, transport=_transport_table(args.transport), extra_lines=extra)
    result = _run(args, spec)
    written = hpcc_files.write_fct(
        result, Path(args.out) / "fct.txt", flows, standalone=args.standalone, completion=args.completion
    )
    _report(args, result, written)
    return 0


def _run_config(args: argparse.Namespace, extra: str) -> int:
    """HPCC's configuration file: its scenario run into OUT; fct.txt and pfc.txt written into OUT
    and where its FCT_OUTPUT_FILE and PFC_OUTPUT_FILE say."""
    from fctlab.atomic import write_text
    from fctlab.tools import hpcc_config, hpcc_files

    if args.transport is not None:
        raise options.UsageError(
            "--transport: the configuration's CC_MODE and keys make the transport; use --set transport.KEY=VALUE"
        )
    cfg = hpcc_config.read_config(args.files[0], args.root, lenient=args.lenient, extra_lines=extra)
    for warning in cfg.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for key, target in (("FCT_OUTPUT_FILE", cfg.fct_output), ("PFC_OUTPUT_FILE", cfg.pfc_output)):
        if not target.parent.is_dir():
            raise ScenarioError(
                f"{cfg.path}: field `{key}`: expected a file in an existing directory (relative to {cfg.root}), "
                f"got {target}"
            )
    result = _run(args, cfg.scenario)
    out = Path(args.out)
    written = hpcc_files.write_fct(
        result,
        out / "fct.txt",
        cfg.flow_file,
        payload=cfg.payload,
        header=hpcc_files.HEADER,
        standalone=args.standalone,
        completion=args.completion,
    )
    write_text(cfg.fct_output, (out / "fct.txt").read_text())
    pfc = "".join(f"{line}\n" for line in result.pfc_log or [])
    write_text(cfg.pfc_output, pfc)
    if result.pfc_log is None:
        write_text(out / "pfc.txt", pfc)
    _report(args, result, written, also=[cfg.fct_output, cfg.pfc_output])
    return 0


def _run(args: argparse.Namespace, spec: dict):
    from fctlab.run import run_to

    return run_to(
        spec,
        Path(args.out),
        seed=args.seed,
        overrides=options.overrides(args.sets),
        progress=options.progress_wanted(args.quiet),
    )


def _report(args: argparse.Namespace, result, written: int, also: list[Path] | None = None) -> None:
    from fctlab.tools.report import format_summary

    if args.quiet:
        return
    print(format_summary(result.summary, result.notices))
    left = result.flows.height - written
    note = f" ({left} did not complete and are left out, as HPCC leaves them out)" if left else ""
    print(f"fct.txt: {written} flows{note}", file=sys.stderr)
    print(f"results in {args.out}", file=sys.stderr)
    if also:
        print(f"also written: {', '.join(str(p) for p in also)}", file=sys.stderr)
