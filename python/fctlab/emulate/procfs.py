"""What /proc says about a process (alive, its command line, its start time), and killing a set.

Cleanup decides from these whether a pid still belongs to fctlab: a pid recorded by a dead run
may since have been reused by an unrelated process, so a kill needs the command line (and, when
recorded, the start time) to still match.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

#: How long `kill_and_wait` waits for SIGKILLed processes to be gone (s).
KILL_WAIT_S = 5.0


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (field 3, the state, first); None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
    return text[text.rindex(")") + 2 :].split()


def is_running(pid: int) -> bool:
    """True while `pid` exists and has not exited (a zombie waiting for its parent counts as gone)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X", "x")


def start_time(pid: int) -> int | None:
    """When `pid` started, in clock ticks since boot (proc(5) field 22); None if it is gone."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields is not None else None


def cmdline(pid: int) -> str:
    """The command line of `pid`, arguments joined by spaces; "" when gone or a zombie."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def kill_and_wait(pids: Iterable[int], timeout_s: float = KILL_WAIT_S) -> list[int]:
    """SIGKILLs every pid and waits until none runs; returns those still running at the timeout."""
    # Never this process, init or the kernel's pid 0, whatever a pids file says.
    pids = sorted({pid for pid in pids if pid > 1 and pid != os.getpid()})
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            pass  # another user's: it stays running and is returned as a survivor
    deadline = time.monotonic() + timeout_s
    left = [pid for pid in pids if is_running(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.01)
        left = [pid for pid in left if is_running(pid)]
    return left
