"""The `fctlab` command: one module per subcommand (run, emulate, summary, compare, report, pages,
estimate, sweep, bench, reproduce, validate, check, hpcc, plugin), each adding its own subparser
(`register(subparsers)`) with its handler; `options` holds what they share. `main` parses the
command line and turns every error into its exit code.

Every user error (missing file, bad TOML, bad `--set`, a scenario the core refuses, bad
arguments) prints one line "error: ..." on stderr and exits 2; no traceback. A sweep in which
some runs failed exits 1 after the others finished. A run a plug-in stopped, and a run that
stalled (nothing could happen any more while flows were open), exit 1; a stalled run writes
its results, prints its summary, then the error and one line per open flow (the first ten).
Ctrl-C (exit 130) and SIGTERM (exit 143) stop within about a second and say what was kept.
Tracebacks are left for real bugs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from fctlab.cli import (
    bench,
    check,
    compare,
    emulate,
    estimate,
    hpcc,
    options,
    pages,
    plugin,
    report,
    reproduce,
    run,
    summary,
    sweep,
    validate,
)
from fctlab.errors import PluginError, ScenarioError, StallError

#: The subcommands, in the order `fctlab --help` lists them.
COMMANDS = (
    run,
    emulate,
    summary,
    compare,
    report,
    pages,
    estimate,
    sweep,
    bench,
    reproduce,
    validate,
    check,
    hpcc,
    plugin,
)


def parser() -> options.Parser:
    """The command line's parser: every subcommand's, added by its module."""
    p = options.Parser(
        prog="fctlab", description="Deterministic packet-level simulator for flow-completion-time studies."
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return p


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
        args = parser().parse_args(argv)
        with stop_signals():
            return args.func(args)
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except BrokenPipeError:  # the reader of stdout went away (`fctlab ... | head`): not an error of ours
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except (options.UsageError, ScenarioError, OSError, CoreNotBuilt) as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return options.EXIT_USER_ERROR
    except PluginError as e:  # a plug-in's hook failed: the run stopped, what was written is kept
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return options.EXIT_PLUGIN_FAULT
    except StallError as e:  # nothing could happen any more while flows were open: say which
        print(f"error: {_one_line(e)}", file=sys.stderr)
        for line in e.flow_lines(options.STALL_LINES):
            print(f"  {line}", file=sys.stderr)
        return options.EXIT_STALLED
    except Interrupted as e:  # Ctrl-C or SIGTERM, with what was kept
        print(f"error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
