"""Private temporary directories that a killed process cannot leave behind for good.

A Dask worker runs each run of a cluster sweep in a directory of its own under the system's
temporary directory (`fctlab-run-*`) and deletes it when the run ends. A worker killed mid-run
(SIGKILL, the OOM killer, a lost machine) deletes nothing: the directory stays, with whatever the
run had written (a flows table streamed under its temporary name, `.flows.parquet.tmp-PID`).

So each such directory holds a lock for as long as its run lives: the file `.lock` in it, locked
with `flock` by the process that made it. The kernel releases the lock when that process ends,
however it ends, so a directory whose lock can be taken belongs to nobody and can go:
`clear_abandoned` removes those, and a worker calls it before every run, the sweep on every worker
at its end. (A PID in the name would not do: PIDs are reused, and another machine's or container's
PIDs are not ours to test; a lock is released exactly when its owner is gone.)

The lock is taken on a file under another name first and then renamed to `.lock`, so a directory
whose `.lock` exists is always locked while its owner lives; a directory without one is being made
(or was made by an older fctlab) and is left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Prefix of the directories under the system's temporary directory.
PREFIX = "fctlab-run-"
#: The lock file inside each.
LOCK = ".lock"


@contextlib.contextmanager
def private_dir(prefix: str = PREFIX) -> Iterator[Path]:
    """A new directory under the temporary directory, locked while the block runs, removed after."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    fd = -1
    try:
        making = path / f"{LOCK}.new"
        fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(making, path / LOCK)  # the lock goes with the open file, not the name
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if fd >= 0:
            os.close(fd)


def clear_abandoned(prefix: str = PREFIX, root: str | os.PathLike | None = None) -> list[Path]:
    """Removes the directories `private_dir` made under `root` (the temporary directory) whose
    owner is gone (their lock can be taken); returns them."""
    base = Path(root) if root is not None else Path(tempfile.gettempdir())
    removed = []
    for path in sorted(base.glob(f"{prefix}*")):
        try:
            fd = os.open(path / LOCK, os.O_RDWR)
        except OSError:  # no lock yet (being made), not ours, or already gone
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its run is alive
            os.close(fd)
            continue
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)
        removed.append(path)
    return removed
