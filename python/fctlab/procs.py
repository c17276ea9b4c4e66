"""Worker processes that stop when told: die with their parent, stop at once on Ctrl-C or SIGTERM.

A sweep runs in worker processes (`sweep.run_sweep`). Three promises hold:

- A worker never outlives the process that started it. `die_with_parent`, the workers'
  initializer, asks Linux to SIGKILL it when its parent dies (`prctl(PR_SET_PDEATHSIG)`), and
  starts a watchdog thread that exits it as soon as its parent process id changes (the portable
  fallback, and a guard against the race of a parent that died before the prctl call). So a
  `kill -9` of `fctlab sweep` or `fctlab reproduce` leaves no worker writing runs, and once the
  workers are gone multiprocessing's resource tracker sees its pipe close and exits too.
- Ctrl-C and SIGTERM stop the sweep within about a second: workers ignore SIGINT (the parent
  decides), `stop_signals` turns SIGTERM into the same `KeyboardInterrupt` the parent gets for
  Ctrl-C, and the sweep then terminates its workers (`terminate_pool`) instead of letting a
  process pool finish its queue. Runs finished before keep their results; the ones in flight
  leave only hidden temporary directories, removed on the next attempt.
- `Interrupted` carries the signal, so the command exits 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

#: How often a worker's watchdog looks at its parent (s).
WATCHDOG_PERIOD_S = 0.2
#: Linux prctl option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


class Interrupted(KeyboardInterrupt):
    """A stop asked for by a signal (Ctrl-C or SIGTERM); `signum` tells which."""

    def __init__(self, signum: int = signal.SIGINT, message: str = "interrupted") -> None:
        super().__init__(message)
        self.signum = signum
        self.message = message

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number."""
        return 128 + int(self.signum)


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: exit when `parent_pid` is no longer this process's parent; ignore Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the prctl call took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(WATCHDOG_PERIOD_S)
        os._exit(1)

    threading.Thread(target=watch, name="fctlab-parent-watchdog", daemon=True).start()


@contextlib.contextmanager
def stop_signals() -> Iterator[None]:
    """Within the block, SIGTERM raises `Interrupted(SIGTERM)` like Ctrl-C raises KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def on_term(signum: int, _frame: object) -> None:
        raise Interrupted(signum, "terminated")

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def terminate_pool(pool: ProcessPoolExecutor, timeout_s: float = 2.0) -> None:
    """Stops a process pool now: queued tasks cancelled, running workers killed, then reaped."""
    # The pool's own API (Python >= 3.14) where it exists; else its process table, which
    # every CPython since 3.3 keeps as `_processes` (pid -> Process).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    terminate = getattr(pool, "terminate_workers", None)
    if terminate is not None:
        terminate()
    else:
        for p in processes:
            with contextlib.suppress(Exception):
                p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + timeout_s
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            with contextlib.suppress(Exception):
                p.kill()
                p.join(0.5)
