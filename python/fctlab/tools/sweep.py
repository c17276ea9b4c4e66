"""Parameter sweeps: many runs of one scenario, one process per run, restartable.

A sweep file (every key, its type and default: docs/sweeps.md, "The sweep file"):

    scenario = "internet2.toml"          # relative to the sweep file
    seeds = [1, 2, 3]                     # or a count: seeds = 10 means 1..10

    [grid]                                # cartesian product of dotted overrides
    "workload.0.load" = [0.1, 0.3, 0.5]
    "transport.protocol" = ["tcp", "rc3"]

or, instead of [grid], named runs:

    [[runs]]
    name = "tcp"
    "transport.protocol" = "tcp"

(Unquoted dotted keys are TOML tables; they are flattened back to dotted paths.)

Each run lands in OUTDIR/<name>/seed<N>/, where a grid point's name is `key=value_key=value`.
A run writes into a hidden temporary directory with a `done.json` marker last, then renames it
into place, so a directory that exists is complete; a crash leaves only a temporary directory,
removed the next time. A finished run is reused on re-run only if its fingerprint matches: a
hash of the run's resolved scenario (overrides and seed applied) and of the build (package
version and a hash of the compiled core). After a change to the core or to the scenario, the
affected runs are run again instead of being silently reused. A sweep with `emulation` set runs
each point as a real-time emulation (`fctlab.emulate.emulate`, with those keyword arguments)
instead of a simulation: one at a time in this process, since an emulation measures wall-clock
time, with the emulation's settings in the fingerprint. Ctrl-C or SIGTERM stops a sweep
within about a second, keeping every finished run, and workers die with their parent
(`fctlab.procs`). A failing run's error goes to
OUTDIR/<name>/seed<N>.error.txt and does not stop the others. At the end OUTDIR/sweep.parquet
indexes every run (overrides, seed, status, key summary numbers). With a `distributed.Client`
(`run_sweep(client=)`, `fctlab sweep --cluster`) the runs go to a Dask cluster's workers and
their files come back to be written here the same way (`fctlab.tools.cluster`, docs/sweeps.md).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import os
import re
import shutil
import tomllib
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from fctlab.atomic import write_files
from fctlab.errors import ScenarioError
from fctlab.procs import Interrupted, die_with_parent, terminate_pool
from fctlab.result import coerce_values
from fctlab.scenario import read_scenario, resolve_scenario, with_overrides
from fctlab.tools.sweep_run import KEY_NUMBERS, Outcome, RunSpec, build_id, done_record

#: The top-level keys of a sweep file (docs/sweeps.md lists each; tests/test_sweep.py checks it).
FIELDS = ("scenario", "seeds", "grid", "runs")
#: The key of a [[runs]] table that is not an override.
RUN_NAME = "name"
DONE_MARKER = "done.json"
INDEX_FILE = "sweep.parquet"
_FIXED_COLUMNS = ("run", "seed", "status", "error", "path")
_COUNTS = {"flows_started", "flows_completed", "measured", "measured_incomplete", "events"}


@dataclass
class Sweep:
    """A parsed sweep file: the scenario path, seeds and named override sets."""

    scenario: Path
    seeds: list[int]
    points: list[tuple[str, dict[str, Any]]]
    #: Keyword arguments of `fctlab.emulate.emulate` (time_scale, mode) to emulate every run
    #: instead of simulating it; None: simulate.
    emulation: dict[str, Any] | None = None

    def runs(self) -> list[RunSpec]:
        """Every (point, seed) pair, points in file order, seeds inner."""
        return [RunSpec(name, overrides, seed) for name, overrides in self.points for seed in self.seeds]


def load_sweep(path: str | os.PathLike) -> Sweep:
    """Reads and checks a sweep file; every error names the file and the field."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ScenarioError(f"sweep file not found: {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"sweep {path}: TOML syntax error: {e}") from None
    where = f"sweep {path}"
    unknown = [k for k in data if k not in FIELDS]
    if unknown:
        expected = ", ".join(FIELDS[:-1]) + " or " + FIELDS[-1]
        raise ScenarioError(f"{where}: field `{unknown[0]}`: unknown field; expected {expected}")
    if not isinstance(data.get("scenario"), str):
        raise ScenarioError(
            f"{where}: field `scenario`: expected a path to a scenario file, got {data.get('scenario')!r}"
        )
    if "grid" in data and "runs" in data:
        raise ScenarioError(f"{where}: expected either [grid] or [[runs]], got both")
    points = (
        _grid_points(data["grid"], where)
        if "grid" in data
        else _named_points(data["runs"], where)
        if "runs" in data
        else [("base", {})]
    )
    names = [n for n, _ in points]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ScenarioError(f"{where}: two runs are both named `{dup}`")
    return Sweep((path.parent / data["scenario"]), _seeds(data.get("seeds"), where), points)


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return list(range(1, value + 1))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)
        and len(set(value)) == len(value)
    ):
        return list(value)
    raise ScenarioError(
        f"{where}: field `seeds`: expected a count >= 1 or a list of distinct integers >= 0, got {value!r}"
    )


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"workload": {"0": {"load": x}}} -> {"workload.0.load": x}; lists and scalars are leaves."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _grid_points(grid: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(grid, Mapping):
        raise ScenarioError(f"{where}: field `grid`: expected a table of dotted key = [values]")
    axes = flatten(grid)
    for key, values in axes.items():
        _check_key(key, f"{where}: field `grid.{key}`")
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"{where}: field `grid.{key}`: expected a non-empty list of values, got {values!r}")
    return [(point_name(dict(zip(axes, combo))), dict(zip(axes, combo))) for combo in itertools.product(*axes.values())]


def _named_points(runs: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(runs, list) or not runs:
        raise ScenarioError(f"{where}: field `runs`: expected one or more [[runs]] tables")
    points = []
    for i, run in enumerate(runs):
        if not isinstance(run, Mapping):
            raise ScenarioError(f"{where}: field `runs[{i}]`: expected a [[runs]] table, got {run!r}")
        name = run.get(RUN_NAME)
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.=,+-]*", name):
            raise ScenarioError(
                f"{where}: field `runs[{i}].name`: expected a directory-safe name "
                f"(letters, digits, _ . = , + -), got {name!r}"
            )
        overrides = flatten({k: v for k, v in run.items() if k != RUN_NAME})
        for key in overrides:
            _check_key(key, f"{where}: field `runs[{i}].{key}`")
        points.append((name, overrides))
    return points


def _check_key(key: str, where: str) -> None:
    if key == "seed":
        raise ScenarioError(f"{where}: the seed comes from `seeds`, not from an override")


def point_name(overrides: Mapping[str, Any]) -> str:
    """Directory name of a grid point: `key=value_key=value`, made safe for file systems."""

    def show(v: Any) -> str:
        text = ("true" if v else "false") if isinstance(v, bool) else v if isinstance(v, str) else json.dumps(v)
        return re.sub(r"[^A-Za-z0-9_.,+-]+", "-", text)

    return "_".join(f"{k}={show(v)}" for k, v in overrides.items()) or "base"


def run_fingerprint(resolved: Mapping[str, Any], seed: int, emulation: Mapping[str, Any] | None = None) -> str:
    """What a cached run must match to be reused: its resolved scenario, its seed and the build
    (and for an emulated run, the emulation's settings)."""
    what: dict[str, Any] = {"scenario": resolved, "seed": seed, "build": build_id()}
    if emulation is not None:
        what["emulation"] = dict(emulation)
    blob = json.dumps(what, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def cached_record(marker: Path, fingerprint: str | None) -> dict[str, Any] | None:
    """The done record of a finished run if it may be reused (same fingerprint), else None."""
    if not marker.is_file():
        return None
    try:
        record = json.loads(marker.read_text())
    except (OSError, ValueError):
        return None  # unreadable: run it again
    if fingerprint is not None and record.get("fingerprint") != fingerprint:
        return None
    return record


def run_sweep(
    sweep: Sweep | str | os.PathLike,
    outdir: str | os.PathLike,
    *,
    jobs: int | None = None,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
    client: Any | None = None,
) -> list[Outcome]:
    """Runs every not-yet-done run (in `jobs` processes; 1 = in this process); writes the index.

    With `client`, a `distributed.Client`, the runs go to that Dask cluster's workers instead
    (`jobs` is then ignored) and their results come back to be written here (`fctlab.tools.cluster`).
    """
    if not isinstance(sweep, Sweep):
        sweep = load_sweep(sweep)
    if client is not None and sweep.emulation is not None:
        raise ScenarioError("an emulation sweep measures wall-clock time in this process; it cannot run on a cluster")
    out = Path(outdir)
    runs = sweep.runs()
    # Check the scenario and every override set here, so a typo fails before any run starts.
    base, _ = read_scenario(sweep.scenario)
    resolved: dict[str, dict] = {}
    for name, overrides in sweep.points:
        try:
            resolved[name] = resolve_scenario(with_overrides(base, overrides))
        except ScenarioError as e:
            raise ScenarioError(f"sweep run `{name}`: {e}") from None
    fingerprints = {r.relpath: run_fingerprint(resolved[r.name], r.seed, sweep.emulation) for r in runs}
    out.mkdir(parents=True, exist_ok=True)
    say = report or (lambda _msg: None)

    outcomes: dict[str, Outcome] = {}  # by relpath
    pending = []
    stale = 0
    for r in runs:
        marker = out / r.relpath / DONE_MARKER
        record = cached_record(marker, fingerprints[r.relpath])
        if record is not None:
            outcomes[r.relpath] = Outcome(r, "done", skipped=True, record=record)
        else:
            stale += marker.is_file()
            pending.append(r)
    if outcomes:
        say(f"{len(outcomes)} of {len(runs)} runs reused from earlier (same scenario and build)")
    if stale:
        say(f"{stale} earlier runs are stale (their scenario or the build changed): running them again")

    bar = None
    if progress and pending:
        from tqdm import tqdm

        bar = tqdm(total=len(pending), unit="run", desc="sweep")

    def finish(o: Outcome) -> None:
        outcomes[o.run.relpath] = o
        if o.status == "failed":
            msg = f"run {o.run.relpath} failed: {o.error}"
            if bar:
                bar.write(msg)  # above the bar, not through it
            else:
                say(msg)
        if bar:
            bar.update(1)

    # Emulations measure wall-clock time: one at a time, in this process.
    jobs = 1 if sweep.emulation is not None else jobs or os.cpu_count() or 1
    tasks = [(str(sweep.scenario), r, str(out), fingerprints[r.relpath], sweep.emulation) for r in pending]
    try:
        if client is not None:
            from fctlab.tools import cluster

            cluster.check_builds(client, build_id())
            base_dir = str(Path(sweep.scenario).resolve().parent)
            remote = [
                (json.dumps({**resolved[r.name], "seed": r.seed}), base_dir, r, fingerprints[r.relpath])
                for r in pending
            ]
            cluster.execute_on_cluster(client, remote, build_id(), lambda s: install(s, out), finish)
        elif jobs == 1 or len(pending) <= 1:
            for t in tasks:
                finish(execute(*t))
        else:
            _execute_in_pool(tasks, jobs, finish)
    except KeyboardInterrupt as e:
        # Ctrl-C or SIGTERM: what finished stays; the runs in flight leave only temporary
        # directories, cleared here (their workers are dead) or on the next attempt.
        for r in pending:
            if r.relpath not in outcomes:
                _clear_leftovers(out / r.relpath)
        # Counted on disk: a worker may have finished a run whose result this process never read.
        finished = sum(cached_record(out / r.relpath / DONE_MARKER, fingerprints[r.relpath]) is not None for r in runs)
        signum = e.signum if isinstance(e, Interrupted) else 2
        raise Interrupted(
            signum,
            f"interrupted: {finished} of {len(runs)} runs finished and kept in {out}; "
            "run the same command again to do the rest",
        ) from None
    finally:
        if bar:
            bar.close()
    ordered = [outcomes[r.relpath] for r in runs]
    write_index(ordered, out / INDEX_FILE)
    return ordered


def _execute_in_pool(tasks: list[tuple], jobs: int, finish: Callable[[Outcome], None]) -> None:
    """Runs `tasks` in worker processes that die with this one; Ctrl-C stops them at once."""
    # spawn, not fork: forking a process that has started polars' thread pool can deadlock.
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)), mp_context=ctx, initializer=die_with_parent, initargs=(os.getpid(),)
    )
    try:
        futures: dict[Future, RunSpec] = {pool.submit(execute, *t): t[1] for t in tasks}
        for fut in as_completed(futures):
            try:
                outcome = fut.result()
            except Exception as e:  # the worker process died (crash, out of memory)
                outcome = Outcome(futures[fut], "failed", error=f"worker process failed: {e!r}")
            finish(outcome)
    except BaseException:
        # Not the pool's own exit, which would first run every queued task.
        terminate_pool(pool)
        raise
    pool.shutdown()


def _clear_leftovers(final: Path) -> None:
    """Removes the temporary directories an interrupted attempt at run `final` left."""
    for stale in final.parent.glob(f".{final.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


def execute(
    scenario: str,
    spec: RunSpec,
    outdir: str,
    fingerprint: str | None = None,
    emulation: dict[str, Any] | None = None,
) -> Outcome:
    """Runs one sweep run into its directory, atomically (emulated with `emulation`'s keyword
    arguments if given); never raises for a failing run."""
    from fctlab.run import run_to

    final = Path(outdir) / spec.relpath
    earlier = cached_record(final / DONE_MARKER, fingerprint)
    if earlier is not None:
        return Outcome(spec, "done", skipped=True, record=earlier)
    tmp = final.parent / f".seed{spec.seed}.tmp-{os.getpid()}"
    try:
        _clear_leftovers(final)  # of an interrupted earlier attempt (any process id)
        if emulation is None:
            # Written as it goes, the flows table streamed rather than held (fctlab.stream).
            result = run_to(scenario, tmp, seed=spec.seed, overrides=spec.overrides)
        else:
            from fctlab.emulate import emulate

            result = emulate(scenario, seed=spec.seed, overrides=spec.overrides, **emulation)
            result.write(tmp)
        return _commit(tmp, final, spec, done_record(spec, fingerprint, result, emulation))
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if not isinstance(e, Exception):
            raise  # Ctrl-C in a single-process sweep: the caller reports it
        message = str(e) if isinstance(e, ScenarioError) else f"{type(e).__name__}: {e}"
        _write_error(final, spec, traceback.format_exc())
        return Outcome(spec, "failed", error=message)


def _commit(tmp: Path, final: Path, spec: RunSpec, record: dict[str, Any]) -> Outcome:
    """Puts a run's filled temporary directory in place: marker last, then one rename."""
    marker = final / DONE_MARKER
    # The marker goes in last: a directory with done.json has every other file.
    (tmp / DONE_MARKER).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    earlier = cached_record(marker, record["fingerprint"])
    if earlier is not None:
        # Another process finished this run meanwhile: never replace a complete result.
        shutil.rmtree(tmp, ignore_errors=True)
        return Outcome(spec, "done", skipped=True, record=earlier)
    if final.exists():  # a stale run, or an incomplete leftover without a marker
        shutil.rmtree(final)
    os.rename(tmp, final)
    (final.parent / f"seed{spec.seed}.error.txt").unlink(missing_ok=True)
    return Outcome(spec, "done", record=record)


def _write_error(final: Path, spec: RunSpec, text: str) -> None:
    error_file = final.parent / f"seed{spec.seed}.error.txt"
    try:
        error_file.parent.mkdir(parents=True, exist_ok=True)
        error_file.write_text(text)
    except OSError:
        pass


def install(shipment: Any, outdir: str | os.PathLike) -> Outcome:
    """Writes a run a Dask worker sent back (`fctlab.tools.cluster.Shipment`) into its directory,
    atomically, as `execute` does; returns its outcome."""
    o = shipment.outcome
    final = Path(outdir) / o.run.relpath
    if o.status != "done":
        _write_error(final, o.run, shipment.error_text or f"{o.error}\n")
        return o
    tmp = final.parent / f".seed{o.run.seed}.tmp-{os.getpid()}"
    try:
        _clear_leftovers(final)
        for name, data in shipment.files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return _commit(tmp, final, o.run, o.record)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if not isinstance(e, Exception):
            raise
        return Outcome(o.run, "failed", error=f"writing its results here failed: {type(e).__name__}: {e}")


def write_index(outcomes: list[Outcome], path: Path) -> pl.DataFrame:
    """The sweep index: one row per run, fixed columns, then one per override key, then numbers."""
    frame = [
        pl.Series("run", [o.run.name for o in outcomes], dtype=pl.String),
        pl.Series("seed", [o.run.seed for o in outcomes], dtype=pl.Int64),
        pl.Series("status", [o.status for o in outcomes], dtype=pl.String),
        pl.Series("error", [o.error for o in outcomes], dtype=pl.String),
        pl.Series("path", [o.run.relpath for o in outcomes], dtype=pl.String),
    ]
    taken = set(_FIXED_COLUMNS) | set(KEY_NUMBERS) | {"sim_time_s", "events"}
    for k in dict.fromkeys(k for o in outcomes for k in o.run.overrides):
        # An override key that collides with an index column keeps its value under "set:<key>".
        frame.append(_override_column(f"set:{k}" if k in taken else k, [o.run.overrides.get(k) for o in outcomes]))
    numbers = [(n, "summary") for n in KEY_NUMBERS] + [("sim_time_s", "meta"), ("events", "meta")]
    for n, part in numbers:
        vals = [(o.record.get(part) or {}).get(n) for o in outcomes]
        dtype = pl.Int64 if n in _COUNTS else pl.Float64
        frame.append(pl.Series(n, coerce_values(vals, dtype), dtype=dtype))
    df = pl.DataFrame(frame)
    write_files([(path, df.write_parquet)])
    return df


def _override_column(name: str, values: list) -> pl.Series:
    # Keep numbers and booleans typed when a column is uniform; anything mixed becomes text.
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pl.Series(name, values, dtype=pl.Boolean)
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pl.Series(name, values, dtype=pl.Int64)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pl.Series(name, [None if v is None else float(v) for v in values], dtype=pl.Float64)
    return pl.Series(
        name, [None if v is None else v if isinstance(v, str) else json.dumps(v) for v in values], dtype=pl.String
    )
