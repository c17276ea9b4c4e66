"""Crash-proof cleanup: what a killed `fctlab emulate` left, the next one removes.

A run registers itself (`register_run`: a directory RUN_ROOT/<run>/ whose `owner` file records
the run's pid and start time) and every child it starts (`register_pid`: a line "pid start-time"
in its `pids` file), and names its namespaces `fctlab-<run>-...` (see `netns`). A run is dead
when its pid is gone, or belongs to a process that is not fctlab (pid reuse). `cleanup_stale`
then kills the processes in the dead run's namespaces and its registered children, deletes the
namespaces and removes the run directory. `finish_run` removes the directory of a run that ended
normally.

The run id must be the pid of the process owning the run (the default of NetnsTopology): a run
id that names no live fctlab process is dead to every other run's cleanup.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

from fctlab.emulate.iproute import EmulationError, delete_namespaces, list_namespaces, namespace_pids
from fctlab.emulate.procfs import cmdline, is_running, kill_and_wait, start_time

__all__ = ["RUN_ROOT", "cleanup_stale", "finish_run", "register_pid", "register_run"]

#: Where runs register themselves; one directory per run, named by its id.
RUN_ROOT = Path(os.environ.get("FCTLAB_RUN_DIR", "/tmp/fctlab-emulate"))
#: The only namespaces cleanup ever touches: fctlab-<run id>-<anything>.
_RUN_NETNS = re.compile(r"fctlab-(\d+)-.+")
#: Command-line words that mark a run's own process (`fctlab ...` or `python -m ...`).
_RUN_MARKS = ("fctlab", "python")
#: ... and a registered child (its command line names fctlab: `python -m fctlab...`, `fctlab-...`).
_CHILD_MARKS = ("fctlab",)


def run_dir(run: int) -> Path:
    """The directory of run `run` under RUN_ROOT (read at call time, so tests may move it)."""
    return RUN_ROOT / str(run)


def register_run(run: int) -> Path:
    """Makes RUN_ROOT/<run>/ (with `owner` and an empty `pids` file) and returns it."""
    _check_root_dir()
    path = run_dir(run)
    path.mkdir(mode=0o700, exist_ok=True)
    (path / "owner").write_text(_record(run))
    (path / "pids").touch()
    return path


def _check_root_dir() -> None:
    """Makes RUN_ROOT (private to this user) or checks it is a directory of this user, not a link.

    Runs as root write under it; in a shared /tmp another user could otherwise plant a link there.
    """
    RUN_ROOT.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = RUN_ROOT.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise EmulationError(
            f"FCTLAB_RUN_DIR {RUN_ROOT}: expected a directory owned by uid {os.geteuid()}, "
            f"got a {'link' if stat.S_ISLNK(info.st_mode) else 'file or directory'} owned by uid {info.st_uid}"
        )


def register_pid(run: int, pid: int) -> None:
    """Records child `pid` of run `run`, so that a cleanup after a crash kills it."""
    path = run_dir(run)
    if not path.is_dir():
        raise EmulationError(f"run {run} is not registered ({path} missing): call register_run first")
    # One short line per write on an O_APPEND file: appends never interleave.
    with open(path / "pids", "a") as pids:
        pids.write(_record(pid))


def finish_run(run: int) -> None:
    """Removes RUN_ROOT/<run>/ of a run that ended and cleaned up after itself."""
    shutil.rmtree(run_dir(run), ignore_errors=True)


def cleanup_stale() -> list[str]:
    """Removes what dead runs left (processes, namespaces, run directories); returns what it did."""
    namespaces = _run_namespaces()
    runs = sorted(set(namespaces) | set(_run_dirs()))
    lines: list[str] = []
    for run in runs:
        if _run_alive(run):
            continue
        try:
            lines += _remove_run(run, namespaces.get(run, []))
        except EmulationError as e:  # one run's leftovers must not keep the others in place
            lines.append(f"run {run}: cleanup failed: {e}")
    return lines


def _run_namespaces() -> dict[int, list[str]]:
    """Namespaces named fctlab-<run>-..., by run; {} when there is no `ip` (nothing to clean)."""
    if shutil.which("ip") is None:
        return {}
    by_run: dict[int, list[str]] = {}
    for name in list_namespaces():
        match = _RUN_NETNS.fullmatch(name)
        if match:
            by_run.setdefault(int(match.group(1)), []).append(name)
    return by_run


def _run_dirs() -> list[int]:
    """Runs with a directory under RUN_ROOT (only names that are all digits)."""
    try:
        return [int(p.name) for p in RUN_ROOT.iterdir() if p.name.isdigit() and p.is_dir() and not p.is_symlink()]
    except FileNotFoundError:
        return []


def _record(pid: int) -> str:
    """The line "pid start-time" (just "pid" when the process is already gone)."""
    stamp = start_time(pid)
    return f"{pid} {stamp}\n" if stamp is not None else f"{pid}\n"


def _recorded(line: str) -> tuple[int, int | None] | None:
    """Parses "pid [start-time]"; None for a line that is neither (a torn write)."""
    words = line.split()
    if not words or not all(w.isdigit() for w in words) or len(words) > 2:
        return None
    return int(words[0]), (int(words[1]) if len(words) == 2 else None)


def _same_process(pid: int, stamp: int | None, marks: tuple[str, ...]) -> bool:
    """True when `pid` runs, its command line has one of `marks`, and it started at `stamp` (if known)."""
    if not is_running(pid):
        return False
    if stamp is not None and start_time(pid) != stamp:
        return False
    return any(mark in cmdline(pid) for mark in marks)


def _run_alive(run: int) -> bool:
    """True while the process that owns run `run` is alive and still that process."""
    stamp = None
    try:
        recorded = _recorded((run_dir(run) / "owner").read_text())
    except OSError:
        recorded = None
    if recorded is not None and recorded[0] == run:
        stamp = recorded[1]
    return _same_process(run, stamp, _RUN_MARKS)


def _registered_children(run: int) -> list[int]:
    """Registered children of `run` that still run and are still fctlab's (not a reused pid)."""
    try:
        text = (run_dir(run) / "pids").read_text()
    except OSError:
        return []
    children = []
    for line in text.splitlines():
        recorded = _recorded(line)
        if recorded is not None and _same_process(*recorded, _CHILD_MARKS):
            children.append(recorded[0])
    return children


def _remove_run(run: int, namespaces: list[str]) -> list[str]:
    """Kills a dead run's processes, deletes its namespaces and its directory; lines saying what went."""
    lines = []
    if namespaces and os.geteuid() != 0:
        # Without root their processes cannot be listed or killed, nor the namespaces deleted.
        lines.append(f"run {run}: left namespaces {', '.join(sorted(namespaces))}: removing them needs root")
        namespaces = []
    victims: dict[int, str] = {}
    for name in namespaces:
        for pid in namespace_pids(name):
            victims[pid] = f"process {pid} ({_short(cmdline(pid))}) in namespace {name}"
    for pid in _registered_children(run):
        victims.setdefault(pid, f"registered process {pid} ({_short(cmdline(pid))})")
    survivors = kill_and_wait(victims)
    lines += [f"run {run}: killed {what}" for pid, what in sorted(victims.items()) if pid not in survivors]
    if survivors:
        lines.append(f"run {run}: processes {survivors} survived SIGKILL; left its namespaces and directory")
        return lines
    delete_namespaces(namespaces)
    lines += [f"run {run}: deleted namespace {name}" for name in sorted(namespaces)]
    path = run_dir(run)
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
        lines.append(f"run {run}: removed {path}")
    return lines


def _short(text: str, limit: int = 60) -> str:
    """A command line cut to `limit` characters for a one-line report."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
