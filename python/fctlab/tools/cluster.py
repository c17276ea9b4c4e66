"""Sweeps on a Dask cluster: the runs go to Dask workers, the results come back to this process.

`fctlab sweep SWEEP -o OUT --cluster local[:N]` starts a Dask `LocalCluster` of N worker
processes (one thread each) for the sweep; `--cluster tcp://HOST:PORT` uses a running scheduler
and its workers. In Python, `fctlab.tools.sweep.run_sweep(sweep, out, client=client)` takes a
`distributed.Client`. See docs/sweeps.md.

What travels: each task carries one run's resolved scenario as JSON (overrides and seed
applied, topohub expanded), the directory its relative paths start from, the run's fingerprint
and this process's build (`sweep.build_id`). A worker refuses a run if its own build differs, and
the sweep checks every worker's build before it submits anything. The worker runs the scenario
into a private temporary directory, reads the files back, deletes the directory and returns the
files' bytes with the run's record. A worker killed mid-run cannot delete its directory: each
holds a lock its process holds (`fctlab.scratch`), and the directories whose lock is free are
removed by the next run on that machine and by every worker at the sweep's end. This process
writes them under OUT with the same atomic protocol as a local sweep (temporary directory,
`done.json` last, rename), so resume, caching and the index work unchanged and no shared file
system is needed.

A run's result depends only on its resolved scenario and seed, never on the worker that ran
it. A worker that dies takes its runs with it: the scheduler gives them to another worker
(Dask's `distributed.scheduler.allowed-failures`, 3 by default; beyond that the run is reported
failed). Ctrl-C or SIGTERM cancels the queued runs and sets a Dask `Event` that the runs in
flight look at after every step (at most every 0.2 s), so they stop too instead of running on
in the workers after this process has gone.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fctlab.errors import ScenarioError
from fctlab.scratch import clear_abandoned, private_dir
from fctlab.tools.sweep_run import Outcome, build_id, done_record

#: How long to wait for a scheduler to answer (s).
CONNECT_TIMEOUT_S = 10
#: How often a run in flight asks whether its sweep was stopped (s).
STOP_POLL_S = 0.2
_LOCAL = re.compile(r"local(?::(\d+))?")
_REMOTE = re.compile(r"(tcp|tls)://\[?[A-Za-z0-9_.:-]+\]?:\d+")


@dataclass
class Shipment:
    """What a worker sends back for one run: its outcome and, if done, its files' bytes."""

    outcome: Any  # sweep.Outcome
    files: dict[str, bytes] = field(default_factory=dict)
    error_text: str | None = None


def check_address(text: str) -> str:
    """`local`, `local:N` (N >= 1) or `tcp://HOST:PORT`; a ScenarioError naming the option otherwise."""
    m = _LOCAL.fullmatch(text)
    if (m and (m.group(1) is None or int(m.group(1)) >= 1)) or _REMOTE.fullmatch(text):
        return text
    raise ScenarioError(f"--cluster {text}: expected local, local:N (N >= 1 worker processes) or tcp://HOST:PORT")


class Connection:
    """A `distributed.Client` for `--cluster ADDRESS` (and the LocalCluster it started); a context manager."""

    def __init__(self, address: str, workers: int | None = None) -> None:
        check_address(address)
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ScenarioError(
                f"--cluster {address}: the Dask package `distributed` is not installed; "
                "install it with `pip install 'fctlab[dask]'`"
            ) from None
        self.address = address
        self.cluster = None
        m = _LOCAL.fullmatch(address)
        try:
            if m:
                n = int(m.group(1)) if m.group(1) else workers or os.cpu_count() or 1
                import logging

                self.cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                    preload=[__name__],  # dask_setup below: Ctrl-C is this process's to handle
                )
                self.client = Client(self.cluster)
            else:
                self.client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s")
        except (OSError, TimeoutError) as e:
            self.close()
            reason = " ".join(str(e).split()) or type(e).__name__
            raise ScenarioError(f"--cluster {address}: cannot reach a Dask scheduler there ({reason})") from None

    def __enter__(self) -> Any:
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close(timeout=2)
            except Exception:
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=5)
            except Exception:
                pass


def dask_setup(worker: Any) -> None:
    """Dask preload hook of a `local` cluster's worker processes: they ignore Ctrl-C, which a
    terminal sends to the whole process group; this process stops the sweep and closes them."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: nothing to do
        pass


def check_builds(client: Any, build: str) -> None:
    """Refuses a cluster whose workers run another fctlab build (or none) than this process."""
    where = f"cluster {client.scheduler.address}"
    try:
        builds = client.run(build_id)
    except Exception as e:  # a worker without fctlab cannot even unpickle the call
        raise ScenarioError(f"{where}: a worker cannot run fctlab ({type(e).__name__}: {e})") from None
    for worker, theirs in sorted(builds.items()):
        if theirs != build:
            raise ScenarioError(
                f"{where}: worker {worker} runs fctlab build {theirs}, this process {build}; "
                "install the same fctlab on every worker"
            )


def execute_remote(
    spec_json: str, base_dir: str, run: Any, fingerprint: str, build: str, stop_event: str | None = None
) -> Shipment:
    """A Dask task: one run, in a private temporary directory, returned as bytes; never raises."""
    from fctlab.procs import Interrupted
    from fctlab.run import run_to

    mine = build_id()
    if mine != build:
        return Shipment(
            Outcome(run, "failed", error=f"this worker runs fctlab build {mine}, the sweep {build}: not run")
        )
    stop = _stop_check(stop_event)
    clear_abandoned()  # what workers killed mid-run on this machine left
    try:
        with private_dir() as tmp:
            result = run_to(json.loads(spec_json), tmp / "run", base_dir=base_dir, stop=stop)
            files = {
                p.relative_to(tmp / "run").as_posix(): p.read_bytes()
                for p in sorted((tmp / "run").rglob("*"))
                if p.is_file()
            }
        return Shipment(Outcome(run, "done", record=done_record(run, fingerprint, result)), files)
    except Interrupted:
        return Shipment(Outcome(run, "failed", error="stopped: the sweep was interrupted"))
    except Exception as e:
        message = str(e) if isinstance(e, ScenarioError) else f"{type(e).__name__}: {e}"
        return Shipment(Outcome(run, "failed", error=message), error_text=traceback.format_exc())


def _stop_check(name: str | None) -> Callable[[], bool] | None:
    """A `stop()` for `run_to`: true once the sweep's Dask Event is set (asked at most every STOP_POLL_S)."""
    if name is None:
        return None
    try:
        from distributed import Event

        event = Event(name)
    except Exception:  # not in a Dask worker (a test calling the task directly)
        return None
    last = [0.0, False]

    def stop() -> bool:
        now = time.monotonic()
        if not last[1] and now - last[0] >= STOP_POLL_S:
            last[0] = now
            try:
                last[1] = bool(event.is_set())
            except Exception:  # the scheduler is gone: nobody waits for this run
                last[1] = True
        return bool(last[1])

    return stop


def execute_on_cluster(
    client: Any,
    tasks: list[tuple[str, str, Any, str]],
    build: str,
    install: Callable[[Shipment], Any],
    finish: Callable[[Any], None],
) -> None:
    """Runs `tasks` (spec JSON, base dir, RunSpec, fingerprint) on the cluster; each shipment is
    installed here as it arrives. Ctrl-C cancels the queue and stops the runs in flight."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:12]
    stop_name = f"fctlab-sweep-stop-{token}"
    futures: dict[Any, Any] = {}
    try:
        for i, (spec_json, base_dir, run, fingerprint) in enumerate(tasks):
            fut = client.submit(
                execute_remote,
                spec_json,
                base_dir,
                run,
                fingerprint,
                build,
                stop_name,
                key=f"fctlab-run-{token}-{i}",
                pure=False,
                priority=-i,  # in the sweep's order, as far as the scheduler keeps it
            )
            futures[fut] = run
        for fut in as_completed(list(futures)):
            run = futures.pop(fut)
            try:
                shipment = fut.result()
            except Exception as e:  # the run's workers kept dying (KilledWorker), or it was lost
                outcome = Outcome(run, "failed", error=f"Dask worker failed: {type(e).__name__}: {e}")
            else:
                outcome = install(shipment)
            fut.release()
            finish(outcome)
    except BaseException:
        _stop(client, stop_name, list(futures))
        raise
    _clear_workers(client)


def _clear_workers(client: Any) -> None:
    """Has every worker remove the run directories that workers killed mid-run left on its
    machine (`fctlab.scratch`); a worker that cannot answer is skipped (its machine's next run
    clears them)."""
    try:
        client.run(clear_abandoned, on_error="ignore")
    except Exception:
        pass


def _stop(client: Any, stop_name: str, futures: list) -> None:
    """Cancels what is queued and tells the runs in flight to stop; never waits long."""
    from distributed import Event

    try:
        Event(stop_name, client=client).set()
    except Exception:
        pass
    try:
        client.cancel(futures, asynchronous=False)
    except Exception:
        pass
