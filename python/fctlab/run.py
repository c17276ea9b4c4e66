"""Run one scenario: resolve it, hand it to the compiled core as JSON, step it, collect a Result.

The core runs in steps of 1/200 of the scenario's horizon so that Ctrl-C and the progress bar
get a look in between (each `run_until` call releases the GIL). After the horizon the run goes
on until the core reports every flow done (draining), in steps of the same size.

A run that stalls (nothing could happen any more while flows were still open: the core's
`Simulation.stall`) raises `StallError` once it is over, with its Result, whose tables are
complete up to the stall and whose notices and meta (`stall`) say so; `run_to` writes the
results directory first.

`run` returns the Result in memory; `run_to` writes the results directory as it goes, streaming
the flows table to Parquet instead of holding it (`fctlab.stream`): what `fctlab run -o` does.

Which core: `fctlab._core`, or the module named by the environment variable `FCTLAB_CORE`
(the test suite's stand-in; the variable reaches sweep worker processes too). Tests may also
replace the module attribute `fctlab.run._core` directly.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from fctlab.errors import ScenarioError, StallError
from fctlab.result import FLOW_SCHEMA, Result, conform, frame_of
from fctlab.scenario import ScenarioLike, read_scenario, resolve_scenario, with_overrides
from fctlab.values import plain

#: Progress/interrupt granularity: steps per scenario horizon.
STEPS_PER_HORIZON = 200
#: Step (s) when a scenario reports no horizon.
_FALLBACK_STEP = 1e-3
#: Most threads a run may be asked for: the core's most partitions (`parallel.partitions`), since
#: a run uses at most one thread per partition.
MAX_THREADS = 1024


def _import_core() -> ModuleType | None:
    name = os.environ.get("FCTLAB_CORE")
    if name:
        return importlib.import_module(name)
    try:
        from fctlab import _core as core
    except ImportError:
        return None
    return core


_core: ModuleType | None = _import_core()


class CoreNotBuilt(RuntimeError):
    """The compiled module `fctlab._core` is missing (the package was not built with maturin)."""


def core() -> ModuleType:
    """The compiled core module; a clear error when it has not been built."""
    if _core is None:
        raise CoreNotBuilt("fctlab._core is not built: run `maturin develop --release` in the repository")
    return _core


def prepare(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    base_dir: str | os.PathLike | None = None,
) -> tuple[dict, str]:
    """The resolved spec the core will see (overrides and seed applied) and its base directory
    (`base_dir`: where a dict scenario's relative paths start; default the working directory)."""
    spec, base_dir = read_scenario(scenario, base_dir)
    spec = with_overrides(spec, overrides)
    if seed is not None:
        spec["seed"] = seed
    return resolve_scenario(plain(spec)), str(base_dir)


def build(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    threads: int | None = None,
    base_dir: str | os.PathLike | None = None,
) -> tuple[Any, dict]:
    """Validates and builds a core Simulation without running it; returns (simulation, spec).
    `threads` runs a scenario cut into partitions (its `parallel` table) on that many threads
    instead of the table's `threads`; the results are the same on any number."""
    spec, base_dir = prepare(scenario, seed=seed, overrides=overrides, base_dir=base_dir)
    if threads is None:
        return core().Simulation(json.dumps(spec), base_dir), spec
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise ScenarioError(f"threads: expected a whole number from 1 to {MAX_THREADS}, got {threads!r}")
    return core().Simulation(json.dumps(spec), base_dir, threads), spec


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
    threads: int | None = None,
) -> Result:
    """Runs a scenario (path to TOML/JSON, or dict) to completion and returns its Result
    (`threads`: see `build`)."""
    sim, spec = build(scenario, seed=seed, overrides=overrides, threads=threads)
    _advance(sim, progress)
    raw = dict(sim.results())
    stall = _stalled(sim, raw)
    if getattr(sim, "captures", False):
        raw["notices"] = [
            *(raw.get("notices") or ()),
            "output.pcap is written only into a results directory (`fctlab run -o`, `fctlab.run_to`): "
            "this in-memory run captured nothing",
        ]
    result = Result.from_core(raw, spec)
    if stall is not None:
        raise StallError(stall["message"], stall, result)
    return result


def run_to(
    scenario: ScenarioLike,
    outdir: str | os.PathLike,
    *,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
    threads: int | None = None,
    base_dir: str | os.PathLike | None = None,
    stop: Callable[[], bool] | None = None,
    notify: Callable[[str], None] | None = None,
) -> Result:
    """Runs a scenario and writes its results directory `outdir`: the files `run(...).write(outdir)`
    writes, byte for byte, but with the flows table streamed to Parquet as flows finish instead of
    held (`fctlab.stream`). The Result reads its flows table back from that file when asked for it.

    A run that fails or is interrupted keeps the rows it wrote as `outdir/flows.partial.parquet`,
    and its error says so (`Interrupted` for Ctrl-C and SIGTERM, a note on any other error). A run
    that stalls writes the whole directory, then raises `StallError` (see the module doc).

    A scenario with `[output.pcap]` has its capture written by the core as the run goes, under
    the temporary name of `outdir/capture.pcapng`, renamed into place with the other files; a
    failed run keeps the packets it captured as `outdir/capture.partial.pcapng`.

    `notify` is given, before the run starts, the line saying that the run uses fewer partitions
    or threads than it was asked for, and why (`Simulation.parallel["notice"]`), if there is one.
    """
    from fctlab import result as results
    from fctlab.atomic import temp_name
    from fctlab.stream import PARTIAL_NAME, FlowSink

    sim, spec = build(scenario, seed=seed, overrides=overrides, threads=threads, base_dir=base_dir)
    notice = (getattr(sim, "parallel", None) or {}).get("notice")
    if notify is not None and notice:
        notify(notice)
    if not str(outdir).strip():
        raise ScenarioError("results directory: expected a path, got an empty string")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    sink = FlowSink(out / "flows.parquet", FLOW_SCHEMA, results._ROW_GROUP_ROWS, results._ZSTD_LEVEL)
    capture = _Capture(sim, temp_name(out / results.CAPTURE_NAME))

    def put(table: Any) -> None:
        if table is not None:
            df = conform(frame_of(table, FLOW_SCHEMA, "flows"), FLOW_SCHEMA, "flows")
            sink.put(df if df.width == len(FLOW_SCHEMA) else df.select(list(FLOW_SCHEMA)))

    try:
        _advance(sim, progress, after_step=_stopping(stop, _taking(sim, put)))
        capture.finish()
        raw = sim.results()
        stall = _stalled(sim, raw)
        put(raw.pop("flows", None))
        # The core's per-flow state (200 bytes a flow) goes before the summary scans the table.
        del sim
        result = Result.from_core(raw, spec, flows_file=sink.finish())
        result.capture_file = capture.file
        result.write(out)
        # A failed earlier run's rows and packets: this run's complete files supersede them, and
        # an earlier run's capture does not belong with this run's tables.
        (out / PARTIAL_NAME).unlink(missing_ok=True)
        (out / results.CAPTURE_PARTIAL_NAME).unlink(missing_ok=True)
        if capture.file is None:
            (out / results.CAPTURE_NAME).unlink(missing_ok=True)
    except BaseException as e:
        packets = capture.keep_partial(out / results.CAPTURE_PARTIAL_NAME)
        if packets is not None:
            e.add_note(f"the packets captured until then are kept in {out / results.CAPTURE_PARTIAL_NAME}")
        partial = sink.keep_partial()
        if partial is None:
            raise
        kept = f"the rows of the first {sink.rows} flows, final, are kept in {partial}"
        if isinstance(e, KeyboardInterrupt):
            from fctlab.procs import Interrupted

            signum = getattr(e, "signum", signal.SIGINT)
            raise Interrupted(signum, f"{getattr(e, 'message', 'interrupted')}; {kept}") from e
        e.add_note(kept)
        raise
    if stall is not None:
        error = StallError(stall["message"], stall, result)
        error.add_note(f"the results, complete up to the stall, are written in {out}")
        raise error
    return result


def _stalled(sim: Any, raw: dict) -> dict | None:
    """The core's record of a stall once the run is over (None if it did not stall; a stand-in
    core may not say), also put in `raw`'s notices."""
    stall = getattr(sim, "stall", None)
    if stall is not None:
        note = f"{stall['message']}; the FCT statistics leave them out, and meta's `stall` names them"
        raw["notices"] = [*(raw.get("notices") or ()), note]
    return stall


class _Capture:
    """The core's packet capture of a run written to a results directory: started on `tmp` (the
    temporary name of its target) if the scenario asks for one (`[output.pcap]`)."""

    def __init__(self, sim: Any, tmp: Path) -> None:
        self.sim = sim if getattr(sim, "captures", False) else None
        self.file: Path | None = None
        if self.sim is not None:
            self.sim.start_capture(str(tmp))
            self.file = tmp

    def finish(self) -> None:
        """Flushes the file (an OSError if the capture could not be written)."""
        if self.sim is not None:
            sim, self.sim = self.sim, None
            sim.finish_capture()

    def keep_partial(self, target: Path) -> Path | None:
        """After a failure: the capture so far, flushed and renamed to `target` (None if there is
        none, or it was renamed into place already)."""
        if self.file is None or not self.file.exists():
            return None
        with contextlib.suppress(OSError):
            self.finish()
        os.replace(self.file, target)
        return target


def _taking(sim: Any, put: Callable[[Any], None]) -> Callable[[], None] | None:
    """After a step: the rows that became final, to `put` (a stand-in core without `take_flows`
    hands every row over at the end)."""
    take = getattr(sim, "take_flows", None)
    return (lambda: put(take())) if take else None


def _stopping(stop: Callable[[], bool] | None, then: Callable[[], None] | None) -> Callable[[], None] | None:
    """After a step: end the run if `stop()` says so, else `then()`."""
    if stop is None:
        return then

    def step() -> None:
        if stop():
            from fctlab.procs import Interrupted

            raise Interrupted(signal.SIGINT, "stopped")
        if then is not None:
            then()

    return step


def _advance(sim: Any, progress: bool, after_step: Callable[[], None] | None = None) -> None:
    """Steps `sim` to the end of its run, calling `after_step` after each step."""
    horizon = float(sim.horizon)
    step = horizon / STEPS_PER_HORIZON if horizon > 0 else _FALLBACK_STEP
    bar = _Progress(horizon) if progress else None
    try:
        k = 0
        while True:
            k += 1
            # k * step, not a running sum, so the step targets do not drift.
            done = sim.run_until(k * step)
            if after_step is not None:
                after_step()
            if bar:
                bar.show(sim)
            if done:
                break
    finally:
        if bar:
            bar.close()


class _Progress:
    """A tqdm bar in simulated seconds up to the horizon, then "draining"."""

    def __init__(self, horizon: float) -> None:
        from tqdm import tqdm

        self.horizon = horizon
        self.bar = tqdm(
            total=horizon,
            unit="sim s",
            leave=True,
            bar_format="{desc}{percentage:3.0f}%|{bar}| {n:.3f}/{total:.3f} sim s [{elapsed}<{remaining}]{postfix}",
        )
        self.bar.set_description("simulating")
        self.draining = False

    def show(self, sim: Any) -> None:
        now = float(sim.now)
        self.bar.update(min(now, self.horizon) - self.bar.n)
        if now >= self.horizon:
            if not self.draining:
                self.bar.set_description("draining")
                self.draining = True
            # Optional in the core's contract: show it when the core offers it.
            open_flows = getattr(sim, "open_flows", None)
            self.bar.set_postfix_str(
                f"t={now:.3f} s" + (f", {open_flows} flows open" if open_flows is not None else "")
            )

    def close(self) -> None:
        self.bar.close()
