"""`fctlab sweep` under real signals: workers die with their parent, Ctrl-C and SIGTERM stop at once.

Each test starts the real command as a subprocess on a sweep of 12 runs of about 2 s each on
two workers (about 12 s of work), signals it, and checks what is left: the processes, the exit
code and message, and the runs on disk (every kept run complete, nothing half-written).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fctlab.result import load
from realcore import fake, small_dumbbell, wait_for  # noqa: F401  (fake: the compiled core)

RUNS = 12

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is `pid`."""
    kids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the command name (which may hold spaces): state, ppid, ...
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            kids.add(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _done(out: Path) -> list[Path]:
    return sorted(out.glob("*/seed*/done.json"))


@pytest.fixture
def sweep(tmp_path: Path) -> tuple[Path, Path]:
    spec = small_dumbbell(duration="60s")
    spec["topology"]["bottleneck_rate"] = "1Gbps"
    (tmp_path / "scenario.json").write_text(json.dumps(spec))
    path = tmp_path / "sweep.toml"
    path.write_text(f'scenario = "scenario.json"\nseeds = {RUNS}\n[[runs]]\nname = "base"\n')
    return path, tmp_path / "out"


def _start(sweep_file: Path, out: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "fctlab.cli", "sweep", str(sweep_file), "-o", str(out), "-j", "2", "-q"]
    # A session of its own: the test's cleanup can kill whatever is left, and a signal sent to
    # the parent reaches only the parent (the workers must be stopped by the sweep itself).
    return subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _kill_session(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _workers(proc: subprocess.Popen) -> set[int]:
    return _children(proc.pid)


def _check_kept_runs(out: Path) -> int:
    """Every run directory is complete (loads, has its marker); no temporary leftovers."""
    runs = sorted(p for p in out.glob("base/seed*") if p.is_dir())
    for r in runs:
        assert (r / "done.json").is_file(), f"{r} looks like a run but is incomplete"
        assert load(r).flows.height > 0
    assert not list(out.glob("base/.seed*.tmp-*")), "temporary directories left behind"
    return len(runs)


def test_kill_9_of_the_parent_takes_its_workers_down(sweep):
    sweep_file, out = sweep
    proc = _start(sweep_file, out)
    try:
        wait_for(lambda: len(_workers(proc)) >= 2, 30, "two worker processes")
        workers = _workers(proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        wait_for(lambda: not any(_alive(w) for w in workers), 5, "the workers to die with their parent")
        # Nothing goes on writing runs afterwards.
        before = _done(out)
        time.sleep(3)
        assert _done(out) == before
        assert len(before) < RUNS
    finally:
        _kill_session(proc)


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_signal_ends_the_sweep_at_once_keeping_finished_runs(sweep, signum, code):
    sweep_file, out = sweep
    proc = _start(sweep_file, out)
    try:
        wait_for(lambda: len(_done(out)) >= 1, 60, "a first finished run")
        workers = _workers(proc)
        t0 = time.monotonic()
        proc.send_signal(signum)
        rc = proc.wait(30)
        took = time.monotonic() - t0
        err = proc.stderr.read()
    finally:
        _kill_session(proc)
    # The queued runs would take about 10 s more on an idle machine (more on a loaded one, where
    # a stop also takes longer than its usual second): the stop must not wait for them - the
    # runs it left unfinished are the proof, the time a bound that a loaded CI machine meets.
    assert len(_done(out)) < RUNS, "the sweep ran its queued runs before stopping"
    assert took < 8.0, f"took {took:.1f} s to stop"
    assert rc == code, err
    assert "Traceback" not in err
    assert "finished and kept" in err and "run the same command again" in err
    wait_for(lambda: not any(_alive(w) for w in workers), 5, "the workers to be gone")
    kept = _check_kept_runs(out)
    assert 1 <= kept < RUNS
    assert f"interrupted: {kept} of {RUNS} runs" in err
