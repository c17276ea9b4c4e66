"""`fctlab bench`: the speed benchmark beside its history (`fctlab.tools.bench`), or with `--routers`
the per-packet cost of each router law (`fctlab.tools.router_cost`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fctlab.atomic import write_text
from fctlab.cli import options


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `fctlab bench` to the command's subparsers."""
    b = sub.add_parser(
        "bench",
        help="speed benchmark: wall time, sim s per wall s, packet-hops/s, peak memory, each beside the last "
        "entry of the benchmark history",
    )
    b.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO",
        help="scenario files (default: the suite given by --suite, else the two benchmark scenarios in examples/)",
    )
    b.add_argument(
        "--suite",
        choices=["default", "scaling", "large", "plugins", "all"],
        help="the scenarios to run instead of SCENARIO...: default (dumbbell and Internet-2 of examples/), scaling "
        "(benchmarks/scenarios/: fat tree with 64, 512 and 4,096 flows, a 1,000-router graph, 10^6 one-packet "
        "flows), large (a 10,000-router graph, a k = 64 fat tree, a k = 16 fat tree cut in two, a k = 32 fat tree at "
        "100 Gb/s loaded from every host, the HPCC paper's 320-host fabric), plugins (the default "
        "two with NewReno as the template's Rust plug-in and as a Python one) or all",
    )
    b.add_argument("--repeat", type=options.jobs, default=1, help="runs per scenario; the median is reported")
    b.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    b.add_argument(
        "--history",
        metavar="PATH",
        default=None,
        help="the benchmark history to compare with and record into (default: benchmarks/history.jsonl)",
    )
    b.add_argument(
        "--record",
        action="store_true",
        help="append this run as a new entry of the history and regenerate HISTORY.md beside it",
    )
    b.add_argument("--note", metavar="TEXT", help="--record: a note kept with the entry")
    b.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per packet-hop (perf stat where the CPU counters are readable, else "
        "valgrind's cachegrind) on a shortened run of each scenario; n/a without either tool",
    )
    b.add_argument(
        "--instructions-hops",
        type=options.count,
        default=None,
        metavar="N",
        help="--instructions: packet-hops of the shortened run (default 10,000,000)",
    )
    b.add_argument(
        "--render",
        action="store_true",
        help="only regenerate HISTORY.md from the history file and exit",
    )
    b.add_argument(
        "--routers",
        action="store_true",
        help="time each explicit router law per packet instead (seed 003 sec. IV-I), beside the paper's counts",
    )
    b.add_argument(
        "--packets", type=options.count, default=2_000_000, help="--routers: packets per round (default 2,000,000)"
    )
    b.add_argument("--report", metavar="FILE", help="--routers: also write a Markdown report")
    b.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from fctlab.tools import bench as b

    # The options of the scenario benchmark, which --routers does not take.
    scenario_options = {
        "--suite": args.suite,
        "--history": args.history,
        "--record": args.record,
        "--note": args.note,
        "--instructions": args.instructions,
        "--instructions-hops": args.instructions_hops,
        "--render": args.render,
    }
    given = [name for name, value in scenario_options.items() if value not in (None, False)]
    if args.routers:
        if given:
            raise options.UsageError(f"field `{given[0]}`: not meaningful with --routers")
        return _bench_routers(args)
    if args.report:
        raise options.UsageError("field `--report`: only meaningful with --routers")
    if args.note is not None and not args.record:
        raise options.UsageError("field `--note`: only meaningful with --record")
    if args.instructions_hops is not None and not args.instructions:
        raise options.UsageError("field `--instructions-hops`: only meaningful with --instructions")
    history = Path(args.history or b.DEFAULT_HISTORY)
    if args.render:
        if args.scenarios or args.suite or args.record or args.instructions:
            raise options.UsageError("field `--render`: regenerates HISTORY.md and runs nothing; give only --history")
        if not history.is_file():
            raise FileNotFoundError(f"no benchmark history at {history}")
        print(f"wrote {b.write_markdown(history)}", file=sys.stderr)
        return 0
    if args.scenarios and args.suite:
        raise options.UsageError("field `--suite`: give scenario files or --suite, not both")

    paths = list(args.scenarios) or list(b.SUITES[args.suite or "default"])
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"scenario file not found: {p}")
    if any("scenarios/plugins/" in p for p in paths):
        from fctlab.tools import plugins

        try:
            plugins.build(b.PLUGIN_TEMPLATE, quiet=True)  # the library the plug-in scenarios name
        except plugins.PluginBuildError as e:
            raise options.UsageError(str(e)) from e
    entries = b.read_history(history)  # a damaged history is refused before the runs, not after
    rows = b.bench(
        paths,
        repeat=args.repeat,
        instructions=args.instructions,
        instruction_hops=args.instructions_hops or b.INSTRUCTION_HOPS,
    )
    print(b.format_table(rows))
    print()
    if entries:
        print(b.format_comparison(rows, entries, str(history)))
    else:
        print(f"no earlier entry to compare with: {history} is missing or empty", file=sys.stderr)
    if args.json:
        write_text(Path(args.json), json.dumps(rows, indent=2) + "\n")
    if args.record:
        suite = args.suite or (None if args.scenarios else "default")
        entry = b.make_entry(
            rows, repeat=args.repeat, suite=suite, note=args.note, ignore=[history, b.markdown_path(history)]
        )
        b.append_history(history, entry)
        md = b.write_markdown(history)
        print(f"recorded {entry['commit']} in {history} ({md} regenerated)", file=sys.stderr)
    return 0


def _bench_routers(args: argparse.Namespace) -> int:
    from fctlab.tools import router_cost

    if args.scenarios:
        raise options.UsageError("field `SCENARIO`: --routers times the router laws, not scenarios; give no scenario")
    rows = router_cost.measure(packets=args.packets, repeat=max(args.repeat, 3))
    print(router_cost.format_table(rows))
    if args.json:
        write_text(Path(args.json), json.dumps(rows, indent=2) + "\n")
    if args.report:
        write_text(Path(args.report), router_cost.markdown(rows))
    return 0
