"""The `fctlab` command: run, emulate, summary, compare, report, pages, sweep, validate, hpcc run.

Every user error (missing file, bad TOML, bad `--set`, a scenario the core refuses, bad
arguments) prints one line "error: ..." on stderr and exits 2; no traceback. A sweep in which
some runs failed exits 1 after the others finished. A run a plug-in stopped, and a run that
stalled (nothing could happen any more while flows were open), exit 1; a stalled run writes
its results, prints its summary, then the error and one line per open flow (the first ten).
Ctrl-C (exit 130) and SIGTERM (exit 143) stop within about a second and say what was kept.
Tracebacks are left for real bugs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from fctlab.atomic import write_text
from fctlab.errors import PluginError, ScenarioError, StallError
from fctlab.scenario import parse_assignment

EXIT_USER_ERROR = 2
#: Exit code of a run a plug-in stopped (its results so far kept).
EXIT_PLUGIN_FAULT = 1
#: Exit code of a run that stalled (its results written, complete up to the stall).
EXIT_STALLED = 1
#: Open flows a stalled run's error lists, one line each.
STALL_LINES = 10
EXIT_RUNS_FAILED = 1


class _UsageError(Exception):
    """Bad command-line arguments (argparse's complaint, kept to one line)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


def _whole(low: int, high: int, shown_high: str | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (`shown_high`: how the message writes
    `high`). A value the core would take in a 64-bit integer is bounded here, so that no flag
    overflows into it."""
    accepted = f"a whole number from {low} to {shown_high or high}"

    def whole(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {text!r}") from None
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {n}")
        return n

    return whole


#: A count the core takes as a 64-bit integer (packets, packet-hops).
_count = _whole(1, 2**63 - 1, "2^63 - 1")
#: A seed: the core's u64.
_seed = _whole(0, 2**64 - 1, "2^64 - 1")
#: Threads of a partitioned run: at most one per partition (`fctlab.run.MAX_THREADS`, the core's
#: most partitions; kept here so that parsing the command line needs no core).
_threads = _whole(1, 1024)


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {n}")
    return n


def _scale(text: str) -> float:
    try:
        k = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}") from None
    if not k >= 1 or k == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text}")
    return k


def _seconds(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not s > 0 or s == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text}")
    return s


def _out_dir(text: str) -> str:
    # An empty -o would write into the current directory, mixing results with whatever is there.
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a results directory, got an empty path")
    return text


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fctlab", description="Deterministic packet-level simulator for flow-completion-time studies.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def scenario_args(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
        sp.add_argument("--seed", type=_seed, help="override the scenario's seed")
        sp.add_argument(
            "--set",
            dest="sets",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="override a scenario field by dotted path, e.g. workload.0.load=0.5 (repeatable)",
        )

    r = sub.add_parser("run", help="run a scenario and write its results")
    scenario_args(r)
    r.add_argument("-o", "--out", required=True, type=_out_dir, metavar="OUT", help="results directory")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    r.add_argument(
        "--threads",
        type=_threads,
        metavar="N",
        help="threads for a scenario cut into partitions (its [parallel] table); the results are the same on "
        "any number (default: the table's threads, else one per partition up to the cores); a run uses at "
        "most one per partition and one per core, and says so when it uses fewer than asked",
    )
    r.set_defaults(func=cmd_run)

    e = sub.add_parser(
        "emulate",
        help="run a scenario for real: the same protocol code over UDP sockets, in real time, through emulated links",
    )
    scenario_args(e)
    e.add_argument("-o", "--out", required=True, type=_out_dir, metavar="OUT", help="results directory")
    e.add_argument(
        "--mode",
        choices=["auto", "netns", "loopback"],
        default="auto",
        help="where the processes live: network namespaces joined by veth pairs (root), or loopback; "
        "auto: namespaces where possible",
    )
    e.add_argument(
        "--time-scale",
        type=_scale,
        metavar="K",
        help="wall seconds per run-time second (rates and delays scaled together; default: the smallest whole "
        "K that keeps the fastest flow under 100 Mb/s of real traffic)",
    )
    e.add_argument("--max-wall", type=_seconds, metavar="S", help="wall-clock limit of the run, seconds")
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    e.set_defaults(func=cmd_emulate)

    s = sub.add_parser("summary", help="print the summary of a results directory")
    s.add_argument("out", metavar="OUT")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.set_defaults(func=cmd_summary)

    c = sub.add_parser("compare", help="FCT reduction from run A to run B (over flows, bytes, size bins)")
    c.add_argument("a", metavar="OUT_A")
    c.add_argument("b", metavar="OUT_B")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    c.set_defaults(func=cmd_compare)

    rep = sub.add_parser("report", help="write an interactive HTML report of one or more results directories")
    rep.add_argument("results", nargs="+", metavar="RESULTS", help="results directory (fctlab run -o, or a sweep's)")
    rep.add_argument("-o", "--out", required=True, metavar="FILE", help="the HTML file to write, e.g. report.html")
    rep.set_defaults(func=cmd_report)

    pg = sub.add_parser("pages", help="rewrite the index.html of every reproduced experiment from its README.md")
    pg.add_argument("dir", nargs="?", default="experiments", metavar="DIR", help="default: experiments")
    pg.add_argument(
        "--screenshots",
        action="store_true",
        help="also write index.png beside each, a screenshot in headless Chromium (playwright, /usr/bin/chromium)",
    )
    pg.set_defaults(func=cmd_pages)

    w = sub.add_parser("sweep", help="run a parameter sweep in parallel processes or on a Dask cluster")
    w.add_argument("sweep", metavar="SWEEP", help="sweep file (.toml)")
    w.add_argument("-o", "--out", required=True, type=_out_dir, metavar="OUTDIR")
    w.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N", help="processes (default: CPU count)")
    w.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    w.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run on a Dask cluster: local[:N] (N worker processes on this machine; N defaults to -j) "
        "or tcp://HOST:PORT (a running scheduler); see docs/sweeps.md",
    )
    w.set_defaults(func=cmd_sweep)

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
        "flows), large (a 10,000-router graph, a k = 64 fat tree, a k = 16 fat tree cut in two), plugins (the default "
        "two with NewReno as the template's Rust plug-in and as a Python one) or all",
    )
    b.add_argument("--repeat", type=_jobs, default=1, help="runs per scenario; the median is reported")
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
        type=_count,
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
    b.add_argument("--packets", type=_count, default=2_000_000, help="--routers: packets per round (default 2,000,000)")
    b.add_argument("--report", metavar="FILE", help="--routers: also write a Markdown report")
    b.set_defaults(func=cmd_bench)

    rp = sub.add_parser("reproduce", help="run a paper's experiments and write their reports into experiments/")
    rp.add_argument(
        "paper",
        metavar="PAPER",
        help="all (every paper, then the index of every experiment: experiments/README.md and index.html), "
        "index (only that index, from the reports on disk), or one paper: a folder of the checkout's experiments/ "
        "with a paper.toml (here rc3, rcp, explicit, emulated, datacenter; `fctlab reproduce all --list` lists "
        "their experiments). The emulated paper's emulations run one at a time whatever --jobs says",
    )
    rp.add_argument(
        "--quick",
        action="store_true",
        help="fewer seeds and shorter runs; reports go to results/quick/ instead of experiments/",
    )
    rp.add_argument("--only", action="append", metavar="EXPERIMENT", help="run only this experiment (repeatable)")
    rp.add_argument(
        "-j", "--jobs", type=_jobs, help="parallel processes for simulations (default: all cores; emulations: 1)"
    )
    rp.add_argument("--list", action="store_true", help="list the experiments and exit")
    rp.add_argument(
        "--root",
        metavar="DIR",
        help="the checkout whose experiments/ (its paper folders, experiments/PAPER/paper.toml) to run and write "
        "(default: the current directory)",
    )
    rp.set_defaults(func=cmd_reproduce)

    v = sub.add_parser("validate", help="check a scenario and build it without running")
    scenario_args(v)
    v.set_defaults(func=cmd_validate)

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

    hp = sub.add_parser("hpcc", help="HPCC's ns-3 simulator files: run its topology and flow files, write its fct.txt")
    hp_sub = hp.add_subparsers(dest="hpcc_command", required=True, metavar="COMMAND")
    hr = hp_sub.add_parser(
        "run",
        help="run an HPCC topology file and flow file; write fctlab's results and HPCC's fct.txt into OUT "
        "(docs/hpcc-files.md)",
    )
    hr.add_argument("topology", metavar="TOPOLOGY", help="HPCC topology file (e.g. mix/topology.txt)")
    hr.add_argument("flows", metavar="FLOWS", help="HPCC flow file (e.g. mix/flow.txt)")
    hr.add_argument("-o", "--out", required=True, type=_out_dir, metavar="OUT", help="results directory")
    hr.add_argument(
        "--transport",
        metavar="TABLE",
        help="transport fields as a TOML inline table, e.g. '{cc = \"dctcp\", iw = 10}', over the default "
        "(fctlab's TCP with HPCC's packets: mss = 1000, header = 48)",
    )
    hr.add_argument("--seed", type=_seed, help="the run's seed (default 1)")
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

    pl = sub.add_parser("plugin", help="write or build a Rust protocol plug-in (a crate against fctlab-plugin)")
    pl_sub = pl.add_subparsers(dest="plugin_command", required=True, metavar="COMMAND")
    pn = pl_sub.add_parser(
        "new",
        help="write a Rust plug-in crate in DIR (new or empty): a NewReno host law against this fctlab's API crate, "
        "which builds from any folder",
    )
    pn.add_argument("folder", metavar="DIR", help="the new crate's folder; its name is the crate's (e.g. my_cc)")
    pn.add_argument(
        "--name", help="the name the law exports, its label in the flows table (default: the folder's name)"
    )
    pn.set_defaults(func=cmd_plugin_new)
    pb = pl_sub.add_parser("build", help="cargo build --release the plug-in crate in DIR; print the spelling to use")
    pb.add_argument("folder", metavar="DIR", help="the plug-in crate's folder (e.g. examples/plugins/template)")
    pb.set_defaults(func=cmd_plugin_build)
    pe = pl_sub.add_parser(
        "equivalence",
        help="run the benchmark scenarios with the example plug-ins and with the built-ins they copy; "
        "compare the flows tables bit for bit",
    )
    pe.add_argument("--root", default=".", help="the fctlab repository (default: here)")
    pe.add_argument("--report", metavar="FILE", help="also write the report (Markdown)")
    pe.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    pe.set_defaults(func=cmd_plugin_equivalence)
    return p


def _overrides(sets: list[str]) -> dict:
    return dict(parse_assignment(s) for s in sets)


def _progress_wanted(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


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
            overrides=_overrides(args.sets),
            progress=_progress_wanted(args.quiet),
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


def cmd_emulate(args: argparse.Namespace) -> int:
    """`fctlab emulate`: emulate, write OUT, print the summary and each process's CPU load."""
    from fctlab.emulate import emulate
    from fctlab.tools.report import format_summary, table

    result = emulate(
        args.scenario,
        seed=args.seed,
        overrides=_overrides(args.sets),
        mode=args.mode,
        time_scale=args.time_scale,
        max_wall_s=args.max_wall,
        progress=_progress_wanted(args.quiet),
    )
    out = result.write(args.out)
    if not args.quiet:
        emu = result.meta["emulation"]
        print(format_summary(result.summary, result.notices))
        rows = [
            [p["name"], p["role"], f"{p['cpu_s']:.3f}", f"{p['wall_s']:.3f}", f"{100 * p['cpu_load']:.1f}"]
            for p in emu["processes"]
        ]
        print(f"\nemulation: {emu['mode']}, time scale {emu['time_scale']:g}")
        print(table(["process", "role", "CPU s", "wall s", "CPU load %"], rows))
        print(f"results in {out}", file=sys.stderr)
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    """`fctlab summary`: the summary of a results directory, recomputed from flows.parquet."""
    from fctlab.result import load
    from fctlab.tools.report import format_summary

    result = load(args.out)
    print(json.dumps(result.summary, indent=2) if args.json else format_summary(result.summary, result.notices))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """`fctlab compare`: reductions of mean FCT from A to B."""
    from fctlab.analysis import compare
    from fctlab.result import load
    from fctlab.tools.report import format_compare

    c = compare(load(args.a).flows, load(args.b).flows)
    print(json.dumps(c, indent=2) if args.json else format_compare(c, args.a, args.b))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """`fctlab report`: one HTML file with the summaries and plots of the given runs."""
    from fctlab.html.page import write_page

    for d in args.results:
        if not Path(d).is_dir():
            raise _UsageError(
                f"RESULTS {d!r}: no such directory; expected a results directory written by fctlab run -o"
            )
    out = Path(args.out)
    if out.is_dir():
        raise _UsageError(f"-o {args.out!r} is a directory; expected the path of an HTML file to write")
    if not out.parent.is_dir():
        raise _UsageError(f"-o {args.out!r}: directory {str(out.parent)!r} does not exist")
    from fctlab.html.results import load_labelled, report_page

    try:
        results = load_labelled(args.results)
    except FileNotFoundError as e:
        raise _UsageError(f"RESULTS: {e}; expected a results directory written by fctlab run -o") from None
    try:
        write_page(out, report_page(results))
    except OSError as e:
        raise _UsageError(
            f"-o {args.out!r}: cannot write it ({e.strerror or e}); expected a writable file path"
        ) from None
    print(f"wrote {out}", file=sys.stderr)
    return 0


def cmd_pages(args: argparse.Namespace) -> int:
    """`fctlab pages`: index.html (and with --screenshots index.png) beside every experiment's README."""
    from fctlab.html.experiments import write_all

    root = Path(args.dir)
    if not root.is_dir():
        raise _UsageError(f"DIR {args.dir!r}: no such directory; expected experiments/ or a directory under it")
    if args.screenshots:
        from fctlab.html.browser import BrowserMissing, require

        try:
            require()  # before any page is written: the whole command or nothing
        except BrowserMissing as e:
            raise _UsageError(f"--screenshots: {e}") from None
    written = write_all(root)
    if not written:
        raise _UsageError(f"DIR {args.dir!r}: no README.md under it; expected experiments/ or a directory under it")
    print(f"wrote {len(written)} index.html under {root}", file=sys.stderr)
    if args.screenshots:
        from fctlab.html.browser import screenshot_all
        from fctlab.html.experiments import is_index_page

        # The index of every experiment is not rewritten here (`fctlab reproduce index`), but shown.
        shots = screenshot_all(written + [p for p in [root / "index.html"] if is_index_page(p)])
        print(f"wrote {len(shots)} screenshots ({sum(p.stat().st_size for p in shots) / 1e6:.1f} MB)", file=sys.stderr)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """`fctlab sweep`: every run of a sweep file; exit 1 if any failed."""
    from fctlab.tools.sweep import INDEX_FILE, load_sweep, run_sweep

    def sweep(client: object = None) -> list:
        return run_sweep(
            spec,
            args.out,
            jobs=args.jobs,
            progress=_progress_wanted(args.quiet),
            report=lambda msg: print(msg, file=sys.stderr),
            client=client,
        )

    if args.cluster is None:
        spec = args.sweep
        outcomes = sweep()
    else:
        from fctlab.tools.cluster import Connection, check_address

        check_address(args.cluster)
        if args.jobs is not None and not args.cluster.startswith("local"):
            raise _UsageError(f"field `--jobs`: the workers of --cluster {args.cluster} are the scheduler's")
        spec = load_sweep(args.sweep)  # a bad sweep file fails before a cluster starts
        with Connection(args.cluster, workers=args.jobs) as client:
            outcomes = sweep(client)
    failed = [o for o in outcomes if o.status == "failed"]
    skipped = sum(o.skipped for o in outcomes)
    print(
        f"{len(outcomes)} runs: {len(outcomes) - len(failed)} done ({skipped} skipped as already done), "
        f"{len(failed)} failed; index in {Path(args.out) / INDEX_FILE}",
        file=sys.stderr,
    )
    for o in failed:
        print(f"failed: {o.run.relpath}: {o.error}", file=sys.stderr)
    return EXIT_RUNS_FAILED if failed else 0


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
            raise _UsageError(f"field `{given[0]}`: not meaningful with --routers")
        return _bench_routers(args)
    if args.report:
        raise _UsageError("field `--report`: only meaningful with --routers")
    if args.note is not None and not args.record:
        raise _UsageError("field `--note`: only meaningful with --record")
    if args.instructions_hops is not None and not args.instructions:
        raise _UsageError("field `--instructions-hops`: only meaningful with --instructions")
    history = Path(args.history or b.DEFAULT_HISTORY)
    if args.render:
        if args.scenarios or args.suite or args.record or args.instructions:
            raise _UsageError("field `--render`: regenerates HISTORY.md and runs nothing; give only --history")
        if not history.is_file():
            raise FileNotFoundError(f"no benchmark history at {history}")
        print(f"wrote {b.write_markdown(history)}", file=sys.stderr)
        return 0
    if args.scenarios and args.suite:
        raise _UsageError("field `--suite`: give scenario files or --suite, not both")

    paths = list(args.scenarios) or list(b.SUITES[args.suite or "default"])
    for p in paths:
        if not Path(p).is_file():
            raise FileNotFoundError(f"scenario file not found: {p}")
    if any("scenarios/plugins/" in p for p in paths):
        from fctlab.tools import plugins

        try:
            plugins.build(b.PLUGIN_TEMPLATE, quiet=True)  # the library the plug-in scenarios name
        except plugins.PluginBuildError as e:
            raise _UsageError(str(e)) from e
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
        raise _UsageError("field `SCENARIO`: --routers times the router laws, not scenarios; give no scenario")
    rows = router_cost.measure(packets=args.packets, repeat=max(args.repeat, 3))
    print(router_cost.format_table(rows))
    if args.json:
        write_text(Path(args.json), json.dumps(rows, indent=2) + "\n")
    if args.report:
        write_text(Path(args.report), router_cost.markdown(rows))
    return 0


def _repo_root(given: str | None = None) -> Path:
    """The checkout whose experiments/ directory reproductions use: `given` (`--root`), else the
    current directory."""
    if given is not None:
        root = Path(given)
        if not (root / "experiments").is_dir():
            raise _UsageError(f"--root {given!r}: no experiments/ directory in it; expected a checkout of fctlab")
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
        raise _UsageError(f"unknown paper {args.paper!r}; expected all, index or one of: {', '.join(known)}")
    chosen = list(known) if args.paper == "all" else [] if args.paper == "index" else [args.paper]
    if args.list:
        for paper in chosen or list(known):
            for e in known[paper]():
                print(f"{paper + ' ' if len(chosen) != 1 else ''}{e.name:24s} {e.title}")
        return 0
    if args.only and len(chosen) != 1:
        raise _UsageError(f"--only: names an experiment of one paper; {args.paper!r} is not a paper")
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
            raise _UsageError(str(e)) from None
    if args.paper in ("all", "index"):
        from fctlab.reproduce.index import counts, write_index

        root = repo / ("results/quick" if args.quick else "experiments")
        md, page, entries = write_index(root, known, quick=args.quick)
        tally = ", ".join(f"{n} {s}" for s, n in sorted(counts(entries).items()))
        print(f"index of {len(entries)} experiments ({tally}) -> {md}, {page}", file=sys.stderr)
    return EXIT_RUNS_FAILED if failed else 0


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
    return EXIT_RUNS_FAILED if failed else 0


def cmd_plugin_new(args: argparse.Namespace) -> int:
    """`fctlab plugin new DIR`: write the crate, say what it depends on and what to do next."""
    from fctlab.tools import plugins

    try:
        made = plugins.new_crate(args.folder, args.name)
    except plugins.PluginBuildError as e:
        raise _UsageError(str(e)) from e
    shown = args.folder.rstrip("/") or "."
    print(f'wrote {shown}/Cargo.toml and {shown}/src/lib.rs: a NewReno host law exported as "{made.name}"')
    if made.copied:
        print(
            f"its API crate is a copy in {shown}/fctlab-plugin (this fctlab was not installed from a checkout): the "
            "crate builds in any folder, on any machine; an fctlab of another plug-in API refuses its library naming "
            "both versions: then write a new crate with that fctlab's `fctlab plugin new` and move your law into it"
        )
    else:
        print(
            f"its API crate is this fctlab's checkout's, by absolute path ({made.api}): the crate builds in any "
            "folder while the checkout is there"
        )
    print(f"build it with: fctlab plugin build {shown}")
    return 0


def cmd_plugin_build(args: argparse.Namespace) -> int:
    """`fctlab plugin build DIR`: build the crate, print the library and how to name it."""
    from fctlab.tools import plugins

    try:
        lib = plugins.build(args.folder)
    except plugins.PluginBuildError as e:
        raise _UsageError(str(e)) from e
    try:
        shown = lib.relative_to(Path.cwd())
    except ValueError:
        shown = lib
    print(f"built {lib}")
    print(f'name it in a scenario (paths are relative to the scenario\'s folder): cc = "rust:{shown}"')
    return 0


def cmd_plugin_equivalence(args: argparse.Namespace) -> int:
    """`fctlab plugin equivalence`: the report; exit 1 if a flows table differs."""
    from fctlab.tools import plugins

    try:
        report, identical = plugins.equivalence(args.root, progress=_progress_wanted(args.quiet))
    except plugins.PluginBuildError as e:
        raise _UsageError(str(e)) from e
    print(report)
    if args.report:
        write_text(args.report, report)
    return 0 if identical else EXIT_RUNS_FAILED


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
        raise _UsageError(f"field `--transport`: expected a TOML inline table like '{{cc = \"dctcp\"}}', got {text!r}")
    return value


def cmd_hpcc_run(args: argparse.Namespace) -> int:
    """`fctlab hpcc run`: the scenario of two HPCC files, run into OUT, plus OUT/fct.txt."""
    from fctlab.run import run_to
    from fctlab.tools import hpcc_files
    from fctlab.tools.report import format_summary

    extra = "ignore" if args.ignore_extra_lines else "error"
    spec = hpcc_files.scenario(args.topology, args.flows, transport=_transport_table(args.transport), extra_lines=extra)
    out = Path(args.out)
    result = run_to(spec, out, seed=args.seed, overrides=_overrides(args.sets), progress=_progress_wanted(args.quiet))
    written = hpcc_files.write_fct(result, out / "fct.txt", args.flows, standalone=args.standalone)
    if not args.quiet:
        print(format_summary(result.summary, result.notices))
        left = result.flows.height - written
        note = f" ({left} did not complete and are left out, as HPCC leaves them out)" if left else ""
        print(f"fct.txt: {written} flows{note}", file=sys.stderr)
        print(f"results in {out}", file=sys.stderr)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """`fctlab validate`: build the simulation (every check the core makes) without running it."""
    from fctlab.run import build

    sim, _ = build(args.scenario, seed=args.seed, overrides=_overrides(args.sets))
    print(f"ok: {args.scenario} (horizon {float(sim.horizon):g} s)")
    for notice in getattr(sim, "notices", None) or []:
        print(f"note: {notice}")
    return 0


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror and e.filename:
        text = f"{e.strerror}: {e.filename}"
    else:
        text = str(e) or type(e).__name__
    # Notes say what was kept (a streamed run's rows: fctlab.run.run_to).
    text = "; ".join([text, *getattr(e, "__notes__", [])])
    return " ".join(text.split())


#: Exit code when stdout's reader closed the pipe: 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 141


def _silence_stdout() -> None:
    """Points stdout at /dev/null, so that flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `fctlab` console script; returns the exit code."""
    from fctlab.procs import Interrupted, stop_signals
    from fctlab.run import CoreNotBuilt

    try:
        args = _parser().parse_args(argv)
        with stop_signals():
            return args.func(args)
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except BrokenPipeError:  # the reader of stdout went away (`fctlab ... | head`): not an error of ours
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (_UsageError, ScenarioError, OSError, CoreNotBuilt) as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except PluginError as e:  # a plug-in's hook failed: the run stopped, what was written is kept
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return EXIT_PLUGIN_FAULT
    except StallError as e:  # nothing could happen any more while flows were open: say which
        print(f"error: {_one_line(e)}", file=sys.stderr)
        for line in e.flow_lines(STALL_LINES):
            print(f"  {line}", file=sys.stderr)
        return EXIT_STALLED
    except Interrupted as e:  # Ctrl-C or SIGTERM, with what was kept
        print(f"error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
