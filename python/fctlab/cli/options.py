"""What the `fctlab` command's subcommands share: the parser that keeps argparse's complaints to one
line (`UsageError`), the exit codes, the argument types (each a one-line error naming what it
expected), the arguments of every command that reads a scenario, and the overrides and progress
settings they give.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

from fctlab.scenario import parse_assignment

#: Exit code of a user error (one line "error: ..." on stderr).
EXIT_USER_ERROR = 2
#: Exit code of a run a plug-in stopped (its results so far kept).
EXIT_PLUGIN_FAULT = 1
#: Exit code of a run that stalled (its results written, complete up to the stall).
EXIT_STALLED = 1
#: Open flows a stalled run's error lists, one line each.
STALL_LINES = 10
#: Exit code of a command some of whose runs (or checks) failed after the others finished.
EXIT_RUNS_FAILED = 1


class UsageError(Exception):
    """Bad command-line arguments (argparse's complaint, kept to one line)."""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are `UsageError`s, not an exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def whole(low: int, high: int, shown_high: str | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (`shown_high`: how the message writes
    `high`). A value the core would take in a 64-bit integer is bounded here, so that no flag
    overflows into it."""
    accepted = f"a whole number from {low} to {shown_high or high}"

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {text!r}") from None
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"expected {accepted}, got {n}")
        return n

    return parse


#: A count the core takes as a 64-bit integer (packets, packet-hops).
count = whole(1, 2**63 - 1, "2^63 - 1")
#: A seed: the core's u64.
seed = whole(0, 2**64 - 1, "2^64 - 1")
#: Threads of a partitioned run: at most one per partition (`fctlab.run.MAX_THREADS`, the core's
#: most partitions; kept here so that parsing the command line needs no core).
threads = whole(1, 1024)


def jobs(text: str) -> int:
    """An argparse type: a number of processes, at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes >= 1, got {n}")
    return n


def scale(text: str) -> float:
    """An argparse type: a time scale, a finite number >= 1."""
    try:
        k = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}") from None
    if not k >= 1 or k == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text}")
    return k


def fraction(text: str) -> float:
    """An argparse type: a number in [0, 1)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0 <= x < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text}")
    return x


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") from None
    if not s > 0 or s == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text}")
    return s


def out_dir(text: str) -> str:
    """An argparse type: a results directory, not empty."""
    # An empty -o would write into the current directory, mixing results with whatever is there.
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a results directory, got an empty path")
    return text


def scenario_args(sp: argparse.ArgumentParser) -> None:
    """The arguments of a command that reads a scenario: the file, `--seed`, `--set`."""
    sp.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    sp.add_argument("--seed", type=seed, help="override the scenario's seed")
    sp.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field by dotted path, e.g. workload.0.load=0.5 (repeatable)",
    )


def overrides(sets: list[str]) -> dict:
    """`--set KEY=VALUE` arguments as overrides."""
    return dict(parse_assignment(s) for s in sets)


def progress_wanted(quiet: bool) -> bool:
    """Whether to show a progress bar: not with `--quiet`, and only to a terminal."""
    return not quiet and sys.stderr.isatty()


@contextlib.contextmanager
def cluster_client(cluster: str | None, jobs: int | None) -> Iterator[object | None]:
    """The Dask client of `--cluster` (None without it), connected for the block and closed
    after it (`fctlab.tools.cluster.Connection`); `--jobs` sizes a `local` cluster and is
    refused beside a scheduler's address, whose workers are its own."""
    if cluster is None:
        yield None
        return
    from fctlab.tools.cluster import Connection, check_address

    check_address(cluster)
    if jobs is not None and not cluster.startswith("local"):
        raise UsageError(f"field `--jobs`: the workers of --cluster {cluster} are the scheduler's")
    with Connection(cluster, workers=jobs) as client:
        yield client
